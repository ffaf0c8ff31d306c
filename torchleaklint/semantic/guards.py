"""Tests that guard a binding and its reads alike: a name bound fresh under `if T:` early in an
iteration and read only under `if T:` (the same test, its names rebound by nothing between) is
bound by each iteration that reads it, so nothing is carried from the previous iteration. Used by
the step model (what a loop carries) and by TLL008's carried state."""

from __future__ import annotations

import ast
from typing import Optional

from torchleaklint.semantic.syntax import SCOPE_TYPES, walk


def bound_first_under_the_same_test(model, loop, stmt, name: str) -> bool:
    """Is `stmt` in a branch of an `if` whose test an earlier `if` of the same iteration
    repeats, in whose same branch `name` is bound fresh (not from its old value), the test's
    names rebound by nothing in between, and every read of `name` in the loop is in one of
    those two branches? `if n_iter < warmup: ... else: segs_aug = res["aug"]`, then later
    `if n_iter < warmup: ... else: segs_aug = interpolate(segs_aug)`: each iteration that
    reads it bound it first, so nothing is carried from the previous one."""
    guard = _enclosing_if_in(model, stmt, loop)
    if guard is None or any(isinstance(n, ast.Call) for n in walk(guard.test)):
        return False
    branch, shape = branch_of(model, guard, stmt), ast.dump(guard.test)
    for earlier in walk(loop):
        if not (isinstance(earlier, ast.If) and earlier is not guard and earlier.lineno < guard.lineno
                and ast.dump(earlier.test) == shape and _runs_before(model, earlier, guard)):
            continue  # (the earlier runs whenever the later does)
        fresh = [node for node in getattr(earlier, branch) for node in walk(node)
                 if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
                 and not _conditional_in_branch(model, node, earlier) and not reads_own_value(model, node, name)]
        if not fresh or _test_rebound_between(earlier, guard, loop):
            continue
        reads = [n for n in walk(loop) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if all(branch_of(model, earlier, r) == branch or branch_of(model, guard, r) == branch for r in reads):
            return True
    return False


def reads_own_value(model, store, name) -> bool:
    """`h = h.detach()`, `h = repackage_hidden(h)`: the state itself is cut, so a guard
    around it (`if h is not None:`) still cuts it every time it matters."""
    stmt = model.statement_of(store)
    value = getattr(stmt, "value", None)
    return value is not None and any(isinstance(n, ast.Name) and n.id == name for n in walk(value))


def _runs_before(model, first, second) -> bool:
    """Does `first` run whenever `second` does: a later statement of first's own block is
    `second` or holds it, through tests, `with` and `try` blocks only (no loop, no function)?"""
    parent = model.parent(first)
    for block in (getattr(parent, field, None) for field in ("body", "orelse", "finalbody")):
        if not isinstance(block, list) or first not in block:
            continue
        for later in block[block.index(first) + 1:]:
            if later is second:
                return True
            if model.is_inside(second, later):
                return not any(isinstance(anc, (ast.For, ast.AsyncFor, ast.While) + SCOPE_TYPES)
                               for anc in [later, *_ancestors_up_to(model, second, later)])
    return False


def _ancestors_up_to(model, node, top):
    for anc in model.ancestors(node):
        if anc is top:
            return
        yield anc


def _enclosing_if_in(model, node, loop) -> Optional[ast.If]:
    """The innermost `if` around `node` inside `loop`, also around a nested loop that holds
    `node` (`if teacher is not None: for i in ...: states[i] = ...`); None if it is not in one."""
    for anc in model.ancestors(node):
        if anc is loop or isinstance(anc, SCOPE_TYPES):
            return None
        if isinstance(anc, ast.If):
            return anc
    return None


def _conditional_in_branch(model, node, node_if) -> bool:
    """Is `node` under a further test or loop inside the branch of `node_if` it is in?"""
    for anc in model.ancestors(node):
        if anc is node_if:
            return False
        if isinstance(anc, (ast.If, ast.IfExp, ast.For, ast.AsyncFor, ast.While, ast.Try)):
            return True
    return False


def _test_rebound_between(first: ast.If, second: ast.If, loop) -> bool:
    """Does a statement of the loop between the two `if`s (by line) rebind a name the test reads?"""
    names = {n.id for n in walk(first.test) if isinstance(n, ast.Name)}
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names
               and first.lineno <= n.lineno < second.lineno for n in walk(loop))


def branch_of(model, node_if, node) -> Optional[str]:
    for name in ("body", "orelse"):
        if any(model.is_inside(node, s) or node is s for s in getattr(node_if, name)):
            return name
    return None
