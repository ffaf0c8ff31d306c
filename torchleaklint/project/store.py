"""The summary store of project runs: per file, its stat, content digest, summary, what its
summary and check read, and its prescan, so that a warm run reads no file and re-checks only
what an edit reached (`run.lint_project`).

One JSON line per file (`["<path>", {entry}]`) in `project-<key>.jsonl` next to the
diagnostics cache. Opening it reads only each line's path and where the line is; an entry is
parsed when asked for, and entries put during the run wait in a temporary file until `save`
streams the new store out (atomically: a temporary file, then a rename). So the store costs a
few numbers per file in memory, not every module's summary (docs/performance.md, "Memory").
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from typing import Dict, Iterator, List, Optional, Tuple

from torchleaklint.project.packed import _Spill, location, read_at

STORE_VERSION = "4"
_DECODER = json.JSONDecoder()


class SummaryStore:
    def __init__(self, directory: Optional[str], settings):
        self.path: Optional[str] = None
        self._old_file = None  # the store read, open while its lines may be asked for
        self._old: Dict[str, int] = {}  # path -> where its line is in the file read
        self._lines: Dict[str, bytes] = {}  # when the file cannot be read by offset
        self._new: Dict[str, int] = {}  # path -> where its new line is in the spill
        self._spill: Optional[_Spill] = None
        self.changed = False
        if directory is None:
            return
        from torchleaklint import __version__
        from torchleaklint.cache import package_source_hash

        key = hashlib.sha256(repr((__version__, STORE_VERSION, package_source_hash(),
                                   settings.fingerprint())).encode()).hexdigest()[:24]
        self.path = os.path.join(directory, __version__, f"project-{key}.jsonl")
        self._open()

    def _open(self) -> None:
        try:
            handle = open(self.path, "rb")
        except OSError:
            return
        by_offset = hasattr(os, "pread")
        offset = 0
        try:
            for line in handle:
                path = _path_of(line)
                if path is not None:
                    if by_offset:
                        self._old[path] = location(offset, len(line))
                    else:
                        self._lines[path] = line
                offset += len(line)
        except OSError:
            self._old, self._lines = {}, {}
        if by_offset and self._old:
            self._old_file = handle
        else:
            handle.close()

    def _stored_line(self, path: str) -> Optional[bytes]:
        where = self._new.get(path)
        if where is not None:
            return self._spill.read(where)
        where = self._old.get(path)
        if where is not None:
            try:
                return read_at(self._old_file.fileno(), where)
            except OSError:
                return None
        return self._lines.get(path)

    def _entry(self, path: str) -> Optional[dict]:
        line = self._stored_line(path)
        if line is None:
            return None
        try:
            pair = json.loads(line)
        except ValueError:
            return None
        entry = pair[1] if isinstance(pair, list) and len(pair) == 2 else None
        return entry if isinstance(entry, dict) else None

    def _paths(self) -> List[str]:
        """Every path stored, read or put, once each, in the order the file had them."""
        return list(dict.fromkeys([*self._old, *self._lines, *self._new]))

    def get(self, path: str, stat) -> Optional[dict]:
        entry = self._entry(path)
        if entry is not None and stat is not None and tuple(entry.get("stat", ())) == tuple(stat):
            return entry
        return None

    def items(self) -> Iterator[Tuple[str, dict]]:
        """Every stored (path, entry), parsed one at a time."""
        for path in self._paths():
            entry = self._entry(path)
            if entry is not None:
                yield path, entry

    def put(self, path: str, stat, digest: Optional[bytes], summary, reads, fp=None, entries=(),
            scan=None, sites=None) -> None:
        entry = {"stat": list(stat) if stat else None, "hash": digest.hex() if digest else None,
                 "summary": summary, "reads": list(reads), "fp": fp, "entries": list(entries), "scan": scan,
                 "sfp": sites}
        try:  # the C encoder: json.dump is not
            line = (json.dumps([path, entry], separators=(",", ":")) + "\n").encode("utf-8")
        except (TypeError, ValueError):
            return
        if self._stored_line(path) == line:  # a warm run writes nothing
            return
        if self._spill is None:
            self._spill = _Spill.create()
            if self._spill is None:
                return  # no temporary file: nothing is stored this run
        where = self._spill.write(line)
        if where is not None:
            self._new[path] = where
            self.changed = True

    def save(self) -> None:
        if self.path is None or not self.changed:
            return
        try:
            directory = os.path.dirname(self.path)
            os.makedirs(directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    for path in self._paths():
                        line = self._stored_line(path)
                        if line is not None:
                            handle.write(line)
                os.replace(tmp, self.path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:  # never fail a run for its summary store
            return
        finally:
            self.close()

    def close(self) -> None:
        if self._old_file is not None:
            self._old_file.close()
            self._old_file = None


def _path_of(line: bytes) -> Optional[str]:
    """The path a store line begins with (`["<path>", ...`), without parsing the rest."""
    if not line.startswith(b'["'):
        return None
    try:
        path, _ = _DECODER.raw_decode(line[1:line.find(b'",', 1) + 1].decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    return path if isinstance(path, str) else None
