"""`wrap_in_no_grad` (TLL006): run the evaluation part of a function (or script) under
`with torch.no_grad():`.

target: the `model.eval()` statement; params: `first` and `last`, the spans of the first
and last statement to wrap (ast statements of the same block as the target, the target's
next sibling first), `torch_alias` (how the module spells torch, None to add
`import torch`).

The wrapped statements move into the `with` block unchanged (comments, blank lines and
continuation lines keep their place relative to the new indentation); blank lines above the
first one stay above the `with`. Nothing is done unless the statements are whole lines of
one indented block (or the module body): the `.eval()` call ends its line and the last
statement ends its line (`x = model(y); model.train()` is left alone). Safe when the
wrapped code computes no gradients and no value it computes flows into gradient code,
which the rule checks before offering the fix.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from torchleaklint.diagnostics import FixSpec
from torchleaklint.fixes.codemods.add_no_grad_decorator import _leading_blanks, add_import_torch
from torchleaklint.fixes.locate import Locator

Block = cst.CSTNode  # an IndentedBlock or the Module


def apply(module: cst.Module, specs: Sequence[FixSpec]) -> cst.Module:
    locator = Locator(module)
    plan: Dict[Block, List[Tuple[int, int, str]]] = {}
    needs_import = False
    for spec in specs:
        found = _range(locator, spec)
        if found is None:
            continue
        block, start, stop = found
        ranges = plan.setdefault(block, [])
        if any(start <= b and a <= stop for a, b, _ in ranges):
            continue  # the same region again (one spec per flagged call), or an overlap
        alias = spec.param("torch_alias")
        alias = alias if isinstance(alias, str) and alias.isidentifier() else None
        needs_import = needs_import or alias is None
        ranges.append((start, stop, alias or "torch"))
    if not plan:
        return module
    module = module.visit(_Wrap(plan))
    return add_import_torch(module) if needs_import else module


def _range(locator: Locator, spec: FixSpec) -> Optional[Tuple[Block, int, int]]:
    """(block, index of the first line to wrap, index of the last), or None."""
    if not spec.param("first") or not spec.param("last"):
        return None
    anchor = _line_of(locator, spec.target, last=True)
    first = _line_of(locator, spec.param("first"), first=True)
    last = _line_of(locator, spec.param("last"), last=True)
    if anchor is None or first is None or last is None:
        return None
    block = locator.parent(anchor)
    if not isinstance(block, (cst.IndentedBlock, cst.Module)) or locator.parent(last) is not block \
            or locator.parent(first) is not block:
        return None
    body = list(block.body)
    index = _index(body, anchor)
    start, stop = _index(body, first), _index(body, last)
    if index is None or start != index + 1 or stop is None or stop < start:
        return None
    return block, start, stop


def _index(body, node) -> Optional[int]:
    return next((i for i, stmt in enumerate(body) if stmt is node), None)


def _line_of(locator: Locator, span, first: bool = False, last: bool = False) -> Optional[cst.BaseStatement]:
    """The line-level statement (a compound statement, or the line of a small one) at
    `span`; with `first`/`last` the small statement must begin/end its line."""
    node = locator.find(span, (cst.BaseCompoundStatement, cst.BaseSmallStatement))
    if node is None:
        return None
    if isinstance(node, cst.BaseCompoundStatement):
        return node
    line = locator.parent(node)
    if not isinstance(line, cst.SimpleStatementLine):
        return None  # `if x: a; b` suites stay as they are
    if (first and line.body[0] is not node) or (last and line.body[-1] is not node):
        return None
    return line


class _Wrap(cst.CSTTransformer):
    def __init__(self, plan):
        super().__init__()
        self.plan = plan

    def leave_IndentedBlock(self, original, updated):
        return self._wrap(original, updated)

    def leave_Module(self, original, updated):
        return self._wrap(original, updated)

    def _wrap(self, original, updated):
        ranges = self.plan.get(original)
        if not ranges:
            return updated
        body = list(updated.body)
        for start, stop, alias in sorted(ranges, reverse=True):  # later ranges first: indices stay valid
            body[start:stop + 1] = [_with_block(body[start:stop + 1], alias)]
        return updated.with_changes(body=body)


def _with_block(statements: List[cst.BaseStatement], alias: str) -> cst.With:
    statements = [s.visit(_BlankLinesUnindented()) for s in statements]
    head = statements[0]
    blanks = _leading_blanks(head.leading_lines)
    inner = [head.with_changes(leading_lines=head.leading_lines[blanks:]), *statements[1:]]
    return cst.With(items=[cst.WithItem(item=cst.parse_expression(f"{alias}.no_grad()"))],
                    body=cst.IndentedBlock(body=inner), leading_lines=head.leading_lines[:blanks])


class _BlankLinesUnindented(cst.CSTTransformer):
    """A blank line at module level "has" the (empty) indentation; moved into the `with`
    block it would print as trailing whitespace."""

    def leave_EmptyLine(self, original, updated):
        if updated.indent and updated.comment is None and not updated.whitespace.value:
            return updated.with_changes(indent=False)
        return updated
