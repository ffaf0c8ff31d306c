"""Whether a call runs a callee's forwards with autograd on, from the flags that choose it
(`semantic.model.flags_decide_forward`): a flag that turns the forwards on when true
(`if train: out = self.forward(x)`), one that turns them off when true (`if eval: with
torch.no_grad(): ...` / `else: ...`), and a value the call passes that is not known there."""

from __future__ import annotations

import ast

from torchleaklint.config import EVERY_RULE, Settings
from torchleaklint.semantic.model import SemanticModel, flags_decide_forward

SOURCE = '''
import torch
from torch import nn


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(4, 4)
        self.dec = nn.Linear(4, 4)

    def nll(self, x, eval=False):
        if eval:
            with torch.no_grad():
                return self.dec(self.enc(x))
        return self.dec(self.enc(x))

    def score(self, x, train=False):
        if train:
            return self.dec(self.enc(x))
        with torch.no_grad():
            return self.dec(self.enc(x))
'''


def _flags(name):
    tree = ast.parse(SOURCE)
    model = SemanticModel(tree, SOURCE, "vae.py", Settings(select=EVERY_RULE))
    method = model.method("VAE", name)
    return model.forwards_with_grad_only_if(method)


def _decide(call_source, flags):
    return flags_decide_forward(ast.parse(call_source).body[0].value, flags)


def test_a_flag_that_turns_the_forward_off_when_true():
    flags = _flags("nll")
    assert flags == [("eval", 1, False, False)]
    assert _decide("m.nll(x, eval=True)", flags) is False
    assert _decide("m.nll(x, True)", flags) is False
    assert _decide("m.nll(x)", flags) is True  # the default runs the forward with autograd on
    assert _decide("m.nll(x, eval=False)", flags) is True


def test_a_flag_that_turns_the_forward_on_when_true():
    flags = _flags("score")
    assert flags == [("train", 1, True, False)]
    assert _decide("m.score(x)", flags) is False
    assert _decide("m.score(x, train=True)", flags) is True


def test_a_value_not_known_at_the_call_decides_nothing():
    flags = _flags("nll")
    assert _decide("m.nll(x, eval=args.eval)", flags) is None
    assert _decide("m.nll(*batch)", flags) is None
