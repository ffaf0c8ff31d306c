"""One file's trouble is one diagnostic for that file: a crashing rule (TLL901), code too
deep or too slow to analyze, files that vanish, cannot be read or are not files (TLL900).
The run goes on; only the linter's own failure (TLL901) makes the exit status 2."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchleaklint.cli import main
from torchleaklint.config import Settings
from torchleaklint.discovery import discover
from torchleaklint.engine import lint_files, lint_source
from torchleaklint.rules import Rule, all_rules
from torchleaklint.rules import base as rule_base

ROOT = Path(__file__).resolve().parent.parent
LEAK = (
    "import torch\n"
    "def train(model, loader, opt):\n"
    "    total = 0\n"
    "    for x, y in loader:\n"
    "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
    "        loss.backward()\n"
    "        opt.step()\n"
    "        total += loss\n"
)


class BrokenRule(Rule):
    """A rule with a bug: it raises on every file that mentions backward."""

    code = "TLL099"
    name = "broken-rule"
    summary = "always crashes"
    tokens = ("backward",)

    def check(self, model):
        yield from ()
        raise KeyError("no such node")


@pytest.fixture
def broken_rule_registered(monkeypatch):
    all_rules()  # fill the registry first, then add the broken rule beside the real ones
    monkeypatch.setitem(rule_base._registry, BrokenRule.code, BrokenRule)


def test_a_crashing_rule_is_one_tll901_and_the_other_rules_still_report(tmp_path, monkeypatch,
                                                                       broken_rule_registered):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(LEAK)
    (tmp_path / "b.py").write_text("x = 1\n")  # no token of the broken rule: untouched
    result = CliRunner().invoke(main, ["--no-respect-gitignore", "."])
    lines = result.stdout.splitlines()
    assert result.exit_code == 2
    assert lines == [
        "./a.py:1:1: TLL901 internal error in TLL099: KeyError: 'no such node'; please report",
        lines[1],
    ] and lines[1].startswith("./a.py:8:9: TLL001")
    assert "Traceback" not in result.stderr


def test_verbose_prints_the_internal_errors_traceback(tmp_path, monkeypatch, broken_rule_registered):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(LEAK)
    result = CliRunner().invoke(main, ["--verbose", "a.py"])
    assert result.exit_code == 2
    assert "Traceback (most recent call last)" in result.stderr
    assert "raise KeyError(\"no such node\")" in result.stderr


def test_an_ignored_crashing_rule_does_not_run(tmp_path, monkeypatch, broken_rule_registered):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(LEAK)
    result = CliRunner().invoke(main, ["--ignore", "TLL099", "a.py"])
    assert result.exit_code == 1 and "TLL901" not in result.stdout


def _elif_chain(branches: int) -> str:
    body = "".join(f"        {'if' if i == 0 else 'elif'} x == {i}:\n            total += loss\n"
                   for i in range(branches))
    return LEAK + body


def test_recursion_exhausted_in_the_semantic_layer_is_one_tll900(tmp_path):
    # An elif chain of 1500 parses (CPython's parser is not recursive there) but nests 1500
    # deep in the tree, deeper than the analysis can recurse with the default limit.
    (tmp_path / "deep.py").write_text(_elif_chain(1500))
    (tmp_path / "leak.py").write_text(LEAK)
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-respect-gitignore", str(tmp_path)],
                          capture_output=True, text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == [
        f"{tmp_path / 'deep.py'}:1:1: TLL900 code is nested too deeply to analyze; skipped",
        f"{tmp_path / 'leak.py'}:8:9: TLL001 " + proc.stdout.split("leak.py:8:9: TLL001 ")[1].rstrip("\n"),
    ]
    assert "Traceback" not in proc.stderr


def test_recursion_exhausted_with_a_low_limit_is_reported_not_raised(tmp_path):
    # the same under a low limit (an embedding application may set one)
    script = ("import sys; sys.setrecursionlimit(150)\n"
              "from torchleaklint.engine import lint_source\n"
              "from torchleaklint.config import Settings\n"
              f"print([d.message for d in lint_source({_elif_chain(60)!r}, 'x.py', Settings())])\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['code is nested too deeply to analyze; skipped']"


def _many_functions(count: int) -> str:
    return "import torch\n" + "".join(LEAK.replace("def train", f"def train{i}").replace("import torch\n", "")
                                      for i in range(count))


def test_analysis_time_limit_gives_a_clear_tll900():
    import gc

    # Garbage left by earlier in-process CLI runs (click's CliRunner streams) can be
    # finalized while the alarm fires; an exception raised inside a finalizer is discarded.
    gc.collect()
    [d] = lint_source(_many_functions(300), "slow.py", Settings(), time_limit=0.001)
    assert (d.code, d.message) == ("TLL900", "analysis took longer than 0.001 s of CPU time; skipped")


def test_time_limit_restores_a_timer_the_caller_had_set():
    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *_: fired.append(True))
    try:
        signal.setitimer(signal.ITIMER_REAL, 50)
        assert len(lint_source(LEAK, "leak.py", Settings(), time_limit=5)) == 1
        remaining, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 0 < remaining <= 50
        assert signal.getsignal(signal.SIGALRM) is not None and not fired
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_outside_the_main_thread_analysis_runs_without_a_time_limit():
    out = []
    thread = threading.Thread(target=lambda: out.append(lint_source(_many_functions(30), "t.py", Settings(),
                                                                    time_limit=0.001)))
    thread.start()
    thread.join()
    assert [d.code for d in out[0]] == ["TLL001"] * 30


def test_file_that_disappears_after_discovery(tmp_path):
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(LEAK)
    files = discover([str(tmp_path)], Settings(respect_gitignore=False))
    (tmp_path / "a.py").unlink()
    results = dict(lint_files(files, Settings()))
    [gone] = results[str(tmp_path / "a.py")]
    assert gone.code == "TLL900" and "cannot read file: No such file or directory" in gone.message
    assert [d.code for d in results[str(tmp_path / "b.py")]] == ["TLL001"]


def test_a_fifo_named_like_a_source_file_is_reported_not_waited_on(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "leak.py").write_text(LEAK)
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-respect-gitignore", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 1
    assert f"{tmp_path / 'pipe.py'}:1:1: TLL900 cannot read file: not a regular file" in proc.stdout
    assert "TLL001" in proc.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files and directories without read permission")
def test_unreadable_file_and_directory(tmp_path):
    (tmp_path / "secret.py").write_text(LEAK)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "inner.py").write_text(LEAK)
    (tmp_path / "leak.py").write_text(LEAK)
    os.chmod(tmp_path / "secret.py", 0)
    os.chmod(tmp_path / "locked", 0)
    try:
        proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-respect-gitignore", str(tmp_path)],
                              capture_output=True, text=True, timeout=120,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)))
    finally:
        os.chmod(tmp_path / "locked", stat.S_IRWXU)
        os.chmod(tmp_path / "secret.py", stat.S_IRUSR | stat.S_IWUSR)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{tmp_path / 'secret.py'}:1:1: TLL900 cannot read file: Permission denied" in proc.stdout
    assert f"{tmp_path / 'locked'}:1:1: TLL900 cannot read file" in proc.stdout
    assert f"{tmp_path / 'leak.py'}:8:9: TLL001" in proc.stdout


def test_five_thousand_paths_on_one_command_line(tmp_path):
    # pre-commit splits argv by the OS limit itself; the CLI just has to take what it gets
    for i in range(5000):
        (tmp_path / f"m{i:04}.py").write_text("x = 1\n" if i % 1000 else LEAK)
    names = [f"m{i:04}.py" for i in range(5000)]
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", *names], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 1, proc.stderr
    assert [line.split(":")[0] for line in proc.stdout.splitlines()] == [f"m{i:04}.py" for i in range(0, 5000, 1000)]
    assert "Found 5 problems in 5 files." in proc.stderr


@pytest.mark.parametrize("io_encoding, shown", [("utf-8", b"caf\xe9.py"), ("ascii", b"caf\\udce9.py"),
                                               ("latin-1", b"caf\\udce9.py")])
def test_file_names_the_output_encoding_cannot_show(tmp_path, io_encoding, shown):
    folder = os.fsencode(tmp_path)
    with open(os.path.join(folder, b"caf\xe9.py"), "wb") as handle:  # not UTF-8: a Latin-1 name
        handle.write(LEAK.encode())
    (tmp_path / "trainer ø.py").write_text(LEAK, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-respect-gitignore", "."], cwd=tmp_path,
                          capture_output=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING=io_encoding))
    assert proc.returncode == 1 and b"Traceback" not in proc.stderr
    assert b"./" + shown + b":8:9: TLL001" in proc.stdout
    assert ("./trainer ø.py:8:9: TLL001".encode("utf-8") in proc.stdout if io_encoding == "utf-8"
            else "./trainer ø.py:8:9: TLL001".encode(io_encoding, "backslashreplace") in proc.stdout)


def test_a_file_of_thousands_of_functions_is_analyzed_within_the_time_limit():
    # once quadratic in the number of functions (140 s for 5000): the time limit would
    # have turned it into a TLL900
    diagnostics = lint_source(_many_functions(3000), "many.py", Settings())
    assert [d.code for d in diagnostics] == ["TLL001"] * 3000


def test_a_long_sum_is_analyzed_or_skipped_never_stuck():
    operands = "+".join(["loss"] * 2000)
    source = LEAK.replace("total += loss", f"total = total + {operands}")
    [d] = lint_source(source, "sum.py", Settings())
    assert d.code in ("TLL001", "TLL900") and "took longer" not in d.message
