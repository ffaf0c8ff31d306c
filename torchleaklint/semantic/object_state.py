"""Object state across steps: whether `self.<attr>` stored by a per-step method can carry
what one step left into the next. A layer above provenance: it reads the data flow, the
reaching definitions and the call graph of the model, and answers for TLL001 (a running
total on `self`) and TLL002 (a graph stored on `self`) alike.

The state does not carry over when the class itself cuts it between steps:

- a method detaches it (`detach_state()`, `self.h = self.h.detach()`, element by element);
- a method restarts it with a fresh graph-free value (`init_attention()`, `reset_memory()`)
  and that method is called by the code that drives the steps: before the stepping call in
  the same iteration, inside a per-step method (a decoder's `forward` calling
  `init_states()`), or inside the storing method itself (`if t == 0: self.init_attention()`:
  how often the condition holds cannot be told, so the chain cannot be proven);
- a method restarts it and none of its callers is in view (a caller in another module or
  through an object of unknown class may restart it before every step): unknown, so no
  finding may rest on the state surviving.

A restart done once before the training loop restarts nothing.
"""

from __future__ import annotations

import ast
from typing import List, Optional
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.syntax import (INIT_METHODS, drives_itself, empties, nodes_within, positional_parameters,
                                          self_name)
from torchleaklint.semantic.values import MODULE
from torchleaklint.semantic.syntax import walk

FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)


def class_methods(model, info) -> List[ast.AST]:
    """Methods of the class and of its base classes defined in this module that an instance
    runs: a base's method the class overrides only when some method calls it (`super().m()`,
    `Base.m(self)`)."""
    out, seen, todo, defined = [], set(), [info], set()
    while todo:
        current = todo.pop(0)  # the class first, then its bases: what it defines hides theirs
        if current.name in seen:
            continue
        seen.add(current.name)
        delegated = _delegated_names(out)
        for name, method in current.methods.items():
            if name not in defined or name in delegated:
                out.append(method)
        defined |= set(current.methods)
        for base in current.base_names:
            local = model.classes.get(base.rsplit(".", 1)[-1])
            if local is not None:
                todo.append(local)
    return out


def _delegated_names(methods) -> set:
    """Method names called on a base from these methods: `super().forward(x)`, `Base.forward(self, x)`."""
    out = set()
    for method in methods:
        for node in walk(method):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super" \
                        or isinstance(owner, ast.Name) and node.args and isinstance(node.args[0], ast.Name) \
                        and node.args[0].id == "self":
                    out.add(node.func.attr)
    return out


def is_self_attr(node, attr: str, receiver: Optional[str]) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == receiver


def reads_own_value(expr, attr: str, receiver: Optional[str]) -> bool:
    return any(is_self_attr(n, attr, receiver) and isinstance(n.ctx, ast.Load) for n in walk(expr))


def state_cut_between_steps(model, func, attr: str) -> bool:
    """Does the class of method `func` detach or restart `self.<attr>` between the steps
    that `func` runs (see the module docstring)?"""
    info = model.class_of(func)
    if info is None:
        return False
    key = ("state_cut_between_steps", func, attr)
    return model.cached(key, lambda: _cut(model, func, attr, class_methods(model, info)))


def _cut(model, func, attr, methods) -> bool:
    if _cut_before_it_returns(model, func, attr):
        return True
    if any(_cuts_between_steps(model, method, func)
           for method in detaching_methods(model, attr, methods) + restarting_methods(model, attr, func, methods)):
        return True
    return _inherited_cut(model, model.class_of(func), attr) or _restarted_from_outside(model, func, attr) \
        or _restarted_by_every_caller(model, func, attr)


def _restarted_by_every_caller(model, func, attr: str) -> bool:
    """Is every call of `func` one its own class makes, each after a store, earlier in the
    same run of the caller, that rebinds `self.<attr>` to a value not computed from the old
    one? `forward()` sets `self.item_embeddings = self.entity_embedding(item)` and then calls
    `self._key_addressing()`, which updates it hop by hop: the chain lasts one step."""
    sites = model.method_call_sites(func)
    if not sites or model.external_sites(func) or model.handed_out(func) or model.calls_by_method_name(func)[0]:
        return False  # called from code out of view too
    info = model.class_of(func)
    for site in sites:
        caller = model.unit_of(site)
        receiver = self_name(caller) if isinstance(caller, FUNCTION_TYPES) else None
        if caller is func or receiver is None or model.class_of(caller) is not info:
            return False
        # (in the same loops as the call: a restart once per epoch around per-batch calls is no
        # restart per call)
        if not any(_stored_earlier_in_the_same_run(model, store, site, caller)
                   and len(model.loops_around(store)) == len(model.loops_around(site))
                   for store in _fresh_stores(caller, attr, receiver)):
            return False
    return True


def _fresh_stores(method, attr: str, receiver: str) -> List[ast.Assign]:
    """The method's plain `self.<attr> = value` statements whose value does not read the
    attribute's old value."""
    return [node for node in walk(method) if isinstance(node, ast.Assign) and len(node.targets) == 1
            and is_self_attr(node.targets[0], attr, receiver) and not reads_own_value(node.value, attr, receiver)]


def restarted_only_at_construction(model, func, attr: str) -> bool:
    """Is `self.<attr>` started only when its object is built (`__init__`), with no method of
    the class (or a base elsewhere, or code outside it) detaching or restarting it? Then what
    a loop of calls of `func` adds to it stays for the object's life, however often the
    objects themselves are made (`test(model, data, MAEMeter())` once per epoch: every
    batch of that test run is kept)."""
    info = model.class_of(func)
    if info is None:
        return False
    methods = class_methods(model, info)
    if detaching_methods(model, attr, methods) or any(
            method.name not in _CONSTRUCTION_METHODS for method in restarting_methods(model, attr, func, methods)):
        return False
    return not _inherited_cut(model, info, attr) and not _restarted_from_outside(model, func, attr)


def _restarted_from_outside(model, func, attr: str) -> bool:
    """Does code outside the class restart the state once per step: `self.ac.actor_h = None`
    in an agent's `reset_rnn_hidden()`, which its training loop calls before every minibatch?
    The store is on another object (not the storing method's class's own `self`), of this
    class or of unknown class, rebinds `attr` to a value that carries no graph and is not
    computed from the old one, and runs once per step."""
    info = model.class_of(func)
    if model.project is not None and model.project.attribute_stored_from_outside(attr):
        return True  # another module stores it on the objects (`rnn.hidden = rnn.init_hidden(b)`
        # before each batch, `rnn.hidden = Variable(rnn.hidden.data)` after each step): how often,
        # and with what, is decided there; the chain is not proven
    for node in model.by_type.get(ast.Assign, ()):
        for target in node.targets:
            if not (isinstance(target, ast.Attribute) and target.attr == attr) or any(
                    isinstance(n, ast.Attribute) and n.attr == attr for n in walk(node.value)):
                continue  # not this attribute, or computed from its old value (`h = h.detach()` is a detach)
            owner = target.value
            if isinstance(owner, ast.Name) and model.class_of(model.unit_of(node)) is info and owner.id == self_name(
                    model.unit_of(node)):
                continue  # the class's own methods: restarting_methods
            kind = model.value(owner)
            if kind.kind not in ("unknown", "instance", "module") or kind.name not in (None, info.name):
                continue
            if model.value(node.value).carries_graph or isinstance(model.unit_of(node), ast.Module):
                continue
            if _cut_runs_per_step(model, node, func, 0):
                return True
    return False


def cut_attributes(model, method) -> List[str]:
    """The `self` attributes a (non-construction) method detaches or restarts: what a
    subclass in another module learns from the method's summary (`scut`). A restart method
    (`init_hidden`, `reset_state`) counts: its callers decide how often it runs."""
    receiver = self_name(method)
    if receiver is None or method.name in _CONSTRUCTION_METHODS:
        return []
    stored = {node.attr for node in walk(method) if isinstance(node, ast.Attribute)
              and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) and node.value.id == receiver}
    stored |= {node.value.attr for node in walk(method) if isinstance(node, ast.Subscript)
               and isinstance(node.ctx, ast.Store) and is_self_attr(node.value, getattr(node.value, "attr", ""), receiver)}
    cut = sorted(attr for attr in stored
                 if (detaching_methods(model, attr, [method]) or restarting_methods(model, attr, None, [method]))
                 and not _restarted_only_before_its_own_steps(model, method, attr, receiver))
    if _detaches_by_name(method, receiver):
        cut.append("*")  # `setattr(self, name, value.detach())` over names decided at run time: any attribute
    return cut


def _inherited_cut(model, info, attr: str) -> bool:
    """A base class in another module has a method that detaches or restarts `self.attr`
    (`StatefulBase.detach_state()`): who calls it between steps is out of view here, so the
    state is not proven to survive."""
    if info is None or model.project is None:
        return False
    for base in model.class_bases(info):
        found = model.project.imported_summary(base) if "." in base else None
        if found is None or found[0] != "class" or not isinstance(found[1], dict):
            continue
        for name in found[1].get("methods", ()):
            if name in _CONSTRUCTION_METHODS or _epoch_hook(name):
                continue  # runs once when built, or once per epoch (`on_train_epoch_end`): no cut per step
            method = model.project.method_of(base, name)
            cut = method[1].get("scut", ()) if method is not None and isinstance(method[1], dict) else ()
            if (attr in cut or "*" in cut and _may_run_on(model, info, name)) \
                    and not _only_called_at_construction(model, name):
                return True
    return False


def _may_run_on(model, info, name: str) -> bool:
    """May the inherited method `name` run on objects of class `info`: called by this class's
    own methods, on its objects in another module (`plant.detach_state()`), or by its name on
    an object of unknown class? A base's `detach_state()` that detaches every attribute it is
    told of cuts nothing of a subclass nobody calls it on."""
    if model.self_calls(name) or model.calls_of_method_name_anywhere(name):
        return True
    return bool(model.project.inherited_method_sites(info.name, name)) or model.project.named_calls(name)[0] > 0


def _only_called_at_construction(model, name: str) -> bool:
    """Is every `self.<name>()` of this module made by a construction method (the subclass's
    `__init__` calling the base's `init_epoch_buffers()`)? Then it starts the state once."""
    sites = model.self_calls(name)
    return bool(sites) and all(isinstance(model.unit_of(site), FUNCTION_TYPES)
                               and model.unit_of(site).name in _CONSTRUCTION_METHODS for site in sites)


def _restarted_only_before_its_own_steps(model, method, attr: str, receiver: str) -> bool:
    """Does `method` store `self.<attr>` only outside loops, before a step loop of its own that
    calls methods of its object (`self.total_loss = 0.0`, then `for batch in data:
    self.train_step(batch)` in a base trainer's `train_epoch`)? It drives the steps and
    restarts the state once per call of its own, not between the steps it runs: a subclass
    elsewhere whose `train_step` adds to the state chains every step of the epoch."""
    stores = [node for node in walk(method) if is_self_attr(node, attr, receiver)
              and isinstance(node.ctx, ast.Store)]
    if not stores or any(model.loops_around(node) for node in stores):
        return False
    first = min(node.lineno for node in stores)
    return any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and loop.lineno > first
               and _calls_own_step_method(model, loop, receiver) for loop in walk(method))


def _calls_own_step_method(model, loop, receiver: str) -> bool:
    """Does `loop` call a per-step method on its object (`self.train_step(batch)`, by the
    per-step names: the method may be a stub that a subclass in another module overrides)?"""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and isinstance(node.func.value, ast.Name) and node.func.value.id == receiver
               and model.has_per_step_name(node.func.attr) for node in walk(loop))


def detaching_methods(model, attr: str, methods) -> List[ast.AST]:
    """(Non-init) methods that rebind `self.attr` to a graph-free value computed from its own
    previous value: a `detach_state()` method, `self.h = self.h.detach()` at the top of the
    step, an all-reduce of the detached sum."""

    return [method for method in methods if method.name not in INIT_METHODS and _detaches(model, attr, method)]


def _detaches(model, attr: str, method) -> bool:
    """Does `method` rebind `self.attr` to a detached copy of its own value?"""
    flow = model.flow(method)
    if flow is None:
        return False
    receiver = self_name(method)
    if _detaches_by_name(method, receiver):
        # `for name, buf in self.named_buffers(): setattr(self, name, buf.detach())`: which
        # attributes it detaches is decided at run time; it may be this one (not proven kept)
        return True
    for node in walk(method):
        if is_self_attr(node, attr, receiver) and isinstance(node.ctx, ast.Store):
            value = flow.values.get(node)
            source = getattr(model.statement_of(node), "value", None)
            if value is not None and not value.carries_graph and source is not None \
                    and reads_own_value(source, attr, receiver) and \
                    (model.grad_disabled_at(node) or _own_reads_cut(model, source, attr, receiver)):
                return True
        # element-wise: `self.w[i] = self.w[i].detach()` (in a loop over the elements)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and \
                is_self_attr(node.value, attr, receiver):
            source = getattr(model.statement_of(node), "value", None)
            stored = flow.values.get(source) if source is not None else None
            if source is not None and reads_own_value(source, attr, receiver) and \
                    not (stored is not None and stored.carries_graph) and _is_detach(source):
                return True
    return False


def _cut_before_it_returns(model, func, attr: str) -> bool:
    """Does `func` end every call with `self.attr` detached: `self.h = self.h.detach()` as a
    statement of its own body, after every store of `self.h` in it and no `return` before it
    (a language model's forward unrolling `self.h` over the sequence, then truncating it), or
    dropped (`del self.mask`, `self.mask = None`: set for the helpers the step calls)?
    What a call stored is then gone when it returns: nothing reaches the next step."""
    receiver, flow = self_name(func), model.flow(func)
    if receiver is None or flow is None:
        return False
    cuts = [stmt for stmt in func.body if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and is_self_attr(stmt.targets[0], attr, receiver) and (
                reads_own_value(stmt.value, attr, receiver)
                and flow.values.get(stmt.targets[0]) is not None and not flow.values[stmt.targets[0]].carries_graph
                and _own_reads_cut(model, stmt.value, attr, receiver)
                or isinstance(stmt.value, ast.Constant) and stmt.value.value is None)
            # (or dropped: `del self.mask`, `self.mask = None` once the step's work is done)
            or isinstance(stmt, ast.Delete) and any(is_self_attr(t, attr, receiver) for t in stmt.targets)]
    if not cuts:
        return False
    last = (cuts[-1].lineno, cuts[-1].col_offset)
    for node in walk(func):
        position = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
        if is_self_attr(node, attr, receiver) and isinstance(node.ctx, ast.Store) and position > last:
            return False  # stored again after the cut
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) and position < last:
            return False  # a call may leave before the cut
    return True


def _detaches_by_name(method, receiver: str) -> bool:
    """`setattr(self, name, value.detach())` with a computed name (`for name in
    self.state_names:` of a base class whose subclasses list their state)."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
               and len(node.args) == 3 and isinstance(node.args[0], ast.Name) and node.args[0].id == receiver
               and not isinstance(node.args[1], ast.Constant) and _is_detach(node.args[2])
               for node in walk(method))


def _own_reads_cut(model, source, attr: str, receiver: Optional[str]) -> bool:
    """Is every read of `self.attr` in `source` cut from its graph on the way (`self.h.detach()`,
    `self.h.item()`, `self.h.data`, `float(self.h)`, `torch.zeros_like(self.h)`)? A value
    computed from the old one without a cut (`self.lam = a * self.lam + b` with graph-free
    `b`) keeps whatever graph another method stored there: it detaches nothing."""
    from torchleaklint.semantic import torch_api

    for read in walk(source):
        if not (is_self_attr(read, attr, receiver) and isinstance(read.ctx, ast.Load)):
            continue
        node, cut = read, False
        while node is not source and not cut:
            parent = model.parent(node)
            if parent is None:
                break
            if isinstance(parent, ast.Attribute) and parent.value is node:
                cut = parent.attr == "data" or (parent.attr in _CUTTING_METHODS or torch_api.is_nondiff_method(parent.attr)) \
                    and isinstance(model.parent(parent), ast.Call) and model.parent(parent).func is parent
            elif isinstance(parent, ast.Call) and node in parent.args:
                qualname = model.qualname(parent.func) or ""
                cut = qualname in ("float", "int", "bool") or torch_api.is_nondiff_function(qualname)
            elif isinstance(parent, ast.comprehension) and parent.iter is node:
                # `tuple(h.detach() for h in self.hidden)`: each element cut
                comp = model.parent(parent)
                element = comp.value if isinstance(comp, ast.DictComp) else getattr(comp, "elt", None)
                cut = element is not None and _is_detach(element)
            node = parent
        if not cut:
            return False
    return True


# Tensor methods whose result carries no graph of the receiver.
_CUTTING_METHODS = frozenset({"detach", "detach_", "item", "tolist", "numpy"})


def _is_detach(expr) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
        expr.func.attr in ("detach", "detach_", "item", "clone") and \
        (expr.func.attr != "clone" or _is_detach(expr.func.value))


def restarting_methods(model, attr: str, func, methods) -> List[ast.AST]:
    """Methods other than `func` that rebind `self.attr` to a fresh graph-free value (one
    not computed from its previous value), empty the container in place, or start its
    entries afresh in a loop (`self.mem[l] = torch.zeros(...)` for every layer)."""
    out = []
    for method in methods:
        if method is func:
            continue
        flow = model.flow(method)
        receiver = self_name(method)
        if flow is None or receiver is None:
            continue
        for node in walk(method):
            emptied = empties(node)
            if emptied is not None and is_self_attr(emptied, attr, receiver):
                out.append(method)  # `del self.log_probs[:]`, `self.buffer.clear()`: emptied in place
                break
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                    and is_self_attr(node.value, attr, receiver) and model.loops_around(node) \
                    and _fresh_entry(model, flow, node, attr, receiver):
                out.append(method)  # `for l in ...: self.mem[l] = torch.zeros(...)`: every entry started
                break  # afresh (a spiking network's `neuron_init` before each forward)
            if is_self_attr(node, attr, receiver) and isinstance(node.ctx, ast.Store):
                statement = model.statement_of(node)
                if isinstance(statement, ast.AugAssign):
                    continue  # `self.t += x` adds to the old value: no restart, whatever x is
                if _under_unset_test(model, node, method, attr, receiver):
                    continue  # `if self.h is None: self.h = x.new_zeros(...)`: the first start,
                    # made only when nothing is kept; it cuts no chain
                source = getattr(statement, "value", None)
                value = flow.values.get(node)
                if source is not None and value is not None and not value.carries_graph \
                        and (not reads_own_value(source, attr, receiver)
                             or _own_reads_only_shape(model, source, attr, receiver)):
                    out.append(method)  # (`self.h = torch.zeros_like(self.h)`: made afresh, of the old shape)
                    break
    return out


def _own_reads_only_shape(model, source, attr: str, receiver: Optional[str]) -> bool:
    """Is every read of `self.attr` in `source` a read of its shape only: the model of a
    `*_like` factory (`torch.zeros_like(self.h)`), the receiver of `new_zeros(...)`, or
    `self.h.shape`/`.size()`/`.device`? The value is then made afresh: a restart."""
    from torchleaklint.semantic import torch_api

    for read in walk(source):
        if not (is_self_attr(read, attr, receiver) and isinstance(read.ctx, ast.Load)):
            continue
        parent = model.parent(read)
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is read:
            qualname = model.qualname(parent.func) or ""
            if torch_api.is_factory(qualname) and qualname.endswith("_like"):
                continue
        if isinstance(parent, ast.Attribute) and parent.value is read and (
                parent.attr in torch_api.SHAPE_QUERIES or parent.attr in torch_api.NEW_TENSOR_METHODS
                and isinstance(model.parent(parent), ast.Call) and model.parent(parent).func is parent):
            continue
        return False
    return True


def _fresh_entry(model, flow, target: ast.Subscript, attr: str, receiver: str) -> bool:
    """Is the entry store `self.attr[k] = value` a plain assignment of a graph-free value not
    computed from the container's own entries?"""
    statement = model.statement_of(target)
    if not isinstance(statement, ast.Assign) or len(statement.targets) != 1 or statement.targets[0] is not target:
        return False
    value = flow.values.get(statement.value)
    return value is not None and value.kind != "unknown" and not value.carries_graph \
        and not reads_own_value(statement.value, attr, receiver)


def _cuts_between_steps(model, method, func, depth: int = 0) -> bool:
    """Does a method that detaches or restarts the state run between the steps `func` runs?
    Yes when the code driving the steps calls it (or its callers are out of view: unknown, so
    the state is not proven to survive)."""
    sites = _restart_sites(model, method)
    later = [site for site in sites if getattr(model.unit_of(site), "name", None) not in _CONSTRUCTION_METHODS]
    holders = [model.unit_of(site) for site in later if _passed_on_by_a_holder(model, site, method)]
    if later and len(holders) == len(later) and depth < 3:
        # `def reset_state(self): self.pnca_attn.reset_state()` alone calls it after the object
        # is built: the restart runs whenever a holder's own restart runs, so those callers
        # are the ones that count
        return any(_cuts_between_steps(model, holder, func, depth + 1) for holder in holders)
    # (not the override of the same name in a subclass elsewhere that delegates to it,
    # `BasicMAC.init_hidden(self, b)` in `LowRankMAC.init_hidden`: that runs when its own
    # callers run it, and they are the callers that count)
    external = [site for site in model.external_sites(method)
                if str(site.get("in", "")).rsplit(".", 1)[-1] != method.name]
    # calls in other modules of the project: a cut in a step loop, or in a function that runs
    # one training step per call, cuts every step; `sim.reset()` once before the training loop
    # does not. They count beside the calls of this module (`o.detach_state()` in a bank of
    # observers here, `observer.detach_state()` in the training loop of another module); not
    # one in an epoch loop that trains in a loop of its own (`meter.reset()` once per epoch)
    if not sites and _a_training_loop_elsewhere_steps_without_it(model, external, func):
        return False
    if any((site["st"] or site.get("ps")) and not site.get("cd") and not site.get("nb") for site in external):
        return True
    if not sites:
        if method.name in _CONSTRUCTION_METHODS or _epoch_hook(method.name):
            return False  # the start value, set once when the object is built; or a framework
            # hook that runs once per epoch (`on_train_epoch_end`): the chain grows until then
        if external:
            return any(site["tr"] and not site.get("cd") and not site.get("nb") for site in external)
        if _nothing_in_the_program_calls(model, method) or _project_steps_without_it(model, method, func) \
                or _local_steps_without_it(model, method, func):
            return False  # `reset()` that no code of the program runs: the state chains on
        return True  # `init_attention()` called from code out of view: unknown
    inside = [site for site in sites if model.unit_of(site) is func]
    stepping = bool(inside) and model.steps_once_per_call(func)
    if any(not _first_use_guard(model, site) and not (stepping and runs_conditionally(model, site))
           for site in inside):
        return True  # the stepping method restarts it itself (`if t == 0: self.init_attention()`
        # at a sequence's first step); not when it is itself the training step and restarts only
        # every few steps (`if (step + 1) % self.log_interval == 0: self._flush()`)
    if _stepped_without_it_in_a_backward_loop(model, func, sites):
        return False  # `reset()` before each batch of one loop, but a streaming loop elsewhere
        # steps the object chunk after chunk, back-propagating each, with no reset between
    if _restarts_before_steps(model, sites, func):
        return True
    # the steps are driven from another module, where a holder passes the method on to a part
    # of unknown class (an agent's `reset()` calling `self.net.reset()` after each episode):
    # whether that restarts this state between them is out of view, so it is not proven kept
    return model.project is not None and method.name not in _CONSTRUCTION_METHODS \
        and model.project.named_calls_passed_on(method.name) > 0 and not _stepped_here(model, func, model.class_of(method))


def _stepped_without_it_in_a_backward_loop(model, func, cuts) -> bool:
    """Does a loop of this module that back-propagates in its body run `func` at every
    iteration (called there, or by a method of a holder it calls: `model(x)` running a
    `forward` that calls `self.predictor.step(tokens)`), unconditionally, with none of the
    `cuts` (the calls that restart or detach the state) inside that loop, inside a function
    of that chain, or in a function that the loop calls? Then the state chains across that
    loop's iterations, whatever other loops do."""
    chains = _loops_stepping(model, func, [func], 0)
    return any(not any(_runs_within(model, cut, loop, chain, 0) for cut in cuts) for loop, chain in chains)


def _surely_runs(model, site, func) -> bool:
    """Does the call run `func` itself, not one of several methods it may run (`model(x)` with
    `model` bound to objects of two classes in two functions)?"""
    if model.resolve_call(site) is func:
        return True
    info = model.class_of(func)
    callee = model.value(site.func)
    return info is not None and func.name in ("forward", "__call__") and callee.kind in (MODULE, "instance") \
        and callee.name == info.name


def _runs_within(model, call, loop, chain, depth: int) -> bool:
    """Is `call` made inside `loop`, in a function of `chain`, or in a function called from
    either (three calls up at most; a caller out of view counts as one that may be)?"""
    unit = model.unit_of(call)
    if model.is_inside(call, loop) or any(unit is link for link in chain):
        return True
    if not isinstance(unit, FUNCTION_TYPES):
        return False
    sites = model.method_call_sites(unit)
    if depth >= 3 or model.external_sites(unit):
        return bool(sites) or bool(model.external_sites(unit))
    return any(_runs_within(model, site, loop, chain, depth + 1) for site in sites)


def _loops_stepping(model, func, chain, depth: int):
    """(loop, the functions from the loop's call down to `func`) for each loop that runs
    `func` at every iteration and back-propagates in its body."""
    found = []
    for site in model.method_call_sites(func):
        unit = model.unit_of(site)
        if not isinstance(unit, FUNCTION_TYPES) or any(unit is link for link in chain) \
                or not _surely_runs(model, site, func):
            continue
        loop = next(iter(model.loops_around(site)), None)
        if loop is not None:
            if model.has_backward_within(loop) and not _conditional_in(model, site, loop):
                found.append((loop, chain))
            continue
        if depth < 2 and model.class_of(unit) is not None and not model.conditional_within(site, unit):
            found.extend(_loops_stepping(model, unit, chain + [unit], depth + 1))
    return found


def _passed_on_by_a_holder(model, site, method) -> bool:
    """Is `site` a holder's method of the same name passing the call on to a part it holds
    (`def reset_state(self): self.pnca_attn.reset_state()`)?"""
    unit = model.unit_of(site)
    owner = site.func.value if isinstance(site.func, ast.Attribute) else None
    if not (isinstance(unit, FUNCTION_TYPES) and unit is not method and unit.name == method.name
            and isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name)
            and owner.value.id == self_name(unit)):
        return False
    holder, own = model.class_of(unit), model.class_of(method)
    # (a base class's method of the same name is no holder: `BasicMAC.init_hidden` calling
    # `self.agent.init_hidden()` is what a subclass overrides, not a caller of the override)
    return holder is not None and own is not None and holder is not own \
        and holder.name not in model.class_bases(own) and own.name not in model.class_bases(holder)


def _a_training_loop_elsewhere_steps_without_it(model, cuts, func) -> bool:
    """Is every call of the cut in the project's other modules made in a loop, and does a
    training loop of another module step `func` (a backward in its iterations) with no call
    of the cut anywhere in its loop nest? `plant.reset()` per episode in one trainer, and
    another trainer calling `plant.step()` at every update without it: there the state chains."""
    if not cuts or not all(cut.get("lo") for cut in cuts):
        return False  # a cut made outside loops (a helper that a loop may call): unknown
    nests = {(cut.get("path"), cut["lo"]) for cut in cuts}
    return any(site["tr"] and not site["ng"] and not site.get("alt") and site.get("lo")
               and (site.get("path"), site["lo"]) not in nests for site in model.external_sites(func))
    # (not a call on an object that may be of another class: `model(x)` where `model` has the
    # `reset` of two classes, only one of which detaches)


def _nothing_in_the_program_calls(model, method) -> bool:
    """Is the program that could run `method` in view, and does none of it call it? In view:
    a script that drives itself (an `if __name__ == "__main__":` block), with the project's
    other modules (their call sites, read as any check reads them: the same answer in every
    phase of a project run). Not for a class with a base out of view (a framework may run
    `reset()` by protocol: a metric's), nor for a method called by name on an object of
    unknown class anywhere in view."""
    info = model.class_of(method)
    return info is not None and drives_itself(model.tree) and _called_by_nothing_in_view(model, method, info)


def _project_steps_without_it(model, method, func) -> bool:
    """Is the loop that runs `func`'s steps in another module of the project, and does no
    code of the project call `method`? `logger.log(name, loss)` in the project's training
    loop, `reset()` called by nothing: the state grows over that loop."""
    info = model.class_of(method)
    if info is None or model.project is None:
        return False
    steps = [site for site in _external_sites_of_it_or_its_callers(model, func) if not site["ng"]]
    # (in a step loop, or in a method that runs once per step: a Lightning `training_step`; or
    # in a rollout of a function the training loop calls each iteration: an episode per update;
    # the calls under no-grad chain no graph, whatever restarts them: a closed-loop test)
    return bool(steps) and all(site["st"] or site["tr"] or site.get("ps") or site.get("rs") for site in steps) \
        and _called_by_nothing_in_view(model, method, info)


def _external_sites_of_it_or_its_callers(model, func) -> list:
    """The calls other modules make of `func`; when there are none, those they make of the
    functions of this module that call it (`block(x)` in the training loop of another module
    runs `GrowingBlock.forward`, which runs its attention's `forward`)."""
    sites = list(model.external_sites(func))
    if sites:
        return sites
    for call in model.call_sites(func):
        caller = model.unit_of(call)
        if isinstance(caller, FUNCTION_TYPES) and caller is not func:
            sites.extend(model.external_sites(caller))
    return sites


def _local_steps_without_it(model, method, func) -> bool:
    """Does a training loop of this module run `func` on an object of its class at every
    iteration (`model(adj, h)` with `model` typed as the class, for `forward`), while nothing
    in view calls `method`? Then no restart runs between those iterations, whoever else may
    call it before or after the loop: the state chains across them."""
    info = model.class_of(method)
    return info is not None and _called_by_nothing_in_view(model, method, info) and _stepped_here(model, func, info)


def _stepped_here(model, func, info) -> bool:
    """Does a training loop of this module call `func` on objects of class `info` at every
    iteration?"""
    return info is not None and any(model.is_step_loop(loop) or model.has_backward_within(loop)
                                    for site in _calls_on_objects_of(model, func, info)
                                    for loop in model.loops_around(site)[:1])


def _calls_on_objects_of(model, func, info) -> List[ast.Call]:
    """The calls of `func` this module makes: its resolved call sites, and for `forward`, the
    calls of objects the data flow types as the class (`model(x)`)."""
    sites = list(model.method_call_sites(func))
    if func.name in ("forward", "__call__"):
        for call in model.calls:
            value = model.value(call.func)
            if value.kind in ("module", "instance") and value.name == info.name:
                sites.append(call)
    return sites


def _called_by_nothing_in_view(model, method, info) -> bool:
    """No base of the class is out of view (a framework may call `reset()` by protocol), and
    no call in view names the method (on this class or on an object of unknown class, in
    this module or, from the summaries, in the project's others)."""
    for base in model.class_bases(info):
        if base.rsplit(".", 1)[-1] not in model.classes and base not in ("object", "torch.nn.Module", "nn.Module") \
                and not (model.project is not None and model.project.is_first_party(base)):
            return False
    if model.project is not None and model.project.named_calls(method.name)[0]:
        return False
    return not any(not model.receiver_of_another_kind(call)  # (not `self.states.clear()`)
                   and not _on_an_object_of_an_unrelated_class(model, call, info)
                   for call in model.calls_of_attribute(method.name))


def _on_an_object_of_an_unrelated_class(model, call, info) -> bool:
    """Is the call made on an object the data flow types as another class of this file, no
    base nor subclass of `info` (a holder's `self.attn.clear_cache()` passing the call on to
    its part)? It cannot run `info`'s method."""
    value = model.value(call.func.value)
    other = model.classes.get(value.name) if value.kind in (MODULE, "instance") and value.name else None
    return other is not None and other is not info and info.name not in model.class_bases(other) \
        and other.name not in model.class_bases(info)


def runs_conditionally(model, node) -> bool:
    """Is `node` under a test that varies from one run of its loop body (or, outside loops,
    of its function) to the next?"""
    loops = model.loops_around(node)
    if loops:
        return _conditional_in(model, node, loops[0])
    unit = model.unit_of(node)
    return isinstance(unit, FUNCTION_TYPES) and conditional_per_call(model, node, unit)


def conditional_per_call(model, node, func) -> bool:
    """Is `node` under an `if` inside `func` whose test may differ from call to call: it
    reads a parameter or a local of `func` (`if (step + 1) % self.log_interval == 0:`), or is
    not fixed for the object's life (see `_conditional_in`)?"""
    local = {a.arg for a in positional_parameters(func)} | {
        n.id for n in walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for anc in model.ancestors(node):
        if anc is func:
            return False
        if isinstance(anc, (ast.If, ast.IfExp)) and not _selects_a_kind(anc.test) and (
                any(isinstance(n, ast.Name) and n.id in local for n in walk(anc.test))
                or not _fixed_for_the_loop(model, anc.test, func)):
            return True
    return False


def _selects_a_kind(test) -> bool:
    """`isinstance(m, LIFNode)`, `hasattr(m, "reset_state")`: a test of what an object is (in
    a walk over the model's modules), the same at every call, not one that varies by step."""
    return isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id in ("isinstance", "hasattr")


def _conditional_in(model, node, loop) -> bool:
    """Is `node` under an `if` inside `loop` (`if t % 500 == 0: sim.reset()`, `if done:
    env.reset()`)? Then it does not run every step, and the state chains between its runs.
    A test fixed for the whole loop (`if self.use_rnn:`, a setting made at construction or a
    name bound before the loop) runs the restart on every iteration or on none: on none the
    restarted state is not used the way it is here either, so it is no evidence of a chain."""
    for anc in model.ancestors(node):
        if anc is loop:
            return False
        if isinstance(anc, (ast.If, ast.IfExp)) and not _fixed_for_the_loop(model, anc.test, loop):
            return True
    return False


def _stored_in(attribute: ast.Attribute, loop) -> bool:
    """Does `loop` store the attribute (`obj.step += 1`, `obj.step = n`) somewhere in its body?"""
    key = ast.dump(attribute.value), attribute.attr
    return any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and (ast.dump(n.value), n.attr) == key
               for n in walk(loop))


def _fixed_for_the_loop(model, test, loop) -> bool:
    """Does `test` read only constants, names bound before `loop` and `self.<attr>` settings
    stored only at construction (no call)?"""
    reaching = model.reaching(model.unit_of(loop))
    for node in walk(test):
        if isinstance(node, ast.Call):
            return False
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            if not model.set_only_at_construction(node):
                return False
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and _stored_in(node, loop):
            return False  # `(discriminator.step + 1) % opt.eval_freq == 0`, the loop counting `discriminator.step`
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id != "self":
            definitions = reaching.definitions(node)
            if any(model.is_inside(d, loop) for d in definitions):
                return False
    return True


def _first_use_guard(model, site) -> bool:
    """`if self.state is None: self.reset_state()`: a start made once, on first use."""
    for anc in model.ancestors(site):
        if isinstance(anc, FUNCTION_TYPES):
            return False
        if isinstance(anc, ast.If) and _tests_unset_attribute(anc.test):
            return True
    return False


def _under_unset_test(model, node, method, attr: str, receiver: str) -> bool:
    """Is `node` inside `if self.<attr> is None:` of `method`?"""
    for anc in model.ancestors(node):
        if anc is method:
            return False
        if isinstance(anc, ast.If) and _tests_unset_attribute(anc.test) and isinstance(anc.test, ast.Compare) \
                and is_self_attr(anc.test.left, attr, receiver) and any(node is n for stmt in anc.body for n in walk(stmt)):
            return True
    return False


def _tests_unset_attribute(test) -> bool:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return isinstance(test.left, ast.Attribute)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = test.operand
        return isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "hasattr"
    return False


def _restart_sites(model, method) -> List[ast.Call]:
    """Calls that may run `method`: its resolved call sites and every `<x>.<name>(...)` of the
    module on a receiver of unknown class (`model.reset(bs)` with `model` a parameter)."""
    info = model.class_of(method)
    sites = [c for c in model.method_call_sites(method) if not _own_call_of_another_class(model, c, info)]
    seen = set(map(id, sites))
    # not a call in the method itself: `init_hidden` delegating to `self.agent.init_hidden()`
    # (a part's method of the same name) runs when the method does, it is no caller of it
    return sites + [c for c in model.calls_of_attribute(method.name) if id(c) not in seen and model.unit_of(c) is not method
                    and _may_be_of(model, model.value(c.func.value), info) and not _own_call_of_another_class(model, c, info)]


def _own_call_of_another_class(model, call, info) -> bool:
    """`self.reset_state()` in a method of another class of this file, no base nor subclass of
    `info`: it runs that class's own method."""
    if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
            and call.func.value.id == "self") or info is None:
        return False
    other = model.enclosing_class_info(call)
    return other is not None and other is not info and info.name not in model.class_bases(other) \
        and other.name not in model.class_bases(info)


def _may_be_of(model, value, info) -> bool:
    """May an object of this value be one of class `info` (or of a subclass)? Not an object
    of another class of this module (`self.agent.init_hidden()` on the agent network, beside
    the controller's own `init_hidden`)."""
    return value.kind in ("unknown", "module", "instance") and model.may_be_an_object_of(value, info)


# Methods that run once, when the object is built: their start value restarts nothing.
_CONSTRUCTION_METHODS = frozenset({"__init__", "__post_init__", "setup", "build", "reset_parameters"})


def _epoch_hook(name: str) -> bool:
    """A framework hook that runs at most once per epoch (Lightning's and HuggingFace's
    `on_train_epoch_end`, `on_epoch_start`, `on_fit_end`...), not once per batch."""
    return name.startswith("on_") and "batch" not in name and "step" not in name


def _pos(node):
    return (node.lineno, node.col_offset)


def _restarts_before_steps(model, cuts, func) -> bool:
    """Does a call that cuts the state run once per step: in the body of a step loop (a loop
    over batches, or one whose iteration trains), or in a per-step method (a decoder's
    `forward` calling `init_states()` before its time-step loop)? A cut made once before the
    training loop, or once per epoch after the batch loop, cuts nothing between steps."""
    return any(_cut_runs_per_step(model, cut, func, 0) for cut in cuts)


def _cut_runs_per_step(model, cut, func, depth: int) -> bool:
    """`cut` runs once per step: unconditionally in a step loop's body, or in a method that
    runs per step itself or is called by one (`forward_train` -> `prepare_for_train()` ->
    `self.agent.prepare_training()`), up to three calls deep."""
    loops = model.loops_around(cut)
    stepping = [loop for loop in loops if model.is_step_loop(loop)]
    if stepping:
        return not _conditional_in(model, cut, stepping[0]) \
            and not _stepped_in_backward_loop_within(model, func, stepping[0])
    if any(model.is_epoch_loop(loop) or model.has_backward_within(loop) for loop in loops):
        return False  # once per epoch, or around steps of its own: not between the steps
    # (in a loop over the parts of the model, `for m in net.modules(): m.detach()`: as often
    # as the function it is in runs)
    unit = model.unit_of(cut)
    if not isinstance(unit, FUNCTION_TYPES) or unit is func or conditional_per_call(model, cut, unit):
        return False  # (`if (step + 1) % log_every == 0: self._reduce_losses()`: every few steps)
    if _stepped_after_the_cut_in_a_backward_loop(model, func, unit, cut):
        return False  # `agent.reset()` once per episode, then `q = agent(obs); loss.backward()` at
        # every step of it: each backward walks what the episode's earlier steps chained
    if model.is_per_step_method(unit):
        return True
    if depth >= 3:
        return False
    return any(_cut_runs_per_step(model, site, func, depth + 1) for site in model.method_call_sites(unit))


def _stepped_after_the_cut_in_a_backward_loop(model, func, unit, cut) -> bool:
    """Does `unit`, which makes the cut outside any loop, run `func` in a loop of its own
    whose every iteration back-propagates, a loop the cut is not in? The cut then runs once
    per call of `unit` (per episode), not between the backwards of that loop."""
    for site in model.method_call_sites(func):
        if model.unit_of(site) is not unit:
            continue
        around = model.loops_around(site)
        if around and not model.is_inside(cut, around[0]) and model.has_backward_within(around[0]):
            return True
    return False


def _stepped_in_backward_loop_within(model, func, loop, depth: int = 0) -> bool:
    """Is `func` called in a loop nested in `loop` whose every iteration runs a backward
    (`model.reset_state()` once per epoch, then `pred = model.step(chunk); loss.backward()` per
    chunk)? Each of those backwards walks the state the previous chunks chained: a cut made
    once per iteration of the outer loop does not cut between them. The loop may be around a
    call of a caller (a layer's `forward` run by its model's `forward`), up to three calls up,
    and around an inner loop of forwards (`for x in window: y, h = model(x, h)`, then one
    backward per window)."""
    sites = list(model.method_call_sites(func))
    sites += [call for call in model.calls_of_attribute(func.name)
              if call not in sites and model.resolve_call(call) is func]  # `model.step(x)` of a typed parameter
    for site in sites:
        around = model.loops_around(site)
        if loop in around:
            if any(model.has_backward_within(inner) for inner in around[:around.index(loop)]):
                return True
            continue
        unit = model.unit_of(site)
        if not around and depth < 3 and isinstance(unit, FUNCTION_TYPES) and unit is not func \
                and _stepped_in_backward_loop_within(model, unit, loop, depth + 1):
            return True
    return False


def runs_after_store_each_step(model, reader, storer, depth: int = 0) -> bool:
    """Is every call of method `reader` preceded, in the same loop iteration, by a call of
    `storer`? Then what `reader` reads of the state is what `storer` stored in this step
    (`action = agent.select_action(s)` then `agent.update_model()`), not the previous
    step's value. A call outside any loop, in a method that itself runs after the store each
    step (`update()` calling `self.backward()` after the loop's `self.forward(batch)`), is too."""
    reader_sites = model.method_call_sites(reader)
    storer_sites = model.method_call_sites(storer)
    if not reader_sites:  # called from the project's other modules only (`plant.step()` in a trainer)
        external = [site for site in model.external_sites(reader) if not site["ng"]]
        return bool(external) and _stored_earlier_in_each_loop_body_elsewhere(external, model.external_sites(storer))
    if not storer_sites:
        return False
    for site in reader_sites:
        loops = model.loops_around(site)
        unit = model.unit_of(site)
        if any(_stored_earlier_in_the_same_run(model, s, site, unit) for s in storer_sites):
            continue  # `h = self.f_init(ctx)` at the top of `forward`, then `self.get_emb(y)`
        if not loops:
            if depth >= 3 or not isinstance(unit, FUNCTION_TYPES) or unit is reader or model.class_of(unit) is None \
                    or not runs_after_store_each_step(model, unit, storer, depth + 1):
                return False
            continue
        if not any(model.unit_of(s) is unit and _pos(s) < _pos(site) and loops[0] in model.loops_around(s)
                   for s in storer_sites):
            return False
    return True


def _stored_earlier_in_each_loop_body_elsewhere(reader_sites, storer_sites) -> bool:
    """Is each call of the reader in another module's loop preceded, in the same loop body
    (the same innermost loop), by an unconditional call of the storer (`plant.set_input(u)`,
    then `plant.step()`)? A call outside loops: not proven."""
    def earlier(store, read) -> bool:
        return store.get("path") == read.get("path") and store.get("li") == read["li"] \
            and (store["l"], store["c"]) < (read["l"], read["c"]) and not store.get("cd")
    return all(read.get("li") and any(earlier(store, read) for store in storer_sites) for read in reader_sites)


def overwritten_before_it_runs_each_step(model, reader, storer, attr: str, methods) -> bool:
    """Does another method of the class (not `storer`) rebind `self.<attr>` afresh (a plain
    store of its body, not computed from the old value) before every call of `reader`, in
    the same loop iteration? Then `reader` sees that store's value, never what `storer` left
    from the previous step: a GAN whose `forward_D()` sets `self.d_fake` before `backward_D()`
    reads it, after the previous iteration's `forward_G()` set it for `backward_G()`."""
    for other in methods:
        if other is storer or other is reader or other.name in INIT_METHODS:
            continue
        receiver = self_name(other)
        if any(isinstance(stmt, ast.Assign) and any(is_self_attr(t, attr, receiver) for t in stmt.targets)
               and not reads_own_value(stmt.value, attr, receiver) for stmt in other.body) \
                and runs_after_store_each_step(model, reader, other):
            return True
    return False


def _stored_earlier_in_the_same_run(model, store_site, read_site, unit) -> bool:
    """Is `store_site` a call in `unit` made before `read_site` on every run of it: earlier in
    the source, unconditionally, and in no loop that does not also hold `read_site`?"""
    if model.unit_of(store_site) is not unit or not _pos(store_site) < _pos(read_site):
        return False
    around = model.loops_around(read_site)
    if any(loop not in around for loop in model.loops_around(store_site)):
        return False
    return not any(isinstance(anc, (ast.If, ast.IfExp, ast.Try, ast.BoolOp)) and not model.is_inside(read_site, anc)
                   for anc in _ancestors_within(model, store_site, unit))


def _ancestors_within(model, node, unit):
    for anc in model.ancestors(node):
        if anc is unit:
            return
        yield anc


def stores_before_reading(model, reader, storer, attr: str) -> bool:
    """Does `reader` call `storer` on its own receiver (a statement of its body, not under a
    condition) before every read of `self.<attr>`? Then it reads what that call stored
    (`update()` runs `self.backward()`, which sets `self.loss`, then `self.loss.backward()`)."""
    receiver = self_name(reader)
    if receiver is None:
        return False
    first_call = next((stmt for stmt in reader.body for node in walk(stmt)
                       if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                       and node.func.attr == storer.name and isinstance(node.func.value, ast.Name)
                       and node.func.value.id == receiver), None)
    if first_call is None or not isinstance(first_call, ast.Expr):
        return False
    reads = [n for n in walk(reader) if isinstance(n, ast.Attribute) and n.attr == attr
             and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) and n.value.id == receiver]
    return bool(reads) and all(_pos(r) > _pos(first_call) for r in reads)


def called_after_store(model, reader, stmt) -> bool:
    """Is every call of method `reader` made right after the store `stmt`, in the storing
    method's same loop iteration (`self.labels, self.scores = self.model(x)` then
    `loss = self.loss_calculation()`), with nothing conditional about the store? Then the
    reader sees this iteration's value."""
    sites = model.method_call_sites(reader)
    unit = model.unit_of(stmt)
    if not sites:
        return False
    store_loops = model.loops_around(stmt)
    if model.conditional_within(stmt, store_loops[0] if store_loops else unit, loops=True):
        return False
    for site in sites:
        if model.unit_of(site) is not unit or _pos(site) <= _pos(stmt):
            return False
        site_loops = model.loops_around(site)
        if store_loops and (not site_loops or site_loops[0] is not store_loops[0]):
            return False
    return True


def every_instance_steps_once(model, info) -> bool:
    """Is every object of the class in view built in a function that calls it at most
    once, outside any loop, and lets it go nowhere else (not returned, stored, handed to
    a call or yielded)? Then nothing stored on `self` in one call can reach a next one:
    a test that builds a network, runs one forward and one backward. The class must be
    used only that way in this module and called from no other module of the project."""
    return model.cached(("every_instance_steps_once", info.name), lambda: _steps_once(model, info))


def _steps_once(model, info) -> bool:
    if any(model.external_sites(method) for method in info.methods.values()):
        return False
    references = [node for node in model.nodes(ast.Name) if node.id == info.name and isinstance(node.ctx, ast.Load)
                  and not model.is_inside(node, info.node)]  # `super(Net, self)` in its own body
    if not references:
        return False  # built elsewhere (or never): unknown
    return all(_local_single_use(model, reference) for reference in references)


def _local_single_use(model, reference) -> bool:
    call = model.parent(reference)
    if not (isinstance(call, ast.Call) and call.func is reference):
        return False  # subclassed, handed out as a factory, compared...
    statement = model.parent(call)
    function = model.unit_of(call)
    if not (isinstance(statement, ast.Assign) and statement.value is call and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and isinstance(function, FUNCTION_TYPES)) \
            or model.loops_around(statement):
        return False
    name = statement.targets[0].id
    uses = [node for node in walk(function) if isinstance(node, ast.Name) and node.id == name
            and isinstance(node.ctx, ast.Load)]
    if any(model.loops_around(use) for use in uses):
        return False  # `sim.step(u)` in a loop: it steps many times
    calls = [use for use in uses if isinstance(model.parent(use), ast.Call) and model.parent(use).func is use]
    methods = {method for method in model.classes[reference.id].methods if method not in INIT_METHODS}
    method_calls = [use for use in uses if isinstance(model.parent(use), ast.Attribute)
                    and model.parent(use).attr in methods and isinstance(model.parent(model.parent(use)), ast.Call)]
    if len(calls) + len(method_calls) > 1:
        return False  # two steps of the same object: the second reads what the first stored
    # any other read must be a method or attribute access on the object (`model.parameters()`,
    # `model.s0`), never the object itself going somewhere
    return all(use in calls or isinstance(model.parent(use), ast.Attribute) for use in uses)



_STATE_MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "copy_", "put", "push",
                             "appendleft", "extendleft"})


def holds_no_graph_state(model, class_name: str, depth: int = 0) -> bool:
    """Is every instance of this module class of the file proven to keep nothing between
    calls: its bases are `nn.Module` or such classes of the file, no method but the init-like
    ones stores on `self` (`self.h = ...`, `self.cache.append(...)`), and every submodule it
    builds is a torch layer or such a class? Then a forward of it builds a fresh graph from
    its parameters and its inputs only: handing the module to a function cannot hand that
    function a graph the caller built (TLL007's later backward)."""
    info = model.classes.get(class_name)
    if info is None or depth > 3 or not model.is_module_class(info):
        return False
    key = ("holds_no_graph_state", class_name)
    if key in model._memo:
        return model._memo[key]
    model._memo[key] = False  # recursion: not proven
    answer = _holds_no_graph_state(model, info, depth)
    model._memo[key] = answer
    return answer


def _holds_no_graph_state(model, info, depth: int) -> bool:
    from torchleaklint.semantic.dataflow import class_attribute_value

    for base in info.base_names:
        local = model.classes.get(base.rsplit(".", 1)[-1])
        if local is not None:
            if not holds_no_graph_state(model, local.name, depth + 1):
                return False
        elif base not in ("nn.Module", "torch.nn.Module", "Module"):
            return False
    stores = _attribute_stores(model, info)
    if any(method.name not in INIT_METHODS for methods in stores.values() for method in methods):
        return False
    for attr in stores:
        value = class_attribute_value(model, info.name, attr)
        if value.kind == "module":
            if value.name and value.name in model.classes and not holds_no_graph_state(model, value.name, depth + 1):
                return False
            if value.name and value.name not in model.classes:
                return False  # a module class of another module or library: not proven
        elif value.kind == "unknown":
            return False
    return True


def _attribute_stores(model, info) -> dict:
    """attr -> the methods an instance runs (`class_methods`) that store into `self.<attr>` or
    change it in place; one walk of them per class."""
    def index() -> dict:
        out: dict = {}
        for method in class_methods(model, info):
            receiver = self_name(method)
            if receiver is None:
                continue
            for node in walk(method):
                attr = _stored_self_attribute(node, receiver)
                if attr is not None and method not in out.setdefault(attr, []):
                    out[attr].append(method)
        return out
    return model.cached(("attribute_stores", info.name), index)


def _stored_self_attribute(node, receiver: str) -> Optional[str]:
    """The attribute of `self` a node stores into or mutates in place, if any."""
    target = None
    if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
        target = node
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _STATE_MUTATORS:
        target = node.func.value
    while isinstance(target, ast.Subscript):
        target = target.value
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == receiver:
        return target.attr
    return None


def storing_methods(model, info, attr: str) -> set:
    """The methods an instance of the class runs that store into `self.<attr>` or change it in
    place (empty for no class)."""
    return set(_attribute_stores(model, info).get(attr, ())) if info is not None else set()


def attributes_set_only_at_construction(model, info) -> List[str]:
    """The attributes of `self` that only the class's init-like methods store (sorted)."""
    return sorted(attr for attr, methods in _attribute_stores(model, info).items()
                  if all(method.name in INIT_METHODS for method in methods))


def set_only_at_construction(model, info, attr: str) -> bool:
    """Is `self.<attr>` stored or changed in place only by the class's init-like methods (and
    stored there)? Then, read in a step, it holds what existed before the step began (a
    hyperparameter, a submodule), never a graph the step built."""
    methods = _attribute_stores(model, info).get(attr)
    return bool(methods) and all(method.name in INIT_METHODS for method in methods)


def stores_graph_outside_construction(model, info, attr: str) -> bool:
    """Does a method of the class other than its init-like ones store a value carrying a
    graph into `self.<attr>` (`self.loss = F.mse_loss(x, self.target)` in `forward`)?"""
    def compute() -> bool:
        for method in _attribute_stores(model, info).get(attr, ()):
            flow = model.flow(method) if method.name not in INIT_METHODS else None
            if flow is None:
                continue
            receiver = self_name(method)
            for node in walk(method):
                if isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.ctx, ast.Store) \
                        and isinstance(node.value, ast.Name) and node.value.id == receiver:
                    value = flow.values.get(node)
                    if value is not None and value.carries_graph:
                        return True
        return False
    return model.cached(("stores_graph_outside_construction", info.name, attr), compute)


def stores_attribute(model, info, attr: str) -> bool:
    """Does the class (or a base class of this module) store `self.<attr>` in some method, or
    define it in its body? If not, what it holds is set by code out of view (a framework's
    `self.trainer`)."""
    for current in [info] + [model.classes[b.rsplit(".", 1)[-1]] for b in info.base_names
                             if b.rsplit(".", 1)[-1] in model.classes]:
        for stmt in current.node.body:
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and any(
                    isinstance(t, ast.Name) and t.id == attr
                    for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])):
                return True
    return attr in _attribute_stores(model, info)


# nn.Module's own registries: what they hold is known (a parameter, a buffer, a child module)
_TORCH_REGISTRIES = frozenset({"register_parameter", "register_buffer", "add_module", "register_module"})


def registered_by_a_base(model, info, attr: str) -> bool:
    """Is `self.<attr>` state the class registers by name with a method of a base class that
    is not torch's (`self.register_memory('out_i', 0.)` of a spiking framework's memory module,
    which keeps it in a dict of its own and resets it between samples)? The base manages its
    lifecycle in code the analysis does not follow: whether it is carried from one step to the
    next cannot be decided."""
    def compute() -> bool:
        for method in class_methods(model, info):
            receiver = self_name(method)
            if receiver is None or method.name not in INIT_METHODS:
                continue
            for node in walk(method):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == receiver \
                        and node.func.attr.startswith("register") and node.func.attr not in _TORCH_REGISTRIES \
                        and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == attr:
                    return True
        return _only_updated_on_a_base_out_of_view(model, info, attr)
    return model.cached(("registered_by_a_base", info.name, attr), compute)


def _only_updated_on_a_base_out_of_view(model, info, attr: str) -> bool:
    """`self.v += ...` in a spiking neuron whose base class is a library's (spikingjelly's
    `BaseNode`, which creates `self.v` and whose `reset()` the library's `reset_net(net)`
    calls): no code in view binds the attribute, only updates it, and a base out of view (not
    torch's, not of this project) does. Its start value and restarts are out of view."""
    receiver_stores = []
    for method in class_methods(model, info):
        receiver = self_name(method)
        for node in walk(method):
            if isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id == receiver:
                receiver_stores.append(model.parent(node))
    if not receiver_stores or not all(isinstance(stmt, ast.AugAssign) for stmt in receiver_stores):
        return False
    for base in model.class_bases(info):
        local = base.rsplit(".", 1)[-1]
        if base.startswith(("torch.", "nn.")) or base in ("object", "Module") or local in model.classes:
            continue
        if "." in base and (model.project is None or not model.project.is_first_party(base)):
            return True  # a library's base class
    return False


def registered_parameter(model, info, attr: str) -> bool:
    """Is `self.<attr>` an `nn.Parameter` or a child module of this module class (`self.w =
    nn.Parameter(...)`, `self.register_parameter("w", ...)`, `self.downsample =
    Downsample1D(...)` in an init-like method)? `nn.Module.__setattr__` then refuses anything
    but a Parameter (a Module) or None under that name, so no store can put a graph there
    (`self.w = self.w.to(device)` only runs where `.to()` returns the Parameter itself;
    `self.downsample = self.downsample(h)` raises a TypeError instead of keeping `h`)."""
    if not model.is_module_class(info):
        return False
    modules = others = 0  # init stores of the name that bind a module, and ones binding something else
    for method in class_methods(model, info):
        receiver = self_name(method)
        if receiver is None or method.name not in INIT_METHODS:
            continue
        for node in walk(method):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                    (model.qualname(node.value.func) or "") in ("torch.nn.Parameter", "torch.nn.parameter.Parameter") \
                    and any(_stored_self_attribute(t, receiver) == attr for t in node.targets):
                return True
            if isinstance(node, ast.Assign) and any(_stored_self_attribute(t, receiver) == attr for t in node.targets):
                if isinstance(node.value, ast.Constant) and node.value.value is None:
                    continue  # `self.downsample = None` then, on a flag, the module
                if model.value(node.value).kind == MODULE:
                    modules += 1
                else:
                    others += 1
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "register_parameter" and node.args \
                    and isinstance(node.args[0], ast.Constant) and node.args[0].value == attr:
                return True
    return modules > 0 and not others  # a registered child module


def stored_state_differentiated(model, stmt, key: str) -> bool:
    """Does the value `key` holds after `stmt` go into `self` state (`self.params =
    self.hyper_net(embedding)`) that another method of the class differentiates
    (`torch.autograd.grad(list(self.params.values()), ...)`, `self.loss.backward()`)? Then
    the graph is kept on purpose, for that gradient."""
    unit = model.unit_of(stmt)
    if not isinstance(unit, FUNCTION_TYPES):
        return False  # module-level code (a script, a notebook): no method, no `self` state
    info = model.class_of(unit)
    receiver = self_name(unit)
    if info is None or receiver is None:
        return False
    attrs = set()
    for node in walk(unit):
        if isinstance(node, ast.Assign) and node is not stmt:
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == receiver and _reads_key(node.value, key, model, stmt):
                    attrs.add(target.attr)
    if not attrs:
        return False
    for method in class_methods(model, info):
        if method is unit:
            continue
        for call in walk(method):
            if isinstance(call, ast.Call) and _differentiates(model, call) and any(
                    isinstance(n, ast.Attribute) and n.attr in attrs for arg in call.args for n in walk(arg)):
                return True
    return False


def _reads_key(value, key: str, model, stmt) -> bool:
    if any(dotted(n) == key for n in walk(value) if isinstance(n, (ast.Name, ast.Attribute))):
        return True
    target = getattr(stmt, "target", None)
    return target is not None and model.feeds(target, stmt, value)


def _differentiates(model, call) -> bool:
    return model.qualname(call.func) in ("torch.autograd.grad", "torch.autograd.backward") \
        or model.backward_target(call) is not None


def previous_value_unseen_by_invariant_store(model, func, read: ast.Attribute) -> bool:
    """Can `read` (of `self.<attr>` in `func`) see a graph a previous call stored? Not when
    `func` stores the attribute earlier under a test that is fixed for the object (it reads
    only attributes set at construction: `if self.v_feat is not None:`), unconditionally in that
    branch and ahead of the read; and either the read runs under the same test, or no other
    code of the class can make the attribute hold anything but its graph-free construction
    value while the test is false (its other stores are under the same test, or only change a
    value already there, behind `if self.<attr> is not None:`). Whichever way the test goes for
    an object, the read sees this call's store or the construction value (MMRec's
    `self.v_rep = torch.unsqueeze(self.v_rep, 2)` after `self.v_rep, _ = self.v_gcn(...)` of
    the same `forward`, both behind the modality's feature test)."""
    info = model.class_of(func)
    receiver = self_name(func)
    if info is None or receiver is None:
        return False
    attr = read.attr
    tests = [test for test, store in _invariant_store_tests(model, info, func, attr, receiver)
             if _store_branch_before(model, test, read, func) and _ends_before(store, read)]
    if not tests:
        return False
    dumps = {ast.dump(t.test) for t in tests}
    if any(isinstance(anc, ast.If) and ast.dump(anc.test) in dumps and _in_body(model, read, anc)
           for anc in _ancestors_within(model, read, func)):
        return True  # read under the same fixed test: the store ran first
    return _value_fixed_while_test_false(model, info, attr, dumps)


def _in_body(model, node, branch: ast.If) -> bool:
    return any(node is stmt or model.is_inside(node, stmt) for stmt in branch.body)


def _invariant_store_tests(model, info, func, attr: str, receiver: str) -> List[tuple]:
    """(the `if`, the store) for each `if` statement of `func` whose body stores `self.<attr>`
    as one of its own statements and whose test is fixed for the object."""
    out = []
    for node in walk(func):
        if not isinstance(node, ast.If) or not _fixed_for_the_object(model, info, node.test, receiver):
            continue
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and any(
                    _stored_self_attribute(n, receiver) == attr for t in stmt.targets for n in walk(t)):
                out.append((node, stmt))
                break
    return out


def _ends_before(stmt, read) -> bool:
    """Does `stmt` end before `read` starts (a read inside the store is of the value before it)?"""
    return (stmt.end_lineno, stmt.end_col_offset) <= (read.lineno, read.col_offset)


def _store_branch_before(model, branch: ast.If, read, func) -> bool:
    """Does the `if` run ahead of `read` on every run of `func`: before it in the source, in a
    block that holds the read too, and in no loop that does not hold the read?"""
    if not _pos(branch) < _pos(read):
        return False
    block_owner = model.parent(branch)
    if block_owner is not func and not model.is_inside(read, block_owner):
        return False
    if any(anc is not func and isinstance(anc, (ast.If, ast.Try, ast.With)) and not model.is_inside(read, anc)
           for anc in _ancestors_within(model, branch, func)):
        return False
    around = model.loops_around(read)
    return all(loop in around for loop in model.loops_around(branch))


def _fixed_for_the_object(model, info, test, receiver: str) -> bool:
    """A test made only of constants and attributes of `self` that only init-like methods
    store (`self.v_feat is not None`, `self.use_attention and self.k > 1`)."""
    saw_attribute = False
    for node in walk(test):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == receiver:
            if not set_only_at_construction(model, info, node.attr) and \
                    not _bound_at_construction_by_another_module(model, info, node.attr):
                return False
            saw_attribute = True
        elif isinstance(node, ast.Name) and node.id != receiver:
            return False
        elif isinstance(node, (ast.Call, ast.Subscript, ast.Lambda, ast.NamedExpr)):
            return False
    return saw_attribute


def _bound_at_construction_by_another_module(model, info, attr: str) -> bool:
    """`self.v_feat`, which no method of the class (or its bases here) stores, and which a base
    class of another module binds in its init-like methods (its summary's `attrs`)."""
    if _attribute_stores(model, info).get(attr) or model.project is None:
        return False
    for base in model.class_bases(info):
        if "." not in base:
            continue
        found = model.project.imported_summary(base)
        if found is not None and found[0] == "class" and found[1] is not None and attr in found[1].get("fixed", ()):
            return True
    return False


def _value_fixed_while_test_false(model, info, attr: str, dumps) -> bool:
    """Is `self.<attr>` graph-free at construction, and is every other store of it in the
    class either behind one of the fixed tests or behind `if self.<attr> is not None:` (it can
    only change a value already there)?"""
    for method in _attribute_stores(model, info).get(attr, ()):
        receiver = self_name(method)
        for node in walk(method):
            if _stored_self_attribute(node, receiver) != attr:
                continue
            stmt = model.statement_of(node)
            if method.name in INIT_METHODS:
                if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant)):
                    return False  # a construction value other than None or a number
                continue
            guards = [anc for anc in _ancestors_within(model, stmt, method) if isinstance(anc, ast.If)
                      and _in_body(model, stmt, anc)]
            if any(ast.dump(g.test) in dumps or _tests_set(g.test, attr, receiver) for g in guards):
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                    _derived_only_from_itself(model, info, stmt.value, attr, receiver):
                continue  # `self.v_rep = torch.unsqueeze(self.v_rep, 2)`: graph-free while it was
            return False
    return True


def _derived_only_from_itself(model, info, value, attr: str, receiver: str) -> bool:
    """Does `value` read nothing but `self.<attr>`, constants, attributes fixed at construction
    and torch's functions (`torch.unsqueeze(self.v_rep, 2)`, `self.h.view(1, -1)`)?"""
    reads_itself = False
    for node in walk(value):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == receiver:
            if node.attr == attr:
                reads_itself = True
            elif not set_only_at_construction(model, info, node.attr):
                return False
        elif isinstance(node, ast.Name) and node.id != receiver:
            if not (model.qualname(node) or "").startswith("torch"):
                return False
        elif isinstance(node, ast.Call):
            func = node.func
            if not ((model.qualname(func) or "").startswith("torch.") or isinstance(func, ast.Attribute)
                    and is_self_attr(func.value, attr, receiver)):
                return False
    return reads_itself


def _tests_set(test, attr: str, receiver: str) -> bool:
    """`self.<attr> is not None` (alone or as a part of an `and`)."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return any(isinstance(p, ast.Compare) and len(p.ops) == 1 and isinstance(p.ops[0], ast.IsNot)
               and isinstance(p.comparators[0], ast.Constant) and p.comparators[0].value is None
               and is_self_attr(p.left, attr, receiver) for p in parts)


def rollout_call_site(model, func, attr: str):
    """A call of `func` inside a rollout: a loop that runs a forward with autograd on at every
    iteration and no backward (`action = agent.act(obs)` while collecting experience), in a
    function with no backward of its own. Only when nothing the method hands out carries its
    graph (it returns graph-free values: `int(dist.sample())`) and no read of `self.<attr>` in
    view is back-propagated: a chain through `self.<attr>` is then dead and grows with every
    call. None otherwise (a REINFORCE rollout whose log-probabilities a later backward
    consumes back-propagates through the chain on purpose)."""
    if model.attribute_back_propagated_elsewhere(attr, model.class_of(func)) or model.external_sites(func):
        return None
    if any(isinstance(node, ast.Return) and node.value is not None and model.carries_graph(node.value)
           for node in nodes_within(func)):
        return None
    for site in sorted(model.call_sites(func), key=lambda c: (c.lineno, c.col_offset)):
        caller = model.unit_of(site)
        if caller is func or model.grad_disabled_at(site) or model.has_backward_within(caller):
            continue
        loops = model.loops_around(site)
        if loops and model.runs_forward_each_iteration(loops[0]) and not model.has_backward_within(loops[0]):
            return site
    return None


def cut_in_the_rollout(model, site, func, attr: str, methods) -> bool:
    """Does the rollout loop around `site` (its call of `func`) store `.<attr>` itself, or call
    another method of the class that stores it (a `reset_hidden()` or a detaching call between
    the calls)? Then the chain may be cut between them: not proven."""
    loop = model.loops_around(site)[0]
    storing = {m.name for m in methods if m is not func and any(
        isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.ctx, ast.Store) for n in walk(m))}
    for node in walk(loop):
        if isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, ast.Call) and node is not site and isinstance(node.func, ast.Attribute) \
                and node.func.attr in storing:
            return True
    return False


def behind_a_mode_nothing_sets(model, stmt, func) -> bool:
    """Is `stmt` in the branch of a test on an attribute of the object (`if self.mode ==
    "step":`, `if self.stateful:`) that every object starts with off (its init-like methods
    store a literal that fails the test) and that only methods nothing in view calls switch on
    (`set_mode(mode)`)? Then no code in view runs the branch: what it stores is not proven to
    chain anything (RFC's `RNN`, whose step mode nobody selects)."""
    info = model.class_of(func) if isinstance(func, FUNCTION_TYPES) else None
    receiver = self_name(func) if info is not None else None
    if receiver is None:
        return False
    for test in model.guarding_tests(stmt, func):
        tested = _tested_own_mode(test, receiver)
        if tested is not None and _mode_never_switched_on(model, info, *tested):
            return True
    return False


def _tested_own_mode(test, receiver: str):
    """(attr, literals the branch runs on, or None for a truth test) for `self.attr`,
    `self.attr == "x"`, `self.attr in ("x", "y")`."""
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == receiver:
        return test.attr, None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Attribute) \
            and isinstance(test.left.value, ast.Name) and test.left.value.id == receiver:
        op, right = test.ops[0], test.comparators[0]
        if isinstance(op, ast.Eq) and isinstance(right, ast.Constant):
            return test.left.attr, (right.value,)
        if isinstance(op, ast.In) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) \
                and all(isinstance(e, ast.Constant) for e in right.elts):
            return test.left.attr, tuple(e.value for e in right.elts)
    return None


def _mode_never_switched_on(model, info, attr: str, literals) -> bool:
    def passes(value) -> bool:
        return bool(value) if literals is None else value in literals

    stores = _attribute_stores(model, info).get(attr) or []
    started = False
    for method in stores:
        receiver = self_name(method)
        values = [n.value for n in walk(method) if isinstance(n, ast.Assign)
                  and any(_stored_self_attribute(t, receiver) == attr for t in n.targets)]
        if method.name in INIT_METHODS:
            if not values or not all(isinstance(v, ast.Constant) and not passes(v.value) for v in values):
                return False  # it may start on (a constructor argument, a computed value)
            started = True
        elif not _called_by_nothing_in_view(model, method, info):
            return False  # a method someone calls may switch it on
    if not started:
        return False
    # nor stored from outside the class: `rnn.mode = "step"`, `setattr(rnn, name, value)`
    for node in walk(model.tree):
        if isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.ctx, ast.Store) \
                and not (isinstance(node.value, ast.Name) and model.class_of(model.unit_of(node)) is info):
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            return False
    return model.project is None or not model.project.attribute_stored_from_outside(attr)


def builds_its_graphs_afresh(model, method) -> bool:
    """Does every call of `method` (a method of a class of this file, taking nothing but
    `self`) compute its graphs only from values made in the same call? Each `self` attribute
    it reads, or the methods of the object it calls read, that a step may leave a graph in is
    stored earlier in the call by a straight-line statement (`optimize_params_er_` running
    `self.forward_er()`, which stores `self.H`, before it reads `self.H`), and the modules it
    calls keep nothing between calls. A backward it runs then walks no graph its caller built
    (TLL007: the caller's retained graph is not walked again)."""
    info = model.method_class.get(method)
    if info is None or len(positional_parameters(method)) != 1 or method.args.vararg is not None \
            or method.args.kwarg is not None or method.args.kwonlyargs:
        return False
    return model.cached(("builds_its_graphs_afresh", method),
                        lambda: _fresh_after(model, info, method, frozenset(), 0) is not None)


def backward_walks_only_fresh_graphs(model, method) -> bool:
    """Does the backward a method of a class of this file runs walk only graphs made in the
    same call (`_instance_iteration(self, x, targets)` re-running the encoder on the batch
    before `self.ais_loss.backward()`)? Like `builds_its_graphs_afresh`, but the method may
    take arguments (its caller checks what it hands in), and what the method does after its
    last statement that back-propagates (`self.running += self.ais_loss`) is not read: it
    cannot change the graph that backward walked."""
    info = model.method_class.get(method)
    if info is None or method.args.vararg is not None or method.args.kwarg is not None:
        return False
    receiver = self_name(method)
    last = max((i for i, stmt in enumerate(method.body) for node in walk(stmt) if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute) and (node.func.attr == "backward" or (
                    isinstance(node.func.value, ast.Name) and node.func.value.id == receiver))), default=None)
    if last is None:
        return False
    return model.cached(("backward_walks_only_fresh_graphs", method),
                        lambda: _fresh_after(model, info, method, frozenset(), 0, method.body[:last + 1]) is not None)


def _fresh_after(model, info, method, stored: frozenset, depth: int, body=None) -> Optional[frozenset]:
    """The attributes stored for sure once `method` has run (its statements `body`, all by
    default), given `stored` before it; None when it reads one that may hold an earlier
    graph, or calls what cannot be followed."""
    receiver = self_name(method)
    if receiver is None or depth > 3:
        return None
    for stmt in method.body if body is None else body:
        for node in walk(stmt):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == receiver \
                    and isinstance(node.ctx, ast.Load) and node.attr not in stored \
                    and node.attr not in info.methods and _may_hold_an_earlier_graph(model, info, node.attr):
                return None
            if isinstance(node, ast.Call) and not _a_call_made_afresh(model, node, receiver):
                return None
        for call in (n for n in walk(stmt) if isinstance(n, ast.Call)):
            callee = _own_method_called(model, info, call, receiver)
            if callee is not None:
                after = _fresh_after(model, info, callee, stored, depth + 1)
                if after is None:
                    return None
                if call is getattr(stmt, "value", None) or not _compound(stmt):
                    stored = after
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            stored = stored | {t.attr for target in targets for t in walk(target)
                               if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                               and t.value.id == receiver and isinstance(t.ctx, ast.Store)}
    return stored


def _compound(stmt) -> bool:
    return isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith))


def _own_method_called(model, info, call, receiver: str):
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == receiver:
        return model.method(info.name, func.attr)
    return None


def _a_call_made_afresh(model, call, receiver: str) -> bool:
    """A call that builds nothing from state kept between steps: an own method (followed by
    the caller), a module attribute proven to keep nothing between calls, or any call on
    something other than `self`'s submodules (a torch op, an optimizer, a loss)."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == receiver:
        value = model.value(func)
        if value.kind != MODULE:
            return True  # an own method (followed) or a method of an optimizer...
        return model.holds_no_graph_state(func) or _torch_layer_built_at_construction(model, func)
    return True


def _torch_layer_built_at_construction(model, attribute: ast.Attribute) -> bool:
    """`self.head(x)` where only the class's init-like methods store `self.head`, each time a
    layer of `torch.nn` (`nn.Conv2d(ch, 3, 1)`): a layer keeps nothing between calls."""
    info = model.class_of(model.unit_of(attribute))
    if info is None or not set_only_at_construction(model, info, attribute.attr):
        return False
    values = [node.value for method in _attribute_stores(model, info)[attribute.attr] for node in walk(method)
              if isinstance(node, ast.Assign) and len(node.targets) == 1
              and _stored_self_attribute(node.targets[0], self_name(method)) == attribute.attr]
    return bool(values) and all(_torch_layer_call(model, v) for v in values)


def _torch_layer_call(model, expr: ast.AST) -> bool:
    """`nn.Conv2d(...)`, `nn.Sequential(nn.Linear(...), nn.ReLU())`: a `torch.nn` layer built
    of nothing but such layers (not `nn.DataParallel(model)` around a module of any class)."""
    if not (isinstance(expr, ast.Call) and (model.qualname(expr.func) or "").startswith("torch.nn.")):
        return False
    return all(_torch_layer_call(model, arg) for arg in list(expr.args) + [kw.value for kw in expr.keywords]
               if model.value(arg).kind == MODULE or isinstance(arg, ast.Starred))


def _may_hold_an_earlier_graph(model, info, attr: str) -> bool:
    """May `self.<attr>` hold a graph a step made: a method other than the init-like ones
    stores a graph there, or fills it in place (`self.outputs.append(y)`)?"""
    if stores_graph_outside_construction(model, info, attr):
        return True
    for method in _attribute_stores(model, info).get(attr, ()):
        if method.name in INIT_METHODS:
            continue
        receiver = self_name(method)
        if any(_stored_self_attribute(node, receiver) == attr and not (
                isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)) for node in walk(method)):
            return True
    return False
