"""Per-module data kept packed: a project run holds every module's summary (and the list of
summary entries each one read) until its last check, and plain data as Python dicts and lists
costs several times its compressed pickle. Packing it (and unpacking on access, with a small
cache of the recently read values) keeps the peak memory of a project run from growing with
every module as fast (docs/performance.md, "Memory").

The packed bytes go to a temporary file of the run (deleted when the mapping is dropped), so
that what stays in memory per module is one number: where its bytes are. Where no temporary
file can be written (or `os.pread` is missing), they stay in memory.

The values are plain data, never changed after they are stored: a reader gets a shared
copy and must not modify it (storing again replaces it).
"""

from __future__ import annotations

import os
import pickle
import tempfile
import weakref
import zlib
from collections import OrderedDict
from typing import Dict, Iterator, MutableMapping, Optional, Union

# Recently unpacked values kept as objects: a check reads the few modules it imports many
# times, the call-site index walks every module once.
CACHED = 256
_LENGTH_BITS = 32  # a location is one int: offset << 32 | length


def location(offset: int, length: int) -> int:
    """Where `length` bytes at `offset` of a file are, as one int."""
    return offset << _LENGTH_BITS | length


def read_at(fd: int, where: int) -> bytes:
    """The bytes a `location` names, read from the open file `fd`."""
    return os.pread(fd, where & ((1 << _LENGTH_BITS) - 1), where >> _LENGTH_BITS)


class _Spill:
    """An append-only temporary file of packed values, read back by offset."""

    def __init__(self, name: str, fd: int, owner: bool):
        self.name, self.fd, self.end = name, fd, 0
        # only the creating process deletes it (a forked worker holds a copy of this object)
        self._finalizer = weakref.finalize(self, _close, fd, name if owner else None, os.getpid())

    @classmethod
    def create(cls) -> Optional["_Spill"]:
        if not hasattr(os, "pread"):
            return None
        try:
            fd, name = tempfile.mkstemp(prefix="torchleaklint-", suffix=".packed")
        except OSError:
            return None
        return cls(name, fd, owner=True)

    @classmethod
    def reopen(cls, name: str) -> Optional["_Spill"]:  # a worker process: read only
        try:
            return cls(name, os.open(name, os.O_RDONLY), owner=False)
        except OSError:
            return None

    def write(self, data: bytes) -> Optional[int]:
        try:
            written = os.pwrite(self.fd, data, self.end)
        except OSError:
            return None
        if written != len(data):
            return None
        where = location(self.end, len(data))
        self.end += len(data)
        return where

    def read(self, where: int) -> bytes:
        return read_at(self.fd, where)


def _close(fd: int, name: Optional[str], creator: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
    if name is not None and os.getpid() == creator:
        try:
            os.unlink(name)
        except OSError:
            pass


class Packed(MutableMapping):
    """path -> value (a summary, a list of entries), each stored as a pickle on disk when it
    can be, else as a zlib-compressed pickle in memory."""

    def __init__(self, items: Optional[dict] = None):
        self._spill: Optional[_Spill] = None
        self._spill_tried = False
        self._packed: Dict[str, Union[int, bytes]] = {}  # an int: where the bytes are in the spill
        self._recent: OrderedDict = OrderedDict()
        for path, value in (items or {}).items():
            self[path] = value

    def __setitem__(self, path: str, value) -> None:
        # on disk the bytes cost no memory: a plain pickle, read back without decompressing;
        # kept in memory (no spill file), compressed
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        where = self._spilled(data) if len(data) < 1 << _LENGTH_BITS else None
        self._packed[path] = zlib.compress(data, 1) if where is None else where
        self._remember(path, value)

    def _spilled(self, data: bytes) -> Optional[int]:
        if self._spill is None and not self._spill_tried:
            self._spill_tried = True
            self._spill = _Spill.create()
        return self._spill.write(data) if self._spill is not None else None

    def __getitem__(self, path: str):
        found = self._recent.get(path)
        if found is not None:
            self._recent.move_to_end(path)
            return found
        stored = self._packed[path]
        value = pickle.loads(zlib.decompress(stored) if isinstance(stored, bytes) else self._spill.read(stored))
        self._remember(path, value)
        return value

    def get(self, path, default=None):
        return self[path] if path in self._packed else default

    def __contains__(self, path) -> bool:
        return path in self._packed

    def __delitem__(self, path: str) -> None:
        del self._packed[path]
        self._recent.pop(path, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def _remember(self, path: str, value) -> None:
        self._recent[path] = value
        self._recent.move_to_end(path)
        while len(self._recent) > CACHED:
            self._recent.popitem(last=False)

    def __getstate__(self):  # to a worker process: the spill's name and the locations
        return (self._spill.name if self._spill is not None else None, self._packed)

    def __setstate__(self, state) -> None:
        name, self._packed = state
        self._spill = _Spill.reopen(name) if name is not None else None
        self._spill_tried = True
        self._recent = OrderedDict()
        if self._spill is None:  # the file is gone: only what was in memory is readable
            self._packed = {p: v for p, v in self._packed.items() if isinstance(v, bytes)}
