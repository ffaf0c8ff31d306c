"""A persistent per-file cache of diagnostics, so an unchanged file costs a stat and a lookup.

One cache file per (torchleaklint version, hash of the package's own source, effective
configuration, project root) under `<cache_dir>/<version>/`; it maps each linted file's
absolute path to the stat it had (size, mtime, mode), a hash of the content that was
linted, and the diagnostics found (without their path, so a file named differently on the
command line still hits). As in ruff, a matching stat is trusted; when only the stat
differs (a `touch`, a checkout), a matching content hash still reuses the entry.

The file on disk is `MAGIC + sha256(payload) + payload`; anything that does not verify is
discarded, never trusted. Writes go to a temporary file then `os.replace`, so a concurrent
run sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from dataclasses import fields
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from torchleaklint import __version__
from torchleaklint.diagnostics import Diagnostic

DEFAULT_DIR_NAME = ".torchleaklint_cache"
MAGIC = b"TLLCACHE1\n"
_DIGEST_SIZE = 32
# Diagnostic fields after `path`, in order: what an entry stores.
_FIELDS = tuple(f.name for f in fields(Diagnostic))[1:]

Stat = Tuple[int, int, int]  # size, mtime_ns, mode
Entry = Tuple[Stat, bytes, tuple]  # stat, content hash, diagnostics without path

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
    return (st.st_size, st.st_mtime_ns, st.st_mode)


def pack(diagnostics: List[Diagnostic]) -> tuple:
    return tuple(tuple(getattr(d, name) for name in _FIELDS) for d in diagnostics)


def unpack(path: str, packed: tuple) -> List[Diagnostic]:
    return [Diagnostic(path, *values) for values in packed]


class Cache:
    """Load once, look up and record per file, save once at the end of the run."""

    def __init__(self, directory: str, settings):
        self.directory = Path(directory)
        key = hashlib.sha256(repr((
            __version__, package_source_hash(), settings.fingerprint(),
            os.path.abspath(settings.project_root),
        )).encode()).hexdigest()[:24]
        self.path = self.directory / __version__ / f"{key}.cache"
        self.entries: Dict[str, Entry] = _load(self.path)
        self._changed: Dict[str, Entry] = {}

    def lookup(self, path: str, stat: Optional[Stat], deps: Optional[str] = None) -> Optional[List[Diagnostic]]:
        """Cached diagnostics for `path` if its stat matches; None on a miss. `deps` (whole-
        project runs) is the fingerprint of the summaries of other modules the file's check
        read (`torchleaklint.project.fingerprint`): an entry recorded with another is a miss."""
        if stat is None:
            return None
        entry = self.entries.get(os.path.abspath(path))
        if entry is None or (entry[3] if len(entry) > 3 else None) != deps:
            return None
        if entry[0] == stat:
            return unpack(path, entry[2])
        return self._lookup_by_content(path, stat, entry)

    def _lookup_by_content(self, path: str, stat: Stat, entry: Entry) -> Optional[List[Diagnostic]]:
        if entry[0][0] != stat[0]:  # size differs: the content does too
            return None
        from torchleaklint.source import MAX_FILE_BYTES, read_regular_file

        try:
            raw = read_regular_file(path, MAX_FILE_BYTES + 1)
        except OSError:
            return None
        if content_hash(raw) != entry[1]:
            return None
        self.record(path, stat, entry[1], unpack(path, entry[2]), entry[3] if len(entry) > 3 else None)
        return unpack(path, entry[2])

    def record(self, path: str, stat: Optional[Stat], digest: Optional[bytes], diagnostics: List[Diagnostic],
               deps: Optional[str] = None) -> None:
        if stat is None or digest is None:
            return
        entry = (stat, digest, pack(diagnostics)) + ((deps,) if deps is not None else ())
        key = os.path.abspath(path)
        self.entries[key] = entry
        self._changed[key] = entry

    def save(self) -> None:
        """Merge with what a concurrent run may have written meanwhile, then replace atomically.
        A cache that cannot be written (read-only checkout) is silently skipped."""
        if not self._changed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _write_gitignore(self.directory)
            merged = _load(self.path)
            merged.update(self._changed)
            payload = pickle.dumps(merged, protocol=pickle.HIGHEST_PROTOCOL)
            blob = MAGIC + hashlib.sha256(payload).digest() + payload
            import tempfile  # only runs that analyzed something write

            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(blob)
                os.replace(tmp, self.path)
            except BaseException:
                _unlink(tmp)
                raise
        except OSError:
            return
        self._changed.clear()


def _load(path: Path) -> Dict[str, Entry]:
    try:
        with open(path, "rb") as handle:
            blob = handle.read()
    except OSError:
        return {}
    header = len(MAGIC) + _DIGEST_SIZE
    if len(blob) < header or not blob.startswith(MAGIC):
        return {}
    payload = blob[header:]
    if hashlib.sha256(payload).digest() != blob[len(MAGIC):header]:
        return {}
    try:
        entries = pickle.loads(payload)
    except Exception:  # verified but unreadable (e.g. written by another Python): discard
        return {}
    return entries if isinstance(entries, dict) else {}


def _write_gitignore(directory: Path) -> None:
    gitignore = directory / ".gitignore"
    if not gitignore.exists():
        gitignore.write_text("# Automatically created by torchleaklint.\n*\n")


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
