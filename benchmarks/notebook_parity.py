#!/usr/bin/env python3
"""Run Python files as notebooks: each file is turned into a notebook (one code cell per
top-level statement group, markdown cells, outputs and metadata around them, as
tests/notebook_maker.py builds them) and must give the same findings at cell positions;
with --fix, `--fix --unsafe-fixes` on the notebook must give, cell by cell, the code that
fixing the .py file gives, as valid nbformat 4, and a second fix must change nothing.

    python benchmarks/notebook_parity.py fixtures/ [--fix]
    python benchmarks/notebook_parity.py /work/corpus --fix --limit 2000

Needs nbformat (the `test` extra). Prints one line per mismatch and a summary; exit 1 when
anything differs.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import nbformat  # noqa: E402

from notebook_maker import cell_sources, cells_of, code_cell_numbers, notebook_of, statement_groups, write  # noqa: E402
from torchleaklint.config import Settings  # noqa: E402
from torchleaklint.discovery import discover  # noqa: E402
from torchleaklint.engine import lint_source  # noqa: E402
from torchleaklint.fixes import fix_text  # noqa: E402


def as_notebook(source: str):
    groups = statement_groups(source)
    nb = notebook_of(cells_of(source))
    numbers = code_cell_numbers(nb)

    def position(line: int):
        k = max(i for i, (first, _) in enumerate(groups) if first <= line)
        return numbers[k], line - groups[k][0] + 1

    return write(nb), position


def expected_findings(source: str, name: str, position):
    def message(text: str, cell: int) -> str:
        def replace(match):
            other, line = position(int(match.group(1)))
            return f"line {line}" if other == cell else f"line {line} of cell {other}"
        return re.sub(r"\bline (\d+)\b", replace, text)

    out = []
    for d in lint_source(source, name, Settings()):
        if d.code == "TLL900":
            continue
        cell, line = position(d.line)
        out.append((cell, line, d.col, d.code, message(d.message, cell)))
    return sorted(out)


def check_file(path: str, fix: bool) -> list:
    """Mismatches (strings) for one file; [] when the notebook behaves like the file."""
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        source = raw.decode("utf-8")
        text, position = as_notebook(source)
    except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError):
        return []  # not a file the comparison can use (the .py itself gives TLL900)
    py_name, nb_name = path, os.path.splitext(path)[0] + ".ipynb"
    expected = expected_findings(source, py_name, position)
    found = sorted((d.cell, d.line, d.col, d.code, d.message) for d in lint_source(text.encode(), nb_name, Settings())
                   if d.code != "TLL900")
    problems = [f"{path}: findings differ: only .py {sorted(set(expected) - set(found))[:3]}, "
                f"only notebook {sorted(set(found) - set(expected))[:3]}"] if found != expected else []
    if fix and expected and not problems:
        problems += _check_fix(path, source, text, py_name, nb_name)
    return problems


def _check_fix(path, source, text, py_name, nb_name) -> list:
    py_fixed = fix_text(source, py_name, Settings(), unsafe=True).text
    nb_fixed = fix_text(text, nb_name, Settings(), unsafe=True).text
    if py_fixed == source:
        return [] if nb_fixed == text else [f"{path}: notebook changed where the .py file did not"]
    try:
        nbformat.validate(nbformat.reads(nb_fixed, as_version=4))
    except Exception as exc:  # nbformat's ValidationError or a JSON error
        return [f"{path}: fixed notebook is not valid nbformat: {exc}"]
    if cell_sources(nb_fixed) != cells_of(py_fixed):
        return [f"{path}: fixed cells differ from the fixed .py file"]
    if fix_text(nb_fixed, nb_name, Settings(), unsafe=True).text != nb_fixed:
        return [f"{path}: fixing the notebook again changes it"]
    return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--fix", action="store_true", help="also compare --fix --unsafe-fixes results")
    parser.add_argument("--limit", type=int, default=0, help="at most this many files")
    args = parser.parse_args()
    files = [f for f in discover(args.paths, Settings()) if f.endswith(".py")]
    if args.limit:
        files = files[:args.limit]
    started = time.monotonic()
    problems = []
    for path in files:
        problems += check_file(path, args.fix)
    for line in problems:
        print(line)
    print(f"{len(files)} files as notebooks, {len(problems)} mismatches, {time.monotonic() - started:.1f} s",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
