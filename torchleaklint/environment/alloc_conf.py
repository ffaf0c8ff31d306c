"""`PYTORCH_CUDA_ALLOC_CONF` values: where each kind of file sets one, whether it tunes
`max_split_size_mb` instead of enabling expandable segments, and the text edit that swaps
the option (TLL102's fix)."""

from __future__ import annotations

import re
from typing import Iterator, List, Optional, Tuple

from yaml.nodes import MappingNode, ScalarNode

from torchleaklint.diagnostics import UNSAFE, FixSpec, Span
from torchleaklint.environment import DOCKERFILE, DOTENV, SHELL, YAML
from torchleaklint.environment import yaml_reader as y
from torchleaklint.environment.shell_reader import assignments, commands, offsets_origin

VARIABLES = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF")
REPLACEMENT = "expandable_segments:True"
TEXT_EDIT = "text_edit"  # FixSpec.codemod of a plain text replacement (torchleaklint.environment.fixes)
_MAX_SPLIT = re.compile(r"max_split_size_mb\s*:\s*[0-9]+")


def options(value: str) -> List[Tuple[str, str]]:
    out = []
    for part in value.split(","):
        key, _, val = part.partition(":")
        out.append((key.strip(), val.strip()))
    return out


def tunes_max_split(value: str) -> bool:
    """Sets max_split_size_mb and not expandable_segments:True."""
    opts = options(value)
    return any(k == "max_split_size_mb" for k, _ in opts) and not any(
        k == "expandable_segments" and v.lower() == "true" for k, v in opts)


def fixable(value: str) -> bool:
    return tunes_max_split(value) and not any(k == "expandable_segments" for k, _ in options(value))


def locate(lines: List[str], line: int, col: int, max_lines: int = 1) -> Optional[Tuple[int, int, int, str]]:
    """(line, col0, end_col0, text) of the first `max_split_size_mb:N` at or after (line,
    col0) within `max_lines` lines."""
    for number in range(line, min(line + max_lines, len(lines) + 1)):
        text = lines[number - 1]
        match = _MAX_SPLIT.search(text, col if number == line else 0)
        if match:
            return number, match.start(), match.end(), match.group(0)
    return None


def text_fix(lines: List[str], line: int, col0: int, value: str, max_lines: int = 1) -> Optional[FixSpec]:
    if not fixable(value):
        return None
    found = locate(lines, line, col0, max_lines)
    if found is None:
        return None
    number, start, end, text = found
    return FixSpec(codemod=TEXT_EDIT, safety=UNSAFE, title=f"Replace `{text}` with `{REPLACEMENT}`",
                   target=Span(number, start, number, end), params=(("expected", text), ("replacement", REPLACEMENT)))


# --- where each kind of file sets the variable --------------------------------------------
# Each yields (variable, value, line, col0 of the value, lines to search for the option).

def settings_in(env) -> Iterator[Tuple[str, str, int, int, int]]:
    if env.kind == DOTENV:
        for name, value, line, col in env.dotenv_assignments():
            if name in VARIABLES:
                yield name, value, line, col, 1
    elif env.kind == SHELL:
        yield from _shell(env.shell_commands())
    elif env.kind == DOCKERFILE:
        from torchleaklint.environment.dockerfile_reader import env_assignments

        for instruction in env.instructions():
            if instruction.keyword == "ENV":
                for name, value, line, col in env_assignments(instruction):
                    if name in VARIABLES:
                        yield name, value, line, col, 3
            elif instruction.keyword == "RUN":
                yield from _shell(instruction.shell_commands())
    elif env.kind == YAML:
        for doc in env.documents():
            yield from _yaml(doc, env.lines)


def _shell(command_list) -> Iterator[Tuple[str, str, int, int, int]]:
    for command in command_list:
        for name, value, word in assignments(command):
            if name in VARIABLES:
                yield name, value, word.line, word.col + len(name) + 1, 2


def _yaml(doc, lines) -> Iterator[Tuple[str, str, int, int, int]]:
    for node, key, parent in y.walk(doc):
        if isinstance(node, MappingNode):
            # Kubernetes `env: [{name: VAR, value: ...}]`
            name = y.scalar(y.get(node, "name"))
            value = y.get(node, "value")
            if name in VARIABLES and isinstance(value, ScalarNode):
                yield name, value.value, *_start(value), 3
            # `environment: {VAR: value}` (Compose, CI `env:`, Azure `variables:`)
            for k, v in y.items(node):
                if k.value in VARIABLES and isinstance(v, ScalarNode):
                    yield k.value, v.value, *_start(v), 3
        elif isinstance(node, ScalarNode) and key is not None and any(v + "=" in node.value for v in VARIABLES):
            # `- VAR=value` items, `run: export VAR=value` scripts
            text, first_line, col = y.scalar_text(node, lines)
            yield from _shell(commands(text, offsets_origin(text, first_line, col)))


def _start(node) -> Tuple[int, int]:
    quote = 1 if node.style in ("'", '"') else 0
    return node.start_mark.line + 1, node.start_mark.column + quote
