#!/usr/bin/env python3
"""Check out the pinned real-world PyTorch corpus used to measure torchleaklint's precision.

The corpus is described by ``benchmarks/realworld_repos.toml``: one ``[[repo]]`` table per
repository with its ``name`` (``owner/name``), ``url``, the full 40-hex ``commit`` to lint,
optional ``subdirs`` (the only parts of the tree that are linted and counted) and the
``py_files`` / ``py_lines`` (non-blank lines of ``*.py`` files within ``subdirs``) measured at
that commit.

None of that code is vendored here and none of it must ever be committed to this repository.
The repositories are fetched by the user; this script never touches the network unless
``--clone`` is given. Two ways to use it:

1. You already have the repositories (for example you ran ``git clone <url>`` for each, or
   you have bare mirrors). Point the script at them and it exports each pinned commit into a
   plain directory (no ``.git``) ``<dest>/<owner>__<name>``::

       python benchmarks/checkout_realworld.py --mirror-root ~/src --dest /work/corpus
       python benchmarks/checkout_realworld.py --git-dir pytorch/examples=~/src/examples/.git \\
           --git-dir karpathy/nanoGPT=~/src/nanoGPT --dest /work/corpus

   ``--mirror-root DIR`` looks for each repository's git directory at any of
   ``DIR/<owner>+<name>/repo``, ``DIR/<owner>__<name>``, ``DIR/<owner>/<name>``, ``DIR/<name>``,
   ``DIR/<name>.git`` (a work tree's ``.git`` is found too). ``--git-dir owner/name=PATH``
   (repeatable) overrides it for one repository.

   Export works blob by blob (``git ls-tree`` + ``git cat-file --batch``) so that partial
   snapshots, which may lack large binary files or LFS content, still give every source file;
   missing blobs are skipped and counted in the summary. Symlinks are recreated, submodules
   are skipped. ``--subdirs-only`` exports only each repository's ``subdirs``.

2. You have network access and want the script to fetch for you: ``--clone`` runs
   ``git clone --no-checkout <url> <dest>/<owner>__<name>`` followed by
   ``git checkout --detach <commit>`` (fetching the commit explicitly if the default clone
   lacks it). With ``--subdirs-only`` the clone is blobless (``--filter=blob:none``) and
   sparse, so that only ``subdirs`` are downloaded (useful for very large repositories).
   Such a destination keeps its ``.git`` directory; it is still not part of this repository.

Existing destination directories are skipped (use ``--force`` to replace them).
``--verify`` recounts ``py_files`` / ``py_lines`` in every destination and reports any
mismatch with the manifest (exit status 1 on mismatch). ``--only owner/name`` (repeatable)
restricts everything to some repositories.

Standard library only; Python >= 3.9 (``tomllib`` is used when available, else ``tomli``,
else a small built-in reader for the subset of TOML the manifest uses).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
DEFAULT_MANIFEST = HERE / "realworld_repos.toml"
# Repositories too large to snapshot whole are pinned file by file in realworld_files.toml
# (their commit here is this marker); benchmarks/fetch_pinned_files.py downloads them.
PER_FILE = "per-file"
COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")


# --------------------------------------------------------------------------- manifest


def _parse_toml_subset(text: str) -> dict:
    """Read the TOML subset used by the manifest: ``[[repo]]`` tables whose keys are
    strings, integers, booleans or (possibly multi-line) lists of strings."""
    data: dict = {}
    current: Optional[dict] = None
    lines = text.splitlines()
    i = 0

    def strip_comment(s: str) -> str:
        out, in_str, esc = [], False, False
        for ch in s:
            if in_str:
                out.append(ch)
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
                out.append(ch)
            elif ch == "#":
                break
            else:
                out.append(ch)
        return "".join(out).strip()

    def value(v: str):
        v = v.strip()
        if v.startswith('"') and v.endswith('"'):
            return bytes(v[1:-1], "utf-8").decode("unicode_escape")
        if v.startswith("[") and v.endswith("]"):
            inner = v[1:-1].strip()
            return [] if not inner else [value(p) for p in re.findall(r'"(?:[^"\\]|\\.)*"', inner)]
        if v in ("true", "false"):
            return v == "true"
        return int(v.replace("_", ""))

    while i < len(lines):
        line = strip_comment(lines[i])
        i += 1
        if not line:
            continue
        m = re.match(r"^\[\[\s*([A-Za-z0-9_-]+)\s*\]\]$", line)
        if m:
            current = {}
            data.setdefault(m.group(1), []).append(current)
            continue
        m = re.match(r"^\[\s*([A-Za-z0-9_-]+)\s*\]$", line)
        if m:
            current = data.setdefault(m.group(1), {})
            continue
        key, sep, rest = line.partition("=")
        if not sep:
            raise ValueError(f"cannot parse manifest line {i}: {lines[i - 1]!r}")
        rest = rest.strip()
        if rest.startswith("[") and not rest.endswith("]"):
            while i < len(lines) and not rest.endswith("]"):
                rest += " " + strip_comment(lines[i])
                i += 1
        target = data if current is None else current
        target[key.strip()] = value(rest)
    return data


def load_manifest(path: Path) -> List[dict]:
    text = path.read_text(encoding="utf-8")
    try:
        import tomllib  # type: ignore[import-not-found]

        data = tomllib.loads(text)
    except ImportError:
        try:
            import tomli  # type: ignore[import-not-found]

            data = tomli.loads(text)
        except ImportError:
            data = _parse_toml_subset(text)
    repos = data.get("repo", [])
    for r in repos:
        for key in ("name", "url", "commit"):
            if key not in r:
                raise ValueError(f"manifest entry {r!r} lacks {key!r}")
        if r["commit"] == PER_FILE:
            r.setdefault("subdirs", [])
            continue
        if not COMMIT_RE.match(r["commit"]):
            raise ValueError(f"{r['name']}: commit must be 40 lowercase hex digits")
        r.setdefault("subdirs", [])
    return repos


def dir_name(repo_name: str) -> str:
    owner, name = repo_name.split("/", 1)
    return f"{owner}__{name}"


# --------------------------------------------------------------------------- git helpers


def git(git_dir: Optional[Path], *args: str, cwd: Optional[Path] = None, **kw) -> subprocess.CompletedProcess:
    cmd = ["git"]
    if git_dir is not None:
        cmd += ["--git-dir", str(git_dir)]
    cmd += list(args)
    return subprocess.run(cmd, cwd=cwd, check=True, **kw)


def resolve_git_dir(path: Path) -> Optional[Path]:
    """Return the git directory for ``path`` (a bare repo, a work tree or its .git)."""
    # the fetch tool leaves `<owner>+<name>/repo` (bare) or, for some, `<owner>+<name>/repo/.git`
    for cand in (path / ".git", path / "repo", path / "repo" / ".git", path):
        if cand.is_dir() and (cand / "objects").is_dir() and (cand / "HEAD").exists():
            return cand
    return None


def find_git_dir(repo_name: str, mirror_root: Optional[Path], overrides: Dict[str, Path]) -> Optional[Path]:
    if repo_name in overrides:
        return resolve_git_dir(overrides[repo_name])
    if mirror_root is None:
        return None
    owner, name = repo_name.split("/", 1)
    for cand in (
        mirror_root / f"{owner}+{name}",
        mirror_root / f"{owner}__{name}",
        mirror_root / owner / name,
        mirror_root / name,
        mirror_root / f"{name}.git",
        mirror_root / owner / f"{name}.git",
    ):
        found = resolve_git_dir(cand)
        if found is not None:
            return found
    return None


def in_subdirs(path: str, subdirs: List[str]) -> bool:
    if not subdirs:
        return True
    for s in subdirs:
        s = s.strip("/")
        if path == s or path.startswith(s + "/"):
            return True
    return False


def ls_tree(git_dir: Path, commit: str) -> Iterator[Tuple[str, str, str, str]]:
    out = git(git_dir, "ls-tree", "-r", "-z", "--full-tree", commit, stdout=subprocess.PIPE).stdout
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, typ, sha = meta.decode().split()
        yield mode, typ, sha, path.decode("utf-8", "surrogateescape")


def export_commit(git_dir: Path, commit: str, dest: Path, subdirs: List[str]) -> Tuple[int, int]:
    """Write the tree of ``commit`` (restricted to ``subdirs`` if given) under ``dest``.
    Returns (files written, blobs missing from the git directory)."""
    entries = [e for e in ls_tree(git_dir, commit) if in_subdirs(e[3], subdirs)]
    blobs = [e for e in entries if e[1] == "blob"]
    written = missing = 0
    proc = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for mode, _typ, sha, path in blobs:
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().decode().split()
            if len(header) < 2 or header[1] == "missing":
                missing += 1
                continue
            size = int(header[2])
            content = proc.stdout.read(size)
            proc.stdout.read(1)  # trailing newline
            target = dest / path
            target.parent.mkdir(parents=True, exist_ok=True)
            if mode == "120000":
                try:
                    os.symlink(os.fsdecode(content), target)
                except OSError:
                    target.write_bytes(content)
            else:
                target.write_bytes(content)
                if mode == "100755":
                    target.chmod(0o755)
            written += 1
    finally:
        proc.stdin.close()
        proc.wait()
    return written, missing


def checkout_from_git_dir(repo: dict, git_dir: Path, dest: Path, subdirs_only: bool) -> str:
    commit = repo["commit"]
    try:
        git(git_dir, "cat-file", "-e", f"{commit}^{{commit}}", stderr=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        return f"commit {commit} not found in {git_dir} (fetch it first)"
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    try:
        written, missing = export_commit(git_dir, commit, tmp, repo["subdirs"] if subdirs_only else [])
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    note = f"{written} files"
    if missing:
        note += f", {missing} blobs missing from the git dir (skipped)"
    return note


def checkout_by_clone(repo: dict, dest: Path, subdirs_only: bool) -> str:
    commit, url = repo["commit"], repo["url"]
    sparse = subdirs_only and repo["subdirs"]
    clone = ["clone", "--no-checkout"]
    if sparse:
        clone += ["--filter=blob:none", "--sparse"]
    git(None, *clone, url, str(dest))
    try:
        git(None, "cat-file", "-e", f"{commit}^{{commit}}", cwd=dest, stderr=subprocess.DEVNULL)
    except subprocess.CalledProcessError:
        git(None, "fetch", "origin", commit, cwd=dest)
    if sparse:
        git(None, "sparse-checkout", "set", *repo["subdirs"], cwd=dest)
    git(None, "-c", "advice.detachedHead=false", "checkout", "--detach", commit, cwd=dest)
    return "cloned"


# --------------------------------------------------------------------------- counting


def count_py(root: Path, subdirs: List[str]) -> Tuple[int, int]:
    """(number of .py files, number of non-blank lines in them) under ``root`` within
    ``subdirs``; .git directories are ignored."""
    files = lines = 0
    bases = [root / s.strip("/") for s in subdirs] if subdirs else [root]
    for base in bases:
        if base.is_file():
            candidates: List[Path] = [base] if base.suffix == ".py" else []
        else:
            candidates = []
            for dirpath, dirnames, filenames in os.walk(base):
                dirnames[:] = [d for d in dirnames if d != ".git"]
                candidates += [Path(dirpath) / f for f in filenames if f.endswith(".py")]
        for p in candidates:
            if p.is_symlink() or not p.is_file():
                continue
            files += 1
            with open(p, "rb") as fh:
                lines += sum(1 for ln in fh if ln.strip())
    return files, lines


# --------------------------------------------------------------------------- main


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST, help="default: %(default)s")
    ap.add_argument("--dest", type=Path, required=True, help="corpus root, e.g. /work/corpus")
    ap.add_argument("--mirror-root", type=Path, help="directory holding local clones / bare mirrors")
    ap.add_argument(
        "--git-dir",
        action="append",
        default=[],
        metavar="OWNER/NAME=PATH",
        help="local git dir (or work tree) for one repository; repeatable",
    )
    ap.add_argument("--clone", action="store_true", help="git clone repositories with no local git dir (network)")
    ap.add_argument("--subdirs-only", action="store_true", help="only export/clone each repo's subdirs")
    ap.add_argument("--only", action="append", default=[], metavar="OWNER/NAME", help="restrict to these repos")
    ap.add_argument("--force", action="store_true", help="replace existing destination directories")
    ap.add_argument("--verify", action="store_true", help="recount py_files/py_lines and compare with the manifest")
    return ap.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    repos = load_manifest(args.manifest)
    if args.only:
        wanted = set(args.only)
        unknown = wanted - {r["name"] for r in repos}
        if unknown:
            print(f"unknown repositories: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        repos = [r for r in repos if r["name"] in wanted]
    overrides: Dict[str, Path] = {}
    for spec in args.git_dir:
        name, sep, path = spec.partition("=")
        if not sep or "/" not in name:
            print(f"--git-dir expects OWNER/NAME=PATH, got {spec!r}", file=sys.stderr)
            return 2
        overrides[name] = Path(path).expanduser()
    mirror_root = args.mirror_root.expanduser() if args.mirror_root else None
    args.dest.mkdir(parents=True, exist_ok=True)

    failures = 0
    for repo in repos:
        dest = args.dest / dir_name(repo["name"])
        label = f"{repo['name']}@{repo['commit'][:12]}"
        if repo["commit"] == PER_FILE:
            print(f"skip    {repo['name']}: pinned per file, run benchmarks/fetch_pinned_files.py --dest {args.dest}")
            continue
        if dest.exists() and not args.force:
            print(f"skip    {label}: {dest} exists")
            continue
        if dest.exists():
            shutil.rmtree(dest)
        git_dir = find_git_dir(repo["name"], mirror_root, overrides)
        try:
            if git_dir is not None:
                note = checkout_from_git_dir(repo, git_dir, dest, args.subdirs_only)
            elif args.clone:
                note = checkout_by_clone(repo, dest, args.subdirs_only)
            else:
                note = f"no local git dir found; git clone {repo['url']} or pass --clone"
        except subprocess.CalledProcessError as exc:
            note = f"git failed: {exc}"
        ok = dest.exists()
        failures += not ok
        print(f"{'ok     ' if ok else 'FAILED '} {label}: {note}")

    if args.verify:
        total_files = total_lines = 0
        for repo in repos:
            if repo["commit"] == PER_FILE:
                continue
            dest = args.dest / dir_name(repo["name"])
            if not dest.exists():
                print(f"verify  {repo['name']}: missing {dest}")
                failures += 1
                continue
            files, lines = count_py(dest, repo["subdirs"])
            total_files += files
            total_lines += lines
            expected = (repo.get("py_files"), repo.get("py_lines"))
            status = "ok" if expected == (files, lines) else f"MISMATCH (manifest {expected[0]} files, {expected[1]} lines)"
            failures += status != "ok"
            print(f"verify  {repo['name']}: {files} files, {lines} lines: {status}")
        print(f"total   {total_files} .py files, {total_lines} non-blank lines")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
