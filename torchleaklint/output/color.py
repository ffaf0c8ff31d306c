"""Colour for the text formats on a terminal, in ruff's palette: bold path, cyan
separators, bold red code, cyan `[*]`.

Colour is decided once per run (`use_color`): `--color always|never` wins; with `auto`
(the default) a non-empty `NO_COLOR` turns it off, a non-empty `FORCE_COLOR` on, and
otherwise only an interactive terminal gets colour (never a pipe, a file or a CI log).
The formats render plain text; `colorize` adds escape codes to the lines they start with.
"""

from __future__ import annotations

import os
import re

BOLD, RED, CYAN, RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[0m"
TEXT_FORMATS = ("concise", "full", "grouped")
# `path:line:col: CODE [*] message` (concise, full), `  line:col CODE [*] message` (grouped)
_CONCISE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+)(?P<fix> \[\*\])? ", re.M)
_GROUPED = re.compile(r"^(?P<pos>  \d+:\d+) (?P<code>[A-Z]+\d+)(?P<fix> \[\*\])? ", re.M)


def use_color(choice: str, stream) -> bool:
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and os.environ.get("TERM") != "dumb"


def _fix(match) -> str:
    return f" {CYAN}[*]{RESET}" if match.group("fix") else ""


def _concise(match) -> str:
    sep = f"{CYAN}:{RESET}"
    return (f"{BOLD}{match.group('path')}{RESET}{sep}{match.group('line')}{sep}{match.group('col')}{sep} "
            f"{BOLD}{RED}{match.group('code')}{RESET}{_fix(match)} ")


def _grouped(match) -> str:
    return f"{CYAN}{match.group('pos')}{RESET} {BOLD}{RED}{match.group('code')}{RESET}{_fix(match)} "


def colorize(text: str, output_format: str) -> str:
    if output_format == "grouped":
        return re.sub(r"^(\S.*:)$", lambda m: f"{BOLD}{m.group(1)}{RESET}", _GROUPED.sub(_grouped, text), flags=re.M)
    if output_format in ("concise", "full"):
        return _CONCISE.sub(_concise, text)
    return text
