"""The data that flows from rules to output: findings, diagnostics and fix descriptions."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional, Tuple

SAFE = "safe"
UNSAFE = "unsafe"


@dataclass(frozen=True)
class Span:
    """A source range in `ast` coordinates: 1-based lines, 0-based UTF-8 *byte* columns,
    end exclusive (exactly `node.lineno, node.col_offset, node.end_lineno,
    node.end_col_offset`). The fixes package maps them onto libcst nodes."""

    line: int
    col: int
    end_line: int
    end_col: int

    @classmethod
    def of(cls, node: ast.AST) -> "Span":
        return cls(node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or 0)


@dataclass(frozen=True)
class FixSpec:
    """What a fix should do, described by a codemod name and the source span it targets.

    Rules only describe fixes; `torchleaklint.fixes` applies them with libcst, so analysis
    never pays for a lossless parse.
    """

    codemod: str
    safety: str
    title: str
    target: Span
    params: Tuple[Tuple[str, object], ...] = ()

    def param(self, key, default=None):
        return dict(self.params).get(key, default)


@dataclass(frozen=True)
class Finding:
    """What a rule reports: the node to point at, its message and an optional fix."""

    node: ast.AST
    message: str
    fix: Optional[FixSpec] = None
    code: str = ""


@dataclass(frozen=True, order=True)
class Diagnostic:
    """A finding positioned in a file: what every output format and the cache consume."""

    path: str
    line: int
    col: int  # 1-based, in characters, as flake8 reports
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: Optional[FixSpec] = field(default=None, compare=False)
    cell: Optional[int] = None  # in a notebook: the cell (1-based); `line` is then cell-relative

    @property
    def fix_available(self) -> bool:
        return self.fix is not None
