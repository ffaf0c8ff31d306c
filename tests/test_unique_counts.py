"""`torch.unique(x, return_counts=True)` gives the unique values (with `x`'s graph: autograd
records `Unique2Backward0`) and integer counts, which carry none; `zip(*...)` pairs them
item by item. An IoU computed from those counts and from `==` masks carries no graph
(utae-paps' panoptic meter, blind set72)."""

from __future__ import annotations

import ast

import torch

from torchleaklint.config import Settings
from torchleaklint.semantic.model import SemanticModel

SOURCE = '''
import torch


def match(scores, truth, threshold=0.5):
    ious = []
    for pred_id, pred_area in zip(*torch.unique(scores * 2, return_counts=True)):
        inter = ((truth == 1) * (scores == pred_id)).sum()
        iou = inter.float() / (pred_area + 1 - inter).float()
        ious.append(iou)
    values, inverse, counts = torch.unique(scores, return_inverse=True, return_counts=True)
    return ious, pred_id, values, inverse, counts


def train(x, truth):
    layer = torch.nn.Linear(4, 4)
    return match(layer(x), truth)
'''


def _values():
    model = SemanticModel(ast.parse(SOURCE), SOURCE, "meter.py", Settings())
    unit = model.module_functions["match"]
    model.flow(unit)
    names = {}
    for node in ast.walk(unit):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.setdefault(node.id, model.value(node))
    return names


def test_counts_and_inverse_carry_no_graph_but_the_values_do():
    names = _values()  # `scores` typed by the call in `train`: a layer's output, with a graph
    assert names["scores"].carries_graph
    assert not names["pred_area"].carries_graph and not names["iou"].carries_graph
    assert names["pred_id"].carries_graph
    assert names["values"].carries_graph
    assert not names["inverse"].carries_graph and not names["counts"].carries_graph


def test_what_pytorch_does():
    scores = torch.randn(6, requires_grad=True) * 2
    values, inverse, counts = torch.unique(scores.round(), return_inverse=True, return_counts=True)
    assert values.grad_fn is not None
    assert inverse.grad_fn is None and counts.grad_fn is None
    pred_id, pred_area = next(zip(*torch.unique(scores.round(), return_counts=True)))
    assert pred_id.grad_fn is not None and pred_area.grad_fn is None
