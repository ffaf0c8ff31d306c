"""TLL006's fix for an evaluation region inside code that also trains: which statements
`with torch.no_grad():` can wrap without changing any gradient.

The region is the statements after `model.eval()` in the same block, up to (not including)
the statement holding the next `model.train()`, or the end of the block. Wrapping them is
safe when nothing that runs under the new `with` wants gradients and no graph it would
have built is used afterwards:
- the wrapped code has no gradient code (the rule's own check, done by the caller);
- it does not suspend (`yield`, `await`): the grad mode would leak into the caller;
- no graph-carrying value it binds to a name, stores in a container or on an attribute is
  read after it (later in the function, or earlier in an enclosing loop's next iteration)
  before being rebound;
- it returns no graph-carrying value, unless the function is named like evaluation (whose
  callers use the result as a prediction, as for the decorator fix).
"""

from __future__ import annotations

import ast
import bisect
import re
from typing import Dict, Iterator, List, Optional, Tuple

from torchleaklint.semantic.syntax import FUNCTION_TYPES, SCOPE_TYPES, child_nodes, walk
from torchleaklint.semantic.imports import dotted

Position = Tuple[int, int]
_BLOCK_FIELDS = ("body", "orelse", "finalbody")
_FILLING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft",
                              "extendleft", "put", "put_nowait", "push", "__setitem__"})
_SUSPENDS = (ast.Yield, ast.YieldFrom, ast.Await, ast.AsyncFor, ast.AsyncWith)


def _pos(node) -> Position:
    return (node.lineno, node.col_offset)


def _end(node) -> Position:
    return (node.end_lineno or node.lineno, node.end_col_offset or 0)


def region_statements(model, eval_stmt: ast.stmt, end: Position) -> List[ast.stmt]:
    """The statements after `eval_stmt` in its block that end before `end` (the region's
    `model.train()`), stopping at the first that does not, at a `def` or `class` (code
    defined for later, not evaluation), and at a cell boundary (a `# %%` line of a
    percent-format script, or a notebook cell: see `cell_markers`). Every finding of a region
    asks again: the answer is memoized, as is every per-unit index below, so that the
    analysis of a region stays linear in the size of its function (issue 19)."""
    return model.cached(("region_statements", eval_stmt, end), lambda: _region_statements(model, eval_stmt, end))


def _region_statements(model, eval_stmt: ast.stmt, end: Position) -> List[ast.stmt]:
    block = _block_of(model, eval_stmt)
    if block is None:
        return []
    index = _block_index(model, block).positions[id(eval_stmt)]
    markers = cell_markers(model)
    out = []
    previous_end = _end(eval_stmt)[0]
    for stmt in block[index + 1:]:
        if _end(stmt) > end or isinstance(stmt, _DEFINITIONS) or _marker_between(markers, previous_end, stmt):
            break
        out.append(stmt)
        previous_end = _end(stmt)[0]
    return out


def smallest_first(statements: List[ast.stmt], receiver: Optional[str]) -> List[List[ast.stmt]]:
    """The regions to try, smallest first: up to the last statement that calls the
    evaluated model (the loop), then the whole region."""
    last = max((i for i, stmt in enumerate(statements) if _calls_model(stmt, receiver)), default=None)
    if last is None or last == len(statements) - 1:
        return [statements]
    return [statements[:last + 1], statements]


def _calls_model(stmt: ast.stmt, receiver: Optional[str]) -> bool:
    for node in _scope_walk(stmt):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "forward":
                func = func.value
            if receiver is not None and dotted(func) == receiver:
                return True
    return False


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_CELL_MARKER = re.compile(r"#\s*%%")


def cell_markers(model) -> List[int]:
    """Lines that start a cell: `# %%` at the start of a line (percent format: VS Code,
    Spyder, Jupytext; torchleaklint's notebook reader writes one before each cell)."""
    found = getattr(model, "_cell_marker_lines", None)
    if found is None:
        source = model.source or ""
        found = [n for n, line in enumerate(source.splitlines(), 1) if _CELL_MARKER.match(line)] \
            if "%%" in source else []
        model._cell_marker_lines = found
    return found


def _marker_between(markers: List[int], after_line: int, stmt: ast.stmt) -> bool:
    """A cell marker after line `after_line` and before `stmt` (or its decorators)."""
    first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
    i = bisect.bisect_right(markers, after_line)
    return i < len(markers) and markers[i] < first


def _block_of(model, stmt: ast.stmt) -> Optional[List[ast.stmt]]:
    parent = model.parent(stmt)
    for name in _BLOCK_FIELDS:
        block = getattr(parent, name, None)
        if isinstance(block, list) and id(stmt) in _block_index(model, block).positions:
            return block
    return None


class _BlockIndex:
    """One block's statements: the index of each (by id) and, per name, the indices of
    the statements that plainly rebind it (`_rebound_names`), in order."""

    def __init__(self, block: List[ast.stmt]):
        self.block = block
        self.positions = {id(stmt): i for i, stmt in enumerate(block)}
        self.rebinds: Dict[str, List[int]] = {}
        for i, stmt in enumerate(block):
            for name in _rebound_names(stmt):
                self.rebinds.setdefault(name, []).append(i)

    def rebinding_before(self, index: int, name: str, after: Optional[Position]) -> bool:
        """A statement before `index` rebinds `name` (at or after position `after`)."""
        indices = self.rebinds.get(name, ())
        below = bisect.bisect_left(indices, index)
        if not below:
            return False
        latest = self.block[indices[below - 1]]  # the latest one is the one most likely after `after`
        return after is None or _pos(latest) >= after


def _block_index(model, block: List[ast.stmt]) -> _BlockIndex:
    return model.cached(("region_block_index", id(block)), lambda: _BlockIndex(block))


def wrap_is_safe(model, unit, statements: List[ast.stmt], eval_named: bool) -> bool:
    key = ("region_wrap_is_safe", statements[0], statements[-1], eval_named)
    return model.cached(key, lambda: _wrap_is_safe(model, unit, statements, eval_named))


def _wrap_is_safe(model, unit, statements: List[ast.stmt], eval_named: bool) -> bool:
    first, last = _pos(statements[0]), _end(statements[-1])
    nodes = [n for stmt in statements for n in _scope_walk(stmt)]
    if any(isinstance(n, _SUSPENDS) for n in nodes):
        return False
    if not eval_named and any(isinstance(n, ast.Return) and n.value is not None and _graphy(model, n.value)
                              for n in nodes):
        return False
    for name, graph in _escaping_bindings(model, nodes).items():
        if graph and _read_later(model, unit, name, first, last):
            return False
    return True


def _scope_walk(node) -> Iterator[ast.AST]:
    """`ast.walk` that does not enter nested functions, lambdas and classes (it yields them)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and isinstance(current, SCOPE_TYPES):
            continue
        stack.extend(child_nodes(current))


def _graphy(model, expr) -> bool:
    return model.carries_graph(expr)


def _escaping_bindings(model, nodes) -> Dict[str, bool]:
    """Names the wrapped code binds or fills -> whether a graph may go into them."""
    out: Dict[str, bool] = {}

    def add(name: Optional[str], graph: bool) -> None:
        if name is not None:
            out[name] = out.get(name, False) or graph

    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in _leaves(target):
                    graph = _graphy(model, node.value) or _graphy(model, leaf)
                    add(_root_name(leaf), graph)
        elif isinstance(node, (ast.For, ast.comprehension)):
            for leaf in _leaves(node.target):
                add(_root_name(leaf), _graphy(model, leaf) or _graphy(model, node.iter))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            for leaf in _leaves(node.optional_vars):
                add(_root_name(leaf), True)
        elif isinstance(node, ast.NamedExpr):
            add(node.target.id, _graphy(model, node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _fills(node.func.attr):
            # `outputs.append(out)`, `self.cache.update(k=out)`: a graph goes into the receiver
            if any(_graphy(model, a) for a in [*node.args, *(k.value for k in node.keywords)]):
                add(_root_name(node.func.value), True)
    return out


def _fills(method: str) -> bool:
    """A method that stores its argument in its receiver (containers; in-place tensor ops)."""
    return method in _FILLING_METHODS or (method.endswith("_") and not method.startswith("_"))


def _leaves(target) -> List[ast.AST]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [leaf for elt in target.elts for leaf in _leaves(elt.value if isinstance(elt, ast.Starred) else elt)]
    return [target]


def _root_name(node) -> Optional[str]:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _read_later(model, unit, name: str, first: Position, last: Position) -> bool:
    """Is `name` read where a value bound between first and last may reach: after the
    wrapped code, or anywhere in a loop around it, without a rebinding in between?"""
    region_loops = None
    for node in _loads_by_name(model, unit).get(name, ()):
        if first <= _pos(node) and _end(node) <= last:
            continue
        if region_loops is None:
            region_loops = model.cached(("region_loops", unit, first), lambda: _loops_at(model, unit, first, last))
        loop = next((lp for lp in model.loops_around(node) if lp in region_loops), None)
        after = _pos(node) >= last
        if not after and loop is None:
            continue  # runs before the wrapped code and never after it
        if not _rebound_before(model, node, name, loop, None if not after else last):
            return True
    return False


def _loads_by_name(model, unit) -> Dict[str, List[ast.Name]]:
    """Every read of a name in `unit` (nested scopes included), by name, in walk order."""
    def compute():
        out: Dict[str, List[ast.Name]] = {}
        for node in walk(unit):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                out.setdefault(node.id, []).append(node)
        return out

    return model.cached(("region_loads_by_name", unit), compute)


def _loops_at(model, unit, first: Position, last: Position) -> List[ast.AST]:
    """The loops (of `unit`) around the wrapped code."""
    for node in walk(unit):
        if isinstance(node, ast.stmt) and _pos(node) == first:
            return model.loops_around(node)
    return []


def _rebound_before(model, read: ast.Name, name: str, loop, after: Optional[Position]) -> bool:
    """A plain rebinding of `name` that always runs before `read` (an earlier statement of
    a block around it, or the target of a `for` around it), inside `loop` when given, and
    after position `after` when given (so it runs after the wrapped code)."""
    node = model.statement_of(read)
    while True:
        parent = model.parent(node)
        if parent is None:
            return False
        if isinstance(parent, (ast.For, ast.AsyncFor)) and id(node) in _block_index(model, parent.body).positions and \
                name in {_root_name(x) for x in _leaves(parent.target) if isinstance(x, ast.Name)} and \
                (after is None or _pos(parent) >= after):
            return True
        for field in _BLOCK_FIELDS:
            block = getattr(parent, field, None)
            if not isinstance(block, list):
                continue
            index = _block_index(model, block)
            if id(node) in index.positions and index.rebinding_before(index.positions[id(node)], name, after):
                return True
        if parent is loop or isinstance(parent, FUNCTION_TYPES + (ast.Module, ast.Lambda, ast.ClassDef)):
            return False
        node = parent


def _rebound_names(stmt) -> List[str]:
    """The names `stmt` plainly rebinds: `name = <value not reading name>` (also in a tuple
    target)."""
    if isinstance(stmt, ast.Assign):
        targets, value = stmt.targets, stmt.value
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets, value = [stmt.target], stmt.value
    else:
        return []
    bound = [leaf.id for t in targets for leaf in _leaves(t) if isinstance(leaf, ast.Name)]
    if not bound:
        return []
    read = {n.id for n in walk(value) if isinstance(n, ast.Name)}
    return [name for name in bound if name not in read]
