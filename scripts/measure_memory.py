"""Peak memory (max RSS) of one CLI run over N files, for several N: it must stay flat
(nothing but the diagnostics is kept from one file to the next).

Usage: python scripts/measure_memory.py [--counts 1000,10000] [--fix]
The files are copies of the fixtures (real-shaped code with findings), in a temp dir.
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
# runs the CLI in-process and reports this process's peak RSS when it exits
PROBE = """
import atexit, resource, sys
atexit.register(lambda: sys.stderr.write(f"MAXRSS_KB {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n"))
from torchleaklint.cli import main
sys.argv = ["torchleaklint"] + sys.argv[1:]
main()
"""


def make_tree(folder: Path, count: int, clean: bool) -> None:
    if clean:  # a realistic training script without findings: only the paths are kept
        sources = [(ROOT / "fixtures" / "fix_cases" / "tll001_running_loss.fixed.py").read_bytes()]
    else:
        sources = [p.read_bytes() for p in sorted((ROOT / "fixtures").rglob("*.py"))]
    for i in range(count):
        path = folder / f"d{i // 500:03}" / f"m{i:05}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(sources[i % len(sources)])


def measure(count: int, fix: bool, clean: bool) -> tuple:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "tree"
        make_tree(folder, count, clean)
        args = ["--no-respect-gitignore", "--exit-zero", "-q", str(folder)] + (["--fix", "--unsafe-fixes"] if fix else [])
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-P", "-c", PROBE, *args], capture_output=True, text=True,
                              env=env, cwd=tmp)
        seconds = time.monotonic() - started
        rss = next(int(l.split()[1]) for l in proc.stderr.splitlines() if l.startswith("MAXRSS_KB"))
        return rss / 1024, seconds, len(proc.stdout.splitlines()), proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--counts", default="1000,10000")
    parser.add_argument("--fix", action="store_true")
    args = parser.parse_args()
    for clean in (True, False):
        for count in (int(c) for c in args.counts.split(",")):
            rss, seconds, lines, code = measure(count, args.fix, clean)
            kind = "clean files   " if clean else "fixture copies"
            print(f"{count:6} {kind}: max RSS {rss:7.1f} MB, {seconds:6.1f} s, {lines} diagnostics, exit {code}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
