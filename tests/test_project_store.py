"""Where a project run keeps its per-module data (issue 14, flat memory): the packed summaries
in a temporary file of the run, the summary store read line by line. What is on disk must read
back the same, in the run's process and in its workers, and nothing may be left behind.
"""

import gc
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

from test_project import METER, write
from torchleaklint.project.packed import Packed, PackedSet
from torchleaklint.project.store import SummaryStore

ROOT = Path(__file__).resolve().parent.parent


class _Settings:
    def fingerprint(self):
        return "test-settings"


def _spill_files(directory):
    return sorted(Path(directory).glob("torchleaklint-*.packed"))


def test_packed_values_read_back_from_the_spill_and_the_file_goes_with_the_mapping(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    packed = Packed()
    values = {f"/p/m{i}.py": {"functions": {f"f{j}": [i, j, "graph"] for j in range(20)}} for i in range(600)}
    for path, value in values.items():
        packed[path] = value
    assert len(_spill_files(tmp_path)) == 1  # the bytes went to disk
    assert len(list(tmp_path.glob("torchleaklint-*.index"))) == 1  # and where they are, too
    assert not hasattr(packed, "_packed") and len(packed._recent) <= 256  # nothing per key in memory
    assert all(packed[path] == value for path, value in values.items())  # most from disk, not the cache
    packed["/p/m0.py"] = {"again": 1}  # storing again replaces
    assert packed["/p/m0.py"] == {"again": 1}
    del packed
    gc.collect()
    assert list(tmp_path.glob("torchleaklint-*")) == []


def test_packed_keeps_a_dicts_order_and_answers_as_one():
    packed, plain = Packed(), {}
    for i in range(1500):  # more keys than are read at a time when iterating
        key = f"/p/m{i * 7 % 1000}.py"
        if i % 5 == 4:
            assert packed.pop(key, None) == plain.pop(key, None)
        else:
            packed[key] = plain[key] = [i]
    packed["/p/\udcff.py"] = plain["/p/\udcff.py"] = None  # an undecodable file name; a None value
    assert list(packed) == list(plain) and len(packed) == len(plain) and dict(packed.items()) == plain
    assert "/p/\udcff.py" in packed and "/p/none.py" not in packed and packed.get("/p/none.py", 3) == 3


def test_packed_pairs_read_a_page_at_a_time_in_either_order():
    """`items()`, `values()` and `sorted_items()` read a page of values per query (the call-site
    index walks every summary several times a run) and answer as a dict would."""
    from torchleaklint.project.packed import sorted_items

    packed, plain = Packed(), {}
    for i in range(1300):  # more keys than a page
        key = f"/p/{'é' if i % 3 else 'z'}{i * 11 % 1000}.py"
        packed[key] = plain[key] = {"i": i}
    packed["/p/\udcff.py"] = plain["/p/\udcff.py"] = {"i": -1}  # an undecodable file name
    assert list(packed.items()) == list(plain.items())  # insertion order
    assert list(packed.values()) == list(plain.values())
    assert list(sorted_items(packed)) == sorted(plain.items()) == list(sorted_items(plain))
    seen = []
    for key, value in packed.items():  # storing while walking: every key once, as a dict's walk
        seen.append(key)
        packed[key] = {"i": value["i"] + 1}
    assert seen == list(plain) and packed["/p/z0.py"] == {"i": plain["/p/z0.py"]["i"] + 1}


def test_a_frozen_copy_keeps_the_map_as_it_was_in_this_process_and_a_forked_one(tmp_path):
    packed = Packed({f"/p/m{i}.py": i for i in range(10)})
    frozen = packed.frozen()
    packed["/p/m0.py"], packed["/p/new.py"] = "changed", "new"
    assert frozen["/p/m0.py"] == 0 and "/p/new.py" not in frozen and len(frozen) == 10
    if hasattr(os, "fork"):
        child = os.fork()
        if child == 0:  # a worker of the pool: reads the copy from its own connection
            os._exit(0 if dict(frozen.items()) == {f"/p/m{i}.py": i for i in range(10)} else 1)
        assert os.waitpid(child, 0)[1] == 0


def test_a_packed_set_is_a_set():
    members = PackedSet(["a", "b"])
    members -= {"a"}
    members.update(["c", "b"])
    assert set(members) == {"b", "c"} and "a" not in members and len(members) == 2


def test_a_worker_reads_the_spill_by_name():
    packed = Packed({f"/p/m{i}.py": [i] * 50 for i in range(300)})
    copy = pickle.loads(pickle.dumps(packed))  # what a worker process receives
    assert copy._recent == {} and copy["/p/m7.py"] == [7] * 50 and len(copy) == 300


def _line_count(path):
    return len(Path(path).read_text().splitlines())


def test_the_store_reads_back_what_it_saved_and_skips_a_broken_line(tmp_path):
    store = SummaryStore(str(tmp_path), _Settings())
    store.put("/p/a.py", (1, 2), b"\x01", {"functions": {"f": 1}}, ["/p/b.py"], "fp", [["x"]], [[], ["f"]])
    store.put("/p/b.py", (3, 4), None, None, [], None)
    store.save()
    assert _line_count(store.path) == 2
    again = SummaryStore(str(tmp_path), _Settings())
    entry = again.get("/p/a.py", (1, 2))
    assert entry["summary"] == {"functions": {"f": 1}} and entry["reads"] == ["/p/b.py"] and entry["hash"] == "01"
    assert again.get("/p/a.py", (1, 3)) is None  # another stat: the file changed
    assert dict(again.items()).keys() == {"/p/a.py", "/p/b.py"}
    again.close()
    # a line cut short (a crash while another tool wrote it) costs that file's entry only
    text = Path(store.path).read_text().splitlines()
    Path(store.path).write_text(text[0][:40] + "\n" + text[1] + "\n")
    broken = SummaryStore(str(tmp_path), _Settings())
    assert broken.get("/p/a.py", (1, 2)) is None and broken.get("/p/b.py", (3, 4)) is not None
    broken.close()


def test_a_warm_put_of_the_same_entry_writes_nothing(tmp_path):
    store = SummaryStore(str(tmp_path), _Settings())
    store.put("/p/a.py", (1, 2), b"\x01", {"f": 1}, [])
    store.save()
    again = SummaryStore(str(tmp_path), _Settings())
    again.put("/p/a.py", (1, 2), b"\x01", {"f": 1}, [])
    assert not again.changed
    again.put("/p/a.py", (1, 2), b"\x02", {"f": 1}, [])
    assert again.changed
    again.save()
    assert SummaryStore(str(tmp_path), _Settings()).get("/p/a.py", (1, 2))["hash"] == "02"


def test_a_cached_project_run_keeps_its_store_and_leaves_no_spill(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    write(project, METER)
    spill_dir = tmp_path / "tmp"
    spill_dir.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(spill_dir))

    def lint():
        proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--output-format", "json", "--cache-dir",
                               str(tmp_path / "cache"), "."], cwd=project, env=env, capture_output=True, text=True)
        assert proc.returncode in (0, 1), proc.stderr
        return {(f["path"], f["line"], f["code"]) for f in json.loads(proc.stdout)}

    cold = lint()
    assert any(code == "TLL001" for _, _, code in cold)  # the meter across modules: summaries were read
    stores = list((tmp_path / "cache").rglob("project-*.jsonl"))
    assert len(stores) == 1 and _line_count(stores[0]) == 2
    written = stores[0].stat().st_mtime_ns
    assert lint() == cold
    assert stores[0].stat().st_mtime_ns == written  # a warm run writes nothing
    assert list(spill_dir.glob("torchleaklint-*")) == []  # no spill, no index left behind


def _lint_in_process(project, cache_dir, names):
    from torchleaklint.cache import Cache
    from torchleaklint.config import Settings
    from torchleaklint.runner import lint_paths

    settings = Settings(project_root=str(project), respect_gitignore=False, select=("TLL", "TLL002"))
    cache = Cache(str(cache_dir), settings)
    paths = [str(project / name) for name in names]
    found = {(os.path.basename(path), d.line, d.code) for path, ds in lint_paths(paths, settings, jobs=1, cache=cache)
             for d in ds}
    return found, Cache(str(cache_dir), settings)


def test_a_warm_run_over_the_same_files_takes_the_checks_without_fingerprints(tmp_path, monkeypatch):
    """The last run over the same files recorded every check with the dependencies it computed
    and no summary changed: the entries hold as they are (no fingerprint is computed). A run
    over other files, an edit, or a concurrent writer takes that trust away."""
    from torchleaklint.project import Project

    (tmp_path / "project").mkdir()
    project = write(tmp_path / "project", METER)
    computed = []
    real = Project.fingerprint
    monkeypatch.setattr(Project, "fingerprint", lambda self, *a: computed.append(a[0]) or real(self, *a))
    files, cache_dir = ["train.py", "utils.py"], tmp_path / "cache"
    cold, cache = _lint_in_process(project, cache_dir, files)
    assert ("utils.py", 7, "TLL001") in cold and cache._run is not None
    computed.clear()
    assert _lint_in_process(project, cache_dir, files)[0] == cold and computed == []
    # a run over one of the files re-records it with what that run saw (no call site from
    # train.py: no finding): the next run over both may not take that entry as it is
    assert ("utils.py", 7, "TLL001") not in _lint_in_process(project, cache_dir, ["utils.py"])[0]
    computed.clear()
    assert _lint_in_process(project, cache_dir, files)[0] == cold and computed  # checked again, same result
    computed.clear()
    assert _lint_in_process(project, cache_dir, files)[0] == cold and computed == []
    # an edit of the callee changes its summary: nothing is taken on trust, the finding goes
    utils = project / "utils.py"
    utils.write_text(utils.read_text().replace("self.sum += val * n", "self.sum += float(val) * n"))
    edited = _lint_in_process(project, cache_dir, files)[0]
    assert ("utils.py", 7, "TLL001") not in edited and computed
    computed.clear()
    assert _lint_in_process(project, cache_dir, files)[0] == edited and computed == []


def test_a_run_claim_is_dropped_when_another_process_wrote_the_cache_meanwhile(tmp_path):
    from torchleaklint.cache import Cache, file_stat

    class Settings(_Settings):
        project_root = str(tmp_path)

    source = tmp_path / "a.py"
    source.write_text("x = 1\n")
    first, second = Cache(str(tmp_path / "c"), Settings()), Cache(str(tmp_path / "c"), Settings())
    second.record(str(source), file_stat(str(source)), b"0" * 16, [], deps="d")
    second.save()
    first.claim_run("run-key")
    first.save()
    assert not Cache(str(tmp_path / "c"), Settings()).trusts_run("run-key")
    again = Cache(str(tmp_path / "c"), Settings())
    again.claim_run("run-key")
    again.save()
    assert Cache(str(tmp_path / "c"), Settings()).trusts_run("run-key")
