#!/usr/bin/env python3
"""Download the per-file-pinned part of the real-world corpus.

Some repositories of the corpus (pytorch/tutorials, ray-project/ray) are far too large to
check out for a few dozen Python files, so ``benchmarks/realworld_files.toml`` pins each
file on its own: one ``[[file]]`` table with ``repo`` (``owner/name``), ``path`` and the
40-hex ``commit`` the file was read at. This script fetches every file from

    https://raw.githubusercontent.com/<repo>/<commit>/<path>

into ``<dest>/<owner>__<name>/<path>``, the layout ``benchmarks/realworld.py`` reads:

    python benchmarks/fetch_pinned_files.py --dest /work/corpus [--only OWNER/NAME] [--force]

Files already present are kept unless ``--force``. Standard library only (Python >= 3.9;
``tomllib`` when available, else ``tomli``).
"""

from __future__ import annotations

import argparse
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).resolve().parent
DEFAULT_MANIFEST = HERE / "realworld_files.toml"
RAW_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")


def load_pins(path: Path) -> List[dict]:
    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    with open(path, "rb") as handle:
        pins = tomllib.load(handle).get("file", [])
    for pin in pins:
        missing = [key for key in ("repo", "path", "commit") if key not in pin]
        if missing:
            raise ValueError(f"pin {pin!r} lacks {', '.join(missing)}")
        if not COMMIT_RE.match(pin["commit"]):
            raise ValueError(f"{pin['repo']}/{pin['path']}: commit must be 40 lowercase hex digits")
        if pin["path"].startswith("/") or ".." in Path(pin["path"]).parts:
            raise ValueError(f"{pin['repo']}: path {pin['path']!r} must stay inside the repository")
    return pins


def local_path(dest: Path, pin: dict) -> Path:
    return dest / pin["repo"].replace("/", "__") / pin["path"]


def download(pin: dict, target: Path, timeout: float) -> None:
    url = RAW_URL.format(**pin)
    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - fixed https host
        data = response.read()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    partial.write_bytes(data)
    partial.replace(target)


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST, help="default: %(default)s")
    ap.add_argument("--dest", type=Path, required=True, help="corpus root, e.g. /work/corpus")
    ap.add_argument("--only", action="append", default=[], metavar="OWNER/NAME", help="restrict to these repos")
    ap.add_argument("--force", action="store_true", help="download files that are already present")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per request (default: %(default)s)")
    return ap.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    pins = load_pins(args.manifest)
    if args.only:
        pins = [p for p in pins if p["repo"] in set(args.only)]
    fetched = kept = failed = 0
    for pin in pins:
        target = local_path(args.dest, pin)
        if target.exists() and not args.force:
            kept += 1
            continue
        try:
            download(pin, target, args.timeout)
            fetched += 1
        except (urllib.error.URLError, OSError) as exc:
            failed += 1
            print(f"FAILED  {pin['repo']}@{pin['commit'][:12]}:{pin['path']}: {exc}", file=sys.stderr)
    print(f"{fetched} downloaded, {kept} already present, {failed} failed ({len(pins)} pinned)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
