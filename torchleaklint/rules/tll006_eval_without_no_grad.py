"""TLL006: a model evaluated with autograd enabled."""

from __future__ import annotations

import ast
from typing import Iterator, Optional, Tuple

from torchleaklint.diagnostics import ERROR, SAFE, WARNING, FixSpec, Span
from torchleaklint.rules.base import Rule
from torchleaklint.rules.eval_region_fix import region_statements, smallest_first, wrap_is_safe
from torchleaklint.semantic import evaluation
from torchleaklint.semantic.evaluation import end_of, start_of
from torchleaklint.semantic.syntax import FUNCTION_TYPES, short_source as _short

_DECORATE_TITLE = "Decorate the function with `@torch.no_grad()`"
_WRAP_TITLE = "Wrap the evaluation in `with torch.no_grad():`"


class EvalWithoutNoGrad(Rule):
    """Model evaluated without `torch.no_grad()`.

    ## What it does
    Finds forward calls of a model in an evaluation context that run with autograd on.
    The evaluation context is the code after `model.eval()` up to the next
    `model.train()` in the same function (or script), and functions named like
    `evaluate`, `validate`, `validation`, `test`, `predict`, `infer`, `inference`. A call
    is fine under `with torch.no_grad()`, `torch.inference_mode()`,
    `torch.set_grad_enabled(...)`, in a function decorated with one of them, or in a
    function only ever called from such a region.

    ## Why is this bad?
    `model.eval()` only switches dropout and batch-norm behavior; it does not turn off
    autograd. Every forward pass still records a graph and keeps the activations it saved
    for a backward that never comes: evaluation needs two or more times the memory it
    should, and outputs collected for metrics keep their graphs alive.

    ## Example
    ```python
    def evaluate(model, loader):
        model.eval()
        correct = 0
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
        return correct
    ```

    ## Use instead
    ```python
    @torch.no_grad()
    def evaluate(model, loader):
        model.eval()
        correct = 0
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
        return correct
    ```

    The evaluated model runs a forward when it is called or when any of its methods is
    called on an input (`net.encode(x)`, `agent.get_action(obs)`); `net = Net().eval()`
    starts an evaluation region too.

    Not reported: evaluation that needs gradients on purpose (`.backward()`,
    `torch.autograd.grad`, `requires_grad_()` in the evaluation code: adversarial
    examples, saliency maps, influence functions), PyTorch Lightning
    `validation_step`/`test_step`/`predict_step` of a `LightningModule` and HuggingFace
    `Trainer` hooks (the framework disables gradients), `test_*` unit tests in test files and
    the helpers and tester classes they use (`*ModelTester.create_and_check_*`, a mixin the
    TestCases inherit), and one-off checks of a model on input the code wrote itself (a
    conversion script's sample sentence, a FLOP counter's tensor made from sizes, a warm-up
    whose result is dropped). Nor anything a link of the claim cannot be proven for: an evaluation-named method whose
    callers are not in view (they may run it under their own `no_grad`), or one whose result
    a training path back-propagates; a call on the other branch of the `if` that switched to
    evaluation; a model whose parameters were all frozen just before; a constructor call
    (`agent = Model(envs)`); housekeeping methods (`net.remove_weight_norm()`); code under a
    context or decorator named for turning autograd off that cannot be resolved
    (`torch.no_grad()` through `from utils import *`, a project's `@smart_inference_mode()`).

    ## Known problems
    A module of a class whose construction goes through a base class's hook in another module
    (`BaseModel.__init__` calling the subclass's `self._init(conf)`) is not proven free of
    parameters, so a forward of a parameter-free one (a loader of cached predictions) is still
    reported. Evaluation code for PyTorch before 0.4 that turned autograd off with
    `Variable(x, volatile=True)` is reported, with a note: `volatile` has had no effect since.

    ## Fix safety
    Safe. When the whole function is evaluation and contains no gradient code, the fix
    decorates it with `@torch.no_grad()`; no computed value changes. When only a part
    evaluates (a function or script that trains, then calls `model.eval()`), the fix wraps
    the statements after `model.eval()` in its block, up to the next `model.train()`, in
    `with torch.no_grad():`, provided they compute no gradients and no graph they build is
    used after them. Otherwise no fix is offered.
    """

    code = "TLL006"
    name = "eval-without-no-grad"
    summary = "Model evaluated with autograd enabled (no `torch.no_grad()`)"
    fix_title = "Turn autograd off for the evaluation (`@torch.no_grad()` or `with torch.no_grad():`)"
    fix_safety = SAFE
    tokens = ("eval", "valid", "test", "predict", "infer", "train(False)", "train(mode=False)")

    def check(self, model) -> Iterator:
        seen = set()
        for call, context in evaluation.evaluation_forwards(model):
            if id(call) in seen:
                continue
            seen.add(id(call))
            unit = model.unit_of(call)
            if evaluation.records_no_graph_or_is_wanted(model, call, unit, context):
                continue
            yield self.finding(call, self._message(model, call, unit, context), self._fix(model, call, unit, context),
                               # a result cut at once (`.cpu().numpy()`) retains nothing after the call
                               severity=WARNING if (model.value_killed_at(call) or _result_discarded(model, call)
                                                    or _graph_free_result(model.value(call)))
                               and model.callee_stores_on_its_object(call) is None else ERROR,
                               evidence=self._evidence(call, unit, context))

    def _evidence(self, call, unit, context) -> list:
        if context[4] is not None:
            start = (context[4], f"`{ast.unparse(context[4])}` switches to evaluation here")
        else:
            start = (unit, f"`{unit.name}` is an evaluation function: nothing in it computes gradients")
        return [start, (call, "this forward runs with autograd on (no `torch.no_grad()` / "
                              "`inference_mode()` around it), so it records a graph and keeps its activations")]

    def _message(self, model, call, unit, context) -> str:
        shown = _short(call)
        if context[1] is not None:
            where = f"after `{ast.unparse(context[4])}` at line {context[4].lineno}"
        else:
            where = f"in `{unit.name}`"
        advice = "wrap the evaluation in `with torch.no_grad():`"
        # decorating is advice only for a function that is evaluation from top to bottom: on
        # one that also trains, `@torch.no_grad()` would stop training
        if _decoratable(model, unit, context):
            advice = f"decorate `{unit.name}` with `@torch.no_grad()` or wrap the evaluation in `with torch.no_grad():`"
        elif evaluation.calls_handed_in_callable(model, unit, context[2], context[3]):
            advice = ("wrap this forward in `with torch.no_grad():`, not the whole evaluation: a callable it "
                      "was handed (an attack, a hook) may compute gradients")
        elif evaluation.has_gradient_code(model, unit, context[2], context[3]):
            advice = ("wrap this forward in `with torch.no_grad():`, not the whole evaluation: other code in it "
                      "computes gradients")
        kept_on = model.callee_stores_on_its_object(call)
        if kept_on is not None:
            # `memory.update_state(...)` writing `self.memory[src] = ...`: the graph outlives the call
            cost = (f"and the method stores what it computes on its object (`{kept_on}`), which keeps that "
                    f"graph and its activations alive after the call")
        elif model.shown_as_cell_output(model.parent(call)):
            # the last expression of a notebook cell: Jupyter keeps what it shows
            cost = ("and the notebook keeps the cell's result in `Out`, which holds this forward's graph and "
                    "activations until that output history is cleared")
        elif _result_discarded(model, call):
            # `model(x)` as a statement (to fire hooks): the graph dies with the statement
            cost = ("saving its activations for a backward that never comes while it runs; the result is "
                    "discarded, so they are freed when the statement ends (a higher peak and a slower "
                    "forward, not growth)")
        elif _graph_free_result(model.value(call)):
            # `self.asr.transcribe(feats)` returning `self.forward(x).argmax(-1)`: the graph dies
            # inside the method, once its result is made
            cost = ("holding its saved activations while the method runs; what it returns carries no graph "
                    "(a higher peak and slower forwards, not growth)")
        elif model.value_killed_at(call):
            # `model(x).cpu().numpy()`, `model(x).argmax(1).item()`: the graph dies with the
            # temporary result, so what is wasted is the recording during each forward
            cost = ("holding its saved activations until the result is cut right after (a higher peak "
                    "and slower forwards, not growth)")
        elif model.loops_around(call):
            # one batch's graph at a time unless the outputs are collected (TLL003 then says so)
            cost = ("keeping each batch's activations alive while its outputs are referenced "
                    "(evaluation memory doubles or worse)")
        else:
            cost = "keeping this forward's activations alive as long as its result is referenced"
        if evaluation.volatile_input(model, call):
            # pre-0.4 code that thought it had turned autograd off
            advice += " (`Variable(..., volatile=True)` has had no effect since PyTorch 0.4)"
        return (f"`{shown}` runs in evaluation ({where}) with autograd enabled: it records a graph nobody "
                f"back-propagates, {cost}; {advice}")

    def _fix(self, model, call, unit, context) -> Optional[FixSpec]:
        if _decoratable(model, unit, context):
            return FixSpec(codemod="add_no_grad_decorator", safety=SAFE, title=_DECORATE_TITLE,
                           target=Span.of(unit), params=(("torch_alias", _torch_alias(model)),))
        return self._region_fix(model, call, unit, context)

    def _region_fix(self, model, call, unit, context) -> Optional[FixSpec]:
        """`with torch.no_grad():` around the statements after `model.eval()` (see
        `eval_region_fix`), when they hold this call."""
        if context[4] is None:
            return None
        eval_stmt = model.statement_of(context[4])
        region = region_statements(model, eval_stmt, context[3])
        if not region or not (start_of(region[0]) <= start_of(call) and end_of(call) <= end_of(region[-1])):
            return None
        eval_named = isinstance(unit, FUNCTION_TYPES) and evaluation.eval_name(unit.name)
        # once per region, not once per finding: a region can hold thousands of forwards
        candidates = model.cached(("smallest_first", id(region), context[1]), lambda: smallest_first(region, context[1]))
        statements = next((s for s in candidates if end_of(call) <= end_of(s[-1]) and model.cached(
            ("wraps_safely", id(s[0]), id(s[-1]), eval_named), lambda s=s: self._wraps_safely(model, unit, s, eval_named))),
            None)
        if statements is None:
            return None
        return FixSpec(codemod="wrap_in_no_grad", safety=SAFE, title=_WRAP_TITLE, target=Span.of(eval_stmt),
                       params=(("torch_alias", _torch_alias(model)), ("first", _span(statements[0])),
                               ("last", _span(statements[-1]))))

    @staticmethod
    def _wraps_safely(model, unit, statements, eval_named: bool) -> bool:
        first, last = start_of(statements[0]), end_of(statements[-1])
        return evaluation.autograd_off_is_safe(model, unit, first, last) and \
            wrap_is_safe(model, unit, statements, eval_named)


def _result_discarded(model, call) -> bool:
    """The forward is a statement of its own (`model(x)` to fire hooks): nothing keeps its
    result (unless it ends a notebook cell, whose value Jupyter keeps in `Out`)."""
    return isinstance(model.parent(call), ast.Expr) and not model.shown_as_cell_output(model.parent(call))


def _decoratable(model, unit, context) -> bool:
    """`@torch.no_grad()` suits a function that is evaluation from top to bottom and computes
    no gradient anywhere; on one that also trains it would stop training."""
    return isinstance(unit, FUNCTION_TYPES) and evaluation.whole_function_is_eval(model, unit, context) and \
        evaluation.autograd_off_is_safe(model, unit, start_of(unit), end_of(unit))


def _span(node) -> Tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _torch_alias(model) -> Optional[str]:
    for alias, qual in model.imports.aliases.items():
        if qual == "torch":
            return alias
    return None


def _graph_free_result(value) -> bool:
    """A result proven to carry no graph (`argmax` labels, `(float(correct), n, loss.item())`,
    `softmax(self(x)).detach().numpy()`)."""
    if value.kind in ("tensor", "scalar", "data"):
        return True
    if value.kind == "sequence" and value.items is None and value.elem is not None and value.fields is None:
        return _graph_free_result(value.elem)  # a dict whose every entry was detached (`out[t].detach()`)
    return value.kind == "sequence" and value.items is not None and bool(value.items) and \
        all(_graph_free_result(item) for item in value.items)
