"""The data that flows from rules to output: findings, diagnostics and fix descriptions."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Optional, Tuple

SAFE = "safe"
UNSAFE = "unsafe"

# Severities. ERROR: memory grows on the device, or saved activations stay alive (a graph
# nothing back-propagates). WARNING: only graph nodes or host memory grow, or the cost is
# time (empty_cache), not memory.
ERROR = "error"
WARNING = "warning"


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
class Evidence:
    """One link of a finding's chain of facts, at a source position (1-based line, 1-based
    character column once positioned; rules give the ast node and the engine positions it)."""

    line: int
    col: int
    message: str


@dataclass(frozen=True)
class Step:
    """A link of the evidence chain as a rule states it: the node it rests on and what it proves."""

    node: ast.AST
    message: str


@dataclass(frozen=True)
class Finding:
    """What a rule reports: the node to point at, its message, an optional fix, how severe
    it is and the chain of facts (`Step`s, in order) the claim rests on."""

    node: ast.AST
    message: str
    fix: Optional[FixSpec] = None
    code: str = ""
    severity: str = WARNING
    evidence: Tuple[Step, ...] = ()
    # rules that report the same leak more specifically: where one of them (selected) has a
    # finding at the same statement, this one is dropped (one leak, one finding)
    superseded_by: Tuple[str, ...] = ()


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
    severity: str = field(default=ERROR, compare=False)
    evidence: Tuple[Evidence, ...] = field(default=(), compare=False)
    cell: Optional[int] = None  # in a notebook: the cell (1-based); `line` is then cell-relative

    @property
    def fix_available(self) -> bool:
        return self.fix is not None
