"""Lint many files: cache look-ups in the main process, the misses across a process pool.

Results come back in the order of `files` (discovery sorts them by path), whatever the
number of processes, so output is deterministic.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import time
from typing import Iterator, List, Optional, Sequence, Tuple

from torchleaklint.cache import DEFAULT_DIR_NAME, Cache, content_hash, file_stat
from torchleaklint.config import Settings
from torchleaklint.diagnostics import Diagnostic
from torchleaklint.kinds import max_bytes
from torchleaklint.source import INTERNAL_ERROR, read_regular_file

# Below this many files to analyze, starting worker processes costs more than it saves.
MIN_FILES_FOR_POOL = 16
# Several chunks per worker keep the processes busy to the end when file sizes vary.
CHUNKS_PER_JOB = 8
MAX_CHUNK = 32
# ast.parse and the semantic model allocate millions of small objects for a large file, and
# the cyclic GC at its default thresholds traverses them again and again while they are
# built: 3x the parse time on torch's sources. Linting leaves no reference cycles (refcounting
# frees each file's tree), so collect rarely.
GC_THRESHOLD = (100_000, 50, 100)

Result = Tuple[str, List[Diagnostic]]


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def lint_paths(files: Sequence[str], settings: Settings, jobs: Optional[int] = None,
               cache: Optional[Cache] = None, verbose: bool = False) -> Iterator[Result]:
    """(path, diagnostics) for each of `files`, in order. Cached results are reused and
    new ones recorded; the cache is saved when the iteration completes."""
    jobs = jobs or default_jobs()
    from torchleaklint import project
    from torchleaklint.project import modules

    modules.use_fallback_root(settings.project_root)
    if settings.project_analysis and project.enabled(list(files)):
        from torchleaklint.project.run import lint_project  # follows imports across the run's modules

        yield from lint_project(files, settings, jobs, cache, verbose)
        return
    cached = {}
    stats = {}
    read_at = time.time_ns()  # before any stat or read: the cache's racily-clean rule compares with it
    if cache is not None:
        for path in files:
            stats[path] = stat = file_stat(path)
            found = cache.lookup(path, stat)
            if found is not None:
                cached[path] = found
    todo = [path for path in files if path not in cached]
    with _rare_gc():
        yield from _merge(files, cached, _analyze(todo, settings, jobs, verbose), stats, cache, read_at)
    if cache is not None:
        cache.save()


def _merge(files, cached, fresh, stats, cache, read_at=None) -> Iterator[Result]:
    for path in files:
        if path in cached:
            yield path, cached[path]
            continue
        fresh_path, diagnostics, digest = next(fresh)
        assert fresh_path == path
        if cache is not None and not any(d.code == INTERNAL_ERROR for d in diagnostics):
            cache.record(path, stats[path], digest, diagnostics, read_at)
        yield path, diagnostics


def _analyze(paths: List[str], settings: Settings, jobs: int, verbose: bool) -> Iterator[tuple]:
    if jobs == 1 or len(paths) < MIN_FILES_FOR_POOL:
        for path in paths:
            yield lint_one(path, settings, verbose)
        return
    from concurrent.futures import ProcessPoolExecutor  # not imported by runs served from the cache

    workers = min(jobs, len(paths))
    size = max(1, min(MAX_CHUNK, len(paths) // (workers * CHUNKS_PER_JOB)))
    chunks = [paths[i:i + size] for i in range(0, len(paths), size)]
    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(os.getpid(),)) as pool:
        args = [(chunk, settings, verbose) for chunk in chunks]
        for results in pool.map(_lint_chunk, args):
            yield from results


def _init_worker(parent: int) -> None:
    gc.set_threshold(*GC_THRESHOLD)
    _die_with_parent(parent)


def _die_with_parent(parent: int) -> None:
    """A worker must not outlive the run: if the parent is killed (SIGKILL from a CI
    timeout, an OOM kill), orphaned workers would wait forever on the task queue and hold
    its output pipes open. Linux lets a process ask for a signal when its parent dies."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


@contextlib.contextmanager
def _rare_gc():
    previous = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _lint_chunk(args) -> List[tuple]:
    chunk, settings, verbose = args
    return [lint_one(path, settings, verbose) for path in chunk]


def lint_one(path: str, settings: Settings, verbose: bool = False) -> Tuple[str, List[Diagnostic], Optional[bytes]]:
    """(path, diagnostics, hash of the content linted); no hash when the file is unreadable."""
    from torchleaklint.engine import lint_file, lint_source  # the semantic layer: only when analyzing
    from torchleaklint.environment.engine import reads_other_files

    try:
        raw = read_regular_file(path, max_bytes(path) + 1)  # notebooks: more (their outputs)
    except OSError:
        return path, lint_file(path, settings, verbose), None
    diagnostics = lint_source(raw, path, settings, verbose)
    if reads_other_files(path):  # e.g. a Compose build context: not keyed by this file alone
        return path, diagnostics, None
    return path, diagnostics, content_hash(raw)


def open_cache(settings: Settings, directory: Optional[str] = None) -> Cache:
    """The cache in `directory`, else the configured `cache-dir`, else `<project root>/.torchleaklint_cache`."""
    directory = directory or settings.cache_dir or os.path.join(settings.project_root, DEFAULT_DIR_NAME)
    return Cache(directory, settings)
