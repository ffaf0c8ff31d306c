"""A JSON array of findings, one object per diagnostic (schema documented in README.md).

The schema is stable: fields are only ever added, never renamed or removed.
"""

from __future__ import annotations

import json


def as_dict(d) -> dict:
    return {
        "path": d.path,
        "line": d.line,
        "column": d.col,
        # File-level diagnostics (TLL900) have no range: the end is the start.
        "end_line": d.end_line or d.line,
        "end_column": d.end_col if d.end_line else d.col,
        "code": d.code,
        "message": d.message,
        "fix_available": d.fix is not None,
        "fix_safety": d.fix.safety if d.fix is not None else None,
        "fix_title": d.fix.title if d.fix is not None else None,
        "severity": d.severity,
        "evidence": [{"line": e.line, "column": e.col, "message": e.message} for e in d.evidence],
        # In a notebook: the cell (1-based, counting every cell); line and column are then
        # relative to the cell, as in ruff's JSON. None for other files.
        "cell": getattr(d, "cell", None),
    }


def render(diagnostics, context=None) -> str:
    return json.dumps([as_dict(d) for d in diagnostics], indent=2, ensure_ascii=False) + "\n"
