"""Read the expectations written inside fixture files.

`# expect: TLL001` (or `# expect: TLL001, TLL002`) at the end of a line: a finding of that
code must be reported on that line. `# ok: TLL001`: it must not (documents a near miss).
The same markers work as YAML/shell comments in environment fixtures; a comment line that
ends with `(next line)` marks the line below it (a Dockerfile instruction cannot carry one).
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
        if line.lstrip().startswith("#") and line.rstrip().endswith("(next line)"):
            lineno += 1  # Dockerfiles have no trailing comments: a comment line marks the next
        for kind, codes in _MARKER.findall(line):
            for code in re.findall(r"TLL\d{3}", codes):
                (expected if kind == "expect" else ok).add((lineno, code))
    return expected, ok


def fixture_files():
    # known_leaks/ and blind_cases/ are measurement sets (recall, look-alike rate):
    # tests/test_known_leaks.py, benchmarks/blind_cases.py
    # <rule>/projects/<name>/ are multi-module projects, linted as a whole: tests/test_project_fixtures.py
    return sorted(p for p in FIXTURES.rglob("*.py") if ".fixed." not in p.name
                  and "fix_cases" not in p.parts and "known_leaks" not in p.parts and "blind_cases" not in p.parts
                  and "projects" not in p.parts)


def project_fixtures():
    """`fixtures/<rule>/projects/<name>/`: one small project each (its own pyproject.toml)."""
    return sorted(p for p in FIXTURES.glob("tll*/projects/*") if p.is_dir())


def environment_fixture_files():
    """Compose/Kubernetes/CI YAML, Dockerfiles, shell scripts and .env fixtures (TLL101-TLL102)."""
    from torchleaklint.environment import environment_kind

    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and environment_kind(p.name) is not None
                  and ".fixed." not in p.name and "fix_cases" not in p.parts)
