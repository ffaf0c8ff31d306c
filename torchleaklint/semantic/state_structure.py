"""The structure of a carried state, for the fix that detaches it: one tensor, a tuple of n
tensors (an LSTM's `(h, c)`), or unknown.

`hidden.detach()` raises AttributeError on a tuple, so the fix needs to know which it is.
The lattice says only that a value carries a graph: a module's output may be a tensor or a
tuple. Here a state is a tensor when the code proves it: arithmetic, a torch function that
returns one tensor, a tensor method of a proven tensor, an item of a proven tensor, or the
hidden state of a torch recurrent layer or cell whose class the code shows (`nn.GRU`: a
tensor; `nn.LSTM`, `nn.LSTMCell`: a pair). Anything else (a call of the project's model, a
module of unknown class) is unknown, and the fix takes a form that works for both a tensor
and a tuple of tensors.
"""

from __future__ import annotations

import ast
from typing import Optional

from torchleaklint.semantic.syntax import bound_once_in_init

TENSOR_STATE = 0
UNKNOWN_STATE = -1
_MAX_DEPTH = 4

# (output, hidden state) of a call of a torch recurrent layer: the state's size (0: a tensor)
_LAYER_STATE = {"torch.nn.LSTM": 2, "torch.nn.GRU": TENSOR_STATE, "torch.nn.RNN": TENSOR_STATE}
# what a call of a torch recurrent cell returns
_CELL_STATE = {"torch.nn.LSTMCell": 2, "torch.nn.GRUCell": TENSOR_STATE, "torch.nn.RNNCell": TENSOR_STATE}

# torch functions that return one tensor (not `split`, `chunk`, `max(x, dim)`, `sort`...)
_ONE_TENSOR_FUNCTIONS = frozenset({
    "abs", "add", "addmm", "bmm", "cat", "clamp", "clip", "concat", "cos", "div", "einsum", "exp", "flatten",
    "full_like", "lerp", "log", "matmul", "mm", "mul", "ones_like", "rand_like", "randn_like", "relu", "reshape",
    "sigmoid", "sin", "softmax", "sqrt", "squeeze", "stack", "sub", "tanh", "transpose", "unsqueeze", "where",
    "zeros_like", "nn.functional.relu", "nn.functional.gelu", "nn.functional.silu", "nn.functional.elu",
    "nn.functional.leaky_relu", "nn.functional.softmax", "nn.functional.normalize", "nn.functional.dropout",
    "nn.functional.linear", "nn.functional.layer_norm", "nn.functional.tanh", "nn.functional.sigmoid",
})
# tensor methods that return one tensor
_ONE_TENSOR_METHODS = frozenset({
    "abs", "add", "clamp", "clone", "contiguous", "cpu", "cuda", "div", "double", "exp", "expand", "float",
    "flatten", "half", "log", "masked_fill", "matmul", "mul", "permute", "relu", "repeat", "reshape", "sigmoid",
    "softmax", "squeeze", "sub", "sum", "mean", "tanh", "to", "transpose", "type_as", "unsqueeze", "view",
    "view_as",
})
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv, ast.Mod)


def state_structure(model, stmt: ast.AST, name: str) -> int:
    """What `stmt` binds to `name`: 0 for a tensor, n for a tuple of n tensors, -1 unknown."""
    flow = model.flow(model.unit_of(stmt))
    value = flow.values.get(_bound_name(stmt, name)) if flow is not None else None
    if value is not None and value.items is not None:
        return len(value.items)
    return _bound_structure(model, stmt, name, 0)


def _bound_name(stmt, name: str) -> Optional[ast.Name]:
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    for target in targets:
        for node in ast.walk(target) if target is not None else ():
            if isinstance(node, ast.Name) and node.id == name:
                return node
    return None


def _bound_structure(model, stmt, name: str, depth: int) -> int:
    if depth > _MAX_DEPTH or not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is None:
        return UNKNOWN_STATE
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    for target in targets:
        if isinstance(target, ast.Name) and target.id == name:
            return _structure(model, stmt.value, depth)
        if isinstance(target, (ast.Tuple, ast.List)):
            index = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name), None)
            if index is None:
                continue
            if isinstance(stmt.value, (ast.Tuple, ast.List)) and len(stmt.value.elts) == len(target.elts):
                return _structure(model, stmt.value.elts[index], depth)
            layer = _torch_class_called(model, stmt.value)
            if layer in _LAYER_STATE and len(target.elts) == 2 and index == 1:
                return _LAYER_STATE[layer]  # `out, hidden = self.rnn(x, hidden)`
            if layer in _LAYER_STATE and index == 0 or layer == "torch.nn.LSTMCell" and len(target.elts) == 2:
                return TENSOR_STATE  # the output; or `h, c = self.cell(x, (h, c))`
    return UNKNOWN_STATE


def _structure(model, expr: ast.AST, depth: int) -> int:
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _ARITHMETIC):
        if any(isinstance(side, (ast.Tuple, ast.List, ast.Constant)) and not _number(side)
               for side in (expr.left, expr.right)):
            return UNKNOWN_STATE  # `(h,) + (c,)`, `"%s" % h`
        return TENSOR_STATE
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        return _structure(model, expr.operand, depth)
    if isinstance(expr, ast.Subscript):
        return TENSOR_STATE if _structure(model, expr.value, depth + 1) == TENSOR_STATE else UNKNOWN_STATE
    if isinstance(expr, ast.Name):
        return _name_structure(model, expr, depth + 1)
    if isinstance(expr, ast.Call):
        qualname = model.qualname(expr.func) or ""
        if qualname.startswith("torch.") and qualname[len("torch."):] in _ONE_TENSOR_FUNCTIONS:
            return TENSOR_STATE
        cell = _torch_class_called(model, expr)
        if cell in _CELL_STATE:
            return _CELL_STATE[cell]
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _ONE_TENSOR_METHODS and \
                _structure(model, expr.func.value, depth + 1) == TENSOR_STATE:
            return TENSOR_STATE
    return UNKNOWN_STATE


def _number(expr) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)


def _name_structure(model, name: ast.Name, depth: int) -> int:
    """The structure every definition of `name` reaching this read gives it."""
    if depth > _MAX_DEPTH:
        return UNKNOWN_STATE
    definitions = model.reaching(model.unit_of(name)).definitions(name)
    if not definitions:
        return UNKNOWN_STATE
    found = set()
    for definition in definitions:
        stmt = definition if isinstance(definition, ast.stmt) else model.statement_of(definition)
        found.add(_bound_structure(model, stmt, name.id, depth))
    return found.pop() if len(found) == 1 else UNKNOWN_STATE


def _torch_class_called(model, call: ast.AST) -> Optional[str]:
    """`torch.nn.LSTM` for a call of a local or `self` attribute that the code binds, once, to
    `nn.LSTM(...)`."""
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    constructed = None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        info = model.enclosing_class_info(call)
        constructed = bound_once_in_init(info, func.attr) if info is not None else None
    elif isinstance(func, ast.Name):
        definitions = model.reaching(model.unit_of(func)).definitions(func)
        stmts = {id(d): d if isinstance(d, ast.stmt) else model.statement_of(d) for d in definitions}
        if len(stmts) == 1:
            stmt = next(iter(stmts.values()))
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                constructed = stmt.value
    if not isinstance(constructed, ast.Call):
        return None
    qualname = model.qualname(constructed.func)
    return qualname if qualname in _LAYER_STATE or qualname in _CELL_STATE else None
