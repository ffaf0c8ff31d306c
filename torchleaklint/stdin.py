"""Linting standard input as if it were a named file (`--stdin-filename NAME -`): what
editors and formatters-on-save use. Configuration, excludes and per-file-ignores apply to
NAME exactly as they would to the file on disk."""

from __future__ import annotations

from typing import List, Optional, Tuple

from torchleaklint.config import Settings
from torchleaklint.engine import lint_source
from torchleaklint.source import SourceError, decode

STDIN_DISPLAY_NAME = "-"


class StdinFixUnavailable(Exception):
    """This build has no fixer for source text; reported as a usage error."""


def lint_stdin(raw: bytes, filename: Optional[str], settings: Settings,
               verbose: bool = False) -> Tuple[str, List]:
    """(path to report, diagnostics) for `raw` read from standard input."""
    path = filename or STDIN_DISPLAY_NAME
    if filename and settings.force_exclude and settings.is_excluded_below(filename):
        return path, []
    project = None
    if filename:  # the buffer's imports are read from the project on disk
        from torchleaklint.project.run import buffer_view

        project = buffer_view(filename, raw, settings)
    return path, lint_source(raw, path, settings, verbose, project=project)


def decoded(raw: bytes) -> Optional[Tuple[str, str]]:
    """(text, encoding), or None when standard input is not decodable source."""
    try:
        return decode(raw)
    except SourceError:
        return None


def fix_stdin(text: str, path: str, settings: Settings, unsafe: bool, diagnostics) -> Tuple[str, List]:
    """(fixed source, findings left) through the fixes package's `fix_text`, the same
    function `--fix` uses for files."""
    try:
        from torchleaklint.fixes import fix_text
    except ImportError as exc:
        raise StdinFixUnavailable("fixing standard input needs torchleaklint.fixes.fix_text, "
                                  "which this build does not have") from exc
    result = fix_text(text, path, settings, unsafe=unsafe, diagnostics=diagnostics)
    return result.text, result.remaining
