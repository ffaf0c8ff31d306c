"""Files that set a training job's environment up, beyond the Python code: Compose files,
Kubernetes manifests, CI workflows (all YAML), Dockerfiles, shell scripts and `.env` files.

Each kind has a reader that turns a file into a small model with positions
(`yaml_reader`, `dockerfile_reader`, `shell_reader`, `dotenv_reader`); `engine.lint_environment`
runs the environment rules (TLL101, TLL102) over it and returns the same `Diagnostic`
objects as the Python pipeline, so output formats, noqa, per-file-ignores and the cache
need nothing new. This module is imported by file discovery: keep it free of heavy imports.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Optional

PYTHON = "python"
YAML = "yaml"  # Compose, Kubernetes, CI workflows: told apart per document by content
DOCKERFILE = "dockerfile"
SHELL = "shell"
DOTENV = "dotenv"
ENVIRONMENT_KINDS = (YAML, DOCKERFILE, SHELL, DOTENV)

# The rules that read environment files; file discovery walks for them only when one of
# these is selected (TLL103 reads Python only).
ENVIRONMENT_CODES = ("TLL101", "TLL102")

_DOCKERFILE_NAMES = ("Dockerfile", "Dockerfile.*", "*.Dockerfile", "*.dockerfile", "Containerfile",
                     "Containerfile.*", "dockerfile")
_DOTENV_NAMES = (".env", ".env.*", "*.env")
_SHELL_SUFFIXES = (".sh", ".bash")
_YAML_SUFFIXES = (".yml", ".yaml")


def environment_kind(path: str) -> Optional[str]:
    """The kind of environment file `path` names, or None (Python or anything else)."""
    name = os.path.basename(path)
    lower = name.lower()
    if lower.endswith(_YAML_SUFFIXES):
        return YAML
    if lower.endswith(_SHELL_SUFFIXES):
        return SHELL
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in _DOCKERFILE_NAMES):
        return DOCKERFILE
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in _DOTENV_NAMES) and not lower.endswith((".py", ".pyi")):
        return DOTENV
    return None


def environment_rules_selected(settings) -> bool:
    return any(settings.code_enabled(code) for code in ENVIRONMENT_CODES)


# A TLL900 for a YAML file that does not parse carries this prefix; the command line drops
# it for files found by walking a directory (repositories hold many templated YAML files)
# and keeps it for files named explicitly.
YAML_PARSE_ERROR_PREFIX = "YAML does not parse"


def is_quiet_parse_error(diagnostic) -> bool:
    return diagnostic.code == "TLL900" and diagnostic.message.startswith(YAML_PARSE_ERROR_PREFIX)


def drop_walked_parse_errors(results, explicit_paths):
    """`results` ((path, diagnostics) pairs) without the YAML parse errors of files that
    were not named on the command line."""
    explicit = {os.path.normpath(p) for p in explicit_paths}
    out = []
    for path, diagnostics in results:
        if os.path.normpath(path) not in explicit and any(is_quiet_parse_error(d) for d in diagnostics):
            diagnostics = [d for d in diagnostics if not is_quiet_parse_error(d)]
        out.append((path, diagnostics))
    return out
