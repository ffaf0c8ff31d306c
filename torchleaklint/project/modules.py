"""Where a project's first-party modules live: project root, source roots, module names.

The project root is the nearest directory upward from a file holding `pyproject.toml`,
`setup.cfg`, `setup.py` or `.git`; failing that, the parent of the outermost package
(`__init__.py` chain) around the file. Modules are looked up under `<root>/src` (a `src/`
layout) and `<root>`, and, for a script in a directory that is not a package, next to the
script (Python puts a script's directory first on `sys.path`).

Packages whose behaviour the linter knows built in (torch, ray, lightning, transformers,
accelerate, ...) are never first-party, even when a checkout of them is being linted: the
built-in knowledge is what the rules rely on.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import List, Optional

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
BUILTIN_KNOWLEDGE = frozenset({
    "torch", "torchvision", "torchaudio", "torchtext", "ray", "lightning", "pytorch_lightning",
    "lightning_fabric", "transformers", "accelerate", "numpy", "pandas", "datasets", "deepspeed",
})


# The root of a run's files that lie under no marker: the directory the run started in (the
# settings' project root: the working directory, or the configuration file's). A checkout
# without pyproject.toml, setup.* or .git (an archive, a copied folder) is still one project,
# as ruff takes the working directory for its project root.
_FALLBACK_ROOT: Optional[str] = None


def use_fallback_root(root: Optional[str]) -> None:
    global _FALLBACK_ROOT
    root = os.path.abspath(root) if root else None
    if root == os.path.dirname(root or "") or root == os.path.expanduser("~"):
        root = None  # never the whole file system or the home directory
    if root != _FALLBACK_ROOT:
        _FALLBACK_ROOT = root
        project_root.cache_clear()
        source_roots.cache_clear()
        _find_module.cache_clear()


@lru_cache(maxsize=4096)
def project_root(directory: str) -> Optional[str]:
    """The project root for files in `directory` (absolute), or None."""
    current = directory
    while True:
        if any(os.path.exists(os.path.join(current, marker)) for marker in ROOT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    fallback = _FALLBACK_ROOT
    if fallback and (directory == fallback or directory.startswith(fallback + os.sep)) \
            and not _inside_installed_packages(directory):
        return fallback
    top = None
    current = directory
    while os.path.isfile(os.path.join(current, "__init__.py")):
        top = current
        current = os.path.dirname(current)
    return os.path.dirname(top) if top else None


def _has_marker(root: str) -> bool:
    return root == _FALLBACK_ROOT or any(os.path.exists(os.path.join(root, marker)) for marker in ROOT_MARKERS)


def _inside_installed_packages(directory: str) -> bool:
    parts = directory.split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts


@lru_cache(maxsize=4096)
def source_roots(root: str) -> List[str]:
    roots = []
    src = os.path.join(root, "src")
    if os.path.isdir(src):
        roots.append(src)
    roots.append(root)
    return roots


def module_name(path: str) -> Optional[str]:
    """`pkg.mod` for `<source root>/pkg/mod.py` (`pkg` for `pkg/__init__.py`), or None."""
    path = os.path.abspath(path)
    root = project_root(os.path.dirname(path))
    if root is None:
        return None
    for base in source_roots(root):
        if path.startswith(base + os.sep):
            rel = os.path.relpath(path, base)
            parts = rel[:-3].split(os.sep) if rel.endswith(".py") else None
            if not parts:
                return None
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts and all(p.isidentifier() for p in parts):
                return ".".join(parts)
    return None


def name_from(path: str, importer: str) -> Optional[str]:
    """A module name under which `importer` finds `path`: its name from the source root, or,
    for a module outside any importable package (`deq-zoo/deq-lm/models/net.py`, imported as
    `models.net` by the script beside it), its name from one of the importer's directories."""
    name = module_name(path)
    if name is not None:
        return name
    path = os.path.abspath(path)
    directory = os.path.dirname(os.path.abspath(importer))
    for _ in range(6):
        if path.startswith(directory + os.sep):
            parts = os.path.relpath(path, directory)[:-3].split(os.sep) if path.endswith(".py") else []
            if parts and parts[-1] == "__init__":
                parts = parts[:-1]
            if parts and all(p.isidentifier() for p in parts) and find_module(".".join(parts), importer) == path:
                return ".".join(parts)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return None


def is_package_init(path: str) -> bool:
    return os.path.basename(path) == "__init__.py"


def package_of(path: str) -> Optional[str]:
    """The package relative imports of `path` start from."""
    name = module_name(path)
    if name is None:
        return None
    if is_package_init(path):
        return name
    return name.rpartition(".")[0]


def resolve_relative(path: str, module: Optional[str], level: int) -> Optional[str]:
    """The absolute module of `from <dots><module> import ...` written in `path`."""
    package = package_of(path)
    if package is None:
        return None
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[:len(parts) - (level - 1)]
    if module:
        base = base + module.split(".")
    return ".".join(base) if base else None


def find_module(name: str, importer: str) -> Optional[str]:
    """The file of first-party module `name` as `importer` would import it, or None."""
    if not name or name.split(".")[0] in BUILTIN_KNOWLEDGE:
        return None
    return _find_module(name, os.path.dirname(os.path.abspath(importer)))


@lru_cache(maxsize=8192)  # bounded: its paths would otherwise grow with the project
def _find_module(name: str, directory: str) -> Optional[str]:
    root = project_root(directory)
    bases = list(source_roots(root)) if root else []
    if root and not _has_marker(root):
        # a package found by its __init__.py chain alone (an installed package in
        # site-packages): only that package is first-party, not its neighbours
        top = os.path.relpath(directory, root).split(os.sep)[0]
        if name.split(".")[0] != top:
            return None
    if not os.path.isfile(os.path.join(directory, "__init__.py")) and directory not in bases:
        bases.append(directory)  # a script's directory is on sys.path when it runs
    if root:
        # the directory of the script that runs this code may be any ancestor up to the root
        # (`segmentation/test_time.py` runs `methods/gtta.py`, which imports `methods.base`
        # from `segmentation/`, a namespace package without `__init__.py`)
        ancestor = os.path.dirname(directory)
        for _ in range(6):
            if not ancestor.startswith(root + os.sep):
                break
            if ancestor not in bases and not os.path.isfile(os.path.join(ancestor, "__init__.py")):
                bases.append(ancestor)
            ancestor = os.path.dirname(ancestor)
    rel = name.replace(".", os.sep)
    for base in bases:
        for candidate in (os.path.join(base, rel + ".py"), os.path.join(base, rel, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None
