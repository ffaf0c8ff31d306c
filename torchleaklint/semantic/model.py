"""SemanticModel: everything rules ask about a module, computed once and lazily.

One traversal indexes the tree (parents, functions, classes, loops, calls, imports). The
expensive part, the data-flow analysis of a function, runs only for the functions a rule
asks about, and each is analyzed once (see `dataflow.py`).
"""

from __future__ import annotations

import ast
import fnmatch
import re
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple

from torchleaklint.semantic import torch_api
from torchleaklint.semantic.imports import ImportTable, dotted
from torchleaklint.semantic.values import GRAPH, MODULE, UNKNOWN_V, Value

FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
LOOP_TYPES = (ast.For, ast.AsyncFor, ast.While)
SCOPE_TYPES = FUNCTION_TYPES + (ast.Lambda, ast.ClassDef)
COMPREHENSION_TYPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

DEFAULT_PER_STEP_METHODS = ("forward", "__call__", "step", "training_step", "*_step")
# Base classes whose methods a framework calls once per batch (hooks) or once per trial.
LIGHTNING_BASES = ("LightningModule",)
INIT_METHODS = frozenset({"__init__", "reset", "setup", "build", "__post_init__", "reset_parameters",
                          "init_hidden", "reset_state", "reset_states"})
_NAME_TOKEN = re.compile(r"[a-z0-9]+")


class ClassInfo:
    def __init__(self, node: ast.ClassDef, base_names: List[str]):
        self.node = node
        self.name = node.name
        self.base_names = base_names  # qualified where resolvable, else dotted source
        self.methods: Dict[str, ast.AST] = {}


class SemanticModel:
    def __init__(self, tree: ast.Module, source: str = "", path: str = "<string>", settings=None):
        self.tree = tree
        self.source = source
        self.path = path
        self.settings = settings
        self.imports = ImportTable()
        self.parents: Dict[ast.AST, ast.AST] = {}
        self.functions: List[ast.AST] = []
        self.module_functions: Dict[str, ast.AST] = {}
        self.classes: Dict[str, ClassInfo] = {}
        self.method_class: Dict[ast.AST, ClassInfo] = {}
        self.calls: List[ast.Call] = []
        self.by_type: Dict[type, List[ast.AST]] = {}
        self._index()
        self._flow = {}
        self._in_progress: Set[ast.AST] = set()
        self._memo: Dict[Tuple[str, object], object] = {}

    # ------------------------------------------------------------------ index
    def _index(self) -> None:
        parents = self.parents
        by_type = self.by_type
        stack = [self.tree]
        node_type = ast.AST
        while stack:
            node = stack.pop()
            by_type.setdefault(type(node), []).append(node)
            # ast.iter_child_nodes, inlined: this loop visits every node of every file.
            for field in node._fields:
                child = getattr(node, field, None)
                if isinstance(child, node_type):
                    parents[child] = node
                    stack.append(child)
                elif isinstance(child, list):
                    for item in child:
                        if isinstance(item, node_type):
                            parents[item] = node
                            stack.append(item)
        for node in by_type.get(ast.Import, []) + by_type.get(ast.ImportFrom, []):
            self.imports.add(node)
        self.calls = by_type.get(ast.Call, [])
        for node in self.tree.body:
            if isinstance(node, FUNCTION_TYPES):
                self.module_functions[node.name] = node
        for cls in by_type.get(ast.ClassDef, []):
            bases = [self.imports.qualname(b) or dotted(b) or "" for b in cls.bases]
            info = ClassInfo(cls, bases)
            for item in cls.body:
                if isinstance(item, FUNCTION_TYPES):
                    info.methods[item.name] = item
                    self.method_class[item] = info
            self.classes.setdefault(cls.name, info)
        self.functions = by_type.get(ast.FunctionDef, []) + by_type.get(ast.AsyncFunctionDef, [])

    def nodes(self, *types: type) -> List[ast.AST]:
        out: List[ast.AST] = []
        for t in types:
            out.extend(self.by_type.get(t, []))
        out.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        return out

    # -------------------------------------------------------------- structure
    def parent(self, node: ast.AST) -> Optional[ast.AST]:
        return self.parents.get(node)

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        node = self.parents.get(node)
        while node is not None:
            yield node
            node = self.parents.get(node)

    def unit_of(self, node: ast.AST) -> ast.AST:
        """The function (or the module) whose body contains `node`."""
        for anc in self.ancestors(node):
            if isinstance(anc, FUNCTION_TYPES):
                return anc
        return self.tree

    def class_of(self, func: ast.AST) -> Optional[ClassInfo]:
        return self.method_class.get(func)

    def statement_of(self, node: ast.AST) -> ast.AST:
        while not isinstance(node, ast.stmt):
            parent = self.parents.get(node)
            if parent is None:
                return node
            node = parent
        return node

    def loops_around(self, node: ast.AST) -> List[ast.AST]:
        """Enclosing for/while loops inside the same function, innermost first.

        A node in a loop's `else:` clause or its iterable/test runs once, not per
        iteration, so it does not count as inside that loop.
        """
        loops = []
        child = node
        for anc in self.ancestors(node):
            if isinstance(anc, SCOPE_TYPES):
                break
            if isinstance(anc, LOOP_TYPES) and _in_body(anc, child):
                loops.append(anc)
            child = anc
        return loops

    def is_inside(self, node: ast.AST, container: ast.AST) -> bool:
        return any(anc is container for anc in self.ancestors(node))

    def in_except_handler(self, node: ast.AST, stop: Optional[ast.AST] = None) -> bool:
        for anc in self.ancestors(node):
            if anc is stop or isinstance(anc, SCOPE_TYPES):
                return False
            if isinstance(anc, ast.ExceptHandler):
                return True
        return False

    def enclosing_class_info(self, node: ast.AST) -> Optional[ClassInfo]:
        unit = self.unit_of(node)
        return self.method_class.get(unit)

    # ------------------------------------------------------------- resolution
    def qualname(self, expr: ast.AST) -> Optional[str]:
        return self.imports.qualname(expr)

    def class_bases(self, info: ClassInfo, depth: int = 0) -> List[str]:
        """Qualified base names, following classes of this module transitively."""
        out = []
        for base in info.base_names:
            out.append(base)
            local = self.classes.get(base.rsplit(".", 1)[-1]) if "." not in base else None
            if local is not None and local is not info and depth < 8:
                out.extend(self.class_bases(local, depth + 1))
        return out

    def class_is(self, info: ClassInfo, *suffixes: str) -> bool:
        return any(b == s or b.endswith("." + s) for b in self.class_bases(info) for s in suffixes)

    def is_module_class(self, info: ClassInfo) -> bool:
        key = ("module_class", info.name)
        if key not in self._memo:
            self._memo[key] = any(
                b in ("torch.nn.Module", "nn.Module", "Module") or torch_api.nn_class(b)
                or b.endswith(("LightningModule", "PreTrainedModel", ".Module"))
                for b in self.class_bases(info)
            )
        return self._memo[key]

    def is_dataset_class(self, info: ClassInfo) -> bool:
        return any(torch_api.is_dataset_class(b) or b.endswith(("Dataset", "IterableDataset"))
                   for b in self.class_bases(info))

    def method(self, class_name: str, name: str, depth: int = 0) -> Optional[ast.AST]:
        info = self.classes.get(class_name)
        if info is None:
            return None
        if name in info.methods:
            return info.methods[name]
        for base in info.base_names:
            local = base.rsplit(".", 1)[-1]
            if local in self.classes and local != class_name and depth < 8:
                found = self.method(local, name, depth + 1)
                if found is not None:
                    return found
        return None

    # ------------------------------------------------------------- data flow
    def flow(self, unit: ast.AST):
        """The data-flow result of a function (or the module body), computed once."""
        result = self._flow.get(unit)
        if result is None:
            from torchleaklint.semantic.dataflow import analyze_unit

            if unit in self._in_progress:
                return None
            self._in_progress.add(unit)
            try:
                result = analyze_unit(self, unit)
            finally:
                self._in_progress.discard(unit)
            self._flow[unit] = result
        return result

    def value(self, expr: ast.AST) -> Value:
        """The abstract value of an expression, as the data-flow analysis computed it."""
        result = self.flow(self.unit_of(expr))
        if result is None:
            return UNKNOWN_V
        return result.values.get(expr, UNKNOWN_V)

    def carries_graph(self, expr: ast.AST) -> bool:
        return self.value(expr).carries_graph

    def in_progress(self, unit: ast.AST) -> bool:
        return unit in self._in_progress

    # ------------------------------------------------------------- grad mode
    def grad_disabled_at(self, node: ast.AST) -> bool:
        """True when `node` runs with autograd off: a no-grad `with`, decorator or caller."""
        result = self.flow(self.unit_of(node))
        if result is not None and node in result.nograd_nodes:
            return True
        stmt = self.statement_of(node)
        return result is not None and stmt in result.nograd_nodes

    def grad_off_decorated(self, func: ast.AST) -> bool:
        for dec in getattr(func, "decorator_list", []):
            target = dec.func if isinstance(dec, ast.Call) else dec
            qual = self.qualname(target)
            if qual and torch_api.grad_context(qual) == "off":
                return True
            if qual and torch_api.grad_context(qual) == "set" and isinstance(dec, ast.Call):
                if dec.args and isinstance(dec.args[0], ast.Constant) and dec.args[0].value is False:
                    return True
        return False

    def only_called_without_grad(self, func: ast.AST) -> bool:
        """A module-level function or method whose every call site in the module is no-grad."""
        key = ("only_nograd", func)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = False  # recursion guard
        sites = self.call_sites(func)
        answer = bool(sites) and all(self.grad_disabled_at(site) for site in sites)
        self._memo[key] = answer
        return answer

    # ------------------------------------------------------------- call graph
    def resolve_call(self, call: ast.Call) -> Optional[ast.AST]:
        """The function or method of this module a call invokes, when it can be known."""
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in self.module_functions:
                return self.module_functions[func.id]
            if func.id in self.classes:
                return self.method(func.id, "__init__")
            return None
        if isinstance(func, ast.Attribute):
            if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
                info = self.enclosing_class_info(call)
                if info is not None:
                    return self.method(info.name, func.attr)
                return None
            receiver = self.value(func.value) if not self.in_progress(self.unit_of(call)) else None
            if receiver is not None and receiver.name and receiver.name in self.classes:
                return self.method(receiver.name, func.attr)
        return None

    def call_sites(self, func: ast.AST) -> List[ast.Call]:
        key = ("call_sites", None)
        if key not in self._memo:
            sites: Dict[ast.AST, List[ast.Call]] = {}
            for call in self.calls:
                target = self._resolve_call_cheap(call)
                if target is not None:
                    sites.setdefault(target, []).append(call)
            self._memo[key] = sites
        return self._memo[key].get(func, [])

    def _resolve_call_cheap(self, call: ast.Call) -> Optional[ast.AST]:
        """Call resolution without data flow (module functions, self.method, Class(...),
        instance.method for instances bound by a plain `x = Class(...)`)."""
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in self.module_functions:
                return self.module_functions[func.id]
            if func.id in self.classes:
                return self.method(func.id, "__init__")
            cls = self._instance_class_of_name(func.id)
            if cls is not None:  # calling an instance: nn.Module -> forward, else __call__
                return self.method(cls, "forward") or self.method(cls, "__call__")
            return None
        if isinstance(func, ast.Attribute):
            owner = func.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                info = self.enclosing_class_info(call)
                return self.method(info.name, func.attr) if info else None
            cls = None
            if isinstance(owner, ast.Name):
                cls = self._instance_class_of_name(owner.id)
            elif isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self":
                cls = self._instance_class_of_attr(call, owner.attr)
            if cls is not None:
                return self.method(cls, func.attr)
        return None

    def _instance_bindings(self) -> Dict[str, Set[str]]:
        key = ("instance_bindings", None)
        if key not in self._memo:
            names: Dict[str, Set[str]] = {}
            attrs: Dict[Tuple[str, str], Set[str]] = {}
            for node in self.by_type.get(ast.Assign, []):
                cls = self._constructed_class(node.value)
                if cls is None:
                    continue
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        names.setdefault(target.id, set()).add(cls)
                    elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                          and target.value.id == "self"):
                        owner = self.enclosing_class_info(node)
                        if owner is not None:
                            attrs.setdefault((owner.name, target.attr), set()).add(cls)
            self._memo[key] = (names, attrs)
        return self._memo[key]

    def _constructed_class(self, expr: ast.AST) -> Optional[str]:
        while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
                expr.func.attr in torch_api.MODULE_SELF_METHODS:
            expr = expr.func.value  # Net().to(device)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in self.classes:
            return expr.func.id
        return None

    def _instance_class_of_name(self, name: str) -> Optional[str]:
        classes = self._instance_bindings()[0].get(name)
        return next(iter(classes)) if classes and len(classes) == 1 else None

    def _instance_class_of_attr(self, node: ast.AST, attr: str) -> Optional[str]:
        owner = self.enclosing_class_info(node)
        if owner is None:
            return None
        classes = self._instance_bindings()[1].get((owner.name, attr))
        return next(iter(classes)) if classes and len(classes) == 1 else None

    # ------------------------------------------------------- training steps
    def backward_calls(self) -> List[ast.Call]:
        """Calls that run backward: `x.backward()`, `torch.autograd.backward(x)`,
        `accelerator.backward(x)`, `manual_backward(x)`."""
        key = ("backward_calls", None)
        if key not in self._memo:
            out = []
            for call in self.calls:
                if self.backward_target(call) is not None:
                    out.append(call)
            self._memo[key] = out
        return self._memo[key]

    def backward_target(self, call: ast.Call) -> Optional[ast.AST]:
        """The tensor expression a backward call differentiates, or None if not a backward."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "backward":
            qual = self.qualname(func)
            if qual in ("torch.autograd.backward",):
                return _first_arg(call, "tensors")
            if qual and qual.startswith("torch."):
                return None
            if not call.args and not _kw(call, "tensors"):
                return func.value  # loss.backward(...)
            return _first_arg(call, "loss")  # accelerator.backward(loss), engine.backward(loss)
        if isinstance(func, ast.Attribute) and func.attr == "manual_backward":
            return _first_arg(call, "loss")
        qual = self.qualname(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if qual in ("torch.autograd.backward",):
            return _first_arg(call, "tensors")
        if qual in ("torch.autograd.grad",):
            return _first_arg(call, "outputs")
        return None

    def backwarded_names(self, unit: ast.AST) -> Set[str]:
        """Names differentiated in this unit: in `(a + b).backward()`, `scaler.scale(a)
        .backward()`, `autograd.grad(a, ...)` the names a and b (not function names)."""
        key = ("backwarded", unit)
        if key not in self._memo:
            names: Set[str] = set()
            for call in self.backward_calls():
                if self.unit_of(call) is unit:
                    names |= expression_names(self.backward_target(call))
            self._memo[key] = names
        return self._memo[key]

    def is_optimizer_step(self, call: ast.Call) -> bool:
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "step" and not call.args):
            return False
        receiver = func.value
        if isinstance(receiver, ast.Call):  # scaler.step(optimizer) has an argument: not here
            return False
        text = dotted(receiver) or ""
        if "optim" in text.lower() or text.lower().endswith(("opt", "optimizer", "_g", "_d")):
            return True
        return self.value(receiver).kind == "optimizer"

    def is_scaler_step(self, call: ast.Call) -> bool:
        func = call.func
        return isinstance(func, ast.Attribute) and func.attr == "step" and len(call.args) == 1 and \
            "scaler" in (dotted(func.value) or "").lower()

    def step_ops_in(self, body_owner: ast.AST, direct_only: bool = True) -> List[ast.Call]:
        """Backward and optimizer-step calls in a loop or function, not counting those in a
        nested loop (when direct_only) or nested function."""
        out = []
        for call in self._calls_within(body_owner, skip_loops=direct_only):
            if self.backward_target(call) is not None or self.is_optimizer_step(call) or self.is_scaler_step(call):
                out.append(call)
        return out

    def _calls_within(self, owner: ast.AST, skip_loops: bool) -> Iterator[ast.Call]:
        stack = list(_body_nodes(owner))
        while stack:
            node = stack.pop()
            if isinstance(node, SCOPE_TYPES):
                continue
            if skip_loops and isinstance(node, LOOP_TYPES):
                continue
            if isinstance(node, ast.Call):
                yield node
            stack.extend(ast.iter_child_nodes(node))

    def runs_training_step(self, owner: ast.AST, depth: int = 0) -> bool:
        """Does this loop (or function) run a backward/optimizer step once per iteration,
        directly or through a function/method of this module that does so outside its
        own loops? An epoch loop whose callee loops over batches itself does not."""
        key = ("runs_step", owner)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = False
        answer = bool(self.step_ops_in(owner))
        if not answer and depth < 3:
            for call in self._calls_within(owner, skip_loops=True):
                target = self._resolve_call_cheap(call)
                if target is not None and target is not owner and self.runs_training_step(target, depth + 1):
                    answer = True
                    break
        self._memo[key] = answer
        return answer

    def has_backward_within(self, owner: ast.AST) -> bool:
        return any(self.backward_target(c) is not None for c in self._calls_within(owner, skip_loops=False))

    def is_data_loop(self, loop: ast.AST) -> bool:
        """A loop over batches: its iterable is a DataLoader/Dataset (possibly wrapped in
        enumerate/tqdm/zip), or an iterable whose items feed a model call in the body."""
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return False
        iterable = loop.iter
        value = self.value(iterable)
        if value.kind in ("dataloader", "dataset"):
            return True
        if value.kind == "sequence" and value.elem is not None and _yields_data(value.elem):
            return True
        if _is_range_like(iterable, self):
            return False
        targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
        if not targets:
            return False
        for call in self._calls_within(loop, skip_loops=True):
            if self.value(call.func).kind == MODULE or self._is_module_call(call):
                used = {n.id for a in _call_args(call) for n in ast.walk(a) if isinstance(n, ast.Name)}
                if used & targets:
                    return True
        return False

    def _is_module_call(self, call: ast.Call) -> bool:
        return self.value(call).kind == GRAPH and self.value(call.func).kind == MODULE

    def is_step_loop(self, loop: ast.AST) -> bool:
        """A loop that runs once per training/evaluation step."""
        return self.runs_training_step(loop) or self.is_data_loop(loop)

    # ------------------------------------------------------ loop-carried state
    def carried_loop(self, stmt: ast.AST, key: str) -> Optional[ast.AST]:
        """The innermost enclosing loop across whose iterations the binding `key` (a name
        or dotted attribute) survives: not rebound fresh anywhere in that loop's body.
        Rebinding from its own value (`t = t + x`) keeps it carried."""
        for loop in self.loops_around(stmt):
            if not self.rebound_fresh_in(loop, key):
                return loop
        return None

    def rebound_fresh_in(self, owner: ast.AST, key: str) -> bool:
        for node in self._stores_within(owner):
            target, value = node
            if dotted(target) == key and (value is None or key not in {dotted(n) for n in _reads(value)}):
                return True
        return False

    def _stores_within(self, owner: ast.AST):
        stack = list(_body_nodes(owner))
        while stack:
            node = stack.pop()
            if isinstance(node, SCOPE_TYPES):
                continue
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    for leaf in _target_leaves(target):
                        yield leaf, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                yield node.target, node.value
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                for leaf in _target_leaves(node.target):
                    yield leaf, None
            elif isinstance(node, ast.Delete):
                for target in node.targets:
                    yield target, None
            stack.extend(ast.iter_child_nodes(node))

    def outlives_step(self, stmt: ast.AST, key: str) -> Optional[str]:
        """Why the binding `key` updated at `stmt` outlives one training step, or None:
        it is carried across a step loop, or it is state (attribute, global) updated in a
        method that runs once per step."""
        loop = self.carried_loop(stmt, key)
        if loop is not None:
            outer = [loop] + [l for l in self.loops_around(stmt) if self.is_inside(loop, l)]
            if any(self.is_step_loop(l) for l in outer):
                return "loop"
            return None
        unit = self.unit_of(stmt)
        if "." in key or key in self._globals_of(unit):
            if isinstance(unit, FUNCTION_TYPES) and self.is_per_step_method(unit):
                return "method"
            if isinstance(unit, FUNCTION_TYPES) and self.is_per_step_function(unit):
                return "function"
        return None

    def is_per_step_function(self, func: ast.AST) -> bool:
        """A module-level function called inside a training loop of this module."""
        for site in self.call_sites(func):
            if any(self.is_step_loop(loop) for loop in self.loops_around(site)):
                return True
        return False

    def _globals_of(self, unit: ast.AST) -> Set[str]:
        names: Set[str] = set()
        if isinstance(unit, FUNCTION_TYPES):
            for node in ast.walk(unit):
                if isinstance(node, (ast.Global, ast.Nonlocal)):
                    names.update(node.names)
        return names

    # ------------------------------------------------------ per-step methods
    def per_step_patterns(self) -> Tuple[str, ...]:
        if self.settings is not None and getattr(self.settings, "per_step_methods", None):
            return tuple(self.settings.per_step_methods)
        return DEFAULT_PER_STEP_METHODS

    def is_per_step_method(self, func: ast.AST) -> Optional[str]:
        """Why `func` runs once per step: its name, or the call site in a training loop.
        Returns None for a method that does not."""
        if self.class_of(func) is None:
            return None
        name = func.name
        if name in INIT_METHODS:
            return None
        for pattern in self.per_step_patterns():
            if fnmatch.fnmatchcase(name, pattern):
                return f"`{name}` runs once per step"
        for site in self.call_sites(func):
            for loop in self.loops_around(site):
                if self.runs_training_step(loop) or self.has_backward_within(loop):
                    return f"`{name}` is called in the training loop at line {site.lineno}"
        return None

    # ------------------------------------------------------------- helpers
    def name_tokens(self, name: str) -> Set[str]:
        return set(_NAME_TOKEN.findall(name.lower()))


def expression_names(expr: Optional[ast.AST]) -> Set[str]:
    """Names read by an expression, leaving out the names of called functions."""
    if expr is None:
        return set()
    in_callee = {id(name) for call in ast.walk(expr) if isinstance(call, ast.Call)
                 for name in ast.walk(call.func) if isinstance(name, ast.Name)}
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and id(n) not in in_callee}


def _reads(expr: ast.AST) -> List[ast.AST]:
    return [n for n in ast.walk(expr) if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load)]


def _target_leaves(target: ast.AST) -> List[ast.AST]:
    if isinstance(target, (ast.Tuple, ast.List)):
        out = []
        for elt in target.elts:
            out.extend(_target_leaves(elt.value if isinstance(elt, ast.Starred) else elt))
        return out
    return [target]


def _in_body(loop: ast.AST, child: ast.AST) -> bool:
    return any(child is stmt for stmt in loop.body)


def _body_nodes(owner: ast.AST) -> Iterable[ast.AST]:
    if isinstance(owner, (ast.For, ast.AsyncFor, ast.While)):
        return list(owner.body)
    if isinstance(owner, FUNCTION_TYPES) or isinstance(owner, ast.Module):
        return list(owner.body)
    return [owner]


def _first_arg(call: ast.Call, keyword: str) -> Optional[ast.AST]:
    if call.args:
        return call.args[0]
    return _kw(call, keyword)


def _kw(call: ast.Call, name: str) -> Optional[ast.AST]:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def _call_args(call: ast.Call) -> List[ast.AST]:
    return list(call.args) + [kw.value for kw in call.keywords]


def _yields_data(value: Value) -> bool:
    if value.kind in ("dataloader", "dataset"):
        return True
    return bool(value.items) and any(item.kind in ("dataloader", "dataset") for item in value.items)


def _is_range_like(expr: ast.AST, model: SemanticModel) -> bool:
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("range", "reversed"):
        return True
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("enumerate", "zip"):
        return all(_is_range_like(a, model) for a in expr.args)
    return isinstance(expr, (ast.List, ast.Tuple, ast.Constant))
