"""`.env` text -> (name, value, line, column of the value) assignments.

The format Docker Compose and python-dotenv read: `NAME=value`, optionally `export NAME=value`,
values optionally quoted; `#` starts a comment on its own line or after a blank in an
unquoted value.
"""

from __future__ import annotations

import re
from typing import List, Tuple

_LINE = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)[ \t]*=[ \t]*")


def assignments(text: str) -> List[Tuple[str, str, int, int]]:
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        match = _LINE.match(line)
        if not match:
            continue
        raw = line[match.end():].rstrip("\r")
        col = match.end()
        if raw[:1] in ("'", '"'):
            end = raw.find(raw[0], 1)
            value = raw[1:end] if end > 0 else raw[1:]
            col += 1
        else:
            value = re.split(r"[ \t]+#", raw, maxsplit=1)[0].rstrip()
        out.append((match.group(1), value, number, col))
    return out
