"""A SyntaxError that is really syntax newer than the running Python (`type X = ...` under
3.11, pre-commit's default interpreter on many machines): say so in the TLL900 message.

The parser cannot tell; the error line is matched against the statements each Python
version added. Only features newer than the running interpreter are considered, so a
real syntax error is never blamed on the version.
"""

from __future__ import annotations

import re
import sys
from typing import Optional, Sequence, Tuple

_IDENT = r"[^\W\d]\w*"
FEATURES: Sequence[Tuple[Tuple[int, int], str, "re.Pattern[str]"]] = (
    ((3, 10), "a `match` statement", re.compile(r"^\s*match\b(?!\s*[=.(\[,:)])\s*\S.*:\s*(#.*)?$")),
    ((3, 11), "`except*`", re.compile(r"^\s*except\s*\*")),
    ((3, 12), "a `type` alias statement", re.compile(rf"^\s*type\s+{_IDENT}\s*(\[|=)")),
    ((3, 12), "a type parameter list (`def f[T]`, `class C[T]`)",
     re.compile(rf"^\s*(async\s+)?(def|class)\s+{_IDENT}\s*\[")),
    ((3, 14), "a template string (t-string)", re.compile(r"(?<![\w.'\"])(?:[tT][rR]?|[rR][tT])(?:'|\")")),
    ((3, 14), "`except` with several exception types and no parentheses",
     re.compile(r"^\s*except\s+[^(\s*][^:]*,[^:]*:\s*(#.*)?$")),
)


def newer_syntax(line_text: str, running: Tuple[int, int] = sys.version_info[:2]) -> Optional[Tuple[str, str]]:
    """(feature, minimum version) when the error line uses syntax newer than `running`."""
    for version, feature, pattern in FEATURES:
        if running < version and pattern.search(line_text):
            return feature, f"{version[0]}.{version[1]}"
    return None


def syntax_error_message(exc: SyntaxError, lines: Sequence[str]) -> str:
    message = f"SyntaxError: {exc.msg}"
    line = exc.lineno or 0
    text = lines[line - 1] if 0 < line <= len(lines) else (exc.text or "")
    found = newer_syntax(text)
    if found is None:
        return message
    feature, version = found
    running = ".".join(map(str, sys.version_info[:3]))
    return (f"{message}: the file uses {feature}, which needs Python {version} or newer, but it was parsed "
            f"by Python {running} ({sys.executable}); run torchleaklint with Python {version}+ "
            f"(pre-commit: `language_version: python{version}`)")
