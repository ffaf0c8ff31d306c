"""`remove_noqa_codes` (TLL902): drop unused codes from a `# noqa:` comment.

`# noqa: TLL001, E501` with TLL001 unused becomes `# noqa: E501`; `x = f()  # noqa: TLL001`
becomes `x = f()`; text after the directive (`# noqa: TLL001  # why`) stays as a comment.
Only the comment of the target line changes, so the edit is made on the text (libcst keeps
a trailing comment as an opaque string anyway) and the module reparsed.
"""

from __future__ import annotations

import re
from typing import Sequence

import libcst as cst

from torchleaklint.diagnostics import FixSpec
from torchleaklint.noqa import NOQA, _SEP

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_END = re.compile(r"(\r\n|\r|\n)?$")


def apply(module: cst.Module, specs: Sequence[FixSpec]) -> cst.Module:
    lines = _LINE.findall(module.code)
    changed = False
    for spec in specs:
        index = spec.target.line - 1
        if 0 <= index < len(lines):
            new = edit_line(lines[index], int(spec.param("col", 0)), set(spec.param("codes", ())))
            changed = changed or new != lines[index]
            lines[index] = new
    return cst.parse_module("".join(lines)) if changed else module


def edit_line(line: str, col: int, unused: set) -> str:
    ending = _END.search(line).group(0)
    body = line[:len(line) - len(ending)]
    match = NOQA.search(body, col)
    if match is None or not match.group("codes"):
        return line
    codes = [c for c in _SEP.split(match.group("codes").strip()) if c]
    kept = [c for c in codes if c.upper() not in unused]
    after = body[match.end():]
    if kept:
        separator = match.group(0)[len("# noqa"):match.start("codes") - match.start()]  # `:` or `: `
        return body[:match.start()] + match.group(0)[:len("# noqa")] + separator + ", ".join(kept) + \
            (" " if after and not after[0].isspace() else "") + after + ending
    before = body[:match.start()]
    rest = after.strip()
    if match.start() > col:  # the directive follows other comment text: `# type: ignore  # noqa: X`
        return before.rstrip() + (" " + rest if rest else "") + ending
    if not rest:
        return body[:col].rstrip() + ending
    return body[:col] + (rest if rest.startswith("#") else "# " + rest) + ending
