"""Which files to lint: walk directories for *.py, honoring excludes."""

from __future__ import annotations

import os
from typing import Iterator, List, Sequence, Tuple

from torchleaklint.config import Settings


class PathError(Exception):
    """A path given on the command line does not exist; exit status 2."""


def discover(paths: Sequence[str], settings: Settings) -> List[str]:
    """Python files under `paths`, sorted, without duplicates. Explicit file arguments are
    linted even when excluded, unless `force_exclude` is set (as ruff does for pre-commit)."""
    found = []
    seen = set()
    for path in paths:
        if not os.path.lexists(path):
            raise PathError(f"{path}: no such file or directory")
        if os.path.isdir(path):
            candidates = _walk(path, settings)
        else:
            excluded = settings.force_exclude and settings.is_excluded(path)
            candidates = [] if excluded else [(path, os.path.realpath(path))]
        for candidate, key in candidates:
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return sorted(found, key=_sort_key)


def _sort_key(path: str):
    return os.path.normpath(path)


def _walk(root: str, settings: Settings) -> Iterator[Tuple[str, str]]:
    """(path, real path) of each Python file under `root`."""
    visited = set()
    for directory, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(directory)
        if real in visited:  # symlink loop
            dirnames[:] = []
            continue
        visited.add(real)
        dirnames[:] = sorted(d for d in dirnames if not settings.is_excluded(os.path.join(directory, d)))
        for name in sorted(filenames):
            if name.endswith((".py", ".pyi")) and not name.endswith(".pyi"):
                path = os.path.join(directory, name)
                if not settings.is_excluded(path):
                    # realpath costs a syscall per path component; the directory's is known
                    yield path, os.path.realpath(path) if os.path.islink(path) else os.path.join(real, name)
