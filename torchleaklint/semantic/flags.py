"""Flags and modes that decide whether a function's forwards run with autograd on: what a
function's forwards with grad need of its parameters (`if train: ...`, `if mode ==
"inference": with torch.no_grad(): ...`), and whether a call's arguments meet that. Read by the
model (`forwards_with_grad_only_if`), by the data flow (what calling another module's
module gives) and stored in summaries (`fwd_if`)."""

from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from torchleaklint.semantic.syntax import default_of


# a parameter with no literal default (a mode the caller must pass): a list, which no literal
# default is, so that it survives a summary's JSON
NO_DEFAULT = ["required"]


def literal_default(func: ast.AST, param: ast.arg) -> object:
    default = default_of(func, param)
    return default.value if isinstance(default, ast.Constant) else list(NO_DEFAULT)


def flag_test(test: ast.AST, flags, modes) -> Optional[Tuple[str, object, object]]:
    """(parameter, what the body runs on, what the else branch runs on) for a test `flag` or
    `not flag` on one of `flags` (True / False), or a comparison of one of `modes` with
    literals (`mode == "train"`: ("==", "train") / ("!=", "train"); `mode in ("a", "b")`;
    `metrics is not None` as `metrics != None`)."""
    negated = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if isinstance(test, ast.Name) and test.id in flags:
        return test.id, not negated, negated
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
            and test.left.id in modes):
        return None
    op, right = test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
        op = ast.Eq() if isinstance(op, ast.Is) else ast.NotEq()  # `flag is not None`
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
        literals = (right.value,)
    elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) \
            and all(isinstance(e, ast.Constant) for e in right.elts):
        literals = tuple(e.value for e in right.elts)
    else:
        return None
    among, outside = ("in", literals), ("not in", literals)
    if isinstance(op, (ast.NotEq, ast.NotIn)) != negated:
        among, outside = outside, among
    return test.left.id, among, outside


def _runs_on(value: object, runs_when: object) -> bool:
    """Does a parameter holding `value` let a forward guarded by `runs_when` run?"""
    if isinstance(runs_when, (list, tuple)) and len(runs_when) == 2 and runs_when[0] in ("in", "not in"):
        return (value in runs_when[1]) == (runs_when[0] == "in")
    return bool(value) == runs_when


def flags_decide_forward(call: ast.Call, flags: List[Tuple]) -> Optional[bool]:
    """Does `call` run a forward with autograd on, given the flags (name, argument position,
    the truth value that lets a forward run, the default) every such forward depends on? True
    when no flag guards them or the call sets one to its running value, False when it leaves
    every one off (a literal or the default), None when it passes one a value not known here
    (`use_implicit=args.implicit`) or spreads its arguments (`m(*args, **kw)`): the forward is
    then the caller's setting, not a fact."""
    if not flags:
        return True
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        return None
    undecided = False
    for name, position, runs_when, default in flags:
        given = next((kw.value for kw in call.keywords if kw.arg == name), None)
        if given is None and position is not None and position < len(call.args):
            given = call.args[position]
        if given is None and isinstance(default, list):
            undecided = True  # a mode the call leaves out (it would fail): not known here
            continue
        if given is None:
            value = default
        elif isinstance(given, ast.Constant):
            value = given.value
        else:
            undecided = True
            continue
        if _runs_on(value, runs_when):
            return True
    return None if undecided else False


def decode_flags(encoded) -> List[Tuple]:
    """The flags of a summary's `fwd_if`: (name, position, runs_when, default)."""
    return [tuple(f) for f in encoded if len(f) == 4]
