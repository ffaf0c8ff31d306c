"""Notebook cells as one module, and positions and edits mapped back to the cells.

A self-contained stand-in for the CLI's notebook support (branch `nb`), to be unified with
it: `join_cells` concatenates the code cells of a notebook, in order, into one Python
source (each cell ends with a newline, nothing is inserted between cells), so that an
accumulator set up in one cell and updated in a loop in another is seen as one program, as
running the notebook top to bottom would. IPython syntax that is not Python (line magics
`%time`, shell escapes `!pip ...`, `x = !ls`, help `obj?`, and cells in another language
such as `%%bash`) is replaced by `pass` at the same indentation (or an empty line), so the
line count never changes and every line maps back to exactly one line of one cell.

Nothing here imports the LSP libraries: it works on (cell id, text) pairs.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

# Cell magics whose body is still Python (the first line is masked, the rest analyzed).
PYTHON_CELL_MAGICS = ("time", "timeit", "capture", "prun", "debug", "memit")
# `%time ...`, `!pip ...`, `x = !ls`, `y = %sx ...` (not `% x` on a continuation line).
_LINE_MAGIC = re.compile(r"^\s*(?:\w+\s*=\s*)?(?:%[A-Za-z]|![^=])")
_HELP = re.compile(r"^\s*[\w.]*\?\??\s*$|^\s*\?")


def split_lines(text: str) -> List[str]:
    """Lines with their endings, broken at \\n, \\r\\n and \\r only (as LSP counts lines)."""
    return io.StringIO(text, newline="").readlines()


@dataclass(frozen=True)
class Cell:
    """Where one cell sits in the joined source: lines [first, first + count) (0-based)."""

    key: str
    first: int
    count: int
    lines: Tuple[str, ...]  # the cell's own lines, as the editor has them
    ends_with_newline: bool

    @property
    def end(self) -> int:
        return self.first + self.count


@dataclass
class JoinedCells:
    """The joined source of a notebook's code cells and the way back to the cells."""

    source: str
    cells: List[Cell] = field(default_factory=list)
    masked: Set[int] = field(default_factory=set)  # joined line indexes replaced by `pass`

    def cell_at(self, line: int) -> Optional[Cell]:
        """The cell holding 0-based joined `line`."""
        for cell in self.cells:
            if cell.first <= line < cell.end:
                return cell
        return None

    def locate(self, line: int) -> Optional[Tuple[str, int]]:
        """(cell key, 0-based line in that cell) for 0-based joined `line`."""
        cell = self.cell_at(line)
        return (cell.key, line - cell.first) if cell else None

    def line_edits(self, hunks: Sequence[Tuple[int, int, str]]) -> Optional[Dict[str, List[Tuple[int, int, str]]]]:
        """Map edits of the joined source, each (first line, end line, new text) replacing
        whole joined lines [first, end), onto the cells: {cell key: [(first, end, text)]}
        in cell lines. None when an edit cannot be expressed in the cells (it spans two
        cells or touches a masked IPython line)."""
        out: Dict[str, List[Tuple[int, int, str]]] = {}
        for first, end, text in hunks:
            if any(line in self.masked for line in range(first, end)):
                return None
            cell = self._cell_for_hunk(first, end, text)
            if cell is None:
                return None
            if end == cell.end and not cell.ends_with_newline and text.endswith("\n"):
                text = text[:-1]  # the newline the join added, not the cell's own
                text = text[:-1] if text.endswith("\r") else text
            out.setdefault(cell.key, []).append((first - cell.first, end - cell.first, text))
        return out

    def _cell_for_hunk(self, first: int, end: int, text: str) -> Optional[Cell]:
        if end > first:  # a replacement: it must lie inside one cell
            cell = self.cell_at(first)
            return cell if cell is not None and end <= cell.end else None
        # A pure insertion at a cell boundary: an indented line continues the block that
        # ends the cell above; anything else (an import, a decorator) starts the next cell.
        before = self.cell_at(first - 1) if first > 0 else None
        after = self.cell_at(first)
        if before is not None and (after is None or after.first == first) and text[:1] in (" ", "\t"):
            return before
        return after or before


def join_cells(cells: Sequence[Tuple[str, str]]) -> JoinedCells:
    """Join `cells`, a sequence of (cell key, cell text) of the code cells in notebook
    order, into one module (see the module docstring)."""
    joined = JoinedCells(source="")
    parts: List[str] = []
    line = 0
    for key, text in cells:
        lines = split_lines(text)
        ends_with_newline = bool(lines) and lines[-1].endswith(("\n", "\r"))
        analyzed = list(lines) or [""]
        if not ends_with_newline:
            analyzed[-1] = analyzed[-1] + "\n"
        other_language = _other_language(analyzed)
        for index in range(len(analyzed)) if other_language else _ipython_lines(analyzed):
            analyzed[index] = "\n" if other_language else _mask(analyzed[index])
            joined.masked.add(line + index)
        joined.cells.append(Cell(key, line, len(analyzed), tuple(lines), ends_with_newline))
        parts.extend(analyzed)
        line += len(analyzed)
    joined.source = "".join(parts)
    return joined


def _other_language(lines: List[str]) -> bool:
    """A cell in another language (%%bash, %%html, %%writefile): every line is blanked."""
    if not lines or not lines[0].lstrip().startswith("%%"):
        return False
    return lines[0].strip()[2:].split(" ", 1)[0] not in PYTHON_CELL_MAGICS


def _ipython_lines(lines: List[str]) -> List[int]:
    return [i for i, text in enumerate(lines) if _is_ipython_line(text)]


def _is_ipython_line(text: str) -> bool:
    stripped = text.strip()
    if not stripped or stripped.startswith("#"):
        return False
    return stripped.startswith("%%") or bool(_LINE_MAGIC.match(text)) or bool(_HELP.match(text))


def _mask(text: str) -> str:
    body = text.rstrip("\r\n")
    indent = body[:len(body) - len(body.lstrip())]
    return indent + "pass\n"
