"""Recall on the known leaks of public reports and the look-alike rate (fixtures/known_leaks/)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _measure():
    spec = importlib.util.spec_from_file_location("known_leaks", ROOT / "benchmarks" / "known_leaks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.measure()


def test_known_leaks_recall_and_lookalike_rate():
    total = _measure()["total"]
    assert total["leaks"] >= 25 and total["lookalikes"] >= 25
    assert total["caught"] / total["leaks"] >= 0.80, total
    assert total["flagged"] / total["lookalikes"] <= 0.05, total


def test_every_known_leak_file_cites_its_source():
    for row in _measure()["rows"]:
        assert row["sources"], f"{row['file']} has no source URL in its docstring"
        assert row["expected"] or row["ok"], f"{row['file']} has no markers"
