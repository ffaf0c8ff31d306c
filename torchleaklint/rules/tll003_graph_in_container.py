"""TLL003: a graph-carrying tensor kept in a container that outlives the training step."""

from __future__ import annotations

import ast
from typing import Iterator, List, Optional, Tuple

from torchleaklint.diagnostics import ERROR, SAFE, FixSpec, Span
from torchleaklint.rules.base import Rule
from torchleaklint.rules.kept_graph import KeptGraph, kept_graph
from torchleaklint.semantic.containers import (container_base, external_rollout_keeping, grows_through_a_parameter,
                                                grows_through_a_parameter_elsewhere, made_into_a_tensor_later,
                                                replaces_an_existing_entry, rollout_keeping, state_a_local_names,
                                                written_base, written_container)
from torchleaklint.semantic.dataflow import container_addition
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.evaluation import is_unit_test
from torchleaklint.semantic.structure import may_not_be_a_tensor
from torchleaklint.semantic.values import GRAPH, SEQUENCE, TENSOR, TENSORISH
from torchleaklint.semantic.syntax import (FUNCTION_TYPES, entry_accumulation, entry_transformed,
                                          short_source as _short, with_method)

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp)


class GraphInContainer(Rule):
    """Tensor that carries an autograd graph kept in a list, dict or deque across steps.

    ## What it does
    Finds a tensor with an autograd graph (a loss, a model output, anything computed from
    them) stored in a container that survives from one training step to the next:
    `losses.append(loss)`, `.extend([...])`, `.insert(0, ...)`, `deque.append(...)`,
    `history[step] = loss`, `history += [loss]`, `self.outputs.append(preds)` in a
    per-step method, or a list built by a comprehension over the batches
    (`preds = [model(x) for x in loader]`).

    ## Why is this bad?
    Each stored tensor references its whole autograd graph, including every activation
    saved for backward. The container keeps all of them alive until it is dropped, often
    at the end of the epoch, or never for `self.history` or a module-level list, so GPU
    memory grows with every step until the process runs out of memory. `.cpu()` and
    `.to(...)` do not help: the copy is still attached to the graph.

    ## Example
    ```python
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss)
    ```

    ## Use instead
    ```python
    losses = []
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    ```

    Not reported: `.item()`, `.detach()` or `.detach().cpu()` values, values computed
    under `torch.no_grad()` (evaluation loops), non-tensors, and containers that live and
    die within one step: the outputs of an RNN unroll that are stacked, per-task losses
    that are summed and back-propagated, an episode's log-probabilities consumed by that
    episode's `backward()` and then cleared, and containers whose size the code bounds (a
    `deque(maxlen=N)`, an image pool or replay memory that appends only while
    `len(pool) < size` and otherwise replaces a slot, a window trimmed with `pop(0)`) unless
    nothing back-propagates what they keep: N graphs whose activations a backward freed are
    a constant, not a leak; N dead graphs keep N steps' activations on the device. Nor a
    store under the keys of a mapping each call is handed (`for name, x in feats.items():
    self.attn[name] = ...`): the same slots, as far as the code shows.

    ## Known problems
    The value stored is judged over every call and every path, not per flag or per test: a
    logger method that routes graph-carrying values to one dict when called with
    `intermediate=True` and plain numbers to another is reported on the other dict too, and a
    name rebound to a float under `if C:` before it is appended under the same `if C:` may be
    read as its earlier, graph-carrying value.

    ## Fix safety
    Safe. The fix appends `.item()` to a one-number tensor (a loss, a metric) and
    `.detach()` to anything else; the stored numbers are unchanged, only the graph is let
    go. No fix is offered when the stored value is not spelled out (`lst.extend(outs)`), nor
    when the code shows it may not be one tensor (a tuple or a model output object read as
    `out[0]`, `out["loss"]` or `out.loss`, on which `.detach()` would raise).
    """

    code = "TLL003"
    name = "graph-kept-in-container"
    summary = "Graph-carrying tensor kept in a container that outlives the training step"
    fix_title = "Store `.item()` (or `.detach()`) of the value"
    fix_safety = SAFE
    tokens = ("append", "extend", "insert", "] =", "+= [", " for ")
    follows_callers = True

    def check(self, model) -> Iterator:
        for node in model.nodes(ast.Call, ast.Assign, ast.AugAssign, *_COMPREHENSIONS):
            if isinstance(node, _COMPREHENSIONS):
                found = self._comprehension(model, node)
            else:
                found = self._store(model, node)
            if found is not None:
                yield found

    # ------------------------------------------------------------ stores
    def _store(self, model, node):
        if not _spelled_as_a_store(node):
            return None  # (most calls and assignments: nothing asked of the model)
        key = _state_key(model, node, written_container(node))
        if key is not None and not model.may_outlive_step(node, key):
            return None  # a local container filled outside any loop: it lives one call
        stored = _stored_values(model, node)
        if stored is None:
            return None
        container, local, values = stored
        key = _state_key(model, node, local)
        values = [v for v in _literal_items(values) if model.carries_graph(v)]
        if not values or model.grad_disabled_at(node) or model.runs_only_without_grad(model.statement_of(node)):
            return None
        if _collects_in_a_unit_test(model, node):
            return None  # a pytest test comparing a model's outputs over a few inputs: nothing trains,
            # and the list dies with the test
        why = model.outlives_step(node, key)
        if why == "loop" and model.slot_fixed_across_iterations(node, key):
            return None  # `probs_list[i] = probs` with `i` bound before the loop: one slot, overwritten
        if replaces_an_existing_entry(model, node):
            return None  # `if loss < best[split]: best[split] = loss`: one value per key, replaced
        caller_loop = model.grows_across_calls(node, key) if why is None else None
        if why is None and caller_loop is None:
            caller_loop = grows_through_a_parameter(model, node, key)  # `cache` the caller keeps
        if caller_loop is not None:
            why = "calls"
        rollout = rollout_keeping(model, node, key) if why is None else None
        if rollout is not None:
            why = "rollout"  # `self.buffer.append((obs, action))` in a collection loop: dead graphs
        external = model.grows_across_external_calls(node, key) if why in (None, "function", "method") else None
        if external is not None and why is not None and external.site["tr"]:
            external = None  # a method a training loop of another module runs per step: that reading stands
        if external is None and why is None:
            external = external_rollout_keeping(model, node, key)  # `storage.add(obs, log_prob, ...)`
            # per step of another module's collection loop, whose graphs nothing back-propagates
        if external is None and why is None:
            external = grows_through_a_parameter_elsewhere(model, node, key)  # `logs` another
            # module's training loop keeps and hands in at every step
        if external is not None:
            why = "calls"  # `stats.record(value, reward)` in another module's evaluation loop (a
            # method its data loop runs per batch with no backward: not a training step's)
        if why is None or _consumed_by_backward(model, node, key) or model.returned_into_a_backward(node) \
                or local != key and _consumed_by_backward(model, node, local):
            return None  # (also: returned, e.g. concatenated, into a loss a caller back-propagates)
        name = _container_name(container)
        if external is not None:
            kept = KeptGraph(model, values[0], name, None, model.unit_of(node), external=external)
        elif caller_loop or rollout:
            kept = KeptGraph(model, values[0], name, caller_loop or rollout, None)
        else:
            kept = kept_graph(model, node, values[0], name, why, key)
        if (kept.consumer is not None or kept.loop is None) and model.container_bounded(node, key):
            # at most N graphs whose activations a backward freed: memory does not grow (N
            # graphs nothing back-propagates keep N steps of activations: still reported)
            return None
        stated = f"`{name}`" if local == key else f"`{name}` (part of `{key}`)"
        return self.finding(node, self._message(model, container, values, why, node, kept, stated),
                            self._fix(model, values), severity=kept.severity,
                            evidence=kept.evidence(f"`{name}` keeps what was put into it"))

    def _message(self, model, container, values, why, node, kept, stated) -> str:
        shown = _short(values[0])
        name = _container_name(container)
        if why == "loop":
            where = "across epochs" if kept.epochs else "across training steps" if kept.trains \
                else "across the loop's iterations"
        elif why == "rollout" and "." not in name:
            loop = "loop over the input's chunks" if model.runs_a_forward_on_slices(kept.loop) else "rollout"
            where = f"across the iterations of the {loop} at line {kept.loop.lineno} (until the list is dropped)"
        elif why == "rollout":
            owner = name.split(".", 1)[0].split("[", 1)[0]
            where = f"on `{owner}` across the iterations of the rollout at line {kept.loop.lineno}"
        elif why == "calls":
            unit = model.unit_of(node)
            where = f"on state that outlives `{unit.name}`, which is called over and over (every call adds to it)"
        else:
            unit = model.unit_of(node)
            where = f"on state that outlives `{unit.name}`, which runs once per step"
        if _a_list(model, values[0]):
            # a list extended with (or a tuple or dict of) tensors: their detached copies
            advice = f"`[t.{_method(model, values)}() for t in {shown}]`" if _extends(node) else \
                f"`.{_method(model, values)}()` copies of the tensors in `{shown}`"
            return (f"{stated} keeps the items of `{shown}`, each carrying an autograd graph, {where}; "
                    f"{kept.clause()}. Store {advice}")
        return (f"{stated} keeps `{shown}`, which carries an autograd graph, {where}; {kept.clause()}. "
                f"Store `{with_method(values[0], _method(model, values))}`")

    def _fix(self, model, values) -> Optional[FixSpec]:
        if any(_a_list(model, v) for v in values):
            return None  # the items of a list: no `.detach()` of the list itself
        if any(may_not_be_a_tensor(model, v) for v in values):
            return None  # a tuple or a model output object (`outputs.detach()` would raise)
        method = _method(model, values)
        spans = tuple((v.lineno, v.col_offset, v.end_lineno, v.end_col_offset) for v in values)
        return FixSpec(codemod="append_method", safety=SAFE, title=f"Store `.{method}()`",
                       target=Span.of(values[0]), params=(("method", method), ("targets", spans)))

    # ------------------------------------------------------------ comprehensions
    def _comprehension(self, model, comp):
        if not model.is_data_comprehension(comp):
            return None
        elt = comp.value if isinstance(comp, ast.DictComp) else comp.elt
        if not model.carries_graph(elt) or model.grad_disabled_at(comp) or _collects_in_a_unit_test(model, comp):
            return None
        if _comprehension_feeds_backward(model, comp) or model.returned_into_a_backward(comp):
            return None
        kind = {ast.ListComp: "list", ast.SetComp: "set", ast.DictComp: "dict"}[type(comp)]
        shown = _short(elt)
        walked = _short(comp.generators[0].iter)
        message = (f"This {kind} comprehension over `{walked}` keeps `{shown}`, which carries an "
                   f"autograd graph, for every item at once; all their graphs and activations stay "
                   f"alive. Store `{with_method(elt, _method(model, [elt]))}`")
        return self.finding(comp, message, self._fix(model, [elt]), severity=ERROR,
                            evidence=[model.graph_origin(elt),
                                      (comp, f"the comprehension runs a forward on every item of `{walked}` and no "
                                             f"backward consumes its elements")])


def _collects_in_a_unit_test(model, node) -> bool:
    """A store in a unit test (or its helper) whose loops train nothing: the test collects a
    model's outputs to compare them, once."""
    unit = model.unit_of(node)
    return isinstance(unit, FUNCTION_TYPES) and is_unit_test(model, unit) and \
        not any(model.has_backward_within(loop) or model.runs_training_step(loop) for loop in model.loops_around(node))


def _stored_values(model, node) -> Optional[Tuple[ast.AST, str, List[ast.AST]]]:
    """(container expression, container key, stored value expressions) for a store into a
    container: `c.append(v)`, `c.extend([v, w])`, `c[k] = v`, `c += [v]`; else None."""
    if isinstance(node, ast.Call):
        added = container_addition(node)
        if added is None:
            return None
        container = node.func.value
        receiver = model.value(container)
        if receiver.kind in TENSORISH or receiver.carries_graph and receiver.kind != SEQUENCE:
            return None
        if node.func.attr == "add" and receiver.kind != SEQUENCE:
            return None  # `x.add(y)` on anything but a known set is tensor arithmetic
        if receiver.kind not in (SEQUENCE, "unknown"):
            return None
        if receiver.kind == "unknown" and model.owned_out_of_view(container):
            return None  # `self.trainer.train_loop.running_loss.append(x)`: a framework object's method
        value, many = added
        if many:
            extended = model.value(value)
            if extended.kind == GRAPH and not extended.scalar:
                return _keyed(container, [value])  # `scores.extend(s)` of a tensor: its rows, views of its graph
            if extended.kind == SEQUENCE and extended.elem is not None and extended.elem.carries_graph \
                    and _list_filled_here(model, value):
                # `episode_log_probs.extend(log_probs)` of a list this function fills (a list a
                # callee returns is reported where the callee fills it)
                return _keyed(container, [value])
            if not isinstance(value, (ast.List, ast.Tuple)):
                return None  # `c.extend(outs)`: what is stored is not spelled out here
            values = list(value.elts)
        else:
            values = [value]
        return _keyed(container, values)
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        target = node.targets[0]
        holder = model.value(target.value)
        if isinstance(target.value, ast.Attribute) and target.value.attr == "data":
            return None  # `w.data[:] = ...`: a copy into the tensor's data, which autograd does not record
        if holder.kind == TENSOR and not holder.carries_graph:
            # `buf[t] = h` into a preallocated graph-free tensor: the in-place copy makes the
            # buffer part of h's graph, and it keeps every write's history (CopySlices); not
            # when the buffer is the function's result, filled in pieces
            return None if model.fills_returned_buffer(node) else _keyed(target.value, [node.value])
        if holder.kind != SEQUENCE or isinstance(target.slice, ast.Slice):
            return None
        if entry_accumulation(node) is not None:
            return None  # `log[k] = log.get(k, 0.0) + loss`: a running total per key (TLL001)
        if entry_transformed(node):
            return None  # `enc[i] = enc[i][:, None].expand(...)`: an entry replaced by a view of
            # itself, the container no longer
        if model.key_repeats_every_call(target.slice):
            # `loss_dict["d"] = d_loss`, `self.values[k] = v` for `k` over the fixed loss
            # names: slots overwritten every step, not a growing container
            return None
        return _keyed(target.value, [node.value])
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.value, (ast.List, ast.Tuple)):
        if model.value(node.target).kind in TENSORISH:
            return None
        return _keyed(node.target, list(node.value.elts))
    return None


def _spelled_as_a_store(node) -> bool:
    """May `_stored_values` read `node` as a store into a container? What the syntax alone
    says (`c.append(v)`, `c[k] = v`, `c += [v]`), before any question to the model."""
    if isinstance(node, ast.Call):
        return container_addition(node) is not None
    if isinstance(node, ast.Assign):
        return len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript)
    return isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and \
        isinstance(node.value, (ast.List, ast.Tuple))


def _state_key(model, node, key: Optional[str]) -> Optional[str]:
    """The key of the container `node` writes into: the object or module state a local name
    is an alias of (`store = self.metrics[mode]; store[k].append(v)` writes into
    `self.metrics`), else `key` as written."""
    base = written_base(node)
    if key is None or not isinstance(base, ast.Name) or base.id != key:
        return key
    return state_a_local_names(model, base) or key


def _container_name(container: ast.AST) -> str:
    """How a message names the container: `self.history[name]` for the list that
    `self.history.setdefault(name, [])` gives."""
    if isinstance(container, ast.Call) and isinstance(container.func, ast.Attribute) and \
            container.func.attr == "setdefault" and container.args:
        return f"{_short(container.func.value)}[{_short(container.args[0])}]"
    return _short(container)


def _literal_items(values) -> List[ast.AST]:
    """What a stored literal holds (`{"event": loss, "step": s}`, `(loss, n)`): the message
    and the fix name the item that carries the graph, never `.detach()` on a dict."""
    out: List[ast.AST] = []
    for value in values:
        if isinstance(value, ast.Dict):
            out += _literal_items([v for v in value.values if v is not None])
        elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            out += _literal_items([e.value if isinstance(e, ast.Starred) else e for e in value.elts])
        else:
            out.append(value)
    return out


def _keyed(container, values):
    key = dotted(container_base(container))
    if key is None:
        return None
    return container, key, values


def _consumed_by_backward(model, node, key: str) -> bool:
    """The container's contents are back-propagated (`torch.stack(losses).mean().backward()`,
    REINFORCE's `saved_log_probs`): it is the input of a deliberate backward, not a log."""
    unit = model.unit_of(node)
    if model.feeds_backward(unit, key, gradient=True):
        return True
    if key.startswith("self.") and model.attribute_back_propagated_elsewhere(
            key.rsplit(".", 1)[-1], model.enclosing_class_info(node)):
        return True  # `policy.saved_log_probs`, stacked and back-propagated by another module's update
    if "." in key or model.is_module_global(unit, key):
        # (not `torch.stack(memory.logprobs).detach()` in the update: old log-probabilities as constants)
        return any(model.feeds_backward(other, key, gradient=True) for other in model.functions if other is not unit)
    return False


def _comprehension_feeds_backward(model, comp) -> bool:
    for call in model.backward_calls():
        target = model.backward_target(call)
        if target is not None and (target is comp or model.is_inside(comp, target)):
            return True
    stmt = model.statement_of(comp)
    unit = model.unit_of(comp)
    if isinstance(stmt, ast.Assign):
        return any(model.feeds_backward(unit, key) for key in map(dotted, stmt.targets) if key)
    return False


def _list_filled_here(model, value) -> bool:
    """Is `value` a name every definition of which makes a fresh list in this function
    (`log_probs = []`, then appended to)?"""
    if not isinstance(value, ast.Name):
        return False
    def fresh_or_filled(stmt) -> bool:
        if isinstance(stmt, ast.Assign):
            return isinstance(stmt.value, (ast.List, ast.ListComp))  # `log_probs = []`
        # `log_probs.append(lp)`: the list made above, filled here
        return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
            container_addition(stmt.value) is not None and dotted(stmt.value.func.value) == value.id

    definitions = model.reaching(model.unit_of(value)).definitions(value)
    return bool(definitions) and all(fresh_or_filled(model.statement_of(d)) for d in definitions) and \
        any(isinstance(model.statement_of(d), ast.Assign) for d in definitions)


def _extends(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "extend"


def _a_list(model, value) -> bool:
    """Is the stored expression a list of tensors (`c.extend(log_probs)`), not a tensor?"""
    return model.value(value).kind == SEQUENCE


def _method(model, values) -> str:
    """`item` for scalars, unless the container is later made into a tensor (`torch.stack(losses)`
    would fail on Python numbers: `.detach()` keeps it working); `detach` otherwise."""
    if not all(model.value(v).scalar for v in values):
        return "detach"
    return "detach" if made_into_a_tensor_later(model, values[0]) else "item"
