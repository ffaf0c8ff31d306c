"""The structure of a value, for the fixes that detach it: one tensor, a tuple of n tensors
(an LSTM's `(h, c)`), or unknown.

`hidden.detach()` raises AttributeError on a tuple, and `outputs.detach()` on a Hugging Face
`ModelOutput`, so a fix needs to know which it is.
The lattice says only that a value carries a graph: a module's output may be a tensor or a
tuple. Here a state is a tensor when the code proves it: arithmetic, a torch function that
returns one tensor, a tensor method of a proven tensor, an item of a proven tensor, or the
hidden state of a torch recurrent layer or cell whose class the code shows (`nn.GRU`: a
tensor; `nn.LSTM`, `nn.LSTMCell`: a pair), the output of another torch layer, a loss (the
lattice's one-number values), a tensor field of a model output (`outputs.loss`,
`outputs.logits`), or what a function of the module returns on every path when each return
is proven a tensor. Anything else (a call of a module of unknown class, a parameter) is
unknown: TLL008's fix then takes a form that works for a tensor and a tuple, and TLL003
offers no fix.
"""

from __future__ import annotations

import ast
from typing import Optional

from torchleaklint.semantic.carried_state import value_after
from torchleaklint.semantic.syntax import FUNCTION_TYPES, bound_once_in_init, nodes_within
from torchleaklint.semantic.values import MODULE, SEQUENCE, TENSORISH

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
# torch layers whose call returns something other than one tensor
_NOT_ONE_TENSOR_LAYERS = frozenset({"torch.nn.MultiheadAttention", "torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN",
                                    "torch.nn.LSTMCell", "torch.nn.ModuleList", "torch.nn.ModuleDict",
                                    "torch.nn.ParameterList", "torch.nn.ParameterDict", "torch.nn.AdaptiveLogSoftmaxWithLoss",
                                    "torch.nn.MaxPool1d", "torch.nn.MaxPool2d", "torch.nn.MaxPool3d",
                                    "torch.nn.AdaptiveMaxPool1d", "torch.nn.AdaptiveMaxPool2d",
                                    "torch.nn.AdaptiveMaxPool3d"})
# fields of a model output (Hugging Face's ModelOutput, detectron-style dicts) that hold one tensor
_TENSOR_FIELDS = frozenset({"loss", "logits", "last_hidden_state", "pooler_output", "grad", "data"})
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.MatMult, ast.Pow, ast.FloorDiv, ast.Mod)


def state_structure(model, stmt: ast.AST, name: str) -> int:
    """What `stmt` binds to `name`: 0 for a tensor, n for a tuple of n tensors, -1 unknown."""
    value = value_after(model, stmt, name)
    if value is not None and value.items is not None:
        return len(value.items)
    return _bound_structure(model, stmt, name, 0)


def expression_structure(model, expr: ast.AST) -> int:
    """What `expr` evaluates to: 0 for a tensor, n for a tuple of n tensors, -1 unknown."""
    value = model.value(expr)
    if value.items is not None:
        return len(value.items)
    return _structure(model, expr, 0)


def may_not_be_a_tensor(model, expr: ast.AST) -> bool:
    """Is there evidence that `expr` is not one tensor: a proven tuple, list or dict, or a read of
    the same value that uses it as a container (`out["logits"]`, `out[0]` of a call's result,
    `outputs.loss`, `a, b = out`)? Unknown alone is no evidence (a module's output is taken for
    the tensor the lattice says it is)."""
    structure = expression_structure(model, expr)
    if structure > 0 or model.value(expr).kind == SEQUENCE:
        return True
    if structure == TENSOR_STATE:
        return False
    base = expr
    while isinstance(base, ast.Call) and isinstance(base.func, ast.Attribute) and base.func.attr in ("cpu", "to", "cuda"):
        base = base.func.value  # `out.cpu()` of a tuple fails as `out.detach()` would
    if isinstance(base, ast.Name):
        reaching = model.reaching(model.unit_of(base))
        definitions = reaching.definitions(base)
        return bool(definitions) and _used_as_a_container(model, reaching, base, set(map(id, definitions)))
    return False


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
    if depth > _MAX_DEPTH:
        return UNKNOWN_STATE
    value = model.value(expr)
    if value.scalar and value.kind in TENSORISH:
        return TENSOR_STATE  # a loss, a metric: one number in a tensor
    if isinstance(expr, ast.Attribute) and expr.attr in _TENSOR_FIELDS and value.kind in TENSORISH:
        return TENSOR_STATE  # `outputs.loss`, `outputs.logits`
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
        if cell is not None and cell.startswith("torch.nn.") and cell not in _NOT_ONE_TENSOR_LAYERS:
            return TENSOR_STATE  # `self.fc(x)` of an `nn.Linear`
        callee = _callee(model, expr) if cell is None else None
        if isinstance(callee, FUNCTION_TYPES) and callee.name != "__init__":
            return _returned_structure(model, callee, depth + 1)
        if isinstance(expr.func, ast.Attribute) and expr.func.attr in _ONE_TENSOR_METHODS and \
                _structure(model, expr.func.value, depth + 1) == TENSOR_STATE:
            return TENSOR_STATE
    return UNKNOWN_STATE


def _callee(model, call: ast.Call):
    """The function of this module a call runs: a function or method, or the `forward` of a
    module class of this module (`model(x)` of `model = Net()`)."""
    callee = model.resolve_call(call)
    if callee is None:
        called = model.value(call.func)
        if called.kind == MODULE and called.name in model.classes:
            callee = model.method(called.name, "forward")
    return callee


def _returned_structure(model, func, depth: int) -> int:
    """The structure every `return` of `func` gives, when they agree."""
    returns = [n.value for n in nodes_within(func) if isinstance(n, ast.Return) and n.value is not None]
    if not returns:
        return UNKNOWN_STATE
    found = {_structure(model, r, depth) for r in returns}
    return found.pop() if len(found) == 1 else UNKNOWN_STATE


def _number(expr) -> bool:
    return isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)


def _name_structure(model, name: ast.Name, depth: int) -> int:
    """The structure every definition of `name` reaching this read gives it; or a tensor when
    the code uses that same value as one (`logits.softmax(-1)`, `out.detach()`)."""
    if depth > _MAX_DEPTH:
        return UNKNOWN_STATE
    reaching = model.reaching(model.unit_of(name))
    definitions = reaching.definitions(name)
    if not definitions:
        return UNKNOWN_STATE
    found = {_bound_structure(model, model.statement_of(d), name.id, depth) for d in definitions}
    if len(found) == 1 and TENSOR_STATE not in found and UNKNOWN_STATE not in found:
        return found.pop()
    if found == {TENSOR_STATE} or _used_as_a_tensor(model, reaching, name, set(map(id, definitions))):
        return TENSOR_STATE
    return UNKNOWN_STATE


# What only a tensor has, of the things a model may return (a tuple, a dict, a ModelOutput):
# a read of the same value followed by one of these proves it a tensor.
_TENSOR_ONLY = frozenset({
    "detach", "item", "softmax", "log_softmax", "argmax", "argmin", "size", "shape", "dim", "ndim", "view",
    "reshape", "float", "backward", "cpu", "cuda", "numpy", "sigmoid", "sum", "mean", "squeeze", "unsqueeze",
    "permute", "transpose", "contiguous", "clone", "tolist", "requires_grad", "grad_fn", "device", "dtype",
    "topk", "norm", "exp", "log", "abs", "pow", "flatten", "masked_fill", "gather", "max", "min", "std", "var",
    "half", "double", "long", "type_as", "expand", "repeat", "split", "chunk", "unbind", "narrow", "t",
})


def _used_as_a_container(model, reaching, name: ast.Name, definitions) -> bool:
    """Does some read of `name` that sees exactly these definitions use it as a container: a
    subscript by a string or an integer literal, an attribute no tensor has, or unpacking?"""
    for read in _reads_of_the_value(model, reaching, name, definitions):
        parent = model.parent(read)
        if isinstance(parent, ast.Subscript) and parent.value is read and isinstance(parent.slice, ast.Constant) \
                and isinstance(parent.slice.value, (str, int)):
            return True
        if isinstance(parent, ast.Attribute) and parent.attr in _MODEL_OUTPUT_FIELDS:
            return True
        if isinstance(parent, ast.Assign) and parent.value is read and \
                any(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets):
            return True
    return False


def _reads_of_the_value(model, reaching, name: ast.Name, definitions):
    """The reads of `name` in its function that see exactly `definitions` (ids): the same value."""
    unit = model.unit_of(name)
    for node in nodes_within(unit) if unit is not None else ():
        if isinstance(node, ast.Name) and node.id == name.id and isinstance(node.ctx, ast.Load) and \
                set(map(id, reaching.definitions(node))) == definitions:
            yield node


# fields of a model output object, which a tensor does not have
_MODEL_OUTPUT_FIELDS = frozenset({"loss", "logits", "last_hidden_state", "hidden_states", "attentions",
                                  "past_key_values", "pooler_output", "encoder_last_hidden_state", "keys", "values",
                                  "items"})


def _used_as_a_tensor(model, reaching, name: ast.Name, definitions) -> bool:
    """Does some read of `name` that sees exactly these definitions use it as a tensor?"""
    return any(isinstance(model.parent(read), ast.Attribute) and model.parent(read).attr in _TENSOR_ONLY
               for read in _reads_of_the_value(model, reaching, name, definitions))


def _torch_class_called(model, call: ast.AST) -> Optional[str]:
    """`torch.nn.LSTM` for a call of a local or `self` attribute that the code binds, once, to
    `nn.LSTM(...)` (any `torch.nn` class)."""
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    constructed = None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        info = model.enclosing_class_info(call)
        constructed = bound_once_in_init(info, func.attr) if info is not None else None
    elif isinstance(func, ast.Name):
        constructed = model.value_bound_once(func)
    if not isinstance(constructed, ast.Call):
        return None
    qualname = model.qualname(constructed.func)
    return qualname if qualname and qualname.startswith("torch.nn.") else None
