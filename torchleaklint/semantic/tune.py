"""Ray Tune as the analysis sees it: the calls that start trials, the config dicts they are
given (followed through variables, `d[k] = v`, `d.update(...)`, `dict(...)` and the call
sites of the function that receives the dict), and what a config value weighs when Tune
serializes it into every trial.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

from torchleaklint.semantic import torch_api
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.values import DATA, DATALOADER, DATASET, INSTANCE, MODULE, SCALAR, SEQUENCE, TENSORISH, UNKNOWN
from torchleaklint.semantic.syntax import bound_once_in_init, default_of, keyword_arg as _keyword, named_parameters
from torchleaklint.semantic.syntax import argument_at, summary_parameters, walk

MAX_DEPTH = 6  # expression steps and definition hops (`frame[cols].to_numpy()` of a local loader's frame)

# qualified name -> (api label, config keyword, trainable keyword, trainable position)
_ENTRY_POINTS = {
    "ray.tune.run": ("tune.run", "config", "run_or_experiment", 0),
    "ray.tune.tune.run": ("tune.run", "config", "run_or_experiment", 0),
    "ray.tune.Tuner": ("Tuner", "param_space", "trainable", 0),
    "ray.tune.tuner.Tuner": ("Tuner", "param_space", "trainable", 0),
    "ray.tune.Experiment": ("Experiment", "config", "run", 1),
    "ray.tune.experiment.Experiment": ("Experiment", "config", "run", 1),
    "ray.tune.experiment.experiment.Experiment": ("Experiment", "config", "run", 1),
}
_RUN_EXPERIMENTS = frozenset({"ray.tune.run_experiments", "ray.tune.tune.run_experiments"})


@dataclass(frozen=True)
class TuneCall:
    """One place trials get their config: the call, the config expression, the trainable."""

    call: ast.Call
    param: str  # "config" or "param_space": what Tune calls the dict
    config: ast.expr
    trainable: Optional[ast.expr]


@dataclass(frozen=True)
class Location:
    """A source range that is not one AST node (a dict entry: from its key to its value)."""

    lineno: int
    col_offset: int
    end_lineno: int
    end_col_offset: int


@dataclass(frozen=True)
class ConfigEntry:
    key: str  # the key as written: a string constant's value, else its source text
    literal_key: bool
    value: ast.expr
    where: object  # ast node or Location: where the entry is written


def tune_calls(model) -> Iterator[TuneCall]:
    for call in model.calls:
        qual = model.qualname(call.func)
        if qual in _ENTRY_POINTS:
            _, param, trainable_kw, position = _ENTRY_POINTS[qual]
            config = _keyword(call, param)
            if config is not None:
                yield TuneCall(call, param, config, _argument(call, trainable_kw, position))
        elif qual in _RUN_EXPERIMENTS and call.args:
            yield from _experiment_specs(model, call)


def tune_module_alias(model) -> Optional[str]:
    """The source text that names the `ray.tune` module here: `tune`, `ray.tune` or None."""
    aliases = model.imports.aliases
    for local, qual in sorted(aliases.items()):
        if qual == "ray.tune":
            return local
    return "ray.tune" if aliases.get("ray") == "ray" else None


def _experiment_specs(model, call: ast.Call) -> Iterator[TuneCall]:
    """`tune.run_experiments({"name": {"run": fn, "config": {...}}})`: one TuneCall per spec."""
    for experiment in config_entries(model, call.args[0]):
        spec = {e.key: e.value for e in config_entries(model, experiment.value) if e.literal_key}
        if "config" in spec:
            yield TuneCall(call, "config", spec["config"], spec.get("run"))


# ----------------------------------------------------------------- dict contents
def config_entries(model, expr: ast.AST, depth: int = 0) -> Iterator[ConfigEntry]:
    """The entries a dict expression can hold, wherever they were written."""
    if depth > MAX_DEPTH:
        return
    if isinstance(expr, ast.Dict):
        for key, value in zip(expr.keys, expr.values):
            if key is None:  # {**base, ...}
                yield from config_entries(model, value, depth + 1)
            else:
                where = Location(key.lineno, key.col_offset, value.end_lineno, value.end_col_offset)
                yield ConfigEntry(*_key_text(key), value, where)
    elif isinstance(expr, ast.Call):
        yield from _call_entries(model, expr, depth)
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):  # base | {...}
        yield from config_entries(model, expr.left, depth + 1)
        yield from config_entries(model, expr.right, depth + 1)
    elif isinstance(expr, ast.Name):
        yield from _name_entries(model, expr, depth)
    elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        yield from _attribute_entries(model, expr, depth)
    elif isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
        # `config=spec["trainer_config"]` of `spec = build_configuration()`: that entry's dict
        for entry in config_entries(model, expr.value, depth + 1):
            if entry.literal_key and entry.key == expr.slice.value:
                yield from config_entries(model, entry.value, depth + 1)


def _attribute_entries(model, attr: ast.Attribute, depth: int) -> Iterator[ConfigEntry]:
    """`param_space=self.config`: what the class's methods put in `self.config` (bound,
    `self.config[k] = v`, `self.config.update(...)`, `self.config |= {...}`)."""
    info = model.enclosing_class_info(attr)
    if info is None:
        return
    for method in info.methods.values():
        for stmt in walk(method):
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target = stmt.targets[0]
                if _is_self_attr(target, attr.attr):
                    yield from config_entries(model, stmt.value, depth + 1)
                elif isinstance(target, ast.Subscript) and _is_self_attr(target.value, attr.attr):
                    key, literal = _key_text(target.slice)
                    yield ConfigEntry(key, literal, stmt.value, stmt)
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.BitOr) and \
                    _is_self_attr(stmt.target, attr.attr):
                yield from config_entries(model, stmt.value, depth + 1)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and \
                    isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "update" and \
                    _is_self_attr(stmt.value.func.value, attr.attr):
                yield from _update_entries(model, stmt, depth)


def _is_self_attr(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.value, ast.Name) and \
        node.value.id == "self"


def _call_entries(model, call: ast.Call, depth: int) -> Iterator[ConfigEntry]:
    func = call.func
    if isinstance(func, ast.Name) and func.id == "dict" and model.qualname(func) is None:
        for arg in call.args[:1]:
            yield from config_entries(model, arg, depth + 1)
        yield from _keyword_entries(model, call, depth)
    elif isinstance(func, ast.Attribute) and func.attr == "copy" and not call.args:
        yield from config_entries(model, func.value, depth + 1)
    elif model.qualname(func) in ("copy.copy", "copy.deepcopy") and call.args:
        yield from config_entries(model, call.args[0], depth + 1)
    else:
        helper = _local_helper(model, call)
        if helper is not None:  # config=make_space(): the dicts the helper returns
            for node in walk(helper):
                if isinstance(node, ast.Return) and node.value is not None and model.unit_of(node) is helper:
                    yield from config_entries(model, node.value, depth + 1)


def _local_helper(model, call: ast.Call):
    """The function of this module a call runs: `make_space()` (a module function the call's
    scope does not shadow) or `self.make_space()` (a method of the enclosing class)."""
    func = call.func
    if isinstance(func, ast.Name) and func.id in model.module_functions and model.qualname(func) is None:
        unit = model.unit_of(call)
        if isinstance(unit, ast.Module) or not _scope_bindings(model, unit, func.id):
            return model.module_functions[func.id]
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        info = model.enclosing_class_info(call)
        if info is not None:
            return info.methods.get(func.attr)
    return None


def _keyword_entries(model, call: ast.Call, depth: int) -> Iterator[ConfigEntry]:
    for kw in call.keywords:
        if kw.arg is None:
            yield from config_entries(model, kw.value, depth + 1)
        else:
            yield ConfigEntry(kw.arg, True, kw.value, kw)


def _name_entries(model, name: ast.Name, depth: int) -> Iterator[ConfigEntry]:
    definitions, updates = reaching_bindings(model, name)
    for definition in definitions:
        if isinstance(definition, ast.arg):
            for passed in passed_arguments(model, definition):
                yield from config_entries(model, passed, depth + 1)
        else:
            yield from config_entries(model, definition, depth + 1)
    for source in unpacked_sources(model, name):  # `space, valid = build_space(data)`
        yield from config_entries(model, source, depth + 1)
    for update in updates:
        yield from _update_entries(model, update, depth)


def _update_entries(model, stmt: ast.stmt, depth: int) -> Iterator[ConfigEntry]:
    if isinstance(stmt, ast.Assign):  # cfg["k"] = v
        key, literal = _key_text(stmt.targets[0].slice)
        yield ConfigEntry(key, literal, stmt.value, stmt)
    elif isinstance(stmt, ast.AugAssign):  # cfg |= {...}
        yield from config_entries(model, stmt.value, depth + 1)
    elif stmt.value.func.attr == "update":  # cfg.update({...}, k=v)
        call = stmt.value
        for arg in call.args[:1]:
            yield from config_entries(model, arg, depth + 1)
        yield from _keyword_entries(model, call, depth)


def _key_text(key: ast.AST) -> Tuple[str, bool]:
    if isinstance(key, ast.Constant) and isinstance(key.value, str):
        return key.value, True
    return ast.unparse(key), False


# ------------------------------------------------------------ reaching bindings
def reaching_bindings(model, name: ast.Name) -> Tuple[List[ast.AST], List[ast.stmt]]:
    """What `name` can hold at this use, flow-insensitively but in source order: the value
    expressions (or the `ast.arg` of a parameter) of the bindings that reach it, and the
    statements that update the object in place (`name[k] = v`, `name.update(...)`) since.

    Walks back from the use to the latest binding that dominates it (one in a block that
    contains the use); bindings in branches on the way are kept too (a may-analysis).
    """
    unit = model.unit_of(name)
    definitions, updates, dominated = _bindings_before(model, unit, name.id, name)
    if not dominated:
        param = _parameter(unit, name.id)
        if param is not None:
            definitions.append(param)
        elif not isinstance(unit, ast.Module) and (
                not _scope_bindings(model, unit, name.id) or _declared_global(unit, name.id)):
            more, more_updates, _ = _bindings_before(model, model.tree, name.id, None)
            definitions += more
            updates += more_updates
    return definitions, updates


def _bindings_before(model, unit, name_id: str, use: Optional[ast.AST]):
    use_stmt = model.statement_of(use) if use is not None else None
    limit = _position(use) if use is not None else (float("inf"), 0)
    loops = model.loops_around(use) if use is not None else []
    definitions: List[ast.AST] = []
    updates: List[ast.stmt] = []
    dominated = False
    for stmt, kind, payload in reversed(_scope_bindings(model, unit, name_id)):
        before = _position(stmt) < limit
        if kind == "update":
            if before or any(model.is_inside(stmt, loop) for loop in loops):
                updates.append(stmt)
            continue
        if not before or stmt is use_stmt:
            continue
        if payload is not None:
            definitions.append(payload)
        if use_stmt is None or _dominates(model, stmt, use_stmt):
            dominated = True
            first = _position(stmt)
            updates = [u for u in updates if _position(u) > first]
            break
    return definitions, updates, dominated


def _scope_bindings(model, unit, name_id: str) -> List[Tuple[ast.stmt, str, Optional[ast.AST]]]:
    """(statement, "define" | "update", bound value) for `name_id` in the unit's own scope,
    in source order. A definition whose value is not an expression (a loop target, an
    unpacked tuple) has value None: it hides earlier bindings but holds no known dict."""
    key = ("tune_scope_bindings", unit)
    table = model._memo.get(key)
    if table is None:
        table = {}
        for stmt in _scope_statements(unit):
            for bound, kind, payload in _stmt_bindings(stmt):
                table.setdefault(bound, []).append((stmt, kind, payload))
        for entries in table.values():
            entries.sort(key=lambda entry: _position(entry[0]))
        model._memo[key] = table
    return table.get(name_id, [])


# Methods that change a container in place: an update of the name's object, not a new binding.
_IN_PLACE_METHODS = frozenset({"update", "append", "extend", "insert", "add", "setdefault"})


def _stmt_bindings(stmt: ast.stmt) -> Iterator[Tuple[str, str, Optional[ast.AST]]]:
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                yield target.id, "define", stmt.value
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and len(stmt.targets) == 1:
                yield target.value.id, "update", None
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(stmt.value, (ast.Tuple, ast.List)) \
                    and len(target.elts) == len(stmt.value.elts) and all(isinstance(e, ast.Name) for e in target.elts):
                # `N_SAMPLES, N_FEATURES = 2000, 32`: each name its element
                for elt, part in zip(target.elts, stmt.value.elts):
                    yield elt.id, "define", part
            else:
                for leaf in walk(target):
                    if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store):
                        yield leaf.id, "define", None
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        yield stmt.target.id, "define", stmt.value
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        kind = "update" if isinstance(stmt.op, ast.BitOr) else "define"
        yield stmt.target.id, kind, None
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        # (`rows.append(...)` grows a list bound to a literal: no longer a small literal)
        if isinstance(func, ast.Attribute) and func.attr in _IN_PLACE_METHODS and isinstance(func.value, ast.Name):
            yield func.value.id, "update", None
    elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
        targets = [stmt.target] if isinstance(stmt, (ast.For, ast.AsyncFor)) else \
            [item.optional_vars for item in stmt.items if item.optional_vars is not None]
        for target in targets:
            for leaf in walk(target):
                if isinstance(leaf, ast.Name):
                    yield leaf.id, "define", None
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt.name, "define", None


def _scope_statements(unit) -> Iterator[ast.stmt]:
    stack = list(reversed(unit.body))
    while stack:
        stmt = stack.pop()
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("handlers", "finalbody", "orelse", "body"):
            for child in reversed(getattr(stmt, field, []) or []):
                if isinstance(child, ast.ExceptHandler):
                    stack.extend(reversed(child.body))
                elif isinstance(child, ast.stmt):
                    stack.append(child)
        for case in reversed(getattr(stmt, "cases", []) or []):
            stack.extend(reversed(case.body))


def _declared_global(unit, name_id: str) -> bool:
    return any(isinstance(n, ast.Global) and name_id in n.names for n in walk(unit))


def _dominates(model, stmt: ast.stmt, use_stmt: ast.stmt) -> bool:
    """The block holding `stmt` also holds the use (or a statement that contains it)."""
    parent = model.parent(stmt)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return any(s is use_stmt or model.is_inside(use_stmt, s) for s in block)
    return False


def _parameter(unit, name_id: str) -> Optional[ast.arg]:
    if not isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for arg in named_parameters(unit):
        if arg.arg == name_id:
            return arg
    return None


def passed_arguments(model, param: ast.arg) -> List[ast.expr]:
    """The expressions call sites in this module pass for a parameter (its default when a
    call site leaves it out)."""
    func = model.parent(param)
    while func is not None and not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        func = model.parent(func)
    if func is None:
        return []
    index = model.argument_position(func, param)
    default = default_of(func, param)
    out: List[ast.expr] = []
    for site in model.call_sites(func):
        passed = _keyword(site, param.arg)
        if passed is None and index is not None and 0 <= index < len(site.args):
            passed = site.args[index]
            if any(isinstance(a, ast.Starred) for a in site.args[:index + 1]):
                passed = None
        elif passed is None:
            passed = default
        if passed is not None:
            out.append(passed)
    return out


def _passed_by_other_modules(model, param: ast.arg) -> Optional[Weight]:
    """A model, dataset or DataLoader that a call site in another module of the project passes
    for the parameter (`build_param_space(train_ds)` in the driver, from its summary)."""
    from torchleaklint.project.summary import decode

    func = model.unit_of(param)
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or model.project is None:
        return None
    index = model.argument_position(func, param)
    for site in model.external_sites(func):
        encoded = site["kw"].get(param.arg)
        if encoded is None and index is not None and 0 <= index < len(site["a"]) and not site.get("spread"):
            encoded = site["a"][index]
        value = decode(encoded) if encoded is not None else None
        if value is None:
            continue
        if value.kind == MODULE and not value.frozen:
            return Weight(f"an `nn.Module` instance (passed at {model.project.label(site)})", MODULE)
        if value.kind == DATASET:
            return Weight(f"a dataset (passed at {model.project.label(site)})", DATASET)
        if value.kind == DATALOADER:
            return Weight(f"a `DataLoader` (passed at {model.project.label(site)})", DATALOADER)
        weighed = (site.get("wt") or {}).get(param.arg if param.arg in site["kw"] else str(index))
        if weighed is not None and value.kind in (DATA, UNKNOWN) + tuple(TENSORISH):
            return Weight(f"{weighed} (passed at {model.project.label(site)})", DATA)
    return None


# ------------------------------------------------------------------- weights
# torch.nn classes whose instances hold no parameters or buffers (activations, dropout,
# pooling, padding, reshaping): tiny to pickle, so not worth a finding. Checked against
# the installed torch by tests/test_tune_semantics.py.
PARAMETER_FREE_NN_CLASSES = frozenset({
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d", "AlphaDropout", "AvgPool1d", "AvgPool2d", "AvgPool3d", "CELU", "ChannelShuffle",
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "CosineSimilarity", "CrossMapLRN2d", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "ELU",
    "FeatureAlphaDropout", "Flatten", "Fold", "FractionalMaxPool2d", "FractionalMaxPool3d", "GELU", "GLU",
    "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "Identity", "LPPool1d", "LPPool2d", "LPPool3d",
    "LeakyReLU", "LocalResponseNorm", "LogSigmoid", "LogSoftmax", "MaxPool1d", "MaxPool2d", "MaxPool3d",
    "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Mish", "PairwiseDistance", "PixelShuffle", "PixelUnshuffle",
    "RReLU", "ReLU", "ReLU6", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "SELU", "SiLU", "Sigmoid", "Softmax", "Softmax2d", "Softmin",
    "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold", "Unflatten", "Unfold", "Upsample",
    "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
})

# Functions that read a whole data file into memory.
_LOADERS = frozenset({
    "numpy.load", "numpy.loadtxt", "numpy.genfromtxt", "numpy.fromfile", "torch.load", "scipy.io.loadmat",
    "datasets.load_dataset", "datasets.load_from_disk", "joblib.load",
})
# Constructors that copy their (non-literal) argument into a new array, tensor or frame.
_COPYING_CONSTRUCTORS = frozenset({
    "numpy.array", "numpy.asarray", "numpy.stack", "numpy.concatenate", "numpy.vstack", "numpy.hstack",
    "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.stack", "torch.cat", "torch.Tensor",
    "pandas.DataFrame", "pandas.Series", "pandas.concat", "pandas.merge",
})
# Factories whose positional arguments (or `size=`) are the shape.
_SHAPE_FACTORIES = frozenset({
    "torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.full",
    "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.random.rand", "numpy.random.randn",
    "numpy.random.random", "numpy.random.normal", "numpy.random.uniform", "numpy.random.randint",
    "torch.randint", "numpy.random.poisson", "numpy.random.exponential", "numpy.random.binomial",
    "numpy.random.gamma",
})
_SHAPE_IS_TUPLE_ARG = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.random.random",
                                 "torch.randint", "numpy.random.normal", "numpy.random.uniform",
                                 "numpy.random.randint", "numpy.random.poisson", "numpy.random.exponential",
                                 "numpy.random.binomial", "numpy.random.gamma"})
_ARRAY_KINDS = frozenset({DATA, SEQUENCE}) | TENSORISH
LARGE_ELEMENTS = 1_024  # 4 kB of float32 per trial and per result record: data, not a setting (a 256x1x3x3 filter bank is)
# Methods that reduce data to a number or a small summary, or hand out a small slice.
_SMALL_RESULT_METHODS = frozenset({
    "item", "tolist", "sum", "mean", "std", "var", "min", "max", "median", "nunique", "count", "numel", "dim",
    "size", "any", "all", "argmax", "argmin", "norm", "head", "tail", "describe", "info", "keys", "get",
    "__len__", "memory_usage",
})
# Attributes of an array / frame / tensor that are the bulk data themselves.
_BULK_ATTRIBUTES = frozenset({"values", "T", "mT", "data", "array"})


@dataclass(frozen=True)
class Weight:
    """Why a value is heavy to serialize: what it is, in words a user recognizes."""

    what: str  # "an `nn.Module` instance", "a `DataFrame` read by `pd.read_csv(...)`"
    kind: str  # MODULE, DATASET, DATALOADER or DATA


def weight_of(model, expr: ast.AST, depth: int = 0) -> Optional[Weight]:
    """A Weight when `expr` is an object too big to put in a Tune config, else None."""
    if depth > MAX_DEPTH:
        return None
    value = model.value(expr)
    if value.kind == "ref" and isinstance(expr, ast.Name):
        return _imported_variable_weight(model, expr)  # a name another module of the project defines
    if value.kind == MODULE:
        if _only_parameter_free_modules(model, expr):
            return None
        return Weight("an `nn.Module` instance", MODULE)
    if value.kind == DATALOADER:
        return Weight("a `DataLoader`", DATALOADER)
    if value.kind == DATASET:
        origin = _origin_call_text(model, expr)
        return Weight(f"a dataset (`{origin}`)" if origin else "a `Dataset`", DATASET)
    # (a dict display only when reached through a name or a call: a config's own nested dict
    # is walked entry by entry, each reported where it is written)
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)) or isinstance(expr, ast.Dict) and depth > 0:
        parts = expr.values if isinstance(expr, ast.Dict) else expr.elts
        for elt in parts:
            inner = weight_of(model, elt.value if isinstance(elt, ast.Starred) else elt, depth + 1)
            if inner is not None:
                return Weight(f"a {type(expr).__name__.lower()} holding {inner.what}", inner.kind)
        return None
    if value.kind in (DATA, SEQUENCE, UNKNOWN) or value.kind in TENSORISH:
        return _bulk_data(model, expr, depth)
    if value.kind == INSTANCE and value.name in model.classes:
        return _held_data(model, value.name, depth)
    return None


def _held_data(model, class_name: str, depth: int) -> Optional[Weight]:
    """An object of a class of this module whose `__init__` keeps bulk data on `self`
    (`self.x = torch.randn(num_nodes, feat_dim)` in a graph-holding `DrugCombDb`): it
    travels with the object into every trial."""
    init = model.classes[class_name].methods.get("__init__")
    if init is None:
        return None
    for node in walk(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute) \
                and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == "self":
            inner = weight_of(model, node.value, depth + 1)
            if inner is not None and inner.kind == DATA:
                return Weight(f"a `{class_name}` holding {inner.what} in `self.{node.targets[0].attr}`", DATA)
    return None


def _bulk_data(model, expr: ast.AST, depth: int) -> Optional[Weight]:
    if depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        definitions, _ = reaching_bindings(model, expr)
        for definition in definitions:
            sources = passed_arguments(model, definition) if isinstance(definition, ast.arg) else [definition]
            for source in sources:
                found = weight_of(model, source, depth + 1)
                if found is not None:
                    return found
            if isinstance(definition, ast.arg):
                found = _passed_by_other_modules(model, definition)
                if found is not None:
                    return found
        if not definitions:
            return _imported_variable_weight(model, expr) or _unpacked_weight(model, expr, depth)
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _ELEMENTWISE):
        # broadcasting never shrinks an array: `x + noise`, `scale * x` are as big as x
        return _bulk_data(model, expr.left, depth + 1) or _bulk_data(model, expr.right, depth + 1)
    if isinstance(expr, ast.Subscript):
        found = _bulk_data(model, expr.value, depth + 1)
        if found is not None and isinstance(expr.slice, ast.Slice) and not found.what.startswith("a slice of"):
            return Weight(f"a slice of {found.what}", found.kind)  # (`x[: n * 3 // 4]`: most of it, as a rule)
        return found
    if isinstance(expr, ast.Attribute):
        if expr.attr in _BULK_ATTRIBUTES:
            return _bulk_data(model, expr.value, depth + 1)
        # `self.adata` in a method, bound once in `__init__` (`self.adata = adata`): what the
        # constructor was handed (`Autotune(load_counts())`)
        source = _set_once_at_construction(model, expr)
        return weight_of(model, source, depth + 1) if source is not None else None
    if isinstance(expr, ast.IfExp):
        return _bulk_data(model, expr.body, depth + 1) or _bulk_data(model, expr.orelse, depth + 1)
    if isinstance(expr, ast.Call):
        return _bulk_call(model, expr, depth)
    return None


def _bulk_call(model, call: ast.Call, depth: int) -> Optional[Weight]:
    qual = model.qualname(call.func) or ""
    text = _callee_text(call)
    returned = _returned_by_other_module(model, qual, text) or _returned_by_local_function(model, call, depth)
    if returned is not None:
        return returned
    if qual in _LOADERS or qual.startswith("pandas.read_"):
        noun = "a `DataFrame`" if qual.startswith("pandas.") else "data"
        return Weight(f"{noun} loaded by `{text}(...)`", DATA)
    if qual in _COPYING_CONSTRUCTORS:
        data = [a for a in _data_arguments(call) if not _is_literal(model, a) and model.value(a).kind != SCALAR]
        # (the parts of `torch.cat([x, y], 1)` themselves: the result is as big as they are)
        parts = [e for arg in data for e in (arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg])]
        for arg in parts:
            inner = weight_of(model, arg.value if isinstance(arg, ast.Starred) else arg, depth + 1)
            if inner is not None:
                return inner  # name the origin: `torch.tensor(np.load(p))` is data loaded by np.load
        # torch.tensor(x) of an unknown x is as often a number (a loss, a reward) as data;
        # numpy and pandas constructors are for arrays.
        if any(qual.startswith(("numpy.", "pandas.")) or model.value(a).kind in _ARRAY_KINDS for a in data):
            return Weight(f"data copied into `{text}(...)`", DATA)
        return None
    if qual in _ELEMENTWISE_FUNCTIONS and call.args:
        # `torch.poisson(torch.rand(4000, 64) * 3)`, `np.log1p(counts)`: as big as the input
        return _bulk_data(model, call.args[0], depth + 1)
    qual = _generator_method(model, call) or qual
    count = _element_count(model, call)
    if count is not None and count >= LARGE_ELEMENTS and qual not in _SHAPE_FACTORIES:
        what = "an array" if _made_by_numpy(model, call) else "a tensor"
        return Weight(f"{what} of {count:,} elements (`{text}(...)`)", DATA)
    if qual in _SHAPE_FACTORIES:
        shape = _literal_shape(model, call, qual)
        if shape and _product(shape) >= LARGE_ELEMENTS:
            dims = "x".join(str(d) for d in shape)
            return Weight(f"a {dims} array (`{text}(...)`)", DATA)
        return None
    func = call.func
    if not isinstance(func, ast.Attribute) or qual or func.attr in _SMALL_RESULT_METHODS:
        return None
    owner = weight_of(model, func.value, depth + 1)
    if owner is None or owner.kind == DATALOADER:
        return None
    if owner.kind == MODULE:  # net.to(device) is the module; net.state_dict() its weights
        if func.attr == "state_dict":
            return Weight("a model's `state_dict()`", DATA)
        return owner if func.attr in torch_api.MODULE_SELF_METHODS else None
    return owner  # df.dropna(), x.float(), arr.reshape(...), dataset.map(...)


# Ranges whose length is an argument: (qualified name, position of the count, its keyword)
_COUNTED_RANGES = {"torch.linspace": (2, "steps"), "torch.logspace": (2, "steps"),
                   "numpy.linspace": (2, "num"), "numpy.logspace": (2, "num")}
# Methods that copy their receiver's elements as many times as their integer arguments say.
_REPEATING_METHODS = frozenset({"repeat", "tile"})
_SAME_SIZE_METHODS = frozenset({"float", "double", "half", "to", "cpu", "cuda", "clone", "contiguous", "reshape",
                                "view", "flatten", "t", "numpy", "astype", "copy"})


def _made_by_numpy(model, call: ast.Call) -> bool:
    """Is the call, or the first call of its method chain, a numpy function
    (`np.random.randn(n, d).astype("float32")`)?"""
    origin = call
    while isinstance(origin.func, ast.Attribute) and isinstance(origin.func.value, ast.Call):
        origin = origin.func.value
    return (model.qualname(origin.func) or "").startswith("numpy.")


def _element_count(model, expr: ast.AST, depth: int = 0) -> Optional[int]:
    """How many elements the array `expr` builds holds, when its sizes are known:
    `torch.linspace(0, 6.28, 200)` 200, `torch.sin(x)` as many as `x`, `x.repeat(256, 1)`
    256 times as many, `torch.arange(n)` n, a shape factory its shape's product."""
    if depth > MAX_DEPTH or not isinstance(expr, ast.Call):
        return None
    qual = model.qualname(expr.func) or ""
    if qual in _SHAPE_FACTORIES:
        shape = _literal_shape(model, expr, qual)
        return _product(shape) if shape else None
    if qual in _COUNTED_RANGES:
        position, keyword = _COUNTED_RANGES[qual]
        steps = _keyword(expr, keyword) or (expr.args[position] if len(expr.args) > position else None)
        return _int_value(model, steps) if steps is not None else None
    if qual in ("torch.arange", "numpy.arange") and 1 <= len(expr.args) <= 3 and not expr.keywords:
        bounds = [_int_value(model, a) for a in expr.args]
        if any(b is None for b in bounds):
            return None
        start, end, step = (0, bounds[0], 1) if len(bounds) == 1 else (bounds[0], bounds[1], bounds[2] if len(bounds) == 3 else 1)
        return max(0, (end - start + step - 1) // step) if step > 0 else None
    if qual in _ELEMENTWISE_FUNCTIONS and expr.args:
        return _element_count(model, expr.args[0], depth + 1)
    func = expr.func
    if isinstance(func, ast.Attribute) and not qual:
        inner = _element_count(model, func.value, depth + 1)
        if inner is None:
            return None
        if func.attr in _SAME_SIZE_METHODS:
            return inner
        if func.attr in _REPEATING_METHODS and expr.args and not expr.keywords:
            factors = _ints(model, expr.args[0].elts if len(expr.args) == 1 and isinstance(expr.args[0], ast.Tuple)
                            else expr.args)
            return inner * _product(factors) if factors else None
    return None


def _returned_by_local_function(model, call: ast.Call, depth: int) -> Optional[Weight]:
    """`task_data = load_tasks(root)` where `load_tasks`, a function of this module, returns
    something that weighs (`{"x": np.load(...), ...}`) on one of its own returns."""
    for returned in _local_returns(model, call) or ():
        found = weight_of(model, returned, depth + 1)
        if found is not None:
            return Weight(f"{found.what} (returned by `{call.func.id}()`)", found.kind)
    return None


def _local_returns(model, call: ast.Call) -> Optional[List[ast.expr]]:
    """The values the module function `call` runs returns (its own `return` statements, not
    those of functions nested in it; of each function a loop hands the called name, see
    `iterated_functions`); None when `call` runs no function of this module."""
    func = call.func
    if not isinstance(func, ast.Name):
        return None
    if func.id in model.module_functions and model.qualname(func) is None:
        functions = [model.module_functions[func.id]]
    else:  # `for build in (make_a, make_b): space = build()`: what each of them returns
        functions = model.iterated_functions(func)
        if functions is None:
            return None
    return [node.value for local in functions for node in walk(local)
            if isinstance(node, ast.Return) and node.value is not None and model.unit_of(node) is local]


_ELEMENTWISE = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
# Functions whose result has the shape of their first argument (element by element).
_ELEMENTWISE_FUNCTIONS = frozenset(
    f"{lib}.{name}" for lib in ("torch", "numpy")
    for name in ("poisson", "bernoulli", "exp", "log", "log1p", "expm1", "abs", "sqrt", "square", "sign", "round",
                 "floor", "ceil", "clip", "clamp", "sigmoid", "tanh", "relu", "nan_to_num", "where", "float32",
                 "sin", "cos", "tan", "sinh", "cosh", "arcsin", "arccos", "arctan", "asin", "acos", "atan", "neg",
                 "negative", "reciprocal", "rsqrt", "erf"))


def _unpacked_weight(model, name: ast.Name, depth: int) -> Optional[Weight]:
    """`noisy, clean = make_pairs(...)`: the weight of the element the name unpacks, when
    the latest binding of the name before its use is such an unpacking of a call whose
    returned tuple is known element by element (a function of this module, or of another
    module of the project: its summary's `weights`)."""
    found = nested_unpacking_of(model, name)
    if found is None:
        return None
    call, path = found
    if len(path) > 1:  # `(x_train, y_train), (x_valid, y_valid) = get_data()` of this module
        return _nested_returned_weight(model, call, path, depth)
    return _returned_element_weight(model, call, path[0][0], path[0][1], depth)


def _nested_returned_weight(model, call: ast.Call, path, depth: int) -> Optional[Weight]:
    """The weight of the item at `path` of the nested tuples a function of this module
    returns (`return (x[:n], y[:n]), (x[n:], y[n:])`)."""
    for returned in _local_returns(model, call) or ():
        for index, size in path:
            if not (isinstance(returned, ast.Tuple) and len(returned.elts) == size):
                returned = None
                break
            returned = returned.elts[index]
        found = weight_of(model, returned, depth + 1) if returned is not None else None
        if found is not None:
            return found
    return None


def unpacked_sources(model, name: ast.Name) -> List[ast.expr]:
    """`trainable, config = build_search(...)`: the expressions a function of this module
    returns in the place the name unpacks (`trainable` of `return trainable, config`)."""
    found = _unpacking_of(model, name)
    if found is None:
        return []
    call, index, size = found
    return [r.elts[index] for r in _local_returns(model, call) or ()
            if isinstance(r, ast.Tuple) and len(r.elts) == size]


def _unpacking_of(model, name: ast.Name) -> Optional[Tuple[ast.Call, int, int]]:
    """(call, position, tuple size) when the latest binding of `name` before this use
    unpacks a call's result into a flat tuple (`a, b = f(...)`), else None (see
    `nested_unpacking_of`)."""
    found = nested_unpacking_of(model, name)
    if found is None or len(found[1]) != 1:
        return None
    call, [(index, size)] = found
    return call, index, size


def nested_unpacking_of(model, name: ast.Name) -> Optional[Tuple[ast.Call, List[Tuple[int, int]]]]:
    """(call, path) when the latest binding of `name` before this use unpacks a call's
    result, also through nested tuples (`(x_train, y_train), (x_valid, y_valid) =
    get_data()`): the path is (position, tuple size) per level, outermost first. A function
    reading a module-level name it does not bind (`TRAIN_X, TRAIN_Y = make_data(8192)` at the
    top) reads the module's last such binding."""
    unit = model.unit_of(name)
    limit = _position(name)
    if not isinstance(unit, ast.Module) and _parameter(unit, name.id) is None and (
            not _scope_bindings(model, unit, name.id) or _declared_global(unit, name.id)):
        unit, limit = model.tree, (float("inf"), 0)
    for stmt, kind, _ in reversed(_scope_bindings(model, unit, name.id)):
        if kind != "define" or _position(stmt) >= limit:
            continue
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Call)
                and isinstance(stmt.targets[0], (ast.Tuple, ast.List))):
            return None
        path = _unpacking_path(stmt.targets[0], name.id)
        return (stmt.value, path) if path is not None else None
    return None


def _unpacking_path(target: ast.AST, name_id: str) -> Optional[List[Tuple[int, int]]]:
    """The (position, size) steps from an unpacking target down to the name, None when the
    name is not there or a starred item before it hides its position."""
    if not isinstance(target, (ast.Tuple, ast.List)):
        return None
    for index, elt in enumerate(target.elts):
        if any(isinstance(e, ast.Starred) for e in target.elts[:index + 1]):
            return None
        if isinstance(elt, ast.Name) and elt.id == name_id:
            return [(index, len(target.elts))]
        inner = _unpacking_path(elt, name_id)
        if inner is not None:
            return [(index, len(target.elts))] + inner
    return None


def bulk_parameter(model, expr: ast.AST, depth: int = 0) -> Optional[ast.arg]:
    """The parameter of the enclosing function `expr` is as big as, when it is that parameter
    or a slice, a same-size conversion or an element-wise result of it (`series[:-n]`,
    `(x - mean) / std`, `X.astype(np.float32)`), and the parameter is not rebound first:
    what a caller passes there decides the weight (`train, valid = split(series)`)."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        definitions, updates = reaching_bindings(model, expr)
        if len(definitions) == 1 and isinstance(definitions[0], ast.arg) and not updates:
            return definitions[0]
        return None
    if isinstance(expr, ast.Subscript):
        return bulk_parameter(model, expr.value, depth + 1)
    if isinstance(expr, ast.Attribute) and expr.attr in _BULK_ATTRIBUTES:
        return bulk_parameter(model, expr.value, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _ELEMENTWISE):
        return bulk_parameter(model, expr.left, depth + 1) or bulk_parameter(model, expr.right, depth + 1)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _SAME_SIZE_METHODS \
            and not model.qualname(expr.func):
        return bulk_parameter(model, expr.func.value, depth + 1)
    return None


def _returned_element_weight(model, call: ast.Call, index: int, size: int, depth: int) -> Optional[Weight]:
    func = call.func
    returns = _local_returns(model, call)
    if returns is not None:
        for returned in returns:
            if isinstance(returned, ast.Tuple) and len(returned.elts) == size:
                found = weight_of(model, returned.elts[index], depth + 1)
                if found is not None:
                    return found
        return None
    qual = model.qualname(func)
    if model.project is None or not qual:
        return None
    found = model.project.imported_summary(qual)
    if found is None or found[0] != "function" or not found[1]:
        return None
    weights = found[1].get("weights") or []
    where = model.project.definition_label(found[2], found[1]["line"])
    if len(weights) == size and weights[index]:
        weight = weights[index]
        return Weight(f"{weight['what']} (returned by `{_callee_text(call)}()`, {where})", weight["kind"])
    templates = found[1].get("wdims") or []
    if len(templates) == size and templates[index]:
        weight = sized_by_arguments(model, call, templates[index], summary_parameters(found[1]))
        if weight is not None:
            return Weight(f"{weight.what} (returned by `{_callee_text(call)}()`, {where})", weight.kind)
    sources = found[1].get("wfrom") or []
    if len(sources) != size or sources[index] is None:
        return None
    argument = argument_at(call, sources[index], summary_parameters(found[1]))
    inner = weight_of(model, argument, depth + 1) if argument is not None else None
    if inner is None or inner.kind != DATA:
        return None
    return Weight(f"{inner.what}, through `{_callee_text(call)}()` ({where})", DATA)


def _data_arguments(call: ast.Call) -> List[ast.expr]:
    args = list(call.args[:1])
    if not args:
        args = [kw.value for kw in call.keywords if kw.arg in ("data", "object", "objs", "ndarray", "tensors")]
    return args


def _is_literal(model, expr: ast.AST, depth: int = 0) -> bool:
    """A literal (numbers, strings, nested lists/tuples of them), also through a name bound
    to one in this function."""
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.UnaryOp):
        return _is_literal(model, expr.operand, depth)
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        return all(_is_literal(model, e, depth) for e in expr.elts)
    if isinstance(expr, ast.Name) and depth < 2:
        definitions, updates = reaching_bindings(model, expr)
        return bool(definitions) and not updates and all(
            not isinstance(d, ast.arg) and _is_literal(model, d, depth + 1) for d in definitions)
    return False


# numpy Generator methods (`np.random.default_rng(0).standard_normal((n, d))`) and the
# module-level function whose shape argument sits at the same place
_GENERATOR_METHODS = {"standard_normal": "numpy.random.random", "random": "numpy.random.random",
                      "normal": "numpy.random.normal", "uniform": "numpy.random.uniform",
                      "integers": "numpy.random.randint", "poisson": "numpy.random.poisson",
                      "exponential": "numpy.random.exponential", "binomial": "numpy.random.binomial",
                      "gamma": "numpy.random.gamma"}
_GENERATORS = frozenset({"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator"})


def _generator_method(model, call: ast.Call) -> Optional[str]:
    """The shape factory a call of a numpy random Generator's method stands for, made on
    `np.random.default_rng(...)` itself or on a name bound to one."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _GENERATOR_METHODS:
        return None
    owner = func.value
    if isinstance(owner, ast.Name):
        definitions, _ = reaching_bindings(model, owner)
        if len(definitions) != 1 or isinstance(definitions[0], ast.arg):
            return None
        owner = definitions[0]
    if isinstance(owner, ast.Call) and (model.qualname(owner.func) or "") in _GENERATORS:
        return _GENERATOR_METHODS[func.attr]
    return None


def _literal_shape(model, call: ast.Call, qual: str) -> Optional[List[int]]:
    dims = _shape_arguments(call, qual)
    return _ints(model, dims) if dims is not None else None


def shape_template(model, expr: ast.AST) -> Optional[dict]:
    """For a function's summary: the shape of the array `expr` makes (a shape factory, directly
    or through a local bound once), with each size a number or the function's parameter it
    is (`torch.randn(n, dim)` in `def make_data(n, dim=8)`): `{"f": "torch.randn", "d":
    [{"p": "n", "i": 0}, {"p": "dim", "i": 1, "v": 8}]}` (`i` its position, `v` its
    default). A caller then knows the size its arguments give. None when a size is neither."""
    call = expr if isinstance(expr, ast.Call) else _made_by(model, expr)
    qual = model.qualname(call.func) if call is not None and isinstance(call.func, (ast.Name, ast.Attribute)) else None
    if qual not in _SHAPE_FACTORIES:
        return None
    dims = _shape_arguments(call, qual)
    func = model.unit_of(call)
    if not dims or not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    out = []
    for dim in dims:
        number = _int_value(model, dim)
        param = _plain_parameter(model, dim) if number is None else None
        if number is not None:
            out.append(number)
        elif param is not None:
            entry = {"p": param.arg, "i": model.argument_position(func, param)}
            default = _default_of_parameter(model, param)
            value = _int_value(model, default, 1) if default is not None else None
            if value is not None:
                entry["v"] = value
            out.append(entry)
        else:
            return None
    if all(isinstance(d, int) for d in out):
        return None  # (a fixed size: the function's own weight says it)
    return {"f": qual, "d": out}


def _shape_arguments(call: ast.Call, qual: str) -> Optional[List[ast.expr]]:
    """The size expressions of a shape factory call, as `_literal_shape` reads them."""
    size = _keyword(call, "size") or _keyword(call, "shape")
    if size is None:
        if qual in _SHAPE_IS_TUPLE_ARG:
            position = {"torch.randint": 2, "numpy.random.normal": 2, "numpy.random.uniform": 2,
                        "numpy.random.randint": 2, "numpy.random.poisson": 1, "numpy.random.exponential": 1,
                        "numpy.random.binomial": 2, "numpy.random.gamma": 2}.get(qual, 0)
            size = call.args[position] if len(call.args) > position else None
        else:
            dims = call.args[:-1] if qual == "torch.full" else call.args
            if len(dims) == 1 and isinstance(dims[0], (ast.Tuple, ast.List)):
                size = dims[0]
            else:
                return list(dims)
    if size is None:
        return None
    return list(size.elts) if isinstance(size, (ast.Tuple, ast.List)) else [size]


def _plain_parameter(model, expr: ast.AST) -> Optional[ast.arg]:
    """The parameter of the enclosing function `expr` names, not rebound before."""
    if not isinstance(expr, ast.Name):
        return None
    definitions, updates = reaching_bindings(model, expr)
    if len(definitions) == 1 and isinstance(definitions[0], ast.arg) and not updates:
        return definitions[0]
    return None


def sized_by_arguments(model, call: ast.Call, template: dict, parameters: List[str]) -> Optional[Weight]:
    """The weight of an array a function of another module makes with sizes its parameters
    give (`shape_template`), for the arguments of this call (an argument left out: the
    parameter's default)."""
    shape = []
    for dim in template["d"]:
        if isinstance(dim, int):
            shape.append(dim)
            continue
        argument = argument_at(call, parameters.index(dim["p"]), parameters) if dim["p"] in parameters else None
        number = _int_value(model, argument) if argument is not None else dim.get("v")
        if number is None:
            return None
        shape.append(number)
    if _product(shape) < LARGE_ELEMENTS:
        return None
    text = template["f"].replace("numpy.", "np.")
    return Weight(f"a {'x'.join(str(d) for d in shape)} array (`{text}(...)`)", DATA)


def _ints(model, exprs) -> Optional[List[int]]:
    out = []
    for expr in exprs:
        number = _int_value(model, expr)
        if number is None:
            return None
        out.append(number)
    return out or None


def _imported_variable_weight(model, name: ast.Name) -> Optional[Weight]:
    """A module-level variable of another module of the project (`from hpsearch.util
    import *` bringing `TRAIN_DF = pd.read_csv(...)`), as its summary weighs it."""
    qual = model.qualname(name)
    if model.project is None or not qual or not model.project.is_first_party(qual):
        return None
    from torchleaklint.semantic.tune_project import resolve_definition

    resolver = model.project.resolver
    found = resolve_definition(resolver, qual)
    if found is None:
        return None
    path, variable = found
    summary = resolver.summary(path)
    entry = ((summary or {}).get("vars") or {}).get(variable)
    resolver.note(path, "vars", variable)
    if entry is None:
        return None
    where = model.project.definition_label(path, entry["line"])
    return Weight(f"{entry['what']} (`{variable}`, {where})", entry["kind"])


def _returned_by_other_module(model, qual: str, text: str) -> Optional[Weight]:
    """A first-party function of another module returning bulk data (its summary says what)."""
    if model.project is None or not qual:
        return None
    found = model.project.imported_summary(qual)
    if found is None or found[0] != "function" or not found[1] or not found[1].get("weight"):
        return None
    weight = found[1]["weight"]
    where = model.project.definition_label(found[2], found[1]["line"])
    return Weight(f"{weight['what']} (returned by `{text}()`, {where})", weight["kind"])


def _int_value(model, expr: ast.AST, depth: int = 0) -> Optional[int]:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
        return expr.value
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Mult, ast.Add)):
        left, right = _int_value(model, expr.left, depth), _int_value(model, expr.right, depth)
        if left is None or right is None:
            return None
        return left * right if isinstance(expr.op, ast.Mult) else left + right
    if isinstance(expr, ast.BoolOp) and isinstance(expr.op, ast.Or) and depth < 4:
        # `n = n or DEFAULTS["n"]`: the first operand that is set
        for operand in expr.values:
            if _none_valued(model, operand):
                continue
            return _int_value(model, operand, depth + 1)
        return None
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape" \
            and isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, int) and depth < 4:
        # `dataset.x.shape[0]` of `self.x = torch.randn(num_nodes, feat_dim)`: that dimension
        made = _made_by(model, expr.value.value)
        qual = model.qualname(made.func) if made is not None and isinstance(made.func, (ast.Name, ast.Attribute)) else None
        if qual in _SHAPE_FACTORIES:
            shape = _literal_shape(model, made, qual)
            if shape and -len(shape) <= expr.slice.value < len(shape):
                return shape[expr.slice.value]
        return None
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and isinstance(expr.slice, ast.Constant):
        table = _module_dict_literal(model, expr.value.id)  # `DEFAULTS["n"]` of a module-level dict
        if table is not None:
            for key, value in zip(table.keys, table.values):
                if isinstance(key, ast.Constant) and key.value == expr.slice.value:
                    return _int_value(model, value, depth + 1)
        return None
    if isinstance(expr, ast.Attribute) and depth < 4:
        source = _set_once_at_construction(model, expr)  # `self.n`, bound once: `self.n = n` in `__init__`
        if source is None:
            source = _argparse_default(model, expr)  # `args.bank_size` of `--bank-size ... default=20000`
        return _int_value(model, source, depth + 1) if source is not None else None
    if isinstance(expr, ast.Name) and depth < 4:
        definitions, _ = reaching_bindings(model, expr)
        if len(definitions) == 1 and not isinstance(definitions[0], ast.arg):
            return _int_value(model, definitions[0], depth + 1)
        if len(definitions) == 1:
            # a parameter (`def build_config(n_rows=150_000)`): what every call site of this
            # module passes, or its default; the smallest of them, so that a size is called
            # large only when every caller makes it so
            passed = passed_arguments(model, definitions[0])
            if not passed:
                given = _integers_passed_by_other_modules(model, definitions[0])
                if given:
                    return min(given)
                default = _default_of_parameter(model, definitions[0])
                passed = [default] if default is not None else []
            values = [_int_value(model, arg, depth + 1) for arg in passed]
            if values and all(v is not None for v in values):
                return min(values)
    return None


def _integers_passed_by_other_modules(model, param: ast.arg) -> Optional[List[int]]:
    """The integer literals every call site in another module passes for the parameter (its
    default where a site leaves it out): `build_param_space(in_dim=8)` in the driver. None when
    a site passes something else, or there is none."""
    func = model.unit_of(param)
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or model.project is None:
        return None
    index = model.argument_position(func, param)
    default = _default_of_parameter(model, param)
    out: List[int] = []
    for site in model.external_sites(func):
        if site.get("spread") or site.get("ut"):
            return None
        numbers = site.get("iv") or {}
        given = numbers.get(param.arg, numbers.get(str(index)) if index is not None else None)
        if given is None and (param.arg in site["kw"] or index is not None and index < len(site["a"])):
            return None  # passed, but not as an integer literal
        if given is None:
            given = _int_value(model, default, 1) if default is not None else None
        if given is None:
            return None
        out.append(given)
    return out or None


def _argparse_default(model, expr: ast.Attribute) -> Optional[ast.expr]:
    """The default of the one command-line option of this module's argument parser that
    `args.<attr>` reads (`parser.add_argument("--bank-size", type=int, default=20000)` for
    `args.bank_size`), when `args` is no object of known kind (the parsed namespace)."""
    if not isinstance(expr.value, ast.Name) or expr.value.id == "self" or model.value(expr.value).kind != UNKNOWN:
        return None
    index = model.cached(("argparse_defaults",), lambda: _argparse_defaults(model))
    found = index.get(expr.attr)
    return found[0] if found is not None and len(found) == 1 else None


def _argparse_defaults(model) -> dict:
    out: dict = {}
    if not any(isinstance(c.func, ast.Attribute) and c.func.attr in ("parse_args", "parse_known_args") for c in model.calls):
        return out
    for call in model.calls:
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "add_argument"):
            continue
        default, dest = _keyword(call, "default"), _keyword(call, "dest")
        names = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
            key = dest.value
        else:
            long = [n for n in names if n.startswith("--")] or [n for n in names if not n.startswith("-")]
            if not long:
                continue
            key = long[0].lstrip("-").replace("-", "_")
        if default is not None:
            out.setdefault(key, []).append(default)
    return out


def _made_by(model, expr: ast.AST) -> Optional[ast.Call]:
    """The call that made the array `expr` names: a local bound once (`x = torch.randn(...)`),
    or an attribute `obj.x` of an object of a class of this module whose `__init__` binds
    `self.x` once (`bound_once_in_init`)."""
    source = None
    if isinstance(expr, ast.Name):
        definitions, _ = reaching_bindings(model, expr)
        source = definitions[0] if len(definitions) == 1 and not isinstance(definitions[0], ast.arg) else None
    elif isinstance(expr, ast.Attribute):
        owner = model.value(expr.value)
        info = model.classes.get(owner.name) if owner.kind == INSTANCE and owner.name else None
        source = bound_once_in_init(info, expr.attr) if info is not None else None
    return source if isinstance(source, ast.Call) else None


def _set_once_at_construction(model, expr: ast.Attribute) -> Optional[ast.expr]:
    """The value `self.<attr>` read in a method was bound to, when the class binds it once,
    in `__init__` (`self.n, self.dim = n, dim` counts only as plain `self.n = n`)."""
    method = model.unit_of(expr)
    info = model.class_of(method) if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    params = method.args.args if info is not None else []
    if not (params and isinstance(expr.value, ast.Name) and expr.value.id == params[0].arg):
        return None
    return bound_once_in_init(info, expr.attr)


def _none_valued(model, expr: ast.AST) -> bool:
    """`None`, or a parameter that every call site of this module leaves at (or passes) None."""
    if isinstance(expr, ast.Constant):
        return expr.value is None
    if not isinstance(expr, ast.Name):
        return False
    definitions, _ = reaching_bindings(model, expr)
    if len(definitions) != 1 or not isinstance(definitions[0], ast.arg):
        return False
    passed = passed_arguments(model, definitions[0]) or [_default_of_parameter(model, definitions[0])]
    return all(isinstance(value, ast.Constant) and value.value is None for value in passed)


def _module_dict_literal(model, name: str) -> Optional[ast.Dict]:
    """The dict literal a module-level name is bound to once (`DEFAULTS = {"n": 2048}`)."""
    found = model.module_assignments(name)
    return found[0].value if len(found) == 1 and isinstance(found[0].value, ast.Dict) else None


def _default_of_parameter(model, param: ast.arg) -> Optional[ast.expr]:
    func = model.parent(param)
    while func is not None and not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        func = model.parent(func)
    return default_of(func, param) if func is not None else None


def _product(shape: List[int]) -> int:
    out = 1
    for dim in shape:
        out *= max(dim, 0)
    return out


def _only_parameter_free_modules(model, expr: ast.AST, depth: int = 0) -> bool:
    """Every constructor that can produce this module value is a parameter-free torch.nn
    class (`nn.ReLU()`): those are a few bytes, not a model."""
    if isinstance(expr, ast.Call):
        qual = model.qualname(expr.func) or ""
        return qual.startswith("torch.nn.") and qual.rsplit(".", 1)[-1] in PARAMETER_FREE_NN_CLASSES
    if isinstance(expr, ast.Name) and depth < 3:
        definitions, _ = reaching_bindings(model, expr)
        return bool(definitions) and all(
            not isinstance(d, ast.arg) and _only_parameter_free_modules(model, d, depth + 1) for d in definitions)
    return False


def _origin_call_text(model, expr: ast.AST, depth: int = 0) -> Optional[str]:
    """`load_dataset` for `load_dataset("imdb")` or a name bound to it: a library call that
    made the value (local classes are described by the value's kind instead)."""
    if isinstance(expr, ast.Call):
        qual = model.qualname(expr.func)
        return _callee_text(expr) if qual and qual.startswith(("datasets.", "torchvision.datasets.")) else None
    if isinstance(expr, ast.Name) and depth < 3:
        definitions, _ = reaching_bindings(model, expr)
        for definition in definitions:
            if not isinstance(definition, ast.arg):
                found = _origin_call_text(model, definition, depth + 1)
                if found:
                    return found
    return None


# ------------------------------------------------------------------- helpers
def _callee_text(call: ast.Call) -> str:
    return dotted(call.func) or ast.unparse(call.func)


def _argument(call: ast.Call, keyword: str, position: int) -> Optional[ast.expr]:
    found = _keyword(call, keyword)
    if found is None and len(call.args) > position and not any(
            isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        found = call.args[position]
    return found


def _position(node) -> Tuple[float, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))
