"""flake8-style lines: `path:line:col: CODE message`, with `[*]` when a fix is available."""

from __future__ import annotations


def line(d, show_fix_marker: bool = True) -> str:
    marker = ""
    if show_fix_marker and d.fix is not None:
        marker = " [*]" if d.fix.safety == "safe" else " [*unsafe]"
    return f"{d.path}:{d.line}:{d.col}: {d.code}{marker} {d.message}"


def render(diagnostics, context=None) -> str:
    return "".join(line(d) + "\n" for d in diagnostics)
