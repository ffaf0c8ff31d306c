#!/usr/bin/env python3
"""Recall and precision on the blind cases (fixtures/blind_cases/).

    python benchmarks/blind_cases.py [--details]

The cases were written from public bug reports and forum threads by someone who had not seen
the linter's code or output (each file's docstring cites its source), then scored ONCE with
the release of that day: that first score, the blind figure, is kept in
`fixtures/blind_cases/first_score.md`. Since then they are in-sample: this script measures the
current code on them so that nothing regresses and so that recall work shows.

- `single/`: one file per case; `# expect: TLLnnn` marks a leak the rule must report on that
  line, `# ok: TLLnnn` a look-alike it must not.
- `projects/`: small multi-module projects (each with its own pyproject.toml or setup.cfg),
  linted as a whole from their root; the markers sit in the module where a finding points.

Recall = expect markers reported (same line and code) / expect markers; a finding on an `ok`
line or on an unmarked line counts against precision.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torchleaklint.config import EVERY_RULE as MEASURED, Settings  # noqa: E402
from torchleaklint.discovery import discover  # noqa: E402
from torchleaklint.engine import lint_file  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from known_leaks import markers  # noqa: E402

CASES = ROOT / "fixtures" / "blind_cases"


def _score(files, findings_of) -> dict:
    per_rule = {}
    rows = []
    for path in files:
        expected, ok = markers(path.read_text(encoding="utf-8"))
        found = {(d.line, d.code) for d in findings_of(path) if not d.code.startswith("TLL9")}
        rows.append((path, expected, ok, found))
        for line, code in expected:
            c = per_rule.setdefault(code, Counter())
            c["expected"] += 1
            c["caught"] += (line, code) in found
        for line, code in found - expected:
            c = per_rule.setdefault(code, Counter())
            c["wrong_ok" if (line, code) in ok else "wrong_unmarked"] += 1
        for line, code in found & expected:
            per_rule[code]["right"] += 1
    return {"per_rule": per_rule, "rows": rows}


# Round 1: single/s*.py and projects/p*; round 2 (a second writer): single/t*.py, projects/u*;
# round 3 (a third writer; written as s*/p* and renamed on import): single/r*.py, projects/q*;
# round 4 (two more writers, the same way): single/v*.py, projects/w*; round 5: single/x*.py, projects/y*;
# round 6: single/m*.py, projects/n*; round 7: single/g*.py, projects/h*; round 8: single/k*.py, projects/j*; round 9: single/e*.py, projects/f*; round 10: single/d*.py, projects/c*; round 11: single/b*.py, projects/a*.
ROUNDS = {"1": ("s", "p"), "2": ("t", "u"), "3": ("r", "q"), "4": ("v", "w"), "5": ("x", "y"), "6": ("m", "n"), "7": ("g", "h"), "8": ("k", "j"), "9": ("e", "f"), "10": ("d", "c"), "11": ("b", "a"), "12": ("z", "i"), "13": ("o", "l"), "14": ("y", "g"), "15": ("a", "b"), "16": ("c", "d"), "17": ("f", "e"), "18": ("h", "k"), "19": ("i", "m"), "20": ("j", "o"), "21": ("l", "r"), "22": ("n", "s"), "23": ("p", "t"), "24": ("q", "v"), "25": ("u", "x"), "26": ("w", "z"),
          # every letter is taken from round 27 on: two-letter prefixes, matched only when a digit follows
          "27": ("aa", "aa"), "28": ("ab", "ab"), "29": ("ac", "ac"), "30": ("ad", "ad"), "31": ("ae", "ae"), "32": ("af", "af"), "33": ("ag", "ag"), "34": ("ah", "ah"), "35": ("ai", "ai"), "36": ("aj", "aj"), "37": ("ak", "ak"), "38": ("al", "al"), "39": ("am", "am"), "40": ("an", "an"), "41": ("ao", "ao"), "42": ("ap", "ap"), "43": ("aq", "aq"), "44": ("ar", "ar"), "45": ("as", "as"), "46": ("at", "at"), "47": ("au", "au"), "48": ("av", "av"), "49": ("aw", "aw"), "50": ("ax", "ax"), "51": ("ay", "ay"), "52": ("az", "az")}


def in_round(name: str, prefix: str) -> bool:
    """`name` belongs to the round whose prefix is `prefix` (`a001_x` is round 15's, `aa001_x` round 27's)."""
    return not prefix or re.match(re.escape(prefix) + r"\d", name) is not None


def measure_single(round_: str = "") -> dict:
    prefix = ROUNDS[round_][0] if round_ else ""
    files = sorted(p for p in (CASES / "single").glob("*.py") if in_round(p.name, prefix))
    return _score(files, lambda path: lint_file(str(path), Settings(select=MEASURED)))


def measure_projects(round_: str = "") -> dict:
    from torchleaklint.runner import lint_paths

    prefix = ROUNDS[round_][1] if round_ else ""
    files, findings = [], {}
    for project in sorted(p for p in (CASES / "projects").iterdir() if p.is_dir() and in_round(p.name, prefix)):
        settings = Settings(project_root=str(project), respect_gitignore=False, select=MEASURED)
        paths = discover([str(project)], settings)
        # the whole project at once, as the command line lints it (imports followed across modules)
        for path, diagnostics in lint_paths(paths, settings, jobs=1, cache=None):
            files.append(Path(path))
            findings[Path(path)] = diagnostics
    return _score(files, lambda path: findings[path])


def render(title: str, result: dict, details: bool) -> str:
    out = [f"### {title}", "", "| rule | expected | caught | recall | wrong on ok lines | wrong elsewhere | precision |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    total = Counter()
    for code in sorted(result["per_rule"]):
        c = result["per_rule"][code]
        total.update(c)
        out.append(_row(code, c))
    out.append(_row("**all**", total))
    if details:
        for path, expected, ok, found in result["rows"]:
            rel = path.relative_to(CASES)
            for line, code in sorted(expected - found):
                out.append(f"- missed {code} `{rel}:{line}`")
            for line, code in sorted(found - expected):
                out.append(f"- wrong {code} `{rel}:{line}`" + (" (ok line)" if (line, code) in ok else ""))
    return "\n".join(out) + "\n"


def _round_title(round_: str) -> str:
    return f", round {round_}" if round_ else ""


def _row(code, c) -> str:
    recall = f"{100 * c['caught'] / c['expected']:.1f}%" if c["expected"] else "n/a"
    reported = c["right"] + c["wrong_ok"] + c["wrong_unmarked"]
    precision = f"{100 * c['right'] / reported:.1f}%" if reported else "n/a"
    return (f"| {code} | {c['expected']} | {c['caught']} | {recall} | {c['wrong_ok']} | {c['wrong_unmarked']} | "
            f"{precision} |")


def section() -> str:
    """The markdown section for docs/realworld.md."""
    first = (CASES / "first_score.md").read_text(encoding="utf-8") if (CASES / "first_score.md").exists() else ""
    blind, previous = [], None
    for index, line in enumerate(first.splitlines()):
        if re.match(r"#{1,2} Round \d", line):  # (`# Round 2: ...`; from round 32 on, `## Round 32 (...)`)
            blind += ["", f"**{line.lstrip('#').strip()}**", ""]
            previous = None
        elif line.startswith("|"):
            if previous is not None and index != previous + 1:
                blind.append("")  # a new table
            blind.append(line)
            previous = index
    if blind:
        blind = ["**Round 1: release ed0e428 on the first 78 single cases and 19 projects**", ""] + blind
    out = ["## Blind cases: recall on leaks written from public reports", "",
           "`fixtures/blind_cases/` holds single-file cases and small multi-module projects written from",
           "public bug reports by someone who had not seen the linter's code or output, scored once",
           "(the blind figure, kept verbatim in `fixtures/blind_cases/first_score.md`), then kept as",
           "fixtures: every figure after that is in-sample.", "", "Blind (first score):", ""]
    out += blind or ["(first_score.md missing)"]
    out += ["", "Current code (in-sample), all rounds together:", "",
            render("single-file cases", measure_single(), False),
            render("multi-module projects", measure_projects(), False)]
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--details", action="store_true", help="list every miss and wrong finding")
    parser.add_argument("--round", choices=sorted(ROUNDS), default="", help="only the cases of one writing round")
    args = parser.parse_args()
    os.chdir(ROOT)
    print(render(f"single-file cases (current code){_round_title(args.round)}", measure_single(args.round),
                 args.details))
    print(render(f"multi-module projects (current code){_round_title(args.round)}", measure_projects(args.round),
                 args.details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
