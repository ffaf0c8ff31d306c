"""Which files to lint: walk directories for *.py and *.ipynb (and environment files when an
environment rule is selected), honoring excludes and .gitignore."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Dict, Iterator, List, Sequence, Set, Tuple

from torchleaklint.config import Settings
from torchleaklint.kinds import is_walked
from torchleaklint.environment import environment_kind, environment_rules_selected


class PathError(Exception):
    """A path given on the command line does not exist; exit status 2."""


def discover(paths: Sequence[str], settings: Settings, resolver=None) -> List[str]:
    """Python files under `paths`, sorted, without duplicates.

    Explicitly named files are linted even when excluded or git-ignored, unless
    `force_exclude` is set (pre-commit passes every staged file by name). A directory that
    cannot be read is returned too, so that linting it reports why, instead of skipping it
    in silence. With a `resolver` (hierarchy.SettingsResolver), each directory's entries
    are excluded by the settings of the closest configuration file, as in ruff.
    """
    settings_for = resolver.for_directory if resolver is not None else (lambda directory, names=None: settings)
    found: List[str] = []
    walked: Dict[str, List[str]] = {}  # directory named on the command line -> files under it
    seen: Set[str] = set()
    for path in paths:
        if not os.path.lexists(path):
            raise PathError(f"{path}: no such file or directory")
        if os.path.isdir(path):
            candidates = list(_walk(path, settings_for))
            walked.setdefault(path, []).extend(candidate for candidate, _ in candidates)
        elif _force_excluded(path, settings_for(os.path.dirname(os.path.abspath(path)))):
            candidates = []
        else:
            candidates = [(path, os.path.realpath(path))]
        for candidate, key in candidates:
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    if settings.respect_gitignore and walked:
        ignored = git_ignored(list(walked) + [f for files in walked.values() for f in files])
        # A directory named explicitly is linted even if git ignores it (or an ancestor),
        # as ripgrep and ruff do; .gitignore only prunes below it.
        dropped = {f for root, files in walked.items() if root not in ignored for f in files if f in ignored}
        if dropped:
            found = [f for f in found if f not in dropped]
    return sorted(found, key=os.path.normpath)


def _force_excluded(path: str, settings: Settings) -> bool:
    return settings.force_exclude and settings.is_excluded_below(path)


def _walk(root: str, settings_for) -> Iterator[Tuple[str, str]]:
    """(path, real path) of each Python file under `root`, and of each unreadable directory."""
    visited: Set[str] = set()
    unreadable: List[str] = []
    root_real = os.path.realpath(root)
    for directory, dirnames, filenames in os.walk(root, followlinks=True,
                                                  onerror=lambda err: unreadable.append(err.filename)):
        real = os.path.realpath(directory)
        if real in visited or not _inside(real, root_real):
            # a symlink loop, a second link to the same directory, or a link out of the
            # named tree (`--fix .` must not rewrite files elsewhere)
            dirnames[:] = []
            continue
        visited.add(real)
        settings = settings_for(directory, filenames)
        environment = environment_rules_selected(settings)  # walk for YAML/Dockerfiles/... too
        dirnames[:] = sorted(d for d in dirnames if not settings.is_excluded(os.path.join(directory, d), is_dir=True))
        for name in sorted(filenames):
            if is_walked(name) or (environment and environment_kind(name) is not None):
                path = os.path.join(directory, name)
                if not settings.is_excluded(path, is_dir=False):
                    # realpath costs a syscall per path component; the directory's is known
                    yield path, os.path.realpath(path) if os.path.islink(path) else os.path.join(real, name)
    for path in unreadable:
        if path:
            yield path, os.path.realpath(path)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def git_ignored(files: Sequence[str]) -> Set[str]:
    """The subset of `files` that git ignores (.gitignore, .git/info/exclude, global
    excludes), asked in one `git check-ignore` call; empty outside a git work tree."""
    git = shutil.which("git")
    if git is None or not files:
        return set()
    absolute = {os.path.abspath(f): f for f in files}
    try:
        proc = subprocess.run(
            [git, "check-ignore", "--no-index", "-z", "--stdin"],
            input="\0".join(absolute).encode("utf-8", "surrogateescape"),
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60,
            cwd=_directory_of(next(iter(absolute))),
        )
    except (OSError, subprocess.SubprocessError):
        return set()
    if proc.returncode not in (0, 1):  # 128: not a git work tree (or paths outside it)
        return set()
    out = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    return {absolute[p] for p in out if p in absolute}


def _directory_of(path: str) -> str:
    return path if os.path.isdir(path) else os.path.dirname(path)
