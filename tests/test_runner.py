"""The parallel runner and the persistent cache, on real files and real processes."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from multiprocessing import get_context
from pathlib import Path

import pytest

from fixture_markers import FIXTURES
from torchleaklint import cache as cache_module
from torchleaklint.cache import Cache, _load
from torchleaklint.config import Settings, with_overrides
from torchleaklint.engine import lint_file
from torchleaklint.runner import MIN_FILES_FOR_POOL, lint_paths, open_cache

LEAKY = (FIXTURES / "tll001" / "smoke_train_loop.py").read_text(encoding="utf-8")
CLEAN = "import torch\n\n\ndef f(x):\n    return x + 1\n"
BROKEN = "total += (\n"


def make_project(root: Path, copies: int) -> list:
    """A project of leaky, clean and unparsable files (enough to use the process pool)."""
    (root / "pyproject.toml").write_text("[tool.torchleaklint]\n")
    files = []
    for i in range(copies):
        for kind, text in (("leaky", LEAKY), ("clean", CLEAN), ("broken", BROKEN)):
            path = root / "pkg" / f"{kind}_{i:03}.py"
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            files.append(str(path))
    return sorted(files)


def run(files, settings, **kwargs):
    return [(path, diagnostics) for path, diagnostics in lint_paths(files, settings, **kwargs)]


@pytest.fixture
def project(tmp_path):
    files = make_project(tmp_path, copies=MIN_FILES_FOR_POOL)
    return tmp_path, files, Settings(project_root=str(tmp_path))


def test_pool_results_equal_serial_results_in_path_order(project):
    _, files, settings = project
    serial = run(files, settings, jobs=1)
    parallel = run(files, settings, jobs=2)
    assert parallel == serial
    assert [path for path, _ in parallel] == files
    assert serial == [(path, lint_file(path, settings)) for path in files]
    assert any(d.fix is not None for _, found in serial for d in found)
    assert {d.code for _, found in serial for d in found} == {"TLL001", "TLL900"}


def test_diagnostics_with_fixes_pickle(project):
    _, files, settings = project
    found = [d for path in files for d in lint_file(path, settings)]
    assert pickle.loads(pickle.dumps(found)) == found
    assert [d.fix for d in pickle.loads(pickle.dumps(found))] == [d.fix for d in found]


def test_warm_run_reuses_cache_and_equals_cold(project):
    root, files, settings = project
    cold = run(files, settings, jobs=2, cache=open_cache(settings))
    assert (root / ".torchleaklint_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    warm_cache = open_cache(settings)
    assert len(warm_cache.entries) == len(files)
    assert run(files, settings, jobs=2, cache=warm_cache) == cold
    assert [(d.fix) for _, found in cold for d in found] == \
        [(d.fix) for _, found in run(files, settings, cache=open_cache(settings)) for d in found]


def test_an_edit_with_its_mtime_restored_is_relinted(project):
    # issue 19: `cp -p`, `rsync -t`, `tar -x` restore the mtime of an edited file; a cache
    # trusting size, mtime and mode served the old result.
    _, files, settings = project
    leaky = next(f for f in files if "leaky" in f)
    run(files, settings, cache=open_cache(settings))
    before = os.stat(leaky)
    same_size = LEAKY.replace("total_loss", "total_lost")
    Path(leaky).write_text(same_size, encoding="utf-8")
    os.utime(leaky, ns=(before.st_atime_ns, before.st_mtime_ns))
    fresh = dict(run([leaky], settings, cache=open_cache(settings)))[leaky]
    assert "`total_lost`" in fresh[0].message


def test_touched_file_hits_by_content_hash_and_refreshes_its_stat(project):
    _, files, settings = project
    clean = next(f for f in files if "clean" in f)
    run(files, settings, cache=open_cache(settings))
    os.utime(clean, ns=(0, 10**18))
    cache = open_cache(settings)
    assert cache.lookup(clean, cache_module.file_stat(clean)) == []
    cache.save()
    assert open_cache(settings).entries[os.path.abspath(clean)][0][1] == 10**18


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "old-pickle-format"])
def test_corrupt_cache_is_discarded_and_rewritten(project, damage):
    _, files, settings = project
    expected = run(files, settings, cache=open_cache(settings))
    path = open_cache(settings).path
    blob = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(blob[: len(blob) // 2])
    elif damage == "flip":
        middle = len(blob) // 2
        path.write_bytes(blob[:middle] + bytes([blob[middle] ^ 0xFF]) + blob[middle + 1:])
    elif damage == "garbage":
        path.write_bytes(os.urandom(len(blob)))
    elif damage == "empty":
        path.write_bytes(b"")
    else:  # what 0.x wrote: a checksummed pickle, never unpickled now
        import hashlib

        payload = pickle.dumps({"x": 1})
        path.write_bytes(b"TLLCACHE1\n" + hashlib.sha256(payload).digest() + payload)
    assert _load(path) == {}
    assert run(files, settings, cache=open_cache(settings)) == expected
    assert len(_load(path)) == len(files)


def test_settings_and_version_key_the_cache(project):
    _, files, settings = project
    run(files, settings, cache=open_cache(settings))
    ignoring = with_overrides(settings, ignore=("TLL001",))
    assert open_cache(ignoring).path != open_cache(settings).path
    assert open_cache(ignoring).entries == {}
    assert all(not d for _, d in run(files, ignoring, cache=open_cache(ignoring)) if "leaky" in _)


def test_editing_the_package_source_changes_the_cache_key(tmp_path):
    package = Path(cache_module.__file__).resolve().parent
    copy = tmp_path / "torchleaklint"
    shutil.copytree(package, copy, ignore=shutil.ignore_patterns("__pycache__"))
    probe = [sys.executable, "-c", "from torchleaklint.cache import package_source_hash as h; print(h())"]
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    before = subprocess.run(probe, env=env, cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    rule = copy / "rules" / "tll001_loss_accumulation.py"
    rule.write_text(rule.read_text() + "\n# a developer edits a rule\n")
    after = subprocess.run(probe, env=env, cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert before.strip() and before != after


def _lint_with_cache(args):
    root, files, rounds = args
    settings = Settings(project_root=root)
    for _ in range(rounds):
        cache = open_cache(settings)
        cache.entries.clear()  # force every file to be recorded and the file rewritten
        list(lint_paths(files, settings, jobs=1, cache=cache))
    return True


def test_concurrent_runs_never_corrupt_the_cache(project):
    root, files, settings = project
    with get_context("spawn").Pool(4) as pool:
        assert all(pool.map(_lint_with_cache, [(str(root), files[i::4], 5) for i in range(4)]))
    path = open_cache(settings).path
    assert _load(path), "the cache must verify after concurrent writers"
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".tmp-")]


def test_unwritable_cache_directory_is_skipped(project):
    root, files, settings = project
    blocker = root / "not-a-directory"
    blocker.write_text("")
    cache = Cache(str(blocker / "cache"), settings)
    assert run(files, settings, cache=cache) == run(files, settings)


def cli(root, *args):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    return subprocess.run([sys.executable, "-m", "torchleaklint", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_jobs_and_cache_options(project):
    root, _, _ = project
    serial = cli(root, "pkg", "-j", "1", "--no-cache")
    assert serial.returncode == 1 and serial.stdout.count("TLL001") > MIN_FILES_FOR_POOL
    assert not (root / ".torchleaklint_cache").exists()
    parallel = cli(root, "pkg", "--jobs", "2")
    assert (parallel.stdout, parallel.returncode) == (serial.stdout, serial.returncode)
    assert (root / ".torchleaklint_cache" / ".gitignore").is_file()
    warm = cli(root, "pkg")
    assert (warm.stdout, warm.returncode) == (serial.stdout, serial.returncode)
    elsewhere = cli(root, "pkg", "--cache-dir", "elsewhere")
    assert elsewhere.stdout == serial.stdout and (root / "elsewhere" / ".gitignore").is_file()
    (root / "pyproject.toml").write_text('[tool.torchleaklint]\ncache-dir = "configured"\n')
    assert cli(root, "pkg").stdout == serial.stdout and (root / "configured" / ".gitignore").is_file()
    assert cli(root, "pkg", "-j", "0").returncode == 2
