"""Turning Python files into realistic notebooks for the notebook tests: one code cell per
top-level statement group (a run of plain statements, or one `def`/`class`), with markdown
cells between them, outputs, execution counts, metadata and cell ids, written by nbformat."""

from __future__ import annotations

import ast
import base64
from typing import List, Tuple

import nbformat

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(64))).decode()


def statement_groups(source: str) -> List[Tuple[int, int]]:
    """(first line, last line) of each group, 1-based; comments and blank lines before a
    statement belong to its group, so the groups cover the whole file."""
    tree = ast.parse(source)
    lines = source.splitlines()
    starts: List[int] = []
    previous_was_definition = True
    for stmt in tree.body:
        is_definition = isinstance(stmt, DEFINITIONS)
        if is_definition or previous_was_definition:
            first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
            starts.append(first)
        previous_was_definition = is_definition
    if not starts:
        return [(1, len(lines))]
    starts[0] = 1
    # Comments and blank lines above a group's first statement go with it.
    for k in range(1, len(starts)):
        line = starts[k]
        while line - 1 > starts[k - 1] and _is_comment_or_blank(lines[line - 2]) \
                and not _inside_previous(tree, line - 1):
            line -= 1
        starts[k] = line
    ends = [s - 1 for s in starts[1:]] + [len(lines)]
    return list(zip(starts, ends))


def _is_comment_or_blank(line: str) -> bool:
    return not line.strip() or line.lstrip().startswith("#")


def _inside_previous(tree: ast.Module, line: int) -> bool:
    return any(s.lineno <= line <= (s.end_lineno or s.lineno) for s in tree.body)


def cells_of(source: str) -> List[str]:
    lines = source.splitlines(keepends=True)
    out = []
    for first, last in statement_groups(source):
        out.append("".join(lines[first - 1:last]).rstrip("\n").rstrip() if first <= last else "")
    return out


def notebook_of(codes: List[str], outputs: bool = True) -> nbformat.NotebookNode:
    """A notebook whose code cells are `codes`, a markdown cell before each (so cell numbers
    are not code-cell numbers), the kind of outputs a run leaves, and metadata."""
    nb = nbformat.v4.new_notebook()
    nb.metadata.update({
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                          "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                          "pygments_lexer": "ipython3", "version": "3.11.9"},
        "accelerator": "GPU", "colab": {"provenance": []},
    })
    cells = []
    for n, code in enumerate(codes):
        cells.append(nbformat.v4.new_markdown_cell(f"## Step {n + 1}\n\nWhat this cell does — ünïcode."))
        cell = nbformat.v4.new_code_cell(code, execution_count=n + 1 if outputs else None)
        cell.metadata.update({"id": f"colab-{n}", "tags": ["step"], "outputId": f"out-{n}"})
        if outputs and n % 2 == 0:
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"epoch {n}: loss 0.{n}3\n")]
        if outputs and n % 3 == 1:
            cell.outputs = [nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"},
                                                   metadata={"needs_background": "light"})]
        cells.append(cell)
    nb.cells = cells
    return nb


def code_cell_numbers(nb: nbformat.NotebookNode) -> List[int]:
    """The 1-based cell number (counting every cell) of each code cell, in order."""
    return [i + 1 for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]


def write(nb: nbformat.NotebookNode) -> str:
    return nbformat.writes(nb)


def cell_sources(text: str) -> List[str]:
    nb = nbformat.reads(text, as_version=4)
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]
