#!/usr/bin/env python3
"""Lint the pinned real-world corpus and measure precision against a committed triage.

    python benchmarks/checkout_realworld.py --mirror-root ... --dest /work/corpus   # once
    python benchmarks/realworld.py --corpus /work/corpus [--write-doc docs/realworld.md]

Every finding is looked up in `benchmarks/realworld_triage.toml`, where a person who read
the code recorded a verdict: `tp` (a real leak or anti-pattern), `fp` (the linter was
wrong) or `debatable`. A finding is keyed by repository, path, rule code and the stripped
source line, so triage survives unrelated line shifts. Untriaged findings are listed so
that they get read; precision is computed over triaged ones as tp / (tp + fp), with
debatable findings reported separately.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torchleaklint.config import EVERY_RULE as MEASURED, Settings  # noqa: E402
from torchleaklint.discovery import discover  # noqa: E402
from torchleaklint.runner import lint_paths  # noqa: E402
from torchleaklint.rules import all_rules  # noqa: E402

MANIFEST = ROOT / "benchmarks" / "realworld_repos.toml"
TRIAGE = ROOT / "benchmarks" / "realworld_triage.toml"
PINNED_FILES = ROOT / "benchmarks" / "realworld_files.toml"
# A repository pinned file by file (realworld_files.toml) instead of at one commit.
PER_FILE = "per-file"


PEER_BEGIN, PEER_END = "<!-- PEER:BEGIN -->", "<!-- PEER:END -->"


def _peer_section(doc: Path) -> str:
    """The block benchmarks/peer_compare.py maintains (torch-preflight), kept when regenerating."""
    current = doc.read_text(encoding="utf-8") if doc.exists() else ""
    if PEER_BEGIN not in current or PEER_END not in current:
        return ""
    return current[current.index(PEER_BEGIN):current.index(PEER_END) + len(PEER_END)] + "\n"


def _environment_section(doc: Path) -> str:
    """The section benchmarks/environment_realworld.py maintains, kept when regenerating."""
    heading = "\n## Environment rules (TLL101-TLL103)\n"
    current = doc.read_text(encoding="utf-8") if doc.exists() else ""
    return heading + current.split(heading, 1)[1] if heading in current else ""


def load_toml(path: Path) -> dict:
    if not path.exists():
        return {}
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def repo_dir(corpus: Path, name: str) -> Path:
    return corpus / name.replace("/", "__")


def pinned_paths(repo_name: str) -> list:
    return [pin["path"] for pin in load_toml(PINNED_FILES).get("file", []) if pin["repo"] == repo_name]


def lint_repo(corpus: Path, repo: dict, notebooks: bool = True):
    """Lint one pinned repository as the command line does (a project: imports followed
    across its modules). The earlier corpus (realworld_repos.toml) was measured and triaged
    on .py files only, so its run leaves notebooks out (notebooks=False)."""
    base = repo_dir(corpus, repo["name"])
    if not base.is_dir():
        return None
    settings = Settings(project_root=str(base), respect_gitignore=False, select=MEASURED,
                        exclude=Settings().exclude + ("docs", "_downloads", ".build") + (() if notebooks else ("*.ipynb",)),
                        # the environment rules have their own corpus: environment_realworld.py
                        ignore=("TLL101", "TLL102", "TLL103"))
    pinned = None
    if repo["commit"] == PER_FILE:
        pinned = pinned_paths(repo["name"])
        files = [str(base / rel) for rel in pinned if (base / rel).is_file()]
    else:
        roots = [str(base / sub) for sub in repo.get("subdirs", [])] or [str(base)]
        files = discover([r for r in roots if os.path.exists(r)], settings)
    findings = []
    lines = 0
    # the repository as the command line lints it: one project, imports followed across modules
    results = dict(lint_paths(files, settings, jobs=1, cache=None))
    for path in files:
        text = _read(path)
        lines += sum(1 for line in text.splitlines() if line.strip())
        cells = _cells(text) if path.endswith(".ipynb") else None
        for d in results[path]:
            rel = os.path.relpath(path, base)
            cell = getattr(d, "cell", None)
            own = cells[cell - 1].splitlines() if cells and cell and 0 < cell <= len(cells) else text.splitlines()
            source_line = own[d.line - 1].strip() if 0 < d.line <= len(own) else ""
            findings.append({"repo": repo["name"], "path": rel, "line": d.line, "code": d.code, "cell": cell,
                             "message": d.message, "source": source_line})
    return {"files": len(files), "lines": lines, "findings": findings,
            "pinned": None if pinned is None else len(pinned)}


def _cells(text: str) -> list:
    """A notebook's cells' sources (every cell, as the linter numbers them), or [] if broken."""
    import json

    try:
        return ["".join(c.get("source", "")) if isinstance(c.get("source"), list) else c.get("source", "")
                for c in json.loads(text).get("cells", [])]
    except (ValueError, AttributeError):
        return []


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def triage_key(finding: dict) -> tuple:
    return (finding["repo"], finding["path"], finding["code"], finding["source"])


def load_triage() -> dict:
    entries = load_toml(TRIAGE).get("finding", [])
    return {(e["repo"], e["path"], e["code"], e["source"]): e for e in entries}


def load_fixed() -> list:
    """False positives found in triage and fixed since (they are no longer reported)."""
    return load_toml(TRIAGE).get("fixed", [])


def known_leaks_section() -> str:
    """The known-leaks measurement (benchmarks/known_leaks.py), between its markers."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import known_leaks

    return f"{known_leaks.BEGIN}\n{known_leaks.render(known_leaks.measure(), details=True)}{known_leaks.END}\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    parser.add_argument("--write-doc", type=Path, help="write the markdown report here")
    parser.add_argument("--untriaged-toml", type=Path, help="append TOML stubs for untriaged findings here")
    parser.add_argument("--blind-corpus", type=Path,
                        help="with --write-doc: also measure the blind sets (benchmarks/blind/) checked out here")
    parser.add_argument("--keep-earlier-corpus", action="store_true",
                        help="with --write-doc: do not re-measure the earlier corpus (realworld_repos.toml); keep "
                             "its section as the document has it, marked with the date it was measured")
    args = parser.parse_args()
    if args.keep_earlier_corpus:
        return _rewrite_keeping_earlier(args)

    repos = load_toml(MANIFEST).get("repo", [])
    triage = load_triage()
    started = time.perf_counter()
    rows, findings, missing = [], [], []
    for repo in repos:
        result = lint_repo(args.corpus, repo, notebooks=False)
        if result is None:
            missing.append(repo["name"])
            continue
        rows.append((repo, result))
        findings.extend(result["findings"])
    elapsed = time.perf_counter() - started

    verdicts = Counter()
    per_rule = defaultdict(Counter)
    untriaged = []
    for f in findings:
        entry = triage.get(triage_key(f))
        verdict = entry["verdict"] if entry else "untriaged"
        f["verdict"] = verdict
        f["note"] = entry.get("note", "") if entry else ""
        verdicts[verdict] += 1
        per_rule[f["code"]][verdict] += 1
        if entry is None:
            untriaged.append(f)
    report = render(rows, findings, per_rule, verdicts, missing, elapsed)
    report += render_extras(findings, load_fixed())
    if args.write_doc:
        report += "\n" + known_leaks_section()
        import blind_cases
        import blind_sets

        prefix = blind_sets.section(args.blind_corpus) if args.blind_corpus else ""
        earlier = report.replace("# torchleaklint on real public PyTorch code",
                                 "## The earlier corpus (in-sample: its false positives were fixed, then it was measured again)", 1)
        report = ("# torchleaklint on real public PyTorch code\n\n" + prefix + "\n" + blind_cases.section()
                  + "\n" + _peer_section(args.write_doc) + "\n" + earlier)
    print(report)
    if args.write_doc:
        args.write_doc.write_text(report + _environment_section(args.write_doc), encoding="utf-8")
    if args.untriaged_toml and untriaged:
        with open(args.untriaged_toml, "a", encoding="utf-8") as out:
            for f in untriaged:
                out.write(stub(f))
    return 0


EARLIER = "## The earlier corpus (in-sample: its false positives were fixed, then it was measured again)"
KNOWN = "<!-- KNOWN-LEAKS:BEGIN -->"


def _rewrite_keeping_earlier(args) -> int:
    """Regenerate the blind sets, blind cases and known leaks sections; keep the earlier
    corpus's section as it stands (when its repositories are not checked out)."""
    import blind_cases
    import blind_sets

    current = args.write_doc.read_text(encoding="utf-8")
    if EARLIER not in current or KNOWN not in current:
        print(f"{args.write_doc} has no earlier-corpus section to keep", file=sys.stderr)
        return 2
    earlier = current[current.index(EARLIER):current.index(KNOWN)].rstrip() + "\n"
    note = ("\n(This section was not re-measured when the sections above were: its repositories were not "
            "checked out. `python benchmarks/realworld.py --write-doc ...` without `--keep-earlier-corpus` "
            "measures it again.)\n")
    if note.strip() not in earlier:
        earlier = earlier.replace(EARLIER + "\n", EARLIER + "\n" + note, 1)
    prefix = blind_sets.section(args.blind_corpus, current) if args.blind_corpus else ""
    report = ("# torchleaklint on real public PyTorch code\n\n" + prefix + "\n" + blind_cases.section() + "\n"
              + _peer_section(args.write_doc) + "\n" + earlier + "\n" + known_leaks_section())
    args.write_doc.write_text(report + _environment_section(args.write_doc), encoding="utf-8")
    print(report)
    return 0


def precision(counter: Counter) -> str:
    tp, fp = counter["tp"], counter["fp"]
    return f"{100 * tp / (tp + fp):.1f}%" if tp + fp else "n/a"


def render(rows, findings, per_rule, verdicts, missing, elapsed) -> str:
    out = ["# torchleaklint on real public PyTorch code", "",
           "Generated by `python benchmarks/realworld.py --corpus /work/corpus --write-doc docs/realworld.md`;",
           "repositories and commits are pinned in `benchmarks/realworld_repos.toml`, verdicts are in",
           "`benchmarks/realworld_triage.toml` (each one written after reading the code).", "",
           "| repository | commit | files | lines | findings |", "|---|---|---:|---:|---:|"]
    for repo, result in rows:
        out.append(f"| [{repo['name']}]({repo['url']}) | {commit_cell(repo, result)} | {result['files']} | "
                   f"{result['lines']:,} | {len(result['findings'])} |")
    total_lines = sum(r["lines"] for _, r in rows)
    out.append(f"| **total** | | {sum(r['files'] for _, r in rows)} | {total_lines:,} | {len(findings)} |")
    if missing:
        out += ["", f"Not checked out (skipped): {', '.join(missing)}."]
    if any(result["pinned"] is not None for _, result in rows):
        out += ["", "Repositories marked *per file* are too large to check out whole; each of their files is",
                "pinned at its own commit in `benchmarks/realworld_files.toml` (download them with",
                "`benchmarks/fetch_pinned_files.py`), and the files present in the corpus are linted."]
    out += ["", f"Lint time: {elapsed:.1f} s (one process).", "",
            "| rule | findings | true positive | false positive | debatable | untriaged | precision |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for code in all_rules():
        c = per_rule.get(code, Counter())
        out.append(f"| {code} | {sum(c.values())} | {c['tp']} | {c['fp']} | {c['debatable']} | "
                   f"{c['untriaged']} | {precision(c)} |")
    out.append(f"| **all** | {len(findings)} | {verdicts['tp']} | {verdicts['fp']} | {verdicts['debatable']} | "
               f"{verdicts['untriaged']} | {precision(verdicts)} |")
    tp, fp, deb = verdicts["tp"], verdicts["fp"], verdicts["debatable"]
    strict = f"{100 * tp / (tp + fp + deb):.1f}%" if tp + fp + deb else "n/a"
    out += ["", f"**Precision after triage: {precision(verdicts)}** (tp / (tp + fp); {deb} debatable finding(s) "
            f"left out; counting them as false positives it is {strict}). "
            f"{verdicts['untriaged']} finding(s) untriaged."]
    out += ["", "## Findings", ""]
    for f in sorted(findings, key=lambda f: (f["repo"], f["path"], f["line"], f["code"])):
        note = f" — {f['note']}" if f["note"] else ""
        out.append(f"- **{f['verdict']}** `{f['repo']}/{f['path']}:{f['line']}` {f['code']}: "
                   f"`{f['source'][:90]}`{note}")
    return "\n".join(out) + "\n"


def commit_cell(repo: dict, result: dict) -> str:
    if result["pinned"] is None:
        return f"`{repo['commit'][:10]}`"
    return f"per file ({result['files']} of {result['pinned']} pinned present)"


def render_extras(findings, fixed) -> str:
    """Notable true positives (worth reporting upstream) and the fixed false positives."""
    notable = [f for f in findings if f["verdict"] == "tp"]
    by_file = defaultdict(list)
    for f in notable:
        by_file[(f["repo"], f["path"])].append(f)
    out = ["", "## Notable true positives", "",
           "Real problems in well-known repositories; each is worth reporting to its authors",
           "(a `torch.no_grad()` / `@torch.no_grad()` around the evaluation is the whole fix).", ""]
    for (repo, path), items in sorted(by_file.items()):
        lines = ", ".join(str(f["line"]) for f in sorted(items, key=lambda f: f["line"]))
        out.append(f"- `{repo}/{path}` (lines {lines}, {items[0]['code']}): {items[0]['note']}")
    out += ["", "## False positives found in triage and fixed", "",
            f"{len(fixed)} finding(s) were false positives of an earlier version; the semantic layer was",
            "generalized (no repository, file or variable names) and each shape got an `# ok:` fixture.", ""]
    for e in fixed:
        out.append(f"- `{e['repo']}/{e['path']}` {e['code']} `{e['source'][:80]}`: {e['note']}")
    return "\n".join(out) + "\n"


def stub(f: dict) -> str:
    def q(s):
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return (f"\n[[finding]]\nrepo = {q(f['repo'])}\npath = {q(f['path'])}\ncode = {q(f['code'])}\n"
            f"source = {q(f['source'])}\nverdict = \"untriaged\"  # tp | fp | debatable\n"
            f"note = {q('line ' + str(f['line']) + ': ' + f['message'][:120])}\n")


if __name__ == "__main__":
    sys.exit(main())
