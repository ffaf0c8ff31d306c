#!/usr/bin/env python3
"""Cold, warm and one-leaf-edited re-run times of torchleaklint with its cache, on a copy.

    python benchmarks/incremental.py CORPUS [--leaf REL/PATH.py]

CORPUS is copied to a temporary directory (never edited in place). Runs, in order, with
the cache: cold (empty cache), warm (nothing changed), then after appending a new function
to one leaf module (default: the first file, in sorted order, that no other file of the
corpus names in an import) the re-run. Prints seconds and the ratios to cold.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(directory: Path, extra=()) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "torchleaklint", "--exit-zero", "-q", "--no-respect-gitignore", *extra, "."],
                   cwd=directory, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.monotonic() - started


def leaf(directory: Path) -> Path:
    files = sorted(p for p in directory.rglob("*.py") if p.name != "__init__.py")
    texts = "\n".join(p.read_text(errors="replace") for p in files)
    for path in files:
        if f"import {path.stem}" not in texts and f"{path.stem} import" not in texts and f".{path.stem}" not in texts:
            return path
    return files[-1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus")
    parser.add_argument("--leaf")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "corpus"
        shutil.copytree(args.corpus, copy, ignore=shutil.ignore_patterns(".git", ".torchleaklint_cache"))
        if not any((copy / m).exists() for m in ("pyproject.toml", "setup.cfg", "setup.py")):
            (copy / "setup.cfg").write_text("")  # the copy has no .git: mark the project root
        cold = run(copy)
        warm = run(copy)
        target = copy / args.leaf if args.leaf else leaf(copy)
        with open(target, "a", encoding="utf-8") as handle:
            handle.write("\n\ndef _added_by_benchmark(x):\n    return x\n")
        edited = run(copy)
        print(f"leaf edited: {target.relative_to(copy)}")
        print(f"cold {cold:.2f} s; warm {warm:.2f} s ({warm / cold:.3f} x cold); "
              f"after editing one leaf {edited:.2f} s ({edited / cold:.3f} x cold)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
