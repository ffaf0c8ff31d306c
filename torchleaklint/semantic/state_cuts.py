"""Functions that cut the history of what they are handed: `hidden = tuple(h.detach() for h
in hidden)` as the first thing a `forward(self, input, hidden)` does. State passed to such a
call through a loop is not carried into the next iteration's graph, whatever the caller does
(TLL008). Known for the functions of this module from their data flow, and for those of the
project's other modules from their summaries (`cuts`)."""

from __future__ import annotations

import ast
from typing import List, Optional, Set

from torchleaklint.semantic.values import MODULE, UNKNOWN
from torchleaklint.semantic.syntax import named_parameters, positional_parameters, walk

FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)


def parameters_cut_on_entry(model, func) -> Set[str]:
    """Parameters the function rebinds to a graph-free value computed from themselves before
    it reads them in any other way (`h = h.detach()`, `state = repackage(state)`)."""
    flow = model.flow(func)
    if flow is None:
        return set()
    params = _parameters(func)
    cut: Set[str] = set()
    used: Set[str] = set()
    for stmt in func.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # the docstring
        reads = {n.id for n in walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            value = flow.values.get(stmt.targets[0])
            if name in params and name not in used and name in reads and value is not None \
                    and value.kind != UNKNOWN and not value.carries_graph:
                cut.add(name)
        used |= reads & params
        if isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.Return)):
            break  # only the straight-line start of the body is read
    return cut


def call_cuts_argument(model, call: ast.Call, name: str) -> bool:
    """Does the function `call` runs cut the history of the argument `name` passed directly?"""
    index = next((i for i, a in enumerate(call.args) if _passes_name(a, name)), None)
    keyword = next((k.arg for k in call.keywords if _passes_name(k.value, name)), None)
    if index is None and keyword is None:
        return False
    local = local_callee(model, call)
    if local is not None:
        func, offset = local
        params = [p for p in _positional(func)][offset:]
        target = keyword or (params[index] if index is not None and index < len(params) else None)
        return target is not None and target in model.cached(("parameters_cut_on_entry", func),
                                                             lambda: parameters_cut_on_entry(model, func))
    entry = _summary_callee(model, call)
    if entry is not None:
        params = list(entry.get("params", []))[1 if entry.get("self") else 0:]
        target = keyword or (params[index] if index is not None and index < len(params) else None)
        return target is not None and target in entry.get("cuts", ())
    return False


def _passes_name(arg: ast.AST, name: str) -> bool:
    """`h`, or `h if idx else None` (the name or a constant): the argument is `name` when it
    is anything with a history."""
    if isinstance(arg, ast.IfExp):
        branches = (arg.body, arg.orelse)
        return any(_passes_name(b, name) for b in branches) and all(
            _passes_name(b, name) or isinstance(b, ast.Constant) for b in branches)
    return isinstance(arg, ast.Name) and arg.id == name


def local_callee(model, call: ast.Call):
    """(function of this module, parameters to skip) that the call runs, or None."""
    callee = model.value(call.func)
    if callee.kind == MODULE and callee.name and callee.name in model.classes:
        forward = model.method(callee.name, "forward")
        return (forward, 1) if forward is not None else None
    target = model.resolve_call(call)
    if isinstance(target, FUNCTION_TYPES):
        info = model.class_of(target)
        return target, 1 if info is not None and isinstance(call.func, ast.Attribute) else 0
    return None


def _summary_callee(model, call: ast.Call) -> Optional[dict]:
    """The summary of another module's function or method a call runs (`model(x, h)` on an
    instance of a class of the project: its `forward`; `d_loss_fn(D, real, fake)` imported
    from losses.py; `self.head.step(x)`)."""
    if model.project is None:
        return None
    return model.other_module_entry(call)


def _parameters(func) -> Set[str]:
    return {a.arg for a in named_parameters(func)}


def _positional(func) -> List[str]:
    return [a.arg for a in positional_parameters(func)]
