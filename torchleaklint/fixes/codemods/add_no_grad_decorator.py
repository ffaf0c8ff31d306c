"""`add_no_grad_decorator` (TLL006): put `@torch.no_grad()` on an evaluation function.

params: `torch_alias`, the name the module binds torch to (`torch`, `th`), or None, in
which case `import torch` is added after the docstring and `__future__` imports.

The decorator goes directly above `def`, below existing decorators: decorators apply
bottom-up, so `@staticmethod` / `@property` keep wrapping a plain function. Async
functions are left alone: `no_grad()` as a decorator would only cover creating the
coroutine, not running it. Safe when the function computes no gradients, which the rule
checks before offering the fix.
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from torchleaklint.diagnostics import FixSpec
from torchleaklint.fixes.edit import statement
from torchleaklint.fixes.locate import Locator

_GRAD_OFF = frozenset({"no_grad", "inference_mode", "set_grad_enabled"})


def apply(module: cst.Module, specs: Sequence[FixSpec]) -> cst.Module:
    locator = Locator(module)
    targets = {}
    for spec in specs:
        node = locator.find(spec.target, cst.FunctionDef)
        if node is None or node.asynchronous is not None or _already_off(node):
            continue
        alias = spec.param("torch_alias")
        targets[node] = alias if isinstance(alias, str) and alias.isidentifier() else None
    if not targets:
        return module
    needs_import = any(alias is None for alias in targets.values())
    module = module.visit(_Decorate({node: alias or "torch" for node, alias in targets.items()}))
    return add_import_torch(module) if needs_import else module


def _already_off(func: cst.FunctionDef) -> bool:
    for decorator in func.decorators:
        expr = decorator.decorator
        if isinstance(expr, cst.Call):
            expr = expr.func
        if isinstance(expr, (cst.Attribute, cst.Name)) and _last_name(expr) in _GRAD_OFF:
            return True
    return False


def _last_name(expr) -> str:
    return expr.attr.value if isinstance(expr, cst.Attribute) else expr.value


class _Decorate(cst.CSTTransformer):
    def __init__(self, targets):
        super().__init__()
        self.targets = targets

    def leave_FunctionDef(self, original, updated):
        alias = self.targets.get(original)
        if alias is None:
            return updated
        decorator = cst.Decorator(decorator=cst.parse_expression(f"{alias}.no_grad()"))
        return updated.with_changes(decorators=[*updated.decorators, decorator])


def add_import_torch(module: cst.Module) -> cst.Module:
    """`import torch` after the module docstring and `from __future__` imports, unless a
    top-level `import torch` is already there."""
    position = 0
    for index, stmt in enumerate(module.body):
        if _imports_torch(stmt):
            return module
        if _is_docstring(stmt, index) or _is_future_import(stmt):
            position = index + 1
    new = statement("import torch\n", module)
    body = list(module.body)
    if position < len(body):
        # The blank lines that separated the docstring from what follows now separate it
        # from the import; comments stay with the statement they describe.
        after = body[position]
        blanks = _leading_blanks(after.leading_lines)
        new = new.with_changes(leading_lines=after.leading_lines[:blanks])
        body[position] = after.with_changes(leading_lines=after.leading_lines[blanks:])
    return module.with_changes(body=[*body[:position], new, *body[position:]])


def _leading_blanks(lines) -> int:
    count = 0
    for line in lines:
        if line.comment is not None:
            break
        count += 1
    return count


def _small(stmt) -> Optional[cst.BaseSmallStatement]:
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def _imports_torch(stmt) -> bool:
    small = _small(stmt)
    return isinstance(small, cst.Import) and any(
        a.asname is None and isinstance(a.name, cst.Name) and a.name.value == "torch" for a in small.names)


def _is_docstring(stmt, index: int) -> bool:
    small = _small(stmt)
    return index == 0 and isinstance(small, cst.Expr) and isinstance(
        small.value, (cst.SimpleString, cst.ConcatenatedString))


def _is_future_import(stmt) -> bool:
    small = _small(stmt)
    return isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) \
        and small.module.value == "__future__"
