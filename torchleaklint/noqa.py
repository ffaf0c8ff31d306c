"""`# noqa` and `# noqa: TLL001,TLL003` comments, parsed the way flake8 does."""

from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, List, Optional, Sequence, Set, Tuple

# flake8's own pattern (flake8/defaults.py): codes separated by commas and/or spaces.
NOQA = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_SEP = re.compile(r"[,\s]+")
# File-level directives, on a line of their own. flake8's (flake8/defaults.py NOQA_FILE,
# tried with `match` on every line): flake8 skips the whole file, codes or not, so the
# command line does too. Ours, as ruff's `# ruff: noqa[: CODES]`: every finding, or only
# the listed codes (prefixes match, as in `# noqa:`).
FLAKE8_FILE_NOQA = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)
FILE_NOQA = re.compile(r"[ \t\f]*#\s*torchleaklint\s*:\s*noqa(?P<rest>[^\r\n]*)$", re.IGNORECASE)
_FILE_CODES = re.compile(r":\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*)[,\s]*$", re.IGNORECASE)
_LONE_CR = re.compile(r"\r(?!\n)")


def noqa_codes(line: str) -> Optional[Set[str]]:
    """None: no noqa. Empty set: a bare `# noqa` (everything). Otherwise the listed codes."""
    if "noqa" not in line.lower():
        return None
    match = NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return set()
    return {c.upper() for c in _SEP.split(codes.strip()) if c}


def suppressed(code: str, line: str) -> bool:
    codes = noqa_codes(line)
    if codes is None:
        return False
    return not codes or any(code.startswith(c) for c in codes)


def file_noqa(lines: Sequence[str]) -> Optional[Set[str]]:
    """None: no file-level directive. Empty set: every finding of the file is suppressed.
    Otherwise the codes suppressed in the whole file. A malformed `# torchleaklint: noqa:`
    (no valid code after the colon) suppresses nothing rather than everything."""
    codes: Set[str] = set()
    found = False
    for line in lines:
        if "noqa" not in line.lower():
            continue
        if FLAKE8_FILE_NOQA.match(line):
            return set()
        match = FILE_NOQA.match(line)
        if match is None:
            continue
        rest = match.group("rest")
        if not rest.strip():
            return set()
        listed = _FILE_CODES.match(rest)
        if listed is not None:
            found = True
            codes.update(c.upper() for c in _SEP.split(listed.group("codes").strip()) if c)
    return codes if found else None


def noqa_ranges(text: str) -> List[Tuple[int, int]]:
    """The (first, last) physical lines that flake8 searches together for a `# noqa`: lines
    joined by a multi-line string or a backslash continuation (a range ends at each NL or
    NEWLINE token). A comment can only sit on a range's last line. Raises tokenize.TokenError
    or SyntaxError on code that does not tokenize."""
    ranges = []
    first, last = None, None
    # The tokenize module ends no logical line at a lone \r (CPython's parser does): it
    # would join every line of a CR-only file into one range, and a `# noqa` on one line
    # would suppress its neighbours. \n in its place keeps every line number and column.
    text = _LONE_CR.sub("\n", text) if "\r" in text else text
    for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
        if token.type in (tokenize.ENDMARKER, tokenize.DEDENT):
            continue
        first = token.start[0] if first is None else min(first, token.start[0])
        last = token.end[0] if last is None else max(last, token.end[0])
        if token.type in (tokenize.NL, tokenize.NEWLINE):
            ranges.append((first, last))
            first, last = None, None
    return ranges


class NoqaLines:
    """The text to search for `# noqa` for a reported line, as flake8 chooses it, so the
    command line and the flake8 plugin suppress the same findings. Tokenizes only when
    the file mentions noqa at all."""

    def __init__(self, text: str, lines: Sequence[str]):
        self.text = text
        self.lines = lines
        self._joined: Optional[Dict[int, str]] = None
        self._file_codes: Optional[Set[str]] = None
        self._file_read = False
        self._mentions_noqa: Optional[bool] = None  # asked once: every finding asks (issue 19)

    def suppresses(self, code: str, line: int) -> bool:
        """Is a finding of `code` at `line` silenced, by its line's `# noqa` or by a
        file-level directive?"""
        if self._mentions_noqa is None:
            self._mentions_noqa = "noqa" in self.text.lower()
        if not self._mentions_noqa:
            return False
        if not self._file_read:
            self._file_codes, self._file_read = file_noqa(self.lines), True
        if self._file_codes is not None and (not self._file_codes or
                                             any(code.startswith(c) for c in self._file_codes)):
            return True
        return suppressed(code, self.for_line(line))

    def for_line(self, line: int) -> str:
        physical = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if self._mentions_noqa is None:
            self._mentions_noqa = "noqa" in self.text.lower()
        if not self._mentions_noqa:
            return physical
        if self._joined is None:
            self._joined = self._join()
        return self._joined.get(line, physical)

    def _join(self) -> Dict[int, str]:
        try:
            ranges = noqa_ranges(self.text)
        except (tokenize.TokenError, SyntaxError):
            return {}
        joined = {}
        for first, last in ranges:
            if last > first:
                text = "\n".join(self.lines[first - 1:last])
                joined.update(dict.fromkeys(range(first, last + 1), text))
        return joined
