"""Hierarchical configuration, as ruff resolves it: each file is linted with the closest
configuration file upward from it (`.torchleaklint.toml`, then `torchleaklint.toml`, then a
pyproject.toml with a [tool.torchleaklint] table, in each directory). Files are not merged
along the way; `extend = "../pyproject.toml"` inherits explicitly. A file with no
configuration above it uses the one found from the current directory (else defaults), and
`--config FILE` applies one file to everything. Command-line options apply on top of each.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from torchleaklint.config import CONFIG_NAMES, Settings, config_in_directory, load_config_file, load_settings

Overrides = Callable[[Settings], Settings]


class SettingsResolver:
    def __init__(self, config: Optional[str], cwd: str, overrides: Overrides = lambda s: s, isolated: bool = False):
        self.overrides = overrides
        self.fixed = overrides(load_settings(config, cwd)) if config is not None else None
        if isolated:  # `--isolated`: the defaults for every file, no configuration file read
            self.fixed = overrides(Settings(project_root=os.path.abspath(cwd)))
        self.default = self.fixed or overrides(load_settings(None, cwd))
        self._by_directory: Dict[str, Settings] = {}
        self._by_file: Dict[Path, Settings] = {}

    def for_path(self, path: str) -> Settings:
        """The settings a file (or the entries of a directory) is linted with."""
        if self.fixed is not None:
            return self.fixed
        absolute = os.path.abspath(path)
        return self.for_directory(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))

    def for_directory(self, directory: str, names: Optional[Sequence[str]] = None) -> Settings:
        """`names`: the directory's file names when the caller listed them (a walk), which
        spares the stat of each configuration name in a directory that has none."""
        if self.fixed is not None:
            return self.fixed
        directory = os.path.abspath(directory)
        if names is not None and directory not in self._by_directory \
                and not any(name in names for name in CONFIG_NAMES):
            parent = os.path.dirname(directory)
            if parent != directory:
                self._by_directory[directory] = self.for_directory(parent)
                return self._by_directory[directory]
        pending: List[str] = []
        found: Optional[Settings] = None
        while found is None:  # walk up to the first directory already known or configured
            if directory in self._by_directory:
                found = self._by_directory[directory]
                break
            pending.append(directory)
            config = config_in_directory(Path(directory))
            if config is not None:
                found = self._load(config)
                break
            parent = os.path.dirname(directory)
            if parent == directory:
                found = self.default
                break
            directory = parent
        for seen in pending:
            self._by_directory[seen] = found
        return found

    def _load(self, config: Path) -> Settings:
        config = config.resolve()
        if config not in self._by_file:
            self._by_file[config] = self.overrides(load_config_file(config))
        return self._by_file[config]

    def group(self, files: Sequence[str]) -> List[Tuple[Settings, List[str]]]:
        """`files` by the settings they are linted with, each group in the files' order."""
        groups: Dict[Settings, List[str]] = {}
        for path in files:
            groups.setdefault(self.for_path(path), []).append(path)
        return list(groups.items())
