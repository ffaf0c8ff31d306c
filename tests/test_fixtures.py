"""Every fixture file is linted and its findings must match its inline markers exactly."""

from __future__ import annotations

import pytest

from fixture_markers import FIXTURES, fixture_files, markers
from torchleaklint.config import OPT_IN_CODES, Settings
from torchleaklint.engine import lint_file

FILES = fixture_files()
# Opt-in rules (TLL902) on too: the whole corpus checks them for false positives.
SETTINGS = Settings(select=("TLL",) + OPT_IN_CODES)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(FIXTURES)) for p in FILES])
def test_fixture(path):
    expected, ok = markers(path)
    assert not (expected & ok), "a line cannot both expect and forbid a code"
    found = {(d.line, d.code) for d in lint_file(str(path), SETTINGS)}
    missing = sorted(expected - found)
    unexpected = sorted(found - expected)
    assert not missing and not unexpected, (
        f"\nmissing (expected, not reported): {missing}\nunexpected (reported, not marked): {unexpected}"
    )


def test_fixture_corpus_covers_every_rule():
    from torchleaklint.rules import all_rules

    from fixture_markers import environment_fixture_files

    marked = {code for path in FILES + environment_fixture_files() for _, code in markers(path)[0]}
    assert set(all_rules()) <= marked, f"rules without a positive fixture: {set(all_rules()) - marked}"
