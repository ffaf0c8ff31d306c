"""Bounded fuzzing (a few seconds); `python scripts/fuzz.py --minutes 10` runs it longer."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "fuzz.py"
spec = importlib.util.spec_from_file_location("fuzz", SCRIPT)
fuzz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(hypothesmith.from_grammar())
def test_generated_programs_never_crash_the_linter(source):
    fuzz.check(source)


def test_mutated_fixtures_never_crash_the_linter():
    rng = random.Random(1234)
    sources = fuzz.fixture_sources()
    for _ in range(150):
        fuzz.check(fuzz.mutate(rng.choice(sources), rng))


def test_fixes_of_mutated_fixtures_parse_and_are_idempotent():
    rng = random.Random(99)
    cases = sorted((fuzz.ROOT / "fixtures" / "fix_cases").glob("*.py"))
    sources = [p.read_text(encoding="utf-8") for p in cases if not p.name.endswith(".fixed.py")]
    fixed = 0
    for _ in range(15):
        source = fuzz.mutate(rng.choice(sources), rng)
        fixed += fuzz.check_fixes(source, fuzz.check(source))
    assert fixed >= 5  # the property was exercised on real fixes, not vacuously


def test_check_fixes_detects_a_fix_that_is_not_idempotent(monkeypatch):
    source = (fuzz.ROOT / "fixtures" / "fix_cases" / "tll001_running_loss.py").read_text(encoding="utf-8")
    real_fix_text = fuzz.fix_text
    calls = []

    def drifting_fix_text(text, *args, **kwargs):
        calls.append(text)
        result = real_fix_text(text, *args, **kwargs)
        result.text += f"# pass {len(calls)}\n"
        return result

    monkeypatch.setattr(fuzz, "fix_text", drifting_fix_text)
    with pytest.raises(fuzz.Failure, match="not idempotent"):
        fuzz.check_fixes(source, fuzz.check(source))


def test_check_detects_a_crash():
    # the harness must be able to fail: a source the engine cannot even encode
    try:
        fuzz.check("\udcff = 1\n")
    except fuzz.Failure:
        return
    except Exception:  # pragma: no cover
        raise


REGRESSIONS = sorted((SCRIPT.parent.parent / "fixtures" / "fuzz_regressions").glob("*.py.txt"))


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.name for p in REGRESSIONS])
def test_inputs_that_once_broke_the_linter_or_a_fix(path):
    # saved by scripts/fuzz.py: the first line is the failure, the rest the input (kept
    # byte for byte: newline="" preserves the CR/CRLF line endings the mutation chose)
    with open(path, encoding="utf-8", newline="") as handle:
        source = handle.read().split("\n", 1)[1]
    fuzz.check_fixes(source, fuzz.check(source))
