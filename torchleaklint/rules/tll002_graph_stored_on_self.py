"""TLL002: a graph-carrying tensor stored on `self` in a method that runs once per step."""

from __future__ import annotations

import ast
from typing import Iterator, List, Tuple

from torchleaklint.diagnostics import ERROR, UNSAFE, FixSpec, Span
from torchleaklint.rules.base import Rule
from torchleaklint.rules.kept_graph import detach_at_the_caller
from torchleaklint.semantic.containers import inert_read
from torchleaklint.semantic.gating import in_exclusive_modes
from torchleaklint.semantic.structure import may_not_be_a_tensor
from torchleaklint.semantic.values import TENSORISH
from torchleaklint.semantic.evaluation import eval_mode_only
from torchleaklint.semantic.object_state import behind_a_mode_nothing_sets, called_after_store, class_methods, \
    cut_in_the_rollout, every_instance_steps_once, overwritten_before_it_runs_each_step, rollout_call_site, \
    previous_value_unseen_by_invariant_store, registered_by_a_base, registered_parameter, runs_after_store_each_step, \
    self_name as _self_name, stores_before_reading
from torchleaklint.semantic.syntax import (FUNCTION_TYPES, INIT_METHODS, nodes_within, short_source as _short,
                                          with_method)
from torchleaklint.semantic.syntax import child_nodes, walk


class GraphStoredOnSelf(Rule):
    """Graph-carrying tensor stored on `self` in a per-step method.

    ## Preview
    Not enabled by default: select it with `--select TLL002` or `extend-select =
    ["TLL002"]`. Measured blind on four fresh sets of public repositories
    (`benchmarks/blind/set5` to `set8`), 5 of its 72 findings were right (63 wrong, 4
    debatable): whether a stored value is read again by a later step, reset by a caller,
    or consumed by the same step's backward usually depends on code the analysis cannot
    see whole (other modules' callers, framework hooks, state toggled by flags). It stays
    a preview rule until it meets the precision bar of the others.

    ## What it does
    Finds `self.<attr> = <value>` (or `self.<attr> += <value>`) in a method that runs once
    per training step, where the value carries an autograd graph, and the stored graph
    either feeds the next step's computation (the class reads `self.<attr>` again in its
    per-step code) or is never back-propagated at all (a cached activation or attention
    map). A method runs once per step when it is named `forward`, `__call__`, `step`,
    `training_step` or `*_step` (configurable with `per-step-methods`), or when a training
    loop of the same module calls it (`plant = Plant(); ...; plant.advance(u)`). A method
    only another module's loop calls counts when it runs a forward of its own or stores
    something other than an update of the attribute's own value: a meter's `self.total +=
    loss` fed by another module's loop is that loop's running total, reported by TLL001.

    ## Why is this bad?
    An object that keeps state between steps (a simulator, an RNN wrapper, a running
    statistic, a module caching its last output) and stores a tensor with a `grad_fn`
    links every step's graph to the next one. The training loop looks correct, the leak
    hides in the class, and memory grows every step until the process is killed. A graph
    that is cached and never back-propagated keeps the step's saved activations alive.

    ## Example
    ```python
    class FirstOrderPlant:
        def step(self, u, dt):
            next_y = self.y + (self.ku * u - self.y) / self.tau * dt
            self.y = next_y
            return self.y
    ```

    ## Use instead
    ```python
    class FirstOrderPlant:
        def step(self, u, dt):
            next_y = self.y + (self.ku * u - self.y) / self.tau * dt
            self.y = next_y.detach()
            return next_y
    ```

    Not reported: detached values, updates under `torch.no_grad()` (running statistics,
    an EMA done right), assignments in `__init__`/`reset`/`setup_*`/`init_*` methods, a
    value the same step back-propagates (the style-transfer `self.loss = ...` idiom, an
    attention map on the path of the returned output, `AverageMeter.update(loss)` when the
    caller back-propagates `loss`), a read of `self.x` after this call's own store (it reads
    this step's value), state that another method of the class detaches (`detach_state()`,
    element by element too) or restarts before each step (`init_states()`), and state read
    by code this module hands to a library (a closure), whose use cannot be seen. A graph
    reported as never back-propagated must be proven dead: every read of the attribute is under
    no-grad, cut at once (`.detach()`, `.item()`), or only logged or plotted; any other read
    might consume it, so nothing is reported. A store behind an opt-in flag that only no-grad
    callers turn on (`if use_cache:` in generation) keeps no graph.

    ## Fix safety
    Unsafe. The fix stores `.detach()` of the value and makes the method return the
    undetached value, so callers still get gradients for the current step; gradients no
    longer flow into earlier steps through the stored state, which is what truncation means
    but changes what the model learns if that flow was intended. A list or tuple display
    (`[h, c]`) is detached element by element; a dict of tensors (`dict(l1=loss)`, what a
    loss helper returns) gets no fix, since a dict has no `.detach()`.
    """

    code = "TLL002"
    name = "graph-stored-on-self"
    summary = "Graph-carrying tensor stored on `self` in a method that runs once per step"
    fix_title = "Store `.detach()` of the value and return the undetached value"
    fix_safety = UNSAFE
    tokens = ("self.",)

    def check(self, model) -> Iterator:
        for stmt in model.nodes(ast.Assign, ast.AugAssign, ast.AnnAssign):
            func = model.unit_of(stmt)
            if not isinstance(func, FUNCTION_TYPES) or func.name in INIT_METHODS:
                continue
            info = model.class_of(func)
            receiver = _self_name(func)
            if info is None or receiver is None:
                continue
            for target in _self_targets(stmt, receiver):
                found = self._check_target(model, stmt, target, func, info)
                if found is not None:
                    yield found

    def _check_target(self, model, stmt, target, func, info):
        flow = model.flow(func)
        if flow is None or not flow.values.get(target, _NOTHING).carries_graph:
            return None
        if model.grad_disabled_at(stmt) or model.framework_runs_without_grad(func) or model.runs_only_without_grad(stmt):
            return None
        why = model.is_per_step_method(func)
        if why is not None and _updates_itself(stmt, target) and not model.calls_a_module(func) and \
                model.is_per_step_method(func, other_modules=False) is None:
            why = None  # a meter's `self.total += loss` in an `add(loss)` that only another module's
            # training loop calls, running no forward of its own: that loop's running total (TLL001's
            # finding); the per-step methods of TLL002 are those its own module's loop calls
        rollout = None
        if why is None:
            rollout = rollout_call_site(model, func, target.attr)
            if rollout is None:
                return None
            why = f"`{func.name}` is called in the rollout loop at line {rollout.lineno}, with autograd on"
        if behind_a_mode_nothing_sets(model, stmt, func):
            return None  # `if self.mode == "step":` where nothing in view selects that mode
        if eval_mode_only(model, stmt, func):
            return None  # stored only in eval mode (`if not self.training:`): no training step chains
            # it, and an evaluation run with grad on is TLL006's finding
        attr = target.attr
        methods = class_methods(model, info)
        if rollout is not None and cut_in_the_rollout(model, rollout, func, attr, methods):
            return None
        if rollout is None and model.state_cut_between_steps(func, attr) or registered_parameter(model, info, attr) \
                or registered_by_a_base(model, info, attr):
            return None  # cut between steps, or a Parameter's name: nothing else can be stored there
            # (or state a base class registers by name and manages)
        if every_instance_steps_once(model, info):
            return None  # every object of the class is called once and dropped: no next step
        fed_back = _fed_back(model, stmt, target, func, methods)
        if rollout is not None and not fed_back:
            return None  # only a chain through the calls of a rollout grows with them
        stored = _stored_expr(stmt, target)
        if not isinstance(stmt, ast.AugAssign) and not _reads_attribute(stored, target) \
                and _derived_from_state_stored_before(model, stored, stmt, func, target):
            return None  # `self.avg = self.sum / self.count` after `self.sum += val * n`: the
            # graph is the one `self.sum` holds, whose store is the finding
        if not isinstance(stmt, ast.AugAssign) and not _reads_attribute(stored, target) \
                and model.computed_only_from_leaves(stored):
            return None  # `self.alpha = self.log_alpha.exp()`: rebuilt from the leaf every step, no
            # chain; and one op over parameters keeps no activations of the step, read or not
        if not fed_back:
            elsewhere = _reads_elsewhere(model, attr, stmt, func)
            if _consumed_in_step(model, stmt, target, func, elsewhere=elsewhere):
                return None
            if any(_consumed_in_step(model, stmt, other, func, elsewhere=_reads_elsewhere(model, other.attr, stmt, func))
                   for other in _same_value_targets(stmt, target, _self_name(func))):
                return None  # `self.total_loss = self.prediction_loss = ...`: one value under two
                # names, the graph a backward walks through the other
            if any(not inert_read(model, read) for read in elsewhere):
                return None  # a read whose use is not followed may consume it: not proven dead
            if model.handed_out_by_a_base_elsewhere(info, attr):
                return None  # `self.preds`, which BasePIFuNet's `get_error` (another module) returns
                # as a loss to callers out of view
            if _a_sibling_output_is_used(model, stmt, target, func):
                return None  # `self.feats, self.tmpx, self.normx = self.image_filter(images)`:
                # one forward's outputs, one graph; the features the loss is computed from may
                # back-propagate through `normx` too
            if _copied_from_back_propagated_state(model, _stored_expr(stmt, target), func):
                return None  # `self.image_display = torch.cat((real.cpu(), self.fake1.cpu()))`
                # where a backward of the class reads `self.fake1`: that backward frees the
                # generator's activations; the copy and the concatenation save none
        numbers = model.parameter_given_numbers(stored)
        # no `.detach()` fix where some caller hands the method a number (it would fail there),
        # nor on a dict, list or tuple of tensors (`dict(l1=loss).detach()` would raise)
        fixable = numbers is None and not _a_collection(model, stored)
        return self.finding(stmt, self._message(model, stmt, target, func, info, fed_back, numbers, rollout),
                            self._fix(stmt, attr) if fixable else None, severity=ERROR,
                            evidence=self._evidence(model, stmt, target, func, why, fed_back, rollout))

    def _evidence(self, model, stmt, target, func, why, fed_back, rollout=None) -> list:
        stored = _stored_expr(stmt, target)
        site = rollout or model.training_loop_call_site(func)
        steps = [model.graph_origin(stored), (site or func, why)]
        if rollout is not None:
            steps.append((stmt, f"the next call computes from `self.{target.attr}` and nothing in view "
                                f"back-propagates it: the rollout's graph only grows"))
        elif fed_back:
            steps.append((stmt, f"the next step computes from `self.{target.attr}`, chaining each step's "
                                f"graph to the previous ones"))
        else:
            steps.append((stmt, f"no read of `self.{target.attr}` reaches a backward: its graph is never "
                                f"back-propagated, only kept"))
        return steps

    def _message(self, model, stmt, target, func, info, fed_back, numbers=None, rollout=None) -> str:
        stored = _stored_expr(stmt, target)
        shown = _short(stored)
        site = rollout or model.training_loop_call_site(func)
        when = f"called in the training loop at {model.site_label(site)}" if site is not None else "runs once per step"
        if rollout is not None:
            when = f"called at every iteration of the rollout loop at line {model.loops_around(rollout)[0].lineno}, " \
                   f"with autograd on and no backward"
        through = model.called_by_a_function_of_the_training_loop(func) if site is None else None
        if through is not None:
            when = f"called by `{model.unit_of(through[0]).name}` at line {through[0].lineno}, which the " \
                   f"training loop calls at {model.site_label(through[1])}"
        head = (f"`self.{target.attr}` keeps `{shown}`, which carries an autograd graph, in "
                f"`{info.name}.{func.name}` ({when}); ")
        fix = f"Store `{with_method(stored, 'detach')}`"
        if _a_collection(model, stored):
            fix = f"Store `.detach()` copies of the tensors in `{shown}`"
        elif isinstance(stmt, ast.AugAssign):
            fix = f"Add `{with_method(stored, 'detach')}`"
        if _returns_attribute(func, target.attr):
            fix += f" and return the undetached value instead of `self.{target.attr}`"
        if numbers is not None:
            fix = detach_at_the_caller(model, numbers, site)
        if rollout is not None:
            return head + (f"the next call computes from `self.{target.attr}`, so every call's graph is "
                           f"chained to the previous ones and, with nothing back-propagating them, their "
                           f"activations stay alive until `self.{target.attr}` is reset. {fix}")
        if fed_back:
            return head + (f"the next step computes from `self.{target.attr}`, so every step's graph "
                           f"is chained to the previous ones and memory grows each step. {fix}")
        return head + (f"nothing back-propagates through `self.{target.attr}`, so it keeps the step's "
                       f"graph and saved activations alive. {fix}")

    def _fix(self, stmt, attr) -> FixSpec:
        return FixSpec(codemod="detach_stored_state", safety=UNSAFE, title=self.fix_title,
                       target=Span.of(stmt), params=(("attribute", attr),))


def _a_collection(model, stored) -> bool:
    """Is the stored value (or may it be) a dict, list or tuple of tensors (`dict(l1=loss)`,
    what a loss helper returns as a dict, a model output used as `out["loss"]`), which has no
    `.detach()` of its own? A list or tuple display of tensors (`[upper, lower]`) is not: the
    fix detaches it element by element."""
    if isinstance(stored, (ast.List, ast.Tuple)) and stored.elts:
        return not all(not isinstance(e, ast.Starred) and model.value(e).kind in TENSORISH
                       and not may_not_be_a_tensor(model, e) for e in stored.elts)
    return may_not_be_a_tensor(model, stored)


_NOTHING = type("_Nothing", (), {"carries_graph": False})()


def _updates_itself(stmt, target) -> bool:
    """`self.total += loss`, `self.ema = b * self.ema + (1 - b) * x`: the store computes from
    the attribute's own previous value."""
    return isinstance(stmt, ast.AugAssign) or _reads_attribute(_stored_expr(stmt, target), target)


def _same_value_targets(stmt, target, receiver: str) -> List[ast.Attribute]:
    """The other `self` attributes a chained assignment (`self.a = self.b = value`) binds to
    the very value it binds to `target`."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) > 1 and target in stmt.targets):
        return []
    return [t for t in stmt.targets if t is not target and isinstance(t, ast.Attribute)
            and isinstance(t.value, ast.Name) and t.value.id == receiver]


def _self_targets(stmt, receiver: str) -> List[ast.Attribute]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    out: List[ast.Attribute] = []
    stack = list(targets)
    while stack:
        target = stack.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            stack.extend(target.elts)
        elif isinstance(target, ast.Starred):
            stack.append(target.value)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                and target.value.id == receiver:
            out.append(target)
    return sorted(out, key=lambda t: t.col_offset)


def _stored_expr(stmt, target) -> ast.AST:
    value = stmt.value
    if isinstance(stmt, ast.Assign) and isinstance(value, (ast.Tuple, ast.List)):
        for tgt in stmt.targets:
            if isinstance(tgt, (ast.Tuple, ast.List)) and len(tgt.elts) == len(value.elts):
                for elt, part in zip(tgt.elts, value.elts):
                    if elt is target:
                        return part
    return value


def _self_reads(method, attr: str) -> List[ast.Attribute]:
    receiver = _self_name(method)
    return [n for n in walk(method) if isinstance(n, ast.Attribute) and n.attr == attr
            and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) and n.value.id == receiver]


def _reads_attribute(expr, target) -> bool:
    """Does `expr` read the attribute it is stored into (`0.99 * self.adapt + ...`)?"""
    key = ast.unparse(target)
    return any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and ast.unparse(n) == key
               for n in walk(expr))


def _carried_by_a_step_loop_of_its_own(model, stmt, target, func) -> bool:
    """Is the store in a loop of the method that steps an optimizer, where a read of the
    attribute in the next iteration sees it (`for i, batch in enumerate(self.loader): ...;
    opt.step(); self.mloss = (self.mloss * i + items) / (i + 1)` in a Tune trainable's `step`)?
    Each iteration is a training step, so the stored graph chains them, whatever the method
    restarted before its loop."""
    reaching = model.reaching(func)
    for loop in model.loops_around(stmt):
        if not model.is_step_loop(loop):
            continue
        for read in _self_reads(func, target.attr):
            if model.is_inside(read, loop) and _before(read, stmt) and not model.value_killed_at(read) \
                    and target in reaching.definitions(read):  # (reached through the loop's back edge)
                return True
    return False


def _fed_back(model, stmt, target, func, methods) -> bool:
    """Does a later step compute from the stored value? Yes when the storing method reads
    `self.attr` before the store (its previous value: `self.y + ...`, `self.total += x`), or
    another per-step method of the class reads it."""
    attr = target.attr
    reaching = model.reaching(func)
    stored = _stored_expr(stmt, target)
    if isinstance(stmt, ast.AugAssign):
        # `self.embeddings += [h]` reads the previous call's value unless this call rebound
        # it first on every path (`self.embeddings = [h0]` at the top of the same forward); in
        # a loop of the method over batches, the previous iteration's (`self.loss_sum += loss` per
        # batch of a Tune trainable's `step`, restarted once per call)
        return reaching.from_entry(stmt.target) is not False or any(
            model.is_data_loop(loop) and any(d is stmt.target for d in reaching.carried_definitions(stmt.target, loop))
            for loop in model.loops_around(stmt))
    for read in _self_reads(func, attr):
        # only a read that can see what the previous call left counts: after
        # `self.scores = a @ b`, `self.scores.softmax(-1)` reads this call's value
        if _before(read, stmt) and not model.value_killed_at(read) and reaching.from_entry(read) is not False \
                and not model.leaves_before_reaching(read, stmt) \
                and not _reads_detached_state(model, func, read) and not in_exclusive_modes(model, read, stmt) \
                and not model.read_graph_dies_in_call(read, stored) \
                and not previous_value_unseen_by_invariant_store(model, func, read):
            return True
    if _read_by_a_helper_before_the_store(model, stmt, func, attr, methods):
        return True
    if _carried_by_a_step_loop_of_its_own(model, stmt, target, func):
        return True
    for method in methods:
        if method is func or method.name in INIT_METHODS or not model.is_per_step_method(method) \
                or runs_after_store_each_step(model, method, func) or stores_before_reading(model, method, func, attr) \
                or called_after_store(model, method, stmt) \
                or overwritten_before_it_runs_each_step(model, method, func, attr, methods):
            continue
        # (a read whose graph reaches that method's backward consumes the stored value in the
        # step it was stored: `actor_loss = -self.log_prob * delta; actor_loss.backward()` in
        # `learn`, after `choose_action` stored it; nothing of it goes on into a later step)
        # (nor a read whose graph ends in its own statement or function: `images_a1 =
        # self.normalize_image(self.fake_A_encoded).detach()` in a display method)
        # (nor a getter's `return {**self.g_losses, **self.d_losses}`: it hands the latest value
        # out, the class computes nothing from it; what callers do is not a chain of its steps)
        if any(not model.value_killed_at(r) and not model.grad_disabled_at(r) and not model.read_reaches_backward(r)
               and not model.read_graph_dies_in_call(r, stored) and not _only_returned(model, r)
               for r in _self_reads(method, attr)):
            return True
    return False


def _only_returned(model, read) -> bool:
    """Is the read what its method returns, as it is or as an item of the returned dict, list
    or tuple display (`return self.attn`, `return {**self.g_losses}`, `return self.a, self.b`)?"""
    node, parent = read, model.parent(read)
    while isinstance(parent, (ast.Dict, ast.List, ast.Tuple, ast.Starred)):
        if isinstance(parent, ast.Dict) and node not in parent.values:
            return False  # a key
        node, parent = parent, model.parent(parent)
    return isinstance(parent, ast.Return) and parent.value is node


def _read_by_a_helper_before_the_store(model, stmt, func, attr: str, methods) -> bool:
    """Does the storing method call, before the store, a method of the class that reads
    `self.attr` as the previous call left it (`out, h, c = self._unroll(x)` with `_unroll`
    starting from `self.h, self.c`, then `self.h, self.c = h, c`)? That read is the previous
    step's graph, fed into this step's computation."""
    for call in nodes_within(func):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name) and call.func.value.id == _self_name(func)
                and _pos(call) < _pos(stmt)):
            continue
        helper = next((m for m in methods if m is not func and getattr(m, "name", None) == call.func.attr), None)
        if helper is None or helper.name in INIT_METHODS:
            continue
        reaching = model.reaching(helper)
        if any(not model.value_killed_at(r) and not model.grad_disabled_at(r) and reaching.from_entry(r) is not False
               and not model.read_graph_dies_in_call(r, stmt.value) and not model.skipped_for_call(r, helper, call)
               for r in _self_reads(helper, attr)):
            return True
    return False


def _reads_detached_state(model, func, read) -> bool:
    """Every definition of `self.attr` this call made before the read is graph-free: a read
    after `self.h = self.h.detach()` at the top of the step sees the detached state."""
    flow = model.flow(func)
    definitions = model.reaching(func).definitions(read)
    return flow is not None and bool(definitions) and model.reaching(func).from_entry(read) is False and \
        not any(flow.values.get(d, _NOTHING).carries_graph for d in definitions)


def _pos(node):
    return (node.lineno, node.col_offset)


def _before(node, stmt) -> bool:
    return (node.lineno, node.col_offset) < (stmt.lineno, stmt.col_offset) or \
        (node.lineno >= stmt.lineno and node.end_lineno <= stmt.end_lineno and not _in_targets(node, stmt))


def _in_targets(node, stmt) -> bool:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    return any(node is n for t in targets for n in walk(t))


def _reads_elsewhere(model, attr, stmt, func) -> List[ast.Attribute]:
    """Reads of `.attr` that may see the stored value: anywhere in the module except the
    storing statement itself and reads of other objects' model outputs (`outputs.loss`)."""
    out = []
    for read in model.attribute_loads(attr):
        if model.is_inside(read, stmt):
            continue
        if model.unit_of(read) is func and _before(read, stmt):
            continue
        owner = model.value(read.value)
        if owner.carries_graph:
            continue
        out.append(read)
    # `total_loss += getattr(self, "loss_" + name)` for each name of `self.loss_names`: a read
    # of every `self.loss_*` (pix2pix-style loss bookkeeping)
    out.extend(read for read in model.dynamic_attribute_reads(attr) if not model.is_inside(read, stmt))
    return out


# ops whose backward needs no saved tensor of their inputs (shapes and devices only)
_SAVE_NOTHING_CALLS = frozenset({"torch.cat", "torch.stack", "torch.split", "torch.chunk", "torch.flatten",
                                 "torch.clone"})
_SAVE_NOTHING_METHODS = frozenset({"cpu", "cuda", "to", "view", "reshape", "permute", "transpose", "contiguous",
                                   "flatten", "squeeze", "unsqueeze", "clone", "float", "half", "double"})


def _copied_from_back_propagated_state(model, stored, func) -> bool:
    """Is `stored` made, by ops that save nothing for their backward (`torch.cat`, `.cpu()`,
    `.view(...)`, `torch.clone`), only from graph-free values and `self` state that a backward
    reads (`self.fake_image1`, which `update_G`'s loss back-propagates; `self.decoder.loss`,
    which the method also stores as `self.loss` for a training loop of another module to
    back-propagate)? Then the graph it holds is one that backward frees: a copy for display or
    logging keeps no activations."""
    receiver = _self_name(func)
    found = False
    stack = [stored]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Attribute) and _rooted_at(node, receiver):
            if model.carries_graph(node):
                if not _back_propagated_state(model, node, func, receiver):
                    return False
                found = True
            continue
        if isinstance(node, ast.Call):
            func_node = node.func
            if isinstance(func_node, ast.Attribute) and func_node.attr in _SAVE_NOTHING_METHODS:
                stack.append(func_node.value)
            elif model.qualname(func_node) in _SAVE_NOTHING_CALLS:
                pass
            elif not model.carries_graph(node):
                continue
            else:
                return False
            stack.extend(node.args)
            continue
        if isinstance(node, (ast.Tuple, ast.List, ast.Subscript, ast.Starred)):
            stack.extend(child_nodes(node))
            continue
        if model.carries_graph(node):
            return False
    return found


def _rooted_at(node: ast.Attribute, receiver: str) -> bool:
    """`self.x`, `self.decoder.loss`: an attribute chain starting at the receiver."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == receiver


def _back_propagated_state(model, read: ast.Attribute, func, receiver: str) -> bool:
    """Is the state `read` names back-propagated by a backward: `self.<attr>` that a backward
    of this module reads, or of another module (`net.model.copula_loss` in the training loop),
    or a part's attribute (`self.decoder.copula_loss`) that `func` also stores, unchanged, as
    such an attribute of its own (`self.copula_loss = self.decoder.copula_loss`)?"""
    def consumed(attr: str) -> bool:
        return attr in model.backpropagated_attributes() or (
            model.project is not None and model.project.attribute_back_propagated_elsewhere(attr))
    if isinstance(read.value, ast.Name):
        return consumed(read.attr)
    shape = ast.dump(read)
    return any(isinstance(node, ast.Assign) and ast.dump(node.value) == shape for node in nodes_within(func)
               for target in getattr(node, "targets", ()) if isinstance(target, ast.Attribute)
               and isinstance(target.value, ast.Name) and target.value.id == receiver and consumed(target.attr))


def _a_sibling_output_is_used(model, stmt, target, func) -> bool:
    """Is `target` one of several attributes unpacked from one call (`self.a, self.b =
    net(x)`), another of which is read somewhere a backward may follow? They share the
    forward's graph: what back-propagates one walks the other's part too."""
    if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], (ast.Tuple, ast.List))):
        return False
    receiver = _self_name(func)
    for other in _self_targets(stmt, receiver):
        if other is target or other.attr == target.attr:
            continue
        if any(not inert_read(model, read) for read in _reads_elsewhere(model, other.attr, stmt, func)):
            return True
    return False


def _stored_again_and_consumed(model, read, depth: int) -> bool:
    """The read (a slice, a view, the value itself) is stored on another attribute of self
    in the same method, and that attribute's graph is consumed by a backward."""
    stmt = model.statement_of(read)
    func = model.unit_of(read)
    receiver = _self_name(func) if isinstance(func, FUNCTION_TYPES) else None
    if not isinstance(stmt, ast.Assign) or receiver is None or not isinstance(read, ast.Attribute) or \
            not (read is stmt.value or model.is_inside(read, stmt.value)):
        return False
    for target in _self_targets(stmt, receiver):
        if target.attr == read.attr:
            continue
        elsewhere = _reads_elsewhere(model, target.attr, stmt, func)
        if _consumed_in_step(model, stmt, target, func, elsewhere, depth + 1):
            return True
    return False


def _consumed_in_step(model, stmt, target, func, elsewhere, depth: int = 0) -> bool:
    """Does a backward of the same step run through the stored graph? Then its activations
    are freed and only the latest step's nodes are kept until the next store: no leak.
    - another read of the attribute reaches a backward;
    - the stored value is part of what the method returns, or a second output of a forward
      the returned value comes from (`x, self.attn = self.attention(q)` then `return
      self.proj(x)`, `self.code = code` then `return head(code)`): whoever back-propagates
      the output back-propagates it, and frees the activations of that forward;
    - the stored value is an argument (`self.val = val` in `AverageMeter.update`) that the
      caller's step back-propagates (`meter.update(loss); loss.backward()`);
    - a read we cannot follow (a closure handed to a library) may consume it: unknown."""
    if any(model.read_reaches_backward(read) for read in elsewhere):
        return True
    if model.attribute_back_propagated_elsewhere(target.attr, model.enclosing_class_info(stmt)):
        return True  # `self.loss` of a loss module, back-propagated by a trainer in another module
    if any(_read_by_code_we_cannot_follow(model, read) for read in elsewhere):
        return True
    if depth < 2 and any(_stored_again_and_consumed(model, read, depth) for read in elsewhere):
        return True  # `self.fake_B = self.fake[:n]`, and the loss of self.fake_B is back-propagated
    stored = _stored_expr(stmt, target)
    for node in walk(func):
        if isinstance(node, ast.Return) and node.value is not None and model.unit_of(node) is func \
                and (model.feeds(stored, stmt, node.value) or model.side_output_of(stored, node.value)) \
                and not model.returned_graph_never_differentiated(func):
            # `src2, attn = self.self_attn(...)`; `self.attn = attn`; `return src + src2`: the
            # backward of the output frees the shared forward's activations (not when every
            # caller, all in view, detaches or only logs what it returns: a teacher's features
            # cached and handed out for a `.detach()`ed distillation target)
            return True
    for call in model.backward_calls_in(func):
        differentiated = model.backward_target(call)
        if differentiated is not None and (model.feeds(stored, stmt, differentiated) or
                                           model.graphs_share(stored, differentiated)):
            return True  # `logits, attn = probe(x)`; `self.attn = attn`; the loss of logits is back-propagated here
    if model.made_of_back_propagated_results(stored, func):
        return True  # `self.loss_D += self.loss_Ds[-1]`, each an output of `backward_D_basic(...)`,
        # which back-propagated the loss it returns; `self.loss_total = torch.mean(al)` of a model
        # whose forward back-propagated it: their activations are freed already
    return model.argument_back_propagated_by_callers(stored, func)


def _read_by_code_we_cannot_follow(model, read) -> bool:
    """The read is in a nested function or lambda that this module never calls itself
    (a closure passed to `optimizer.step(closure)`, a hook, a library callback)."""
    unit = model.unit_of(read)
    lambda_around = any(isinstance(anc, ast.Lambda) for anc in model.ancestors(read))
    if lambda_around:
        return True
    if not isinstance(unit, FUNCTION_TYPES) or model.class_of(unit) is not None:
        return False
    nested = model.unit_of(unit) is not model.tree
    return nested and not model.call_sites(unit)


def _derived_from_state_stored_before(model, stored, stmt, func, target) -> bool:
    """Is every graph-carrying operand of `stored` another `self` attribute that `func`
    accumulates earlier (`self.sum += val * n` then `self.avg = self.sum / self.count`), or
    stores earlier when `stored` only reads a part of it (`self.pred = self.out['out']`)? Its
    store is the finding. Not an attribute stored afresh (`self.L1_H = torch.tanh(...)`, which
    the step's loss goes through) with ops on it: the value computed and kept is a graph of
    its own."""
    receiver = _self_name(func)
    # (an alias of a part, `self.pred = self.out['out']`, holds the other store's graph itself,
    # whatever that store was)
    alias = isinstance(stored, (ast.Attribute, ast.Subscript))
    earlier = set()
    for node in walk(func):
        if isinstance(node, (ast.Assign, ast.AugAssign)) and _before(node, stmt):
            earlier |= {t.attr for t in _self_targets(node, receiver)
                        if alias or isinstance(node, ast.AugAssign) or _reads_attribute(node.value, t)}
    operands = [n for n in walk(stored) if isinstance(n, (ast.Name, ast.Attribute)) and model.carries_graph(n)
                and not (isinstance(model.parent(n), ast.Attribute) and model.carries_graph(model.parent(n)))]
    return bool(operands) and all(
        isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == receiver
        and n.attr in earlier and n.attr != target.attr for n in operands)


def _returns_attribute(func, attr) -> bool:
    receiver = _self_name(func)
    return any(isinstance(n, ast.Return) and isinstance(n.value, ast.Attribute) and n.value.attr == attr
               and isinstance(n.value.value, ast.Name) and n.value.value.id == receiver for n in walk(func))


__all__: Tuple[str, ...] = ("GraphStoredOnSelf",)
