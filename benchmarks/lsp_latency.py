#!/usr/bin/env python3
"""Time from `textDocument/didChange` to `textDocument/publishDiagnostics` in the language
server, on a 2,000-line file, as an editor sees it.

    python benchmarks/lsp_latency.py [--lines 2000] [--changes 20] [--file PATH] [--json OUT]

The file is the fixture scripts (real-looking training and evaluation code, full of leaks)
concatenated in sorted order and cut at a top-level statement, padded with blank lines to
exactly --lines lines. `torchleaklint server` runs as a subprocess with its default
debounce delay, driven over stdio by the tests' JSON-RPC client; each change edits a line in
the middle of the file (the whole text is sent), and the clock runs from writing the change
to reading the diagnostics for that version. The median, 90th percentile and maximum are
reported, with the engine's own time for the same text (`lint_source` in this process).
`--file PATH` measures that file instead (e.g. a module of the installed torch package).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from lsp_client import LspClient  # noqa: E402

GOAL_SECONDS = 0.5


def build_file(lines: int) -> str:
    """About `lines` lines of the fixture scripts, exactly `lines` after padding."""
    out = []
    for path in sorted((ROOT / "fixtures").glob("tll00*/*.py")):
        out.extend(path.read_text(encoding="utf-8").splitlines())
        if len(out) >= lines:
            break
    cut = lines
    while cut > 0 and (cut >= len(out) or not out[cut][:1].strip() or out[cut].startswith(("#", ")", "]", "}"))):
        cut -= 1  # end before a top-level statement, so the file still parses
    text = "\n".join(out[:cut]) + "\n" * (lines - cut + 1)
    compile(text, "bench.py", "exec")
    return text


def engine_seconds(text: str, repeat: int = 5) -> float:
    from torchleaklint.config import load_settings
    from torchleaklint.engine import lint_source

    settings = load_settings(None, tempfile.gettempdir())
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        lint_source(text, "bench.py", settings)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(text: str, changes: int):
    workspace = tempfile.mkdtemp(prefix="tll-lsp-bench-")
    uri = Path(workspace, "bench.py").as_uri()
    client = LspClient(cwd=workspace)
    try:
        client.initialize(workspace)
        client.open(uri, text)
        found = client.diagnostics(uri, version=1, timeout=120)
        lines = text.split("\n")
        middle = len(lines) // 2
        latencies = []
        for version in range(2, changes + 2):
            edited = list(lines)
            edited.insert(middle, f"# edit {version}")
            started = time.perf_counter()
            client.change(uri, "\n".join(edited), version)
            client.diagnostics(uri, version=version, timeout=120)
            latencies.append(time.perf_counter() - started)
        client.shutdown()
        return found, latencies
    finally:
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--file", help="measure this file instead of the fixture scripts")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args()
    text = Path(args.file).read_text(encoding="utf-8") if args.file else build_file(args.lines)
    found, latencies = measure(text, args.changes)
    ordered = sorted(latencies)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    result = {
        "lines": text.count("\n"), "diagnostics": len(found), "changes": len(latencies),
        "median": statistics.median(latencies), "p90": p90, "max": ordered[-1],
        "engine_median": engine_seconds(text), "goal": GOAL_SECONDS,
        "machine": f"{os.cpu_count()} CPUs, Python {platform.python_version()}, {platform.system()}",
        "load_average": round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None,
    }
    print(f"machine: {result['machine']}, load average {result['load_average']}")
    print(f"file: {result['lines']} lines, {result['diagnostics']} diagnostics; {result['changes']} changes")
    print(f"didChange -> publishDiagnostics: median {result['median']:.3f} s, p90 {result['p90']:.3f} s, "
          f"max {result['max']:.3f} s")
    print(f"engine alone (lint_source): median {result['engine_median']:.3f} s")
    verdict = "MET " if result["median"] <= GOAL_SECONDS else "MISSED"
    print(f"{verdict} median <= {GOAL_SECONDS} s")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
