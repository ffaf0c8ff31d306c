"""Flow-sensitive abstract interpretation of one function: which values carry a graph.

The analysis walks statements in order with an environment `name -> Value`. Branches are
joined (a graph on either path wins: this is a may-analysis), loop bodies run twice so that
values carried from one iteration to the next are seen, and `with torch.no_grad()` regions
turn every computed tensor into a graph-free one. Each expression's value is recorded, so
rules can ask `model.value(expr)` about any expression of the function.

Interprocedural facts come from the model: parameters take the join of the values call
sites in the module pass (a method called with a graph-carrying argument sees a graph), and
calls of functions of the module take the callee's return value (a summary).
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import Dict, List, Optional, Set, Tuple

from torchleaklint.semantic import torch_api
from torchleaklint.semantic.flags import decode_flags, flags_decide_forward
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.values import (
    CLASS, CONTEXT, CUT_V, DATA, DATALOADER, DATASET, FUNCTION, GRAPH, GRAPH_V, INSTANCE, LEAF,
    LOSS_FN, MODULE, NONE, NONE_V, OPTIMIZER, REF, SCALAR, SCALAR_V, SEQUENCE, TENSOR,
    TENSOR_V, TENSORISH, UNKNOWN, UNKNOWN_V, Value, element_of, join, sequence_of, with_field,
)
from torchleaklint.semantic.syntax import (
    FUNCTION_TYPES, INIT_METHODS, bound_once_in_init, called_on_self, default_of, entered_context, is_classmethod,
    is_property, is_staticmethod as _is_static, is_stub, keyword_arg as _kw, named_parameters, nodes_within, passed_argument,
    leaves_a_required_argument, passed_through_positions, positional_parameters, required_positional_count, self_name,
    unpacks_arguments, child_nodes, walk)

MAX_SUMMARY_DEPTH = 3
SCHEDULER = "lr_scheduler"
_OTHER_FRAMEWORKS = ("flax.", "jax.", "haiku.", "equinox.", "tensorflow.", "tf.", "keras.", "paddle.", "mindspore.",
                     "oneflow.", "mlx.", "mxnet.", "jittor.", "megengine.", "chainer.", "tinygrad.")

# Builtins whose result is the join of their (element) arguments.
_JOIN_BUILTINS = frozenset({"sum", "max", "min", "abs", "sorted", "reversed", "next", "iter"})
_SEQUENCE_BUILTINS = frozenset({"list", "tuple", "set", "frozenset"})
_DATA_PREFIXES = ("numpy.", "pandas.", "datasets.load_dataset", "h5py.", "scipy.", "PIL.")
_LOAD_FUNCTIONS = ("torch.load",)
# Functions that split a dataset into datasets (Subsets).
_SPLITTING_FUNCTIONS = frozenset({"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"})
_LEGACY_TENSOR_TYPES = frozenset(f"torch.{prefix}{kind}Tensor" for prefix in ("", "cuda.")
                                  for kind in ("Long", "Float", "Int", "Bool", "Double", "Byte", "Half", "Short")) \
    | {"torch.Tensor"}
_COMBINING_FUNCTIONS = frozenset({"itertools.permutations", "itertools.combinations",
                                  "itertools.combinations_with_replacement"})
# What a forward may return that no autograd graph can be in: numbers, None, the modules it
# built (`rf = nn.Sequential(...)`), arrays, optimizers, loaders.
_NEVER_A_GRAPH = frozenset({SCALAR, NONE, MODULE, DATA, OPTIMIZER, DATALOADER, DATASET})


class FlowResult:
    def __init__(self) -> None:
        self.values: Dict[ast.AST, Value] = {}
        self.returns: Optional[Value] = None
        self.nograd_nodes: Set[ast.AST] = set()
        self.params: Dict[str, Value] = {}
        self.stored: Dict[ast.AST, Value] = {}  # assignment/augassign statement -> value bound
        self.bound_names: Optional[Dict[str, Value]] = None  # name -> join of its bindings, built on demand
        # attribute -> the `self.<attr>` store targets with their values, built on demand (`_self_stores`)
        self.self_stores: Optional[Dict[str, List[Tuple[ast.Attribute, Value]]]] = None
        self.module_params: Set[str] = set()  # parameters some call site in view passes a module for
        # parameters some call site in view passes a Python value (number, None) for: a fix that
        # calls a tensor method on them (`x.detach()`) would fail for that caller
        self.number_params: Set[str] = set()
        # module-level names frozen by top-level code (`for p in teacher.parameters(): p.detach_()`),
        # with where: a function reading the global after its last binding reads a frozen module
        self.frozen_at: Dict[str, Tuple[int, int]] = {}


def analyze_unit(model, unit: ast.AST, params: Optional[Dict[str, Value]] = None, depth: int = 0,
                 constants: Optional[Dict[str, object]] = None) -> FlowResult:
    analyzer = Analyzer(model, unit, depth)
    if constants:
        analyzer.constants = _unrebound(unit, constants)
    if params is None:
        params = analyzer.parameter_values()
    analyzer.result.params = dict(params)
    analyzer.env.update(params)
    body = unit.body if isinstance(unit, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) else []
    if isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
        model.grad_off_decorated(unit) or _framework_runs_without_grad(model, unit)
        or (depth == 0 and _called_only_without_grad(model, unit)) or model.grad_off_at_import()
        or model.grad_off_by_its_constructor(unit)
    ):
        analyzer.nograd = 1
    if isinstance(unit, ast.Module):
        # the module body's bindings so far, for a function its top-level code calls now
        # (`train(data)` at the bottom, reading `_criterion = nn.CrossEntropyLoss()` above)
        model.module_env_so_far = analyzer.env
    try:
        analyzer.block(body)
    finally:
        if isinstance(unit, ast.Module):
            model.module_env_so_far = None
    if isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef)) and not unit.decorator_list \
            and model.yields(unit):
        # a generator function: a call returns the generator, whose items are what it yields
        # (`data = inf_train_gen()` then `real = next(data)`), not what a `return` says
        analyzer.result.returns = sequence_of(analyzer.yielded or UNKNOWN_V)
    return analyzer.result


# Lightning runs these hooks under torch.no_grad() (inference_mode) itself; torchmetrics
# runs a Metric's `update` under `torch.set_grad_enabled(self._enable_grad)`, off by default.
_NO_GRAD_HOOKS = frozenset({"validation_step", "test_step", "predict_step", "update"})


def _framework_runs_without_grad(model, unit) -> bool:
    """Lightning's validation/test/predict steps of a LightningModule (keyed on the base
    class, never on the method name alone: a plain class's `validation_step` runs with
    whatever grad mode its caller has)."""
    return unit.name in _NO_GRAD_HOOKS and model.framework_runs_without_grad(unit)


def _called_only_without_grad(model, unit) -> bool:
    return model.only_called_without_grad(unit)


class Analyzer:
    def __init__(self, model, unit: ast.AST, depth: int):
        self.m = model
        self.unit = unit
        self.depth = depth
        self.env: Dict[str, Value] = {}
        self.result = FlowResult()
        self.nograd = 0
        self.evidence = _backward_evidence(model, unit)
        self.module_names = model.cached(("module_evidence",), lambda: _module_evidence(model)).get(unit, set())
        self.cls = model.class_of(unit) if not isinstance(unit, ast.Module) else None
        # parameters a summarized call passes as literals (`model(x, mode="inference")`):
        # a test on them (`if mode == "inference":`) selects its branch
        self.constants: Dict[str, object] = {}
        self._global_binds: Dict[str, Value] = {}  # what this unit bound so far to names it declares global
        # parameters defaulting to None that no call in view passes (a public entry point's
        # `log=None`): `log = log if log is not None else GanLog()` makes a GanLog on the default
        # path, the only object the code itself proves reaches what follows
        self.defaulted_none: Set[str] = set()
        # per enclosing loop, innermost last: the environments at its `break`s and `continue`s
        self._jumps: List[Tuple[List[dict], List[dict]]] = []
        # a nested loop entered again with the same bindings ends with the same ones (`loop`)
        self._loop_nesting = 0
        self._loop_exits: Dict[tuple, Dict[str, Value]] = {}
        # `losses[0]` proven a number by the test of the branch being analyzed (`if
        # isinstance(losses[0], int):`): its env key, `_subscript_key`, holds the number there
        self._subscripts_narrowed = False
        self.yielded: Optional[Value] = None  # the join of what a generator function yields

    # ------------------------------------------------------------ parameters
    def parameter_values(self) -> Dict[str, Value]:
        unit = self.unit
        if not isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return {}
        params = named_parameters(unit)
        values: Dict[str, Value] = {}
        for index, arg in enumerate(params):
            if index == 0 and self.cls is not None and is_classmethod(unit):
                values[arg.arg] = Value(CLASS, name=self.cls.name)  # `cls(config)` constructs one
                continue
            if index == 0 and self.cls is not None and not _is_static(unit):
                values[arg.arg] = Value(INSTANCE, name=self.cls.name)
                if self.m.is_module_class(self.cls):
                    values[arg.arg] = Value(MODULE, name=self.cls.name)
                continue
            values[arg.arg] = self._annotation_value(arg.annotation)
        if self._hands_in_the_trained_model(unit, params) and values["model"].kind == UNKNOWN:
            # `compute_loss(self, model, inputs)` of a HuggingFace Trainer subclass: the Trainer
            # hands it the model it trains
            values["model"] = Value(MODULE)
        duck = self.m.cached(("duck_typed", unit), lambda: self._duck_typed_params(set(values)))
        for name, value in duck.items():
            if values.get(name, UNKNOWN_V).kind == UNKNOWN:
                values[name] = value
        if self.depth == 0:
            sites = self._call_site_values(unit, params)
            if self.m.project is not None:
                for name, value in self._external_site_values(unit, params).items():
                    sites[name] = join(sites.get(name), value)
            self.defaulted_none = {a.arg for a in params if a.arg not in sites and values.get(a.arg) == UNKNOWN_V
                                   and _is_none_literal(default_of(unit, a))}
            # (a call that passes what it does not know itself says nothing: `fit(plant)` handing
            # its own parameter on)
            untyped = {a.arg for a in params if sites.get(a.arg, UNKNOWN_V).kind == UNKNOWN
                       and values.get(a.arg) == UNKNOWN_V}
            if untyped:
                values.update(self.m.cached(("typed_by_methods", unit), lambda: self._typed_by_methods(untyped)))
            for name, value in sites.items():
                own = values.get(name, UNKNOWN_V)
                if own is DECLARED_NUMBERS:
                    continue  # a container the signature declares as numbers: callers' guesses do not override it
                if own.kind == MODULE and not own.name and value.kind == MODULE and (value.name or value.alts or value.frozen):
                    values[name] = value  # duck-typed a module here; the callers say which class (or
                    # that every module they hand is frozen)
                elif own.kind == MODULE and not own.name and value.kind == INSTANCE and value.name \
                        and not value.alts:
                    values[name] = value  # duck-typed a module (`plugin.parameters()`); every caller
                    # hands an object of one plain class that defines it (`Trainer(Classifier())`)
                elif value.carries_graph or own.kind == UNKNOWN:
                    values[name] = join(own if own.kind != UNKNOWN else None, value)
        return values

    def _hands_in_the_trained_model(self, unit, params) -> bool:
        """Is the first parameter after `self` a `model` that the HuggingFace Trainer passes
        to a training hook (`compute_loss`, `training_step`): the model it trains?"""
        return len(params) >= 2 and params[1].arg == "model" and self.m.is_hf_trainer_step_hook(unit)

    def _annotation_value(self, annotation) -> Value:
        if annotation is None:
            return UNKNOWN_V
        annotation = _unwrap_annotation(annotation)
        if annotation is None:
            return UNKNOWN_V
        qual = self.m.qualname(annotation) or dotted(annotation) or ""
        last = qual.rsplit(".", 1)[-1]
        if qual.startswith(_OTHER_FRAMEWORKS):
            return UNKNOWN_V  # `flax.linen.Module`, a Keras or Paddle layer: no torch graph
        if qual in ("torch.nn.Module", "torch.nn.modules.module.Module") or last in ("Module", "LightningModule"):
            return Value(MODULE)
        if last == "DataLoader":
            return Value(DATALOADER)
        if last in self.m.classes and self.m.is_module_class(self.m.classes[last]):
            return Value(MODULE, name=last)
        if qual == last and last in self.m.classes:  # `mac: Controller`, a plain class of this file
            info = self.m.classes[last]
            return Value(DATASET, name=last) if self.m.is_dataset_class(info) else Value(INSTANCE, name=last)
        if self.m.project is not None and "." in qual:  # `model: Classifier` of another module
            found = self.m.project.imported_summary(qual)
            if found is not None and found[0] == "class" and found[1] is not None:
                kind = {"module": MODULE, "loss": LOSS_FN, "dataset": DATASET,
                        "loader": DATALOADER}.get(found[1].get("kind"), INSTANCE)
                return Value(kind, name=qual)
        if last in ("int", "float", "str", "bool"):
            return SCALAR_V
        if _declares_only_numbers(annotation):
            return DECLARED_NUMBERS  # `Dict[str, Tuple[Number, Number]]`: what the author says it holds
        return UNKNOWN_V

    def _duck_typed_params(self, names: Set[str]) -> Dict[str, Value]:
        """A parameter on which `.parameters()`, `.eval()`, ... is called is an nn.Module."""
        found: Dict[str, Value] = {}
        called = set()
        weak = set()  # `.train()` / `.zero_grad()`: a Trainer or optimizer has them too
        loaded, placed = set(), set()
        for node in _calls_on(self.m, self.unit, names):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Name) and node.func.id in names:
                called.add(node.func.id)
            if isinstance(node.func, ast.Attribute):
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id in names:
                    attr = node.func.attr
                    if attr in torch_api.MODULE_EVIDENCE_METHODS and attr != "load_state_dict":
                        found[owner.id] = Value(MODULE)
                    elif attr in ("train", "zero_grad", "to", "cuda"):
                        weak.add(owner.id)
                        if attr in ("to", "cuda", "train"):
                            placed.add(owner.id)
                    elif attr == "load_state_dict":
                        loaded.add(owner.id)
        # a parameter whose kind the function tests (`t() if callable(t) else t`) takes several
        # kinds: calling it and moving it are on different paths, no evidence of a module
        polymorphic = _kind_tested_names(self.m, self.unit, names)
        for name in (weak & called) - polymorphic:  # called directly like a function: a module, not a Trainer
            found.setdefault(name, Value(MODULE))
        for name in loaded & placed:  # weights loaded and moved to a device: no optimizer does both
            found.setdefault(name, Value(MODULE))
        return found

    def _typed_by_methods(self, names: Set[str]) -> Dict[str, Value]:
        """A parameter no call in view passes, of which the code asks names (methods it calls,
        attributes it calls) that exactly one class of this file defines, all of them, as
        methods or as attributes its methods store on `self` (`runner.detach_state()` and
        `runner.step(x)` of the file's RNNRunner; `model.cell(x, h)` of a class storing
        `self.cell`): an object of that class. For an `__init__` parameter kept as it is on
        `self`, what the class's methods ask of that attribute counts too. Methods every module
        or optimizer has (`train`, `eval`, `to`, `zero_grad`...) say nothing; calling the
        parameter itself, or testing its kind, leaves it untyped."""
        methods: Dict[str, Set[str]] = {}
        direct = set()
        calls: Dict[str, List[ast.Call]] = {}
        for node in _calls_on(self.m, self.unit, names):
            func = node.func
            if isinstance(func, ast.Name):
                direct.add(func.id)
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names:
                methods.setdefault(func.value.id, set()).add(func.attr)
                calls.setdefault(func.value.id, []).append(node)
        for name, asked in self._asked_of_kept_parameters(names).items():
            methods.setdefault(name, set()).update(asked)
        nested = _nested_calls_on(self.m, self.unit, names)  # `agent.model.get_action(obs)`
        for name, held in nested.items():
            methods.setdefault(name, set()).update(held)
        polymorphic = _kind_tested_names(self.m, self.unit, names)
        found: Dict[str, Value] = {}
        for name, attrs in methods.items():
            if name in polymorphic or any(a.startswith("__") for a in attrs):
                continue
            if not _telling(attrs):
                continue
            owners = self.m.classes_defining_all(_telling(attrs))
            # (a module class need not define what every module has: `model.train()` then
            # `model.stream(x, h)`; any other class must define every name asked)
            owners = [o for o in owners if self.m.is_module_class(self.m.classes[o])
                      or o in self.m.classes_defining_all(attrs)]
            if not owners and not nested.get(name):
                typed = self._typed_by_project_methods(attrs, name in direct, calls.get(name, []))
                if typed is not None:
                    found[name] = typed
                continue
            if len(owners) == 1 and self._holds_what_is_asked(owners[0], nested.get(name, {})):
                info = self.m.classes[owners[0]]
                if name in direct and not (self.m.is_module_class(info) or "__call__" in info.methods):
                    continue  # called itself like a function: no object of a class that cannot be called
                found[name] = Value(MODULE if self.m.is_module_class(info) else INSTANCE, name=owners[0])
        found.update(self._typed_parts_by_project_methods(nested, polymorphic, found))
        return found

    def _typed_parts_by_project_methods(self, nested, polymorphic, typed) -> Dict[str, Value]:
        """`agent.net.recurrent(obs, h)` and `agent.net.init_hidden()` on a parameter `agent`
        that nothing types: the part `agent.net` is a module of the one class of the project's
        other modules defining what is asked of it (`_typed_by_project_methods`, the same
        evidence), keyed `agent.net` in the data flow. No class of this file may define it."""
        out: Dict[str, Value] = {}
        for name, held in nested.items():
            if name in typed or name in polymorphic:
                continue
            for attr, asked in held.items():
                if any(a.startswith("__") for a in asked) or not _telling(asked) \
                        or self.m.classes_defining_all(asked):
                    continue
                calls = [c for c in _nested_calls_of(self.m, self.unit, name) if c.func.value.attr == attr]
                part = self._typed_by_project_methods(asked, False, calls)
                if part is not None and part.kind == MODULE:
                    out[f"{name}.{attr}"] = part
        return out

    def _typed_by_project_methods(self, attrs: Set[str], callable_itself: bool,
                                  calls: List[ast.Call]) -> Optional[Value]:
        """No class of this file defines what is asked of a parameter (`storage.add(...)`,
        `storage.returns()`, `storage.clear()`): the classes of other modules of the project
        defining every telling name (`Project.owners()`), with the classes inheriting from them: an object
        of one of them (its class named when it is one; `alts` when it may be any of a few:
        `plant.step(u, dt)` on a plant or a subclass that detaches). A module class need not
        define the methods every module has (`eval`, `train`); another class must define every
        name asked. The evidence must be more than a common name: two telling names at least,
        or one that only module classes define (`policy.act(obs)`), or one whose every call
        binds each of the method's parameters (two at least); and every
        call must fit the method's parameters (a third-party cache's `past_key_value.update(k,
        v, i, kw)` is no project meter's `update(num)`). More than three candidates, or none:
        untyped."""
        project = self.m.project
        telling = _telling(attrs)
        candidates = _project_classes_defining(project, telling) if project is not None else None
        kind = _one_kind_of_object(project, candidates, attrs - telling, callable_itself) if candidates else None
        if kind is None:
            return None
        if len(telling) < 2 and kind != MODULE and not (calls and all(
                _binds_every_parameter(project.method_of(qual, call.func.attr), call)
                for qual in candidates for call in calls)):
            return None
        if not all(_fits_the_signature(project.method_of(qual, call.func.attr), call)
                   for qual in candidates for call in calls):
            return None
        if len(candidates) == 1:
            return Value(kind, name=next(iter(candidates)))
        return Value(kind, alts=tuple(sorted(candidates)))

    def _holds_what_is_asked(self, owner: str, nested: Dict[str, Set[str]]) -> bool:
        """For `agent.model.get_action(obs)` read as an `owner` object: does the object the
        class keeps on `self.model` have a class of this file defining every method asked of it
        (those every module has aside)? An attribute of unknown kind proves nothing."""
        for attr, asked in nested.items():
            telling = _telling(asked)
            if not telling:
                continue
            held = class_attribute_value(self.m, owner, attr)
            if not held.name or held.name not in self.m.classes_defining_all(telling):
                return False
        return True

    def _asked_of_kept_parameters(self, names: Set[str]) -> Dict[str, Set[str]]:
        """For the parameters of an `__init__` it stores as they are on `self` (`self.model =
        model`, the attribute's only store in the class: `bound_once_in_init`): what the
        class's methods call on that attribute (`self.model.get_action(...)`)."""
        if self.cls is None or not isinstance(self.unit, FUNCTION_TYPES) or self.unit.name != "__init__":
            return {}
        kept = {target.attr: node.value for node in nodes_within(self.unit) if isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Name) and node.value.id in names for target in node.targets
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"}
        if not kept:
            return {}  # (the common case: the class's other methods need no walk)
        asked: Dict[str, Set[str]] = {}
        for method in self.cls.methods.values():
            for node in nodes_within(method):
                owner = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
                if isinstance(owner, ast.Attribute) and owner.attr in kept and isinstance(owner.value, ast.Name) \
                        and owner.value.id == "self":
                    asked.setdefault(owner.attr, set()).add(node.func.attr)
        # (the attributes nothing calls a method of, `self.lr = lr`, need no check of their stores)
        return {kept[attr].id: calls for attr, calls in asked.items()
                if bound_once_in_init(self.cls, attr) is kept[attr]}

    def _call_site_values(self, unit, params) -> Dict[str, Value]:
        sites = self.m.call_sites(unit)
        if not sites:
            return {}
        names = [p.arg for p in params]
        offset = 1 if self.cls is not None and not _is_static(unit) else 0
        if len(names) <= offset and unit.args.vararg is None and unit.args.kwarg is None:
            return {}  # nothing to infer (`__init__(self)`): analyzing the callers would only
            # risk reading this class's attributes while they are being computed
        out: Dict[str, Value] = {}
        for site in sites:
            caller = self.m.unit_of(site)
            if caller is unit:
                continue
            if not site.args and not site.keywords:
                # `GANTrainer()`: every parameter left to its default, read from the syntax
                # (no need to analyze the caller)
                self._left_to_defaults(unit, names, offset, set(), out)
                continue
            flow = self.m.flow(caller) if not self.m.in_progress(caller) else None
            if flow is None and self.m.in_progress(caller):
                self.m.read_provisional(("flow", caller))  # not final: the caller's answer is to come
            if flow is None:
                # the caller's flow is running (`main` builds `Solver(FCN(), cache)` and runs
                # `solver.solve()`, whose step reads what `__init__` stored): what the syntax
                # alone proves of the arguments, modules constructed from classes of this file
                self._constructed_site_values(site, names, offset, out)
                continue
            for i, arg in enumerate(site.args):
                if isinstance(arg, ast.Starred):
                    if i == len(site.args) - 1:
                        self._passed_on_extra_arguments(unit, names[i + offset:], flow.values.get(arg.value), out)
                    break
                if i + offset < len(names):
                    name = names[i + offset]
                    self._note_site_value(name, flow.values.get(arg, UNKNOWN_V))
                    out[name] = join(out.get(name), flow.values.get(arg, UNKNOWN_V))
                elif unit.args.vararg is not None:
                    _collect(out, unit.args.vararg.arg, flow.values.get(arg, UNKNOWN_V))
            for kw in site.keywords:
                if kw.arg in names:
                    self._note_site_value(kw.arg, flow.values.get(kw.value, UNKNOWN_V))
                    out[kw.arg] = join(out.get(kw.arg), flow.values.get(kw.value, UNKNOWN_V))
                elif kw.arg is not None and unit.args.kwarg is not None:
                    _collect(out, unit.args.kwarg.arg, flow.values.get(kw.value, UNKNOWN_V))
            passed = {kw.arg for kw in site.keywords}
            if not any(isinstance(a, ast.Starred) for a in site.args) and None not in passed:
                self._left_to_defaults(unit, names, offset + len(site.args), passed, out)
        return out

    def _passed_on_extra_arguments(self, unit, names, extra: Optional[Value], out) -> None:
        """`self.simulation_step(dt, *args)` in a `forward(self, dt, *args)`: the parameters
        left take the extra arguments the caller gathered (each what some call site passed
        there, joined: which position is which is not followed)."""
        if extra is None or extra.kind != SEQUENCE or extra.items is not None or extra.elem is None \
                or extra.elem.kind == UNKNOWN:
            return
        for name in names:
            self._note_site_value(name, extra.elem)
            out[name] = join(out.get(name), extra.elem)
        if unit.args.vararg is not None:
            _collect(out, unit.args.vararg.arg, extra.elem)

    def _left_to_defaults(self, unit, names, given: int, passed, out) -> None:
        """The parameters a call leaves to their literal defaults (`book=None`, then `book =
        book if book is not None else LossBook()`): that call binds the default's value."""
        defaults = _literal_defaults(unit, self.m.classes)
        defaults.update(self._imported_class_defaults(unit, defaults))
        defaults.update(self._loss_module_defaults(unit, defaults))
        for index, name in enumerate(names):
            if index >= given and name not in passed and name in defaults:
                out[name] = join(out.get(name), defaults[name])

    def _loss_module_defaults(self, unit, known) -> Dict[str, Value]:
        """Parameters whose default builds a torch loss module (`loss_fn=nn.MSELoss()`): a call
        that leaves it binds that loss (built once, when the function is defined)."""
        out = {}
        for a in named_parameters(unit):
            d = default_of(unit, a)
            if a.arg not in known and isinstance(d, ast.Call) and torch_api.is_loss_class(self.m.qualname(d.func) or ""):
                out[a.arg] = Value(LOSS_FN, name=self.m.qualname(d.func))
        return out

    def _imported_class_defaults(self, unit, known) -> Dict[str, Value]:
        """Parameters whose default names a class imported from another module of the project
        (`ema_cls=LossEMA` after `from .smoothing import LossEMA`): the reference to it."""
        m, out = self.m, {}
        if m.project is None:
            return out
        for a in named_parameters(unit):
            d = default_of(unit, a)
            if a.arg in known or not isinstance(d, ast.Name) or d.id not in m.imports.aliases:
                continue
            qual = m.imports.aliases[d.id]
            found = m.project.imported_summary(qual) if m.project.is_first_party(qual) else None
            if found is not None and found[0] == "class":
                out[a.arg] = Value(REF, name=qual)
        return out

    def _constructed_site_values(self, site, names, offset, out) -> None:
        pairs = [(names[i + offset], a) for i, a in enumerate(site.args)
                 if i + offset < len(names) and not isinstance(a, ast.Starred)]
        pairs += [(kw.arg, kw.value) for kw in site.keywords if kw.arg in names]
        for name, arg in pairs:
            cls = self.m.constructed_class(arg)
            if cls is None and self._builds_a_torch_module(arg):
                # `StatefulPolicy(net)` after `net = nn.Sequential(...)`: a torch module, built
                # where the syntax shows it (its parameters require grad unless frozen later,
                # which the caller's flow, still running, would say: not claimed either way)
                self._note_site_value(name, Value(MODULE))
                out[name] = join(out.get(name), Value(MODULE))
                continue
            if cls is None:
                value = self._returned_by_local_function(arg)
                if value is not None:
                    self._note_site_value(name, value)
                    out[name] = join(out.get(name), value)
                continue
            # a module, or an object of another class of this file (`TrackingActor(net)` handed
            # to a trainer whose step calls it)
            value = Value(MODULE, name=cls) if self.m.is_module_class(self.m.classes[cls]) else Value(INSTANCE, name=cls)
            self._note_site_value(name, value)
            out[name] = join(out.get(name), value)

    def _builds_a_torch_module(self, arg: ast.AST) -> bool:
        """Is `arg` a torch.nn layer's construction (`nn.Linear(4, 2).to(device)`), or a name
        every definition of which in the caller binds one?"""
        def construction(expr) -> bool:
            expr = torch_api.module_chain_root(expr)
            qual = self.m.qualname(expr.func) if isinstance(expr, ast.Call) else None
            # (`nn.CrossEntropyLoss().cuda(rank)` is a loss, as the caller's finished flow says)
            return qual is not None and torch_api.nn_class(qual) is not None and not torch_api.is_loss_class(qual)

        if construction(arg):
            return True
        if not isinstance(arg, ast.Name):
            return False
        caller = self.m.unit_of(arg)
        definitions = self.m.reaching(caller).definitions(arg) if caller is not None else []
        bindings = [self.m.parents.get(d) for d in definitions]
        return bool(bindings) and all(isinstance(b, ast.Assign) and b.targets == [d] and construction(b.value)
                                      for b, d in zip(bindings, definitions))

    def _returned_by_local_function(self, arg: ast.AST) -> Optional[Value]:
        """What a caller whose flow is running passes as `arg`, from the syntax: a name every
        definition of which binds (a part of) what a function of this module returns
        (`stages, opt = build(dim)`), that function summarized on its own. None otherwise."""
        if not isinstance(arg, ast.Name):
            return None
        caller = self.m.unit_of(arg)
        definitions = self.m.reaching(caller).definitions(arg) if caller is not None else []
        out = None
        for definition in definitions:
            value = self._bound_by_local_return(definition)
            if value is None:
                return None
            out = join(out, value)
        return out

    def _bound_by_local_return(self, definition: ast.AST) -> Optional[Value]:
        target, position = definition, None
        parent = self.m.parent(definition)
        if isinstance(parent, ast.Tuple) and definition in parent.elts:
            target, position = parent, parent.elts.index(definition)
            parent = self.m.parent(parent)
        if not isinstance(parent, ast.Assign) or parent.targets != [target]:
            return None
        made = parent.value
        if position is not None and isinstance(made, ast.Tuple) and len(made.elts) == len(target.elts):
            made, position = made.elts[position], None  # `policy, ref = nn.Linear(8, 8), nn.Linear(8, 8)`
        if _constant_call(made):
            value = self.expr(made)  # `nn.Linear(8, 8)`: nothing of the caller's state is read
            return value if value.kind != UNKNOWN else None
        if not (isinstance(made, ast.Call) and isinstance(made.func, ast.Name)):
            return None
        func = self.m.module_functions.get(made.func.id)
        if func is None:
            return None
        value = self.summary(func, made, [], {}, has_self=False)
        if position is None:
            return value if value.kind != UNKNOWN else None
        if value.items is None or any(isinstance(e, ast.Starred) for e in target.elts) \
                or len(value.items) != len(target.elts):
            return None
        return value.items[position] if value.items[position].kind != UNKNOWN else None

    def _note_site_value(self, name: str, value: Value) -> None:
        """Some caller in view passes a module for `name` (a may-fact: that path runs it)."""
        if value.kind == MODULE:
            self.result.module_params.add(name)
        elif value.kind in (SCALAR, NONE):
            self.result.number_params.add(name)

    def _external_site_values(self, unit, params) -> Dict[str, Value]:
        """Argument values call sites in other modules pass (from their summaries)."""
        from torchleaklint.project.summary import decode

        names = [p.arg for p in params]
        offset = 1 if self.cls is not None and not _is_static(unit) else 0
        out: Dict[str, Value] = {}
        local = self.m.project.local_value
        for site in self.m.external_sites(unit):
            if site.get("ut"):
                continue  # a unit test's made-up arguments (`y=ground_truth(x)` of a random
                # layer) are not what the code that runs the function hands it
            for i, arg in enumerate(site["a"]):
                if i + offset < len(names):
                    self._note_site_value(names[i + offset], local(decode(arg)))
                    out[names[i + offset]] = join(out.get(names[i + offset]), local(decode(arg)))
                elif unit.args.vararg is not None:
                    _collect(out, unit.args.vararg.arg, local(decode(arg)))
            for name, arg in site["kw"].items():
                if name in names:
                    self._note_site_value(name, local(decode(arg)))
                    out[name] = join(out.get(name), local(decode(arg)))
                elif unit.args.kwarg is not None:
                    _collect(out, unit.args.kwarg.arg, local(decode(arg)))
            if not site.get("spread"):
                self._left_to_defaults(unit, names, offset + len(site["a"]), set(site["kw"]), out)
        return out

    # ------------------------------------------------------------ statements
    def block(self, stmts: List[ast.stmt]) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, s: ast.stmt) -> None:
        if self.nograd:
            self.result.nograd_nodes.add(s)
        method = _STMT_METHODS.get(type(s), _UNSET)
        if method is _UNSET:
            method = _handler(_STMT_METHODS, "stmt_", type(s))
        if method is not None:
            method(self, s)
        else:
            for child in child_nodes(s):
                if isinstance(child, ast.expr):
                    self.expr(child)

    def stmt_Expr(self, s: ast.Expr) -> None:
        value = s.value
        self.expr(value)
        self._note_frozen(value)
        self._note_frozen_by_helper(value)
        self._proven_by_its_backward(value)
        # torch.set_grad_enabled(False) as a statement switches grad mode until switched back
        if isinstance(value, ast.Call):
            qual = self.m.qualname(value.func) or ""
            if torch_api.grad_context(qual) == "set" and value.args:
                flag = value.args[0]
                if isinstance(flag, ast.Constant) and flag.value is False:
                    self.nograd += 1
                elif isinstance(flag, ast.Constant) and flag.value is True and self.nograd:
                    self.nograd -= 1

    def _proven_by_its_backward(self, call: ast.AST) -> None:
        """`loss_avg.backward()` on a value of unknown kind proves it carries a graph (a tensor
        without one raises), and so does the value it was made from alone (`loss_avg =
        loss.mean()`): what the code does with them next (`total += loss.sum()`) is read so."""
        if self.nograd or not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                               and call.func.attr == "backward" and isinstance(call.func.value, ast.Name)
                               and not call.args):
            return  # (not `accelerator.backward(loss)`, nor `y.backward(grad)`: who is differentiated is unclear)
        name = call.func.value
        for _ in range(2):  # the back-propagated name, and the one it was computed from
            kind = self.env.get(name.id, UNKNOWN_V).kind
            if kind == UNKNOWN:
                self.env[name.id] = GRAPH_V
            elif kind != GRAPH:
                return
            name = self._sole_source(name)
            if name is None:
                return

    def _sole_source(self, name: ast.Name) -> Optional[ast.Name]:
        """`loss` of `loss_avg = loss.mean()` (`loss.sum()`, `loss / n`, `-loss`): the one name a
        value was computed from, by its one reaching definition, with nothing else that could
        carry a graph."""
        expr = self.m.value_bound_once(name)
        while expr is not None:
            if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("mean", "sum") \
                    and not expr.args and not expr.keywords:
                expr = expr.func.value
            elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
                expr = expr.operand
            elif isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Mult, ast.Div)) \
                    and isinstance(expr.right, ast.Constant):
                expr = expr.left
            else:
                break
        return expr if isinstance(expr, ast.Name) and expr.id != name.id else None

    def stmt_Assign(self, s: ast.Assign) -> None:
        value = self.expr(s.value)
        for target in s.targets:
            self.bind(target, value, s)
        self.result.stored[s] = value

    def stmt_AnnAssign(self, s: ast.AnnAssign) -> None:
        if s.value is not None:
            value = self.expr(s.value)
            self.bind(s.target, value, s)
            self.result.stored[s] = value

    def stmt_AugAssign(self, s: ast.AugAssign) -> None:
        current = self.expr(_as_load(s.target), record=s.target)
        operand = self.expr(s.value)
        if isinstance(s.op, ast.Add) and SEQUENCE in (current.kind, operand.kind) and not operand.is_tensor:
            value = grown(current, element_of(operand))  # `lst += [v]`
        elif isinstance(s.op, ast.Add) and current.kind == SEQUENCE and not current.items:
            # `ref_acc += data["ref_acc"]` on a list: the list is extended (with a tensor's
            # rows, if it is one), it stays a list and is no running total
            value = grown(current, element_of(operand))
        elif self._defines_in_place_operator(current, s.op):
            # `loss_meter += loss` on an `AverageMeter` whose `__iadd__` takes `x.sum().item()`
            # and returns `self`: the object, as its method keeps it (not a running tensor)
            value = current
        else:
            value = self.arith(current, operand)
        if isinstance(s.target, ast.Subscript):
            self.expr(s.target.value)
            self.expr(s.target.slice)
        if _writes_through_data(s.target):
            value = _strip_graph(value)  # `w.data -= delta`: the tensor's storage, no graph recorded
        self.bind(s.target, value, s)
        self.result.stored[s] = value

    def _defines_in_place_operator(self, current: Value, op: ast.operator) -> bool:
        """Is `current` an object of a class of this module (or of the project) that defines the
        in-place operator of `op` (`__iadd__` for `+=`)?"""
        dunder = _IN_PLACE_OPERATORS.get(type(op))
        if dunder is None or current.kind not in (INSTANCE, MODULE) or not current.name:
            return False
        if current.name in self.m.classes:
            return self.m.method(current.name, dunder) is not None
        project = self.m.project
        return project is not None and "." in current.name and project.method_of(current.name, dunder) is not None

    def stmt_For(self, s) -> None:
        iterable = self.expr(s.iter)
        self.loop(s, lambda: self.bind(s.target, element_of(iterable), s))
        self._note_frozen_by_loop(s)
        self._note_every_entry_replaced(s)

    def _note_every_entry_replaced(self, s) -> None:
        """`for k in d: d[k] = d[k].item()` (also over `d.keys()`, under `if d[k] is not None:`):
        after the loop every entry of `d` is what the loop stored (or None), not what it held."""
        name = _iterated_keys_of(s.iter)
        key = s.target.id if isinstance(s.target, ast.Name) else None
        if name is None and isinstance(s.target, ast.Tuple) and len(s.target.elts) == 2 \
                and isinstance(s.target.elts[0], ast.Name) and isinstance(s.iter, ast.Call) \
                and isinstance(s.iter.func, ast.Attribute) and s.iter.func.attr == "items" and not s.iter.args \
                and isinstance(s.iter.func.value, ast.Name):
            # `for name, value in log_vars.items(): log_vars[name] = value.item()`
            name, key = s.iter.func.value.id, s.target.elts[0].id
        if name is None or key is None:
            return
        container = self.env.get(name)
        by_keys = isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Attribute) \
            and s.iter.func.attr in ("keys", "items") and not s.iter.args
        if container is not None and container.kind in (GRAPH, UNKNOWN) and by_keys:
            # `out = self.forward(x)` then `for t in out.keys(): out[t] = out[t].detach()`: no
            # tensor has `.keys()`, so the forward's result is a mapping, every entry replaced
            container = Value(SEQUENCE, elem=container)
        if container is None or container.kind != SEQUENCE:
            return
        stored = []
        for stmt, guarded in _entry_stores(s.body, name, key):
            value = self.result.values.get(stmt.value)
            if value is None:
                return
            stored.append(join(value, NONE_V) if guarded else value)
        if not stored:
            return
        elem = stored[0]
        for value in stored[1:]:
            elem = join(elem, value)
        self.env[name] = replace(container, elem=elem, items=None,
                                 fields=tuple((k, elem) for k, _ in container.fields) if container.fields else None)

    def _note_frozen_by_loop(self, s) -> None:
        """`for p in clip.parameters(): p.requires_grad = False` (or `for _, p in
        clip.named_parameters()`): from here on `clip` (and what is taken from it:
        `clip.transformer`) records a graph only from its input."""
        if not (isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Attribute)
                and s.iter.func.attr in ("parameters", "named_parameters") and not s.iter.args):
            return
        key = dotted(s.iter.func.value)
        if key is None or key == "self":
            return
        flag = _freezing_flag(s, owner=key)
        if isinstance(flag, ast.Constant) and flag.value is False:
            self._mark_frozen(key, s)

    def _mark_frozen(self, key: str, node: ast.AST, default: Value = UNKNOWN_V) -> None:
        """From `node` on, the module bound to `key` (or of unknown kind there) is frozen: it
        records a graph only from its input."""
        current = self.env.get(key, default)
        if current.kind in (MODULE, UNKNOWN, INSTANCE):
            self.env[key] = Value(MODULE, name=current.name if current.kind != UNKNOWN else None, frozen=True)
            self._note_frozen_global(key, node)

    def _note_frozen_global(self, key: str, node: ast.AST) -> None:
        if isinstance(self.unit, ast.Module) and "." not in key:
            self.result.frozen_at[key] = (node.lineno, node.col_offset)
        elif isinstance(self.unit, (ast.FunctionDef, ast.AsyncFunctionDef)) and key.count(".") == 1 \
                and key.split(".")[0] == self_name(self.unit) and self._statement_of_the_body(node):
            # `self.key_encoder = Encoder(...)` then `for p in self.key_encoder.parameters():
            # p.requires_grad = False` on every path of a method: the attribute it leaves is frozen
            self.result.frozen_at["self." + key.split(".")[1]] = (node.lineno, node.col_offset)

    def _statement_of_the_body(self, node: ast.AST) -> bool:
        """Is `node` (a statement, or a call that is one) in the unit's own body, on every path?"""
        parent = self.m.parent(node)
        if isinstance(node, ast.expr) and isinstance(parent, ast.Expr):
            node, parent = parent, self.m.parent(parent)
        return parent is self.unit and any(stmt is node for stmt in self.unit.body)

    stmt_AsyncFor = stmt_For

    def stmt_While(self, s: ast.While) -> None:
        self.loop(s, lambda: self.expr(s.test))

    def loop(self, s, head) -> None:
        # Each loop is walked twice, so loops nested d deep would be walked 2**d times (a
        # hyper-parameter sweep written as twenty nested `for` loops): a nested loop entered
        # again with the same bindings (and grad mode) ends with the bindings it ended with
        # before, and the values it gave its nodes are the same.
        key = (s, self.nograd, frozenset(self.env.items())) if self._loop_nesting else None
        if key is not None and key in self._loop_exits:
            self.env = dict(self._loop_exits[key])
            return
        self._loop_nesting += 1
        try:
            self._walk_loop(s, head)
        finally:
            self._loop_nesting -= 1
        if key is not None:
            self._loop_exits[key] = dict(self.env)

    def _walk_loop(self, s, head) -> None:
        before = dict(self.env)
        breaks: List[dict] = []
        for _ in range(2):  # second pass sees values carried over from the first
            continues: List[dict] = []
            self._jumps.append((breaks, continues))
            try:
                head()
                self.block(s.body)
            finally:
                self._jumps.pop()
            for env in continues:
                self.env = _join_env(self.env, env)
            self.env = _join_env(before, self.env)
        self.block(s.orelse)
        for env in breaks:  # (a `break` skips the `else:` block)
            self.env = _join_env(self.env, env)

    def stmt_Break(self, s) -> None:
        if self._jumps:
            self._jumps[-1][0].append(dict(self.env))

    def stmt_Continue(self, s) -> None:
        if self._jumps:
            self._jumps[-1][1].append(dict(self.env))

    def stmt_If(self, s: ast.If) -> None:
        self.expr(s.test)
        decided = _decide(s.test, self.constants) if self.constants else None
        if decided is not None:
            self.block(s.body if decided else s.orelse)
            return
        before = dict(self.env)
        self._narrow(s.test, True)
        self.block(s.body)
        after_body = self.env
        self.env = dict(before)
        self._narrow(s.test, False)
        self.block(s.orelse)
        # a branch that always returns or raises does not reach what follows: `if isinstance(x,
        # Tensor): return x.detach()` then `return x` returns `x` only where it is no tensor.
        # In a loop, `break` and `continue` leave too (their environments join the loop's exit
        # and its next pass): `if torch.is_tensor(loss): break` leaves a number below
        leaves = _always_leaves if not self._jumps else _always_jumps
        if leaves(s.body) and not leaves(s.orelse):
            return
        if s.orelse and leaves(s.orelse) and not leaves(s.body):
            self.env = after_body
            return
        defaulted = self._defaulted_by(s, before, after_body)
        self.env = _join_env(after_body, self.env)
        if self._subscripts_narrowed:
            for key in [k for k in self.env if k.endswith("]") and k not in before]:
                del self.env[key]  # what the branch's test proved holds no longer after it
        if defaulted is not None:
            self.env[defaulted[0]] = defaulted[1]  # `if log is None: log = GanLog()`

    def _defaulted_by(self, s: ast.If, before, after_body) -> Optional[Tuple[str, Value]]:
        """`if log is None: log = GanLog()` on a parameter no call in view passes: the name and
        the object its default path builds."""
        none_in = _none_tested(s.test)
        if none_in is None or not none_in[1] or s.orelse or before.get(none_in[0]) != UNKNOWN_V:
            return None
        made = [t.value for t in s.body if isinstance(t, ast.Assign) and len(t.targets) == 1
                and isinstance(t.targets[0], ast.Name) and t.targets[0].id == none_in[0]]
        if len(made) != 1:
            return None
        saved, self.env = self.env, before
        try:
            value = self._default_path(none_in, made[0], after_body.get(none_in[0], UNKNOWN_V))
        finally:
            self.env = saved
        return (none_in[0], value) if value is not None else None

    def _narrow(self, test: ast.AST, taken: bool) -> None:
        """What a branch's test proves about a name in that branch: where `isinstance(v,
        torch.Tensor)` (`torch.is_tensor(v)`, `hasattr(v, "item")`) is false, `v` is no tensor;
        where `v.requires_grad` is false, it carries no graph. So `if isinstance(v, Tensor): v =
        v.item()` leaves a number on every path."""
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, taken = test.operand, not taken
        none_in = _none_tested(test)
        if none_in is not None and none_in[1] == taken and none_in[0] in self.env:
            # where `v is None` holds, v is None: `if x is None: return x` in a helper returns
            # None there, not the graph a caller's tensor argument carries
            self.env[none_in[0]] = NONE_V
            return
        if taken:
            number, array = _number_guarded(test), _array_guarded(test)
            indexed = _subscript_key(number) if number is not None else None
            if indexed is not None:
                self.env[indexed] = SCALAR_V  # `eq_loss = losses[0]` under `if isinstance(losses[0], int):`
                self._subscripts_narrowed = True
            for guarded, narrowed in ((number, SCALAR_V), (array, Value(DATA))):
                key = dotted(guarded) if guarded is not None else None
                if key is not None and key in self.env and self.env[key].carries_graph:
                    # `if isinstance(kd_loss, float): total += kd_loss`; `if type(x) == np.ndarray:
                    # return x` in a `to_numpy` helper returns an array there, not the graph
                    self.env[key] = narrowed
            return
        guarded = _tensor_guarded(test)
        if guarded is None and isinstance(test, ast.Attribute) and test.attr == "requires_grad":
            guarded = test.value
            narrowed = TENSOR_V
        else:
            narrowed = SCALAR_V
        key = dotted(guarded) if guarded is not None else None
        if key is not None and key in self.env and self.env[key].carries_graph:
            self.env[key] = narrowed

    def stmt_Try(self, s) -> None:
        before = dict(self.env)
        self.block(s.body)
        self.block(s.orelse)
        outcomes = [self.env]
        for handler in s.handlers:
            self.env = _join_env(before, outcomes[0])
            if handler.type is not None:
                self.expr(handler.type)
            self.block(handler.body)
            outcomes.append(self.env)
        env = outcomes[0]
        for other in outcomes[1:]:
            env = _join_env(env, other)
        self.env = env
        self.block(s.finalbody)

    stmt_TryStar = stmt_Try

    def stmt_Match(self, s) -> None:
        """Each case runs from the state before the `match` (or none runs). Without this the
        case bodies went unanalyzed: a `with torch.no_grad():` there was invisible, and the
        TLL006 region fix was applied again on every pass (issue 19)."""
        self.expr(s.subject)
        before = dict(self.env)
        env = dict(before)  # no case matched
        for case in s.cases:
            self.env = dict(before)
            if case.guard is not None:
                self.expr(case.guard)
            self.block(case.body)
            env = _join_env(env, self.env)
        self.env = env

    def stmt_With(self, s) -> None:
        switched = 0
        for item in s.items:
            ctx = self.expr(item.context_expr)
            entered = entered_context(item.context_expr)
            if entered is not item.context_expr:
                ctx = self.expr(entered)
            if ctx.kind == CONTEXT and ctx.grad_off or ctx.kind != CONTEXT and names_grad_off(entered):
                switched += 1
            elif ctx.kind == CONTEXT and ctx.name == "on" and self.nograd:
                switched -= 1
            if item.optional_vars is not None:
                self.bind(item.optional_vars, UNKNOWN_V, s)
        saved = self.nograd
        self.nograd = max(0, self.nograd + switched)
        try:
            self.block(s.body)
        finally:
            self.nograd = saved

    stmt_AsyncWith = stmt_With

    def stmt_Return(self, s: ast.Return) -> None:
        value = self.expr(s.value) if s.value is not None else NONE_V
        self.result.returns = join(self.result.returns, value)

    def stmt_FunctionDef(self, s) -> None:
        for dec in s.decorator_list:
            self.expr(dec)
        self.env[s.name] = Value(FUNCTION, name=s.name)

    stmt_AsyncFunctionDef = stmt_FunctionDef

    def stmt_ClassDef(self, s: ast.ClassDef) -> None:
        # The class body runs once, when the class is created: analyze its statements in
        # their own scope (so `with no_grad():` regions there are seen); methods are
        # separate units.
        for dec in s.decorator_list:
            self.expr(dec)
        outer = dict(self.env)
        self.block([b for b in s.body if not isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))])
        self.env = outer
        self.env[s.name] = Value(CLASS, name=s.name)

    def stmt_Delete(self, s: ast.Delete) -> None:
        for target in s.targets:
            if isinstance(target, ast.Name):
                self.env.pop(target.id, None)
            else:
                self.expr(target)

    # ------------------------------------------------------------ binding
    def bind(self, target: ast.AST, value: Value, stmt: ast.AST, nested: bool = False) -> None:
        if isinstance(target, ast.Name):
            if value.kind == UNKNOWN and target in self.evidence:
                value = Value(GRAPH, scalar=True)  # `x.backward()` proves x carries a graph
            elif value.kind == UNKNOWN and target.id in self.module_names:
                value = Value(MODULE)  # `x.parameters()`, `x.to(d)` + `x.load_state_dict()`
            elif value.kind == UNKNOWN and self._called_parameter_feeding_backward(target.id, stmt):
                value = Value(GRAPH)
            self.env[target.id] = value
            self.result.values[target] = value
            if self._subscripts_narrowed:
                for key in [k for k in self.env if k.startswith(target.id + "[") or k.endswith(f"[${target.id}]")]:
                    del self.env[key]  # `losses` (or the index `key`) rebound: what was proven of `losses[0]` is gone
            if target.id in self.m._globals_of(self.unit):
                self._global_binds[target.id] = join(self._global_binds.get(target.id), value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = target.elts
            starred = any(isinstance(e, ast.Starred) for e in elts)
            if value.items is not None and len(value.items) == len(elts) and not starred:
                for elt, item in zip(elts, value.items):
                    self.bind(elt, item, stmt, nested=True)
            else:
                part = _unpacked_part(value)
                unproven = self._parts_beside_the_loss(elts, value, stmt)
                if nested and value.kind == GRAPH and value.items is None:
                    unproven += self._items_of_an_opaque_part(elts, stmt)
                if value.kind == GRAPH and value.items is None:
                    # `loss_pi, loss_v, pi_info, ent = model(...)` and then `pi_info["logp_old"]`:
                    # an item the unit reads by string keys is a dict (a tensor takes no string
                    # key) of entries whose kinds the graph of the whole proves nothing of
                    keyed = self._names_read_by_string_keys()
                    unproven += [elt for elt in elts if isinstance(elt, ast.Name) and elt.id in keyed]
                for elt in elts:
                    if isinstance(elt, ast.Starred):
                        self.bind(elt.value, sequence_of(part), stmt, nested=True)
                    else:
                        self.bind(elt, UNKNOWN_V if elt in unproven else part, stmt, nested=True)
        elif isinstance(target, ast.Attribute):
            if value.kind == UNKNOWN and target in self.evidence:
                value = Value(GRAPH, scalar=True)  # `self.loss = ...; self.loss.backward()`
            self.expr(target.value)
            key = dotted(target)
            if key is not None:
                self.env[key] = value
            self.result.values[target] = value
            self._thaw_holder(target, value)
        elif isinstance(target, ast.Subscript):
            self._thaw_holder(target, value)
            container = self.expr(target.value)
            self.expr(target.slice)
            self.result.values[target] = value
            root, path = _subscript_path(target)
            key = dotted(root)
            base = container if len(path) == 1 else self.env.get(key) if key is not None else None
            if key is not None and base is not None and base.kind == SEQUENCE:
                # `d[k] = v`: d now holds v (under `k`, when d's entries are known); `d["a"]["b"] = v`
                # changes the entry under "a" the same way
                self.env[key] = _stored_into(base, path, value)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, sequence_of(value), stmt)

    # ------------------------------------------------------------ expressions
    def expr(self, e: Optional[ast.AST], record: Optional[ast.AST] = None) -> Value:
        if e is None:
            return NONE_V
        method = _EXPR_METHODS.get(type(e), _UNSET)
        if method is _UNSET:
            method = _handler(_EXPR_METHODS, "expr_", type(e))
        if method is None:
            for child in child_nodes(e):
                if isinstance(child, ast.expr):
                    self.expr(child)
            value = UNKNOWN_V
        else:
            value = method(self, e)
        self.result.values[record if record is not None else e] = value
        if self.nograd:
            self.result.nograd_nodes.add(record if record is not None else e)
        return value

    def expr_Yield(self, e) -> Value:
        self.yielded = join(self.yielded, self.expr(e.value) if e.value is not None else NONE_V)
        return UNKNOWN_V  # what the consumer `send`s back

    def expr_YieldFrom(self, e) -> Value:
        self.yielded = join(self.yielded, element_of(self.expr(e.value)))
        return UNKNOWN_V

    def expr_Constant(self, e) -> Value:
        return NONE_V if e.value is None else SCALAR_V

    def expr_JoinedStr(self, e) -> Value:
        for child in e.values:
            self.expr(child)
        return SCALAR_V

    def expr_FormattedValue(self, e) -> Value:
        self.expr(e.value)
        return SCALAR_V

    def expr_Name(self, e: ast.Name) -> Value:
        if e.id in self.env:
            return self.env[e.id]
        enclosing = self._enclosing_value(e.id)
        if enclosing is not None:
            return enclosing
        return self.global_value(e.id)

    def _enclosing_value(self, name: str) -> Optional[Value]:
        """A free name of a nested function that an enclosing function binds (`V`, `pi`, `x`
        in `def closure(): ... lyapunov_losses(V, pi, x)` handed to `optimizer.step`): the
        join of what the enclosing function binds to it, wherever (the closure may run at
        any point of it). None when no enclosing function binds it (a module global)."""
        m = self.m
        enclosing = self._enclosing_functions()
        if not enclosing or name in m.function_locals(self.unit):
            return None
        for outer in enclosing:
            if name in m.function_locals(outer) and name not in m._globals_of(outer):
                flow = m.flow(outer)
                if flow is None:
                    return UNKNOWN_V  # the enclosing function is being analyzed (it calls the closure)
                if name in flow.params:  # a parameter, joined with what the function rebinds it to
                    flow_env_value(flow, name)  # (builds the index of bound names)
                    return join(flow.params[name], flow.bound_names.get(name))
                return flow_env_value(flow, name)
        return None

    def _enclosing_functions(self) -> List[ast.AST]:
        """The functions that enclose this unit, innermost first (none for most units)."""
        found = getattr(self, "_enclosing", None)
        if found is None:
            found = []
            if isinstance(self.unit, FUNCTION_TYPES):
                outer = self.m.unit_of(self.unit)
                while isinstance(outer, FUNCTION_TYPES):
                    found.append(outer)
                    outer = self.m.unit_of(outer)
            self._enclosing = found
        return found

    def global_value(self, name: str) -> Value:
        m = self.m
        if name in m.module_functions:
            return Value(FUNCTION, name=name)
        if name in m.classes:
            return Value(CLASS, name=name)
        qual = m.imports.aliases.get(name)
        if qual is not None and name not in m.function_locals(m.tree):
            return Value(REF, name=qual)
        # `import model` then `model = model.RNNModel(...)`: the rebinding wins
        if not isinstance(self.unit, ast.Module):
            flow = m.flow(m.tree)  # a module-level global (`model = Net()` at top level)
            if flow is not None:
                return self._with_global_writes(name, flow_env_value(flow, name), flow)
            so_far = m.module_env_so_far
            if so_far is not None and name in so_far and not m.global_writers(name):
                # the module body is being analyzed and its top-level code calls this function:
                # the global as bound by then (still provisional: `m.flow` recorded the read)
                return so_far[name]
        return UNKNOWN_V

    def _with_global_writes(self, name: str, top: Value, module_flow: FlowResult) -> Value:
        """A module global that functions bind under `global name` (`FID_MODEL = model`, a
        model kept for the next call): the join of what top-level code and every such
        function bind to it. Unknown when one of those functions is being analyzed (other
        than this one, whose bindings so far count) or binds it otherwise than by `=`."""
        writers = self.m.global_writers(name)
        if not writers:
            return top
        out = top if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                         for n in module_flow.values) else None
        for unit in writers:
            if unit is self.unit:
                found = self._global_binds.get(name)
                if found is None:
                    return UNKNOWN_V
                out = join(out, found)
                continue
            if self.m.in_progress(unit):
                self.m.read_provisional(("flow", unit))
                return UNKNOWN_V
            flow = self.m.flow(unit)
            if flow is None:
                return UNKNOWN_V
            bound = [v for n, v in flow.values.items() if isinstance(n, ast.Name) and n.id == name
                     and isinstance(n.ctx, ast.Store)]
            if not bound:
                return UNKNOWN_V
            for value in bound:
                out = join(out, value)
        return out if out is not None else UNKNOWN_V

    def expr_Attribute(self, e: ast.Attribute) -> Value:
        key = dotted(e)
        owner = self.expr(e.value)
        if key is not None and key in self.env:
            return self.env[key]
        if owner.kind == REF:
            return Value(REF, name=f"{owner.name}.{e.attr}")
        if self._custom_op_apply(owner, e.attr):
            return Value(REF, name=AUTOGRAD_FUNCTION_APPLY)  # `SpikeFn.apply`: a custom op
        if e.attr in ("values", "indices") and self._values_and_indices_call(e.value):
            # `torch.max(p, dim=1).indices`: integer positions, never a graph; `.values`: the
            # reduced tensor, a graph when the input has one
            if e.attr == "indices":
                return TENSOR_V
            if owner.kind == SEQUENCE and owner.items is not None and len(owner.items) == 2:
                return owner.items[0]
        if owner.kind in (INSTANCE, MODULE) and owner.name:
            method = self.m.classes.get(owner.name, _NO_CLASS).methods.get(e.attr)
            if method is not None and is_property(method):
                return self.summary(method, e, [], {}, has_self=True)  # `net.loss`: what the getter returns
            if method is not None:
                return Value(FUNCTION, name=f"{owner.name}.{e.attr}")
            part = self.m_attribute(owner.name, e.attr)
            kept = owner.field(e.attr) if owner.fields is not None else None
            if kept is not None:
                part = join(part, kept)  # what this code's calls put into it (`_note_kept`)
            return _part_of_frozen(part) if owner.frozen else part
        if owner.kind in TENSORISH or owner.carries_graph:
            if torch_api.is_nondiff_attribute(e.attr):
                return SCALAR_V if e.attr in ("shape", "ndim", "dtype", "device", "requires_grad", "is_leaf") else TENSOR_V
            if e.attr in ("T", "mT", "H", "real", "imag"):
                return Value(owner.kind if owner.kind in TENSORISH else GRAPH)
            if owner.carries_graph:
                return GRAPH_V  # attribute of a model output object: `outputs.loss`
        if owner.kind == CLASS and owner.name in self.m.classes and not owner.alts:
            found = self._class_body_value(owner.name, e.attr)
            if found is not None:
                return found  # `Bottleneck.out_saved` of `out_saved = [0] * 900` in the class body
        if owner.kind == MODULE and not owner.name:
            if e.attr in ("weight", "bias") and not self._attribute_owners(e.attr):
                # a layer's parameter (`self.item_emb.weight` of an nn.Embedding): a leaf that
                # requires grad, unless the module is frozen
                return TENSOR_V if owner.frozen else Value(LEAF)
            return self._unique_class_attribute(e.attr)
        return UNKNOWN_V

    def _class_body_value(self, class_name: str, attr: str) -> Optional[Value]:
        """What the class body binds to `attr` (a class attribute shared by every instance),
        when one plain assignment there does: a container (`out_saved = [0] * 900`, `cache =
        {}`) is one; anything else is left unknown."""
        node = self.m.classes[class_name].node
        bound = [stmt.value for stmt in node.body if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                 and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == attr]
        if len(bound) != 1:
            return None
        value = bound[0]
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
            value = value.left if isinstance(value.left, ast.List) else value.right
        if isinstance(value, (ast.List, ast.ListComp)) or \
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list" and not value.args:
            return Value(SEQUENCE, elem=UNKNOWN_V)
        if isinstance(value, (ast.Dict, ast.DictComp)) or \
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" and not value.args:
            return Value(SEQUENCE, elem=UNKNOWN_V, fields=None)
        return None

    def _attribute_owners(self, attr: str) -> List[str]:
        """The module classes of this file whose init-like methods set `self.<attr>`."""
        return self.m.cached(("attribute_owners",), lambda: _module_classes_by_attribute(self.m)).get(attr, [])

    def _unique_class_attribute(self, attr: str) -> Value:
        """`model.cell` on an nn.Module of unknown class: when exactly one module class of
        this file sets `self.cell` in its init-like methods, that is the value (ambiguous or
        absent: unknown, never a guess)."""
        owners = self._attribute_owners(attr)
        if len(owners) != 1:
            return UNKNOWN_V
        return self.m_attribute(owners[0], attr)

    def m_attribute(self, class_name: str, attr: str) -> Value:
        """The value an instance attribute holds, from its class's init-like methods (for a
        class of another module: from its summary)."""
        if "." in class_name and self.m.project is not None:
            from torchleaklint.project.summary import decode

            found = self.m.project.imported_summary(class_name)
            if found is not None and found[0] == "class" and found[1] is not None:
                return decode(found[1]["attrs"].get(attr))
            return UNKNOWN_V
        found = class_attribute_value(self.m, class_name, attr)
        info = self.m.classes.get(class_name)
        if found.kind == UNKNOWN and info is not None and self.m.project is not None:
            # stored by a base class of another module (`self.bag = MetricBag()` in the base's
            # `__init__`, read by a subclass here): that class's summary
            for base in self.m.class_bases(info):
                if "." in base:
                    inherited = self.m_attribute(base, attr)
                    if inherited.kind in (MODULE, UNKNOWN) and not inherited.name:
                        handed = _handed_to_the_base_init(self.m, info, base, attr)
                        if handed is not None and handed.kind != UNKNOWN and (handed.name or inherited.kind == UNKNOWN):
                            return handed  # `super().__init__(model, opt)` with `model` an AttnMIL
                    if inherited.kind == MODULE and not inherited.name:
                        break  # a module of unknown class (`self.model = model`): its output is
                        # not known here, so it stays unknown rather than a presumed graph
                    if inherited.kind != UNKNOWN:
                        return inherited
        return found

    def expr_Subscript(self, e: ast.Subscript) -> Value:
        owner = self.expr(e.value)
        self.expr(e.slice)
        if self._subscripts_narrowed:
            narrowed = self.env.get(_subscript_key(e) or "")
            if narrowed is not None:
                return narrowed
        if owner.fields is not None and isinstance(e.slice, ast.Constant) and isinstance(e.slice.value, str):
            # `logs["loss"]` of a dict whose entries are known; a key no path stores is not
            # there (a guarded read, or a KeyError): nothing is known of what it would hold
            found = owner.field(e.slice.value)
            return found if found is not None else UNKNOWN_V
        if owner.kind == SEQUENCE and isinstance(e.slice, ast.Slice):
            # `graphs[28:36]`, `outs[1:]`: a list of the same elements, not one of them
            if owner.items is not None:
                chosen = _constant_slice(owner.items, e.slice)
                if chosen is not None:
                    return Value(SEQUENCE, items=chosen)  # `result[:-1]`: the items it keeps, not the last
                return Value(SEQUENCE, elem=element_of(owner))
            return replace(owner, fields=None)
        if owner.items is not None:
            index = e.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, int) and -len(owner.items) <= index.value < len(owner.items):
                return owner.items[index.value]
            return element_of(owner)
        if owner.kind == GRAPH:
            # indexing a graph tensor (or a model output dict); slicing is a tensor op, which
            # records nothing under no-grad (a dict's item is the same tensor, graph and all)
            return self.produced(Value(GRAPH)) if _slices(e.slice) else Value(GRAPH)
        if owner.kind in TENSORISH:
            value = Value(owner.kind if owner.kind != LEAF else GRAPH)
            return self.produced(value) if _slices(e.slice) else value
        if owner.kind == UNKNOWN and self._differentiated_item(e):
            return Value(GRAPH, scalar=True)  # `output["loss"]` where `output["loss"].backward()` runs
        if owner.kind == MODULE and owner.name is None:
            # `self.layers[i]`, `self.features[:4]`: an item (or a slice) of a ModuleList,
            # Sequential or ModuleDict, the modules that can be indexed, is a module (frozen as
            # they all are when the container is)
            return Value(MODULE, frozen=owner.frozen)
        return element_of(owner) if owner.kind == SEQUENCE else UNKNOWN_V

    def _differentiated_item(self, e: ast.Subscript) -> bool:
        """Is `e` (`output["loss"]`) the item of a value of unknown layout that this unit
        back-propagates as it is, for every definition of the container reaching it? The
        evidence is the item's own: the other items of the same result prove nothing."""
        if not isinstance(e.value, ast.Name) or not isinstance(e.slice, ast.Constant):
            return False
        evidence = _item_backward_evidence(self.m, self.unit)
        if not evidence:
            return False
        definitions = self.m.reaching(self.unit).definitions(e.value)
        return bool(definitions) and all(e.slice.value in evidence.get(d, ()) for d in definitions)

    def expr_Tuple(self, e) -> Value:
        return Value(SEQUENCE, items=tuple(self.expr(elt) for elt in e.elts))

    expr_List = expr_Tuple

    def expr_Set(self, e) -> Value:
        out = None
        for elt in e.elts:
            out = join(out, self.expr(elt))
        return sequence_of(out or UNKNOWN_V)

    def expr_Dict(self, e: ast.Dict) -> Value:
        out = None
        entries = []
        for key, val in zip(e.keys, e.values):
            if key is not None:
                self.expr(key)
            value = self.expr(val)
            entries.append((key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None, value))
            out = join(out, value)
        # entries by constant key, when every key is one (`**other` or a computed key: unknown)
        fields = tuple(entries) if entries and all(k is not None for k, _ in entries) else None
        if not e.keys:
            return Value(SEQUENCE)  # `{}`: nothing in it yet; what `d[k] = v` stores is what it holds
        return Value(SEQUENCE, elem=out or UNKNOWN_V, fields=fields)

    def expr_ListComp(self, e) -> Value:
        saved = dict(self.env)
        for gen in e.generators:
            iterable = self.expr(gen.iter)
            self.bind(gen.target, element_of(iterable), e)
            for cond in gen.ifs:
                self.expr(cond)
        if isinstance(e, ast.DictComp):
            self.expr(e.key)
            elem = self.expr(e.value)
        else:
            elem = self.expr(e.elt)
        self.env = saved
        return sequence_of(elem)

    expr_SetComp = expr_GeneratorExp = expr_DictComp = expr_ListComp

    def expr_Starred(self, e) -> Value:
        return self.expr(e.value)

    def expr_NamedExpr(self, e) -> Value:
        value = self.expr(e.value)
        self.bind(e.target, value, e)
        return value

    def expr_IfExp(self, e) -> Value:
        self.expr(e.test)
        # each branch under what its test proves, as for an `if` statement: `t.item() if
        # hasattr(t, "item") else t[0]` reads `t[0]` only where `t` is no tensor
        if any(isinstance(n, ast.NamedExpr) for branch in (e.body, e.orelse) for n in walk(branch)):
            body, orelse = self.expr(e.body), self.expr(e.orelse)  # (bindings made in a branch stand)
        else:
            before = dict(self.env)
            self._narrow(e.test, True)
            body = self.expr(e.body)
            self.env = dict(before)
            self._narrow(e.test, False)
            orelse = self.expr(e.orelse)
            self.env = before
        guarded = _tensor_guarded(e.test)
        if guarded is not None and ast.dump(e.orelse) == ast.dump(guarded):
            orelse = SCALAR_V  # `x.item() if hasattr(x, "item") else x`: the else branch is no tensor
        elif self._number_or_tensor(e.orelse, e.body):
            orelse = UNKNOWN_V  # `x.item() if self._cur_task != 0 else x` with `x = 0.0` on another
            # path: the test tells the author's tensor from the number; which it is is not proven
        elif self._number_or_tensor(e.body, e.orelse):
            body = UNKNOWN_V
        none_in = _none_tested(e.test)
        if none_in is not None:
            default = self._default_path(none_in, e.body if none_in[1] else e.orelse,
                                         body if none_in[1] else orelse)
            if default is not None:
                return default
            # `h = torch.rand(2, bs, n) if h is not None else h`: the branch taken when the
            # name is None gives None (whatever callers pass for it otherwise)
            name, is_none = none_in
            if is_none and _names(e.body, name):
                body = NONE_V
            elif not is_none and _names(e.orelse, name):
                orelse = NONE_V
        return join(body, orelse)

    def _default_path(self, none_in, made: ast.AST, made_value: Value) -> Optional[Value]:
        """The object of a known class that `made` builds where the parameter tested against
        None (`none_in`) keeps its default, when no call in view passes that parameter: the
        value on the default path (None otherwise)."""
        name, _ = none_in
        if name not in self.defaulted_none or self.env.get(name) != UNKNOWN_V:
            return None
        if made_value.kind in (INSTANCE, MODULE) and (made_value.name or made_value.alts) \
                and isinstance(made, ast.Call):
            return made_value
        return None

    def _number_or_tensor(self, bare: ast.AST, other: ast.AST) -> bool:
        """Is `bare` a name that the other branch turns into a number (`x.item()`, `float(x)`)
        and that some definition reaching it binds to a number literal (`flat_loss = 0.0`)?"""
        inner = _number_of(other)
        if not (isinstance(bare, ast.Name) and isinstance(inner, ast.Name) and inner.id == bare.id):
            return False
        reaching = self.m.reaching(self.unit)
        for definition in reaching.definitions(bare):
            stmt = self.m.statement_of(definition)
            value = getattr(stmt, "value", None)
            if isinstance(stmt, ast.Assign) and isinstance(value, ast.Constant) \
                    and isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
                return True
        return False

    def expr_BoolOp(self, e) -> Value:
        out = None
        if isinstance(e.op, ast.Or) and len(e.values) == 2 and isinstance(e.values[0], ast.Name) \
                and e.values[0].id in self.defaulted_none:
            # `log = log or GanLog()` on a parameter no call in view passes
            first, made = e.values
            self.expr(first)
            default = self._default_path((first.id, True), made, self.expr(made))
            if default is not None:
                return default
        for operand in e.values:
            out = join(out, self.expr(operand))
        return out or UNKNOWN_V

    def expr_Compare(self, e) -> Value:
        values = [self.expr(e.left)] + [self.expr(c) for c in e.comparators]
        return TENSOR_V if any(v.kind in TENSORISH or v.carries_graph for v in values) else SCALAR_V

    def expr_UnaryOp(self, e) -> Value:
        operand = self.expr(e.operand)
        if isinstance(e.op, ast.Not):
            return SCALAR_V
        return self.arith(operand, SCALAR_V)

    def expr_BinOp(self, e) -> Value:
        left = self.expr(e.left)
        right = self.expr(e.right)
        if isinstance(e.op, ast.Mod) and left.kind == SCALAR:
            return SCALAR_V  # string formatting
        if isinstance(e.op, ast.Add) and left.kind == SEQUENCE and right.kind == SEQUENCE:
            return join(left, right) if left.items is None else sequence_of(join(element_of(left), element_of(right)))
        return self.arith(left, right)

    def expr_Lambda(self, e) -> Value:
        return UNKNOWN_V

    def expr_Await(self, e) -> Value:
        return self.expr(e.value)

    def arith(self, a: Value, b: Value) -> Value:
        """The value of arithmetic on two operands under the current grad mode."""
        if a.requires_grad or b.requires_grad:
            if self.nograd:
                return TENSOR_V
            scalar = (a.scalar or a.kind == SCALAR) and (b.scalar or b.kind == SCALAR)
            return Value(GRAPH, scalar=scalar)
        if a.kind == TENSOR or b.kind == TENSOR:
            if UNKNOWN in (a.kind, b.kind):
                return UNKNOWN_V
            return TENSOR_V
        if a.kind == SCALAR and b.kind == SCALAR:
            return SCALAR_V
        if DATA in (a.kind, b.kind) and UNKNOWN not in (a.kind, b.kind):
            return Value(DATA)
        return UNKNOWN_V

    def produced(self, value: Value) -> Value:
        """A freshly computed value: under no-grad it cannot carry a graph."""
        if self.nograd and value.kind == GRAPH:
            return CUT_V
        return value

    # ------------------------------------------------------------ calls
    def expr_Call(self, e: ast.Call) -> Value:
        func = e.func
        branches = self.m.branch_calls.get(e)
        if branches:  # `(self.step_a if shared else self.step_b)(real)`: what either returns
            self.expr(func.test)
            out = None
            for branch in branches:
                out = join(out, self.expr_Call(branch))
            return out
        if isinstance(func, ast.Attribute):
            receiver = self.expr(func.value)
            callee = self._attribute_callee(func, receiver)
            self.result.values[func] = callee
        else:
            receiver = None
            callee = self.expr(func)
        args = [self.expr(a) for a in e.args]
        kwargs = {kw.arg: self.expr(kw.value) for kw in e.keywords}
        if receiver is not None:
            self._track_growth(e, receiver, args, kwargs)
        self._track_loss_inputs(e, callee, args)
        if receiver is not None and receiver.alts:
            # `agent.update(...)` of an agent of one of several classes: what any of them gives
            out = None
            for name in receiver.alts:
                one = Value(receiver.kind, name=name)
                out = join(out, self.call(e, self._attribute_callee(func, one), one, args, kwargs))
            return out
        if receiver is None and callee.alts:
            out = None
            for name in callee.alts:
                out = join(out, self.call(e, Value(callee.kind, name=name), None, args, kwargs))
            return out
        result = self.call(e, callee, receiver, args, kwargs)
        if callee.kind == FUNCTION and self.depth == 0:
            self._take_stores_of_own_method(func, callee)
        return result

    def _take_stores_of_own_method(self, func: ast.AST, callee: Value) -> None:
        """`self.backward_D()` in another method of the class: the attributes its body stores
        unconditionally (top-level statements, the last store of each) hold, after the call,
        what it stored (`self.loss_D`, a loss with its graph, read next by `optimize_parameters`)."""
        receiver = self_name(self.unit) if isinstance(self.unit, FUNCTION_TYPES) else None
        if receiver is None or self.cls is None or not isinstance(func, ast.Attribute) \
                or not (isinstance(func.value, ast.Name) and func.value.id == receiver) \
                or callee.name != f"{self.cls.name}.{func.attr}":
            return
        method = self.m.method(self.cls.name, func.attr)
        inner = self_name(method) if method is not None else None
        if inner is None or method is self.unit or self.m.in_progress(method) \
                or self.unit.name in INIT_METHODS or method.name in INIT_METHODS:
            return  # (construction: what it stores is the class's attribute values already)
        stores = self.m.cached(("unconditional_self_stores", method), lambda: [
            (target.attr, stmt) for stmt in method.body if isinstance(stmt, (ast.Assign, ast.AugAssign))
            for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == inner])
        # (asked again at each pass of the loops around the call: the list is read once per method)
        if not stores:
            return
        # its flow without its callers' arguments (those would be analyzed from inside this
        # flow, the class's attribute values half made): a method without parameters, such
        # as `backward_D`, comes out the same
        flow = _flow_without_callers(self.m, method)
        for attr, stmt in stores:
            value = flow.stored.get(stmt)
            if value is not None and value.kind != UNKNOWN:
                self.env[f"{receiver}.{attr}"] = value

    def _module_output(self, e, callee: Value, args, kwargs, all_args) -> Value:
        """What calling a module gives: its forward's summary when its class is known, else
        the forward's graph."""
        if self._constructs_a_module(e):
            return Value(MODULE)
        if callee.name == _TO_PIL_IMAGE:
            return Value(DATA)  # `ToPILImage()(x)`, or a `Compose` ending with it: a PIL image
        if callee.frozen and not _hands_a_module(all_args):
            return self._parameterless_output(all_args)
        if not callee.name and callee.alts:
            # one of several classes (`for metric_fn in self._metrics`, a list of metric modules):
            # what either class's forward gives, when that is known of each and their join keeps
            # a shape (else, as for a module of unknown class, the forward's graph; also for
            # objects, a distribution head's `FixedCategorical(logits=x)`, whose tensors the
            # join of their classes would no longer tell)
            out = None
            for name in callee.alts:
                output = self._module_output(e, Value(MODULE, name=name), args, kwargs, all_args)
                if _shapeless(output) or output.kind in (INSTANCE, MODULE):
                    out = None
                    break
                out = join(out, output)
            if out is not None and not _shapeless(out):
                return out
            return self.produced(Value(GRAPH))
        if callee.name and callee.name in self.m.classes:
            if holds_no_parameters(self.m, callee.name) and not _hands_a_module(all_args):
                # a buffers-only module (not a criterion handed the model it runs:
                # `loss, logs = criterion(model, sample)`)
                return self._parameterless_output(all_args)
            output = _forward_output(self.local_call(e, f"{callee.name}.forward", args, kwargs),
                                     self.m.behaviour_class)
            return _strip_graph(output) if self.nograd else output
        if callee.name and "." in callee.name and self.m.project is not None:
            if self.m.classes_hold_no_parameters(callee) and not _hands_a_module(all_args):
                return self._parameterless_output(all_args)  # a metric module of another file
            # a module class of another module: its forward's summary says what it returns
            # (`lm_loss, lm_loss.item(), 0, 0`: one graph and three numbers)
            forward = self.m.project.method_of(callee.name, "forward")
            if forward is not None and forward[0] == "function" and forward[1] and (
                    forward[1].get("nograd") or forward[1].get("fwd_if")
                    and flags_decide_forward(e, decode_flags(forward[1]["fwd_if"])) is False):
                # a forward decorated `@torch.no_grad()` in its module, or called with the flags
                # that take it down its no-grad path (`model(data, mode="inference")`): it records no graph
                return _made_without_grad(_strip_graph(self.project_call(forward, args, kwargs)))
            if forward is not None and forward[0] == "function" and forward[1] and forward[1].get("ret"):
                output = self.project_call(forward, args, kwargs)
                if output.kind in _NEVER_A_GRAPH and output.kind != UNKNOWN or output.cut:
                    return output  # `return total_loss` built of `loss.item()`: a number, whatever it ran
                if output.kind == INSTANCE and output.name and not self.nograd and self.m.behaviour_class(output.name):
                    return output  # an object of a known class with methods: its attributes say what they hold
                if output.kind == SEQUENCE and output.fields is not None and output.items is None \
                        and not self.nograd:
                    # a dict of results, entry by entry (`{"boxes": ...}` computed under
                    # no-grad: graph-free; any entry not proven so is the forward's graph)
                    return _trusted_entries(output, self.produced(Value(GRAPH)))
                if output.items is not None and not self.nograd:
                    # only numbers and containers are taken on trust (`lm_loss.item()`, a
                    # literal 0, `[f.detach() for f in feats]`, whose growth the summary
                    # tracked): a tensor the summary calls graph-free may have been filled
                    # from a graph (`scores_all[idx] = scores`), so it is the forward's graph
                    graph = self.produced(Value(GRAPH))
                    return Value(SEQUENCE, items=tuple(
                        item if _taken_on_trust(item) else
                        _trusted_entries(item, graph) if item.fields is not None else graph
                        for item in output.items))
        return self.produced(Value(GRAPH))

    def _passed_back(self, callee: Value, output: Value, args, kwargs) -> Value:
        """A module call's result with the items its forward hands back untouched replaced by
        what the caller passed (`loss, logs = criterion(out, batch, logs)` of a logging dict):
        a forward's output, but not a graph the forward made."""
        if not callee.name:
            return output
        if callee.name in self.m.classes:
            forward = self.m.method(callee.name, "forward")
            if forward is None:
                return output
            params = [p.arg for p in positional_parameters(forward)]
            width, positions = self.m.cached(("passed_through", forward), lambda: passed_through_positions(forward))
        elif "." in callee.name and self.m.project is not None:
            found = self.m.project.method_of(callee.name, "forward")
            if found is None or found[0] != "function" or not found[1] or not found[1].get("pass"):
                return output
            params = found[1]["params"]
            width, positions = found[1]["pass"]["w"], {int(k): v for k, v in found[1]["pass"]["p"].items()}
        else:
            return output
        if not positions:
            return output
        if output.items is not None and len(output.items) == width:
            items = list(output.items)
        elif output.items is None and output.kind == GRAPH:
            items = [output] * width  # the forward's graph, taken as a whole (a parameterless module)
        else:
            return output
        for position, name in positions.items():
            index = params.index(name) - 1 if name in params else -1  # `self` is not passed
            value = kwargs.get(name) if name in kwargs else args[index] if 0 <= index < len(args) else None
            if value is not None and position < len(items):
                items[position] = value
        return replace(output, items=tuple(items))

    def _an_accelerator(self, expr: ast.AST) -> bool:
        """Is `expr` a name or `self` attribute bound in this module to `Accelerator(...)`
        (HuggingFace accelerate)?"""
        key = dotted(expr)
        if key is None:
            return False
        return key in self.m.cached(("accelerator_names",), self._accelerator_names)

    def _accelerator_names(self) -> Set[str]:
        out = set()
        for node in self.m.by_type.get(ast.Assign, ()):
            if isinstance(node.value, ast.Call) and (self.m.qualname(node.value.func) or "") in (
                    "accelerate.Accelerator", "accelerate.accelerator.Accelerator"):
                out |= {dotted(t) for t in node.targets if dotted(t)}
        return out

    def _constructs_a_module(self, e: ast.Call) -> bool:
        """`agent = Model(envs)` where `Model` came in as a parameter (even one annotated
        nn.Module): the result is then used as a module (`agent.eval()`, `.parameters()`),
        so the call was a constructor, not a forward."""
        if not isinstance(e.func, ast.Name) or e.func.id not in self.result.params:
            return False
        outer = e  # through `.to(device)`, `.cuda()`, `.eval()` on the result
        while isinstance(self.m.parent(outer), ast.Attribute) and isinstance(self.m.parent(self.m.parent(outer)), ast.Call) \
                and self.m.parent(outer).attr in torch_api.MODULE_SELF_METHODS | {"to", "cuda", "cpu", "eval", "train"}:
            outer = self.m.parent(self.m.parent(outer))
        stmt = self.m.parent(outer)
        if not isinstance(stmt, ast.Assign) or stmt.value is not outer or len(stmt.targets) != 1:
            return False
        target = stmt.targets[0]
        return isinstance(target, ast.Name) and target.id in self.module_names

    def _parts_beside_the_loss(self, elts, value: Value, stmt: ast.AST) -> List[ast.AST]:
        """`self.loss, self.loss_items = self.model(batch)`: a result of unknown layout one part
        of which is the loss this function back-propagates, as it is or as a term of an
        arithmetic combination of losses (the model computed it).
        The other parts are what the author kept beside the loss (logged items, often detached
        by the callee): the backward proves nothing of them. Not so for predictions (`logits,
        feats = student(x)`, a loss computed here from `logits`: `feats` is an output of the
        same forward) nor for parts that feed the backward too (`h` of `out, h = rnn(x, h)`)."""
        if value.kind != GRAPH or value.items is not None or len(elts) < 2 or self.nograd:
            return []
        keys = {elt: dotted(elt) for elt in elts if isinstance(elt, (ast.Name, ast.Attribute))}
        operands = self.m.loss_terms(self.unit)  # `loss, acc = model(x)`; `((loss + l2) / 2).backward()`
        if not any(key in operands for key in keys.values()):
            return []
        return [elt for elt, key in keys.items() if key is None or not self.m.feeds_backward(self.unit, key)]

    def _names_read_by_string_keys(self) -> Set[str]:
        """The names the unit reads with a string key (`pi_info["kl"]`)."""
        def compute() -> Set[str]:
            return {node.value.id for node in nodes_within(self.unit)
                    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)}
        return self.m.cached(("names_read_by_string_keys", self.unit), compute)

    def _items_of_an_opaque_part(self, elts, stmt: ast.AST) -> List[ast.AST]:
        """`loss, (entropy, max_prob) = self.train_batch(b)`, the stats a model's `forward`
        returned beside its outputs: a part of a result whose layout is not known, unpacked in
        turn, is a container of unknown items (often numbers made with `.item()`); that the
        whole carried a graph proves nothing of each. Not the state a recurrent call is handed
        back (`out, (h, c) = model(x, (h, c))`): that is the forward's own output."""
        producer = stmt.value.func if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) else None
        if producer is not None and self._a_torch_layer(producer):
            return []  # `_, (h, c) = self.lstm(x)`: a torch layer's outputs, every one a tensor of its graph
        handed_back = self._handed_back_to(producer) if producer is not None else set()
        return [elt for elt in elts if not (isinstance(elt, ast.Name) and elt.id in handed_back)
                and not isinstance(elt, ast.Starred)]

    def _a_torch_layer(self, func: ast.AST) -> bool:
        """`self.lstm` built as `nn.LSTM(...)` in `__init__` (or a value the flow names a torch layer)."""
        callee = self.result.values.get(func)
        if callee is not None and callee.kind == MODULE and callee.name and torch_api.nn_class(callee.name):
            return True
        if self.cls is None or not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                    and func.value.id == self_name(self.unit)):
            return False
        built = bound_once_in_init(self.cls, func.attr)
        return isinstance(built, ast.Call) and torch_api.nn_class(self.m.qualname(built.func) or "") is not None

    def _handed_back_to(self, producer: ast.AST) -> Set[str]:
        """The names and `self` attributes the unit hands to calls of `producer` (`model(x,
        hidden)`), with those they are made from in the unit (`hidden = (h.detach(), c)`,
        `self.hx = hx`): the state a recurrent call is fed back."""
        shape = ast.dump(producer)
        keys = {key for call in nodes_within(self.unit) if isinstance(call, ast.Call) and ast.dump(call.func) == shape
                for arg in list(call.args) + [kw.value for kw in call.keywords]
                for n in walk(arg) if isinstance(n, (ast.Name, ast.Attribute))
                for key in [dotted(n)] if key is not None}
        assigns = [node for node in nodes_within(self.unit) if isinstance(node, ast.Assign)]
        for _ in range(2):  # `hidden = (h, c)` then `model(x, hidden)`; `self.hx = hx`
            keys |= {key for node in assigns if any(dotted(n) in keys for t in node.targets for n in walk(t)
                                                    if isinstance(n, (ast.Name, ast.Attribute)))
                     for n in walk(node.value) if isinstance(n, (ast.Name, ast.Attribute))
                     for key in [dotted(n)] if key is not None}
        return keys

    def _called_parameter_feeding_backward(self, name: str, stmt: ast.AST) -> bool:
        """`d_real = D(real)` in a function that back-propagates a loss computed from
        d_real, where D is an untyped parameter: the callables a training function feeds
        into its loss are the model and the criterion, and both return graphs."""
        if self.nograd or not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Call):
            return False
        func = stmt.value.func
        # (a parameter its callers hand an object of a known class is typed: that class says
        # what a call gives, `return Lx, Lu, self.lambda_u * ramp(epoch)` a number beside two losses)
        untyped_param = isinstance(func, ast.Name) and func.id in self.result.params \
            and self.env.get(func.id, UNKNOWN_V).kind == UNKNOWN
        # `self.model(x)` where the attribute came in untyped through the constructor
        untyped_attribute = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "self" and self.result.values.get(func, UNKNOWN_V).kind == UNKNOWN
        if not (untyped_param or untyped_attribute):
            return False
        if any(isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name
               for node in nodes_within(self.unit)):
            return False  # `loss_tuple = loss_fn(...)`, then `loss_tuple[0]` is the loss: a container
            # of unknown layout, whose other items (detached parts for logging) prove nothing
        if self._container_handed_round(name, stmt):
            return False  # `loss, records = self.upstream(data, records=records)`: a dict of logs handed
            # in and back, which feeds the loss's call only as its input: no graph proven
        return self.m.feeds_backward(self.unit, name)

    def _container_handed_round(self, name: str, stmt: ast.Assign) -> bool:
        """Is `name` handed to the call `stmt` binds it from, and is every other binding of it
        that reaches there a container or number (`records = defaultdict(list)` before the loop)?"""
        call = stmt.value
        handed = [a for a in list(call.args) + [k.value for k in call.keywords] if isinstance(a, ast.Name) and a.id == name]
        if not handed:
            return False
        own = {id(n) for t in stmt.targets for n in walk(t)}
        others = [d for d in self.m.reaching(self.unit).definitions(handed[0]) if id(d) not in own]
        def container(d) -> bool:  # a dict made fresh (not a tuple of state tensors)
            bound = self.m.parent(d)
            made = bound.value if isinstance(bound, ast.Assign) and bound.targets == [d] else None
            if isinstance(made, (ast.Dict, ast.DictComp)):
                return True
            return isinstance(made, ast.Call) and (self.m.qualname(made.func) or getattr(made.func, "id", "")) in _EMPTY_CONTAINERS
        return bool(others) and all(isinstance(d, ast.Name) and container(d) for d in others)

    def _track_growth(self, e: ast.Call, receiver: Value, args, kwargs) -> None:
        """`lst.append(v)` and friends: the container now (also) holds v."""
        key = dotted(e.func.value)
        if key is None or receiver.kind not in (SEQUENCE, UNKNOWN) or receiver.name:
            return
        if e.func.attr == "update" and receiver.kind == SEQUENCE:
            self.env[key] = _dict_updated(receiver, args, kwargs)
            return
        added = container_addition(e)
        if added is None:
            return
        if receiver.kind == UNKNOWN and e.func.attr == "add":
            return  # `meter.add(loss)` on an object of unknown class: a set proves nothing here
        value = args[e.args.index(added[0])] if added[0] in e.args else UNKNOWN_V
        self.env[key] = grown(receiver, element_of(value) if added[1] else value)

    def _track_loss_inputs(self, e: ast.Call, callee: Value, args) -> None:
        """The prediction a loss is computed from carries a graph when nothing says
        otherwise: `loss = F.cross_entropy(logits, y)` with `logits` from an unknown callable."""
        if self.nograd or not args or args[0].kind != UNKNOWN:
            return
        is_loss = callee.kind == LOSS_FN or (callee.kind == REF and torch_api.is_functional_loss(callee.name or ""))
        if not is_loss:
            return
        root = _prediction_root(e.args[0])
        if root is not None and self.env.get(root, UNKNOWN_V).kind == UNKNOWN:
            self.env[root] = Value(GRAPH)

    def _custom_op_apply(self, owner: Value, attr: str) -> bool:
        """`SpikeFn.apply` of a `torch.autograd.Function` subclass of this file."""
        return owner.kind == CLASS and attr == "apply" and owner.name in self.m.classes \
            and self.m.class_is(self.m.classes[owner.name], "autograd.Function", "Function")

    def _attribute_callee(self, func: ast.Attribute, receiver: Value) -> Value:
        key = dotted(func)
        if key is not None and key in self.env:
            return self.env[key]
        if receiver.kind == REF:
            return Value(REF, name=f"{receiver.name}.{func.attr}")
        if self._custom_op_apply(receiver, func.attr):
            return Value(REF, name=AUTOGRAD_FUNCTION_APPLY)  # `SpikeFn.apply(v, thr)` called directly
        if receiver.kind in (INSTANCE, MODULE) and receiver.name and receiver.name in self.m.classes:
            if self.m.method(receiver.name, func.attr) is not None:
                return Value(FUNCTION, name=f"{receiver.name}.{func.attr}")
            inherited = self._inherited_method(receiver.name, func.attr)
            if inherited is not None:
                return inherited
            return self.m_attribute(receiver.name, func.attr)
        if receiver.kind in (INSTANCE, MODULE, DATASET, LOSS_FN) and receiver.name and "." in receiver.name \
                and self.m.project is not None:
            if self.m.project.method_of(receiver.name, func.attr) is not None:
                return Value(REF, name=f"{receiver.name}.{func.attr}")  # a method of a class of another module
            return self.m_attribute(receiver.name, func.attr)  # `net.encoder(x)`: a submodule it builds
        if receiver.kind == MODULE and not receiver.name:
            owner = self._unique_method_owner(func.attr)
            if owner is not None:
                return Value(FUNCTION, name=f"{owner}.{func.attr}")
            found = self._unique_class_attribute(func.attr)
            if found.kind == UNKNOWN and not self.m.classes_defining_all((func.attr,)):
                return self._unique_project_method_owner(func.attr)
            return found
        return UNKNOWN_V

    def _unique_project_method_owner(self, attr: str) -> Value:
        """`policy.act_inference(obs)` on an nn.Module of unknown class that no class of this
        file defines the method of: the one module class of the project's other modules that
        defines it (`Project.owners()`), whose summary then says what the call returns. Ambiguous or
        absent: unknown, never a guess."""
        project = self.m.project
        if project is None or attr.startswith("__") or attr == "forward" or attr in torch_api.MODULE_SELF_METHODS \
                or attr in torch_api.MODULE_BOOKKEEPING_METHODS:
            return UNKNOWN_V
        owners = project.method_owners(attr)
        if len(owners) != 1 or project.defined_here(owners[0]) or owners[0] in project.subclassed_owners(attr):
            return UNKNOWN_V  # (a class others inherit from: the object may be of a subclass)
        return Value(REF, name=f"{owners[0]}.{attr}")

    def _in_hf_trainer(self, node) -> bool:
        info = self.m.enclosing_class_info(node)
        return info is not None and self.m.is_hf_trainer_class(info)

    def _unique_method_owner(self, attr: str) -> Optional[str]:
        """`model.update_memory(g, x, memory)` on an nn.Module of unknown class: the one module
        class of this file that defines the method (not one every module has, `forward`,
        `parameters`...), whose body then says what the call returns. Ambiguous or absent:
        None, never a guess."""
        if attr.startswith("__") or attr == "forward" or attr in torch_api.MODULE_SELF_METHODS \
                or attr in torch_api.MODULE_BOOKKEEPING_METHODS:
            return None  # every module has it: the one class of this file defining it says nothing
        owners = self.m.module_classes_defining(attr)
        return owners[0] if len(owners) == 1 else None

    def _inherited_method(self, class_name: str, attr: str) -> Optional[Value]:
        """`self.log_loss(...)` where `log_loss` comes from a parent class in another module."""
        found = inherited_method(self.m, self.m.classes.get(class_name), attr)
        return Value(REF, name=f"{found[0]}.{attr}") if found is not None else None

    def call(self, e: ast.Call, callee: Value, receiver: Optional[Value], args, kwargs) -> Value:
        func = e.func
        all_args = list(args) + list(kwargs.values())
        owner = looked_up_part_owner(e)
        if isinstance(owner, ast.Name) and self.cls is not None and isinstance(self.unit, FUNCTION_TYPES) \
                and owner.id == self_name(self.unit):
            part = class_dynamic_parts(self.m, self.cls.name)
            if part.kind == MODULE:
                return part  # `self.__getattr__(f"head_{h}")` of a class registering only such heads
        if isinstance(func, ast.Attribute) and func.attr == "prepare" and args and not kwargs \
                and self._an_accelerator(func.value):
            # `model, opt, loader = accelerator.prepare(model, opt, loader)`: each wrapped, what
            # it was (a module still runs its forward, a loader still yields batches)
            return args[0] if len(args) == 1 else Value(SEQUENCE, items=tuple(args))
        if isinstance(func, ast.Attribute):
            method = func.attr
            known = self.method_call(e, method, receiver, callee, args, kwargs, all_args)
            if known is not None:
                return known
            if receiver is not None and receiver.kind == MODULE and receiver.frozen and \
                    callee.kind in (FUNCTION, REF) and not _hands_a_module(all_args):
                # `self.vae.encode(x)` of a module built `.eval().requires_grad_(False)`: no
                # parameter records anything, so a graph comes only from an input that carries one
                result = self._call_by_callee(e, callee, args, kwargs, all_args)
                if result.carries_graph and not any(a.requires_grad for a in all_args):
                    return self._parameterless_output(all_args)
                return result
        return self._call_by_callee(e, callee, args, kwargs, all_args)

    def _call_by_callee(self, e: ast.Call, callee: Value, args, kwargs, all_args) -> Value:
        """What calling `callee` (a function, class, module, loss or object, of this module or
        another) returns."""
        func = e.func
        if callee.kind == REF and callee.alts:
            out = None
            for name in callee.alts:  # one of several imported classes or functions: either result
                out = join(out, self.ref_call(e, name, args, kwargs, all_args))
            return out
        if callee.kind == REF:
            return self.ref_call(e, callee.name, args, kwargs, all_args)
        if callee.kind == FUNCTION:
            return self.local_call(e, callee.name, args, kwargs)
        if callee.kind == CLASS and callee.alts:
            out = None
            for name in callee.alts:  # one of several classes: what either construction gives
                out = join(out, self.construct(name, e, args, kwargs))
            return out
        if callee.kind == CLASS:
            return self.construct(callee.name, e, args, kwargs)
        if callee.kind == MODULE:
            return self._passed_back(callee, self._module_output(e, callee, args, kwargs, all_args), args, kwargs)
        if callee.kind == LOSS_FN:
            return self.loss_value(all_args)
        if callee.kind == INSTANCE and callee.name:
            if self.m.method(callee.name, "__call__") is not None:
                return self.local_call(e, f"{callee.name}.__call__", args, kwargs)
            found = self._summarized_instance(callee)
            if found is not None:  # `criterion(...)` of another module's class
                if not any(a.carries_graph for a in all_args) and self._result_feeds_backward(e):
                    # `lx, lu, w = criterion(model(x), ...)` with `model` of unknown kind, and the
                    # losses back-propagated: the outputs of the unknown callables it is handed
                    # carried graphs (as the summary's `ret_g` says); the data beside them not
                    args = [Value(GRAPH) if a.kind == UNKNOWN and _unknown_call(node) else a
                            for a, node in zip(args, e.args)] + list(args[len(e.args):])
                return self.project_call(found, args, kwargs, e)
            return UNKNOWN_V
        if isinstance(func, ast.Name):
            return self.builtin_call(func.id, e, args, all_args)
        return UNKNOWN_V

    def _note_frozen(self, call: ast.AST) -> None:
        """`net.requires_grad_(False)` (also chained: `net.eval().requires_grad_(False).to(d)`)
        as a statement: from here on, calling `net` records a graph only from its input."""
        node = call
        frozen = False
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in torch_api.MODULE_CHAIN_METHODS:
            if node.func.attr == "requires_grad_":
                flag = node.args[0] if node.args else _kw(node, "requires_grad")
                frozen = isinstance(flag, ast.Constant) and flag.value is False
            node = node.func.value
        key = dotted(node)
        if frozen and key is not None:
            self._mark_frozen(key, call)

    def _thaw_holder(self, target: ast.AST, value: Value) -> None:
        """`alex.classifier[6] = nn.Linear(4096, 3)` into a module frozen before: the new part
        has trainable parameters, so the module as a whole is frozen no more."""
        root = target
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value
        key = dotted(root)
        holder = self.env.get(key) if key is not None else None
        if holder is not None and holder.frozen and value.kind in (MODULE, UNKNOWN) and not value.frozen:
            self.env[key] = replace(holder, frozen=False)

    def _note_frozen_by_helper(self, call: ast.AST) -> None:
        """`freeze_model(alex)` of a function (of this module, or another's from its summary)
        that freezes the module handed to it: from here on, `alex` records no graph of its own."""
        if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
            return
        self._note_frozen_by_own_method(call)
        positions: List[int] = []
        if isinstance(call.func, ast.Name) and call.func.id in self.m.module_functions:
            func = self.m.module_functions[call.func.id]
            positions = self.m.cached(("frozen_parameters", func), lambda: frozen_parameters(func))
        elif self.m.project is not None:
            # (the callee's value from this flow: asking the model would re-enter this analysis)
            entry = self.m.project_function_entry_of(self.result.values.get(call.func, UNKNOWN_V))
            positions = list((entry or {}).get("frz", ()))
        for index in positions:
            key = dotted(call.args[index]) if index < len(call.args) else None
            if key is not None:
                self._mark_frozen(key, call, self.result.values.get(call.args[index], UNKNOWN_V))

    def _note_frozen_by_own_method(self, call: ast.Call) -> None:
        """`self._deactivate_grad()` of a method of the same class that freezes submodules
        (`for p in self.model.parameters(): p.requires_grad_(False)`) on every path: from here
        on, `self.model` records no graph of its own."""
        func = call.func
        if call.args or call.keywords or not isinstance(func, ast.Attribute) or \
                not isinstance(func.value, ast.Name) or not isinstance(self.unit, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or func.value.id != self_name(self.unit):
            return
        info = self.m.class_of(self.unit)
        method = info.methods.get(func.attr) if info is not None else None
        if method is None or method is self.unit or len(positional_parameters(method)) != 1:
            return
        for attr in self.m.cached(("frozen_self_attributes", method), lambda: frozen_self_attributes(method)):
            key = f"{func.value.id}.{attr}"
            self._mark_frozen(key, call)

    def _parameterless_output(self, all_args) -> Value:
        """`nn.ReLU()(x)`: a graph exactly when an input carries one; unknown inputs give an
        unknown result (no finding may rest on it being a graph)."""
        if any(a.requires_grad for a in all_args):
            return self.produced(Value(GRAPH))
        if all_args and all(a.kind in (TENSOR, DATA, SCALAR) for a in all_args):
            return TENSOR_V
        return UNKNOWN_V

    def method_call(self, e, method, receiver, callee, args, kwargs, all_args) -> Optional[Value]:
        if method == "compute_loss" and _is_super_call(e.func.value) and self._in_hf_trainer(e):
            # `super().compute_loss(model, inputs)` in a HuggingFace Trainer subclass: the
            # Trainer's loss of the model's forward (or `(loss, outputs)`, whose first item it is)
            return self.produced(GRAPH_V)
        if receiver is None or receiver.kind == REF or callee.kind in (FUNCTION, MODULE, LOSS_FN):
            return None  # a torch function, a method of this module, a submodule: generic path
        if callee.kind == REF and self.m.project is not None and receiver.kind != UNKNOWN \
                and self.m.project.is_first_party(callee.name or ""):
            return None  # a method of a class of another module: its summary
        if method == "size" and len(args) == 1 and not kwargs and receiver.kind not in (SEQUENCE, INSTANCE):
            return SCALAR_V  # `x.size(0)`: one dimension, an int
        if method == "backward":
            return NONE_V
        if method in ("item", "tolist"):
            return SCALAR_V
        if method in ("detach", "detach_"):
            return CUT_V
        if method == "numpy":
            return Value(DATA)
        if receiver.kind == DATA and method in _ARRAY_MAKING_METHODS:
            return Value(DATA)  # `rng.random((n, d)).astype(np.float32)`: an array, as large as asked
        kind = receiver.kind
        if receiver.fields is not None and method in ("pop", "get", "__getitem__") and e.args and \
                isinstance(e.args[0], ast.Constant) and receiver.field(e.args[0].value) is not None:
            return receiver.field(e.args[0].value)  # `logs.get("loss")` of a known dict entry
        if method == "requires_grad_" and (kind in TENSORISH or _tensor_expression(e.func.value)):
            flag = e.args[0] if e.args else _kw(e, "requires_grad")
            if isinstance(flag, ast.Constant) and flag.value is False:
                return TENSOR_V
            if flag is None or isinstance(flag, ast.Constant) and flag.value is True:
                return Value(LEAF)  # `x.reshape(1, -1).requires_grad_(True)`: a leaf that records graphs
            return UNKNOWN_V  # a computed flag
        if kind == MODULE:
            if method == "requires_grad_" and _freezing_call(e):
                return replace(receiver, frozen=True)  # `_video_vae(...).eval().requires_grad_(False)`:
                # what it hands back (and `.to(device)` of it) records a graph only from its input
            if method in torch_api.MODULE_SELF_METHODS:
                return receiver
            if method in ("parameters", "buffers"):
                return sequence_of(Value(LEAF))
            if method in ("named_parameters", "named_buffers"):
                return sequence_of(Value(SEQUENCE, items=(SCALAR_V, Value(LEAF))))
            if method in ("state_dict",):
                return Value(DATA)
            if method == "forward":
                return self.produced(GRAPH_V)
            if method == "generate":
                return TENSOR_V
            if method == "merge_and_unload" and not e.args and not e.keywords:
                # PEFT folds the adapters into the base weights, which `get_peft_model` froze:
                # the plain model it hands back has no parameter that requires grad
                return Value(MODULE, frozen=True)
            return UNKNOWN_V
        if kind == SEQUENCE and method in _CONTAINER_METHODS:
            return _container_method_result(receiver, method)  # a dict of losses' `.items()`: its entries
        if method in ("items", "keys") and not e.args and (kind in TENSORISH or receiver.carries_graph):
            # no tensor has `.items()` or `.keys()`: the object is a mapping whose entries are
            # what was known of it (a dict of model outputs handed in), its keys no tensors
            return _container_method_result(sequence_of(receiver), method)
        if kind in TENSORISH or receiver.carries_graph:
            if torch_api.is_scalar_method(method):
                return SCALAR_V
            if torch_api.is_nondiff_method(method) or _to_integer_dtype(method, e, self.m.qualname):
                return TENSOR_V
            if method in ("split", "chunk", "unbind", "tensor_split"):
                return sequence_of(self.produced(Value(GRAPH)) if receiver.requires_grad else TENSOR_V)
            both = self._values_and_indices(method, receiver, args, kwargs)  # `probs.max(dim=-1)`
            if both is not None:
                return both
            # `x.to(y)`, `x.type_as(y)`, `x.view_as(y)`: `y` gives a dtype, device or shape, no graph
            inputs = [] if method in _TEMPLATE_ARGUMENT_METHODS else all_args
            if receiver.requires_grad or any(a.requires_grad for a in inputs):
                scalar = method in ("sum", "mean", "norm", "prod", "std", "var") and not args and "dim" not in kwargs
                return self.produced(Value(GRAPH, scalar=scalar or receiver.scalar and method in _SHAPE_KEEPING))
            return TENSOR_V
        if kind == SEQUENCE:
            return UNKNOWN_V
        if kind == UNKNOWN:
            if torch_api.is_scalar_method(method) and method not in ("size",) and not args:
                return SCALAR_V if method in ("item", "tolist", "numel", "dim") else None
            if method in ("split", "chunk", "unbind") or method not in _TENSOR_METHOD_HINTS:
                return None
        return None

    def ref_call(self, e, qual: str, args, kwargs, all_args) -> Value:
        if qual == "importlib.import_module" and e in self.m.dynamic_imports:
            return Value(REF, name=self.m.dynamic_imports[e])  # the module, as `import pkg.mod` binds it
        if qual == AUTOGRAD_FUNCTION_APPLY:
            # a custom autograd op records a node when an input requires grad
            if self.nograd or not any(a.requires_grad for a in all_args):
                return TENSOR_V
            return self.produced(Value(GRAPH))
        if self.m.project is not None:
            found = self.m.project.imported_summary(qual)
            if found is not None:
                return self.project_call(found, args, kwargs, e)
        if qual in _STDLIB_CONTAINERS and (qual == "collections.defaultdict" or not e.args):
            # `defaultdict(list)`, `OrderedDict()`, `deque(maxlen=n)`: an empty container (a
            # list, dict ... is no object of this project, whatever its methods are named)
            return Value(SEQUENCE, elem=UNKNOWN_V)
        if qual == "collections.OrderedDict":
            return _dict_made(e, args, all_args)
        ctx = torch_api.grad_context(qual)
        if ctx is not None:
            if ctx == "set":
                flag = e.args[0] if e.args else None
                off = isinstance(flag, ast.Constant) and flag.value is False
                return Value(CONTEXT, name="set", grad_off=off)
            return Value(CONTEXT, name=ctx, grad_off=ctx == "off")
        if torch_api.is_loss_class(qual):
            return Value(LOSS_FN, name=qual)
        if qual.rsplit(".", 1)[-1] == "Parameter" and qual.startswith("torch.nn."):
            flag = e.args[1] if len(e.args) > 1 else _kw(e, "requires_grad")
            if isinstance(flag, ast.Constant) and flag.value is False:
                return TENSOR_V  # `nn.Parameter(t, requires_grad=False)`: a buffer in all but name
            return Value(LEAF)  # nn.Parameter is not an nn.Module class: test it first
        if qual in ("apex.amp.initialize", "amp.initialize") and len(e.args) >= 2:
            return Value(SEQUENCE, items=(all_args[0], all_args[1]))  # `model, opt = amp.initialize(model, opt)`
        if qual.rsplit(".", 1)[-1] in _FORWARDING_WRAPPERS and qual.startswith("torch.") and e.args:
            wrapped = all_args[0] if all_args else UNKNOWN_V
            if wrapped.kind == MODULE:
                return wrapped  # `nn.DataParallel(model)`: its forward is the wrapped module's
        if torch_api.nn_class(qual) or torch_api.is_model_constructor(qual):
            return Value(MODULE, name=None, frozen=torch_api.is_parameterless_layer(qual)
                         or _norm_without_affine(qual, e) or _sequence_of_parameterless(qual, e, all_args))
        if _makes_pil_images(qual, e):
            return Value(MODULE, name=_TO_PIL_IMAGE, frozen=True)
        if qual in _TO_PIL_FUNCTIONS:
            return Value(DATA)  # `to_pil_image(x)`: a PIL image, no tensor
        if torch_api.is_parameterless_layer(qual):
            return Value(MODULE, name=None, frozen=True)  # `torchaudio.transforms.MelSpectrogram(...)`
        if torch_api.is_optimizer(qual):
            return Value(OPTIMIZER)
        if torch_api.is_lr_scheduler(qual):
            return Value(OPTIMIZER, name=SCHEDULER)  # its .step() runs once per epoch or step: no update
        if torch_api.is_dataloader(qual):
            return Value(DATALOADER)
        if torch_api.is_dataset_class(qual) or qual.startswith(("torchvision.datasets.", "datasets.load_dataset")):
            return Value(DATASET)
        if torch_api.is_functional_loss(qual):
            return self.loss_value(all_args, e)
        if torch_api.is_factory(qual):
            requires = kwargs.get("requires_grad")
            flag = _kw(e, "requires_grad")
            if isinstance(flag, ast.Constant) and flag.value is True:
                return Value(LEAF)
            if requires is not None and requires.kind != SCALAR:
                return UNKNOWN_V
            return TENSOR_V
        if qual in _LOAD_FUNCTIONS or qual.startswith(_DATA_PREFIXES):
            return Value(DATA)
        if qual in _SPLITTING_FUNCTIONS:
            return sequence_of(Value(DATASET))  # `train_set, val_set = random_split(ds, [n, m])`
        if qual in _LEGACY_TENSOR_TYPES:
            if len(e.args) == 1 and not e.keywords and args and args[0].kind in (GRAPH, LEAF):
                return args[0]  # `torch.Tensor(out)` of a tensor: an alias, with its graph
            # `torch.LongTensor(perms)`, `torch.Tensor(epoch_losses)` of a list (of numbers, or of
            # tensors, copied element by element): a new tensor, no graph, no parameter
            return TENSOR_V
        if qual in _COMBINING_FUNCTIONS and all_args:
            # `itertools.permutations(torch.arange(n))`: tuples of the iterable's items
            return sequence_of(sequence_of(element_of(all_args[0])))
        if qual == "torch.autograd.grad":
            return self._autograd_grad_value(e)
        if qual.startswith("torch."):
            if torch_api.is_scalar_function(qual):
                return SCALAR_V
            if torch_api.is_nondiff_function(qual):
                return TENSOR_V
            if torch_api.is_empty_cache(qual):
                return NONE_V
            name = qual.rsplit(".", 1)[-1]
            both = self._values_and_indices(name, args[0], args[1:], kwargs) if qual.count(".") == 1 and args \
                else None  # `torch.max(logits, 1)`
            if both is not None:
                return both
            if any(a.requires_grad for a in all_args) or not self.nograd and (
                    qual.count(".") == 1 or qual in _DIFFERENTIABLE_LIST_FUNCTIONS) and any(_holds_leaves(a) for a in args):
                # also `torch.cat([w1, w2])`, `parameters_to_vector(model.parameters())`: an op
                # over parameters records a graph (not `clip_grad_norm_(model.parameters())`)
                scalar = name in ("sum", "mean", "norm") and len(args) == 1 and not kwargs
                return self.produced(Value(GRAPH, scalar=scalar))
            # (under no-grad a torch op makes a tensor without graph, whatever its inputs are)
            # (an operand of unknown kind may carry a graph the op extends: `torch.where(mask, x, 0)`)
            return TENSOR_V if self.nograd or any(a.kind in TENSORISH for a in all_args) \
                and not any(a.kind == UNKNOWN for a in all_args) else UNKNOWN_V
        if qual.startswith(("tqdm.", "rich.progress.")) and args:
            return args[0]
        if qual.startswith("math."):
            return SCALAR_V
        return UNKNOWN_V

    def _values_and_indices_call(self, expr: ast.AST) -> bool:
        """Is `expr` a call of `torch.max`/`min`/`sort`/`topk`... (or the tensor method) that
        returns a (values, indices) pair?"""
        if not isinstance(expr, ast.Call):
            return False
        qual = self.m.qualname(expr.func) or ""
        if qual.startswith("torch.") and qual.rsplit(".", 1)[-1] in _VALUES_AND_INDICES:
            return True
        return isinstance(expr.func, ast.Attribute) and expr.func.attr in _VALUES_AND_INDICES \
            and self.result.values.get(expr.func.value, UNKNOWN_V).kind in TENSORISH

    def _values_and_indices(self, name: str, tensor: Value, more_args, kwargs) -> Optional[Value]:
        """`max`/`min`/`sort`/`topk`... along a dimension: (values, indices), where only the
        values carry the tensor's graph; None for any other call."""
        if name in ("unique", "unique_consecutive") and ("return_inverse" in kwargs or "return_counts" in kwargs):
            # `torch.unique(x, return_counts=True)`: (values, [inverse,] counts); the inverse
            # indices and the counts are integers, no graph
            values = self.produced(Value(GRAPH)) if tensor.requires_grad else TENSOR_V
            rest = (TENSOR_V,) * (("return_inverse" in kwargs) + ("return_counts" in kwargs))
            return Value(SEQUENCE, items=(values,) + rest)
        if name not in _VALUES_AND_INDICES or not (name in ("topk", "sort", "kthvalue") or more_args or "dim" in kwargs):
            return None
        values = self.produced(Value(GRAPH)) if tensor.requires_grad else TENSOR_V
        return Value(SEQUENCE, items=(values, TENSOR_V))

    def project_call(self, found, args, kwargs, call: Optional[ast.AST] = None) -> Value:
        """A call of a function or class of another module of the project, as its summary says."""
        from torchleaklint.project.summary import decode

        kind, entry, _, objpath = found
        if kind == "alias":  # a name another module re-exports: `th` of `import torch as th`
            return Value(REF, name=entry)
        if entry is None:
            return UNKNOWN_V
        if kind == "class":
            from torchleaklint.project.modules import name_from

            name = f"{name_from(found[2], self.m.path) or ''}.{objpath}"
            # a module class of another module proven to hold no parameter (its summary's
            # `noparams`) records a graph only from its input, like `nn.ReLU`
            frozen = bool(entry.get("noparams")) or built_frozen(entry.get("freeze"), call) \
                or built_without(entry.get("npu"), call)  # (built without the modules it may be handed)
            return {"module": Value(MODULE, name=name, frozen=frozen),
                    "loss": Value(LOSS_FN, name=name),
                    "dataset": Value(DATASET, name=name),
                    "loader": Value(DATALOADER, name=name)}.get(entry["kind"], Value(INSTANCE, name=name))
        if kind != "function":
            return UNKNOWN_V
        if entry.get("req") and isinstance(call, ast.Call) and leaves_a_required_argument(
                call, list(entry.get("params", []))[1 if entry.get("self") else 0:], entry["req"]):
            return UNKNOWN_V  # the call raises TypeError before the function runs
        graph_in = any(a.carries_graph or a.kind == LEAF for a in list(args) + list(kwargs.values()))
        # `logits, state = lm_step(model, x, state)` with `model` of unknown kind and the logits
        # back-propagated: what it calls was a model, as `ret_m` assumes
        assumed = entry.get("ret_m") is not None and not _modules_handed(entry, args, kwargs) and _modules_handed(
            entry, [Value(MODULE) if a.kind == UNKNOWN else a for a in args],
            {k: Value(MODULE) if a.kind == UNKNOWN else a for k, a in kwargs.items()}) \
            and isinstance(call, ast.Call) and self._result_feeds_backward(call)
        if entry.get("ret_m") is not None and _modules_handed(entry, args, kwargs) or assumed:
            result = decode(entry["ret_m"])  # `run_episode(env, policy)` with a policy module
            if graph_in:  # (`run_chunk(model, tokens, hidden)` with a graph-carrying state too)
                result = join(result, decode(entry.get("ret_g", entry.get("ret"))))
        else:
            result = decode(entry.get("ret_g", entry.get("ret")) if graph_in else entry.get("ret"))
            if graph_in and entry.get("gp") and result.items is not None:
                result = _items_made_graph_by_what_is_handed(entry, result, args, kwargs)
        if result.kind == GRAPH or result.carries_graph:
            result = self.produced(result) if result.kind == GRAPH else result
        if entry.get("detaches") and result.kind == UNKNOWN:
            result = CUT_V  # `repackage_hidden(h)` of another module (`return h.detach()` on its
            # tensor path, itself over a tuple's items): what it hands back carries no graph
        if self.nograd or entry.get("detaches"):
            result = _strip_graph(result)
        elif entry.get("nograd"):
            result = _made_without_grad(result)  # a function of another module decorated no-grad
        if entry.get("keeps") and not self.nograd and isinstance(call, ast.Call):
            self._note_kept(call, entry, args, kwargs)
        return result

    def _note_kept(self, call: ast.Call, entry: dict, args, kwargs) -> None:
        """`buffer.add(log_prob, value, reward)` of another module's class whose method appends
        its `value` argument to `self.values` (summary `keeps`): from here on the object's
        `values` list may hold what was passed (a may-fact kept as a field of the object's
        value, so that `torch.cat(buffer.values)` where the object is handed on sees graphs)."""
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        key = dotted(receiver) if receiver is not None else None
        holder = self.env.get(key) if key is not None else None
        if holder is None or holder.kind not in (INSTANCE, MODULE) or not holder.name:
            return
        params = list(entry.get("params", []))[1 if entry.get("self") else 0:]
        for param, kept in entry["keeps"].items():
            if not kept.startswith("self.") or "." in kept[5:]:
                continue
            value = _argument_value(param, params, args, kwargs)
            if value is None or not value.carries_graph:
                continue
            attr = kept[5:]
            current = self.m_attribute(holder.name, attr)
            if current.kind != SEQUENCE or current.items:
                continue  # (only a list the method appends to: a plain store is no container)
            before = holder.field(attr) if holder.fields is not None else None
            grown_list = Value(SEQUENCE, elem=join(before.elem if before is not None else None, value))
            holder = replace(holder, fields=with_field(replace(holder, fields=holder.fields or ()), attr, grown_list))
        for param, attrs in (entry.get("kst") or {}).items():
            # `meter.update(loss)` whose `self.sum += val * n; self.avg = self.sum / self.count`:
            # from here on `meter.avg` may hold a graph of what was passed
            value = _argument_value(param, params, args, kwargs)
            if value is None or not value.carries_graph:
                continue
            for attr in attrs:
                if self.m_attribute(holder.name, attr).kind == SEQUENCE:
                    continue  # (a list: what the appends above say)
                before = holder.field(attr) if holder.fields is not None else None
                holder = replace(holder, fields=with_field(replace(holder, fields=holder.fields or ()), attr,
                                                           join(before, GRAPH_V)))
        self.env[key] = holder

    def _autograd_grad_value(self, e: ast.Call) -> Value:
        """`torch.autograd.grad` returns gradients without a graph unless `create_graph=True`
        (then they are differentiable: higher-order code); a computed flag is unknown."""
        flag = _kw(e, "create_graph")
        if isinstance(flag, ast.Name) and flag.id in self.constants:
            # `create_graph=create_graph` of a helper a call passes `create_graph=True` to
            flag = ast.Constant(value=self.constants[flag.id])
        if flag is None or (isinstance(flag, ast.Constant) and not flag.value):
            return sequence_of(TENSOR_V)
        if isinstance(flag, ast.Constant) and flag.value is True and not self.nograd:
            return sequence_of(GRAPH_V)
        return UNKNOWN_V

    def _result_feeds_backward(self, call: ast.Call) -> bool:
        """Is `call` the value of an assignment some name of which feeds a backward of this unit?"""
        stmt = self.m.parent(call)
        if not isinstance(stmt, ast.Assign) or stmt.value is not call:
            return False
        return any(isinstance(n, ast.Name) and self.m.feeds_backward(self.unit, n.id)
                   for t in stmt.targets for n in walk(t))

    def _summarized_instance(self, value: Value):
        """The summary of the `__call__` of the class of another module of the project an
        object belongs to (`criterion = MixMatch_Loss(...)` of utils.py), or None."""
        if value.kind != INSTANCE or not value.name or "." not in value.name or self.m.project is None:
            return None
        found = self.m.project.method_of(value.name, "__call__")
        return found if found is not None and found[0] == "function" and found[1] is not None else None

    def loss_value(self, all_args, call: Optional[ast.Call] = None) -> Value:
        """A loss of graph-carrying (or unknown) inputs carries a graph; of detached ones not.
        A scalar, unless the call asks for one loss per sample (`reduction="none"`)."""
        tensors = [a for a in all_args if a.kind != SCALAR and a.kind != NONE]
        if tensors and all(a.kind in (TENSOR, DATA) for a in tensors):
            return TENSOR_V
        if tensors and tensors[0].kind in (TENSOR, DATA) and not any(a.carries_graph for a in tensors):
            # `criterion(logit, data.y)` with `logit` made under no_grad: only a target of unknown
            # kind could bring a graph, which nothing proves
            return UNKNOWN_V
        reduction = _kw(call, "reduction") if call is not None else None
        per_sample = isinstance(reduction, ast.Constant) and reduction.value == "none"
        return self.produced(Value(GRAPH, scalar=not per_sample))

    def construct(self, class_name: str, e, args, kwargs) -> Value:
        info = self.m.classes.get(class_name)
        if info is not None and self.m.is_module_class(info):
            kind = MODULE
            if any(b.endswith("Loss") for b in self.m.class_bases(info)):
                kind = LOSS_FN
            frozen = built_frozen(construction_freeze(info.methods.get("__init__"), info.methods), e) \
                or built_without(parameter_free_unless_handed(self.m, class_name), e) \
                or built_frozen(self.m.forward_gate(info), e)  # (built not `trainable`: its forward runs no-grad)
            return Value(kind, name=class_name, frozen=frozen)
        if info is not None and self.m.is_dataset_class(info):
            return Value(DATASET, name=class_name)
        if info is not None and self.m.is_loader_class(info):
            return Value(DATALOADER, name=class_name)  # `class LoveDALoader(DataLoader)`: yields batches
        return Value(INSTANCE, name=class_name)

    def local_call(self, e, target: str, args, kwargs) -> Value:
        func = self._local_function(target)
        if func is None:
            return UNKNOWN_V
        return self.summary(func, e, args, kwargs, has_self="." in target)

    def _local_function(self, target: str):
        if "." in target:
            cls, meth = target.split(".", 1)
            return self.m.method(cls, meth)
        return self.m.module_functions.get(target) or self.m.returned_closure(target)

    def summary(self, func, e, args, kwargs, has_self: bool) -> Value:
        """The return value of a function of this module, given these argument values."""
        # A function whose own flow is in progress (its parameters are being inferred from
        # this caller) can still be summarized with explicit arguments; only a summary of
        # itself (recursion) is cut.
        if self.depth >= MAX_SUMMARY_DEPTH:
            self.m.depth_cuts += 1  # cut by depth, not known (see the memo below)
            return UNKNOWN_V
        if func in self.m._summarizing or func is self.unit:
            self.m.read_provisional(("summarize", func))
            return UNKNOWN_V
        if has_self and is_stub(func):
            overridden = self._overrides_value(func, e, args, kwargs)
            if overridden is not None:
                return overridden
        names = [p.arg for p in positional_parameters(func)]
        bound: Dict[str, Value] = {}
        offset = 1 if has_self and names and not _is_static(func) else 0
        if isinstance(e, ast.Call) and leaves_a_required_argument(e, names[offset:],
                                                                   required_positional_count(func) - offset):
            return UNKNOWN_V  # `grad_cam_loss(a, b, c, d)` of a five-parameter function raises TypeError
        base = Analyzer(self.m, func, self.depth + 1).parameter_values()
        bound.update(base)
        for i, value in enumerate(args):
            if i + offset < len(names):
                name = names[i + offset]
                if value.kind != UNKNOWN or name not in bound:
                    bound[name] = value
        for name, value in kwargs.items():
            if name is not None and value.kind != UNKNOWN:
                bound[name] = value
        if isinstance(e, ast.Call) and not unpacks_arguments(e):
            # the parameters this call leaves to their defaults bind them (`loss_fn=nn.MSELoss()`)
            given = set(names[:offset + len(args)]) | set(kwargs)
            defaults = _literal_defaults(func, self.m.classes)
            defaults.update(self._loss_module_defaults(func, defaults))
            for name, value in defaults.items():
                if name not in given and bound.get(name, UNKNOWN_V).kind == UNKNOWN:
                    bound[name] = value
        constants = _literal_arguments(func, e, offset)
        key = ("summary", func, tuple(sorted(bound.items(), key=lambda kv: kv[0])), self.nograd > 0,
               tuple(sorted(constants.items())))
        memo = self.m._memo
        # A summary that met the depth limit somewhere inside was computed for a nested
        # caller: asked by a function's own flow (depth 0, whose findings are reported) the
        # same call is summarized again, once (else the first, deepest asker would decide
        # every later answer: order-dependent results). Nested askers reuse it: cheap.
        found = memo.get(key)
        if found is not None and (found[1] is None or self.depth > 0 or found[1] == 0):
            return found[0]
        cuts = self.m.depth_cuts
        self.m._summarizing.add(func)
        self.m.begin_computation()
        try:
            flow = analyze_unit(self.m, func, bound, self.depth + 1, constants)
        finally:
            self.m._summarizing.discard(func)
            final = self.m.end_computation(("summarize", func))
        result = flow.returns or NONE_V
        if self.nograd:
            result = _strip_graph(result)
        elif self.m.grad_off_decorated(func):
            # `@torch.no_grad() def inference(...)`: nothing it computes records a graph, so
            # what it returns that the analysis could not type is graph-free all the same
            result = _made_without_grad(result)
        if final:
            memo[key] = (result, self.depth if self.m.depth_cuts != cuts else None)
        return result

    def _overrides_value(self, stub, e, args, kwargs) -> Optional[Value]:
        """`self.train_step(batch)` in a base class whose `train_step` is abstract: what the
        overrides return, in subclasses of this module (their summaries here) and of the
        project's other modules (theirs); None when none is in view."""
        from torchleaklint.project.summary import decode

        info = self.m.method_class.get(stub)
        if info is None:
            return None
        out: Optional[Value] = None
        for other in self.m.classes.values():
            if other is info or info.name not in self.m.class_bases(other):
                continue
            override = other.methods.get(stub.name)
            if override is not None and not is_stub(override):
                out = join(out, self.summary(override, e, args, kwargs, True))
        path = self.m.objpath(stub)
        if self.m.project is not None and path:
            for site in self.m.project.overrides(path):
                out = join(out, self.m.project.local_value(decode(site.get("ret"))))
        return out

    def builtin_call(self, name: str, e, args, all_args) -> Value:
        if name in torch_api.SCALAR_BUILTINS:
            return SCALAR_V
        if name in _JOIN_BUILTINS:
            out = None
            for a in args:
                out = join(out, element_of(a) if a.kind == SEQUENCE or len(args) == 1 else a)
            if name in ("sorted", "reversed", "iter"):
                return sequence_of(out or UNKNOWN_V)
            if name == "sum" and out is not None and out.requires_grad:
                return self.produced(Value(GRAPH, scalar=out.scalar))
            return out or UNKNOWN_V
        if name in _SEQUENCE_BUILTINS:
            return sequence_of(element_of(args[0])) if args else Value(SEQUENCE, elem=UNKNOWN_V)
        if name == "enumerate" and args:
            return sequence_of(Value(SEQUENCE, items=(SCALAR_V, element_of(args[0]))))
        if name == "zip":
            if len(e.args) == 1 and isinstance(e.args[0], ast.Starred) and args and args[0].kind == SEQUENCE \
                    and args[0].items is not None:
                # `zip(*torch.unique(x, return_counts=True))`: the pairs of the tuple's items
                return sequence_of(Value(SEQUENCE, items=tuple(element_of(item) for item in args[0].items)))
            return sequence_of(Value(SEQUENCE, items=tuple(element_of(a) for a in args)))
        if name == "range":
            return sequence_of(SCALAR_V)
        if name == "dict":
            return _dict_made(e, args, all_args)
        if name == "super":
            if self.cls is not None and self.m.is_module_class(self.cls):
                return Value(MODULE)
            return UNKNOWN_V
        return UNKNOWN_V


def _dict_made(e: ast.Call, args, all_args) -> Value:
    """What `dict(...)` (or `OrderedDict(...)`) makes: a copy of the mapping it is given (its
    entries by key when known: `OrderedDict({"boxes": boxes, ...})`), or of key-value pairs,
    and the entries given by keyword (`dict(loss=loss.detach(), logits=logits)`)."""
    if len(args) == 1 and not e.keywords and args[0].kind == SEQUENCE and args[0].fields is not None:
        return args[0]
    out = None
    for a in args:  # `dict(weighted)`, `dict(zip(keys, losses))`: the entries it copies
        out = join(out, _mapping_entries(a))
    for a in all_args[len(args):]:
        out = join(out, a)
    # entries by keyword, as a literal's by constant key; positional or `**` arguments: unknown keys
    named = not e.args and e.keywords and all(kw.arg is not None for kw in e.keywords)
    fields = tuple(zip((kw.arg for kw in e.keywords), all_args)) if named else None
    return Value(SEQUENCE, elem=out or UNKNOWN_V, fields=fields)


def _mapping_entries(value: Value) -> Value:
    """What `dict(value)` holds: a mapping's values, or the second items of key-value pairs
    (`dict(zip(names, losses))`); unknown for anything else."""
    if value.kind != SEQUENCE:
        return UNKNOWN_V
    element = element_of(value)
    if element.kind == SEQUENCE and element.items is not None:
        return element.items[1] if len(element.items) == 2 else UNKNOWN_V
    return element


def _argument_value(param: str, params: List[str], args, kwargs) -> Optional[Value]:
    """The value a call hands parameter `param` (of `params`, after any `self`), by keyword
    or by position; None when it hands none."""
    value = kwargs.get(param)
    if value is None and param in params and params.index(param) < len(args):
        value = args[params.index(param)]
    return value


def _collect(out: Dict[str, Value], name: str, value: Value) -> None:
    """A call site's extra argument, gathered by `*args` / `**kwargs` (`log(step, loss=loss)`
    into `**metrics`): the collection holds it."""
    held = out.get(name)
    out[name] = Value(SEQUENCE, elem=join(held.elem if held is not None else None, value))


def _kind_tested_names(model, unit, names: Set[str]) -> Set[str]:
    """Names of `names` the function tests the kind of: `callable(t)`, `isinstance(t, ...)`
    (among the module's calls, indexed once: most functions have none)."""
    return {node.args[0].id for node in model.cached(("kind_tests",), lambda: _kind_tests(model))
            if node.args[0].id in names and model.is_inside(node, unit)}


def _kind_tests(model) -> List[ast.Call]:
    """The module's `callable(name)` / `isinstance(name, ...)` calls, found once (scanning every
    call of the module per function made a file of thousands of functions quadratic)."""
    return [node for node in model.calls
            if isinstance(node.func, ast.Name) and node.func.id in ("callable", "isinstance") and node.args
            and isinstance(node.args[0], ast.Name)]


# methods of numpy arrays, random generators and data frames that make another array of the
# same or of a requested size (not reductions: `arr.mean()` is a number)
_ARRAY_MAKING_METHODS = frozenset({"astype", "reshape", "copy", "transpose", "flatten", "ravel", "to_numpy",
                                   "random", "normal", "uniform", "standard_normal", "integers", "permutation",
                                   "rand", "randn", "randint"})
_TEMPLATE_ARGUMENT_METHODS = frozenset({"to", "type_as", "view_as", "expand_as", "reshape_as", "cuda", "cpu", "type"})
_SHAPE_KEEPING = frozenset({"cpu", "cuda", "to", "float", "double", "half", "clone", "contiguous",
                            "squeeze", "view", "reshape", "abs"})
_TENSOR_METHOD_HINTS = frozenset()
# Reductions along a dimension that return (values, indices).
_VALUES_AND_INDICES = frozenset({"max", "min", "median", "mode", "kthvalue", "topk", "sort", "cummax", "cummin"})
# Methods only a tensor has (an nn.Module has none of them): their result is a tensor.
_TENSOR_ONLY_METHODS = frozenset({"reshape", "view", "clone", "flatten", "unsqueeze", "squeeze", "permute",
                                  "transpose", "contiguous", "expand", "new_zeros", "new_ones", "new_tensor",
                                  "new_full", "new_empty"})


_INTEGER_TYPES = ("LongTensor", "IntTensor", "ShortTensor", "ByteTensor", "CharTensor", "BoolTensor",
                  "long", "int64", "int", "int32", "int16", "int8", "uint8", "bool")


def _to_integer_dtype(method: str, call: ast.Call, qualname) -> bool:
    """`x.type(torch.LongTensor)`, `x.to(torch.long)`, `x.type(torch.int64)`, `x.type("torch.LongTensor")`:
    an integer (or bool) tensor, which cannot require grad: the graph stops there."""
    if method not in ("type", "to") or not call.args:
        return False
    target = call.args[0]
    if isinstance(target, ast.Constant) and isinstance(target.value, str):
        qual = target.value
    else:
        qual = qualname(target) or ""
    module, _, name = qual.rpartition(".")
    return module in ("torch", "torch.cuda") and name in _INTEGER_TYPES


def _tensor_expression(expr) -> bool:
    """`x.reshape(1, -1)`, `t.clone()`: a call of a method only tensors have."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _TENSOR_ONLY_METHODS


# The Analyzer's method for each kind of statement and expression (`stmt_If`, `expr_Call`,
# or None), found once per node type: the flow dispatches on every node it visits
_STMT_METHODS: Dict[type, Optional[object]] = {}
_EXPR_METHODS: Dict[type, Optional[object]] = {}
_UNSET = object()


def _handler(table: Dict[type, Optional[object]], prefix: str, node_type: type):
    found = table[node_type] = getattr(Analyzer, prefix + node_type.__name__, None)
    return found


class _NoClass:
    methods: Dict[str, ast.AST] = {}


_NO_CLASS = _NoClass()


def _as_load(target: ast.AST) -> ast.AST:
    return target


_GRAD_OFF_WORDS = ("no_grad", "nograd", "inference_mode")


def names_grad_off(expr: ast.AST) -> bool:
    """`torch.no_grad()` whose `torch` this file cannot resolve (it came through `from utils
    import *`), `paddle.no_grad()`, a project's `smart_inference_mode()`: a context or
    decorator named for turning autograd off. What it does cannot be proven here, so code
    under it is not taken to build graphs (no finding may rest on the opposite)."""
    target = expr.func if isinstance(expr, ast.Call) else expr
    name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
    if isinstance(expr, ast.Call) and any(
            kw.arg and any(word in kw.arg.lower() for word in _GRAD_OFF_WORDS)
            and isinstance(kw.value, ast.Constant) and kw.value.value is True for kw in expr.keywords):
        return True  # `with eval_mode(encoder, no_grad=True):`, a project's context asked to turn it off
    return any(word in name.lower() for word in _GRAD_OFF_WORDS)


def _literal_arguments(func, call, offset: int) -> Dict[str, object]:
    """Parameter name -> literal (str, bool, int, None) for the arguments a call passes as
    literals: `model(data, mode="inference")`."""
    if not isinstance(call, ast.Call):
        return {}
    names = [p.arg for p in positional_parameters(func)]
    out: Dict[str, object] = {}
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if isinstance(arg, ast.Constant) and index + offset < len(names):
            out[names[index + offset]] = arg.value
    keyword_names = set(names) | {p.arg for p in func.args.kwonlyargs}
    for kw in call.keywords:
        if kw.arg in keyword_names and isinstance(kw.value, ast.Constant):
            out[kw.arg] = kw.value.value
    return {k: v for k, v in out.items() if isinstance(v, (str, bool, int, type(None)))}


def _unrebound(unit, constants: Dict[str, object]) -> Dict[str, object]:
    """The constants whose parameter the function never rebinds."""
    rebound = {n.id for n in walk(unit) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return {k: v for k, v in constants.items() if k not in rebound}


def _decide(test: ast.AST, constants: Dict[str, object]) -> Optional[bool]:
    """The truth of `p == "lit"` / `p != "lit"` / `p in ("a", "b")` / `p` / `not p` for a
    parameter bound to a literal; None when the test reads anything else."""
    if isinstance(test, ast.Name) and test.id in constants:
        return bool(constants[test.id])
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _decide(test.operand, constants)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        parts = [_decide(v, constants) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in parts else (True if all(p is True for p in parts) else None)
        return True if True in parts else (False if all(p is False for p in parts) else None)
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if isinstance(right, ast.Name) and isinstance(left, ast.Constant) and isinstance(op, (ast.Eq, ast.NotEq)):
        left, right = right, left
    if not (isinstance(left, ast.Name) and left.id in constants):
        return None
    value = constants[left.id]
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
        return (value == right.value) == isinstance(op, ast.Eq)
    if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
        return (value is None) == isinstance(op, ast.Is)
    if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)) \
            and all(isinstance(e, ast.Constant) for e in right.elts):
        return (value in [e.value for e in right.elts]) == isinstance(op, ast.In)
    return None


# torch wrappers whose forward is the wrapped module's (`nn.DataParallel(model)`)
_FORWARDING_WRAPPERS = frozenset({"DataParallel", "DistributedDataParallel", "compile"})
_NUMBER_TYPES = frozenset({"int", "float", "bool", "complex", "str", "Number", "Real", "Integral"})
_CONTAINER_TYPES = frozenset({"Dict", "dict", "List", "list", "Tuple", "tuple", "Sequence", "Mapping",
                              "MutableMapping", "Iterable", "Set", "set", "DefaultDict", "defaultdict"})
# A container whose annotation names only numbers and strings (`Dict[str, float]`).
DECLARED_NUMBERS = Value(SEQUENCE, elem=SCALAR_V)


def _declares_only_numbers(annotation: ast.AST) -> bool:
    """`Dict[str, Tuple[Number, Number]]`, `List[float]`: containers of numbers and strings."""
    if not isinstance(annotation, ast.Subscript):
        return False
    if (dotted(annotation.value) or "").rsplit(".", 1)[-1] not in _CONTAINER_TYPES:
        return False
    parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    for part in parts:
        if isinstance(part, ast.Constant) and part.value is Ellipsis:
            continue
        if isinstance(part, ast.Subscript):
            if not _declares_only_numbers(part):
                return False
        elif (dotted(part) or "").rsplit(".", 1)[-1] not in _NUMBER_TYPES:
            return False
    return True


def _unwrap_annotation(annotation: ast.AST) -> Optional[ast.AST]:
    """`Optional[nn.Module]`, `Union[nn.Module, None]`, `nn.Module | None` and the string
    forms of them: the one non-None type they name (None when they name several)."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript):
        name = dotted(annotation.value) or ""
        if name.rsplit(".", 1)[-1] in ("Optional", "Union"):
            parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
            kept = [p for p in parts if not (isinstance(p, ast.Constant) and p.value is None)]
            return _unwrap_annotation(kept[0]) if len(kept) == 1 else None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        parts = [annotation.left, annotation.right]
        kept = [p for p in parts if not (isinstance(p, ast.Constant) and p.value is None)]
        return _unwrap_annotation(kept[0]) if len(kept) == 1 else None
    return annotation


def _number_of(expr: ast.AST) -> Optional[ast.AST]:
    """`x` of `x.item()` or `float(x)`, else None."""
    if isinstance(expr, ast.Call) and not expr.keywords:
        if isinstance(expr.func, ast.Attribute) and expr.func.attr == "item" and not expr.args:
            return expr.func.value
        if isinstance(expr.func, ast.Name) and expr.func.id in ("float", "int") and len(expr.args) == 1:
            return expr.args[0]
    return None


def _array_guarded(test: ast.AST) -> Optional[ast.AST]:
    """The expression a test proves to be a NumPy array when true: `isinstance(x, np.ndarray)`,
    `type(x) == np.ndarray`, `type(x) is np.ndarray`."""
    def ndarray(kind) -> bool:
        return (dotted(kind) or "").endswith("ndarray")
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2 and ndarray(test.args[1]):
        return test.args[0]
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is)) \
            and isinstance(test.left, ast.Call) and isinstance(test.left.func, ast.Name) \
            and test.left.func.id == "type" and len(test.left.args) == 1 and ndarray(test.comparators[0]):
        return test.left.args[0]
    return None


def _subscript_key(expr: Optional[ast.AST]) -> Optional[str]:
    """`losses[0]` -> "losses[0]": the env key of an item read with a constant index from a
    name (or dotted attribute), which no name or attribute key can spell; `end_points[key]`
    -> "end_points[$key]" for an index held by a name (dropped when that name is rebound);
    None otherwise."""
    if not isinstance(expr, ast.Subscript):
        return None
    base = dotted(expr.value)
    if base is None:
        return None
    if isinstance(expr.slice, ast.Name):
        return f"{base}[${expr.slice.id}]"
    if not isinstance(expr.slice, ast.Constant) or not isinstance(expr.slice.value, (int, str)):
        return None
    return f"{base}[{expr.slice.value!r}]"


def _number_guarded(test: ast.AST) -> Optional[ast.AST]:
    """The expression a test proves to be a Python number when true: `isinstance(x, float)`,
    `isinstance(x, (int, float))`, `type(x) == float` (`is`, `in (int, float)`), or several
    such tests of one expression joined by `or` (`type(x) == float or type(x) == int`)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        guarded = [_number_guarded(part) for part in test.values]
        first = guarded[0]
        same = first is not None and all(g is not None and ast.dump(g) == ast.dump(first) for g in guarded)
        return first if same else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.Is, ast.In)) \
            and isinstance(test.left, ast.Call) and isinstance(test.left.func, ast.Name) \
            and test.left.func.id == "type" and len(test.left.args) == 1 and not test.left.keywords:
        kinds = test.comparators[0]
        kinds = kinds.elts if isinstance(test.ops[0], ast.In) and isinstance(kinds, (ast.Tuple, ast.List, ast.Set)) \
            else [kinds] if not isinstance(test.ops[0], ast.In) else []
        return test.left.args[0] if kinds and all(dotted(k) in _NUMERIC_TYPE_NAMES for k in kinds) else None
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"
            and len(test.args) == 2):
        return None
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    return test.args[0] if kinds and all(dotted(k) in _NUMERIC_TYPE_NAMES for k in kinds) else None


_NUMERIC_TYPE_NAMES = frozenset({"int", "float", "numbers.Number", "Number", "numbers.Real", "Real"})


def _tensor_guarded(test: ast.AST) -> Optional[ast.AST]:
    """The expression a test proves to be a tensor when true: `hasattr(x, "item")`,
    `isinstance(x, torch.Tensor)`, `torch.is_tensor(x)`."""
    if not isinstance(test, ast.Call) or not test.args:
        return None
    func = test.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name == "hasattr" and len(test.args) == 2 and isinstance(test.args[1], ast.Constant) \
            and test.args[1].value in ("item", "detach", "backward"):
        return test.args[0]
    if name == "isinstance" and len(test.args) == 2 and "Tensor" in ast.unparse(test.args[1]):
        return test.args[0]
    if name == "is_tensor" and len(test.args) == 1:
        return test.args[0]
    return None


def _trusted_entries(returned: Value, graph: Value) -> Value:
    """A dict another module's forward returns (`logging_output`), entry by entry: numbers,
    None and what the forward itself cut (`coord_loss.data`, `.detach()`: a TENSOR the
    summary proved graph-free) stand; any other entry is taken for the forward's graph."""
    fields = tuple((key, value if value.kind in (SCALAR, NONE, TENSOR) else graph) for key, value in returned.fields)
    elem = None
    for _, value in fields:
        elem = join(elem, value)
    return Value(SEQUENCE, elem=elem, fields=fields)


def _forward_output(returned: Value, behaviour_class=lambda name: False) -> Value:
    """What calling a module of this file gives, from its `forward`'s summary: a module call
    runs a forward, so an unknown part is a graph, but a part the forward provably returns
    as a Python number or None (`return out, ratio` with `ratio = a / b` of sizes) is not."""
    if returned.items is not None:
        return Value(SEQUENCE, items=tuple(_forward_output(item, behaviour_class) for item in returned.items))
    if returned.kind == SEQUENCE and returned.elem is not None and returned.fields is None:
        return Value(SEQUENCE, elem=_forward_output(returned.elem, behaviour_class))  # a list built of detached caches
    if returned.kind in _NEVER_A_GRAPH or returned.kind == TENSOR or returned.carries_graph:
        return returned  # TENSOR: proven graph-free (a parameterless module on graph-free inputs)
    if returned.kind == INSTANCE and returned.name and behaviour_class(returned.name):
        return returned  # an object of a known class with methods of its own (`SO3_Embedding`), not a
        # record of the forward's outputs (a NamedTuple, a dataclass): its attributes say what they hold
    return Value(GRAPH)


def _always_jumps(body: List[ast.stmt]) -> bool:
    """Does every path through `body` end in `return`, `raise`, `break` or `continue`?"""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
        return True
    return isinstance(last, ast.If) and _always_jumps(last.body) and _always_jumps(last.orelse)


def _always_leaves(body: List[ast.stmt]) -> bool:
    """Does every path through `body` end in `return` or `raise`?"""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    return isinstance(last, ast.If) and _always_leaves(last.body) and _always_leaves(last.orelse)


def _slices(index: ast.AST) -> bool:
    """`x[:, a:b]`, `x[..., 0]`, `x[1:]`: an index that slices a tensor (not a dict's key)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(p, ast.Slice) or isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts)


def _unpacked_part(value: Value) -> Value:
    if value.kind == SEQUENCE:
        return element_of(value)
    if value.kind == GRAPH:
        return Value(GRAPH)
    if value.kind in (TENSOR, DATA):
        return Value(value.kind)
    if value.kind == SCALAR:
        return SCALAR_V  # `b, c, h, w = x.shape`: the numbers of a size (a string's characters)
    return UNKNOWN_V


_CONTAINER_METHODS = frozenset({"pop", "popleft", "get", "__getitem__", "setdefault", "values", "items", "keys",
                                "copy", "append", "appendleft", "extend", "insert", "clear", "update"})


AUTOGRAD_FUNCTION_APPLY = "torch.autograd.Function.apply"
# functions outside the top-level `torch.` namespace that combine the tensors of a list they
# are handed into one differentiable tensor
_DIFFERENTIABLE_LIST_FUNCTIONS = frozenset({"torch.nn.utils.parameters_to_vector",
                                            "torch.nn.utils.convert_parameters.parameters_to_vector"})


def _holds_leaves(value: Value) -> bool:
    """A list or tuple of tensors that require grad (`model.parameters()`, `[w1, w2]`)."""
    if value.kind != SEQUENCE:
        return False
    parts = value.items if value.items is not None else (value.elem,) if value.elem is not None else ()
    return bool(parts) and any(part.kind in (LEAF, GRAPH) for part in parts)


def _part_of_frozen(part: Value) -> Value:
    """An attribute of a frozen module: a submodule as frozen, a parameter as a tensor that
    records nothing."""
    if part.kind == MODULE:
        return replace(part, frozen=True)
    if part.kind == LEAF:
        return TENSOR_V
    return part


def _constant_call(expr: ast.AST) -> bool:
    """`nn.Linear(8, 8)`, `nn.CrossEntropyLoss()`: a call of a dotted name on literal arguments."""
    return isinstance(expr, ast.Call) and dotted(expr.func) is not None and all(
        isinstance(a, ast.Constant) or isinstance(a, ast.UnaryOp) and isinstance(a.operand, ast.Constant)
        for a in list(expr.args) + [kw.value for kw in expr.keywords])


def _subscript_path(target: ast.Subscript):
    """`d["a"][k]` -> (`d`, ["a", None]): the stored-into root and its keys (None where not a
    constant string)."""
    path = []
    node = target
    while isinstance(node, ast.Subscript):
        key = node.slice
        path.append(key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None)
        node = node.value
    return node, path[::-1]


def _sequence_of_parameterless(qual: str, call: ast.Call, all_args) -> bool:
    """`nn.Sequential(K.augmentation.RandomHorizontalFlip(), nn.ReLU())`: a chain of modules
    none of which holds a parameter holds none."""
    return torch_api.nn_class(qual) == "Sequential" and bool(all_args) and not call.keywords \
        and not any(isinstance(a, ast.Starred) for a in call.args) \
        and all(a.kind == MODULE and a.frozen for a in all_args)


def _iterated_keys_of(iterable: ast.AST) -> Optional[str]:
    """`d`, `d.keys()`, `list(d)`, `list(d.keys())`: the name of the dict whose keys a loop walks."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id in ("list", "tuple") \
            and len(iterable.args) == 1 and not iterable.keywords:
        iterable = iterable.args[0]
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and iterable.func.attr == "keys" \
            and not iterable.args:
        iterable = iterable.func.value
    return iterable.id if isinstance(iterable, ast.Name) else None


def _entry_stores(body, name: str, key: str) -> List[Tuple[ast.Assign, bool]]:
    """The statements `name[key] = value` that run in every iteration of a loop over `name`'s
    keys: straight in the body, or (guarded: True) under `if name[key] is not None:`, which
    leaves the other entries None. Empty when another statement could skip or change them."""
    def is_entry(node) -> bool:
        return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name \
            and isinstance(node.slice, ast.Name) and node.slice.id == key

    found = []
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and is_entry(stmt.targets[0]):
            found.append((stmt, False))
        elif isinstance(stmt, ast.If) and not stmt.orelse and isinstance(stmt.test, ast.Compare) \
                and is_entry(stmt.test.left) and len(stmt.test.ops) == 1 and isinstance(stmt.test.ops[0], ast.IsNot) \
                and isinstance(stmt.test.comparators[0], ast.Constant) and stmt.test.comparators[0].value is None:
            inner = [s for s in stmt.body if isinstance(s, ast.Assign) and len(s.targets) == 1 and is_entry(s.targets[0])]
            found += [(s, True) for s in inner]
        if isinstance(stmt, (ast.Break, ast.Continue, ast.Return, ast.Raise)):
            return []
    return found


def _stored_into(container: Value, path, value: Value) -> Value:
    """A container after `container[path[0]]...[path[-1]] = value`."""
    if container.kind != SEQUENCE:
        return container
    entry = path[0]
    if len(path) > 1:
        inner = container.field(entry) if container.fields is not None and entry is not None else None
        if inner is None:
            # an entry of unknown layout changed: what it holds is unknown from now on
            return replace(grown(container, UNKNOWN_V), fields=with_field(container, entry, UNKNOWN_V))
        value = _stored_into(inner, path[1:], value)
    return replace(grown(container, value), fields=with_field(container, entry, value))


def _dict_updated(container: Value, args, kwargs) -> Value:
    """A dict after `d.update(other)` / `d.update(loss=loss)`: entries added by keyword or from a
    dict of known entries stay known; anything else leaves the keys unknown."""
    out = container
    if len(args) == 1 and args[0].kind == SEQUENCE and args[0].fields is not None:
        for key, value in args[0].fields:
            out = _stored_into(out, [key], value)
    elif args:
        return replace(grown(container, element_of(args[0])), fields=None)
    for key, value in kwargs.items():
        out = _stored_into(out, [key], value)  # `**extra` (key None): the keys become unknown
    return out


def _container_method_result(receiver: Value, method: str) -> Value:
    """What a list's or dict's own method gives (`d.items()`, `d.pop(k)`), from its elements."""
    if method in ("pop", "popleft", "get", "__getitem__", "setdefault"):
        return element_of(receiver)
    if method == "values":
        return sequence_of(element_of(receiver))
    if method == "items":
        return sequence_of(Value(SEQUENCE, items=(SCALAR_V, element_of(receiver))))
    if method == "keys":
        return sequence_of(SCALAR_V)
    if method == "copy":
        return receiver
    return NONE_V  # append, extend, insert, clear, update


_IN_PLACE_OPERATORS = {ast.Add: "__iadd__", ast.Sub: "__isub__", ast.Mult: "__imul__", ast.Div: "__itruediv__"}

_GROW_METHODS = {"append": (0, False), "appendleft": (0, False), "add": (0, False),
                 "insert": (1, False), "extend": (0, True), "extendleft": (0, True)}
_SHAPE_METHODS = frozenset({"view", "reshape", "squeeze", "unsqueeze", "flatten", "transpose", "permute",
                            "contiguous", "float", "double", "half", "view_as", "reshape_as"})


def container_addition(call: ast.Call):
    """For `c.append(v)` / `c.insert(i, v)` / `c.extend(vs)`: (the added argument, whether
    it is an iterable of added items); None for other calls."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _GROW_METHODS or call.keywords:
        return None
    index, many = _GROW_METHODS[func.attr]
    if len(call.args) != index + 1 or isinstance(call.args[index], ast.Starred):
        return None
    return call.args[index], many


def grown(container: Value, elem: Value) -> Value:
    """The value of a container after adding an element of value `elem`."""
    old = None
    if container.kind == SEQUENCE:
        if container.elem is not None:
            old = container.elem
        elif container.items:
            old = element_of(container)
    return sequence_of(join(old, elem) if old is not None else elem)


def _prediction_root(expr: ast.AST):
    """`logits` in `logits`, `logits.view(-1, n)`, `logits[mask]`: the name a loss input is."""
    while True:
        if isinstance(expr, ast.Name):
            return expr.id
        if isinstance(expr, ast.Subscript):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _SHAPE_METHODS:
            expr = expr.func.value
        else:
            return None


_STRONG_MODULE_METHODS = frozenset(torch_api.MODULE_EVIDENCE_METHODS - {"load_state_dict"})


def _module_evidence(model) -> Dict[ast.AST, Set[str]]:
    """Per function (and the module body): local names the code itself shows to be
    nn.Modules: `.parameters()`, `.eval()`, ... on them, or both a device move
    (`x = f(...).to(d)`, `x.cuda()`) and `.load_state_dict()` (an optimizer has
    load_state_dict but no `.to`; a tensor has `.to` but no state dict). One pass over the
    module's calls and assignments, each credited to its innermost function."""
    strong: Dict[ast.AST, Set[str]] = {}
    moved: Dict[ast.AST, Set[str]] = {}
    stateful: Dict[ast.AST, Set[str]] = {}
    for node in model.calls:
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            name, attr = func.value.id, func.attr
            if attr in _STRONG_MODULE_METHODS:
                strong.setdefault(model.unit_of(node), set()).add(name)
            elif attr in ("load_state_dict", "state_dict"):
                stateful.setdefault(model.unit_of(node), set()).add(name)
            elif attr in ("to", "cuda"):
                moved.setdefault(model.unit_of(node), set()).add(name)
    for node in model.by_type.get(ast.Assign, ()):
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
                    value.func.attr in ("to", "cuda") and isinstance(value.func.value, ast.Call):
                moved.setdefault(model.unit_of(node), set()).add(node.targets[0].id)
    units = set(strong) | (set(moved) & set(stateful))
    return {unit: strong.get(unit, set()) | (moved.get(unit, set()) & stateful.get(unit, set())) for unit in units}


def _items_made_graph_by_what_is_handed(entry: dict, result: Value, args, kwargs) -> Value:
    """The tuple a function of another module returns with graph-carrying arguments (`ret_g`),
    each item that only some parameters' graphs make graph-carrying (the summary's `gp`) read
    as `ret` has it when the call hands none of those a graph: `alpha` handed back by
    `update_actor(..., alpha, ...)` is the caller's number, whatever the loss it also returns."""
    from torchleaklint.project.summary import decode

    plain = decode(entry.get("ret"))
    if plain.items is None or len(plain.items) != len(result.items):
        return result
    params = list(entry.get("params") or [])[1 if entry.get("self") else 0:]
    handed = dict(zip(params, args))
    handed.update({k: v for k, v in kwargs.items() if k is not None})
    items = list(result.items)
    for index, needed in entry["gp"].items():
        position = int(index)
        if position < len(items) and not any(
                p in handed and (handed[p].carries_graph or handed[p].kind == LEAF) for p in needed) \
                and all(p in handed for p in needed):
            items[position] = plain.items[position]
    return replace(result, items=tuple(items))


def _modules_handed(entry: dict, args, kwargs) -> bool:
    """Does the call hand a module for every parameter the summary's `ret_m` assumes one (`mp`)?"""
    params = list(entry.get("params") or [])[1 if entry.get("self") else 0:]
    handed = dict(zip(params, args))
    handed.update(kwargs)
    wanted = entry.get("mp") or []
    # (a loss module, `nn.CrossEntropyLoss()`, is a module the callee calls like any other)
    return bool(wanted) and all(p in handed and handed[p].kind in (MODULE, LOSS_FN) for p in wanted)


def _strip_graph(value: Value) -> Value:
    """What a value computed with autograd off holds: no graph, in its items and elements too
    (`outputs = self._forward_micro_batch(...)` under no-grad, a dict of tensors)."""
    if value.kind == GRAPH:
        return CUT_V
    if value.items is not None:
        return Value(SEQUENCE, items=tuple(_strip_graph(i) for i in value.items))
    if value.kind == SEQUENCE and value.elem is not None and value.elem.carries_graph:
        fields = tuple((k, _strip_graph(v)) for k, v in value.fields) if value.fields is not None else None
        return Value(SEQUENCE, elem=_strip_graph(value.elem), fields=fields)
    return value


def _writes_through_data(target: ast.AST) -> bool:
    """`w.data`, `w.data[i]`: a store into a tensor's `.data`, which autograd does not see."""
    while isinstance(target, ast.Subscript):
        target = target.value
    return isinstance(target, ast.Attribute) and target.attr == "data"


def _none_tested(test: ast.AST) -> Optional[Tuple[str, bool]]:
    """(name, True) for `x is None`, (name, False) for `x is not None`, else None."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        key = dotted(test.left)
        if key is not None:
            return key, isinstance(test.ops[0], ast.Is)
    return None


def _constant_slice(items: tuple, part: ast.Slice) -> Optional[tuple]:
    """The items `seq[a:b]` keeps, when its bounds are integer literals (or left out) and no
    step is given; None otherwise."""
    if part.step is not None:
        return None
    bounds = [None if b is None else _int_literal(b) for b in (part.lower, part.upper)]
    if any(b is None and given is not None for b, given in zip(bounds, (part.lower, part.upper))):
        return None
    return tuple(items[bounds[0]:bounds[1]])


def _int_literal(expr: ast.AST) -> Optional[int]:
    """`3` -> 3, `-1` -> -1; None for anything else."""
    negative = isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub)
    inner = expr.operand if negative else expr
    if isinstance(inner, ast.Constant) and type(inner.value) is int:
        return -inner.value if negative else inner.value
    return None


def _is_none_literal(expr: Optional[ast.AST]) -> bool:
    return isinstance(expr, ast.Constant) and expr.value is None


def _names(expr: ast.AST, key: str) -> bool:
    """Is `expr` exactly the name (or dotted attribute) `key`?"""
    return isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr) == key


def _made_without_grad(value: Value) -> Value:
    """What a function whose whole body runs with autograd off returns: no graph made there,
    so an untyped part (an entry of a dict of its results) is a tensor without one. A graph
    it was handed and returns as it is (GRAPH) stands."""
    if value.kind == UNKNOWN:
        return TENSOR_V
    if value.items is not None:
        return replace(value, items=tuple(_made_without_grad(i) for i in value.items))
    if value.kind == SEQUENCE:
        fields = tuple((k, _made_without_grad(v)) for k, v in value.fields) if value.fields is not None else None
        elem = _made_without_grad(value.elem) if value.elem is not None else None
        return replace(value, elem=elem, fields=fields)
    return value


def _literal_defaults(unit, classes=None) -> Dict[str, Value]:
    """Parameter -> the value of its literal default (`None`, a number, a string, a tuple or
    list of numbers: `sizes=(8, 32, 128)`), or of a default naming a class of this module
    (`norm_cls=RunningGraphNorm`)."""
    out: Dict[str, Value] = {}
    for a in named_parameters(unit):
        d = default_of(unit, a)
        if isinstance(d, ast.Name) and classes and d.id in classes:
            out[a.arg] = Value(CLASS, name=d.id)
        elif isinstance(d, ast.Constant):
            out[a.arg] = NONE_V if d.value is None else SCALAR_V
        elif isinstance(d, (ast.Tuple, ast.List)) and d.elts and all(
                isinstance(e, ast.Constant) and e.value is not None for e in d.elts):
            out[a.arg] = Value(SEQUENCE, elem=SCALAR_V)
    return out


def _shapeless(value: Value) -> bool:
    """Nothing known of a value: unknown, or a container with no known items, elements or
    entries (`(a, b)` joined with `(a, b, c)`)."""
    return value.kind == UNKNOWN or value.kind == SEQUENCE and value.items is None and value.elem is None \
        and not value.fields


_TO_PIL_IMAGE = "torchvision.transforms.ToPILImage"
_TO_PIL_FUNCTIONS = frozenset({"torchvision.transforms.functional.to_pil_image",
                               "torchvision.transforms.v2.functional.to_pil_image"})


def _makes_pil_images(qual: str, e: ast.AST) -> bool:
    """`ToPILImage()`, or `Compose([..., ToPILImage()])` whose last transform it is: calling
    it turns a tensor into a PIL image (through `.byte()` and numpy), which holds no graph."""
    name = qual.rsplit(".", 1)[-1]
    if not qual.startswith("torchvision.transforms."):
        return False
    if name == "ToPILImage":
        return True
    if name != "Compose" or not isinstance(e, ast.Call) or not e.args or not isinstance(e.args[0], (ast.List, ast.Tuple)) \
            or not e.args[0].elts:
        return False
    last = e.args[0].elts[-1]
    return isinstance(last, ast.Call) and (dotted(last.func) or "").rsplit(".", 1)[-1] == "ToPILImage"


def _taken_on_trust(item: Value, depth: int = 0) -> bool:
    """An item of what another module's forward returns that its summary can be trusted on:
    a number or other value never a graph, a cut one, a list the summary tracked
    (`[f.detach() for f in feats]`), or a tuple or list of such (`[h1.tolist(),
    f1.tolist()]`). Not a tensor it calls graph-free (it may have been filled from a graph)."""
    if item.kind in _NEVER_A_GRAPH or item.cut:
        return True
    if item.kind != SEQUENCE or item.carries_graph:
        return False
    if item.items is None:
        return item.elem is not None
    return depth < 3 and bool(item.items) and all(_taken_on_trust(i, depth + 1) for i in item.items)


def _join_env(a: Dict[str, Value], b: Dict[str, Value]) -> Dict[str, Value]:
    out = dict(a)
    for key, value in b.items():
        out[key] = join(a.get(key), value) if key in a else value
    return out


def _calls_on(model, unit: ast.AST, names: Set[str]) -> List[ast.Call]:
    """The calls inside `unit` of `name(...)` or `name.attr(...)` for a name in `names`
    (what `walk(unit)` would find, without walking every node of every unit)."""
    index = model.cached(("calls_by_unit_and_receiver",), lambda: _index_calls_by_unit(model))
    return [call for name in names for call in index.get((unit, name), ())]


def _nested_calls_on(model, unit: ast.AST, names: Set[str]) -> Dict[str, Dict[str, Set[str]]]:
    """name -> attribute -> methods, for the calls `name.attr.method(...)` inside `unit` (an
    object asked for an attribute whose methods it calls: `agent.model.get_action(obs)`)."""
    out: Dict[str, Dict[str, Set[str]]] = {}
    for name in names:
        for call in _nested_calls_of(model, unit, name):
            out.setdefault(name, {}).setdefault(call.func.value.attr, set()).add(call.func.attr)
    return out


def _direct_receiver(call: ast.Call) -> Optional[str]:
    """`name` of `name(...)` and of `name.method(...)`."""
    func = call.func.value if isinstance(call.func, ast.Attribute) else call.func
    return func.id if isinstance(func, ast.Name) else None


def _nested_calls_of(model, unit: ast.AST, name: str) -> List[ast.Call]:
    """The calls `name.attr.method(...)` inside `unit`."""
    index = model.cached(("nested_calls_by_unit",), lambda: _index_calls_by_unit(model, _nested_receiver))
    return index.get((unit, name), [])


def _nested_receiver(call: ast.Call) -> Optional[str]:
    """`name` of `name.attr.method(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Attribute) and \
            isinstance(func.value.value, ast.Name):
        return func.value.value.id
    return None


def _index_calls_by_unit(model, receiver=_direct_receiver) -> Dict[tuple, List[ast.Call]]:
    """(unit, receiver name) -> calls, each call filed under every function (and the
    module) that contains it: linear in the calls times the nesting depth."""
    index: Dict[tuple, List[ast.Call]] = {}
    parents = model.parents
    for call in model.calls:
        name = receiver(call)
        if name is None:
            continue
        unit = parents.get(call)  # (`model.ancestors`, inlined: every call of the module)
        while unit is not None:
            if isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
                index.setdefault((unit, name), []).append(call)
            unit = parents.get(unit)
    return index


def _fits_the_signature(found, call: ast.Call) -> bool:
    """Can `call` bind to the method another module's summary describes (`found`, from
    `method_of`): no more positional arguments than it has parameters after `self`, and only
    keywords it names? A method not summarized, or a call spreading `*args`, fits."""
    params = _summarized_parameters(found)
    if params is None or unpacks_arguments(call):
        return True
    return len(call.args) <= len(params) and all(kw.arg in params for kw in call.keywords)


def _project_classes_defining(project, telling: Set[str]) -> Optional[Set[str]]:
    """The classes of other modules of the project defining every name of `telling`, with the
    classes inheriting from them; None when there are none, more than three, or one of this
    module's own (the file answers for those)."""
    owners = None
    for attr in sorted(telling):
        found = set(project.class_owners(attr))
        owners = found if owners is None else owners & found
        if not owners:
            return None
    if not owners or len(owners) > 3 or any(project.defined_here(q) for q in owners):
        return None
    first = sorted(telling)[0]
    candidates = set(owners)
    for qual in owners:
        candidates.update(project.owner_descendants(first, qual))
    return candidates if len(candidates) <= 3 else None


def _one_kind_of_object(project, candidates: Set[str], common: Set[str], callable_itself: bool) -> Optional[str]:
    """The value kind an object of any of the `candidates` has (MODULE, DATASET, ...), or None
    when they differ, or when one that is no module lacks a method every module has that is
    asked of it (`common`: `.eval()`), or cannot be called while the object is."""
    kinds = set()
    for qual in candidates:
        kind = project.class_kind(qual)
        if kind not in ("module", "loss"):
            if any(project.method_of(qual, attr) is None for attr in common):
                return None
            if callable_itself and project.method_of(qual, "__call__") is None:
                return None
        kinds.add({"module": MODULE, "loss": MODULE, "dataset": DATASET, "loader": DATALOADER}.get(kind, INSTANCE))
    return kinds.pop() if len(kinds) == 1 else None


def _summarized_parameters(found) -> Optional[List[str]]:
    """The parameter names after `self` of a function another module's summary describes
    (`found`, from `method_of`); None when it is no summarized function."""
    if found is None or found[0] != "function" or not isinstance(found[1], dict) or "params" not in found[1]:
        return None
    return list(found[1]["params"])[1 if found[1].get("self") else 0:]


def _binds_every_parameter(found, call: ast.Call) -> bool:
    """Does `call` hand the summarized method (`found`) an argument for each of its parameters
    after `self`, two at least (`storage.add(obs, action, log_prob, value, reward)` for
    `add(self, obs, action, log_prob, value, reward)`): a signature matched, not a name alone?"""
    params = _summarized_parameters(found)
    if params is None:
        return False
    bound = len(call.args) + len(call.keywords)
    return len(params) >= 2 and bound == len(params) and _fits_the_signature(found, call)


def _telling(asked: Set[str]) -> Set[str]:
    return set(torch_api.telling_names(asked))


def _freezing_call(call: ast.Call) -> bool:
    """`m.requires_grad_(False)` / `m.requires_grad_(requires_grad=False)`."""
    flag = call.args[0] if call.args else _kw(call, "requires_grad")
    return isinstance(flag, ast.Constant) and flag.value is False


def flow_env_value(flow: FlowResult, name: str) -> Value:
    """The value a module-level name ends with (join of what top-level code binds to it)."""
    if flow.bound_names is None:
        index: Dict[str, Value] = {}
        last: Dict[str, Tuple[int, int]] = {}
        for node, value in flow.values.items():
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                index[node.id] = join(index.get(node.id), value)
                last[node.id] = max(last.get(node.id, (0, 0)), (node.lineno, node.col_offset))
        for key, where in flow.frozen_at.items():
            if key in index and index[key].kind == MODULE and last[key] < where:
                index[key] = replace(index[key], frozen=True)  # frozen after its last binding
        flow.bound_names = index
    return flow.bound_names.get(name, UNKNOWN_V)


def class_attribute_value(model, class_name: str, attr: str) -> Value:
    """Join of the values init-like methods (`__init__`, `reset`, `setup`) bind to self.attr."""
    return model.settled_answer(("class_attr", class_name, attr),
                                lambda: _class_attribute_value(model, class_name, attr), UNKNOWN_V)


def _stored_by_methods(model, class_name: str, attr: str, selected) -> Optional[Value]:
    """Join of what the selected methods of the class (and its bases in this file) store in
    `self.<attr>`, None when none does."""
    out = None
    info = model.classes.get(class_name)
    seen = 0
    while info is not None and seen < 8:
        for name, method in info.methods.items():
            if not selected(name) or attr not in _self_attributes_stored(model, method):
                continue  # analyzing a method that never stores it could only read provisional answers
            flow = _finished_or_own_flow(model, method)
            if flow is None:
                continue
            for node, value in _self_stores(flow, attr):
                if value.kind in (MODULE, UNKNOWN) and _frozen_after(flow, node):
                    # frozen by a later statement of the method (what a library call returned,
                    # `self.model, preprocess = clip.load(name)`, is proven a module by it)
                    value = Value(MODULE, name=value.name, frozen=True)
                out = join(out, value)
        parent = next((b.rsplit(".", 1)[-1] for b in info.base_names if b.rsplit(".", 1)[-1] in model.classes), None)
        info = model.classes.get(parent) if parent and parent != info.name else None
        seen += 1
    return out


# nn.Module methods that register a part under a name given as an argument
_PART_REGISTRATIONS = frozenset({"__setattr__", "add_module", "register_module"})
# nn.Module methods that give back the part registered under a name (also the builtin getattr)
_PART_LOOKUPS = frozenset({"__getattr__", "get_submodule"})


def class_dynamic_parts(model, class_name: str) -> Value:
    """What `self.__getattr__(name)` (or `getattr(self, name)`, `self.get_submodule(name)`)
    gives back for a name computed at run time: the join of the modules the class's methods
    register under computed names (`self.__setattr__(f"head_{h}", SemHead(...))`,
    `setattr(self, name, layer)`, `self.add_module(name, layer)`). Unknown when the class
    registers none that way or one of them is not proven a module."""
    return model.settled_answer(("dynamic_parts", class_name),
                                lambda: _class_dynamic_parts(model, class_name), UNKNOWN_V)


def _class_dynamic_parts(model, class_name: str) -> Value:
    info = model.classes.get(class_name)
    if info is None:
        return UNKNOWN_V
    out = None
    for method in info.methods.values():
        receiver = self_name(method)
        stored = [part for node in walk(method) for part in [_registered_part(node, receiver)] if part is not None]
        if not stored:
            continue
        flow = _finished_or_own_flow(model, method)
        if flow is None:
            return UNKNOWN_V
        for part in stored:
            value = flow.values.get(part, UNKNOWN_V)
            if value.kind != MODULE:
                return UNKNOWN_V
            out = join(out, value)
    return out or UNKNOWN_V


def _registered_part(node: ast.AST, receiver: Optional[str]) -> Optional[ast.expr]:
    """The part a call registers on the receiver under a computed name, else None."""
    if receiver is None or not isinstance(node, ast.Call) or node.keywords:
        return None
    func, args = node.func, node.args
    if isinstance(func, ast.Name) and func.id == "setattr" and len(args) == 3:
        owner, args = args[0], args[1:]
    elif isinstance(func, ast.Attribute) and func.attr in _PART_REGISTRATIONS and len(args) == 2:
        owner = func.value
    else:
        return None
    if not (isinstance(owner, ast.Name) and owner.id == receiver) or isinstance(args[0], ast.Constant):
        return None
    return args[1]


def looked_up_part_owner(call: ast.Call) -> Optional[ast.expr]:
    """The object whose part a call looks up under a computed name (`self` of
    `self.__getattr__(name)`, `getattr(self, name)`, `self.get_submodule(name)`), else None."""
    func, args = call.func, call.args
    if call.keywords:
        return None
    if isinstance(func, ast.Name) and func.id == "getattr" and len(args) == 2:
        owner, name = args
    elif isinstance(func, ast.Attribute) and func.attr in _PART_LOOKUPS and len(args) == 1:
        owner, name = func.value, args[0]
    else:
        return None
    return None if isinstance(name, ast.Constant) else owner


def _self_stores(flow: FlowResult, attr: str) -> List[Tuple[ast.Attribute, Value]]:
    """The `self.<attr>` store targets of a finished flow with their values, in the order of
    `flow.values` (indexed once per flow: a class's attributes are asked one by one, and a
    scan of every value of its `__init__` per attribute grew with their product)."""
    if flow.self_stores is None:
        index: Dict[str, List[Tuple[ast.Attribute, Value]]] = {}
        for node, value in flow.values.items():
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id == "self":
                index.setdefault(node.attr, []).append((node, value))
        flow.self_stores = index
    return flow.self_stores.get(attr, [])


def _finished_or_own_flow(model, method) -> Optional[FlowResult]:
    """The method's data flow; while its analysis is running (a caller's analysis asked),
    the flow with its parameters typed without its callers (`_flow_without_callers`)."""
    flow = model.flow(method)
    if flow is None and model.in_progress(method):
        flow = _flow_without_callers(model, method)
    return flow


def _flow_without_callers(model, method) -> FlowResult:
    """The method's data flow with its parameters typed by annotations and duck typing only,
    not by its call sites: what `__init__` stores on `self` while its own analysis is running
    (its callers' analysis asked for an attribute: `model = Net(v)` then `model.cell(x, h)`).
    The stores that do not depend on the callers (`self.cell = nn.GRUCell(64, h)`) come out
    right, instead of the whole attribute reading as unknown."""
    return model.cached(("flow_without_callers", method), lambda: analyze_unit(model, method, None, 1))


def _sets_only_parameters(method) -> bool:
    """A setter: a method (not a construction one) whose body, docstring aside, only binds
    its parameters to attributes of `self` as they are (`self.u = u`)."""
    receiver = self_name(method)
    if receiver is None or method.name in INIT_METHODS or is_property(method):
        return False
    params = {a.arg for a in named_parameters(method)} - {receiver}
    body = [st for st in method.body if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]
    return bool(body) and all(
        isinstance(st, ast.Assign) and isinstance(st.value, ast.Name) and st.value.id in params
        and all(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == receiver
                for t in st.targets) for st in body)


def _self_attributes_stored(model, method) -> Set[str]:
    """The attributes `self.<attr> = ...` binds in a method (any target, nested ones too)."""
    def stored():
        return {node.attr for node in walk(method) if isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) and node.value.id == "self"}
    return model.cached(("self_attributes_stored", method), stored)


def _class_attribute_value(model, class_name: str, attr: str) -> Value:

    out = _stored_by_methods(model, class_name, attr, lambda name: name in INIT_METHODS)
    info = model.classes.get(class_name)
    if out is not None and info is not None:
        setters = {name for name, method in info.methods.items() if _sets_only_parameters(method)}
        if setters:
            # `set_input(self, u): self.u = u`: what the callers hand it is what the other
            # methods read (a controller's output the plant's `step` integrates)
            out = join(out, _stored_by_methods(model, class_name, attr, lambda name: name in setters))
    if out is not None and out.kind == "none":
        # a placeholder made in `__init__` and filled in by another method (`self._model = None`
        # then `self._model = Tacotron(...)` in `load()`): what is used is the later value
        out = join(out, _stored_by_methods(model, class_name, attr, lambda name: name not in INIT_METHODS))
    elif out is not None and out.kind == SCALAR and info is not None and _number_placeholder(model, info, attr):
        # `self.loss = 0` in `__init__`, then `self.loss = F.mse_loss(x, self.target)` in
        # `forward`: a reader gets whichever a method stored last, the tensor included
        later = _stored_by_methods(model, class_name, attr, lambda name: name not in INIT_METHODS)
        if later is not None and later.kind in (GRAPH, "tensor"):
            out = later
    if out is not None and out.kind == SEQUENCE and out.items is None and out.fields is None and \
            (out.elem is None or out.elem.kind == UNKNOWN):
        # an empty dict or list made in `__init__` and filled by other methods (`self.meters[name]
        # = HistoryMeter(name)` on first use): its elements are what those methods put in
        put = model.container_elements(class_name, attr)
        if put is not None:
            out = sequence_of(put)
    result = out or UNKNOWN_V
    attributes, containers = model.cached(("self_module_duck_typing", class_name),
                                          lambda: _duck_typed_module_attributes(model, class_name))
    if result.kind == UNKNOWN and attr in attributes:
        result = Value(MODULE)  # `self.model.eval()` / `self.model.parameters()` in a method
    if result.kind == UNKNOWN and attr in containers:
        result = sequence_of(Value(MODULE))  # `self.model[key].eval()`: a dict of modules
    return result


def _handed_to_the_base_init(model, info, base: str, attr: str) -> Optional[Value]:
    """What the class's `__init__` hands to the `__init__` of its base class `base` (of another
    module) for the parameter that base stores as it is in `self.<attr>` (its summary's
    `pattrs`): `super().__init__(model, optimizer)`, a statement of the body run first thing
    (before any `return`), with `model` as the subclass's `__init__` got it. None when not so."""
    found = model.project.imported_summary(base) if model.project is not None else None
    if found is None or found[0] != "class" or not found[1] or attr not in (found[1].get("pattrs") or {}):
        return None
    position, name = found[1]["pattrs"][attr]
    init = info.methods.get("__init__")
    if init is None or model.in_progress(init) or len(info.base_names) != 1:
        return None  # (`super()` of a class with several bases: the first one's, by the MRO)
    for stmt in init.body:
        if isinstance(stmt, (ast.Return, ast.If, ast.For, ast.While, ast.Try, ast.With)):
            return None
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"
                and isinstance(call.func.value, ast.Call) and isinstance(call.func.value.func, ast.Name)
                and call.func.value.func.id == "super" and not call.func.value.args):
            continue
        given = next((kw.value for kw in call.keywords if kw.arg == name), None)
        if given is None and position is not None and position < len(call.args) \
                and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
            given = call.args[position]
        flow = model.flow(init) if given is not None else None
        return flow.values.get(given) if flow is not None else None
    return None


def _number_placeholder(model, info, attr: str) -> bool:
    """Does every init-like method of the class bind `self.<attr>` only to a number literal
    (`self.loss = 0`), a placeholder for what other methods compute?"""
    stores = [node for name, method in info.methods.items() if name in INIT_METHODS
              for node in walk(method) if isinstance(node, ast.Assign) and any(
                  isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                  and t.value.id == "self" for t in node.targets)]
    return bool(stores) and all(isinstance(s.value, ast.Constant) and type(s.value.value) in (int, float)
                                for s in stores)


_PARAMETER_MAKERS = ("Parameter", "ParameterList", "ParameterDict", "register_parameter", "UninitializedParameter")


def construction_freeze(init, methods=None) -> Optional[Tuple[str, int]]:
    """How a module class's `__init__` leaves its parameters: its last statement that stores
    on `self` is followed by `for p in self.parameters(): p.requires_grad = FLAG` (or
    `self.requires_grad_(FLAG)`, or `self.freeze()` where `freeze`, a method of the class in
    `methods`, ends so), run on every path. ("", -1) when FLAG is False; (name, position) when
    FLAG is the `__init__` parameter `name` (after self), whose default is False: built without
    it, the module is frozen (pytorch-fid's `InceptionV3(requires_grad=False)`). None otherwise."""
    if init is None:
        return None
    params = positional_parameters(init)[1:]
    defaults = dict(zip([a.arg for a in params][len(params) - len(init.args.defaults):], init.args.defaults))
    defaults.update({a.arg: d for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults) if d is not None})
    found = None
    for stmt in init.body:
        flag = _freezing_flag(stmt)
        if flag is None and methods and _calls_freezing_method(stmt, methods):
            flag = ast.Constant(value=False)  # `self.freeze()` (Stable Diffusion's FrozenCLIPEmbedder)
        if flag is not None:
            found = flag
        elif found is not None and any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                                       and isinstance(n.value, ast.Name) and n.value.id == "self" for n in walk(stmt)):
            found = None  # a submodule made after the freeze is trainable
    if found is None:
        return None
    if isinstance(found, ast.Constant):
        return ("", -1) if found.value is False else None
    if isinstance(found, ast.Name):
        default = defaults.get(found.id)
        if isinstance(default, ast.Constant) and default.value is False:
            names = [a.arg for a in params]
            return found.id, names.index(found.id) if found.id in names else -1
    return None


def _calls_freezing_method(stmt, methods) -> bool:
    """`self.m()` where method `m` (no parameter but self) leaves every parameter frozen."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and not stmt.value.args
            and not stmt.value.keywords and isinstance(stmt.value.func, ast.Attribute)
            and isinstance(stmt.value.func.value, ast.Name) and stmt.value.func.value.id == "self"):
        return False
    method = methods.get(stmt.value.func.attr)
    if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or len(positional_parameters(method)) != 1 \
            or method.args.vararg or method.args.kwarg or method.args.kwonlyargs:
        return False
    return construction_freeze(method) == ("", -1)


# the standard library's containers, made empty (`defaultdict(list)`: what it will hold)
_STDLIB_CONTAINERS = frozenset({"collections.defaultdict", "collections.OrderedDict", "collections.deque",
                                "collections.Counter"})

# what makes a fresh dict (the start of a dict of logs handed round a training loop)
_EMPTY_CONTAINERS = frozenset({"dict", "collections.defaultdict", "collections.OrderedDict", "defaultdict",
                               "OrderedDict"})


def _norm_without_affine(qual: str, call: ast.Call) -> bool:
    """`nn.BatchNorm1d(n, affine=False)`, `nn.LayerNorm(d, elementwise_affine=False)`,
    `nn.InstanceNorm2d(c)` (affine off by default): a normalization layer with no parameters."""
    name = torch_api.nn_class(qual) or ""
    flag = "elementwise_affine" if name == "LayerNorm" else "affine"
    given = _kw(call, flag)
    if name.startswith("InstanceNorm"):
        return given is None or isinstance(given, ast.Constant) and given.value is False
    if name.startswith(("BatchNorm", "GroupNorm", "LayerNorm", "SyncBatchNorm")):
        return isinstance(given, ast.Constant) and given.value is False
    return False


def frozen_parameters(func) -> List[int]:
    """The positions of the parameters a function freezes on every path (`def
    freeze_model(model): for p in model.parameters(): p.requires_grad = False`): calling it
    leaves the module handed there frozen."""
    return [index for index, param in enumerate(positional_parameters(func))
            if _frozen_on_every_path([_freezing_flag(stmt, param.arg) for stmt in func.body])]


def _frozen_on_every_path(flags) -> bool:
    """The flags a body's statements set `requires_grad` to (None: the statement sets none):
    some statement sets False, and none sets anything else."""
    return any(isinstance(f, ast.Constant) and f.value is False for f in flags) and \
        not any(f is not None and not (isinstance(f, ast.Constant) and f.value is False) for f in flags)


def frozen_self_attributes(method) -> List[str]:
    """The attributes of `self` a method freezes on every path, and never thaws (`for p in
    self.model.parameters(): p.requires_grad_(False)`, `self.model.requires_grad_(False)` as
    statements of its body)."""
    me = self_name(method)
    owners = []
    for stmt in method.body:
        for node in walk(stmt):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me \
                    and isinstance(node.ctx, ast.Load) and node.attr not in owners:
                owners.append(node.attr)
    return [attr for attr in owners
            if _frozen_on_every_path([_freezing_flag(stmt, owner=f"{me}.{attr}") for stmt in method.body])]


def _freezing_flag(stmt, owner: str = "self") -> Optional[ast.AST]:
    """FLAG of `for p in self.parameters(): p.requires_grad = FLAG` / `p.requires_grad_(FLAG)`
    or of `self.requires_grad_(FLAG)` (`owner` for `self`)."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and dotted(stmt.value.func) == f"{owner}.requires_grad_" \
            and len(stmt.value.args) == 1:
        return stmt.value.args[0]
    if not (isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Call) and len(stmt.body) == 1):
        return None
    var = _parameter_loop_variable(stmt, owner)
    if var is None:
        return None
    only = stmt.body[0]
    if isinstance(only, ast.Assign) and len(only.targets) == 1 and dotted(only.targets[0]) == f"{var}.requires_grad":
        return only.value
    if isinstance(only, ast.Expr) and isinstance(only.value, ast.Call) and \
            dotted(only.value.func) == f"{var}.requires_grad_" and len(only.value.args) == 1:
        return only.value.args[0]
    if isinstance(only, ast.Expr) and isinstance(only.value, ast.Call) and \
            dotted(only.value.func) == f"{var}.detach_" and not only.value.args:
        return _FALSE  # `param.detach_()` of a mean teacher: the parameter stops requiring grad
    return None


_FALSE = ast.Constant(False)


def _parameter_loop_variable(stmt: ast.For, owner: str) -> Optional[str]:
    """The name each parameter of `owner` is bound to by `for p in owner.parameters():` or
    `for name, p in owner.named_parameters():`."""
    method = dotted(stmt.iter.func)
    if stmt.iter.args or stmt.iter.keywords:
        return None
    if method == f"{owner}.parameters" and isinstance(stmt.target, ast.Name):
        return stmt.target.id
    if method == f"{owner}.named_parameters" and isinstance(stmt.target, ast.Tuple) and len(stmt.target.elts) == 2 \
            and isinstance(stmt.target.elts[1], ast.Name):
        return stmt.target.elts[1].id
    return None


def built_frozen(freeze, call) -> bool:
    """Does this constructor call leave the module frozen, given its class's `construction_freeze`?"""
    if not freeze or not isinstance(call, ast.Call):
        return False
    name, position = freeze
    if not name:
        return True
    if unpacks_arguments(call):
        return False
    passed = passed_argument(call, name, position)
    return passed is None or (isinstance(passed, ast.Constant) and passed.value is False)


def _hands_a_module(values) -> bool:
    """Is one of the values a module with parameters (not frozen)? A forward handed one may
    run it: its output then carries that module's graph, whatever the callee holds itself."""
    return any(value.kind == MODULE and not value.frozen for value in values)


# bases that add no state (`class BaseMetric(ABC, nn.Module)`)
_PARAMETERLESS_MIXINS = frozenset({"ABC", "abc.ABC", "object", "Generic", "typing.Generic", "Protocol"})


def holds_no_parameters(model, class_name: str) -> bool:
    """Is this module class of the file proven to hold no parameter: its bases are
    `nn.Module` or such classes of the file, nothing in it makes a parameter, and every
    attribute its init-like methods store is a number, a tensor, a buffer, a parameterless
    layer or None? (HiPPO operators, a mixture likelihood with only a `buckets` buffer.)
    Calling one records a graph only from an input that carries one."""
    # (asked again while it runs: assume parameters)
    return model.settled_answer(("holds_no_parameters", class_name),
                                lambda: _holds_no_parameters(model, class_name), False)


def parameter_free_unless_handed(model, class_name: str) -> Optional[Tuple[Tuple[str, int], ...]]:
    """For a module class that holds no parameter of its own but stores `__init__` parameters
    with a default of None as objects it calls (`SoftDiceLoss(apply_nonlin=None)` keeping
    `self.apply_nonlin = apply_nonlin`), those parameters' (name, position after self): built
    without them (`SoftDiceLoss(smooth=1e-8)`), it holds no parameter. None otherwise (also
    when it holds none whatever it is handed: `holds_no_parameters` answers that)."""
    info = model.classes.get(class_name)
    init = info.methods.get("__init__") if info is not None else None
    handed = _stored_optional_arguments(init) if init is not None else {}
    if not handed:
        return None  # (decided from the syntax alone: most classes stop here)
    key = ("parameter_free_unless_handed", class_name)
    if key in model._memo:
        return model._memo[key]
    if holds_no_parameters(model, class_name):
        return None
    model.begin_computation()
    try:
        free = _holds_no_parameters(model, class_name, skip=frozenset(handed))
    finally:
        final = model.end_computation(key)
    answer = tuple(sorted(set(handed.values()))) if free else None
    if final:
        model._memo[key] = answer  # (an answer read from provisional flows is not kept)
    return answer


def _stored_optional_arguments(init) -> Dict[str, Tuple[str, int]]:
    """attr -> (parameter, position after self) for `self.attr = param` statements of an
    `__init__` whose parameter defaults to None."""
    names = [a.arg for a in positional_parameters(init)[1:]]
    defaults = dict(zip(names[len(names) - len(init.args.defaults):], init.args.defaults))
    defaults.update({a.arg: d for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults) if d is not None})
    handed = {}
    for stmt in init.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Name) \
                and _is_self_attribute(stmt.targets[0]) \
                and isinstance(defaults.get(stmt.value.id), ast.Constant) and defaults[stmt.value.id].value is None:
            handed[stmt.targets[0].attr] = (stmt.value.id, names.index(stmt.value.id) if stmt.value.id in names else -1)
    return handed


def built_without(handed, call) -> bool:
    """Does this constructor call leave every parameter in `handed` ((name, position) pairs of
    `parameter_free_unless_handed`) out, or None?"""
    if not handed or not isinstance(call, ast.Call) or unpacks_arguments(call):
        return False
    for name, position in handed:
        passed = passed_argument(call, name, position)
        if passed is not None and not (isinstance(passed, ast.Constant) and passed.value is None):
            return False
    return True


def _holds_no_parameters(model, class_name: str, skip: frozenset = frozenset()) -> bool:

    info = model.classes.get(class_name)
    if info is None or not model.is_module_class(info):
        return False
    for base in info.base_names:
        local = base.rsplit(".", 1)[-1]
        if base in ("nn.Module", "torch.nn.Module", "Module") or base in _PARAMETERLESS_MIXINS:
            continue
        if local not in model.classes or not holds_no_parameters(model, local):
            return False
    for method in info.methods.values():
        for node in walk(method):
            if isinstance(node, ast.Call):
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
                if name in _PARAMETER_MAKERS or name in ("add_module", "register_module", "__setattr__", "setattr"):
                    return False  # (a part registered under a name: its parameters are not in view here)
    used_as_object = _attributes_used_as_objects(info)
    construction = _construction_methods(info)
    for name, method in info.methods.items():
        if name not in construction:
            continue
        flow = _finished_or_own_flow(model, method)
        if flow is None:
            return False
        for node, value in flow.values.items():
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id == "self" \
                    and not _parameter_free(value) and node.attr not in skip \
                    and not _frozen_after(flow, node) \
                    and not (value.kind in (UNKNOWN, REF) and node.attr not in used_as_object) \
                    and not (_empty_literal_store(model, node) and not _fills_with_modules(model, info, node.attr)):
                return False  # an unknown value used only as data (`self.N = N`, `self.idx =
                # cfg.JOINTS_IDX` of a config module) holds no module
    return True


def _construction_methods(info) -> Set[str]:
    """The init-like methods of a class and the methods of its own they call on `self`
    (`self.define_module()` in `__init__`, which builds the submodules), transitively."""
    found = {name for name in info.methods if name in INIT_METHODS}
    stack = list(found)
    while stack:
        method = info.methods[stack.pop()]
        receiver = self_name(method)
        for node in walk(method):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id == receiver and \
                    node.func.attr in info.methods and node.func.attr not in found:
                found.add(node.func.attr)
                stack.append(node.func.attr)
    return found


def _frozen_after(flow: FlowResult, target: ast.Attribute) -> bool:
    """Is `self.<attr>`, stored at `target`, frozen by a later statement of the same method
    (`self.model, _ = clip.load(name)` then `self._deactivate_grad()`)?"""
    frozen_from = flow.frozen_at.get("self." + target.attr)
    return frozen_from is not None and (target.lineno, target.col_offset) < frozen_from


def _empty_literal_store(model, target: ast.Attribute) -> bool:
    """`self.cache = {}` / `= []`: an empty plain container (not registered by nn.Module)."""
    stmt = model.parent(target)
    value = getattr(stmt, "value", None)
    return isinstance(value, (ast.Dict, ast.List)) and not (value.keys if isinstance(value, ast.Dict) else value.elts)


def _fills_with_modules(model, info, attr: str) -> bool:
    """Does any method put a module (or something unknown) into `self.<attr>` (`self.cache[k]
    = v`, `self.cache.append(v)`)? Tensors (`torch.hann_window(n)`) are parameter-free."""
    for method in info.methods.values():
        flow = None
        for node in walk(method):
            added = None
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Subscript) and dotted(t.value) == f"self.{attr}"
                                                    for t in node.targets):
                added = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    dotted(node.func.value) == f"self.{attr}" and node.func.attr in ("append", "extend", "insert",
                                                                                    "update", "setdefault") and node.args:
                added = node.args[-1]
            if added is not None:
                # analyzed only when it adds something (any other method could only read
                # provisional answers); typed without its callers while they are being analyzed
                flow = flow or model.flow(method) or (
                    _flow_without_callers(model, method) if model.in_progress(method) else None)
                value = flow.values.get(added) if flow is not None else None
                if value is None or not _parameter_free(value):
                    return True
    return False


def _attributes_used_as_objects(info) -> Set[str]:
    """`self.x` attributes the class calls, iterates, indexes or reads attributes of outside
    its init-like methods: what a submodule (or a container of them) would be used as when the
    module runs (`self.cfg.text_encoder` read while building it is configuration)."""
    out: Set[str] = set()
    for name, method in info.methods.items():
        if name in INIT_METHODS:
            continue
        for node in walk(method):
            holder = None
            if isinstance(node, ast.Call):
                holder = node.func
            elif isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.value, ast.Name):
                holder = node.value
            elif isinstance(node, (ast.For, ast.comprehension)):
                holder = node.iter
            elif isinstance(node, ast.Starred):
                holder = node.value
            if isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name) and holder.value.id == "self":
                out.add(holder.attr)
    return out


def _parameter_free(value: Value) -> bool:
    if value.kind == MODULE:
        return value.frozen
    if value.kind == LOSS_FN:
        # a `torch.nn` loss (`nn.SmoothL1Loss()`; a class weight is a buffer), not the one
        # that holds a projection (`AdaptiveLogSoftmaxWithLoss`), nor a loss class of the project
        return bool(value.name) and torch_api.is_loss_class(value.name) \
            and not value.name.endswith("AdaptiveLogSoftmaxWithLoss")
    if value.kind == SEQUENCE:
        parts = list(value.items or ()) + ([value.elem] if value.elem is not None else [])
        return all(_parameter_free(p) for p in parts)
    return value.kind in (SCALAR, NONE, TENSOR, DATA)


def _module_classes_by_attribute(model) -> Dict[str, List[str]]:
    """attr -> the nn.Module classes of this file whose init-like methods store `self.<attr>`
    (one pass over those methods)."""

    index: Dict[str, List[str]] = {}
    for name, info in model.classes.items():
        if not model.is_module_class(info):
            continue
        stored = set()
        for method_name, method in info.methods.items():
            if method_name in INIT_METHODS:
                stored |= {n.attr for n in walk(method) if isinstance(n, ast.Attribute)
                           and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and n.value.id == "self"}
        for attr in stored:
            index.setdefault(attr, []).append(name)
    return index


def _duck_typed_module_attributes(model, class_name: str) -> Tuple[Set[str], Set[str]]:
    """(attributes on which a method of the class calls what only an nn.Module has:
    `self.model.eval()`, `self.net.parameters()`; attributes whose items it treats so:
    `self.model[key].eval()`, a dict or list of modules). Duck typing, as for parameters."""
    info = model.classes.get(class_name)
    if info is None:
        return set(), set()
    return model.cached(("duck_typed_by_class",), lambda: _duck_typing_by_class(model)).get(info, (set(), set()))


def _duck_typing_by_class(model) -> Dict[object, Tuple[Set[str], Set[str]]]:
    """class info -> its duck-typed attributes (as `_duck_typed_module_attributes`), from one
    pass over the module's calls: a call counts for every class one of whose methods holds it
    (nested functions and classes in a method included)."""
    found: Dict[object, Tuple[Set[str], Set[str]]] = {}
    for node in model.calls:
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in _DUCK_TYPING_METHODS:
            continue
        owner = func.value
        if func.attr in _STRONG_MODULE_METHODS and _is_self_attribute(owner):
            which, attr = 0, owner.attr
        elif isinstance(owner, ast.Subscript) and _is_self_attribute(owner.value):
            which, attr = 1, owner.value.attr
        else:
            continue
        for anc in model.ancestors(node):
            info = model.method_class.get(anc)
            if info is not None and info.methods.get(anc.name) is anc:
                found.setdefault(info, (set(), set()))[which].add(attr)
    return found


_DUCK_TYPING_METHODS = _STRONG_MODULE_METHODS | {"eval"}


def _is_self_attribute(node) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _unknown_call(node: ast.AST) -> bool:
    """`model(x)`, `self.net(x)`: a call of a plain or dotted name (an argument that is the
    output of a callable, not data handed along)."""
    return isinstance(node, ast.Call) and dotted(node.func) is not None


def _backward_evidence(model, unit) -> Set[ast.AST]:
    """The definitions (name bindings) whose values this unit differentiates: those that
    reach the operands of `x.backward()`, `autograd.grad(x, ...)`, ..., the loss a
    LightningModule's `training_step` returns (Lightning back-propagates it), and what the
    unit hands to a callee that back-propagates that parameter (`self._optimize(loss)` of a
    base class, maybe in another module). Evidence belongs to a definition:
    `loss.backward()` in the training loop says nothing about another `loss` bound in an
    evaluation loop of the same function."""
    return _backward_evidence_at(model, unit, 0)


def backpropagated_parameters(model, func, depth: int = 0) -> Set[str]:
    """The parameters of `func` whose values reach a backward in it (directly, or through
    a callee that back-propagates what it is handed)."""
    return {d.arg for d in _backward_evidence_at(model, func, depth) if isinstance(d, ast.arg)}


# How many calls deep an argument is followed into callees that back-propagate it.
MAX_BACKWARD_HANDOFF = 2


def _backward_evidence_at(model, unit, depth: int) -> Set[ast.AST]:
    # keyed by depth too: the answer at a depth is a pure function of the unit (the
    # handoff stops at MAX_BACKWARD_HANDOFF), never a provisional one from a recursion
    return model.cached(("backward_evidence", unit, depth), lambda: _compute_backward_evidence(model, unit, depth))


def _compute_backward_evidence(model, unit, depth: int) -> Set[ast.AST]:
    reads = [read for call in model.backward_calls_in(unit)
             for read in _differentiated_names(model.backward_target(call))]
    if isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef)) and unit.name == "training_step":
        info = model.class_of(unit)
        if info is not None and model.class_is(info, "LightningModule"):
            reads += _returned_loss_reads(unit)
    if depth < MAX_BACKWARD_HANDOFF and isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef)):
        reads += _reads_handed_to_backward(model, unit, depth)
    if not reads:
        return set()
    reaching = model.reaching(unit)
    return {definition for read in reads for definition in reaching.definitions(read)}


def _reads_handed_to_backward(model, unit, depth: int) -> List[ast.Name]:
    """Names passed to a parameter that the callee back-propagates."""
    out: List[ast.Name] = []
    for call in (n for n in nodes_within(unit) if isinstance(n, ast.Call)):
        if not any(isinstance(a, ast.Name) for a in list(call.args) + [kw.value for kw in call.keywords]):
            continue  # nothing a definition could be handed through
        names, backpropagated = _callee_backpropagated(model, call, unit, depth)
        if not backpropagated:
            continue
        out += [arg for name, arg in zip(names, call.args) if name in backpropagated and isinstance(arg, ast.Name)]
        out += [kw.value for kw in call.keywords if kw.arg in backpropagated and isinstance(kw.value, ast.Name)]
    return out


def arguments_handed_to_backward(model, unit) -> List[ast.AST]:
    """The arguments the unit's calls hand to a parameter whose value may reach a backward of
    the callee (`self.optimize(self.dis_opt, d_loss, self.dis)` of a base class's `optimize(opt,
    loss, model)` running `loss.backward()`; `discriminator_step(net_d, gt, d_fake, opt)`
    back-propagating a loss computed from `d_fake`). A may-answer: rules use it to stay quiet."""
    key = ("arguments_handed_to_backward", unit)
    if key in model._memo:
        return model._memo[key]
    if key in model._memo_until_settled:
        model.read_provisional(key)
        return model._memo_until_settled[key]
    settled = model._settled()
    model._memo[key] = []  # recursion guard: callers of each other prove nothing more
    out: List[ast.AST] = []
    for call in (n for n in nodes_within(unit) if isinstance(n, ast.Call)):
        if not call.args and not call.keywords:
            continue
        names, reaching = _callee_parameters_reaching_backward(model, call, unit)
        if reaching:
            out += [arg for name, arg in zip(names, call.args) if name in reaching]
            out += [kw.value for kw in call.keywords if kw.arg in reaching]
    if settled:
        model._memo[key] = out
    else:
        del model._memo[key]  # answered from provisional values: kept until that computation ends
        model._memo_until_settled[key] = out
    return out


def arguments_handed_to_a_gradient_backward(model, unit) -> List[ast.AST]:
    """The arguments the unit's calls hand to a parameter of a function or `self.` method of
    this module whose backward's gradients flow back through it (`self.update_policies(...,
    logprobs)` back-propagating `-(logprobs * adv).mean()`; not `train_probe(features)`,
    which trains on `features.detach()`): graph provenance, where `arguments_handed_to_backward`
    is a may-answer by data dependence."""
    return model.cached(("arguments_handed_to_a_gradient_backward", unit), lambda: [
        argument for call in nodes_within(unit) if isinstance(call, ast.Call) and (call.args or call.keywords)
        for argument in _handed_into_gradients(model, call, unit)])


def _handed_into_gradients(model, call, unit) -> List[ast.AST]:
    local = _local_callee_parameters(model, call, unit)
    if local is None:
        return []
    target, names = local
    if model.trains_only_modules_it_builds(target):
        return []  # a probe trained on what it is handed: no module the values came from is trained
    out = [arg for name, arg in zip(names, call.args) if model.feeds_backward(target, name, gradient=True)]
    return out + [kw.value for kw in call.keywords
                  if kw.arg in names and model.feeds_backward(target, kw.arg, gradient=True)]


def _callee_parameters_reaching_backward(model, call, unit) -> Tuple[List[str], Set[str]]:
    """(the callee's positional parameter names as the call binds them, those whose values
    may reach a backward in it): a function or `self.` method of this module, a method a base
    class of another module defines, or a function of another module (their summaries' `bwr`)."""
    local = _local_callee_parameters(model, call, unit)
    if local is not None:
        target, names = local
        return names, {name for name in names if model.feeds_backward(target, name)}
    if model.project is None:
        return [], set()
    entry = _inherited_entry(model, call)
    if entry is None and not called_on_self(call.func, ("self",)):
        qual = model.imports.qualname(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
        if qual is not None and "." in qual and not model.project.is_first_party(qual):
            return [], set()  # `torch.cat(...)`, `np.mean(...)`: a library's function, no summary
        entry = model._project_function_entry(call)
    return (_entry_parameters(entry), set(entry.get("bwr", ()))) if entry else ([], set())


def _callee_backpropagated(model, call, unit, depth: int) -> Tuple[List[str], Set[str]]:
    """(the callee's positional parameter names as the call binds them, those it
    back-propagates) for a function or `self.` method of this module, or a method a base
    class in another module defines (from its summary)."""
    local = _local_callee_parameters(model, call, unit)
    if local is not None:
        target, names = local
        return names, backpropagated_parameters(model, target, depth + 1)
    entry = _inherited_entry(model, call) if model.project is not None else None
    return (_entry_parameters(entry), set(entry.get("bwp", ()))) if entry else ([], set())


def _local_callee_parameters(model, call, unit) -> Optional[Tuple[ast.AST, List[str]]]:
    """(the function or `self.` method of this module that `call` runs, other than `unit`,
    and its positional parameter names as the call binds them), or None."""
    target = model._resolve_static(call)
    if not isinstance(target, (ast.FunctionDef, ast.AsyncFunctionDef)) or target is unit:
        return None
    names = [a.arg for a in positional_parameters(target)]
    if isinstance(call.func, ast.Attribute) and not _is_static(target):
        names = names[1:]  # `self.m(x)`: x binds the parameter after self
    return target, names


def _inherited_entry(model, call) -> Optional[dict]:
    """The summary entry of the method a base class of another module defines, for a
    `self.m(...)` call that no class of this module answers."""
    if not called_on_self(call.func, ("self",)):  # (not `cls.m`: as the summaries record self-calls)
        return None
    found = inherited_method(model, model.enclosing_class_info(call), call.func.attr)
    return found[1][1] if found is not None else None


def _entry_parameters(entry: dict) -> List[str]:
    names = list(entry.get("params", []))
    return names[1:] if entry.get("self") else names


def inherited_method(model, info, attr: str):
    """(base class, its summary lookup) for `attr` defined by a base class of `info` in
    another module of the project (the first in method resolution order), or None."""
    if model.project is None or info is None:
        return None
    for base in model.class_bases(info):
        found = model.project.method_of(base, attr) if "." in base else None
        if found is not None:
            return base, found
    return None


def _item_backward_evidence(model, unit) -> Dict[ast.AST, Set[object]]:
    """Definitions of containers an item of which this unit back-propagates as it is
    (`output["loss"].backward()`, `scaler.scale(out[0]).backward()`), with those items' keys."""
    def compute() -> Dict[ast.AST, Set[object]]:
        out: Dict[ast.AST, Set[object]] = {}
        for call in model.backward_calls_in(unit):
            expr = _unscaled(model.backward_target(call))
            if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) \
                    and isinstance(expr.slice, ast.Constant):
                for definition in model.reaching(unit).definitions(expr.value):
                    out.setdefault(definition, set()).add(expr.slice.value)
        return out
    return model.cached(("item_backward_evidence", unit), compute)


def _unscaled(expr):
    """`scaler.scale(loss)` -> `loss` (GradScaler.scale multiplies; the graph is the loss's)."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "scale" \
            and len(expr.args) == 1 and not expr.keywords:
        return expr.args[0]
    return expr


def _is_super_call(expr) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "super"


def _differentiated_names(expr) -> List[ast.Name]:
    """The name whose value a backward differentiates: `loss` in `loss.backward()`,
    `accelerator.backward(loss)`, `scaler.scale(loss).backward()`. In `(a - w * b).backward()`
    only the whole expression is proven to carry a graph, not each name in it (`w` may be a
    float from a config), so no name gets evidence there."""
    expr = _unscaled(expr)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return [expr]  # `self.loss.backward()`: the store that reaches `self.loss` holds a graph
    return [expr] if isinstance(expr, ast.Name) else []


def _returned_loss_reads(func) -> List[ast.Name]:
    """`return loss` / `return {"loss": loss, ...}`: the read Lightning calls backward on."""
    out: List[ast.Name] = []
    for node in walk(func):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        value = node.value
        if isinstance(value, ast.Dict):
            value = next((v for k, v in zip(value.keys, value.values)
                          if isinstance(k, ast.Constant) and k.value == "loss"), None)
        if isinstance(value, ast.Name):
            out.append(value)
    return out
