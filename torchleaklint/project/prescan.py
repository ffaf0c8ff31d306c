"""Which modules of a run some other module imports, found from the text before any parse.

A module no other file imports has nobody to read its functions' summaries (what they
return, keep or detach), which are the costly part of summarizing (a data flow per
function): such a module gets a partial summary (its imports, calls, classes and names,
no per-function entries). The scan is a superset by construction (every `import` and
`from ... import` statement the patterns find counts, in strings or comments too); the
exact imports each file's semantic model records are checked after the first round, and a
module the scan missed is summarized again in full (`run.lint_project`), so the scan only
decides what is cheap, never what is found.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Dict, Iterable, Optional, Set

from torchleaklint.project import modules
from torchleaklint.project.packed import Packed
from torchleaklint.kinds import max_bytes
from torchleaklint.source import read_regular_file

_CONTINUATION = re.compile(rb"\\\r?\n")
# no leading \b (it defeats the regex engine's literal prefix search: ten times slower);
# a match preceded by a word character is skipped instead
_FROM = re.compile(rb"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n;#]*)")
_IMPORT = re.compile(rb"import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)")
_NAME = re.compile(rb"[\w.]+")
# `importlib.import_module("pkg.mod")`: a literal module name imported by a call
_IMPORT_MODULE = re.compile(rb"import_module\(\s*[\"']([\w.]+)[\"']\s*\)")
_DEF = re.compile(rb"(?:def|class)[ \t]+(\w+)")


def imported_names(raw: bytes) -> Iterable[tuple]:
    """(dots, module, names) for each import statement found in `raw` (a superset)."""
    if b"import" not in raw:
        return
    text = _CONTINUATION.sub(b" ", raw) if b"\\" in raw else raw
    for match in _FROM.finditer(text):
        if _after_word(text, match.start()):
            continue
        names = [n.decode("ascii", "replace") for n in _NAME.findall(match.group(3)) if n != b"as"]
        yield len(match.group(1)), match.group(2).decode("ascii", "replace"), names
    for match in _IMPORT.finditer(text):
        if _after_word(text, match.start()):
            continue
        for part in match.group(1).split(b","):
            name = part.split()[0].decode("ascii", "replace") if part.split() else ""
            if name:
                yield 0, name, []
    if b"import_module" in text:
        for match in _IMPORT_MODULE.finditer(text):
            yield 0, match.group(1).decode("ascii", "replace"), []


def _after_word(text: bytes, start: int) -> bool:
    return start > 0 and (text[start - 1:start].isalnum() or text[start - 1:start] == b"_")


def defined_names(raw: bytes) -> Set[str]:
    """Every name a `def` or `class` statement of `raw` may define (a superset): a class is
    called to construct it (`DriftSimulator(model)` runs its `__init__`)."""
    # interned: the same names (`forward`, `__init__`, `training_step`) recur in most files,
    # and a project run keeps every file's list until its end
    return {sys.intern(m.group(1).decode("ascii", "replace")) for m in _DEF.finditer(raw)
            if not _after_word(raw, m.start())}


def scan(paths: Iterable[str], known: Optional[Dict[str, list]] = None):
    """(absolute paths of the first-party modules that some file of `paths` may import (a
    file's imports of itself do not count), every function or method name those modules
    may define, and per file [the modules it may import, the names it defines]). Both
    supersets. `known`: per file results of an earlier scan of the same content (the
    summary store's), not scanned again."""
    paths = list(paths)
    known = known or {}
    # a module can only be a file of the run if its last name is one of theirs: most
    # candidates (stdlib, third party) are dismissed without touching the file system
    names = set()
    for path in paths:
        stem = os.path.splitext(os.path.basename(path))[0]
        names.add(os.path.basename(os.path.dirname(os.path.abspath(path))) if stem == "__init__" else stem)
    out: Set[str] = set()
    # packed (on the run's spill file): a list per file, kept for the whole run
    per_file: Dict[str, list] = Packed()
    defined: Dict[str, list] = Packed()  # the names of the files nobody is known yet to import
    for path in paths:
        found = known.get(path)
        if found is None:
            found = scan_file(path, names)
        if found is None:
            continue
        per_file[path] = found
        out.update(found[0])
        if found[1]:
            defined[os.path.abspath(path)] = found[1]
    # only a module some file imports can be called from another module
    defs = {name for path, found in defined.items() if path in out for name in found}
    return out, frozenset(defs), per_file


def scan_file(path: str, names: Set[str]) -> Optional[list]:
    """[the modules `path` may import, the function names it may define]; None if unreadable."""
    absolute = os.path.abspath(path)
    try:
        raw = read_regular_file(path, max_bytes(path) + 1)
    except OSError:
        return None
    defs = sorted(defined_names(raw)) if b"def" in raw and not _builtin_module(absolute) else []
    refs = set()
    for dots, module, imported in imported_names(raw):
        for candidate in _candidates(absolute, dots, module, imported):
            if candidate.rpartition(".")[2] not in names:
                continue
            found = modules.find_module(candidate, absolute)
            if found is not None and found != absolute:
                refs.add(sys.intern(found))  # the same modules are imported by many files
    return [sorted(refs), defs]


def _builtin_module(path: str) -> bool:
    """A module of a package the linter knows built in: never first-party, nobody calls it."""
    return (modules.module_name(path) or "").split(".")[0] in modules.BUILTIN_KNOWLEDGE


def _candidates(path: str, dots: int, module: str, names) -> Iterable[str]:
    base: Optional[str] = module
    if dots:
        base = modules.resolve_relative(path, module or None, dots)
        if base is None:
            return
    if base:
        parts = base.split(".")
        for n in range(1, len(parts) + 1):
            yield ".".join(parts[:n])
    for name in names:
        if name and name != "*":
            yield f"{base}.{name}" if base else name
