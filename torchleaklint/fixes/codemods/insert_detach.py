"""`insert_detach` (TLL008): detach the carried state at the top of the loop body.

target: the loop; params: `name` (the carried state), `tuple_size` (0: one tensor; n: a
tuple of n tensors, as an LSTM's `(h, c)`; -1: either, the analysis cannot tell), or `names`
when several names are carried together (`out, (h, c) = model(x, (h, c))`: each gets its own
line, and each must be bound before the loop).

Inserts `name = name.detach()` (tuple: `name = tuple(t.detach() for t in name)`; either:
`name = name.detach() if hasattr(name, "detach") else tuple(t.detach() for t in name)`) as
the first statement of the body. When the state may be None before the first iteration (a
`name = None` before the loop) the statement is guarded
with `if name is not None:`; so is a function parameter, whose caller may pass None. When `name` is not certainly bound before the loop (it is
first assigned inside it), no fix: the inserted line would raise NameError.

Unsafe: gradients stop flowing into earlier iterations (truncated back-propagation),
which is what the user almost always wants, but it changes training.
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from torchleaklint.diagnostics import FixSpec
from torchleaklint.fixes.edit import statement
from torchleaklint.fixes.locate import Locator


def apply(module: cst.Module, specs: Sequence[FixSpec]) -> cst.Module:
    locator = Locator(module)
    inserts = {}
    for spec in specs:
        loop = locator.find(spec.target, (cst.For, cst.While))
        names = spec.param("names")
        if names:  # several names carried together (`out, (h, c) = model(x, (h, c))`)
            group = [(n, 0) for n in names]
        else:
            group = [(spec.param("name"), int(spec.param("tuple_size", 0) or 0))]
        if loop is None or not isinstance(loop.body, cst.IndentedBlock) or \
                not all(isinstance(n, str) and n.isidentifier() for n, _ in group) or \
                any(_already_detached(loop, n) for n, _ in group):
            continue
        found = [_binding_before(locator, loop, n) for n, _ in group]
        if None in found:
            continue
        for (name, size), before in zip(group, found):
            code = _detach_code(name, size)
            if before == "maybe-none":
                code = f"if {name} is not None:\n    {code}"
            inserts.setdefault(loop, []).append(statement(code + "\n", module))
    if not inserts:
        return module
    return module.visit(_Insert(inserts))


def _detach_code(name: str, tuple_size: int) -> str:
    if tuple_size < 0:  # a tensor or a tuple of tensors (an LSTM's `(h, c)`): the code does not say
        return f"{name} = {name}.detach() if hasattr({name}, \"detach\") else tuple(t.detach() for t in {name})"
    if tuple_size:
        return f"{name} = tuple(t.detach() for t in {name})"
    return f"{name} = {name}.detach()"


def _already_detached(loop, name: str) -> bool:
    first = loop.body.body[0] if loop.body.body else None
    code = cst.Module(body=[first]).code if first is not None else ""
    return f"{name} = {name}.detach()" in code or f"for t in {name})" in code


def _binding_before(locator: Locator, loop, name: str) -> Optional[str]:
    """"bound", "maybe-none", or None when no binding before the loop is certain: the
    statements preceding the loop in its block and in every enclosing block, then the
    function's parameters."""
    node = loop
    for ancestor in locator.ancestors(loop):
        if isinstance(ancestor, (cst.IndentedBlock, cst.Module)):
            body = list(ancestor.body)
            if node in body:
                found = _last_binding(body[: body.index(node)], name)
                if found is not None:
                    return found
        if isinstance(ancestor, cst.FunctionDef):
            return _parameter(ancestor, name)
        if isinstance(ancestor, (cst.ClassDef, cst.Lambda)):
            return None
        node = ancestor
    return None


def _last_binding(statements, name: str) -> Optional[str]:
    """Only straight-line `name = value` statements count (not ones inside an `if`)."""
    result = None
    for stmt in statements:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and any(_binds(t.target, name) for t in small.targets):
                result = "maybe-none" if _may_be_none(small.value) else "bound"
    return result


def _binds(target, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_binds(e.value, name) for e in target.elements)
    return False


def _may_be_none(value) -> bool:
    return isinstance(value, cst.Name) and value.value == "None" or isinstance(value, cst.IfExp)


def _parameter(func: cst.FunctionDef, name: str) -> Optional[str]:
    params = func.params
    for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
        if param.name.value == name:
            return "maybe-none" if param.default is None or _may_be_none(param.default) else "bound"
    return None


class _Insert(cst.CSTTransformer):
    def __init__(self, inserts):
        super().__init__()
        self.inserts = inserts

    def leave_For(self, original, updated):
        return self._insert(original, updated)

    def leave_While(self, original, updated):
        return self._insert(original, updated)

    def _insert(self, original, updated):
        new = self.inserts.get(original)
        if not new:
            return updated
        body = updated.body
        return updated.with_changes(body=body.with_changes(body=[*new, *body.body]))
