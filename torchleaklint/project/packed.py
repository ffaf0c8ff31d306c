"""Per-module data kept packed: a project run holds every module's summary (and the list of
summary entries each one read) until its last check, and plain data as Python dicts and lists
costs several times its compressed pickle. Packing it (and unpacking on access, with a small
cache of the recently read values) keeps the peak memory of a project run from growing with
every module as fast (docs/performance.md, "Memory").

The values are plain data, never changed after they are stored: a reader gets a shared
copy and must not modify it (storing again replaces it).
"""

from __future__ import annotations

import pickle
import zlib
from collections import OrderedDict
from typing import Dict, Iterator, MutableMapping, Optional

# Recently unpacked values kept as objects: a check reads the few modules it imports many
# times, the call-site index walks every module once.
CACHED = 256


class Packed(MutableMapping):
    """path -> value (a summary, a list of entries), each stored as a zlib-compressed pickle."""

    def __init__(self, items: Optional[dict] = None):
        self._packed: Dict[str, bytes] = {}
        self._recent: OrderedDict = OrderedDict()
        for path, value in (items or {}).items():
            self[path] = value

    def __setitem__(self, path: str, value) -> None:
        self._packed[path] = zlib.compress(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), 1)
        self._remember(path, value)

    def __getitem__(self, path: str):
        found = self._recent.get(path)
        if found is not None:
            self._recent.move_to_end(path)
            return found
        value = pickle.loads(zlib.decompress(self._packed[path]))
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

    def __getstate__(self):  # to a worker process: the packed bytes only
        return self._packed

    def __setstate__(self, packed) -> None:
        self._packed = packed
        self._recent = OrderedDict()
