"""Recurrent state: a value a loop feeds back into its next iteration (`h = cell(x, h)`,
`out, state = model(x, state)`), carrying an autograd graph, in a loop that back-propagates
every iteration, with nothing detaching it in between. TLL008 asks; the value after the
statement (`value_after`) is what `structure.state_structure` reads first to size its fix.
"""

from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Tuple

from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.syntax import (FUNCTION_TYPES, SCOPE_TYPES, every_parameter, keyword_arg, nodes_within,
                                          passed_true, positional_parameters, self_name, walk)
from torchleaklint.semantic.guards import bound_first_under_the_same_test, branch_of, reads_own_value
from torchleaklint.semantic.values import MODULE, REF, UNKNOWN

# Calls that grow a tensor from its previous value: accumulators, which TLL001 reports.
_GROWING_CALLS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack",
                            "torch.vstack", "torch.dstack", "torch.add", "torch.column_stack", "torch.row_stack"})
# Tensor arithmetic written as a call (`v.add(x, alpha=dt)`, `torch.mul(v, decay)`): not in place.
_ARITHMETIC_METHODS = frozenset({"add", "sub", "subtract", "mul", "multiply", "div", "divide"})
_BUILTINS = frozenset({"max", "min", "sum", "abs", "len", "list", "tuple", "dict", "set", "sorted", "round",
                       "float", "int", "print", "isinstance", "getattr", "str", "repr", "zip", "enumerate"})


def carried_states(model) -> Iterator:
    """(stmt, loop, names): `stmt` rebinds `names`, state `loop` carries with a graph into its
    next iteration while back-propagating every iteration; one statement per carried cycle."""
    candidates = [found for stmt in model.nodes(ast.Assign, ast.AnnAssign)
                  for found in [_carried_state(model, stmt)] if found is not None]
    return _one_per_cycle(model, candidates)


def backward_in(model, loop) -> Optional[ast.Call]:
    """The first backward call in the loop's body (not in nested functions)."""
    return next((c for c in _calls_in_body(loop) if model.backward_target(c) is not None), None)


def _carried_state(model, stmt):
    """(stmt, loop, names) when `stmt` rebinds loop-carried state through a graph-building
    call in a loop that back-propagates every iteration and nothing detaches it."""
    if not model.loops_around(stmt) or stmt.value is None or model.grad_disabled_at(stmt):
        return None
    names = [n for n in _carried_names(model, stmt) if _carries_graph_after(model, stmt, n)]
    loop = None
    reported = []
    for name in names:
        found = _backward_loop(model, stmt, name)
        if found is not None and not _detached_in(model, found, stmt, name) \
                and not bound_first_under_the_same_test(model, found, stmt, name) \
                and not _carried_only_where_the_first_iteration_fails(model, stmt, name, found):
            loop = loop or found
            reported.append(name)
    if not reported:  # carried through locals: `y = net(cat([x, h])); h = y[:, -1]`
        for name in _bound_names(stmt):
            found = _recurrent_loop(model, stmt, name)
            if found is not None and _carries_graph_after(model, stmt, name) and \
                    not _detached_in(model, found, stmt, name) and not _analysis_unroll(model, found) \
                    and not bound_first_under_the_same_test(model, found, stmt, name) \
                    and not _carried_only_where_the_first_iteration_fails(model, stmt, name, found):
                loop = loop or found
                reported.append(name)
    return (stmt, loop, reported) if loop is not None else None


def _one_per_cycle(model, candidates):
    """One finding per carried cycle: `state = to_device(state)` then `out, state =
    model(x, state)` rebind the same state twice in one iteration; only the binding that
    survives into the next iteration (the forward's) is the one fed back."""
    def survives(stmt, loop, names):
        reaching = model.reaching(model.unit_of(stmt))
        return any(reaching.effect_survives(stmt, name, loop) for name in names)

    marked = [(stmt, loop, names, survives(stmt, loop, names)) for stmt, loop, names in candidates]
    surviving = {(loop, name) for _, loop, names, kept in marked if kept for name in names}
    # `logit, hidden = model(inp, hidden)` then `hidden = reset_hidden(hidden, finished)`: the
    # recurrent step is the forward (the last one of the cycle), not a helper that masks or
    # moves the state after it
    last_forward = {}
    for stmt, loop, names, _ in sorted(marked, key=lambda m: (m[0].lineno, m[0].col_offset)):
        if _runs_a_forward(model, stmt):
            for name in names:
                last_forward[(loop, name)] = stmt
    for stmt, loop, names, kept in marked:
        forwards = {last_forward.get((loop, name)) for name in names}
        if len(forwards) == 1 and None not in forwards:
            if stmt in forwards:
                yield stmt, loop, names
            continue
        if kept or not all((loop, name) in surviving for name in names):
            yield stmt, loop, names


def _runs_a_forward(model, stmt) -> bool:
    """Does the statement call a module (`model(inp, hidden)`, `self.cell(x, h)`)?"""
    return any(isinstance(call, ast.Call) and model.value(call.func).kind == MODULE for call in walk(stmt.value))


def _target_names(target) -> List[ast.Name]:
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, (ast.Tuple, ast.List)):
        out = []
        for elt in target.elts:
            out.extend(_target_names(elt.value if isinstance(elt, ast.Starred) else elt))
        return out
    return []


def _carried_names(model, stmt) -> List[str]:
    """Names the statement rebinds from an expression that passes their previous value,
    undetached, as an argument of a call (not an accumulating one)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    bound = [n.id for t in targets for n in _target_names(t)]
    passed = _names_passed_to_calls(model, stmt.value)
    return [name for name in dict.fromkeys(bound) if name in passed and _read_carries_graph(model, stmt, name)]


def _read_carries_graph(model, stmt, name) -> bool:
    """The state as this statement reads it carries a graph: `state = None` just before
    (a fresh start every iteration) makes the read graph-free."""
    for node in walk(stmt.value):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            value = model.value(node)
            if value.carries_graph or value.kind == UNKNOWN:
                return True
    return False


def _names_passed_to_calls(model, expr) -> set:
    """Names passed undetached to a call that keeps their history: not to one that cuts it
    on entry (a `forward` whose first line is `hidden = tuple(h.detach() for h in hidden)`)."""
    out = set()
    for call in walk(expr):
        if not isinstance(call, ast.Call) or _is_accumulating_call(model, call):
            continue
        for arg in list(call.args) + [kw.value for kw in call.keywords]:
            if isinstance(arg, ast.Name) and model.call_result_ignores_argument(call, arg):
                continue  # `alpha = train_model(..., alpha)` returning `log_alpha.exp()`: not fed back
            out.update(name for name in _direct_names(arg) if not model.call_cuts_argument(call, name))
    return out


def _direct_names(arg) -> List[str]:
    """`h` in `f(h)`, `f((h, c))`, `f(*h)`, but not in `f(h.detach())` or `f(h[0] + 1)`."""
    if isinstance(arg, ast.Starred):
        arg = arg.value
    if isinstance(arg, ast.Name):
        return [arg.id]
    if isinstance(arg, (ast.Tuple, ast.List)):
        return [n for elt in arg.elts for n in _direct_names(elt)]
    return []


def _is_accumulating_call(model, call) -> bool:
    if isinstance(call.func, ast.Name) and call.func.id in _BUILTINS:
        return True
    return (model.qualname(call.func) or "") in _GROWING_CALLS


def value_after(model, stmt, name):
    flow = model.flow(model.unit_of(stmt))
    if flow is None:
        return None
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    for target in targets:
        for node in _target_names(target):
            if node.id == name:
                return flow.values.get(node)
    return None


def _carries_graph_after(model, stmt, name) -> bool:
    value = value_after(model, stmt, name)
    if value is None:
        return False
    # Only a proven graph counts: `model.cell(x, state)` on a module of unknown class may
    # be a method returning anything (a cached tensor, a number), so an unknown result
    # yields no finding.
    return value.carries_graph and not _entry_of_an_unknown_dict(model, _bound_expression(stmt, name))


def _bound_expression(stmt, name) -> Optional[ast.AST]:
    """The expression `stmt` binds `name` to, when the targets match it element by element
    (`loss, acc = out["loss"], out["acc"]` binds `acc` to `out["acc"]`)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    for target in targets:
        if isinstance(target, ast.Name) and target.id == name:
            return stmt.value
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(stmt.value, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(stmt.value.elts):
            for elt, part in zip(target.elts, stmt.value.elts):
                if isinstance(elt, ast.Name) and elt.id == name:
                    return part
    return None


def _entry_of_an_unknown_dict(model, expr) -> bool:
    """`results["acc_result"]` of what a model of unknown class returned: an entry by name of a
    dict whose entries nobody here knows. The model's graph is in some of them (`"loss"`), but
    which: a metric's running counts fed back (`model(data, acc_result)`) may be numbers."""
    if not (isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant)
            and isinstance(expr.slice.value, str)):
        return False
    owner = model.value(expr.value)
    return owner.fields is None and owner.items is None and owner.elem is None


def _bound_names(stmt) -> List[str]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return list(dict.fromkeys(n.id for t in targets for n in _target_names(t)))


def _recurrent_loop(model, stmt, name) -> Optional[ast.AST]:
    """The innermost loop around `stmt` into whose next iteration the value bound to `name`
    survives, that runs a backward every iteration, and through which the value is computed
    from its own previous value by a call."""
    reaching = model.reaching(model.unit_of(stmt))
    for loop in model.loops_around(stmt):
        if not reaching.effect_survives(stmt, name, loop):
            continue
        if not _differentiates_every_iteration(model, loop, name):
            return None
        if model.recurrent_through_call(stmt, name, loop) or _integrated_and_back_propagated(model, stmt, loop, name):
            return loop
        return None
    return None


def _integrated_and_back_propagated(model, stmt, loop, name: str) -> bool:
    """Is `stmt` an arithmetic update of `name` from its own value (`v = 0.9 * v + fc(x)`, the
    old value an operand, handed to no call), and does a backward that runs on every iteration
    of the loop (not under a test) differentiate a value read from it (the spikes of `v` make
    the loss)? Each backward then walks every earlier iteration's graph: the state of a
    recurrence (a leaky integrator), not a total summed for one backward later."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == name and _an_operand_of_arithmetic(model, stmt.value, name)):
        return False
    unit = model.unit_of(loop)
    reaching = model.reaching(unit)
    own = stmt.targets[0]
    if not any(own in reaching.definitions(read) for read in walk(stmt.value)
               if isinstance(read, ast.Name) and read.id == name):
        return False  # the update reads a value this iteration bound just before (`g_eik, g_surf =
        # eikonal_loss(...)`, then `g_eik = lam * g_eik`), not the one it left last time
    if not _bound_before(model, unit, loop, name):
        return False  # no start value: the first iteration must bind it before this update
        # (`if args.loss_type == 0: losses = loss_fn(pos, neg)` then `losses = losses + reg`), so
        # each iteration's update reads that iteration's binding
    for call in _calls_in_body(loop):
        target = model.backward_target(call)
        if target is not None and not _in_nested_function(model, call, loop) \
                and not _conditional_in(model, call, loop) and _reads_state(model, unit, target, name):
            return True
    return False


def _carried_only_where_the_first_iteration_fails(model, stmt, name: str, loop) -> bool:
    """`if params["score"] == "h": scores = h` / `elif ...: scores = g` then `scores =
    add_gradient(x, scores)`: the previous iteration's value reaches the read only when no
    branch binds it. `name` has no value before the loop, so on the first iteration that path
    would raise NameError; every test deciding the branches reads nothing the loop changes, so
    each iteration takes the branch the first one took, and binds it afresh."""
    unit = model.unit_of(stmt)
    if _bound_before(model, unit, loop, name) or not isinstance(unit, FUNCTION_TYPES):
        return False
    reaching = model.reaching(unit)
    reads = [n for n in walk(stmt.value) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if not reads:
        return False
    for read in reads:
        fresh = [d for d in reaching.definitions(read) if d not in reaching.carried_definitions(read, loop)]
        if not fresh:
            return False
        for definition in fresh:
            if not model.is_inside(definition, loop):
                return False
            for anc in model.ancestors(definition):
                if anc is loop:
                    break
                if isinstance(anc, (ast.For, ast.AsyncFor, ast.While, ast.Try)) \
                        or isinstance(anc, (ast.If, ast.IfExp)) and not _fixed_across_iterations(anc.test, loop):
                    return False
    return True


def _bound_before(model, unit, loop, name: str) -> bool:
    """Is `name` a parameter of `unit`, or bound by a statement of it before `loop` and
    outside it (the start value of a recurrence)?"""
    if isinstance(unit, FUNCTION_TYPES) and name in {a.arg for a in every_parameter(unit)}:
        return True
    return any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
               and node.lineno < loop.lineno and not model.is_inside(node, loop) for node in nodes_within(unit))


def _an_operand_of_arithmetic(model, expr, name: str) -> bool:
    """Does `expr` read `name` as an operand of its arithmetic (`0.9 * v + x`, `v.add(x,
    alpha=dt)`, `torch.add(v, x, alpha=dt)`), and nowhere inside another call, subscript or
    attribute (where a callee or a view decides what is kept)?"""
    def reads(node) -> Tuple[bool, bool]:  # (read as an operand, read anywhere else)
        if isinstance(node, ast.Name):
            return node.id == name, False
        if isinstance(node, ast.BinOp):
            left, right = reads(node.left), reads(node.right)
            return left[0] or right[0], left[1] or right[1]
        if isinstance(node, ast.UnaryOp):
            return reads(node.operand)
        operands = _arithmetic_operands(model, node)
        if operands is not None:
            found = [reads(operand) for operand in operands]
            return any(f[0] for f in found), any(f[1] for f in found)
        return False, any(isinstance(n, ast.Name) and n.id == name for n in walk(node))
    operand, elsewhere = reads(expr)
    return operand and not elsewhere


def _arithmetic_operands(model, node) -> Optional[list]:
    """The operands of a call that is arithmetic written as a call, `a.add(b, alpha=dt)` or
    `torch.add(a, b, alpha=dt)` (its keywords, a scale, count as operands too); None for any
    other call."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) \
            or node.func.attr not in _ARITHMETIC_METHODS:
        return None
    keywords = [k.value for k in node.keywords]
    if model.qualname(node.func) == f"torch.{node.func.attr}":
        return list(node.args) + keywords
    if isinstance(node.func.value, (ast.Name, ast.BinOp, ast.UnaryOp, ast.Call)):
        return [node.func.value] + list(node.args) + keywords
    return None


def _differentiates_every_iteration(model, loop, name: str) -> bool:
    """A backward in the loop body that walks the history: not an inner unroll whose only
    differentiation is `autograd.grad(..., create_graph=True)`, which keeps the graph on
    purpose (second-order MAML, unrolled optimization)."""
    unit = model.unit_of(loop)
    for call in _calls_in_body(loop):
        if _in_nested_function(model, call, loop):
            continue
        target = model.backward_target(call)
        if target is not None and not _reads_state(model, unit, target, name):
            continue  # `loss.backward()` on a fresh loss that never reads the carried value
        if target is None:
            callee = model.resolve_call(call)
            if callee is not None and callee is not model.unit_of(loop) and _backward_per_call(model, callee) \
                    and (_passes(call, name) or _hands_on_values_of(model, call, callee, unit, name)
                         or _hands_on_through_its_object(model, loop, call, callee, name)):
                return True  # `loss, h = self._step(x, h)`, whose body back-propagates the state it is handed
            if callee is None and _step_of_another_module_handed_the_state(model, call, unit, name):
                return True  # `agent.train_step(state, logp, reward)` with `logp` made from `hidden`
            continue
        if model.qualname(call.func) == "torch.autograd.grad" and (
                passed_true(call, "create_graph") or _differentiates_with_respect_to(call, name)):
            continue  # (`grad = autograd.grad(loss, fast_weights)` of an inner adaptation loop:
            # differentiating with respect to the carried value stops there, walking none of
            # the history that made it)
        return True
    return False


def _differentiates_with_respect_to(call: ast.Call, name: str) -> bool:
    """`torch.autograd.grad(loss, name)` (or `inputs=name`, `[name]`, `(w, b)` with `name`
    among them): gradients with respect to the carried value itself. (The engine runs only the
    backward nodes on paths from the output to the inputs: the history that made them is
    behind them.)"""
    inputs = call.args[1] if len(call.args) > 1 else keyword_arg(call, "inputs")
    if isinstance(inputs, (ast.List, ast.Tuple)):
        return any(isinstance(e, ast.Name) and e.id == name for e in inputs.elts)
    # `list(params.values())`: the tensors of a dict of fast weights carried by a MAML inner loop
    if isinstance(inputs, ast.Call) and isinstance(inputs.func, ast.Name) and inputs.func.id in ("list", "tuple") \
            and len(inputs.args) == 1 and not inputs.keywords:
        inputs = inputs.args[0]
    if isinstance(inputs, ast.Call) and isinstance(inputs.func, ast.Attribute) and inputs.func.attr == "values" \
            and not inputs.args and not inputs.keywords:
        inputs = inputs.func.value
    return isinstance(inputs, ast.Name) and inputs.id == name


def _reads_state(model, unit, target: ast.AST, name: str) -> bool:
    """Does the back-propagated value read the carried state, directly or through the
    unit's bindings (`output, hidden = model(x, hidden); loss = crit(output, y)`)? A
    backward on a value that never reads it walks none of its history (PGD restarts keeping
    `max_loss = torch.max(max_loss, all_loss)` while each step back-propagates its own loss)."""
    if not model.computed_from(unit, name, target):
        return False
    # flow-sensitive: `output = self.predict(xx)` rebound later in the iteration, under
    # no_grad, does not make the backward on the earlier `output` read `xx`
    return any(isinstance(d, ast.Name) and d.id == name for d in model.graph_dependencies(target))


def _passes(call: ast.Call, name: str) -> bool:
    """Does the call hand `name` to its callee (`self._step(x, y, hidden)`)? A callee that
    back-propagates something else (`trainer.update(batch_size)` on replayed data) does not
    walk the carried state's history."""
    arguments = list(call.args) + [kw.value for kw in call.keywords]
    return any(isinstance(n, ast.Name) and n.id == name for arg in arguments for n in walk(arg))


def _step_of_another_module_handed_the_state(model, call: ast.Call, unit, name: str) -> bool:
    """Is `call` a function or method of another module that runs one training step per call
    (its summary's `step`), handed `name` or a value computed from it for a parameter its
    backward may read (`bwr`, `bwp`)? (`agent.train_step(state, logp, reward)` where `logp`
    came from `agent.select_action(state, hidden)`.)"""
    if model.project is None:
        return False
    callee = model.value(call.func)
    found = model.project.imported_summary(callee.name) if callee.kind == REF and callee.name else None
    if not found or found[0] != "function" or not isinstance(found[1], dict) or not found[1].get("step"):
        return False
    entry = found[1]
    params = list(entry.get("params", []))[1 if entry.get("self") else 0:]
    reaching = set(entry.get("bwr", ())) | set(entry.get("bwp", ()))
    bound = list(zip(params, call.args)) + [(kw.arg, kw.value) for kw in call.keywords if kw.arg in params]
    return any(param in reaching and isinstance(arg, ast.Name)
               and (arg.id == name or model.computed_from(unit, name, arg)) for param, arg in bound)


def _hands_on_values_of(model, call: ast.Call, callee, unit, name: str) -> bool:
    """Does the call hand the callee a value computed from `name` (the rollout's `values`,
    each made by a forward that read the carried state) for a parameter its backward reads
    (`_update(model, values, log_probs, ...)` back-propagating `policy_loss + value_loss`)?"""
    params = [a.arg for a in positional_parameters(callee)]
    if params and params[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        params = params[1:]
    bound = list(zip(params, call.args)) + [(kw.arg, kw.value) for kw in call.keywords if kw.arg in params]
    targets = [model.backward_target(c) for c in model.backward_calls_in(callee) if model.is_training_backward(c)]
    return any(isinstance(arg, ast.Name) and model.computed_from(unit, name, arg)
               and any(t is not None and model.computed_from(callee, param, t) for t in targets)
               for param, arg in bound)


def _hands_on_through_its_object(model, loop, call: ast.Call, callee, name: str) -> bool:
    """Does another method of the same object, called in the loop with `name`, store what it
    computes from it where the callee's backward reads it? (`action, hx = agent.act(obs, hx)`
    appends the value its forward made from `hx` to `self.memory.values`; `agent.update()`
    back-propagates a loss of `torch.stack(self.memory.values)`: each update walks the
    carried state's history.)"""
    if not isinstance(call.func, ast.Attribute):
        return False
    receiver = dotted(call.func.value)
    read = model.state_fed_to_backward(callee)
    if receiver is None or not read:
        return False
    me = self_name(callee)
    for other in _calls_in_body(loop):
        if other is call or not isinstance(other.func, ast.Attribute) or dotted(other.func.value) != receiver \
                or not _passes(other, name):
            continue
        method = model.resolve_call(other)
        if method is None or method is callee or model.class_of(method) is None or \
                model.class_of(method) is not model.class_of(callee):
            continue
        params = [a.arg for a in positional_parameters(method)]
        own = params[0] if params else None
        handed = [param for param, arg in zip(params[1:], other.args) if isinstance(arg, ast.Name) and arg.id == name]
        handed += [kw.arg for kw in other.keywords if isinstance(kw.value, ast.Name) and kw.value.id == name
                   and kw.arg in params[1:]]
        keys = {own + key[len(me):] for key in read} if own else set()
        if any(model.stores_from_parameter(method, param, keys) for param in handed):
            return True
    return False


def _backward_per_call(model, func) -> bool:
    """A function of this module that runs a training backward once per call (not inside a
    loop of its own, which would make it an epoch, and not `autograd.grad`)."""
    return any(model.is_training_backward(call) and not model.loops_around(call)
               for call in model.backward_calls_in(func))


def _backward_loop(model, stmt, name) -> Optional[ast.AST]:
    """The loop across whose iterations `name` is carried, when that loop runs a backward
    in every iteration (directly or in a nested loop of its body)."""
    # innermost first: a rollout loop without backward inside an update loop that has one
    return next((loop for loop in model.loops_carrying(stmt, name)
                 if _differentiates_every_iteration(model, loop, name) and not _analysis_unroll(model, loop)), None)


def _analysis_unroll(model, loop) -> bool:
    """A loop over a fixed number of layers (`for l in range(4)`) that stacks a computation
    and differentiates it each time with `retain_graph=True`, updating nothing: the gradients
    read are the input's (a receptive-field plot), and the whole history is wanted. A loop
    over data or time, or one that steps an optimizer, is training."""
    if not (isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name)
            and loop.iter.func.id == "range" and all(isinstance(a, ast.Constant) for a in loop.iter.args)):
        return False
    if model.is_data_loop(loop):
        return False  # `for i in range(0, 64, 16): xb = feats[i:i + 16]`: batches
    callees = [callee for call in _calls_in_body(loop) for callee in [model.resolve_call(call)]
               if callee is not None and callee is not model.unit_of(loop)]
    backwards = [c for c in _calls_in_body(loop) if model.backward_target(c) is not None] + \
        [c for callee in callees for c in model.backward_calls_in(callee)]
    if not backwards or not all(passed_true(call, "retain_graph") for call in backwards):
        return False
    return not any(model.is_optimizer_step(call) or model.is_scaler_step(call)
                   for unit in [loop] + callees for call in walk(unit) if isinstance(call, ast.Call))


def _calls_in_body(loop) -> Iterator[ast.Call]:
    for stmt in loop.body:
        for node in walk(stmt):
            if isinstance(node, ast.Call):
                yield node


def _in_nested_function(model, node, loop) -> bool:
    for anc in model.ancestors(node):
        if anc is loop:
            return False
        if isinstance(anc, SCOPE_TYPES):
            return True
    return False


def _detached_in(model, loop, stmt, name) -> bool:
    """Is `name` cut from its history somewhere in the loop: rebound to a graph-free value
    (`h = h.detach()`, `h = repackage_hidden(h)`, `h, c = h.detach(), c.detach()`),
    detached in place (`h.detach_()`), or re-initialized."""
    flow = model.flow(model.unit_of(stmt))
    if flow is None:
        return True
    for node in walk(loop):
        if isinstance(node, SCOPE_TYPES):
            continue
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            if model.statement_of(node) is stmt:
                continue
            value = flow.values.get(node)
            if value is not None and not value.carries_graph and \
                    (reads_own_value(model, node, name) or not _conditional_in(model, node, loop)) and \
                    not _other_branch_of_a_fixed_switch(model, node, stmt, loop):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "detach_" \
                and _root_name(node.func.value) == name:
            return True  # `h.detach_()`, `hidden[0].detach_()`
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Name) and node.iter.id == name \
                and isinstance(node.target, ast.Name) and any(
                    isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr == "detach_"
                    and _root_name(c.func.value) == node.target.id for c in walk(node)):
            return True  # `for s in state: s.detach_()`
    return False




def _other_branch_of_a_fixed_switch(model, cut, stmt, loop) -> bool:
    """`if repackage: h = repackage_hidden(h); out, h = model(x, h)` / `else: out, h =
    model(x, h)`: the cut is in one branch and the rebinding in the other of an `if` whose
    test does not change across iterations (a flag): on every iteration that takes the
    other branch nothing cuts the history. (A test that changes, `if step % k == 0:`,
    truncates the history every few steps.)"""
    for anc in model.ancestors(cut):
        if anc is loop:
            return False
        if isinstance(anc, ast.If) and branch_of(model, anc, cut) != branch_of(model, anc, stmt) \
                and branch_of(model, anc, stmt) is not None:
            return _fixed_across_iterations(anc.test, loop)
    return False














def _fixed_across_iterations(test, loop) -> bool:
    """The test reads only names the loop never rebinds, and calls nothing."""
    if any(isinstance(n, ast.Call) for n in walk(test)):
        return False
    rebound = {n.id for node in walk(loop) if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For))
               for t in ([node.target] if not isinstance(node, ast.Assign) else node.targets)
               for n in walk(t) if isinstance(n, ast.Name)}
    return not ({n.id for n in walk(test) if isinstance(n, ast.Name)} & rebound)


def _conditional_in(model, node, loop) -> bool:
    """A fresh re-initialization under an `if` (an episode reset) leaves the state carried
    through every other iteration."""
    for anc in model.ancestors(node):
        if anc is loop:
            return False
        if isinstance(anc, (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While)):
            return True
    return False


def _root_name(expr) -> Optional[str]:
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None
