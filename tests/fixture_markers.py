"""Read the expectations written inside fixture files.

`# expect: TLL001` (or `# expect: TLL001, TLL002`) at the end of a line: a finding of that
code must be reported on that line. `# ok: TLL001`: it must not (documents a near miss).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Set, Tuple

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_MARKER = re.compile(r"#\s*(expect|ok):\s*((?:TLL\d{3}[,\s]*)+)")


def markers(path: Path) -> Tuple[Set[Tuple[int, str]], Set[Tuple[int, str]]]:
    expected, ok = set(), set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for kind, codes in _MARKER.findall(line):
            for code in re.findall(r"TLL\d{3}", codes):
                (expected if kind == "expect" else ok).add((lineno, code))
    return expected, ok


def fixture_files():
    # known_leaks/ and blind_cases/ are measurement sets (recall, look-alike rate):
    # tests/test_known_leaks.py, benchmarks/blind_cases.py
    return sorted(p for p in FIXTURES.rglob("*.py") if ".fixed." not in p.name
                  and "fix_cases" not in p.parts and "known_leaks" not in p.parts and "blind_cases" not in p.parts)
