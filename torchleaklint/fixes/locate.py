"""Find the libcst node a `Span` (ast coordinates) points at.

ast columns are UTF-8 byte offsets; libcst's PositionProvider counts characters, so a
span on a line with non-ASCII text is converted before comparing. PositionProvider ranges
exclude an expression's own parentheses and a `def`'s decorators, exactly like ast, so an
exact match is the normal case; the smallest enclosing node of the wanted type is the
fallback (e.g. a statement followed by `;`), accepted only when its text starts where the
span starts.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple, Type, Union

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

from torchleaklint.diagnostics import Span
from torchleaklint.source import char_column, split_lines

CharSpan = Tuple[int, int, int, int]


class Locator:
    """Positions and parents of one module's nodes (the module object itself is kept, so
    nodes found here are the nodes a transformer visits)."""

    def __init__(self, module: cst.Module):
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self.module = module
        self.positions: Dict[cst.CSTNode, CodeRange] = dict(wrapper.resolve(PositionProvider))
        self.parents: Dict[cst.CSTNode, cst.CSTNode] = dict(wrapper.resolve(ParentNodeProvider))
        self.lines = split_lines(module.code)

    def char_span(self, span: Union[Span, Tuple[int, int, int, int]]) -> CharSpan:
        line, col, end_line, end_col = (span.line, span.col, span.end_line, span.end_col) \
            if isinstance(span, Span) else span
        return (line, self._chars(line, col), end_line, self._chars(end_line, end_col))

    def _chars(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return char_column(text, byte_col)

    def find(self, span, types: Union[Type, Tuple[Type, ...]], exact: bool = False) -> Optional[cst.CSTNode]:
        """The node of one of `types` at `span`, or None when nothing fits. Without
        `exact`, a node starting there and ending later is accepted (`stmt;`)."""
        want = self.char_span(span)
        best, best_size = None, None
        for node, where in self.positions.items():
            if not isinstance(node, types):
                continue
            have = (where.start.line, where.start.column, where.end.line, where.end.column)
            if have == want:
                return node
            if not exact and have[:2] == want[:2] and have[2:] >= want[2:]:
                size = have[2:]
                if best_size is None or size < best_size:
                    best, best_size = node, size
        return best

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(node)

    def ancestors(self, node: cst.CSTNode):
        node = self.parents.get(node)
        while node is not None:
            yield node
            node = self.parents.get(node)

    def enclosing(self, node: cst.CSTNode, types) -> Optional[cst.CSTNode]:
        return next((a for a in self.ancestors(node) if isinstance(a, types)), None)
