"""`--statistics`: how many findings of each rule, most frequent first (ruff's shape)."""

from __future__ import annotations

import json
from collections import Counter
from typing import List, Tuple

from torchleaklint.output.rule_info import rule_name


def counts(diagnostics) -> List[Tuple[str, int, int]]:
    """(code, count, fixable count), most frequent first, then by code."""
    total = Counter(d.code for d in diagnostics)
    fixable = Counter(d.code for d in diagnostics if d.fix is not None and d.fix.safety == "safe")
    return sorted(((code, n, fixable[code]) for code, n in total.items()), key=lambda row: (-row[1], row[0]))


def render(diagnostics, output_format: str = "concise") -> str:
    rows = counts(diagnostics)
    if output_format == "json":
        return json.dumps([{"code": code, "name": rule_name(code), "count": n, "fixable": fixable}
                           for code, n, fixable in rows], indent=2) + "\n"
    if not rows:
        return ""
    width = max(len(str(n)) for _, n, _ in rows)
    return "".join(f"{n:>{width}}  {code}  {rule_name(code)}\n" for code, n, _ in rows)
