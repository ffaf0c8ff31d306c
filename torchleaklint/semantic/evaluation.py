"""Evaluation phases: which forwards of a module run in evaluation, with autograd on.

An evaluation context is (unit, receiver, start, end, eval_call): the statements after
`receiver.eval()` up to the next `receiver.train()` in the same function (or module body),
or, with receiver and eval_call None, a whole function that is evaluation by its name and by
how its callers (in this module or, from their summaries, in others) run it. Then whether a
forward there records a graph nobody uses, or cannot be decided. TLL006 asks these questions
for its findings and for the safety of its `no_grad` fixes.
"""

from __future__ import annotations

import ast
import bisect
import os
from typing import Dict, Iterator, List, Optional, Set, Tuple

from torchleaklint.semantic import torch_api
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.flags import flags_decide_forward
from torchleaklint.semantic.probes import probes_the_module
from torchleaklint.semantic.syntax import (FUNCTION_TYPES, is_stub, nodes_within, passed_argument,
                                          positional_parameters, self_name, walk)
from torchleaklint.semantic.values import CONTEXT, DATA, DATALOADER, DATASET, INSTANCE, LEAF, MODULE, NONE, REF, SCALAR, SEQUENCE, \
    TENSOR, UNKNOWN

# Words of a function name (split on `_`) that make it an evaluation function.
EVAL_WORDS = frozenset({"evaluate", "evaluation", "eval", "validate", "validation", "test", "predict",
                        "prediction", "infer", "inference"})
_NOT_A_MODEL = frozenset({SCALAR, SEQUENCE, DATA, DATALOADER, DATASET, CONTEXT, "none", "optimizer", "loss_fn",
                          "ref", "function", "class"})
# APIs that differentiate through the model: their presence means gradients are wanted.
_GRADIENT_APIS = ("torch.autograd.", "torch.func.", "functorch.", "captum.")
# Methods that ask for gradients or hook the backward: `x.requires_grad_()`, `h.retain_grad()`,
# `t.register_hook(fn)`, `m.register_full_backward_hook(fn)`.
_GRADIENT_METHODS = frozenset({"requires_grad_", "retain_grad", "register_hook", "register_backward_hook",
                               "register_full_backward_hook", "register_full_backward_pre_hook"})
# Attributes of the recorded graph itself.
_GRAPH_ATTRIBUTES = frozenset({"grad_fn", "next_functions"})
# The legacy tensor wrapper lives in torch.autograd but computes no gradient (old eval code
# wraps its inputs in `Variable(x, volatile=True)`, a no-op since PyTorch 0.4).
_NOT_GRADIENT_CODE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})

# How many evaluation-named helpers deep a method defers to its caller (bounded, and no cache
# inside the chain: the answer does not depend on which function was asked first).
MAX_HELPER_DEPTH = 2

Position = Tuple[int, int]


def evaluation_forwards(model) -> Iterator[Tuple[ast.Call, tuple]]:
    """Each forward of a module that runs in an evaluation context, with that context."""
    calls = _calls_by_unit(model)
    for region in _eval_regions(model):
        receiver, start, end = region[1], region[2], region[3]
        if isinstance(region[0], FUNCTION_TYPES) and (_is_module_forward(model, region[0])
                                                      or _pins_own_submodule(model, region[0], receiver)) \
                and not _grad_on_decorated(model, region[0]):
            continue  # `self.module.eval()` in a wrapper's forward pins a mode: its caller decides grad
            # (not under `@torch.enable_grad()`, which turns autograd on whatever the caller does)
        if isinstance(region[0], FUNCTION_TYPES) and (receiver == "self" or _is_closure(model, region[0])) \
                and not _callers_in_view(model, region[0]):
            continue  # `self.eval()` in a method, or a closure handed out (`return model_fn`), that
            # nobody here calls: its callers decide grad
        if isinstance(region[0], FUNCTION_TYPES) and receiver.startswith("self.") \
                and not _callers_in_view(model, region[0]) and (
                    model.handed_out(region[0]) or _overrides_a_method_of_another_module(model, region[0])):
            continue  # `self.model.eval()` in a method handed out as a callback
            # (`self.run_stage("evaluate", self.evaluate)`), or in the override of a base class's
            # method of another module (`_validate()`, run by the base's `validate()`), whose
            # callers decide grad
        for call in calls.get(region[0], []):
            if start <= start_of(call) < end and not _other_branch(model, region[4], call) and (
                    _calls_receiver(call, receiver) and _forward_of_a_module(model, call, receiver)
                    or _runs_the_switched_part(model, call, receiver)):
                yield call, region
    for func in model.functions:
        if not eval_name(func.name) or is_unit_test(model, func) or not _evaluation_by_name(model, func):
            continue
        for call in calls.get(func, []):
            if _is_model_call(model, call) and not _left_off_by_every_caller_with_grad(model, func, call):
                yield call, (func, None, start_of(func), end_of(func), None)


def _left_off_by_every_caller_with_grad(model, func, call) -> bool:
    """Is `call` behind a flag of `func` (`if compute_metrics is not None:`, the parameter
    defaulting to None) that every call of `func` in view with autograd on leaves off (by
    the default or a literal), the only calls setting it running under no-grad? Calls exist,
    all in this module."""
    flags = model.flag_guarding_call(call, func)
    if not flags or model.external_sites(func) or model.handed_out(func):
        return False
    sites = [site for site in _sites_including_self_calls(model, func) if model.unit_of(site) is not func]
    return bool(sites) and all(model.grad_disabled_at(site) or flags_decide_forward(site, flags) is False
                               for site in sites)


def _method_runs_forward_with_grad(model, call) -> bool:
    """`self.asr.transcribe(feats)`: a method of a module class of this file, not decorated
    no-grad, whose body runs the module's own forward (`self.forward(x)`, `self(x)`) outside
    any no-grad block."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr in ("forward", "__call__"):
        return False
    method = model.resolve_call(call)
    if method is None:
        # a method of a module class of another module (`policy.act(obs)`): its summary says
        callee = model.value(call.func)
        if callee.kind != REF or not callee.name or model.project is None or "." not in callee.name:
            return False
        owner, _, attr = callee.name.rpartition(".")
        found = model.project.method_of(owner, attr)
        return found is not None and found[0] == "function" and isinstance(found[1], dict) and \
            bool(found[1].get("fwd_self"))
    return runs_own_forward_with_grad(model, method)


def runs_own_forward_with_grad(model, method) -> bool:
    """Is `method` one of a module class of this file, not decorated no-grad, whose body runs
    the module's own forward (`self.forward(x)`, `self(x)`) outside any no-grad block, or the
    forward of a part it holds that has parameters (a sampler's `self.net(x, t)` per step)?"""
    info = model.class_of(method)
    if info is None or not model.is_module_class(info) or model.grad_off_decorated(method):
        return False
    forward = model.method(info.name, "forward")
    if forward is None or model.grad_off_decorated(forward):
        return False  # its forward runs under `@torch.no_grad()` itself
    receiver = self_name(method)
    return receiver is not None and any(
        isinstance(node, ast.Call) and not model.grad_disabled_at(node) and (
            dotted(node.func) in (receiver, f"{receiver}.forward") or _a_part_with_parameters(model, node.func, receiver))
        for node in walk(method))


def parts_forwarded_with_grad(model, method) -> List[str]:
    """The attributes of its object that a method (not decorated no-grad) calls with an input
    outside any no-grad block (`self.model(state)` in an agent's `act`): the parts whose
    forwards it runs, whichever class they are of."""
    receiver = self_name(method)
    info = model.class_of(method)
    if receiver is None or info is None or model.grad_off_decorated(method):
        return []
    # (not a method of its class, `self.compute_ratio(i)`, nor `self.__getattr__(name)`)
    return sorted({node.func.attr for node in walk(method) if isinstance(node, ast.Call)
                   and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                   and node.func.value.id == receiver and (node.args or node.keywords)
                   and not node.func.attr.startswith("__") and model.method(info.name, node.func.attr) is None
                   and not model.grad_disabled_at(node) and not _in_grad_mode_block(model, node)})
    # (not under `torch.set_grad_enabled(not validation)`: the caller's argument sets the mode)


def _runs_the_switched_part(model, call, receiver: str) -> bool:
    """`agent.act(s, mask)` after `agent.model.eval()`: a method of the object holding the
    switched part that runs that part's forward with grad on (its class's method in this
    file, or another module's from its summary)."""
    owner, _, part = receiver.rpartition(".")
    func = call.func
    if not owner or not isinstance(func, ast.Attribute) or dotted(func.value) != owner \
            or not (call.args or call.keywords) or eval_name(func.attr):
        return False  # (a method named for evaluation, `eval_batch`: its own forwards are judged
        # where they are, by its name)
    holder = model.value(func.value)
    if holder.kind not in (INSTANCE, MODULE) or not holder.name:
        return False
    unit = model.unit_of(call)
    if any(isinstance(node, ast.Attribute) and dotted(node) == receiver and model.value(node).frozen
           for node in nodes_within(unit)):
        return False  # a frozen part (a distillation teacher): its forward records a graph only
        # from inputs that carry one
    if holder.name in model.classes:
        method = model.method(holder.name, func.attr)
        return method is not None and part in parts_forwarded_with_grad(model, method)
    found = model.project.method_of(holder.name, func.attr) if model.project is not None and "." in holder.name else None
    return found is not None and found[0] == "function" and isinstance(found[1], dict) \
        and part in (found[1].get("fwdp") or ())


def _a_part_with_parameters(model, func, receiver: str) -> bool:
    """`self.net` of `self.net(x, t)`: a module the object holds, with parameters of its own."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == receiver \
        and model.value(func).kind == MODULE and not model.holds_no_parameters(func)


def _method_ignoring_its_object(model, call) -> bool:
    """Is `call` a method call (`model.loss(...)`) that runs a method of this module whose body
    never reads its receiver (`return F.cross_entropy(scores, labels)`), or reads it only to call
    submodules holding no parameter (`self.act(...)` of an `nn.ReLU`)? It computes only from its
    arguments: no parameter of the object records anything."""
    if not isinstance(call.func, ast.Attribute):
        return False
    method = model.resolve_call(call)
    if not isinstance(method, FUNCTION_TYPES) or model.class_of(method) is None:
        return False
    receiver = self_name(method)  # (None for a static or class method)
    if receiver is None:
        return False
    return all(_reads_no_parameter(model, n) for body in method.body for n in walk(body)
               if isinstance(n, ast.Name) and n.id == receiver)


def _reads_no_parameter(model, name: ast.Name) -> bool:
    """Is this read of a method's receiver the call of a submodule holding no parameter
    (`self.act(torch.matmul(x, w.t()))` with `self.act = nn.ReLU()`)? Its graph is then that
    of the inputs alone."""
    parent = model.parent(name)
    if not isinstance(parent, ast.Attribute) or parent.value is not name:
        return False
    call = model.parent(parent)
    return isinstance(call, ast.Call) and call.func is parent and model.holds_no_parameters(parent)


_KNOWN_MODEL_LIBRARIES = ("torch", "torchvision", "timm", "transformers", "diffusers", "peft", "lightning",
                          "pytorch_lightning", "torchaudio", "sentence_transformers")


def _receiver_only_opaque_objects(model, call, unit) -> bool:
    """Is the module the forward runs a parameter of `unit` (`model(batch)` in
    `get_activations(images, model)`) that every call in view (one at least, none from another
    module) hands an object built by a class of a package out of view (`InceptionV3(...)` of
    `from inception import InceptionV3`, no such module in the project), directly or through
    the parameters of callers, two levels? Whether such an object's parameters require grad
    (pytorch-fid's do not) cannot be read: no finding rests on it."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else call.func
    if not isinstance(receiver, ast.Name) or not isinstance(unit, FUNCTION_TYPES):
        return False
    return model.cached(("only_opaque_objects", unit, receiver.id),
                        lambda: _handed_only_opaque_objects(model, unit, receiver.id, 0))


def _handed_only_opaque_objects(model, func, name: str, depth: int) -> bool:
    params = positional_parameters(func)
    index = next((i for i, p in enumerate(params) if p.arg == name), None)
    if index is None or depth > 2 or model.external_sites(func):
        return False
    if model.class_of(func) is not None:
        index -= 1
    sites = model.call_sites(func)
    if not sites:
        return False
    for site in sites:
        passed = passed_argument(site, name, index)
        if isinstance(passed, ast.Name):
            caller = model.unit_of(site)
            handed_on = isinstance(caller, FUNCTION_TYPES) and \
                any(p.arg == passed.id for p in positional_parameters(caller))
            if handed_on:  # the caller's own parameter: what its callers hand it
                if not _handed_only_opaque_objects(model, caller, passed.id, depth + 1):
                    return False
                continue
            stmts = [model.statement_of(d) for d in model.reaching(caller).definitions(passed)]
            if not stmts or not all(isinstance(s, ast.Assign) and _built_by_an_opaque_class(model, s.value)
                                    for s in stmts):
                return False
        elif not _built_by_an_opaque_class(model, passed):
            return False
    return True


def _built_by_an_opaque_class(model, expr) -> bool:
    """`InceptionV3([idx])` (also `.to(device)`, `.cuda()`, `.eval()` of it): a class imported from a
    module that is neither in the project nor a known model library."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
            expr.func.attr in torch_api.MODULE_SELF_METHODS:
        expr = expr.func.value
    if not isinstance(expr, ast.Call):
        return False
    callee = model.value(expr.func)
    qualname = callee.name or ""
    if callee.kind != REF or not qualname or "." not in qualname or model.value(expr).kind != UNKNOWN:
        return False
    root = qualname.split(".", 1)[0]
    if root in _KNOWN_MODEL_LIBRARIES or model.project is not None and model.project.is_first_party(qualname):
        return False
    return dotted(expr.func) is not None and qualname.rsplit(".", 1)[-1][:1].isupper()


def records_no_graph_or_is_wanted(model, call, unit, context) -> bool:
    """The forward `call` (in `unit`, evaluation `context`) records no graph (autograd off, a
    parameterless or frozen module, a number), or one that is used (gradients computed, the
    result back-propagated by a training path), or runs under a framework that turns autograd
    off, or cannot be decided: no finding."""
    if model.grad_disabled_at(call) or _in_grad_mode_block(model, call) or \
            _inside_unknown_context_of(model, call):
        return True
    if model.value(call).kind == "tensor" and not _method_runs_forward_with_grad(model, call):
        return True  # proven graph-free: a parameterless module of this file on inputs without grad
    if model.value(call).kind in (INSTANCE, DATASET, DATALOADER) and not _method_runs_forward_with_grad(model, call):
        return True  # `sampler.get_predictor(transform)` building a predictor object (here or, from its
        # summary, in another module): no forward runs, no tensor comes out
        # (not a method that runs the forward with grad on and returns a number of it: `transcribe`
        # returning `self.forward(x).argmax(-1)` records the forward's graph all the same)
    if _forward_decorated_no_grad(model, model.value(call.func)):
        return True  # its class's forward runs under `@torch.no_grad()` (here or in its module)
    if _asserted_to_call_without_grad(model, call, unit):
        return True  # `assert isinstance(predictor, OCRPredictor)`, whose forward is under inference_mode
    if model.holds_no_parameters(call.func) or isinstance(call.func, ast.Attribute) and \
            model.holds_no_parameters(call.func.value):
        return True  # `self.act(h)`, `clip.encode(prompts)` of a frozen encoder: a module without
        # trainable parameters records a graph only from its input, whose own forward is the one to report
    if _method_ignoring_its_object(model, call):
        return True  # `model.loss(scores, labels)` whose body never reads `self`: no parameter of
        # the model takes part; its graph is that of its inputs, whose forward is reported
    if _extends_a_graph_and_is_cut_at_once(model, call):
        return True  # `criterion(logits, y).item()` on the output of a forward reported above
    if isinstance(unit, FUNCTION_TYPES):
        if is_unit_test(model, unit) or model.framework_runs_without_grad(unit):
            return True
        info = model.class_of(unit)
        if info is not None and (model.is_hf_trainer_class(info) or model.class_is(info, "LightningModule")
                                 and unit.name.endswith("_step")):
            return True
    start, end = context[2], context[3]
    if isinstance(unit, FUNCTION_TYPES) and _only_called_without_grad(model, unit):
        return True  # every call in view, in any module, runs under no-grad
    if isinstance(unit, FUNCTION_TYPES) and _only_called_where_the_grad_mode_is_set(
            model, unit, guards=_flags_guarding(model, call, unit)):
        return True  # every call in view runs inside `with torch.set_grad_enabled(args.train or ...)`
        # (or no-grad): the author chose the grad mode at the call, and it cannot be told here
    if model.runs_only_without_grad(model.statement_of(call), seen_enabled=True):
        return True  # behind an opt-in flag (`if marginal:`) that only no-grad calls turn on
    if model.default_path_runs_only_without_grad(model.statement_of(call)):
        return True  # `else` of `if run_fn is not None:`, and every call leaving `run_fn` out is under no-grad
    if context[1] is None and _result_back_propagated(model, unit):
        return True  # a `predict` that training back-propagates through is training code
    if context[1] is not None and _returned_into_a_loss(model, call, unit):
        return True  # `G.eval()` on a frozen generator in `e_loss`, whose returned loss goes
        # through `G(latents)`: the forward is part of the encoder's training graph
    if _receiver_frozen_before(model, call, unit):
        return True  # every parameter has requires_grad off: the forward records no graph
    if _declared_scalar_result(model, call, unit):
        return True  # `valid_length: int` then `valid_length = model.valid_length(n)`: a number
    if _result_made_numpy(model, call, unit):
        return True  # `samples.cpu().numpy()` would raise on a tensor that records a graph
    if probes_the_module(model, call, unit):
        return True  # a smoke test of an untrained network built here, or a shape read of a
        # forward on made-up input: nothing is evaluated, and the graph goes when the function returns
    if _result_differentiated_here(model, call, unit):
        return True  # `critic_value = self.critic.forward(s, a)` after `critic.eval()`, then
        # `F.mse_loss(target, critic_value).backward()`: training code in eval mode
    if _callee_computes_gradients(model, call, eval_mode=context[4] is not None):
        return True  # a forward that differentiates inside (an energy minimized by autograd)
    if _model_of_a_class_chosen_at_run_time(model, call):
        return True  # `utils.get_class(conf.model_class)(conf)` in a project whose surface model's
        # forward differentiates the SDF for its normals: no_grad may break whichever class runs
    if _receiver_only_opaque_objects(model, call, unit):
        return True  # `get_activations(images, model)` handed only `InceptionV3(...)` of a package
        # not in view (pytorch-fid's, whose parameters do not require grad): nothing proves a graph
    if _unknown_wrapper_handed_a_module(model, call):
        return True  # `method(model=model, support=s, query=q)`: a few-shot method that may
        # fine-tune the model it is handed at test time; what its forward does is not in view
    if _input_made_differentiable(model, call, unit):
        return True  # gradients with respect to the input are wanted (a PDE operator on the outputs)
    if context[1] is not None and context[4] is not None and _on_a_branch_apart(model, context[4], call, unit):
        start = _eval_span_start(model, unit, context[1], start)  # an earlier `eval()` it continues
    return has_gradient_code(model, unit, start, end, forward=call)


def _on_a_branch_apart(model, eval_call, call, unit) -> bool:
    """Is `eval_call` under an `if`/`try` that does not hold `call` (it may not have run)?"""
    for anc in model.ancestors(eval_call):
        if anc is unit:
            return False
        if isinstance(anc, (ast.If, ast.Try)) and not model.is_inside(call, anc):
            return True
    return False


def _eval_span_start(model, unit, receiver: str, start: Position) -> Position:
    """Where the eval mode that holds at `start` began: the first `receiver.eval()` after the
    last `receiver.train()` before it. A later `eval()` on a branch apart from the forward
    (`model.to(half); model.eval()`) may not have run; gradient code under the first one (an
    attack's `autograd.grad` on the model it put in eval mode) belongs to the same span."""
    events = sorted((start_of(call), kind) for call in _calls_by_unit(model).get(unit, [])
                    for kind in [_mode_switch(call)] if kind is not None and dotted(call.func.value) == receiver)
    span = start
    for position, kind in reversed([e for e in events if e[0] < start]):
        if kind == "train":
            break
        span = position
    return span


def _returned_into_a_loss(model, call, unit) -> bool:
    """Does what the forward computes go into what `unit` returns, and is that a loss: the
    function is named for one (`e_loss`, `compute_loss`) or a training path back-propagates
    its result? Then the mode switch only fixes dropout and normalization for a model
    trained through (or a frozen one used inside a loss), and no_grad would cut training."""
    if not isinstance(unit, FUNCTION_TYPES) or not model.cached(
            ("returns_a_loss", unit),
            lambda: "loss" in unit.name.lower() or _result_back_propagated(model, unit, handed_on=False)):
        return False
    stmt = model.statement_of(call)
    returned = model.cached(("graph_returns", unit), lambda: [
        node for node in walk(unit) if isinstance(node, ast.Return) and node.value is not None
        and model.unit_of(node) is unit and model.carries_graph(node.value)])
    return any(model.is_inside(call, node) or model.feeds(call, stmt, node.value) for node in returned)


def _extends_a_graph_and_is_cut_at_once(model, call) -> bool:
    """A module applied to what another forward returned (a graph-carrying argument), whose
    own result is cut in the same expression (`criterion(logits, y).item()`): the graph is the
    other forward's, reported there, and nothing this call adds outlives the statement."""
    if not model.value_killed_at(call):
        return False
    arguments = list(call.args) + [kw.value for kw in call.keywords]
    if any(model.value(arg).kind == LEAF or isinstance(arg, ast.Attribute) and model.value(arg).kind == UNKNOWN
           for arg in arguments):
        return False  # handed parameters, or attributes that may be (`criterion(model.decoder.weight,
        # ..., output, y)`): a graph of its own from them (an adaptive softmax over the vocabulary)
    return any(model.carries_graph(arg) for arg in arguments)


# methods that keep a tensor's autograd graph (and its requires_grad) on the value they return
_GRAPH_KEEPING = frozenset({"cpu", "cuda", "to", "float", "double", "half", "squeeze", "unsqueeze", "permute",
                            "transpose", "reshape", "view", "contiguous", "clone", "flatten", "clamp", "clip"})


def _result_made_numpy(model, call, unit) -> bool:
    """The output of a forward (`net(x)`, `self.model_(batch)`, `net.forward(x)`) goes to
    `.numpy()` with its graph kept on the way (`net(x).cpu().numpy()`, or `emb = net(x)` then
    `emb.cpu().numpy()` reached by that definition alone): `.numpy()` (without `force=True`)
    raises on a tensor that requires grad, so code that runs proves the forward records no
    graph (its callers turn autograd off, or the parameters are frozen). Not for other methods
    (`agent.get_action(obs).numpy()`): one may record a graph and return a sample cut from it."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "forward" or model.value(func).kind == MODULE):
        return False
    if _ends_in_numpy(model, call):
        return True
    top = _through_graph_keeping_ops(model, call)  # `batch_y = extractor(x).transpose(0, 1)`
    stmt = model.parent(top)
    if not (isinstance(stmt, ast.Assign) and stmt.value is top and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and isinstance(unit, FUNCTION_TYPES + (ast.Module,))):
        return False
    target = stmt.targets[0]
    reaching = model.reaching(unit)
    return any(reaching.definitions(read) == [target] and _ends_in_numpy(model, read)
               for read in reaching.reads_by_key.get(target.id, ()))


def _through_graph_keeping_ops(model, node):
    """The outermost of `node.transpose(0, 1).float()...`: the calls of methods that keep its graph."""
    while True:
        parent = model.parent(node)
        call = model.parent(parent) if isinstance(parent, ast.Attribute) and parent.value is node else None
        if not (isinstance(call, ast.Call) and call.func is parent and parent.attr in _GRAPH_KEEPING):
            return node
        node = call


def _result_differentiated_here(model, call, unit) -> bool:
    """Does a backward of the same function differentiate a value whose graph contains what
    this forward built (graph provenance, flow-sensitive: a later forward rebinding the same
    name for the training part does not count)? Then its graph is wanted, whatever the mode."""
    stmt = model.statement_of(call)
    return any(target is not None and (model.is_inside(call, target) or model.feeds(call, stmt, target))
               for target in map(model.backward_target, model.backward_calls_in(unit)))


def _ends_in_numpy(model, node) -> bool:
    """`node` reaches `.numpy()` through ops that keep `requires_grad`: none of them under
    no-grad (`with torch.no_grad(): output.cpu().numpy()` copies to a tensor that does not
    require grad, so `.numpy()` proves nothing there; `output.numpy()` itself would still raise)."""
    while True:
        parent = model.parent(node)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            if model.grad_disabled_at(parent):
                return False
            node = parent
            continue
        if not (isinstance(parent, ast.Attribute) and parent.value is node):
            return False
        call = model.parent(parent)
        if not (isinstance(call, ast.Call) and call.func is parent):
            return False
        if parent.attr == "numpy":
            return not call.keywords  # `numpy(force=True)` detaches first
        if parent.attr not in _GRAPH_KEEPING or model.grad_disabled_at(call):
            return False
        node = call


def autograd_off_is_safe(model, unit, start: Position, end: Position) -> bool:
    """May autograd be turned off between start and end (a `no_grad` fix)? Not over gradient
    code, nor over a call of something the function was handed, which may differentiate."""
    return not has_gradient_code(model, unit, start, end) and not calls_handed_in_callable(model, unit, start, end)


def calls_handed_in_callable(model, unit, start: Position, end: Position) -> bool:
    """Between start and end, a call of an object of unknown kind the function was handed or
    draws from what it was handed (`for attack in attacks: adv = attack(x, y)`), or of a
    method of one on an input (`attack.perturb(x, y)`): it may
    compute gradients inside (an adversarial attack back-propagates), so turning autograd off
    around it could break it. The forward is still evaluation; a `no_grad` fix over it is not
    safe."""
    if not isinstance(unit, FUNCTION_TYPES):
        return False
    # the unit is walked once (every finding asks): a range query on the sorted positions
    positions = model.cached(("handed_in_callable_calls", unit), lambda: _handed_in_callable_calls(model, unit))
    first = bisect.bisect_left(positions, start)
    return first < len(positions) and positions[first] < end


def _handed_in_callable_calls(model, unit) -> List[Position]:
    handed = {a.arg for a in unit.args.args + unit.args.kwonlyargs + unit.args.posonlyargs}
    if model.class_of(unit) is not None:
        handed.discard(self_name(unit))  # the object's own attributes are not handed in
    # the models: modules by their value, or what the function switches to evaluation
    # (`model.eval()` on a `model` of unknown kind): calling one is the forward, no attack
    evaluated = {dotted(call.func.value) for call in nodes_within(unit) if isinstance(call, ast.Call)
                 and isinstance(call.func, ast.Attribute) and _mode_switch(call) is not None}
    forwards = [call for call in nodes_within(unit) if isinstance(call, ast.Call)
                and (model.value(call.func).kind == MODULE or dotted(call.func) in evaluated)]
    handed -= {name for name in evaluated if name is not None}
    # (an input the function feeds to a model is data, whatever methods it calls on it:
    # `img.view(h, w, 3)` of `do_detect(model, img, ...)` is no attack's `perturb(x, y)`)
    handed -= {n.id for call in forwards for arg in call.args for n in walk(arg) if isinstance(n, ast.Name)}
    drawn = {n.id for loop in walk(unit) if isinstance(loop, (ast.For, ast.AsyncFor))
             and any(isinstance(r, ast.Name) and r.id in handed for r in walk(loop.iter))
             for n in walk(loop.target) if isinstance(n, ast.Name)}
    # so is an item drawn from what it was handed and fed as it is (`model(data)` for `data`
    # of `for data in loader:`, moved by `data.to(device)` first)
    handed |= drawn - {arg.id for call in forwards for arg in call.args if isinstance(arg, ast.Name)}
    fed = {n.id for call in forwards for arg in list(call.args) + [k.value for k in call.keywords]
           for n in walk(arg) if isinstance(n, ast.Name)}
    outputs = _forward_outputs(model, unit, forwards)
    return sorted(start_of(node) for node in nodes_within(unit)
                  if isinstance(node, ast.Call) and _calls_handed_in(model, node, handed)
                  and not _a_source_of_inputs(model, unit, node, fed)
                  and not _scores_outputs(node, outputs))


def _forward_outputs(model, unit, forwards) -> Set[str]:
    """The names bound from the forwards' results in `unit`, and what is computed from them."""
    bound = {n.id for call in forwards for stmt in [model.statement_of(call)]
             if isinstance(stmt, ast.Assign) and (call is stmt.value or model.is_inside(call, stmt.value))
             for t in stmt.targets for n in walk(t) if isinstance(n, ast.Name)}
    return model.derived_names(unit, bound) if bound else set()


def _scores_outputs(call: ast.Call, outputs: Set[str]) -> bool:
    """Is a handed-in callable given what a forward of the function returned (`loss =
    criterion(output, target)`)? It scores the outputs, as a loss or a metric does; an attack is
    handed the inputs it perturbs, before any forward."""
    return any(isinstance(n, ast.Name) and n.id in outputs
               for a in list(call.args) + [k.value for k in call.keywords] for n in walk(a))


def _a_source_of_inputs(model, unit, call: ast.Call, fed: Set[str]) -> bool:
    """Is the call handed only settings (literals, numbers), and does what it returns
    become the input of a forward of the function (`(x, u, _, _), lens = memory.sample(1)`,
    then `model(x, u)` of `x` moved to the device; `loader = dataset.get_loader([idx])`, then
    `for x, y in loader: model(x)`)? Then it hands out data (a replay memory, a sampler, a
    loader), not a differentiating callable (an attack is handed the batch it perturbs:
    `attack.perturb(x, y)`)."""
    passed = list(call.args) + [k.value for k in call.keywords]
    if not all(_a_setting(model, a) for a in passed):
        return False  # handed data (the batch it may perturb), not settings
    stmt = model.statement_of(call)
    if not (isinstance(stmt, ast.Assign) and stmt.value is call):
        return False
    bound = {n.id for t in stmt.targets for n in walk(t) if isinstance(n, ast.Name)}
    if not bound:
        return False
    derived = model.derived_names(unit, bound)
    # and the items of a loop over it (`for x, y in enumerate(loader)`)
    items = {n.id for loop in nodes_within(unit) if isinstance(loop, (ast.For, ast.AsyncFor))
             and any(isinstance(r, ast.Name) and r.id in derived for r in walk(loop.iter))
             for n in walk(loop.target) if isinstance(n, ast.Name)}
    return bool(model.derived_names(unit, derived | items) & fed)


def _a_setting(model, arg: ast.AST) -> bool:
    """A literal, a number, or a list or tuple of them (`[class_idx]`, `mode="test"`)."""
    if isinstance(arg, (ast.List, ast.Tuple)):
        return all(_a_setting(model, e) for e in arg.elts)
    return isinstance(arg, ast.Constant) or model.value(arg).kind == "scalar"


# methods of a handed-in object that only move, log, collect or show: never a differentiation
_BOOKKEEPING_METHODS = frozenset({"to", "cuda", "cpu", "float", "half", "double", "long", "int", "contiguous",
                                  "log", "info", "debug", "warning", "error", "write", "print", "append", "extend",
                                  "add", "update", "add_scalar", "add_scalars", "add_image", "add_histogram",
                                  "set_description", "set_postfix", "save", "put", "get", "flush", "close",
                                  "reset", "keys", "values", "items"})


def _calls_handed_in(model, call: ast.Call, handed: Set[str]) -> bool:
    """`attack(x, y)`, or a method of it with an input (`attack.perturb(x, y)`), where `attack`
    is of unknown kind and was handed to the function."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in handed and model.value(func).kind == "unknown"
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in handed \
        and bool(call.args) and func.attr not in _BOOKKEEPING_METHODS and model.value(func.value).kind == "unknown"


def _input_made_differentiable(model, call, unit) -> bool:
    """Is an input of the forward made to require grad, in this function or (an attribute of
    `self`) in any method of its class (`self.x.requires_grad_()` in `init()`)? The code wants
    gradients with respect to it (derivatives of the outputs: a PINN operator, a saliency map),
    so the graph is the point."""
    keys = {dotted(arg) for arg in call.args} - {None}
    if not keys:
        return False
    if keys & _differentiable_keys(model, unit):
        return True
    info = model.class_of(unit) if isinstance(unit, FUNCTION_TYPES) else None
    self_keys = {key for key in keys if key.startswith("self.")}
    return bool(info is not None and self_keys and any(self_keys & _differentiable_keys(model, method)
                                                        for method in info.methods.values()))


def _differentiable_keys(model, scope) -> Set[str]:
    """What the scope makes require grad: `x.requires_grad_()` / `x.requires_grad_(True)` /
    `x.requires_grad = True` (walked once per scope: every forward of an evaluation asks)."""
    def compute() -> Set[str]:
        out: Set[str] = set()
        for node in walk(scope):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "requires_grad_":
                flag = node.args[0] if node.args else None
                if flag is None or isinstance(flag, ast.Constant) and flag.value is True:
                    out.add(dotted(node.func.value))
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is True:
                out |= {dotted(t.value) for t in node.targets
                        if isinstance(t, ast.Attribute) and t.attr == "requires_grad"}
        return out - {None}
    return model.cached(("differentiable_keys", scope), compute)


def _evaluation_by_name(model, func) -> bool:
    """Is a function named like evaluation (`evaluate`, `inference`, `predict`...) proven
    to run as evaluation, with autograd on? Not when its name also says training
    (`train_validate`); a method must have a caller in view that runs with grad on and is
    not its class's own forward (a `predict` head that `forward` calls is part of the
    training forward; an `inference` method whose callers live in other modules may run
    under their no_grad: unknown, so no finding, unless one is the training loop of another
    module, which calls it with grad on and back-propagates nothing it returns)."""
    return model.cached(("evaluation_by_name", func), lambda: _evaluation_by_name_uncached(model, func))


def _evaluation_by_name_uncached(model, func, depth: int = 0) -> bool:
    if "train" in func.name.lower():
        return False
    owner = model.class_of(func)
    # (a call that only probes the method, a model file's `print(model.inference(x).shape)` on
    # made-up input, evaluates nothing)
    sites = [site for site in _sites_including_self_calls(model, func) if not model.grad_disabled_at(site)
             and not probes_the_module(model, site, model.unit_of(site))]
    if any(site.get("bp") and not site["ng"] for site in model.external_sites(func)):
        return False  # another module's training loop back-propagates what it returns
        # (`reaction_center_prediction(...)` shared by training and evaluation): training code
    if owner is None and not sites:
        # a script's `evaluate(model, loader)`: evaluation by what it is; not a function that a
        # module class of another module runs (`inference(self.nerf, ...)` in a generator's
        # `render_rays`: volume rendering, part of the model's computation)
        return not any(not site["ng"] and site.get("md") for site in model.external_sites(func))
    if owner is not None and not sites and any(
            site["tr"] and not site["ng"] and not site.get("bp") and not site.get("rt") and not site.get("fw")
            for site in model.external_sites(func)):
        return True  # another module's training driver runs it between steps with grad on and
        # back-propagates nothing it returns (`val = [m.validation_step(b, i) for b in loader]`)
    if owner is not None and _run_by_own_forward(model, owner, sites):
        return False  # the module's own forward runs it: part of the training forward
    if owner is not None and _run_by_a_holders_forward(model, owner, sites):
        return False  # the forward of a module holding this one runs it (`self.m_back_end.inference`
        # in the eval branch of the model's forward): part of a forward, whose callers decide
    if any(_feeds_a_loss(model, site) for site in sites):
        return False  # a training path runs it too (`loss()` calling `self.inference()`): what it
        # computes is part of that loss, whatever another caller does with it
    evaluating = [site for site in sites if not _inside_forward(model, site) and not _feeds_a_loss(model, site)
                  and _caller_evaluates(model, owner, site, depth)]
    if evaluating and owner is not None and model.is_module_class(owner) and \
            all(_reported_at_the_call(model, site) for site in evaluating):
        return False  # `model.simple_test(images)` after `model.eval()`: that call is the forward
        # of the evaluated model reported; the method's own submodule calls are the same leak
    if evaluating:
        return True
    # another module calls it after `model.eval()` with grad on, and neither back-propagates
    # nor hands on what it returns (a benchmark script's loop over its data set)
    return any(site.get("ev") and not site["ng"] and not site.get("bp") and not site.get("rt") and not site.get("fw")
               for site in model.external_sites(func))


def _reported_at_the_call(model, site) -> bool:
    """Is `site`, a call of a module's method on another object (`model.simple_test(x)`), in
    the evaluation region of that object (after its `eval()`), where it is itself reported
    as the evaluated model's forward?"""
    return isinstance(site.func, ast.Attribute) and not (
        isinstance(site.func.value, ast.Name) and site.func.value.id == "self") and in_evaluation_region(model, site)


def in_evaluation_region(model, call) -> bool:
    """Is `call` a call of a model (or of one of its methods) between that model's `eval()`
    and its next `train()` in the same function or module body?"""
    unit = model.unit_of(call)
    position = start_of(call)
    return any(region[0] is unit and region[2] <= position < region[3] and _calls_receiver(call, region[1])
               and not _other_branch(model, region[4], call) for region in _eval_regions_cached(model))


def _eval_regions_cached(model) -> List[Tuple]:
    return model.cached(("eval_regions",), lambda: list(_eval_regions(model)))


def _run_by_own_forward(model, owner, sites, depth: int = 0) -> bool:
    """Does the class's own forward make one of the calls `sites`, directly or through
    other methods of the class (`forward` -> `run_model` -> `inference`)?"""
    for site in sites:
        caller = model.unit_of(site)
        if not isinstance(caller, FUNCTION_TYPES) or model.class_of(caller) is not owner:
            continue
        if _inside_forward(model, site):
            return True
        if depth < MAX_HELPER_DEPTH and _run_by_own_forward(
                model, owner, [s for s in _sites_including_self_calls(model, caller) if not model.grad_disabled_at(s)],
                depth + 1):
            return True
    return False


def _run_by_a_holders_forward(model, owner, sites) -> bool:
    """Is one of the calls `sites` made by a method of another nn.Module class that its own
    forward runs (directly or through its other methods): `Model.forward` -> `__inference` ->
    `self.m_back_end.inference(x)`? Then the method is part of that forward."""
    for site in sites:
        caller = model.unit_of(site)
        holder = model.class_of(caller) if isinstance(caller, FUNCTION_TYPES) else None
        if holder is None or holder is owner or not model.is_module_class(holder):
            continue
        if _inside_forward(model, site) or _run_by_own_forward(
                model, holder, [s for s in _sites_including_self_calls(model, caller) if not model.grad_disabled_at(s)]):
            return True
    return False


def _caller_evaluates(model, owner, site, depth: int) -> bool:
    """A helper of an evaluation-named method of a class (`predict_parallel` calling
    `_predict_parallel`, a model's `inference` calling its block's) evaluates when its caller
    does: judged at the caller, whose own callers (trackers under no_grad, in other modules)
    decide."""
    caller = model.unit_of(site)
    if owner is None or not isinstance(caller, FUNCTION_TYPES) or model.class_of(caller) is None \
            or not eval_name(caller.name) or depth >= MAX_HELPER_DEPTH:
        return True
    # (also an evaluation-named method of a module holding this one: WaveNet's `inference`
    # calling its output block's `inference`)
    if any(isinstance(call.func, ast.Attribute) and call.func.attr == "eval" and not call.args
           for call in _calls_by_unit(model).get(caller, [])):
        return True  # the caller switches to evaluation itself (`_eval_epoch` calling `_eval_step`,
        # also `self.model[key].eval()`)
    return _evaluation_by_name_uncached(model, caller, depth + 1)


def _grad_on_decorated(model, func) -> bool:
    for dec in func.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if torch_api.grad_context(model.qualname(target) or "") == "on":
            return True
    return False


def _pins_own_submodule(model, func, receiver: str) -> bool:
    """`self.bn.eval()` in a method of an nn.Module: the module pins a part of itself to
    evaluation mode (running statistics) as part of its own computation; whether that runs
    with autograd on is for the module's callers to say."""
    info = model.class_of(func)
    return info is not None and receiver.startswith("self.") and model.is_module_class(info)


def _is_closure(model, func) -> bool:
    """A function defined inside another function (a `model_fn` built and returned)."""
    return isinstance(model.unit_of(func), FUNCTION_TYPES)


def _overrides_a_method_of_another_module(model, func) -> bool:
    """Is `func` a method overriding one a base class of another module of the project
    defines (a framework's template method: the base calls it, out of this module's view)?"""
    from torchleaklint.semantic.dataflow import inherited_method

    info = model.class_of(func)
    return info is not None and inherited_method(model, info, func.name) is not None


def _callers_in_view(model, func) -> bool:
    return bool(_sites_including_self_calls(model, func)) or bool(model.external_sites(func))


def _only_called_without_grad(model, func, depth: int = 0) -> bool:
    """Every call of the function in view (this module and the project's others) is under
    no-grad, directly or because the function making it is itself only called under no-grad
    (`compute_ood_score` called by `get_scores`, which eval.py calls in `torch.no_grad()`):
    the function never runs with autograd on."""
    key = ("only_called_without_grad", func)
    if key in model._memo:
        return model._memo[key]
    model._memo[key] = False  # recursion guard: a cycle of callers proves nothing
    sites = _sites_including_self_calls(model, func)
    if not model.switches_grad_on(func):  # its recursive calls run in the grad mode of the outer one
        sites = [site for site in sites if model.unit_of(site) is not func]
    external = model.external_sites(func)
    if not sites and not external:
        # a method nothing resolves to: the calls of its name on receivers of unknown class
        # (`self.policy.get_log_probs_ref_model(...)` in a rollout under no_grad) are all there is
        calls, no_grad = model.calls_by_method_name(func)
        if model.method_name_shared(func):
            calls = no_grad  # a call with grad on may run another class's method of the name
        answer = calls > 0 and no_grad == calls or _closure_only_without_grad(model, func, depth)
    else:
        answer = all(model.grad_disabled_at(site) or _caller_only_without_grad(model, site, func, depth)
                     for site in sites) and all(site.get("ng") for site in external)
    model._memo[key] = answer
    return answer


def _only_called_where_the_grad_mode_is_set(model, func, depth: int = 0, guards: frozenset = frozenset()) -> bool:
    """Is every call of the function in this module (one at least, none from another module)
    made under no-grad or inside a block that sets the grad mode (`with
    torch.set_grad_enabled(args.train or args.fine_tune):` around `inference(sp)`), or by a
    function itself only called so? `guards` are the flags the forward asked about runs
    under inside the function (`if args.compute_map:`)."""
    key = ("only_called_where_grad_mode_set", func, guards)
    if key in model._memo:
        return model._memo[key]
    model._memo[key] = False  # recursion guard
    sites = [site for site in model.call_sites(func) if model.unit_of(site) is not func]
    answer = bool(sites) and not model.external_sites(func) and all(
        model.grad_disabled_at(site) or _grad_mode_set_to_an_unknown_value(model, site, guards)
        or depth < 3 and isinstance(model.unit_of(site), FUNCTION_TYPES)
        and _only_called_where_the_grad_mode_is_set(model, model.unit_of(site), depth + 1, guards) for site in sites)
    model._memo[key] = answer
    return answer


def _flags_guarding(model, node, func) -> frozenset:
    """The flags read as attributes of a name (`args.compute_map`) that `node` runs under in
    `func`: the tests of the `if` bodies (not `else`) it is in, each one such an attribute,
    as (the name, the test dumped)."""
    flags = set()
    for anc in model.ancestors(node):
        if anc is func:
            break
        if isinstance(anc, ast.If) and any(node is s or model.is_inside(node, s) for s in anc.body) \
                and _a_flag(anc.test):
            flags.add((anc.test.value.id, ast.dump(anc.test)))
    return frozenset(flags)


def _a_flag(expr) -> bool:
    return isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)


def _closure_only_without_grad(model, func, depth: int) -> bool:
    """A function a factory makes and only returns (`def get_score_func(...): def
    score_func(x): ...; return score_func`) runs where the factory's result is called: every
    call of the factory is under no-grad or made by a function only called under no-grad, and
    keeps the closure there (does not return it on)."""
    parent = model.unit_of(func)
    if depth >= 3 or not isinstance(parent, FUNCTION_TYPES) or not isinstance(func, FUNCTION_TYPES):
        return False
    refs = [n for n in nodes_within(parent) if isinstance(n, ast.Name) and n.id == func.name
            and isinstance(n.ctx, ast.Load)]
    if not refs or not all(isinstance(model.parent(ref), ast.Return) for ref in refs):
        return False
    sites = _sites_including_self_calls(model, parent)
    if not sites or model.external_sites(parent):
        return False
    return all(model.grad_disabled_at(site) or not model.result_returned(site)
               and _caller_only_without_grad(model, site, parent, depth) for site in sites)


def _caller_only_without_grad(model, site, func, depth: int) -> bool:
    caller = model.unit_of(site)
    return depth < 3 and isinstance(caller, FUNCTION_TYPES) and caller is not func and \
        _only_called_without_grad(model, caller, depth + 1)


def _feeds_a_loss(model, site) -> bool:
    """The call's result goes into a loss: the caller back-propagates it, is named for one
    (`calculate_ls_loss`, `pretrain_loss`), or returns what it computes from the result to
    its own caller (a helper of the training forward: `_item_prediction` in a loss)."""
    caller = model.unit_of(site)
    if not isinstance(caller, FUNCTION_TYPES) or _only_reported(model, site):
        return False
    if model.value(site).kind in (SCALAR, NONE, TENSOR) and _stores_nothing_outside(model, site):
        return False  # `history.append(evaluate_critic(D, G, data))` of a Python number, a
        # tensor without a graph (`torch.tensor(losses).mean()`) or nothing, by a function that
        # stores on no object: whatever the caller trains, no loss is made of it
    if "loss" in caller.name.lower() or "train" in caller.name.lower():
        return True
    if any(model.is_training_backward(c) for c in model.backward_calls_in(caller)):
        return True
    stmt = model.statement_of(site)
    return any(isinstance(node, ast.Return) and node.value is not None and model.unit_of(node) is caller
               and model.carries_graph(node.value)
               and (model.is_inside(site, node) or model.feeds(site, stmt, node.value)) for node in walk(caller))


def _stores_nothing_outside(model, site) -> bool:
    """Does the function `site` calls (of this module) store no attribute, no item and no
    global (`self.sim.activations = ...` would hand its forward to whoever reads it)?"""
    func = model.resolve_call(site)
    if not isinstance(func, FUNCTION_TYPES):
        return False
    return not any(isinstance(n, (ast.Attribute, ast.Subscript)) and isinstance(n.ctx, ast.Store)
                   or isinstance(n, (ast.Global, ast.Nonlocal)) for n in walk(func))


_REPORTING_METHODS = frozenset({"info", "debug", "warning", "log", "add_scalar", "add_scalars", "write",
                                "set_postfix", "set_description", "log_metrics"})


def _only_reported(model, site) -> bool:
    """The call's result is handed straight to a report (`print(it, self.evaluate(env))`,
    `logger.info(...)`, an f-string, one of its items: `f"{validate(model, seq)[-1]:.5f}"`):
    it feeds no loss, whatever the caller is named."""
    node, parent = site, model.parent(site)
    while isinstance(parent, (ast.FormattedValue, ast.JoinedStr, ast.keyword)) or \
            isinstance(parent, ast.Subscript) and parent.value is node:
        node, parent = parent, model.parent(parent)
    if not isinstance(parent, ast.Call) or parent.func is node:
        return False
    func = parent.func
    return isinstance(func, ast.Name) and func.id == "print" or \
        isinstance(func, ast.Attribute) and func.attr in _REPORTING_METHODS


def _is_module_forward(model, func) -> bool:
    info = model.class_of(func)
    return info is not None and func.name in ("forward", "__call__") and model.is_module_class(info)


def _inside_forward(model, site) -> bool:
    """The call is made by a class's forward (`forward`, `forward_*`, or a module's
    `__call__`). A plain class's `__call__` (an inference wrapper's `return
    self.inference(x)`) is only the way its instances are called, no forward."""
    unit = model.unit_of(site)
    info = model.class_of(unit) if isinstance(unit, FUNCTION_TYPES) else None
    if info is None:
        return False
    if unit.name == "__call__":
        return model.is_module_class(info)
    return unit.name == "forward" or unit.name.startswith("forward_")


def _result_back_propagated(model, unit, handed_on: bool = True, depth: int = 0) -> bool:
    """Does a training path back-propagate what `unit` returns? A call site (in this module,
    through `self.` in any class too, or in another module) in a function that runs a training
    backward, outside no-grad, whose result feeds that backward; or one whose function hands
    the result back to a training step (`train_step` returning `self._general_forward(...)`,
    which returns the loss `self.predict(...)` computed: the trainer back-propagates what a
    training step returns). `@torch.no_grad()` there would silently stop training, so this
    is no evaluation."""
    if not isinstance(unit, FUNCTION_TYPES):
        return False
    for site in _sites_including_self_calls(model, unit):
        caller = model.unit_of(site)
        if handed_on and depth < 3 and not model.grad_disabled_at(site) and isinstance(caller, FUNCTION_TYPES) \
                and model.result_returned(site) and (
                    _training_step_name(caller.name) or _result_back_propagated(model, caller, handed_on, depth + 1)):
            return True
        if not model.grad_disabled_at(site) and isinstance(caller, FUNCTION_TYPES) \
                and model.result_handed_into_gradients(site):
            return True  # also handed to a function that back-propagates it (`self.new_update_policies(
            # ..., latent_z_logprobabilities, ...)` of what `self.evaluate_loglikelihoods(...)` returned)
        if model.grad_disabled_at(site) or not any(
                model.is_training_backward(c) for c in model.backward_calls_in(caller)):
            continue
        stmt = model.statement_of(site)
        if isinstance(stmt, ast.Expr) and model.is_training_backward(stmt.value):
            return True
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
        names = {n.id for t in targets if t is not None for n in walk(t) if isinstance(n, ast.Name)}
        if any(model.feeds_backward(caller, name) for name in names):
            return True
        if any(model.is_inside(site, model.backward_target(c)) for c in model.backward_calls_in(caller)
               if model.backward_target(c) is not None):
            return True
    # a caller in another module that back-propagates the result, or returns it to its own
    # caller (a model wrapper's training forward): from its summary
    # (`handed_on=False`: only a caller that back-propagates it)
    return any((site.get("bp") or handed_on and site.get("rt")) and not site["ng"]
               for site in model.external_sites(unit))


def _training_step_name(name: str) -> bool:
    """`train_step`, `training_step`, `train_batch_step`: a method a trainer runs for each
    training batch and back-propagates what it returns (not `validation_step`)."""
    return name.startswith("train") and name.endswith("_step")


def _sites_including_self_calls(model, unit) -> List[ast.Call]:
    """Call sites of a method: resolved ones, and `self.<name>(...)` in any method of the
    module (a subclass's `update` calling the inherited `predict`)."""
    sites = list(model.call_sites(unit))
    owner = model.class_of(unit)
    if owner is not None:
        seen = set(map(id, sites))
        sites += [call for call in model.self_calls(unit.name) if id(call) not in seen
                  and _inherits_from(model, model.enclosing_class_info(call), owner)]
    return sites


def _inherits_from(model, info, ancestor) -> bool:
    """`info` is `ancestor` or a subclass of it defined in this module."""
    seen = set()
    while info is not None and info.name not in seen:
        if info is ancestor:
            return True
        seen.add(info.name)
        info = next((model.classes[b.rsplit(".", 1)[-1]] for b in info.base_names
                     if b.rsplit(".", 1)[-1] in model.classes), None)
    return False


def start_of(node) -> Position:
    return (node.lineno, node.col_offset)


def end_of(node) -> Position:
    return (node.end_lineno or node.lineno, node.end_col_offset or 0)


def _calls_by_unit(model) -> Dict[ast.AST, List[ast.Call]]:
    return model.cached("evaluation_calls_by_unit", lambda: _index_calls_by_unit(model))


def _index_calls_by_unit(model) -> Dict[ast.AST, List[ast.Call]]:
    out: Dict[ast.AST, List[ast.Call]] = {}
    for call in model.calls:
        out.setdefault(model.unit_of(call), []).append(call)
    return out


def _mode_switch(call) -> Optional[str]:
    """'eval' for `m.eval()` / `m.train(False)`, 'train' for `m.train()` / `m.train(True)`;
    also on a freshly built module (`Net(...).eval()`, whose name is the assignment's)."""
    func = call.func
    if not isinstance(func, ast.Attribute) or (dotted(func.value) is None and not isinstance(func.value, ast.Call)):
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
        receiver = dotted(call.func.value) or _constructed_name(model, call)
        if receiver is None:
            continue
        if kind == "eval" and (model.value(call.func.value).kind in _NOT_A_MODEL
                               or not _switches_mode_in_place(model, call, receiver)):
            continue
        switches.setdefault((model.unit_of(call), receiver), []).append((start_of(call), kind, call))
    parts_trained: Dict[ast.AST, List[Tuple[Position, str]]] = {}
    for (unit, receiver), events in switches.items():
        parts_trained.setdefault(unit, []).extend((position, receiver) for position, kind, _ in events
                                                  if kind == "train")
    for (unit, receiver), events in switches.items():
        events.sort(key=lambda e: e[0])
        # `norm.train(); norm(values); norm.eval()` anywhere in the function: the receiver is a
        # statistics module whose mode says whether its running statistics update; none of its
        # `eval()` switches there starts an evaluation (also one in another branch)
        if any(kind == "eval" and i and events[i - 1][1] == "train" and
               _only_uses_the_receiver(model, unit, receiver, events[i - 1][0], position)
               for i, (position, kind, _) in enumerate(events)):
            continue
        for i, (position, kind, call) in enumerate(events):
            if kind != "eval":
                continue
            # until the next switch: a later `eval()` of the same receiver starts a region of its own
            end = next((p for p, _, _ in events[i + 1:]), (10 ** 9, 0))
            # ... or a part of it switched back to training (`model.eval()` then
            # `model.focuser.policy.train()`): the backbone is frozen in eval mode while the
            # part trains, a training phase, not an evaluation
            end = min([end] + [p for p, part in parts_trained.get(unit, ())
                               if part.startswith(receiver + ".") and position < p < end])
            yield unit, receiver, end_of(model.statement_of(call)), end, call


def _only_uses_the_receiver(model, unit, receiver: str, start: Position, end: Position) -> bool:
    """Between `receiver.train()` and `receiver.eval()`, nothing but calls of the receiver
    itself (and torch's functions): the module was put in train mode to update its running
    statistics, not trained, so switching it back is no evaluation phase."""
    calls = [node for node in nodes_within(unit) if isinstance(node, ast.Call) and start < start_of(node) < end]
    if not calls:
        return False
    for call in calls:
        callee = dotted(call.func) or ""
        owner = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None
        if callee == receiver or owner == receiver:
            continue
        if (model.qualname(call.func) or "").startswith("torch.") and not _is_gradient_code(model, call):
            continue
        return False
    return any(dotted(call.func) == receiver for call in calls)


def _constructed_name(model, call) -> Optional[str]:
    """`net = Encoder(256).eval()` (possibly `.to(device)` after): the name it is bound to."""
    outer = call
    parent = model.parent(outer)
    while isinstance(parent, ast.Attribute) and isinstance(model.parent(parent), ast.Call) and \
            model.parent(parent).func is parent:
        outer = model.parent(parent)
        parent = model.parent(outer)
    if isinstance(parent, ast.Assign) and parent.value is outer and len(parent.targets) == 1:
        return dotted(parent.targets[0])
    return None


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
    if isinstance(parent, ast.Tuple) and isinstance(model.parent(parent), ast.Expr):
        return True  # `self.gen_a.eval(), self.gen_b.eval()`: both switched, as two statements would
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is outer:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        return any(dotted(t) == receiver for t in targets)
    return False


# Methods of nn.Module (and common helpers) that run no forward.
_NOT_A_FORWARD = frozenset({
    "eval", "train", "parameters", "named_parameters", "buffers", "named_buffers", "children",
    "named_children", "modules", "named_modules", "state_dict", "load_state_dict", "to", "cuda", "cpu",
    "float", "double", "half", "bfloat16", "type", "apply", "zero_grad", "requires_grad_",
    "register_buffer", "register_parameter", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "register_backward_hook", "add_module", "get_submodule",
    "get_parameter", "extra_repr", "share_memory", "compile", "save", "save_pretrained", "reset",
    "reset_parameters", "init_hidden", "init_weights", "set_", "freeze", "unfreeze", "summary",
    "num_parameters", "get_input_embeddings", "resize_token_embeddings", "tie_weights", "gradient_checkpointing_enable",
    # HuggingFace `generate` runs under torch.no_grad() itself; the rest are bookkeeping
    "generate", "push_to_hub", "print_trainable_parameters", "merge_and_unload", "enable_input_require_grads",
    "fit", "is_training", "size", "numel", "dim",
})


_NOT_A_FORWARD_PREFIXES = ("_", "set_", "get_num", "register_", "load_", "save_", "remove_", "add_", "print",
                           "freeze", "unfreeze", "reset", "init_", "enable_", "disable_", "to_", "convert", "export")


def _calls_receiver(call, receiver: str) -> bool:
    """A forward of the evaluated model: calling it, or any of its methods that runs one on
    an input (`net.encode(x)`, `agent.get_action(obs)`, `decoder.sample(64)`), not the
    housekeeping ones (`net.parameters()`, `net.to(d)`, `net.remove_weight_norm()`,
    `net.get_feat_modules()`), nor a method called with no input at all."""
    func = call.func
    if dotted(func) == receiver:
        return True
    # also through its submodules, which `eval()` switched too (`model.encoder.attention_map(x)`)
    owner = dotted(func.value) if isinstance(func, ast.Attribute) else None
    return owner is not None and (owner == receiver or owner.startswith(receiver + ".")) \
        and bool(call.args or call.keywords) \
        and func.attr not in _NOT_A_FORWARD and not func.attr.startswith(_NOT_A_FORWARD_PREFIXES)


def _forward_of_a_module(model, call, receiver: str) -> bool:
    """Calling the switched object is its forward; calling one of its methods is a forward
    only when the object is proven an nn.Module (`env.eval(); env.step(a)` on a gym
    wrapper, or `weight.transpose(...)` on an array, run none) and the method is in view:
    a method of a class nobody here can read (`inference()`, `compute_embedding()` of an
    imported or unknown class) may turn autograd off itself, so it is unknown."""
    switched = model.value(call.func if dotted(call.func) == receiver else call.func.value)
    info = model.classes.get(switched.name) if switched.name else None
    if info is not None and model.is_other_framework_class(info) or \
            not switched.name and model.written_for_another_framework():
        return False  # `onet = ONet()` of a `paddle.nn.Layer`: no torch graph
    if dotted(call.func) == receiver:
        # its `forward`, unless the call's arguments take it down a path with autograd off
        # (`model(data, mode="inference")` where `forward` runs that mode under `torch.no_grad()`)
        # (switched to `.eval()`: a path its `forward` takes only in training mode does not run)
        return not switched.name or not model.forward_call_records_no_graph(switched, call, evaluating=True)
    value = model.value(call.func.value)
    if value.kind != MODULE:
        return False
    runs = model.method_runs_forward(value, call.func.attr, call)
    if runs is not None:
        return runs
    if value.name and (value.name in model.classes or "." in value.name and model.project is not None):
        # an attribute called: a submodule's forward when it is proven a module with parameters
        # (`self.encoder(x)`, also of a class of another module from its summary), not an
        # activation passed in (`self.activation = activation`)
        callee = model.value(call.func)
        return callee.kind == MODULE and not callee.frozen
    if not value.name and _a_submodule_by_its_name(model, call.func.attr):
        return True  # `self.model.encoder(src)` of a model handed in: no class in view defines a
        # method `encoder`, and the module classes that have one store a submodule there
    # a method of a class not in view runs a forward with grad on when training here
    # back-propagates what the same method returns
    return model.method_trained_through(call.func.attr)


def _a_submodule_by_its_name(model, attr: str) -> bool:
    """Is `attr`, called on a module of unknown class, a submodule: no class of this file or
    of the project defines a method of that name, and a module class of either stores a
    trainable submodule in `self.<attr>` (`self.encoder = Encoder(vocab)`)?"""
    from torchleaklint.semantic.dataflow import class_attribute_value

    if attr in _MODULE_ONLY_METHODS or any(attr in info.methods for info in model.classes.values()):
        return False
    project = model.project
    if project is not None and project.class_owners(attr):
        return False
    if any(model.is_module_class(info) and _trainable_module(class_attribute_value(model, info.name, attr))
           for info in model.classes.values()):
        return True
    return project is not None and bool(project.submodule_owners(attr))


def _trainable_module(value) -> bool:
    return value.kind == MODULE and not value.frozen


_MODULE_ONLY_METHODS = frozenset({"parameters", "named_parameters", "load_state_dict", "state_dict", "modules",
                                  "named_modules", "children", "buffers", "zero_grad", "register_forward_hook",
                                  "requires_grad_"})


def _other_branch(model, eval_call, call) -> bool:
    """`if a: model.eval() ... else: model(x)`: the call runs on a path where the switch
    did not."""
    return eval_call is not None and model.on_exclusive_branches(eval_call, call)


_SCALAR_ANNOTATIONS = frozenset({"int", "float", "bool", "str"})


def _declared_scalar_result(model, call, unit) -> bool:
    """The call's result is bound to a name the function declares a Python number or
    string (`n: int = model.size_hint(x)`, or `n: int` before `n = ...`)."""
    stmt = model.statement_of(call)
    if isinstance(stmt, ast.AnnAssign) and stmt.value is call:
        return ast.unparse(stmt.annotation) in _SCALAR_ANNOTATIONS
    if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and isinstance(unit, FUNCTION_TYPES)):
        return False
    declared = model.cached(("evaluation_declared_scalars", unit), lambda: _declared_scalars(unit))
    return stmt.targets[0].id in declared


def _declared_scalars(unit) -> set:
    """Names the function declares `int`/`float`/`bool`/`str` (one walk per function)."""
    return {node.target.id for node in walk(unit) if isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name) and ast.unparse(node.annotation) in _SCALAR_ANNOTATIONS}


def _callee_computes_gradients(model, call, eval_mode: bool = False) -> bool:
    """The called function of this file (a local module class's `forward`, a method) has
    gradient code itself (`torch.autograd.grad`, `requires_grad=True`, `enable_grad()`):
    it needs autograd on, so `no_grad` around the call would break it. With `eval_mode` (the
    module was switched by `.eval()`), code only its train mode runs (`if self.training:
    self.accelerator.backward(loss)`) does not count."""
    callee = model.resolve_call(call)
    if callee is None:
        value = model.value(call.func)
        if value.kind == MODULE and value.name and value.name in model.classes:
            callee = model.method(value.name, "forward")
        elif isinstance(call.func, ast.Attribute):
            # `model.generate_new_arch(x)` on a module of unknown class: the one module class of
            # this file defining the method, as the evaluation took it to run a forward
            owners = model.module_classes_defining(call.func.attr)
            if len(owners) == 1 and model.value(call.func.value).kind == MODULE:
                callee = model.method(owners[0], call.func.attr)
    if callee is None and model.project is not None:
        # a module of a class of another module (`MetaModel` of model/meta_model.py, whose
        # `forward` adapts itself with `torch.autograd.grad`): that forward's summary
        return _other_module_callee_differentiates(model, call, eval_mode)
    if not isinstance(callee, FUNCTION_TYPES) or callee.name == "__init__":
        return False
    return _computes_gradients(model, callee, 0, eval_mode)


def _unknown_wrapper_handed_a_module(model, call) -> bool:
    """Is `call` a module of a class not in view (picked from a registry, built by a factory)
    handed another module (`method(model=model, ...)`)? Such a wrapper runs the model it is
    handed its own way (a test-time fine-tuner, a meta-learner, an attack): whether it
    computes gradients cannot be decided, so no finding rests on it."""
    callee = model.value(call.func)
    if callee.kind != MODULE or callee.name and not _abstract_forward(model, callee.name):
        return False
    handed = list(call.args) + [kw.value for kw in call.keywords]
    return any(not isinstance(arg, ast.Starred) and model.value(arg).kind == MODULE for arg in handed)


def _forward_decorated_no_grad(model, callee) -> bool:
    """Is `callee` a module whose class's `forward` is decorated `@torch.no_grad()` (or run
    without grad by its framework, or by a setting of the object: `if self.no_grad:`), in this
    file or in its own module?"""
    if callee.kind != MODULE or not callee.name:
        return False
    if callee.name in model.classes:
        forward = model.method(callee.name, "forward")
        return forward is not None and (model.grad_off_decorated(forward) or model.grad_set_by_own_setting(forward))
    if "." in callee.name and model.project is not None:
        found = model.project.method_of(callee.name, "forward")
        return found is not None and found[0] == "function" and isinstance(found[1], dict) and \
            bool(found[1].get("nograd") or found[1].get("fwd_own"))
    return False


def _model_of_a_class_chosen_at_run_time(model, call) -> bool:
    """Is `call` a module of a class not in view, in a project some of whose module classes
    compute gradients in their `forward`? Which class runs is decided at run time (a class
    looked up by a configured name), so whether `no_grad` would break it cannot be decided."""
    callee = model.value(call.func)
    if callee.kind != MODULE or callee.name or callee.alts or not _built_from_a_looked_up_class(model, call.func):
        return False
    if any(computes_gradients(model, model.method(cls, "forward"))
           for cls, info in model.classes.items() if model.is_module_class(info) and model.method(cls, "forward")):
        return True
    return model.project is not None and model.project.differentiating_forwards()


def _built_from_a_looked_up_class(model, func: ast.AST) -> bool:
    """Is every binding of the called name (or `self` attribute) an object of a class looked
    up at run time: `get_class(conf.model_class)(conf=c)`, `MODELS[name](cfg)`, possibly wrapped
    in `DistributedDataParallel(...)`?"""
    if isinstance(func, ast.Name):
        unit = model.unit_of(func)
        bindings = [model.parent(d) for d in model.reaching(unit).definitions(func)] if unit is not None else []
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        info = model.enclosing_class_info(func)
        bindings = [node for method in (info.methods.values() if info is not None else ())
                    for node in walk(method) if isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
                        and t.attr == func.attr for t in node.targets)]
    else:
        return False
    if not bindings or not all(isinstance(b, ast.Assign) for b in bindings):
        return False

    def unwrapped(value):
        while isinstance(value, ast.Call) and (model.qualname(value.func) or "").endswith("DataParallel") and value.args:
            value = value.args[0]  # `DistributedDataParallel(model, ...)`
        return value

    made = [unwrapped(b.value) for b in bindings]
    made = [v for v in made if dotted(v) != dotted(func)]  # `self.model = DDP(self.model)`: the same object
    return bool(made) and all(isinstance(v, ast.Call) and isinstance(v.func, (ast.Call, ast.Subscript)) for v in made)


def _abstract_forward(model, class_name: str) -> bool:
    """Is the class's `forward` a stub (`raise NotImplementedError`), so that what runs is a
    subclass's (an annotation `method: FSmethod` naming the base of a registry)?"""
    if class_name in model.classes:
        forward = model.method(class_name, "forward")
        return forward is not None and is_stub(forward)
    if "." in class_name and model.project is not None:
        found = model.project.method_of(class_name, "forward")
        return found is not None and found[0] == "function" and isinstance(found[1], dict) and bool(found[1].get("stub"))
    return False


def _computes_gradients(model, func, depth: int, eval_mode: bool = False) -> bool:
    """`func` or a function of this file it calls (`forward` dispatching to `meta_forward`,
    up to three calls deep) has gradient code (with `eval_mode`: code that runs in eval mode too)."""
    if model.cached(("evaluation_direct_gradient_code", func, eval_mode),
                    lambda: any(_is_gradient_code(model, node) and not (eval_mode and _train_mode_only(model, node, func))
                                for node in walk(func))):
        return True
    if depth >= 3:
        return False  # (`generate_mesh` -> `generate_from_latent` -> `extract_mesh` -> `estimate_normals`)
    for node in walk(func):
        if isinstance(node, ast.Call):
            target = model.resolve_call(node)
            # a submodule of one of two classes (`self.implicit_network = Grid(...) if grid else
            # Plain(...)`): either may be the one that differentiates
            targets = [target] if target is not None else model.may_call_targets(node)
            if eval_mode and _train_mode_only(model, node, func):
                continue
            if any(isinstance(t, FUNCTION_TYPES) and t is not func and t.name != "__init__"
                   and _computes_gradients(model, t, depth + 1, eval_mode) for t in targets):
                return True
            if target is None and model.project is not None and \
                    _other_module_callee_differentiates(model, node, eval_mode):
                return True
    return False


def _train_mode_only(model, node, func) -> bool:
    """Is `node` in a branch of `func` that runs only in train mode: `if self.training:`
    (also `if self.training and ...`), or the `else` of `if not self.training:`?"""
    return _in_one_mode_only(model, node, func, training=True)


def eval_mode_only(model, node, func) -> bool:
    """Is `node` in a branch of `func` that runs only in eval mode: `if not self.training:`
    (also `if not self.training and ...`), or the `else` of `if self.training:`?"""
    return _in_one_mode_only(model, node, func, training=False)


def _in_one_mode_only(model, node, func, training: bool) -> bool:
    child = node
    for anc in model.ancestors(node):
        if anc is func:
            return False
        if isinstance(anc, ast.If):
            in_body = any(stmt is child for stmt in anc.body)
            test = anc.test
            parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
            if training and (in_body and any(_reads_training(p) for p in parts)
                             or not in_body and _reads_not_training(test)):
                return True
            if not training and (in_body and any(_reads_not_training(p) for p in parts)
                                 or any(stmt is child for stmt in anc.orelse) and _reads_training(test)):
                return True
        child = anc
    return False


def _reads_not_training(test) -> bool:
    return isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _reads_training(test.operand)


def _reads_training(test) -> bool:
    return isinstance(test, ast.Attribute) and test.attr == "training" and isinstance(test.value, ast.Name) \
        and test.value.id == "self"


def computes_gradients(model, func, eval_mode: bool = False) -> bool:
    """Does `func` (or what it calls, here or in another module of the project) compute
    gradients on purpose? What a function's summary says (`grad`, and `gtr` when only its
    train mode does) for callers elsewhere."""
    return _computes_gradients(model, func, 0, eval_mode)


def _other_module_callee_differentiates(model, call, eval_mode: bool = False) -> bool:
    """Is `call` a call of a function or method of another module of the project whose
    summary says it computes gradients (`self.matmul2.relprop(cam)` of a layer class whose
    `relprop` runs `torch.autograd.grad`), in eval mode too when `eval_mode`?"""
    entry = model.other_module_entry(call)
    if entry is None:
        # a method of an object of unknown class: any module class of the project defining it
        # that differentiates (`model.forward_baseline(...)`, which fine-tunes first) may be it
        return any(e.get("grad") and not (eval_mode and e.get("gtr")) or e.get("bw") or e.get("step")
                   for e in model.project_owner_entries(call))
    return bool(entry.get("grad")) and not (eval_mode and entry.get("gtr"))


def _receiver_frozen_before(model, call, unit) -> bool:
    """`model.requires_grad_(False)`, or `for p in model.parameters(): p.requires_grad = False`
    (or `p.requires_grad_(False)`, or over `model.named_parameters()`), earlier in the function,
    on the called model."""
    func = call.func.value if isinstance(call.func, ast.Attribute) and dotted(call.func) is not None \
        and dotted(call.func.value) is not None and not isinstance(call.func.value, ast.Call) else call.func
    receiver = dotted(func)
    if receiver is None or not isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        return False
    first = model.cached(("frozen_at", unit), lambda: _freeze_positions(unit)).get(receiver)
    return first is not None and first < start_of(call)


def _freeze_positions(unit) -> Dict[str, Position]:
    """receiver -> the first position in `unit` where all its parameters are frozen (one walk)."""
    out: Dict[str, Position] = {}
    for node in walk(unit):
        receiver = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_" \
                and _false_flag(node):
            receiver = dotted(torch_api.module_chain_root(node.func.value)) or _assigned_chain_name(unit, node)
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Attribute) \
                and node.iter.func.attr == "parameters" and isinstance(node.target, ast.Name) \
                and _freezes(node, node.target.id):
            receiver = dotted(node.iter.func.value)
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Attribute) \
                and node.iter.func.attr == "named_parameters" and isinstance(node.target, ast.Tuple) \
                and len(node.target.elts) == 2 and isinstance(node.target.elts[1], ast.Name) \
                and _freezes(node, node.target.elts[1].id):
            receiver = dotted(node.iter.func.value)  # `for k, v in model.named_parameters(): v.requires_grad = False`
        if receiver is not None and (receiver not in out or start_of(node) < out[receiver]):
            out[receiver] = start_of(node)
    for copy, original in _compiled_copies(unit).items():
        if copy in out and (original not in out or out[copy] < out[original]):
            out[original] = out[copy]  # the traced copy's parameters are the module's own tensors
    return out


# `torch.jit.trace(model, example)` and `torch.jit.script(model)` return a module that shares
# the parameter tensors of the one they are given: freezing one freezes both.
_PARAMETER_SHARING_COMPILERS = frozenset({"jit.trace", "jit.script"})


def _compiled_copies(unit) -> Dict[str, str]:
    """name -> the module it was traced or scripted from (`traced = torch.jit.trace(model, x)`)."""
    out: Dict[str, str] = {}
    for node in walk(unit):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) \
                and node.value.args and dotted(node.targets[0]) is not None and dotted(node.value.args[0]) is not None:
            name = dotted(node.value.func) or ""
            if any(name == f"torch.{c}" or name == c for c in _PARAMETER_SHARING_COMPILERS):
                out[dotted(node.targets[0])] = dotted(node.value.args[0])
    return out


def _assigned_chain_name(unit, call) -> Optional[str]:
    """`G = copy.deepcopy(g).eval().requires_grad_(False)`: the name the frozen module is bound to."""
    for node in walk(unit):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and dotted(node.targets[0]) is not None:
            value = node.value
            while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                if value is call:
                    return dotted(node.targets[0])
                value = value.func.value
    return None


def _false_flag(call) -> bool:
    return _is_false(call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "requires_grad"),
                                                           None))


def _freezes(loop, name: str) -> bool:
    """The loop's own body (not a branch in it: `if k.startswith("head"):` freezes a part)
    turns off `requires_grad` of every item."""
    for stmt in loop.body:
        node = stmt.value if isinstance(stmt, ast.Expr) else stmt
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "requires_grad"
                                                and dotted(t.value) == name for t in node.targets) \
                and _is_false(node.value):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_" \
                and dotted(node.func.value) == name and _false_flag(node):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "detach_" \
                and dotted(node.func.value) == name and not node.args:
            return True  # `param.detach_()` (a mean teacher's): the parameter stops requiring grad
    return False


def eval_name(name: str) -> bool:
    return bool(EVAL_WORDS & set(name.lower().strip("_").split("_")))


def _is_model_call(model, call) -> bool:
    if isinstance(call.func, ast.Call):
        return False  # `nn.ReplicationPad1d(k)(x)`: a layer built and applied inline, not the evaluated model
    if model.value(call).kind == MODULE:
        return False  # `agent = Model(envs)`: a constructor (its result is used as a module)
    called = model.value(call.func)
    if called.kind == MODULE and model.classes_hold_no_parameters(called):
        return False  # `criterion(output, target)` of a loss class holding no parameter: an op on the
        # evaluated model's output, whose forward is the finding
    if called.kind == MODULE:
        # (not when its class's `forward` is proven to record no graph, or not proven to record one)
        return not called.name or not model.forward_call_records_no_graph(called, call)
    func = call.func
    if not isinstance(func, ast.Attribute):
        return False
    receiver = model.value(func.value)
    if receiver.kind != MODULE:
        return False
    # `self.rssm.recurrent_model(post, action, deter)`: a method of a module class of this file
    # that runs a forward with autograd on (whose gradient code, an attack's `autograd.grad`,
    # is in view too; another module's `model.attack(...)` may differentiate inside)
    return func.attr == "forward" or bool(call.args or call.keywords) and func.attr not in _NOT_A_FORWARD \
        and not func.attr.startswith(_NOT_A_FORWARD_PREFIXES) \
        and ("." not in (receiver.name or "") or _runs_own_forward_only(model, receiver.name, func.attr)) \
        and model.method_runs_forward(receiver, func.attr, call) is True


def _runs_own_forward_only(model, class_name: str, attr: str) -> bool:
    """Does the method `attr` of a class of another module (from its summary) run the
    module's own forward with autograd on (`agent.act(obs, h)` returning `self.forward(obs,
    h)`), and neither back-propagate nor differentiate (not an attack's `model.attack(x)`
    running `autograd.grad` inside)? A method that builds something from the module
    (`model.get_predictor(...)` returning a predictor object) runs no forward of its own."""
    found = model.project.method_of(class_name, attr) if model.project is not None else None
    return found is not None and found[0] == "function" and isinstance(found[1], dict) \
        and bool(found[1].get("fwd_self")) and not found[1].get("bw") and not found[1].get("grad") \
        and not found[1].get("stub")


def _is_test_file(path: str) -> bool:
    norm = path.replace(os.sep, "/")
    base = os.path.basename(norm)
    return base.startswith("test_") or base.endswith("_test.py") or base == "conftest.py" or _in_tests_directory(path)


def is_unit_test(model, func) -> bool:
    """A pytest/unittest test function in a test file (or code nested in one, such as a
    callback class defined inside the test): it exercises code, it is not an evaluation
    loop."""
    if not _is_test_file(model.path):
        return False
    scopes = [func] + [a for a in model.ancestors(func) if isinstance(a, FUNCTION_TYPES)]
    in_tests_directory = _in_tests_directory(model.path)
    if any(scope.name.startswith("test") and _collected_as_test(model, scope)
           and (in_tests_directory or not _run_by_the_module_itself(model, scope)) for scope in scopes):
        return True
    return _helper_of_tests(model, func, 0)


def _in_tests_directory(path: str) -> bool:
    norm = f"/{path.replace(os.sep, '/')}"
    return "/tests/" in norm or "/test/" in norm


def _run_by_the_module_itself(model, func) -> bool:
    """`test_model(net, test_loader)` that the file's own `__main__` block (or another function
    of it that is not a test) calls: an evaluation pass the script runs, whatever the file's
    name (`validate_and_test.py` matches pytest's `*_test.py`). Not in a tests directory, where
    a `__main__` block that runs the tests by hand does not make them a script's evaluation."""
    for site in model.call_sites(func):
        caller = model.unit_of(site)
        if not isinstance(caller, FUNCTION_TYPES) or not (
                caller.name.startswith("test") and _collected_as_test(model, caller)):
            return True
    return False


def _helper_of_tests(model, func, depth: int) -> bool:
    """A helper of a test file that only tests call (`_mask_tests(i, layer)` from two
    `test_*` functions), directly or through such helpers: test code too. Not one that
    code outside the tests calls, nor one nobody here calls."""
    sites = model.call_sites(func)
    if depth > 2 or model.external_sites(func):
        return False
    if not sites:
        # a method of a test class or of its tester (`AlbertModelTester.create_and_check_*`)
        # that no test of this file calls any more: test code all the same
        info = model.class_of(func)
        return _handed_only_by_tests(model, func) or info is not None and _test_class(model, info)
    for site in sites:
        caller = model.unit_of(site)
        if not isinstance(caller, FUNCTION_TYPES) or caller is func:
            return False
        if not (caller.name.startswith("test") and _collected_as_test(model, caller)) \
                and not _helper_of_tests(model, caller, depth + 1):
            return False
    return True


def _handed_only_by_tests(model, func) -> bool:
    """A module-level function of a test file that only tests hand on, not call
    (`init_distributed(tp=2)(_test_loss)(...)`, `spawn(_run_test, ...)`): the body of a test run
    by a launcher, test code too."""
    if model.class_of(func) is not None or model.unit_of(func) is not None and \
            isinstance(model.unit_of(func), FUNCTION_TYPES):
        return False
    refs = [n for n in model.nodes(ast.Name) if n.id == func.name and isinstance(n.ctx, ast.Load)]
    if not refs:
        return False
    for ref in refs:
        caller = model.unit_of(ref)
        parent = model.parent(ref)
        if isinstance(parent, ast.Call) and parent.func is ref:
            return False  # a call the call sites would have seen: not handed on
        if not isinstance(caller, FUNCTION_TYPES) or not (caller.name.startswith("test") and _collected_as_test(model, caller)):
            return False
    return True


def _collected_as_test(model, func) -> bool:
    """What pytest or unittest would run as a test: a module-level `test*` function, or a
    `test*` method of a `Test*` class, a TestCase or a test mixin. `def test(self, epoch,
    loader)` of a model wrapper in `synth_test.py` is the wrapper's evaluation pass."""
    info = model.class_of(func)
    if info is None:
        return True  # a module-level (or nested) `test*` function
    return _test_class(model, info)


def _test_class(model, info) -> bool:
    """`Test*` (pytest), a TestCase, or a mixin of test methods (`InstanceModelE2ETest`,
    `EncoderDecoderMixin`) that TestCase subclasses of this file inherit."""
    if "Test" in info.name or _is_test_case(model, info):
        return True
    return any(info.name in {base.rsplit(".", 1)[-1] for base in other.base_names} and _is_test_case(model, other)
               for other in model.classes.values() if other is not info)


def _is_test_case(model, info) -> bool:
    return any(base.split(".")[-1].endswith("TestCase") for base in model.class_bases(info))


def _in_grad_mode_block(model, call) -> bool:
    """Inside `with torch.set_grad_enabled(...)` / `torch.enable_grad()`: the author set the
    grad mode deliberately (`set_grad_enabled(phase == "train")`)."""
    for _, expr in _enclosing_contexts(model, call):
        target = expr.func if isinstance(expr, ast.Call) else expr
        if torch_api.grad_context(model.qualname(target) or "") in ("set", "on"):
            return True
    return False


def _grad_mode_set_to_an_unknown_value(model, call, guards: frozenset = frozenset()) -> bool:
    """Inside `with torch.set_grad_enabled(E):` where E is no literal and the branches the
    call is in do not settle it: not under `if args.train:` when E is `args.train or
    args.fine_tune` (one operand of the `or` holds there, so autograd is on). Unknown too
    when the forward in the callee runs only under other flags of the same object (`if
    args.compute_map:` in `inference`, called under `if args.search_random_seed:`): whether
    one run sets both cannot be told."""
    for block, expr in _enclosing_contexts(model, call):
        if not (isinstance(expr, ast.Call) and torch_api.grad_context(model.qualname(expr.func) or "") == "set"
                and expr.args):
            continue
        flag = expr.args[0]
        if isinstance(flag, ast.Constant):
            return False
        held = {ast.dump(branch.test) for branch in model.ancestors(call)
                if isinstance(branch, ast.If) and model.is_inside(branch, block)
                and any(call is s or model.is_inside(call, s) for s in branch.body)}
        operands = flag.values if isinstance(flag, ast.BoolOp) and isinstance(flag.op, ast.Or) else [flag]
        settled = [operand for operand in operands if ast.dump(operand) in held]
        if not settled:
            return True
        roots = {o.value.id for o in settled if _a_flag(o)}
        return bool(guards) and all(_a_flag(o) for o in settled) \
            and not {test for _, test in guards} & {ast.dump(o) for o in operands} \
            and all(root in roots for root, _ in guards)
    return False


def _enclosing_contexts(model, node) -> Iterator[Tuple[ast.AST, ast.AST]]:
    """(the `with` block, one of its context expressions) around `node`, innermost first, up
    to the function (or lambda, or class) it is in."""
    for anc in model.ancestors(node):
        if isinstance(anc, FUNCTION_TYPES + (ast.Lambda, ast.ClassDef)):
            return
        if isinstance(anc, (ast.With, ast.AsyncWith)):
            for item in anc.items:
                yield anc, item.context_expr


# Context managers whose effect on autograd is known to be none (or is read elsewhere).
_KNOWN_CONTEXT_ROOTS = ("torch.", "contextlib.", "tqdm", "warnings.", "threading.", "open", "time.", "wandb.",
                        "mlflow.", "numpy.", "accelerate.")


def _inside_unknown_context_of(model, call) -> bool:
    """`with eval_mode(model): model(x)` with a context manager of another library (or one
    this file cannot resolve) that is handed the module itself: it may switch autograd off
    for it, which cannot be told from here, so no finding rests on autograd being on."""
    # the module is the callee (`model(x)`, `self.net(x)`) or the receiver (`model.generate(x)`)
    modules = {dotted(call.func)} | ({dotted(call.func.value)} if isinstance(call.func, ast.Attribute) else set())
    modules.discard(None)
    if not modules:
        return False
    for block, expr in _enclosing_contexts(model, call):
        if isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Subscript, ast.Name)) \
                and _grad_contexts_chosen_in(model, model.unit_of(block)):
            return True  # `with contexts[mode]():` of `{EVAL: torch.no_grad, TRAIN: nullcontext}`
        if not isinstance(expr, ast.Call) or not isinstance(expr.func, (ast.Name, ast.Attribute)):
            continue
        qual = model.qualname(expr.func) or ""
        if qual.startswith(_KNOWN_CONTEXT_ROOTS) or model.resolve_call(expr) is not None:
            continue  # torch's own contexts are read by the data flow; a local one by its body
        if any(dotted(arg) in modules for arg in list(expr.args) + [kw.value for kw in expr.keywords]):
            return True
    return False


def _grad_contexts_chosen_in(model, unit) -> bool:
    """Does `unit` hold a grad-mode context manager as a value, not entered at once
    (`contexts = {EVAL: torch.no_grad, TRAIN: contextlib.nullcontext}`, `ctx = torch.no_grad if
    evaluating else nullcontext`)? A `with` entering a context chosen at run time may then
    turn autograd off: which one runs cannot be told from here."""
    def compute() -> bool:
        for node in nodes_within(unit):
            if isinstance(node, (ast.Attribute, ast.Name)) and not (
                    isinstance(model.parent(node), ast.Call) and model.parent(node).func is node):
                qual = model.qualname(node) or ""
                if qual in _GRAD_CONTEXT_FACTORIES:
                    return True
        return False
    return model.cached(("grad_contexts_chosen_in", unit), compute)


_GRAD_CONTEXT_FACTORIES = frozenset({"torch.no_grad", "torch.inference_mode", "torch.enable_grad",
                                     "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})


def volatile_input(model, call) -> bool:
    """Is an input of the forward made with `Variable(x, volatile=True)` (directly, or a name
    bound to one in the function)?"""
    def volatile(expr) -> bool:
        return isinstance(expr, ast.Call) and (dotted(expr.func) or "").endswith("Variable") and any(
            kw.arg == "volatile" and isinstance(kw.value, ast.Constant) and kw.value.value is True
            for kw in expr.keywords)

    for arg in list(call.args) + [kw.value for kw in call.keywords]:
        if volatile(arg):
            return True
        if isinstance(arg, ast.Name):
            for definition in model.reaching(model.unit_of(arg)).definitions(arg):
                stmt = model.statement_of(definition) if not isinstance(definition, ast.arg) else None
                if not isinstance(stmt, ast.Assign):
                    continue
                value = stmt.value
                target = stmt.targets[0]
                if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
                    # `data, target = Variable(data, volatile=True), Variable(target)`
                    value = next((v for t, v in zip(target.elts, value.elts) if t is definition), None)
                if value is not None and volatile(value):
                    return True
    return False


def _asserted_to_call_without_grad(model, call, unit) -> bool:
    """The called object is asserted to be an instance of a class (`assert isinstance(
    predictor, OCRPredictor)`) whose call is not proven to record a graph: a class that is
    not a module, or a module whose `forward` runs with autograd off (`@torch.inference_mode()`),
    here or in another module of the project."""
    name = dotted(call.func)
    if name is None or not isinstance(unit, FUNCTION_TYPES):
        return False
    asserts = model.cached(("evaluation_isinstance_asserts", unit), lambda: [
        node for node in walk(unit) if isinstance(node, ast.Assert) and isinstance(node.test, ast.Call)
        and isinstance(node.test.func, ast.Name) and node.test.func.id == "isinstance" and len(node.test.args) == 2])
    for node in asserts:
        if dotted(node.test.args[0]) != name or (node.lineno, node.col_offset) >= (call.lineno, call.col_offset):
            continue
        cls = node.test.args[1]
        qual = model.qualname(cls) or dotted(cls) or ""
        if qual in ("torch.nn.Module", "torch.nn.modules.module.Module"):
            return False
        local = model.classes.get(qual)
        if local is not None:
            forward = local.methods.get("forward")
            return not model.is_module_class(local) or (forward is not None and model.grad_off_decorated(forward))
        if model.project is not None and model.project.is_first_party(qual):
            forward = model.project.method_of(qual, "forward")
            kind = model.project.class_kind(qual)
            return kind != "module" or bool(forward and forward[0] == "function" and (forward[1] or {}).get("nograd"))
        return False
    return False


def has_gradient_code(model, unit, start: Position, end: Position, forward: Optional[ast.Call] = None) -> bool:
    """Gradients computed on purpose between start and end: a backward, `autograd.grad`,
    `requires_grad_()`, `x.requires_grad = True`, `torch.enable_grad()`, a backward hook, or the
    recorded graph read (`out.grad_fn`), or a call of a function of this file that
    differentiates. Given the `forward` asked about, such a call counts only when it may be
    handed what the forward computes (`saliency(policy, env.reset())` after an evaluation
    rollout differentiates a forward of its own). The unit is walked once (every finding
    asks): a range query on the sorted positions of its gradient code."""
    positions = model.cached(("evaluation_gradient_code", unit), lambda: _gradient_code_positions(model, unit))
    keys = model.cached(("evaluation_gradient_code_keys", unit), lambda: [position for position, _ in positions])
    first = bisect.bisect_left(keys, start)
    for position, node in positions[first:]:
        if position >= end:
            return False
        if forward is None or node is None or _handed_forward_result(model, forward, node):
            return True
    return False


def _gradient_code_positions(model, unit) -> List[Tuple[Position, Optional[ast.Call]]]:
    """(position, None) of the unit's own gradient code; (position, call) of its calls of
    functions of this file that differentiate."""
    body = unit.body if hasattr(unit, "body") else []
    out = []
    for stmt in body:
        for node in walk(stmt):
            if not hasattr(node, "lineno"):
                continue
            if _is_gradient_code(model, node):
                out.append((start_of(node), None))
            elif _calls_gradient_code(model, node):
                out.append((start_of(node), node))
    return sorted(out, key=lambda item: item[0])


def _handed_forward_result(model, forward: ast.Call, call: ast.Call) -> bool:
    """May `call` be handed the value `forward` computes (an argument computed from it), or
    is it the forward itself, or one it runs within?"""
    if call is forward or model.is_inside(forward, call) or model.is_inside(call, forward):
        return True
    stmt = model.statement_of(forward)
    arguments = list(call.args) + [kw.value for kw in call.keywords]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        return True
    return any(model.feeds(forward, stmt, argument) or model.is_inside(forward, argument) for argument in arguments)


def _calls_gradient_code(model, node) -> bool:
    """A call of a function of this file (or of another module of the project) that
    differentiates (`self.cac_grad(loss, ...)` running `torch.autograd.grad`): the graph of
    what it is handed is needed."""
    if not isinstance(node, ast.Call):
        return False
    target = model.resolve_call(node)
    if target is None and model.project is not None and (
            model.project_call_differentiates(node) or _other_module_callee_differentiates(model, node, True)
            or _model_of_a_class_chosen_at_run_time(model, node)):
        return True  # a function of another module that back-propagates (a pose optimiser's `train_step`),
        # or a module of another module's class (or of a class a config picks) whose forward
        # differentiates (normals by autograd)
    return isinstance(target, FUNCTION_TYPES) and target.name != "__init__" and _computes_gradients(model, target, 1)


def _is_gradient_code(model, node) -> bool:
    if isinstance(node, ast.Call):
        func = node.func
        if model.backward_target(node) is not None or model.updates_parameters(node):
            return True  # a backward, or an update whose backward runs out of view: training code
        if isinstance(func, ast.Attribute) and func.attr in _GRADIENT_METHODS:
            return True
        qual = model.qualname(func) or ""
        return bool(qual.startswith(_GRADIENT_APIS) and qual not in _NOT_GRADIENT_CODE
                    or torch_api.grad_context(qual) == "on")
    if isinstance(node, ast.Attribute) and node.attr == "requires_grad" and isinstance(node.ctx, ast.Store):
        assign = model.parent(node)
        return not (isinstance(assign, ast.Assign) and _is_false(assign.value))  # `p.requires_grad = False` freezes
    if isinstance(node, ast.Attribute) and node.attr in _GRAPH_ATTRIBUTES and isinstance(node.ctx, ast.Load):
        return True  # `out.grad_fn`, `fn.next_functions`: the code walks the graph it records (a pruning
        # tracer, a graph profiler), so recording it is the point
    # `Variable(x, requires_grad=True)`; `requires_grad=False` turns gradients off: not gradient code
    return isinstance(node, ast.keyword) and node.arg == "requires_grad" and not _is_false(node.value)


def _is_false(expr) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is False


def whole_function_is_eval(model, func, context) -> bool:
    """The function evaluates from its first statement on; a `model.train()` that only
    restores the mode at the end (nothing but a plain `return` after it) is allowed.
    Memoized: every finding in the function asks."""
    key = ("evaluation_whole_function_is_eval", func, context[1] is None, context[4])
    return model.cached(key, lambda: _whole_function_is_eval_uncached(model, func, context))


def _whole_function_is_eval_uncached(model, func, context) -> bool:
    body = func.body
    for index, stmt in enumerate(body):
        if any(isinstance(n, ast.Call) and _mode_switch(n) == "train" for n in walk(stmt)):
            rest = body[index + 1:]
            if not (isinstance(stmt, ast.Expr) and all(_plain_return(s) for s in rest)):
                return False
    if context[1] is None:
        return True
    body = [s for s in func.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return bool(body) and model.statement_of(context[4]) is body[0]


def _plain_return(stmt) -> bool:
    return isinstance(stmt, ast.Return) and not any(isinstance(n, ast.Call) for n in walk(stmt))
