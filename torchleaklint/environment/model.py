"""What an environment rule sees: one file, its kind, its text and the parsed model the
kind's reader gives (parsed once, on first use), and what a rule reports."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from torchleaklint.diagnostics import FixSpec
from torchleaklint.environment import DOCKERFILE, DOTENV, SHELL, YAML

# Paths whose YAML is a CI workflow even without tell-tale keys.
_CI_PATH = re.compile(r"(^|/)(\.github/workflows/|\.gitlab-ci|\.circleci/|\.azure/|azure-pipelines|\.buildkite/)")


@dataclass(frozen=True)
class EnvFinding:
    """A finding in an environment file: 1-based line and column, end exclusive."""

    line: int
    col: int
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: Optional[FixSpec] = None


class EnvFile:
    def __init__(self, path: str, kind: str, text: str, lines: List[str]):
        self.path = path
        self.kind = kind
        self.text = text
        self.lines = lines
        self.reads_other_files = False  # set by a rule whose result depends on other files
        self.project_root: Optional[str] = None  # the settings' project root (images built in the repository)
        self._parsed = {}

    @property
    def directory(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    @property
    def is_ci_path(self) -> bool:
        return bool(_CI_PATH.search(self.path.replace(os.sep, "/")))

    def _once(self, key, compute):
        if key not in self._parsed:
            self._parsed[key] = compute()
        return self._parsed[key]

    def documents(self):
        """YAML documents (raises yaml_reader.YamlError when the file does not parse)."""
        assert self.kind == YAML
        from torchleaklint.environment.yaml_reader import parse_documents

        return self._once("documents", lambda: parse_documents(self.text))

    def instructions(self):
        assert self.kind == DOCKERFILE
        from torchleaklint.environment.dockerfile_reader import instructions

        return self._once("instructions", lambda: instructions(self.text))

    def shell_commands(self):
        assert self.kind == SHELL
        from torchleaklint.environment.shell_reader import commands

        return self._once("commands", lambda: commands(self.text))

    def dotenv_assignments(self) -> List[Tuple[str, str, int, int]]:
        assert self.kind == DOTENV
        from torchleaklint.environment.dotenv_reader import assignments

        return self._once("dotenv", lambda: assignments(self.text))
