"""Forwards that probe a module rather than evaluate it: a shape smoke test, a shape
inference at construction time.

Evaluation measures a model on data. Two pieces of code run a forward with autograd on and
evaluate nothing, and what they record is dropped when the function returns:

both run once (not in a loop: a latency benchmark repeats its forward) on input made up in
the function by a tensor factory (`torch.randn(1, 3, 32, 32)`):

- a smoke test of an untrained network built in the function itself (`net = DLA()`, then
  `print(net(x))`): its class loads no weights, its arguments are literal settings, and it
  is handed to nothing (no `load_state_dict`, no training call), so no trained model is
  being evaluated;
- a shape probe: of the output only the shape is read, and it is (`.size()`, `.shape`, `len(...)`,
  also after view-like transforms: `x.transpose(1, 2).size(-1)`);
- a warm-up: the forward is a statement of its own, its result dropped at once (before a
  TensorRT engine replaces the model, before timing).

A model file's `if __name__ == "__main__":` block is such a function too (set25: eleven
wespeaker models printing the output shape of a fresh network on `torch.zeros(1, 200, 80)`).

A random input alone is no evidence (a generator samples from noise and keeps what it
makes), nor is an untrained network alone (one built here may be evaluated on real data).
"""

from __future__ import annotations

import ast
from typing import Optional, Set

from torchleaklint.semantic import torch_api
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.syntax import FUNCTION_TYPES, is_main_guard, positional_parameters, walk

# Reads of a tensor that use its shape, not its values.
# Transforms whose result holds the same values rearranged (or moved): a shape read after
# them is still a shape read.
_VIEW_METHODS = frozenset({"view", "reshape", "flatten", "transpose", "permute", "contiguous", "squeeze",
                           "unsqueeze", "cpu", "cuda", "to", "float", "half", "double"})
# What a smoke test does with the network it built besides calling it: mode and device
# switches, printing.
_MODE_METHODS = frozenset({"eval", "train", "to", "cuda", "cpu", "float", "half", "double"})
_SHOWN_BY = frozenset({"print", "repr", "str", "len", "type"})
# Element-wise ops and reductions that make a value to inspect (`torch.abs(a - b).sum()`).
_REDUCTIONS = frozenset({"abs", "sum", "mean", "max", "min", "norm", "item", "tolist", "argmax", "square", "pow"})
# Comparisons that answer with a bool.
_COMPARERS = frozenset({"allclose", "equal", "assert_close", "assert_allclose", "isclose"})
_COUNTED_BY = frozenset({"parameters", "named_parameters", "buffers", "modules", "children"})
# Keywords of a constructor that may load trained weights.
_WEIGHT_WORDS = ("pretrain", "weight", "ckpt", "checkpoint", "path", "load", "state", "resume")
# Factories of made-up input (data from sizes, not from a dataset).
_MADE_UP = frozenset({"randn", "rand", "randint", "zeros", "ones", "empty", "full", "randn_like", "rand_like",
                      "zeros_like", "ones_like", "empty_like", "full_like", "normal"})
# Torch functions that wrap an array into a tensor, and numpy's factories of made-up arrays.
_FROM_ARRAY = frozenset({"torch.tensor", "torch.from_numpy", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor"})
_NUMPY_MADE_UP = frozenset({"normal", "randn", "rand", "random", "uniform", "randint", "zeros", "ones", "empty",
                            "full", "random_sample", "standard_normal"})
# Joins of several tensors into one: made-up when each part is.
_JOINS = frozenset({"torch.cat", "torch.stack", "torch.concat", "torch.concatenate"})
# Tensor methods that make a new tensor from sizes alone.
_NEW_FROM_SIZES = frozenset({"new_empty", "new_zeros", "new_ones", "new_full"})
# Methods that turn text into token ids.
_TOKENIZING = frozenset({"encode", "encode_plus", "batch_encode_plus", "tokenize", "__call__"})
MAX_DERIVED = 32  # names followed from one forward's result


def probes_the_module(model, call, unit) -> bool:
    """Does the forward `call` (in function `unit`) on made-up input probe its module
    instead of evaluating it: a smoke test of an untrained network built here, or a read of
    the output's shape only?"""
    if not (isinstance(unit, FUNCTION_TYPES) or _in_main_block(model, call, unit)):
        return False
    loops = model.loops_around(call)
    if not _input_made_up(model, call, unit):
        # a network of this file built untrained right here and only looked at (a model file's
        # `_test_deep_embedding()` on a clip it loads): whatever the input, nothing is evaluated
        return not loops and not _in_comprehension(model, call, unit) and _untrained_and_built_here(model, call, unit)
    if loops:
        # a forward repeated in a loop is a benchmark or a sampler, not a probe; unless each
        # iteration builds the untrained network it probes (`for a in cfg: net = VGG(a); y =
        # net(torch.randn(2, 3, 32, 32)); print(y.size())`, one smoke test per configuration)
        return _built_in_the_loop(model, call, unit, loops[0]) and _untrained_and_built_here(model, call, unit)
    parent, result = model.parent(call), call
    if isinstance(parent, ast.IfExp) and call is not parent.test:
        parent, result = model.parent(parent), parent  # `_ = model(img) if device.type != "cpu" else None`
    if isinstance(parent, ast.Expr) or isinstance(parent, ast.Assign) and parent.value is result and \
            ([getattr(t, "id", None) for t in parent.targets] == ["_"]
             or _bound_and_never_read(model, parent, unit) and _built_here_by_this_file(model, call, unit)):
        return True  # a warm-up: `model(torch.ones(1, 3, h, w))` once, its result dropped (`_ = ...`,
        # or `out, out_state = rnn(inp, states)` of a smoke test, neither read again)
    return _untrained_and_built_here(model, call, unit) or _only_shape_read(model, call, unit)


def _in_comprehension(model, node, unit) -> bool:
    """Is `node` inside a comprehension of `unit` (`[net(x) for x in images]`: a pass over data)?"""
    for anc in model.ancestors(node):
        if anc is unit:
            return False
        if isinstance(anc, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return True
    return False


def _bound_and_never_read(model, stmt: ast.Assign, unit) -> bool:
    """Does the assignment bind only names (or tuples of names) that nothing reads after it?"""
    names = []
    for target in stmt.targets:
        for node in ([target] if isinstance(target, ast.Name) else getattr(target, "elts", [None])):
            if not isinstance(node, ast.Name):
                return False
            names.append(node.id)
    reads = model.reaching(unit).reads_by_key
    return bool(names) and not any(reads.get(name) for name in names)


def _built_here_by_this_file(model, call, unit) -> bool:
    """Is the called module bound in `unit` only by calls of this file's functions or classes
    (`rnn = script_lnlstm(input_size, hidden_size, num_layers)`), and used for nothing but the
    smoke test (no weights loaded into it, not handed on)?"""
    receiver = call.func
    if not isinstance(receiver, ast.Name):
        return False
    reaching = model.reaching(unit)
    definitions = reaching.definitions(receiver)
    for definition in definitions:
        stmt = model.statement_of(definition)
        value = stmt.value if isinstance(stmt, ast.Assign) and stmt.targets == [definition] else None
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and (value.func.id in model.module_functions or value.func.id in model.classes)):
            return False
    return bool(definitions) and all(_smoke_test_use(model, read) for read in reaching.reads_by_key.get(receiver.id, ()))


def _built_in_the_loop(model, call, unit, loop) -> bool:
    """Is the module `call` runs bound, once, inside `loop`'s body (a new one every iteration)?"""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else call.func
    if not isinstance(receiver, ast.Name):
        return False
    definitions = model.reaching(unit).definitions(receiver)
    return len(definitions) == 1 and model.is_inside(definitions[0], loop)


def _in_main_block(model, call, unit) -> bool:
    """Module-level code under `if __name__ == "__main__":` (a model file's own smoke test)."""
    if not isinstance(unit, ast.Module):
        return False
    return any(is_main_guard(anc) for anc in model.ancestors(call))


# ----------------------------------------------------------- an untrained network built here
def _untrained_and_built_here(model, call, unit) -> bool:
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else call.func
    if not isinstance(receiver, ast.Name):
        return False
    reaching = model.reaching(unit)
    definitions = reaching.definitions(receiver)
    if not definitions or not all(isinstance(d, ast.Name) for d in definitions):
        return False
    for definition in definitions:  # (several: a smoke test rebuilding the network per configuration)
        stmt = model.statement_of(definition)
        if isinstance(stmt, ast.For) and stmt.target is definition and isinstance(stmt.iter, (ast.List, ast.Tuple)):
            # `for net in [ResNet18(10), ResNet34(10)]: y = net(x)`: each an untrained network
            if not stmt.iter.elts or not all(_builds_untrained(model, e) for e in stmt.iter.elts):
                return False
        elif not (isinstance(stmt, ast.Assign) and stmt.targets == [definition]
                  and _builds_untrained(model, stmt.value, settings=_configuration_loop_names(model, stmt))):
            return False
    return all(_smoke_test_use(model, read) for read in reaching.reads_by_key.get(receiver.id, ()))


def _builds_untrained(model, expr, depth: int = 0, settings: Set[str] = frozenset()) -> bool:
    """`DLA()`, `VGG('VGG11').to(device)`, or `ResNet18()` whose body only returns such a
    construction: a network of this file's module classes with the weights it is born with."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _MODE_METHODS:
        expr = expr.func.value
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)) or \
            _may_load_weights(model, expr, settings):
        return False
    name = expr.func.id
    info = model.classes.get(name)
    if info is not None:
        return model.is_module_class(info) and model.constructed_module_class(expr) == name \
            and not _class_may_load_weights(model, info)
    factory = model.module_functions.get(name)
    if factory is None or depth > 0:
        return False
    # (`ResNet18(10)`: a factory given literal settings, each a parameter the construction it
    # returns may use as one: `return ResNet(BasicBlock, [2, 2, 2, 2], num_classes)`)
    params = {a.arg for a in positional_parameters(factory)}
    if expr.keywords or len(expr.args) > len(params) or not all(_literal(a) for a in expr.args):
        return False
    returns = [s for s in factory.body if isinstance(s, ast.Return)]
    bound = [s for s in factory.body if not isinstance(s, ast.Return)]
    if not returns or not all(_plain_setting(s) for s in bound):
        return False
    # a configuration made first (`cfg = {'num_blocks': [4, 8, 4]}`), then the construction
    names = {t.id for s in bound if isinstance(s, ast.Assign) for t in s.targets} | params
    return all(s.value is not None and _builds_untrained(model, s.value, depth + 1, names) for s in returns)


def _configuration_loop_names(model, stmt) -> Set[str]:
    """The targets of the loops around `stmt` that walk a literal table of configurations:
    `for a in cfg.keys():` over a module-level dict display, or over a literal list."""
    names: Set[str] = set()
    for loop in model.loops_around(stmt):
        if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name):
            continue
        iterable = loop.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and \
                iterable.func.attr == "keys" and not iterable.args:
            iterable = iterable.func.value
        if _literal(iterable) or isinstance(iterable, ast.Name) and _module_table(model, iterable.id):
            names.add(loop.target.id)
    return names


def _module_table(model, name: str) -> bool:
    """Is `name` bound at module level, once, to a dict or list display?"""
    bindings = model.module_assignments(name)
    return len(bindings) == 1 and isinstance(bindings[0].value, (ast.Dict, ast.List, ast.Tuple))


def _plain_setting(stmt) -> bool:
    """A docstring, or a name bound to a literal value."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return True
    return isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets) and \
        _literal(stmt.value)


def _class_may_load_weights(model, info) -> bool:
    """Does building the class load weights: its `__init__` (or a method `__init__` calls on
    `self`) loads them (`load_state_dict`, `torch.load`, `from_pretrained`) or builds a part
    with `pretrained=`/`weights=` (a perceptual loss's VGG)? A `build_from_pretrained`
    classmethod the constructor never runs loads nothing into `Cls(...)`. A class whose
    `__init__` is not in view (inherited from a base elsewhere) may."""
    init = info.methods.get("__init__")
    if init is None:
        bases = [model.classes.get(base.rsplit(".", 1)[-1]) for base in info.base_names]
        if any(base is None for base in bases):
            return bool(bases)  # `__init__` inherited from a class out of view (not `nn.Module` only)
        return any(_class_may_load_weights(model, base) for base in bases if base is not info)
    called = {node.func.attr for node in walk(init) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
              and node.func.value.id == "self"}
    for method in [init] + [m for name, m in info.methods.items() if name in called]:
        for node in walk(method):
            if isinstance(node, ast.Call) and (
                    any(w in (dotted(node.func) or "").lower() for w in ("load", "pretrained"))
                    or any(kw.arg and ("pretrain" in kw.arg or "weight" in kw.arg) for kw in node.keywords)):
                return True
    return False


def _may_load_weights(model, construction: ast.Call, settings: Set[str]) -> bool:
    """A keyword that may name weights (`pretrained=True`, `ckpt=path`), or an argument that
    is not a setting: a literal, a class of this file (`PNASNet(CellB, num_cells=6)`), a name
    the factory bound to a literal. `PathSampler(generator)` wraps a network it is handed."""
    if any(kw.arg is None or any(word in kw.arg.lower() for word in _WEIGHT_WORDS) for kw in construction.keywords):
        return True
    arguments = list(construction.args) + [kw.value for kw in construction.keywords]
    return not all(_literal(a) or isinstance(a, ast.Name) and (a.id in settings or a.id in model.classes
                                                               or _bound_to_literals(model, a))
                   for a in arguments)


def _bound_to_literals(model, name: ast.Name, depth: int = 0) -> bool:
    """Is every binding of `name` that reaches it a setting written out in the function: a
    literal, an item of a literal tuple (`n_bins, n_frames = 4, 128`), or arithmetic on such
    settings (`[num_blocks] * latent_dim`), as above `MixBlock2d(in_channels, extra)` in a
    smoke test?"""
    unit = model.unit_of(name)
    if unit is None or depth > 3:
        return False
    definitions = model.reaching(unit).definitions(name)
    for definition in definitions:
        stmt = model.statement_of(definition)
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            return False
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            value = next((v for t, v in zip(target.elts, value.elts) if t is definition), None)
        elif target is not definition:
            return False
        if value is None or not _setting_expression(model, value, depth):
            return False
    return bool(definitions)


def _setting_expression(model, expr, depth: int) -> bool:
    if _literal(expr):
        return True
    if isinstance(expr, ast.Name):
        return _bound_to_literals(model, expr, depth + 1)
    if isinstance(expr, ast.BinOp):
        return _setting_expression(model, expr.left, depth) and _setting_expression(model, expr.right, depth)
    if isinstance(expr, ast.UnaryOp):
        return _setting_expression(model, expr.operand, depth)
    if isinstance(expr, (ast.List, ast.Tuple)):
        return all(_setting_expression(model, e, depth) for e in expr.elts)
    return False


def _literal(expr) -> bool:
    try:
        ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _smoke_test_use(model, read) -> bool:
    """A use of the built network that leaves it untrained and keeps it here: called,
    switched to a mode or device, given a flag, printed."""
    parent = model.parent(read)
    if isinstance(parent, ast.Call) and parent.func is read:
        return True  # a forward
    if isinstance(parent, ast.Attribute) and parent.value is read and isinstance(parent.ctx, ast.Store):
        return True  # `net.save_activations = True`: a flag set, the network still untrained
    if isinstance(parent, ast.Attribute) and parent.value is read:
        outer = model.parent(parent)
        if isinstance(outer, ast.Call) and outer.func is parent and parent.attr in _COUNTED_BY:
            # `sum(p.numel() for p in model.parameters())`: iterated to count, not handed to
            # an optimizer (which takes the call itself as an argument)
            return isinstance(model.parent(outer), ast.comprehension)
        if isinstance(outer, ast.Call) and outer.func is not parent and parent in outer.args and (
                isinstance(outer.func, ast.Name) and outer.func.id in _SHOWN_BY
                or isinstance(outer.func, ast.Attribute) and outer.func.attr == "format"):
            return True  # `print("# Parameters: {}".format(model.num_parameters))`: a number shown
        return isinstance(outer, ast.Call) and outer.func is parent and (
            parent.attr in _MODE_METHODS or parent.attr == "forward")
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _SHOWN_BY \
        and read in parent.args


# ----------------------------------------------------------- a shape read on made-up input
def _input_made_up(model, call, unit) -> bool:
    arguments = list(call.args) + [kw.value for kw in call.keywords]
    return bool(arguments) and all(_made_up_here(model, arg, unit) for arg in arguments)


def _made_up_here(model, expr, unit, depth: int = 0) -> bool:
    """`expr` is made-up input: a factory call, a name every reaching binding of which is
    one, or a join of such (`torch.cat((img0, img1), 1)`)."""
    if _made_up(model, expr):
        return True
    if depth > 4:
        return False
    if isinstance(expr, ast.Subscript):  # `imgs[:1]`: part of a made-up batch
        return _made_up_here(model, expr.value, unit, depth + 1)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _VIEW_METHODS:
        return _made_up_here(model, expr.func.value, unit, depth + 1)  # `img.half()` of a made-up `img`
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _REDUCTIONS \
            and all(_literal(a) for a in list(expr.args) + [k.value for k in expr.keywords]):
        return _made_up_here(model, expr.func.value, unit, depth + 1)  # `sources.sum(dim=1)` of made-up sources
    if isinstance(expr, (ast.List, ast.Tuple)) and expr.elts:  # `[h0, c0]`
        return all(_made_up_here(model, e, unit, depth + 1) for e in expr.elts)
    if isinstance(expr, ast.ListComp) and len(expr.generators) == 1 and _made_up(model, expr.elt):
        return True  # `[torch.randn(b, c, h >> i, w >> i) for i, c in enumerate(channels)]`: factories
    if isinstance(expr, ast.ListComp) and len(expr.generators) == 1 and \
            isinstance(expr.generators[0].iter, ast.Call) and dotted(expr.generators[0].iter.func) == "range":
        return _made_up_here(model, expr.elt, unit, depth + 1)  # `[State(torch.randn(b, h)) for _ in range(n)]`
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and _namedtuple_type(model, expr.func.id) \
            and (expr.args or expr.keywords):
        return all(_made_up_here(model, a, unit, depth + 1) for a in list(expr.args) + [k.value for k in expr.keywords])
    if isinstance(expr, ast.IfExp):  # `img.half() if half else img`
        return _made_up_here(model, expr.body, unit, depth + 1) and _made_up_here(model, expr.orelse, unit, depth + 1)
    if isinstance(expr, ast.Name):
        definitions = model.reaching(unit).definitions(expr)
        return bool(definitions) and all(isinstance(d, ast.Name) and _bound_to_made_up(model, d, unit, depth)
                                         for d in definitions)
    if isinstance(expr, ast.Call) and expr.args and isinstance(expr.args[0], (ast.Tuple, ast.List)) \
            and (model.qualname(expr.func) or "") in _JOINS:
        return bool(expr.args[0].elts) and all(_made_up_here(model, e, unit, depth + 1) for e in expr.args[0].elts)
    return False


def _namedtuple_type(model, name: str) -> bool:
    """`LSTMState = namedtuple("LSTMState", ["hx", "cx"])` at module level."""
    bindings = model.module_assignments(name)
    return len(bindings) == 1 and isinstance(bindings[0].value, ast.Call) and \
        (model.qualname(bindings[0].value.func) or "").endswith("namedtuple")


def _bound_to_made_up(model, target: ast.Name, unit, depth: int) -> bool:
    stmt = model.statement_of(target)
    if isinstance(stmt, ast.AnnAssign):  # `input_ids: torch.Tensor = roberta.encode(SAMPLE_TEXT)`
        value = stmt.value if stmt.target is target else None
    elif isinstance(stmt, ast.Assign) and stmt.targets == [target]:
        value = stmt.value
    else:
        return False
    return value is not None and _made_up_here(model, value, unit, depth + 1)


def _made_up(model, expr) -> bool:
    """`torch.randn(2, 3, 32, 32)`, `.to(device)` after it, `Variable(torch.zeros(...))`, or
    the code's own sample sentence tokenized (`tokenizer.encode_plus(SAMPLE_TEXT,
    return_tensors="pt")["input_ids"]`)."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _VIEW_METHODS \
            or isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
        expr = expr.func.value if isinstance(expr, ast.Call) else expr.value
    if _tokenizes_written_text(model, expr):
        return True
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _NEW_FROM_SIZES:
        return True  # `torch.ones(()).new_empty((1, *shape))`: a tensor made from sizes, whatever its receiver
    if isinstance(expr, ast.Call) and (dotted(expr.func) or "").endswith("Variable") and len(expr.args) == 1:
        expr = expr.args[0]
    if not isinstance(expr, ast.Call):
        return False
    qualname = model.qualname(expr.func) or ""
    if qualname in _FROM_ARRAY and len(expr.args) == 1:
        return _numpy_made_up(model, expr.args[0])  # `torch.tensor(np.random.normal(0, 1, (3, 3, 256, 256)))`
    return torch_api.is_factory(qualname) and qualname.rsplit(".", 1)[-1] in _MADE_UP


def _numpy_made_up(model, expr) -> bool:
    """`np.random.normal(0, 1, shape)`, `np.zeros(shape)`: an array made from sizes."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("astype", "copy"):
        expr = expr.func.value
    qualname = (model.qualname(expr.func) or "") if isinstance(expr, ast.Call) else ""
    head, _, name = qualname.rpartition(".")
    return head in ("numpy", "numpy.random") and name in _NUMPY_MADE_UP


def _tokenizes_written_text(model, expr) -> bool:
    """`roberta.encode(SAMPLE_TEXT)`, `tokenizer("This is a sample", return_tensors="pt")`: a
    method of an object (a tokenizer, an encoder's `encode`) whose one positional input is
    text written in the code, a string literal or a module-level name bound to one."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, (ast.Attribute, ast.Name)) and len(expr.args) == 1):
        return False
    if isinstance(expr.func, ast.Attribute) and expr.func.attr not in _TOKENIZING:
        return False
    if isinstance(expr.func, ast.Name) and "token" not in expr.func.id.lower():
        return False
    text = expr.args[0]
    if isinstance(text, ast.Name):
        text = _module_string(model, text.id)
    return isinstance(text, ast.Constant) and isinstance(text.value, str) and \
        all(isinstance(kw.value, ast.Constant) for kw in expr.keywords)


def _module_string(model, name: str):
    """The string literal a module-level `NAME = "..."` binds, when that is its only binding."""
    bindings = model.module_assignments(name)
    if len(bindings) == 1 and len(bindings[0].targets) == 1 and isinstance(bindings[0].value, ast.Constant):
        return bindings[0].value
    return None


def _only_shape_read(model, call, unit) -> bool:
    """Is the forward's result only checked: its shape read, or its values compared or
    asserted (directly, through arithmetic and reductions of it, or through names bound to it
    or to view-like transforms of it), printed at most along the way? A conversion check
    (`fc_output - conv_output` printed and asserted small) measures nothing on data and keeps
    nothing; a print of the output alone is a look at predictions."""
    reaching = model.reaching(unit)
    pending, seen, asked = [call], set(), False
    while pending:
        expr = pending.pop()
        if len(seen) > MAX_DERIVED:
            return False
        use, parent = _past_views(model, expr)
        if _shown(parent, use):
            continue  # printed along the way: allowed, but a print alone is a look at predictions
        if _inspects(model, parent, use):
            asked = True
            continue
        derived = _derived(model, parent, use)
        if derived is not None:
            if isinstance(derived, ast.BinOp) and isinstance(derived.op, ast.Sub):
                asked = True  # `(origin_y - reparam_y).abs().sum()` printed: a difference is a comparison
            pending.append(derived)
            seen.add(id(derived))
            continue
        targets = _bound_names(parent, use)
        if targets is None:
            return False
        for target in targets:
            if id(target) in seen:
                continue
            seen.add(id(target))
            for read in reaching.reads_by_key.get(target.id, ()):
                definitions = reaching.definitions(read)
                if target in definitions:
                    if len(definitions) != 1:
                        return False  # also another value: what is read there is not only this one
                    pending.append(read)
    # a result never read is no probe: it stays referenced (with its graph) until rebound
    return asked


def _shown(parent, use) -> bool:
    """Printed or formatted: `print(y)`, `f"{y}"`."""
    return isinstance(parent, ast.FormattedValue) or isinstance(parent, ast.Call) and \
        isinstance(parent.func, ast.Name) and parent.func.id in _SHOWN_BY and parent.func.id != "len" \
        and use in parent.args


def _inspects(model, parent, use) -> bool:
    """A use that ends in a check of the value: its shape read, or its values compared or
    asserted (`torch.allclose(a, b)`, `diff < 1e-6`)."""
    if isinstance(parent, ast.Attribute) and parent.attr in torch_api.SHAPE_QUERIES:
        return True
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len":
        return True
    if isinstance(parent, ast.Call) and use in parent.args and \
            (model.qualname(parent.func) or "").rsplit(".", 1)[-1] in _COMPARERS:
        return True  # `torch.allclose(a, b)`: a bool
    return isinstance(parent, (ast.Compare, ast.Assert))


def _derived(model, parent, use) -> Optional[ast.AST]:
    """The new value a use makes from this one, when it is arithmetic with it, a reduction
    or an element-wise op (`torch.abs(a - b).sum()`, `.item()`): it is followed in turn."""
    if isinstance(parent, (ast.BinOp, ast.UnaryOp)):
        return parent
    if isinstance(parent, ast.Attribute) and parent.value is use and parent.attr in ("data", "T"):
        return parent  # the same values
    if isinstance(parent, ast.Attribute) and parent.value is use and parent.attr in _REDUCTIONS:
        outer = model.parent(parent)
        return outer if isinstance(outer, ast.Call) and outer.func is parent else None
    if isinstance(parent, ast.Call) and use in parent.args:
        qual = model.qualname(parent.func) or ""
        return parent if qual.startswith("torch.") and qual.rsplit(".", 1)[-1] in _REDUCTIONS else None
    return None


def _past_views(model, expr):
    """(the outermost view-like transform or subscript of `expr`, its parent)."""
    parent = model.parent(expr)
    while True:
        if isinstance(parent, ast.Subscript) and parent.value is expr:
            expr, parent = parent, model.parent(parent)
        elif isinstance(parent, ast.Attribute) and parent.attr in _VIEW_METHODS and \
                isinstance(model.parent(parent), ast.Call) and model.parent(parent).func is parent:
            expr = model.parent(parent)
            parent = model.parent(expr)
        else:
            return expr, parent


def _bound_names(stmt, value) -> Optional[Set[ast.Name]]:
    """The names `stmt` binds to `value` as a whole or element-wise (`y = ...`, `a, b = ...`),
    None when `value` is used another way."""
    if not (isinstance(stmt, ast.Assign) and stmt.value is value and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    if isinstance(target, ast.Name):
        return {target}
    if isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
        return set(target.elts)
    return None
