"""Dockerfile text -> instructions (FROM, ENV, RUN, ...) with positions. Standard library only.

An instruction runs from its keyword to the first line that does not end in the escape
character (`\\`, or the one a `# escape=` directive names); comment lines inside it are
dropped, as Docker does. `args_origin` maps offsets of `args` back to the file, so the
shell reader can position words of a `RUN` exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from torchleaklint.environment.shell_reader import Command, Origin, assignment, commands, offsets_origin

_INSTRUCTION = re.compile(r"^[ \t]*([A-Za-z]+)(?:[ \t]+|$)")
_ESCAPE_DIRECTIVE = re.compile(r"^#\s*escape\s*=\s*(\S)", re.IGNORECASE)


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case
    args: str  # the text after the keyword, continuation lines included
    line: int
    col: int
    origin: Origin

    def shell_commands(self) -> List[Command]:
        return commands(self.args, self.origin)


def instructions(text: str) -> List[Instruction]:
    file_origin = offsets_origin(text)
    escape = _escape_character(text)
    out: List[Instruction] = []
    lines = text.split("\n")
    offset = 0
    index = 0
    while index < len(lines):
        line = lines[index]
        start_offset = offset
        offset += len(line) + 1
        index += 1
        match = _INSTRUCTION.match(line)
        if not line.strip() or line.lstrip().startswith("#") or not match:
            continue
        end = line.rstrip()
        while end.endswith(escape) and index < len(lines):
            end = lines[index].rstrip()
            offset += len(lines[index]) + 1
            index += 1
            if end.lstrip().startswith("#") or not end.strip():  # comments and blanks inside
                end = escape
        args_start = start_offset + match.end()
        args = text[args_start:max(args_start, offset - 1)]
        if escape != "\\":
            args = args.replace(escape + "\n", "\\\n")
        line_no, col = file_origin(start_offset + match.start(1))
        out.append(Instruction(match.group(1).upper(), args, line_no, col,
                               _shifted(file_origin, args_start)))
    return out


def _shifted(origin: Origin, base: int) -> Origin:
    return lambda offset: origin(base + offset)


def _escape_character(text: str) -> str:
    for line in text.split("\n", 5)[:5]:
        if not line.startswith("#"):
            break
        match = _ESCAPE_DIRECTIVE.match(line)
        if match:
            return match.group(1)
    return "\\"


def from_image(instruction: Instruction) -> Optional[str]:
    words = [w for w in instruction.args.split() if not w.startswith("--")]
    return words[0] if words else None


def env_assignments(instruction: Instruction) -> List[Tuple[str, str, int, int]]:
    """(name, value, line, column of the value) of an `ENV` instruction, both forms:
    `ENV A=1 B="two words"` and the legacy `ENV A value with spaces`."""
    words = [w for command in instruction.shell_commands() for w in command.words]
    if not words:
        return []
    if assignment(words[0]) is None:  # legacy form: one variable, the rest of the line
        name = words[0].value
        if len(words) < 2:
            return []
        return [(name, " ".join(w.value for w in words[1:]), words[1].line, words[1].col)]
    out = []
    for word in words:
        found = assignment(word)
        if found:
            out.append((found[0], found[1], word.line, word.col + len(found[0]) + 1))
    return out
