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


_LOSSES_KEPT_AS_A_DICT = b"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 4)

    def forward(self, x, y=None):
        o = self.net(x)
        if y is not None:
            self.losses = %s
        return o


def train(model, loader, opt):
    for x, y in loader:
        out = model(x, y)
        out.mean().backward()
        opt.step()
"""


def test_a_dict_of_losses_on_self_gets_no_detach_of_the_dict():
    # `dict(l1=loss).detach()` would raise AttributeError on the first training step
    for stored in (b"dict(l1=F.l1_loss(o, y))", b"{'l1': F.l1_loss(o, y)}"):
        [d] = lint_source(_LOSSES_KEPT_AS_A_DICT % stored, "denoiser.py", Settings(select=["TLL002"]))
        assert d.fix is None
        assert "`.detach()` copies of the tensors" in d.message


def test_a_list_of_tensors_on_self_keeps_its_element_wise_fix():
    [d] = lint_source(_LOSSES_KEPT_AS_A_DICT % b"[o, F.l1_loss(o, y)]", "denoiser.py", Settings(select=["TLL002"]))
    assert d.fix is not None


_OUTPUTS_KEPT = b"""
import torch


def train(model: torch.nn.Module, loader, opt):
    kept = []
    for x, y in loader:
        out = model(x)
        loss = %s
        opt.zero_grad()
        loss.backward()
        opt.step()
        kept.append(out)
    return kept
"""


def test_a_model_output_used_as_a_container_gets_no_detach_fix():
    # `out.detach()` raises on a tuple (`out[0]`) or a Hugging Face ModelOutput (`out.loss`)
    for loss in (b"(out[0] - y).pow(2).mean()", b"out.loss", b"out['loss']"):
        [d] = lint_source(_OUTPUTS_KEPT % loss, "train.py", Settings(select=["TLL003"]))
        assert d.fix is None, loss


def test_a_model_output_used_as_a_tensor_keeps_its_fix():
    [d] = lint_source(_OUTPUTS_KEPT % b"(out - y).pow(2).mean()", "train.py", Settings(select=["TLL003"]))
    assert d.fix is not None
