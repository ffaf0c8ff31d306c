"""Properties of fixing, on generated training loops and on every fixture: the result
parses, a second --fix changes nothing, and no finding a fix was applied for remains."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fixture_markers import FIXTURES, fixture_files
from torchleaklint.config import Settings
from torchleaklint.engine import lint_source
from torchleaklint.fixes import applicable, fix_text

NAMES = st.sampled_from(["total", "running_loss", "acc", "épsum", "t"])
ACCUMULATIONS = st.sampled_from([
    "{t} += {e}", "{t} = {t} + {e}", "{t} = {e} + {t}", "{t} -= {e}", "{t} = 0.9 * {t} + 0.1 * {e}",
])
EXPRESSIONS = st.sampled_from(["loss", "loss * w", "-loss", "(loss)", "loss / 2", "criterion(model(x), y)"])
NOISE = st.sampled_from(["", "  # accumulate", "  # noqa: E501", "; n += 1"])


@st.composite
def training_loops(draw):
    total = draw(NAMES)
    lines = ["import torch", "from torch import nn", "", "",
             "def train(model, loader, optimizer, criterion, w):", f"    {total} = 0.0", "    n = 0"]
    lines += ["    for x, y in loader:", "        loss = criterion(model(x), y)",
              "        loss.backward()", "        optimizer.step()"]
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            lines.append("")
        statement = draw(ACCUMULATIONS).format(t=total, e=draw(EXPRESSIONS))
        lines.append("        " + statement + draw(NOISE))
    lines.append(f"    return {total}")
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + newline


def _fixable(diagnostics, unsafe=True):
    return [d for d in diagnostics if applicable(d, unsafe)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(training_loops())
def test_fixing_generated_loops_parses_is_idempotent_and_leaves_no_tll001(source):
    config = Settings()
    result = fix_text(source, "gen.py", config, unsafe=True)
    ast.parse(result.text)
    assert not [d for d in result.remaining if d.code == "TLL001"], result.text
    assert fix_text(result.text, "gen.py", config, unsafe=True).text == result.text
    newline = "\r\n" if "\r\n" in source else "\n"
    assert result.text.count(newline) == source.count(newline)  # nothing added or removed


FILES = fixture_files() + sorted(p for p in (FIXTURES / "fix_cases").glob("*.py"))
# Codemods that fix every finding they are given (the others may refuse irregular shapes).
ALWAYS = {"append_method", "delete_statement", "add_no_grad_decorator"}


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(FIXTURES)) for p in FILES])
def test_fixing_every_fixture_is_stable(path):
    config = Settings()
    source = path.read_text(encoding="utf-8")
    first = fix_text(source, str(path), config, unsafe=True)
    ast.parse(first.text)
    again = fix_text(first.text, str(path), config, unsafe=True)
    assert again.text == first.text, "a second --fix must change nothing"
    left = [d for d in _fixable(lint_source(first.text, str(path), config)) if d.fix.codemod in ALWAYS]
    assert not left, f"fixed codes still reported: {[(d.line, d.code) for d in left]}"
