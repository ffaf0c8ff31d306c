"""`# noqa` and `# noqa: TLL001,TLL003` comments, parsed the way flake8 does."""

from __future__ import annotations

import re
from typing import Optional, Set

# flake8's own pattern (flake8/defaults.py): codes separated by commas and/or spaces.
NOQA = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z][0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_SEP = re.compile(r"[,\s]+")


def noqa_codes(line: str) -> Optional[Set[str]]:
    """None: no noqa. Empty set: a bare `# noqa` (everything). Otherwise the listed codes."""
    if "noqa" not in line.lower():
        return None
    match = NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return set()
    return {c.upper() for c in _SEP.split(codes.strip()) if c}


def suppressed(code: str, line: str) -> bool:
    codes = noqa_codes(line)
    if codes is None:
        return False
    return not codes or any(code.startswith(c) for c in codes)
