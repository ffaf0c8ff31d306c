"""Behaving like ruff where ruff users expect it (issue 17): hierarchical configuration,
gitignore-style globs, additive --ignore; each test runs the real command line on files on
disk."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from cli_run import LEAKY, run

# TLL002's example; TLL002 is a preview rule, so each configuration below selects it
SIMULATOR = '''\
import torch


class Simulator:
    def __init__(self):
        self.net = torch.nn.Linear(4, 4)
        self.state = torch.zeros(4)

    def advance(self, x):
        self.state = self.net(x) + self.state
        return self.state
'''


def write(root: Path, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def codes_by_file(result) -> dict:
    found = {}
    for line in result.stdout.splitlines():
        path, _, _, rest = line.split(":", 3)
        found.setdefault(os.path.normpath(path), set()).add(rest.split()[0])
    return found


def shown_files(root: Path) -> list:
    result = run(["--show-files", "."], root)
    assert result.returncode == 0, result.stderr
    return [os.path.normpath(p) for p in result.stdout.split()]


# ------------------------------------------------------------------ hierarchical configuration
def test_monorepo_packages_each_use_their_own_settings(tmp_path):
    """Two training packages, each with its own pyproject.toml and per-step-methods,
    linted from the repository root: each file gets its own package's settings."""
    write(tmp_path, {
        "pkg_a/pyproject.toml": '[tool.torchleaklint]\nper-step-methods = ["advance"]\nignore = ["TLL001"]\nextend-select = ["TLL002"]\n',
        "pkg_a/sim.py": SIMULATOR,
        "pkg_b/pyproject.toml": '[tool.torchleaklint]\nper-step-methods = ["forward"]\nignore = ["TLL001"]\nextend-select = ["TLL002"]\n',
        "pkg_b/sim.py": SIMULATOR,
    })
    result = run(["--no-cache", "."], tmp_path)
    assert codes_by_file(result) == {"pkg_a/sim.py": {"TLL002"}}, result.stdout + result.stderr
    # the same from the parent directory, and from inside a package
    assert codes_by_file(run(["--no-cache", tmp_path.name], tmp_path.parent)) == {
        f"{tmp_path.name}/pkg_a/sim.py": {"TLL002"}}
    assert codes_by_file(run(["--no-cache", "../pkg_a/sim.py", "sim.py"], tmp_path / "pkg_b")) == {
        "../pkg_a/sim.py": {"TLL002"}}


def test_closest_file_wins_and_dotfile_ranks_first(tmp_path):
    write(tmp_path, {
        "pyproject.toml": '[tool.torchleaklint]\nignore = ["TLL001"]\n',
        "top.py": LEAKY,
        "sub/torchleaklint.toml": 'select = ["TLL001"]\n',
        "sub/inner.py": LEAKY,
        "dot/pyproject.toml": '[tool.torchleaklint]\nignore = ["TLL001"]\n',
        "dot/torchleaklint.toml": 'ignore = ["TLL001"]\n',
        "dot/.torchleaklint.toml": 'select = ["TLL"]\n',
        "dot/x.py": LEAKY,
        "plain/pyproject.toml": '[project]\nname = "plain"\n',  # no table: not a configuration
        "plain/y.py": LEAKY,
    })
    found = codes_by_file(run(["--no-cache", "."], tmp_path))
    assert found == {"sub/inner.py": {"TLL001"}, "dot/x.py": {"TLL001"}}


def test_extend_inherits_and_overrides(tmp_path):
    write(tmp_path, {
        "pyproject.toml": textwrap.dedent('''\
            [tool.torchleaklint]
            ignore = ["TLL001"]
            extend-select = ["TLL002"]  # a preview rule: opt-in
            per-step-methods = ["advance"]
            [tool.torchleaklint.per-file-ignores]
            "pkg/gen/*.py" = ["TLL002"]
            '''),
        "pkg/pyproject.toml": '[tool.torchleaklint]\nextend = "../pyproject.toml"\nextend-ignore = ["TLL004"]\n',
        "pkg/sim.py": SIMULATOR,
        "pkg/gen/sim.py": SIMULATOR,
        "other/pyproject.toml": '[tool.torchleaklint]\nextend = "../pyproject.toml"\nper-step-methods = ["x"]\n',
        "other/sim.py": SIMULATOR,
    })
    found = codes_by_file(run(["--no-cache", "."], tmp_path))
    # pkg inherits ignore + per-step-methods + the per-file ignore (re-rooted to pkg/)
    assert found == {"pkg/sim.py": {"TLL002"}}
    shown = run(["--show-settings", "pkg/sim.py"], tmp_path).stdout
    assert 'ignore = ["TLL001", "TLL004"]' in shown and '"/gen/*.py" = ["TLL002"]' in shown


def test_extend_errors_are_clear(tmp_path):
    write(tmp_path, {"a/pyproject.toml": '[tool.torchleaklint]\nextend = "../b/pyproject.toml"\n',
                     "b/pyproject.toml": '[tool.torchleaklint]\nextend = "../a/pyproject.toml"\n',
                     "a/x.py": LEAKY, "c/pyproject.toml": '[tool.torchleaklint]\nextend = "missing.toml"\n',
                     "c/x.py": LEAKY})
    cycle = run(["a"], tmp_path)
    assert cycle.returncode == 2 and "cycle" in cycle.stderr
    missing = run(["c"], tmp_path)
    assert missing.returncode == 2 and "missing.toml" in missing.stderr and "does not exist" in missing.stderr


def test_config_option_overrides_the_hierarchy(tmp_path):
    write(tmp_path, {"pkg/pyproject.toml": '[tool.torchleaklint]\nignore = ["TLL001"]\n', "pkg/train.py": LEAKY,
                     "strict.toml": 'select = ["TLL001"]\n'})
    assert run(["--no-cache", "pkg"], tmp_path).returncode == 0
    assert codes_by_file(run(["--no-cache", "--config", "strict.toml", "pkg"], tmp_path)) == {
        "pkg/train.py": {"TLL001"}}


def test_excludes_of_a_package_apply_inside_it(tmp_path):
    write(tmp_path, {"pkg/pyproject.toml": '[tool.torchleaklint]\nextend-exclude = ["legacy/"]\n',
                     "pkg/legacy/old.py": LEAKY, "pkg/new.py": LEAKY, "legacy/kept.py": LEAKY})
    files = shown_files(tmp_path)
    assert files == ["legacy/kept.py", "pkg/new.py"]


# ------------------------------------------------------------------ globs (pathspec, gitignore syntax)
@pytest.mark.parametrize("pattern, path", [
    ("**/test_*.py", "test_top.py"),
    ("**/test_*.py", "a/b/test_deep.py"),
    ("src/**/*.py", "src/train.py"),
    ("src/**/*.py", "src/a/b/train.py"),
    ("test_*.py", "tests/unit/test_x.py"),  # no `/`: the name, at any depth
    ("tests/", "tests/unit/x.py"),
])
def test_per_file_ignore_globs_match_like_ruff(tmp_path, pattern, path):
    write(tmp_path, {"pyproject.toml": f'[tool.torchleaklint.per-file-ignores]\n"{pattern}" = ["TLL001"]\n',
                     path: LEAKY})
    result = run(["--no-cache", "."], tmp_path)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("pattern, path", [("src/*.py", "lib/src/x.py"), ("/train.py", "sub/train.py")])
def test_anchored_globs_do_not_match_elsewhere(tmp_path, pattern, path):
    write(tmp_path, {"pyproject.toml": f'[tool.torchleaklint.per-file-ignores]\n"{pattern}" = ["TLL001"]\n',
                     path: LEAKY})
    assert run(["--no-cache", "."], tmp_path).returncode == 1


def test_negated_per_file_ignore_applies_to_files_not_matching(tmp_path):
    # ruff: `"!src/**" = [...]` ignores the codes everywhere except under src/
    write(tmp_path, {"pyproject.toml": '[tool.torchleaklint.per-file-ignores]\n"!src/**" = ["TLL001"]\n',
                     "src/train.py": LEAKY, "scripts/train.py": LEAKY})
    assert codes_by_file(run(["--no-cache", "."], tmp_path)) == {"src/train.py": {"TLL001"}}


def test_exclude_globs_and_negation(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.torchleaklint]\nextend-exclude = ["gen_*.py", "!gen_keep.py", '
                                       '"src/**/vendored/"]\n',
                     "gen_a.py": LEAKY, "gen_keep.py": LEAKY, "src/x/vendored/v.py": LEAKY, "src/ok.py": LEAKY})
    assert shown_files(tmp_path) == ["gen_keep.py", "src/ok.py"]


# ------------------------------------------------------------------ --ignore / --extend-ignore / --per-file-ignores
def test_command_line_ignore_adds_to_the_configured_one(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.torchleaklint]\nignore = ["TLL001"]\nper-step-methods = ["advance"]\n'
                                       'extend-select = ["TLL002"]\n',
                     "sim.py": SIMULATOR})
    assert codes_by_file(run(["--no-cache", "."], tmp_path)) == {"sim.py": {"TLL002"}}
    for option in ("--ignore", "--extend-ignore"):
        result = run(["--no-cache", option, "TLL002", "."], tmp_path)
        assert result.returncode == 0, (option, result.stdout)
    # --select replaces the selection and the configured ignore, as in ruff
    assert codes_by_file(run(["--no-cache", "--select", "TLL001", "."], tmp_path)) == {"sim.py": {"TLL001"}}


def test_command_line_per_file_ignores(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.torchleaklint.per-file-ignores]\n"a.py" = ["TLL001"]\n',
                     "a.py": LEAKY, "tests/test_b.py": LEAKY})
    assert codes_by_file(run(["--no-cache", "."], tmp_path)) == {"tests/test_b.py": {"TLL001"}}
    extended = run(["--no-cache", "--extend-per-file-ignores", "**/test_*.py:TLL001", "."], tmp_path)
    assert extended.returncode == 0, extended.stdout
    replaced = run(["--no-cache", "--per-file-ignores", "tests/*:TLL0", "."], tmp_path)
    assert codes_by_file(replaced) == {"a.py": {"TLL001"}}
    bad = run(["--per-file-ignores", "tests/*", "."], tmp_path)
    assert bad.returncode == 2 and "PATTERN:CODE" in bad.stderr


def test_flake8_plugin_uses_each_files_closest_configuration(tmp_path):
    from cli_run import run_flake8

    write(tmp_path, {
        "pkg_a/pyproject.toml": '[tool.torchleaklint]\nper-step-methods = ["advance"]\nignore = ["TLL001"]\nextend-select = ["TLL002"]\n',
        "pkg_a/sim.py": SIMULATOR,
        "pkg_b/pyproject.toml": '[tool.torchleaklint]\nper-step-methods = ["forward"]\nignore = ["TLL001"]\nextend-select = ["TLL002"]\n',
        "pkg_b/sim.py": SIMULATOR,
    })
    result = run_flake8(["--select", "TLL", "pkg_a", "pkg_b"], tmp_path)
    assert [line.split(":")[0] + " " + line.split()[1] for line in result.stdout.splitlines()] == [
        "pkg_a/sim.py TLL002"], result.stdout + result.stderr


def test_stdin_filename_uses_that_files_closest_configuration(tmp_path):
    write(tmp_path, {"pkg/pyproject.toml": '[tool.torchleaklint]\nper-step-methods = ["advance"]\nignore = ["TLL001"]\nextend-select = ["TLL002"]\n'})
    inside = run(["--no-cache", "--stdin-filename", "pkg/sim.py", "-"], tmp_path, stdin=SIMULATOR)
    assert [line.split()[1] for line in inside.stdout.splitlines()] == ["TLL002"], inside.stdout + inside.stderr
    outside = run(["--no-cache", "--stdin-filename", "other/sim.py", "-"], tmp_path, stdin=SIMULATOR)
    assert outside.returncode == 0 and outside.stdout == ""  # the defaults: `advance` is not per step


def test_torchleaklint_toml_wins_over_pyproject_in_the_same_directory(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.torchleaklint]\nignore = ["TLL001"]\n',
                     "torchleaklint.toml": 'select = ["TLL"]\n', "train.py": LEAKY})
    assert codes_by_file(run(["--no-cache", "train.py"], tmp_path)) == {"train.py": {"TLL001"}}


def test_a_file_without_configuration_above_it_uses_the_current_directorys(tmp_path):
    write(tmp_path, {"pkg/pyproject.toml": '[tool.torchleaklint]\nignore = ["TLL001"]\n', "loose/train.py": LEAKY})
    assert run(["--no-cache", "../loose/train.py"], tmp_path / "pkg").returncode == 0
    assert run(["--no-cache", "loose/train.py"], tmp_path).returncode == 1


def test_command_line_patterns_are_relative_to_the_current_directory(tmp_path):
    write(tmp_path, {"pyproject.toml": '[tool.torchleaklint]\n', "gen/b.py": LEAKY, "sub/gen/a.py": LEAKY})
    result = run(["--show-files", "--extend-exclude", "/gen/", ".."], tmp_path / "sub")
    assert [os.path.normpath(p) for p in result.stdout.split()] == [os.path.normpath("../gen/b.py")]
    from_root = run(["--show-files", "--extend-exclude", "/gen/", "."], tmp_path)
    assert [os.path.normpath(p) for p in from_root.stdout.split()] == [os.path.normpath("sub/gen/a.py")]
