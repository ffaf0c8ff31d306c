"""flake8-style lines: `path:line:col: CODE message`, with `[*]` when a fix is available."""

from __future__ import annotations


def fix_marker(d) -> str:
    """` [*]` for a safe fix, ` [*unsafe]` for an unsafe one, else nothing."""
    if d.fix is None:
        return ""
    return " [*]" if d.fix.safety == "safe" else " [*unsafe]"


def line(d, show_fix_marker: bool = True) -> str:
    marker = fix_marker(d) if show_fix_marker else ""
    return f"{d.path}:{d.line}:{d.col}: {d.code}{marker} {d.message}"


def render(diagnostics, context=None) -> str:
    return "".join(line(d) + "\n" for d in diagnostics)
