"""The committed tree has no unresolved merge conflicts (a docs page once shipped with them)."""
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^(<{7}|>{7})( |$)", re.M)


def test_no_merge_conflict_markers():
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    files = listed.stdout.split() if listed.returncode == 0 else \
        [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts]
    bad = []
    for name in files:
        path = ROOT / name
        if path.suffix not in (".py", ".md", ".toml", ".yaml", ".yml", ".cfg", ".txt") or not path.is_file():
            continue
        if MARKER.search(path.read_text(encoding="utf-8", errors="replace")):
            bad.append(name)
    assert not bad, f"unresolved merge conflict markers in: {bad}"
