"""TLL006's severity says what the wasted graph costs: `error` when the forward's result
(and with it the graph and its activations) is kept, `warning` when the result is cut at
once (`.detach().cpu().numpy()`, a comparison's mask): a higher peak and slower forwards, no
growth. (`.cpu().numpy()` without the detach would raise on a graph: code written so proves there
is none, and is not reported: fixture tll006/result_made_numpy.py.)"""

from __future__ import annotations

import pytest

from torchleaklint.config import Settings
from torchleaklint.engine import lint_source

HEAD = """\
import torch

model = torch.nn.Linear(4, 2)
loader = [torch.randn(3, 4) for _ in range(2)]
model.eval()
kept = []
for x in loader:
"""


@pytest.mark.parametrize("line, severity", [
    ("    kept.append(model(x))", "error"),
    ("    kept.append(model(x).detach().cpu().numpy())", "warning"),
    ("    kept.append(model(x) > 0)", "warning"),
    ("    kept.append(model(x).argmax(-1) == 1)", "warning"),
    ("    model(x)", "warning"),  # a statement of its own (hooks fire): freed when it ends
])
def test_severity_follows_what_the_result_keeps(line, severity):
    found = [d for d in lint_source((HEAD + line + "\n").encode(), "eval.py", Settings(select=["TLL006"]))]
    assert [(d.code, d.severity) for d in found] == [("TLL006", severity)], found


def test_a_volatile_variable_is_named_for_what_it_no_longer_does():
    source = b"""
import torch
from torch.autograd import Variable

model = torch.nn.Linear(4, 2)
loader = [torch.randn(3, 4) for _ in range(2)]
model.eval()
for data in loader:
    data = Variable(data, volatile=True)
    print(model(data).argmax(1))
"""
    [d] = lint_source(source, "old_eval.py", Settings(select=["TLL006"]))
    assert "`Variable(..., volatile=True)` has had no effect since PyTorch 0.4" in d.message


def test_a_discarded_result_is_described_as_a_peak_not_as_kept():
    [d] = lint_source((HEAD + "    model(x)\n").encode(), "profile.py", Settings(select=["TLL006"]))
    assert "the result is discarded, so they are freed when the statement ends" in d.message
    assert "alive while its outputs are referenced" not in d.message


def test_a_method_that_stores_on_its_object_keeps_the_graph_after_the_call():
    """`memory.update_state(...)` as a statement of its own still keeps the graph when the
    method writes what it computes into its object (a TGN memory updated in place): the
    message must not say it is freed when the statement ends (relbench, blind set59)."""
    source = b"""
import torch
import torch.nn as nn


class Memory(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.updater = nn.GRUCell(d, d)
        self.register_buffer("memory", torch.zeros(n, d))
        self.register_buffer("last_update", torch.zeros(n))

    def update_state(self, src, msg, t):
        self.memory[src] = self.updater(msg, self.memory[src])
        self.last_update[src] = t


def replay(memory, events):
    memory.eval()
    for src, msg, t in events:
        memory.update_state(src, msg, t)
"""
    [d] = lint_source(source, "replay.py", Settings(select=["TLL006"]))
    assert "stores what it computes on its object (`self.memory`)" in d.message, d.message
    assert "freed when the statement ends" not in d.message
    assert d.severity == "error"


def test_a_method_returning_a_numpy_array_keeps_no_graph_after_the_call():
    """`predict_proba` returning `softmax(self(x)).detach().numpy()`: the graph dies inside the
    method, so the message speaks of a peak, not of activations kept while the outputs are
    referenced, and the severity is a warning (thomas097 x2, blind set69)."""
    source = b"""
import torch


class Policy(torch.nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.linear = torch.nn.Linear(d, k)

    def forward(self, x):
        return self.linear(x)

    def predict_proba(self, x):
        return torch.softmax(self(torch.tensor(x).float()), dim=1).detach().numpy()


def evaluate_policy(policy, states, batch_size=128):
    probs = []
    for i in range(0, len(states), batch_size):
        probs.append(policy.predict_proba(states[i:i + batch_size]))
    return probs


def main(states):
    policy = Policy(8, 4)
    policy.eval()
    return evaluate_policy(policy, states)
"""
    [d] = [d for d in lint_source(source, "policy.py", Settings(select=["TLL006"])) if d.line == 20]
    assert "what it returns carries no graph" in d.message, d.message
    assert "alive while its outputs are referenced" not in d.message
    assert d.severity == "warning"


def test_constants_a_no_grad_helper_stores_on_the_object_keep_no_graph():
    """`sample()` fills `self.batch_constants` through a `@torch.no_grad()` helper (index
    tensors) and empties it (`= {}`) before it returns: the message must not say the method
    keeps the graph on its object (dyMEAN x4, blind set70)."""
    source = b"""
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.net = nn.Linear(d, d)
        self.batch_constants = {}

    @torch.no_grad()
    def _prepare(self, lengths):
        self.batch_constants["batch_id"] = torch.repeat_interleave(torch.arange(len(lengths)), lengths)

    def _clean(self):
        self.batch_constants = {}

    def sample(self, x, lengths):
        self._prepare(lengths)
        out = self.net(x)
        self._clean()
        return out


def check(model, x, lengths):
    model.eval()
    gen = model.sample(x, lengths)
    return gen
"""
    [d] = lint_source(source, "gen.py", Settings(select=["TLL006"]))
    assert "stores what it computes on its object" not in d.message, d.message
    assert "activations alive as long as its result is referenced" in d.message, d.message



def test_a_method_detaching_every_entry_of_its_output_dict_returns_no_graph():
    """`predict` runs the forward, then `for t in out.keys(): out[t] = out[t].detach()`: no
    tensor has `.keys()`, so the output is a mapping and what `predict` hands back carries no
    graph. The validation loop's call of it is then a peak, not activations kept while the
    outputs are referenced (GenBill's CLB_pack, blind set70, where that call is reported)."""
    import ast

    from torchleaklint.config import EVERY_RULE
    from torchleaklint.rules.tll006_eval_without_no_grad import _graph_free_result
    from torchleaklint.semantic.model import SemanticModel

    source = """
import torch.nn as nn


class MultiTask(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model.forward(x)

    def predict(self, inputs):
        self.model.eval()
        out = self.forward(inputs)
        for t in out.keys():
            out[t] = out[t].detach()
        return out

    def validation(self, x):
        self.eval()
        output = self.predict(x)
        return output
"""
    model = SemanticModel(ast.parse(source), source, "multitask.py", Settings(select=EVERY_RULE))
    [call] = [c for c in model.calls if ast.unparse(c) == "self.predict(x)"]
    assert _graph_free_result(model.value(call)), model.value(call)


FLAGGED_TABLE = b"""
import torch
import torch.nn as nn


class CodebookAttention(nn.Module):
    def __init__(self, d=8, words=4):
        super().__init__()
        self.codebooks = nn.Parameter(torch.randn(words, d))
        self.table = None

    def refresh_table(self):
        self.table = self.codebooks @ self.codebooks.t()

    def forward(self, x, refresh=False):
        if refresh:
            self.refresh_table()
        return x @ self.codebooks.t() @ self.table


"""


def test_a_store_behind_a_flag_left_off_in_another_module(tmp_path):
    """`model(x)` of another module's forward that stores on its object only `if refresh:`
    (off by default): its summary records no store for a call that leaves the flag at its
    default, so the message speaks of a peak, not of a graph kept on the object (LISA's
    warm-up forwards, blind set71)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    model = FLAGGED_TABLE.decode().partition("\n\ndef profile")[0]
    (package / "attention.py").write_text(model + "\n")
    (package / "profile.py").write_text(
        "from pkg.attention import CodebookAttention\n\n\ndef profile(x):\n    model = CodebookAttention()\n"
        "    model.eval()\n    model(x)\n")
    import torchleaklint

    env = dict(os.environ, PYTHONPATH=str(Path(torchleaklint.__file__).resolve().parent.parent))
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "check", "--no-cache", "--select", "TLL006",
                           "--output-format", "json", "."], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    [d] = json.loads(proc.stdout)
    assert d["path"].endswith("profile.py") and "freed when the statement ends" in d["message"], d
    assert "`self.table`" not in d["message"]
