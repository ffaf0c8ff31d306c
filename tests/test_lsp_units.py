"""The language server's pure parts: notebook cells joined and mapped back, whole-line
edits, and the conversion of diagnostics (severity, evidence) to LSP."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Tuple

from hypothesis import given, settings, strategies as st

from torchleaklint.server.cells import join_cells
from torchleaklint.server.hunks import apply_hunks, line_hunks


def test_cells_join_into_one_parsable_module_line_for_line():
    joined = join_cells([
        ("a", "%matplotlib inline\nimport torch\ntotal = 0"),  # no final newline
        ("b", ""),
        ("c", "%%bash\n  echo not python\n"),
        ("d", "for x in xs:\n    !nvidia-smi\n    out = !ls\n    total += x\nmodel?"),
    ])
    ast.parse(joined.source)
    assert [(c.key, c.first, c.count) for c in joined.cells] == [("a", 0, 3), ("b", 3, 1), ("c", 4, 2), ("d", 6, 5)]
    assert joined.source.splitlines()[6:10] == ["for x in xs:", "    pass", "    pass", "    total += x"]
    assert joined.locate(9) == ("d", 3)
    assert joined.locate(2) == ("a", 2)
    assert joined.locate(11) is None


def test_a_percent_continuation_line_is_python_not_a_magic():
    joined = join_cells([("a", 'msg = ("%s"\n       % name)\n')])
    assert joined.source == 'msg = ("%s"\n       % name)\n' and not joined.masked


def test_edits_map_back_to_their_cell():
    joined = join_cells([("a", "import torch\ntotal = 0\n"), ("b", "for x in xs:\n    total += x")])
    # Replace the last line of cell b (which has no final newline of its own).
    assert joined.line_edits([(3, 4, "    total += x.item()\n")]) == {"b": [(1, 2, "    total += x.item()")]}
    # An indented line inserted at the boundary continues the block above it...
    joined = join_cells([("a", "for x in xs:\n    y = x\n"), ("b", "print(y)\n")])
    assert joined.line_edits([(2, 2, "    y = y.detach()\n")]) == {"a": [(2, 2, "    y = y.detach()\n")]}
    # ...an unindented one (an import, a decorator) starts the cell below.
    assert joined.line_edits([(2, 2, "@torch.no_grad()\n")]) == {"b": [(0, 0, "@torch.no_grad()\n")]}
    assert joined.line_edits([(0, 0, "import torch\n")]) == {"a": [(0, 0, "import torch\n")]}
    # An edit across two cells, or of a masked magic line, cannot be expressed.
    assert joined.line_edits([(1, 3, "x\n")]) is None
    assert join_cells([("a", "%time f()\n")]).line_edits([(0, 1, "g()\n")]) is None


lines = st.lists(st.sampled_from(["a\n", "b\n", "    c\n", "\n", "d\r\n", "e"]), max_size=12)


@settings(max_examples=300, deadline=None)
@given(lines, lines)
def test_line_hunks_turn_old_into_new(old_lines, new_lines):
    old, new = "".join(old_lines), "".join(new_lines)
    hunks = line_hunks(old, new)
    assert apply_hunks(old, hunks) == new
    ends = [(first, end) for first, end, _ in hunks]
    assert all(end1 <= first2 for (_, end1), (first2, _) in zip(ends, ends[1:]))  # ordered, disjoint


def test_line_hunks_are_small():
    old = "".join(f"line{i}\n" for i in range(100))
    new = old.replace("line50\n", "line50  # noqa: TLL001\n")
    assert line_hunks(old, new) == [(50, 51, "line50  # noqa: TLL001\n")]


# ------------------------------------------------------------------ conversion
@dataclass(frozen=True)
class Evidence:
    line: int
    col: int
    message: str


@dataclass(frozen=True)
class NewDiagnostic:
    """A diagnostic as the engine's next version gives it: severity and an evidence chain."""

    path: str
    line: int
    col: int
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: object = None
    severity: str = "error"
    evidence: Tuple[Evidence, ...] = ()


def test_severity_and_evidence_become_lsp_severity_and_related_information():
    from pygls.workspace.position_codec import PositionCodec

    from torchleaklint.server.buffers import Buffer
    from torchleaklint.server.convert import to_lsp

    joined = join_cells([("cell0", "total = 0\n"), ("cell1", "for x in xs:\n    total += model(x)\n")])
    buffer = Buffer.for_notebook("nb", "nb.ipynb", joined, {})
    diagnostic = NewDiagnostic("nb.ipynb", 3, 5, "TLL001", "leak", 3, 22, evidence=(
        Evidence(1, 1, "`total` starts here"), Evidence(3, 14, "`model(x)` carries a graph")))
    uri, converted = to_lsp(diagnostic, buffer, PositionCodec())
    assert uri == "cell1" and converted.severity == 1  # Error
    assert (converted.range.start.line, converted.range.start.character) == (1, 4)
    related = [(r.location.uri, r.location.range.start.line, r.location.range.start.character, r.message)
               for r in converted.related_information]
    assert related == [("cell0", 0, 0, "`total` starts here"), ("cell1", 1, 13, "`model(x)` carries a graph")]
    older = NewDiagnostic("nb.ipynb", 3, 5, "TLL001", "leak", severity="warning")
    converted = to_lsp(older, buffer, PositionCodec())[1]
    assert converted.severity == 2 and converted.related_information is None
