"""Text edits: the fixes of environment rules (and of TLL102 in Python), applied at known
positions so everything else in the file (comments, quoting, layout) stays byte for byte.

A `text_edit` FixSpec targets one line: `target` is (line, start column, line, end column)
in characters, 0-based columns, end exclusive; params `expected` (the text that must be
there, or the edit is skipped: a stale position never corrupts a file) and `replacement`.
"""

from __future__ import annotations

import re
from typing import Optional, Sequence

_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")


def apply_text_edits(text: str, specs: Sequence, python: bool = False) -> Optional[str]:
    """`text` with the edits applied (last first, so positions stay valid); None when no
    edit applied, or (Python) when the result would not parse."""
    parts = _LINE_BREAK.split(text)
    lines, breaks = parts[0::2], parts[1::2]
    applied = False
    done = set()
    for spec in sorted(specs, key=lambda s: (s.target.line, s.target.col), reverse=True):
        target = spec.target
        key = (target.line, target.col, target.end_col)
        if key in done or not 0 < target.line <= len(lines) or target.line != target.end_line:
            continue
        line = lines[target.line - 1]
        if line[target.col:target.end_col] != spec.param("expected"):
            continue
        lines[target.line - 1] = line[:target.col] + spec.param("replacement") + line[target.end_col:]
        done.add(key)
        applied = True
    if not applied:
        return None
    new = "".join(line + (breaks[i] if i < len(breaks) else "") for i, line in enumerate(lines))
    if python:
        from torchleaklint.fixes import parses  # the check every fix's output passes

        if not parses(new):
            return None
    return new
