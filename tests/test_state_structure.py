"""The TLL008 fix detaches the carried state in the form its structure needs: `.detach()`
for a proven tensor, element by element for a proven tuple (an LSTM's `(h, c)`), and a form
that handles both when the code does not show which (the output of the project's model)."""

from __future__ import annotations

from torchleaklint.config import Settings
from torchleaklint.engine import lint_source

_LOOP = """
import torch
import torch.nn as nn

%s

def train(loader, opt):
    %s
    for x, y in loader:
        %s
        loss = (out - y).pow(2).mean()
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()
"""


def _size(setup, before, step):
    source = (_LOOP % (setup, before, step)).encode()
    [d] = lint_source(source, "train.py", Settings(select=["TLL008"]))
    return dict(d.fix.params)["tuple_size"]


def test_the_hidden_state_of_a_torch_recurrent_layer():
    assert _size("", "rnn = nn.GRU(4, 8); h = torch.zeros(1, 2, 8)", "out, h = rnn(x, h)") == 0
    assert _size("", "rnn = nn.LSTM(4, 8); h = None", "out, h = rnn(x, h)") == 2
    assert _size("", "cell = nn.LSTMCell(4, 8); h = None", "h = cell(x, h); out = h[0]") == 2
    assert _size("", "cell = nn.GRUCell(4, 8); h = torch.zeros(2, 8)", "h = cell(x, h); out = h") == 0


def test_a_state_computed_by_torch_ops_is_a_tensor():
    assert _size("", "lin = nn.Linear(8, 8); h = torch.zeros(2, 8)",
                 "h = torch.tanh(lin(x) + 0.5 * h); out = h") == 0


def test_the_state_a_project_model_returns_is_not_known():
    model = """
class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 8)

    def forward(self, x, state=None):
        y, state = self.rnn(x, state)
        return y, state

model = LM()
"""
    assert _size(model, "state = None", "out, state = model(x, state)") == -1
