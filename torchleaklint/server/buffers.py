"""What the server lints: an editor buffer (a text document, or a notebook's code cells
joined into one module), linted from the editor's text, never from disk.

Kept apart from the protocol handlers: a `Buffer` knows how to lint itself with the same
engine entry and per-file configuration as the command line, and how to map lines of the
linted source back to the editor documents they came from.
"""

from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from torchleaklint.config import ConfigError, Settings
from torchleaklint.engine import MAX_FILE_BYTES, lint_source
from torchleaklint.runner import GC_THRESHOLD
from torchleaklint.server.cells import JoinedCells, split_lines
from torchleaklint.server.hunks import Hunk

# An editor must not freeze for the CLI's 30 s on a pathological buffer.
TIME_LIMIT_SECONDS = 10.0


def settings_for_path(path: str) -> Settings:
    """The settings that apply to the file at `path`, found as the command line finds them:
    the closest configuration upward from the file (hierarchy.SettingsResolver, as for every
    file of a CLI run). Raises ConfigError."""
    from torchleaklint.hierarchy import SettingsResolver

    directory = os.path.dirname(os.path.abspath(path))
    return SettingsResolver(None, directory).for_path(os.path.abspath(path))


@dataclass
class Buffer:
    """One module to lint. `key` is the text document's or the notebook's URI; `documents`
    maps each editor document URI (the text document, or each code cell) to its lines."""

    key: str
    path: str
    text: str
    documents: Dict[str, Sequence[str]]
    versions: Dict[str, Optional[int]] = field(default_factory=dict)
    cells: Optional[JoinedCells] = None

    @classmethod
    def for_text(cls, uri: str, path: str, text: str, version: Optional[int]) -> "Buffer":
        return cls(uri, path, text, {uri: document_lines(text)}, {uri: version})

    @classmethod
    def for_notebook(cls, uri: str, path: str, cells: JoinedCells,
                     versions: Dict[str, Optional[int]]) -> "Buffer":
        documents = {cell.key: document_lines("".join(cell.lines)) for cell in cells.cells}
        return cls(uri, path, cells.source, documents, versions, cells)

    def place(self, line: int) -> Optional[Tuple[str, int]]:
        """(document URI, 0-based line in it) for 0-based `line` of the linted source."""
        if self.cells is None:
            return self.key, line
        return self.cells.locate(line)

    def document_hunks(self, hunks: Sequence[Hunk]) -> Optional[Dict[str, List[Hunk]]]:
        """Edits of the linted source as edits of the editor documents (None: not possible)."""
        if self.cells is None:
            return {self.key: list(hunks)} if hunks else {}
        return self.cells.line_edits(hunks)


def document_lines(text: str) -> List[str]:
    """A document's lines as LSP counts them (a final empty line after a final newline)."""
    lines = split_lines(text)
    if not lines or lines[-1].endswith(("\n", "\r")):
        lines.append("")
    return lines


@dataclass
class LintResult:
    """One lint of a buffer: what was linted, with which settings, and what was found."""

    buffer: Buffer
    settings: Optional[Settings]
    diagnostics: List[object]
    config_error: Optional[str] = None


def lint_buffer(buffer: Buffer) -> LintResult:
    """Lint `buffer` through the engine (noqa and per-file-ignores included); a file the
    configuration excludes gets no diagnostics, as in a run over its project."""
    try:
        settings = settings_for_path(buffer.path)
    except ConfigError as exc:
        return LintResult(buffer, None, [], str(exc))
    if settings.is_excluded_below(buffer.path):
        return LintResult(buffer, settings, [])
    source = buffer.text
    if len(source) * 4 > MAX_FILE_BYTES:  # maybe too large: let the engine see the bytes and say so
        source = source.encode("utf-8", "surrogatepass")
    with _rare_gc():
        diagnostics = lint_source(source, buffer.path, settings, time_limit=TIME_LIMIT_SECONDS)
    return LintResult(buffer, settings, diagnostics)


@contextmanager
def _rare_gc():
    """Collect as rarely as the command line's runner does while a buffer is analyzed (the
    analysis builds many objects and leaves no cycles); the server's own threshold after."""
    previous = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*previous)
