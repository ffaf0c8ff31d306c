"""`delete_statement` (TLL004): remove the expression statement at the target
(`torch.cuda.empty_cache()`).

A block left empty gets `pass`; comments above the statement stay where they were, a
comment on the same line goes with it. Safe: `empty_cache()` computes nothing; only the
allocator's reserved memory changes. An import that becomes unused is left for the user's
import linter.
"""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from torchleaklint.diagnostics import FixSpec
from torchleaklint.fixes.edit import StatementRemover
from torchleaklint.fixes.locate import Locator


def apply(module: cst.Module, specs: Sequence[FixSpec]) -> cst.Module:
    locator = Locator(module)
    targets = set()
    for spec in specs:
        node = locator.find(spec.target, cst.Expr)
        if node is not None and isinstance(node.value, cst.Call):
            targets.add(node)
    if not targets:
        return module
    return module.visit(StatementRemover(targets))
