"""Lint the files of a run as one project: summarize every module, then check each file with
the summaries of what it imports.

Round 1 summarizes every file that is not cached with no other module's summary (a file
importing no first-party module is checked at the same time). Later rounds summarize again,
with the summaries of the previous round, the files whose imported summaries changed, until
none did or MAX_ROUNDS (cycles converge or stop there). Summaries only look forward, along
imports: a summary never depends on who calls the module. Then every file whose result is
not known is checked once, with the final summaries and the call sites other modules have
of its functions.

Summaries persist in a store next to the diagnostics cache (`store.SummaryStore`, one JSON
line per file), keyed by file, validated by stat. A file's cached diagnostics are reused only when its
dependency fingerprint (the digests of the summaries its check read, and the call sites
other modules have of its functions) is unchanged: editing one module re-checks it and the
files whose imported summaries changed.
"""

from __future__ import annotations

import hashlib
import os
import sys
from typing import Collection, Dict, Iterator, List, Optional, Sequence, Tuple

from torchleaklint.cache import DEFAULT_DIR_NAME, content_hash, file_stat
from torchleaklint.environment import SHELL, YAML, environment_kind
from torchleaklint.project import (Project, ProjectView, analyze_file, entries_of, entry_inputs, modules, prescan,
                                   summarize_file)
from torchleaklint.project.packed import Packed, PackedSet
from torchleaklint.project.store import SummaryStore
from torchleaklint.kinds import max_bytes
from torchleaklint.source import INTERNAL_ERROR, read_regular_file

# Summary rounds: the first without other modules' summaries, then again for the files whose
# dependencies' summaries changed, until none did; chains deeper than this stop there.
MAX_ROUNDS = 3
# `_analyze(..., check=SUMMARY_WITH_SITES)`: summarize only, reading the call sites other
# modules have of the file's functions
SUMMARY_WITH_SITES = "sites"
# `_analyze(..., check=SITES_ONLY)`: only the calls of that summary (the file's forward summary
# is unchanged since it was computed: the parent merges the calls into it)
SITES_ONLY = "sites-only"
# `_analyze(..., check=CHECK_UNLESS_ENTRY)` (round 1's leaves): summarized and checked, but a
# .py module no other imports (`partial`) that defines functions or classes is only
# summarized: its check comes with the project (a module defining none, an `__init__.py`,
# mostly asks nothing of the project: its first check is its last)
CHECK_UNLESS_ENTRY = "unless-entry"
MAX_BUFFER_SCAN = 200  # an editor buffer in a project with no stored summaries: files read
_SCANNED: Dict[str, Dict[str, tuple]] = {}  # project root -> file -> (stat, summary), per process
MAX_IMPORT_DEPTH = 4  # modules imported but not in the run: followed this many levels


def lint_project(files: Sequence[str], settings, jobs: int, cache, verbose: bool) -> Iterator[Tuple[str, list]]:
    global _CALLABLE_NAMES
    workers = _Workers(min(jobs, max(1, len(files))))  # no phase has more files than the run
    try:
        yield from _lint_project(files, settings, workers, cache, verbose)
    finally:
        workers.close()
        _CALLABLE_NAMES = None  # the call filter belongs to this run: a later analysis in the process has none


def _lint_project(files: Sequence[str], settings, workers: "_Workers", cache, verbose: bool) -> Iterator[Tuple[str, list]]:
    from torchleaklint.runner import _rare_gc

    store = SummaryStore(str(cache.directory) if cache is not None else None, settings)
    # (a file's absolute path is computed when asked for: `absolute(path)`, no map of them)
    run_key = _run_key(files)
    stats = Packed({path: file_stat(path) for path in files})  # on the run's spill file, as the summaries
    summaries: Dict[str, dict] = Packed()  # every module's, until the last check: packed
    # files whose summaries (and call sites) a file's summary or check read: packed, as the
    # summaries are (a list per file, read back for its fingerprint)
    reads: Dict[str, List[str]] = Packed()
    # the fingerprint a file's summary was computed with
    summarized_at: Dict[str, Optional[str]] = Packed()
    # the call sites of its functions it was computed with (None: none)
    sites_at: Dict[str, Optional[str]] = Packed()
    entries: Dict[str, list] = Packed()  # the entries of other summaries a file's summary read
    results: Dict[str, list] = Packed()  # each file's diagnostics, until the last check
    digests: Dict[str, Optional[bytes]] = Packed()  # each file's content hash
    todo = []
    # modules no other file imports get partial summaries (no per-function entries)
    global _CALLABLE_NAMES
    known = {}  # the scans of unchanged files, from the store: a warm run reads no file
    stored_partial = PackedSet()  # files stored with a partial summary (a module nobody imported then)
    for path in files:  # each stored entry is read once
        entry = store.get(absolute(path), stats[path])
        if entry is not None and isinstance(entry.get("scan"), list):
            known[path] = entry["scan"]
        # (a file with no summary, one that does not parse, is known too; a YAML or shell file is
        # analyzed again: its findings may rest on other files of the repository, such as the
        # Dockerfile that builds the image it runs, which no entry records)
        if entry is not None and (entry.get("summary") is not None or "scan" in entry) and \
                not _analyzed_every_run(path):
            if entry["summary"] is not None:
                summaries[absolute(path)] = entry["summary"]
                if entry["summary"].get("partial"):
                    stored_partial.add(path)
            reads[path] = entry["reads"]
            summarized_at[path] = entry.get("fp")
            sites_at[path] = entry.get("sfp")
            entries[path] = entry.get("entries") or []
    referenced, _CALLABLE_NAMES, scans = prescan.scan(files, known)
    del known  # (the scans are kept, packed, in `scans`)
    partial = PackedSet(path for path in files if absolute(path) not in referenced)
    del referenced
    for path in files:
        if path not in reads or (path in stored_partial and path not in partial):
            # not stored, or stored as a module nobody imported, which another now imports
            summaries.pop(absolute(path), None)
            reads.pop(path, None)
            summarized_at.pop(path, None)
            sites_at.pop(path, None)
            entries.pop(path, None)
            todo.append(path)
    # A module no other imports that may import modules of the run waits for the check: no
    # summary round reads its summary (rounds look forward, along imports), so the one its
    # check computes with the final summaries is the first it needs (one analysis, not two).
    # Not when it may import a module outside the run: that module's summary is read from
    # disk after round 1, along the imports round 1 recorded.
    late = _late_files(todo, partial, scans, {absolute(path) for path in files})
    with _rare_gc():
        # round 1: first the files that may import no module of the run (the prescan's
        # superset), summarized and checked: their summaries are final (summaries look
        # forward only). Then the others, summarized with those: a module importing only
        # such leaves gets its final summary at once, with no second round. (A .py leaf no
        # other module imports is only summarized: its check waits for the `first` pass,
        # where 372 of Lightning's 432 such leaves were checked again anyway, their checks
        # asking about the call sites and method owners that only the project knows.)
        fresh = PackedSet()
        analyses = len(todo) - len(late)  # files read and analyzed, over all phases (debug output)
        round_one = [p for p in todo if p not in late]
        importing = [p for p in round_one if (scans.get(p) or [[]])[0]]
        for wave in ([p for p in round_one if not (scans.get(p) or [[]])[0]], importing):
            if not wave:
                continue
            leaves = Project(summaries) if wave is importing else None  # the leaves' summaries, final
            check = CHECK_UNLESS_ENTRY if leaves is None else False
            for path, diagnostics, summary, read, digest, inputs in _analyze(wave, settings, workers, verbose, leaves,
                                                                             check=check, partial=partial):
                _keep(path, absolute(path), summary, read, diagnostics, digest, summaries, reads, results, digests)
                entries[path], summarized_at[path] = inputs
                fresh.add(path)
        before_imported = len(summaries)
        _summarize_imported(summaries, settings)
        # nothing summarized now (a warm run; the YAML and shell files analyzed again have no
        # summary): the stored summaries and their inputs are the last run's final ones, so no
        # round can change anything
        settled = all(_analyzed_every_run(p) for p in todo) and len(summaries) == before_imported
        # ... and if the last run over these same files left every check's entry recorded with
        # the fingerprint it computed, those entries hold as they are: no fingerprint to compute
        trusted = settled and cache is not None and cache.trusts_run(run_key)
        # the scan is a superset, but should a file's exact imports name a module it missed,
        # that module is summarized again, in full
        upgraded = _imported_after_all(partial, summaries)
        partial -= upgraded
        if upgraded:  # their functions may be called from other modules too
            _CALLABLE_NAMES = _CALLABLE_NAMES | {n for p in upgraded for n in (scans.get(p) or [[], []])[1]}
        project = Project(summaries)
        # further rounds: summarize again, with the others' summaries, every file for which
        # an entry of another summary it read changed, until nothing changes (or MAX_ROUNDS).
        # A file no other module imports is only summarized again with its check (`deferred`):
        # no summary reads it, and its calls are needed only by the checks after it.
        deferred = PackedSet()
        for _ in range(MAX_ROUNDS - 1 if not (settled and not upgraded) else 0):
            settled = False
            changed = [p for p in files if p in upgraded or
                       summarized_at.get(p) != entry_inputs(summaries, p, entries.get(p, ()))]
            deferred.update(p for p in changed if p in partial)
            again = [p for p in changed if p not in partial]
            upgraded = set()
            if os.environ.get("TORCHLEAKLINT_DEBUG_ROUNDS"):
                print(f"summary round: {len(again)} files", file=sys.stderr)
            if not again:
                break
            analyses += len(again)
            for path, _, summary, read, digest, inputs in _analyze(again, settings, workers, verbose, project,
                                                                   check=False, partial=partial):
                _keep(path, absolute(path), summary, read, None, digest, summaries, reads, results, digests)
                entries[path], summarized_at[path] = inputs
            project = Project(summaries)
        # the check: with the final summaries, of every file whose result is not known
        used: Dict[str, Optional[str]] = Packed()  # the fingerprint each file's check was recorded with

        def unknown(candidates):
            pending = []
            for path in candidates:
                if path in deferred or path in late:
                    pending.append(path)
                    continue
                if path in fresh and _analyzed_every_run(path) and results.get(path) is not None:
                    used[path] = None  # a YAML or shell file: its check reads no Python module
                    continue
                if trusted and path not in fresh:
                    recorded = cache.lookup_recorded(path, stats[path])
                    if recorded is not None:
                        results[path], used[path] = recorded
                        continue
                fp = project.fingerprint(path, reads.get(path, ()))
                if path in fresh and results.get(path) is not None and fp is None:
                    used[path] = fp  # depends on no other module: round 1's check is final
                    continue
                if cache is not None and path not in fresh:
                    found = cache.lookup(path, stats[path], deps=fp)
                    if found is not None:
                        results[path], used[path] = found, fp
                        continue
                pending.append(path)
            return pending

        # first the files no other module imports, checked and summarized in one pass (their
        # calls are call sites of the other files' functions), then the others
        first = unknown([p for p in files if p in partial])
        library = [p for p in files if p not in partial and p not in late]
        resummarized = PackedSet()
        for path, diagnostics, summary, read, digest, inputs in _analyze(first, settings, workers, verbose, project,
                                                                         partial=partial):
            _keep(path, absolute(path), summary, read, diagnostics, digest, summaries, reads, results, digests)
            entries[path], summarized_at[path] = inputs
            used[path] = project.fingerprint(path, reads[path])
        if first:
            project = Project(summaries)
        # their calls are call sites of the other modules' functions (`train_online(pid_net,
        # plant)` in the entry script types the parameters of a library module, whose calls
        # then carry values into a third module): summaries that read those sites are
        # computed again, as in the rounds above, before the others are checked. So are the
        # library modules' own calls (`train_one_epoch(model, loader, ..., MetricLogger())` in
        # a main module the package imports), which the summary rounds, looking forward along
        # imports only, did not hand to the modules they call
        for _ in range(MAX_ROUNDS - 1):
            # (only a summary with calls into the run's modules, resolved or by method name:
            # what the sites type can travel on only through the values those calls pass)
            now = {p: project.asked_sites(p, reads.get(p, ())) for p in library if _calls_into_run(summaries, p)}
            again = [p for p in now if now[p] != sites_at.get(p) or
                     summarized_at.get(p) != entry_inputs(summaries, p, entries.get(p, ()))]
            if not again:
                break
            analyses += len(again)
            if os.environ.get("TORCHLEAKLINT_DEBUG_ROUNDS"):
                print(f"site round: {len(again)} files", file=sys.stderr)
            # a file whose forward summary still stands (only the sites changed) needs
            # only the calls of its summary with the sites: one analysis, not two
            settled_forward = {p for p in again if absolute(p) in summaries and
                               summarized_at.get(p) == entry_inputs(summaries, p, entries.get(p, ()))}
            for mode, paths in ((SITES_ONLY, [p for p in again if p in settled_forward]),
                                (SUMMARY_WITH_SITES, [p for p in again if p not in settled_forward])):
                for path, _, summary, read, digest, inputs in _analyze(paths, settings, workers, verbose, project,
                                                                       check=mode, partial=partial):
                    if mode == SITES_ONLY:
                        if summary is not None:
                            summary = with_calls_of(summaries[absolute(path)], summary)
                        read = sorted(set(reads.get(path, ())) | set(read))
                    _keep(path, absolute(path), summary, read, None, digest, summaries, reads, results, digests)
                    if inputs is not None:
                        entries[path], summarized_at[path] = inputs
                    sites_at[path] = project.asked_sites(path, read)  # the sites this summary saw
                    resummarized.add(path)
            project = Project(summaries)
        pending = unknown([p for p in files if p not in partial])
        if os.environ.get("TORCHLEAKLINT_DEBUG_ROUNDS"):
            print(f"round 1: {len(todo)} files; checked: {len(first) + len(pending)} files", file=sys.stderr)
        # a module no other imports, checked before the others of its kind were summarized,
        # may see other call sites now (`self.m()` of a subclass, method names called on
        # objects of unknown class): checked again with the final summaries, so that the run
        # records what the next one would find, and the next one finds it warm
        stale = [p for p in first if used.get(p) != project.fingerprint(p, reads.get(p, ()))]
        for path, diagnostics, summary, read, digest, _ in _analyze(pending + stale, settings, workers, verbose, project,
                                                                    summarize=False):
            results[path] = diagnostics
            if digest is not None:
                digests[path] = digest
            reads[path] = sorted(set(reads.get(path, ())) | set(read))
            used[path] = project.fingerprint(path, reads[path])
        if os.environ.get("TORCHLEAKLINT_DEBUG_ROUNDS"):
            print(f"analyses: {analyses + len(first) + len(pending) + len(stale)}", file=sys.stderr)
        # bounded: what is left unconverged after MAX_ROUNDS stays as it is (the next run
        # does not continue the iteration unless a file changes)
        for path in files if not settled else ():
            summarized_at[path] = entry_inputs(summaries, path, entries.get(path, ()))
        # and the call sites of its functions a file's summary stands for are those it asked
        # about by the end of the run (its check's questions too): the next run summarizes it
        # again with the sites only when the entry modules' calls change them
        checked = PackedSet(pending)
        for path in library if first or pending else ():
            if path in fresh or path in resummarized or path in checked:
                sites_at[path] = project.asked_sites(path, reads.get(path, ()))
    for path in files:
        diagnostics = results[path]
        # (a YAML or shell file is analyzed again every run: an entry would only be rewritten)
        if path in digests and cache is not None and not _analyzed_every_run(path) and \
                not any(d.code == INTERNAL_ERROR for d in diagnostics):
            cache.record(path, stats[path], digests[path], diagnostics, deps=used.get(path))
            store.put(absolute(path), stats[path], digests[path], summaries.get(absolute(path)), reads.get(path, ()),
                      summarized_at.get(path), entries.get(path, ()), scans.get(path), sites_at.get(path))
        yield path, diagnostics
    if cache is not None:
        if all(cache.recorded_deps(path) == (True, used.get(path)) for path in files if not _analyzed_every_run(path)):
            cache.claim_run(run_key)
        cache.save()
        store.save()


def absolute(path: str) -> str:
    """A file's absolute path (the key of its summary)."""
    return os.path.abspath(path)


def _run_key(files: Sequence[str]) -> str:
    """The run's files, as one key (`Cache.claim_run`)."""
    digest = hashlib.blake2b(digest_size=16)
    for i, path in enumerate(sorted(map(absolute, dict.fromkeys(files)))):
        digest.update(("\n" if i else "").encode() + path.encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _calls_into_run(summaries: Dict[str, dict], path: str) -> bool:
    """Does the summary record calls of the run's functions, or method names called on
    objects of unknown class (which typed parameters may resolve)?"""
    summary = summaries.get(os.path.abspath(path))
    return bool(summary and (summary.get("calls") or summary.get("named")))


def _analyzed_every_run(path: str) -> bool:
    """YAML and shell files: their findings may rest on other files of the repository, such
    as the Dockerfile that builds the image a workload runs, which no entry records."""
    return environment_kind(os.path.basename(path)) in (YAML, SHELL)


def _imported_after_all(partial: Collection[str], summaries: Dict[str, dict]) -> set:
    """The files of `partial` (no other module imports them, the prescan says) whose module
    some summary's exact imports name."""
    exact = PackedSet(p for s in summaries.values() for p in s.get("imports", ()))
    return {path for path in partial if absolute(path) in exact}


def _late_files(todo: Sequence[str], partial: Collection[str], scans: Dict[str, list], run: Collection[str]):
    """The files of `todo` whose first analysis can be their check: .py modules no other
    module imports whose possible imports (the prescan's superset) are all files of the run."""
    out = PackedSet()
    for path in todo:
        found = scans.get(path)
        if path in partial and path.endswith(".py") and found and found[0] and all(f in run for f in found[0]):
            out.add(path)
    return out


def _digest(summary) -> str:
    from torchleaklint.project import summary_digest

    return summary_digest(summary)


def _keep(path, abspath, summary, read, diagnostics, digest, summaries, reads, results, digests) -> None:
    if summary is not None:
        summaries[abspath] = summary
    reads[path] = list(read)
    results[path] = diagnostics
    if digest is not None:
        digests[path] = digest


def _summarize_imported(summaries: Dict[str, dict], settings) -> None:
    """Summaries of first-party modules the run imports but does not lint (a single file,
    stdin): read from disk, a few levels deep."""
    frontier = {p for s in summaries.values() for p in s.get("imports", ()) if p not in summaries}
    for _ in range(MAX_IMPORT_DEPTH):
        if not frontier:
            return
        found = set()
        for path in sorted(frontier):
            try:
                raw = read_regular_file(path, max_bytes(path) + 1)
            except OSError:
                continue
            summary, _ = summarize_file(path, raw, settings)
            if summary is not None:
                summaries[path] = summary
                found.update(p for p in summary.get("imports", ()) if p not in summaries)
        frontier = {path for path in found if path not in summaries}


def _analyze(paths: List[str], settings, workers: "_Workers", verbose: bool, project: Optional[Project],
             check: bool = True, summarize: bool = True, partial: Collection[str] = ()):
    from torchleaklint.runner import CHUNKS_PER_JOB, MAX_CHUNK

    jobs = workers.jobs
    sizes = {path: _size(path) for path in paths} if jobs != 1 and len(paths) > 1 else {}
    if jobs == 1 or len(paths) < 2 or sum(map(_work, sizes.items())) < POOL_BYTES:
        for path in paths:
            yield _analyze_one(path, settings, verbose, project, check, summarize, path in partial)
        return
    size = max(1, min(MAX_CHUNK, len(paths) // (min(jobs, len(paths)) * CHUNKS_PER_JOB)))
    # largest files first, dealt round robin: chunks of about equal work, so that the workers
    # finish a phase together (a phase waits for its last chunk)
    ordered = sorted(paths, key=lambda p: -sizes[p])
    count = -(-len(paths) // size)
    chunks = [ordered[i::count] for i in range(count)]
    if project is not None:
        # the call-site index, built once here: each worker gets it with the project (a worker
        # building its own would also leave its temporary files behind: it ends by os._exit)
        project.sites()
    # the workers read the project as it is now: the results they send back are stored into
    # the run's maps while others still run. (The frozen copy's files live as long as
    # `shared`: to the end of the phase.)
    shared = project.frozen() if project is not None else None
    phase = workers.new_phase(shared, _CALLABLE_NAMES)
    tasks = [(phase, chunk, settings, verbose, check, summarize, [p in partial for p in chunk]) for chunk in chunks]
    for results in workers.map(_analyze_chunk, tasks):
        yield from results


class _Workers:
    """The run's worker processes: forked at the first phase worth a pool and kept to the end
    of the run (a pool per phase forked 14 workers a run on two cores, each starting with
    cold CPU caches, copy-on-write faults and empty per-process caches). Each task names its
    phase; the phase's project and call filter travel pickled with it (a few file names and
    the method owners: tens of KB), unpickled once per worker and phase."""

    def __init__(self, jobs: int):
        self.jobs = jobs
        self._pool = None
        self._phases = 0

    def new_phase(self, project: Optional[Project], names) -> tuple:
        import pickle

        self._phases += 1
        return self._phases, pickle.dumps((project, names), protocol=pickle.HIGHEST_PROTOCOL)

    def map(self, function, tasks):
        if self._pool is None:
            from concurrent.futures import ProcessPoolExecutor
            from torchleaklint.runner import _init_worker

            self._pool = ProcessPoolExecutor(max_workers=self.jobs, initializer=_init_worker,
                                             initargs=(os.getpid(),))
        return self._pool.map(function, tasks)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


# Workers pay off from about this much Python source in a phase (a second summary round of
# a few large test modules does; a warm run's few YAML and shell files, analyzed again every
# run, do not: forking the pool costs more than they take)
POOL_BYTES = 48_000


def _work(item) -> float:
    """A file's share of a phase's work: its size, an eighth of it for a file that is not
    Python source (YAML, shell and Dockerfiles are read without a data flow)."""
    path, size = item
    return size if path.endswith((".py", ".pyi", ".ipynb")) else size / 8


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


# every function or method name the run's files define (prescan): only calls of those can
# be call sites another module's check reads; None (no filter) outside lint_project
_CALLABLE_NAMES = None
# in a worker: (phase number, its project) of the last task's phase
_WORKER_PHASE: Tuple[int, Optional[Project]] = (0, None)


def _phase_project(phase: tuple) -> Optional[Project]:
    """The project of a task's phase (`_Workers.new_phase`), unpickled at the worker's first
    task of the phase; the call filter of the phase set with it."""
    import pickle

    global _WORKER_PHASE, _CALLABLE_NAMES
    number, state = phase
    if _WORKER_PHASE[0] != number:
        _WORKER_PHASE = (0, None)  # the last phase's project goes first (its files' handles)
        project, _CALLABLE_NAMES = pickle.loads(state)
        _WORKER_PHASE = (number, project)
    return _WORKER_PHASE[1]


def _analyze_chunk(args):
    phase, chunk, settings, verbose, check, summarize, partial = args
    modules.use_fallback_root(settings.project_root)  # as in the parent (a spawned worker starts without it)
    project = _phase_project(phase)
    return [_analyze_one(path, settings, verbose, project, check, summarize, part)
            for path, part in zip(chunk, partial)]


def analyze_one(path: str, settings, verbose: bool, project: Optional[Project], check: bool = True,
                summarize: bool = True, partial: bool = False):
    """(path, diagnostics, summary, reads, content hash) of one file: summarized and checked,
    or only one of the two."""
    return _analyze_one(path, settings, verbose, project, check, summarize, partial)[:5]


def _analyze_one(path: str, settings, verbose: bool, project: Optional[Project], check: bool = True,
                summarize: bool = True, partial: bool = False):
    """(path, diagnostics, summary, reads, content hash, (entries read, their digest)) of
    one file: summarized and checked, or only one of the two."""
    from torchleaklint.engine import lint_file

    try:
        raw = read_regular_file(path, max_bytes(path) + 1)
    except OSError:
        return path, lint_file(path, settings, verbose), None, [], None, ([], None)
    # (a YAML or shell file reads no Python module: the call-site index is not built for it)
    view = project.view(path) if project is not None and not _analyzed_every_run(path) else ProjectView(path)
    view.callable_names = _CALLABLE_NAMES
    if check == CHECK_UNLESS_ENTRY:
        check = not (partial and path.endswith(".py") and prescan.defined_names(raw))
    if not summarize:
        from torchleaklint.engine import lint_source

        diagnostics = lint_source(raw, path, settings, verbose, project=view)
        return path, diagnostics, None, sorted(view.reads), content_hash(raw), None
    if check == SITES_ONLY:
        with_sites, reads = _calls_with_sites(path, raw, settings, project)
        return path, None, with_sites, sorted(reads), content_hash(raw), None
    if check is not True:
        # a summary looks forward only (no call sites of other modules), but for the rounds
        # after the entry modules were checked (SUMMARY_WITH_SITES): their calls type the
        # parameters of the library functions they call
        forward = ProjectView(path, project.summaries, owners=project.owners()) if project is not None else view
        forward.callable_names = _CALLABLE_NAMES
        summary, _ = summarize_file(path, raw, settings, forward, partial=partial)
        reads = set(forward.reads)
        if check == SUMMARY_WITH_SITES and summary is not None:
            with_sites, typed_reads = _calls_with_sites(path, raw, settings, project)
            if with_sites is not None:
                summary = with_calls_of(summary, with_sites)
                reads |= typed_reads
        return path, None, summary, sorted(reads), content_hash(raw), _inputs(forward)
    diagnostics, summary, read = analyze_file(path, raw, settings, view, verbose, provisional=project is None,
                                              partial=partial)
    return path, diagnostics, summary, read, content_hash(raw), _inputs(view)


def _calls_with_sites(path: str, raw: bytes, settings, project: Project):
    """(summary, reads) of the file's calls with the call sites other modules have of its
    functions: only the calls it makes take the typing; what its functions return stays
    what they return for any caller (a helper's return summarized with the join of its
    callers' arguments would hand one caller's graph to every other). A partial summary: no
    per-function entries, only what is needed here, its calls."""
    typed = project.view(path)
    typed.callable_names = _CALLABLE_NAMES
    with_sites, _ = summarize_file(path, raw, settings, typed, partial=True)
    return with_sites, set(typed.reads)


def with_calls_of(summary: dict, with_sites: dict) -> dict:
    """`summary` with the calls of `with_sites` (the partial pass records no self-calls: the
    forward summary's are kept)."""
    merged = dict(summary)
    merged["calls"] = [c for c in summary.get("calls", ()) if c.get("self")] + \
        [c for c in with_sites.get("calls", ()) if not c.get("self")]
    if with_sites.get("named"):
        merged["named"] = with_sites["named"]
    else:
        merged.pop("named", None)
    return merged


def _inputs(view: ProjectView):
    """(entries read, their digest) against the summaries the view itself used."""
    found = entries_of(view)
    return found, entry_inputs(view.summaries, view.path, found)


def buffer_view(path: str, raw: bytes, settings) -> Optional[ProjectView]:
    """The project as an editor buffer (stdin, the flake8 plugin) sees it: the summaries of
    the modules it imports, read from disk, and the call sites other modules have of its
    functions, from the summaries the last run stored (those whose file is unchanged).
    None when `path` is not a file of a project on disk."""
    if not settings.project_analysis or not path or path == "-" or not os.path.exists(os.path.dirname(os.path.abspath(path)) or "."):
        return None
    absolute = os.path.abspath(path)
    if not modules.project_root(os.path.dirname(absolute)):
        return None
    directory = settings.cache_dir or os.path.join(settings.project_root, DEFAULT_DIR_NAME)
    store = SummaryStore(directory, settings)
    summaries = {}
    for file, entry in store.items():
        if file != absolute and entry.get("summary") is not None and store.get(file, file_stat(file)) is not None:
            summaries[file] = entry["summary"]
    store.close()
    root = modules.project_root(os.path.dirname(absolute))
    if not summaries and root in _SCANNED:  # this process summarized the project already
        summaries = {f: s for f, (stat, s) in _SCANNED[root].items() if f != absolute and file_stat(f) == stat}
    if not summaries:  # no run stored its summaries: a small project is summarized now
        for file in _project_files(root, MAX_BUFFER_SCAN):
            try:  # the buffer itself: its unsaved text
                content = raw if file == absolute else read_regular_file(file, max_bytes(file) + 1)
                summary, _ = summarize_file(file, content, settings)
            except OSError:
                continue
            if summary is not None:
                summaries[file] = summary
        first = Project(dict(summaries))  # a second round sees the first's summaries
        for file in [f for f, s in summaries.items() if s.get("imports") and f != absolute]:
            try:
                summary, _ = summarize_file(file, read_regular_file(file, max_bytes(file) + 1), settings, first.view(file))
            except OSError:
                continue
            if summary is not None:
                summaries[file] = summary
        _SCANNED[root] = {f: (file_stat(f), s) for f, s in summaries.items()}
    # a module no other imports gets a partial summary, as in a run over the project: its
    # classes' objects never reach another module, whose reads of an attribute of the same
    # name (`.buffer` back-propagated elsewhere) are of other objects
    imported = any(absolute in (s.get("imports") or ()) for s in summaries.values())
    own, _ = summarize_file(absolute, raw, settings, ProjectView(absolute, summaries), partial=not imported)
    if own is None:
        return None
    summaries[absolute] = own
    for imported in own.get("imports", ()):  # a module only the buffer imports: summarized in full
        if (summaries.get(imported) or {}).get("partial"):
            del summaries[imported]
    _summarize_imported(summaries, settings)
    return Project(summaries).view(absolute)


def _project_files(root: str, limit: int) -> List[str]:
    """The .py files of a small project (none when it has more than `limit`)."""
    out = []
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in ("venv", "node_modules", "__pycache__"))
        for name in sorted(files):
            if name.endswith(".py"):
                out.append(os.path.join(directory, name))
                if len(out) > limit:
                    return []
    return out
