#!/usr/bin/env python3
"""What the main process of a project run holds per module while it checks: the deep sizes
of `lint_project`'s bookkeeping (its locals and the Project's attributes) at the 50th check
(docs/performance.md, "peak memory with project size").

    python benchmarks/project_bookkeeping.py OUT     # OUT from synthetic_project.py

Run it on two synthetic projects of different sizes (1,000 and 3,000 files) and compare: what
grows with the number of modules is what keeps the peak from being flat.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from torchleaklint.config import Settings  # noqa: E402
from torchleaklint.discovery import discover  # noqa: E402
import torchleaklint.project.run as run  # noqa: E402

CHECK = 50  # the check at which the sizes are taken: summaries and rounds are done by then


def deep_size(obj, seen: set) -> int:
    """Bytes of `obj` and what it holds (containers, and torchleaklint objects' attributes)."""
    if id(obj) in seen:
        return 0
    seen.add(id(obj))
    size = sys.getsizeof(obj)
    if isinstance(obj, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in obj.items())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        size += sum(deep_size(v, seen) for v in obj)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type) and type(obj).__module__.startswith("torchleaklint"):
        size += deep_size(obj.__dict__, seen)
    return size


def main() -> int:
    root = os.path.abspath(sys.argv[1])
    os.chdir(root)
    settings = Settings(project_root=root, respect_gitignore=False)
    files = list(discover(["."], settings))
    original = run._analyze_one
    checks = [0]

    def measured(path, settings, verbose, project, check=True, summarize=True, partial=False):
        if not summarize:
            checks[0] += 1
            if checks[0] == CHECK:
                frame = sys._getframe()
                while frame is not None and frame.f_code.co_name != "_lint_project":
                    frame = frame.f_back
                seen: set = set()
                sizes = sorted(((deep_size(v, seen), k) for k, v in frame.f_locals.items()), reverse=True)
                print(f"{len(files)} files; lint_project's locals (MB):")
                for size, name in sizes[:14]:
                    print(f"  {name:16} {size / 1e6:7.2f}")
                held = frame.f_locals.get("project")
                if held is not None:
                    print("Project attributes (MB):")
                    for name, value in sorted(held.__dict__.items()):
                        print(f"  {name:16} {deep_size(value, set()) / 1e6:7.2f}")
        return original(path, settings, verbose, project, check, summarize, partial)

    run._analyze_one = measured
    for _ in run.lint_project(files, settings, 1, None, False):
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
