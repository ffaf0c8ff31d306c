"""What a kept graph costs, in the words of TLL001/TLL003's messages: a loop that trains
(a backward each iteration) keeps every step's graph nodes after the backward freed the
activations; a loop with no backward (an inference loop collecting predictions) keeps every
iteration's graph and its activations, and is not called "training steps"."""

from __future__ import annotations

import textwrap

from torchleaklint.config import Settings
from torchleaklint.engine import lint_source

MODEL = """\
import torch
import torch.nn.functional as F

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(3, 4), torch.tensor([0, 1, 0])) for _ in range(2)]
"""


def _messages(body: str):
    source = MODEL + textwrap.dedent(body)
    return [d.message for d in lint_source(source.encode(), "loop.py", Settings(select=["TLL003"]))]


def test_a_training_loop_keeps_freed_graphs_nodes_across_training_steps():
    [message] = _messages("""\
        losses = []
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss)
        """)
    assert "across training steps" in message and "frees its activations" in message


def test_an_inference_loop_keeps_every_iterations_activations():
    [message] = _messages("""\
        predictions = []
        for x, _ in loader:
            predictions.append(model(x))
        """)
    assert "across the loop's iterations" in message and "training steps" not in message
    assert "every iteration's graph and saved activations stay alive" in message


def test_a_backward_that_retains_the_graph_frees_no_activations():
    # `backward(retain_graph=True)` keeps the graph's buffers: the list keeps every step's
    # activations on the device, not only their nodes (set48: a spiking-net total)
    [message] = _messages("""\
        losses = []
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward(retain_graph=True)
            optimizer.step()
            losses.append(loss)
        """)
    assert "keeps its activations" in message and "device memory grows" in message
    assert "frees its activations" not in message


def test_ops_computed_after_the_backward_keep_what_they_saved():
    # `mse += mean_squared_error(obs, pred)` beside the loss that is back-propagated: the
    # backward frees the forward's activations, not the tensors the MSE ops saved (set52, a
    # reader's remark on a message that said "host memory" only)
    source = MODEL + textwrap.dedent("""\
        def mean_squared_error(target, prediction):
            return ((target - prediction) ** 2).mean()

        mse = 0.0
        for x, y in loader:
            out = model(x)
            loss = F.cross_entropy(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            mse += mean_squared_error(torch.ones_like(out), out)
        """)
    [finding] = [d for d in lint_source(source.encode(), "loop.py", Settings(select=["TLL001"]))]
    assert "frees the forward's activations" in finding.message and "(on the device)" in finding.message
    assert finding.severity == "error"
    plain = MODEL + textwrap.dedent("""\
        total = 0.0
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss
        """)
    [finding] = [d for d in lint_source(plain.encode(), "loop.py", Settings(select=["TLL001"]))]
    assert "host memory grows" in finding.message and finding.severity == "warning"


def test_a_per_step_method_keeping_the_loss_it_returns_keeps_only_graph_nodes():
    """`self.history.append(loss.cpu())` in a `compute_loss` whose returned `loss` the training
    loop back-propagates: that backward frees the activations; what stays is the graph's nodes
    on the host, and the message says so."""
    source = MODEL + textwrap.dedent("""\


        class Trainer:
            def __init__(self):
                self.history = []

            def compute_loss(self, x, y):
                loss = F.cross_entropy(model(x), y)
                self.history.append(loss.cpu())
                return loss

            def fit(self):
                for x, y in loader:
                    loss = self.compute_loss(x, y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
        """)
    [d] = lint_source(source.encode(), "trainer.py", Settings(select=["TLL003"]))
    assert "the caller's `backward()` frees its activations" in d.message, d.message
    assert "host memory grows each step" in d.message
