"""Bounded fuzzing (a few seconds); `python scripts/fuzz.py --minutes 10` runs it longer."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import hypothesmith
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


def test_check_detects_a_crash():
    # the harness must be able to fail: a source the engine cannot even encode
    try:
        fuzz.check("\udcff = 1\n")
    except fuzz.Failure:
        return
    except Exception:  # pragma: no cover
        raise
