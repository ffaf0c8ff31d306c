"""Output and exit habits of ruff users (issue 17): --output-file, --silent, --fix-only,
--exit-non-zero-on-fix, --show-files, colour, --statistics formats, no-files warning,
loadable --show-settings, the `rule` command, progress and -v timing, and TLL900 for
syntax newer than the running Python. Every test runs the real command line; the
terminal tests run it on a pseudo-terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from cli_run import CLEAN, LEAKY, env, run

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ESC = "\x1b["


@pytest.fixture
def project(tmp_path):
    (tmp_path / "train.py").write_text(LEAKY, encoding="utf-8")
    (tmp_path / "clean.py").write_text(CLEAN, encoding="utf-8")
    return tmp_path


def plain_env(**extra) -> dict:
    environment = env()
    for name in ("NO_COLOR", "FORCE_COLOR", "CI", "TERM"):
        environment.pop(name, None)
    environment.update(extra)
    return environment


def run_env(args, cwd, **extra):
    return subprocess.run([sys.executable, "-m", "torchleaklint", *args], cwd=cwd, env=plain_env(**extra),
                          capture_output=True, text=True, timeout=300)


def run_on_tty(args, cwd, tty: str, **extra):
    """(what the terminal showed, the other stream): `tty` is "stdout" or "stderr"."""
    master, slave = pty.openpty()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, tty: slave}
    proc = subprocess.Popen([sys.executable, "-m", "torchleaklint", *args], cwd=cwd, env=plain_env(**extra),
                            stdin=subprocess.DEVNULL, **streams)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    other = (proc.stderr if tty == "stdout" else proc.stdout).read()
    proc.wait(timeout=300)
    return shown.decode(), other.decode(), proc.returncode


# ------------------------------------------------------------------ output destinations
def test_output_file(project):
    result = run(["--no-cache", "-o", "reports/lint.txt", "."], project)
    assert result.returncode == 1 and result.stdout == ""
    report = (project / "reports" / "lint.txt").read_text()
    assert "train.py:12:9: TLL001" in report
    assert "Found 1 problem" in result.stderr  # the summary stays on stderr
    as_json = run(["--no-cache", "--output-format", "json", "--output-file", "lint.json", "."], project)
    assert as_json.stdout == "" and json.loads((project / "lint.json").read_text())[0]["code"] == "TLL001"


def test_silent(project):
    result = run(["--no-cache", "--silent", "."], project)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", "")
    assert run(["--no-cache", "-s", "clean.py"], project).returncode == 0


def test_fix_only_and_exit_non_zero_on_fix(project, tmp_path_factory):
    result = run(["--no-cache", "--fix-only", "."], project)
    assert result.returncode == 0 and result.stdout == "", result.stderr
    assert "Fixed 1 problem." in result.stderr
    assert "loss.item()" in (project / "train.py").read_text()
    again = run(["--no-cache", "--fix-only", "--exit-non-zero-on-fix", "."], project)
    assert again.returncode == 0 and "No fixes applied." in again.stderr  # nothing left to fix
    other = tmp_path_factory.mktemp("other")
    (other / "train.py").write_text(LEAKY, encoding="utf-8")
    fixed = run(["--no-cache", "--fix", "--exit-non-zero-on-fix", "train.py"], other)
    assert fixed.returncode == 1 and fixed.stdout == ""  # nothing remains, but a file changed


def test_fix_only_leaves_unfixable_findings_unreported(tmp_path):
    (tmp_path / "state.py").write_text(
        "import torch\n\n\nclass Sim:\n    def __init__(self):\n        self.net = torch.nn.Linear(2, 2)\n"
        "        self.h = torch.zeros(2)\n\n    def step(self, x):\n        self.h = self.net(x) + self.h\n"
        "        return self.h\n", encoding="utf-8")
    before = run(["--no-cache", "state.py"], tmp_path)
    assert before.returncode == 1
    result = run(["--no-cache", "--fix-only", "state.py"], tmp_path)
    assert result.returncode == 0 and result.stdout == ""


def test_show_files(project):
    (project / "notes.txt").write_text("x", encoding="utf-8")
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text(LEAKY, encoding="utf-8")
    result = run(["--show-files", "."], project)
    assert result.returncode == 0
    assert [os.path.normpath(p) for p in result.stdout.split()] == ["clean.py", "train.py"]


# ------------------------------------------------------------------ colour
def test_no_colour_in_a_pipe_by_default(project):
    assert ESC not in run_env(["--no-cache", "train.py"], project).stdout


def test_colour_on_a_terminal(project):
    shown, _, status = run_on_tty(["--no-cache", "train.py"], project, "stdout")
    assert status == 1
    assert f"{ESC}1mtrain.py{ESC}0m" in shown and f"{ESC}31mTLL001" in shown
    plain, _, _ = run_on_tty(["--no-cache", "train.py"], project, "stdout", NO_COLOR="1")
    assert ESC not in plain and "train.py:12:9: TLL001" in plain
    never, _, _ = run_on_tty(["--no-cache", "--color", "never", "train.py"], project, "stdout")
    assert ESC not in never


@pytest.mark.parametrize("args, extra, coloured", [
    (["--color", "always"], {}, True),
    ([], {"FORCE_COLOR": "1"}, True),
    (["--color", "never"], {"FORCE_COLOR": "1"}, False),
    (["--color", "always"], {"NO_COLOR": "1"}, True),  # an explicit choice wins
    (["--color", "always", "--output-format", "json"], {}, False),  # machine formats: never
])
def test_colour_choices_in_a_pipe(project, args, extra, coloured):
    result = run_env(["--no-cache", *args, "train.py"], project, **extra)
    assert (ESC in result.stdout) == coloured


def test_grouped_and_full_are_coloured_too(project):
    for fmt in ("grouped", "full"):
        out = run_env(["--no-cache", "--color", "always", "--output-format", fmt, "train.py"], project).stdout
        assert f"{ESC}1m{ESC}31mTLL001{ESC}0m" in out, fmt


# ------------------------------------------------------------------ --statistics formats
def test_statistics_as_json_and_unsupported_formats(project):
    result = run(["--no-cache", "--statistics", "--output-format", "json", "."], project)
    assert result.returncode == 1
    assert json.loads(result.stdout) == [
        {"code": "TLL001", "name": "loss-accumulated-with-graph", "count": 1, "fixable": 1}]
    for fmt in ("sarif", "github"):
        refused = run(["--no-cache", "--statistics", "--output-format", fmt, "."], project)
        assert refused.returncode == 2 and refused.stdout == ""
        assert f"--statistics cannot be written as {fmt}" in refused.stderr


# ------------------------------------------------------------------ no Python files
def test_a_directory_without_python_files_warns(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# hi\n", encoding="utf-8")
    result = run(["--no-cache", "docs"], tmp_path)
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr == "warning: No Python files found under the given path(s)\n"
    as_json = run(["--no-cache", "--output-format", "json", "docs"], tmp_path)
    assert json.loads(as_json.stdout) == [] and "No Python files" in as_json.stderr


# ------------------------------------------------------------------ --show-settings loads back
def test_show_settings_is_toml_that_loads_back_as_configuration(tmp_path, tmp_path_factory):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torchleaklint]\nignore = ["TLL004"]\nextend-exclude = ["gen/"]\nper-step-methods = ["advance"]\n'
        'cache-dir = ".cache/tll"\n[tool.torchleaklint.per-file-ignores]\n"tests/**" = ["TLL006"]\n', encoding="utf-8")
    (tmp_path / "train.py").write_text(LEAKY, encoding="utf-8")
    first = run(["--show-settings", "train.py"], tmp_path)
    assert first.returncode == 0
    table = tomllib.loads(first.stdout)["tool"]["torchleaklint"]
    assert table["ignore"] == ["TLL004"] and table["per-file-ignores"] == {"tests/**": ["TLL006"]}
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "pyproject.toml").write_text(first.stdout, encoding="utf-8")
    second = run(["--show-settings"], copy)
    assert second.returncode == 0, second.stderr
    assert tomllib.loads(second.stdout) == tomllib.loads(first.stdout)
    empty = tmp_path_factory.mktemp("unconfigured")
    defaults = run(["--show-settings"], empty)  # nothing configured: cache-dir is unset
    assert defaults.returncode == 0 and "null" not in defaults.stdout
    assert "cache-dir" not in tomllib.loads(defaults.stdout)["tool"]["torchleaklint"]


# ------------------------------------------------------------------ the `rule` command
def test_rule_command_is_listed_in_help():
    result = run(["--help"], ".")
    assert "torchleaklint rule CODE|NAME" in result.stdout


@pytest.mark.parametrize("query, heading", [
    ("TLL900", "# syntax-error (TLL900)"),
    ("tll901", "# internal-error (TLL901)"),
    ("syntax-error", "# syntax-error (TLL900)"),
    ("loss-accumulated-with-graph", "# loss-accumulated-with-graph (TLL001)"),
    ("TLL001", "# loss-accumulated-with-graph (TLL001)"),
])
def test_rule_lookup_by_code_or_name(query, heading):
    result = run(["rule", query], ".")
    assert result.returncode == 0 and result.stdout.startswith(heading)
    assert "## What it does" in result.stdout and "## Why is this bad?" in result.stdout


def test_unknown_rule(tmp_path):
    result = run(["rule", "no-such-rule"], tmp_path)
    assert result.returncode == 2 and "unknown rule `no-such-rule`" in result.stderr


# ------------------------------------------------------------------ progress and timing
def many_files(root, count=20):
    for i in range(count):
        (root / f"m{i:02}.py").write_text(CLEAN, encoding="utf-8")


def test_progress_on_a_terminal_only(tmp_path):
    many_files(tmp_path)
    shown, stdout, status = run_on_tty(["--no-cache", "-j", "1", "."], tmp_path, "stderr")
    assert status == 0
    assert "torchleaklint: 20/20 files, " in shown and " s" in shown
    assert shown.rstrip().endswith("All clear: no problems in 20 files.")
    piped = run_env(["--no-cache", "."], tmp_path)
    assert "files, " not in piped.stderr
    in_ci, _, _ = run_on_tty(["--no-cache", "."], tmp_path, "stderr", CI="true")
    assert "files, " not in in_ci
    asked = run_env(["--no-cache", "--progress", "."], tmp_path, CI="true")
    assert "torchleaklint: 20/20 files, " in asked.stderr
    off, _, _ = run_on_tty(["--no-cache", "--no-progress", "."], tmp_path, "stderr")
    assert "files, " not in off


def test_verbose_prints_timing_per_phase(project):
    result = run(["--no-cache", "-v", "."], project)
    phases = [line.split()[2] for line in result.stderr.splitlines() if line.startswith("torchleaklint: timing:")]
    assert phases == ["settings", "discovery", "lint", "output"], result.stderr
    fixing = run(["--no-cache", "-v", "--fix", "."], project)
    assert "timing: fix" in fixing.stderr


# ------------------------------------------------------------------ syntax newer than the running Python
NEWER = [((3, 12), "type Vector = list[float]\n", "a `type` alias statement", "3.12"),
         ((3, 12), "def first[T](xs: list[T]) -> T:\n    return xs[0]\n", "a type parameter list", "3.12"),
         ((3, 14), 'name = "x"\ngreeting = t"hello {name}"\n', "a template string", "3.14")]


@pytest.mark.parametrize("needs, source, feature, version", NEWER)
def test_newer_syntax_names_the_python_that_parsed_it(tmp_path, needs, source, feature, version):
    if sys.version_info >= needs:
        pytest.skip(f"Python {sys.version_info[:2]} parses this")
    (tmp_path / "new.py").write_text(source, encoding="utf-8")
    result = run(["--no-cache", "new.py"], tmp_path)
    assert result.returncode == 1
    running = ".".join(map(str, sys.version_info[:3]))
    assert "TLL900 SyntaxError" in result.stdout
    assert feature in result.stdout and f"needs Python {version} or newer" in result.stdout
    assert f"parsed by Python {running}" in result.stdout


def test_a_plain_syntax_error_is_not_blamed_on_the_version(tmp_path):
    (tmp_path / "bad.py").write_text("def f(:\n    pass\n", encoding="utf-8")
    result = run(["--no-cache", "bad.py"], tmp_path)
    assert "TLL900 SyntaxError: invalid syntax\n" in result.stdout


@pytest.mark.parametrize("source, spelling", [
    ("try:\n    import json\nexcept ImportError, e:\n    json = None\n", "`except X, name:`"),
    ("def main():\n    print 'SUCCESS'\n", "a `print` statement"),
])
def test_python2_is_not_blamed_on_an_old_python3(tmp_path, source, spelling):
    # `except ImportError, e:` looks like 3.14's `except A, B:`: a newer Python would not help
    (tmp_path / "old.py").write_text(source, encoding="utf-8")
    result = run(["--no-cache", "old.py"], tmp_path)
    assert result.returncode == 1
    assert f"the line is Python 2 code ({spelling}), which no Python 3 parses" in result.stdout
    assert "needs Python" not in result.stdout
