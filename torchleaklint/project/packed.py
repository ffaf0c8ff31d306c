"""Per-module data kept on disk: a project run holds every module's summary (and the list of
summary entries each one read, its stat, its diagnostics, its fingerprints) until its last
check, and plain data as Python dicts and lists costs several times its pickle. Keeping it
on disk (and unpacking on access, with a small cache of the recently read values) keeps the
peak memory of a project run from growing with every module (docs/performance.md, "Memory").

The packed bytes go to a temporary file (`_Spill`), and where each key's bytes are goes to a
sqlite index in another temporary file: what stays in memory per key is nothing. Every map of a
process shares the two files (`_Disk`) while any of them lives; they are deleted with the last.
Where no temporary file can be written (or `os.pread` is missing), the index is a sqlite
database in memory and the bytes are kept compressed in it.

A map keeps a dict's order (the order keys were first stored). The values are plain data, never
changed after they are stored: a reader gets a shared copy and must not modify it (storing
again replaces it). A worker process reads a frozen copy (`Packed.frozen`): the map as it was
when the copy was made, whatever the run stores after.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import tempfile
import threading
import weakref
import zlib
from collections import OrderedDict
from collections.abc import ItemsView, ValuesView
from typing import Iterator, MutableMapping, MutableSet, Optional, Tuple

# Recently unpacked values kept as objects: a check reads the few modules it imports many
# times, the call-site index walks every module once.
CACHED = 256
_LENGTH_BITS = 32  # a location is one int: offset << 32 | length
_PAGE = 512  # keys read at a time when iterating
_INDEX_CACHE_KIB = 512  # sqlite's page cache for the index: bounded, whatever the run's size
_SCHEMA = "(map INTEGER, key BLOB, pos INTEGER, loc INTEGER, data BLOB, PRIMARY KEY (map, key))"


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
        _unlink(name)


def _unlink(name: str) -> None:
    try:
        os.unlink(name)
    except OSError:
        pass


def _connect(name: str, read_only: bool = False) -> sqlite3.Connection:
    uri = f"file:{name}?mode=ro" if read_only else name
    db = sqlite3.connect(uri, uri=read_only, check_same_thread=False)
    db.execute(f"PRAGMA cache_size=-{_INDEX_CACHE_KIB}")
    if not read_only:
        db.execute("PRAGMA journal_mode=OFF")  # a scratch file: nothing to recover after a crash
        db.execute("PRAGMA synchronous=OFF")
    return db


def _encode(key: str) -> bytes:
    return key.encode("utf-8", "surrogatepass")  # any str, undecodable file names too


def _decode(key: bytes) -> str:
    return key.decode("utf-8", "surrogatepass")


class _Connection:
    """A sqlite connection and the process it belongs to."""

    def __init__(self):
        self.db: Optional[sqlite3.Connection] = None
        self.pid = 0

    def close(self) -> None:
        if self.db is not None and self.pid == os.getpid():
            self.db.close()
        self.db = None


class _Index:
    """Where the values of maps are: (map, key) -> insertion position, location in the spill
    (or the compressed bytes themselves), in a sqlite file (in memory when `name` is None).
    Its connection belongs to the process that opened it: a forked worker opens its own, read
    only (it reads frozen copies: `Packed.frozen`)."""

    def __init__(self, name: Optional[str], spill: Optional[_Spill], read_only: bool):
        self.name, self.spill, self.read_only = name, spill, read_only
        self._conn = _Connection()
        self._lock = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        conn = self._conn
        if conn.db is not None and (conn.pid == os.getpid() or self.name is None):
            return conn.db
        if conn.db is not None:  # inherited across a fork: the file is the parent's to write
            self.read_only = True
        conn.db, conn.pid = _connect(self.name or ":memory:", self.read_only), os.getpid()
        if not self.read_only:
            conn.db.execute(f"CREATE TABLE IF NOT EXISTS idx {_SCHEMA}")
            conn.db.execute("CREATE INDEX IF NOT EXISTS idx_pos ON idx (map, pos)")
        return conn.db

    def query(self, sql: str, args: tuple) -> list:
        with self._lock:
            return self._connection().execute(sql, args).fetchall()

    def change(self, sql: str, args: tuple) -> int:
        """Rows changed (the writes wait in an open transaction: a scratch file is never
        committed but to be copied)."""
        with self._lock:
            return self._connection().execute(sql, args).rowcount

    def change_many(self, sql: str, rows: list) -> None:
        with self._lock:
            self._connection().executemany(sql, rows)


class _Disk(_Index):
    """The spill and the index every live map of a process shares."""

    def __init__(self):
        name = _new_file(".index")
        super().__init__(name, _Spill.create(), read_only=False)
        self.maps = 0
        self.pid = os.getpid()
        weakref.finalize(self, _drop_index, self._conn, name, os.getpid())

    def new_map(self) -> int:
        self.maps += 1
        return self.maps

    def copy_map(self, map_id: int) -> Optional[str]:
        """A new index file holding one map's entries as they are now, or None."""
        name = _new_file(".index")
        if name is None:
            return None
        with self._lock:
            db = self._connection()
            db.commit()  # ATTACH is refused inside a transaction
            try:
                db.execute("ATTACH DATABASE ? AS frozen", (name,))
                try:
                    db.execute(f"CREATE TABLE frozen.idx {_SCHEMA}")
                    db.execute("INSERT INTO frozen.idx SELECT * FROM idx WHERE map = ?", (map_id,))
                    db.commit()
                finally:
                    db.execute("DETACH DATABASE frozen")
            except sqlite3.Error:
                _unlink(name)
                return None
        return name


def _new_file(suffix: str) -> Optional[str]:
    try:
        fd, name = tempfile.mkstemp(prefix="torchleaklint-", suffix=suffix)
    except OSError:
        return None
    os.close(fd)
    return name


def _drop_index(conn: _Connection, name: Optional[str], creator: int) -> None:
    if os.getpid() != creator:
        return
    conn.close()
    if name is not None:
        _unlink(name)


_CURRENT = {"disk": None}  # a weak reference to the disk the live maps of this process share


def _shared_disk() -> _Disk:
    found = _CURRENT["disk"]() if _CURRENT["disk"] is not None else None
    if found is None or found.pid != os.getpid():  # (a forked worker's are its own)
        found = _Disk()
        _CURRENT["disk"] = weakref.ref(found)
    return found


class Packed(MutableMapping):
    """key (a path) -> value (a summary, a list of entries), each stored as a pickle on disk
    when it can be, else as a zlib-compressed pickle in the index."""

    def __init__(self, items: Optional[dict] = None):
        self._index: Optional[_Index] = None  # created at the first store
        self._map = 0
        self._next = 0  # the position of the next new key
        self._len = 0
        self._recent: OrderedDict = OrderedDict()
        self._copies = []  # frozen copies handed out by pickling: their files live as long as this map
        for path, value in (items or {}).items():
            self[path] = value

    # ------------------------------------------------------------------ writing
    def __setitem__(self, path: str, value) -> None:
        if self._index is None:
            self._index = _shared_disk()
            self._map = self._index.new_map()
        if self._index.read_only:
            raise TypeError("a frozen Packed map is read only")
        loc, data = self._stored_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        key = _encode(path)
        if self._index.change("INSERT OR IGNORE INTO idx VALUES (?, ?, ?, ?, ?)",
                              (self._map, key, self._next, loc, data)):
            self._next += 1
            self._len += 1
        else:  # stored before: it keeps its place
            self._index.change("UPDATE idx SET loc = ?, data = ? WHERE map = ? AND key = ?", (loc, data, self._map, key))
        self._remember(path, value)

    def _stored_bytes(self, data: bytes) -> Tuple[Optional[int], Optional[bytes]]:
        """(where the bytes went in the spill, None) or, without a spill, (None, compressed)."""
        spill = self._index.spill
        where = spill.write(data) if spill is not None and len(data) < 1 << _LENGTH_BITS else None
        return (where, None) if where is not None else (None, zlib.compress(data, 1))

    def __delitem__(self, path: str) -> None:
        if self._index is None or not self._index.change("DELETE FROM idx WHERE map = ? AND key = ?",
                                                         (self._map, _encode(path))):
            raise KeyError(path)
        self._len -= 1
        self._recent.pop(path, None)

    # ------------------------------------------------------------------ reading
    def __getitem__(self, path: str):
        found = self._recent.get(path)
        if found is not None:
            self._recent.move_to_end(path)
            return found
        rows = self._lookup("loc, data", path)
        if not rows:
            raise KeyError(path)
        loc, data = rows[0]
        value = pickle.loads(zlib.decompress(data) if data is not None else self._index.spill.read(loc))
        self._remember(path, value)
        return value

    def _lookup(self, columns: str, path: str) -> list:
        if self._index is None or not isinstance(path, str):
            return []
        return self._index.query(f"SELECT {columns} FROM idx WHERE map = ? AND key = ?", (self._map, _encode(path)))

    def get(self, path, default=None):
        try:
            return self[path]
        except KeyError:
            return default

    def __contains__(self, path) -> bool:
        return path in self._recent or bool(self._lookup("1", path))

    def __iter__(self) -> Iterator[str]:
        after = -1
        while self._index is not None:
            rows = self._index.query("SELECT key, pos FROM idx WHERE map = ? AND pos > ? ORDER BY pos LIMIT ?",
                                     (self._map, after, _PAGE))
            for key, after in rows:
                yield _decode(key)
            if len(rows) < _PAGE:
                return

    def __len__(self) -> int:
        return self._len

    # Walking every value (the call-site index does, several times a run) reads a page of
    # locations per query, where a key at a time would cost a query per value.
    def items(self):
        return _Items(self)

    def values(self):
        return _Values(self)

    def sorted_items(self) -> Iterator[Tuple[str, object]]:
        """(key, value) in the order of the keys (`sorted(keys)`: UTF-8 bytes sort as the
        code points of the str they encode)."""
        return self._pairs("key")

    def _pairs(self, order: str) -> Iterator[Tuple[str, object]]:
        after = -1 if order == "pos" else b""
        while self._index is not None:
            rows = self._index.query(f"SELECT key, {order}, loc, data FROM idx WHERE map = ? AND {order} > ? "
                                     f"ORDER BY {order} LIMIT ?", (self._map, after, _PAGE))
            for key, after, loc, data in rows:
                path = _decode(key)
                value = self._recent.get(path)
                if value is None:
                    value = pickle.loads(zlib.decompress(data) if data is not None else self._index.spill.read(loc))
                yield path, value
            if len(rows) < _PAGE:
                return

    def _remember(self, path: str, value) -> None:
        self._recent[path] = value
        self._recent.move_to_end(path)
        while len(self._recent) > CACHED:
            self._recent.popitem(last=False)

    # ------------------------------------------------------------------ copies for workers
    def frozen(self) -> "Packed":
        """A read-only copy of the map as it is now, for worker processes (forked or
        spawned): later stores into this map do not reach it. Its index file goes when the
        copy is dropped in the process that made it."""
        if self._index is None or self._index.read_only:
            return self
        name = self._index.copy_map(self._map)
        copy = Packed()
        copy._map, copy._len = self._map, self._len
        # (its cache of unpacked values starts empty: the map's own, which the run goes on
        # replacing, would stay alive twice as long as the copy does)
        if name is None:  # no file for the copy: the values themselves, in memory
            copy._index, copy._len = _Index(None, None, read_only=False), 0
            for path in self:
                copy[path] = self[path]
            copy._index.read_only = True
            return copy
        copy._index = _Index(name, self._index.spill, read_only=True)
        weakref.finalize(copy, _drop_index, copy._index._conn, name, os.getpid())
        return copy

    def __getstate__(self):  # to a worker process: the files' names and the map's number
        copy = self.frozen()
        if copy is not self:
            self._copies.append(copy)  # the copy's file must outlive the pickle's trip
        index = copy._index
        spill = index.spill.name if index is not None and index.spill is not None else None
        return (index.name if index is not None else None, spill, copy._map, copy._len)

    def __setstate__(self, state) -> None:
        name, spill, self._map, self._len = state
        self._recent, self._copies, self._next = OrderedDict(), [], 0
        self._index = None
        if name is not None:
            self._index = _Index(name, _Spill.reopen(spill) if spill is not None else None, read_only=True)


class _Items(ItemsView):
    def __iter__(self):
        return self._mapping._pairs("pos")


class _Values(ValuesView):
    def __iter__(self):
        return (value for _, value in self._mapping._pairs("pos"))


def sorted_items(mapping) -> Iterator[Tuple[str, object]]:
    """A map's (key, value) pairs in the order of its keys: a `Packed` map's read a page at a time."""
    if isinstance(mapping, Packed):
        return mapping.sorted_items()
    return iter(sorted(mapping.items()))


class PackedSet(MutableSet):
    """A set of keys (paths) kept on disk as a `Packed` map's keys."""

    def __init__(self, items=()):
        self._keys = Packed()
        for item in items:
            self.add(item)

    def __contains__(self, item) -> bool:
        return item in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def add(self, item) -> None:
        if item not in self._keys:
            self._keys[item] = None

    def discard(self, item) -> None:
        self._keys.pop(item, None)

    def update(self, items) -> None:
        for item in items:
            self.add(item)
