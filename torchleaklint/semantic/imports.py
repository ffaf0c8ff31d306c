"""Resolve local names to qualified names: `th.cuda.empty_cache` -> `torch.cuda.empty_cache`."""

from __future__ import annotations

import ast
from typing import Dict, Optional


class ImportTable:
    """Every import of a module, flow-insensitively (imports inside functions count too)."""

    def __init__(self) -> None:
        self.aliases: Dict[str, str] = {}

    def add(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.aliases[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

    def qualname(self, expr: ast.AST) -> Optional[str]:
        """The dotted qualified name of a Name/Attribute chain rooted in an import, or None."""
        name = dotted(expr)
        if name is None:
            return None
        head, dot, rest = name.partition(".")
        root = self.aliases.get(head)
        if root is None:
            return None
        return root + dot + rest


def dotted(expr: ast.AST) -> Optional[str]:
    """`a.b.c` as a string for a plain Name/Attribute chain, else None (no import resolution)."""
    kind = type(expr)  # (asked about half a million times a run: a name and `a.b` answer at once)
    if kind is ast.Name:
        return expr.id
    if kind is ast.Attribute and type(expr.value) is ast.Name:
        return expr.value.id + "." + expr.attr
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))
