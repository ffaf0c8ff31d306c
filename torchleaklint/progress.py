"""Feedback on long runs: a progress line on stderr, and `-v` timing per phase.

Progress (`files done/total`, elapsed seconds) is drawn only on an interactive terminal,
redrawn at most every `INTERVAL` seconds and erased at the end, so pipes, files and CI
logs never see it; `--progress` forces it (for a CI log that wants it), `--no-progress`
turns it off.
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from typing import Iterable, Iterator, List, Optional, Tuple, TypeVar

T = TypeVar("T")
INTERVAL = 0.1
MIN_FILES = 2  # one file needs no progress line


def progress_enabled(choice: Optional[bool], stream=None) -> bool:
    if choice is not None:
        return choice
    stream = stream or sys.stderr
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


class Progress:
    def __init__(self, total: int, enabled: bool, stream=None):
        self.total = total
        self.enabled = enabled and total >= MIN_FILES
        self.stream = stream or sys.stderr
        self.started = time.monotonic()
        self.done = 0
        self._last_draw = 0.0
        self._drawn = False

    def track(self, items: Iterable[T]) -> Iterator[T]:
        for item in items:
            yield item
            self.advance()

    def advance(self, count: int = 1) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last_draw >= INTERVAL or self.done == self.total:
            self._last_draw = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        self.stream.write(f"\r\x1b[2Ktorchleaklint: {self.done}/{self.total} files, {now - self.started:.1f} s")
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """Erase the line: what follows on stderr (the summary) starts on a clean line."""
        if self._drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
            self._drawn = False


class PhaseTimer:
    """Seconds spent in each phase of the run; printed on stderr with `-v`."""

    def __init__(self):
        self.phases: List[Tuple[str, float, str]] = []

    @contextmanager
    def phase(self, name: str, detail: str = ""):
        started = time.perf_counter()
        try:
            yield
        finally:
            self.phases.append((name, time.perf_counter() - started, detail))

    def note(self, detail: str) -> None:
        """Describe the last phase (a count known only once it ran)."""
        if self.phases:
            name, seconds, _ = self.phases[-1]
            self.phases[-1] = (name, seconds, detail)

    def report(self, stream=None) -> None:
        stream = stream or sys.stderr
        for name, seconds, detail in self.phases:
            stream.write(f"torchleaklint: timing: {name:<13} {seconds * 1000:9.1f} ms{'  ' + detail if detail else ''}\n")
        stream.flush()
