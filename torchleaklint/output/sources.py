"""Source text for formats that quote code: from the run's context (standard input) or disk."""

from __future__ import annotations

from typing import Dict, List, Optional

from torchleaklint.source import SourceError, decode, split_lines


def source_lines(path: str, context: Dict) -> Optional[List[str]]:
    cache = context.setdefault("_source_lines", {})
    if path not in cache:
        cache[path] = _read(path, context)
    return cache[path]


def _read(path: str, context: Dict) -> Optional[List[str]]:
    text = context.get("sources", {}).get(path)
    if text is None:
        try:
            with open(path, "rb") as handle:
                text, _ = decode(handle.read())
        except (OSError, SourceError):
            return None
    return split_lines(text)
