"""TLL006: a model evaluated with autograd enabled."""

from __future__ import annotations

import ast
import bisect
import os
from typing import Dict, Iterator, List, Optional, Tuple

from torchleaklint.diagnostics import SAFE, FixSpec, Span
from torchleaklint.rules.base import Rule
from torchleaklint.rules.eval_region_fix import region_statements, wrap_is_safe
from torchleaklint.semantic import torch_api
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.model import FUNCTION_TYPES
from torchleaklint.semantic.values import CONTEXT, DATA, DATALOADER, DATASET, MODULE, SCALAR, SEQUENCE
from torchleaklint.semantic.syntax import short_source as _short

# Words of a function name (split on `_`) that make it an evaluation function.
EVAL_WORDS = frozenset({"evaluate", "evaluation", "eval", "validate", "validation", "test", "predict",
                        "prediction", "infer", "inference"})
_NOT_A_MODEL = frozenset({SCALAR, SEQUENCE, DATA, DATALOADER, DATASET, CONTEXT, "none", "optimizer", "loss_fn",
                          "ref", "function", "class"})
# APIs that differentiate through the model: their presence means gradients are wanted.
_GRADIENT_APIS = ("torch.autograd.", "torch.func.", "functorch.", "captum.")
# The legacy tensor wrapper lives in torch.autograd but computes no gradient (old eval code
# wraps its inputs in `Variable(x, volatile=True)`, a no-op since PyTorch 0.4).
_NOT_GRADIENT_CODE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})

Position = Tuple[int, int]


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

    Not reported: evaluation that needs gradients on purpose (`.backward()`,
    `torch.autograd.grad`, `requires_grad_()` in the evaluation code: adversarial
    examples, saliency maps, influence functions), PyTorch Lightning
    `validation_step`/`test_step`/`predict_step` and HuggingFace `Trainer` hooks (the
    framework disables gradients), and `test_*` unit tests in test files.

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
        for call, context in self._candidates(model):
            if id(call) in seen:
                continue
            seen.add(id(call))
            unit = model.unit_of(call)
            if self._exempt(model, call, unit, context):
                continue
            yield self.finding(call, self._message(call, unit, context), self._fix(model, call, unit, context))

    # An evaluation context is (kind, receiver, start, end, eval_call): "region" after
    # `receiver.eval()`, or "name" for a whole function named like evaluation.
    def _candidates(self, model) -> Iterator:
        calls = _calls_by_unit(model)
        for region in _eval_regions(model):
            receiver, start, end = region[1], region[2], region[3]
            for call in calls.get(region[0], []):
                if start <= _pos(call) < end and _calls_receiver(call, receiver):
                    yield call, region
        for func in model.functions:
            if not _eval_name(func.name) or _is_unit_test(model, func):
                continue
            for call in calls.get(func, []):
                if _is_model_call(model, call):
                    yield call, (func, None, _pos(func), _end(func), None)

    def _exempt(self, model, call, unit, context) -> bool:
        if model.grad_disabled_at(call) or _in_grad_mode_block(model, call):
            return True
        if isinstance(unit, FUNCTION_TYPES):
            if _is_unit_test(model, unit) or model.framework_runs_without_grad(unit):
                return True
            info = model.class_of(unit)
            if info is not None and (model.is_hf_trainer_class(info) or model.class_is(info, "LightningModule")
                                     and unit.name.endswith("_step")):
                return True
        start, end = context[2], context[3]
        return _has_gradient_code(model, unit, start, end)

    def _message(self, call, unit, context) -> str:
        shown = _short(call)
        if context[1] is not None:
            where = f"after `{ast.unparse(context[4])}` at line {context[4].lineno}"
        else:
            where = f"in `{unit.name}`"
        advice = "wrap the evaluation in `with torch.no_grad():`"
        if isinstance(unit, FUNCTION_TYPES):
            advice = f"decorate `{unit.name}` with `@torch.no_grad()` or wrap the evaluation in `with torch.no_grad():`"
        return (f"`{shown}` runs in evaluation ({where}) with autograd enabled: it records a graph nobody "
                f"back-propagates, keeping activations alive and doubling evaluation memory; {advice}")

    def _fix(self, model, call, unit, context) -> Optional[FixSpec]:
        if isinstance(unit, FUNCTION_TYPES) and _whole_function_is_eval(model, unit, context) and \
                not _has_gradient_code(model, unit, _pos(unit), _end(unit)):
            return FixSpec(codemod="add_no_grad_decorator", safety=SAFE, title=_DECORATE_TITLE,
                           target=Span.of(unit), params=(("torch_alias", _torch_alias(model)),))
        return self._region_fix(model, call, unit, context)

    def _region_fix(self, model, call, unit, context) -> Optional[FixSpec]:
        """`with torch.no_grad():` around the statements after `model.eval()` (see
        `eval_region_fix`), when they hold this call."""
        if context[4] is None:
            return None
        eval_stmt = model.statement_of(context[4])
        statements = region_statements(model, eval_stmt, context[3])
        if not statements or not (_pos(statements[0]) <= _pos(call) and _end(call) <= _end(statements[-1])):
            return None
        if _has_gradient_code(model, unit, _pos(statements[0]), _end(statements[-1])):
            return None
        eval_named = isinstance(unit, FUNCTION_TYPES) and _eval_name(unit.name)
        if not wrap_is_safe(model, unit, statements, eval_named):
            return None
        return FixSpec(codemod="wrap_in_no_grad", safety=SAFE, title=_WRAP_TITLE, target=Span.of(eval_stmt),
                       params=(("torch_alias", _torch_alias(model)), ("first", _span(statements[0])),
                               ("last", _span(statements[-1]))))


_DECORATE_TITLE = "Decorate the function with `@torch.no_grad()`"
_WRAP_TITLE = "Wrap the evaluation in `with torch.no_grad():`"


def _span(node) -> Tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _pos(node) -> Position:
    return (node.lineno, node.col_offset)


def _end(node) -> Position:
    return (node.end_lineno or node.lineno, node.end_col_offset or 0)


def _calls_by_unit(model) -> Dict[ast.AST, List[ast.Call]]:
    out: Dict[ast.AST, List[ast.Call]] = {}
    for call in model.calls:
        out.setdefault(model.unit_of(call), []).append(call)
    return out


def _mode_switch(call) -> Optional[str]:
    """'eval' for `m.eval()` / `m.train(False)`, 'train' for `m.train()` / `m.train(True)`."""
    func = call.func
    if not isinstance(func, ast.Attribute) or dotted(func.value) is None:
        return None
    if func.attr == "eval" and not call.args and not call.keywords:
        return "eval"
    if func.attr == "train" and len(call.args) + len(call.keywords) <= 1:
        flag = call.args[0] if call.args else (call.keywords[0].value if call.keywords else None)
        if isinstance(flag, ast.Constant) and flag.value is False:
            return "eval"
        return "train"  # train(), train(True), or train(mode) restoring a saved mode
    return None


def _eval_regions(model) -> Iterator[Tuple]:
    """(unit, receiver, start, end, eval_call): from `receiver.eval()` to the next
    `receiver.train()` in source order in the same function (or module body)."""
    switches: Dict[Tuple[ast.AST, str], List[Tuple[Position, str, ast.Call]]] = {}
    for call in model.calls:
        kind = _mode_switch(call)
        if kind is None:
            continue
        receiver = dotted(call.func.value)
        if kind == "eval" and (model.value(call.func.value).kind in _NOT_A_MODEL
                               or not _switches_mode_in_place(model, call, receiver)):
            continue
        switches.setdefault((model.unit_of(call), receiver), []).append((_pos(call), kind, call))
    for (unit, receiver), events in switches.items():
        events.sort(key=lambda e: e[0])
        for i, (position, kind, call) in enumerate(events):
            if kind != "eval":
                continue
            end = next((p for p, k, _ in events[i + 1:] if k == "train"), (10 ** 9, 0))
            yield unit, receiver, _end(model.statement_of(call)), end, call


def _switches_mode_in_place(model, call, receiver) -> bool:
    """`model.eval()` as a statement, `model = model.eval()`, `model.eval().to(dev)`: the
    named model is now evaluated. Not `torch.jit.freeze(f.eval())` or `trace(m.eval(), x)`,
    where the module is handed to a transform (a compile or export step, not evaluation)."""
    outer = call
    parent = model.parent(outer)
    while isinstance(parent, ast.Attribute) and isinstance(model.parent(parent), ast.Call) and \
            model.parent(parent).func is parent:
        outer = model.parent(parent)  # a method chain on the result: .to(device), .cuda()
        parent = model.parent(outer)
    if isinstance(parent, ast.Expr):
        return True
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is outer:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        return any(dotted(t) == receiver for t in targets)
    return False


def _calls_receiver(call, receiver: str) -> bool:
    func = call.func
    if dotted(func) == receiver:
        return True
    return isinstance(func, ast.Attribute) and func.attr == "forward" and dotted(func.value) == receiver


def _eval_name(name: str) -> bool:
    return bool(EVAL_WORDS & set(name.lower().strip("_").split("_")))


def _is_model_call(model, call) -> bool:
    if model.value(call.func).kind == MODULE:
        return True
    func = call.func
    return isinstance(func, ast.Attribute) and func.attr == "forward" and model.value(func.value).kind == MODULE


def _is_test_file(path: str) -> bool:
    norm = path.replace(os.sep, "/")
    base = os.path.basename(norm)
    return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py" or \
        "/tests/" in f"/{norm}" or "/test/" in f"/{norm}"


def _is_unit_test(model, func) -> bool:
    """A pytest/unittest test function in a test file (or code nested in one, such as a
    callback class defined inside the test): it exercises code, it is not an evaluation
    loop."""
    if not _is_test_file(model.path):
        return False
    scopes = [func] + [a for a in model.ancestors(func) if isinstance(a, FUNCTION_TYPES)]
    return any(scope.name.startswith("test") for scope in scopes)


def _in_grad_mode_block(model, call) -> bool:
    """Inside `with torch.set_grad_enabled(...)` / `torch.enable_grad()`: the author set the
    grad mode deliberately (`set_grad_enabled(phase == "train")`)."""
    for anc in model.ancestors(call):
        if isinstance(anc, FUNCTION_TYPES + (ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(anc, (ast.With, ast.AsyncWith)):
            for item in anc.items:
                expr = item.context_expr
                target = expr.func if isinstance(expr, ast.Call) else expr
                qual = model.qualname(target) or ""
                if torch_api.grad_context(qual) in ("set", "on"):
                    return True
    return False


def _has_gradient_code(model, unit, start: Position, end: Position) -> bool:
    """Gradients computed on purpose between start and end: a backward, `autograd.grad`,
    `requires_grad_()`, `x.requires_grad = True`, `torch.enable_grad()`. The unit is walked
    once (every finding asks): a range query on the sorted positions of its gradient code."""
    positions = model.cached(("tll006_gradient_code", unit), lambda: _gradient_code_positions(model, unit))
    first = bisect.bisect_left(positions, start)
    return first < len(positions) and positions[first] < end


def _gradient_code_positions(model, unit) -> List[Position]:
    body = unit.body if hasattr(unit, "body") else []
    return sorted(_pos(node) for stmt in body for node in ast.walk(stmt)
                  if hasattr(node, "lineno") and _is_gradient_code(model, node))


def _is_gradient_code(model, node) -> bool:
    if isinstance(node, ast.Call):
        func = node.func
        if model.backward_target(node) is not None:
            return True
        if isinstance(func, ast.Attribute) and func.attr in ("requires_grad_", "retain_grad"):
            return True
        qual = model.qualname(func) or ""
        return bool(qual.startswith(_GRADIENT_APIS) and qual not in _NOT_GRADIENT_CODE
                    or torch_api.grad_context(qual) == "on")
    if isinstance(node, ast.Attribute) and node.attr == "requires_grad" and isinstance(node.ctx, ast.Store):
        return True
    return isinstance(node, ast.keyword) and node.arg == "requires_grad"


def _whole_function_is_eval(model, func, context) -> bool:
    """The function evaluates from its first statement on; a `model.train()` that only
    restores the mode at the end (nothing but a plain `return` after it) is allowed.
    Memoized: every finding in the function asks."""
    key = ("tll006_whole_function_is_eval", func, context[1] is None, context[4])
    return model.cached(key, lambda: _whole_function_is_eval_uncached(model, func, context))


def _whole_function_is_eval_uncached(model, func, context) -> bool:
    body = func.body
    for index, stmt in enumerate(body):
        if any(isinstance(n, ast.Call) and _mode_switch(n) == "train" for n in ast.walk(stmt)):
            rest = body[index + 1:]
            if not (isinstance(stmt, ast.Expr) and all(_plain_return(s) for s in rest)):
                return False
    if context[1] is None:
        return True
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return bool(body) and model.statement_of(context[4]) is body[0]


def _plain_return(stmt) -> bool:
    return isinstance(stmt, ast.Return) and not any(isinstance(n, ast.Call) for n in ast.walk(stmt))


def _torch_alias(model) -> Optional[str]:
    for alias, qual in model.imports.aliases.items():
        if qual == "torch":
            return alias
    return None
