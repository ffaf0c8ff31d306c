"""One leak, one finding: state a per-step method keeps on `self` is reported by TLL002 when
that rule is selected, and by TLL001 (its running-total reading) when it is not."""

from __future__ import annotations

import textwrap

from torchleaklint.config import Settings
from torchleaklint.engine import lint_source

RUNNING_MEAN = textwrap.dedent("""\
    import torch
    import torch.nn as nn


    class RunningNorm(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(width))
            self.running_mean = torch.zeros(width)

        def forward(self, x):
            mean = (x * self.scale).mean(0)
            self.running_mean = 0.9 * self.running_mean + 0.1 * mean
            return x * self.scale - self.running_mean


    model = RunningNorm(4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        loss = model(torch.randn(2, 4)).pow(2).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    """)
LINE = next(number for number, text in enumerate(RUNNING_MEAN.splitlines(), 1)
            if "self.running_mean = 0.9" in text)


def _codes_at_line(select, source=RUNNING_MEAN):
    found = lint_source(source.encode(), "norm.py", Settings(select=select))
    return sorted(d.code for d in found if d.line == LINE)


def test_both_selected_reports_the_state_once_as_tll002():
    assert _codes_at_line(["TLL001", "TLL002"]) == ["TLL002"]


def test_tll001_alone_still_reports_it():
    assert _codes_at_line(["TLL001"]) == ["TLL001"]


def test_a_noqa_for_tll002_does_not_bring_tll001_back():
    lines = RUNNING_MEAN.splitlines()
    lines[LINE - 1] += "  # noqa: TLL002"
    assert _codes_at_line(["TLL001", "TLL002"], "\n".join(lines) + "\n") == []
