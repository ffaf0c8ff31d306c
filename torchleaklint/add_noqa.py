"""`--add-noqa`: append `# noqa: CODE` to every line with a finding, so a project can adopt
torchleaklint now and fix its findings later.

A directive goes where flake8 (and torchleaklint) will look for it: on the last line of the
reported line's noqa range (after a multi-line string or a backslash continuation, never
inside them). An existing `# noqa: X` in that range gets the new codes merged in.
"""

from __future__ import annotations

import io
import os
import tempfile
import tokenize
from typing import Dict, Iterable, List, Optional, Set, Tuple

from torchleaklint.engine import INTERNAL_ERROR, SYNTAX_ERROR
from torchleaklint.noqa import NOQA, noqa_codes, noqa_ranges
from torchleaklint.notebook import add_noqa_to_notebook, is_notebook_path
from torchleaklint.kinds import max_bytes
from torchleaklint.source import SourceError, decode, read_regular_file


def add_noqa(diagnostics: Iterable) -> int:
    """Add directives for `diagnostics` to their files; returns how many lines changed."""
    by_path: Dict[str, Dict[int, Set[str]]] = {}
    for d in diagnostics:
        if d.code not in (SYNTAX_ERROR, INTERNAL_ERROR):
            line = (d.cell, d.line) if getattr(d, "cell", None) else d.line  # a notebook: per cell
            by_path.setdefault(d.path, {}).setdefault(line, set()).add(d.code)
    return sum(_add_to_file(path, codes_by_line) for path, codes_by_line in by_path.items())


def _add_to_file(path: str, codes_by_line: Dict[int, Set[str]]) -> int:
    try:
        text, encoding = decode(read_regular_file(path, max_bytes(path) + 1))  # a FIFO is refused, not waited on
    except (OSError, SourceError):
        return 0
    from torchleaklint.environment import environment_kind

    kind = environment_kind(path)
    if is_notebook_path(path):
        new_text, changed = add_noqa_to_notebook(text, codes_by_line, add_noqa_to_source)
    elif kind is not None:  # YAML, Dockerfile, shell, .env: no Python tokens
        from torchleaklint.environment.noqa import add_noqa_to_environment

        new_text, changed = add_noqa_to_environment(text, codes_by_line, kind)
    else:
        new_text, changed = add_noqa_to_source(text, codes_by_line)
    if changed:
        _write_atomically(path, new_text.encode(encoding))
    return changed


def add_noqa_to_source(text: str, codes_by_line: Dict[int, Set[str]]) -> Tuple[str, int]:
    """`text` with directives for {line: codes} added, and the number of lines changed."""
    lines = io.StringIO(text, newline="").readlines()
    try:
        ranges = noqa_ranges(text)
        comments = _comments(text)
    except (tokenize.TokenError, SyntaxError):
        return text, 0
    wanted: Dict[int, Set[str]] = {}
    for line, codes in codes_by_line.items():
        first, last = _range_of(line, ranges)
        target = _existing_noqa_line(first, last, comments) or last
        wanted.setdefault(target, set()).update(codes)
    changed = 0
    for target, codes in wanted.items():
        if 0 < target <= len(lines):
            updated = _with_directive(lines[target - 1], codes, comments.get(target))
            if updated != lines[target - 1]:
                lines[target - 1] = updated
                changed += 1
    return "".join(lines), changed


def _comments(text: str) -> Dict[int, Tuple[int, str]]:
    """{line: (column, comment text)} for every comment token."""
    return {token.start[0]: (token.start[1], token.string)
            for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline)
            if token.type == tokenize.COMMENT}


def _range_of(line: int, ranges: List[Tuple[int, int]]) -> Tuple[int, int]:
    for first, last in ranges:
        if first <= line <= last:
            return first, last
    return line, line


def _existing_noqa_line(first: int, last: int, comments) -> Optional[int]:
    # flake8 honors the first `# noqa` of a range only, so new codes must join that one.
    for line in range(first, last + 1):
        if line in comments and NOQA.search(comments[line][1]):
            return line
    return None


def _with_directive(physical: str, codes: Set[str], comment: Optional[Tuple[int, str]]) -> str:
    body = physical.rstrip("\r\n")
    ending = physical[len(body):]
    if comment is not None and NOQA.search(comment[1]):
        column, text = comment
        return body[:column] + _merged(text, codes) + body[column + len(text):] + ending
    return body.rstrip(" \t") + f"  # noqa: {', '.join(sorted(codes))}" + ending


def _merged(comment: str, codes: Set[str]) -> str:
    match = NOQA.search(comment)
    existing = noqa_codes(match.group(0))
    if not existing:  # a bare `# noqa` already covers everything
        return comment
    listed = [c.strip() for c in match.group("codes").replace(",", " ").split()]
    added = [c for c in sorted(codes) if not any(c.startswith(e) for e in existing)]
    if not added:
        return comment
    trailing = match.group(0)[len(match.group(0).rstrip()):]
    directive = "# noqa: " + ", ".join(listed + added) + trailing
    return comment[:match.start()] + directive + comment[match.end():]


def _write_atomically(path: str, data: bytes) -> None:
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".torchleaklint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        try:
            os.chmod(temp, os.stat(path).st_mode & 0o7777)
        except OSError:
            pass
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
