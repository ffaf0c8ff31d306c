#!/usr/bin/env python3
"""Lint the pinned environment corpus with TLL101-TLL103 and measure precision against a
committed triage.

    python benchmarks/environment_realworld.py --checkout --mirror-root /work/.mirror --corpus /work/envcorpus
    python benchmarks/environment_realworld.py --corpus /work/envcorpus [--write-doc docs/realworld.md]

Repositories: `benchmarks/environment_repos.toml` (pinned by commit; their files are never
committed here). Verdicts: `benchmarks/environment_triage.toml`, keyed by repository, path,
rule code and the stripped source line of the finding, each written after reading the file:
`tp`, `fp` or `debatable`. Precision = tp / (tp + fp); untriaged findings are listed.
`--checkout` extracts each pinned commit from local git mirrors (`<root>/<owner>+<name>/repo`).

A further set lives in a directory with `repos.toml`, `triage.toml` and `set.toml` (which
release was triaged, and whether blind), scored with `--set`:

    python benchmarks/environment_realworld.py --set benchmarks/environment_blind/envset2 --corpus /work/envcorpus2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torchleaklint.config import Settings  # noqa: E402
from torchleaklint.discovery import discover  # noqa: E402
from torchleaklint.engine import lint_file  # noqa: E402
from torchleaklint.environment import environment_kind, is_quiet_parse_error  # noqa: E402

MANIFEST = ROOT / "benchmarks" / "environment_repos.toml"
TRIAGE = ROOT / "benchmarks" / "environment_triage.toml"
CODES = ("TLL101", "TLL102", "TLL103")
DOC_BEGIN = "<!-- environment-realworld:begin -->"
DOC_END = "<!-- environment-realworld:end -->"


def load(path: Path) -> dict:
    if not path.exists():
        return {}
    with open(path, "rb") as handle:
        return tomllib.load(handle)


def repo_dir(corpus: Path, name: str) -> Path:
    return corpus / name.replace("/", "__")


def use_set(directory: Path) -> dict:
    """Score the set in `directory` (repos.toml + triage.toml) instead of the default corpus."""
    global MANIFEST, TRIAGE
    MANIFEST, TRIAGE = directory / "repos.toml", directory / "triage.toml"
    return load(directory / "set.toml")


def checkout(corpus: Path, mirror_root: Path) -> None:
    """Extract every pinned commit from its mirror (blob by blob: a snapshot may lack a few
    large binary blobs, which `git archive` would stop at)."""
    for repo in load(MANIFEST)["repo"]:
        dest = repo_dir(corpus, repo["name"])
        git_dir = mirror_root / repo["name"].replace("/", "+") / "repo"
        if dest.is_dir() or not git_dir.is_dir():
            continue
        listing = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", repo["commit"]],
                                 capture_output=True, check=True).stdout.decode("utf-8", "surrogateescape")
        for entry in filter(None, listing.split("\0")):
            meta, path = entry.split("\t", 1)
            mode, kind, obj = meta.split()
            if kind != "blob" or mode == "120000":
                continue
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            blob = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "blob", obj], capture_output=True)
            if blob.returncode == 0:
                target.write_bytes(blob.stdout)


def lint_repo(corpus: Path, repo: dict):
    base = repo_dir(corpus, repo["name"])
    if not base.is_dir():
        return None
    settings = Settings(project_root=str(base), respect_gitignore=False, select=CODES)
    files = discover([str(base)], settings)
    environment_files = [f for f in files if environment_kind(f) is not None]
    findings = []
    for path in files:
        for d in lint_file(path, settings):
            if is_quiet_parse_error(d):  # found by the walk: skipped quietly, as on the command line
                continue
            lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
            source = lines[d.line - 1].strip() if 0 < d.line <= len(lines) else ""
            findings.append({"repo": repo["name"], "path": os.path.relpath(path, base), "line": d.line,
                             "code": d.code, "source": source, "message": d.message})
    return {"files": len(files), "environment_files": len(environment_files), "findings": findings}


def triage_index():
    """Verdicts keyed by (repo, path, code, source) and, where the triage recorded it, also
    by line (two containers of one file with the same source line may differ)."""
    index = {}
    for t in load(TRIAGE).get("finding", []):
        key = (t["repo"], t["path"], t["code"], t["source"])
        index.setdefault(key, t)
        if "line" in t:
            index[key + (t["line"],)] = t
    return index


def measure(corpus: Path):
    index = triage_index()
    rows, all_findings = [], []
    started = time.perf_counter()
    for repo in load(MANIFEST)["repo"]:
        result = lint_repo(corpus, repo)
        if result is None:
            rows.append((repo["name"], None))
            continue
        for finding in result["findings"]:
            key = (finding["repo"], finding["path"], finding["code"], finding["source"])
            verdict = index.get(key + (finding["line"],)) or index.get(key)
            finding["verdict"] = verdict["verdict"] if verdict else "untriaged"
            finding["note"] = verdict.get("note", "") if verdict else ""
        rows.append((repo["name"], result))
        all_findings.extend(result["findings"])
    return rows, all_findings, time.perf_counter() - started


def summary(rows, findings, seconds) -> str:
    verdicts = Counter(f["verdict"] for f in findings)
    tp, fp = verdicts["tp"], verdicts["fp"]
    precision = f"{100 * tp / (tp + fp):.1f}%" if tp + fp else "n/a"
    present = [r for r in rows if r[1] is not None]
    out = [f"{len(present)} of {len(rows)} repositories present; "
           f"{sum(r['environment_files'] for _, r in present)} environment files "
           f"(YAML, Dockerfiles, shell, .env) and {sum(r['files'] - r['environment_files'] for _, r in present)} "
           f"Python files linted in {seconds:.1f} s",
           f"findings: {len(findings)} ({', '.join(f'{c} {n}' for c, n in sorted(Counter(f['code'] for f in findings).items()))})",
           f"verdicts: tp {tp}, fp {fp}, debatable {verdicts['debatable']}, untriaged {verdicts['untriaged']}",
           f"precision tp/(tp+fp): {precision}", "",
           "| repository | env files | TLL101 | TLL102 | TLL103 | tp | fp | debatable |",
           "|---|---|---|---|---|---|---|---|"]
    for name, result in rows:
        if result is None:
            out.append(f"| {name} | (not checked out) | | | | | | |")
            continue
        codes = Counter(f["code"] for f in result["findings"])
        v = Counter(f["verdict"] for f in result["findings"])
        out.append(f"| {name} | {result['environment_files']} | {codes['TLL101']} | {codes['TLL102']} | "
                   f"{codes['TLL103']} | {v['tp']} | {v['fp']} | {v['debatable']} |")
    return "\n".join(out) + "\n"


def write_doc(doc: Path, text: str) -> None:
    current = doc.read_text(encoding="utf-8")
    block = f"{DOC_BEGIN}\n```\n{text.split(chr(10) + chr(10))[0]}\n```\n\n{text.split(chr(10) + chr(10), 1)[1]}{DOC_END}"
    if DOC_BEGIN in current:
        head, rest = current.split(DOC_BEGIN, 1)
        current = head + block + rest.split(DOC_END, 1)[1]
    else:
        current = current.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(current, encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="directory holding owner__name checkouts")
    parser.add_argument("--set", type=Path, dest="set_dir",
                        help="a set directory (repos.toml, triage.toml, set.toml) instead of the default corpus")
    parser.add_argument("--checkout", action="store_true", help="first extract the pinned commits from mirrors")
    parser.add_argument("--mirror-root", type=Path, help="with --checkout: directory of owner+name/repo mirrors")
    parser.add_argument("--list", action="store_true", help="print every finding with its verdict")
    parser.add_argument("--write-doc", type=Path, help="replace the generated block of this Markdown file")
    args = parser.parse_args(argv)
    if args.set_dir:
        info = use_set(args.set_dir)
        sys.stdout.write(f"set {info.get('name', args.set_dir.name)}: triaged on release {info.get('release', '?')}"
                         f"{' (blind)' if info.get('blind') else ''}; figures below are for this checkout\n")
    if args.checkout:
        if not args.mirror_root:
            parser.error("--checkout needs --mirror-root")
        checkout(args.corpus, args.mirror_root)
    rows, findings, seconds = measure(args.corpus)
    text = summary(rows, findings, seconds)
    sys.stdout.write(text)
    if args.list:
        for f in findings:
            print(f"{f['verdict']:<10} {f['repo']}:{f['path']}:{f['line']} {f['code']} {f['source'][:90]}")
    if args.write_doc:
        write_doc(args.write_doc, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
