#!/usr/bin/env python3
"""How much of the fixable findings `--fix --unsafe-fixes` removes, and whether it is sound.

    python benchmarks/fix_coverage.py [DIR ...] [--keep]

Copies each directory (default: fixtures/ without fix_cases/, and fixtures/known_leaks/
alone) to a temporary directory, runs the real command line there:

1. `torchleaklint --no-respect-gitignore -q --output-format json .`  (findings before)
2. `torchleaklint --no-respect-gitignore -q --fix --unsafe-fixes .`
3. the json run again                                               (findings after)
4. every .py file that parsed before must still parse;
5. a second `--fix --unsafe-fixes` must change no file (idempotence).

It prints, per fixable rule (TLL001-006, TLL008; TLL007 has no fix), the findings before,
after, and the share removed. Exit status 1 when a file stopped parsing or the second pass
changed something.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path
from typing import Dict, List, Sequence

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
DEFAULT_DIRS = (FIXTURES, FIXTURES / "known_leaks")
EXCLUDED = ("fix_cases",)  # before/after pairs: their *.fixed.py are already fixed
FIXABLE = ("TLL001", "TLL002", "TLL003", "TLL004", "TLL005", "TLL006", "TLL008")


def run_cli(directory: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "torchleaklint", "--no-respect-gitignore", "-q", *args, "."],
                          cwd=directory, env=env, capture_output=True, text=True)


def findings(directory: Path) -> Counter:
    result = run_cli(directory, "--output-format", "json")
    if result.returncode not in (0, 1):
        raise RuntimeError(f"torchleaklint failed ({result.returncode}): {result.stderr}")
    return Counter(d["code"] for d in json.loads(result.stdout or "[]") if d["code"] in FIXABLE)


def snapshot(directory: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*.py"))}


def parses(data: bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(data)
    except (SyntaxError, ValueError):
        return False
    return True


def copy_tree(source: Path, destination: Path, excluded: Sequence[str] = EXCLUDED) -> None:
    shutil.copytree(source, destination, ignore=shutil.ignore_patterns(*excluded, "__pycache__"))


def measure(directory: Path) -> dict:
    """Fix `directory` in place (pass a copy) and report what happened."""
    original = snapshot(directory)
    before = findings(directory)
    fix = run_cli(directory, "--fix", "--unsafe-fixes")
    if fix.returncode not in (0, 1):
        raise RuntimeError(f"--fix failed ({fix.returncode}): {fix.stderr}")
    after = findings(directory)
    fixed = snapshot(directory)
    broken = sorted(name for name, data in fixed.items() if parses(original.get(name, b"")) and not parses(data))
    run_cli(directory, "--fix", "--unsafe-fixes")
    second = snapshot(directory)
    unstable = sorted(name for name in fixed if second.get(name) != fixed[name])
    changed = sorted(name for name in fixed if original.get(name) != fixed[name])
    return {"before": before, "after": after, "broken": broken, "unstable": unstable, "changed": changed}


def measure_copy(source: Path, excluded: Sequence[str] = EXCLUDED) -> dict:
    with tempfile.TemporaryDirectory(prefix="tll-fixcov-") as tmp:
        target = Path(tmp) / source.name
        copy_tree(source, target, excluded)
        return measure(target)


def render(name: str, result: dict) -> str:
    before, after = result["before"], result["after"]
    lines = [f"## {name}", f"{'rule':8} {'before':>7} {'after':>6} {'removed':>8}"]
    for code in FIXABLE:
        if before[code] or after[code]:
            lines.append(f"{code:8} {before[code]:7} {after[code]:6} {_share(before[code], after[code]):>8}")
    total_before, total_after = sum(before.values()), sum(after.values())
    lines.append(f"{'total':8} {total_before:7} {total_after:6} {_share(total_before, total_after):>8}")
    lines.append(f"files changed: {len(result['changed'])}; no longer parsing: {result['broken'] or 'none'}; "
                 f"changed by a second pass: {result['unstable'] or 'none'}")
    return "\n".join(lines)


def _share(before: int, after: int) -> str:
    return f"{100 * (before - after) / before:.1f}%" if before else "n/a"


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", type=Path, help="directories to measure (default: fixtures, known_leaks)")
    args = parser.parse_args(argv)
    ok = True
    for directory in args.dirs or DEFAULT_DIRS:
        result = measure_copy(directory.resolve())
        print(render(str(directory), result))
        print()
        ok = ok and not result["broken"] and not result["unstable"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
