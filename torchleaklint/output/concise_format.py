"""flake8-style lines: `path:line:col: CODE message`, with `[*]` (as ruff) when `--fix`
would fix the finding under the current flags (unsafe fixes count with `--unsafe-fixes`)."""

from __future__ import annotations


def fix_marker(d, unsafe_fixes: bool = False) -> str:
    fix = d.fix
    if fix is None or not (fix.safety == "safe" or (unsafe_fixes and fix.safety == "unsafe")):
        return ""
    return " [*]"


def position(d) -> str:
    """`line:col`, or `cell N:line:col` in a notebook (as ruff shows them)."""
    cell = getattr(d, "cell", None)
    return f"cell {cell}:{d.line}:{d.col}" if cell else f"{d.line}:{d.col}"


def line(d, show_fix_marker: bool = True, unsafe_fixes: bool = False) -> str:
    marker = fix_marker(d, unsafe_fixes) if show_fix_marker else ""
    return f"{d.path}:{position(d)}: {d.code}{marker} {d.message}"


def render(diagnostics, context=None) -> str:
    unsafe = bool((context or {}).get("unsafe_fixes"))
    return "".join(line(d, unsafe_fixes=unsafe) + "\n" for d in diagnostics)
