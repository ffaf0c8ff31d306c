"""The fixes fix: each fix case is a real (tiny, seeded, CPU) training program that leaks;
after the fix the leak is gone, and a safe fix leaves every computed result unchanged.

Also: the codemods turn each case into its `.fixed.py` exactly, and so does the real CLI
once the rule that reports the case exists (skipped until then).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from fix_specs import CODEMOD, specs_from_markers
from leak_probe import graph_nodes, load, saved_bytes
from torchleaklint.diagnostics import SAFE
from torchleaklint.fixes import apply_specs
from torchleaklint.rules import all_rules

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "fixtures" / "fix_cases"
CASES = sorted(p for p in CASES_DIR.glob("tll*.py") if ".fixed." not in p.name)
HARNESS = Path(__file__).resolve().parent / "fix_harness"


def code_of(case: Path) -> str:
    return case.name[:6].upper()


def fixed_of(case: Path) -> Path:
    return case.with_name(case.stem + ".fixed.py")


def needs_rule(case: Path):
    return pytest.mark.skipif(code_of(case) not in all_rules(),
                              reason=f"{code_of(case)} is not implemented on this branch yet")


def run_cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "torchleaklint", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_codemod_output_is_the_fixed_file(case):
    source = case.read_text(encoding="utf-8")
    assert apply_specs(source, specs_from_markers(source)) == fixed_of(case).read_text(encoding="utf-8")


@pytest.mark.parametrize("case", [pytest.param(c, marks=needs_rule(c), id=c.stem) for c in CASES])
def test_cli_fix_produces_the_fixed_file_and_is_idempotent(case, tmp_path):
    target = tmp_path / case.name
    shutil.copy(case, target)
    first = run_cli("--fix", "--unsafe-fixes", "--select", code_of(case), target.name, cwd=tmp_path)
    assert first.returncode in (0, 1), first.stderr
    assert target.read_text(encoding="utf-8") == fixed_of(case).read_text(encoding="utf-8")
    again = run_cli("--fix", "--unsafe-fixes", "--select", code_of(case), target.name, cwd=tmp_path)
    assert target.read_text(encoding="utf-8") == fixed_of(case).read_text(encoding="utf-8")
    assert code_of(case) not in again.stdout


def _run(path, steps, monkeypatch):
    monkeypatch.syspath_prepend(str(HARNESS))
    return load(path).run(steps)


GRAPH_CASES = [c for c in CASES if code_of(c) in ("TLL001", "TLL002", "TLL003", "TLL006", "TLL008")]


@pytest.mark.parametrize("case", GRAPH_CASES, ids=lambda p: p.stem)
def test_fix_stops_the_graph_from_growing(case, monkeypatch, capsys):
    before = {n: _run(case, n, monkeypatch) for n in (4, 16)}
    after = {n: _run(fixed_of(case), n, monkeypatch) for n in (4, 16)}
    grown_before = graph_nodes(before[16]["kept"]) - graph_nodes(before[4]["kept"])
    grown_after = graph_nodes(after[16]["kept"]) - graph_nodes(after[4]["kept"])
    with capsys.disabled():
        print(f"\n{case.stem}: autograd nodes kept after 4/16 steps: "
              f"leaky {graph_nodes(before[4]['kept'])}/{graph_nodes(before[16]['kept'])} "
              f"({saved_bytes(before[16]['kept'])} saved bytes), "
              f"fixed {graph_nodes(after[4]['kept'])}/{graph_nodes(after[16]['kept'])} "
              f"({saved_bytes(after[16]['kept'])} saved bytes)")
    assert grown_before > 0, "the leaky program should keep more graph the longer it runs"
    assert grown_after == 0, "after the fix the kept graph must not grow with the steps"
    if CODEMOD[code_of(case)][1] == SAFE:
        _assert_same_results(before[16], after[16])
    else:
        _assert_still_trains(after[16])


def _assert_same_results(before, after):
    assert before["total"] == pytest.approx(after["total"], rel=1e-6)
    for p, q in zip(before["model"].parameters(), after["model"].parameters()):
        assert torch.equal(p, q), "a safe fix must not change training"


def _assert_still_trains(result):
    """An unsafe fix changes gradients by design; gradients must still reach the model."""
    assert torch.isfinite(torch.tensor(result["total"]))
    grads = [p.grad for p in result["model"].parameters()]
    assert all(g is not None for g in grads) and any(g.abs().sum() > 0 for g in grads)


def test_empty_cache_fix_removes_every_call_and_changes_nothing(monkeypatch):
    case = CASES_DIR / "tll004_empty_cache.py"
    calls = []
    real = torch.cuda.empty_cache
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: (calls.append(1), real()))
    before = _run(case, 8, monkeypatch)
    leaky_calls = len(calls)
    calls.clear()
    after = _run(fixed_of(case), 8, monkeypatch)
    print(f"tll004: empty_cache calls in 8 steps: leaky {leaky_calls}, fixed {len(calls)}")
    assert leaky_calls == 12 and not calls
    _assert_same_results(before, after)


def test_tune_fix_serializes_the_data_once(monkeypatch):
    case = CASES_DIR / "tll005_tune_config.py"
    monkeypatch.syspath_prepend(str(HARNESS))
    from ray import tune

    def serialized(path, trials):
        tune.SERIALIZED_BYTES[0] = 0
        result = load(path).run(trials)
        return tune.SERIALIZED_BYTES[0], result

    leaky_2, before = serialized(case, 2)
    leaky_8, _ = serialized(case, 8)
    fixed_2, after = serialized(fixed_of(case), 2)
    fixed_8, _ = serialized(fixed_of(case), 8)
    print(f"tll005: bytes serialized for 2/8 trials: leaky {leaky_2}/{leaky_8}, fixed {fixed_2}/{fixed_8}")
    data_bytes = 2000 * 16 * 4
    assert leaky_8 - leaky_2 >= 6 * data_bytes      # the array once per trial
    assert fixed_8 - fixed_2 < data_bytes // 10     # only the small configs grow
    assert before["total"] == pytest.approx(after["total"], rel=1e-6)  # same trials, same losses
