"""Settings: defaults, `[tool.torchleaklint]` in pyproject.toml, then command-line options."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", ".env", "env", "__pycache__",
    "build", "dist", "site-packages", "node_modules", ".mypy_cache", ".pytest_cache",
    ".ruff_cache", ".torchleaklint_cache", ".eggs", "*.egg-info", ".ipynb_checkpoints",
)
PER_STEP_DEFAULT = ("forward", "__call__", "step", "training_step", "*_step")
# The engine's own codes (unparsable file, internal error): selectable like rules. Listed
# one by one so that a typo such as `TLL999` is an unknown code, not a match of `TLL9`.
ENGINE_CODES = ("TLL900", "TLL901")


class ConfigError(Exception):
    """A configuration problem the user must fix; reported with exit status 2."""


@dataclass(frozen=True)
class Settings:
    select: Tuple[str, ...] = ("TLL",)
    ignore: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    per_step_methods: Tuple[str, ...] = PER_STEP_DEFAULT
    respect_gitignore: bool = True
    force_exclude: bool = False
    project_root: str = "."
    config_path: Optional[str] = None
    cache_dir: Optional[str] = None  # None: `.torchleaklint_cache` in project_root
    project_analysis: bool = True  # follow imports across the modules of a project (issue 14)
    rule_options: Dict[str, Dict[str, object]] = field(default_factory=dict, compare=False, hash=False)

    def code_enabled(self, code: str) -> bool:
        return _matches(code, self.select) and not _matches(code, self.ignore)

    def enabled_for_path(self, code: str, path: str) -> bool:
        if not self.code_enabled(code):
            return False
        rel = _relative(path, self.project_root)
        for pattern, codes in self.per_file_ignores:
            if _path_matches(rel, pattern) and _matches(code, codes):
                return False
        return True

    def is_excluded(self, path: str) -> bool:
        """Does an exclude pattern match this file or directory? A pattern without `/`
        matches the entry's own name (`build`, `*.egg-info`); a pattern with `/` matches
        the path relative to the project root (`src/generated/*`). Walks check every
        directory on the way down, so a name pattern excludes everything below it."""
        name_patterns, path_patterns = _split_patterns(self.exclude + self.extend_exclude)
        if name_patterns is not None and name_patterns.match(os.path.basename(os.path.normpath(path))):
            return True
        if path_patterns:
            rel = _relative(path, self.project_root)
            return any(_path_matches(rel, pattern) for pattern in path_patterns)
        return False

    def is_excluded_below(self, path: str) -> bool:
        """For an explicitly named file (pre-commit): excluded if the file or any parent
        directory inside the project root is."""
        rel = _relative(path, self.project_root)
        if rel.startswith(".."):
            return self.is_excluded(path)
        current = self.project_root
        for part in Path(rel).parts:
            current = os.path.join(current, part)
            if self.is_excluded(current):
                return True
        return False

    def fingerprint(self) -> str:
        """What changes diagnostics: part of the cache key."""
        return repr((self.select, self.ignore, self.per_file_ignores, self.per_step_methods,
                     sorted((k, sorted(v.items())) for k, v in self.rule_options.items()))) \
            + ("" if self.project_analysis else " per-file")


@functools.lru_cache(maxsize=32)
def _split_patterns(patterns: Tuple[str, ...]):
    """(one compiled regex for the name patterns, the path patterns): `is_excluded` runs
    for every directory and file of a walk."""
    names = [p.rstrip("/") for p in patterns if "/" not in p.rstrip("/")]
    paths = tuple(p for p in patterns if "/" in p.rstrip("/"))
    regex = re.compile("|".join(f"(?:{fnmatch.translate(n)})" for n in names)) if names else None
    return regex, paths


def _matches(code: str, selectors: Sequence[str]) -> bool:
    return any(code.startswith(sel) for sel in selectors) or "ALL" in selectors


def _relative(path: str, root: str) -> str:
    absolute = os.path.abspath(path)
    prefix = _root_prefix(root)
    if absolute.startswith(prefix) and absolute != prefix:  # the common case, without relpath's
        return absolute[len(prefix):].replace(os.sep, "/")  # second normalization
    try:
        return os.path.relpath(absolute, os.path.abspath(root)).replace(os.sep, "/")
    except ValueError:  # different drive on Windows
        return path.replace(os.sep, "/")


@functools.lru_cache(maxsize=16)
def _root_prefix(root: str) -> str:
    absolute = os.path.abspath(root)
    return absolute if absolute.endswith(os.sep) else absolute + os.sep


@functools.lru_cache(maxsize=16)
def _path_matches(rel: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    return fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, pattern + "/*") or \
        fnmatch.fnmatchcase(os.path.basename(rel), pattern)


# ------------------------------------------------------------------------- loading
_LIST_KEYS = {"select", "ignore", "extend-select", "exclude", "extend-exclude", "per-step-methods",
              "extend-ignore"}
_BOOL_KEYS = {"respect-gitignore", "force-exclude", "project-analysis"}
_KNOWN_KEYS = _LIST_KEYS | _BOOL_KEYS | {"per-file-ignores", "cache-dir"}


def find_pyproject(start: str) -> Optional[Path]:
    """The nearest pyproject.toml upward from `start` that has a [tool.torchleaklint] table,
    or else the nearest pyproject.toml at all."""
    directory = Path(start).resolve()
    first = None
    for candidate in [directory, *directory.parents]:
        path = candidate / "pyproject.toml"
        if path.is_file():
            first = first or path
            try:
                data = _read_toml(path)
            except ConfigError:
                return path
            if "torchleaklint" in data.get("tool", {}):
                return path
    return first


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc


def load_settings(config: Optional[str] = None, cwd: str = ".") -> Settings:
    """Settings from `config` (a pyproject.toml or a torchleaklint.toml), or the nearest
    pyproject.toml; defaults when there is none."""
    if config is not None:
        path = Path(config)
        if not path.is_file():
            raise ConfigError(f"{config}: configuration file not found")
    else:
        path = find_pyproject(cwd)
        if path is None:
            return Settings(project_root=os.path.abspath(cwd))
    data = _read_toml(path)
    table = data.get("tool", {}).get("torchleaklint") if path.name == "pyproject.toml" else data
    if table is None:
        table = {}
    return _settings_from_table(table, path)


def _settings_from_table(table: dict, path: Path) -> Settings:
    from torchleaklint.rules import rule_codes

    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.torchleaklint] must be a table")
    known_codes = rule_codes() + list(ENGINE_CODES)
    where = f"{path}: [tool.torchleaklint]"
    kwargs: Dict[str, object] = {"project_root": str(path.parent.resolve()), "config_path": str(path)}
    for key, value in table.items():
        if key not in _KNOWN_KEYS:
            raise ConfigError(f"{where}: unknown key `{key}` (known: {', '.join(sorted(_KNOWN_KEYS))})")
        if key in _LIST_KEYS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: `{key}` must be a list of strings, got {value!r}")
        if key in _BOOL_KEYS and not isinstance(value, bool):
            raise ConfigError(f"{where}: `{key}` must be true or false, got {value!r}")
    for key in ("select", "ignore", "extend-select", "extend-ignore"):
        for code in table.get(key, []):
            validate_selector(code, known_codes, f"{where}: `{key}`")
    select = tuple(table.get("select", ("TLL",))) + tuple(table.get("extend-select", ()))
    ignore = tuple(table.get("ignore", ())) + tuple(table.get("extend-ignore", ()))
    kwargs.update(select=select, ignore=ignore)
    if "exclude" in table:
        kwargs["exclude"] = tuple(table["exclude"])
    kwargs["extend_exclude"] = tuple(table.get("extend-exclude", ()))
    if "per-step-methods" in table:
        kwargs["per_step_methods"] = tuple(table["per-step-methods"])
    if "respect-gitignore" in table:
        kwargs["respect_gitignore"] = table["respect-gitignore"]
    if "force-exclude" in table:
        kwargs["force_exclude"] = table["force-exclude"]
    if "project-analysis" in table:
        kwargs["project_analysis"] = table["project-analysis"]
    if "cache-dir" in table:
        if not isinstance(table["cache-dir"], str):
            raise ConfigError(f"{where}: `cache-dir` must be a string, got {table['cache-dir']!r}")
        kwargs["cache_dir"] = str(path.parent.resolve() / table["cache-dir"])
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
    entries = []
    for pattern, codes in pfi.items():
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{where}: `per-file-ignores.{pattern}` must be a list of codes")
        for code in codes:
            validate_selector(code, known_codes, f"{where}: `per-file-ignores.{pattern}`")
        entries.append((pattern, tuple(codes)))
    kwargs["per_file_ignores"] = tuple(entries)
    return Settings(**kwargs)


def validate_selector(code: str, known: Sequence[str], where: str) -> None:
    if code == "ALL" or any(k.startswith(code) or code.startswith(k) for k in known):
        return
    raise ConfigError(f"{where}: unknown rule code `{code}` (known: {', '.join(k for k in known if len(k) == 6)})")


def with_overrides(settings: Settings, **overrides) -> Settings:
    clean = {k: v for k, v in overrides.items() if v is not None}
    return replace(settings, **clean) if clean else settings
