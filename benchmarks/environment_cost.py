#!/usr/bin/env python3
"""What the environment rules cost on a repository, in one process (CPU time, -j 1 style):

    python benchmarks/environment_cost.py path/to/repo

Discovers the files a default run walks (Python and, for TLL101/TLL102, YAML, Dockerfiles,
shell scripts and .env files), lints each group and prints the CPU seconds of each and the
share the environment files add. Less sensitive to a busy machine than wall time;
benchmarks/bench.py (tools tll-dir, tll-dir-noenv) measures the end-to-end wall and CPU time.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torchleaklint.config import Settings  # noqa: E402
from torchleaklint.discovery import discover  # noqa: E402
from torchleaklint.engine import lint_file  # noqa: E402
from torchleaklint.environment import environment_kind  # noqa: E402


def main(argv=None) -> int:
    args = argv if argv is not None else sys.argv[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    root = args[0]
    settings = Settings(project_root=root, respect_gitignore=False)
    files = discover([root], settings)
    groups = {"environment": [f for f in files if environment_kind(f)],
              "python": [f for f in files if not environment_kind(f)]}
    cpu = {}
    for name, paths in groups.items():
        started = time.process_time()
        for path in paths:
            lint_file(path, settings)
        cpu[name] = time.process_time() - started
    print(f"{root}: {len(groups['python'])} Python files {cpu['python']:.3f} s CPU; "
          f"{len(groups['environment'])} environment files {cpu['environment']:.3f} s CPU "
          f"(+{100 * cpu['environment'] / max(cpu['python'], 1e-9):.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
