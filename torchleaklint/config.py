"""Settings: defaults, `[tool.torchleaklint]` in pyproject.toml, then command-line options."""

from __future__ import annotations

import functools
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

# pathspec implements git's wildmatch (`**`, anchoring, `!` negation, `dir/`) exactly as
# .gitignore files use it; hand-written fnmatch matching got `**/x` and `src/**/*.py` wrong.
import pathspec

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
# Rules enabled only when selected by a selector more specific than `TLL` (or `ALL`), as
# ruff's RUF100 is enabled only when selected: turning them on must be a choice.
# TLL002 is a preview rule: measured blind on four fresh sets of public repositories
# (benchmarks/blind/set5..set8) 5 of its 72 triaged findings were right (63 wrong); it stays
# opt-in (`--select TLL002`, `extend-select = ["TLL002"]`) until it meets the precision bar.
PREVIEW_CODES = ("TLL002",)
OPT_IN_CODES = ("TLL902",) + PREVIEW_CODES
# every rule, the preview ones included: what the benchmarks measure
EVERY_RULE = ("TLL",) + PREVIEW_CODES


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
        if code in OPT_IN_CODES and not _selected_explicitly(code, self.select):
            return False
        return _matches(code, self.select) and not _matches(code, self.ignore)

    def enabled_for_path(self, code: str, path: str) -> bool:
        if not self.code_enabled(code):
            return False
        rel = _relative(path, self.project_root)
        for pattern, codes in self.per_file_ignores:
            if _matches(code, codes) and _per_file_pattern_matches(rel, pattern):
                return False
        return True

    def is_excluded(self, path: str, is_dir: Optional[bool] = None) -> bool:
        """Does an exclude pattern match this file or directory? Patterns are gitignore's
        (pathspec): one without `/` matches the entry's own name anywhere (`build`,
        `*.egg-info`); one with `/` matches the path relative to the project root
        (`src/generated/`, `src/**/gen_*.py`); `!pattern` re-includes. Walks check every
        directory on the way down, so an excluded directory excludes everything below it."""
        spec, anchored = _exclude_spec(self.exclude + self.extend_exclude)
        if spec is None:
            return False
        rel = _relative(path, self.project_root) if anchored else ""
        if rel in (".", "") or rel.startswith("../") or rel == "..":  # names only, or outside the root
            rel = os.path.basename(os.path.normpath(path))
        if is_dir if is_dir is not None else os.path.isdir(path):
            rel += "/"
        return spec.match_file(rel)

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
def _exclude_spec(patterns: Tuple[str, ...]):
    """(one compiled gitignore spec, whether a pattern is anchored): `is_excluded` runs for
    every directory and file of a walk, and name patterns need only the entry's name (the
    walk checks every directory on the way down)."""
    if not patterns:
        return None, False
    anchored = any("/" in p.lstrip("!").rstrip("/") or p.lstrip("!").startswith("/") for p in patterns)
    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    return _AnyOf.of(spec) or spec, anchored


class _AnyOf:
    """Without `!` patterns, gitignore's "last match wins" is "any match": one regex made
    of pathspec's per-pattern regexes tests a path in one search instead of one per
    pattern (the default excludes are 21 patterns, tried for every file of a walk)."""

    def __init__(self, regex):
        self.regex = regex

    @classmethod
    def of(cls, spec) -> Optional["_AnyOf"]:
        regexes = [getattr(p, "regex", None) for p in spec.patterns if p.include is not None]
        if not regexes or any(p.include is False for p in spec.patterns) or any(r is None for r in regexes):
            return None
        try:  # pathspec names a group in each pattern; unnamed, they can be joined
            return cls(re.compile("|".join(f"(?:{re.sub(r'[(][?]P<[^>]+>', '(?:', r.pattern)})" for r in regexes)))
        except re.error:
            return None

    def match_file(self, path: str) -> bool:
        return self.regex.match(path) is not None


@functools.lru_cache(maxsize=256)
def _glob(pattern: str):
    return pathspec.GitIgnoreSpec.from_lines([pattern])


@functools.lru_cache(maxsize=4096)
def _per_file_pattern_matches(rel: str, pattern: str) -> bool:
    """A `per-file-ignores` glob (gitignore syntax, relative to the project root); as in
    ruff, a leading `!` negates it: the codes are ignored in every file it does NOT match."""
    if pattern.startswith("!"):
        return not _glob(pattern[1:]).match_file(rel)
    return _glob(pattern).match_file(rel)


def _selected_explicitly(code: str, selectors: Sequence[str]) -> bool:
    return "ALL" in selectors or any(code.startswith(sel) and sel != "TLL" for sel in selectors)


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


# ------------------------------------------------------------------------- loading
_LIST_KEYS = {"select", "ignore", "extend-select", "exclude", "extend-exclude", "per-step-methods",
              "extend-ignore"}
_BOOL_KEYS = {"respect-gitignore", "force-exclude", "project-analysis"}
_TABLE_KEYS = {"per-file-ignores", "extend-per-file-ignores"}
_KNOWN_KEYS = _LIST_KEYS | _BOOL_KEYS | _TABLE_KEYS | {"cache-dir", "extend"}
# In one directory, as ruff ranks `.ruff.toml` > `ruff.toml` > `pyproject.toml`; a
# pyproject.toml counts only when it has a [tool.torchleaklint] table.
CONFIG_NAMES = (".torchleaklint.toml", "torchleaklint.toml", "pyproject.toml")


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


def config_in_directory(directory: Path) -> Optional[Path]:
    """The configuration file of this directory itself (not of its parents), if any."""
    for name in CONFIG_NAMES:
        path = directory / name
        if path.is_file() and (name != "pyproject.toml" or _has_our_table(path)):
            return path
    return None


def _has_our_table(path: Path) -> bool:
    try:
        return "torchleaklint" in _read_toml(path).get("tool", {})
    except ConfigError:
        return True  # broken: loading it reports the error instead of skipping it in silence


def find_config(start: str) -> Optional[Path]:
    """The closest configuration file upward from `start`, else the nearest pyproject.toml
    (its directory is still the project root)."""
    directory = Path(start).resolve()
    for candidate in [directory, *directory.parents]:
        found = config_in_directory(candidate)
        if found is not None:
            return found
    return find_pyproject(start)


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc


def load_settings(config: Optional[str] = None, cwd: str = ".") -> Settings:
    """Settings from `config` (a pyproject.toml or a torchleaklint.toml), or the closest
    configuration upward from `cwd`; defaults when there is none."""
    if config is not None:
        path = Path(config)
        if not path.is_file():
            raise ConfigError(f"{config}: configuration file not found")
    else:
        path = find_config(cwd)
        if path is None:
            return Settings(project_root=os.path.abspath(cwd))
    return load_config_file(path)


def load_config_file(path: Path, _chain: Tuple[str, ...] = ()) -> Settings:
    """Settings of one configuration file, on top of the file it `extend`s (if any)."""
    data = _read_toml(path)
    table = data.get("tool", {}).get("torchleaklint") if path.name == "pyproject.toml" else data
    if table is None:
        table = {}
    base = None
    if isinstance(table, dict) and "extend" in table:
        base = _load_extended(path, table["extend"], _chain)
    return _settings_from_table(table, path, base)


def _load_extended(path: Path, target, chain: Tuple[str, ...]) -> Settings:
    where = f"{path}: [tool.torchleaklint]"
    if not isinstance(target, str):
        raise ConfigError(f"{where}: `extend` must be a path (string), got {target!r}")
    base_path = (path.parent / os.path.expanduser(target)).resolve()
    here = str(path.resolve())
    if str(base_path) in chain + (here,):
        raise ConfigError(f"{where}: `extend` makes a cycle: {' -> '.join(chain + (here, str(base_path)))}")
    if not base_path.is_file():
        raise ConfigError(f"{where}: `extend` names {base_path}, which does not exist")
    return load_config_file(base_path, chain + (here,))


def _settings_from_table(table: dict, path: Path, base: Optional[Settings] = None) -> Settings:
    from torchleaklint.rules import rule_codes

    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.torchleaklint] must be a table")
    known_codes = rule_codes() + list(ENGINE_CODES)
    where = f"{path}: [tool.torchleaklint]"
    root = path.parent.resolve()
    kwargs: Dict[str, object] = {"project_root": str(root), "config_path": str(path)}
    if base is not None:  # ruff's `extend`: this file's keys override, `extend-*` keys add
        kwargs.update(_rerooted(base, root))
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
    if "select" in table or base is None:
        select = tuple(table.get("select", ("TLL",)))
        ignore: Tuple[str, ...] = ()
    else:
        select, ignore = base.select, base.ignore
    select += tuple(table.get("extend-select", ()))
    ignore += tuple(table.get("ignore", ())) + tuple(table.get("extend-ignore", ()))
    kwargs.update(select=select, ignore=ignore)
    if "exclude" in table:
        kwargs["exclude"] = tuple(table["exclude"])
    kwargs["extend_exclude"] = tuple(kwargs.get("extend_exclude", ())) + tuple(table.get("extend-exclude", ()))
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
        kwargs["cache_dir"] = str(root / table["cache-dir"])
    if "per-file-ignores" in table or base is None:
        kwargs["per_file_ignores"] = _per_file_table(table.get("per-file-ignores", {}), "per-file-ignores",
                                                     where, known_codes)
    kwargs["per_file_ignores"] = tuple(kwargs["per_file_ignores"]) + _per_file_table(
        table.get("extend-per-file-ignores", {}), "extend-per-file-ignores", where, known_codes)
    return Settings(**kwargs)


def _per_file_table(pfi, key: str, where: str, known_codes) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    if not isinstance(pfi, dict):
        raise ConfigError(f"{where}: `{key}` must be a table of glob = [codes]")
    entries = []
    for pattern, codes in pfi.items():
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{where}: `{key}.{pattern}` must be a list of codes")
        for code in codes:
            validate_selector(code, known_codes, f"{where}: `{key}.{pattern}`")
        entries.append((pattern, tuple(codes)))
    return tuple(entries)


def _rerooted(base: Settings, root: Path) -> Dict[str, object]:
    """The extended file's settings for a file in `root`: its path patterns were relative
    to its own directory (as in ruff, every path is relative to the file that wrote it)."""
    old = Path(base.project_root)
    values = {f: getattr(base, f) for f in ("select", "ignore", "per_step_methods", "respect_gitignore",
                                            "force_exclude", "cache_dir")}
    values["exclude"] = tuple(p for p in (reroot_pattern(p, old, root) for p in base.exclude) if p)
    values["extend_exclude"] = tuple(p for p in (reroot_pattern(p, old, root) for p in base.extend_exclude) if p)
    values["per_file_ignores"] = tuple((p, codes) for p, codes in
                                       ((reroot_pattern(p, old, root), codes) for p, codes in base.per_file_ignores)
                                       if p)
    return values


def reroot_pattern(pattern: str, old: Path, new: Path) -> Optional[str]:
    """`pattern`, relative to `old`, rewritten relative to `new`; None when it cannot match
    anything below `new`. A pattern without `/` (a name) or starting with `**/` matches at
    any depth and stays as it is."""
    if old == new:
        return pattern
    negated, body = (pattern.startswith("!"), pattern[1:]) if pattern.startswith("!") else (False, pattern)
    trailing = "/" if body.endswith("/") else ""
    core = body.rstrip("/")
    if "/" not in core or core.startswith("**/"):
        return pattern
    target = os.path.normpath(os.path.join(str(old), core.lstrip("/")))
    try:
        rel = os.path.relpath(target, str(new)).replace(os.sep, "/")
    except ValueError:  # another drive on Windows
        return None
    if rel in (".", "..") or rel.startswith("../"):
        return None
    return ("!" if negated else "") + "/" + rel + trailing


def validate_selector(code: str, known: Sequence[str], where: str) -> None:
    if code == "ALL" or any(k.startswith(code) or code.startswith(k) for k in known):
        return
    raise ConfigError(f"{where}: unknown rule code `{code}` (known: {', '.join(k for k in known if len(k) == 6)})")


def with_overrides(settings: Settings, **overrides) -> Settings:
    clean = {k: v for k, v in overrides.items() if v is not None}
    return replace(settings, **clean) if clean else settings
