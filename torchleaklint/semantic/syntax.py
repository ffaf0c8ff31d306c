"""Small questions about syntax that rules and the semantic layer share."""

from __future__ import annotations

import ast
from typing import Optional


def keyword_arg(call: ast.Call, name: str) -> Optional[ast.AST]:
    """The value passed as `name=` to `call`, or None."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def is_staticmethod(func: ast.AST) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)


def short_source(node: ast.AST, limit: int = 40) -> str:
    """The node's source, cut to `limit` characters for a message."""
    text = ast.unparse(node)
    return text if len(text) <= limit else text[:limit - 3] + "..."
