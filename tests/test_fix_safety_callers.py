"""A meter's `add(x)` that one loop calls with the loss and another with a float: the leak is
reported, but no fix puts `.detach()` inside the helper (it would fail for the float callers);
the message sends the user to the call that hands the tensor in."""

from __future__ import annotations

import textwrap

from torchleaklint.config import Settings
from torchleaklint.engine import lint_source

SOURCE = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F


    class Averager:
        def __init__(self):
            self.n = 0
            self.v = 0

        def add(self, x):
            self.v = (self.v * self.n + x) / (self.n + 1)
            self.n += 1


    def train(model, loader, optimizer, epochs=2):
        for epoch in range(epochs):
            ave_loss, ave_acc = Averager(), Averager()
            for x, y in loader:
                logits = model(x)
                loss = F.cross_entropy(logits, y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                ave_acc.add((logits.argmax(1) == y).float().mean().item())
                ave_loss.add(loss)
            print(epoch, ave_loss.v, ave_acc.v)
    """)
STORE_LINE = SOURCE.splitlines().index("        self.v = (self.v * self.n + x) / (self.n + 1)") + 1
LOSS_CALL = SOURCE.splitlines().index("            ave_loss.add(loss)") + 1


def _found(code):
    return [d for d in lint_source(SOURCE.encode(), "meters.py", Settings(select=[code])) if d.line == STORE_LINE]


def test_the_accumulation_is_reported_without_a_fix_inside_the_helper():
    [finding] = _found("TLL001")
    assert finding.fix is None
    assert "Other callers pass a number for `x`" in finding.message
    assert f"the call at line {LOSS_CALL}" in finding.message


def test_the_stored_state_is_reported_without_a_fix_either():
    [finding] = _found("TLL002")
    assert finding.fix is None
    assert f"called in the training loop at line {LOSS_CALL}" in finding.message


def test_a_helper_every_caller_hands_a_tensor_keeps_its_fix():
    acc_call = "            ave_acc.add((logits.argmax(1) == y).float().mean().item())\n"
    assert acc_call in SOURCE
    only_loss = SOURCE.replace(acc_call, "")
    found = [d for d in lint_source(only_loss.encode(), "meters.py", Settings(select=["TLL001"]))]
    assert found and found[0].fix is not None
