"""Command-line settings applied on top of each configuration file (ruff's semantics).

`--select` replaces the configured selection (and its `ignore`); `--extend-select` adds to
it; `--ignore` and `--extend-ignore` add to the configured `ignore`. `--exclude` and
`--per-file-ignores` replace, `--extend-exclude` and `--extend-per-file-ignores` add.
Paths in patterns given on the command line are relative to the current directory.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Callable, Dict, Optional, Sequence, Tuple

from torchleaklint.config import ConfigError, Settings, reroot_pattern, validate_selector

Codes = Optional[Tuple[str, ...]]


def split_codes(value: Optional[str]) -> Codes:
    if value is None:
        return None
    return tuple(c.strip().upper() for c in value.split(",") if c.strip())


def split_patterns(value: Optional[str]) -> Optional[Tuple[str, ...]]:
    if value is None:
        return None
    return tuple(p.strip() for p in value.split(",") if p.strip())


def parse_per_file_ignores(values: Sequence[str], option: str, known) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    """`PATTERN:CODE[,CODE...]` (the pattern may itself contain `:` on Windows: the last one splits)."""
    entries = []
    for value in values:
        pattern, sep, codes = value.rpartition(":")
        parsed = split_codes(codes) or ()
        if not sep or not pattern.strip() or not parsed:
            raise ConfigError(f"{option}: expected PATTERN:CODE[,CODE...], got {value!r}")
        for code in parsed:
            validate_selector(code, known, option)
        entries.append((pattern.strip(), parsed))
    return tuple(entries)


def make_overrides(cwd: str, select: Codes = None, extend_select: Codes = None, ignore: Codes = None,
                   extend_ignore: Codes = None, exclude=None, extend_exclude=None, per_step_methods=None,
                   per_file_ignores=None, extend_per_file_ignores=None, force_exclude=None,
                   respect_gitignore=None, project_analysis=None) -> Callable[[Settings], Settings]:
    """A function from a configuration's settings to the settings this run uses."""
    cwd_path = Path(os.path.abspath(cwd))

    def patterns(values, settings):
        root = Path(settings.project_root)
        return tuple(p for p in (reroot_pattern(v, cwd_path, root) for v in values) if p)

    def apply(settings: Settings) -> Settings:
        changes: Dict[str, object] = {}
        added_ignore = (ignore or ()) + (extend_ignore or ())
        if select is not None:
            changes["select"] = select + (extend_select or ())
            changes["ignore"] = added_ignore
        else:
            if extend_select:
                changes["select"] = settings.select + extend_select
            if added_ignore:
                changes["ignore"] = settings.ignore + added_ignore
        if exclude is not None:
            changes["exclude"] = patterns(exclude, settings)
        if extend_exclude:
            changes["extend_exclude"] = settings.extend_exclude + patterns(extend_exclude, settings)
        if per_step_methods:
            changes["per_step_methods"] = per_step_methods
        pfi = settings.per_file_ignores if per_file_ignores is None else ()
        for pattern, codes in (per_file_ignores or ()) + (extend_per_file_ignores or ()):
            rerooted = reroot_pattern(pattern, cwd_path, Path(settings.project_root))
            if rerooted:
                pfi += ((rerooted, codes),)
        if pfi != settings.per_file_ignores:
            changes["per_file_ignores"] = pfi
        if force_exclude is not None:
            changes["force_exclude"] = force_exclude
        if respect_gitignore is not None:
            changes["respect_gitignore"] = respect_gitignore
        if project_analysis is not None:
            changes["project_analysis"] = project_analysis
        return replace(settings, **changes) if changes else settings

    return apply
