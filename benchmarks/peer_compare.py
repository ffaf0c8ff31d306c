#!/usr/bin/env python3
"""torchleaklint against torch-preflight, the closest peer, on the rules both have.

    python -m venv /tmp/peer && /tmp/peer/bin/pip install torch-preflight==0.5.0
    python benchmarks/peer_compare.py --peer /tmp/peer/bin/torch-preflight [--speed DIR ...]

torch-preflight is run as its users run it (`torch-preflight check -f json -j 1 PATH`), in its
own virtualenv: it is never a dependency of this project. Its rules overlap ours in two
families, and both tools are scored per family so that neither loses a case for naming it
differently:

- stored graph: TG001 ("tensor stored with its autograd graph still attached") against our
  TLL001 (running totals), TLL002 (state on `self`) and TLL003 (containers);
- evaluation without no-grad: TG002 against our TLL006.

Recall and precision come from the labeled cases (`# expect:` / `# ok:` markers): the blind
cases of every round (`fixtures/blind_cases/`, single files and multi-module projects, each
project linted from its root) and the known-leak set. A finding of a family on a line with
an expect marker of that family is right; on any other line it is wrong. The cases are
in-sample for torchleaklint (their misses guided fixes) and unseen by torch-preflight, which
favours us: the fair comparison is on a round scored before any fix it guided, named as such
with `--cases DIR --prefix P` (round 5: `--prefix x --prefix y`), run with the
interpreter of the frozen release the round was first scored with (the script runs
`<its interpreter> -m torchleaklint`).

Speed: wall time of one run of each tool over each `--speed` directory, one process each
(`-j 1` for both), with torchleaklint's cache off, best of `--repeat` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
from known_leaks import markers  # noqa: E402

FAMILIES = {"stored graph": ({"TLL001", "TLL002", "TLL003"}, {"TG001"}),
            "eval without no_grad": ({"TLL006"}, {"TG002"})}
DEFAULT_CASES = [ROOT / "fixtures" / "blind_cases" / "single", ROOT / "fixtures" / "blind_cases" / "projects",
                 ROOT / "fixtures" / "known_leaks"]


def family_of(code: str, ours: bool):
    for name, (tll, tg) in FAMILIES.items():
        if code in (tll if ours else tg):
            return name
    return None


PREFIXES: tuple = ()  # --prefix: only the entries named prefix + digit (one round of blind cases)


def units(directory: Path):
    """(root to lint, files it holds): a project directory is one unit, a loose file another."""
    for entry in sorted(directory.iterdir()):
        if PREFIXES and not any(re.match(re.escape(prefix) + r"\d", entry.name) for prefix in PREFIXES):
            continue
        if entry.is_dir() and not entry.name.startswith((".", "_")):
            yield entry, sorted(entry.rglob("*.py"))
        elif entry.suffix == ".py":
            yield entry, [entry]


def run_ours(root: Path) -> list:
    cmd = [sys.executable, "-m", "torchleaklint", "check", "--no-cache", "--output-format", "json", "--exit-zero",
           "--select", "TLL001,TLL002,TLL003,TLL006", "--no-respect-gitignore", str(root)]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=root if root.is_dir() else root.parent).stdout
    return [(os.path.realpath(_abs(d["path"], root)), d["line"], d["code"]) for d in json.loads(out or "[]")]


def run_peer(peer: str, root: Path) -> list:
    cmd = [peer, "check", "-f", "json", "-j", "1", "--fail-on", "error", "--no-color", str(root)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root if root.is_dir() else root.parent)
    data = json.loads(proc.stdout or "{}")
    return [(os.path.realpath(_abs(d["path"], root)), d["line"], d["code"]) for d in data.get("diagnostics", [])]


def _abs(path: str, root: Path) -> str:
    base = root if root.is_dir() else root.parent
    return path if os.path.isabs(path) else str(base / path)


def score(directories, peer: str) -> dict:
    tally = {tool: {family: Counter() for family in FAMILIES} for tool in ("torchleaklint", "torch-preflight")}
    for directory in directories:
        for root, files in units(directory):
            expected = {}
            for path in files:
                exp, _ = markers(path.read_text(encoding="utf-8"))
                for line, code in exp:
                    family = family_of(code, ours=True)
                    if family:
                        expected.setdefault(family, set()).add((os.path.realpath(path), line))
            for tool, findings in (("torchleaklint", run_ours(root)), ("torch-preflight", run_peer(peer, root))):
                found = {}
                for path, line, code in findings:
                    family = family_of(code, ours=tool == "torchleaklint")
                    if family:
                        found.setdefault(family, set()).add((path, line))
                for family in FAMILIES:
                    exp, got = expected.get(family, set()), found.get(family, set())
                    c = tally[tool][family]
                    c["expected"] += len(exp)
                    c["caught"] += len(exp & got)
                    c["reported"] += len(got)
                    c["right"] += len(got & exp)
    return tally


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f}%" if b else "n/a"


def render_scores(title: str, tally: dict) -> str:
    out = [f"### {title}", "", "| family | tool | expected | caught | recall | reported | right | precision |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for family in FAMILIES:
        for tool, per in tally.items():
            c = per[family]
            out.append(f"| {family} | {tool} | {c['expected']} | {c['caught']} | {_pct(c['caught'], c['expected'])} "
                       f"| {c['reported']} | {c['right']} | {_pct(c['right'], c['reported'])} |")
    return "\n".join(out) + "\n"


def speed(directory: Path, peer: str, repeat: int) -> dict:
    ours = [sys.executable, "-m", "torchleaklint", "check", "--no-cache", "-j", "1", "--exit-zero", "-q",
            "--no-respect-gitignore", str(directory)]
    theirs = [peer, "check", "-j", "1", "-q", "--no-color", "--fail-on", "error", str(directory)]
    times = {}
    for tool, cmd in (("torchleaklint", ours), ("torch-preflight", theirs)):
        best = None
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run(cmd, capture_output=True)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        times[tool] = best
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", required=True, help="the torch-preflight executable (its own virtualenv)")
    parser.add_argument("--cases", type=Path, action="append",
                        help="labeled case directories (default: every blind-case round and the known leaks)")
    parser.add_argument("--speed", type=Path, action="append", default=[], help="directories to time both tools on")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--prefix", action="append", default=[],
                        help="only case files/projects whose names start so (round 5: --prefix x --prefix y)")
    parser.add_argument("--title", default="", help="what this run measures (the release, the cases' status)")
    parser.add_argument("--write-doc", type=Path, help="append this run to the PEER block of the markdown file")
    args = parser.parse_args()
    global PREFIXES
    PREFIXES = tuple(args.prefix)
    version = subprocess.run([args.peer, "--version"], capture_output=True, text=True).stdout.strip()
    ours = subprocess.run([sys.executable, "-m", "torchleaklint", "--version"], capture_output=True, text=True)
    out = [f"{args.title or 'Run'}: {ours.stdout.strip()} (`{sys.executable}`) against {version}", ""]
    cases = [c.resolve() for c in args.cases or DEFAULT_CASES]  # the tools run from each case's folder
    only = f" (names starting with {', '.join(PREFIXES)})" if PREFIXES else ""
    out.append(render_scores("Labeled cases: " + ", ".join(_shown(c) for c in cases) + only, score(cases, args.peer)))
    if args.speed:
        out += [f"### Speed (wall seconds, one process each, best of {args.repeat})", "",
                "| directory | files | torchleaklint | torch-preflight | torch-preflight / torchleaklint |",
                "|---|---:|---:|---:|---:|"]
        for directory in (d.resolve() for d in args.speed):
            t = speed(directory, args.peer, args.repeat)
            files = sum(1 for _ in directory.rglob("*.py"))
            out.append(f"| {directory.name} | {files} | {t['torchleaklint']:.2f} | {t['torch-preflight']:.2f} | "
                       f"{t['torch-preflight'] / t['torchleaklint']:.1f}x |")
        out.append("")
    text = "\n".join(out)
    print(text)
    if args.write_doc:
        _append_to_doc(args.write_doc, text)
    return 0


BEGIN, END = "<!-- PEER:BEGIN -->", "<!-- PEER:END -->"
HEADER = """## Against torch-preflight, the closest peer

Generated by `benchmarks/peer_compare.py` (each run below names the releases compared and what
the cases are to each tool). torch-preflight's TG001 overlaps our TLL001/TLL002/TLL003 and its
TG002 our TLL006; both tools are scored per family on the labeled cases.
"""


def _append_to_doc(doc: Path, run: str) -> None:
    """Add this run to the PEER block (created after the blind-cases section if missing)."""
    text = doc.read_text(encoding="utf-8") if doc.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        block, tail = rest.split(END, 1)
        block = block.rstrip() + "\n\n" + run.strip() + "\n"
        text = head + BEGIN + block + END + tail
    else:
        anchor = "## The earlier corpus"
        block = f"{BEGIN}\n{HEADER}\n{run.strip()}\n{END}\n\n"
        text = text.replace(anchor, block + anchor, 1) if anchor in text else text + "\n" + block
    doc.write_text(text, encoding="utf-8")


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


if __name__ == "__main__":
    sys.exit(main())
