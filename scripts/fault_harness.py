"""Fault harness for `--fix`: concurrent fixer runs and user edits on a tree of leaky files.

For `--duration` seconds, `--fixers` loops run `torchleaklint --fix` on the whole tree
(sharing one cache directory) while `--editors` threads save new versions of random files,
as an editor would (write a temporary file, rename it over the original), sometimes
restoring the previous modification time afterwards (`cp -p`, `rsync -t`). Every version
has the same size, so a cache that trusts size and mtime serves stale results.

A user's line is lost when a file holds anything but the user's last write, or that write
with its fixes applied whole (`fix_text` of it). That is checked before every edit (the
file must still hold the previous version, fixed or not) and on every file at the end,
after the fixers have stopped. Prints the counts; exit status 1 if any line was lost.

    python scripts/fault_harness.py --duration 600
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torchleaklint.config import Settings  # noqa: E402
from torchleaklint.fixes import fix_text  # noqa: E402

TEMPLATE = '''import torch

{padding}MARK = "{name} version {version:07d}"


def train(model, loader, optimizer, scheduler, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            loss = model(x).sum()
            loss.backward()
            optimizer.step()
{body}
'''
# What the user may have between the optimizer step and the end of the loop body; the
# scheduler line is the one a fix at a stale position deleted. Same length on purpose.
BODIES = [
    "            torch.cuda.empty_cache()\n            scheduler.step_with_warmup(epoch)",
    "            scheduler.step_with_warmup(epoch)\n            torch.cuda.empty_cache()",
    "            save_checkpoint(model,1)\n            scheduler.step_with_warmup(epoch)",
]


class Tree:
    def __init__(self, directory: Path, files: int, rng: random.Random):
        self.directory = directory
        self.rng = rng
        self.lock = threading.Lock()
        self.versions = {}  # path -> the user's last write (text)
        self.file_locks = {}
        self.lost = []
        self.checks = 0
        self.edits = 0
        self.mtime_restored = 0
        self._fixed = {}
        for i in range(files):
            path = directory / f"train_{i:03d}.py"
            self.file_locks[path] = threading.Lock()
            self._write(path, self.version(path, 0))

    def version(self, path: Path, number: int) -> str:
        padding = "# padding\n" * self.rng.randrange(3)
        body = self.rng.choice(BODIES)
        # keep every version the same size: padding varies, so pad the mark to compensate
        text = TEMPLATE.format(padding=padding, name=path.stem, version=number, body=body)
        return text + "#" * (40 - len(padding)) + "\n"

    def fixed(self, text: str) -> str:
        if text not in self._fixed:
            self._fixed[text] = fix_text(text, "train.py", Settings()).text
        return self._fixed[text]

    def acceptable(self, path: Path, current: str) -> bool:
        last = self.versions[path]
        return current in (last, self.fixed(last))

    def check(self, path: Path, where: str) -> None:
        try:
            current = path.read_text()
        except OSError as exc:
            current = f"<unreadable: {exc}>"
        self.checks += 1
        if not self.acceptable(path, current):
            self.lost.append((where, str(path), self.versions[path], current))

    def edit(self, path: Path, number: int, restore_mtime: bool) -> None:
        with self.file_locks[path]:
            self.check(path, "before an edit")
            old_mtime = os.stat(path).st_mtime_ns
            text = self.version(path, number)
            self._write(path, text)
            if restore_mtime:
                os.utime(path, ns=(old_mtime, old_mtime))
                self.mtime_restored += 1
            self.edits += 1

    def _write(self, path: Path, text: str) -> None:
        fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".edit-")
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(temp, path)
        self.versions[path] = text


def editor(tree: Tree, stop: float, seed: int, counter) -> None:
    rng = random.Random(seed)
    paths = sorted(tree.versions)
    while time.monotonic() < stop:
        path = rng.choice(paths)
        with tree.lock:
            counter[0] += 1
            number = counter[0]
        tree.edit(path, number, restore_mtime=rng.random() < 0.3)
        time.sleep(rng.uniform(0.0, 0.05))


def fixer(tree: Tree, stop: float, seed: int, cache_dir: str, results) -> None:
    rng = random.Random(seed)
    env = dict(os.environ, PYTHONPATH=str(ROOT), TORCHLEAKLINT_CACHE_DIR=cache_dir)
    while time.monotonic() < stop:
        jobs = rng.choice(["1", "2"])
        proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--fix", "--no-respect-gitignore",
                               "-q", "--jobs", jobs, "--exit-zero", str(tree.directory)],
                              capture_output=True, text=True, env=env, timeout=600)
        results["runs"] += 1
        results["changed_while_fixing"] += proc.stderr.count("changed while fixing; not fixed")
        if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
            results["failed_runs"] += 1
            results["last_failure"] = proc.stderr[-2000:]


def run(duration: float, files: int, fixers: int, editors: int, seed: int, directory: Path) -> dict:
    rng = random.Random(seed)
    tree = Tree(directory, files, rng)
    cache_dir = str(directory.parent / "cache")
    results = {"runs": 0, "changed_while_fixing": 0, "failed_runs": 0}
    counter = [0]
    stop = time.monotonic() + duration
    threads = [threading.Thread(target=fixer, args=(tree, stop, seed * 100 + i, cache_dir, results))
               for i in range(fixers)]
    threads += [threading.Thread(target=editor, args=(tree, stop, seed * 1000 + i, counter))
                for i in range(editors)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for path in sorted(tree.versions):
        tree.check(path, "at the end")
    fixed_at_end = sum(1 for p in tree.versions if p.read_text() != tree.versions[p])
    return dict(results, files=files, edits=tree.edits, mtime_restored=tree.mtime_restored,
                checks=tree.checks, files_fixed_at_end=fixed_at_end, lost=len(tree.lost),
                lost_examples=tree.lost[:3])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=600.0, help="seconds (default: 600)")
    parser.add_argument("--files", type=int, default=30)
    parser.add_argument("--fixers", type=int, default=3, help="concurrent `--fix` loops")
    parser.add_argument("--editors", type=int, default=2, help="concurrent editing threads")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tll-fault-") as scratch:
        directory = Path(scratch) / "tree"
        directory.mkdir()
        counts = run(args.duration, args.files, args.fixers, args.editors, args.seed, directory)
    examples = counts.pop("lost_examples")
    last_failure = counts.pop("last_failure", None)
    for key, value in counts.items():
        print(f"{key}: {value}")
    for where, path, expected, found in examples:
        print(f"LOST ({where}) in {path}:\n--- user's last write\n{expected}--- found\n{found}")
    if last_failure:
        print(f"last failed run's stderr:\n{last_failure}")
    return 1 if counts["lost"] or counts["failed_runs"] else 0


if __name__ == "__main__":
    sys.exit(main())
