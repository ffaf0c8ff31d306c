#!/usr/bin/env python3
"""One blind run of a fresh set: export each pinned repository and lint it ONCE with a frozen
release, writing the findings and a triage stub for a reader who has not seen the code.

    git worktree add /work/frozen <release>          # the release the figure is named with
    python -m venv /work/venv-frozen && /work/venv-frozen/bin/pip install /work/frozen
    /work/venv-frozen/bin/python benchmarks/blind_run.py REPOS_TOML OUT_DIR --frozen /work/frozen

REPOS_TOML lists `[[repo]]` tables (name, url, commit, subdirs) as in `benchmarks/blind/<set>/`.
Repositories are exported from `--mirror-root` (bare mirrors, as the `fetch` tool leaves them)
into `--corpus`/<owner>__<name> by `checkout_realworld.py`, then linted with the frozen
release's `realworld.lint_repo` (every rule, the preview TLL002 included, as a project).
OUT_DIR gets `findings.json` and `triage_stub.toml` (one `[[finding]]` per finding, `verdict`
and `note` empty): the triager fills them in and the result becomes the set's `triage.toml`.
Run it once per set: a second run after reading findings is no longer blind.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--frozen", type=Path, required=True, help="work tree of the frozen release")
    parser.add_argument("--mirror-root", default="/work/.mirror")
    parser.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    args = parser.parse_args()
    sys.path[:0] = [str(args.frozen), str(args.frozen / "benchmarks")]
    from realworld import lint_repo, load_toml  # the frozen release's copies

    args.out.mkdir(parents=True, exist_ok=True)
    args.corpus.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(args.frozen / "benchmarks" / "checkout_realworld.py"), "--manifest",
                    str(args.repos), "--mirror-root", args.mirror_root, "--dest", str(args.corpus)], check=False)
    results = {}
    for repo in load_toml(args.repos).get("repo", []):
        result = lint_repo(args.corpus, repo)
        results[repo["name"]] = result
        print(repo["name"], "missing" if result is None else
              f'{result["files"]} files, {result["lines"]} lines, {len(result["findings"])} findings', flush=True)
    (args.out / "findings.json").write_text(json.dumps(results, indent=1))
    with open(args.out / "triage_stub.toml", "w", encoding="utf-8") as stub:
        for name, result in results.items():
            for d in (result or {}).get("findings", []):
                fields = {"repo": name, "path": d["path"], "line": d["line"], "code": d["code"],
                          "source": d["source"], "message": d["message"], "verdict": "", "note": ""}
                stub.write("[[finding]]\n" + "".join(
                    f"{k} = {v if isinstance(v, int) else json.dumps(v)}\n" for k, v in fields.items()) + "\n")
    print("total findings:", sum(len((r or {}).get("findings", [])) for r in results.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
