#!/usr/bin/env python3
"""Build a synthetic project of N files from copies of real ones, to measure how time and
peak memory grow with project size (docs/performance.md, "Memory").

    python benchmarks/synthetic_project.py SOURCE OUT --files N [--seed 0]
    python benchmarks/synthetic_project.py SOURCE OUT --files N --measure [--jobs 1] [--link import]

SOURCE is any directory of real Python files (a checkout); OUT gets a `pyproject.toml` and
packages `pkg000/`, `pkg001/`, ... of 50 modules each, every module a copy of one of
SOURCE's files (in sorted order, round robin). So that the modules import each other as in
a real project, every module but the first starts with `from pkgNNN.mMM import *` of an
earlier module chosen at random (seeded), and every tenth also imports a random earlier
package by name: whole-project analysis then summarizes chains and star imports across
packages. `--link import` writes `import pkgNNN.mMM` instead of the star import (a star
import re-exports what it imports, so star chains make every summary carry the names of
its whole chain). `--measure` runs `torchleaklint --no-cache -q --exit-zero -j JOBS .` on OUT and
prints the wall time and the peak RSS of the process and its workers (`os.wait4`).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PER_PACKAGE = 50
MAX_SOURCE_BYTES = 200_000  # very large generated files would make the copies unrepresentative


def build(source: Path, out: Path, count: int, seed: int, link: str = "star") -> int:
    files = sorted(p for p in source.rglob("*.py") if p.is_file() and p.stat().st_size <= MAX_SOURCE_BYTES
                   and ".git" not in p.parts)
    if not files:
        sys.exit(f"synthetic_project: no .py files under {source}")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    (out / "pyproject.toml").write_text("[project]\nname = 'synthetic'\n")
    rng = random.Random(seed)
    names = []
    for index in range(count):
        package, module = divmod(index, PER_PACKAGE)
        directory = out / f"pkg{package:03d}"
        if module == 0:
            directory.mkdir()
            (directory / "__init__.py").write_text("")
        text = files[index % len(files)].read_text(encoding="utf-8", errors="replace")
        header = ""
        if names:
            target = rng.choice(names)
            header += (f"from {target} import *" if link == "star" else f"import {target}") + "  # synthetic link\n"
            if index % 10 == 0:
                header += f"import pkg{rng.randrange(package + 1):03d}  # synthetic link\n"
        if text.startswith("from __future__"):  # must stay the first statement
            first, _, rest = text.partition("\n")
            text = first + "\n" + header + rest
        else:
            text = header + text
        (directory / f"m{module:02d}.py").write_text(text, encoding="utf-8")
        names.append(f"pkg{package:03d}.m{module:02d}")
    return count


def measure(out: Path, jobs: int) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "torchleaklint", "--no-cache", "-q", "--exit-zero", "-j", str(jobs), "."]
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=out, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    children = __import__("resource").getrusage(__import__("resource").RUSAGE_CHILDREN).ru_maxrss
    peak = max(usage.ru_maxrss, children) / 1024
    files = sum(1 for _ in out.rglob("*.py"))
    print(f"{files} files, -j {jobs}: {wall:.1f} s, peak RSS {peak:.1f} MB (exit status {status >> 8})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--measure", action="store_true")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--link", choices=("star", "import"), default="star")
    args = parser.parse_args()
    build(Path(args.source), Path(args.out), args.files, args.seed, args.link)
    if args.measure:
        measure(Path(args.out), args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
