"""The call-site index of a project run (`Project.sites`), built on disk: one row per site in
the run's sqlite index (`packed._Disk`), so that no module's sites are held in memory while
the others are found. Its builders write to it as to a nested dict (`index.setdefault(file,
{}).setdefault(key, []).append(site)`, or `index.setdefault(file, {})[key] = sites`); `packed`
then gives file -> key -> sites, each list sorted by (path, line, column), as a `Packed` map,
in the order a dict would have had.
"""

from __future__ import annotations

import pickle
from typing import List

from torchleaklint.project.packed import Packed, _decode, _encode, _shared_disk

_PAGE = 512  # files read at a time
_BATCH = 256  # rows written at a time
_TABLES = (
    "CREATE TABLE IF NOT EXISTS site_files (build INTEGER, file BLOB, rank INTEGER, PRIMARY KEY (build, file))",
    "CREATE TABLE IF NOT EXISTS site_keys (build INTEGER, file BLOB, key BLOB, rank INTEGER, "
    "PRIMARY KEY (build, file, key))",
    "CREATE TABLE IF NOT EXISTS site_rows (build INTEGER, file BLOB, key BLOB, spath BLOB, l, c, seq INTEGER, "
    "site BLOB)",
    "CREATE INDEX IF NOT EXISTS site_rows_file ON site_rows (build, file)",
)


class SiteIndex:
    """file -> key -> sites, written a site at a time."""

    def __init__(self):
        self._disk = _shared_disk()
        self._build = self._disk.new_map()  # this index's number among the disk's rows
        self._rank = 0  # order of first appearance (of files, of keys)
        self._pending = {"site_files": [], "site_keys": [], "site_rows": []}  # rows not yet written
        # (file, key) pairs with rows written or waiting: a key set whole (`~stp` of every
        # file) has nothing to delete first, most of the time
        self._keys_with_rows = set()
        for statement in _TABLES:
            self._disk.change(statement, ())

    def setdefault(self, file: str, default=None) -> "_FileSites":
        self._note("site_files", (file,))
        return _FileSites(self, file)

    def _note(self, table: str, names: tuple) -> None:
        """Remember when `names` first appeared (a dict keeps that order)."""
        self._rank += 1
        self._queue(table, (self._build, *map(_encode, names), self._rank))

    def _add(self, file: str, key: str, site: dict) -> None:
        self._keys_with_rows.add((file, key))
        self._rank += 1
        self._queue("site_rows", (self._build, _encode(file), _encode(key), _encode(site["path"]), site["l"],
                                  site["c"], self._rank, pickle.dumps(site, protocol=pickle.HIGHEST_PROTOCOL)))

    def _queue(self, table: str, row: tuple) -> None:
        self._pending[table].append(row)
        if len(self._pending[table]) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        """Write the rows waiting, in the order they came (the first of equal names counts)."""
        for table, rows in self._pending.items():
            if rows:
                verb = "INSERT" if table == "site_rows" else "INSERT OR IGNORE"
                self._disk.change_many(f"{verb} INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows)
                rows.clear()

    def _replace(self, file: str, key: str, sites: List[dict]) -> None:
        self._note("site_keys", (file, key))
        if (file, key) in self._keys_with_rows:
            self._keys_with_rows.discard((file, key))
            self._flush()
            self._disk.change("DELETE FROM site_rows WHERE build = ? AND file = ? AND key = ?",
                              (self._build, _encode(file), _encode(key)))
        for site in sites:
            self._add(file, key, site)

    def packed(self) -> Packed:
        """The index, one file's sites a value, and its rows dropped from the disk."""
        self._flush()
        out = Packed()
        after = -1
        while True:
            files = self._disk.query("SELECT file, rank FROM site_files WHERE build = ? AND rank > ? "
                                     "ORDER BY rank LIMIT ?", (self._build, after, _PAGE))
            for file, after in files:
                out[_decode(file)] = self._sites_of(file)
            if len(files) < _PAGE:
                break
        for table in ("site_files", "site_keys", "site_rows"):
            self._disk.change(f"DELETE FROM {table} WHERE build = ?", (self._build,))
        return out

    def _sites_of(self, file: bytes) -> dict:
        keys = self._disk.query("SELECT key FROM site_keys WHERE build = ? AND file = ? ORDER BY rank",
                                (self._build, file))
        by_key = {_decode(key): [] for key, in keys}
        rows = self._disk.query("SELECT key, site FROM site_rows WHERE build = ? AND file = ? "
                                "ORDER BY spath, l, c, seq", (self._build, file))
        for key, site in rows:
            by_key[_decode(key)].append(pickle.loads(site))
        return by_key


class _FileSites:
    """One file's part of a `SiteIndex`, written as a dict of lists."""

    def __init__(self, index: SiteIndex, file: str):
        self._index, self._file = index, file

    def setdefault(self, key: str, default=None) -> "_KeySites":
        self._index._note("site_keys", (self._file, key))
        return _KeySites(self._index, self._file, key)

    def __setitem__(self, key: str, sites: List[dict]) -> None:
        self._index._replace(self._file, key, sites)


class _KeySites:
    """The sites under one key of one file, written as a list."""

    def __init__(self, index: SiteIndex, file: str, key: str):
        self._index, self._file, self._key = index, file, key

    def append(self, site: dict) -> None:
        self._index._add(self._file, self._key, site)
