"""Shell text -> simple commands, each a list of words with their positions.

Enough of POSIX shell for what the rules ask (`docker run ...` options, `export VAR=value`,
`VAR=value cmd`): words split on blanks, quotes ('...', "...", $(...), `...`) kept inside a
word, comments, backslash-newline continuations, here-document bodies skipped, commands
separated by newlines, `;`, `&`, `|`, `&&`, `||` and parentheses. A word's value is its raw
text unquoted by `shlex` (stdlib). Positions are exact (line 1-based, column 0-based, in
characters), also for text embedded in another file (a YAML `run: |` block, a Dockerfile
`RUN`), through `origin`.
"""

from __future__ import annotations

import bisect
import re
import shlex
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

_SEPARATORS = ";&|()"
_ASSIGNMENT = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=")
Origin = Callable[[int], Tuple[int, int]]  # offset in the text -> (line, column) in the file


@dataclass(frozen=True)
class Word:
    raw: str
    value: str
    line: int
    col: int
    end_col: int  # on `line` when the word is on one line, else the end of its first line

    def startswith(self, prefix: str) -> bool:
        return self.value.startswith(prefix)


@dataclass(frozen=True)
class Command:
    words: Tuple[Word, ...]

    @property
    def values(self) -> List[str]:
        return [w.value for w in self.words]

    def program_index(self) -> Optional[int]:
        """Index of the word that names the program: after `VAR=value` prefixes and
        wrappers such as `sudo`, `exec`, `env`, `time`, `nohup`."""
        for i, word in enumerate(self.words):
            value = word.value
            if _ASSIGNMENT.match(value) and "=" in value:
                continue
            if value in ("sudo", "exec", "env", "time", "nohup", "command", "srun", "then", "do", "else",
                         "!", "{", "if", "while", "until"):
                continue
            if value.startswith("-") and i > 0 and self.words[i - 1].value in ("sudo", "env", "srun"):
                continue
            return i
        return None


def offsets_origin(text: str, first_line: int = 1, col_offset: int = 0) -> Origin:
    """Map offsets of `text` to file positions when `text` starts at (first_line,
    col_offset) and every further line starts `col_offset` columns in (a dedented block)."""
    starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def origin(offset: int) -> Tuple[int, int]:
        index = bisect.bisect_right(starts, offset) - 1
        return first_line + index, offset - starts[index] + col_offset

    return origin


def unquote(raw: str) -> str:
    try:
        parts = shlex.split(raw, comments=False, posix=True)
    except ValueError:  # an unbalanced quote inside $(...): keep the text
        return raw
    return " ".join(parts) if parts else ""


def commands(text: str, origin: Optional[Origin] = None) -> List[Command]:
    """The simple commands of `text`, in order."""
    origin = origin or offsets_origin(text)
    out: List[Command] = []
    current: List[Word] = []
    for raw, start, is_separator in _tokens(text):
        if is_separator:
            if current:
                out.append(Command(tuple(current)))
            current = []
            continue
        line, col = origin(start)
        first_line = raw.split("\n", 1)[0]
        current.append(Word(raw, unquote(raw), line, col, col + len(first_line)))
    if current:
        out.append(Command(tuple(current)))
    return out


def _tokens(text: str):
    """(raw word, start offset, False) for words and ("", offset, True) for separators."""
    i, n = 0, len(text)
    heredocs: List[Tuple[str, bool]] = []
    while i < n:
        ch = text[i]
        if ch == "\\" and text.startswith("\n", i + 1):
            i += 2
            continue
        if ch in " \t\r":
            i += 1
            continue
        if ch == "\n":
            yield "", i, True
            i += 1
            if heredocs:
                i = _skip_heredocs(text, i, heredocs)
                heredocs = []
            continue
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch in _SEPARATORS:
            yield "", i, True
            i += 1
            continue
        start = i
        i = _word_end(text, i)
        raw = text[start:i]
        if raw.startswith("<<") and len(raw) > 2:
            heredocs.append((raw[2:].lstrip("-").strip("'\""), raw.startswith("<<-")))
        elif raw in ("<<", "<<-"):
            j = i
            while j < n and text[j] in " \t":
                j += 1
            k = _word_end(text, j)
            heredocs.append((text[j:k].strip("'\""), raw == "<<-"))
        yield raw, start, False


def _word_end(text: str, i: int) -> int:
    n = len(text)
    depth = 0
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if ch == '"':
            i = _double_quoted_end(text, i + 1)
            continue
        if ch == "`":
            end = text.find("`", i + 1)
            i = n if end < 0 else end + 1
            continue
        if ch == "$" and text.startswith("(", i + 1):
            depth += 1
            i += 2
            continue
        if ch == "$" and text.startswith("{", i + 1):
            end = text.find("}", i + 2)
            i = n if end < 0 else end + 1
            continue
        if depth:
            if ch == ")":
                depth -= 1
            elif ch == "(":
                depth += 1
            i += 1
            continue
        if ch in " \t\r\n" or ch in _SEPARATORS:
            if ch == "&" and i > 0 and text[i - 1] in "<>":  # 2>&1 is one word
                i += 1
                continue
            return i
        i += 1
    return i


def _double_quoted_end(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return n


def _skip_heredocs(text: str, i: int, heredocs: Sequence[Tuple[str, bool]]) -> int:
    for delimiter, strip_tabs in heredocs:
        while i < len(text):
            end = text.find("\n", i)
            line = text[i:] if end < 0 else text[i:end]
            i = len(text) if end < 0 else end + 1
            if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                break
    return i


def assignment(word: Word) -> Optional[Tuple[str, str]]:
    """(name, value) when the word is `NAME=value` (as a prefix or after `export`)."""
    match = _ASSIGNMENT.match(word.value)
    if not match:
        return None
    return match.group(1), word.value[match.end():]


def assignments(command: Command) -> List[Tuple[str, str, Word]]:
    """Variables a command sets: `export A=1 B=2`, `A=1 cmd`, `declare -x A=1`."""
    words = command.words
    if not words:
        return []
    out = []
    exporting = words[0].value in ("export", "declare", "typeset", "readonly", "local", "set")
    for index, word in enumerate(words):
        if index == 0 and exporting:
            continue
        found = assignment(word)
        if found:
            out.append((found[0], found[1], word))
        elif not exporting and not word.value.startswith("-"):
            break  # after the program name, NAME=value is an argument
    return out
