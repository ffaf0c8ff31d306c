#!/usr/bin/env python3
"""Precision on the blind sets: public repositories triaged by a reader who had not seen the
linter's code, each set pinned and triaged ONCE, on the release that was current then.

    python benchmarks/blind_sets.py --corpus /work/corpus [--set set1] [--write-doc FILE]

`benchmarks/blind/<set>/repos.toml` pins the repositories (get them with the `fetch` tool or
`git clone` + `git checkout <commit>` into `<corpus>/<owner>__<name>`); `triage.toml` holds
one verdict per finding of the release the set was first run on (`tp`, `fp`, `debatable`,
with a note written after reading the code); `summary.md` is the triager's own summary, with
the figure measured then. This script lints the same files with the code of this checkout
and joins its findings with that triage (same key as `realworld.py`: repository, path, rule,
stripped source line): findings the triage never saw are listed as untriaged, so that the
figure for the current code is never taken for a blind one. A set's blind figure is the one
in its `summary.md`; what this script prints for the current code is in-sample for every set
whose false positives guided a fix.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from realworld import lint_repo, load_toml, precision, triage_key  # noqa: E402

from torchleaklint.config import PREVIEW_CODES  # noqa: E402

BLIND = ROOT / "benchmarks" / "blind"
RESULTS = ROOT / "benchmarks" / ".results"
JOBS = os.cpu_count() or 1


def sets() -> list:
    """The sets in the order they were made: set1, set1b, set2, ..., set9, set10, set11
    (the last one is the last fresh set)."""
    import re

    def order(name: str):
        match = re.match(r"([a-z]+)(\d+)(.*)", name)
        return (match.group(1), int(match.group(2)), match.group(3)) if match else (name, 0, "")

    return sorted((p.name for p in BLIND.iterdir() if (p / "repos.toml").is_file()), key=order)


def _lint_set(corpus: Path, name: str, repos: list) -> list:
    """Each repository's lint result, in manifest order. Kept in `benchmarks/.results/`
    keyed by the linter's source, the set's repositories and the corpus: rerunning the
    report after adding a set lints only the new set (any change to the linter's code
    invalidates every entry)."""
    from torchleaklint.cache import package_source_hash

    key = hashlib.sha256(repr((package_source_hash(), name, repos, str(corpus))).encode()).hexdigest()[:20]
    stored = RESULTS / f"{name}-{key}.json"
    if stored.is_file():
        return json.loads(stored.read_text(encoding="utf-8"))
    with multiprocessing.Pool(JOBS) as pool:  # repositories in parallel, results in manifest order
        results = pool.starmap(lint_repo, [(corpus, repo) for repo in repos])
    RESULTS.mkdir(exist_ok=True)
    stored.write_text(json.dumps(results), encoding="utf-8")
    return results


def measure(corpus: Path, name: str) -> dict:
    folder = BLIND / name
    repos = load_toml(folder / "repos.toml").get("repo", [])
    entries = load_toml(folder / "triage.toml").get("finding", [])
    triage: Dict[tuple, list] = {}  # key -> its entries (one source line may be triaged at several lines)
    for e in entries:
        triage.setdefault(_entry_key(e), []).append(e)
    findings, missing, lines = [], [], 0
    results = _lint_set(corpus, name, repos)
    for repo, result in zip(repos, results):
        if result is None:
            missing.append(repo["name"])
            continue
        lines += result["lines"]
        findings.extend(f for f in result["findings"] if f["code"][:5] not in ("TLL90", "TLL10"))
    per_rule = defaultdict(Counter)
    total = Counter()
    untriaged = []
    reported = set()
    for f in findings:
        key = _finding_key(f, triage)
        reported.add(key)
        entry = _closest_entry(triage.get(key), f["line"])
        verdict = entry["verdict"] if entry else "untriaged"
        f["verdict"], f["note"] = verdict, entry.get("note", "") if entry else ""
        per_rule[f["code"]][verdict] += 1
        total[verdict] += 1
        if entry is None:
            untriaged.append(f)
    gone = Counter(e["verdict"] for key, found in triage.items() for e in found
                   if e["code"][:5] != "TLL90" and key not in reported)
    rules = _rule_verdicts(entries)
    return {"set": name, "repos": len(repos) - len(missing), "missing": missing, "lines": lines, "findings": findings,
            "per_rule": per_rule, "total": total, "untriaged": untriaged, "gone": gone,
            "triaged": Counter(e["verdict"] for e in rules),
            # the rules a user runs by default (no preview rule)
            "triaged_default": Counter(e["verdict"] for e in rules if e["code"] not in PREVIEW_CODES)}


def render_details(result: dict, verdicts=("fp",)) -> str:
    rows = [f for f in result["findings"] if f["verdict"] in verdicts]
    return "\n".join(f"- [{f['verdict']}] {f['code']} {f['repo']} `{f['path']}:{f['line']}` `{f['source']}`: {f['note']}"
                     for f in sorted(rows, key=lambda f: (f["code"], f["repo"], f["path"], f["line"]))) + "\n"


def render(result: dict) -> str:
    out = [f"### {result['set']}: current code", "",
           f"{result['repos']} repositories, {result['lines']:,} lines"
           + (f" (not in the corpus: {', '.join(result['missing'])})" if result["missing"] else "") + ".", "",
           "| rule | findings | tp | fp | debatable | untriaged | precision |", "|---|---:|---:|---:|---:|---:|---:|"]
    for code in sorted(result["per_rule"]):
        c = result["per_rule"][code]
        out.append(f"| {code} | {sum(c.values())} | {c['tp']} | {c['fp']} | {c['debatable']} | {c['untriaged']} | "
                   f"{precision(c)} |")
    t = result["total"]
    out.append(f"| **all** | {sum(t.values())} | {t['tp']} | {t['fp']} | {t['debatable']} | {t['untriaged']} | "
               f"{precision(t)} |")
    g, tr = result["gone"], result["triaged"]
    out += ["", f"Triaged when the set was first run: {tr['tp']} tp, {tr['fp']} fp, {tr['debatable']} debatable "
            f"(blind precision {precision(tr)}). No longer reported: {g['tp']} tp, {g['fp']} fp, "
            f"{g['debatable']} debatable."]
    if result["untriaged"]:
        out += ["", "Untriaged (new) findings:", ""]
        out += [f"- {f['repo']} `{f['path']}:{f['line']}` {f['code']}: `{f['source']}`" for f in result["untriaged"]]
    return "\n".join(out) + "\n"


def section(corpus: Path, previous: str = "") -> str:
    """The markdown section for docs/realworld.md: each set's blind figure (its triage, made
    once on the release named in its set.toml) beside the current code's in-sample one. A set
    some of whose repositories are not in the corpus keeps its row and section of `previous`
    (the document as it stands), marked as not re-measured: a partial measure would be taken
    for the set's."""
    kept = {name for name in sets() if _previous_row(previous, name) and not _checked_out(corpus, name)}
    # a set neither checked out nor measured before: its blind figure from its triage alone
    unmeasured = {name for name in sets() if name not in kept and not _checked_out(corpus, name)}
    results = [{"set": name} if name in kept | unmeasured else measure(corpus, name) for name in sets()]
    last = results[-1]
    if last["set"] in unmeasured:
        entries = _rule_verdicts(load_toml(BLIND / last["set"] / "triage.toml").get("finding", []))
        last = dict(last, triaged=Counter(e["verdict"] for e in entries),
                    triaged_default=Counter(e["verdict"] for e in entries if e["code"] not in PREVIEW_CODES))
    out = [f"**Honest figure: {precision(last['triaged'])} precision** ({last['triaged']['tp']} true, "
           f"{last['triaged']['fp']} false, {last['triaged']['debatable']} debatable findings) on `{last['set']}`, the "
           f"last fresh set, measured blind on the release named in its `set.toml` before any fix it guided "
           f"(every rule, the preview {', '.join(PREVIEW_CODES)} included; the rules on by default: "
           f"{precision(last['triaged_default'])}, {last['triaged_default']['tp']} true, "
           f"{last['triaged_default']['fp']} false, {last['triaged_default']['debatable']} debatable).", "",
           "## Blind sets: precision on code the team had not seen", "",
           "Each set is a list of public repositories pinned by commit (`benchmarks/blind/<set>/repos.toml`),",
           "linted once with the release named below and triaged by a reader who had not seen the",
           "linter's code (`triage.toml`, one verdict and note per finding; `summary.md` is the",
           "triager's own summary). **The blind figure is the one measured then.** The current code's",
           "figure on the same set is in-sample as soon as the set's false positives guided a fix, and",
           "is labeled so. Regenerate with `python benchmarks/realworld.py ... --blind-corpus DIR`", "",
           "| set | repositories | lines | release | blind precision (first run) | current code (in-sample) | untriaged now |",
           "|---|---:|---:|---|---:|---:|---:|"]
    for r in results:
        if r["set"] in unmeasured:
            info = load_toml(BLIND / r["set"] / "set.toml")
            tr = _triaged(r["set"])
            repos = len(load_toml(BLIND / r["set"] / "repos.toml").get("repo", []))
            out.append(f"| {r['set']} | {repos} | see its summary.md | {info.get('release', '?')} | "
                       f"{precision(tr)} ({tr['tp']} tp / {tr['fp']} fp / {tr['debatable']} debatable) | "
                       f"not measured (not checked out) | |")
            continue
        if r["set"] in kept:
            # the blind figure comes from the triage alone; the current code's from the last measure
            cells = _previous_row(previous, r["set"]).split("|")
            tr = _triaged(r["set"])
            cells[5] = f" {precision(tr)} ({tr['tp']} tp / {tr['fp']} fp / {tr['debatable']} debatable) "
            out.append("|".join(cells))
            continue
        info = load_toml(BLIND / r["set"] / "set.toml")
        tr, t = r["triaged"], r["total"]
        out.append(f"| {r['set']} | {r['repos']} | {r['lines']:,} | {info.get('release', '?')} | "
                   f"{precision(tr)} ({tr['tp']} tp / {tr['fp']} fp / {tr['debatable']} debatable) | "
                   f"{precision(t)} ({t['tp']} / {t['fp']} / {t['debatable']}) | {t['untriaged']} |")
    if unmeasured:
        out += ["", f"Not measured with the current code (their repositories were not checked out when this was "
                    f"generated; the blind figure comes from their triage, rule findings only): "
                    f"{', '.join(r['set'] for r in results if r['set'] in unmeasured)}."]
    if kept:
        out += ["", f"Not re-measured this time (their repositories were not all checked out; rows and "
                    f"current-code cells and sections as measured before; their blind figures recomputed from "
                    f"their triage, rule findings only): {', '.join(r['set'] for r in results if r['set'] in kept)}."]
    out.append("")
    for r in results:
        if r["set"] in unmeasured:
            continue  # its triage and summary.md are in benchmarks/blind/<set>/
        out.append(_previous_section(previous, r["set"]) if r["set"] in kept else render(r))
    return "\n".join(out) + "\n"


def _rule_verdicts(entries: list) -> list:
    """Rule findings only: parse errors (TLL90x) and environment findings are not counted.
    Every triaged finding counts once (two findings on the same source line of a file, in two
    notebook cells or two functions, are two verdicts)."""
    return [e for e in entries if e["code"][:5] not in ("TLL90", "TLL10")]


def _entry_key(entry: dict) -> tuple:
    """The join key of a triaged finding: repository, path, rule, source line, and the
    notebook cell when the triage recorded it (set22 on)."""
    return triage_key(entry) + ((entry["cell"],) if entry.get("cell") else ())


def _closest_entry(found: Optional[list], line: int) -> Optional[dict]:
    """Of the entries triaged under one key (the same source text at several lines of a
    file), the one at the finding's line, else the nearest: lines move as code changes."""
    if not found:
        return None
    return min(found, key=lambda e: abs(e["line"] - line))


def _finding_key(finding: dict, triage: dict) -> tuple:
    """The key under which a finding of the current code finds its triage: with its cell
    when the triage has that entry, else without (sets triaged before cells were recorded)."""
    with_cell = triage_key(finding) + ((finding["cell"],) if finding.get("cell") else ())
    return with_cell if with_cell in triage else triage_key(finding)


def _triaged(name: str) -> Counter:
    return Counter(e["verdict"] for e in _rule_verdicts(load_toml(BLIND / name / "triage.toml").get("finding", [])))


def _checked_out(corpus: Path, name: str) -> bool:
    """Is every repository of the set in the corpus (`<owner>__<name>`)?"""
    repos = load_toml(BLIND / name / "repos.toml").get("repo", [])
    return all((corpus / repo["name"].replace("/", "__", 1)).is_dir() for repo in repos)


def _previous_row(previous: str, name: str) -> str:
    return next((line for line in previous.splitlines() if line.startswith(f"| {name} |")), "")


def _previous_section(previous: str, name: str) -> str:
    """The set's section of the previous document; empty when it had none (a set shown then
    from its triage only)."""
    start = previous.find(f"### {name}: current code")
    if start == -1:
        return ""
    ends = [i for i in (previous.find("\n### ", start + 1), previous.find("\n## ", start + 1)) if i != -1]
    return previous[start:min(ends) if ends else len(previous)].rstrip("\n") + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    parser.add_argument("--set", action="append", help="only these sets (default: all)")
    parser.add_argument("--write-doc", type=Path, help="write the markdown here")
    parser.add_argument("--details", action="append", choices=("tp", "fp", "debatable"),
                        help="also list the findings with these verdicts, with their notes")
    args = parser.parse_args()
    results = [measure(args.corpus, name) for name in (args.set or sets())]
    report = "\n".join(render(r) + (render_details(r, args.details) if args.details else "") for r in results)
    print(report)
    if args.write_doc:
        args.write_doc.write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
