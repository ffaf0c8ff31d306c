"""A persistent per-file cache of diagnostics, so an unchanged file costs a stat and a lookup.

One cache file per (torchleaklint version, hash of the package's own source, Python version,
effective configuration, project root) under `<cache_dir>/<version>/`; it maps each linted
file's absolute path to the stat it had (size, mtime, ctime, inode, device, mode), a hash of
the content that was linted, when that content was read, and the diagnostics found
(without their path, so a file named differently on the command line still hits).

An entry is valid for a file's *content*: a matching content hash reuses it. A matching stat
is only a shortcut that skips reading the file, taken when the file's mtime and ctime are
safely older than the moment its content was read for the entry (git's rule for "racily
clean" files): a same-size edit within one timestamp tick (1 s or 2 s filesystems) cannot
keep the stat, and an edit whose mtime was restored (`cp -p`, `rsync -t`, `tar -x`) changes
the ctime, which no tool can set.

What depends on the run rather than on the file is never stored: a time-out (TLL900
"analysis took longer"), code too deep for this process's recursion limit, an internal
error (TLL901), a file that could not be read.

The file is a checksum line then JSON (data only: a shared cache directory cannot make a
lint run code), written to a temporary file then `os.replace`d, so a concurrent run sees
the old file or the new one, never half of one. On load every entry is checked field by field; one that does not
have exactly the expected shape is dropped, never trusted and never a crash.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from torchleaklint import __version__
from torchleaklint.diagnostics import ERROR, WARNING, Diagnostic, Evidence, FixSpec, Span
from torchleaklint.source import INTERNAL_ERROR, SYNTAX_ERROR, read_regular_file

DEFAULT_DIR_NAME = ".torchleaklint_cache"
FORMAT = "torchleaklint-cache-3"
# A stat is trusted only for files last changed this long before their content was read.
# 2 s: the coarsest timestamps in use (FAT); 1 s on ext3, HFS+, many network filesystems.
RACY_MARGIN_NS = 2_000_000_000
MAX_CACHE_BYTES = 1 << 30
# TLL900 messages that describe this run, not the file.
_TRANSIENT_MESSAGES = ("analysis took longer", "nested too deeply", "cannot read file")

Stat = Tuple[int, int, int, int, int, int]  # size, mtime_ns, ctime_ns, inode, device, mode
# stat, content hash, diagnostics without path, when the content was read (time.time_ns)
Entry = Tuple[Stat, bytes, tuple, int, Optional[str]]  # stat, content hash, diagnostics, read time, dependencies

_package_hash: Optional[str] = None


def package_source_hash() -> str:
    """Hash of torchleaklint's own .py files: editing a rule invalidates every entry."""
    global _package_hash
    if _package_hash is None:
        digest = hashlib.sha256()
        root = Path(__file__).resolve().parent
        for path in sorted(root.rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
        _package_hash = digest.hexdigest()
    return _package_hash


def content_hash(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=16).digest()


def file_stat(path: str) -> Optional[Stat]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, st.st_mode)


def cacheable(diagnostics: List[Diagnostic]) -> bool:
    """False when the result depends on this run (a time-out, an internal error...)."""
    for d in diagnostics:
        if d.code == INTERNAL_ERROR:
            return False
        if d.code == SYNTAX_ERROR and any(m in d.message for m in _TRANSIENT_MESSAGES):
            return False
    return True


def pack(diagnostics: List[Diagnostic]) -> tuple:
    return tuple((d.line, d.col, d.code, d.message, d.end_line, d.end_col, d.fix, d.severity,
                  tuple(d.evidence), d.cell) for d in diagnostics)


def unpack(path: str, packed: tuple) -> List[Diagnostic]:
    return [Diagnostic(path, *values) for values in packed]


class Cache:
    """Load once, look up and record per file, save once at the end of the run."""

    def __init__(self, directory: str, settings):
        self.directory = Path(directory)
        key = hashlib.sha256(repr((
            __version__, package_source_hash(), sys.version, sys.implementation.cache_tag,
            settings.fingerprint(), os.path.abspath(settings.project_root),
        )).encode()).hexdigest()[:24]
        self.path = self.directory / __version__ / f"{key}.json"
        self.entries, self._run, self._checksum = _load_all(self.path)
        self._changed: Dict[str, Entry] = {}
        self._claim: Optional[str] = None

    # A project run's key (its files) is stored with the cache when, at the end of that run,
    # every file of it had an entry recorded with the dependencies that run computed. The
    # next run over the same files, with no summary changed, can then take each entry as it
    # is, without computing any fingerprint (`run.lint_project`). Any later write by a run
    # that does not claim its key, or by a concurrent process, drops it.
    def trusts_run(self, key: str) -> bool:
        return self._run == key

    def claim_run(self, key: str) -> None:
        self._claim = key

    def recorded_deps(self, path: str) -> Tuple[bool, Optional[str]]:
        """(whether `path` has an entry, the dependencies it was recorded with)."""
        entry = self.entries.get(os.path.abspath(path))
        return (False, None) if entry is None else (True, entry[4])

    def lookup_recorded(self, path: str, stat: Optional[Stat]) -> Optional[Tuple[List[Diagnostic], Optional[str]]]:
        """(diagnostics, dependencies) of `path`'s entry if its content is the one recorded,
        whatever dependencies the entry was recorded with (a trusted run's)."""
        entry = self.entries.get(os.path.abspath(path))
        if entry is None:
            return None
        found = self.lookup(path, stat, deps=entry[4])
        return None if found is None else (found, entry[4])

    def lookup(self, path: str, stat: Optional[Stat], deps: Optional[str] = None) -> Optional[List[Diagnostic]]:
        """Cached diagnostics for `path` if its content is the one recorded; None on a miss.
        `deps` (whole-project runs) is the fingerprint of the summaries of other modules the
        file's check read (`torchleaklint.project.fingerprint`): an entry recorded with another
        is a miss."""
        if stat is None:
            return None
        entry = self.entries.get(os.path.abspath(path))
        if entry is None or entry[0][0] != stat[0] or entry[4] != deps:  # no entry, other size or dependencies
            return None
        if entry[0] == stat and _safely_older(stat, entry[3]):
            return unpack(path, entry[2])
        return self._lookup_by_content(path, stat, entry)

    def _lookup_by_content(self, path: str, stat: Stat, entry: Entry) -> Optional[List[Diagnostic]]:
        from torchleaklint.kinds import max_bytes

        read_at = time.time_ns()
        try:
            raw = read_regular_file(path, max_bytes(path) + 1)
        except OSError:
            return None
        if content_hash(raw) != entry[1]:
            return None
        self.record(path, stat, entry[1], unpack(path, entry[2]), read_at, entry[4])
        return unpack(path, entry[2])

    def record(self, path: str, stat: Optional[Stat], digest: Optional[bytes], diagnostics: List[Diagnostic],
               read_at: Optional[int] = None, deps: Optional[str] = None) -> None:
        """Remember `diagnostics` for the content hashed `digest`, read at `read_at` (taken
        before `stat`; time.time_ns), computed with the summaries fingerprinted `deps`.
        Without `read_at` the stat is never trusted alone."""
        if stat is None or digest is None or not cacheable(diagnostics):
            return
        packed = pack(diagnostics)
        if any(_fix_from_json(_fix_to_json(values[6])) != values[6] for values in packed):
            return  # a fix parameter JSON cannot carry exactly: do not cache this file
        entry = (stat, digest, packed, read_at or 0, deps)
        key = os.path.abspath(path)
        self.entries[key] = entry
        self._changed[key] = entry

    def save(self) -> None:
        """Merge with what a concurrent run may have written meanwhile, then replace atomically.
        A cache that cannot be written (read-only checkout) is silently skipped."""
        if not self._changed and self._claim == self._run:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _write_gitignore(self.directory)
            merged, _, checksum = _load_all(self.path)
            merged.update(self._changed)
            # the run's claim holds only if no other process wrote since this one loaded
            run = self._claim if checksum == self._checksum else None
            payload = json.dumps({"format": FORMAT, "entries": {p: _entry_to_json(e) for p, e in merged.items()},
                                  "run": run}, separators=(",", ":")).encode("utf-8", "surrogateescape")
            blob = f"{FORMAT} {hashlib.sha256(payload).hexdigest()}\n".encode() + payload
            import tempfile  # only runs that analyzed something write

            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(blob)
                os.replace(tmp, self.path)
            except BaseException:
                _unlink(tmp)
                raise
        except (OSError, ValueError):
            return
        self._changed.clear()
        self._run, self._checksum = run, hashlib.sha256(payload).hexdigest()


def _safely_older(stat: Stat, read_at: int) -> bool:
    return max(stat[1], stat[2]) < read_at - RACY_MARGIN_NS


# ------------------------------------------------------------------ JSON, checked on load
def _entry_to_json(entry: Entry) -> dict:
    stat, digest, packed, read_at, deps = entry
    return {"stat": list(stat), "hash": digest.hex(), "read_at": read_at, "deps": deps,
            "diagnostics": [[*values[:6], _fix_to_json(values[6]), values[7],
                             [[e.line, e.col, e.message] for e in values[8]], values[9]] for values in packed]}


def _fix_to_json(fix: Optional[FixSpec]):
    if fix is None:
        return None
    t = fix.target
    return {"codemod": fix.codemod, "safety": fix.safety, "title": fix.title,
            "target": [t.line, t.col, t.end_line, t.end_col],
            "params": [[key, _value_to_json(value)] for key, value in fix.params]}


def _value_to_json(value):
    """Fix parameters are str/int/bool/None and tuples of them; tuples are tagged so that
    they come back as tuples."""
    if isinstance(value, tuple):
        return {"tuple": [_value_to_json(v) for v in value]}
    if isinstance(value, Span):
        return {"span": [value.line, value.col, value.end_line, value.end_col]}
    return value


class _Invalid(Exception):
    """An entry that is not exactly what `save` writes."""


def _load(path: Path) -> Dict[str, Entry]:
    return _load_all(path)[0]


def _load_all(path: Path) -> Tuple[Dict[str, Entry], Optional[str], Optional[str]]:
    """(entries, the run key stored with them, the checksum of the file read)."""
    try:
        blob = read_regular_file(str(path), MAX_CACHE_BYTES + 1)  # a FIFO planted there is refused
        header, _, payload = blob.partition(b"\n")
        checksum = hashlib.sha256(payload).hexdigest()
        # The checksum catches a torn or damaged file; it is no protection against a crafted
        # one (anyone can compute it): that is what checking every entry is for.
        if len(blob) > MAX_CACHE_BYTES or header != f"{FORMAT} {checksum}".encode():
            return {}, None, None
        data = json.loads(payload.decode("utf-8", "surrogateescape"))
    except (OSError, ValueError, RecursionError, UnicodeError):
        return {}, None, None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), dict):
        return {}, None, None
    entries: Dict[str, Entry] = {}
    bad = False
    for key, raw in data["entries"].items():
        try:
            entries[key] = _entry_from_json(raw)
        except (_Invalid, ValueError, TypeError, RecursionError):
            bad = True  # one bad entry costs that file a re-lint, nothing more
    run = data.get("run")
    # a dropped entry breaks the run's claim that every file has one
    return entries, run if isinstance(run, str) and not bad else None, checksum


def _entry_from_json(raw) -> Entry:
    _expect(isinstance(raw, dict) and set(raw) == {"stat", "hash", "read_at", "deps", "diagnostics"})
    _expect(raw["deps"] is None or isinstance(raw["deps"], str))
    stat = raw["stat"]
    _expect(isinstance(stat, list) and len(stat) == 6 and all(_is_int(v) for v in stat))
    digest = raw["hash"]
    _expect(isinstance(digest, str) and len(digest) == 32)
    _expect(_is_int(raw["read_at"]) and isinstance(raw["diagnostics"], list))
    return (tuple(stat), bytes.fromhex(digest), tuple(_diagnostic_from_json(d) for d in raw["diagnostics"]),
            raw["read_at"], raw["deps"])


def _diagnostic_from_json(raw) -> tuple:
    _expect(isinstance(raw, list) and len(raw) == 10)
    line, col, code, message, end_line, end_col, fix, severity, evidence, cell = raw
    _expect(all(_is_int(v) and v >= 0 for v in (line, col, end_line, end_col)) and line >= 1 and col >= 1)
    _expect(isinstance(code, str) and isinstance(message, str) and severity in (ERROR, WARNING))
    _expect(cell is None or (_is_int(cell) and cell >= 1))
    _expect(isinstance(evidence, list) and all(
        isinstance(e, list) and len(e) == 3 and _is_int(e[0]) and _is_int(e[1]) and isinstance(e[2], str)
        for e in evidence))
    return (line, col, code, message, end_line, end_col, _fix_from_json(fix), severity,
            tuple(Evidence(*e) for e in evidence), cell)


def _fix_from_json(raw) -> Optional[FixSpec]:
    if raw is None:
        return None
    _expect(isinstance(raw, dict) and set(raw) == {"codemod", "safety", "title", "target", "params"})
    _expect(all(isinstance(raw[k], str) for k in ("codemod", "safety", "title")))
    target, params = raw["target"], raw["params"]
    _expect(isinstance(target, list) and len(target) == 4 and all(_is_int(v) for v in target))
    _expect(isinstance(params, list) and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                                             for p in params))
    return FixSpec(raw["codemod"], raw["safety"], raw["title"], Span(*target),
                   tuple((key, _value_from_json(value)) for key, value in params))


def _value_from_json(raw):
    if isinstance(raw, dict):
        _expect(len(raw) == 1)
        if "tuple" in raw and isinstance(raw["tuple"], list):
            return tuple(_value_from_json(v) for v in raw["tuple"])
        if "span" in raw and isinstance(raw["span"], list) and len(raw["span"]) == 4 \
                and all(_is_int(v) for v in raw["span"]):
            return Span(*raw["span"])
        raise _Invalid()
    _expect(raw is None or isinstance(raw, (str, int, float, bool)))
    return raw


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _expect(condition: bool) -> None:
    if not condition:
        raise _Invalid()


def _write_gitignore(directory: Path) -> None:
    gitignore = directory / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text("# Automatically created by torchleaklint.\n*\n")


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
