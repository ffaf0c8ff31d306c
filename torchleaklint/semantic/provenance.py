"""Graph provenance: where a graph-carrying value got its graph, and whether a backward of the
same step consumes it. The last layer before the queries rules ask: it reads the data flow
(values), the reaching definitions and the step model, and adds nothing they must know.

Two facts decide what a kept graph costs, and every message says which one holds:

- a backward of the same iteration ran on it: its saved activations were freed; keeping the
  tensor keeps the graph's nodes (host memory, kilobytes per step) -> severity warning;
- nothing back-propagates it: every saved activation stays (device memory, megabytes per
  step) -> severity error.
"""

from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from torchleaklint.semantic.syntax import short_source

MAX_ORIGIN_HOPS = 6


def graph_origin(model, expr: ast.AST) -> Optional[Tuple[ast.AST, str]]:
    """(node, what happens there) for the computation that gave `expr` its graph: the
    binding a name's graph-carrying value comes from, followed through plain copies
    (`out = y`), or the expression itself when it computes the graph."""
    node = expr
    for _ in range(MAX_ORIGIN_HOPS):
        if not isinstance(node, ast.Name) or not isinstance(node.ctx, ast.Load):
            break
        definition = _graph_definition(model, node)
        if definition is None:
            return None
        stmt = model.statement_of(definition)
        value = getattr(stmt, "value", None)
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            return stmt, f"`{definition.id}` is taken from `{short_source(stmt.iter)}`, whose items carry a graph"
        if value is None:
            return stmt, f"`{definition.id}` is bound here to a value that carries an autograd graph"
        if isinstance(value, ast.Name):
            node = value
            continue
        return stmt, f"`{definition.id}` gets its autograd graph here: `{short_source(value, 60)}`"
    if isinstance(node, ast.Name):
        return None
    return node, f"`{short_source(node, 60)}` computes a tensor with an autograd graph"


def _graph_definition(model, read: ast.Name) -> Optional[ast.AST]:
    """The latest (in source order) reaching definition of `read` whose value carries a graph."""
    reaching = model.reaching(model.unit_of(read))
    flow = model.flow(model.unit_of(read))
    if flow is None:
        return None
    candidates = [d for d in reaching.definitions(read) if isinstance(d, ast.Name)
                  and flow.values.get(d) is not None and flow.values[d].carries_graph]
    if not candidates:
        return None
    return max(candidates, key=lambda d: (d.lineno, d.col_offset))


def iteration_backwards(model, loop: ast.AST) -> List[ast.Call]:
    """Training backwards that run in one iteration of `loop` (in its body, nested loops
    included, not in nested functions)."""
    from torchleaklint.semantic.model import nodes_within

    return [node for node in nodes_within(loop) if isinstance(node, ast.Call) and model.is_training_backward(node)]


def consumed_by_backward(model, expr: ast.AST, loop: Optional[ast.AST]) -> Optional[ast.Call]:
    """The backward of the same iteration that differentiates the value `expr` holds (the
    definition it reads reaches that backward's operand), or None when none is proven."""
    if loop is None or not isinstance(expr, ast.Name):
        return None
    reaching = model.reaching(model.unit_of(expr))
    mine = set(reaching.definitions(expr))
    if not mine:
        return None
    for call in iteration_backwards(model, loop):
        target = model.backward_target(call)
        if target is None:
            continue
        for read in ast.walk(target):
            if isinstance(read, ast.Name) and mine & set(_definitions_through_copies(model, reaching, read)):
                return call
    return None


def _definitions_through_copies(model, reaching, read: ast.Name) -> List[ast.AST]:
    """Definitions a read depends on, through bindings computed from other names
    (`loss = ce + 0.1 * reg` makes `loss.backward()` consume `ce` too)."""
    out: List[ast.AST] = []
    stack = [read]
    seen = set()
    while stack and len(out) < 64:
        node = stack.pop()
        for definition in reaching.definitions(node):
            if definition in seen:
                continue
            seen.add(definition)
            out.append(definition)
            stmt = model.statement_of(definition)
            value = getattr(stmt, "value", None)
            if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and value is not None:
                stack.extend(n for n in ast.walk(value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    return out
