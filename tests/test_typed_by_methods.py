"""A parameter no call in view passes is an object of the one class of the file that defines
what the function asks of it (`dataflow._typed_by_methods`). Names every module has
(`model.train()`) do not have to be defined by a module class for that: round 52's az021,
whose streaming loop calls `model.train()` and `model.stream(chunk, hidden)`."""

from __future__ import annotations

import ast

from torchleaklint.config import Settings
from torchleaklint.semantic.model import SemanticModel

SOURCE = '''
import torch.nn as nn


class Recognizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(40, 64, batch_first=True)
        self.classifier = nn.Linear(64, 29)

    def stream(self, chunk, hidden=None):
        out, hidden = self.gru(chunk, hidden)
        return self.classifier(out), hidden


class Trainer:
    def train(self):
        pass

    def stream(self, data):
        return data


def fit_streaming(model, chunks):
    model.train()
    hidden = None
    for chunk in chunks:
        out = model.stream(chunk, hidden)
    return out


def run_plain(runner, data):
    runner.train()
    return runner.stream(data)
'''


def _model():
    return SemanticModel(ast.parse(SOURCE), SOURCE, "streaming.py", Settings())


def _call(model, function, attr):
    unit = model.module_functions[function]
    return next(n for n in ast.walk(unit) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == attr and isinstance(n.func.value, ast.Name))


def test_two_classes_answering_leave_the_parameter_untyped():
    model = _model()
    found = model.value(_call(model, "fit_streaming", "stream"))
    # two classes answer: the recognizer (a module: its `train()` is nn.Module's) and the
    # Trainer, which defines both names itself; which one is handed in is not known, so
    # the parameter stays untyped
    assert not found.carries_graph, found


def test_a_module_class_need_not_define_what_every_module_has():
    """With the Trainer's `stream` renamed, only the recognizer answers: `model.stream(...)`
    returns its logits and state, with their graph."""
    source = SOURCE.replace("    def stream(self, data):\n        return data\n", "    def step(self, data):\n        return data\n")
    model = SemanticModel(ast.parse(source), source, "streaming.py", Settings())
    found = model.value(_call(model, "fit_streaming", "stream"))
    assert found.carries_graph, found
