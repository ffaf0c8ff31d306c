"""A safe fix never breaks training: TLL001 on an accumulator the step computes with (a
simulator's velocity, a decaying trace that `forward` returns) offers no `.detach()` of what
is added, which would cut the gradient the step needs; a running total keeps its fix."""

from __future__ import annotations

from pathlib import Path

from torchleaklint.config import Settings
from torchleaklint.engine import lint_file, lint_source

ROOT = Path(__file__).resolve().parent.parent


def test_simulator_state_gets_no_fix():
    found = [d for d in lint_file(str(ROOT / "fixtures/tll002/mass_spring_integrator_call.py"),
                                  Settings(select=["TLL001"]))]
    assert found and all(d.fix is None for d in found)
    assert all("recurrent state" in d.message for d in found)


def test_a_running_total_keeps_its_safe_fix():
    source = b"""
import torch

def train(model, loader, opt):
    total = 0
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss
    return total / len(loader)
"""
    [d] = lint_source(source, "train.py", Settings(select=["TLL001"]))
    assert d.fix is not None and d.fix.safety == "safe" and "recurrent" not in d.message
