"""Jupyter notebooks (`.ipynb`, nbformat 4) as a source: read, analyze, map back, fix.

A notebook's code cells share one namespace, so their code, in order, is analyzed as one
module: the *virtual module*, where each analyzed cell is preceded by a marker line
(`# %% [torchleaklint cell N]`). Markdown and raw cells are skipped. IPython syntax that is
not Python (`%matplotlib inline`, `!pip install x`, `%%time`, `?obj`, `obj?`) is masked by a
placeholder of the same line count, and restored when a fixed cell is written back. A cell
that does not parse even so is reported (one TLL900 for that cell) and left out; the other
cells are still analyzed.

Diagnostics come back with the cell number (1-based position among all the notebook's
cells, as Jupyter shows them) and cell-relative lines, as ruff reports them
(`train.ipynb:cell 3:9:1`); "line N" in messages is made cell-relative too.

Fixes run on the virtual module (the ordinary `fix_text`), are split back at the markers and
written into the JSON text by replacing only the `source` value of the cells that changed:
outputs, execution counts, metadata, ids, key order and indentation stay byte for byte. A
fix whose result cannot be split back cleanly (a marker moved or lost) is dropped.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import difflib
import json
import re
import warnings
from dataclasses import dataclass, field
from json.decoder import scanstring
from typing import Dict, List, Optional, Tuple

from torchleaklint.semantic.syntax import CELL_MARKER_PREFIX

NOTEBOOK_SUFFIX = ".ipynb"
MARKER_PREFIX = CELL_MARKER_PREFIX  # the semantic layer reads cell ends too
_MARKER = re.compile(r"^# %% \[torchleaklint cell (\d+)\]$")
_MAGIC_TAG = "# torchleaklint-magic-"
_PLACEHOLDER = re.compile(r"^([ \t]*).*# torchleaklint-magic-(\d+)$")
# Cell magics whose body is Python run by the kernel; any other (`%%bash`, `%%writefile`,
# `%%html`) makes the cell something else than Python, so it is skipped.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit", "mprun", "py"})
_ASSIGN_MAGIC = re.compile(r"^\s*[\w.,\s]+=\s*[!%]")
# Line magics and shell aliases IPython runs without their `%` (automagic, on by default):
# `cd ..`, `pip install x`, `ls -la`. Only a line that is no Python statement is taken for one.
AUTOMAGICS = frozenset({
    "cd", "ls", "ll", "pwd", "pip", "conda", "mamba", "env", "set_env", "load_ext", "reload_ext",
    "autoreload", "matplotlib", "run", "time", "timeit", "who", "whos", "history", "mkdir", "rmdir",
    "cat", "cp", "mv", "rm", "less", "more", "man", "clear", "pushd", "popd", "dhist", "bookmark",
    "alias", "unalias", "store", "config", "prun", "pdb", "xmode", "load", "save", "pycat", "reset",
    "lsmagic", "tensorboard", "memit", "mprun", "sx", "system", "rehashx",
})
_LINE = re.compile(r"\bline (\d+)\b")


def is_notebook_path(path: str) -> bool:
    return path.lower().endswith(NOTEBOOK_SUFFIX)


def is_notebook_json(source) -> bool:
    """Is `source` a notebook's JSON (it starts with `{`), not its cells already
    joined into Python (the virtual module fixes re-lint, or what an editor's notebook sync
    hands the language server)?"""
    if is_virtual(source):
        return False
    head = source[:4096].lstrip()
    return not head or head[:1] in ("{", "[", b"{", b"[")  # empty or broken JSON: reported as such


def is_virtual(source) -> bool:
    """Is `source` a notebook's virtual module (what fixes re-lint) rather than its JSON?"""
    return isinstance(source, str) and source.startswith(MARKER_PREFIX)


class NotebookError(Exception):
    """Not a notebook this tool can read; becomes one TLL900 for the file."""


@dataclass
class Cell:
    index: int  # position in the notebook's `cells`
    code: str  # the cell's source, joined
    masked: str = ""  # what the analysis reads: `code` with IPython syntax masked
    magics: Dict[int, str] = field(default_factory=dict)  # placeholder number -> original line
    error: Optional[Tuple[str, int, int]] = None  # (message, line, col) when it does not parse
    skipped: bool = False  # a non-Python cell magic

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def analyzed(self) -> bool:
        return not self.skipped and self.error is None


@dataclass
class Notebook:
    text: str  # the JSON text as read
    cells: List[Cell]  # the code cells
    python: bool = True  # False for a notebook of another kernel language (R, Julia)
    _newlines: List[int] = field(default_factory=list)
    _sources: Optional[Dict[int, "SourceSpan"]] = None

    @property
    def sources(self) -> Dict[int, "SourceSpan"]:
        """Cell index -> where its `source` value is in `text` (found when first needed:
        only fixes and the formats that point into the JSON need it)."""
        if self._sources is None:
            try:
                self._sources = _locate_sources(self.text)
            except (ValueError, IndexError, RecursionError):
                self._sources = {}
        return self._sources

    def json_line(self, cell_index: int, line: int) -> int:
        """The physical line of `text` that holds line `line` of a cell's source."""
        span = self.sources.get(cell_index)
        if span is None:
            return 1
        if not self._newlines:
            self._newlines = [i for i, ch in enumerate(self.text) if ch == "\n"]
        offsets = span.elements or [span.start]
        offset = offsets[min(max(line, 1), len(offsets)) - 1]
        return bisect.bisect_left(self._newlines, offset) + 1


@dataclass
class SourceSpan:
    start: int  # offset of the `source` value in the JSON text
    end: int
    elements: List[int]  # offsets of the list's strings (one per line), empty for a string


# ---------------------------------------------------------------------------- reading
def read_notebook(text: str) -> Notebook:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise NotebookError(f"not a valid notebook: the JSON does not parse ({_short(exc)})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("not a valid notebook: no `cells` list")
    if data.get("nbformat") != 4:
        raise NotebookError(f"not a supported notebook: nbformat {data.get('nbformat')!r} (only 4 is read)")
    cells = []
    for index, raw in enumerate(data["cells"]):
        if not isinstance(raw, dict) or raw.get("cell_type") != "code":
            continue
        source = raw.get("source", "")
        if isinstance(source, list) and all(isinstance(s, str) for s in source):
            source = "".join(source)
        if not isinstance(source, str):
            raise NotebookError(f"not a valid notebook: cell {index + 1} has no source text")
        cells.append(_prepare(Cell(index, source)))
    return Notebook(text, cells, python=_is_python(data))


def _short(exc: Exception) -> str:
    return str(exc).split("\n")[0]


def _is_python(data: dict) -> bool:
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    info = metadata.get("language_info")
    name = info.get("name") if isinstance(info, dict) else None
    if name is None:
        spec = metadata.get("kernelspec")
        name = spec.get("language") if isinstance(spec, dict) else None
    return not isinstance(name, str) or name.lower() in ("python", "python3", "ipython")


def _prepare(cell: Cell) -> Cell:
    """Mask IPython syntax so the cell parses; record why when it still does not."""
    lines = cell.code.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    masked = list(lines)
    counter = [0]
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].lstrip()[2:].split(maxsplit=1)[0] if lines[first].strip() != "%%" else ""
        if name not in PYTHON_CELL_MAGICS:
            cell.skipped = True
            return cell
        masked[first] = _placeholder(cell, lines[first], counter)
    text = "\n".join(masked)
    if not _parse_error(text):
        cell.masked = text
        return cell
    indent = ""  # of the IPython line a `\` continues: its continuation lines take it
    for i, line in enumerate(lines):
        if i != first or not line.lstrip().startswith("%%"):
            if i and lines[i - 1].rstrip().endswith("\\") and masked[i - 1] != lines[i - 1]:
                masked[i] = _placeholder(cell, line, counter, indent)  # `!cmd \` continued
            elif _is_ipython_line(line):
                masked[i] = _placeholder(cell, line, counter)
                indent = line[: len(line) - len(line.lstrip())]
    cell.masked = "\n".join(masked)
    cell.error = _parse_error(cell.masked)
    if cell.error is not None and first is not None and _runs_dedented(cell.masked.split("\n"), first):
        # IPython strips a cell's leading indent (its `leading_indent` transform): the cell
        # runs. Not analyzed (positions would move), and no parse error either
        cell.error, cell.skipped = None, True
    return cell


def _runs_dedented(lines: List[str], first: int) -> bool:
    """Does the cell parse once the indent of its first line is taken off every line that
    starts with it, as IPython does before running it?"""
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
    if not indent:
        return False
    dedented = [line[len(indent):] if line.startswith(indent) else line for line in lines]
    return _parse_error("\n".join(dedented)) is None


def _is_ipython_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped or stripped.startswith("#"):
        return False
    return stripped[0] in "%!?" or stripped.endswith("?") or bool(_ASSIGN_MAGIC.match(line)) \
        or _is_automagic(stripped)


def _is_automagic(stripped: str) -> bool:
    """`cd ..`, `pip install -q x`: a magic's name, then words that make no Python statement."""
    name, _, rest = stripped.partition(" ")
    rest = rest.lstrip()
    # (IPython's own test: a line going on with `=` or `,` is an assignment, never a magic)
    return name in AUTOMAGICS and bool(rest) and rest[0] not in "=," and _parse_error(stripped) is not None


def _placeholder(cell: Cell, line: str, counter: List[int], indent: Optional[str] = None) -> str:
    number = counter[0]
    counter[0] += 1
    if indent is None:
        indent = line[: len(line) - len(line.lstrip())]
    # what the placeholder's indentation does not give back (a continuation line's own indent)
    cell.magics[number] = (line[len(indent):] if line.startswith(indent) else line.lstrip()).rstrip()
    return f"{indent}pass  {_MAGIC_TAG}{number}"


def _parse_error(text: str) -> Optional[Tuple[str, int, int]]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except SyntaxError as exc:
        return f"SyntaxError: {exc.msg}", exc.lineno or 1, exc.offset or 1
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"cannot parse: {_short(exc)}", 1, 1
    return None


# ---------------------------------------------------------------------------- JSON positions
_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


def _locate_sources(text: str) -> Dict[int, SourceSpan]:
    """Where each cell's `source` value lies in the JSON text (a small positional JSON
    scanner: `json` gives values, not offsets)."""
    found: Dict[int, SourceSpan] = {}
    _value(text, _WS.match(text, 0).end(), (), found)
    return found


def _value(text: str, i: int, path: tuple, found) -> int:
    ch = text[i]
    if ch == '"':
        return scanstring(text, i + 1)[1]
    if ch == "{":
        return _object(text, i, path, found)
    if ch == "[":
        end, _ = _array(text, i, path, found)
        return end
    match = _SCALAR.match(text, i)
    if match is None:
        raise ValueError(f"unexpected {ch!r} at {i}")
    return match.end()


def _object(text: str, i: int, path: tuple, found) -> int:
    i = _WS.match(text, i + 1).end()
    if text[i] == "}":
        return i + 1
    while True:
        key, i = scanstring(text, i + 1)
        i = _WS.match(text, i).end() + 1  # the colon
        start = _WS.match(text, i).end()
        if key == "source" and len(path) == 2 and path[0] == "cells":
            if text[start] == "[":
                end, elements = _array(text, start, path + (key,), found)
            else:
                end, elements = _value(text, start, path + (key,), found), []
            found[path[1]] = SourceSpan(start, end, elements)
        else:
            end = _value(text, start, path + (key,), found)
        i = _WS.match(text, end).end()
        if text[i] == "}":
            return i + 1
        i = _WS.match(text, i + 1).end()  # after the comma


def _array(text: str, i: int, path: tuple, found) -> Tuple[int, List[int]]:
    i = _WS.match(text, i + 1).end()
    starts: List[int] = []
    if text[i] == "]":
        return i + 1, starts
    index = 0
    while True:
        starts.append(i)
        end = _value(text, i, path + (index,), found)
        index += 1
        i = _WS.match(text, end).end()
        if text[i] == "]":
            return i + 1, starts
        i = _WS.match(text, i + 1).end()


# ---------------------------------------------------------------------------- the virtual module
@dataclass
class VirtualModule:
    text: str
    line_map: List[Tuple[int, int]]  # virtual line - 1 -> (cell number, cell line; 0 for a marker)


def virtual_module(notebook: Notebook) -> VirtualModule:
    parts: List[str] = []
    line_map: List[Tuple[int, int]] = []
    for cell in notebook.cells:
        if not cell.analyzed:
            continue
        parts.append(f"{MARKER_PREFIX}{cell.number}]\n")
        line_map.append((cell.number, 0))
        body = cell.masked if cell.masked.endswith("\n") else cell.masked + "\n"
        parts.append(body)
        line_map.extend((cell.number, n) for n in range(1, body.count("\n") + 1))
    return VirtualModule("".join(parts), line_map)


def map_diagnostic(d, module: VirtualModule, notebook: Optional[Notebook] = None):
    """A diagnostic of the virtual module, positioned in its cell."""
    cell, line = _cell_line(module, d.line)
    end_cell, end_line = _cell_line(module, d.end_line) if d.end_line else (cell, 0)
    if end_cell != cell:  # never happens for a node; clamp to the cell's last line
        end_line = max(n for c, n in module.line_map if c == cell)
    changes = dict(line=max(line, 1), end_line=end_line if d.end_line else 0,
                   message=_map_lines_in_message(d.message, module, cell))
    if line == 0:  # a file-level diagnostic (line 1 of the virtual module: a marker)
        changes.update(col=1, end_line=0, end_col=0)
    if hasattr(d, "cell"):
        changes["cell"] = cell
    evidence = getattr(d, "evidence", None)
    if evidence:
        changes["evidence"] = tuple(_map_evidence_item(item, module, cell) for item in evidence)
    return dataclasses.replace(d, **changes)


def _cell_line(module: VirtualModule, virtual_line: int) -> Tuple[int, int]:
    if 0 < virtual_line <= len(module.line_map):
        return module.line_map[virtual_line - 1]
    return module.line_map[-1] if module.line_map else (1, 1)


def _map_lines_in_message(message: str, module: VirtualModule, cell: int) -> str:
    def replace(match):
        other, line = _cell_line(module, int(match.group(1)))
        if line == 0:
            return match.group(0)
        return f"line {line}" if other == cell else f"line {line} of cell {other}"

    return _LINE.sub(replace, message) if "line " in message else message


def _map_evidence_item(item, module: VirtualModule, cell: int):
    """Evidence items (the lead's `Diagnostic.evidence`: items with line/col/message) move
    into their own cell; an item that cannot be replaced is kept as it is."""
    line = getattr(item, "line", None)
    if not isinstance(line, int) or not dataclasses.is_dataclass(item):
        return item
    item_cell, item_line = _cell_line(module, line)
    changes = {"line": max(item_line, 1)}
    if hasattr(item, "message") and isinstance(item.message, str):
        message = _map_lines_in_message(item.message, module, item_cell)
        if item_cell != cell and not hasattr(item, "cell"):  # its line is in another cell: say which
            message = f"(cell {item_cell}) {message}"
        changes["message"] = message
    if hasattr(item, "cell"):
        changes["cell"] = item_cell
    try:
        return dataclasses.replace(item, **changes)
    except (TypeError, ValueError):
        return item


# ---------------------------------------------------------------------------- linting
def lint_notebook(text: str, path: str, settings, lint_python) -> List:
    """Diagnostics for a notebook's JSON text; `lint_python(text)` lints Python source
    (the engine's own pipeline, with the notebook's path and settings)."""
    from torchleaklint.engine import SYNTAX_ERROR, _file_diagnostic

    try:
        notebook = read_notebook(text)
    except NotebookError as exc:
        return _file_diagnostic(path, settings, SYNTAX_ERROR, str(exc), 1, 1)
    if not notebook.python:
        return []
    out = []
    for cell in notebook.cells:
        if cell.error is not None:
            message, line, col = cell.error
            for d in _file_diagnostic(path, settings, SYNTAX_ERROR, f"{message} (the cell is not analyzed)", line, col):
                out.append(dataclasses.replace(d, cell=cell.number) if hasattr(d, "cell") else d)
    module = virtual_module(notebook)
    if module.text:
        out.extend(map_diagnostic(d, module, notebook) for d in lint_python(module.text))
    return sorted(out, key=position_key)


def position_key(d) -> tuple:
    return (d.path, getattr(d, "cell", None) or 0, d.line, d.col, d.code, d.message)


# ---------------------------------------------------------------------------- fixing
def fix_notebook(text: str, path: str, settings, unsafe: bool, fix_python):
    """(new JSON text, remaining diagnostics, fixed counter, titles) or None when the
    notebook cannot be fixed; `fix_python(virtual_text)` is the ordinary `fix_text`."""
    try:
        notebook = read_notebook(text)
    except NotebookError:
        return None
    if not notebook.python:
        return None
    module = virtual_module(notebook)
    if not module.text:
        return None
    result = fix_python(module.text)
    new_codes = split_virtual(result.text, notebook)
    if new_codes is None:  # a fix moved a cell marker: keep the notebook as it is
        return None
    new_text = write_cells(notebook, new_codes)
    if new_text is None:
        return None
    fixed_module = virtual_module(read_notebook(new_text)) if new_text != text else module
    remaining = [map_diagnostic(d, fixed_module, notebook) for d in result.remaining]
    errors = [d for d in lint_notebook(new_text, path, settings, lambda _t: []) if d.code == "TLL900"]
    return new_text, sorted(errors + remaining, key=position_key), result.fixed, result.titles


def split_virtual(text: str, notebook: Notebook) -> Optional[Dict[int, str]]:
    """Cell index -> new code, from a (fixed) virtual module; None if the markers are not
    all there, once each, in order, at the start of a line."""
    analyzed = [c for c in notebook.cells if c.analyzed]
    lines = text.splitlines(keepends=True)
    positions = [i for i, line in enumerate(lines) if _MARKER.match(line.rstrip("\r\n"))]
    numbers = [int(_MARKER.match(lines[i].rstrip("\r\n")).group(1)) for i in positions]
    if numbers != [c.number for c in analyzed] or (positions and positions[0] != 0):
        return None
    out: Dict[int, str] = {}
    for k, cell in enumerate(analyzed):
        stop = positions[k + 1] if k + 1 < len(positions) else len(lines)
        body = "".join(lines[positions[k] + 1:stop])
        if not cell.masked.endswith("\n") and body.endswith("\n"):
            body = body[:-1]
        restored = _restore_magics(body, cell)
        if restored is None:
            return None
        out[cell.index] = restored
    return out


def _restore_magics(body: str, cell: Cell) -> Optional[str]:
    if not cell.magics:
        return body
    lines = body.split("\n")
    seen = set()
    for i, line in enumerate(lines):
        match = _PLACEHOLDER.match(line)
        if match and int(match.group(2)) in cell.magics:
            seen.add(int(match.group(2)))
            lines[i] = match.group(1) + cell.magics[int(match.group(2))]
    return "\n".join(lines) if seen == set(cell.magics) else None


def write_cells(notebook: Notebook, new_codes: Dict[int, str]) -> Optional[str]:
    """The JSON text with the `source` of each changed cell replaced, nothing else touched."""
    changed = {c.index: new_codes[c.index] for c in notebook.cells
               if c.index in new_codes and new_codes[c.index] != c.code}
    if not changed:
        return notebook.text
    if any(index not in notebook.sources for index in changed):
        return None
    text = notebook.text
    ascii_only = text.isascii() and "\\u" in text
    for index in sorted(changed, reverse=True):  # later spans first: earlier offsets stay valid
        span = notebook.sources[index]
        text = text[:span.start] + _render_source(notebook.text, span, changed[index], ascii_only) + text[span.end:]
    return text


def _render_source(text: str, span: SourceSpan, code: str, ascii_only: bool) -> str:
    lines = [line for line in re.split(r"(?<=\n)", code) if line]
    if text[span.start] != "[":
        return json.dumps(code, ensure_ascii=ascii_only)
    if not lines:
        return "[]"
    if span.elements:
        opening = text[span.start + 1:span.elements[0]]
        last_end = _string_end(text, span.elements[-1])
        closing = text[last_end:span.end - 1]
        if len(span.elements) > 1:
            separator = text[_string_end(text, span.elements[0]):span.elements[1]]
        else:
            separator = "," + opening
    else:
        indent = _line_indent(text, span.start)
        unit = _indent_unit(text)
        opening, separator, closing = "\n" + indent + unit, ",\n" + indent + unit, "\n" + indent
    return "[" + opening + separator.join(json.dumps(line, ensure_ascii=ascii_only) for line in lines) + closing + "]"


def _string_end(text: str, start: int) -> int:
    return scanstring(text, start + 1)[1]


def _line_indent(text: str, offset: int) -> str:
    line_start = text.rfind("\n", 0, offset) + 1
    line = text[line_start:offset]
    return line[: len(line) - len(line.lstrip())]


def _indent_unit(text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    return match.group(1) if match else " "


def add_noqa_to_notebook(text: str, codes_by_cell_line, add_to_source) -> Tuple[str, int]:
    """`--add-noqa` in a notebook: {(cell number, line): codes} added cell by cell with
    `add_to_source` (the one for Python files), on the masked code so that it tokenizes."""
    try:
        notebook = read_notebook(text)
    except NotebookError:
        return text, 0
    by_cell: Dict[int, Dict[int, set]] = {}
    for key, codes in codes_by_cell_line.items():
        if isinstance(key, tuple):
            by_cell.setdefault(key[0], {})[key[1]] = codes
    new_codes: Dict[int, str] = {}
    changed = 0
    for cell in notebook.cells:
        if cell.number in by_cell and cell.analyzed:
            masked, count = add_to_source(cell.masked, by_cell[cell.number])
            restored = _restore_magics(masked, cell)
            if count and restored is not None:
                new_codes[cell.index] = restored
                changed += count
    new_text = write_cells(notebook, new_codes) if new_codes else text
    return (new_text, changed) if new_text is not None else (text, 0)


# ---------------------------------------------------------------------------- diffs
def cell_diffs(path: str, old_text: str, new_text: str) -> str:
    """`--diff` for a notebook: a unified diff per changed cell, as ruff shows them."""
    try:
        old, new = read_notebook(old_text), read_notebook(new_text)
    except NotebookError:
        return ""
    new_codes = {c.index: c.code for c in new.cells}
    out = []
    for cell in old.cells:
        after = new_codes.get(cell.index, cell.code)
        if after == cell.code:
            continue
        name = f"{path}:cell {cell.number}"
        lines = difflib.unified_diff(_lines(cell.code), _lines(after), fromfile=name, tofile=name)
        out.append("".join(line if line.endswith("\n") else line + "\n" for line in lines))
    return "".join(out)


def _lines(code: str) -> List[str]:
    return code.splitlines(keepends=True)


def physical_line(path: str, d, context: Optional[dict] = None) -> int:
    """The line of the .ipynb file (its JSON text) that holds a notebook diagnostic: what
    SARIF and GitHub annotations point at. Falls back to the cell-relative line."""
    context = context if context is not None else {}
    cache = context.setdefault("_notebooks", {})
    if path not in cache:
        text = context.get("sources", {}).get(path)  # standard input: what was read, not the disk
        try:
            if text is None:
                with open(path, "rb") as handle:
                    text = handle.read().decode("utf-8-sig")
            cache[path] = read_notebook(text)
        except (OSError, UnicodeDecodeError, NotebookError):
            cache[path] = None
    notebook = cache[path]
    cell = getattr(d, "cell", None)
    if notebook is None or not cell:
        return d.line
    return notebook.json_line(cell - 1, d.line)


def cell_source_lines(path: str, cell: int, context: Optional[dict] = None) -> Optional[List[str]]:
    """A cell's lines, for formats that quote code."""
    context = context if context is not None else {}
    text = context.get("sources", {}).get(path)
    try:
        if text is None:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8-sig")
        notebook = read_notebook(text)
    except (OSError, UnicodeDecodeError, NotebookError):
        return None
    code = next((c.code for c in notebook.cells if c.number == cell), None)
    return None if code is None else code.split("\n")
