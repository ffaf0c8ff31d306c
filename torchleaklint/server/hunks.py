"""The difference between a buffer and its fixed text, as whole-line edits.

The fixes package returns the whole fixed source; an editor wants small edits (so the
cursor, folds and undo history stay where they were). Edits replace whole lines, so their
positions are at column 0 and need no conversion between UTF-8, UTF-16 and code points.
"""

from __future__ import annotations

import difflib
from typing import List, Tuple

from torchleaklint.server.cells import split_lines

Hunk = Tuple[int, int, str]  # replace old lines [first, end) (0-based) by this text


def line_hunks(old: str, new: str) -> List[Hunk]:
    """The edits that turn `old` into `new`, in document order, not overlapping."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    prefix = 0
    while prefix < min(len(old_lines), len(new_lines)) and old_lines[prefix] == new_lines[prefix]:
        prefix += 1
    suffix = 0
    while (suffix < min(len(old_lines), len(new_lines)) - prefix
           and old_lines[-1 - suffix] == new_lines[-1 - suffix]):
        suffix += 1
    old_middle = old_lines[prefix:len(old_lines) - suffix]
    new_middle = new_lines[prefix:len(new_lines) - suffix]
    matcher = difflib.SequenceMatcher(None, old_middle, new_middle, autojunk=False)
    hunks = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            hunks.append((prefix + i1, prefix + i2, "".join(new_middle[j1:j2])))
    return hunks


def apply_hunks(old: str, hunks: List[Hunk]) -> str:
    """`old` with `hunks` applied (the inverse of `line_hunks`; used to check it)."""
    lines = split_lines(old)
    for first, end, text in sorted(hunks, reverse=True):
        lines[first:end] = [text]
    return "".join(lines)
