"""The project is ready to publish: the sdist and the wheel build (the wheel from the
sdist, as `python -m build` does), and the wheel installs into a fresh virtualenv, where
the `torchleaklint` command finds a leak. Dependencies come from PyPI (or pip's cache)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from cli_run import LEAKY, REPO

SKIP = shutil.ignore_patterns(".git", ".venv*", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache",
                              ".torchleaklint_cache", ".ruff_cache")


def clean_env() -> dict:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "PIP_"))}
    environment["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return environment


def test_sdist_and_wheel_build_install_and_run(tmp_path):
    pytest.importorskip("build")
    started = time.monotonic()
    source = tmp_path / "src"
    shutil.copytree(REPO, source, ignore=SKIP)  # never write build artefacts into the checkout
    dist = tmp_path / "dist"
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [sdist] = dist.glob("torchleaklint-*.tar.gz")
    [wheel] = dist.glob("torchleaklint-*.whl")
    with tarfile.open(sdist) as archive:
        names = {Path(*Path(n).parts[1:]).as_posix() for n in archive.getnames()}
    assert {"pyproject.toml", "README.md", "torchleaklint/cli.py", "torchleaklint/rules/tll001_loss_accumulation.py",
            "torchleaklint/output/sarif_format.py"} <= names
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = [line for line in archive.read(metadata).decode().splitlines() if line.startswith("Requires-Dist")]
        [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        entries = archive.read(entry_points).decode()
    package = {p.relative_to(source).as_posix() for p in (source / "torchleaklint").rglob("*.py")}
    assert package <= names, sorted(package - names)  # every module, the rules and codemods included
    assert not any(n.startswith(("tests/", "fixtures/")) for n in names)
    assert any("pathspec" in r for r in requires) and not any("torch" == r.split()[1] for r in requires)
    assert "torchleaklint = torchleaklint.cli:main" in entries and "TLL = torchleaklint.flake8_plugin" in entries

    venv = tmp_path / "fresh"
    # without pip of its own (ensurepip is slow): this interpreter's pip installs into it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120, env=clean_env())
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    # the README's install line: `pip install "git+<repo URL>@<commit>"`
    commit = _commit_copy(source)
    _pip_install(bindir, f"git+{source.as_uri()}@{commit}")
    assert _lint_leaky(bindir, tmp_path / "from-git").stdout.startswith("train.py:12:9: TLL001")
    _pip_install(bindir, "--force-reinstall", "--no-deps", str(wheel))
    project = tmp_path / "project"
    result = _lint_leaky(bindir, project)
    assert result.stdout.startswith("train.py:12:9: TLL001")
    where = subprocess.run([str(bindir / "python"), "-c", "import torchleaklint; print(torchleaklint.__file__)"],
                           capture_output=True, text=True, timeout=60, env=clean_env(), cwd=project)
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout  # the wheel's copy, not this checkout
    assert time.monotonic() - started < 120  # normally ~20 s: keep it that way


def _commit_copy(source: Path) -> str:
    git = ["git", "-c", "user.email=test@example.com", "-c", "user.name=test", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run(git + args, cwd=source, check=True, capture_output=True, timeout=120)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=source, check=True, capture_output=True, text=True,
                          timeout=60).stdout.strip()


def _pip_install(bindir: Path, *args: str) -> None:
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(bindir / "python"), "install",
                                "--quiet", *args], capture_output=True, text=True, timeout=300, env=clean_env())
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]


def _lint_leaky(bindir: Path, project: Path) -> subprocess.CompletedProcess:
    project.mkdir()
    (project / "train.py").write_text(LEAKY, encoding="utf-8")
    result = subprocess.run([str(bindir / "torchleaklint"), "--no-cache", "train.py"], cwd=project,
                            capture_output=True, text=True, timeout=120, env=clean_env())
    assert result.returncode == 1, result.stdout + result.stderr
    return result
