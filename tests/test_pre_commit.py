"""The pre-commit hooks, run by the real pre-commit (`pre-commit try-repo`), which builds its
own virtualenv by pip-installing this checkout (without the test extras, so no torch)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_run import LEAKY, REPO, fixes_function

GIT_IDENTITY = ["-c", "user.email=test@example.com", "-c", "user.name=test"]


def git(args, cwd):
    return subprocess.run(["git", *GIT_IDENTITY, *args], cwd=cwd, capture_output=True, text=True,
                          check=True, timeout=120)


def snapshot_of_checkout(destination: Path) -> Path:
    """A git repository whose HEAD is this checkout's current files (committed or not):
    try-repo installs the repository's HEAD, not its working tree."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True, timeout=120).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    git(["init", "-q"], destination)
    git(["add", "-A"], destination)
    git(["commit", "-q", "-m", "snapshot"], destination)
    return destination


def pre_commit(args, cwd, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the hook must use its own install
    env["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run(["pre-commit", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory):
    if shutil.which("pre-commit") is None or shutil.which("git") is None:
        pytest.skip("pre-commit and git are needed")
    if subprocess.run(["git", "rev-parse"], cwd=REPO, capture_output=True).returncode != 0:
        pytest.skip("needs a git checkout of torchleaklint")
    return snapshot_of_checkout(tmp_path_factory.mktemp("torchleaklint-hooks"))


@pytest.fixture
def project(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text(LEAKY, encoding="utf-8")
    (project / "build").mkdir()
    (project / "build" / "generated.py").write_text(LEAKY, encoding="utf-8")  # excluded by default
    git(["init", "-q"], project)
    git(["add", "-A"], project)
    return project


def test_hook_fails_on_a_leak(hook_repo, project, tmp_path_factory):
    result = pre_commit(["try-repo", str(hook_repo), "torchleaklint", "--all-files"], project,
                        tmp_path_factory.mktemp("pre-commit-home"))
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "train.py:12:9: TLL001" in output
    assert "generated.py" not in output, "--force-exclude must apply the excludes to listed files"


def test_fix_hook_then_check_hook_passes(hook_repo, project, tmp_path_factory):
    if fixes_function("apply_fixes_to_results") is None:
        pytest.skip("torchleaklint.fixes.apply_fixes_to_results (the --fix machinery) is not in this branch yet")
    home = tmp_path_factory.mktemp("pre-commit-home")
    fixed = pre_commit(["try-repo", str(hook_repo), "torchleaklint-fix", "--all-files"], project, home)
    assert fixed.returncode == 1, fixed.stdout + fixed.stderr  # pre-commit fails when a hook edits files
    assert (project / "train.py").read_text(encoding="utf-8") != LEAKY, "the fix hook changed nothing"
    git(["add", "-A"], project)
    checked = pre_commit(["try-repo", str(hook_repo), "torchleaklint", "--all-files"], project, home)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_hook_fails_on_a_leaky_notebook(hook_repo, tmp_path, tmp_path_factory):
    """A repository that holds only a notebook: the hooks take `jupyter` files (types_or)."""
    from notebook_maker import notebook_of, write

    project = tmp_path / "notebooks"
    project.mkdir()
    train = LEAKY.split("\n\n\n", 1)
    (project / "train.ipynb").write_text(write(notebook_of([train[0], train[1].rstrip("\n")])), encoding="utf-8")
    git(["init", "-q"], project)
    git(["add", "-A"], project)
    result = pre_commit(["try-repo", str(hook_repo), "torchleaklint", "--all-files"], project,
                        tmp_path_factory.mktemp("pre-commit-home"))
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "train.ipynb:cell 4:8:9: TLL001" in output, output
