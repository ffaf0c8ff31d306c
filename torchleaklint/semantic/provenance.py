"""Graph provenance: where a graph-carrying value got its graph, and whether a backward of the
same step consumes it. The last layer before the queries rules ask: it reads the data flow
(values), the reaching definitions and the step model, and adds nothing they must know.

Two facts decide what a kept graph costs, and every message says which one holds:

- a backward of the same iteration ran on it: its saved activations were freed; keeping the
  tensor keeps the graph's nodes (host memory, kilobytes per step) -> severity warning;
- nothing back-propagates it: every saved activation stays (device memory, megabytes per
  step) -> severity error.
"""

from __future__ import annotations

import ast
from typing import List, Optional, Set, Tuple

from torchleaklint.semantic import torch_api
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.syntax import FUNCTION_TYPES, nodes_within, positional_parameters, self_name, short_source
from torchleaklint.semantic.values import INSTANCE, MODULE, SEQUENCE, UNKNOWN
from torchleaklint.semantic.syntax import child_nodes, walk

MAX_ORIGIN_HOPS = 6


def graph_origin(model, expr: ast.AST) -> Optional[Tuple[ast.AST, str]]:
    """(node, what happens there) for the computation that gave `expr` its graph: the
    binding a name's graph-carrying value comes from, followed through plain copies
    (`out = y`), or the expression itself when it computes the graph."""
    node = expr
    for _ in range(MAX_ORIGIN_HOPS):
        if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load):
            break
        definition = _graph_definition(model, node)
        if definition is None:
            return None
        stmt = model.statement_of(definition)
        value = getattr(stmt, "value", None)
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            return stmt, f"`{definition.id}` is taken from `{short_source(stmt.iter)}`, whose items carry a graph"
        if value is None:
            return stmt, f"`{definition.id}` is bound here to a value that carries an autograd graph"
        if isinstance(value, ast.Name):
            node = value
            continue
        return stmt, f"`{definition.id}` gets its autograd graph here: `{short_source(value, 60)}`"
    if isinstance(node, ast.Name):
        return None
    return node, f"`{short_source(node, 60)}` computes a tensor with an autograd graph"


def _graph_definition(model, read: ast.Name) -> Optional[ast.AST]:
    """The latest (in source order) reaching definition of `read` whose value carries a graph."""
    reaching = model.reaching(model.unit_of(read))
    flow = model.flow(model.unit_of(read))
    if flow is None:
        return None
    candidates = [d for d in reaching.definitions(read) if isinstance(d, ast.Name)
                  and flow.values.get(d) is not None and flow.values[d].carries_graph]
    if not candidates:
        return None
    return max(candidates, key=lambda d: (d.lineno, d.col_offset))


def iteration_backwards(model, loop: ast.AST) -> List[ast.Call]:
    """Training backwards that run in one iteration of `loop` (in its body, nested loops
    included, not in nested functions)."""

    return [node for node in nodes_within(loop) if isinstance(node, ast.Call) and model.is_training_backward(node)]


def consumed_by_backward(model, expr: ast.AST, loop: Optional[ast.AST]) -> Optional[ast.Call]:
    """The backward of the same iteration that differentiates the value `expr` holds (the
    definition it reads reaches that backward's operand), or None when none is proven. For an
    expression (`d_real.mean()`), every graph-carrying name it reads must be consumed: the
    new op's own nodes then hang off a graph whose activations that backward freed."""
    if loop is None:
        return None
    if not isinstance(expr, ast.Name):
        names = [n for n in walk(expr) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                 and model.carries_graph(n)]
        found = [consumed_by_backward(model, name, loop) for name in names]
        return found[0] if found and all(found) else None
    reaching = model.reaching(model.unit_of(expr))
    mine = set(reaching.definitions(expr))
    if not mine:
        return None
    for call in iteration_backwards(model, loop):
        target = model.backward_target(call)
        if target is None:
            continue
        for read in walk(target):
            if isinstance(read, ast.Name) and mine & set(_definitions_through_copies(model, reaching, read)):
                return call
    return None


def _definitions_through_copies(model, reaching, read: ast.Name) -> List[ast.AST]:
    """Definitions a read depends on, through bindings computed from other names
    (`loss = ce + 0.1 * reg` makes `loss.backward()` consume `ce` too)."""
    out: List[ast.AST] = []
    stack = [read]
    seen = set()
    while stack and len(out) < 64:
        node = stack.pop()
        for definition in reaching.definitions(node):
            if definition in seen:
                continue
            seen.add(definition)
            out.append(definition)
            stmt = model.statement_of(definition)
            value = getattr(stmt, "value", None)
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and value is not None:
                stack.extend(n for n in walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return out


MAX_DEPENDENCIES = 256


def graph_dependencies(model, expr: ast.AST) -> Set[ast.AST]:
    """The definitions of graph-carrying values whose graphs the value of `expr` contains:
    the bindings it is computed from, followed back through the unit, cut where a graph
    killer (`.detach()`, `.item()`, `float()`) or a no-grad region drops the graph. Batches
    of a `for` target (and what the loop body computes from them alone, of unknown kind) carry
    no graph and are not followed."""
    unit = model.unit_of(expr)
    reaching = model.reaching(unit)
    flow = model.flow(unit)
    if flow is None:
        return set()
    out: Set[ast.AST] = set()
    stack = _data_reads(model, expr)
    filled = _local_object_containers(model, unit)
    while stack and len(out) < MAX_DEPENDENCIES:
        read = stack.pop()
        key = dotted(read) if isinstance(read, ast.Attribute) else None
        if key in filled:
            # `torch.cat(memory.values)` of a rollout memory (a local object) whose lists the
            # unit fills with `memory.values.append(value)`: the container holds what was put in
            for call in filled[key]:
                if call not in out:
                    out.add(call)
                    if not model.grad_disabled_at(call):
                        stack.extend(_data_reads(model, ast.Tuple(elts=list(call.args), ctx=ast.Load())))
            continue
        for definition in reaching.definitions(read):
            if definition in out or isinstance(definition, ast.arg):
                continue  # a parameter is an input (a module, a batch), not a node of this graph
            stmt = model.statement_of(definition)
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                if _iterates_kept_graphs(model, flow, stmt):
                    # `for value, log_p in zip(values, log_probs)`: the rollout's graphs, kept in
                    # lists of this unit, not batches
                    out.add(definition)
                    stack.extend(_data_reads(model, stmt.iter))
                continue  # batches from an iterable
            added = _added_by_mutation(reaching, definition, stmt)
            if added is not None:
                # `graph.append(self.graph0)`, `outs[k] = y`: the container holds what was put in
                out.add(definition)
                if not model.grad_disabled_at(stmt):
                    stack.extend(_data_reads(model, added))
                continue
            value = flow.values.get(definition)
            if value is not None and not value.carries_graph and value.kind != "unknown":
                continue
            if value is not None and value.kind == "unknown" and model.is_batch_item(definition):
                continue  # `x, y = x.to(device), y.to(device)`: the batch, moved
            out.add(definition)
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.value is not None \
                    and not model.grad_disabled_at(stmt):
                for source in _binding_sources(model, stmt, definition):
                    stack.extend(_data_reads(model, source))
                if isinstance(stmt, ast.AugAssign) and stmt.target is definition:
                    stack.append(stmt.target)  # `grad_vec /= n` keeps what `grad_vec` held: its old value
    return out - _input_slices(model, reaching, flow, out)


def loop_invariant_inputs(model, expr: ast.AST, loop: ast.AST) -> List[ast.AST]:
    """The definitions made before `loop` that the iteration computing `expr` reads as they
    are (`out` of `y = out * (i + 1)`): not the first value of a name the loop rebinds (the
    state it carries), not what a graph killer or a no-grad region cuts. Followed back
    through the iteration's own bindings."""
    reaching = model.reaching(model.unit_of(expr))
    out: List[ast.AST] = []
    seen: Set[ast.AST] = set()
    stack = _data_reads(model, expr)
    while stack and len(seen) < MAX_DEPENDENCIES:
        read = stack.pop()
        definitions = [d for d in reaching.definitions(read) if not isinstance(d, ast.arg)]
        if any(model.is_inside(d, loop) for d in definitions):
            definitions = [d for d in definitions if model.is_inside(d, loop)]  # carried state: its first value aside
        for definition in definitions:
            if definition in seen:
                continue
            seen.add(definition)
            stmt = model.statement_of(definition)
            if not model.is_inside(definition, loop):
                out.append(definition)
            elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.value is not None \
                    and not model.grad_disabled_at(stmt):
                for source in _binding_sources(model, stmt, definition):
                    stack.extend(_data_reads(model, source))
    return out


def _iterates_kept_graphs(model, flow, loop: ast.AST) -> bool:
    """A loop over a collection the analysis saw filled with graph-carrying values (its
    value carries a graph), not over data: its targets are those graphs."""
    value = flow.values.get(loop.iter)
    return value is not None and value.carries_graph and not model.is_data_loop(loop)


def _binding_sources(model, stmt: ast.AST, definition: ast.AST) -> List[ast.AST]:
    """The expressions the value bound to `definition` is computed from: the statement's
    value, or for `yy, xx = self._shrink(x, yy, xx)` only the arguments the callee computes
    that item from (semantic model's `result_item_arguments`)."""
    items = model.result_item_arguments(stmt)
    if items is not None:
        for elt, sources in zip(stmt.targets[0].elts, items):
            if definition is elt or any(definition is n for n in walk(elt)):
                return sources
    return [stmt.value]


def drawn_from_iterable(model, expr: ast.AST, loop: ast.AST) -> bool:
    """Is `expr` (in `loop`) computed from the item the loop draws from its iterable
    (`for loss in losses: loss.backward(...)`, also through `l = w * loss`)? Then its graph
    was built before the loop, in whatever made the iterable: the items of one forward's
    list of task losses share that forward, which the next iteration back-propagates again."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    reaching = model.reaching(model.unit_of(expr))
    seen: Set[ast.AST] = set()
    stack = _operands(expr)
    while stack and len(seen) < MAX_DEPENDENCIES:
        read = stack.pop()
        if model.value(read).kind in ("scalar", "none"):
            continue  # `torch.sum(G(z)) * (i + 1)`: the loop's counter scales it, no graph comes with it
        for definition in reaching.definitions(read):
            if definition in seen or isinstance(definition, ast.arg):
                continue
            seen.add(definition)
            stmt = model.statement_of(definition)
            if stmt is loop:
                return True
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and stmt.value is not None \
                    and model.is_inside(stmt, loop):
                stack.extend(_operands(stmt.value))
    return False


def _operands(expr: ast.AST) -> List[ast.Name]:
    """The names `expr` computes on directly (arithmetic, indexing, a method of the value:
    `w * loss`, `loss.mean()`), not what it hands to a call as an argument (`head(x)`,
    `next(it)`: a forward or a draw from an iterator builds something new)."""
    out, stack = [], [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                stack.append(node.func.value)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.append(node)
            continue
        if isinstance(node, ast.Subscript):
            stack.append(node.value)  # `returns[t]`: what is indexed, not the index
            continue
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Attribute, ast.Tuple, ast.List, ast.Starred, ast.IfExp)):
            stack.extend(child_nodes(node))
    return out


# Methods that reshape, move or convert a tensor: applied to an input, the result is still one.
_INPUT_PRESERVING = frozenset({"to", "cuda", "cpu", "float", "half", "double", "long", "int", "bool", "view",
                               "reshape", "squeeze", "unsqueeze", "flatten", "permute", "transpose", "contiguous",
                               "expand", "expand_as", "view_as", "type", "pin_memory"})


def _input_slices(model, reaching, flow, definitions: Set[ast.AST]) -> Set[ast.AST]:
    """The definitions of unknown value made only from inputs (parameters, the items of a
    `for` target) by indexing, slicing, attribute access and reshaping or device moves
    (`t = video[:, -1]`, `x_t, y_t = t[:, 0], t[:, 1]`): parts of a batch, no graph of
    this unit, so two backwards reading them share nothing through them."""
    pruned: Set[ast.AST] = set()
    changed = True
    while changed:
        changed = False
        for definition in definitions - pruned:
            value = flow.values.get(definition)
            stmt = model.statement_of(definition)
            if (value is not None and value.kind != "unknown") or not isinstance(stmt, (ast.Assign, ast.AnnAssign)) \
                    or stmt.value is None or not _only_selects(stmt.value):
                continue
            reads = _data_reads(model, stmt.value)
            if reads and all(_is_input(model, reaching, read, pruned) for read in reads):
                pruned.add(definition)
                changed = True
    return pruned


def _only_selects(expr: ast.AST) -> bool:
    for node in walk(expr):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Attribute)
                                               and node.func.attr in _INPUT_PRESERVING):
            return False
        if isinstance(node, (ast.BinOp, ast.Lambda, ast.NamedExpr) + _COMPREHENSION_NODES):
            return False
    return True


_COMPREHENSION_NODES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _is_input(model, reaching, read, pruned) -> bool:
    definitions = reaching.definitions(read)
    return bool(definitions) and all(
        isinstance(d, ast.arg) or isinstance(model.statement_of(d), (ast.For, ast.AsyncFor)) or d in pruned
        for d in definitions)


def _added_by_mutation(reaching, definition: ast.AST, stmt: ast.AST) -> Optional[ast.AST]:
    """What a container mutation put into the container: the arguments of `c.append(v)` /
    `c.extend(vs)` / `c.insert(i, v)` / `c.update(d)`, the value of `c[k] = v`."""
    if definition not in reaching.mutations:
        return None
    if isinstance(definition, ast.Call):
        parts = list(definition.args) + [kw.value for kw in definition.keywords]
        return ast.Tuple(elts=parts, ctx=ast.Load()) if parts else None
    if isinstance(definition, ast.Subscript) and isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return stmt.value
    return None


def _local_object_containers(model, unit) -> dict:
    """`obj.attr` -> the calls that add to it (`memory.values.append(value)`), for the lists of
    local objects (not `self`) the unit fills: their contents are what was put in."""
    from torchleaklint.semantic.dataflow import container_addition

    def compute() -> dict:
        out: dict = {}
        for node in nodes_within(unit):
            if isinstance(node, ast.Call) and container_addition(node) is not None:
                owner = node.func.value
                if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) \
                        and owner.value.id not in ("self", "cls") and dotted(owner) is not None:
                    out.setdefault(dotted(owner), []).append(node)
        return out
    return model.cached(("local_object_containers", unit), compute)


def _cut_by_callee(model, name: ast.Name) -> bool:
    """`model(data, hidden)` where the forward detaches `hidden` on entry: its history stops there."""
    parent = model.parent(name)
    if isinstance(parent, ast.keyword):
        parent = model.parent(parent)
    return isinstance(parent, ast.Call) and name is not parent.func and model.call_cuts_argument(parent, name.id)


def _graph_free_result(model, call: ast.Call) -> bool:
    """A call whose result the data flow proves carries no graph (a tensor, a number, a
    module), whatever its arguments carry."""
    value = model.value(call)
    return value.kind in ("tensor", "scalar", "none", "data", "module") and not value.carries_graph


def _data_reads(model, expr: ast.AST) -> List[ast.AST]:
    """Names and attributes (`self.graph0`) read as data in `expr`: not the callee of a
    call, not under a graph killer. An attribute read stands for itself (its reaching
    definition is the store of this call, if any), not for its owner."""
    callees = {id(call.func) for call in walk(expr) if isinstance(call, ast.Call)}
    out = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if id(node) in callees:
            if isinstance(node, ast.Attribute):
                stack.append(node.value)  # `x.reshape(...)`: the receiver is data, the method is not
            continue
        if isinstance(node, ast.Call) and node is not expr and _graph_free_result(model, node):
            continue  # `frozen(fake)` of a helper returning `x.detach()`: nothing of `fake` flows on
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if not model.value_killed_at(node) and not _cut_by_callee(model, node):
                out.append(node)
            continue
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and dotted(node) is not None \
                and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            if not model.value_killed_at(node):
                out.append(node)
            continue
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and \
                dotted(node) in _local_object_containers(model, model.unit_of(node)):
            if not model.value_killed_at(node):
                out.append(node)  # `memory.values`, a list of a local object the unit fills
            continue
        stack.extend(child_nodes(node))
    return out


def shares_graph_built_before(model, expr: ast.AST, loop: ast.AST) -> bool:
    """Is part of the graph of `expr` (computed in `loop`) built before the loop and reused
    unchanged by every iteration (`target = net(content)` before an optimization loop whose
    loss reads `target`)? The next iteration's backward runs through that part again, so it
    must be retained. A value rebound in the loop (recurrent state) is not loop-invariant."""
    deps = graph_dependencies(model, expr)
    flow = model.flow(model.unit_of(expr))
    if flow is None:
        return False
    # rebound in the loop on every iteration; a rebinding behind a test inside the loop (the poses
    # rebuilt from their parameters every `pose_accum_step` iterations) leaves the iterations in
    # between back-propagating the graph built before the loop, or at the last rebinding
    rebound_inside = {d.id for d in deps if isinstance(d, ast.Name) and model.is_inside(d, loop)
                      and not _behind_a_test_in(model, d, loop)}
    # rebound from its own previous value (`latent = latent - lr * latent.grad`): every
    # iteration's value still holds the graph it started from before the loop
    chained = {d.id for d in deps if isinstance(d, ast.Name) and model.is_inside(d, loop)
               and _reads_itself(model, d)}
    for definition in deps:
        if not isinstance(definition, ast.Name) or model.is_inside(definition, loop) \
                or (definition.id in rebound_inside and definition.id not in chained):
            continue
        if _iterated_items_have_separate_graphs(model, loop, definition):
            continue  # each iteration takes another item, whose graph no other item shares
        value = flow.values.get(definition)
        if value is not None and value.carries_graph:
            return True
    return False


def may_share_an_unknown_graph_built_before(model, expr: ast.AST, loop: ast.AST) -> bool:
    """Does the iteration computing `expr` read, as it is, a value made before `loop` whose
    kind the analysis does not know and whose making may have run a forward (`embeddings =
    torch.cat(tuple(graph_embeddings))` after `graph_embeddings, ... = self.cal_att(data)`)?
    Then every iteration's backward may go through that graph again: that it need not be
    retained is not proven."""
    return any(isinstance(d, ast.Name) and _unknown_made_by_a_forward(model, d, 0)
               for d in loop_invariant_inputs(model, expr, loop))


def _unknown_made_by_a_forward(model, definition: ast.Name, depth: int) -> bool:
    stmt = model.statement_of(definition)
    value = getattr(stmt, "value", None)
    flow = model.flow(model.unit_of(definition))
    bound = flow.values.get(definition) if flow is not None else None
    if value is None or bound is None or not _of_unknown_kind(bound) or model.grad_disabled_at(stmt):
        return False  # typed (a graph is shares_graph_built_before's to judge), or made without grad
    if any(isinstance(n, ast.Call) and model.call_may_run_forward(n) and not _parameterless(model, n)
           for n in walk(value)):
        return True
    if depth >= 2:
        return False
    reaching = model.reaching(model.unit_of(definition))
    return any(isinstance(d, ast.Name) and _unknown_made_by_a_forward(model, d, depth + 1)
               for read in walk(value) if isinstance(read, ast.Name) and isinstance(read.ctx, ast.Load)
               for d in reaching.definitions(read))


def _parameterless(model, call: ast.Call) -> bool:
    """A call of a module with no parameters that require grad (`self.drop(x)`, `nn.ReLU()`):
    its result carries a graph only when what it is handed does (followed through the reads)."""
    callee = model.value(call.func)
    return callee.kind == MODULE and callee.frozen


def _of_unknown_kind(value) -> bool:
    """Unknown, or a list or tuple of unknown items (no graph seen in it, none ruled out)."""
    if value.kind == UNKNOWN:
        return True
    if value.kind != SEQUENCE or value.carries_graph:
        return False
    items = value.items if value.items is not None else (value.elem,) if value.elem is not None else ()
    return any(item.kind == UNKNOWN for item in items)


def _behind_a_test_in(model, node: ast.AST, loop: ast.AST) -> bool:
    """Is `node` inside an `if` of `loop`'s own body (not of a nested loop or function)?"""
    for anc in model.ancestors(node):
        if anc is loop or isinstance(anc, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        if isinstance(anc, ast.If):
            return True
    return False


def _iterated_items_have_separate_graphs(model, loop: ast.AST, definition: ast.Name) -> bool:
    """Is `definition` the list the loop iterates (`for k, loss in enumerate(losses)`), built
    by a comprehension whose every item runs its own forward on inputs that carry no graph
    (`losses = [nll(*m(x), y) for m in members]`)? Items of separate forwards share only
    leaves (parameters), so back-propagating one frees nothing another needs."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or definition.id not in _iterated_names(loop.iter):
        return False
    stmt = model.statement_of(definition)
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is definition
            and isinstance(stmt.value, ast.ListComp) and len(stmt.value.generators) == 1):
        return False
    comp = stmt.value
    drawn = [n for n in walk(comp.generators[0].target) if isinstance(n, ast.Name)]
    if any(model.carries_graph(n) or model.value(n).kind == UNKNOWN for n in drawn):
        return False  # items drawn from values that may share a graph (one forward's outputs)
    own = {n.id for n in drawn}
    for node in walk(comp.elt):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and not _called(model, node) \
                and isinstance(node.value, ast.Name) and node.value.id not in own:
            return False  # state read from an object (`self.h`): may hold a shared graph
        if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load) or node.id in own:
            continue
        value = model.value(node)
        if value.carries_graph or value.kind == UNKNOWN and not (model.is_batch_item(node) or _called(model, node)):
            return False
    return True


def _iterated_names(iterable: ast.AST) -> Set[str]:
    """`losses` in `losses`, `enumerate(losses)`, `zip(losses, opts)`."""
    if isinstance(iterable, ast.Name):
        return {iterable.id}
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in ("enumerate", "zip"):
        return {a.id for a in iterable.args if isinstance(a, ast.Name)}
    return set()


def _called(model, node: ast.AST) -> bool:
    """Is `node` what a call calls (`m` in `m(x)`, `self.head` in `self.head(h)`)?"""
    parent = model.parent(node)
    return isinstance(parent, ast.Call) and parent.func is node


def reads_graph_held_by_object(model, expr: ast.AST) -> bool:
    """Does `expr` (in a method) read the object's state (`self.x`, `self.loss_interior()`)
    while the object, or a subclass of it in this file, holds a graph built when it was set
    up (`self.grid_x = (x.requires_grad_(True) + 1) / 2` in `__init__`)? Every step's backward
    may then run through that graph again, and need it retained: not decidable here."""
    unit = model.unit_of(expr)
    info = model.class_of(unit) if unit is not None else None
    receiver = self_name(unit) if info is not None else None
    if receiver is None:
        return False
    parts = [expr] + [model.statement_of(d) for d in graph_dependencies(model, expr)]
    reads_state = any(isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == receiver
                      for part in parts for node in walk(part))
    return reads_state and any(_holds_setup_graph(model, cls) for cls in _with_subclasses(model, info))


def _with_subclasses(model, info) -> list:
    """The class and the classes of this file that derive from it (directly or not)."""
    out, names = [info], {info.name}
    changed = True
    while changed:
        changed = False
        for other in model.classes.values():
            if other.name not in names and any(b.rsplit(".", 1)[-1] in names for b in other.base_names):
                out.append(other)
                names.add(other.name)
                changed = True
    return out


def _holds_setup_graph(model, info) -> bool:
    """Does an init-like method of the class store on `self` a value carrying a graph?"""
    from torchleaklint.semantic.syntax import INIT_METHODS

    for name, method in info.methods.items():
        if name not in INIT_METHODS:
            continue
        flow = model.flow(method)
        if flow is None:
            continue
        for node in walk(method):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self":
                value = flow.values.get(node)
                if value is not None and value.carries_graph:
                    return True
    return False


def _reads_itself(model, definition: ast.Name) -> bool:
    """`x = x - lr * g`: the binding's value is computed from the name's previous value (a
    read that keeps its graph)."""
    stmt = model.statement_of(definition)
    if not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) or stmt.value is None:
        return False
    if isinstance(stmt, ast.AugAssign):
        return True
    return any(read.id == definition.id for read in _data_reads(model, stmt.value) if isinstance(read, ast.Name))


def argument_back_propagated_by_callers(model, stored: ast.AST, func) -> bool:
    """Is `stored` a parameter of the method `func` whose argument a caller's loop back-propagates
    in the same iteration (`meters["d_loss"].update(d_loss)` beside `d_loss.backward()`, here or
    in another module's loop: summary `abp`)? Its activations are freed by then: what `func`
    keeps of it holds the graph's nodes."""
    if not isinstance(stored, ast.Name) or not isinstance(func, FUNCTION_TYPES):
        return False
    names = [a.arg for a in positional_parameters(func)]
    if stored.id not in names:
        return False
    position = names.index(stored.id) - (1 if model.class_of(func) is not None else 0)
    for site in model.call_sites(func):
        arg = site.args[position] if 0 <= position < len(site.args) else \
            next((kw.value for kw in site.keywords if kw.arg == stored.id), None)
        loops = model.loops_around(site)
        if arg is not None and loops and model.consumed_by_backward(arg, loops[0]) is not None:
            return True
    return any(position in site.get("abp", ()) or stored.id in site.get("abp", ())
               for site in model.external_sites(func))


def graphs_share(model, first: ast.AST, second: ast.AST) -> bool:
    """Do the graphs of two differentiated values have a part in common (a forward both are
    computed from, not detached in between)? The second backward then needs the first one's
    graph retained. Values bound by one statement (`ce, z = losses(model, x)`) count as one
    computation: what an opaque call shares between its results cannot be told apart."""
    def computations(expr):
        found = {model.statement_of(d) for d in graph_dependencies(model, expr)}
        if any(isinstance(n, ast.Call) and model.carries_graph(n) for n in walk(expr)):
            found.add(model.statement_of(expr))  # `self.preview = self.G(self.fixed_z)`: a forward of its own
        return found

    ours, theirs = computations(first), computations(second)
    if not ours or not theirs:
        # a differentiated value whose graph the analysis traced to nothing (a helper's
        # result taken for graph-free): what it shares cannot be told, so it may share
        return True
    if ours & theirs:
        return True
    ours_state, theirs_state = _object_state_read(model, first), _object_state_read(model, second)
    return any(not _own_state_set_apart(model, read, theirs, theirs_state) for read in ours_state) or \
        any(not _own_state_set_apart(model, read, ours, ours_state) for read in theirs_state)


def _stored_here_before(reaching, read: ast.Attribute) -> bool:
    """Is every value `read` can see a store of that same attribute made by this unit
    (`self.err_d = ...` above it), none the one it had on entry?"""
    definitions = reaching.definitions(read)
    return reaching.from_entry(read) is False and bool(definitions) and all(
        isinstance(d, ast.Attribute) and dotted(d) == dotted(read) for d in definitions)


def _own_state_set_apart(model, read: ast.Attribute, other: Set[ast.AST], other_reads: List[ast.Attribute]) -> bool:
    """Is the graph held in `self.<attr>` (read by one differentiated value) apart from the
    other value's graph? When the attribute is the unit's own object's, the other value does
    not read it, and none of the other's computations runs a method of the object that
    stores it (GANomaly's `self.forward_g()` sets `self.fake`; the discriminator's loss reads
    only `self.fake.detach()`: two graphs). State of another object (`sl.loss` set by its
    forward when the model ran) may come from any forward: not apart."""
    unit = model.unit_of(read)
    receiver = self_name(unit) if isinstance(unit, FUNCTION_TYPES) else None
    if receiver is None or not (isinstance(read.value, ast.Name) and read.value.id == receiver):
        return False
    from torchleaklint.semantic.object_state import storing_methods

    info = model.class_of(unit)
    stored_by = storing_methods(model, info, read.attr)
    for other_read in other_reads:
        if dotted(other_read) == dotted(read):
            return False
        if isinstance(other_read.value, ast.Name) and other_read.value.id == receiver and \
                stored_by & storing_methods(model, info, other_read.attr):
            return False  # `self.fake_shape, self.fake_colour = self.netG(...)`: one forward's outputs
    for stmt in other:
        for node in walk(stmt):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id == receiver:
                return False  # `self(x)`: its forward may store it
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == receiver:
                method = model.method(info.name, func.attr) if info is not None else None
                if method is None and model.value(func).kind == MODULE:
                    continue  # `self.netd(x)`: a submodule's forward stores nothing on its holder
                if method is None or method in stored_by:
                    return False
    return True


def read_graph_dies_in_call(model, read: ast.AST, stored: ast.AST) -> bool:
    """Does the graph read at `read` (`self.h` of the previous step) end in its function?
    It must reach `stored` only under a cut (`(w * self.h).detach() + ...`), and otherwise
    only locals whose graphs end in graph-free values (`prob = head(0.9 * self.h + ...)`, then
    `argmax(prob)`): no return, store, backward or statement-level call takes a value
    computed from it. Unknown links (a read inside a larger statement, an unresolved call's
    result) count as reaching."""
    unit = model.unit_of(read)
    if unit is None:
        return False
    if model.is_inside(read, stored):
        return _cut_on_the_way(model, read, stored)
    source = model.statement_of(read)
    if _cut_on_the_way(model, read, source):
        return True  # `elif score < self.best_score - self.delta:`: only a comparison's result goes on
    if not (isinstance(source, ast.Assign) and all(isinstance(t, ast.Name) for t in source.targets)
            and model.is_inside(read, source.value)):
        return False  # `self.h.add_(x)`, `out, h = f(self.h)` into a tuple: not followed
    for sink in _graph_sinks(model, unit, stored):
        if sink is source or source in {model.statement_of(d) for d in graph_dependencies(model, sink)}:
            return False
    return True


def made_of_back_propagated_results(model, stored: ast.AST, func: ast.AST) -> bool:
    """Is every graph-carrying part of `stored` the result of a call that back-propagates in
    that call: a function of this module or a module's forward (here or, from its summary, in
    another module) whose body runs a backward outside loops of its own, reached directly,
    through torch ops on it (`torch.mean(al)`), through the local it was bound to (`al, acc =
    self.model(...)`), or through a `self` list that only such results are appended to in
    `func`? Those graphs were consumed by that backward: their activations are freed."""
    receiver = self_name(func)
    reaching = model.reaching(func)

    def consumed(node, depth: int = 0) -> bool:
        if depth > 4:
            return False
        if isinstance(node, ast.Call):
            if _callee_back_propagates(model, node):
                return True
            qual = model.qualname(node.func) or ""
            if not (qual.startswith("torch.") or isinstance(node.func, ast.Attribute) and model.carries_graph(node.func.value)):
                return False
            inputs = list(node.args) + [kw.value for kw in node.keywords]
            if isinstance(node.func, ast.Attribute) and not qual:
                inputs.append(node.func.value)
            parts = _graph_parts(model, inputs)
            return bool(parts) and all(consumed(a, depth + 1) for a in parts)  # (none: a graph made here)
        if isinstance(node, ast.Name):
            definitions = [d for d in reaching.definitions(node) if not isinstance(d, ast.arg)]
            if not definitions:
                return False
            for definition in definitions:
                stmt = model.statement_of(definition)
                if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call)
                        and _callee_back_propagates(model, stmt.value)):
                    return False
            return True
        if isinstance(node, ast.Subscript) and _own_attribute(node.value, receiver):
            appended = [c.args[0] for c in model.calls_of_attribute("append") if model.unit_of(c) is func
                        and len(c.args) == 1 and dotted(c.func.value) == dotted(node.value)]
            return bool(appended) and all(isinstance(a, ast.Call) and _callee_back_propagates(model, a)
                                          for a in appended)
        if isinstance(node, ast.BinOp):
            parts = _graph_parts(model, [node.left, node.right])
            return bool(parts) and all(consumed(a, depth + 1) for a in parts)
        return False

    parts = _graph_parts(model, [stored])
    return bool(parts) and all(consumed(part) for part in parts)


def _graph_parts(model, exprs) -> List[ast.AST]:
    """The expressions among `exprs` that carry a graph."""
    return [e for e in exprs if model.carries_graph(e)]


def _callee_back_propagates(model, call: ast.Call) -> bool:
    """Does the function (or module forward) `call` runs back-propagate in the call, outside
    loops of its own: `backward_D_basic(...)` ending `loss_d.backward(); return loss_d`, a GAN
    model's `forward(mode)` running `l_total.backward()` (here, or in another module's summary)?"""
    callee = model.resolve_call(call)
    if callee is None:
        value = model.value(call.func)
        if value.kind == MODULE and value.name and value.name in model.classes:
            callee = model.method(value.name, "forward")
        elif model.project is not None:
            entry = model.other_module_entry(call, functions=False)
            return bool(entry and entry.get("bw") and entry.get("step"))
    if not isinstance(callee, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(not model.loops_around(c) for c in model.backward_calls_in(callee))


def _cut_on_the_way(model, read: ast.AST, top: ast.AST) -> bool:
    """Is the path from `read` up to `top` (which contains it) cut by a graph killer
    (`(w * self.h).detach()`, `self.h.item()`, `self.h > 0`)? Read syntactically: the value
    the read has on entry is the first call's, not the one a later step brings."""
    node = read
    while node is not None and node is not top:
        if model.value_killed_at(node):
            return True
        node = model.parent(node)
    return False


def _graph_sinks(model, unit, stored: ast.AST) -> List[ast.AST]:
    """Where a graph computed in `unit` can go on living or be consumed: the stored value,
    returned and yielded values, values stored in items or on other objects, backward targets,
    arguments of calls made as statements (`buf.append(h)`, `log(h)`). Another attribute of
    the same object (`self.last_prob = head(hist)`) is a store of its own, judged on its own:
    it keeps the read graph one step longer, it does not chain it into `stored`."""
    sinks: List[ast.AST] = [stored]
    receiver = self_name(unit) if isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    for node in nodes_within(unit):
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) and node.value is not None:
            sinks.append(node.value)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(node, ast.AugAssign) or any(
                    not isinstance(t, ast.Name) and not _own_attribute(t, receiver) for t in targets):
                sinks.append(node.value)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            sinks.extend(list(node.value.args) + [kw.value for kw in node.value.keywords])
            if isinstance(node.value.func, ast.Attribute):
                sinks.append(node.value.func.value)  # `loss.backward()`, `h.add_(x)`
    return sinks


def _own_attribute(target: ast.AST, receiver: Optional[str]) -> bool:
    """`self.last_prob` as an assignment target (not `self.cache[k]`, not `self.a.b`)."""
    return receiver is not None and isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
        and target.value.id == receiver


def side_output_of(model, stored: ast.AST, other: ast.AST) -> bool:
    """Is `stored` a name bound only by statements that also compute part of `other`'s graph
    (`src2, attn = self.self_attn(q, k, v)`, then `return src + src2`)? It adds no forward of
    its own: a backward through `other` frees the activations of the computation they share,
    leaving only the side output's nodes. A value with a forward of its own on the way
    (`self.norm(x).norm(dim=-1)`) is not one."""
    if not isinstance(stored, ast.Name):
        return False
    definitions = [d for d in model.reaching(model.unit_of(stored)).definitions(stored) if not isinstance(d, ast.arg)]
    if not definitions:
        return False
    theirs = {model.statement_of(d) for d in graph_dependencies(model, other)}
    return all(model.statement_of(d) in theirs for d in definitions)


def _object_state_read(model, expr: ast.AST) -> List[ast.Attribute]:
    """The reads `expr`'s value is computed from of attributes that an object of a class of
    this file stores outside its init-like methods (`sl.loss` of a style-loss module, set by
    its `forward` when the model ran), not stored by the unit itself before the read. Such a
    graph was built by a call out of this unit's sight, maybe from the same forward as another
    value's."""
    from torchleaklint.semantic.object_state import stores_graph_outside_construction

    out = []
    unit = model.unit_of(expr)
    reaching = model.reaching(unit) if isinstance(unit, FUNCTION_TYPES) else None
    parts = [expr] + [model.statement_of(d) for d in graph_dependencies(model, expr)]
    for part in parts:
        for node in walk(part):
            if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
                continue
            if _called(model, node):
                continue  # a method call, not state
            if _cut_on_the_way(model, node, part):
                continue  # `self.netd(self.fake.detach())`: only a detached copy of it goes on
            if reaching is not None and _stored_here_before(reaching, node):
                continue  # `self.err_d` stored just above in this unit: traced like a local
            base = model.value(node.value)
            info = model.classes.get(base.name) if base.kind in (INSTANCE, MODULE) and base.name else None
            if info is not None and stores_graph_outside_construction(model, info, node.attr):
                out.append(node)
    return out


def feeds(model, stored: ast.AST, store_stmt: ast.AST, target: ast.AST) -> bool:
    """Is the value stored at `store_stmt` (the expression `stored`) part of what `target`
    is computed from? `x, self.attn = self.attention(q)` then `return self.proj(x)`, or
    `self.code = code` then `return head(code)`: back-propagating the result runs through
    the stored graph. A value that only shares an ancestor with it (`self.aux = aux_head(x)`
    beside `return head(x)`) does not."""
    deps = graph_dependencies(model, target)
    if store_stmt in {model.statement_of(d) for d in deps}:
        return True
    if isinstance(stored, (ast.List, ast.Tuple)):
        # `self.activations = [a1, a2, a3]`, each an intermediate of the forward
        return bool(stored.elts) and all(feeds(model, elt, store_stmt, target) for elt in stored.elts)
    source = copied_name(model, stored)
    if source is not None:
        return bool(_definitions_through_aliases(model, source) & deps)
    items = _item_stores_read(model, stored)
    # `x2[t1] = x_t1`, `self.emb = x2[t1]`, then `x2[t1] = F.log_softmax(x_t1)`; `return x2`:
    # the item read is what an item store put there, and that value is part of the result
    return bool(items) and all(feeds(model, stmt.value, stmt, target) for stmt in items)


def _item_stores_read(model, expr: ast.AST) -> List[ast.Assign]:
    """For `c[k]` of a local container `c`: the item stores (`c[j] = value`) whose values the
    read may return, when every graph-carrying definition of `c` reaching it is one (a
    container built empty or of graph-free items, then filled item by item); else []."""
    if not isinstance(expr, ast.Subscript) or not isinstance(expr.value, ast.Name):
        return []
    stores = []
    for definition in model.reaching(model.unit_of(expr)).definitions(expr.value):
        stmt = model.statement_of(definition)
        if isinstance(definition, ast.Subscript) and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and stmt.targets[0] is definition and not isinstance(stmt.value, ast.Subscript):
            stores.append(stmt)
        elif not (isinstance(stmt, ast.Assign) and stmt.targets[0] is definition
                  and not model.carries_graph(stmt.value)):
            return []  # the container rebound from something with a graph, or bound some other way
    return stores


def _definitions_through_aliases(model, name: ast.Name, hops: int = 4) -> Set[ast.AST]:
    """The definitions reaching `name`, and through a plain copy (`activation1 = x`) or a
    copy or view that saves nothing for backward (`activation1 = x.clone()`) those reaching
    the copied name: a graph built from the one is built from the other, and what the copy
    adds to it holds no activations."""
    reaching = model.reaching(model.unit_of(name))
    out: Set[ast.AST] = set()
    for definition in reaching.definitions(name):
        out.add(definition)
        stmt = model.statement_of(definition)
        if hops and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is definition:
            source = copied_name(model, stmt.value)
            if source is not None:
                out |= _definitions_through_aliases(model, source, hops - 1)
    return out


# Tensor ops whose backward saves no tensor of the input's size: a copy, a view, a reduction
# (`sum`, `mean`; `min`/`max` along a dimension keep only the indices of the result's size)
_CHEAP_OPS = frozenset({"clone", "view", "reshape", "contiguous", "flatten", "squeeze", "unsqueeze", "permute",
                        "transpose", "view_as", "reshape_as", "sum", "mean", "min", "max", "amin", "amax"})


def copied_name(model, expr: ast.AST) -> Optional[ast.Name]:
    """`x`, `x.clone()`, `x.view(n, -1)`, `torch.min(x, dim=1)`: the name whose tensor `expr`
    is, or that it copies, views or reduces without keeping anything of its size for the
    backward (so a graph through it keeps no activations beyond those of `x`'s graph)."""
    while isinstance(expr, ast.Call):
        func = expr.func
        qual = model.qualname(func) or ""
        if qual.startswith("torch.") and qual.rsplit(".", 1)[-1] in _CHEAP_OPS and expr.args:
            expr = expr.args[0]
        elif isinstance(func, ast.Attribute) and func.attr in _CHEAP_OPS and not qual.startswith("torch."):
            expr = func.value
        else:
            break
    return expr if isinstance(expr, ast.Name) else None


# Calls that combine their arguments like arithmetic does: a value carried through them only
# is a running total (TLL001), not recurrent state.
_COMBINING_CALLS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack",
                              "torch.vstack", "torch.dstack", "torch.add", "torch.column_stack", "torch.row_stack",
                              "torch.sum", "torch.mean"})
_COMBINING_BUILTINS = frozenset({"max", "min", "sum", "abs", "len", "list", "tuple", "dict", "set", "sorted", "round",
                                 "float", "int", "print", "isinstance", "getattr", "str", "repr", "zip", "enumerate"})


def recurrent_through_call(model, stmt: ast.AST, name: str, loop: ast.AST) -> bool:
    """Is the value `stmt` binds to `name` computed, within one iteration of `loop`, from the
    previous iteration's `name` through a call that builds a graph (a forward, a cell, an
    op)? `y = net(torch.cat([x, h])); h = y[:, -1]` is; `hidden = (h.detach(), c)` after
    `out, (h, c) = model(x, hidden)` is, through `c`; `total = total + loss` is not (only
    arithmetic: a running total). The walk follows this iteration's definitions backwards
    from `stmt` and stops at graph killers and at values made before the loop."""
    unit = model.unit_of(stmt)
    reaching = model.reaching(unit)
    mine = {node for target in _targets(stmt) for node in walk(target)
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)}
    if not mine or getattr(stmt, "value", None) is None:
        return False
    stack = [(read, _in_forward_call(model, read, stmt.value)) for read in _data_reads(model, stmt.value)]
    seen = set()
    while stack:
        read, via_call = stack.pop()
        if (read, via_call) in seen or len(seen) > MAX_DEPENDENCIES:
            continue
        seen.add((read, via_call))
        if via_call and _cut_by_the_call(model, read):
            continue  # `model(d, hidden)` whose forward starts `hidden = torch.rand(...) if hidden
            # is not None else hidden`: the result does not depend on what was passed
        for definition, crossed in reaching.reaching(read) or ():
            if not isinstance(definition, ast.AST):
                continue
            if loop in crossed:
                if via_call and definition in mine:
                    return True
                continue
            if loop not in reaching.def_loops.get(definition, ()):
                continue  # made before the loop
            source = model.statement_of(definition)
            if not isinstance(source, (ast.Assign, ast.AnnAssign, ast.AugAssign)) or source.value is None \
                    or model.grad_disabled_at(source):
                continue
            for inner in _data_reads(model, source.value):
                stack.append((inner, via_call or _in_forward_call(model, inner, source.value)))
    return False


def _targets(stmt) -> list:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    return [stmt.target] if hasattr(stmt, "target") else []


def _cut_by_the_call(model, read: ast.AST) -> bool:
    """Is `read` (a name) an argument of a call whose function cuts that argument's history
    on entry (state_cuts.call_cuts_argument)?"""
    if not isinstance(read, ast.Name):
        return False
    child, node = read, model.parent(read)
    while node is not None and not isinstance(node, ast.stmt):
        if isinstance(node, ast.Call):
            return child is not node.func and (model.call_cuts_argument(node, read.id)
                                               or result_ignores_argument(model, node, child))
        child, node = node, model.parent(node)
    return False


def result_ignores_argument(model, call: ast.Call, argument: ast.AST) -> bool:
    """Does the function of this module that `call` runs return values none of which is
    computed from the parameter `argument` binds (`alpha = train_model(..., log_alpha,
    alpha)` returning `torch.exp(log_alpha)`, rebuilt from the leaf each step)? Followed
    through the callee's reaching definitions: a parameter rebound before the return is not
    the one handed in."""
    from torchleaklint.semantic.state_cuts import local_callee

    local = local_callee(model, call)
    if local is None:
        return False
    callee, offset = local
    params = positional_parameters(callee)[offset:]
    param = next((params[i] for i, a in enumerate(call.args) if a is argument and i < len(params)), None)
    if param is None:
        param = next((a for kw in call.keywords if kw.value is argument
                      for a in callee.args.args + callee.args.kwonlyargs if a.arg == kw.arg), None)
    returns = [r for r in nodes_within(callee) if isinstance(r, ast.Return) and r.value is not None]
    if param is None or not returns or any(isinstance(r, (ast.Yield, ast.YieldFrom)) for r in nodes_within(callee)):
        return False
    reaching = model.reaching(callee)
    stack: List[ast.AST] = []
    for r in returns:
        reads = _names_read(r.value)
        if reads is None:
            return False
        stack += _graph_reads(model, reads)
    seen: Set[ast.AST] = set()
    while stack:
        read = stack.pop()
        for definition in reaching.definitions(read):
            if definition is param:
                return False
            if definition in seen or isinstance(definition, ast.arg):
                continue
            seen.add(definition)
            source = model.statement_of(definition)
            if not isinstance(source, (ast.Assign, ast.AnnAssign, ast.AugAssign)) or source.value is None:
                return False  # bound by a loop, a `with` or another binding not followed: unknown
            reads = _names_read(source.value)
            if reads is None:
                return False
            stack += _graph_reads(model, reads) + ([source.target] if isinstance(source, ast.AugAssign) else [])
    return True


def _graph_reads(model, reads: List[ast.Name]) -> List[ast.Name]:
    """The reads through which a graph may flow on: not those only used through a graph
    killer (`float(mean_path_length)` in a penalty: a number, whatever the argument carried)."""
    return [read for read in reads if not model.value_killed_at(read)]


def _names_read(expr: ast.AST) -> Optional[List[ast.Name]]:
    """Every name `expr` reads; None when it reads an attribute other than as the function
    it calls (`self.h`, `args.scale`: object state that may hold what was handed in). A
    tensor's metadata (`x.shape[2]`, `x.device`) is no read of its data: skipped."""
    # every node of a called expression (`torch.nn.functional` in `torch.nn.functional.relu(x)`)
    called = {id(n) for call in walk(expr) if isinstance(call, ast.Call) for n in walk(call.func)}
    out: List[ast.Name] = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and id(node) not in called:
            if node.attr in torch_api.TENSOR_METADATA_ATTRIBUTES and isinstance(node.value, ast.Name):
                continue
            return None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            out.append(node)
        stack.extend(child_nodes(node))
    return out


def _in_forward_call(model, read: ast.AST, root: ast.AST) -> bool:
    """Is `read` an argument (at any depth) of a call in `root` that is not a combining
    one (`torch.cat`, `sum`)?"""
    child = read
    node = model.parent(read)
    while node is not None and child is not root:
        if isinstance(node, ast.Call) and child is not node.func and not _combining(model, node):
            return True
        child, node = node, model.parent(node)
    return False


def _combining(model, call: ast.Call) -> bool:
    if isinstance(call.func, ast.Name) and call.func.id in _COMBINING_BUILTINS:
        return True
    return (model.qualname(call.func) or "") in _COMBINING_CALLS


def graph_carried_across_iterations(model, target: ast.AST, loop: ast.AST) -> bool:
    """Is a graph the iteration builds read again by the next one: a definition made in the
    loop body, graph-carrying, that reaches a read of a statement the differentiated value
    is computed from around the loop's back edge (`logits, state = model(x, state)`)?"""
    if model.iterates_a_fixed_count(loop) or _counted_steps(loop):
        return False  # a bounded number of passes (TLL007's fixed-count case), or inner
        # steps counted by a parameter (`for _ in range(steps)` of LEO's latent adaptation)
    from torchleaklint.semantic.model import built_on_earlier_iterations

    unit = model.unit_of(target)
    reaching = model.reaching(unit)
    flow = model.flow(unit)
    if flow is None:
        return False
    for definition in model.graph_dependencies(target):
        stmt = model.statement_of(definition)
        if not model.is_inside(stmt, loop):
            continue
        for read in walk(stmt):
            if not isinstance(read, ast.Name) or not isinstance(read.ctx, ast.Load):
                continue
            for carried in reaching.carried_definitions(read, loop):
                value = flow.values.get(carried)
                # (carried, and itself computed from what an earlier iteration computed: a chain;
                # `poses_all` rebuilt from the pose parameters every few iterations starts none)
                if value is not None and value.carries_graph and built_on_earlier_iterations(
                        model, reaching, carried, loop, unknown=True):
                    return True
    return False


def _counted_steps(loop) -> bool:
    """`for _ in range(steps)`, `range(self.inner_steps)`: a number of inner steps, not a walk
    over data or episodes (`range(0, traj.shape[1] - window, window)`, `range(len(data))`)."""
    if not (isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name)
            and loop.iter.func.id == "range" and len(loop.iter.args) == 1 and not loop.iter.keywords):
        return False
    count = loop.iter.args[0]
    return isinstance(count, (ast.Name, ast.Constant)) or isinstance(count, ast.Attribute) and count.attr != "shape" \
        and not (isinstance(count.value, ast.Attribute) and count.value.attr == "shape")


def arithmetic_arguments(model, call: ast.Call) -> Optional[List[ast.expr]]:
    """The arguments a call of a function of the project combines by arithmetic alone into
    its result (`smooth(ema, loss)` of `def smooth(prev, new): return 0.98 * prev + 0.02 *
    new`): the result references each of them, graph and all. A module function of this
    module, or of another module (its summary's `mix`); None for any other call."""
    from torchleaklint.semantic.syntax import argument_at, arithmetic_positions, positional_parameters, \
        summary_parameters

    func = call.func
    if isinstance(func, ast.Name) and func.id in model.module_functions and model.qualname(func) is None:
        local = model.module_functions[func.id]
        positions = arithmetic_positions(local)
        if not positions:
            return None
        params = [a.arg for a in positional_parameters(local)]
    else:
        qual = model.qualname(func)
        found = model.project.imported_summary(qual) if model.project is not None and qual else None
        if found is None or found[0] != "function" or not found[1] or not found[1].get("mix"):
            return None
        params, positions = summary_parameters(found[1]), found[1]["mix"]
    given = [argument_at(call, position, params) for position in positions]
    return [a for a in given if a is not None]
