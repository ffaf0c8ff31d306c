"""`detach_stored_state` (TLL002): store the state detached, keep returning the live value.

target: the `self.<attr> = <value>` (or `self.<attr> op= <value>`) statement;
params: `attribute`.

- `self.y = next_y` -> `self.y = next_y.detach()`, and reads of `self.y` later in the
  same method (`return self.y`) become `next_y`: the caller still gets a value that
  carries gradient, only the state kept for the next step is cut from the graph (the
  seed-000 plant shape). A read is replaced only while `next_y` is certainly still the
  stored value: the scan stops at a statement that rebinds `next_y`, reassigns the
  attribute, or calls something that could (`self.m(...)`, `f(self)`).
- Any other value (`self.h = torch.tanh(...)`) or an augmented assignment: rewritten to
  `self.h = (...).detach()` / `self.a = (self.a + x).detach()` (out of place, so no
  in-place update of a tensor autograd may have saved) only when the method does not read
  the attribute again afterwards.
- In a tuple assignment with a tuple value (`self.s, self.last = s_new, code`), the same
  rules apply to each element that stores the attribute.
- Otherwise (a read that cannot be redirected, e.g. after the `if` that holds the
  assignment or inside a nested function) no fix: detaching would silently cut the
  gradient the caller relies on.

Unsafe: gradients no longer flow from one step into the previous steps' computation
through this attribute (that is the point, but it changes training).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from torchleaklint.diagnostics import FixSpec
from torchleaklint.fixes.edit import method_call, parenthesized
from torchleaklint.fixes.locate import Locator

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def apply(module: cst.Module, specs: Sequence[FixSpec]) -> cst.Module:
    locator = Locator(module)
    statements: Dict[cst.CSTNode, cst.CSTNode] = {}
    reads: Dict[cst.CSTNode, cst.CSTNode] = {}
    elements: Dict[cst.Assign, set] = {}  # `self.a, self.b = x, y`: the elements to detach
    for spec in specs:
        element = _plan_tuple_element(locator, spec)
        if element is not None:
            stmt, index, redirected = element
            elements.setdefault(stmt, set()).add(index)
            reads.update(redirected)
            continue
        plan = _plan(module, locator, spec)
        if plan is not None:
            stmt, replacement, redirected = plan
            statements[stmt] = replacement
            reads.update(redirected)
    for stmt, indices in elements.items():
        if stmt not in statements:
            values = [el.with_changes(value=method_call(el.value, "detach")) if i in indices else el
                      for i, el in enumerate(stmt.value.elements)]
            statements[stmt] = stmt.with_changes(value=stmt.value.with_changes(elements=values))
    if not statements:
        return module
    return module.visit(_Rewrite(statements, reads))


def _plan_tuple_element(locator: Locator, spec: FixSpec):
    """`self.s, self.last = s_new, code`: (statement, index of the element that stores the
    attribute, reads to redirect), under the same conditions as a single assignment."""
    stmt = locator.find(spec.target, cst.Assign)
    if stmt is None or len(stmt.targets) != 1 or not isinstance(stmt.targets[0].target, cst.Tuple) \
            or not isinstance(stmt.value, cst.Tuple):
        return None
    targets, values = stmt.targets[0].target.elements, stmt.value.elements
    if len(targets) != len(values) or any(isinstance(e, cst.StarredElement) for e in (*targets, *values)):
        return None
    index = next((i for i, t in enumerate(targets) if _is_self_attribute(t.value, spec.param("attribute"))), None)
    func = locator.enclosing(stmt, cst.FunctionDef)
    later = _later_statements(locator, stmt, func) if func is not None and index is not None else None
    if later is None:
        return None
    same_block, outer = later
    target, value = targets[index].value, values[index].value
    key = (target.value.value, target.attr.value)
    if isinstance(value, cst.Name):
        redirected = _redirectable_reads(same_block, key, value.value)
        if redirected is None or _reads(outer, key):
            return None
        return stmt, index, {read: cst.Name(value.value) for read in redirected}
    if _reads(same_block, key) or _reads(outer, key):
        return None
    return stmt, index, {}


def _plan(module, locator: Locator, spec: FixSpec):
    stmt = locator.find(spec.target, (cst.Assign, cst.AugAssign))
    if stmt is None:
        return None
    target = stmt.targets[0].target if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 else \
        getattr(stmt, "target", None)
    if not _is_self_attribute(target, spec.param("attribute")):
        return None
    func = locator.enclosing(stmt, cst.FunctionDef)
    if func is None:
        return None
    later = _later_statements(locator, stmt, func)
    if later is None:
        return None
    same_block, outer = later
    key = (target.value.value, target.attr.value)
    if isinstance(stmt, cst.Assign) and isinstance(stmt.value, cst.Name):
        name = stmt.value.value
        redirected = _redirectable_reads(same_block, key, name)
        if redirected is None or _reads(outer, key):
            return None
        replacement = stmt.with_changes(value=method_call(stmt.value, "detach"))
        return stmt, replacement, {read: cst.Name(name) for read in redirected}
    if _reads(same_block, key) or _reads(outer, key):
        return None
    if isinstance(stmt, cst.AugAssign):
        operator = module.code_for_node(stmt.operator).strip()[:-1]
        value = cst.parse_expression(f"{module.code_for_node(target)} {operator} "
                                     f"{module.code_for_node(parenthesized(stmt.value))}")
        replacement = cst.Assign(targets=[cst.AssignTarget(target)], value=method_call(value, "detach"),
                                 semicolon=stmt.semicolon)
        return stmt, replacement, {}
    return stmt, stmt.with_changes(value=_detached(stmt.value)), {}


def _detached(value: cst.BaseExpression) -> cst.BaseExpression:
    """`x.detach()`; a list or tuple display detached element by element (`[a1, a2]` has no
    `.detach()`: `[a1.detach(), a2.detach()]`)."""
    if isinstance(value, (cst.List, cst.Tuple)) and value.elements and \
            all(isinstance(e, cst.Element) for e in value.elements):
        return value.with_changes(elements=[e.with_changes(value=method_call(e.value, "detach"))
                                            for e in value.elements])
    return method_call(value, "detach")


def _is_self_attribute(node, attribute) -> bool:
    return (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
            and (attribute is None or node.attr.value == attribute))


def _later_statements(locator: Locator, stmt, func) -> Optional[Tuple[List, List]]:
    """Statements that run after `stmt` in the same call of `func`: its following siblings
    (same block) and the statements following each enclosing compound statement."""
    line = locator.parent(stmt)
    if not isinstance(line, cst.SimpleStatementLine):
        return None
    line_body = list(line.body)
    same_block = line_body[line_body.index(stmt) + 1:]
    outer: List[cst.CSTNode] = []
    node = line
    first = True
    for ancestor in locator.ancestors(line):
        if isinstance(ancestor, (cst.IndentedBlock, cst.Module)):
            body = list(ancestor.body)
            following = body[body.index(node) + 1:] if node in body else []
            (same_block if first else outer).extend(following)
            first = False
        if ancestor is func:
            return same_block, outer
        if isinstance(ancestor, _SCOPES):
            return None
        node = ancestor
    return None


def _redirectable_reads(statements, key, name) -> Optional[List[cst.CSTNode]]:
    """Reads of `self.<attr>` in `statements` that certainly see `name`'s value, or None
    when some later read cannot be redirected."""
    found: List[cst.CSTNode] = []
    for index, stmt in enumerate(statements):
        scan = _Scan(key, name)
        stmt.visit(scan)
        if scan.reassigned and not scan.blocked_other and not scan.reads and not scan.reads_in_scope:
            return found  # later reads see the new value, not ours
        if scan.blocked_other or scan.reads_in_scope:
            unsure = scan.reads or scan.reads_in_scope or _reads(statements[index + 1:], key)
            return None if unsure else found
        found.extend(scan.reads)
    return found


def _reads(statements, key) -> bool:
    for stmt in statements:
        scan = _Scan(key, None)
        stmt.visit(scan)
        if scan.reads or scan.reads_in_scope or scan.reassigned:
            return True
    return False


class _Scan(cst.CSTVisitor):
    """Reads of `self.<attr>` in one statement, and whether the statement may change what
    `self.<attr>` or `name` refer to."""

    def __init__(self, key, name):
        super().__init__()
        self.key, self.name = key, name
        self.reads: List[cst.CSTNode] = []
        self.reads_in_scope = False
        self.reassigned = False
        self.blocked_other = False
        self._depth = 0
        self._stores = set()

    @property
    def blocked(self) -> bool:
        return self.reassigned or self.blocked_other

    def _matches(self, node) -> bool:
        return (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
                and (node.value.value, node.attr.value) == self.key)

    def visit_FunctionDef(self, node):
        self._depth += 1

    def leave_FunctionDef(self, node):
        self._depth -= 1

    def visit_Lambda(self, node):
        self._depth += 1

    def leave_Lambda(self, node):
        self._depth -= 1

    def visit_AssignTarget(self, node):
        self._store(node.target)

    def visit_AugAssign(self, node):
        if self._matches(node.target):
            self.blocked_other = True  # reads the stored value and keeps it: not redirectable
        self._store(node.target)

    def visit_AnnAssign(self, node):
        self._store(node.target)

    def visit_For(self, node):
        self._store(node.target)

    def visit_AsName(self, node):
        self._store(node.name)

    def visit_NamedExpr(self, node):
        self._store(node.target)

    def visit_Del(self, node):
        self._store(node.target)

    def _store(self, target):
        for node in _flatten(target):
            self._stores.add(node)
            if self._matches(node):
                self.reassigned = True
            elif isinstance(node, cst.Name) and node.value == self.name:
                self.blocked_other = True

    def visit_Call(self, node):
        owner = self.key[0]
        func = node.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == owner:
            self.blocked_other = True
        if any(isinstance(a.value, cst.Name) and a.value.value == owner for a in node.args):
            self.blocked_other = True

    def visit_Attribute(self, node):
        if self._matches(node):
            if self._depth:
                self.reads_in_scope = True
            elif node not in self._stores:
                self.reads.append(node)


def _flatten(target):
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _flatten(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from _flatten(target.value)
    else:
        yield target


class _Rewrite(cst.CSTTransformer):
    def __init__(self, statements, reads):
        super().__init__()
        self.statements, self.reads = statements, reads

    def on_leave(self, original, updated):
        if original in self.statements:
            return self.statements[original]
        if original in self.reads:
            return self.reads[original].with_changes(lpar=updated.lpar, rpar=updated.rpar)
        return updated
