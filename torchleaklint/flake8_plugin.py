"""flake8 plugin: `flake8 --select TLL` reports what `torchleaklint` reports, at the same
positions, from the tree flake8 already parsed.

Settings come from each file's closest configuration (hierarchy.py), exactly as the
command line finds them, so rule options, `per-step-methods`, `ignore` and
`per-file-ignores` mean the same in both.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Iterator, Tuple

from torchleaklint import __version__
from torchleaklint.config import ConfigError, Settings, load_settings
from torchleaklint.engine import check_tree


@lru_cache(maxsize=8)
def _settings_for(cwd: str) -> Settings:
    return load_settings(None, cwd)


@lru_cache(maxsize=8)
def _resolver(cwd: str):
    from torchleaklint.hierarchy import SettingsResolver

    return SettingsResolver(None, cwd)


def _settings_for_file(filename: str) -> Settings:
    cwd = os.getcwd()
    if filename in ("stdin", "-", ""):
        return _settings_for(cwd)
    try:
        return _resolver(cwd).for_path(filename)
    except ConfigError as exc:  # a broken package configuration: say which, stop flake8
        raise SystemExit(f"torchleaklint: error: {exc}") from None


class Flake8Plugin:
    name = "torchleaklint"
    version = __version__

    def __init__(self, tree, filename: str = "stdin", lines=None):
        self.tree = tree
        self.filename = filename
        self.lines = lines or []

    @classmethod
    def parse_options(cls, options) -> None:
        # Read the configuration once, before any file, so a broken one stops flake8 with
        # the file and key named rather than with defaults the user did not ask for.
        try:
            _settings_for(os.getcwd())
        except ConfigError as exc:
            raise SystemExit(f"torchleaklint: error: {exc}") from None

    def run(self) -> Iterator[Tuple[int, int, str, type]]:
        text = "".join(self.lines)
        settings = _settings_for_file(self.filename)
        from torchleaklint.project.run import buffer_view  # imports followed into the project on disk

        project = buffer_view(self.filename, text.encode("utf-8"), settings) if self.filename != "stdin" else None
        for d in check_tree(self.tree, text, self.filename, settings, project=project):
            # flake8 adds 1 to the column a plugin yields (it expects ast's 0-based
            # offsets); our columns are already 1-based, so give back one.
            yield d.line, d.col - 1, f"{d.code} {d.message}", type(self)
