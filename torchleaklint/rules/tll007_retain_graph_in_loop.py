"""TLL007: `backward(retain_graph=True)` inside a loop."""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from torchleaklint.diagnostics import ERROR, WARNING
from torchleaklint.rules.base import Rule
from torchleaklint.semantic.values import MODULE, UNKNOWN
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.syntax import FUNCTION_TYPES, called_on_self, passed_argument, positional_parameters, \
    self_name, short_source as _short
from torchleaklint.semantic.syntax import walk

_AUTOGRAD_BACKWARD_POSITION = 2  # torch.autograd.backward(tensors, grad_tensors=None, retain_graph=None)


class RetainGraphInLoop(Rule):
    """`backward(retain_graph=True)` on every iteration of a loop.

    ## What it does
    Finds `loss.backward(retain_graph=True)` and
    `torch.autograd.backward(loss, retain_graph=True)` with a constant `True` inside a
    loop of the same function, when no other backward follows it in the same iteration.
    Also in a function or method that runs once per step (`train_step`, a method the
    training loop calls) and builds its own graph, when no later backward of the call
    shares that graph and the graph does not leave the call: there the activations are
    kept until the function returns (a warning: a higher peak every step, not growth).

    ## Why is this bad?
    `retain_graph=True` keeps the graph's saved activations after backward. Inside a
    training loop each iteration's graph stays alive instead of being freed, and when the
    graphs are linked (a hidden state or a cached tensor carried from one iteration to the
    next) memory grows every step until OOM. It is most often added to silence "Trying to
    backward through the graph a second time", whose real cause is state that should have
    been detached between iterations.

    ## Example
    ```python
    hidden = model.init_hidden(batch_size)
    for x, y in batches:
        output, hidden = model(x, hidden)
        loss = criterion(output, y)
        loss.backward(retain_graph=True)
        optimizer.step()
    ```

    ## Use instead
    ```python
    hidden = model.init_hidden(batch_size)
    for x, y in batches:
        hidden = tuple(h.detach() for h in hidden)
        output, hidden = model(x, hidden)
        loss = criterion(output, y)
        loss.backward()
        optimizer.step()
    ```

    Not reported: a second backward through the same graph later in the same iteration
    (`d_loss.backward(retain_graph=True)` then `g_loss.backward()`), `retain_graph=False`,
    computed values (`retain_graph=i < n - 1`), `torch.autograd.grad(...,
    retain_graph=True)` (higher-order and Jacobian code needs it), `backward(create_graph=True)`
    (gradients differentiated again, by a Hessian-based optimizer's `step()`), and loops that build no
    new graph (no forward, no optimizer step) but back-propagate several outputs of one
    graph computed before the loop. A later backward counts only when its graph shares a
    computation with the retained one (graph provenance): a backward of a separate forward,
    or of a loss computed from detached inputs, does not need the retained graph, so the
    first one is still reported.

    ## Fix safety
    No automatic fix: whether the graph must be kept, and which state to detach instead,
    needs a human decision.
    """

    code = "TLL007"
    name = "retain-graph-in-loop"
    summary = "`backward(retain_graph=True)` on every iteration of a loop"
    fix_title = ""
    fix_safety = ""
    tokens = ("retain_graph",)

    def check(self, model) -> Iterator:
        for call in model.backward_calls():
            if not _retains_graph(model, call):
                continue
            loops = model.loops_around(call)
            if not loops:
                yield from self._in_step_function(model, call)
                continue
            target = model.backward_target(call)
            if target is not None and (model.shares_graph_built_before(target, loops[0])
                                       or model.reads_graph_held_by_object(target)) \
                    and not model.graph_carried_across_iterations(target, loops[0]):
                continue  # the next iteration back-propagates the part built before the loop (or
                # when the object was set up) again; not when the iteration also hands its own
                # graph to the next one (a recurrent state started from a parameter): that
                # chain grows every step, whatever the first link
            if target is not None and model.iterates_a_fixed_count(loops[0]) and \
                    _carried_into_next_iteration(model, call, target, loops[0]):
                continue  # `for i in range(2)` whose next pass back-propagates through this one's
                # graph (`sampling` carried without detach): the retained graph is needed, and
                # the chain ends with the loop, a bounded number of passes
            if _later_backward_in_iteration(model, call, loops) or not (
                    _builds_graph_each_iteration(model, loops[0]) or _fresh_graph_each_iteration(model, target, loops[0])):
                continue
            if target is not None and model.may_share_an_unknown_graph_built_before(target, loops[0]):
                continue  # `embeddings` from `self.cal_att(data)` before the loop, read by every
                # iteration's loss: whether the retained graph is walked again is not known
            shown = _short(target) if target is not None else "the loss"
            message = (f"`{shown}` is back-propagated with `retain_graph=True` on every iteration of the "
                       f"loop at line {loops[0].lineno} and no later backward of the iteration goes through "
                       f"that graph: its saved activations are kept after the backward instead of freed (at "
                       f"least until the next iteration replaces `{shown}`; every step, if anything carries "
                       f"state across iterations). Drop `retain_graph=True`; if it silenced \"backward "
                       f"through the graph a second time\", detach the state carried across iterations instead")
            evidence = [(loops[0], "this loop builds a new graph every iteration and back-propagates it "
                                   "with retain_graph=True"),
                        (call, "no later backward in the same iteration differentiates a value sharing this "
                               "graph, so retaining its saved activations serves nothing")]
            yield self.finding(call, message, severity=ERROR, evidence=evidence)


    def _in_step_function(self, model, call) -> Iterator:
        """A retained backward in a function that runs once per step (`train_step`, a method
        the training loop calls) and builds its own graph: no later backward of the step
        goes through that graph, so its saved activations stay until the function returns
        (a higher peak every step, not growth)."""
        unit = model.unit_of(call)
        if not isinstance(unit, FUNCTION_TYPES):
            return
        why = model.is_per_step_method(unit) or (
            _per_step_function_why(model, unit) if model.is_per_step_function(unit) else None) \
            or _called_by_step_functions(model, unit)
        target = model.backward_target(call)
        if why is None or not _builds_graph_each_iteration(model, unit) or \
                _later_backward_in_iteration(model, call, [unit]) or _graph_leaves(model, unit, target) or \
                _differentiates_a_graph_its_caller_back_propagates_again(model, unit):
            return
        shown = _short(target) if target is not None else "the loss"
        message = (f"`{shown}` is back-propagated with `retain_graph=True` in `{unit.name}` ({why}) and no "
                   f"later backward of the step goes through that graph: its saved activations are kept after "
                   f"the backward for as long as `{shown}` or its graph is referenced, at least until "
                   f"`{unit.name}` returns (a higher peak every step, not growth). Drop `retain_graph=True`; if it "
                   f"silenced \"backward through the graph a second time\", detach the state carried to the next "
                   f"call instead")
        evidence = [(unit, f"{why}; it builds a new graph each call"),
                    (call, "no later backward in the same call differentiates a value sharing this graph, so "
                           "retaining its saved activations serves nothing")]
        yield self.finding(call, message, severity=WARNING, evidence=evidence)


def _per_step_function_why(model, func) -> str:
    handed = model.optimizer_steps_handed(func)
    if handed and not model.call_sites(func):
        return f"`{_short(handed[0])}` calls it once per step, in the training loop"
    return f"`{func.name}` is called in a training loop"


def _differentiates_a_graph_its_caller_back_propagates_again(model, func) -> bool:
    """Is `func` handed a graph that reaches its retained backward (`_update_d(outputs,
    sharp)` with the generator's `outputs`, whose discriminator loss goes through them), by a
    caller that back-propagates after the call (the generator's loss, through the same
    `outputs`)? That later backward needs the shared part of the retained graph. (A batch
    handed in, as a framework or another module's loop hands it, carries no graph.)"""
    params = positional_parameters(func)
    skip = 1 if params and params[0].arg in ("self", "cls") and model.class_of(func) is not None else 0
    fed = [(i - skip, p.arg) for i, p in enumerate(params) if i >= skip and model.feeds_backward(func, p.arg)]
    if not fed:
        return False
    for site in model.call_sites(func):
        caller = model.unit_of(site)
        for position, name in fed:
            arg = passed_argument(site, name, position)
            value = model.value(arg) if arg is not None else None
            if value is not None and value.carries_graph and \
                    isinstance(caller, FUNCTION_TYPES) and _backward_after(model, site, caller):
                return True
    return False


def _called_by_step_functions(model, func) -> Optional[str]:
    """Why `func` runs once per step through its callers: every call site is in view, in a
    method or function that itself runs once per step (`optimize_parameters()`, called in the
    training loop, calling `backward_G()`), and no backward follows the call there (directly or
    in a function the caller runs after it), so nothing later in the step can need the graph."""
    sites = model.call_sites(func)
    if not sites or model.external_sites(func) or model.handed_out(func) or model.calls_by_method_name(func)[0]:
        return None
    for site in sites:
        caller = model.unit_of(site)
        if not isinstance(caller, FUNCTION_TYPES) or model.loops_around(site) or caller is func or \
                not (model.is_per_step_method(caller) or model.is_per_step_function(caller)) or \
                _backward_after(model, site, caller):
            return None
    return f"`{func.name}` is called once per step by `{model.unit_of(sites[0]).name}` at line {sites[0].lineno}"


def _backward_after(model, site, caller) -> bool:
    """A backward in `caller` after `site`, directly or in a function it calls (one in another
    module or of unknown target counts when it may run one)."""
    here = (site.lineno, site.col_offset)
    for node in walk(caller):
        if not isinstance(node, ast.Call) or node is site or (node.lineno, node.col_offset) <= here:
            continue
        if model.backward_target(node) is not None or _callee_runs_backward(model, node):
            return True
    return False


def _callee_runs_backward(model, call) -> bool:
    """Does the function `call` runs back-propagate: one of this module that has a backward,
    or one of another module (or of unknown target) that may run one?"""
    callee = model.resolve_call(call)
    return model.has_backward_within(callee) if callee is not None else model.runs_backward_in_another_module(call)


def _carried_into_next_iteration(model, call, target, loop) -> bool:
    """Does the differentiated graph depend on a value the loop body binds after this
    backward, that is, in the previous iteration? Then the next iteration's backward runs
    through this iteration's graph again."""
    here = (call.lineno, call.col_offset)
    for definition in model.graph_dependencies(target):
        stmt = model.statement_of(definition)
        if model.is_inside(stmt, loop) and (stmt.lineno, stmt.col_offset) > here:
            return True
    return False


def _graph_leaves(model, func, retained) -> bool:
    """Does a graph of the function that shares part of the retained one (`retained`, the
    differentiated expression; None: any) outlive the call: stored on `self` or in a global,
    or returned? Then a backward after the call (another step method) may need the retained
    graph, which cannot be told from here. A graph of its own (a preview `self.G(fixed_z)`
    stored after the update) needs nothing of it."""
    flow = model.flow(func)
    if flow is None:
        return True

    def shares(value) -> bool:
        return retained is None or model.graphs_share(value, retained)
    for node in walk(func):
        if isinstance(node, ast.Return) and node.value is not None and model.carries_graph(node.value) \
                and not model.value_killed_at(node.value) and not model.returned_graph_never_differentiated(func) \
                and shares(node.value):
            return True
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            leaves = [leaf for t in targets for leaf in walk(t) if isinstance(leaf, (ast.Attribute, ast.Subscript))
                      and isinstance(getattr(leaf, "ctx", None), ast.Store)]
            if leaves and model.carries_graph(node.value) and shares(node.value) \
                    and not _state_fed_back_to_itself(model, func, node, leaves):
                return True  # `self.fake = G(z)`, `cache[k] = out`
    return False


def _state_fed_back_to_itself(model, func, store, leaves) -> bool:
    """Is every graph `store` leaves on `self` the function's own recurrent state (`p,
    self.critic_h = self.ac(state, self.critic_h)`): read into the value stored, and cut by
    nothing between steps? Then what needs the retained graph later is only the
    next call's backward through that undetached state: the chain TLL008 and TLL002 report,
    which `retain_graph=True` keeps alive instead of fixing."""
    receiver = self_name(func)
    for leaf in leaves:
        if not (isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name) and leaf.value.id == receiver):
            return False
        read_in = any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and n.attr == leaf.attr
                          and isinstance(n.value, ast.Name) and n.value.id == receiver
                          and model.is_inside(n, store.value) for n in walk(func))
        if not read_in or model.state_cut_between_steps(func, leaf.attr):
            return False
    return True


def _retains_graph(model, call) -> bool:
    qual = model.qualname(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
    if qual == "torch.autograd.grad":
        return False
    # Positionally only for torch.autograd.backward: `x.backward(a, b)` may be
    # `accelerator.backward(loss, ...)`, whose second parameter is something else.
    flag = _retain_argument(call, _AUTOGRAD_BACKWARD_POSITION if qual == "torch.autograd.backward" else None)
    if any(kw.arg == "create_graph" and not (isinstance(kw.value, ast.Constant) and not kw.value.value)
           for kw in call.keywords):
        return False  # `backward(create_graph=True)`: gradients with their own graph, for a second
        # differentiation (Hessian-based optimizers' `step()`); the graph is kept on purpose, and
        # `retain_graph` defaults to `create_graph` anyway
    return isinstance(flag, ast.Constant) and flag.value is True


def _retain_argument(call, position) -> Optional[ast.AST]:
    for kw in call.keywords:
        if kw.arg == "retain_graph":
            return kw.value
    if position is not None and len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args):
        return call.args[position]
    return None


def _later_backward_in_iteration(model, call, loops) -> bool:
    """Another backward after `call` in the body of an enclosing loop that needs the
    retained graph: it differentiates a value sharing part of that graph (graph provenance),
    or runs in a function of this module (whose graph cannot be compared: assume it does).
    A later backward on a separate forward, or on detached inputs, does not need it."""
    here = (call.lineno, call.col_offset)
    retained = model.backward_target(call)
    ends = _iteration_ends_at(model, call, loops[0])
    for loop in loops:
        for node in walk(loop):
            if not isinstance(node, ast.Call) or node is call or (node.lineno, node.col_offset) <= here:
                continue
            if ends is not None and (node.lineno, node.col_offset) > ends:
                continue  # after the `continue` that ends this iteration's path
            if model.on_exclusive_branches(call, node):
                continue  # `else: loss.backward()`: the other branch of the retained one, never both
            target = model.backward_target(node)
            if target is not None:
                if retained is None or model.unit_of(node) is not model.unit_of(call) or \
                        model.graphs_share(retained, target):
                    return True
                continue
            if _callee_runs_backward(model, node) and not (
                    retained is not None and _hands_nothing_retained(model, node, retained)):
                return True
    return False


def _hands_nothing_retained(model, call, retained) -> bool:
    """Is the function `call` runs handed nothing of the retained graph? A plain function
    whose arguments are numbers, graph-free or detached tensors, optimizers, values whose
    graphs share nothing with it, modules the retained graph was not computed with
    (`finish_episode(policy, optimizer, returns - values.detach())` after the value net's
    retained backward), or modules of a class proven to keep nothing between calls (an
    attack's `fgsm(model, x, y, self.eps)` runs a forward of its own on the batch, with a
    setting fixed at construction): its backward walks graphs of its own. A method (it may read state its
    object keeps) or an argument of unknown kind may reach it."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        return False
    if isinstance(call.func, ast.Attribute):
        # a method may read state its object keeps; not one that builds every graph afresh
        # (`self.optimize_params_er_()` re-running its own forward before its backward)
        callee = model.resolve_call(call)
        if callee is None or not called_on_self(call.func) or not (
                model.builds_its_graphs_afresh(callee) or model.backward_walks_only_fresh_graphs(callee)):
            return False
    modules_used = {dotted(c.func) for d in model.graph_dependencies(retained)
                    for c in walk(model.statement_of(d)) if isinstance(c, ast.Call)}
    for arg in list(call.args) + [kw.value for kw in call.keywords]:
        value = model.value(arg)
        if value.kind == MODULE:
            # a module the retained graph was computed with may hold part of it (a cached
            # output, a recurrent state), unless its class is proven to keep nothing
            if dotted(arg) is None or dotted(arg) in modules_used and not model.holds_no_graph_state(arg):
                return False
        elif value.carries_graph:
            if model.graphs_share(retained, arg):
                return False
        elif value.kind == UNKNOWN and not model.is_batch_item(arg) and not model.set_only_at_construction(arg) \
                and not _item_made_before_the_retained_graph(model, arg, retained) \
                and not _bound_before_the_retained_graph(model, arg, retained, call):
            return False
    return True


def _bound_before_the_retained_graph(model, arg, retained, call) -> bool:
    """`gradient_penalty(pinn, xt_int)` with `xt_int` a parameter of the function (or bound
    before the loop, never in it), while the retained graph holds nothing built before the
    loop: what it names cannot hold part of that graph."""
    loops = model.loops_around(call)
    if not isinstance(arg, ast.Name) or not loops:
        return False
    return model.bound_outside(arg, loops[-1]) and not model.shares_graph_built_before(retained, loops[-1])


def _item_made_before_the_retained_graph(model, arg, retained) -> bool:
    """`real.clone()` of `for real in loader`: an item the iterable made before the loop ran,
    while the retained graph holds nothing built before that loop; it cannot hold part of it."""
    loop = model.loop_item_of(arg)
    return loop is not None and not model.shares_graph_built_before(retained, loop)


def _iteration_ends_at(model, call, loop) -> Optional[tuple]:
    """Where the iteration's path through `call` ends, when a `continue`, `break`, `return`
    or `raise` follows it in a block that contains it (`if warmup: loss.backward(...);
    opt.step(); continue`): later code of the loop body does not run after this backward."""
    node = model.statement_of(call)
    while node is not None and node is not loop:
        parent = model.parent(node)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(s is node for s in block):
                index = next(i for i, s in enumerate(block) if s is node)
                for later in block[index + 1:]:
                    if isinstance(later, (ast.Continue, ast.Break, ast.Return, ast.Raise)):
                        return (later.lineno, later.col_offset)
        node = parent
    return None


def _fresh_graph_each_iteration(model, target, loop) -> bool:
    """The differentiated value is made anew in every iteration of the loop (every
    definition reaching it is made in this iteration, and it carries a graph): a forward runs
    each iteration even when the callables are of unknown type (`head(backbone(x))`)."""
    if target is None or not model.carries_graph(target):
        return False
    # `loss`, or the names an expression of it reads (`(loss / n).backward(...)`) that carry
    # the graph: each of them made anew in this iteration
    names = [target] if isinstance(target, ast.Name) else [
        n for n in walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        and model.carries_graph(n)]
    if not names:
        return False
    reaching = model.reaching(model.unit_of(target))
    if not all(not model.drawn_from_iterable(name, loop)  # not one of a list of losses made before
               and reaching.survives_into(name, loop) is False for name in names):
        return False
    # nor computed from a value bound before the loop that may carry a graph (`y = out * (i + 1)`
    # on `out = torch.sum(G(z))` of a callable of unknown kind): every iteration may walk it again
    from torchleaklint.semantic.provenance import loop_invariant_inputs

    return not any(isinstance(d, ast.Name) and _calls_an_unknown_callable(model, d)
                   for d in loop_invariant_inputs(model, target, loop))


def _calls_an_unknown_callable(model, definition: ast.Name) -> bool:
    """Is the value bound at `definition` computed by a call of a callable of unknown kind
    (`out = torch.sum(G(z))` with `G` handed in): a forward, perhaps, whose graph every
    iteration reads again."""
    stmt = model.statement_of(definition)
    value = getattr(stmt, "value", None)
    flow = model.flow(model.unit_of(definition))
    bound = flow.values.get(definition) if flow is not None else None
    if bound is None or bound.kind != UNKNOWN or model.grad_disabled_at(stmt):
        return False  # typed (a graph is shares_graph_built_before's to judge), or made without grad
    return value is not None and any(
        isinstance(n, ast.Call) and dotted(n.func) is not None
        and model.value(n.func).kind == UNKNOWN and not model.qualname(n.func) for n in walk(value))


_GRAPH_FREE_KINDS = frozenset({"tensor", "data", "scalar", "none", MODULE, "loss_fn", "dataloader", "dataset"})


def _builds_graph_each_iteration(model, loop) -> bool:
    """Does the loop body run a forward or an optimizer step? A loop that only
    back-propagates different outputs of one graph built before it (a Jacobian row by row)
    must retain that graph between iterations."""
    if model.is_data_loop(loop):
        return True
    for node in walk(loop):
        if not isinstance(node, ast.Call):
            continue
        if model.is_optimizer_step(node) or model.is_scaler_step(node):
            return True
        if model.value(node.func).kind == MODULE:
            return True
        callee = model.resolve_call(node)
        if callee is not None and model.runs_training_step(callee):
            return True
        if callee is not None and model.value(node).carries_graph and all(
                model.value(arg).kind in _GRAPH_FREE_KINDS for arg in list(node.args) + [k.value for k in node.keywords]):
            return True  # `lyapunov_losses(V, pi, x)`: a helper whose forwards make a new graph from
            # modules and graph-free data (not from state of unknown kind it may share)
    return False
