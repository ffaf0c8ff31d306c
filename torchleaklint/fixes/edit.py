"""Small libcst building blocks shared by the codemods."""

from __future__ import annotations

from typing import Iterable, List, Sequence, Set

import libcst as cst

# Expressions that can take `.attr` without parentheses.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Dict, cst.Set,
          cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.ListComp,
          cst.DictComp, cst.SetComp)


def parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr` wrapped in parentheses unless it already is an atom."""
    if getattr(expr, "lpar", ()) or isinstance(expr, _ATOMS):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def method_call(expr: cst.BaseExpression, method: str) -> cst.Call:
    """`expr.method()`, parenthesizing `expr` when needed (`(a * b).item()`)."""
    return cst.Call(func=cst.Attribute(value=parenthesized(expr), attr=cst.Name(method)))


def is_method_call(expr: cst.BaseExpression, methods: Iterable[str]) -> bool:
    return (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value in set(methods))


def statement(code: str, module: cst.Module) -> cst.BaseStatement:
    """Parse one statement with the module's indentation and newline conventions."""
    return cst.parse_statement(code, config=module.config_for_parsing)


def expression_code(module: cst.Module, node: cst.CSTNode) -> str:
    return module.code_for_node(node)


class StatementRemover(cst.CSTTransformer):
    """Removes the given small statements (`torch.cuda.empty_cache()`, `cfg["k"] = v`).

    A line left without statements goes away, but the comments and blank lines above it
    stay (moved to the next statement, or the block's footer); only a comment on the same
    line leaves with it. A block left empty gets `pass`.
    """

    def __init__(self, targets: Set[cst.CSTNode]):
        super().__init__()
        self.targets = targets
        self.removed = 0
        self.emptied: Set[int] = set()
        self._keep_alive: List[cst.CSTNode] = []

    def leave_SimpleStatementLine(self, original, updated):
        return self._drop_small(original, updated)

    def leave_SimpleStatementSuite(self, original, updated):
        return self._drop_small(original, updated)

    def _drop_small(self, original, updated):
        kept = [new for old, new in zip(original.body, updated.body) if old not in self.targets]
        self.removed += len(original.body) - len(kept)
        if len(kept) == len(original.body):
            return updated
        if kept:
            kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(body=kept)
        # An empty line would be dropped by libcst with its comments; mark it instead and
        # let the enclosing block decide (it owns the neighbours).
        emptied = updated.with_changes(body=[cst.Pass()])
        if isinstance(updated, cst.SimpleStatementLine):
            self.emptied.add(id(emptied))
            self._keep_alive.append(emptied)
        return emptied

    def leave_IndentedBlock(self, original, updated):
        body, footer = _without_emptied(updated.body, updated.footer, self.emptied)
        if body is None:
            return updated
        return updated.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()], leading_lines=footer)],
                                    footer=footer if body else [])

    def leave_Module(self, original, updated):
        body, footer = _without_emptied(updated.body, updated.footer, self.emptied)
        if body is None:
            return updated
        return updated.with_changes(body=body, footer=footer)


def _without_emptied(statements: Sequence[cst.BaseStatement], footer: Sequence[cst.EmptyLine], emptied):
    """Drop statement lines emptied by the remover, moving their leading lines on.
    Returns (None, None) when nothing was emptied."""
    def _emptied(stmt) -> bool:
        return id(stmt) in emptied

    if not any(_emptied(s) for s in statements):
        return None, None
    out: List[cst.BaseStatement] = []
    carried: List[cst.EmptyLine] = []
    for stmt in statements:
        if _emptied(stmt):
            carried.extend(stmt.leading_lines)
            continue
        if carried:
            stmt = stmt.with_changes(leading_lines=[*carried, *stmt.leading_lines])
            carried = []
        out.append(stmt)
    return out, [*carried, *footer]

