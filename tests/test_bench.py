"""benchmarks/bench.py runs end to end on a tiny corpus (no timing is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "tll001" / "smoke_train_loop.py"


def test_bench_runs_on_a_tiny_corpus(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "pkg").mkdir(parents=True)
    (corpus / "pkg" / "train.py").write_text(FIXTURE.read_text(encoding="utf-8"), encoding="utf-8")
    (corpus / "pkg" / "util.py").write_text("def add(a, b):\n    return a + b\n", encoding="utf-8")
    (corpus / "broken.py").write_text("total += (\n", encoding="utf-8")
    out = tmp_path / "bench.json"
    tools = "ast,tll-j1,tll,tll-warm,flake8"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), str(corpus), "--repeat", "1",
                           "--tools", tools, "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["files"] == 3
    assert set(data["results"]) == set(tools.split(","))
    assert all(r["median"] > 0 and r["runs"] == 1 and r["rss_mb"] > 0 for r in data["results"].values())
    assert {g["goal"].split()[0] for g in data["goals"]} == {"cold", "warm", "-j"}
    for tool in tools.split(","):
        assert any(line.split()[:1] == [tool] for line in done.stdout.splitlines()), done.stdout


def test_bench_reports_a_failing_tool(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), str(tmp_path), "--repeat", "1",
                           "--tools", "nonexistent"], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "unknown tools" in done.stderr
