"""Issue 19: never lose a user's line. Each test reproduces a fault found on 0.x (fixes
computed on one text applied to another, a stale cache, a FIFO, a non-converging fix,
lone CRs, a quadratic analysis, unwritable output, links), on real files and processes."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from torchleaklint import cache as cache_module
from torchleaklint import fixes as fixes_module
from torchleaklint.config import Settings
from torchleaklint.diagnostics import Diagnostic
from torchleaklint.engine import lint_source
from torchleaklint.fixes import apply_fixes_to_results, fix_text
from torchleaklint.fixes.codemods import codemods

codemods_module = sys.modules["torchleaklint.fixes.codemods"]  # the package, not its function
from torchleaklint.runner import lint_paths, open_cache

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=str(ROOT))

SCHEDULER = textwrap.dedent("""\
    import torch


    def train(model, loader, optimizer, scheduler, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                loss = model(x).sum()
                loss.backward()
                optimizer.step()
                torch.cuda.empty_cache()
                scheduler.step_with_warmup(epoch)
    """)


def cli(cwd, *args, **kwargs):
    return subprocess.run([sys.executable, "-m", "torchleaklint", "--no-respect-gitignore", *args], cwd=cwd,
                          env=ENV, capture_output=True, text=True, **{"timeout": 300, **kwargs})


def _tree(root: Path, count: int, text: str = SCHEDULER) -> list:
    root.mkdir(exist_ok=True)
    paths = []
    for i in range(count):
        path = root / f"train_{i:02d}.py"
        path.write_text(text)
        paths.append(str(path))
    return paths


# ------------------------------------------------------------------ fixes and changed files
def test_a_second_fixer_never_applies_old_positions_to_the_first_fixers_output(tmp_path):
    # Two `--fix` runs at once on 60 files: run B lints, run A fixes everything, then B fixes
    # with what it linted. 0.x deleted the scheduler line (now where empty_cache was) in all.
    files = _tree(tmp_path / "src", 60)
    settings = Settings(project_root=str(tmp_path))
    linted_by_b = list(lint_paths(files, settings, jobs=1))
    run_a = cli(tmp_path, "--fix", "--no-cache", "src")
    assert run_a.returncode == 0, run_a.stderr
    apply_fixes_to_results(linted_by_b, settings)
    for path in files:
        text = Path(path).read_text()
        assert "scheduler.step_with_warmup(epoch)" in text and "empty_cache" not in text, path


def test_concurrent_fixer_processes_keep_every_scheduler_line(tmp_path):
    _tree(tmp_path / "src", 60)
    procs = [subprocess.Popen([sys.executable, "-m", "torchleaklint", "--fix", "--no-respect-gitignore", "-q",
                               "--exit-zero", "src"], cwd=tmp_path, env=ENV, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for _ in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0 and b"Traceback" not in err, err
    for path in (tmp_path / "src").iterdir():
        assert "scheduler.step_with_warmup(epoch)" in path.read_text(), path


def test_an_editor_save_between_lint_and_fix_keeps_the_new_line(tmp_path):
    [path] = _tree(tmp_path, 1)
    settings = Settings(project_root=str(tmp_path))
    linted = list(lint_paths([path], settings, jobs=1))
    edited = SCHEDULER.replace("def train(", "LOG_EVERY = 10  # the user's new line\n\n\ndef train(")
    Path(path).write_text(edited)
    apply_fixes_to_results(linted, settings)
    text = Path(path).read_text()
    assert "LOG_EVERY = 10  # the user's new line" in text
    assert "scheduler.step_with_warmup(epoch)" in text and "empty_cache" not in text


def test_an_edit_saved_while_the_fix_is_computed_is_kept(tmp_path, monkeypatch, capsys):
    [path] = _tree(tmp_path, 1)
    settings = Settings(project_root=str(tmp_path))
    linted = list(lint_paths([path], settings, jobs=1))
    users_save = SCHEDULER.replace("epochs):", "epochs):\n    print('saved during the fix')")
    real_fix_text = fixes_module.fix_text

    def fix_while_the_user_saves(*args, **kwargs):
        result = real_fix_text(*args, **kwargs)
        Path(path).write_text(users_save)  # the editor saves while torchleaklint works
        return result

    monkeypatch.setattr(fixes_module, "fix_text", fix_while_the_user_saves)
    apply_fixes_to_results(linted, settings)
    assert Path(path).read_text() == users_save
    assert f"{path} changed while fixing; not fixed" in capsys.readouterr().err


def test_a_fifo_swapped_in_after_linting_is_refused_not_waited_on(tmp_path):
    [path] = _tree(tmp_path, 1)
    script = textwrap.dedent(f"""
        import os
        from torchleaklint.config import Settings
        from torchleaklint.fixes import apply_fixes_to_results
        from torchleaklint.runner import lint_paths
        settings = Settings(project_root={str(tmp_path)!r})
        linted = list(lint_paths([{path!r}], settings, jobs=1))
        os.unlink({path!r}); os.mkfifo({path!r})
        apply_fixes_to_results(linted, settings)
        print("returned")
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "returned", proc.stderr
    assert "cannot read" in proc.stderr and "Traceback" not in proc.stderr


def test_add_noqa_refuses_a_fifo(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    script = textwrap.dedent(f"""
        from torchleaklint.add_noqa import add_noqa
        from torchleaklint.diagnostics import Diagnostic
        print(add_noqa([Diagnostic({str(fifo)!r}, 1, 1, "TLL004", "m")]))
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=ENV, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "0", proc.stderr


def test_fix_keeps_hard_links_and_extended_attributes(tmp_path):
    [path] = _tree(tmp_path, 1)
    link = tmp_path / "same_file.py"
    os.link(path, link)
    try:
        os.setxattr(path, "user.reviewed", b"yes")
        has_xattrs = True
    except (OSError, AttributeError):
        has_xattrs = False
    proc = cli(tmp_path, "--fix", "--no-cache", path)
    assert proc.returncode == 0, proc.stderr
    assert "empty_cache" not in Path(path).read_text()
    assert os.path.samefile(path, link) and link.read_text() == Path(path).read_text()
    if has_xattrs:
        assert os.getxattr(path, "user.reviewed") == b"yes"


def test_fix_keeps_extended_attributes_of_a_single_link(tmp_path):
    [path] = _tree(tmp_path, 1)
    try:
        os.setxattr(path, "user.reviewed", b"yes")
    except (OSError, AttributeError):
        pytest.skip("no user extended attributes on this filesystem")
    assert cli(tmp_path, "--fix", "--no-cache", path).returncode == 0
    assert "empty_cache" not in Path(path).read_text()
    assert os.getxattr(path, "user.reviewed") == b"yes"


def test_a_symlinked_directory_out_of_the_tree_is_not_followed(tmp_path):
    outside = tmp_path / "elsewhere"
    [victim] = _tree(outside, 1)
    project = tmp_path / "project"
    _tree(project, 1)
    (project / "vendor").symlink_to(outside, target_is_directory=True)
    proc = cli(tmp_path, "--fix", "--no-cache", "project")
    assert proc.returncode == 0, proc.stderr
    assert Path(victim).read_text() == SCHEDULER  # untouched: not part of the named tree
    assert "empty_cache" not in (project / "train_00.py").read_text()


# ------------------------------------------------------------------ convergence
MATCH = textwrap.dedent("""\
    import torch


    def run(model, loader, optimizer, mode):
        match mode:
            case "train":
                for x, y in loader:
                    loss = model(x).sum()
                    loss.backward()
                    optimizer.step()
            case "eval":
                model.eval()
                for x, y in loader:
                    out = model(x)
                    print(out.sum().item())
                model.train()
    """)


def test_tll006_inside_match_is_fixed_once(tmp_path):
    path = tmp_path / "modes.py"
    path.write_text(MATCH)
    first = cli(tmp_path, "--fix", "--no-cache", "modes.py")
    assert first.returncode == 0, first.stdout + first.stderr
    fixed = path.read_text()
    assert fixed.count("with torch.no_grad():") == 1
    second = cli(tmp_path, "--fix", "--no-cache", "modes.py")
    assert second.returncode == 0 and path.read_text() == fixed


def test_a_fix_that_does_not_remove_its_finding_is_not_applied_again(monkeypatch, capsys):
    import libcst as cst

    def useless(module, specs):  # a buggy codemod: changes the text, leaves the finding
        return module.with_changes(header=[*module.header, cst.EmptyLine(comment=cst.Comment("# touched"))])

    codemods()  # fill the registry, then break one codemod
    monkeypatch.setitem(codemods_module._registry, "delete_statement", useless)
    assert fix_text(SCHEDULER, "train.py", Settings()).text == SCHEDULER
    fix_text(SCHEDULER, "train.py", Settings(), verbose=True)
    assert "the delete_statement fix for TLL004 in train.py did not remove its finding" in capsys.readouterr().err


# ------------------------------------------------------------------ analysis
def test_noqa_on_one_lone_cr_line_does_not_suppress_its_neighbours():
    source = ("import torch\r\r\rdef train(model, loader, opt):\r    for x in loader:\r"
              "        torch.cuda.empty_cache()\r        loss = model(x).sum()  # noqa\r"
              "        loss.backward()\r\r\rprint(1)\r")
    found = lint_source(source.encode(), "cr.py", Settings())
    assert [(d.line, d.code) for d in found] == [(6, "TLL004")]


def test_a_4000_statement_evaluation_function_is_analyzed_in_time():
    lines = ["import torch", "", "", "def run(model, x, optimizer):", "    loss = model(x).sum()",
             "    loss.backward()", "    optimizer.step()", "    model.eval()"]
    lines += [f"    y{i} = model(x)" for i in range(4000)]
    lines += [f"    print(y{i})" for i in range(0, 4000, 10)] + ["    model.train()", ""]
    started = time.process_time()
    found = lint_source("\n".join(lines), "big.py", Settings(), time_limit=30)
    assert [d.code for d in found] == ["TLL006"] * 4000
    assert found[0].fix is not None and found[0].fix.codemod == "wrap_in_no_grad"
    assert time.process_time() - started < 20


def test_the_time_limit_counts_cpu_time_not_waiting(monkeypatch):
    from torchleaklint.rules import all_rules

    rule = all_rules()["TLL004"]
    real_check = rule.check

    def slow_disk(self, model):  # waiting (a suspended run, a loaded machine) is not analysis
        time.sleep(0.6)
        return real_check(self, model)

    monkeypatch.setattr(rule, "check", slow_disk)
    found = lint_source(SCHEDULER, "train.py", Settings(), time_limit=0.3)
    assert [d.code for d in found] == ["TLL004"]


# ------------------------------------------------------------------ cache
def _project(tmp_path: Path, text: str):
    (tmp_path / "pyproject.toml").write_text("[tool.torchleaklint]\n")
    path = tmp_path / "train.py"
    path.write_text(text)
    return str(path), Settings(project_root=str(tmp_path))


def test_a_stale_cache_entry_after_a_restored_mtime_never_deletes_the_new_line(tmp_path):
    # The trial: empty_cache() replaced by a same-size line, mtime restored; 0.x
    # served the old TLL004 and --fix deleted save_checkpoint(model,1) ("1 x TLL004 fixed").
    path, _ = _project(tmp_path, SCHEDULER)
    assert cli(tmp_path, "train.py").returncode == 1
    before = os.stat(path)
    edited = SCHEDULER.replace("torch.cuda.empty_cache()", "save_checkpoint(model,1)")
    assert len(edited) == len(SCHEDULER)
    Path(path).write_text(edited)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    proc = cli(tmp_path, "--fix", "train.py")
    assert Path(path).read_text() == edited
    assert proc.returncode == 0 and "TLL004" not in proc.stdout


class _CoarseStat:
    """os.stat on a filesystem with 1-second timestamps."""

    def __init__(self, real):
        self._real = real

    def __getattr__(self, name):
        value = getattr(self._real, name)
        if name in ("st_mtime_ns", "st_ctime_ns"):
            return value - value % 1_000_000_000
        return value


def test_a_same_size_edit_within_one_timestamp_tick_is_relinted(tmp_path, monkeypatch):
    real_stat = os.stat
    monkeypatch.setattr(cache_module.os, "stat", lambda *a, **k: _CoarseStat(real_stat(*a, **k)))
    path, settings = _project(tmp_path, SCHEDULER)
    time.sleep(1 - time.time() % 1 if time.time() % 1 > 0.5 else 0)  # stay within one second
    Path(path).write_text(SCHEDULER)
    assert [d.code for _, ds in lint_paths([path], settings, jobs=1, cache=open_cache(settings)) for d in ds] \
        == ["TLL004"]
    Path(path).write_text(SCHEDULER.replace("torch.cuda.empty_cache()", "save_checkpoint(model,1)"))
    again = [d.code for _, ds in lint_paths([path], settings, jobs=1, cache=open_cache(settings)) for d in ds]
    assert again == []


def test_a_time_out_is_never_cached(tmp_path):
    path, settings = _project(tmp_path, SCHEDULER)
    cache = open_cache(settings)
    timed_out = [Diagnostic(path, 1, 1, "TLL900", "analysis took longer than 30 s of CPU time; skipped")]
    cache.record(path, cache_module.file_stat(path), cache_module.content_hash(Path(path).read_bytes()), timed_out)
    cache.save()
    assert os.path.abspath(path) not in open_cache(settings).entries


def test_the_python_version_keys_the_cache(tmp_path, monkeypatch):
    _, settings = _project(tmp_path, SCHEDULER)
    here = open_cache(settings).path
    monkeypatch.setattr(sys, "version", "3.99.0 (elsewhere)")
    assert open_cache(settings).path != here


def test_a_crafted_pickle_in_the_cache_directory_never_runs(tmp_path):
    path, settings = _project(tmp_path, SCHEDULER)
    marker = tmp_path / "pwned"

    class Exploit:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    payload = pickle.dumps({"x": Exploit()})
    cache_path = open_cache(settings).path
    cache_path.parent.mkdir(parents=True)
    cache_path.write_bytes(b"TLLCACHE1\n" + hashlib.sha256(payload).digest() + payload)  # 0.x's format
    proc = cli(tmp_path, "train.py")
    assert not marker.exists()
    assert proc.returncode == 1 and "TLL004" in proc.stdout


def test_a_crafted_json_cache_drops_bad_entries_and_never_crashes(tmp_path):
    path, settings = _project(tmp_path, SCHEDULER)
    assert cli(tmp_path, "train.py").returncode == 1
    cache_path = open_cache(settings).path
    header, _, payload = cache_path.read_bytes().partition(b"\n")
    data = json.loads(payload)  # the cache is JSON, not a pickle
    [entry] = data["entries"].values()
    data["entries"] = {
        os.path.abspath(path): dict(entry, diagnostics=[[1, "one", "TLL004", None, 0, 0, {"codemod": 3}]]),
        "/elsewhere/a.py": {"stat": "nope"},
        "/elsewhere/b.py": dict(entry, diagnostics=[[1, 1, "TLL001", "m", 1, 1, {"tuple": [1]}]] * 2),
    }
    payload = json.dumps(data).encode()
    cache_path.write_bytes(f"{cache_module.FORMAT} {hashlib.sha256(payload).hexdigest()}\n".encode() + payload)
    assert cache_module._load(cache_path) == {}
    proc = cli(tmp_path, "train.py")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stdout.count("TLL004") == 1


def test_a_fifo_in_place_of_the_cache_file_is_refused_not_waited_on(tmp_path):
    _, settings = _project(tmp_path, SCHEDULER)
    cache_path = open_cache(settings).path
    cache_path.parent.mkdir(parents=True)
    os.mkfifo(cache_path)
    proc = cli(tmp_path, "train.py", timeout=60)
    assert proc.returncode == 1 and "TLL004" in proc.stdout


# ------------------------------------------------------------------ output
def test_sarif_with_a_file_name_that_is_not_utf8(tmp_path):
    name = os.fsdecode(b"train_\xff.py")
    (tmp_path / name).write_text(SCHEDULER)
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-cache", "--no-respect-gitignore",
                           "--output-format", "sarif", "."], cwd=tmp_path, env=ENV, capture_output=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stderr
    [result] = json.loads(proc.stdout)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "train_%FF.py"


def test_a_full_disk_is_one_error_line_and_exit_2_even_with_exit_zero(tmp_path):
    _project(tmp_path, SCHEDULER)
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-cache", "--exit-zero", "train.py"],
                              cwd=tmp_path, env=ENV, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == "torchleaklint: error: cannot write the report: No space left on device\n"


def test_a_closed_pipe_is_one_error_line_and_exit_2(tmp_path):
    _project(tmp_path, SCHEDULER)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-cache", "--exit-zero", "train.py"],
                              cwd=tmp_path, env=ENV, stdout=write_end, stderr=subprocess.PIPE, text=True,
                              timeout=120)
    finally:
        os.close(write_end)
    assert proc.returncode == 2
    assert proc.stderr == "torchleaklint: error: cannot write the report: Broken pipe\n"
