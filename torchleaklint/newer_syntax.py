"""A SyntaxError that is really syntax newer than the running Python (`type X = ...` under
3.11, pre-commit's default interpreter on many machines): say so in the TLL900 message.

The parser cannot tell; the error line is matched against the statements each Python
version added. Only features newer than the running interpreter are considered, so a
real syntax error is never blamed on the version; nor is a Python 2 file, whose
`except Exception, e:` looks like 3.14's `except A, B:` (it says it is Python 2 instead).
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


# Python 2 spellings no Python 3 parses. `except Exception, e:` is also what 3.14's
# parenthesis-free `except A, B:` looks like, so a file showing any of them is Python 2 code,
# and no newer Python is the fix.
PYTHON2 = (
    ("a `print` statement", re.compile(r"^\s*print\s+(?![\s(=.,)\]])(?!(in|is|and|or|if|else|for)\b)")),
    ("`except X, name:`", re.compile(r"^\s*except\s+[\w.]+\s*,\s*[a-z_]\w*\s*:")),
    ("`raise X, message`", re.compile(r"^\s*raise\s+[\w.]+\s*,")),
)


def python2_syntax(line_text: str) -> Optional[str]:
    """What Python 2 spelling the error line uses, or None."""
    return next((what for what, pattern in PYTHON2 if pattern.search(line_text)), None)


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
    python2 = python2_syntax(text)
    if python2 is not None:
        return f"{message}: the line is Python 2 code ({python2}), which no Python 3 parses"
    found = newer_syntax(text)
    if found is None:
        return message
    feature, version = found
    running = ".".join(map(str, sys.version_info[:3]))
    return (f"{message}: the file uses {feature}, which needs Python {version} or newer, but it was parsed "
            f"by Python {running} ({sys.executable}); run torchleaklint with Python {version}+ "
            f"(pre-commit: `language_version: python{version}`)")
