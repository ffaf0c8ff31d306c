"""Lint the installed torch package's own source, then `--fix --unsafe-fixes` a copy of it.

A large, real, unusual code base (generated code, deep nesting, every Python feature): the
linter must finish with zero internal errors (TLL901) and no crash, and after fixing every
file of the copy must still parse. Prints findings per rule, fixes applied and times.
Usage: python scripts/check_torch_package.py [--copy-to /tmp/tll-torch-copy] [--keep]
Exit status 1 if a check failed. Too long for the test suite; run it by hand.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>TLL\d{3})\b")
FIXED = re.compile(r"^\s+(?P<count>\d+) × (?P<code>TLL\d{3})\b")


def torch_dir() -> Path:
    out = subprocess.run([sys.executable, "-c", "import torch, os; print(os.path.dirname(torch.__file__))"],
                         capture_output=True, text=True, check=True)
    return Path(out.stdout.strip())


def run_cli(*args: str):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    started = time.monotonic()
    # -P and an empty working directory: torch's own modules (e.g. torch/signal/) must not
    # shadow the standard library when the copy is the current directory
    with tempfile.TemporaryDirectory() as cwd:
        proc = subprocess.run([sys.executable, "-P", "-m", "torchleaklint", "--no-respect-gitignore", *args],
                              capture_output=True, text=True, env=env, cwd=cwd)
    return proc, time.monotonic() - started


def summary(stderr: str) -> str:
    return " ".join(l for l in stderr.splitlines() if l.startswith(("Found", "All clear", "[*]", "(")))


def findings(stdout: str) -> Counter:
    return Counter(m["code"] for m in map(LINE.match, stdout.splitlines()) if m)


def copy_sources(source: Path, target: Path) -> int:
    """Copy the .py files only (the package's binaries are a gigabyte of no interest)."""
    count = 0
    for path in source.rglob("*.py"):
        if path.is_file():
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest)
            count += 1
    return count


def unparsable(folder: Path) -> list:
    bad = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in sorted(folder.rglob("*.py")):
            try:
                ast.parse(path.read_bytes(), filename=str(path))
            except (SyntaxError, ValueError) as exc:
                bad.append(f"{path}: {exc}")
    return bad


def report_lint(proc, seconds: float, problems: list) -> Counter:
    counts = findings(proc.stdout)
    print(f"lint: exit {proc.returncode} in {seconds:.1f} s; {summary(proc.stderr)}")
    for code, n in sorted(counts.items()):
        print(f"  {code}: {n}")
    for line in proc.stdout.splitlines():
        if " TLL900 " in line or " TLL901 " in line:
            print(f"    {line}")
    if counts["TLL901"]:
        problems.append(f"{counts['TLL901']} internal errors (TLL901)")
    if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
        problems.append(f"lint crashed or failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copy-to", default=None, help="where to copy torch for --fix (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the fixed copy")
    args = parser.parse_args()
    source = torch_dir()
    problems: list = []
    print(f"torch sources: {source}")

    proc, seconds = run_cli(str(source))
    report_lint(proc, seconds, problems)

    copy = Path(args.copy_to or tempfile.mkdtemp(prefix="tll-torch-"))
    try:
        print(f"copied {copy_sources(source, copy)} files to {copy}")
        before_bad = set(p.split(":")[0] for p in unparsable(copy))  # files torch itself ships unparsable
        proc, seconds = run_cli("--fix", "--unsafe-fixes", "--show-fixes", str(copy))
        fixed = Counter()
        for line in proc.stderr.splitlines():
            match = FIXED.match(line)
            if match:
                fixed[match["code"]] += int(match["count"])
        changed = sum(1 for p in copy.rglob("*.py") if p.read_bytes() != (source / p.relative_to(copy)).read_bytes())
        print(f"fix: exit {proc.returncode} in {seconds:.1f} s; {sum(fixed.values())} fixes in {changed} files; "
              f"remaining findings {sum(findings(proc.stdout).values())}; {summary(proc.stderr)}")
        for code, n in sorted(fixed.items()):
            print(f"  fixed {code}: {n}")
        if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
            problems.append(f"--fix crashed or failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
        broken = [p for p in unparsable(copy) if p.split(":")[0] not in before_bad]
        print(f"parse check after fixing: {len(broken)} files no longer parse")
        problems.extend(f"no longer parses: {b}" for b in broken)
    finally:
        if not args.keep:
            shutil.rmtree(copy, ignore_errors=True)
    for problem in problems:
        print(f"FAILED: {problem}")
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
