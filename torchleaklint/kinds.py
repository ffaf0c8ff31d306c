"""What kind of source a file is, by its name (and, for a script without an extension, its
`#!` line): the one place that decides which files torchleaklint reads and how.

A file named on the command line that is none of these kinds is reported (TLL900 "not a
Python file") rather than parsed as Python and declared clean. To support another kind,
add its name patterns to `KINDS` (and to `WALKED` if directory walks should pick it up)
and a reader to the engine.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Optional, Tuple

PYTHON = "python"
NOTEBOOK = "notebook"
ENVIRONMENT = "environment"  # read by torchleaklint.environment when an environment rule is selected
# kind -> file-name patterns (fnmatch, matched against the lower-cased base name), e.g.
# ("*.yaml", "*.yml") or ("dockerfile", "dockerfile.*", "*.dockerfile") for another kind.
KINDS = {
    PYTHON: ("*.py", "*.pyi", "*.pyw"),
    NOTEBOOK: ("*.ipynb",),
}
# Suffixes a directory walk picks up (a `.pyi` stub or `.pyw` only when named).
WALKED = (".py", ".ipynb")


# A notebook's JSON carries its outputs (base64 images, long logs): its code is a small part.
NOTEBOOK_MAX_BYTES = 50_000_000


def max_bytes(path: str) -> int:
    """How much of `path` is read at most (a larger file is one TLL900, skipped)."""
    from torchleaklint.source import MAX_FILE_BYTES

    return NOTEBOOK_MAX_BYTES if file_kind(path) == NOTEBOOK else MAX_FILE_BYTES


def file_kind(path: str, source=None) -> Optional[str]:
    """The kind of `path` (one of `KINDS`), or None when torchleaklint does not read it.

    Standard input without a name and pseudo paths (`<string>`) are Python; a file without
    a suffix is Python when its first line is a Python `#!` line.
    """
    if path in ("-", "") or path.startswith("<"):
        return PYTHON
    name = os.path.basename(path).lower()
    for kind, patterns in KINDS.items():
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns):
            return kind
    from torchleaklint.environment import environment_kind

    if environment_kind(path) is not None:
        return ENVIRONMENT  # Compose/Kubernetes/CI YAML, Dockerfile, shell, .env (torchleaklint.environment)
    if "." not in name.lstrip(".") and _python_shebang(source):
        return PYTHON
    return None


def is_walked(name: str) -> bool:
    """Does a directory walk lint a file of this name?"""
    return name.lower().endswith(WALKED)


def not_python_message(path: str) -> Tuple[str, int, int]:
    suffix = os.path.splitext(path)[1]
    what = f"`{suffix}` file" if suffix else "file without a `.py` suffix or a Python `#!` line"
    return f"not a Python file ({what}); not analyzed", 1, 1


def _python_shebang(source) -> bool:
    if source is None:
        return False
    head = source[:200]
    if isinstance(head, bytes):
        head = head.decode("latin-1")
    first = head.split("\n", 1)[0]
    return first.startswith("#!") and "python" in first
