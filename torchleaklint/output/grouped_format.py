"""ruff's `grouped` format: a header per file, then `line:col CODE message` under it."""

from __future__ import annotations

from typing import Dict, List

from torchleaklint.output.concise_format import fix_marker, position


def _group(path, diagnostics, unsafe_fixes: bool) -> str:
    positions = [position(d) for d in diagnostics]
    width = max(len(p) for p in positions)
    body = "".join(f"  {pos.ljust(width)} {d.code}{fix_marker(d, unsafe_fixes)} {d.message}\n"
                   for pos, d in zip(positions, diagnostics))
    return f"{path}:\n{body}\n"


def render(diagnostics, context=None) -> str:
    by_path: Dict[str, List] = {}
    for d in diagnostics:
        by_path.setdefault(d.path, []).append(d)
    unsafe = bool((context or {}).get("unsafe_fixes"))
    return "".join(_group(path, group, unsafe) for path, group in by_path.items())
