#!/usr/bin/env python3
"""Score torchleaklint on multi-module projects marked with `# expect: TLLnnn` / `# ok: TLLnnn`.

    python benchmarks/cross_module.py DIR [--isolated] [--pythonpath CHECKOUT]

DIR holds one project per subdirectory (each with its own pyproject.toml or setup.cfg).
The linter runs once on DIR (`--no-cache`, JSON output); a finding counts when its file,
line and code match a marker. Prints recall (expected markers caught) and precision
(findings on expected markers / findings on marked or unmarked lines). `--isolated` runs
every file alone (no project analysis: the per-file baseline) for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = re.compile(r"#\s*(expect|ok):\s*((?:TLL\d{3}[,\s]*)+)")


def markers(root: Path):
    marks = {}
    for path in sorted(root.rglob("*.py")):
        rel = str(path.relative_to(root))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for kind, codes in MARK.findall(line):
                entry = marks.setdefault((rel, number), {"expect": set(), "ok": set()})
                entry[kind].update(re.findall(r"TLL\d{3}", codes))
    return marks


def findings(root: Path, isolated: bool, pythonpath: str):
    env = dict(os.environ, PYTHONPATH=pythonpath)
    if not isolated:
        cmd = [sys.executable, "-m", "torchleaklint", "--no-cache", "--no-respect-gitignore",
               "--output-format", "json", "."]
        out = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
        return json.loads(out.stdout)
    found = []
    for path in sorted(root.rglob("*.py")):  # one file per run, from stdin without a name: no project
        cmd = [sys.executable, "-m", "torchleaklint", "--no-cache", "--output-format", "json", "-"]
        out = subprocess.run(cmd, cwd=root, env=env, input=path.read_bytes(), capture_output=True)
        for f in json.loads(out.stdout):
            f["path"] = str(path.relative_to(root))
            found.append(f)
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--isolated", action="store_true")
    parser.add_argument("--pythonpath", default=str(ROOT))
    args = parser.parse_args()
    root = Path(args.dir).resolve()
    marks = markers(root)
    got = {}
    for f in findings(root, args.isolated, args.pythonpath):
        rel = f["path"][2:] if f["path"].startswith("./") else f["path"]
        got.setdefault((rel, f["line"]), set()).add(f["code"])
    expected = sum(len(e["expect"]) for e in marks.values())
    caught = sum(1 for key, e in marks.items() for c in e["expect"] if c in got.get(key, ()))
    false = [(key, c) for key, codes in got.items() for c in codes
             if c not in marks.get(key, {"expect": set()})["expect"]]
    for key, e in sorted(marks.items()):
        for c in sorted(e["expect"] - got.get(key, set())):
            print(f"missed {key[0]}:{key[1]} {c}")
    for key, c in sorted(false):
        print(f"false  {key[0]}:{key[1]} {c}")
    total = caught + len(false)
    print(f"recall {caught}/{expected} = {caught / max(expected, 1):.1%}; "
          f"precision {caught}/{total} = {caught / max(total, 1):.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
