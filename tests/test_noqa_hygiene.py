"""File-level noqa directives, TLL902 unused-noqa and coexistence with real ruff; each
test runs the real command line (and ruff, flake8) on files on disk."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from cli_run import LEAKY, LEAKY_LINE, env, run, run_flake8

LEAK_LINE_TEXT = "        total_loss += loss\n"


def leaky_with(tmp_path, first_line: str = "", on_leak: str = "", name: str = "train.py"):
    text = LEAKY.replace(LEAK_LINE_TEXT, LEAK_LINE_TEXT.rstrip("\n") + on_leak + "\n")
    (tmp_path / name).write_text(first_line + text, encoding="utf-8")
    return tmp_path / name


# ------------------------------------------------------------------ file-level directives
@pytest.mark.parametrize("directive, silenced", [
    ("# torchleaklint: noqa\n", True),
    ("# torchleaklint: noqa: TLL001\n", True),
    ("#torchleaklint:noqa:TLL0\n", True),
    ("# torchleaklint: noqa: TLL004, TLL002\n", False),  # other codes only
    ("# torchleaklint: noqa: not-a-code\n", False),  # malformed: suppresses nothing
    ("# flake8: noqa\n", True),  # what flake8 (and so the plugin) does: skip the file
    ("# flake8: noqa: E501\n", True),  # flake8 skips the whole file with codes too
    ("x = 1  # flake8: noqa\n", False),  # flake8 honours it only on a line of its own
])
def test_file_level_directives(tmp_path, directive, silenced):
    leaky_with(tmp_path, first_line=directive)
    result = run(["--no-cache", "train.py"], tmp_path)
    assert result.returncode == (0 if silenced else 1), result.stdout + result.stderr


@pytest.mark.parametrize("directive", ["# flake8: noqa\n", "# flake8: noqa: E501\n", "x = 1  # flake8: noqa\n",
                                       "# torchleaklint: noqa: TLL001\n"])
def test_the_command_line_and_flake8_agree_on_file_level_directives(tmp_path, directive):
    leaky_with(tmp_path, first_line=directive)
    ours = run(["--no-cache", "train.py"], tmp_path)
    theirs = run_flake8(["--select", "TLL", "train.py"], tmp_path)
    assert (ours.returncode == 0) == (theirs.returncode == 0), (ours.stdout, theirs.stdout + theirs.stderr)


# ------------------------------------------------------------------ TLL902 unused-noqa
def test_unused_noqa_is_off_by_default_and_reported_when_selected(tmp_path):
    path = leaky_with(tmp_path, on_leak="  # noqa: TLL001")
    text = path.read_text()
    (tmp_path / "stale.py").write_text(text.replace("total_loss += loss  # noqa: TLL001",
                                                    "total_loss += loss.item()  # noqa: TLL001, E501"))
    assert run(["--no-cache", "."], tmp_path).returncode == 0
    for selection in (["--extend-select", "TLL902"], ["--select", "TLL001,TLL902"], ["--select", "ALL"]):
        result = run(["--no-cache", *selection, "."], tmp_path)
        assert result.returncode == 1
        [line] = result.stdout.splitlines()
        assert line.startswith(f"./stale.py:{LEAKY_LINE}:") and "TLL902 [*] Unused `noqa` code `TLL001`" in line
    # the code of a rule that is not enabled is not judged: nobody ran it
    assert run(["--no-cache", "--extend-select", "TLL902", "--ignore", "TLL001", "."], tmp_path).returncode == 0


def test_unused_noqa_fix_removes_only_the_unused_code(tmp_path):
    (tmp_path / "stale.py").write_text(
        "import torch\n\n\ndef run(xs):\n"
        "    total = 0.0  # noqa: TLL001, E501\n"
        "    for x in xs:\n"
        "        total += x.item()  # noqa: TLL001  # was a leak\n"
        "    torch.cuda.empty_cache()  # noqa: TLL004\n"
        "    return total  # noqa: TLL999\n", encoding="utf-8")
    result = run(["--no-cache", "--extend-select", "TLL902", "--fix", "stale.py"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "stale.py").read_text() == (
        "import torch\n\n\ndef run(xs):\n"
        "    total = 0.0  # noqa: E501\n"
        "    for x in xs:\n"
        "        total += x.item()  # was a leak\n"
        "    torch.cuda.empty_cache()\n"
        "    return total\n")
    assert run(["--no-cache", "--extend-select", "TLL902", "--diff", "stale.py"], tmp_path).stdout == ""


def test_unused_noqa_can_itself_be_suppressed(tmp_path):
    (tmp_path / "keep.py").write_text("x = 1  # noqa: TLL001, TLL902\n", encoding="utf-8")
    assert run(["--no-cache", "--extend-select", "TLL902", "keep.py"], tmp_path).returncode == 0


def test_rule_documentation_says_it_is_opt_in():
    result = run(["rule", "unused-noqa"], ".")
    assert result.returncode == 0 and result.stdout.startswith("# unused-noqa (TLL902)")
    assert "Off by default" in result.stdout and "## Fix safety" in result.stdout


# ------------------------------------------------------------------ ruff coexistence
@pytest.fixture
def ruff():
    exe = shutil.which("ruff", path=str(__import__("pathlib").Path(sys.executable).parent))
    if exe is None:
        pytest.skip("ruff is not installed (it is in the `test` extra)")
    return exe


@pytest.mark.parametrize("external", [True, False])
def test_ruff_deletes_a_blanket_noqa_that_only_silences_torchleaklint(tmp_path, ruff, external):
    """What the README warns about: with RUF100 enabled, ruff removes a bare `# noqa` that
    silences no ruff finding, with or without `external = ["TLL"]`; `# noqa: TLL001` survives,
    and so does a stale `# noqa: TLL004`, which only TLL902 reports."""
    if external:
        (tmp_path / "pyproject.toml").write_text('[tool.ruff.lint]\nexternal = ["TLL"]\n', encoding="utf-8")
    leaky_with(tmp_path, on_leak="  # noqa", name="blanket.py")
    leaky_with(tmp_path, on_leak="  # noqa: TLL001", name="coded.py")
    (tmp_path / "stale.py").write_text("x = 1  # noqa: TLL004\n", encoding="utf-8")
    assert run(["--no-cache", "."], tmp_path).returncode == 0  # both silence torchleaklint
    subprocess.run([ruff, "check", "--no-cache", "--select", "RUF100", "--fix", "."], cwd=tmp_path,
                   capture_output=True, text=True, env=env(), timeout=120)
    assert "# noqa" not in (tmp_path / "blanket.py").read_text()
    assert "# noqa: TLL001" in (tmp_path / "coded.py").read_text()
    assert (tmp_path / "stale.py").read_text() == "x = 1  # noqa: TLL004\n"
    after = run(["--no-cache", "--extend-select", "TLL902", "."], tmp_path)
    assert after.returncode == 1
    assert [line.split(":")[0] + " " + line.split()[1] for line in after.stdout.splitlines()] == [
        "./blanket.py TLL001", "./stale.py TLL902"]


@pytest.mark.parametrize("external, kept", [(True, "  # noqa: TLL001\n"), (False, "\n")])
def test_ruff_keeps_our_codes_beside_its_own_only_with_external(tmp_path, ruff, external, kept):
    """`# noqa: TLL001, E501` with E501 not enabled in ruff: RUF100's fix drops E501 and
    keeps TLL001 only when ruff knows TLL is external; otherwise the whole comment goes."""
    if external:
        (tmp_path / "pyproject.toml").write_text('[tool.ruff.lint]\nexternal = ["TLL"]\n', encoding="utf-8")
    leaky_with(tmp_path, on_leak="  # noqa: TLL001, E501", name="coded.py")
    subprocess.run([ruff, "check", "--no-cache", "--select", "RUF100", "--fix", "."], cwd=tmp_path,
                   capture_output=True, text=True, env=env(), timeout=120)
    assert LEAK_LINE_TEXT.rstrip("\n") + kept in (tmp_path / "coded.py").read_text()
