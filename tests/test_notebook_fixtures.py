"""Done-when of the notebook support: every fixture file, turned into a notebook (one cell per
top-level statement group, with markdown cells, outputs and metadata around them), gives the
same findings at cell positions, and `--fix --unsafe-fixes` on it gives, cell by cell, the
code that fixing the `.py` file gives; the result is valid nbformat 4 and a second run
changes nothing."""

from __future__ import annotations

import re

import nbformat
import pytest

from fixture_markers import FIXTURES
from notebook_maker import cell_sources, cells_of, code_cell_numbers, notebook_of, statement_groups, write
from torchleaklint.config import Settings
from torchleaklint.engine import lint_source
from torchleaklint.fixes import fix_text

FILES = sorted(p for p in FIXTURES.glob("tll00*/*.py") if ".fixed." not in p.name)


def _names(path):
    # the names the rules see: test-file detection looks at them, so keep the directory and stem
    relative = f"fixtures/{path.parent.name}/{path.stem}"
    return relative + ".py", relative + ".ipynb"


def _as_notebook(source: str):
    groups = statement_groups(source)
    nb = notebook_of(cells_of(source))
    numbers = code_cell_numbers(nb)

    def position(line: int):
        k = max(i for i, (first, _) in enumerate(groups) if first <= line)
        return numbers[k], line - groups[k][0] + 1

    return write(nb), position


def _expected_message(message: str, cell: int, position) -> str:
    def replace(match):
        other, line = position(int(match.group(1)))
        return f"line {line}" if other == cell else f"line {line} of cell {other}"

    return re.sub(r"\bline (\d+)\b", replace, message)


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_fixture_as_notebook_gives_the_same_findings(path):
    source = path.read_text(encoding="utf-8")
    py_name, nb_name = _names(path)
    text, position = _as_notebook(source)
    expected = []
    for d in lint_source(source, py_name, Settings()):
        cell, line = position(d.line)
        end_cell, end_line = position(d.end_line) if d.end_line else (cell, 0)
        expected.append((cell, line, d.col, end_line, d.end_col, d.code, _expected_message(d.message, cell, position)))
    found = [(d.cell, d.line, d.col, d.end_line, d.end_col, d.code, d.message)
             for d in lint_source(text.encode("utf-8"), nb_name, Settings())]
    assert sorted(found) == sorted(expected)


def _has_fix(path) -> bool:
    return any(d.fix is not None for d in lint_source(path.read_text(encoding="utf-8"), _names(path)[0], Settings()))


FIXABLE = [p for p in FILES if _has_fix(p)]


@pytest.mark.parametrize("path", FIXABLE, ids=[f"{p.parent.name}/{p.name}" for p in FIXABLE])
def test_fixing_the_notebook_fixes_each_cell_like_the_py_file(path):
    source = path.read_text(encoding="utf-8")
    py_name, nb_name = _names(path)
    text, _ = _as_notebook(source)
    py_fixed = fix_text(source, py_name, Settings(), unsafe=True)
    nb_fixed = fix_text(text, nb_name, Settings(), unsafe=True)
    if py_fixed.text == source:  # a fix the codemod declines here: the notebook stays byte for byte
        assert nb_fixed.text == text
        return
    nbformat.validate(nbformat.reads(nb_fixed.text, as_version=4))
    assert cell_sources(nb_fixed.text) == cells_of(py_fixed.text)
    assert sorted(nb_fixed.fixed.items()) == sorted(py_fixed.fixed.items())
    assert [d.code for d in nb_fixed.remaining] == [d.code for d in py_fixed.remaining]
    assert fix_text(nb_fixed.text, nb_name, Settings(), unsafe=True).text == nb_fixed.text, "not idempotent"
    # Only the code changed: outputs, counts, metadata, ids and markdown are what they were.
    before, after = nbformat.reads(text, as_version=4), nbformat.reads(nb_fixed.text, as_version=4)
    for old, new in zip(before.cells, after.cells):
        assert {k: v for k, v in old.items() if k != "source"} == {k: v for k, v in new.items() if k != "source"}
    assert after.metadata == before.metadata and len(after.cells) == len(before.cells)
