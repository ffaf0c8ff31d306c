"""`append_method` (TLL001, TLL003): `loss` -> `loss.item()`, `loss * w` -> `(loss * w).item()`,
`model(x)` -> `model(x).detach()`.

params: `method` ("item" or "detach"), `targets` (spans of the expressions to change; the
spec's `target` is used when absent). Safe: neither method changes a computed value, they
only drop the reference to the autograd graph.
"""

from __future__ import annotations

from typing import Dict, Sequence

import libcst as cst

from torchleaklint.diagnostics import FixSpec
from torchleaklint.fixes.edit import is_method_call, method_call
from torchleaklint.fixes.locate import Locator

METHODS = frozenset({"item", "detach"})
_GRAPH_KILLERS = ("item", "detach", "tolist")


def apply(module: cst.Module, specs: Sequence[FixSpec]) -> cst.Module:
    locator = Locator(module)
    wanted: Dict[cst.CSTNode, str] = {}
    for spec in specs:
        method = spec.param("method", "item")
        if method not in METHODS:
            continue
        for span in spec.param("targets") or (spec.target,):
            node = locator.find(span, cst.BaseExpression, exact=True)
            if node is not None and not is_method_call(node, _GRAPH_KILLERS):
                wanted.setdefault(node, method)
    if not wanted:
        return module
    return module.visit(_AppendMethod(wanted))


class _AppendMethod(cst.CSTTransformer):
    def __init__(self, wanted: Dict[cst.CSTNode, str]):
        super().__init__()
        self.wanted = wanted

    def on_leave(self, original, updated):
        method = self.wanted.get(original)
        if method is None:
            return updated
        return method_call(updated, method)
