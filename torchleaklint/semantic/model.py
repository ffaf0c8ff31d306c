"""SemanticModel: everything rules ask about a module, computed once and lazily.

One traversal indexes the tree (parents, functions, classes, loops, calls, imports). The
expensive part, the data-flow analysis of a function, runs only for the functions a rule
asks about, and each is analyzed once (see `dataflow.py`).
"""

from __future__ import annotations

import ast
import fnmatch
from typing import Dict, Iterator, List, Optional, Set, Tuple

from torchleaklint.semantic import torch_api
from torchleaklint.semantic.imports import ImportTable, dotted
from torchleaklint.semantic.flags import (decode_flags, flag_test as _flag_test, flags_decide_forward,
                                         literal_default as _flag_default)
from torchleaklint.semantic.values import (
    DATA, FUNCTION, GRAPH, INSTANCE, LEAF, MODULE, NONE, REF, SCALAR, SEQUENCE, TENSOR, UNKNOWN_V, Value, join)
from torchleaklint.semantic.guards import bound_first_under_the_same_test
from torchleaklint.semantic.reaching import ENTRY
from torchleaklint.semantic.syntax import (
    CELL_MARKER_PREFIX, COMPREHENSION_TYPES, FUNCTION_TYPES, INIT_METHODS, argument_at, summary_parameters, LOOP_TYPES, SCOPE_TYPES, body_nodes, call_parameters,
    unreachable_lines, every_parameter, CHILDREN_KEY, NODE_FIELDS, node_fields,
    called_on_self, default_of, empties, is_full_slice, is_property, is_staticmethod, is_stub, keyword_arg as _kw,
    named_parameters, nodes_within, passed_argument, positional_parameters, self_name, unpacks_arguments, child_nodes,
    walk)


DEFAULT_PER_STEP_METHODS = ("forward", "__call__", "step", "training_step", "*_step")
# Base classes whose methods a framework calls once per batch (hooks) or once per trial.
LIGHTNING_BASES = ("LightningModule",)
LIGHTNING_NO_GRAD_HOOKS = frozenset({"validation_step", "test_step", "predict_step", "validation_step_end",
                                     "test_step_end", "validation_epoch_end", "test_epoch_end"})
# Methods of a HuggingFace Trainer subclass the Trainer calls for every training batch.
HF_TRAINER_STEP_HOOKS = frozenset({"compute_loss", "training_step"})
HF_TRAINER_EVAL_HOOKS = frozenset({"evaluate", "predict", "prediction_step", "evaluation_loop", "prediction_loop"})
# Hooks a framework calls once per batch (Lightning modules and callbacks, trainers' callbacks).
PER_BATCH_HOOKS = ("training_step", "train_step", "validation_step", "test_step", "predict_step",
                   "on_*_batch_*", "on_before_backward", "on_after_backward", "on_before_optimizer_step",
                   "optimizer_step", "on_before_zero_grad")
_SETUP_PREFIXES = ("setup", "init", "reset", "build")
# How many times a result that read a provisional answer is recomputed before it is cached
# anyway (a bound on the cost of mutually recursive classes and functions).
MAX_RECOMPUTATIONS = 3



# Methods only a module answers: a receiver of one of them is a model, not a loss.
_MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module", "nn.Module", "Module"})
_MODULE_PART_ITERATORS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "modules",
                                    "named_modules", "children", "named_children", "state_dict"})
_MODULE_ONLY_METHODS = frozenset({"eval", "train", "parameters", "named_parameters", "state_dict",
                                  "load_state_dict", "modules", "children", "zero_grad"})


class ClassInfo:
    def __init__(self, node: ast.ClassDef, base_names: List[str]):
        self.node = node
        self.name = node.name
        self.base_names = base_names  # qualified where resolvable, else dotted source
        self.methods: Dict[str, ast.AST] = {}


class ExternalCall:
    """A call site in another module (from its summary), standing in for an ast.Call:
    its position is the called function's, so evidence stays inside this file."""

    def __init__(self, site: dict, func: ast.AST):
        self.site = site
        self.lineno = func.lineno
        self.col_offset = func.col_offset
        self.end_lineno = func.lineno
        self.end_col_offset = func.col_offset


class SemanticModel:
    def __init__(self, tree: ast.Module, source: str = "", path: str = "<string>", settings=None, project=None):
        self.tree = tree
        # A torchleaklint.project.ProjectView (whole-project runs): answers for first-party
        # imports from other modules' summaries. None: the file is analyzed alone.
        self.project = project
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
        # `(self.step_a if shared else self.step_b)(real)`: a call of each branch, made where
        # the call is (see _index_branch_calls)
        self.branch_calls: Dict[ast.Call, List[ast.Call]] = {}
        self.by_type: Dict[type, List[ast.AST]] = {}
        self._qualnames: Dict[ast.AST, Optional[str]] = {}  # node -> `qualname(node)`
        self._units: Dict[ast.AST, ast.AST] = {}  # node -> `unit_of(node)`
        self._index()
        self._flow = {}
        self._in_progress: Set[ast.AST] = set()
        self._running: Set[object] = set()  # memoized recursive queries in progress (not flows)
        self._summarizing: Set[ast.AST] = set()
        self.depth_cuts = 0  # summaries the data flow cut at its depth limit, so far
        self.module_env_so_far = None  # the module body's environment while it is analyzed (dataflow)
        self._memo: Dict[Tuple[str, object], object] = {}
        # Recursion guards answer "unknown" for a computation still in progress. A result that
        # read such a provisional answer (of anything but itself) is not cached: it is
        # recomputed once the computation it read has its final value, so results do not
        # depend on the order in which the analysis happened to ask.
        self._frames: List[Set[object]] = []
        self._retried: Dict[object, int] = {}
        # a flow recomputed MAX_RECOMPUTATIONS times while the computation it read provisionally
        # still runs: kept for reads until the outermost computation ends, then recomputed
        # from final answers (`feats` of `pool(feats)` in a `main()` whose flow was running)
        self._capped: Set[object] = set()
        self._flow_until_settled: Dict[ast.AST, object] = {}
        # the same for the answers of other recursive queries (`settled_answer`)
        self._memo_until_settled: Dict[object, object] = {}
        self._reexported: Dict[str, str] = {}  # first-party qualified name -> the library name it re-exports

    # ------------------------------------------------------------------ index
    def _index(self) -> None:
        parents = self.parents
        by_type = self.by_type
        stack = [self.tree]
        node_type = ast.AST
        fields_of = NODE_FIELDS
        while stack:
            node = stack.pop()
            kind = type(node)
            same_kind = by_type.get(kind)
            if same_kind is None:
                by_type[kind] = [node]
            else:
                same_kind.append(node)
            # `child_nodes`, inlined: this loop visits every node of every file. The
            # children are kept on the node, as `child_nodes` would keep them: the walks
            # that follow never list a node's children again
            children = []
            fields = fields_of.get(kind)
            for field in fields if fields is not None else node_fields(kind):
                child = getattr(node, field, None)
                if isinstance(child, node_type):
                    children.append(child)
                elif isinstance(child, list):
                    for item in child:  # (a loop, not a generator: most lists are short)
                        if isinstance(item, node_type):
                            children.append(item)
            node.__dict__[CHILDREN_KEY] = children
            for child in children:
                parents[child] = node
            stack.extend(children)
        for node in by_type.get(ast.Import, []) + by_type.get(ast.ImportFrom, []):
            self.imports.add(node)
            if self.project is not None:
                self.project.extend_imports(self.imports, node)
        self.calls = by_type.get(ast.Call, [])
        self.dynamic_imports = self._dynamic_imports()
        self._index_branch_calls()
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

    def module_assignments(self, name: str) -> List[ast.Assign]:
        """The module body's own `name = ...` statements (top level only, in source order)."""
        def index() -> Dict[str, List[ast.Assign]]:
            out: Dict[str, List[ast.Assign]] = {}
            for stmt in self.tree.body:
                if isinstance(stmt, ast.Assign):
                    for target in {t.id for t in stmt.targets if isinstance(t, ast.Name)}:
                        out.setdefault(target, []).append(stmt)
            return out
        return self.cached(("module_assignments", None), index).get(name, [])

    def _dynamic_imports(self) -> Dict[ast.Call, str]:
        """`importlib.import_module("model.meta_model")` with a literal absolute name: the module
        it returns, as an import statement would bind it (the project then reads its summary)."""
        found = {}
        for call in self.calls:
            func = call.func
            if not (isinstance(func, ast.Attribute) and func.attr == "import_module" or
                    isinstance(func, ast.Name) and func.id == "import_module"):
                continue
            if self.imports.qualname(func) != "importlib.import_module" or len(call.args) != 1 or call.keywords:
                continue
            name = call.args[0]
            if isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value \
                    and all(part.isidentifier() for part in name.value.split(".")):
                found[call] = name.value
                if self.project is not None:
                    self.project.note_import(name.value)
        return found

    def _index_branch_calls(self) -> None:
        """A call of a conditional expression (`(self.step_shared if shared else
        self.step_detached)(real)`) runs one of its branches with the call's arguments: each
        branch is given a call node of its own, located at the call and parented where it is,
        so that the call graph and the data flow see a call of each (a may-call edge). The
        nodes are not in the tree: a walk of the source never meets them."""
        for call in list(self.calls):
            func = call.func
            if not isinstance(func, ast.IfExp):
                continue
            branches = []
            for branch in (func.body, func.orelse):
                if isinstance(branch, (ast.Name, ast.Attribute)):
                    made = ast.copy_location(ast.Call(func=branch, args=call.args, keywords=call.keywords), call)
                    self.parents[made] = self.parents.get(call)
                    self.calls.append(made)
                    branches.append(made)
            if branches:
                self.branch_calls[call] = branches

    def cached(self, key, compute):
        """Memoize a fact about this module (a pure function of the tree) under `key`."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def yields(self, func: ast.AST) -> bool:
        """Does the body of `func` (nested functions aside) `yield`? Asked at the end of every
        flow: a file with no `yield` anywhere answers without a walk."""
        if ast.Yield not in self.by_type and ast.YieldFrom not in self.by_type:
            return False
        return self.cached(("yields", func), lambda: any(
            isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes_within(func)))

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

    def guarding_tests(self, node: ast.AST, unit: ast.AST) -> Iterator[ast.expr]:
        """The tests of the `if`s inside `unit` whose body (not `else`) holds `node`, innermost
        first: what must be true for `node` to run."""
        child = node
        for anc in self.ancestors(node):
            if anc is unit:
                return
            if isinstance(anc, ast.If) and any(child is s for s in anc.body):
                yield anc.test
            child = anc

    def unit_of(self, node: ast.AST) -> ast.AST:
        """The function (or the module) whose body contains `node` (asked for the same nodes
        again and again: remembered, the tree's parents never change once indexed)."""
        found = self._units.get(node)
        if found is None:
            found = self.tree
            anc = self.parents.get(node)  # (`ancestors`, inlined: asked of most nodes of a file)
            while anc is not None:
                if isinstance(anc, FUNCTION_TYPES):
                    found = anc
                    break
                anc = self.parents.get(anc)
            self._units[node] = found
        return found

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

    def conditional_within(self, node: ast.AST, owner: ast.AST, loops: bool = False) -> bool:
        """Is `node` under an `if`, a conditional expression or a `try` (or, with `loops`, a
        loop, which may run zero times) inside `owner`?"""
        kinds = (ast.If, ast.IfExp, ast.Try) + ((ast.For, ast.AsyncFor, ast.While) if loops else ())
        for anc in self.ancestors(node):
            if anc is owner:
                return False
            if isinstance(anc, kinds):
                return True
        return False

    def on_exclusive_branches(self, a: ast.AST, b: ast.AST) -> bool:
        """Are `a` and `b` on the two branches of one `if` (`if retain: loss.backward(
        retain_graph=True)` / `else: loss.backward()`): never both in one pass?"""
        child = a
        for anc in self.ancestors(a):
            if isinstance(anc, FUNCTION_TYPES):
                return False
            if isinstance(anc, ast.If) and self.is_inside(b, anc):
                a_in_body = any(stmt is child for stmt in anc.body)
                b_in_body = any(self.is_inside(b, stmt) or b is stmt for stmt in anc.body)
                if a_in_body != b_in_body and not any(b is n for n in walk(anc.test)):
                    return True
            child = anc
        return False

    def in_except_handler(self, node: ast.AST, stop: Optional[ast.AST] = None) -> bool:
        for anc in self.ancestors(node):
            if anc is stop or isinstance(anc, SCOPE_TYPES):
                return False
            if isinstance(anc, ast.ExceptHandler):
                return True
        return False

    def in_recovery_branch(self, node: ast.AST) -> bool:
        """Is `node` in the branch of an `if`, inside its loop, that restores the model from a
        checkpoint (`torch.load(...)`, `.load_state_dict(...)` in the same block): a recovery
        from a crashed loss, run when the test says so, not every step (like an OOM handler)."""
        child = node
        for anc in self.ancestors(node):
            if isinstance(anc, SCOPE_TYPES + (ast.For, ast.AsyncFor, ast.While)):
                return False
            if isinstance(anc, ast.If):
                block = anc.body if any(child is s for s in anc.body) else anc.orelse
                if any(isinstance(n, ast.Call) and (
                        isinstance(n.func, ast.Attribute) and n.func.attr == "load_state_dict"
                        or self.qualname(n.func) == "torch.load")
                       for stmt in block for n in walk(stmt)):
                    return True
            child = anc
        return False

    def enclosing_class_info(self, node: ast.AST) -> Optional[ClassInfo]:
        unit = self.unit_of(node)
        return self.method_class.get(unit)

    # ------------------------------------------------------------- resolution
    def qualname(self, expr: ast.AST) -> Optional[str]:
        # asked for the same node many times (every rule and pass names callees): the import
        # table is complete once the module is indexed, so a node's answer never changes
        try:
            return self._qualnames[expr]
        except KeyError:
            found = self._qualnames[expr] = self._resolve_qualname(expr)
            return found

    def _resolve_qualname(self, expr: ast.AST) -> Optional[str]:
        qual = self.imports.qualname(expr)
        if qual is None or self.project is None or "." not in qual:
            return qual
        # `from . import memory as mem` then `mem.empty_cache()`, where memory.py has
        # `from torch.cuda import empty_cache`: what the name finally stands for
        found = self._reexported.get(qual)
        if found is None:
            summary = self.project.imported_summary(qual) if self.project.is_first_party(qual) else None
            found = self._reexported[qual] = summary[1] if summary is not None and summary[0] == "alias" else qual
        return found

    def handed_out_by_a_base_elsewhere(self, info: ClassInfo, attr: str) -> bool:
        """Does a base class of another module of the project return `self.<attr>` from a
        method the class inherits (`get_error` returning `self.error_term(self.preds, ...)` in
        BasePIFuNet, for `self.preds` stored by a subclass here)? Its callers are out of view."""
        if self.project is None:
            return False
        for base in self.class_bases(info):
            found = self.project.imported_summary(base) if "." in base else None
            if found is not None and found[0] == "class" and attr in (found[1] or {}).get("out", ()):
                return True
        return False

    def class_bases(self, info: ClassInfo, depth: int = 0) -> List[str]:
        """Qualified base names, following classes of this module transitively."""
        out = []
        for base in info.base_names:
            out.append(base)
            local = self.classes.get(base.rsplit(".", 1)[-1]) if "." not in base else None
            if local is not None and local is not info and depth < 8:
                out.extend(self.class_bases(local, depth + 1))
            elif local is None and self.project is not None:
                out.extend(self.project.class_bases(base))  # a parent class in another module
        return out

    def class_is(self, info: ClassInfo, *suffixes: str) -> bool:
        return any(b == s or b.endswith("." + s) for b in self.class_bases(info) for s in suffixes)

    def is_module_class(self, info: ClassInfo) -> bool:
        key = ("module_class", info.name)
        if key not in self._memo:
            self._memo[key] = any(
                b in ("torch.nn.Module", "nn.Module", "Module") or torch_api.nn_class(b)
                or b.endswith(("LightningModule", "PreTrainedModel", ".Module"))
                or (self.project is not None and self.project.class_kind(b) in ("module", "loss"))
                for b in self.class_bases(info)
            )
        return self._memo[key]

    def is_other_framework_class(self, info: ClassInfo) -> bool:
        """A class built on another framework's layer (`paddle.nn.Layer`, `tf.keras.Model`,
        `flax.linen.Module`): calling it records no torch graph."""
        return any(b.startswith(_other_frameworks()) for b in self.class_bases(info))

    def written_for_another_framework(self) -> bool:
        """Does the file import another deep-learning framework (`paddle`, `tensorflow`,
        `jax`...) and not torch? A module of unknown class there is that framework's layer."""
        def compute() -> bool:
            roots = set()
            for node in self.by_type.get(ast.Import, []):
                roots.update(alias.name.split(".")[0] for alias in node.names)
            for node in self.by_type.get(ast.ImportFrom, []):
                if node.module and not node.level:
                    roots.add(node.module.split(".")[0])
            others = {f.rstrip(".") for f in _other_frameworks()}
            return bool(roots & others) and not roots & {"torch", "torchvision", "lightning", "pytorch_lightning",
                                                         "transformers", "timm", "accelerate"}
        return self.cached(("written_for_another_framework",), compute)

    def is_loader_class(self, info: ClassInfo) -> bool:
        """A subclass of `torch.utils.data.DataLoader` (`class LoveDALoader(DataLoader)`)."""
        return any(b.rsplit(".", 1)[-1] == "DataLoader" for b in self.class_bases(info))

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

            key = ("flow", unit)
            if unit in self._in_progress:
                self.read_provisional(key)
                return None
            if unit in self._flow_until_settled:
                self.read_provisional(key)  # whoever reads it is provisional too
                return self._flow_until_settled[unit]
            self._in_progress.add(unit)
            self.begin_computation()
            try:
                result = analyze_unit(self, unit)
            finally:
                self._in_progress.discard(unit)
                final = self.end_computation(key)
            if final and key in self._capped and self._frames:
                self._capped.discard(key)  # (its count of recomputations stays spent)
                self._flow_until_settled[unit] = result
            elif final:
                self._flow[unit] = result
        return result

    def begin_computation(self) -> None:
        self._frames.append(set())

    def end_computation(self, key: object) -> bool:
        """Close the computation of `key`; True when its result may be cached: it read no
        provisional answer but its own, or it was already recomputed once (mutually
        recursive classes and functions would otherwise be recomputed without end)."""
        reads = self._frames.pop()
        reads.discard(key)
        if self._frames:
            self._frames[-1].update(reads)
        else:  # the outermost computation ended: what was capped while it ran is recomputed
            self._flow_until_settled.clear()
            self._memo_until_settled.clear()
            self._capped.clear()
        if not reads:
            return True
        count = self._retried.get(key, 0)
        if count >= MAX_RECOMPUTATIONS:
            self._capped.add(key)
            return True
        self._retried[key] = count + 1
        return False

    def settled_answer(self, key: object, compute, while_running):
        """A recursive query's answer for `key`, memoized once final: `while_running` is what a
        query asked again while its own computation runs gets (marked provisional, so what reads
        it is recomputed); an answer capped after MAX_RECOMPUTATIONS while an outer computation
        still runs is kept only until that one ends, its readers provisional too, as flows are."""
        if key in self._memo:
            return self._memo[key]
        if key in self._memo_until_settled:
            self.read_provisional(key)
            return self._memo_until_settled[key]
        if key in self._running:
            self.read_provisional(key)
            return while_running
        self._running.add(key)
        self.begin_computation()
        try:
            answer = compute()
        finally:
            self._running.discard(key)
            final = self.end_computation(key)
        if final and key in self._capped and self._frames:
            self._capped.discard(key)
            self._memo_until_settled[key] = answer
        elif final:
            self._memo[key] = answer
        return answer

    def read_provisional(self, key: object) -> None:
        """A recursion guard answered for `key`, whose computation is still running."""
        if self._frames:
            self._frames[-1].add(key)

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
        from torchleaklint.semantic.dataflow import names_grad_off

        for dec in getattr(func, "decorator_list", []):
            target = dec.func if isinstance(dec, ast.Call) else dec
            qual = self.qualname(target)
            if qual and torch_api.grad_context(qual) == "off":
                return True
            if (not qual or not qual.startswith("torch.")) and names_grad_off(dec):
                return True  # a project's `@smart_inference_mode()` / `@nograd`: not provably grad-on
            if isinstance(target, ast.Name) and self._decorator_runs_without_grad(target.id):
                return True
            if qual and torch_api.grad_context(qual) == "set" and isinstance(dec, ast.Call):
                if dec.args and isinstance(dec.args[0], ast.Constant) and dec.args[0].value is False:
                    return True
        return False

    def _decorator_runs_without_grad(self, name: str) -> bool:
        """A decorator defined in this module whose wrapper calls the function inside
        `with torch.no_grad():` (or returns it decorated with no_grad)."""
        decorator = self.module_functions.get(name)
        if decorator is None:
            return False
        for node in walk(decorator):
            if self._switches_off(node):
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and \
                    self._grad_off_context(node.func):
                return True  # `return torch.no_grad()(f)`
        return False

    def _grad_off_context(self, expr: ast.AST) -> bool:
        from torchleaklint.semantic.dataflow import names_grad_off

        target = expr.func if isinstance(expr, ast.Call) else expr
        qual = self.qualname(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
        return bool(qual and torch_api.grad_context(qual) == "off") or names_grad_off(expr)

    def only_called_without_grad(self, func: ast.AST) -> bool:
        """A module-level function or method whose every call site in the module is no-grad."""
        return self.settled_answer(("only_nograd", func), lambda: self._only_called_without_grad(func), False)

    def _only_called_without_grad(self, func: ast.AST) -> bool:
        sites = self.call_sites(func)
        # a recursive call runs in the grad mode of the call it is made from (`make_inference`
        # splitting an interval in two), unless the function turns autograd back on itself
        others = [s for s in sites if self.unit_of(s) is not func]
        if len(others) < len(sites) and not self.switches_grad_on(func):
            sites = others
        external = self.external_sites(func)
        if sites or external:
            # a call on a branch only PyTorch 0.x takes (`volatile=True` inputs there) never runs
            return all(self.grad_disabled_at(site) or self.in_legacy_torch_branch(site) for site in sites) \
                and all(site["ng"] for site in external)
        # no call resolves to it: the calls of its name on objects of unknown class
        # (`model.inference(data, loader)` in another module's `@torch.no_grad()` evaluations)
        # are the ones that may run it, all under no-grad (asked only of a method that reads
        # its object's attributes, `self.convs`: only then can its grad mode matter)
        receiver = self_name(func)
        if self.class_of(func) is None or receiver is None or self.handed_out(func) or not any(
                isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == receiver
                for node in nodes_within(func)):
            return False
        named, named_no_grad = self.calls_by_method_name(func)
        return named > 0 and named == named_no_grad

    def leaves_before_reaching(self, node: ast.AST, stmt: ast.AST) -> bool:
        """Is `node` in a branch that always returns or raises and does not hold `stmt`
        (`if not self.is_training and self.cache is not None: return self.cache[:n]` above
        `self.cache = embeds`)? Then no call runs both: what `node` reads never reaches `stmt`."""
        child = node
        for anc in self.ancestors(node):
            if isinstance(anc, FUNCTION_TYPES):
                return False
            if isinstance(anc, ast.If) and not self.is_inside(stmt, anc):
                branch = anc.body if any(child is s or self.is_inside(child, s) for s in anc.body) else anc.orelse
                if branch and child in branch or any(self.is_inside(child, s) for s in branch):
                    if _block_always_leaves(branch):
                        return True
            child = anc
        return False

    def skipped_for_call(self, node: ast.AST, func: ast.AST, call: ast.Call) -> bool:
        """Is `node`, in `func`, under a test of a flag parameter that `call` sets so that its
        branch does not run (`if use_fast:` in `attention_emb(..., use_fast=False)`, with the
        call passing nothing for `use_fast`, or a literal False)?"""
        params = positional_parameters(func)
        offset = 1 if params and params[0].arg in ("self", "cls") and isinstance(call.func, ast.Attribute) else 0
        child = node
        for anc in self.ancestors(node):
            if anc is func:
                return False
            if isinstance(anc, ast.If) and child is not anc.test:
                test, wanted = anc.test, any(child is s for s in anc.body)
                if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                    test, wanted = test.operand, not wanted
                param = next((p for p in every_parameter(func) if isinstance(test, ast.Name) and p.arg == test.id), None)
                if param is not None:
                    position = params.index(param) - offset if param in params else -1
                    passed = passed_argument(call, param.arg, position) if not unpacks_arguments(call) else None
                    if passed is None and not unpacks_arguments(call):
                        passed = default_of(func, param)
                    if isinstance(passed, ast.Constant) and isinstance(passed.value, bool) and passed.value != wanted:
                        return True
            child = anc
        return False

    def grad_off_at_import(self) -> bool:
        """Does the module switch autograd off for the process when it is imported (a
        top-level `torch.set_grad_enabled(False)` statement, as inference scripts do) and
        never switch it back on anywhere? Then none of its functions records a graph."""
        return self.cached(("grad_off_at_import",),
                           lambda: self._switches_grad_off(self.tree.body) and self.never_switches_grad_on())

    def never_switches_grad_on(self) -> bool:
        """Does nothing in the module switch autograd on (see `switches_grad_on`)?"""
        return self.cached(("never_switches_grad_on",), lambda: not self.switches_grad_on(self.tree))

    def grad_off_by_its_constructor(self, func: ast.AST) -> bool:
        """Is `func` a method of a class whose `__init__` switches autograd off for the process
        (a `torch.set_grad_enabled(False)` statement of its own body, as an inference wrapper's
        constructor does), in a module that never switches it back on? Then the method runs on
        an object already built, with autograd off."""
        info = self.class_of(func)
        init = info.methods.get("__init__") if info is not None else None
        if init is None or init is func:
            return False
        return self._switches_grad_off(init.body) and self.never_switches_grad_on()

    def _switches_grad_off(self, body) -> bool:
        """A `torch.set_grad_enabled(False)` statement among `body`'s own statements."""
        return any(isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                   and torch_api.grad_context(self.qualname(stmt.value.func) or "") == "set"
                   and stmt.value.args and isinstance(stmt.value.args[0], ast.Constant)
                   and stmt.value.args[0].value is False for stmt in body)

    def switches_grad_on(self, func: ast.AST) -> bool:
        """Does `func` (its decorators included) name `torch.enable_grad` or call
        `set_grad_enabled` with anything but a literal False?"""
        for node in walk(func):
            target = node.func if isinstance(node, ast.Call) else node
            if not isinstance(target, (ast.Name, ast.Attribute)):
                continue
            context = torch_api.grad_context(self.qualname(target) or "")
            if context == "on":
                return True
            if context == "set" and isinstance(node, ast.Call) and not (
                    node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value is False):
                return True
        return False

    # ------------------------------------------------------- other modules
    def objpath(self, func: ast.AST) -> Optional[str]:
        """`f` for a module function, `Cls.m` for a method of a top-level class, else None."""
        if self.module_functions.get(getattr(func, "name", None)) is func:
            return func.name
        info = self.method_class.get(func)
        if info is not None and info.node in self.tree.body:
            return f"{info.name}.{func.name}"
        return None

    def project_owner_entries(self, call: ast.Call) -> List[dict]:
        """For `obj.method(...)` on a module of unknown class that no class of this file
        defines: the summary entries of `method` in each module class of the project that
        defines it (`Project.owners()`), the object may be of any of them."""
        func = call.func
        if self.project is None or not isinstance(func, ast.Attribute) or self.module_classes_defining(func.attr):
            return []
        receiver = self.value(func.value)
        if receiver.kind != MODULE or receiver.name or receiver.alts:
            return []
        out = []
        for owner in self.project.method_owners(func.attr):
            found = self.project.method_of(owner, func.attr)
            if found is not None and found[0] == "function" and isinstance(found[1], dict):
                out.append(found[1])
        return out

    def other_module_entry(self, call: ast.Call, functions: bool = True) -> Optional[dict]:
        """The summary entry of the function or method of another module of the project that
        `call` runs: a method of an object of another module's class (`self.matmul2.relprop(x)`),
        the forward of such a module (`self.head(h)`), or, with `functions`, an imported function
        (`losses.dice(p, y)`). None when out of view."""
        if self.project is None:
            return None
        func, found = call.func, None
        value = self.value(func)
        if value.kind == MODULE and value.name and "." in value.name:
            found = self.project.method_of(value.name, "forward")
        elif isinstance(func, ast.Attribute):
            owner = self.value(func.value)
            if owner.kind in (MODULE, INSTANCE) and owner.name and "." in owner.name:
                found = self.project.method_of(owner.name, func.attr)
        elif functions and value.kind == REF and value.name:
            found = self.project.imported_summary(value.name)
        return found[1] if found is not None and found[0] == "function" and isinstance(found[1], dict) else None

    def external_sites(self, func: ast.AST) -> List[dict]:
        """Calls of `func` made in other modules of the project (from their summaries)."""
        if self.project is None:
            return []
        path = self.objpath(func)
        return self.project.external_sites(path) if path else []

    def calls_by_method_name(self, func: ast.AST) -> Tuple[int, int]:
        """(calls, calls under no-grad) of a method's name on receivers of unknown class, in
        this module and the project's others (`self.policy.get_log_probs(...)`): all that can
        be said of the callers of a method nothing resolves to."""
        if self.class_of(func) is None:
            return 0, 0
        return self.cached(("calls_by_method_name", func), lambda: self._calls_by_method_name(func))

    def class_never_used(self, info) -> bool:
        """Is `info` a class of a notebook whose objects nothing uses: no cell refers to it,
        or only to build an object bound to a name no cell reads (`eccb = EmptyCacheCallback()`
        with `# callbacks=[eccb]` commented out)? No other file can import a notebook: its
        methods never run, whatever framework hook they override."""
        if not self.path.endswith(".ipynb"):
            return False

        def compute() -> bool:
            loads = {}
            for node in self.nodes(ast.Name):
                if isinstance(node.ctx, ast.Load):
                    loads.setdefault(node.id, []).append(node)
            for ref in loads.get(info.name, ()):
                call, stmt = self.parent(ref), self.statement_of(ref)
                if not (isinstance(call, ast.Call) and call.func is ref and isinstance(stmt, ast.Assign)
                        and stmt.value is call and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                        and stmt.targets[0].id not in loads):
                    return False
            return True
        return self.cached(("class_never_used", info.name), compute)

    def method_name_shared(self, func: ast.AST) -> bool:
        """Do other classes of this module define a method of the same name (`predict` of a
        model and of its head)? Then a call of the name on a receiver of unknown class may run
        any of them: it proves nothing of this one."""
        info = self.class_of(func)
        return info is not None and any(other is not info and func.name in other.methods
                                        for other in self.classes.values())

    def calls_of_method_name(self, func: ast.AST) -> List[ast.Call]:
        """The calls in this module of a method's name on receivers of unknown class, which
        nothing resolves (`cb.on_before_step(self, i, x)` for each callback of a list): calls
        that may run it."""
        if self.class_of(func) is None:
            return []
        return self.cached(("calls_of_method_name", func), lambda: [
            call for call in self.calls_of_attribute(func.name)
            if not (isinstance(call.func.value, ast.Name) and call.func.value.id == "self")
            and self.resolve_call(call) is None and not self.receiver_of_another_kind(call)
            and self._receiver_may_be_of(call, self.class_of(func))])

    def calls_of_attribute(self, name: str) -> List[ast.Call]:
        """The module's calls `<receiver>.<name>(...)`, in the order of `calls` (indexed once:
        asked for every method's name, a scan of every call each time was quadratic)."""
        def index() -> Dict[str, List[ast.Call]]:
            out: Dict[str, List[ast.Call]] = {}
            for call in self.calls:
                if isinstance(call.func, ast.Attribute):
                    out.setdefault(call.func.attr, []).append(call)
            return out
        return self.cached(("calls_by_attribute", None), index).get(name, [])

    def _receiver_may_be_of(self, call: ast.Call, info) -> bool:
        """May the receiver of `x.m(...)` be an object of class `info` (or of a subclass)? Not
        a module when `info` is no module class (`self.model.train()` runs `nn.Module.train`,
        not a `Trainer.train`), nor an object of another class of this module."""
        value = self.value(call.func.value)
        if value.kind == MODULE and not self.is_module_class(info):
            return False
        return self.may_be_an_object_of(value, info)

    def may_be_an_object_of(self, value: Value, info) -> bool:
        """May `value` be an object of class `info` (or of a subclass)? Not when the data flow
        types it as another class of this module."""
        if info is None or not value.name or value.name not in self.classes or value.name == info.name:
            return True
        return any(base.rsplit(".", 1)[-1] == info.name for base in self.class_bases(self.classes[value.name]))

    def _calls_by_method_name(self, func: ast.AST) -> Tuple[int, int]:
        calls = no_grad = 0
        for call in self.calls_of_method_name(func):
            calls += 1
            no_grad += bool(self.grad_disabled_at(call))
        if self.project is not None:
            more, more_no_grad, _ = self.project.named_calls(func.name)
            calls, no_grad = calls + more, no_grad + more_no_grad
        return calls, no_grad

    def receiver_of_another_kind(self, call: ast.Call) -> bool:
        """Is the receiver of `x.m(...)` known to be no object of a class (a list, a dict, a
        tensor, a number, an array: `self.states.clear()`), so the call runs no method of
        this project whatever its name?"""
        value = self.value(call.func.value)
        return value.kind in (SEQUENCE, TENSOR, GRAPH, LEAF, SCALAR, NONE, DATA)

    def handed_out(self, func: ast.AST) -> bool:
        """Is the method referenced as a value, not called (`self.run_stage("evaluate",
        self.evaluate)`), here or in another module of the project? Then it runs where its
        callers are, out of view."""
        if self.class_of(func) is None:
            return False
        return self.cached(("handed_out", func), lambda: self._handed_out(func))

    def _handed_out(self, func: ast.AST) -> bool:
        if self.attribute_references().get(func.name):
            return True
        return self.project is not None and self.project.named_calls(func.name)[2] > 0

    def attribute_references(self) -> Dict[str, int]:
        """Methods of `self` read as values, not called (`self.evaluate` in `run_stage(
        "evaluate", self.evaluate)`): name -> how often. A method so referenced is handed out
        by its own object (a base class passing it to a runner). Other receivers
        (`self.task.evaluate`) say nothing of this class's methods."""
        def count() -> Dict[str, int]:
            called = {id(call.func) for call in self.calls}
            out: Dict[str, int] = {}
            for node in self.by_type.get(ast.Attribute, ()):
                if isinstance(node.ctx, ast.Load) and id(node) not in called \
                        and isinstance(node.value, ast.Name) and node.value.id == "self" \
                        and not isinstance(self.parent(node), ast.Attribute):
                    info = self.enclosing_class_info(node)
                    if info is not None and node.attr in info.methods:  # a method, not a flag `self.test`
                        out[node.attr] = out.get(node.attr, 0) + 1
            return out

        return self.cached(("attribute_references",), count)

    def site_label(self, site) -> str:
        """How a message names a call site: `line 15` here, `train.py:15` in another module."""
        if isinstance(site, ExternalCall):
            return self.project.label(site.site)
        return f"line {site.lineno}"

    # ------------------------------------------------------------- call graph
    def resolve_call(self, call: ast.Call) -> Optional[ast.AST]:
        """The function or method of this module a call invokes, when it can be known
        (an `obj.method()` receiver's class comes from the data flow)."""
        func = call.func
        if isinstance(func, ast.Attribute) and not called_on_self(func):
            receiver = self.value(func.value) if not self.in_progress(self.unit_of(call)) else None
            if receiver is not None and receiver.name and receiver.name in self.classes:
                return self.method(receiver.name, func.attr)
            if receiver is not None and receiver.kind == MODULE and not receiver.name:
                # `net.features(images)` on a module of unknown class: the one module class of
                # this file defining that method, as the data flow reads it (`_unique_method_owner`)
                callee = self.value(func)
                owner, _, attr = (callee.name or "").partition(".")
                if callee.kind == FUNCTION and attr == func.attr and owner in self.classes:
                    return self.method(owner, attr)
            return None
        return self._resolve_static(call)

    def iterated_functions(self, name: ast.Name) -> Optional[List[ast.AST]]:
        """The module functions a name read here can hold when every definition reaching it
        is the target of a `for` loop over a literal tuple or list of them (`for build in
        (make_a, make_b): cfg = build()`); None otherwise (another binding reaches the read,
        or an item of the sequence is not a function of this module)."""
        unit = self.unit_of(name)
        pairs = self.reaching(unit).reaching(name) if unit is not None else None
        if not pairs:
            return None
        out: List[ast.AST] = []
        for definition, _ in pairs:
            loop = self.parent(definition) if isinstance(definition, ast.Name) else None
            if not (isinstance(loop, ast.For) and loop.target is definition
                    and isinstance(loop.iter, (ast.Tuple, ast.List)) and loop.iter.elts):
                return None
            for item in loop.iter.elts:
                if not (isinstance(item, ast.Name) and item.id in self.module_functions
                        and self.qualname(item) is None and self._reads_module_binding(item)):
                    return None
                if self.module_functions[item.id] not in out:
                    out.append(self.module_functions[item.id])
        return out

    def _reads_module_binding(self, name: ast.Name) -> bool:
        """The name read here is the module-level one: nothing in its function binds it."""
        unit = self.unit_of(name)
        if isinstance(unit, ast.Module):
            return True
        pairs = self.reaching(unit).reaching(name)
        return pairs is not None and all(definition == ENTRY for definition, _ in pairs)

    def _resolve_static(self, call: ast.Call) -> Optional[ast.AST]:
        """`f()` of a module function, `Cls()` (its __init__), `self.method()`."""
        func = call.func
        if isinstance(func, ast.Name):
            nested = self._nested_function(call, func.id)
            if nested is not None:
                return nested
            if func.id in self.module_functions:
                return self.module_functions[func.id]
            if func.id in self.classes:
                return self.method(func.id, "__init__")
            return self._closure_from_factory(call, func.id)  # `train_step(x, y)` of `train_step = make(...)`
        if isinstance(func, ast.Attribute) and called_on_self(func):
            info = self.enclosing_class_info(call)
            return self.method(info.name, func.attr) if info is not None else None
        return None

    def _element_class(self, node: ast.AST, attr: str) -> Optional[str]:
        """The class of the objects the enclosing class's methods put into its container
        `self.<attr>` (`self.meters[name] = HistoryMeter(name)`), when there is one."""
        owner = self.enclosing_class_info(node)
        put = self.container_elements(owner.name, attr) if owner is not None else None
        return put.name if put is not None and put.name in self.classes else None

    def container_elements(self, class_name: str, attr: str) -> Optional[Value]:
        """Join of what the class's methods put into the container `self.<attr>` (`self.attr[k]
        = v`, `self.attr.append(v)`), when every such value is an object of a class of this file
        built there (`self.meters[name] = HistoryMeter(name)`), read from the syntax alone: the
        methods' data flows may read this attribute, and a cycle would leave it unknown. None
        otherwise."""
        return self.cached(("container_elements", class_name, attr),
                           lambda: self._container_elements(class_name, attr))

    def _container_elements(self, class_name: str, attr: str) -> Optional[Value]:
        info = self.classes.get(class_name)
        if info is None:
            return None
        out = None
        for method in info.methods.values():
            receiver = method.args.args[0].arg if method.args.args else None
            for node in walk(method):
                added = _item_put_into(node, attr, receiver)
                if added is None:
                    continue
                cls = self.constructed_class(added)
                if cls is None:
                    return None
                out = join(out, Value(MODULE, name=cls) if self.is_module_class(self.classes[cls])
                           else Value(INSTANCE, name=cls))
        return out

    def returned_closure(self, name: str) -> Optional[ast.AST]:
        """The function nested in another of this module under `name`, when exactly one is:
        what a factory returns (`train_step = make_train_step(model, loss_fn, opt)` returning
        its `def perform_train_step(x, y)`), called where the factory's result is."""
        def index() -> Dict[str, Optional[ast.AST]]:
            out: Dict[str, Optional[ast.AST]] = {}
            for func in self.functions:
                if isinstance(self.unit_of(func), FUNCTION_TYPES):
                    out[func.name] = None if func.name in out else func
            return out
        return self.cached(("returned_closures",), index).get(name)

    def _closure_from_factory(self, call: ast.Call, name: str) -> Optional[ast.AST]:
        """The closure `name` holds where `call` is made, read from the syntax (the call graph
        is asked while data flows are computed): every binding of `name` in the enclosing
        function (or the module) is `name = factory(...)` of a module function that returns
        one function it defines (`return perform_train_step`)."""
        factories = self.cached(("closure_factories",), lambda: {
            name: closure for name, func in self.module_functions.items()
            for closure in [self._returned_nested_function(func)] if closure is not None})
        if not factories:
            return None
        scope = self.unit_of(call)
        bindings = self.cached(("name_bindings", scope), lambda: self._name_bindings(scope)).get(name, ())
        found = None
        for node in bindings:
            value = node.value
            if len(node.targets) != 1 or not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name):
                return None
            closure = factories.get(value.func.id)
            if closure is None or found is not None and closure is not found:
                return None
            found = closure
        return found

    def _name_bindings(self, scope: ast.AST) -> Dict[str, List[ast.Assign]]:
        out: Dict[str, List[ast.Assign]] = {}
        for node in nodes_within(scope) if isinstance(scope, FUNCTION_TYPES) else self.tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        out.setdefault(target.id, []).append(node)
        return out

    def _returned_nested_function(self, factory: ast.AST) -> Optional[ast.AST]:
        returns = [n for n in nodes_within(factory) if isinstance(n, ast.Return) and n.value is not None]
        names = {n.value.id for n in returns if isinstance(n.value, ast.Name)}
        if len(returns) != 1 or len(names) != 1:
            return None
        name = names.pop()
        return next((f for f in factory.body if isinstance(f, FUNCTION_TYPES) and f.name == name), None)

    def _nested_function(self, call: ast.Call, name: str) -> Optional[ast.AST]:
        """The function `name` defined inside a function that encloses `call` (`def hvp(...)`
        in the method that then calls `hvp(loss, w, v)`), when that scope binds the name
        nowhere else."""
        index = self.cached(("nested_functions",), self._index_nested_functions)
        if not index:
            return None
        scope = self.unit_of(call)
        while isinstance(scope, FUNCTION_TYPES):
            if (scope, name) in index:
                return index[(scope, name)]
            scope = self.unit_of(scope)
        return index.get((self.tree, name))  # a module-level def in a block (`if __name__ == ...:`)

    def _index_nested_functions(self) -> Dict[Tuple[ast.AST, str], Optional[ast.AST]]:
        index: Dict[Tuple[ast.AST, str], Optional[ast.AST]] = {}
        for func in self.functions:
            scope = self.unit_of(func)
            if isinstance(scope, FUNCTION_TYPES) or self._defined_in_a_module_block(func):
                key = (scope, func.name)
                index[key] = None if key in index else func  # defined twice: which one runs is unknown
        for key, func in list(index.items()):
            scope, name = key
            if func is not None and self._binds_elsewhere(scope, name):
                index[key] = None
        return {key: func for key, func in index.items() if func is not None}

    def _defined_in_a_module_block(self, func: ast.AST) -> bool:
        """A module-level `def` inside an `if`/`try`/`with`/loop block of the module body (the
        `def inference(...)` of an `if __name__ == "__main__":` script), not in a class."""
        if func in self.tree.body:
            return False
        return not any(isinstance(anc, (ast.ClassDef,) + FUNCTION_TYPES) for anc in self.ancestors(func))

    def _binds_elsewhere(self, scope: ast.AST, name: str) -> bool:
        """Does `scope` bind `name` other than by a `def` (a parameter, an assignment, a loop
        target; for the module, an import or a top-level `def`)?"""
        if scope is self.tree:
            if name in self.module_functions or name in self.classes or name in self.imports.aliases:
                return True
        elif any(a.arg == name for a in positional_parameters(scope)):
            return True
        for node in nodes_within(scope):
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
                return True
        return False

    def behaviour_class(self, name: str) -> bool:
        """Is `name` (a class of this module, or of another module by qualified name) a class
        with methods of its own beyond construction and dunders, not a record of values (a
        NamedTuple, a dataclass without methods)? An object of it returned by a forward is that
        object, whose attributes say what they hold, not a tuple of the forward's outputs."""
        def plain(methods, bases) -> bool:
            if any(b.rsplit(".", 1)[-1] in ("NamedTuple", "namedtuple", "tuple", "dict", "OrderedDict", "ModelOutput")
                   for b in bases):
                return False
            return any(not (m.startswith("__") and m.endswith("__")) for m in methods)

        info = self.classes.get(name)
        if info is not None:
            return plain(info.methods, self.class_bases(info))
        if "." in name and self.project is not None:
            found = self.project.imported_summary(name)
            if found is not None and found[0] == "class" and isinstance(found[1], dict):
                return plain(found[1].get("methods", ()), found[1].get("bases", ()))
        return False

    def calls_of_method_name_anywhere(self, name: str) -> bool:
        """Is `<receiver>.<name>(...)` called anywhere in this module, on any receiver?"""
        return bool(self.calls_of_attribute(name))

    def self_calls(self, name: str) -> List[ast.Call]:
        """Every `self.<name>(...)` call of the module (indexed once)."""
        index = self.cached(("self_calls",), self._index_self_calls)
        return index.get(name, [])

    def _index_self_calls(self) -> Dict[str, List[ast.Call]]:
        index: Dict[str, List[ast.Call]] = {}
        for call in self.calls:
            func = call.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                index.setdefault(func.attr, []).append(call)
        return index

    def method_call_sites(self, method: ast.AST) -> List[ast.Call]:
        """Resolved call sites of a method and every `self.<name>(...)` call of the module (of a
        method only: `self.main(z)` of a layer is no call of the script's `main()`)."""
        sites = list(self.call_sites(method))
        if self.method_class.get(method) is None:
            return sites
        seen = set(map(id, sites))
        return sites + [c for c in self.self_calls(method.name) if id(c) not in seen]

    def call_sites(self, func: ast.AST) -> List[ast.Call]:
        key = ("call_sites", None)
        if key not in self._memo:
            sites: Dict[ast.AST, List[ast.Call]] = {}
            for call in self.calls:
                target = self._resolve_call_cheap(call)
                if target is not None:
                    sites.setdefault(target, []).append(call)
                    continue
                for target in self._instance_call_targets(call) or self._parameter_object_call_targets(call) \
                        or self._parameter_callable_targets(call) or self._method_alias_targets(call):
                    sites.setdefault(target, []).append(call)
            self._add_dispatched_self_calls(sites)
            self._memo[key] = sites
        return self._memo[key].get(func, [])

    def _add_dispatched_self_calls(self, sites: Dict[ast.AST, List[ast.Call]]) -> None:
        """`self.simulation_step(dt, *args)` in a base class's `forward`: on an object of a
        subclass that overrides `simulation_step`, the call runs the override. Such a self call
        is a call site of every override in this module too."""
        for target, calls in list(sites.items()):
            info = self.method_class.get(target)
            if info is None:
                continue
            dispatched = [c for c in calls if isinstance(c.func, ast.Attribute) and called_on_self(c.func)
                          and self.method_class.get(self.unit_of(c)) is not None]
            if not dispatched:
                continue
            for other in self.classes.values():
                override = other.methods.get(target.name) if other is not info else None
                if override is None or override is target or info.name not in self.class_bases(other):
                    continue
                bases = self.class_bases(other)
                # (a self call in a class `other` inherits from: not one in a sibling subclass)
                sites.setdefault(override, []).extend(
                    c for c in dispatched if self.method_class[self.unit_of(c)].name in bases)

    def _resolve_call_cheap(self, call: ast.Call) -> Optional[ast.AST]:
        """Call resolution without data flow (module functions, self.method, Class(...),
        instance.method for instances bound by a plain `x = Class(...)`)."""
        func = call.func
        if isinstance(func, ast.Name):
            nested = self._nested_function(call, func.id)
            if nested is not None:
                return nested  # `eval_forward(loader, y)` of the `def eval_forward` beside it
            if func.id in self.module_functions or func.id in self.classes:
                return self._resolve_static(call)
            cls = self._instance_class_of_name(func.id)
            if cls is not None:  # calling an instance: nn.Module -> forward, else __call__
                return self.method(cls, "forward") or self.method(cls, "__call__")
            return self._closure_from_factory(call, func.id)  # read from the syntax too
        if isinstance(func, ast.Attribute):
            if called_on_self(func):
                return self._resolve_static(call)
            owner = func.value
            cls = None
            if isinstance(owner, ast.Name):
                cls = self._instance_class_of_name(owner.id)
            elif isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self":
                cls = self._instance_class_of_attr(call, owner.attr)
            elif isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id in self.classes:
                cls = owner.func.id  # `Trainer(cfg).fit(data)`: a method of the instance just made
            elif isinstance(owner, ast.Subscript) and isinstance(owner.value, ast.Attribute) and called_on_self(owner.value):
                cls = self._element_class(call, owner.value.attr)  # `self.meters[name].update(v)`
            elif isinstance(owner, ast.Subscript) and isinstance(owner.value, ast.Name):
                cls = self._instance_class_of_name(owner.value.id + "[]")  # `losses_m[key].update(v)`
            elif isinstance(owner, ast.Attribute):
                # `model.l2.tensor_s.update(h)`: an attribute that one class of the module, and
                # only one, binds to an instance of one class (`self.tensor_s = TensorStatistic()`)
                cls = self._unique_attribute_class(owner.attr)
            if cls is not None:
                return self.method(cls, func.attr)
        return None

    def unreachable_lines(self) -> set:
        """Lines of statements that never run (after a `return` or an `assert False`), and
        those of branches taken only on PyTorch 0.x (`if torch_ver == '0.3':`)."""
        return self.cached(("unreachable_lines",), lambda: unreachable_lines(self.tree, self._statement_blocks())
                           | self._legacy_lines_cached() | self._never_taken_lines())

    def _never_taken_lines(self) -> set:
        """The lines of the branches of an `if` whose test is decided before it runs: a
        constant (`if resume and False:`, `if 0:`), or a local flag every definition reaching
        the test binds to a constant (`resume = False` on each path, then `if resume:`)."""
        out: set = set()
        for node in self.by_type.get(ast.If, []):
            taken = self._static_truth(node.test)
            if taken is None:
                continue
            for stmt in (node.orelse if taken else node.body):
                out.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
        return out

    def _names_bound_to_constants(self, unit: ast.AST) -> Set[str]:
        return self.cached(("names_bound_to_constants", unit), lambda: {
            node.targets[0].id for node in nodes_within(unit) if isinstance(node, ast.Assign)
            and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (bool, type(None)))})

    def _static_truth(self, test: ast.AST) -> Optional[bool]:
        """True/False when the value of `test` is the same on every run of the `if`; None
        when it depends on anything else."""
        if isinstance(test, ast.Constant):
            return bool(test.value) if isinstance(test.value, (bool, int, type(None))) else None
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = self._static_truth(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.BoolOp):
            values = [self._static_truth(v) for v in test.values]
            decisive = isinstance(test.op, ast.Or)  # `x or True` is True, `x and False` False
            if decisive in values:
                return decisive
            return None if None in values else not decisive
        if isinstance(test, ast.Name) and isinstance(test.ctx, ast.Load):
            return self._constant_flag(test)
        return None

    def _constant_flag(self, read: ast.Name) -> Optional[bool]:
        """The truth of a local every reaching definition binds to the same constant."""
        unit = self.unit_of(read)
        if not isinstance(unit, FUNCTION_TYPES) or read.id in self._globals_of(unit) \
                or read.id not in self._names_bound_to_constants(unit):
            return None  # (most tests read no such flag: no reaching definitions computed for them)
        pairs = self.reaching(unit).reaching(read)
        if not pairs:
            return None
        truths = set()
        for definition, _ in pairs:
            stmt = self.parent(definition) if isinstance(definition, ast.Name) else definition
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is definition
                    and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, (bool, type(None)))):
                return None
            truths.add(bool(stmt.value.value))
        return truths.pop() if len(truths) == 1 else None

    def _statement_blocks(self) -> List[ast.AST]:
        """The nodes that hold blocks of statements (`body`, `orelse`, `finalbody`), from the index."""
        return [node for kind in _BLOCK_TYPES for node in self.by_type.get(kind, [])]

    def _legacy_torch_lines(self) -> set:
        """The lines of the branches a test of the PyTorch version against a 0.x release selects
        (`torch_ver = torch.__version__[:3]`, then `if torch_ver == '0.3': ... else: with
        torch.no_grad(): ...`): code no release since 0.4 runs."""
        torch_names = {alias for alias, qual in self.imports.aliases.items() if qual == "torch"}
        if not torch_names or (self.source and "__version__" not in self.source):
            return set()  # (most files never read the version: no need to walk their assignments)

        def reads_version(expr: ast.AST) -> bool:
            return any(isinstance(n, ast.Attribute) and n.attr == "__version__" and isinstance(n.value, ast.Name)
                       and n.value.id in torch_names for n in walk(expr))
        version_names = {t.id for node in self.by_type.get(ast.Assign, []) if reads_version(node.value)
                         for t in node.targets if isinstance(t, ast.Name)}
        out = set()
        for node in self.by_type.get(ast.If, []):
            branch = _legacy_branch(node.test, version_names, reads_version)
            if branch is None:
                continue
            for stmt in (node.body if branch else node.orelse):
                out.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
        return out

    def in_legacy_torch_branch(self, node: ast.AST) -> bool:
        return getattr(node, "lineno", None) in self._legacy_lines_cached()

    def _legacy_lines_cached(self) -> set:
        return self.cached(("legacy_torch_lines",), self._legacy_torch_lines)

    def may_call_targets(self, call: ast.Call) -> List[ast.AST]:
        """The functions a call may run when its receiver is one of several classes' objects."""
        return self._instance_call_targets(call)

    def _instance_call_targets(self, call: ast.Call) -> List[ast.AST]:
        """Calling a name bound to instances of several classes of the module
        (`abstractor = Abstractor(p)` on one branch, `BeamAbstractor(p)` on another): the call
        may run each one's `forward` or `__call__`, so it is a call site of every one of them
        (a may-call edge: what the callers of a method do is then known for all of them). The
        same for a method called on such a name or `self` attribute (`ema.update(model)` with
        `ema = BufferEMA(model) if buffered else ShadowEMA(model)`)."""
        func = call.func
        held = self._module_container_call_targets(call)
        if held:
            return held
        if isinstance(func, ast.Name):
            classes = self._instance_bindings()[0].get(func.id) or ()
            if len(classes) < 2:
                return []
            targets = (self.method(cls, "forward") or self.method(cls, "__call__") for cls in sorted(classes))
            return list({id(t): t for t in targets if t is not None}.values())
        if not isinstance(func, ast.Attribute):
            return []
        owner, classes = func.value, ()
        if isinstance(owner, ast.Name):
            classes = self._instance_bindings()[0].get(owner.id) or ()
        elif isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self":
            info = self.enclosing_class_info(call)
            classes = self._instance_bindings()[1].get((info.name, owner.attr)) or () if info is not None else ()
        elif isinstance(owner, ast.Subscript) and _self_attribute_name(owner.value):
            # `self.meters[name].update(value, n)`: a method of the class (or classes) whose
            # objects the class puts into that dict or list
            info = self.enclosing_class_info(call)
            key = _self_attribute_name(owner.value) + "[]"
            classes = self._instance_bindings()[1].get((info.name, key)) or () if info is not None else ()
            if classes:
                targets = (self.method(cls, func.attr) for cls in sorted(classes))
                return list({id(t): t for t in targets if t is not None}.values())
        if len(classes) < 2:
            return []
        targets = (self.method(cls, func.attr) for cls in sorted(classes))
        return list({id(t): t for t in targets if t is not None}.values())

    def _module_container_call_targets(self, call: ast.Call) -> List[ast.AST]:
        """The `forward`s a call runs through a module of this file, or a container of them,
        that the object holds: `self.norm(x)` of `self.norm = BatchNorm(dim)`, `self.blocks(h)`
        of `self.blocks = nn.Sequential(Block(d), Block(d))` (each block's forward: the first
        gets `h`, the others what the one before returned), and `blk(h)` in `for blk in
        self.blocks:` over such an `nn.ModuleList`. A may-call edge, read from the syntax alone."""
        func = call.func
        info = self.enclosing_class_info(call)
        if info is None:
            return []
        attr = None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            attr = func.attr
        elif isinstance(func, ast.Name):
            attr = self._iterated_self_attribute(call, func.id)
        classes = self._module_containers().get((info.name, attr)) if attr is not None else None
        if not classes and attr is not None and isinstance(func, ast.Attribute):
            # `self.norm(x)` of `self.norm = BatchNorm(dim)`: the module's own forward
            classes = {cls for cls in self._instance_bindings()[1].get((info.name, attr)) or ()
                       if self.is_module_class(self.classes[cls])}
        if not classes:
            return []
        targets = (self.method(cls, "forward") for cls in sorted(classes))
        return list({id(t): t for t in targets if t is not None}.values())

    def _iterated_self_attribute(self, call: ast.AST, name: str) -> Optional[str]:
        """`blocks` when `name` is the loop variable of the innermost loop or comprehension
        around `call` that binds it, over `self.blocks` or `enumerate(self.blocks)`."""
        for anc in self.ancestors(call):
            if isinstance(anc, SCOPE_TYPES):
                return None
            generators = anc.generators if isinstance(anc, COMPREHENSION_TYPES) else \
                [anc] if isinstance(anc, (ast.For, ast.AsyncFor)) else ()
            for gen in generators:
                target, iterable = gen.target, gen.iter
                if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and \
                        iterable.func.id == "enumerate" and len(iterable.args) == 1 and \
                        isinstance(target, ast.Tuple) and len(target.elts) == 2:
                    target, iterable = target.elts[1], iterable.args[0]
                if isinstance(target, ast.Name) and target.id == name:
                    if isinstance(iterable, ast.Attribute) and isinstance(iterable.value, ast.Name) \
                            and iterable.value.id == "self":
                        return iterable.attr
                    return None
        return None

    def _module_containers(self) -> Dict[Tuple[str, str], Set[str]]:
        """(class, attribute) -> the classes of this file whose modules the attribute holds,
        when the class binds it to `nn.Sequential(...)` / `nn.ModuleList([...])` of them
        (also `*[Block(d) for _ in range(n)]`)."""
        key = ("module_containers", None)
        if key not in self._memo:
            found: Dict[Tuple[str, str], Set[str]] = {}
            for node in self.by_type.get(ast.Assign, []):
                if len(node.targets) != 1 or not isinstance(node.value, ast.Call):
                    continue
                target = node.targets[0]
                qual = self.qualname(node.value.func) or ""
                if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                        and target.value.id == "self" and qual.rsplit(".", 1)[-1] in ("Sequential", "ModuleList")):
                    continue
                owner = self.enclosing_class_info(node)
                elements = [e for arg in node.value.args for e in _listed_elements(arg)]
                classes = {self._constructed_class(e) for e in elements}
                if owner is not None and elements and None not in classes:
                    found.setdefault((owner.name, target.attr), set()).update(classes)
            self._memo[key] = found
        return self._memo[key]

    def _unique_attribute_class(self, attr: str) -> Optional[str]:
        key = ("unique_attribute_classes", None)
        if key not in self._memo:
            by_attr: Dict[str, List[Set[str]]] = {}
            for (_, name), classes in self._instance_bindings()[1].items():
                by_attr.setdefault(name, []).append(classes)
            self._memo[key] = {name: next(iter(found[0])) for name, found in by_attr.items()
                               if len(found) == 1 and len(found[0]) == 1}
        return self._memo[key].get(attr)

    def _instance_bindings(self) -> Dict[str, Set[str]]:
        key = ("instance_bindings", None)
        if key not in self._memo:
            names: Dict[str, Set[str]] = {}
            attrs: Dict[Tuple[str, str], Set[str]] = {}
            for node in self.by_type.get(ast.Assign, []):
                pairs = list(_constructed_bindings(node, self._constructed_class))
                if not pairs and len(node.targets) == 1 and isinstance(node.value, ast.Call) and \
                        isinstance(node.value.func, ast.Name):
                    # `self.norm1 = norm_cls(hidden)`: the classes the parameter may hold
                    pairs = [(node.targets[0], cls) for cls in
                             sorted(self._parameter_classes(self.unit_of(node), node.value.func.id))]
                for target, cls in pairs:
                    if isinstance(target, ast.Name):
                        names.setdefault(target.id, set()).add(cls)
                    elif (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                          and target.value.id == "self"):
                        owner = self.enclosing_class_info(node)
                        if owner is not None:
                            attrs.setdefault((owner.name, target.attr), set()).add(cls)
                    elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                        # `losses_m[key] = AverageMeter()`: the items a local dict holds
                        names.setdefault(target.value.id + "[]", set()).add(cls)
                    elif isinstance(target, ast.Subscript) and _self_attribute_name(target.value):
                        # `self.meters[name] = AverageMeter()`: the items the dict holds
                        owner = self.enclosing_class_info(node)
                        if owner is not None:
                            attrs.setdefault((owner.name, _self_attribute_name(target.value) + "[]"), set()).add(cls)
            self._memo[key] = (names, attrs)
        return self._memo[key]

    def _parameter_object_call_targets(self, call: ast.Call) -> List[ast.AST]:
        """`loss_computer.loss(out, y, g)` in `run_epoch(..., loss_computer, ...)`, a module
        function every call of which passes an object of a class of this file for that
        parameter (`run_epoch(0, model, opt, loader, LossComputer(4), logger)`, or a name every
        binding of which constructs one): that class's method, read from the syntax alone."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return []
        unit = self._module_function_with_parameter(call, func.value.id)
        if unit is None:
            return []  # (the common case, `torch.cat(...)`, `x.view(...)`: decided without the callers)
        classes = self.cached(("parameter_instance_classes", unit, func.value.id),
                              lambda: self._parameter_instance_classes(unit, func.value.id))
        if not classes and not self._called_by_name_here(unit):
            # handed in by callers out of view: any class whose methods cover what is used (a join)
            classes = self._classes_of_attributes_read_on(unit, func.value.id)
        targets = [self.method(cls, func.attr) for cls in sorted(classes)]
        return targets if targets and all(t is not None for t in targets) else []

    def _parameter_callable_targets(self, call: ast.Call) -> List[ast.AST]:
        """`agent_act(s)` in `rollout(agent_act, ...)`, a module function every call of which
        passes a function for that parameter: the functions of this file among them, a plain
        function (`rollout(policy)`), a method of an object of a class of this file
        (`rollout(ac.take_action)` with `ac = ActorCritic()`), or such an object itself
        (`model(x)` in `fit(model, data)` called as `fit(StatefulLSTM(), data)`: its `forward`).
        May-call edges read from the syntax alone (a callback handed in; a lambda passed by
        another call adds nothing)."""
        if not isinstance(call.func, ast.Name):
            return []
        unit = self._module_function_with_parameter(call, call.func.id)
        if unit is None:
            return []
        return self.cached(("parameter_callables", unit, call.func.id),
                           lambda: self._parameter_callables(unit, call.func.id))

    def _method_alias_targets(self, call: ast.Call) -> List[ast.AST]:
        """`fn(x, key)` after `fn = engine.generate_guarded if guarded else engine.generate` (or
        `fn = self.step`): the methods of this file every binding reaching the call names, on
        `self`, on a parameter every call passes an object of a class of this file for, or on
        a name bound to such an object. May-call edges read from the syntax alone."""
        if not isinstance(call.func, ast.Name):
            return []
        unit = self.unit_of(call)
        if not isinstance(unit, FUNCTION_TYPES) or call.func.id not in self.cached(
                ("method_reference_names", unit), lambda: _names_bound_to_attributes(unit)):
            return []  # (most calls: no binding of the name to `obj.m` in the function, no reaching asked)
        definitions = self.reaching(unit).definitions(call.func)
        if not definitions:
            return []
        targets: List[ast.AST] = []
        for definition in definitions:
            stmt = self.parent(definition)
            if not (isinstance(stmt, ast.Assign) and stmt.targets == [definition]):
                return []
            value = stmt.value
            references = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
            for reference in references:
                found = self._method_reference(reference, unit)
                if not found:
                    return []
                targets.extend(t for t in found if all(t is not o for o in targets))
        return targets

    def _method_reference(self, reference: ast.AST, unit: ast.AST) -> List[ast.AST]:
        """The methods `obj.m` (not called) may denote: of the enclosing class for `self.m`, of
        the classes a parameter is handed or a name is bound to; [] when not known."""
        if not (isinstance(reference, ast.Attribute) and isinstance(reference.value, ast.Name)):
            return []
        owner = reference.value.id
        if owner == "self":
            info = self.enclosing_class_info(reference)
            method = self.method(info.name, reference.attr) if info is not None else None
            return [method] if method is not None else []
        classes = self._instance_bindings()[0].get(owner) or ()
        if not classes and self._module_function_with_parameter(reference, owner) is unit:
            classes = self.cached(("parameter_instance_classes", unit, owner),
                                  lambda: self._parameter_instance_classes(unit, owner)) \
                or self._classes_of_attributes_read_on(unit, owner)
        methods = [self.method(cls, reference.attr) for cls in sorted(classes)]
        return methods if methods and all(m is not None for m in methods) else []

    def _called_by_name_here(self, func: ast.AST) -> bool:
        """Is there a call of `func`'s name in this module (`f(...)`, `x.f(...)`) or a reference
        handing it on? Read from the syntax alone (the call graph is being built)."""
        def index() -> Set[str]:
            return {node.id if isinstance(node, ast.Name) else node.attr for node in self.nodes(ast.Name, ast.Attribute)}
        return getattr(func, "name", None) in self.cached(("names_referenced", None), index)

    def _classes_of_attributes_read_on(self, unit: ast.AST, owner: str) -> Tuple[str, ...]:
        """`trainer` of `step = trainer.step_detached if detached else trainer.step_shared`, or
        `plant` of `plant.reset(); ...; plant.step(u)`, in a function nobody in view hands that
        object: the classes of this module that define (or inherit) every attribute the
        function reads on it, as methods. Only when it reads two or more, one of them a name
        telling the class (`model.train(); model.eval()` says nothing of a `Trainer` of this
        file that defines `train` and `eval`: `torch_api.telling_names`). Read from the syntax
        alone."""
        def compute() -> Tuple[str, ...]:
            attributes = {node.attr for node in nodes_within(unit) if isinstance(node, ast.Attribute)
                          and isinstance(node.value, ast.Name) and node.value.id == owner}
            if len(attributes) < 2 or not torch_api.telling_names(attributes):
                return ()
            return tuple(sorted(info.name for info in self.classes.values()
                                if all(self.method(info.name, attr) is not None for attr in attributes)))
        return self.cached(("classes_of_attributes_read_on", unit, owner), compute)

    def _module_function_with_parameter(self, node: ast.AST, name: str) -> Optional[ast.AST]:
        """The module-level function `node` is in, when `name` is one of its parameters."""
        unit = self.unit_of(node)
        if not isinstance(unit, FUNCTION_TYPES) or self.module_functions.get(unit.name) is not unit \
                or not any(a.arg == name for a in named_parameters(unit)):
            return None
        return unit

    def _parameter_callables(self, unit: ast.AST, name: str) -> List[ast.AST]:
        found: List[ast.AST] = []
        for passed in self._arguments_passed_for(unit, name) or ():
            target = None
            if isinstance(passed, ast.Name) and self.module_functions.get(passed.id) is not None:
                target = self.module_functions[passed.id]
            elif isinstance(passed, ast.Attribute) and isinstance(passed.value, ast.Name):
                cls = self.constructed_class(passed.value)
                target = self.method(cls, passed.attr) if cls is not None else None
            elif passed is not None:
                # an object of a class of this file (`fit(StatefulLSTM(), data)`): calling it
                # runs its `forward` (a module's) or `__call__`
                cls = self.constructed_class(passed)
                target = (self.method(cls, "forward") or self.method(cls, "__call__")) if cls is not None else None
            if target is not None and all(t is not target for t in found):
                found.append(target)  # (a lambda, a function of another module: one more thing it may call)
        return found

    def _arguments_passed_for(self, unit: ast.AST, name: str) -> Optional[List[Optional[ast.AST]]]:
        """What each call of the module function `unit` passes for its parameter `name` (None
        for a call that leaves it out), when `unit` never rebinds it and no call spreads its
        arguments (`f(*args)`); else None."""
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in nodes_within(unit)):
            return None
        param = next((a for a in named_parameters(unit) if a.arg == name), None)
        if param is None:
            return None
        position = next((i for i, a in enumerate(positional_parameters(unit)) if a is param), None)
        out: List[Optional[ast.AST]] = []
        for call in self._calls_by_callee_name().get(unit.name, ()):
            if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
                return None
            passed = next((kw.value for kw in call.keywords if kw.arg == name), None)
            if passed is None and position is not None and position < len(call.args):
                passed = call.args[position]
            out.append(passed)
        return out

    def _parameter_instance_classes(self, unit: ast.AST, name: str) -> Set[str]:
        """The classes of this file whose objects every call of the module function `unit`
        passes for its parameter `name`, which `unit` never rebinds; empty when a call passes
        something else, leaves it out, or none is in view."""
        found: Set[str] = set()
        for passed in self._arguments_passed_for(unit, name) or ():
            cls = self.constructed_class(passed) if passed is not None else None
            if cls is None:
                return set()
            found.add(cls)
        return found

    def _calls_by_callee_name(self) -> Dict[str, List[ast.Call]]:
        """Calls of a plain name (`run_epoch(...)`), by that name: one pass over the module."""
        def index() -> Dict[str, List[ast.Call]]:
            out: Dict[str, List[ast.Call]] = {}
            for call in self.calls:
                if isinstance(call.func, ast.Name):
                    out.setdefault(call.func.id, []).append(call)
            return out
        return self.cached(("calls_by_callee_name", None), index)

    def _parameter_classes(self, unit: ast.AST, name: str, depth: int = 0) -> Set[str]:
        """The classes of this file parameter `name` of `unit` may hold, read from the syntax:
        its default (`norm_cls=RunningGraphNorm`) and what the calls of `unit` (or of its
        class, for `__init__`) pass for it, following a parameter of the caller handed on
        (`DenseGCN(norm_cls=norm_cls)` in `run(norm_cls=RunningGraphNorm)`), two levels. Empty
        when any of them is not a class of this file: then nothing is known."""
        if not isinstance(unit, FUNCTION_TYPES) or depth > 2:
            return set()
        params = named_parameters(unit)
        param = next((a for a in params if a.arg == name), None)
        if param is None:
            return set()
        default = default_of(unit, param)
        if not (isinstance(default, ast.Name) and default.id in self.classes):
            return set()  # (a parameter without a class default: the callers alone would decide)
        found = {default.id}
        info = self.method_class.get(unit)
        callee = info.name if info is not None and unit.name == "__init__" else unit.name
        offset = 1 if info is not None else 0
        position = next((i for i, a in enumerate(positional_parameters(unit)) if a is param), None)
        for call in self._calls_by_callee_name().get(callee, ()):
            passed = next((kw.value for kw in call.keywords if kw.arg == name), None)
            if passed is None and position is not None and 0 <= position - offset < len(call.args):
                passed = call.args[position - offset]
            if passed is None:
                continue  # left to the default
            if isinstance(passed, ast.Name) and passed.id in self.classes:
                found.add(passed.id)
                continue
            handed = self._parameter_classes(self.unit_of(call), passed.id, depth + 1) \
                if isinstance(passed, ast.Name) else set()
            if not handed:
                return set()
            found |= handed
        return found

    def constructed_module_class(self, expr: ast.AST) -> Optional[str]:
        """The module class of this file `expr` constructs (`FCN(16)`, `Net().to(device)`), or
        that a name every binding of which constructs it holds, read from the syntax alone."""
        cls = self.constructed_class(expr)
        info = self.classes.get(cls) if cls is not None else None
        return cls if info is not None and self.is_module_class(info) else None

    def constructed_class(self, expr: ast.AST) -> Optional[str]:
        """The class of this file (a module or any other) `expr` constructs, or that a name
        every binding of which constructs it holds, read from the syntax alone."""
        cls = self._constructed_class(expr)
        if cls is None and isinstance(expr, ast.Name):
            cls = self._instance_class_of_name(expr.id)
        return cls if cls in self.classes else None

    def _constructed_class(self, expr: ast.AST) -> Optional[str]:
        while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
                expr.func.attr in torch_api.MODULE_SELF_METHODS:
            expr = expr.func.value  # Net().to(device)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in self.classes:
            return expr.func.id
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in self.module_functions:
            # `quick_fit(TextClassifier())`, whose every return hands back the module it was given
            position = self._returned_parameter(self.module_functions[expr.func.id])
            if position is not None and position < len(expr.args) and not any(
                    isinstance(a, ast.Starred) for a in expr.args[:position + 1]):
                return self._constructed_class(expr.args[position])
        return None

    def _returned_parameter(self, func: ast.AST) -> Optional[int]:
        """The position of the parameter every `return` of `func` returns as it is (a helper
        that trains or moves the model it is handed and gives it back), else None."""
        def compute() -> Optional[int]:
            names = [a.arg for a in positional_parameters(func)]
            returns = [n for n in nodes_within(func) if isinstance(n, ast.Return)]
            if not returns or not all(isinstance(r.value, ast.Name) for r in returns):
                return None
            returned = {r.value.id for r in returns}
            if len(returned) != 1 or next(iter(returned)) not in names:
                return None
            name = next(iter(returned))
            if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in nodes_within(func)):
                return None  # rebound on the way: not what was handed in
            return names.index(name)
        return self.cached(("returned_parameter", func), compute)

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

    def backward_calls_in(self, unit: ast.AST) -> List[ast.Call]:
        """`backward_calls()` whose unit is `unit` (grouped once: per-unit scans of every
        call were quadratic in the number of functions of a file)."""
        key = ("backward_calls_by_unit", None)
        if key not in self._memo:
            by_unit: Dict[ast.AST, List[ast.Call]] = {}
            for call in self.backward_calls():
                by_unit.setdefault(self.unit_of(call), []).append(call)
            self._memo[key] = by_unit
        return self._memo[key].get(unit, [])

    def backward_target(self, call: ast.Call) -> Optional[ast.AST]:
        """The tensor expression a backward call differentiates, or None if not a backward
        (nor a call: `loss_a + loss_b` as an expression statement of a notebook cell)."""
        if not isinstance(call, ast.Call):
            return None
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "backward":
            qual = self.qualname(func)
            if qual in ("torch.autograd.backward",):
                return _first_arg(call, "tensors")
            if qual and qual.startswith("torch."):
                return None
            if not call.args and not _kw(call, "tensors"):
                return func.value  # loss.backward(...)
            if any(kw.arg == "gradient" for kw in call.keywords) or self.value(func.value).carries_graph or \
                    (call.args and self._graph_free(call.args[0])):
                return func.value  # `y.backward(-grad)`: a tensor's backward with a gradient argument
            return _first_arg(call, "loss")  # accelerator.backward(loss), engine.backward(loss)
        if isinstance(func, ast.Attribute) and func.attr == "manual_backward":
            return _first_arg(call, "loss")
        qual = self.qualname(func) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if qual in ("torch.autograd.backward",):
            return _first_arg(call, "tensors")
        if qual in ("torch.autograd.grad",):
            return _first_arg(call, "outputs")
        return None

    def one_element(self, expr: ast.AST) -> bool:
        """Is the value of `expr` one number: a scalar by its data flow, or a name whose value
        (the same reaching definitions) a `.backward()` with no gradient argument
        differentiates (`loss = self.calculate_kd_loss(...)`; `loss.backward()`), which
        raises on anything but a one-element tensor?"""
        if self.value(expr).scalar:
            return True
        if not isinstance(expr, ast.Name):
            return False
        unit = self.unit_of(expr)
        reaching = self.reaching(unit)
        ours = set(reaching.definitions(expr))
        if not ours:
            return False
        for call in self.backward_calls_in(unit):
            func = call.func
            if not (isinstance(func, ast.Attribute) and func.attr == "backward" and not call.args
                    and not any(kw.arg in ("gradient", "tensors", None) for kw in call.keywords)):
                continue
            target = func.value
            if isinstance(target, ast.Name) and target.id == expr.id and set(reaching.definitions(target)) == ours:
                return True
        # `loss.item()` on the same value (`self.log("loss", loss.item())`): `.item()` raises on
        # anything but a one-element tensor
        for read in reaching.reads_by_key.get(expr.id, ()):
            parent = self.parent(read)
            if isinstance(parent, ast.Attribute) and parent.attr == "item" and isinstance(self.parent(parent), ast.Call) \
                    and self.parent(parent).func is parent and set(reaching.definitions(read)) == ours:
                return True
        return False

    def _graph_free(self, expr: ast.AST) -> bool:
        """Proven to carry no graph (computed under no-grad, detached, a number): no loss."""
        value = self.value(expr)
        if not value.carries_graph and value.kind != "unknown":
            return True
        if isinstance(expr, ast.UnaryOp):
            expr = expr.operand
        if not isinstance(expr, ast.Name):
            return False
        # every definition reaching it was made with autograd off (`with torch.no_grad(): grad = ...`)
        definitions = self.reaching(self.unit_of(expr)).definitions(expr)
        return bool(definitions) and all(not isinstance(d, ast.arg) and self.grad_disabled_at(d)
                                         for d in definitions)

    def backwarded_names(self, unit: ast.AST) -> Set[str]:
        """Names differentiated in this unit: in `(a + b).backward()`, `scaler.scale(a)
        .backward()`, `autograd.grad(a, ...)` the names a and b (not function names)."""
        key = ("backwarded", unit)
        if key not in self._memo:
            names: Set[str] = set()
            for call in self.backward_calls_in(unit):
                names |= expression_names(self.backward_target(call))
            self._memo[key] = names
        return self._memo[key]

    def is_optimizer_step(self, call: ast.Call) -> bool:
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "step") or \
                (call.args or call.keywords) and not self._closure_argument(call):
            return False
        receiver = func.value
        if isinstance(receiver, ast.Call):  # scaler.step(optimizer) has an argument: not here
            return False
        value = self.value(receiver)
        if value.kind == "optimizer":
            return value.name != "lr_scheduler"  # a scheduler's step() changes the learning rate, no update
        text = (dotted(receiver) or "").lower()
        if "sched" in text:
            return False
        # An optimizer passed in as a parameter is known only by duck typing: `x.step()`
        # next to `x.zero_grad()` or a backward in the same function. Its name alone
        # (`opt_g`, `self.optimizer`) may add confidence, never decide.
        text = (dotted(receiver) or "").lower()
        named = "optim" in text or text.endswith(("opt", "_g", "_d"))
        unit = self.unit_of(call)
        return named and (self._zero_grad_called(unit, dotted(receiver)) or bool(self.backwarded_names(unit)))

    def _closure_argument(self, call: ast.Call) -> bool:
        """`optimizer.step(closure)` / `step(closure=closure)`: its one argument is a function
        (a nested `def`, a lambda) the optimizer calls to re-evaluate the loss, not the
        optimizer a GradScaler's `scaler.step(optimizer)` is handed."""
        passed = list(call.args) + [k.value for k in call.keywords if k.arg == "closure"]
        if len(passed) != 1 or len(call.args) + len(call.keywords) != 1:
            return False
        arg = passed[0]
        return isinstance(arg, ast.Lambda) or self._handed_closure(call, arg) is not None

    def _handed_closure(self, call: ast.Call, arg: ast.AST) -> Optional[ast.AST]:
        """The nested `def` that the name `arg`, handed to `call`, refers to (`_nested_function`)."""
        return self._nested_function(call, arg.id) if isinstance(arg, ast.Name) else None

    def _zero_grad_called(self, unit: ast.AST, receiver: Optional[str]) -> bool:
        return receiver is not None and any(
            isinstance(c.func, ast.Attribute) and c.func.attr == "zero_grad" and dotted(c.func.value) == receiver
            for c in self._calls_within(unit, skip_loops=False))

    def updates_parameters(self, call: ast.Call) -> bool:
        """Does the call update parameters: an optimizer's or a GradScaler's `step`, or a call
        handed a proven optimizer after a value that may carry a graph (`loss_scaler(loss,
        optimizer, parameters=...)`, `engine.update(loss, optimizer)`: the backward and the
        step run out of view)? Used to keep quiet, never to report."""
        if self.is_optimizer_step(call) or self.is_scaler_step(call):
            return True
        arguments = list(call.args) + [kw.value for kw in call.keywords]
        if not call.args or not any(self.value(a).kind == "optimizer" and self.value(a).name != "lr_scheduler"
                                    for a in arguments):
            return False
        # the loss comes first; `save_checkpoint(model, optimizer, epoch)` hands a module there
        first = self.value(call.args[0])
        if first.carries_graph:
            return True
        return first.kind == UNKNOWN_V.kind and not self._used_as_module(self.unit_of(call), dotted(call.args[0]))

    def _used_as_module(self, unit: ast.AST, name: Optional[str]) -> bool:
        """Is `name` switched, asked for parameters or saved like a module in the unit?"""
        if name is None:
            return False
        return any(isinstance(c.func, ast.Attribute) and dotted(c.func.value) == name
                   and c.func.attr in _MODULE_ONLY_METHODS for c in self._calls_within(unit, skip_loops=False))

    def is_scaler_step(self, call: ast.Call) -> bool:
        """`scaler.step(optimizer)` of an AMP GradScaler (also known by its `.scale(...)`)."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and func.attr == "step" and len(call.args) == 1):
            return False
        owner = dotted(func.value)
        unit = self.unit_of(call)
        return owner is not None and any(
            isinstance(c.func, ast.Attribute) and c.func.attr in ("scale", "update") and dotted(c.func.value) == owner
            for c in self._calls_within(unit, skip_loops=False))

    def step_ops_in(self, body_owner: ast.AST, direct_only: bool = True) -> List[ast.Call]:
        """Backward and optimizer-step calls in a loop or function, not counting those in a
        nested loop (when direct_only) or nested function."""
        out = []
        for call in self._calls_within(body_owner, skip_loops=direct_only):
            if self.is_training_backward(call) or self.is_optimizer_step(call) or self.is_scaler_step(call):
                out.append(call)
        return out

    def trains_only_modules_it_builds(self, func: ast.AST) -> bool:
        """Does every optimizer step of `func` step an optimizer it builds over the parameters
        of a module it builds (`probe = nn.Linear(d, k); opt = Adam(probe.parameters())`)? A
        probe trained on features handed in then updates no module those features came from."""
        def compute() -> bool:
            steps = [call for call in self._calls_within(func, skip_loops=False) if self.is_optimizer_step(call)]
            return bool(steps) and all(self._built_here_over_a_module_built_here(func, call.func.value)
                                       for call in steps)
        return self.cached(("trains_only_modules_it_builds", func), compute)

    def _built_here_over_a_module_built_here(self, func: ast.AST, optimizer: ast.AST) -> bool:
        made = self.value_bound_once(optimizer) if isinstance(optimizer, ast.Name) else None
        if not (isinstance(made, ast.Call) and self.unit_of(made) is func and made.args
                and (self.qualname(made.func) or "").startswith("torch.optim.")):
            return False
        params = made.args[0]
        if not (isinstance(params, ast.Call) and isinstance(params.func, ast.Attribute)
                and params.func.attr == "parameters" and not params.args):
            return False
        module = self.value_bound_once(params.func.value) if isinstance(params.func.value, ast.Name) else None
        return isinstance(module, ast.Call) and self.unit_of(module) is func \
            and self.value(module).kind == MODULE and ((self.qualname(module.func) or "").startswith("torch.nn.")
                                                       or isinstance(module.func, ast.Name) and module.func.id in self.classes)

    def runs_forward_each_iteration(self, loop: ast.AST) -> bool:
        """Does each iteration of this loop (outside its nested loops) call a model, one it did
        not draw from the loop, on what the previous iteration computed: the steps of a sampler
        (`for t in timesteps: v = self.transformer(latents, t); latents = sched.step(v, t,
        latents)`), of a generation? Not a loop over models (`for net in nets: net(x)`,
        `self.layers[i](x)`), nor independent trials (`for bs in sizes: model(torch.randn(bs,
        d))`), nor the layers walked inside a module's forward."""
        if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) or self._inside_module_forward(loop):
            return False
        drawn = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)} \
            if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
        reaching = self.reaching(self.unit_of(loop))
        for call in self._calls_within(loop, skip_loops=True):
            if self.value(call).kind == MODULE or not (self.value(call.func).kind == MODULE or self._module_method_forward(call)
                                                       or self._helper_runs_forward(call)):
                continue  # not a model (nor a method of one that runs its forward), or a constructor
            if drawn & {n.id for n in walk(call.func) if isinstance(n, ast.Name)}:
                continue
            inputs = [a for a in list(call.args) + [k.value for k in call.keywords]]
            # (an input kept on the object counts as a name does: `self.model.step(self.obs,
            # self.states)` with `self.states` rebound by the previous iteration's call)
            if any(isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load)
                   and read_of_earlier_iterations(self, reaching, n, loop) for a in inputs for n in walk(a)):
                return True
        return False

    def _helper_runs_forward(self, call: ast.Call) -> bool:
        """`self.agent.act(obs)` of a plain class of this file whose method calls the policy
        with autograd on (not decorated no-grad, not running its forwards only under no-grad)
        and gives back what it computed, graph included, without back-propagating anything:
        each call runs a forward, as a module's own method would (not `train_one_epoch(model,
        loader)`, a whole training pass, nor a function of the module)."""
        if not isinstance(call.func, ast.Attribute) or self.value(call.func).kind != FUNCTION \
                or not self.value(call).carries_graph:
            return False
        callee = self.resolve_call(call)
        return callee is not None and self.class_of(callee) is not None and not self.grad_off_decorated(callee) \
            and self.surely_runs_forward(callee) and not self.forwards_only_without_grad(callee) \
            and not self.step_ops_in(callee, direct_only=False) and not self.runs_training_step(callee)

    def _module_method_forward(self, call: ast.Call) -> bool:
        """`agent.select_action(state)`: a method of a module of a known class (of this file, or
        of another module from its summary) that runs a forward with autograd on; also of a
        module of unknown class when the one class defining the method says so
        (`policy.act_inference(obs)`, the only module class of the project with that method)."""
        if not isinstance(call.func, ast.Attribute):
            return False
        receiver = self.value(call.func.value)
        return receiver.kind == MODULE and self.method_runs_forward(receiver, call.func.attr, call) is True

    def is_training_backward(self, call: ast.Call) -> bool:
        """A backward that accumulates gradients into parameters (`loss.backward()`,
        `accelerator.backward(loss)`), not `torch.autograd.grad`, which returns gradients
        (Jacobian rows, input gradients) and is no training step by itself."""
        return self.backward_target(call) is not None and \
            self.qualname(call.func) not in ("torch.autograd.grad",)

    def _calls_within(self, owner: ast.AST, skip_loops: bool) -> Iterator[ast.Call]:
        """The calls in a loop's or function's body, with a call of each branch of a
        conditional callee (`_index_branch_calls`)."""
        branch_calls = self.branch_calls
        for node in nodes_within(owner, skip_loops):
            if isinstance(node, ast.Call):
                yield node
                if branch_calls and node in branch_calls:
                    yield from branch_calls[node]

    def runs_training_step(self, owner: ast.AST, depth: int = 0) -> bool:
        """Does this loop (or function) run a backward/optimizer step once per iteration,
        directly or through a function/method of this module that does so outside its
        own loops? An epoch loop whose callee loops over batches itself does not."""
        key = ("runs_step", owner)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = False
        answer = bool(self.step_ops_in(owner)) or any(self.step_ops_in(loop, direct_only=False)
                                                      for loop in self._optimizer_loops_in(owner))
        if not answer and self.project is not None:
            answer = any(self._project_step_call(call) for call in self._calls_within(owner, skip_loops=True))
        if not answer and depth < 3:
            for call in self._calls_within(owner, skip_loops=True):
                target = self._resolve_call_cheap(call)
                # an object of one of several classes (`Shared() if shared else Separate()`):
                # a step when every class's method runs one
                targets = [target] if target is not None else \
                    self._instance_call_targets(call) or self._parameter_callable_targets(call) \
                    or self._method_alias_targets(call)
                if targets and all(t is not owner and self.runs_training_step(t, depth + 1)
                                   and not self._steps_in_own_loop(t) for t in targets):
                    answer = True
                    break
                if target is not None and is_stub(target) and self._override_steps(target, depth):
                    answer = True  # `self.train_step(batch)`, abstract here, a step in the subclass
                    break
        self._memo[key] = answer
        return answer

    def _override_steps(self, stub: ast.AST, depth: int) -> bool:
        """Does an override of the abstract method `stub` run one training step per call: in a
        subclass of this module, or of another module (the project's `~ovr` index)?"""
        return self._an_override(stub, lambda override: self.runs_training_step(override, depth + 1)
                                 and not self._steps_in_own_loop(override), "step")

    def _an_override(self, stub: ast.AST, holds, flag: str) -> bool:
        """Does an override of the abstract method `stub` satisfy `holds` (in a subclass of this
        module) or carry `flag` in its summary (in a subclass of another module, `~ovr`)?"""
        info = self.method_class.get(stub)
        if info is None:
            return False
        for other in self.classes.values():
            override = other.methods.get(stub.name) if other is not info else None
            if override is not None and info.name in self.class_bases(other) and holds(override):
                return True
        path = self.objpath(stub)
        return bool(self.project is not None and path and any(site.get(flag) for site in self.project.overrides(path)))

    def runs_one_step_per_call(self, func: ast.AST) -> bool:
        """Does each call of `func` run a training step (a backward or an update, directly or
        through its callees, not inside a loop of its own over steps)? What another module's
        loop learns from its summary (`step`)."""
        return self.runs_training_step(func) and not self._steps_in_own_loop(func)

    def trains_in_own_loop(self, func: ast.AST) -> bool:
        """Does a call of `func` run a loop over training steps (`train_epoch`: forward,
        backward and update per batch)?"""
        return isinstance(func, FUNCTION_TYPES) and self._steps_in_own_loop(func)

    def is_epoch_loop(self, loop: ast.AST) -> bool:
        """A loop each iteration of which runs a loop over training steps in a function it
        calls (`for epoch in range(n): loss = self.train_epoch()`), of this module, an
        override of an abstract method, or another module's (from its summary, `ep`). What it
        keeps from one iteration to the next outlives every step of the later epochs. Also a
        loop whose body holds the loop over training steps itself (`for epoch in range(n):
        for batch in batches: ...; opt.step()`), not one over the optimizers or the parts of
        one step."""
        return self.cached(("epoch_loop", loop), lambda: any(
            self._runs_training_loop(call) for call in self._calls_within(loop, skip_loops=True)) or any(
            self.is_epoch_loop(inner) or self._steps_each_iteration(inner) for inner in self._loops_directly_within(loop)))

    def _steps_each_iteration(self, loop: ast.AST) -> bool:
        """Does each iteration of `loop` run an optimizer (or scaler) step of its own: a loop
        over training steps, not over the optimizers or the micro-batches of one update?"""
        if self.iterates_optimizers(loop) or self.accumulates_one_update(loop) or self.iterates_parts_of_one_graph(loop):
            return False
        # directly, or through a method it calls per item (`self.train_step(x, y)`)
        return any(self.is_optimizer_step(call) or self.is_scaler_step(call)
                   for call in self.step_ops_in(loop, direct_only=True)) or self.runs_training_step(loop)

    def _loops_directly_within(self, loop: ast.AST) -> List[ast.AST]:
        """The loops of `loop`'s body not inside another loop of it (a federated round's loop
        over clients, each of which trains in a loop of its own: the round is an epoch too)."""
        found, stack = [], list(body_nodes(loop)) + list(getattr(loop, "orelse", []))
        while stack:
            node = stack.pop()
            if isinstance(node, LOOP_TYPES):
                found.append(node)
            elif not isinstance(node, SCOPE_TYPES):
                stack.extend(child_nodes(node))
        return found

    def _runs_training_loop(self, call: ast.Call) -> bool:
        target = self._resolve_call_cheap(call)
        if target is not None:
            return self._an_override(target, self.trains_in_own_loop, "ep") if is_stub(target) \
                else self.trains_in_own_loop(target)
        return bool((self._project_function_entry(call) or {}).get("ep"))

    def _project_step_call(self, call: ast.Call) -> bool:
        """A call of a function (or a method of a class) of another module of the project
        whose summary says it runs one training step per call (`train_step(model, batch, opt)`,
        `finish_episode(policy, optimizer)`)."""
        if (self._project_function_entry(call) or {}).get("step"):
            return True
        # `agent.update(batch)` of an agent of one of several classes of another module: any
        # of their methods that runs a step
        receiver = self.value(call.func.value) if isinstance(call.func, ast.Attribute) else None
        if self.project is None or receiver is None or not receiver.alts:
            return False
        for name in receiver.alts:
            found = self.project.method_of(name, call.func.attr) if "." in name else None
            if found is not None and found[0] == "function" and isinstance(found[1], dict) and found[1].get("step"):
                return True
        return False

    def project_call_differentiates(self, call: ast.Call) -> bool:
        """A call of a function (or method) of another module of the project whose summary
        says it back-propagates, computes gradients or runs a training step (`trainer.train_step
        (batch)` of a pose optimiser an evaluation script runs)."""
        entry = self._project_function_entry(call) or {}
        return bool(entry.get("bw") or entry.get("grad") or entry.get("step")) or self._project_step_call(call)

    def _project_function_entry(self, call: ast.Call) -> Optional[dict]:
        """The summary entry of the function (or method) of another module of the project
        that `call` runs, or None."""
        if self.project is None:
            return None
        return self.project_function_entry_of(self.value(call.func))

    def project_function_entry_of(self, callee: Value) -> Optional[dict]:
        """The summary entry of the function (or method) of another module of the project
        that the callee value (`ref` to a first-party name) names, or None."""
        if self.project is None or callee.kind != "ref" or not callee.name or not self.project.is_first_party(callee.name):
            return None
        found = self.project.imported_summary(callee.name)
        if found is None and "." in callee.name:
            owner, _, method = callee.name.rpartition(".")
            found = self.project.method_of(owner, method)
        return found[1] if found is not None and found[0] == "function" and isinstance(found[1], dict) else None

    def _steps_in_own_loop(self, func: ast.AST) -> bool:
        """A function that loops over steps itself (`train_one_epoch`, even with a final
        `optimizer.step()` after its loop to flush accumulated gradients) runs once per
        epoch, not once per step. One whose parameter updates all sit outside its loops, with
        backwards inside them, is one update of accumulated micro-steps: once per step."""
        ops = self.step_ops_in(func, direct_only=False)
        if self._updates(ops) and not self._updates_in_loops(ops):
            return False
        updates = self._updates(ops)
        if any(not self.loops_around(op) for op in updates) and all(
                isinstance(loop, ast.For) and _counts(loop.iter) and not self.is_data_loop(loop)
                for op in updates for loop in self.loops_around(op)):
            return False  # an update every call (GAIL's discriminator), then a few more on the same
            # batch in a counted loop (PPO's epochs over one rollout): still a step per call
        # a loop over the optimizers of one step (a GAN's G then D), or over the parts of one
        # graph (the per-head losses of one forward), is no loop over steps
        return any(any(not (self.iterates_optimizers(loop) or self.iterates_parts_of_one_graph(loop))
                       for loop in self.loops_around(op)) for op in ops)

    def _updates(self, ops: List[ast.Call]) -> List[ast.Call]:
        return [op for op in ops if self.is_optimizer_step(op) or self.is_scaler_step(op)]

    def _updates_in_loops(self, ops: List[ast.Call]) -> bool:
        return any(self.loops_around(op) for op in self._updates(ops))

    def may_run_forward(self, func: ast.AST, depth: int = 0) -> bool:
        """Can calling this function of the module run a forward? Yes unless every call in
        it is proven not to: no module is called, no call gets a module, `self` or a tensor
        that requires grad (a parameter, a graph) as receiver or argument, and no function
        of the module it calls may run one. A helper that builds a module (`get_gru_cell`)
        or reshapes numpy arrays runs none; an opaque call handed the model may."""
        key = ("may_run_forward", func)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = True  # recursion: assume it may
        answer = any(self._call_may_run_forward(call, func, depth)
                     for call in self._calls_within(func, skip_loops=False))
        self._memo[key] = answer
        return answer

    def shown_as_cell_output(self, stmt: ast.AST) -> bool:
        """In a notebook, is `stmt` the expression that ends its cell? Jupyter keeps its value
        in `Out[n]` (and `_`) after the cell has run."""
        from torchleaklint.semantic.syntax import ends_a_notebook_cell

        if not self.source.startswith(CELL_MARKER_PREFIX):
            return False
        lines = self.cached(("source_lines",), lambda: self.source.split("\n"))
        return ends_a_notebook_cell(self.tree, lines, stmt)

    def surely_runs_forward(self, func: ast.AST, depth: int = 0) -> bool:
        """Is a forward proven to run when this function runs: a module called on something
        (`self.net(x)`, `self(x)`, not a constructor), a method of a module of a class not in
        view (`self.backbone.extract(x)`), or a function or method of this module that surely
        runs one? Not a module only handed to a call (`apply_fn(key, p, module)`,
        `torch_save_model(self.policy, path)`): that call may run a forward or may not
        (`may_run_forward` says may)."""
        key = ("surely_runs_forward", func)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = False  # recursion: what the other calls prove decides
        answer = any(self._call_surely_runs_forward(call, func, depth)
                     for call in self._calls_within(func, skip_loops=False))
        self._memo[key] = answer
        return answer

    def _call_surely_runs_forward(self, call: ast.Call, func: ast.AST, depth: int) -> bool:
        if not self._call_may_run_forward(call, func, depth):
            return False
        callee = self.value(call.func)
        if callee.kind == MODULE:
            return True  # `self.net(x)`, `model(batch)`
        if callee.kind == INSTANCE and callee.name in self.classes:
            # `self.prediction_strategy(x)`, an object of a plain class of this file: its `__call__`
            method = self.method(callee.name, "__call__")
            return method is not None and depth < 3 and self.surely_runs_forward(method, depth + 1)
        target = self._resolve_call_cheap(call)
        if target is not None and target is not func:
            return depth < 3 and self.surely_runs_forward(target, depth + 1)
        if target is None and self._function_of_another_module_surely_runs_forward(call):
            return True  # `search.beam_search(pn, ...)`, whose summary proves a forward
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        args = list(call.args) + [k.value for k in call.keywords]
        if target is None and (receiver is not None and self.value(receiver).requires_grad
                               or (self.qualname(call.func) or "").startswith("torch.")
                               and any(self.value(a).requires_grad for a in args)):
            return True  # tensor arithmetic on a parameter (`self.item_emb.weight.t()`) records a graph
        if receiver is None or target is not None:
            return False
        owner = self.value(receiver)
        if isinstance(receiver, ast.Name) and receiver.id == "self":
            # a method the module's class does not define (`self.predict(batch)` of a base whose
            # subclasses in other modules define it): a method of a module not in view
            info = self.class_of(func)
            return info is not None and self.is_module_class(info) \
                and call.func.attr not in torch_api.MODULE_BOOKKEEPING_METHODS \
                and call.func.attr not in torch_api.MODULE_SELF_METHODS
        if owner.kind != MODULE or call.func.attr in torch_api.MODULE_BOOKKEEPING_METHODS:
            return False
        if owner.name and "." in owner.name:
            return self.method_runs_forward(owner, call.func.attr) is True  # another module's class
        return not owner.name

    def _function_of_another_module_surely_runs_forward(self, call: ast.Call) -> bool:
        """A call of a first-party function of another module whose summary proves it runs a
        forward (it may run one, and does not merely hand a module on: no `fwd_maybe`)."""
        qual = self.qualname(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
        if not qual or self.project is None or not self.project.is_first_party(qual):
            return False
        found = self.project.imported_summary(qual)
        if found is None or found[0] != "function" or not isinstance(found[1], dict) or found[1].get("stub"):
            return False
        entry = found[1]
        if entry.get("nograd") or entry.get("fwd_off"):
            return False
        if not (entry.get("nofwd") or entry.get("fwd_maybe")):
            return True
        # (its summary could not type what it is handed: a module passed to a parameter it
        # drives, `beam_search(pn, ...)` calling `pn.transit(...)`, runs that module)
        params = summary_parameters(entry)
        info = self.class_of(self.unit_of(call))
        for position in entry.get("pcall", ()):
            given = argument_at(call, position, params)
            if given is None:
                continue
            if isinstance(given, ast.Name) and given.id == "self":
                if info is not None and self.is_module_class(info):
                    return True
            elif self.value(given).kind == MODULE and not self.value(given).frozen:
                return True
        return False

    def calls_a_module(self, func: ast.AST) -> bool:
        """Does the function call a module (`self.inp(x)`, `model(x)`: a forward of its own)?
        A method that only does arithmetic on what it is handed (a meter's `update(val)`, an
        EMA of a caller's outputs) calls none."""
        return any(self.value(call.func).kind == MODULE and self.value(call).kind != MODULE
                   for call in self._calls_within(func, skip_loops=False))

    def call_may_run_forward(self, call: ast.Call) -> bool:
        """Can this call run a forward (a module called, a function or method of this module
        that may run one, a call handed the module or a tensor that requires grad)?"""
        return self._call_may_run_forward(call, self.unit_of(call), 0)

    def _call_may_run_forward(self, call: ast.Call, func: ast.AST, depth: int) -> bool:
        if self.value(call).kind == MODULE:
            return False  # a constructor: `nn.GRUCell(...)`
        if isinstance(call.func, ast.Name) and call.func.id in _INERT_BUILTINS and \
                call.func.id not in self.module_functions and not self.imports.aliases.get(call.func.id):
            return False  # `hasattr(self, "scores")`, `len(self.layers)`: handed the module, runs no forward
        args = list(call.args) + [k.value for k in call.keywords]
        if torch_api.tensor_type_constructors(self.value(call.func)):
            # `self.Tensor(n, c, h, w)` with `self.Tensor = torch.cuda.FloatTensor if cuda else
            # torch.Tensor`: a tensor made, no forward
            return any(self.value(a).requires_grad for a in args)
        if self.value(call.func).kind == MODULE:
            # (not a frozen module on inputs that carry no graph: `clip(tokens)` records none)
            return not (self.value(call.func).frozen and not any(self.value(a).requires_grad for a in args))
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if receiver is not None and self.value(receiver).kind == MODULE and self.value(receiver).frozen \
                and not any(self.value(a).requires_grad for a in args):
            return False  # `self.clip_model.encode_text(tokens)` of a frozen CLIP
        target = self._resolve_call_cheap(call)
        if target is func:
            return False  # a recursive call runs what the function's other calls run
        if target is None and receiver is not None and call.func.attr in torch_api.MODULE_BOOKKEEPING_METHODS \
                and (isinstance(receiver, ast.Name) and receiver.id == "self" or self.value(receiver).kind == MODULE) \
                and not any(isinstance(a, ast.Lambda) for a in call.args):
            return False  # `self.named_modules()`, `model.state_dict()`: the module's bookkeeping
        if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls") and target is not None \
                and target is not func and getattr(target, "name", "") not in ("forward", "__call__"):
            receiver = None  # `self.get_predicted_antecedents(...)`: what that method does is in view
        if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls") and target is None \
                and self._calls_an_object_running_no_forward(call.func, depth):
            receiver = None  # `self.retokenizer(words)`: an object of a plain class the module holds,
            # whose `__call__` runs no forward, is called, not the module: what it is handed decides
        if receiver is not None and self._method_of_its_class_runs_no_forward(call, receiver):
            receiver = None
        if target is None and self._function_of_another_module_runs_no_forward(call):
            return False  # `scoring_utils.score(model=self, ...)`, whose forwards all run under no-grad
        inputs = ([receiver] if receiver is not None else []) + list(call.args) + [k.value for k in call.keywords]
        for expr in inputs:
            if isinstance(expr, ast.Name) and expr.id in ("self", "cls"):
                return True
            value = self.value(expr)
            if value.kind == MODULE or value.requires_grad:
                return True
        if target is not None and target is not func:
            return depth >= 3 or self.may_run_forward(target, depth + 1)
        return False

    def _function_of_another_module_runs_no_forward(self, call: ast.Call) -> bool:
        """A function of another module of the project whose summary says it runs no forward
        with autograd on (`nofwd`: none, or only under its own no-grad; `nograd`: decorated)."""
        callee = self.value(call.func)
        if self.project is None or callee.kind != REF or not callee.name:
            return False
        found = self.project.imported_summary(callee.name)
        return found is not None and found[0] == "function" and isinstance(found[1], dict) \
            and bool(found[1].get("nofwd") or found[1].get("nograd") or found[1].get("fwd_off"))

    def _calls_an_object_running_no_forward(self, func: ast.AST, depth: int) -> bool:
        """`self.retokenizer`, an object of a plain class (here or of another module of the
        project, or of one of a few) whose `__call__` is in view and runs no forward."""
        callee = self.value(func)
        names = [callee.name] if callee.name else list(callee.alts or ())
        if callee.kind != INSTANCE or not names:
            return False
        for name in names:
            if name in self.classes:
                method = self.method(name, "__call__")
                if method is None or depth >= 3 or self.may_run_forward(method, depth + 1):
                    return False
                continue
            found = self.project.method_of(name, "__call__") if self.project is not None and "." in name else None
            if found is None or not isinstance(found[1], dict) or not found[1].get("nofwd"):
                return False
        return True

    def method_runs_forward(self, receiver: Value, attr: str, call: Optional[ast.Call] = None) -> Optional[bool]:
        """Does calling method `attr` of the module `receiver` run a forward with autograd
        on? Known when the method is in view: a method of a class of this file (not when it
        is decorated `@torch.no_grad()` or provably runs no forward, nor when `call` leaves off
        the flags its forwards with autograd on need), or of a class of another module of the
        project (from its summary). None when it is not in view: a third-party `inference()`
        or `generate()` may turn autograd off itself."""
        if not receiver.name and receiver.alts:
            # one of several classes: a forward when any of them runs one, unknown when one is not in view
            # (not counting one of the project's classes that has no such method: the object is of another)
            answers = [self.method_runs_forward(Value(receiver.kind, name=name), attr, call) for name in receiver.alts
                       if not self._project_class_lacking(name, attr)]
            return True if any(answers) else None if None in answers or not answers else False
        if not receiver.name:
            if attr in ("forward", "__call__") or attr in _MODULE_ONLY_METHODS or attr in torch_api.MODULE_SELF_METHODS:
                return None  # every module has it: the one class of this file defining it says nothing
            owners = self.module_classes_defining(attr)
            if not owners and self.project is not None:
                # no class of this file has it: the module classes of the project that define it
                # (`policy.act_inference(obs)` in a play script importing nothing of the project)
                owners = [owner for owner in self.project.method_owners(attr)
                          if call is None or self._call_binds_method_of(owner, attr, call)]
                # (not a class whose method the call cannot bind: `english_decoder.decode(seq)` of
                # a third-party hub interface is no project `decode(self, src, tgt)`)
                if len(owners) > 1:
                    # (the object may be of a class that defines the name for something else:
                    # a forward only when every one of them runs one, else unknown)
                    answers = [self.method_runs_forward(Value(MODULE, name=name), attr, call) for name in owners]
                    return True if all(answers) else None
            if len(owners) != 1:
                return None  # ambiguous, or no class of this file has it: not in view
            receiver = Value(MODULE, name=owners[0])  # `decoder.sample(64)`, one module class defines `sample`
        if receiver.name in self.classes:
            method = self.method(receiver.name, attr)
            if method is None:
                return None
            if self.grad_off_decorated(method) or not self.may_run_forward(method) \
                    or self.forwards_only_without_grad(method):
                return False
            if not self.surely_runs_forward(method):
                return None  # it only hands the module to calls that may run a forward or may not
            return True if call is None else flags_decide_forward(call, self.forwards_with_grad_only_if(method))
        if "." in receiver.name and self.project is not None:
            found = self.project.method_of(receiver.name, attr)
            if found is not None and isinstance(found[1], dict) and not found[1].get("stub"):
                if found[1].get("nograd") or found[1].get("fwd_off") or found[1].get("nofwd"):
                    return False
                if found[1].get("fwd_maybe"):
                    return None
                return True if call is None else flags_decide_forward(call, decode_flags(found[1].get("fwd_if", ())))
        return None

    def _call_binds_method_of(self, class_qual: str, attr: str, call: ast.Call) -> bool:
        """Can `call` bind to the method `attr` of a class of another module (its summary):
        no more positional arguments than its parameters, only keywords it names, and every
        required parameter given? A call spreading `*args` / `**kw`, or a method not
        summarized, can."""
        from torchleaklint.semantic.syntax import summary_parameters, unpacks_arguments

        found = self.project.method_of(class_qual, attr) if self.project is not None else None
        if found is None or found[0] != "function" or not isinstance(found[1], dict) or unpacks_arguments(call):
            return True
        params = summary_parameters(found[1])
        if "req" not in found[1] and not params:
            return True
        keywords = {kw.arg for kw in call.keywords}
        required = params[:found[1].get("req", 0)]
        return len(call.args) <= len(params) and keywords <= set(params) and all(
            index < len(call.args) or name in keywords for index, name in enumerate(required))

    def _project_class_lacking(self, class_qual: str, attr: str) -> bool:
        """Is `class_qual` a class of another module of the project that has no method `attr`,
        its own or inherited, every base of it being of the project or `nn.Module`?"""
        if self.project is None or "." not in class_qual or self.project.method_of(class_qual, attr) is not None:
            return False
        found = self.project.imported_summary(class_qual)
        if found is None or found[0] != "class" or not isinstance(found[1], dict):
            return False
        return all(self.project.is_first_party(base) or base in _MODULE_BASES
                   for base in self.project.class_bases(class_qual))

    def callee_stores_on_its_object(self, call: ast.Call) -> Optional[str]:
        """The attribute of its object a method of this module that `call` runs stores into
        (`self.memory[src] = self.memory_updater(...)` in `memory.update_state(...)`), directly
        or in a method of the same object it calls: what it computes outlives the call even
        when the call's own result is dropped. None when it stores nothing or is not known."""
        callee = self.resolve_call(call)
        if callee is None:
            return self._stored_on_its_object_elsewhere(call)
        if not isinstance(callee, FUNCTION_TYPES) or self.class_of(callee) is None or callee.name in INIT_METHODS:
            return None
        return self.stores_on_its_object(callee, call)

    def stores_on_its_object(self, method: ast.AST, call: Optional[ast.Call] = None) -> Optional[str]:
        """The attribute of `self` the method stores a value into that may carry a graph (one
        proven to carry one first), directly or in a method of `self` it calls; None if none.
        A store behind a flag of the method (`if update_table: self.update_table()`) counts
        when `call` turns the flag on (without `call`: when its default does)."""
        return self.cached(("stores_on_its_object", method, call),
                           lambda: self._stores_on_self(method, 0, call or _CALL_WITH_DEFAULTS))

    def _stored_on_its_object_elsewhere(self, call: ast.Call) -> Optional[str]:
        """`callee_stores_on_its_object` for a module or object of a class of another module of
        the project: `net(x)` runs its class's `forward`, `agent.act(obs)` its `act`, and the
        summary of that method names what it stores on `self` (`sself`)."""
        if self.project is None:
            return None
        called = self.value(call.func)
        if called.kind == MODULE and called.name and "." in called.name:
            owner, method = called.name, "forward"
        elif isinstance(call.func, ast.Attribute) and self.value(call.func.value).kind in (MODULE, INSTANCE):
            owner, method = self.value(call.func.value).name, call.func.attr
        else:
            return None
        if not owner or "." not in owner or method in INIT_METHODS:
            return None
        found = self.project.method_of(owner, method)
        return found[1].get("sself") if found is not None and isinstance(found[1], dict) else None

    def _stores_on_self(self, func: ast.AST, depth: int, call: ast.Call) -> Optional[str]:
        """The first attribute of `self` that `func` stores a value into that may carry a graph
        (one proven to carry one first), directly or in a method of `self` it calls, on the
        paths `call`'s flags let run."""
        from torchleaklint.semantic.flags import flags_decide_forward

        receiver = self_name(func)
        flow = self.flow(func)
        if receiver is None or flow is None:
            return None
        found: List[Tuple[bool, int, str]] = []
        for node in nodes_within(func):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)) and \
                    flags_decide_forward(call, self.flag_guarding_call(node, func)) is False:
                continue  # behind a flag the call leaves off (`update_ip_table=False` by default)
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            stored = flow.values.get(getattr(node, "value", None), UNKNOWN_V)
            if targets and (stored.kind in (TENSOR, SCALAR, NONE) or _metadata_read(node.value)
                            or _empty_display(node.value) or self.grad_disabled_at(node)):
                continue  # (`self.count += 1`, graph-free values, `self.device = data.pos.device`,
                # `self.batch_constants = {}`, a store under no-grad or in a `@torch.no_grad()` method)
            for target in targets:
                for leaf in _target_leaves(target):
                    if isinstance(leaf, (ast.Attribute, ast.Subscript)) and _root_name(leaf) == receiver:
                        name = dotted(leaf.value if isinstance(leaf, ast.Subscript) else leaf) or receiver
                        found.append((not stored.carries_graph, node.lineno, name))
            if depth < 1 and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == receiver:
                inner = self.method(self.class_of(func).name, node.func.attr)
                if isinstance(inner, FUNCTION_TYPES) and inner is not func and not self.grad_off_decorated(inner) \
                        and not self.grad_disabled_at(node):
                    name = self._stores_on_self(inner, depth + 1, _CALL_WITH_DEFAULTS)
                    if name is not None:
                        found.append((True, node.lineno, name))
        return min(found)[2] if found else None

    def forward_call_records_no_graph(self, receiver: Value, call: ast.Call, evaluating: bool = False) -> bool:
        """Does calling the module `receiver` (`model(data, mode="inference")`) record no graph,
        by what its class's `forward` proves: decorated no-grad, every forward in it under
        no-grad, or the call's arguments taking it down its no-grad path? With `evaluating`
        (the module was switched to `.eval()`), also when every forward it runs with grad on
        runs only in training mode (`if self.training: ... else: self.infer_sequence(x)`, the
        inference path under no-grad). (A `forward` merely not proven to run parameters says
        nothing here.)"""
        if receiver.name in self.classes:
            forward = self.method(receiver.name, "forward")
            if forward is None:
                return False
            if self.grad_off_decorated(forward) or self.may_run_forward(forward) and self.forwards_only_without_grad(forward):
                return True
            if evaluating and self.forwards_with_grad_only_in_training(forward) or \
                    self.forwards_with_grad_only_through_unknown_callables(forward):
                return True  # (the latter: not proven to record one, so no claim that it does)
            flags = self.forwards_with_grad_only_if(forward)
            return bool(flags) and flags_decide_forward(call, flags) is False
        if receiver.name and "." in receiver.name and self.project is not None:
            found = self.project.method_of(receiver.name, "forward")
            if found is None or not isinstance(found[1], dict) or found[1].get("stub"):
                return False
            if found[1].get("nograd") or found[1].get("fwd_off") or evaluating and found[1].get("fwd_tr") \
                    or found[1].get("fwd_unk"):
                return True
            flags = decode_flags(found[1].get("fwd_if", ()))
            return bool(flags) and flags_decide_forward(call, flags) is False
        return False

    def forwards_with_grad_only_if(self, func: ast.AST) -> List[Tuple[str, Optional[int], bool, object]]:
        """The flags on which every forward of `func` that runs with autograd on depends:
        (name, argument position, the truth value that lets it run, the literal default), for
        parameters with a literal default (`if train: out = self.forward(x)`; `if eval: with
        torch.no_grad(): ...` / `else: out = self.encoder(x)`); empty when some such forward
        runs whatever the flags say, or none does."""
        def compute() -> List[Tuple[str, Optional[int], bool, object]]:
            # a flag has a literal default; a mode is any parameter compared with literals
            # (`forward(self, data, mode)`: `if mode == "inference": with torch.no_grad(): ...`)
            flags = _flags_with_literal_defaults(func)
            modes = {a.arg: a for a in named_parameters(func) if a.arg not in ("self", "cls")}
            if not modes:
                return []
            needed: Dict[Tuple[str, object], ast.arg] = {}
            for call in self._calls_within(func, skip_loops=False):
                if not self._call_runs_parameters(call, func) or self.grad_disabled_at(call):
                    continue  # (an op on what a forward returned records nothing more when that forward ran without grad)
                guard = self._flag_guarding(call, func, flags, modes)
                if guard is None:
                    return []
                needed[guard] = modes[guard[0]]
            return sorted(((name, self.argument_position(func, param), runs_when, _flag_default(func, param))
                           for (name, runs_when), param in needed.items()), key=repr)
        return self.cached(("forwards_with_grad_only_if", func), compute)

    def flag_guarding_call(self, call: ast.AST, func: ast.AST) -> List[Tuple[str, Optional[int], bool, object]]:
        """The flag (a parameter of `func` with a literal default: `compute_metrics=None`) the
        call runs under in `func`, as `forwards_with_grad_only_if` gives it: (name, argument
        position, the truth value that lets it run, the default); empty when none guards it."""
        flags = _flags_with_literal_defaults(func)
        if not flags:
            return []
        guard = self._flag_guarding(call, func, flags, flags)
        if guard is None:
            return []
        param = flags[guard[0]]
        return [(guard[0], self.argument_position(func, param), guard[1], _flag_default(func, param))]

    def _call_runs_parameters(self, call: ast.Call, func: ast.AST) -> bool:
        """Does the call run a module's parameters (`self.forward(x)`, `self.head(h)`,
        `F.linear(x, self.weight)`, a function of this module that may run a forward), not
        only ops on values computed before (`F.softmax(logits)`)?"""
        if self.value(call).kind == MODULE:
            return False
        if self.value(call.func).kind == MODULE:
            return True
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if receiver is not None and self._method_of_its_class_runs_no_forward(call, receiver):
            receiver = None
        for expr in ([receiver] if receiver is not None else []) + list(call.args) + [k.value for k in call.keywords]:
            if isinstance(expr, ast.Name) and expr.id in ("self", "cls") or self.value(expr).kind in (MODULE, LEAF):
                return True
        target = self._resolve_call_cheap(call)
        return target is not None and target is not func and self.may_run_forward(target)

    def _method_of_its_class_runs_no_forward(self, call: ast.Call, receiver: ast.expr) -> bool:
        """`self.head.compute_cluster_proto(feats, scores)`: a method of a part of a known
        class that runs no forward (a class of another module: its summary says so; of this
        one: the method is proven to run none); what it is handed decides."""
        value = self.value(receiver)
        if _of_other_modules_classes(value):
            return self.method_runs_forward(value, call.func.attr, call) is False
        if value.kind != MODULE or value.name not in self.classes:
            return False
        method = self.method(value.name, call.func.attr)
        return method is not None and method.name not in ("forward", "__call__") and \
            (self.grad_off_decorated(method) or not self.may_run_forward(method))

    def _flag_guarding(self, node: ast.AST, func: ast.AST, flags, modes) -> Optional[Tuple[str, object]]:
        """The flag `node` runs under and what it runs on: the test of an `if flag:` (or `if
        not flag:`, or `if mode == "train":`) whose body or else branch holds it."""
        child = node
        for anc in self.ancestors(node):
            early = self._after_an_early_return(anc, child, flags, modes)
            if early is not None:
                return early  # `if eval: with no_grad(): return ...` above it: runs when `eval` is false
            if anc is func:
                return None
            child = anc
            if not isinstance(anc, ast.If):
                continue
            flag = _flag_test(anc.test, flags, modes)
            if flag is None:
                continue
            name, on_true, on_false = flag
            if any(self.is_inside(node, stmt) or node is stmt for stmt in anc.body):
                return name, on_true
            if any(self.is_inside(node, stmt) or node is stmt for stmt in anc.orelse):
                return name, on_false
        return None

    @staticmethod
    def _after_an_early_return(owner: ast.AST, child: ast.AST, flags, modes) -> Optional[Tuple[str, object]]:
        """The flag of an `if flag:` (without `else`) that comes before `child` in one of
        `owner`'s statement lists and whose body always leaves (`return` / `raise` last), with
        what `child` runs on."""
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(owner, field, None)
            if not isinstance(stmts, list) or child not in stmts:
                continue
            for stmt in stmts[:stmts.index(child)]:
                if isinstance(stmt, ast.If) and not stmt.orelse and stmt.body \
                        and _always_leaves(stmt.body[-1]):
                    flag = _flag_test(stmt.test, flags, modes)
                    if flag is not None:
                        return flag[0], flag[2]  # runs when the test failed
        return None

    def forwards_only_without_grad(self, func: ast.AST) -> bool:
        """Does every call in `func` that may run a forward run with autograd off (`with
        torch.no_grad():` around the method's generation loop)? Then calling it records no
        graph, whatever its callers do."""
        # (asked again while it runs: it may run one with grad on)
        return self.settled_answer(("forwards_only_without_grad", func),
                                   lambda: not self._forwards_with_grad(func, first_only=True), False)

    def _forwards_with_grad(self, func: ast.AST, first_only: bool = False) -> List[ast.Call]:
        """The calls in `func` that may run a forward with autograd on: not under no-grad, not
        of a function of this module that runs its forwards without grad (the first only, with
        `first_only`)."""
        found = []
        for call in self._calls_within(func, skip_loops=False):
            if self._call_may_run_forward(call, func, 0) and not self.grad_disabled_at(call) \
                    and not self._callee_runs_without_grad(call, func):
                found.append(call)
                if first_only:
                    break
        return found

    def forwards_with_grad_only_in_training(self, func: ast.AST) -> bool:
        """Does every call in `func` that may run a forward with autograd on run only in
        training mode: in the body of `if self.training:` (or the else of `if not
        self.training:`)? The module switched to `.eval()` then records no graph through it."""
        receiver = self_name(func) if isinstance(func, FUNCTION_TYPES) else None

        def compute() -> bool:
            grad_on = self._forwards_with_grad(func)
            return receiver is not None and bool(grad_on) and \
                all(self._only_in_training(call, func, receiver) for call in grad_on)
        return self.settled_answer(("forwards_with_grad_only_in_training", func), compute, False)

    def forwards_with_grad_only_through_unknown_callables(self, func: ast.AST) -> bool:
        """Is every call in `func` that may run a forward with autograd on a call of an
        attribute of `self` that is no method and whose value nothing in view tells
        (`x = self.input_transform(x)`, a callable handed to `__init__`), the module's own
        layers running under no-grad? Whether calling it records a graph is then unknown."""
        receiver = self_name(func) if isinstance(func, FUNCTION_TYPES) else None
        info = self.class_of(func)
        if receiver is None or info is None:
            return False

        def compute() -> bool:
            from torchleaklint.semantic.dataflow import class_attribute_value

            grad_on = self._forwards_with_grad(func)
            return bool(grad_on) and all(
                isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                and call.func.value.id == receiver and self.method(info.name, call.func.attr) is None
                and self._function_parameter_kept(info, call.func.attr)
                and class_attribute_value(self, info.name, call.func.attr).kind == UNKNOWN_V.kind
                and not any(self.value(a).requires_grad or self.value(a).kind == MODULE
                            for a in list(call.args) + [k.value for k in call.keywords])
                for call in grad_on)
        return self.settled_answer(("forwards_through_unknown", func), compute, False)

    def _function_parameter_kept(self, info, attr: str) -> bool:
        """Is `self.<attr>` only ever bound to an `__init__` parameter whose default is a
        function (`input_transform=lambda x: x`): a callable meant as a function, handed in?"""
        init = info.methods.get("__init__")
        if init is None:
            return False
        stores = [node for method in info.methods.values() for node in walk(method)
                  if isinstance(node, ast.Assign) and any(
                      isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name)
                      and t.value.id == self_name(method) for t in node.targets)]
        if not stores:
            return False
        for store in stores:
            if not (isinstance(store.value, ast.Name) and self.unit_of(store) is init):
                return False
            param = next((a for a in named_parameters(init) if a.arg == store.value.id), None)
            if param is None or not isinstance(default_of(init, param), ast.Lambda):
                return False
        return True

    def _only_in_training(self, node: ast.AST, func: ast.AST, receiver: str) -> bool:
        return self._only_when_set(node, func, receiver, "training")

    def _only_when_set(self, node: ast.AST, func: ast.AST, receiver: str, attr: str) -> bool:
        """Does `node` run only when `self.<attr>` is true: in the body of `if self.<attr>:`
        (the else of `if not self.<attr>:`), or after `if not self.<attr>: return ...`?"""
        child = node
        for anc in self.ancestors(node):
            if isinstance(anc, ast.If):
                test, wanted = anc.test, any(child is s for s in anc.body)
                if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                    test, wanted = test.operand, not wanted
                if wanted and _is_self_attribute(test, receiver, attr):
                    return True
            for field in ("body", "orelse", "finalbody"):  # (the function's own body too)
                block = getattr(anc, field, None)
                if isinstance(block, list) and any(s is child for s in block):
                    earlier = block[:next(i for i, s in enumerate(block) if s is child)]
                    if any(isinstance(s, ast.If) and not s.orelse and s.body and isinstance(s.body[-1], (ast.Return, ast.Raise))
                           and isinstance(s.test, ast.UnaryOp) and isinstance(s.test.op, ast.Not)
                           and _is_self_attribute(s.test.operand, receiver, attr) for s in earlier):
                        return True  # `if not self.trainable: return self.inference(x)` above
            if anc is func:
                return False
            child = anc
        return False

    def forward_gate(self, info: ClassInfo) -> Optional[Tuple[str, int]]:
        """(parameter, position after self) of `__init__` that decides whether the class's
        `forward` records a graph: `self.trainable = trainable` (default False), and every
        forward of `forward` that runs with autograd on runs only when `self.trainable` is
        true, the other path under no-grad (`if not self.trainable: return self.inference(x)`,
        `inference` decorated `@torch.no_grad()`). Built without it (or with a false literal),
        the module records no graph of its own. Nothing else may set the attribute. (Asked at
        every construction: memoized; asked again while it runs, no gate.)"""
        return self.settled_answer(("forward_gate", info.name), lambda: self._forward_gate(info), None)

    def _forward_gate(self, info: ClassInfo) -> Optional[Tuple[str, int]]:
        init, forward = self.method(info.name, "__init__"), self.method(info.name, "forward")
        if not isinstance(init, FUNCTION_TYPES) or not isinstance(forward, FUNCTION_TYPES):
            return None  # (inherited from a class of this module: its own; of another: not known here)
        receiver = self_name(forward)
        params = [a.arg for a in positional_parameters(init)[1:]]
        for stmt in init.body:
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            if not (isinstance(target, ast.Attribute) and isinstance(stmt.value, ast.Name)
                    and _is_self_attribute(target, self_name(init), target.attr)):
                continue
            attr, param = stmt.targets[0].attr, stmt.value.id
            arg = next((a for a in named_parameters(init) if a.arg == param), None)
            default = default_of(init, arg) if arg is not None else None
            if attr == "training" or not (isinstance(default, ast.Constant) and default.value is False):
                continue
            if sum(1 for n in self.by_type.get(ast.Attribute, ()) if n.attr == attr and isinstance(n.ctx, ast.Store)) != 1 or \
                    (self.project is not None and self.project.attribute_stored_from_outside(attr)):
                continue  # (`net.trainable = True` elsewhere: the setting is not the construction's)
            grad_on = self._forwards_with_grad(forward)
            if receiver is not None and grad_on and all(self._only_when_set(c, forward, receiver, attr) for c in grad_on):
                return param, params.index(param) if param in params else -1
        return None

    def _callee_runs_without_grad(self, call: ast.Call, func: ast.AST) -> bool:
        """A call of a function of this module that records no graph whatever its caller does:
        decorated `@torch.no_grad()` (`output = self.predict()` in `test()`), or running every
        forward it may run under no-grad itself."""
        target = self._resolve_call_cheap(call)
        if target is None or target is func or not isinstance(target, FUNCTION_TYPES):
            return False
        return self.grad_off_decorated(target) or self.forwards_only_without_grad(target)

    def grad_set_by_own_setting(self, func: ast.AST) -> bool:
        """Does `func` turn autograd off on the path an attribute of its object chooses, every
        forward it runs with grad on being on the other path (`if self.no_grad: with
        torch.no_grad(): x = self._forward(x)` / `else: x = self._forward(x)`, an upstream
        wrapper built with a `no_grad` option)? Whether calling it records a graph is then the
        object's setting, out of the caller's view."""
        def compute() -> bool:
            receiver = self_name(func) if isinstance(func, FUNCTION_TYPES) else None
            if receiver is None:
                return False
            grad_on = None  # the forwards it runs with autograd on, found once
            for node in walk(func):
                if not (isinstance(node, ast.If) and _tests_own_attribute(node.test, receiver)):
                    continue
                off_body = any(self._switches_off(s) for s in node.body)
                off_else = any(self._switches_off(s) for s in node.orelse)
                if off_body == off_else:
                    continue
                on_branch = node.orelse if off_body else node.body
                if grad_on is None:
                    grad_on = [call for call in self._calls_within(func, skip_loops=False)
                               if self._call_may_run_forward(call, func, 0) and not self.grad_disabled_at(call)]
                if grad_on and all(any(self.is_inside(call, s) for s in on_branch) for call in grad_on):
                    return True
            return False
        return self.cached(("grad_set_by_own_setting", func), compute)

    def _switches_off(self, stmt: ast.AST) -> bool:
        """A `with torch.no_grad():` (or inference_mode) statement."""
        return isinstance(stmt, (ast.With, ast.AsyncWith)) and any(
            self._grad_off_context(item.context_expr) for item in stmt.items)

    def module_classes_defining(self, attr: str) -> List[str]:
        """The nn.Module classes of this file that define (not inherit) method `attr`."""
        def index() -> Dict[str, List[str]]:
            out: Dict[str, List[str]] = {}
            for name, info in self.classes.items():
                if self.is_module_class(info):
                    for method in info.methods:
                        out.setdefault(method, []).append(name)
            return out
        return self.cached(("module_classes_by_method",), index).get(attr, [])

    def classes_defining_all(self, attrs) -> List[str]:
        """The classes of this file that define (not inherit) every name in `attrs`, as a
        method or as an attribute their methods store on `self` (`self.cell = nn.GRUCell(...)`,
        then `model.cell(x, h)`)."""
        def index() -> Dict[str, Set[str]]:
            out: Dict[str, Set[str]] = {}
            for name, info in self.classes.items():
                for method in info.methods:
                    out.setdefault(method, set()).add(name)
                for method in info.methods.values():
                    receiver = self_name(method)
                    for node in nodes_within(method):
                        if isinstance(node, ast.Assign):
                            for target in node.targets:
                                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                                        and target.value.id == receiver:
                                    out.setdefault(target.attr, set()).add(name)
            return out
        by_method = self.cached(("classes_by_method",), index)
        owners = None
        for attr in attrs:
            found = by_method.get(attr, set())
            owners = set(found) if owners is None else owners & found
            if not owners:
                return []
        return sorted(owners or ())

    def method_trained_through(self, attr: str) -> bool:
        """Is a method of this name called somewhere in the file, with autograd on, whose
        result a backward of the same function differentiates (`logits = model.classify(x)`
        in the training loop)? Then the method builds a graph: it is no `@torch.no_grad()`
        inference helper, whatever its class."""
        return self.cached(("method_trained_through", attr), lambda: any(
            self._result_back_propagated_here(call) for call in self.calls
            if isinstance(call.func, ast.Attribute) and call.func.attr == attr))

    def _result_back_propagated_here(self, call: ast.Call) -> bool:
        unit = self.unit_of(call)
        if self.grad_disabled_at(call) or not self.backward_calls_in(unit):
            return False
        return any(self.feeds_backward(unit, name) for name in self._bound_by_statement_of(call))

    def has_backward_within(self, owner: ast.AST) -> bool:
        return any(self.backward_target(c) is not None for c in self._calls_within(owner, skip_loops=False))

    def is_data_loop(self, loop: ast.AST) -> bool:
        """Is `loop` a loop over batches (`_is_data_loop`)? Memoized only once no data flow is
        being computed: an answer read from provisional values must not become final."""
        key = ("is_data_loop", loop)
        found = self._memo.get(key)
        if found is not None:
            return found
        answer = self._is_data_loop(loop)
        if self._settled():
            self._memo[key] = answer
        return answer

    def _batch_generator(self, iterable: ast.AST) -> bool:
        """A call of a generator function of this module whose `yield`s are in a loop over
        the batches of a tensor (`for i in range(0, x.size(0), bs): yield x[i:i + bs]`)."""
        if not isinstance(iterable, ast.Call):
            return False
        func = self._resolve_call_cheap(iterable)
        if not isinstance(func, FUNCTION_TYPES):
            return False
        return self.cached(("batch_generator", func), lambda: any(
            isinstance(node, (ast.For, ast.AsyncFor)) and _strided_batch_loop(node) == "rows"
            and any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in walk(node))
            for node in nodes_within(func)))

    def _settled(self) -> bool:
        return not self._in_progress and not self._frames

    def _is_data_loop(self, loop: ast.AST) -> bool:
        """A loop over batches: its iterable is a DataLoader/Dataset (possibly wrapped in
        enumerate/tqdm/zip), or an iterable of unknown kind whose items are fed to a model
        call as its input. Loops over tensor slices (`x.split(1)`, time steps), over
        modules (`self.blocks`) or over ranges are not. Also a `while` loop drawing its item
        with `next(...)` from such an iterable (`_draws_batches`)."""
        if isinstance(loop, ast.While):
            return self._draws_batches(loop)
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return False
        iterable = loop.iter
        value = self.value(iterable)
        if self._iterates_a_loader(iterable, value):
            return True  # also `enumerate(loader)`, `tqdm(loader)`, `zip(loader_a, loader_b)`
        if value.kind == "sequence" and value.elem is not None and _yields_data(value.elem):
            return True
        strided = _strided_batch_loop(loop)
        if strided == "rows":
            # `for i in range(0, len(xs), bs): batch = xs[i:i + bs]`; not the chunks of one input
            # a module's method feeds its network piece by piece (NeRF's `n_max_network_queries`
            # points at a time), with no backward nor update in the loop
            return not (self._runs_within_a_forward(self.unit_of(loop)) and not self.has_backward_within(loop)
                        and not self.step_ops_in(loop))
        if strided == "step":
            # `for i in range(0, 64, 16): xb = feats[i:i + 16]`, the bound not a row count: batches
            # when each piece is back-propagated (not a loss computed chunk by chunk and concatenated)
            return self.has_backward_within(loop) or bool(self.step_ops_in(loop))
        if self._batch_generator(iterable):
            return True  # `for x0 in self._batches(self.val_x)`, a generator yielding such slices
        if self._indexes_a_dataset(loop):
            return True  # `for i in range(len(dataset)): x = dataset[i]`: its items, one per iteration
        if not _may_hold_batches(value):
            return False
        if self._inside_module_forward(loop):
            return False
        if _chunks_of_a_batch(iterable):
            # `for tile in tiles.split(8)`: chunks of inputs fed to a forward, no backward in the
            # loop (an inference pass in pieces, not the micro-batches of one update)
            if self.has_backward_within(loop):
                return False
        elif _is_range_like(iterable, self) or _is_slicing(iterable) or self._iterates_tensors(iterable) \
                or self._iterates_bound_slices(iterable):
            return False
        targets = {n.id for n in walk(_item_target(loop)) if isinstance(n, ast.Name)
                   and self.value(n).kind not in ("scalar", MODULE)}
        if targets and self._hands_item_to_a_step(loop, targets):
            return True  # `loss = self.train_step(batch)`, each call one update on the item
        if not targets or not self._batch_shaped(loop, targets):
            return False
        if _rooted_at_self(iterable) and not (self._moves_to_device(loop, targets) or self.step_ops_in(loop)) \
                and not _list_of_non_modules(value):
            return False  # `self.blocks`, `self.heads.items()`: parts of the model, unless moved like a batch
            # (a list the object holds, of anything but modules, is decided by what the loop feeds)
        return self._feeds_items_to_a_model(loop, targets)

    def _iterates_a_loader(self, iterable: ast.AST, value: Value) -> bool:
        """Is `iterable` (whose value is `value`) a DataLoader or Dataset, or one wrapped in
        `enumerate`, `tqdm`, `zip`, `iter`?"""
        return value.kind in ("dataloader", "dataset") or any(
            self.value(inner).kind in ("dataloader", "dataset") for inner in _wrapped_iterables(iterable))

    def _draws_batches(self, loop: ast.While) -> bool:
        """`while True: data = next(batches).to(device)` (the `StopIteration` caught around
        it): each iteration draws one item of `batches`, an iterator over a DataLoader or
        Dataset, or over items of unknown kind that look like batches (moved to a device, or
        drawn in a function that switches a model's mode) and are fed to a model's forward."""
        drawn = _drawn_by_next(loop)
        if drawn is None or self._inside_module_forward(loop):
            return False
        iterator, target = drawn
        value = self.value(iterator)
        if self._iterates_a_loader(iterator, value):
            return True
        if not _may_hold_batches(value):
            return False
        targets = {n.id for n in walk(target) if isinstance(n, ast.Name) and self.value(n).kind not in ("scalar", MODULE)}
        if not targets or not (self._switches_a_model_mode(self.unit_of(loop)) or self._moves_to_device(loop, targets)
                               or self.step_ops_in(loop) or self._hands_items_whole_to_a_forward(loop, targets)):
            return False
        return self._feeds_items_to_a_model(loop, targets)

    def _feeds_items_to_a_model(self, loop: ast.AST, targets: Set[str]) -> bool:
        """Is an item the loop draws (`targets`, or what is computed from them) an input of a
        model call in its body, not what picks the model (`embeddings[feat.name](x)`)? Also
        through a comprehension over them (`[model(v) for v in views]`, `views` the flips of
        the batch)."""
        targets = self.derived_names(loop, targets)
        targets |= _comprehension_targets_over(loop, targets)
        calls = list(self._calls_within(loop, skip_loops=True)) + self._calls_in_repeat_loops(loop)
        for call in calls:
            if not self._calls_a_module(call) or not _input_args(call) or _names_in(call.func) & targets:
                continue  # (`embeddings[feat.name](x)`: the item picks a part of the model, it is no batch)
            if self.classes_hold_no_parameters(self.value(call.func)):
                continue  # a Dice score module over each stored prediction: a metric, no model's forward
            used = {n.id for a in _input_args(call) for n in walk(a) if isinstance(n, ast.Name)}
            if used & targets:
                return True
        return any(self._hands_item_to_a_forward(call, targets) or self._hands_item_to_a_module_method(call, targets)
                   for call in calls)

    def _hands_item_to_a_module_method(self, call: ast.Call, targets: Set[str]) -> bool:
        """`model.sample(obs)`: the item handed to a method of a module that runs a forward with
        autograd on (of a class of this module or, from its summary, of another one)."""
        return isinstance(call.func, ast.Attribute) and call.func.attr != "forward" and any(
            isinstance(n, ast.Name) and n.id in targets for a in _input_args(call) for n in walk(a)) \
            and self._module_method_forward(call)

    def _calls_a_module(self, call: ast.Call) -> bool:
        """`model(x)` or `model.forward(x)` on a module."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "forward":
            func = func.value
        return self.value(func).kind == MODULE

    def _hands_item_to_a_step(self, loop: ast.AST, targets: Set[str]) -> bool:
        """Does the loop hand its item, as the only argument, to a function or method of this
        module each call of which is one training step (a backward and an optimizer update
        outside loops of its own: `self.train_step(batch)`)? The item is then a batch."""
        for call in self._calls_within(loop, skip_loops=True):
            if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Name) \
                    or call.args[0].id not in targets:
                continue
            func = self._resolve_call_cheap(call)
            if isinstance(func, FUNCTION_TYPES) and self.steps_once_per_call(func) and \
                    any(self.is_optimizer_step(c) for c in self.step_ops_in(func)):
                return True
        return False

    def _range_iterated(self, iterable: ast.AST) -> ast.AST:
        """The `range(...)` a loop walks through a progress bar or a name bound to it once
        (`rng = range(len(dataset) - h)`, then `for i in tqdm(rng, desc='Snapshot')`)."""
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, (ast.Name, ast.Attribute)) and \
                (iterable.func.id if isinstance(iterable.func, ast.Name) else iterable.func.attr) in ("tqdm", "trange"):
            inner = list(_wrapped_iterables(iterable))
            iterable = inner[0] if len(inner) == 1 else iterable
        if isinstance(iterable, ast.Name):
            return self.value_bound_once(iterable) or iterable
        return iterable

    def value_bound_once(self, name: ast.Name) -> Optional[ast.expr]:
        """The value of `name = value` when that plain assignment is the one definition
        reaching this read (`rng` of `rng = range(n)`, `rnn` of `rnn = nn.LSTM(...)`), or the
        matching element of `a, name = x, value`."""
        stmts = {id(s): s for s in map(self.statement_of, self.reaching(self.unit_of(name)).definitions(name))}
        if len(stmts) != 1:
            return None
        stmt = next(iter(stmts.values()))
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            return None
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Name):
            return value
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            return next((v for t, v in zip(target.elts, value.elts) if isinstance(t, ast.Name) and t.id == name.id), None)
        return None

    def _indexes_a_dataset(self, loop: ast.AST) -> bool:
        """`for i in range(len(dataset))` (or `range(1, len(dataset))`) over a Dataset whose item
        `dataset[i]` the loop reads: a pass over the data set's items."""
        it = self._range_iterated(loop.iter)
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and 1 <= len(it.args) <= 2 and isinstance(loop.target, ast.Name)):
            return False
        bound = it.args[-1]
        if isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Sub):
            bound = bound.left  # `range(len(dataset) - horizon)`: all but the last few items
        if not (isinstance(bound, ast.Call) and isinstance(bound.func, ast.Name) and bound.func.id == "len"
                and len(bound.args) == 1 and dotted(bound.args[0]) is not None):
            return False
        source = dotted(bound.args[0])
        items = [n for n in nodes_within(loop) if isinstance(n, ast.Subscript) and dotted(n.value) == source
                 and isinstance(n.slice, ast.Name) and n.slice.id == loop.target.id]
        if not items:
            return False
        if self.value(bound.args[0]).kind == "dataset":
            return True
        # a collection of unknown kind whose items the loop feeds to a model (graph snapshots:
        # `batch = dataset[i].clone()`, then `model(batch)`): a name handed in or made here, in
        # code outside a model's methods (whose loops walk the parts of one input: `sources[i]`
        # of a detector's heads, `self.img_gen[i]` of one step's outputs)
        if not isinstance(bound.args[0], ast.Name) or self._in_model_code(loop):
            return False
        if any(isinstance(n, ast.Subscript) and dotted(n.value) == source and isinstance(n.slice, ast.BinOp)
               for n in nodes_within(loop)):
            return False  # `t[i + 1] - t[i]`: neighbouring points of one sequence (time steps), not items
        taken = {n.id for item in items for stmt in [self.statement_of(item)]
                 if isinstance(stmt, ast.Assign) and _item_itself(stmt.value, item)
                 for t in stmt.targets for n in walk(t) if isinstance(n, ast.Name)}
        return bool(taken) and self._feeds_a_forward(loop, taken, depth=2)

    def _calls_in_repeat_loops(self, loop: ast.AST) -> List[ast.Call]:
        """Calls in the loops nested in `loop` that repeat work on its item a counted number of
        times (`for s_step in range(self.s_steps):` several updates on one batch), not loops
        over data of their own (`for i in range(0, n, bs)` slicing batches)."""
        out = []
        for inner in (n for n in nodes_within(loop, False) if isinstance(n, (ast.For, ast.AsyncFor)) and n is not loop):
            between = [l for l in self.loops_around(inner) if self.is_inside(l, loop) and l is not loop] + [inner]
            if all(isinstance(l, (ast.For, ast.AsyncFor)) and _is_range_like(l.iter, self) and _strided_batch_loop(l) != "rows"
                   for l in between):
                out.extend(self._calls_within(inner, skip_loops=True))
        return out

    def is_batch_item(self, expr: ast.AST) -> bool:
        """Is `expr` a name for the batch of an enclosing loop over batches (its target, or
        what the body binds to it unpacked, indexed or moved: `x, y = x.to(device),
        y.to(device)`)? Data, no graph."""
        if not isinstance(expr, ast.Name):
            return False
        for loop in self.loops_around(expr):
            if not isinstance(loop, (ast.For, ast.AsyncFor)):
                continue
            key = ("batch_names", loop)
            names = self._memo.get(key)
            if names is None:
                names = self._batch_names(loop)
                if self._settled():
                    self._memo[key] = names
            if expr.id in names:
                return True
        return False

    def loop_item_of(self, expr: ast.AST) -> Optional[ast.AST]:
        """The enclosing `for` loop whose item `expr` is, as the loop binds it (or a copy of it:
        `real.clone()`, `x.float()`), when every definition reaching it is that binding; None
        otherwise. What it holds comes from the iterable, made before the loop ran."""
        while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _DATA_COPIES:
            expr = expr.func.value
        if not isinstance(expr, ast.Name):
            return None
        definitions = self.reaching(self.unit_of(expr)).definitions(expr)
        for loop in self.loops_around(expr):
            if isinstance(loop, (ast.For, ast.AsyncFor)) and definitions and all(
                    any(d is n for n in walk(loop.target)) for d in definitions):
                return loop
        return None

    def _batch_names(self, loop: ast.AST) -> Set[str]:
        if not self.is_data_loop(loop):
            return set()
        return _moved_batch_names(loop, {n.id for n in walk(_item_target(loop)) if isinstance(n, ast.Name)})

    def _hands_item_to_a_forward(self, call: ast.Call, targets: Set[str], depth: int = 0,
                                 modules: Set[str] = frozenset()) -> bool:
        """`self.iter_one_batch(batch)`: a function or method of this module handed the item,
        whose body feeds that parameter (or what it computes from it) to a model as its input,
        itself or through functions of this module it hands it to in turn (`batch_loss(model,
        images, ...)` calling `_batch_loss`, which runs `model(images)`), a few calls deep. A
        model is a module by its value, or a parameter this chain of calls hands a module
        (`modules`: the caller's names that hold one). A method abstract here
        (`self.val_step(epoch, i, batch)` of a trainer base class) hands it on to what its
        overrides feed to a model, in subclasses of this module or of another (`fwdp`)."""
        if not any(isinstance(n, ast.Name) and n.id in targets for a in call.args for n in walk(a)):
            return False
        func = self.resolve_call(call)
        if not isinstance(func, FUNCTION_TYPES):
            return False
        params = positional_parameters(func)
        skip = 1 if isinstance(call.func, ast.Attribute) and params and params[0].arg in ("self", "cls") else 0
        positions = {i for i, a in enumerate(call.args)
                     if i + skip < len(params) and any(isinstance(n, ast.Name) and n.id in targets for n in walk(a))}
        if not positions:
            return False
        if is_stub(func) and skip:
            return self._an_override_feeds(func, positions, depth)

        def holds_a_module(arg: ast.AST) -> bool:
            return isinstance(arg, ast.Name) and arg.id in modules or self.value(arg).kind == MODULE
        given = {params[i + skip].arg for i, a in enumerate(call.args) if i + skip < len(params) and holds_a_module(a)} | \
            {kw.arg for kw in call.keywords if kw.arg and holds_a_module(kw.value)}
        return self._feeds_a_forward(func, {params[i + skip].arg for i in positions}, depth, given)

    def _feeds_a_forward(self, func: ast.AST, handed: Set[str], depth: int = 0,
                         given: Set[str] = frozenset(), flows=None) -> bool:
        """Does `func` feed one of its parameters `handed` (or what it computes from them) to
        a model as its input, itself or through the functions of this module it hands them
        to, a few calls deep? `given`: its parameters that hold a module."""
        derived = self.derived_names(func, handed, flows)
        for inner in self._calls_within(func, skip_loops=False):
            model = self.value(inner.func).kind == MODULE or isinstance(inner.func, ast.Name) and inner.func.id in given
            if model and _input_args(inner) and \
                    {n.id for a in _input_args(inner) for n in walk(a) if isinstance(n, ast.Name)} & derived:
                return True
        return depth < 2 and any(self._hands_item_to_a_forward(inner, derived, depth + 1, given)
                                 for inner in self._calls_within(func, skip_loops=False))

    def parameters_fed_to_a_forward(self, func: ast.AST) -> List[int]:
        """The positions (after `self`) of a method's parameters that it feeds to a model:
        what a base class's loop, handing its batch to the abstract method this one
        overrides, learns from the summary (`fwdp`)."""
        params = positional_parameters(func)[1:]
        # (its own body only: the summary is computed for every method of such classes, and
        # following callees would analyze them all; the abstract base's loop needs no more)
        flows = self.data_flows(func)
        return [i for i, p in enumerate(params) if self._feeds_a_forward(func, {p.arg}, depth=2, flows=flows)]

    def _an_override_feeds(self, stub: ast.AST, positions: Set[int], depth: int) -> bool:
        """Does an override of the abstract method `stub` feed the parameter at one of
        `positions` (after `self`) to a model: in a subclass of this module, or of another
        module (its summary's `fwdp`, in the project's `~ovr` index)?"""
        info = self.method_class.get(stub)
        if info is None or depth >= 2:
            return False
        for other in self.classes.values():
            override = other.methods.get(stub.name) if other is not info else None
            if override is None or info.name not in self.class_bases(other) or is_stub(override):
                continue
            params = positional_parameters(override)[1:]
            if self._feeds_a_forward(override, {params[i].arg for i in positions if i < len(params)}, depth + 1):
                return True
        path = self.objpath(stub)
        return bool(self.project is not None and path and any(
            positions & set(site.get("fwdp") or ()) for site in self.project.overrides(path)))

    def is_data_comprehension(self, comp: ast.AST) -> bool:
        """A comprehension over batches: one of its generators walks a DataLoader/Dataset, or
        an iterable of unknown kind whose items the element feeds to a model as its input
        (`[probe.encode(x) for x, _ in loader]`), as a loop over batches does."""
        elt = comp.value if isinstance(comp, ast.DictComp) else comp.elt
        if self._inside_module_forward(comp):
            return False  # `pack_sequence([self.emb(s) for s in seqs])`: part of one forward
        for gen in comp.generators:
            iterable = gen.iter
            value = self.value(iterable)
            if self._iterates_a_loader(iterable, value):
                return True
            # an iterable of unknown kind: batches only outside a module's own methods (which
            # walk the parts of one input: `[self.embedding(i) for i in entities]`), never a
            # slice (`X[:n_crops]`) nor a collection of the model itself (`embedder.mesh_names`)
            # (a collection the object holds, `self.train_data`, is one only when its items unpack
            # into inputs and targets: `for g, y in self.train_data`)
            held = _rooted_at_self(iterable) or isinstance(iterable, ast.Attribute)
            # (a list of graph-free batches, `[(spec, labels), ...]`, counts as a loop over them
            # does: what the element feeds decides)
            known = value.kind != UNKNOWN_V.kind and not _unknown_items(value) and not _data_items(value)
            if known or _is_range_like(iterable, self) or _is_slicing(iterable) \
                    or held and not _unpacks_pairs(gen.target) or self._iterates_tensors(iterable) \
                    or self._in_model_code(comp) or isinstance(iterable, ast.Subscript) \
                    or self._made_in_each_iteration(iterable, comp):
                continue
            targets = {n.id for n in walk(gen.target) if isinstance(n, ast.Name)}
            if isinstance(comp, ast.DictComp) and isinstance(comp.key, ast.Name):
                # `{name: self.embedder(name) for name in mesh_names}`: an item that is also the
                # dict's key is a label (a name, an id), not a batch of tensors
                targets.discard(comp.key.id)
            drawn = {n.id for g in comp.generators for n in walk(g.target) if isinstance(n, ast.Name)}
            for call in (n for n in walk(elt) if isinstance(n, ast.Call)):
                if _root_name(call.func) in drawn or _names_in(call.func) & drawn:
                    continue  # `[module(f) for module, f in zip(layers, feats)]`, `[emb[feat.name](X[:, ...])
                    # for feat in columns]`: the modules are what the comprehension walks (the parts
                    # of one computation), not batches
                if self._step_helper_on_the_item(call, targets):
                    return True  # `[S.validation_step(model, loss_fn, bx, by) for bx, by in val_loader]`
                if self.value(call.func).kind != MODULE and not (
                        isinstance(call.func, ast.Attribute) and self.value(call.func.value).kind == MODULE
                        and self.method_runs_forward(self.value(call.func.value), call.func.attr)):
                    continue
                used = {n.id for a in _input_args(call) for n in walk(a) if isinstance(n, ast.Name)}
                if used & targets:
                    return True
        return False

    def _step_helper_on_the_item(self, call: ast.Call, targets: Set[str]) -> bool:
        """A call of a plain function (of this module or another) handed a module and the
        item, whose result carries a graph (`validation_step(model, loss_fn, bx, by)`): a
        forward of the model on the item, run by the helper."""
        if self.value(call.func).kind in (MODULE, "class") or not self.value(call).carries_graph:
            return False
        args = list(call.args) + [kw.value for kw in call.keywords]
        return any(self.value(a).kind == MODULE for a in args) and any(
            isinstance(n, ast.Name) and n.id in targets for a in args for n in walk(a))

    def _made_in_each_iteration(self, iterable: ast.AST, comp: ast.AST) -> bool:
        """Is `iterable` a name every definition of which reaching `comp` is made inside a loop
        around it (`xi_s` unpacked from this iteration's task batch, then `[enc(b) for b in
        xi_s]`)? The comprehension walks parts of the iteration's own data, not the batches."""
        if not isinstance(iterable, ast.Name):
            return False
        loops = self.loops_around(comp)
        definitions = self.reaching(self.unit_of(comp)).definitions(iterable)
        return bool(loops) and bool(definitions) and all(
            not isinstance(d, ast.arg) and any(self.is_inside(d, loop) and d is not getattr(loop, "target", None)
                                               for loop in loops if isinstance(loop, (ast.For, ast.While)))
            for d in definitions)

    def _switches_a_model_mode(self, unit: ast.AST) -> bool:
        return any(isinstance(c.func, ast.Attribute) and c.func.attr in ("eval", "train") and
                   self.value(c.func.value).kind == MODULE for c in self._calls_within(unit, skip_loops=False))

    def _iterates_tensors(self, iterable: ast.AST) -> bool:
        """`zip(hidden, done)` over a tensor: the time steps or rows of one graph, not batches."""
        zipping = isinstance(iterable, ast.Call) and (
            isinstance(iterable.func, ast.Name) and iterable.func.id in ("zip", "enumerate", "zip_strict", "zip_longest")
            or isinstance(iterable.func, ast.Attribute) and iterable.func.attr in ("zip_longest", "zip_strict"))
        parts = iterable.args if zipping else [iterable]
        return any(self.value(part).kind in ("graph", "leaf", "tensor") or self._reshaped(part) for part in parts)

    def runs_a_forward_on_slices(self, loop: ast.AST) -> bool:
        """Does `loop` walk slices of one tensor (`x.split(n)`, or names bound to such splits)
        and feed each to a model, outside loops of its own: one input's chunks, a forward apiece
        (a whole scene fed to a network `batch_size` points at a time)?"""
        return isinstance(loop, (ast.For, ast.AsyncFor)) \
            and (_is_slicing(loop.iter) or self._iterates_bound_slices(loop.iter)) \
            and any(self._calls_a_module(call) for call in self._calls_within(loop, skip_loops=True))

    def _iterates_bound_slices(self, iterable: ast.AST) -> bool:
        """`zip(coord_chunk, feat_chunk)` after `coord_chunk, feat_chunk = torch.split(coord, bs),
        torch.split(feat, bs)`: names each bound once to slices of one tensor (`_is_slicing`)."""
        while isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) \
                and iterable.func.id in ("enumerate", "zip") and iterable.args:
            if iterable.func.id == "zip":
                parts = iterable.args
                return all(isinstance(p, ast.Name) and _is_slicing(self.value_bound_once(p)) for p in parts)
            iterable = iterable.args[0]
        return isinstance(iterable, ast.Name) and _is_slicing(self.value_bound_once(iterable))

    def _reshaped(self, expr: ast.AST) -> bool:
        """Is `expr` a name every definition of which reshapes a tensor (`seq = x.reshape(n,
        -1, d).swapaxes(0, 1)`)? Iterating it walks the rows (time steps) of one tensor."""
        if not isinstance(expr, ast.Name):
            return False
        definitions = self.reaching(self.unit_of(expr)).definitions(expr)
        # (a parameter's definition has no bound value: never a reshape)
        values = [getattr(self.parent(d), "value", None) for d in definitions]
        return bool(values) and all(isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute)
                                    and v.func.attr in _RESHAPING for v in values)

    def _batch_shaped(self, loop: ast.AST, targets: Set[str]) -> bool:
        """Items of an iterable of unknown kind look like batches only with evidence: they
        unpack into inputs and targets (`for x, y in ...`), are moved to a device
        (`x.to(device)`, `x.cuda()`), or the loop body runs a training step. A loop over
        FPN levels, mesh names or task heads feeding a model is none of these."""
        target = _item_target(loop)
        if isinstance(target, (ast.Tuple, ast.List)) and (len(target.elts) >= 2 or isinstance(loop.target, ast.Tuple)
                                                         and len(loop.target.elts) == 1) \
                and not self.in_module_method(loop):
            # In a method of an nn.Module (`forecast`, `encode`), `for i, x, mark in zip(...)`
            # walks the scales or heads of the input it was handed: not batches by itself.
            # (`for (x,) in loader`: the one-tensor batches of a TensorDataset's loader)
            return True
        if self._switches_a_model_mode(self.unit_of(loop)):
            return True  # `net.eval()` / `net.train()` in the function: a pass over data
        return self._moves_to_device(loop, targets) or bool(self.step_ops_in(loop)) \
            or self._hands_items_whole_to_a_forward(loop, targets)

    def _hands_items_whole_to_a_forward(self, loop: ast.AST, targets: Set[str]) -> bool:
        """Outside a module's methods, each item handed whole to a function of this module that
        runs a model on it (`transcribe_batch(model, batch)` per batch of a list of them): one
        pass of the model per item, as over batches."""
        return not self.in_module_method(loop) and any(
            any(isinstance(a, ast.Name) and a.id in targets for a in call.args)
            and self._hands_item_to_a_forward(call, targets) for call in self._calls_within(loop, skip_loops=True))

    def _moves_to_device(self, loop: ast.AST, targets: Set[str]) -> bool:
        """Items moved to a device in the loop body: `x.to(device)`, `x.cuda()`, also entry by
        entry (`{k: v.cuda() for k, v in batch.items()}`)."""
        targets = set(targets) | _comprehension_targets_over(loop, targets)
        for call in self._calls_within(loop, skip_loops=True):
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in ("to", "cuda") and \
                    {n.id for n in walk(func.value) if isinstance(n, ast.Name)} & targets:
                return True
        return False

    def _inside_module_forward(self, loop: ast.AST) -> bool:
        """A loop in an nn.Module's `forward` (or `forward_*`) runs within one step: it
        unrolls time steps or walks blocks, whatever its items feed. Also the `forward` of a
        class whose base is unknown (`class Net(CNN)` with `CNN = eval(cfg.BACKBONE)`): a
        model's, whatever its base turns out to be."""
        unit = self.unit_of(loop)
        while isinstance(unit, FUNCTION_TYPES) and self.class_of(unit) is None and \
                isinstance(self.unit_of(unit), FUNCTION_TYPES):
            unit = self.unit_of(unit)  # a helper nested in the forward (`_ms_forward`) runs within it
        info = self.class_of(unit) if isinstance(unit, FUNCTION_TYPES) else None
        return info is not None and (unit.name == "forward" or unit.name.startswith("forward_")) \
            and self._in_model_code(unit)

    def _runs_within_a_forward(self, func: ast.AST, depth: int = 0) -> bool:
        """Is `func` a module class's `forward`, or a method of it only that class's `forward`
        (or such methods) calls (`nope_nerf()`, which `forward` runs)? It runs within one step."""
        if not isinstance(func, FUNCTION_TYPES) or not self._in_model_code(func):
            return False
        if func.name == "forward" or func.name.startswith("forward_"):
            return True
        sites = self.method_call_sites(func)
        if not sites or depth >= 3 or self.external_sites(func):
            return False
        return all(self.unit_of(site) is not func and self._runs_within_a_forward(self.unit_of(site), depth + 1)
                   for site in sites)

    def _in_model_code(self, node: ast.AST) -> bool:
        """Is `node` in a method of a class that may be a model: a module class, or one whose
        bases are not all known plain classes (`KGCN(KnowledgeRecommender)` of another module)?
        Its loops and comprehensions may walk the parts of one input."""
        unit = node if isinstance(node, FUNCTION_TYPES) and self.class_of(node) is not None else self.unit_of(node)
        info = self.class_of(unit) if isinstance(unit, FUNCTION_TYPES) else None
        if info is None:
            return False
        if self.is_module_class(info):
            return True
        return any(base.rsplit(".", 1)[-1] not in self.classes and base not in ("object", "ABC", "abc.ABC")
                   for base in info.base_names)

    def in_module_method(self, node: ast.AST) -> bool:
        """Is `node` in a method of a module class (`decoder.beam_decode`)? Its loops walk the
        parts of one input (decoding steps, layers), not the batches."""
        unit = self.unit_of(node)
        info = self.class_of(unit) if isinstance(unit, FUNCTION_TYPES) else None
        return info is not None and self.is_module_class(info)

    def data_flows(self, owner: ast.AST) -> List[Tuple[Set[str], Set[str]]]:
        """(what it reads as data, the names it binds) for each assignment in `owner`'s body."""
        return [(self._data_reads(n.value), {t.id for target in n.targets for t in walk(target) if isinstance(t, ast.Name)})
                for stmt in owner.body for n in walk(stmt) if isinstance(n, ast.Assign)]

    def derived_names(self, owner: ast.AST, names: Set[str], flows=None) -> Set[str]:
        """`names` plus the names the body of `owner` (a loop or function) computes from them as
        data (`noisy = clean + eps`, `x = x.to(device)`), to a fixed point (`flows`: the
        owner's `data_flows`, when the caller asks for several sets of names)."""
        return _spread(self.data_flows(owner) if flows is None else flows, names)

    def _data_reads(self, expr: ast.AST) -> Set[str]:
        """Names an expression computes data from: not the shape/size arguments of a tensor
        factory (`torch.randn(size, 10)` in a loop over benchmark sizes makes new data), nor
        the positions of a tile or a time step cut from one tensor (`x[..., i:i + h, j:j + w]`,
        `x[:, t]`): the data is the tensor cut, not the index."""
        skipped = set()
        for node in walk(expr):
            if isinstance(node, ast.Call):
                qual = self.qualname(node.func) or ""
                if torch_api.is_factory(qual) and not qual.endswith(("tensor", "asarray", "_like")):
                    skipped.update(id(n) for a in _call_args(node) for n in walk(a))
            elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple):
                parts = node.slice.elts
                has_ellipsis = any(isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts)
                positional = parts if has_ellipsis else parts[1:]
                skipped.update(id(n) for p in positional for n in walk(p))
        return {n.id for n in walk(expr) if isinstance(n, ast.Name) and id(n) not in skipped} \
            & expression_names(expr, receivers=True)

    def is_step_loop(self, loop: ast.AST) -> bool:
        """A loop that runs once per training/evaluation step. A loop over the optimizers of
        one step (`for i, opt in enumerate(self.optimizers)`: a GAN's generator, then its
        discriminator) runs the parts of one step, however many backwards it holds."""
        if self.iterates_optimizers(loop) or self.accumulates_one_update(loop):
            return False
        return self.runs_training_step(loop) or self.is_data_loop(loop) or self.descends_own_gradient(loop)

    def descends_own_gradient(self, loop: ast.AST) -> bool:
        """Does each iteration take a gradient step on a tensor of its own (a latent being
        optimized, an adversarial input): `grad = torch.autograd.grad(loss, [latents])[0]` then
        `latents = latents - lr * grad`, in the loop's own body? Each iteration is one update
        of that tensor: a step, as an optimizer's would be."""
        def compute() -> bool:
            inputs: Set[str] = set()
            for call in self._calls_within(loop, skip_loops=True):
                if self.qualname(call.func) == "torch.autograd.grad":
                    wrt = call.args[1] if len(call.args) > 1 else _kw(call, "inputs")
                    parts = wrt.elts if isinstance(wrt, (ast.List, ast.Tuple)) else [wrt] if wrt is not None else []
                    inputs |= {p.id for p in parts if isinstance(p, ast.Name)}
            if not inputs:
                return False
            for node in nodes_within(loop, True):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                        and node.targets[0].id in inputs and isinstance(node.value, ast.BinOp) \
                        and any(isinstance(n, ast.Name) and n.id == node.targets[0].id for n in walk(node.value)):
                    return True  # `latents = latents - step_size * grad`
                if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id in inputs:
                    return True  # `x_adv += alpha * grad.sign()`
            return False
        return self.cached(("descends_own_gradient", loop), compute)

    def accumulates_one_update(self, loop: ast.AST) -> bool:
        """The micro-batches of one update, under accelerate's gradient accumulation: a loop
        nested in another, over a `range` of offsets into the update's batch, each of whose
        optimizer steps runs inside `with accelerator.accumulate(model):` (a no-op until the
        accumulation boundary). Its iterations are parts of one step of the enclosing loop
        (`for start in range(0, bs, micro_bs): with accelerator.accumulate(model): ...
        optimizer.step()`). A loop over a DataLoader accumulating the same way spans many
        updates."""
        if not self.loops_around(loop) or not isinstance(loop, ast.For) or not (
                isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range"):
            return False
        steps = [call for call in self.step_ops_in(loop, direct_only=False) if self.is_optimizer_step(call)]
        return bool(steps) and all(self._in_accumulate_context(call, loop) for call in steps)

    def _in_accumulate_context(self, node: ast.AST, loop: ast.AST) -> bool:
        for anc in self.ancestors(node):
            if anc is loop:
                return False
            if isinstance(anc, (ast.With, ast.AsyncWith)) and any(
                    isinstance(item.context_expr, ast.Call) and isinstance(item.context_expr.func, ast.Attribute)
                    and item.context_expr.func.attr == "accumulate" for item in anc.items):
                return True
        return False

    def _optimizer_loops_in(self, owner: ast.AST) -> List[ast.AST]:
        """The loops directly in `owner`'s body (not nested in another loop) that step its
        optimizers in turn: parts of each iteration of `owner`."""
        stack, out = list(body_nodes(owner)), []
        while stack:
            node = stack.pop()
            if isinstance(node, SCOPE_TYPES):
                continue
            if isinstance(node, LOOP_TYPES):
                if self.iterates_optimizers(node) or self.iterates_parts_of_one_graph(node):
                    out.append(node)
                continue
            stack.extend(child_nodes(node))
        return out

    def iterates_parts_of_one_graph(self, loop: ast.AST) -> bool:
        """A sub-step loop: each iteration back-propagates the next part of one graph built
        before the loop (`for i, loss in enumerate(losses): loss.backward(retain_graph=...)`
        over the per-head losses of one forward), and steps no optimizer itself. Its
        iterations are parts of one training step, not steps."""
        def compute() -> bool:
            if not isinstance(loop, (ast.For, ast.AsyncFor)):
                return False
            backwards = []
            for call in self._calls_within(loop, skip_loops=True):
                if self.is_optimizer_step(call) or self.is_scaler_step(call):
                    return False
                if self.is_training_backward(call):
                    backwards.append(call)
            targets = [self.backward_target(call) for call in backwards]
            return bool(targets) and all(t is not None and self.drawn_from_iterable(t, loop)
                                         and self.shares_graph_built_before(t, loop) for t in targets)
        return self.cached(("parts_of_one_graph", loop), compute)

    def iterates_optimizers(self, loop: ast.AST) -> bool:
        """Does each iteration of `loop` take the next optimizer from its iterable: the item
        is a proven optimizer, or the loop uses it as one (`opt.zero_grad()`, `opt.param_groups`)?"""
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return False
        target = loop.target
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(loop.iter, ast.Call) and (
                getattr(loop.iter.func, "id", None) == "enumerate" or getattr(loop.iter.func, "attr", None) == "items"):
            target = target.elts[1]  # `enumerate(opts)`, `self.optimizer_and_scheduler.items()`
        if not isinstance(target, ast.Name):
            return False
        if self.value(target).kind == "optimizer":
            return True

        def item(node):  # the item, or an entry of it (`op_sc["optimizer"].zero_grad()`)
            while isinstance(node, ast.Subscript):
                node = node.value
            return isinstance(node, ast.Name) and node.id == target.id

        def indexed(node):  # `optimizersD[i]` of `for i in range(len(netsD))`: the i-th optimizer
            return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) \
                and node.slice.id == target.id and self.value(node).kind == "optimizer"
        return any(isinstance(node, ast.Attribute) and (item(node.value) and node.attr in ("zero_grad", "param_groups")
                                                        or indexed(node.value) and node.attr == "step")
                   for node in nodes_within(loop)) or self._hands_the_index_to_a_stepping_method(loop, target.id)

    def _hands_the_index_to_a_stepping_method(self, loop: ast.AST, index: str) -> bool:
        """`for i in range(self.num_Ds): errD = self.train_Dnet(i, count)` where the method
        steps the optimizer its parameter picks (`netD, optD = self.netsD[idx],
        self.optimizersD[idx]` ... `optD.step()`): each iteration updates another network of
        the same training step."""
        for call in self._calls_within(loop, skip_loops=True):
            callee = self._resolve_call_cheap(call)
            if not isinstance(callee, FUNCTION_TYPES) or callee is self.unit_of(loop):
                continue
            bound = [p for p, a in zip(call_parameters(call, callee), call.args)
                     if isinstance(a, ast.Name) and a.id == index]
            if bound and _steps_what_it_picks(callee, bound[0]):
                return True
        return False

    def passes_over_data(self, func: ast.AST) -> bool:
        """Does the function loop over steps itself (a validation pass, `train_one_epoch`)?
        Whatever it does outside that loop runs once per pass, not once per step."""
        return self.cached(("passes_over_data", func), lambda: any(
            isinstance(node, LOOP_TYPES) and self.is_step_loop(node) for node in nodes_within(func)))

    def calls_a_pass_over_data(self, func: ast.AST) -> bool:
        """Does the function call, outside loops of its own, a function that passes over data
        (here, or in another module from its summary, `pod`): `gpu_sk(self)` aggregating the
        activations of the whole `pseudo_loader` before its label optimisation? What it does
        then runs once per such pass, not once per training step."""
        def compute() -> bool:
            for call in self._calls_within(func, skip_loops=True):
                target = self._resolve_call_cheap(call)
                if target is not None and target is not func and isinstance(target, FUNCTION_TYPES):
                    if self.passes_over_data(target):
                        return True
                elif target is None and (self._project_function_entry(call) or {}).get("pod"):
                    return True
            return False
        return self.cached(("calls_a_pass_over_data", func), compute)

    # ------------------------------------------------------ loop-carried state
    def reaching(self, unit: ast.AST):
        """Reaching definitions of a function (or the module body), computed once."""
        from torchleaklint.semantic.reaching import ReachingDefinitions

        return self.cached(("reaching", unit), lambda: ReachingDefinitions(unit))

    # ------------------------------------------------------ provenance
    def graph_origin(self, expr: ast.AST):
        """(node, message): where the value of `expr` got its autograd graph, or None."""
        from torchleaklint.semantic.provenance import graph_origin

        return graph_origin(self, expr)

    def parameter_given_numbers(self, expr: ast.AST) -> Optional[str]:
        """A parameter of the enclosing function that `expr` reads and that some call site in
        view passes a Python number (or None) for (`Averager.add(x)`, called with the loss by
        one loop and with an accuracy float by another): `.detach()` on `expr` there would
        fail for that caller. None when there is none."""
        unit = self.unit_of(expr)
        flow = self.flow(unit) if isinstance(unit, FUNCTION_TYPES) else None
        if flow is None or not flow.number_params:
            return None
        params = {a.arg for a in named_parameters(unit)}
        given = [n.id for n in walk(expr) if isinstance(n, ast.Name) and n.id in params and n.id in flow.number_params]
        # the one other callers hand a graph (`val` of `self.sum += val * n`, not the count `n`)
        return next((name for name in given if flow.params.get(name, UNKNOWN_V).carries_graph), None) \
            or next(iter(given), None)

    def argument_back_propagated_by_callers(self, stored: ast.AST, func: ast.AST) -> bool:
        """Is `stored`, a parameter of `func`, back-propagated by a caller's step (here or in
        another module) in the iteration that hands it in?"""
        from torchleaklint.semantic.provenance import argument_back_propagated_by_callers

        return argument_back_propagated_by_callers(self, stored, func)

    def consumed_by_backward(self, expr: ast.AST, loop: Optional[ast.AST]) -> Optional[ast.Call]:
        """The backward of the same iteration of `loop` that differentiates `expr`'s value."""
        from torchleaklint.semantic.provenance import consumed_by_backward

        return consumed_by_backward(self, expr, loop)

    def backpropagated_attributes(self) -> Set[str]:
        """Names of the attributes read in computing what this module's training backwards
        differentiate (`loss = ce + model.aux.loss; loss.backward()`: `aux`, `loss`): a class of
        another module that stores such an attribute may have it consumed here."""
        return self.cached(("backpropagated_attributes", None),
                           lambda: self.attributes_read_by_backwards() | self._attributes_returned_in_graphs())

    def attributes_read_by_backwards(self, other_objects: bool = False) -> Set[str]:
        """Names of the attributes read in computing what this module's own training backwards
        differentiate; with `other_objects`, only those read through another object than
        `self` (`torch.stack(agent.saved_log_probs)` in `finish_episode`)."""
        def compute() -> Set[str]:
            out: Set[str] = set()
            if "backward" in self.source:  # no training backward can be spelled without the word
                for call in self.backward_calls():
                    target = self.backward_target(call)
                    if target is None or not self.is_training_backward(call):
                        continue
                    parts = [target] + [self.statement_of(d) for d in self.graph_dependencies(target)]
                    out |= {self._read_attribute(n) for part in parts for n in walk(part)
                            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and not (
                                other_objects and isinstance(n.value, ast.Name) and n.value.id == "self")}
            return out
        # (asked again while it runs: nothing read yet)
        return self.settled_answer(("attributes_read_by_backwards", other_objects), compute, set())

    def _read_attribute(self, read: ast.Attribute) -> str:
        """`attr`, or `attr@Class` when the object read is of a known class of the project that
        inherits from no class of the project (`self.buffer.values` of an `EpisodeBuffer`): only
        that class's objects have it, so a store of `.values` by another class is not what is
        read (`attribute_back_propagated_elsewhere`)."""
        if isinstance(read.value, ast.Name) and read.value.id == "self":
            return read.attr
        receiver = self.value(read.value)
        if receiver.kind not in (INSTANCE, MODULE) or not receiver.name or receiver.alts:
            return read.attr
        if receiver.name in self.classes:
            info = self.classes[receiver.name]
            bases = info.base_names
            first_party = [b for b in bases if b.rsplit(".", 1)[-1] in self.classes
                           or "." in b and self.project is not None and self.project.is_first_party(b)]
        elif "." in receiver.name and self.project is not None and self.project.is_first_party(receiver.name):
            first_party = [b for b in self.project.class_bases(receiver.name) if self.project.is_first_party(b)]
        else:
            return read.attr
        return read.attr if first_party else f"{read.attr}@{receiver.name.rsplit('.', 1)[-1]}"

    def _attributes_returned_in_graphs(self) -> Set[str]:
        """Attributes of other objects a function reads into the graph it returns (a KL helper's
        `sum(m.log_variational_posterior for m in model.modules())`, a loss helper): its caller
        may back-propagate them, so the object storing them cannot be said to keep a dead graph."""
        out: Set[str] = set()
        if "return" not in self.source:
            return out
        for node in self.by_type.get(ast.Return, ()):
            unit = self.unit_of(node)
            if node.value is None or not isinstance(unit, FUNCTION_TYPES):
                continue
            returned = self.value(node.value)
            if not (returned.carries_graph or returned.kind == "unknown"):
                continue  # proven graph-free (a number, a detached tensor)
            receiver = positional_parameters(unit)[0].arg if self.class_of(unit) is not None and \
                positional_parameters(unit) else None
            parts = [node.value] + [self.statement_of(d) for d in self.graph_dependencies(node.value)]
            out |= {n.attr for part in parts for n in walk(part)
                    if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
                    and not (isinstance(n.value, ast.Name) and n.value.id == receiver)}
        return out

    def stored_state_differentiated(self, stmt: ast.AST, key: str) -> bool:
        """Does `key`, as `stmt` leaves it, go into `self` state that another method of the
        class differentiates (object_state.stored_state_differentiated)?"""
        from torchleaklint.semantic.object_state import stored_state_differentiated

        return stored_state_differentiated(self, stmt, key)

    def attribute_back_propagated_elsewhere(self, attr: str, owner: Optional[ClassInfo] = None) -> bool:
        """Does another module of the project back-propagate a read of `.<attr>` (from the
        summaries: `model.aux.loss` in train.py for `self.loss` stored here), or a function of
        this module a read of it through another object (`torch.stack(agent.saved_log_probs)`
        in `finish_episode`, for `self.saved_log_probs` filled by the agent's `remember`)? With
        `owner` (the class storing it), a read through an object of another class that
        inherits from none of the project's (`_read_attribute`) is not one."""
        name = owner.name if owner is not None else None
        if _reads_attribute_of(self.attributes_read_by_backwards(other_objects=True), attr, name):
            return True
        return self.project is not None and self.project.attribute_back_propagated_elsewhere(attr, name)

    def inner_update_of(self, expr: ast.AST, key: str) -> bool:
        """Is `expr` computed from `torch.autograd.grad(loss, key, create_graph=True)`, the
        gradient with respect to `key` itself: an inner update (MAML, CAVIA, unrolled
        optimization, `params = params - lr * grad`) kept differentiable on purpose, for an
        outer gradient to walk back through?"""
        parts = [expr] + [self.statement_of(d) for d in self.graph_dependencies(expr)]
        for part in parts:
            for node in walk(part):
                if not (isinstance(node, ast.Call) and self.qualname(node.func) == "torch.autograd.grad"):
                    continue
                flag = _kw(node, "create_graph")
                inputs = node.args[1] if len(node.args) > 1 else _kw(node, "inputs")
                if isinstance(flag, ast.Constant) and flag.value is True and inputs is not None and \
                        any(dotted(n) == key for n in walk(inputs) if isinstance(n, (ast.Name, ast.Attribute))):
                    return True
        return False

    def graph_dependencies(self, expr: ast.AST) -> Set[ast.AST]:
        """The definitions of graph-carrying values whose graphs `expr`'s value contains."""
        from torchleaklint.semantic.provenance import graph_dependencies

        return graph_dependencies(self, expr)

    def graphs_share(self, first: ast.AST, second: ast.AST) -> bool:
        """Do the values of two expressions of one function share part of an autograd graph?"""
        from torchleaklint.semantic.provenance import graphs_share

        return graphs_share(self, first, second)

    def made_of_back_propagated_results(self, stored: ast.AST, func: ast.AST) -> bool:
        """Is every graph `stored` holds the result of a call whose callee back-propagates in
        that call (`self.loss = torch.mean(al)` of `al, acc = self.model(x, 'gen_update')`,
        whose forward ran `l_total.backward()`)?"""
        from torchleaklint.semantic.provenance import made_of_back_propagated_results

        return made_of_back_propagated_results(self, stored, func)

    def read_graph_dies_in_call(self, read: ast.AST, stored: ast.AST) -> bool:
        """Does the graph a read brings into its function end there, reaching neither
        `stored` nor anything the call returns, stores, hands on or back-propagates?"""
        from torchleaklint.semantic.provenance import read_graph_dies_in_call

        return read_graph_dies_in_call(self, read, stored)

    def side_output_of(self, stored: ast.AST, other: ast.AST) -> bool:
        """Is the name `stored` bound only by statements that also compute part of `other`'s
        graph (a second output of the same forward), adding no forward of its own?"""
        from torchleaklint.semantic.provenance import side_output_of

        return side_output_of(self, stored, other)

    def runs_only_without_grad(self, stmt: ast.AST, seen_enabled: bool = False) -> bool:
        """Is `stmt` behind an opt-in flag (`if use_cache:`) that every call in view turning
        it on runs under no-grad? Then what it stores carries no graph. With `seen_enabled`,
        some call in view must turn it on (gating.runs_only_without_grad)."""
        from torchleaklint.semantic.gating import runs_only_without_grad

        return self.cached(("runs_only_without_grad", stmt, seen_enabled),
                           lambda: runs_only_without_grad(self, stmt, seen_enabled))

    def default_path_runs_only_without_grad(self, stmt: ast.AST) -> bool:
        """Is `stmt` on the path taken when an optional parameter is left out (`else` of `if
        run_fn is not None:`), and does every call in view leaving it out run under no-grad?"""
        from torchleaklint.semantic.gating import default_path_runs_only_without_grad

        return self.cached(("default_path_without_grad", stmt), lambda: default_path_runs_only_without_grad(self, stmt))

    def state_cut_between_steps(self, func: ast.AST, attr: str) -> bool:
        """Does the class of method `func` detach or restart `self.<attr>` between steps?"""
        from torchleaklint.semantic.object_state import state_cut_between_steps

        return state_cut_between_steps(self, func, attr)

    def bound_outside(self, name: ast.Name, loop: ast.AST) -> bool:
        """Is every definition of `name` reaching this read made outside `loop` (a parameter,
        a binding before the loop), none in it?"""
        pairs = self.reaching(self.unit_of(name)).reaching(name)
        return bool(pairs) and not any(
            definition != ENTRY and self.is_inside(definition, loop) for definition, _ in pairs)

    def shares_graph_built_before(self, expr: ast.AST, loop: ast.AST) -> bool:
        """Does `expr`'s graph include a loop-invariant part built before `loop`?"""
        from torchleaklint.semantic.provenance import shares_graph_built_before

        return shares_graph_built_before(self, expr, loop)

    def may_share_an_unknown_graph_built_before(self, expr: ast.AST, loop: ast.AST) -> bool:
        """Does `expr`'s iteration read a value of unknown kind made before `loop` by code
        that may have run a forward (its graph, if it has one, is walked again each iteration)?"""
        from torchleaklint.semantic.provenance import may_share_an_unknown_graph_built_before

        return may_share_an_unknown_graph_built_before(self, expr, loop)

    def graph_carried_across_iterations(self, expr: ast.AST, loop: ast.AST) -> bool:
        """Does `expr`'s graph read a graph the previous iteration of `loop` built (a
        recurrent state carried without detach), in a loop over data or episodes?"""
        from torchleaklint.semantic.provenance import graph_carried_across_iterations

        return graph_carried_across_iterations(self, expr, loop)

    def computed_only_from_leaves(self, expr: ast.AST) -> bool:
        """Is `expr`'s graph one op deep over leaves (`self.log_alpha.exp()`, `w * 2`): every
        value it reads is a leaf or carries no graph, and one is a leaf? Such a graph does not
        grow when stored and read by the next step: it is rebuilt from the leaves each time."""
        return self._from_leaves(expr, 0)

    def _from_leaves(self, expr: ast.AST, depth: int) -> bool:
        leaves = False
        for node in _value_reads(expr):
            value = self.value(node)
            if value.kind == "unknown" and self._registered_buffer(node):
                continue  # `self.register_buffer("eps_w", ...)`: a tensor without grad
            if value.kind == "unknown":
                return False
            if value.kind != "leaf" and self._stored_again_by_its_function(node):
                return False  # `nxt = torch.add(self.state, self.velocity, alpha=dt)`, then
                # `self.state = nxt`: the next call reads the graph this one stores
            if value.kind == "leaf":
                leaves = True
            elif value.carries_graph:
                # `self.sigma = torch.log1p(torch.exp(self.rho))` just above, in the same
                # function: rebuilt from the leaves too (blitz's `self.w = mu + sigma * eps`)
                source = self._bound_earlier_in_unit(node) if depth < 2 else None
                if source is None or not self._from_leaves(source, depth + 1):
                    return False
                leaves = True
        return leaves

    def _stored_again_by_its_function(self, read: ast.AST) -> bool:
        """Is `read` a `self` attribute that its own function stores (`self.state`)?"""
        if not (isinstance(read, ast.Attribute) and isinstance(read.value, ast.Name)):
            return False
        unit = self.unit_of(read)
        if not isinstance(unit, FUNCTION_TYPES):
            return False
        key = dotted(read)
        return any(isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and dotted(n) == key
                   for n in nodes_within(unit))

    def _registered_buffer(self, read: ast.AST) -> bool:
        """`self.eps_w` where the class registers a buffer of that name."""
        if not (isinstance(read, ast.Attribute) and isinstance(read.value, ast.Name) and read.value.id == "self"):
            return False
        unit = self.unit_of(read)
        info = self.class_of(unit) if isinstance(unit, FUNCTION_TYPES) else None
        if info is None:
            return False
        return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "register_buffer"
                   and n.args and isinstance(n.args[0], ast.Constant) and n.args[0].value == read.attr
                   for method in info.methods.values() for n in walk(method))

    def _bound_earlier_in_unit(self, read: ast.AST) -> Optional[ast.AST]:
        """The value of the one plain assignment that binds what `read` (a name or `self`
        attribute) reads, earlier in the straight-line body of the same function."""
        unit = self.unit_of(read)
        key = dotted(read)
        if not isinstance(unit, FUNCTION_TYPES) or key is None:
            return None
        stmt = self.statement_of(read)
        found = None
        for earlier in unit.body:
            if earlier is stmt or self.is_inside(stmt, earlier):
                break
            if isinstance(earlier, ast.Assign) and len(earlier.targets) == 1 and dotted(earlier.targets[0]) == key:
                found = earlier.value
            elif any(dotted(t) == key for n in walk(earlier) if isinstance(n, (ast.Assign, ast.AugAssign))
                     for t in (n.targets if isinstance(n, ast.Assign) else [n.target])):
                return None  # bound again in a branch or loop: not one binding
        return found

    def reads_graph_held_by_object(self, expr: ast.AST) -> bool:
        """Does `expr` read (itself or through its class's methods) a `self` attribute holding a
        graph built when the object was set up?"""
        from torchleaklint.semantic.provenance import reads_graph_held_by_object

        return reads_graph_held_by_object(self, expr)

    def drawn_from_iterable(self, expr: ast.AST, loop: ast.AST) -> bool:
        """Is `expr` computed from the item `loop` draws from its iterable?"""
        from torchleaklint.semantic.provenance import drawn_from_iterable

        return drawn_from_iterable(self, expr, loop)

    def feeds(self, stored: ast.AST, store_stmt: ast.AST, target: ast.AST) -> bool:
        """Is the value stored at `store_stmt` part of what `target` is computed from?"""
        from torchleaklint.semantic.provenance import feeds

        return feeds(self, stored, store_stmt, target)

    def recurrent_through_call(self, stmt: ast.AST, name: str, loop: ast.AST) -> bool:
        """Is `name` as `stmt` binds it computed from its previous iteration's value through a call?"""
        from torchleaklint.semantic.provenance import recurrent_through_call

        return recurrent_through_call(self, stmt, name, loop)

    def call_result_ignores_argument(self, call: ast.Call, argument: ast.AST) -> bool:
        """Does the function of this module that `call` runs return nothing computed from the
        parameter `argument` binds (`alpha = train_model(..., alpha)` returning
        `torch.exp(log_alpha)`)? Then the result does not carry what was handed in."""
        from torchleaklint.semantic.provenance import result_ignores_argument

        return result_ignores_argument(self, call, argument)

    def call_cuts_argument(self, call: ast.Call, name: str) -> bool:
        """Does the function `call` runs (of this module, or of another module of the
        project) cut the history of the argument `name` on entry (`h = h.detach()`)?"""
        from torchleaklint.semantic.state_cuts import call_cuts_argument

        return call_cuts_argument(self, call, name)

    def iteration_backwards(self, loop: ast.AST) -> List[ast.Call]:
        from torchleaklint.semantic.provenance import iteration_backwards

        return iteration_backwards(self, loop)

    def step_loop_carrying(self, stmt: ast.AST, key: str) -> Optional[ast.AST]:
        """The innermost loop that runs once per step across which `key` (as `stmt` leaves
        it) survives, or else the innermost epoch loop (`is_epoch_loop`) it survives, or None."""
        carried = self.carried_loops(stmt, key)
        return next((loop for loop in carried if self.is_step_loop(loop)), None) or \
            next((loop for loop in carried if self.is_epoch_loop(loop)), None)

    def key_reads(self, stmt: ast.AST, key: str) -> List[ast.AST]:
        """The reads of `key` (a name, `self.total`, or `buf[]` for the container buf) that a
        statement makes, its augmented target included, outside nested scopes."""
        base = key[:-2] if key.endswith("[]") else key
        out = []
        for node in nodes_within(stmt):
            if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) == base and (
                    isinstance(node.ctx, ast.Load) or (isinstance(stmt, ast.AugAssign) and node is stmt.target)):
                out.append(node)
        return out

    def carried_loops(self, stmt: ast.AST, key: str) -> List[ast.AST]:
        """The enclosing loops across whose iterations what `stmt` did to `key` (bound it,
        or put a value into the container) survives, innermost first, up to the first loop
        in which it does not (reaching definitions: `total = 0` at the top of the body, or
        `buf.clear()` after the append, on every path)."""
        unit = self.unit_of(stmt)
        reaching = self.reaching(unit)
        base = key[:-2] if key.endswith("[]") else key
        reads = self.key_reads(stmt, key)
        out = []
        for loop in self.loops_around(stmt):
            survives = reaching.effect_survives(stmt, base, loop)
            if survives is not None and not reaching.is_mutation(stmt, base) and reads:
                # a rebinding total (`t += x`, `t = t + x`): it survives when the previous
                # iteration's graph-carrying total reaches this read, also through a later
                # accumulation of the same iteration that read it
                survives = survives or self._reads_carried_graph(unit, reads, loop)
            if survives is None:  # not an effect the analysis saw: the text decides
                survives = not self.rebound_fresh_in(loop, key)
            if not survives or self.restarted_with_update(loop, base):
                break
            if "." not in base and bound_first_under_the_same_test(self, loop, stmt, base):
                break  # bound fresh under the same test earlier in each iteration that reaches here
            if "." not in base and reaching.is_mutation(stmt, base) and self._bound_fresh_before(loop, stmt, base) \
                    and self._stays_in_call(unit, base, reductions=True):
                break  # `losses = []` on every path of the iteration to `losses.append(l)` (in the
                # same branch): an old list may stay bound while the branch is not taken, but no
                # iteration adds to it, and nothing else holds it
            out.append(loop)
        return out

    def restarted_with_update(self, loop: ast.AST, key: str) -> bool:
        """Is `key` restarted (`metrics = []`, `total = 0`, `metrics.clear()`) in the block that
        updates the parameters in `loop` (`if (i + 1) % accumulate == 0: opt.step(); ...;
        metrics = []`)? Then what it holds lives for one update: the micro-batches of one
        accumulated step, not every step."""
        for call in self._calls_within(loop, skip_loops=True):
            if not self.updates_parameters(call):
                continue
            block = self.block_holding(self.statement_of(call))
            if block is not None and (self._always_rebinds(block, key) or any(
                    isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)
                    and isinstance(stmt.value.func, ast.Attribute) and stmt.value.func.attr == "clear"
                    and dotted(stmt.value.func.value) == key for stmt in block)):
                return True
        return False

    def block_holding(self, stmt: ast.AST) -> Optional[list]:
        """The statement list (`body`, `orelse`, `finalbody`) of its parent that holds `stmt`."""
        parent = self.parent(stmt)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                return block
        return None

    def _reads_carried_graph(self, unit: ast.AST, reads: List[ast.AST], loop: ast.AST) -> bool:
        flow = self.flow(unit)
        reaching = self.reaching(unit)
        for read in reads:
            for definition in reaching.carried_definitions(read, loop):
                value = flow.values.get(definition) if flow is not None else None
                if value is None or value.carries_graph:
                    return True
        return False

    def loops_carrying(self, stmt: ast.AST, key: str) -> List[ast.AST]:
        """Every enclosing loop (innermost first) whose previous iteration may have made the
        value of `key` that `stmt` reads: a state carried through an inner rollout loop and
        on into the next update of the outer loop is carried by both."""
        reads = self.key_reads(stmt, key)
        reaching = self.reaching(self.unit_of(stmt))
        out = []
        for loop in self.loops_around(stmt):
            answers = [reaching.carried_over(read, loop) for read in reads]
            if not answers or None in answers:
                if not self.rebound_fresh_in(loop, key):
                    out.append(loop)
            elif any(answers):
                out.append(loop)
        return out

    def carried_loop(self, stmt: ast.AST, key: str) -> Optional[ast.AST]:
        """The innermost enclosing loop whose previous iteration made the value of `key` that
        `stmt` reads (a definition inside the loop reaching the read around its back edge).
        A fresh binding earlier in the same iteration cuts it: `loss = loss.mean()` after
        `loss, state = out` reads this iteration's `loss`."""
        reads = self.key_reads(stmt, key)
        reaching = self.reaching(self.unit_of(stmt))
        for loop in self.loops_around(stmt):
            answers = [reaching.carried_over(read, loop) for read in reads]
            if not answers or None in answers:
                if not self.rebound_fresh_in(loop, key):
                    return loop
            elif any(answers):
                return loop
        return None

    def rebound_fresh_in(self, owner: ast.AST, key: str) -> bool:
        """Does every iteration of `owner` rebind `key` to a fresh value (one that does not
        read its old value), on every path? A reset under an `if` without an `else` that
        resets too (`if i % 100 == 0: total = 0`), or in an inner loop, does not count: the
        value still survives iterations. An entry (`self.losses[]`) is fresh when its container
        is (`self.losses = OrderedDict()`)."""
        if key.endswith("[]") and self._always_rebinds(list(body_nodes(owner)), key[:-2]):
            return True
        return self._always_rebinds(list(body_nodes(owner)), key)

    def _always_rebinds(self, stmts, key: str) -> bool:
        for stmt in stmts:
            if isinstance(stmt, SCOPE_TYPES) or isinstance(stmt, LOOP_TYPES):
                continue  # a loop may run zero times
            if isinstance(stmt, ast.If):
                if self._always_rebinds(stmt.body, key) and self._always_rebinds(stmt.orelse, key):
                    return True
                continue
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                if self._always_rebinds(stmt.body, key):
                    return True
                continue
            if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                if self._always_rebinds(stmt.body, key) or self._always_rebinds(stmt.finalbody, key):
                    return True
                continue
            if hasattr(ast, "Match") and isinstance(stmt, ast.Match):
                continue
            for target, value in self._stores_within(stmt):
                if dotted(target) == key and (value is None or key not in {dotted(n) for n in _reads(value)}):
                    return True
        return False

    def _stores_within(self, owner: ast.AST):
        return self._stores_of(nodes_within(owner))

    def _stores_of(self, nodes):
        for node in nodes:
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
                    yield (target.value if is_full_slice(target) else target), None
            elif isinstance(node, ast.Expr) and empties(node) is not None and dotted(empties(node)) is not None:
                yield empties(node), None  # `buf.clear()` empties it like `buf = []`

    def may_outlive_step(self, stmt: ast.AST, key: str) -> bool:
        """A cheap necessary condition of `outlives_step`, asked before any data flow: the
        binding is in a loop, or what it binds is state (an attribute, an item, a global or
        nonlocal name, a module-level object the function fills without binding it, a parameter
        the caller hands in). A plain local bound outside any loop lives one call of its function
        at most."""
        if "." in key or "[" in key or self.loops_around(stmt):
            return True
        unit = self.unit_of(stmt)
        return not isinstance(unit, FUNCTION_TYPES) or key in self._globals_of(unit) \
            or self.is_module_global(unit, key) or self.kept_by_the_enclosing_function(unit, key) \
            or key in {a.arg for a in every_parameter(unit)} and not self.rebound_fresh_in(unit, key)

    def kept_over_back_propagated_batches(self, stmt: ast.AST, key: str) -> Optional[ast.AST]:
        """Is `key` carried across a loop over batches each iteration of which back-propagates,
        the update coming only after that loop (gradients accumulated over the windows of an
        epoch, one `optimizer.step()` per epoch)? The total outlives each batch's backward:
        `outlives_step` counts those batches as one update step, but a running total of them
        grows with every batch all the same (TLL001's reading; not a container's, which the
        specification lets live one update)."""
        carried = self.carried_loops(stmt, key)
        # (a loop over batches, or over the time steps of a rollout that runs a forward and a
        # backward in each: micro-steps of one update; not a loop over the parts of one graph)
        kept = bool(carried) and all((self.is_data_loop(loop) or self._back_propagates_its_own_loss(loop))
                                     and self.has_backward_within(loop) for loop in carried) \
            and self._within_one_update(stmt, key, carried) and not self._restarted_each_call(stmt, key, carried)
        return carried[0] if kept else None

    def _back_propagates_its_own_loss(self, loop: ast.AST) -> bool:
        """Does an iteration of `loop` (outside its nested loops) back-propagate a loss it
        computed itself (`loss = F.mse_loss(stepper(u, f), target[t]); loss.backward()`), whose
        graph includes no part built before the loop? A micro-step of one update: each
        iteration's forward is its own. Not a loop over the parts of one graph (`for loss in
        losses: loss.backward(retain_graph=True)`), whose losses were computed before it."""
        reaching = self.reaching(self.unit_of(loop))
        for call in self._calls_within(loop, skip_loops=True):
            target = self.backward_target(call)
            if not isinstance(target, ast.Name):
                continue
            definitions = reaching.definitions(target)
            if definitions and all(isinstance(d, ast.AST) and self.is_inside(d, loop)
                                   and isinstance(self.parent(d), ast.Assign) for d in definitions) \
                    and not self.shares_graph_built_before(target, loop):
                return True
        return False

    def summed_over_forward_iterations(self, stmt: ast.AST, key: str, operand: ast.AST) -> Optional[ast.AST]:
        """Is the local `key` a running total, carried across a loop none of whose iterations
        back-propagates, of `operand`: a name each iteration binds afresh to a graph-carrying
        value and reads nowhere else (a validation task's loss summed for a log, a test
        sample's loss summed for the report)? Nothing frees those graphs: every iteration's
        activations stay alive with the total, until it is dropped. What the function returns
        of it must reach no backward of its callers either (the caller only reads `.item()`)."""
        carried = self.carried_loops(stmt, key)
        unit = self.unit_of(stmt)
        if not carried or not isinstance(operand, ast.Name) or "." in key or "[" in key \
                or not isinstance(unit, FUNCTION_TYPES) or any(self.has_backward_within(loop) or self.runs_training_step(loop)
                                                               for loop in carried) \
                or self.consumed_by_backward(operand, carried[0]) is not None or self.returned_after_its_backward(operand):
            return None  # (a backward frees the activations: `errD` back-propagated by `train_Dnet`)
        if any(isinstance(n, ast.Name) and n.id == key and isinstance(n.ctx, ast.Load)
               and not _updates_the_total(self.statement_of(n), key) for n in nodes_within(carried[0])):
            return None  # the loop computes with it (`x = x + dt * net(x, t)`: a sampler's state)
        definitions = self.reaching(unit).definitions(operand)
        if not definitions or not all(self.is_inside(d, carried[0]) for d in definitions):
            return None  # (bound before the loop: the same graph added over and over)
        siblings = {n.id for d in definitions for target in getattr(self.statement_of(d), "targets", ())
                    for n in walk(target) if isinstance(n, ast.Name) and n.id != operand.id}
        if any(self.feeds_backward(unit, sibling) for sibling in siblings):
            return None  # `loss, loss_no_lamb = loss_fn(...)` with `loss` back-propagated: one forward,
            # whose activations that backward frees
        reads = [n for n in nodes_within(carried[0]) if isinstance(n, ast.Name) and n.id == operand.id
                 and isinstance(n.ctx, ast.Load) and not self.is_inside(n, stmt)]
        if any(not self.value_killed_at(read) and not _starts_the_total(self.statement_of(read), read, key)
               for read in reads):
            return None  # the operand goes on elsewhere too (into a loss a backward may consume)
        # after the loop, the total is only read as a number, or returned as it is to callers
        # that never differentiate it; stored or computed with, it may reach a backward
        returned = False
        for read in nodes_within(unit):
            if not (isinstance(read, ast.Name) and read.id == key and isinstance(read.ctx, ast.Load)) \
                    or self.is_inside(read, carried[0]) or self.value_killed_at(read):
                continue
            if not isinstance(self.statement_of(read), ast.Return):
                return None
            returned = True
        return carried[0] if not returned or self.returned_graph_never_differentiated(unit) else None

    def outlives_step(self, stmt: ast.AST, key: str) -> Optional[str]:
        """Why the binding `key` updated at `stmt` outlives one training step, or None:
        it is carried across a step loop (the loops around `stmt` inside the innermost one
        that rebinds or clears it fresh each iteration: a buffer reset once per batch but
        filled over the time steps of that batch is not), or it is state (attribute,
        global) updated in a method or function that runs once per step and does not reset
        it itself."""
        carried = self.carried_loops(stmt, key)
        if any(self.is_step_loop(loop) or self.is_epoch_loop(loop) for loop in carried) \
                and not self._within_one_update(stmt, key, carried) \
                and not self._restarted_each_call(stmt, key, carried) \
                and not self._kept_within_a_call_that_updates_nothing(stmt, key, carried) \
                and not self._kept_over_parts_of_one_batch(stmt, key, carried) \
                and not self._kept_over_repeated_updates_on_one_batch(stmt, carried):
            return "loop"
        unit = self.unit_of(stmt)
        if not isinstance(unit, FUNCTION_TYPES) or self.rebound_fresh_in(unit, key):
            return None
        if self._persists_across_calls(unit, key):
            if self._flushed_by_its_module(unit, key):
                return None
            if self.is_per_step_method(unit, through_other_objects=True):
                if self._self_attribute_cut(unit, key):
                    return None
                return "method"
            if self.is_per_step_function(unit):
                return "function"
            if self.steps_once_per_call(unit):
                # `agent.learn(mem)`: each call is one update, whoever calls it
                return "function" if self.class_of(unit) is None else "method"
        return None

    def grows_across_calls(self, stmt: ast.AST, key: str) -> Optional[ast.AST]:
        """The loop that calls the method of `stmt` over and over while `self` state `key`
        (a container it adds to) keeps what every call put in: `self.served.append(probs)`
        in an inference service's `infer`, which the serving loop calls per request. Every
        call site in view is in a loop (one at least, none in another module outside its
        step loops), nothing in the method rebinds the container, and no method of the class
        restarts it between calls. Returns that loop, or None."""
        unit = self.unit_of(stmt)
        if not isinstance(unit, FUNCTION_TYPES) or self.class_of(unit) is None or "." not in key \
                or not self._persists_across_calls(unit, key) or self.rebound_fresh_in(unit, key):
            return None
        sites = self.call_sites(unit)
        # a call from a module's forward (or another per-step method) runs once per step too:
        # `capture.record(name, att)` in an attention head's forward
        loops = [next(iter(self.loops_around(site)), None) or self._per_step_caller(site) for site in sites]
        if not sites or any(loop is None for loop in loops) or all(self.receiver_rebuilt_per_step(s) for s in sites) or \
                not all(site["st"] or site["tr"] for site in self.external_sites(unit)):
            return None
        if self._flushed_by_its_module(unit, key) or self._self_attribute_cut(unit, key):
            return None
        if all(self._only_once_per_module_part(site, loop) for site, loop in zip(sites, loops)):
            return None  # `ema.register(name, param)` for each parameter, once before training:
            # one entry per parameter, not one per step
        if all(self._restarted_by_the_caller(site, loop, key) for site, loop in zip(sites, loops)):
            return None  # `self.feat = []` in the forward, then a loop over its experts calling
            # `self._separate_part(out, i)`, which appends: the list lives one call of the forward
        return loops[0]

    def iterates_over_module_parts(self, loop: Optional[ast.AST]) -> bool:
        """Is `loop` a `for` over the parts of a module (`model.named_parameters()`,
        `.parameters()`, `.buffers()`, `.modules()`, `.children()`, `.state_dict().items()`)?
        It runs once per part, a number the model fixes: no step repeats it."""
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return False
        iterable = loop.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) \
                and iterable.func.attr in ("items", "keys", "values") and not iterable.args:
            iterable = iterable.func.value  # `model.state_dict().items()`
        if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute)
                and iterable.func.attr in _MODULE_PART_ITERATORS):
            return False
        return self.value(iterable.func.value).kind == MODULE

    def _restarted_by_the_caller(self, site: ast.Call, loop: Optional[ast.AST], key: str) -> bool:
        """Does the function making the call `site` in `loop` rebind the `self` container `key`
        fresh on every call (before its loop), while that loop is no loop of steps, epochs,
        batches or a rollout (the experts or heads of one forward)? Then what the callee adds
        lives one call of that function."""
        caller = self.unit_of(site)
        if loop is None or not isinstance(caller, FUNCTION_TYPES) or not self.is_inside(loop, caller) \
                or not self.rebound_fresh_in(caller, key):
            return False
        return not (self.is_step_loop(loop) or self.is_epoch_loop(loop) or self.is_data_loop(loop)
                    or self.runs_forward_each_iteration(loop))

    def _only_once_per_module_part(self, site: ast.Call, loop: Optional[ast.AST]) -> bool:
        """Is `site` made only in a loop over a module's parts that no other loop encloses, in
        a function that no loop in view calls and that no other module calls?"""
        if not self.iterates_over_module_parts(loop) or len(self.loops_around(site)) != 1:
            return False
        caller = self.unit_of(site)
        if not isinstance(caller, FUNCTION_TYPES):
            return True  # a script's top level
        return not self.is_per_step_method(caller) and not self.external_sites(caller) and \
            not any(self.loops_around(call) for call in self.call_sites(caller))

    def receiver_rebuilt_per_step(self, call: ast.Call) -> bool:
        """Is `call` a method call on a name that a training-step loop around it binds anew
        each iteration, by constructing an object (`strat = DecodingStrategy()` per batch, then
        `strat.step(logits, mask)` per decoding step)? What the object keeps lives one step."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return False
        name = func.value.id
        for loop in self.loops_around(call):
            if not (self.runs_training_step(loop) or self.has_backward_within(loop)):
                continue
            return any(isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.lineno < call.lineno
                       and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
                       for node in nodes_within(loop))
        return False

    def grows_across_external_calls(self, stmt: ast.AST, key: str) -> Optional["ExternalCall"]:
        """The call site in another module that calls the method of `stmt` over and over
        while `self` state `key` (a container it adds to) keeps what every call put in:
        `stats.record(value, reward)` in an evaluation loop of evaluate.py, `meter.update(pred,
        y)` in a test loop of engine.py. Only a method no call of this module runs, with a call
        site of another module in a loop with autograd on that back-propagates nothing it hands
        in (other sites, under no-grad, undo nothing that one keeps), not a loop in a method of a
        module class (`beam.update(score)` per decoding step of `decoder.beam_decode`: the parts
        of one input); nothing in the method rebinds the container and the class starts it only
        at construction. Returns the first such site, or None."""
        unit = self.unit_of(stmt)
        if not isinstance(unit, FUNCTION_TYPES) or self.class_of(unit) is None or "." not in key \
                or not self._persists_across_calls(unit, key) or self.rebound_fresh_in(unit, key) \
                or self.call_sites(unit):
            return None
        keeping = [site for site in self.external_sites(unit) if (site.get("lp") or site.get("lpx")) and not site.get("mm")
                   and not site["ng"] and not site.get("abp") and not site["bp"] and not site.get("fr")]
        if not keeping:
            return None
        from torchleaklint.semantic.object_state import restarted_only_at_construction, self_name

        receiver, _, attr = key.partition(".")
        if receiver != self_name(unit) or "." in attr or not restarted_only_at_construction(self, unit, attr):
            return None
        return ExternalCall(keeping[0], unit)

    def _per_step_caller(self, site: ast.AST, depth: int = 0) -> Optional[ast.AST]:
        """The training loop that runs a call site once per step through the functions it is
        in: `capture.record(name, att)` in an attention head's forward, which the model's
        forward calls, which the training loop calls; `cache.compute(ids, x)` in a `grpo_step`
        that the loop calls. None when no such loop is in view."""
        caller = self.unit_of(site)
        if depth > 2 or not isinstance(caller, FUNCTION_TYPES):
            return None
        for outer in self.call_sites(caller):
            for loop in self.loops_around(outer):
                if self.runs_training_step(loop) or self.has_backward_within(loop):
                    return loop
            found = self._per_step_caller(outer, depth + 1)
            if found is not None:
                return found
        return None

    def _restarted_each_call(self, stmt: ast.AST, key: str, carried: List[ast.AST]) -> bool:
        """The loops `key` is carried across are parts of one call of a function that starts
        `key` fresh every call and that its callers run in loops of theirs (or that is called
        out of view): each of the loops walks a collection the object holds (`for p_id in
        self.policy_ids`), so what is kept lives one call, the step its caller's loop runs
        (`self.train_infos = []` then one update per policy, in `train()` called once per
        environment step)."""
        unit = self.unit_of(stmt)
        if not isinstance(unit, FUNCTION_TYPES) or any(self.is_data_loop(loop) for loop in carried) \
                or not self.rebound_fresh_in(unit, key):
            return False
        # only loops over the objects of a collection the object holds (policies, heads), or
        # a count fixed at construction (`range(self.n_topology)`): another counted loop or
        # one over what the caller hands in may be the run's steps
        if not all(isinstance(loop, (ast.For, ast.AsyncFor))
                   and (not self._updates_within(loop) or self._updates_only_the_iterated_parts(loop)) and (
                _rooted_at_self(loop.iter) and not _counts(loop.iter) or self._fixed_collection(loop.iter))
                for loop in carried):
            return False
        local = self.call_sites(unit)
        external = self.external_sites(unit)
        if not local and not external:
            return True  # callers out of view (`self.train = self.batch_train`)
        # each caller runs it in a loop, or is itself one step (`optimize_parameters()`
        # calling `backward_D()` then stepping the optimizers)
        return all(self.loops_around(site) or self._one_step_per_call(self.unit_of(site)) for site in local) and \
            all(site["st"] or site["tr"] for site in external)

    def _updates_within(self, owner: ast.AST, depth: int = 0) -> bool:
        """Does the loop (or function) step an optimizer, directly or in a function of this
        module it calls? Then each iteration is a training step of its own (`for _ in
        range(self.num_epochs): ... opt.step()`), not a part of the caller's step."""
        for call in self._calls_within(owner, skip_loops=False):
            if self.is_optimizer_step(call) or self.is_scaler_step(call):
                return True
            target = self._resolve_call_cheap(call) if depth < 2 else None
            if target is not None and target is not owner and self._updates_within(target, depth + 1):
                return True
        return False

    def _updates_only_the_iterated_parts(self, loop: ast.AST) -> bool:
        """Does every optimizer (or scaler) step of the loop's body step an optimizer picked by
        the loop's own variable (`self.policy[agent].critic_optimizer.step()` in `for agent in
        range(self.num_agents)`)? Each iteration then updates another part, once per call (one
        update per agent): the iterations are parts of one step, not steps. A step of any
        other optimizer, or an update in a function it calls, may be the run's next step."""
        names = _names_in(loop.target)
        for _ in range(2):  # and the names bound from them (`agent = self.agents[i]`)
            names |= {t.id for node in nodes_within(loop) if isinstance(node, ast.Assign)
                      and names & _names_in(node.value) for t in node.targets if isinstance(t, ast.Name)}
        steps = 0
        for call in self._calls_within(loop, skip_loops=False):
            if self.is_optimizer_step(call) or self.is_scaler_step(call):
                if not (isinstance(call.func, ast.Attribute) and names & _names_in(call.func.value)):
                    return False
                steps += 1
                continue
            target = self._resolve_call_cheap(call)
            if target is not None and target is not loop and self._updates_within(target, 1):
                return False
        return steps > 0

    def _one_step_per_call(self, func: ast.AST) -> bool:
        return isinstance(func, FUNCTION_TYPES) and (self.steps_once_per_call(func) or self.is_per_step_method(func))

    def _within_one_update(self, stmt: ast.AST, key: str, carried: List[ast.AST]) -> bool:
        """The loops `key` is carried across are micro-steps of one update: none of them
        steps an optimizer, and the enclosing loop that starts `key` fresh each iteration
        does (`losses = []` per batch, then one loss per sampled subnet, each
        back-propagated, then `optimizer.step()`): what is kept lives one update step."""
        around = self.loops_around(stmt)
        if not carried or len(around) < len(carried):
            return False

        def steps(nodes) -> bool:
            return any(isinstance(n, ast.Call) and (self.is_optimizer_step(n) or self.is_scaler_step(n)) for n in nodes)
        if any(steps(walk(loop)) for loop in carried):
            return False
        if len(around) > len(carried):
            # the update in the outer loop's own body, not in another loop of it (an epoch loop's
            # training loop next to the evaluation loop that keeps the values)
            return steps(nodes_within(around[len(carried)], skip_loops=True))
        # no loop outside: a function that starts the local `key` fresh each call, runs the
        # micro-steps and then the one update (`outputs = {}`, a loop of forward + backward
        # over the chunks of the batch, `scaler.step(opt)`), and lets `key` go when it returns
        unit = self.unit_of(stmt)
        return isinstance(unit, FUNCTION_TYPES) and "." not in key and self._bound_fresh_before(unit, stmt, key) and \
            steps(nodes_within(unit, skip_loops=True)) and self._stays_in_call(unit, key, reductions=True)

    def _kept_within_a_call_that_updates_nothing(self, stmt: ast.AST, key: str, carried: List[ast.AST]) -> bool:
        """A local container made fresh in a function that steps no optimizer (directly or in
        a function of this module it calls), filled over counted iterations that each run a
        backward (an HMC or attack loop taking gradients with respect to its inputs), and
        dropped when the function returns: whatever runs the function, one call is at most a
        part of one training step, so what is kept does not outlive a step. Only over counted
        loops (`for i in range(n_steps)`; over batches an update may hide in a call out of
        view), and not when a step of another module or an abstract method's override runs."""
        unit = self.unit_of(stmt)
        counted = all(isinstance(loop, (ast.For, ast.AsyncFor)) and _counts(loop.iter) or _counter_while(loop)
                      for loop in carried) \
            and any(self.runs_training_step(loop) for loop in carried)  # (over rows of the data: an evaluation)
        # (reduced, `sum(losses)`, or handed back, `return outputs, loss_dict`: what leaves the
        # call holds the graphs of that one call, a part of one step; whoever keeps it across
        # steps is the one to report)
        if not (isinstance(unit, FUNCTION_TYPES) and "." not in key and counted
                and self._bound_fresh_before(unit, stmt, key)
                and self._stays_in_call(unit, key, reductions=True, returned=True)
                and not self._updates_within(unit)):
            return False
        # the backward in view: no step of another module nor an abstract method's override
        for call in self._calls_within(unit, skip_loops=False):
            target = self._resolve_call_cheap(call)
            if self._project_step_call(call) or target is not None and is_stub(target):
                return False
        return True

    def _kept_over_parts_of_one_batch(self, stmt: ast.AST, key: str, carried: List[ast.AST]) -> bool:
        """A local container that a framework's per-batch hook (a LightningModule's
        `training_step`) starts fresh, fills over the parts of the one batch it is handed
        (`for x_chunk, y_chunk in zip(x.tensor_split(k, dim=1), ...)`: truncated BPTT, or
        micro-batches, each with an update of its own) and drops or reduces before it returns:
        it lives one batch, whatever updates its parts take."""
        unit = self.unit_of(stmt)
        if not (isinstance(unit, FUNCTION_TYPES) and "." not in key and carried and self._framework_batch_hook(unit)):
            return False
        params = [a.arg for a in named_parameters(unit) if a.arg not in ("self", "cls")]
        if not params:
            return False
        batch = self.derived_names(unit, {params[0]})
        return all(self._iterates_parts_of(loop, batch) for loop in carried) \
            and self._bound_fresh_before(unit, stmt, key) and self._stays_in_call(unit, key, reductions=True)

    def _kept_over_repeated_updates_on_one_batch(self, stmt: ast.AST, carried: List[ast.AST]) -> bool:
        """A total restarted every batch by the data loop around it and carried only by a
        `for _ in range(k)` loop inside that repeats the update on the same batch (`for _ in
        range(hp.rep_discriminator)`, a critic's steps): it holds at most k graphs, each
        back-propagated in its iteration, and is let go with the batch."""
        if not carried or not all(isinstance(loop, (ast.For, ast.AsyncFor)) and _is_range_like(loop.iter, self)
                                  and not self.is_data_loop(loop) and self.has_backward_within(loop) for loop in carried):
            return False
        outer = self.loops_around(stmt)[len(carried):]
        return bool(outer) and self.is_data_loop(outer[0])

    def _framework_batch_hook(self, func: ast.AST) -> bool:
        """A method a framework calls once per batch with that batch as its first argument:
        a LightningModule's `*_step` hooks, a HuggingFace Trainer's `training_step`."""
        info = self.class_of(func)
        if info is None:
            return False
        if self.is_lightning_class(info):
            return func.name in ("training_step", "validation_step", "test_step", "predict_step")
        return func.name == "training_step" and self.is_hf_trainer_class(info)

    def _iterates_parts_of(self, loop: ast.AST, names: Set[str]) -> bool:
        """Does `loop` walk slices of a tensor computed from `names` (`zip(x.tensor_split(k),
        y.tensor_split(k))`, or names bound to such splits)?"""
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return False
        iterable = loop.iter
        while isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
                and len(iterable.args) == 1:
            iterable = iterable.args[0]
        zipped = isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "zip"
        parts = iterable.args if zipped else [iterable]
        if not parts or any(isinstance(p, ast.Starred) for p in parts):
            return False

        def slices(expr: ast.AST) -> bool:
            if not _is_slicing(expr) or not isinstance(expr.func, ast.Attribute):
                return False
            functional = isinstance(expr.func.value, ast.Name) and expr.func.value.id in ("torch", "th")
            sliced = (expr.args[0] if expr.args else None) if functional else expr.func.value
            return sliced is not None and _root_name(sliced) in names

        def part_of_batch(part: ast.AST) -> bool:
            if isinstance(part, ast.Name):
                definitions = self.reaching(self.unit_of(part)).definitions(part)
                values = [getattr(self.parent(d), "value", None) for d in definitions]
                return bool(values) and all(v is not None and slices(v) for v in values)
            return slices(part)
        return all(part_of_batch(p) for p in parts)

    def _bound_fresh_before(self, unit: ast.AST, stmt: ast.AST, key: str) -> bool:
        """Is `key` bound fresh, on every path, earlier in a block of `unit` (a function, or a
        loop: in each of its iterations) that holds `stmt` (`h_cache_list = []` in the branch
        whose loop fills it)?"""
        node = stmt
        while node is not unit and node is not None:
            block = self.block_holding(node)
            if block is not None:
                index = next(i for i, s in enumerate(block) if s is node)
                if self._always_rebinds(block[:index], key):
                    return True
            node = self.parent(node)
        return False

    def _stays_in_call(self, unit: ast.AST, key: str, reductions: bool = False, returned: bool = False) -> bool:
        """Is the local `key` a container only this call uses: every read of it indexes it,
        calls one of its methods, counts it or tests membership, never hands the object
        itself on (returned, stored, passed to a call) nor declares it global? With
        `reductions`, also when it is reduced to a new value (`torch.stack(losses).mean()`):
        asked of one update's micro-steps, where that value holds one step's graphs at most.
        With `returned`, also when the call hands it back to its caller (`return y_hats,
        loss_dict`): a new container each call, which the caller keeps or drops."""
        if key in self._globals_of(unit):
            return False
        for node in nodes_within(unit):
            if not (isinstance(node, ast.Name) and node.id == key and isinstance(node.ctx, ast.Load)):
                continue
            parent = self.parent(node)
            if isinstance(parent, (ast.Subscript, ast.Attribute)) and parent.value is node:
                continue
            if isinstance(parent, ast.Compare) and node in parent.comparators and \
                    all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops):
                continue
            if isinstance(parent, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops):
                continue  # `if total_loss is None:` (a late start): an identity test keeps nothing
            if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len":
                continue
            if isinstance(parent, ast.comprehension) and parent.iter is node:
                continue  # `[l.item() for l in losses]`: its items walked, the list itself kept nowhere
            if reductions and isinstance(parent, ast.Call) and node in parent.args and \
                    self._reduces_without_keeping(parent):
                continue
            if returned and (isinstance(parent, ast.Return) or isinstance(parent, ast.Tuple)
                             and isinstance(self.parent(parent), ast.Return)) \
                    and (self._results_kept_in_locals(unit) or self._a_module_forward(unit)):
                continue  # (a module's `forward` hands back a new total each call: whoever runs
                # the model keeps or drops it, and keeping it across steps is that caller's finding)
            return False
        return True

    def _a_module_forward(self, unit: ast.AST) -> bool:
        """`forward` (or `__call__`) of an `nn.Module` class of this module."""
        info = self.class_of(unit)
        return isinstance(unit, FUNCTION_TYPES) and unit.name in ("forward", "__call__") and info is not None \
            and self.is_module_class(info)

    def _results_kept_in_locals(self, unit: ast.AST) -> bool:
        """Is every call of `unit` in view, one at least, and none in another module, a
        statement that binds its result to plain local names (`y_hats, loss_dict =
        self.refine(x, y)`) or drops it? Then each caller rebinds what a call hands back on
        its next call: it lives one call of the caller's loop. (With no caller in view,
        nothing says how long the caller keeps it.)"""
        sites = self.call_sites(unit)
        if not sites or self.external_sites(unit):
            return False
        for call in sites:
            stmt = self.parent(call)
            if isinstance(stmt, ast.Expr):
                continue
            if not (isinstance(stmt, ast.Assign) and stmt.value is call and all(
                    isinstance(n, ast.Name) for target in stmt.targets for n in (
                        target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]))):
                return False
            if any(target.id in self._globals_of(self.unit_of(call)) for target in walk(stmt)
                   if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)):
                return False
        return True

    def _reduces_without_keeping(self, call: ast.Call) -> bool:
        """A call that reads a container and keeps nothing of the container itself:
        `len(losses)`, `sum(losses)`, `torch.stack(losses)`, `torch.cat(outs)` (a new tensor
        is made; whoever keeps that tensor is the one to report)."""
        if isinstance(call.func, ast.Name) and call.func.id in _REDUCING_BUILTINS:
            return True
        qual = self.qualname(call.func)
        return qual is not None and qual.startswith("torch.") and qual.rsplit(".", 1)[-1] in _TENSOR_BUILDERS

    def _persists_across_calls(self, unit: ast.AST, key: str) -> bool:
        """Is `key` state that outlives a call of `unit`: an attribute of the method's own
        `self`, a global, a module-level object or one of its attributes? An attribute of a
        parameter (`data.x` of the batch passed in) or of a local object is the caller's
        business or made fresh each call: unknown, so not state."""
        from torchleaklint.semantic.object_state import self_name

        root = key.partition(".")[0]
        if "." in key and self.class_of(unit) is not None and root == self_name(unit):
            return True
        if "." in key and self._parameter_is_module(unit, root):
            return True  # `policy.saved_log_probs` of the model handed in: the model lives on
        if "." in key and root in self.classes and root not in self.function_locals(unit):
            return True  # `Bottleneck.out_saved[i] = out`: an attribute of the class, shared by every instance
        return root in self._globals_of(unit) or self.is_module_global(unit, root) \
            or self.kept_by_the_enclosing_function(unit, root)

    def kept_by_the_enclosing_function(self, unit: ast.AST, name: str) -> bool:
        """Is `name` a free name of the nested function `unit` that the enclosing function
        binds once, outside the loops that call `unit` (`derivative_losses = []` before the
        loop whose `optimizer.step(closure)` runs the closure appending to it)? It then lives
        across the calls. Not when it is bound afresh in such a loop (a list made per step)."""
        if "." in name or not isinstance(unit, FUNCTION_TYPES):
            return False
        outer = self.unit_of(unit)
        if not isinstance(outer, FUNCTION_TYPES) or name in self.function_locals(unit):
            return False
        if not isinstance(outer, FUNCTION_TYPES) or name not in self.function_locals(outer) \
                or name in self._globals_of(outer):
            return False
        sites = [site for site in self.call_sites(unit) + self.optimizer_steps_handed(unit)
                 if self.unit_of(site) is outer]
        loops = {loop for site in sites for loop in self.loops_around(site)}
        definitions = [node for node in nodes_within(outer) if isinstance(node, ast.Name) and node.id == name
                       and isinstance(node.ctx, ast.Store)]
        return bool(sites and definitions) and not any(self.is_inside(d, loop) for d in definitions for loop in loops)

    def _flushed_by_its_module(self, unit: ast.AST, key: str) -> bool:
        """A module-level buffer that another function of the module empties (`EVENT_STORAGE
        .clear()` in `write_out_storage()`, not in the loop that fills it): how long it holds a
        value depends on when its callers flush it, which this module cannot tell."""
        if "." in key or not self.is_module_global(unit, key):
            return False
        for func in self.functions:
            if func is unit or not isinstance(func, FUNCTION_TYPES) or self.unit_of(func) is not self.tree:
                continue
            if any(isinstance(node, ast.Call) and self._resolve_call_cheap(node) is unit for node in nodes_within(func)):
                continue  # the training function that fills it, emptying it before it starts
            for node in nodes_within(func):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "clear" \
                        and dotted(node.func.value) == key and not node.args:
                    return True
                if isinstance(node, ast.Delete) and any(isinstance(t, ast.Subscript) and dotted(t.value) == key
                                                        for t in node.targets):
                    return True
                if isinstance(node, ast.Assign) and key in self._globals_of(func) and \
                        any(dotted(t) == key for t in node.targets):
                    return True
        return False

    def _parameter_is_module(self, unit: ast.AST, name: str) -> bool:
        if name not in {a.arg for a in named_parameters(unit)}:
            return False
        read = next((node for node in nodes_within(unit) if isinstance(node, ast.Name) and node.id == name
                     and isinstance(node.ctx, ast.Load)), None)
        return read is not None and self.value(read).kind == MODULE

    def _self_attribute_cut(self, unit: ast.AST, key: str) -> bool:
        """`self.total` of a method whose class detaches or restarts it between steps."""
        from torchleaklint.semantic.object_state import self_name

        receiver, _, attr = key.partition(".")
        attr = attr[:-2] if attr.endswith("[]") else attr  # `self.mem[]`: an entry of `self.mem`
        if not attr or "." in attr or self.class_of(unit) is None or self_name(unit) != receiver:
            return False
        return self.state_cut_between_steps(unit, attr)

    def is_module_global(self, unit: ast.AST, name: str) -> bool:
        """A plain name the function never binds, bound at module level (a module list), or
        one it declares `global` (`global global_attn` then `global_attn = ...`)."""
        if "." in name:
            return False
        if name in self._globals_of(unit):
            return True
        if name in self.function_locals(unit):
            return False
        return name in self.function_locals(self.tree)

    def function_locals(self, unit: ast.AST) -> Set[str]:
        key = ("locals", unit)
        if key not in self._memo:
            names: Set[str] = set()
            if isinstance(unit, FUNCTION_TYPES):
                names.update(a.arg for a in every_parameter(unit))
            for target, _ in self._stores_of(self._binding_statements().get(unit, ())):
                if isinstance(target, ast.Name):
                    names.add(target.id)
            self._memo[key] = names
        return self._memo[key]

    def _binding_statements(self) -> Dict[ast.AST, List[ast.AST]]:
        """Unit -> the statements of its body that may bind names (what `_stores_within` of the
        unit reads), from the index by type: one pass over those statements for the module, not
        a walk of every function."""
        key = ("binding_statements", None)
        if key not in self._memo:
            index: Dict[ast.AST, List[ast.AST]] = {}
            for kind in (ast.Assign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.Delete, ast.Expr):
                for node in self.by_type.get(kind, ()):
                    owner = next((a for a in self.ancestors(node) if isinstance(a, SCOPE_TYPES)), self.tree)
                    if isinstance(owner, (ast.Lambda, ast.ClassDef)):
                        continue  # a class body is no unit's (as `nodes_within` skips it)
                    index.setdefault(owner, []).append(node)
            self._memo[key] = index
        return self._memo[key]

    def feeds_backward(self, unit: ast.AST, key: str, gradient: bool = False) -> bool:
        """Does the value bound to `key` (a name, dotted attribute or container) flow into a
        backward of this unit? Flow-insensitive: `meta = torch.stack(task_losses).mean();
        meta.backward()` makes task_losses (and whatever was appended to it) feed one. With
        `gradient`, only through what gradients flow back along: `old = torch.stack(
        memory.logprobs).detach()` in the loss does not back-propagate `memory.logprobs`."""
        return key in self._backward_sources(unit, gradient)

    def state_fed_to_backward(self, unit: ast.AST) -> Set[str]:
        """The attributes of the method's own object (`self.memory.values`) that gradients of
        its backwards flow back to (`loss = ... torch.stack(self.memory.values) ...`)."""
        me = self_name(unit) if isinstance(unit, FUNCTION_TYPES) else None
        if me is None:
            return set()
        return {key for key in self._backward_sources(unit, gradient=True) if key.startswith(me + ".")}

    def stores_from_parameter(self, unit: ast.AST, param: str, keys: Set[str]) -> bool:
        """Does the function put a value computed from its parameter `param` into one of
        `keys` (attributes of its object, `self.memory.values.append(value)` of a forward that
        read `param`)?"""
        return param in self._computed_from_keys(unit, set(keys), param)

    def holds_no_graph_state(self, expr: ast.AST) -> bool:
        """Is `expr` a module of a class of this file (or of another module, from its summary)
        proven to keep nothing between calls (object_state.holds_no_graph_state)?"""
        from torchleaklint.semantic.object_state import holds_no_graph_state

        value = self.value(expr)
        if value.kind != MODULE or not value.name:
            return False
        if "." in value.name and self.project is not None:
            found = self.project.imported_summary(value.name)  # a class of another module
            return found is not None and found[0] == "class" and bool((found[1] or {}).get("nostate"))
        return holds_no_graph_state(self, value.name)

    def builds_its_graphs_afresh(self, method: ast.AST) -> bool:
        """Does every call of `method` compute its graphs from values made in that call
        (object_state.builds_its_graphs_afresh)?"""
        from torchleaklint.semantic.object_state import builds_its_graphs_afresh

        return builds_its_graphs_afresh(self, method)

    def backward_walks_only_fresh_graphs(self, method: ast.AST) -> bool:
        """Does the backward `method` runs walk only graphs made in the same call, whatever it
        is handed (object_state.backward_walks_only_fresh_graphs)?"""
        from torchleaklint.semantic.object_state import backward_walks_only_fresh_graphs

        return backward_walks_only_fresh_graphs(self, method)

    def set_only_at_construction(self, expr: ast.AST) -> bool:
        """`self.eps` read in a method of a class whose init-like methods alone store it: it
        holds what existed before any step (object_state.set_only_at_construction)."""
        from torchleaklint.semantic.object_state import set_only_at_construction

        if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"):
            return False
        unit = self.unit_of(expr)
        info = self.class_of(unit) if isinstance(unit, FUNCTION_TYPES) else None
        return info is not None and set_only_at_construction(self, info, expr.attr)

    def key_repeats_every_call(self, key: ast.AST) -> bool:
        """Does a container key take the same values on every call, so that a store into it
        overwrites a slot instead of adding an entry? A constant, or a loop variable of the
        unit over a fixed collection: a literal, `range(<constant>)`, or a `self` attribute
        only the init-like methods store (`for k, w in self.weights.items(): self.values[k] = v`).
        A key the code cannot prove fixed (a step counter, a batch index) is not."""
        if isinstance(key, ast.Constant):
            return True
        if isinstance(key, (ast.BinOp, ast.JoinedStr, ast.Tuple)):
            # `'conv%s' % (i + 1)`, `f"layer{i}"`, `(name, i)` of loop variables over fixed
            # collections: the same keys every call
            return self._built_from_fixed_targets(key)
        if not isinstance(key, ast.Name):
            return False
        definitions = self.reaching(self.unit_of(key)).definitions(key)
        return bool(definitions) and all(self._fixed_loop_target(d) or self._computed_from_fixed_targets(d)
                                         or self._literal_at_every_call(d) for d in definitions)

    def slot_fixed_across_iterations(self, stmt: ast.AST, key: str) -> bool:
        """Is `stmt` a store `c[k] = v` whose key `k` is a name no binding inside the loops that
        carry `c` changes (`probs_list[i] = probs` in a thread's `while` loop, `i` its
        parameter)? Every iteration then overwrites the same slot: one value kept, not one per
        iteration."""
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)
                and isinstance(stmt.targets[0].slice, ast.Name)):
            return False
        loops = self.carried_loops(stmt, key)
        definitions = self.reaching(self.unit_of(stmt)).definitions(stmt.targets[0].slice)
        return bool(loops and definitions) and not any(
            isinstance(d, ast.AST) and self.is_inside(d, loop) for d in definitions for loop in loops)

    def argument_position(self, func: ast.AST, param: ast.arg) -> Optional[int]:
        """The position of the argument a call passes for `param` (`obj.m(a)` binds `a` to the
        parameter after `self`), or None for a keyword-only parameter."""
        index = next((i for i, a in enumerate(positional_parameters(func)) if a is param), None)
        if index is not None and self.class_of(func) is not None and not is_staticmethod(func):
            index -= 1
        return index

    def _literal_at_every_call(self, definition: ast.AST) -> bool:
        """Is `definition` a parameter every call in view gives a literal, or leaves to a
        literal default (`tracker.track(x, "token_embeddings")`)? Calls exist in view and
        none spreads its arguments (`f(*args)`)."""
        if not isinstance(definition, ast.arg):
            return False
        unit = self.unit_of(definition)
        if not isinstance(unit, FUNCTION_TYPES) or definition in (unit.args.vararg, unit.args.kwarg):
            return False
        index = self.argument_position(unit, definition)
        default = _literal_default(unit, definition)
        local, external = self.call_sites(unit), self.external_sites(unit)
        if not local and not external:
            return False
        for call in local:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
                return False
            given = next((kw.value for kw in call.keywords if kw.arg == definition.arg), None)
            if given is None and index is not None and 0 <= index < len(call.args):
                given = call.args[index]
            if not (isinstance(given, ast.Constant) or given is None and default):
                return False
        for site in external:
            literal = site.get("lit", ())
            passed = definition.arg in site.get("kw", {}) or index is not None and 0 <= index < len(site.get("a", ()))
            if site.get("spread") or not (definition.arg in literal or index in literal if passed else default):
                return False
        return True

    def _computed_from_fixed_targets(self, definition: ast.AST) -> bool:
        """`loss_name = type(loss_layer).__name__` in a loop over the object's fixed list of
        loss modules: a name computed by builtins from loop variables over fixed collections
        takes the same values every call."""
        binding = self.parents.get(definition)
        if not (isinstance(binding, ast.Assign) and binding.targets == [definition]):
            return False
        return self._built_from_fixed_targets(binding.value)

    def _built_from_fixed_targets(self, expr: ast.AST) -> bool:
        """Does every name `expr` reads (besides the builtins `str`, `type`, `repr`, `int`, `len`)
        stand for a loop variable over a fixed collection, with at least one such read?"""
        # (`self.prefix + str(i)` reads `self`, no loop variable: not proven fixed)
        reads = [n for n in walk(expr) if isinstance(n, ast.Name)]
        if not reads:
            return False
        reaching = self.reaching(self.unit_of(expr))
        for read in reads:
            if isinstance(self.parents.get(read), ast.Call) and self.parents[read].func is read and \
                    read.id in ("str", "type", "repr", "int", "len"):
                continue
            found = reaching.definitions(read)
            if not found or not all(self._fixed_loop_target(d) or self._bound_to_a_fixed_count(d) for d in found):
                return False
        return True

    def _bound_to_a_fixed_count(self, definition: ast.AST) -> bool:
        """`prev = len(self.features)`: a name bound to a count fixed before any step."""
        binding = self.parents.get(definition)
        return isinstance(binding, ast.Assign) and binding.targets == [definition] and \
            self._fixed_count(binding.value, 0)

    def iterates_a_fixed_count(self, loop: ast.AST) -> bool:
        """A `for` over a collection fixed before any step (`range(2)`, `range(self.n_heads)`,
        a literal): its number of iterations does not grow with the data."""
        return isinstance(loop, (ast.For, ast.AsyncFor)) and self._fixed_collection(loop.iter)

    def _fixed_loop_target(self, definition: ast.AST) -> bool:
        """Is `definition` a loop variable that takes the same values on every call: bound
        from a fixed collection, or from the fixed part of a `zip`/`enumerate` (`for (i, rnn),
        s in zip(enumerate(self.rnns), state)`: `i` and `rnn` are fixed, `s` is not)?"""
        node, path = definition, []
        parent = self.parents.get(node)
        while isinstance(parent, (ast.Tuple, ast.List)):
            path.append(next(i for i, e in enumerate(parent.elts) if e is node))
            node, parent = parent, self.parents.get(parent)
        # (not over the epochs or steps of a loop that back-propagates: `for epoch in
        # range(self.epochs)` writes a new slot every epoch of the one call that trains)
        return isinstance(parent, (ast.For, ast.AsyncFor)) and parent.target is node and \
            self._fixed_part(parent.iter, path[::-1]) and not self.has_backward_within(parent)

    def _fixed_part(self, expr: ast.AST, path: List[int]) -> bool:
        """Does the part at `path` of each item `expr` yields take fixed values?"""
        if self._keys_of_a_handed_mapping(expr, path):
            return True
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and not expr.keywords \
                and not any(isinstance(a, ast.Starred) for a in expr.args):
            name, args = expr.func.id, expr.args
            if name in ("list", "tuple", "reversed", "sorted") and len(args) == 1:
                return self._fixed_part(args[0], path)
            if path and name == "zip" and path[0] < len(args):
                return self._fixed_part(args[path[0]], path[1:])
            if path and name == "enumerate" and len(args) == 1 and path[0] in (0, 1):
                # the counter counts the items: fixed when the collection is
                return self._fixed_collection(args[0]) if path[0] == 0 else self._fixed_part(args[0], path[1:])
        return self._fixed_collection(expr)

    def _fixed_count(self, expr: ast.AST, hops: int) -> bool:
        if isinstance(expr, ast.Constant):
            return True
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)):
            return self._fixed_count(expr.left, hops) and self._fixed_count(expr.right, hops)  # `self.num_layers - 1`
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and expr.args:
            return self._fixed_collection(expr.args[0], hops)
        return self.set_only_at_construction(expr)

    def _keys_of_a_handed_mapping(self, expr: ast.AST, path: List[int]) -> bool:
        """`celltype` of `for celltype, x in ppi_x.items()` (or of `ppi_x.keys()`), `ppi_x` a
        parameter: the keys of the mapping each call hands in (the cell types, the loss names).
        A store under them overwrites the same slots from call to call as far as the code
        shows: that the keys change from step to step cannot be proven."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and not expr.args
                and (expr.func.attr == "items" and path[:1] == [0] and len(path) == 1
                     or expr.func.attr == "keys" and not path)
                and isinstance(expr.func.value, ast.Name)):
            return False
        definitions = self.reaching(self.unit_of(expr)).definitions(expr.func.value)
        return bool(definitions) and all(isinstance(d, ast.arg) for d in definitions)

    def _fixed_collection(self, expr: ast.AST, hops: int = 0) -> bool:
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
                expr.func.attr in ("items", "keys", "values") and not expr.args:
            expr = expr.func.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
                expr.func.id in ("enumerate", "sorted", "reversed") and len(expr.args) == 1:
            return self._fixed_collection(expr.args[0], hops)
        if isinstance(expr, ast.Call) and dotted(expr.func) in ("OrderedDict", "collections.OrderedDict", "dict") \
                and len(expr.args) == 1 and not expr.keywords:
            return self._fixed_collection(expr.args[0], hops)  # `OrderedDict({"train": None, "dev": None})`
        if isinstance(expr, ast.Name) and hops < 2:  # `weights = self.weights` first
            definitions = self.reaching(self.unit_of(expr)).definitions(expr)
            bindings = [self.parents.get(d) for d in definitions]
            return bool(bindings) and all(
                isinstance(b, ast.Assign) and b.targets == [d] and self._fixed_collection(b.value, hops + 1)
                for b, d in zip(bindings, definitions))
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "range":
            # `range(4)`, `range(self.n_heads)`, `range(len(self.discriminators))`: a count fixed
            # before any step
            return all(self._fixed_count(a, hops) for a in expr.args)
        if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
            return all(isinstance(e, ast.Constant) for e in expr.elts)
        if isinstance(expr, ast.Dict):
            return all(isinstance(k, ast.Constant) for k in expr.keys)
        return self.set_only_at_construction(expr)

    def container_bounded(self, node: ast.AST, key: str) -> bool:
        """Does the code that fills the container `key` (stored into at `node`) bound its size:
        a `deque(maxlen=...)`, appends guarded by its length or followed by a removal
        (containers.bounded_container)? What it keeps then does not grow with the steps."""
        from torchleaklint.semantic.containers import bounded_container

        return bounded_container(self, node, key)

    def owned_out_of_view(self, expr: ast.AST) -> bool:
        """`self.trainer.train_loop.running_loss` in a method of a class that never stores
        `self.trainer`: an object set by code out of view (the framework), whose parts are of
        kinds nobody here can tell (object_state.stores_attribute)."""
        from torchleaklint.semantic.object_state import stores_attribute

        chain = []
        while isinstance(expr, ast.Attribute):
            chain.append(expr.attr)
            expr = expr.value
        if len(chain) < 2 or not (isinstance(expr, ast.Name) and expr.id == "self"):
            return False
        unit = self.unit_of(expr)
        info = self.class_of(unit) if isinstance(unit, FUNCTION_TYPES) else None
        return info is not None and not stores_attribute(self, info, chain[-1])

    def holds_no_parameters(self, expr: ast.AST) -> bool:
        """Is `expr` a module proven to hold no parameter (`nn.ReLU()`, a buffers-only class
        of this file or, from its summary, of another module)? Calling it records a graph
        only from an input that carries one."""
        from torchleaklint.semantic.dataflow import holds_no_parameters

        value = self.value(expr)
        if value.frozen:
            return True
        if not (value.kind == "module" and bool(value.name) and value.name in self.classes
                and holds_no_parameters(self, value.name)):
            return False
        # `self` in a base class may be an object of a subclass that adds parameters
        return not (isinstance(expr, ast.Name) and expr.id == "self" and self._subclassed(value.name))

    def classes_hold_no_parameters(self, value: Value) -> bool:
        """Is `value` a module whose class (each of its classes, when it is one of several) is
        proven to hold no parameter: of this file, or of another module by its summary's
        `noparams` (a loss wrapper holding only `nn.NLLLoss()` and the like)?"""
        from torchleaklint.semantic.dataflow import holds_no_parameters

        names = [value.name] if value.name else list(value.alts or ())
        if value.kind != "module" or not names:
            return False
        for name in names:
            if name in self.classes:
                if not holds_no_parameters(self, name) or self._subclassed(name):
                    return False
                continue
            found = self.project.imported_summary(name) if self.project is not None and "." in name else None
            if found is None or found[0] != "class" or not isinstance(found[1], dict) or not found[1].get("noparams"):
                return False
        return True

    def _subclassed(self, class_name: str) -> bool:
        """Does a class of this module, or of another module of the project, inherit from the
        class `class_name` of this module?"""
        if any(other.name != class_name and class_name in self.class_bases(other) for other in self.classes.values()):
            return True
        info = self.classes.get(class_name)
        if self.project is None or info is None:
            return False
        from torchleaklint.project import modules

        qual = f"{modules.module_name(self.path) or ''}.{class_name}"
        return any(self.project.owner_descendants(name, qual) for name in sorted(info.methods))

    def feeds_the_step(self, stmt: ast.AST, key: str) -> bool:
        """Is the value accumulated into `key` at `stmt` read back into the step's own
        computation: handed to a forward (`self.model(self.positions)`), or returned by a
        function that accumulates once per call (`return torch.cos(x + self.state)` in a
        `forward`), directly or through other bindings of the unit? Then it is the state of
        a recurrence (a simulator's velocity, a decaying trace), not a running total, and
        detaching what is added would change the gradients."""
        from torchleaklint.semantic.values import MODULE

        unit = self.unit_of(stmt)
        # (what it returns goes on only where some caller uses it: `self.baseline.step(value)`
        # as a statement of its own drops `return self.mean`)
        per_call = not self.loops_around(stmt) and not self.result_dropped_by_every_caller(unit)
        sinks: Set[str] = set()
        for node in nodes_within(unit):
            if isinstance(node, ast.Call) and node is not stmt and self.value(node.func).kind == MODULE:
                for arg in list(node.args) + [kw.value for kw in node.keywords]:
                    sinks |= self._live_keys(arg)
            elif per_call and isinstance(node, ast.Return) and node.value is not None:
                sinks |= self._live_keys(node.value)
        sinks |= self._read_through_properties(unit, sinks)
        return key in self._computed_from_keys(unit, sinks, key)

    def _read_through_properties(self, unit: ast.AST, keys: Set[str]) -> Set[str]:
        """For the keys `self.<name>` where the class (or a base of this file) defines `name` as
        a property (`return self.x[:self.nq]`): the attributes of `self` its body reads, under
        the unit's own name for `self`. Reading the property reads them."""
        receiver = self_name(unit) if isinstance(unit, FUNCTION_TYPES) else None
        info = self.class_of(unit) if receiver is not None else None
        out: Set[str] = set()
        for key in keys if info is not None else ():
            owner, _, name = key.partition(".")
            prop = self._defined_by_class_or_base(info, name) if owner == receiver and "." not in name else None
            if prop is None or not is_property(prop):
                continue
            inner = self_name(prop)
            out |= {f"{receiver}.{n.attr}" for n in walk(prop) if isinstance(n, ast.Attribute)
                    and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) and n.value.id == inner}
        return out

    def _defined_by_class_or_base(self, info, name: str) -> Optional[ast.AST]:
        """The method `name` of the class, else of its nearest base defined in this file."""
        seen = set()
        while info is not None and info.name not in seen:
            seen.add(info.name)
            if name in info.methods:
                return info.methods[name]
            info = next((self.classes[b.rsplit(".", 1)[-1]] for b in info.base_names
                         if b.rsplit(".", 1)[-1] in self.classes), None)
        return None

    def result_dropped_by_every_caller(self, unit: ast.AST) -> bool:
        """Is every call of `unit` in view (one at least, here or in the project's other
        modules) a statement of its own, dropping what it returns? Not for a method a
        framework may call (a `forward`, a per-step hook), whose callers are out of view."""
        if not isinstance(unit, FUNCTION_TYPES) or unit.name in ("forward", "__call__") \
                or self.is_per_batch_hook(unit) or self.is_hf_trainer_step_hook(unit):
            return False
        local = self.call_sites(unit)
        external = self.external_sites(unit)
        if not local and not external or self.calls_by_method_name(unit)[0]:
            return False  # (called by name on objects of unknown class: what those do with it is unknown)
        return all(self.result_dropped_at(call) for call in local) and all(site.get("dr") for site in external)

    def result_dropped_at(self, call: ast.Call) -> bool:
        """Does the caller drop what `call` returns: a statement of its own, or bound to a name
        whose every read only cuts it (`_bound_to_a_name_never_read`)?"""
        return isinstance(self.parent(call), ast.Expr) or self._bound_to_a_name_never_read(call)

    def returns_what_it_back_propagated(self, func: ast.AST) -> bool:
        """Does every return of `func` hand back a name that a training backward of its own
        body, run on every path before the return, differentiated (`loss.backward();
        self.optimizer.step(); return loss` in a `train_step`)? Its callers get a graph the
        backward freed: nodes, no activations."""
        if not isinstance(func, FUNCTION_TYPES):
            return False
        top = {id(stmt) for stmt in func.body}
        done = {target.id: call.lineno for call in self.backward_calls_in(func)
                if self.is_training_backward(call) and isinstance(self.parent(call), ast.Expr)
                and id(self.parent(call)) in top
                for target in [self.backward_target(call)] if isinstance(target, ast.Name)}
        returns = [node for node in nodes_within(func) if isinstance(node, ast.Return)]
        return bool(returns) and all(isinstance(r.value, ast.Name) and r.value.id in done
                                     and done[r.value.id] < r.lineno for r in returns)

    def returned_after_its_backward(self, read: ast.Name) -> bool:
        """Is every value `read` may see bound from a call of a function that returns what it
        back-propagated (`loss = self.train_step(x, y)`, the step in a base class of another
        module: its summary's `rbp`)?"""
        from torchleaklint.semantic.dataflow import _inherited_entry

        definitions = list(self.reaching(self.unit_of(read)).definitions(read))
        if not definitions:
            return False
        for definition in definitions:
            stmt = self.parent(definition)
            call = stmt.value if isinstance(stmt, ast.Assign) and stmt.targets == [definition] else None
            if not isinstance(call, ast.Call):
                return False
            local = self.resolve_call(call)
            if isinstance(local, FUNCTION_TYPES):
                if not self.returns_what_it_back_propagated(local):
                    return False
                continue
            entry = self.other_module_entry(call) or (
                _inherited_entry(self, call) if isinstance(call.func, ast.Attribute) else None)
            if not (entry or {}).get("rbp"):
                return False
        return True

    def _bound_to_a_name_never_read(self, call: ast.Call) -> bool:
        """`shown = smooth.update(loss)` where no read of the function sees that binding, or
        every read that does only cuts the value (`float(shown)` in a progress line): what
        the call returns is dropped as surely as by a statement of its own."""
        stmt = self.parent(call)
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            return False
        target, unit = stmt.targets[0], self.unit_of(call)
        if self.is_module_global(unit, target.id) or not isinstance(unit, FUNCTION_TYPES):
            return False
        reaching = self.reaching(unit)
        return all(self.value_killed_at(node) for node in nodes_within(unit)
                   if isinstance(node, ast.Name) and node.id == target.id and isinstance(node.ctx, ast.Load)
                   and target in reaching.definitions(node))

    def computed_from(self, unit: ast.AST, key: str, expr: ast.AST) -> bool:
        """Is the value bound to `key` among what `expr` is computed from, directly or
        through the unit's bindings (flow-insensitive, like `feeds_backward`)?"""
        return key in self._computed_from_keys(unit, _read_keys(expr), key)

    def _computed_from_keys(self, unit: ast.AST, keys: Set[str], until: Optional[str] = None,
                            gradient: bool = False) -> Set[str]:
        """`keys` and every key the unit computes them from, through its bindings and
        container additions (a fixed point; stops early once `until` is in). With `gradient`,
        only what gradients flow back to: `old = torch.stack(memory.logprobs).detach()` does not
        make `memory.logprobs` a source of a loss computed from `old`."""
        flows = list(self._flows_within(unit, _gradient_read_keys if gradient else _read_keys))
        return _spread(flows, keys, until)

    def _live_keys(self, expr: ast.AST) -> Set[str]:
        """The names and dotted attributes `expr` reads as values that go on (not under a
        graph killer such as `.item()`, nor inside a part detached as a whole: `(1 /
        self.ma_et).detach()`)."""
        flowing = _gradient_read_keys(expr)
        return {key for n in walk(expr) if isinstance(n, (ast.Name, ast.Attribute))
                and isinstance(n.ctx, ast.Load) and not self.value_killed_at(n)
                for key in [dotted(n)] if key is not None and key in flowing}

    def backward_operands(self, unit: ast.AST) -> Set[str]:
        """The names and dotted attributes a backward of the unit reads directly (`loss` in
        `scaler.scale(loss / n).backward()`): what is differentiated, not what it came from."""
        return self.cached(("backward_operands", unit), lambda: set().union(
            *(_read_keys(self.backward_target(call)) for call in self.backward_calls_in(unit))))

    def loss_terms(self, unit: ast.AST) -> Set[str]:
        """The names and dotted attributes a backward of the unit differentiates as they are
        or as terms of an arithmetic combination (`loss = (l1 + l2) / 2 * alpha + aux`;
        `loss.backward()`): each is a loss itself, not a prediction a criterion turns into one."""
        def arithmetic(expr) -> bool:
            if isinstance(expr, (ast.Name, ast.Attribute, ast.Constant)):
                return True
            if isinstance(expr, ast.BinOp):
                return arithmetic(expr.left) and arithmetic(expr.right)
            if isinstance(expr, ast.UnaryOp):
                return arithmetic(expr.operand)
            return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
                and expr.func.attr in _REDUCTIONS and not expr.keywords \
                and all(isinstance(a, ast.Constant) for a in expr.args) and arithmetic(expr.func.value)

        def build() -> Set[str]:
            terms = set(self.backward_operands(unit))
            bindings = [node for node in nodes_within(unit) if isinstance(node, (ast.Assign, ast.AugAssign))
                        and arithmetic(node.value)]
            changed = True
            while changed:
                changed = False
                for node in bindings:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if len(targets) == 1 and dotted(targets[0]) in terms and not _read_keys(node.value) <= terms:
                        terms |= _read_keys(node.value)
                        changed = True
            return terms

        return self.cached(("loss_terms", unit), build)

    def _backward_sources(self, unit: ast.AST, gradient: bool = False) -> Set[str]:
        memo_key = ("backward_sources", unit, gradient)
        if memo_key in self._memo:
            return self._memo[memo_key]
        if memo_key in self._memo_until_settled:
            self.read_provisional(memo_key)
            return self._memo_until_settled[memo_key]
        from torchleaklint.semantic.dataflow import arguments_handed_to_backward

        settled = self._settled()
        self._memo[memo_key] = set()  # recursion guard: functions handing values to each other
        sources: Set[str] = set()
        for call in self.backward_calls_in(unit):
            keys = _read_keys(self.backward_target(call))
            sources |= keys | self._comprehension_sources(call, keys)
        for argument in arguments_handed_to_backward(self, unit):
            sources |= _read_keys(argument)  # `self.optimize(opt, d_loss)` of a base class that back-propagates it
        sources = self._computed_from_keys(unit, sources, gradient=gradient)
        if settled:
            self._memo[memo_key] = sources
        else:
            # read while a data flow is being computed (`x.backward(g)` tells a tensor's backward
            # from an accelerator's by the receiver's value): provisional, kept only until that
            # computation ends (its readers provisional too: recomputing it at every ask made
            # chains of helpers handing values on cost exponential time)
            del self._memo[memo_key]
            self._memo_until_settled[memo_key] = sources
        return sources

    def _comprehension_sources(self, node: ast.AST, keys: Set[str]) -> Set[str]:
        """What the comprehensions around `node` iterate, for those of `keys` they bind:
        `[autograd.grad(l, ...) for l in lls]` differentiates what `lls` holds. (Kept to the
        comprehension: its variable is not the function's name of the same spelling.)"""
        out: Set[str] = set()
        for outer in self.ancestors(node):
            if isinstance(outer, FUNCTION_TYPES) or isinstance(outer, ast.stmt):
                break
            if isinstance(outer, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                for gen in outer.generators:
                    if {dotted(leaf) for leaf in _target_leaves(gen.target)} & keys:
                        out |= _read_keys(gen.iter)
        return out

    def _flows_within(self, unit: ast.AST, read_keys=None):
        """(keys written, keys read) for every binding and container addition of the unit,
        the reads found by `read_keys` (every name and dotted attribute by default)."""
        from torchleaklint.semantic.dataflow import container_addition

        read_keys = read_keys or _read_keys
        for node in nodes_within(unit):
            per_item = self._tuple_result_flows(node, read_keys is not _read_keys) \
                if isinstance(node, ast.Assign) else None
            if per_item is not None:
                yield from per_item
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                written = {_container_key(leaf) for t in targets for leaf in _target_leaves(t)} - {None}
                yield written, read_keys(node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                written = {_container_key(leaf) for leaf in _target_leaves(node.target)} - {None}
                yield written, read_keys(node.iter)
            elif isinstance(node, ast.Call):
                added = container_addition(node)
                owner = _container_key(node.func.value) if added is not None else None
                if owner is not None:
                    yield {owner}, read_keys(added[0])

    def _tuple_result_flows(self, node: ast.Assign, gradient: bool = False):
        """(keys written, keys read) per target of `a, b = f(...)` (`result_item_arguments`);
        None when the items cannot be told apart (the flow then reads every argument). With
        `gradient`, an item is computed from the arguments gradients flow back to only."""
        items = self.result_item_arguments(node, gradient)
        if items is None:
            return None
        read = _gradient_read_keys if gradient else _read_keys
        return [({_container_key(leaf) for leaf in _target_leaves(elt)} - {None},
                 set().union(*(read(arg) for arg in args)))
                for elt, args in zip(node.targets[0].elts, items)]

    def result_item_arguments(self, node: ast.AST, gradient: bool = False) -> Optional[List[List[ast.AST]]]:
        """`yy, xx = self._shrink(x, yy, xx)` with `_shrink` of this module returning
        `(yy, x_new)` on every path: per target, the caller's expressions its item is computed
        from (`xx` from `x` and `yy`, not from the old `xx`; the receiver for what the callee
        reads of `self`). None when that cannot be told."""
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            return None
        target, call = node.targets[0], node.value
        if not isinstance(target, (ast.Tuple, ast.List)) or not isinstance(call, ast.Call) or \
                any(isinstance(e, ast.Starred) for e in target.elts) or \
                any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
            return None
        callee = self._resolve_call_cheap(call)
        if not isinstance(callee, FUNCTION_TYPES):
            return None
        items = self._returned_item_sources(callee, len(target.elts), gradient)
        if items is None:
            return None
        params = [a.arg for a in positional_parameters(callee)]
        bound: Dict[str, ast.AST] = {}
        if isinstance(call.func, ast.Attribute) and params and params[0] in ("self", "cls"):
            bound[params[0]], params = call.func.value, params[1:]
        bound.update(zip(params, call.args))
        bound.update({kw.arg: kw.value for kw in call.keywords})
        return [[bound[source] for source in sorted(sources) if source in bound] for sources in items]

    def _returned_item_sources(self, func: ast.AST, size: int, gradient: bool = False) -> Optional[List[Set[str]]]:
        """For a function whose every return is a tuple of `size` items, the parameters
        (`self` for any of its attributes) each item is computed from (with `gradient`, those
        gradients flow back to: not `mean_path_length` read as `float(mean_path_length)`);
        else None."""
        key = ("returned_item_sources", func, size, gradient)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None  # recursion guard: not known
        returns = [n for n in nodes_within(func) if isinstance(n, ast.Return)]
        if not returns or any(not isinstance(r.value, ast.Tuple) or len(r.value.elts) != size or
                              any(isinstance(e, ast.Starred) for e in r.value.elts) for r in returns) or \
                self.yields(func):
            return None
        params = {a.arg for a in every_parameter(func)}
        items: List[Set[str]] = [set() for _ in range(size)]
        for ret in returns:
            for i, elt in enumerate(ret.value.elts):
                keys = self._computed_from_keys(func, (_gradient_read_keys if gradient else _read_keys)(elt),
                                                gradient=gradient)
                items[i] |= {k.split(".", 1)[0] for k in keys if k.split(".", 1)[0] in params}  # `self.beta` -> self
        self._memo[key] = items
        return items

    def steps_once_per_call(self, func: ast.AST) -> bool:
        """Does each call of the function run one training step itself: a backward or an
        update outside any loop of its own (`agent.learn(mem)`)? A function that loops over
        batches and steps inside that loop is a pass, not a step."""
        return self.cached(("steps_once_per_call", func), lambda: bool(self.step_ops_in(func))
                           and not self._updates_in_loops(self.step_ops_in(func, direct_only=False)))

    def is_per_step_function(self, func: ast.AST) -> bool:
        """A module-level function called inside a training loop of this module (or of
        another module of the project)."""
        for site in self.call_sites(func) + self.optimizer_steps_handed(func):
            if any(self.is_step_loop(loop) for loop in self.loops_around(site)):
                return True
        return any(site["st"] for site in self.external_sites(func))

    def optimizer_steps_handed(self, func: ast.AST) -> List[ast.Call]:
        """The optimizer steps handed `func` as their closure (`optimizer.step(closure)` next to
        `def closure(): ...` in the same function): each step calls it (once, or a few times
        for L-BFGS)."""
        if not isinstance(func, FUNCTION_TYPES):
            return []
        candidates = self.cached(("step_calls_handed",), self._index_step_calls_handed).get(func, [])
        return [call for call in candidates if self.is_optimizer_step(call)]

    def _index_step_calls_handed(self) -> Dict[ast.AST, List[ast.Call]]:
        """Nested function -> the `.step(...)` calls handed it, from one pass over the module's
        calls (a pure function of the tree: whether each is an optimizer's is asked later)."""
        index: Dict[ast.AST, List[ast.Call]] = {}
        for call in self.calls:
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step"):
                continue
            for arg in list(call.args[:1]) + [k.value for k in call.keywords if k.arg == "closure"]:
                closure = self._handed_closure(call, arg)
                if closure is not None:
                    index.setdefault(closure, []).append(call)
        return index

    def global_writers(self, name: str) -> List[ast.AST]:
        """The functions that declare `name` global and bind it (`global FID_MODEL` then
        `FID_MODEL = model`), from one index of the module's `global` statements."""
        index = self.cached(("global_writers",), self._index_global_writers)
        return index.get(name, [])

    def _index_global_writers(self) -> Dict[str, List[ast.AST]]:
        index: Dict[str, List[ast.AST]] = {}
        for node in self.nodes(ast.Global):
            unit = self.unit_of(node)
            if not isinstance(unit, FUNCTION_TYPES):
                continue
            for name in node.names:
                if unit not in index.get(name, ()) and any(
                        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                        for n in nodes_within(unit)):
                    index.setdefault(name, []).append(unit)
        return index

    def _globals_of(self, unit: ast.AST) -> Set[str]:
        """The names the function declares `global` or `nonlocal` (one walk per function)."""
        return self.cached(("globals_of", unit), lambda: {
            name for node in self.nodes(ast.Global, ast.Nonlocal) if self.is_inside(node, unit) for name in node.names}
            if isinstance(unit, FUNCTION_TYPES) else set())

    # ------------------------------------------------------ per-step methods
    def has_per_step_name(self, name: str) -> bool:
        """Is `name` one of the per-step method names (`forward`, `step`, `*_step` or the
        configured ones), and not an init-like or setup one (`setup_step`, `init_states`)?"""
        if name in INIT_METHODS or name.lstrip("_").startswith(_SETUP_PREFIXES):
            return False
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.per_step_patterns())

    def per_step_patterns(self) -> Tuple[str, ...]:
        if self.settings is not None and getattr(self.settings, "per_step_methods", None):
            return tuple(self.settings.per_step_methods)
        return DEFAULT_PER_STEP_METHODS

    def is_per_batch_hook(self, func: ast.AST) -> bool:
        """A method named like a hook a framework calls once per batch (`on_train_batch_end`)."""
        return self.class_of(func) is not None and any(
            fnmatch.fnmatchcase(func.name, pattern) for pattern in PER_BATCH_HOOKS)

    def is_per_step_method(self, func: ast.AST, through_other_objects: bool = False,
                           other_modules: bool = True) -> Optional[str]:
        """Why `func` runs once per step: its name, or the call site in a training loop, or a
        per-step method of its class calling it (with `through_other_objects`, also a per-step
        method of another class: a meter set's `update` calling its meters' `update`).
        Returns None for a method that does not. Without `other_modules`, only training loops
        of this module count (the spec's per-step method for TLL002)."""
        if self.class_of(func) is None:
            return None
        name = func.name
        if name in INIT_METHODS or name.lstrip("_").startswith(_SETUP_PREFIXES):
            return None  # `setup_step`, `_setup_step`, `init_states`: run once before the steps, whatever the suffix
        if self.has_per_step_name(name):
            return f"`{name}` runs once per step"
        if self.is_hf_trainer_step_hook(func):
            return f"`{name}` runs once per step (the HuggingFace Trainer calls it for every batch)"
        site = self.training_loop_call_site(func, other_modules)
        if site is not None:
            return f"`{name}` is called in the training loop at {self.site_label(site)}"
        caller = self._per_step_method_calling(func, other_classes=through_other_objects)
        if caller is not None:
            return f"`{name}` is called by `{caller.name}`, which runs once per step"
        found = self.called_by_a_function_of_the_training_loop(func, other_modules)
        if found is not None:
            inner, outer = found
            return f"`{name}` is called by `{self.unit_of(inner).name}` (line {inner.lineno}), " \
                   f"which the training loop calls at {self.site_label(outer)}"
        return None

    def called_by_a_function_of_the_training_loop(self, func: ast.AST,
                                                  other_modules: bool = True) -> Optional[Tuple[ast.Call, object]]:
        """A call of `func` (by name, or through a callback it was handed as: `agent_act(s)` in
        `rollout(ac.take_action)`) in a module function that a training loop calls, outside
        any condition of that function: `func` runs at least once per step. The inner call and
        the training loop's call of its function."""
        for site in sorted(self.call_sites(func), key=lambda c: (c.lineno, c.col_offset)):
            caller = self.unit_of(site)
            if caller is func or not isinstance(caller, FUNCTION_TYPES) or self.class_of(caller) is not None \
                    or self._under_a_test(site, caller):
                continue
            if isinstance(site.func, ast.Name) and site.func.id in {a.arg for a in named_parameters(caller)}:
                outer = self._site_handing(caller, func)  # a callback: the loop must hand this one in
            else:
                outer = self.training_loop_call_site(caller, other_modules)
            if outer is not None:
                return site, outer
        return None

    def _site_handing(self, caller: ast.AST, func: ast.AST) -> Optional[ast.Call]:
        """The call of `caller` in a training loop that hands it `func` (`rollout(ac.take_action)`)."""
        for site in self.call_sites(caller):
            handed = [a for a in list(site.args) + [k.value for k in site.keywords]
                      if isinstance(a, (ast.Attribute, ast.Name)) and (getattr(a, "attr", None) or getattr(a, "id", None)) == func.name]
            if handed and any(self.runs_training_step(loop) or self.has_backward_within(loop)
                              for loop in self.loops_around(site)):
                return site
        return None

    def _per_step_method_calling(self, func: ast.AST, depth: int = 0, other_classes: bool = False) -> Optional[ast.AST]:
        """A method of the same class (with `other_classes`, of any class), run once per step by
        its name or its call in a training loop, that calls `func` outside any loop and condition
        of its own (`set_forward_loss` -> `self.set_forward(x)`; a meter set's `update` ->
        `self.meters[name].update(value, n)`): `func` runs once per step too."""
        info = self.class_of(func)
        for site in self.call_sites(func):
            caller = self.unit_of(site)
            if caller is func or not isinstance(caller, FUNCTION_TYPES) or self.class_of(caller) is None \
                    or not isinstance(site.func, ast.Attribute) \
                    or self.loops_around(site) or self._under_a_test(site, caller):
                continue
            if not other_classes and (self.class_of(caller) is not info or dotted(site.func.value) != "self"):
                continue
            if caller.name in INIT_METHODS or caller.name.lstrip("_").startswith(_SETUP_PREFIXES):
                continue
            if self.has_per_step_name(caller.name) \
                    or self.is_hf_trainer_step_hook(caller) or self.training_loop_call_site(caller) is not None \
                    or depth < 1 and self._per_step_method_calling(caller, depth + 1, other_classes) is not None:
                return caller
        return None

    def _under_a_test(self, node: ast.AST, unit: ast.AST) -> bool:
        """Is `node` under an `if`, a conditional expression, a `try` handler or a boolean
        operator inside `unit`?"""
        for anc in self.ancestors(node):
            if anc is unit:
                return False
            if isinstance(anc, (ast.If, ast.IfExp, ast.BoolOp, ast.ExceptHandler, ast.Match)):
                return True
        return False

    def training_loop_call_site(self, func: ast.AST, other_modules: bool = True) -> Optional[ast.Call]:
        """The first call of `func` made inside a training loop (a loop that runs backward or
        an optimizer step) in this module, else in another; of those, the first that hands
        it a graph-carrying argument when one does (`ave_loss.add(loss)`, not
        `ave_acc.add(acc)` above it). None when there is none."""
        found = [site for site in sorted(self.call_sites(func), key=lambda c: (c.lineno, c.col_offset))
                 if any(self.runs_training_step(loop) or self.has_backward_within(loop)
                        for loop in self.loops_around(site))]
        if other_modules:
            found += [ExternalCall(site, func) for site in self.external_sites(func)
                      if (site["tr"] or site.get("ps")) and not site["ng"]]
        return next((site for site in found if self._hands_a_graph(site)), found[0] if found else None)

    def _hands_a_graph(self, site) -> bool:
        if isinstance(site, ExternalCall):
            from torchleaklint.project.summary import decode

            return any(decode(arg).kind == GRAPH for arg in list(site.site["a"]) + list(site.site["kw"].values()))
        return any(self.carries_graph(arg) for arg in list(site.args) + [kw.value for kw in site.keywords])

    def framework_runs_without_grad(self, func: ast.AST) -> bool:
        """A hook a framework calls with autograd off: Lightning's validation/test/predict
        steps, a HuggingFace Trainer subclass's evaluation hooks, a torchmetrics `Metric`'s
        `update`."""
        info = self.class_of(func)
        if info is None:
            return False
        name = func.name
        if self.is_lightning_class(info):
            return name in LIGHTNING_NO_GRAD_HOOKS or name.startswith(("on_validation_", "on_test_", "on_predict_"))
        if self.is_hf_trainer_class(info):
            return name in HF_TRAINER_EVAL_HOOKS
        if name == "update" and any(b.startswith("torchmetrics.") and b.rsplit(".", 1)[-1] == "Metric"
                                    for b in self.class_bases(info)):
            # torchmetrics wraps `update` in `torch.set_grad_enabled(self._enable_grad)`, off unless
            # `forward` turns it on for one batch's value: no graph is proven to be kept
            return True
        return False

    def is_hf_trainer_step_hook(self, func: ast.AST) -> bool:
        """`compute_loss` / `training_step` of a HuggingFace Trainer subclass: the Trainer
        calls it for every training batch, with the model it trains."""
        info = self.class_of(func)
        return info is not None and func.name in HF_TRAINER_STEP_HOOKS and self.is_hf_trainer_class(info)

    def is_lightning_class(self, info: ClassInfo) -> bool:
        return info.name in LIGHTNING_BASES or self.class_is(info, *LIGHTNING_BASES)

    def is_hf_trainer_class(self, info: ClassInfo) -> bool:
        return any(b.startswith("transformers.") and b.endswith("Trainer") for b in self.class_bases(info))

    # ------------------------------------------------------ attribute state
    def attribute_loads(self, attr: str) -> List[ast.Attribute]:
        """Every read of an attribute named `attr` in the module, on any receiver."""
        key = ("attribute_loads", None)
        if key not in self._memo:
            index: Dict[str, List[ast.Attribute]] = {}
            for node in self.by_type.get(ast.Attribute, []):
                if isinstance(node.ctx, ast.Load):
                    index.setdefault(node.attr, []).append(node)
            self._memo[key] = index
        return self._memo[key].get(attr, [])

    def dynamic_attribute_reads(self, attr: str) -> List[ast.Call]:
        """Reads of an attribute named `attr` by a computed name: `getattr(self, "loss_" + name)`,
        `getattr(self, f"loss_{name}")` (the pix2pix family's loss bookkeeping), whose literal
        prefix `attr` starts with."""
        key = ("dynamic_attribute_reads", None)
        if key not in self._memo:
            found: List[Tuple[str, ast.Call]] = []
            for node in self.by_type.get(ast.Call, []):
                if isinstance(node.func, ast.Name) and node.func.id == "getattr" and len(node.args) >= 2:
                    prefix = _literal_prefix(node.args[1])
                    if prefix:
                        found.append((prefix, node))
            self._memo[key] = found
        return [call for prefix, call in self._memo[key] if attr.startswith(prefix)]

    def value_killed_at(self, expr: ast.AST) -> bool:
        """The value of `expr` is only used through a graph killer (`x.detach()`, `x.item()`,
        `float(x)`), an identity test (`x is None`) or a comparison (`x > 0`): no graph flows on
        from here."""
        parent = self.parents.get(expr)
        # climb through method chains that keep the graph: `x.norm().cpu().item()`, and
        # through indexing: `model(x)[:, 0].detach()`
        while isinstance(parent, ast.Subscript) and parent.value is expr and not _indices_of(expr, parent) or \
                isinstance(parent, ast.Attribute) and parent.attr not in torch_api.GRAPH_KILLER_METHODS \
                and parent.attr != "data" and isinstance(self.parents.get(parent), ast.Call) \
                and self.parents[parent].func is parent:
            expr = parent if isinstance(parent, ast.Subscript) else self.parents[parent]
            parent = self.parents.get(expr)
        if isinstance(parent, ast.Attribute) and (parent.attr in torch_api.GRAPH_KILLER_METHODS
                                                   or parent.attr == "data"):
            return True
        if isinstance(parent, ast.Subscript) and _indices_of(expr, parent):
            return True  # `pred.max(3)[1]`: the indices, with no graph
        if isinstance(parent, ast.Attribute) and torch_api.is_nondiff_attribute(parent.attr):
            return True
        if isinstance(parent, ast.Attribute) and parent.attr in ("size", "dim", "numel", "nelement", "element_size"):
            return True  # `x.size(0)`: a number
        if isinstance(parent, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops):
            return True
        if isinstance(parent, ast.Compare) and all(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq,
                                                                   ast.NotEq)) for op in parent.ops):
            return True  # `model(x) > 0`: a comparison's result is a mask, with no graph
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and \
                parent.func.id in torch_api.SCALAR_BUILTINS and expr in parent.args:
            return True
        return False

    def runs_backward_in_another_module(self, call: ast.Call) -> bool:
        """Is the call one of a function of another module of the project whose summary says
        it back-propagates (`feature_consistency_backward(code, noisy)` imported from
        losses.py)?"""
        if self.project is None:
            return False
        callee = self.value(call.func)
        if callee.kind != "ref" or not callee.name:
            return False
        found = self.project.imported_summary(callee.name)
        return found is not None and found[0] == "function" and bool((found[1] or {}).get("bw"))

    def result_back_propagated(self, call: ast.Call) -> bool:
        """Does a backward of the call's own function differentiate a value computed from
        the call's result (`loss = crit(model.predict(x), y); loss.backward()`)?"""
        from torchleaklint.semantic.dataflow import arguments_handed_to_backward

        unit = self.unit_of(call)
        bound = self._bound_by_statement_of(call)
        for backward in self.backward_calls_in(unit):
            target = self.backward_target(backward)
            if target is not None and (self.is_inside(call, target)
                                       or any(self.computed_from(unit, key, target) for key in bound)):
                return True
        # handed to a function that back-propagates it (`discriminator_step(net_d, gt, d_fake, opt)`)
        return any(self.is_inside(call, argument) or any(self.computed_from(unit, key, argument) for key in bound)
                   for argument in arguments_handed_to_backward(self, unit))

    def result_handed_into_gradients(self, call: ast.Call) -> bool:
        """Does the call's function hand a value computed from the call's result to a function
        of this module whose backward's gradients flow back through it (`self.new_update_policies(
        ..., latent_z_logprobabilities, ...)` of what `self.evaluate_loglikelihoods(...)`
        returned)? Not one that detaches it before its backward (`train_probe(features)`)."""
        from torchleaklint.semantic.dataflow import arguments_handed_to_a_gradient_backward

        unit = self.unit_of(call)
        bound = self._bound_by_statement_of(call)
        for argument in arguments_handed_to_a_gradient_backward(self, unit):
            if self.is_inside(call, argument):
                return True
            # (what gradients flow back to: not `torch.randint(0, 2, (feats.size(0),))`)
            sources = self._computed_from_keys(unit, _gradient_read_keys(argument), gradient=True)
            if any(key in sources for key in bound):
                return True
        return False

    def _result_graph_differentiated(self, call: ast.Call) -> bool:
        """`result_back_propagated` by graph provenance: a backward of the call's function
        differentiates a graph the call's result is part of (a `.detach()` on the way cuts it:
        `F.mse_loss(s_feat, t_feat.detach())`). Where a backward's graph cannot be traced,
        data dependence decides, as `result_back_propagated` does."""
        unit = self.unit_of(call)
        stmt = self.statement_of(call)
        for backward in self.backward_calls_in(unit):
            target = self.backward_target(backward)
            if target is None:
                continue
            if self.is_inside(call, target):
                return True
            dependencies = self.graph_dependencies(target)
            if not dependencies:
                if any(self.computed_from(unit, key, target) for key in self._bound_by_statement_of(call)):
                    return True
                continue
            if any(self.statement_of(d) is stmt for d in dependencies):
                return True
        return False

    def _bound_by_statement_of(self, call: ast.Call) -> List[str]:
        """The names (and dotted targets) the statement holding `call` binds. Data dependence,
        not graph provenance: whether the result carries a graph may still be unknown while
        the modules it comes from are being summarized."""
        stmt = self.statement_of(call)
        targets = [t for t in getattr(stmt, "targets", [getattr(stmt, "target", None)]) if t is not None]
        return sorted({dotted(t) for t in targets if dotted(t)} |
                      {n.id for t in targets for n in walk(t) if isinstance(n, ast.Name)})

    def returned_into_a_backward(self, node: ast.AST) -> bool:
        """Does the function of `node` return a value computed from it (`emb = torch.cat(support);
        return ...emb...`) to a caller in view that back-propagates that result, this module's or
        another's (`protos = build_prototypes(...)` in the training loss)? Then what `node`
        built is consumed by the caller's step."""
        unit = self.unit_of(node)
        if not isinstance(unit, FUNCTION_TYPES):
            return False
        stmt = self.statement_of(node)
        returns = [n for n in nodes_within(unit) if isinstance(n, ast.Return) and n.value is not None]
        returned = [r.value for r in returns]
        # `self.grad_vec = grad_vec; return self.grad_vec`: what the attribute was just given
        kept = {dotted(r.value) for r in returns if called_on_self(r.value)}
        returned += [n.value for n in nodes_within(unit) if isinstance(n, ast.Assign) and len(n.targets) == 1
                     and dotted(n.targets[0]) in kept]
        if not any(self.is_inside(node, r) for r in returns) and not any(self.feeds(node, stmt, v) for v in returned):
            return False
        # a caller of another module that is a method of a module class (`md`: a generator's
        # `render_rays`) is part of a model's computation, which its callers back-propagate
        return any(self._graph_result_back_propagated(site) for site in self.call_sites(unit)) or \
            any((site.get("bp") or site.get("md")) and not site["ng"] for site in self.external_sites(unit))

    def local_total_returned_into_a_backward(self, stmt: ast.AST, key: str) -> bool:
        """Is `key`, updated at `stmt`, a plain local of its function (started afresh by every
        call: not `self` state, not a global) that the function returns to callers that
        back-propagate it (`total = total + penalty` over the parts of one step, returned into
        the caller's loss)?"""
        unit = self.unit_of(stmt)
        return isinstance(unit, FUNCTION_TYPES) and "." not in key and "[" not in key \
            and key not in self._globals_of(unit) and self.returned_into_a_backward(stmt)

    def _graph_result_back_propagated(self, call: ast.Call, depth: int = 0) -> bool:
        """A part of the call's result that carries a graph feeds a backward of the caller
        (`protos = build(...)` in the loss); not one that only feeds it data (`labels, conf =
        pseudo_label(...)`, the argmax labels used as targets)."""
        if self.grad_disabled_at(call):
            return False
        stmt = self.statement_of(call)
        caller = self.unit_of(call)
        if isinstance(caller, FUNCTION_TYPES) and self.result_returned(call) and (
                self._framework_back_propagates(caller) or depth < 2 and (any(
                    self._graph_result_back_propagated(site, depth + 1) for site in self.call_sites(caller))
                    or any(site.get("bp") and not site["ng"] for site in self.external_sites(caller)))):
            return True  # `compute_loss` returns the loss built from it to the Trainer, which back-propagates
            # it (also through a helper: `compute_loss` returning `self._compute_loss(...)`, or to
            # another module's training loop: a NeRF's chunked render returned to `train.py`)
        if not isinstance(stmt, ast.Assign):
            return self.result_back_propagated(call)  # not bound by a plain assignment: data dependence
        targets = {leaf for t in getattr(stmt, "targets", []) for leaf in walk(t)
                   if isinstance(leaf, (ast.Name, ast.Attribute)) and isinstance(getattr(leaf, "ctx", None), ast.Store)}
        for backward in self.backward_calls_in(caller):
            differentiated = self.backward_target(backward)
            if differentiated is not None and targets & set(self.graph_dependencies(differentiated)):
                return True  # graph provenance, not data: `conf > t` used as an index carries no graph
        return False

    def _framework_back_propagates(self, func: ast.AST) -> bool:
        """A step hook whose returned loss the framework back-propagates: a HuggingFace
        Trainer subclass's `compute_loss` / `training_step`, a LightningModule's `training_step`."""
        if self.is_hf_trainer_step_hook(func):
            return True
        info = self.class_of(func)
        return info is not None and func.name == "training_step" and self.class_is(info, *LIGHTNING_BASES)

    def returned_graph_never_differentiated(self, func: ast.AST, depth: int = 0) -> bool:
        """Every caller of `func` is in view (this module; no call from another module, by name on
        an object of unknown class, or as a handed-out callback) and none back-propagates what it
        returns: the caller only logs the losses (`d_loss.item()`), or returns them to callers
        that do the same. Then no backward after the call needs a graph the function retained."""
        from torchleaklint.semantic.probes import probes_the_module

        # (a closure handed to `optimizer.step(closure)`: the step returns what it returns)
        sites = self.call_sites(func) + self.optimizer_steps_handed(func)
        external = self.external_sites(func)
        if not (sites or external) or depth > 2 or self.handed_out(func) or self.calls_by_method_name(func)[0]:
            return False
        if any(site.get("bp") or site.get("rt") or site.get("ob", True) for site in external):
            return False  # a caller in another module back-propagates it, hands it on or keeps it
        if not sites and self.class_of(func) is not None and not all(site.get("self") for site in external):
            return False  # a method called only from other modules, not by a base class's own
            # `self.m()`: a loss's `__call__` also runs through objects of unknown class there
        if sites and all(probes_the_module(self, site, self.unit_of(site)) for site in sites):
            return False  # only a smoke test of the file's own network (`y = net(torch.randn(1, 3,
            # 32, 32)); print(y.shape)`): the real callers import it, out of view
        for site in sites:
            if self._result_graph_differentiated(site) or bound_on_an_object(self, site):
                return False
            if self.result_returned(site, graph=True):
                caller = self.unit_of(site)
                if not isinstance(caller, FUNCTION_TYPES) or \
                        not self.returned_graph_never_differentiated(caller, depth + 1):
                    return False
        return True

    def result_returned(self, call: ast.Call, graph: bool = False) -> bool:
        """Does the call's function return its result, or a value computed from it, to its own
        caller (`pred = predict_velocity(...); return pred` in a model wrapper's training
        forward)? Then whoever calls that function decides whether it is back-propagated.
        With `graph`, only a value its graph flows into (not `history` filled with `.item()`s)."""
        unit = self.unit_of(call)
        bound = self._bound_by_statement_of(call)

        def computed(key: str, expr: ast.AST) -> bool:
            if not graph:
                return self.computed_from(unit, key, expr)
            return key in self._computed_from_keys(unit, _gradient_read_keys(expr), key, gradient=True)
        return any(isinstance(node, ast.Return) and node.value is not None and self.unit_of(node) is unit
                   and (self.is_inside(call, node) or any(computed(key, node.value) for key in bound))
                   for node in nodes_within(unit))

    def fills_returned_buffer(self, store: ast.Assign) -> bool:
        """Is `store` a write into a preallocated tensor (`scores[i:i + n] = head(x[i:i + n])`)
        that its function, which back-propagates nothing and steps no optimizer, returns as its
        result? The writes are the parts of one output computed in pieces (a forward chunked to
        fit memory): whoever calls the function keeps or consumes that output, as any forward's."""
        unit = self.unit_of(store)
        if not isinstance(unit, FUNCTION_TYPES) or not isinstance(store, ast.Assign) \
                or not isinstance(store.targets[0], ast.Subscript):
            return False
        key = dotted(store.targets[0].value)
        if key is None or "." in key or self.backward_calls_in(unit) or self.step_ops_in(unit) \
                or any(self.runs_training_step(loop) for loop in self.loops_around(store)):
            return False  # (each write of a loop that back-propagates keeps a freed graph's nodes)
        return any(isinstance(node, ast.Return) and node.value is not None and self.unit_of(node) is unit
                   and any(isinstance(part, ast.Name) and part.id == key
                           for part in (node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]))
                   for node in nodes_within(unit))

    def in_module_forward(self, node: ast.AST) -> bool:
        """Is `node` in the `forward` (`forward_*`, `__call__`) of an nn.Module class?"""
        unit = self.unit_of(node)
        info = self.class_of(unit) if isinstance(unit, FUNCTION_TYPES) else None
        return info is not None and (unit.name in ("forward", "__call__") or unit.name.startswith("forward_")) \
            and self.is_module_class(info)

    def read_reaches_backward(self, node: ast.AST, depth: int = 0) -> bool:
        """Can a graph read at `node` reach a backward? True when its function runs backward,
        is a training step a framework back-propagates, or returns a graph to a caller that
        does (or to an unknown caller: a per-step method). A may-answer: rules use it to
        stay quiet."""
        unit = self.unit_of(node)
        if self.grad_disabled_at(node) or self.value_killed_at(node):
            return False
        if self.has_backward_within(unit):
            return True
        if not isinstance(unit, FUNCTION_TYPES):
            return False
        if unit.name in ("training_step", "compute_loss", "closure"):
            return True
        flow = self.flow(unit)
        if flow is None or flow.returns is None or not flow.returns.carries_graph:
            return False
        sites = self.call_sites(unit)
        if not sites:
            return True  # called from another module, which may back-propagate it
        return depth < 2 and any(self.read_reaches_backward(site, depth + 1) for site in sites)


def _literal_prefix(name: ast.AST) -> str:
    """The literal start of a computed attribute name (`"loss_"` of `"loss_" + name` and of
    `f"loss_{name}"`); empty when the name is a literal or starts with something computed."""
    if isinstance(name, ast.BinOp) and isinstance(name.op, ast.Add) and isinstance(name.left, ast.Constant) \
            and isinstance(name.left.value, str):
        return name.left.value
    if isinstance(name, ast.JoinedStr) and len(name.values) > 1 and isinstance(name.values[0], ast.Constant) \
            and isinstance(name.values[0].value, str):
        return name.values[0].value
    return ""


def _indices_of(expr: ast.AST, subscript: ast.Subscript) -> bool:
    """`x.max(3)[1]`, `x.topk(k)[1]`, `x.sort(dim)[1]`: the indices half of a reduction's
    (values, indices) result."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
        and expr.func.attr in ("max", "min", "topk", "sort", "kthvalue", "mode", "median") \
        and (expr.args or expr.keywords) and isinstance(subscript.slice, ast.Constant) and subscript.slice.value == 1


def _updates_the_total(stmt: ast.AST, key: str) -> bool:
    """`total += x`, `total = total + x`, `if total is None:`: a statement that only updates
    or tests the running total."""
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == key
    if isinstance(stmt, ast.Assign):
        return len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == key
    if isinstance(stmt, ast.If):
        test = stmt.test
        return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == key \
            and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))
    return False


def _starts_the_total(stmt: ast.AST, read: ast.Name, key: str) -> bool:
    """`total = loss` (under `if total is None:`): the read starts the running total itself."""
    return isinstance(stmt, ast.Assign) and stmt.value is read and len(stmt.targets) == 1 \
        and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == key


def expression_names(expr: Optional[ast.AST], receivers: bool = False) -> Set[str]:
    """Names read by an expression, leaving out the names of called functions (with
    `receivers`, keeping the object a method is called on: `data` in `data.to(device)`)."""
    if expr is None:
        return set()
    in_callee = {id(name) for call in walk(expr) if isinstance(call, ast.Call)
                 for name in walk(call.func) if isinstance(name, ast.Name)}
    if receivers:
        # (the whole receiver: `data` in `data[0].to(device)` too)
        in_callee -= {id(name) for call in walk(expr) if isinstance(call, ast.Call)
                      and isinstance(call.func, ast.Attribute)
                      for name in walk(call.func.value) if isinstance(name, ast.Name)}
    return {n.id for n in walk(expr) if isinstance(n, ast.Name) and id(n) not in in_callee}


def _reads(expr: ast.AST) -> List[ast.AST]:
    return [n for n in walk(expr) if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load)]


def _item_put_into(node: ast.AST, attr: str, receiver: Optional[str]) -> Optional[ast.AST]:
    """The value `node` puts into the container `<receiver>.<attr>` (`self.attr[k] = v`,
    `self.attr.append(v)`), if it does."""
    def is_container(expr) -> bool:
        return isinstance(expr, ast.Attribute) and expr.attr == attr and isinstance(expr.value, ast.Name) \
            and expr.value.id == receiver
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
            and is_container(node.targets[0].value):
        return node.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
            and len(node.args) == 1 and is_container(node.func.value):
        return node.args[0]
    return None


def _container_key(expr: ast.AST) -> Optional[str]:
    """`losses` for `losses`, `self.buf` for `self.buf` and `self.buf[k]`."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return dotted(expr)


def _value_reads(expr: ast.AST) -> List[ast.AST]:
    """The values an expression reads: whole name/attribute chains (`self.log_alpha`, not
    `self`), a method's receiver (`spk` of `spk.mean()`), never a called function's name."""
    out: List[ast.AST] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                visit(node.func.value)
            for arg in list(node.args) + [kw.value for kw in node.keywords]:
                visit(arg)
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            out.append(node)
        else:
            for child in child_nodes(node):
                visit(child)
    visit(expr)
    return out


def _block_always_leaves(body: List[ast.stmt]) -> bool:
    """Does every path through `body` end in `return` or `raise`?"""
    if not body:
        return False
    last = body[-1]
    if _always_leaves(last):
        return True
    return isinstance(last, ast.If) and _block_always_leaves(last.body) and _block_always_leaves(last.orelse)


def _always_leaves(stmt: ast.AST) -> bool:
    """A `return` or `raise`, or a `with` block ending with one (`with torch.no_grad(): return ...`)."""
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    return isinstance(stmt, (ast.With, ast.AsyncWith)) and bool(stmt.body) and _always_leaves(stmt.body[-1])


# Methods that reduce or convert a loss and leave it a loss (`loss.mean()`, `l.float()`).
_REDUCTIONS = frozenset({"mean", "sum", "float", "double", "half", "squeeze"})


def _steps_what_it_picks(func: ast.AST, param: str) -> bool:
    """Does `func` call `.step()` on an item its parameter `param` indexes (`self.optimizersD[
    idx].step()`, or `optD.step()` after `netD, optD = self.netsD[idx], self.optimizersD[idx]`)?"""
    def picked(node) -> bool:
        return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == param
    names: Set[str] = set()
    for node in nodes_within(func):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                pairs = zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple) and \
                    isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts) else [(target, node.value)]
                names |= {t.id for t, v in pairs if isinstance(t, ast.Name) and picked(v)}
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step"
               and (picked(node.func.value) or isinstance(node.func.value, ast.Name) and node.func.value.id in names)
               for node in nodes_within(func))


def _read_keys(expr: Optional[ast.AST]) -> Set[str]:
    """Every name and dotted attribute (`self.total`) in an expression."""
    if expr is None:
        return set()
    return {key for n in walk(expr) if isinstance(n, (ast.Name, ast.Attribute))
            for key in [dotted(n)] if key is not None}


def _metadata_read(expr: ast.AST) -> bool:
    """`data.pos.device`, `x.dtype`, `x.shape`: what a tensor says of itself, never a graph
    (whatever the analysis knows of `data`)."""
    return isinstance(expr, ast.Attribute) and expr.attr in torch_api.TENSOR_METADATA_ATTRIBUTES


def read_of_earlier_iterations(model, reaching, read: ast.Name, loop: ast.AST, unknown: bool = False,
                               depth: int = 0) -> bool:
    """Does `read` see what an earlier iteration of `loop` computed, itself or through the same
    iteration's bindings it is computed from (`s = torch.from_numpy(state)` with `state` set at
    the end of the previous iteration)? A binding other than an assignment (a `for` target, a
    `with` name) answers `unknown`."""
    if reaching.carried_definitions(read, loop):
        return True
    return depth < 2 and any(
        model.is_inside(d, loop) and built_on_earlier_iterations(model, reaching, d, loop, unknown, depth + 1)
        for d in reaching.definitions(read) if not isinstance(d, ast.arg))


def built_on_earlier_iterations(model, reaching, definition: ast.AST, loop: ast.AST, unknown: bool = False,
                                depth: int = 0) -> bool:
    """Is the value bound at `definition` (in `loop`) computed from what an earlier iteration
    computed (`h = cell(x, h)`, `s += x` over the iterations)? Not a value rebuilt from leaves
    or from this iteration's inputs alone."""
    stmt = model.statement_of(definition)
    if isinstance(stmt, ast.AugAssign):
        sources = [stmt.value] + ([stmt.target] if stmt.target is definition else [])
    elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
        sources = [stmt.value]
    else:
        return unknown
    return any(isinstance(n, ast.Name) and (isinstance(n.ctx, ast.Load) or n is definition)
               and read_of_earlier_iterations(model, reaching, n, loop, unknown, depth)
               for source in sources for n in walk(source))


_SIZE_METHODS = frozenset({"size", "dim", "numel", "nelement", "element_size", "stride"})


def _gradient_read_keys(expr: Optional[ast.AST]) -> Set[str]:
    """The names and dotted attributes of an expression that gradients flow back to: not those
    read only under a graph killer (`x.detach()`, `x.item()`, `x.data`, `float(x)`) or for
    their shape (`x.shape`, `x.size(-1)`)."""
    keys: Set[str] = set()
    stack = [expr] if expr is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Attribute) and (node.attr in torch_api.GRAPH_KILLER_METHODS or node.attr == "data"
                                                or node.attr in torch_api.TENSOR_METADATA_ATTRIBUTES):
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in torch_api.SCALAR_BUILTINS:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SIZE_METHODS:
            continue  # `features.size(-1)`: a number, no gradient flows back to `features`
        if isinstance(node, ast.Subscript):
            stack.append(node.value)  # `x[top]`: gradients flow to `x`, not to the indices
            continue
        if isinstance(node, (ast.Name, ast.Attribute)):
            key = dotted(node)
            if key is not None:
                keys.add(key)
        stack.extend(child_nodes(node))
    return keys


def _is_self_attribute(node: ast.AST, receiver: Optional[str], attr: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.value, ast.Name) \
        and node.value.id == receiver


def _reads_attribute_of(reads: Set[str], attr: str, owner: Optional[str]) -> bool:
    """Is `attr` among `reads` (`_read_attribute` entries), as an attribute an object of class
    `owner` may hold (any class, without an owner)?"""
    if attr in reads:
        return True
    typed = {entry.partition("@")[2] for entry in reads if entry.partition("@")[0] == attr and "@" in entry}
    return bool(typed) and (owner is None or owner.rsplit(".", 1)[-1] in typed)


def _target_leaves(target: ast.AST) -> List[ast.AST]:
    if isinstance(target, (ast.Tuple, ast.List)):
        out = []
        for elt in target.elts:
            out.extend(_target_leaves(elt.value if isinstance(elt, ast.Starred) else elt))
        return out
    return [target]


def _in_body(loop: ast.AST, child: ast.AST) -> bool:
    return any(child is stmt for stmt in loop.body)


def _first_arg(call: ast.Call, keyword: str) -> Optional[ast.AST]:
    if call.args:
        return call.args[0]
    return _kw(call, keyword)


def _call_args(call: ast.Call) -> List[ast.AST]:
    return list(call.args) + [kw.value for kw in call.keywords]


def _unknown_items(value: Value) -> bool:
    """A sequence whose items are of unknown kind (`enumerate(loader)` of an unknown loader)."""
    if value.kind != "sequence":
        return False
    elem = value.elem
    if elem is None:
        return False
    if elem.items is not None:
        return any(item.kind == "unknown" for item in elem.items)
    if elem.kind == "sequence" and elem.elem is not None:
        return elem.elem.kind == "unknown"  # dicts of unknown values: `{k: v[i:j] for k, v in batch.items()}`
    return elem.kind == "unknown"


def _list_of_non_modules(value: Value) -> bool:
    """A sequence (not a module container) whose items are no modules: `self.data_loader`
    holding the batches an evaluator was handed."""
    if value.kind != "sequence" or value.elem is None:
        return False
    parts = value.elem.items if value.elem.items is not None else (value.elem,)
    return not any(part.kind == MODULE for part in parts)


def _data_items(value: Value) -> bool:
    """A sequence of graph-free tensors or tuples of them (`[(x, y), ...]` handed in as the
    validation batches): whether it is a list of batches is decided by what the loop feeds."""
    elem = value.elem if value.kind == "sequence" else None
    if elem is None:
        return False
    parts = elem.items if elem.items is not None else (elem,)
    # also objects of a class of this project (a graph sample holding `x`, `edge_index`, `y`),
    # and dicts of such tensors (`[{"feats": x, "label": y}, ...]`)
    def data(part: Value) -> bool:
        return part.kind in ("tensor", "data", INSTANCE) or part.kind == "sequence" and bool(part.fields) \
            and all(f.kind in ("tensor", "data") for _, f in part.fields) or part.kind == "sequence" \
            and bool(part.items) and part.fields is None and all(i.kind in ("tensor", "data") for i in part.items)
    # (an index beside them: `enumerate(batches)`, whose items are the batch tuples themselves)
    return any(data(part) for part in parts) and all(data(part) or part.kind == "scalar" for part in parts)


# builtins that read an object without calling it: handed `self` or a module, they run no forward
_INERT_BUILTINS = frozenset({"isinstance", "issubclass", "hasattr", "getattr", "setattr", "delattr", "len",
                             "print", "str", "repr", "type", "id", "callable", "format"})


def _names_bound_to_attributes(unit: ast.AST) -> Set[str]:
    """The names a function binds to an attribute read, or to a choice between two (`fn =
    engine.generate`, `fn = a.f if c else b.g`): the only names a method reference can hold."""
    out: Set[str] = set()
    for node in nodes_within(unit):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and (
                isinstance(node.value, ast.Attribute) or isinstance(node.value, ast.IfExp)
                and isinstance(node.value.body, ast.Attribute) and isinstance(node.value.orelse, ast.Attribute)):
            out.add(node.targets[0].id)
    return out


def _empty_display(expr: Optional[ast.AST]) -> bool:
    """`{}`, `[]`, `()`, `dict()`, `list()`: an empty container, which holds no graph."""
    if isinstance(expr, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
        return not (expr.keys if isinstance(expr, ast.Dict) else expr.elts)
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("dict", "list", "tuple") \
        and not expr.args and not expr.keywords


def _listed_elements(arg: ast.AST) -> List[ast.AST]:
    """The element expressions an argument of `nn.Sequential(...)` / `nn.ModuleList(...)`
    spells out: itself, a list's items, a starred list or comprehension's element."""
    if isinstance(arg, ast.Starred):
        arg = arg.value
    if isinstance(arg, (ast.List, ast.Tuple)):
        return [e.value if isinstance(e, ast.Starred) else e for e in arg.elts]
    if isinstance(arg, (ast.ListComp, ast.GeneratorExp)):
        return [arg.elt]
    return [arg]


def _literal_default(unit: ast.AST, param: ast.arg) -> bool:
    """Does the parameter have a literal default value (`name="x"`, `retain=False`)?"""
    return isinstance(default_of(unit, param), ast.Constant)


def _counter_while(loop: ast.AST) -> bool:
    """`while position < amount and limit > 0:` whose test reads only names the body steps by
    `+=` / `-=` (counters) and constants: a counted loop written with `while`."""
    if not isinstance(loop, ast.While):
        return False
    names = set()
    for node in walk(loop.test):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif not isinstance(node, (ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp, ast.Constant, ast.expr_context,
                                   ast.cmpop, ast.boolop, ast.unaryop, ast.operator)):
            return False  # a call, an attribute, an item: not a counter
    stepped = {n.target.id for n in walk(loop) if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name)
               and isinstance(n.op, (ast.Add, ast.Sub))}
    rebound = {t.id for n in walk(loop) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.For, ast.With))
               for t in walk(n) if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)}
    # (the other names of the test are bounds the body never changes)
    return bool(names & stepped) and not names & rebound


# A call handing nothing: every flag of the callee at its default
_CALL_WITH_DEFAULTS = ast.Call(func=ast.Name(id="_", ctx=ast.Load()), args=[], keywords=[])


def _counts(iterable: ast.AST) -> bool:
    """`range(self.epochs)`, `tqdm(range(n))`, `trange(...)`: a counted loop, wrapped or not."""
    return any(isinstance(n, ast.Call) and (isinstance(n.func, ast.Name) and n.func.id in ("range", "trange")
                                            or isinstance(n.func, ast.Attribute) and n.func.attr == "trange")
               for n in walk(iterable))


_REDUCING_BUILTINS = frozenset({"len", "sum", "min", "max", "any", "all"})
_TENSOR_BUILDERS = frozenset({"stack", "cat", "concat", "concatenate", "hstack", "vstack", "mean", "sum"})
# methods whose result is the same data as their receiver, copied, moved or cast
_DATA_COPIES = frozenset({"clone", "to", "cuda", "cpu", "float", "double", "half", "bfloat16", "long", "int",
                          "contiguous", "detach"})
_RESHAPING = frozenset({"reshape", "view", "swapaxes", "transpose", "permute", "movedim", "unflatten", "flip"})


def _chunks_of_a_batch(expr: ast.AST) -> bool:
    """`x.split(8)`, `x.chunk(k)`, `torch.split(x, bs)` (also enumerated): pieces of several
    rows each, not `x.split(1)` (one row or time step at a time) nor `unbind`."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "enumerate" and expr.args:
        expr = expr.args[0]
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in ("split", "chunk", "tensor_split")):
        return False
    functional = isinstance(expr.func.value, ast.Name) and expr.func.value.id in ("torch", "th")
    size = (expr.args[1] if len(expr.args) > 1 else None) if functional else (expr.args[0] if expr.args else None)
    if size is None or isinstance(size, (ast.List, ast.Tuple)):
        return False
    # (not `line.split(",")`, which splits a string)
    return not (isinstance(size, ast.Constant) and (size.value == 1 or isinstance(size.value, str)))


def _is_slicing(expr: ast.AST) -> bool:
    """`x.split(1, dim=1)`, `x.chunk(k)`, `x.unbind(0)`: slices of one tensor."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.args:
        expr = expr.args[0]  # enumerate(...), zip(...)
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
        expr.func.attr in ("split", "chunk", "unbind", "tensor_split")


def _root_name(expr: ast.AST) -> Optional[str]:
    """`net` of `net`, `net.encode`, `nets[i]`: the name an expression starts from."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _rooted_at_self(expr: ast.AST) -> bool:
    while isinstance(expr, ast.Call) and expr.args:
        expr = expr.args[0]  # enumerate(self.blocks)
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return isinstance(expr, ast.Name) and expr.id == "self"


def _names_in(expr: ast.AST) -> Set[str]:
    """The plain names an expression reads."""
    return {n.id for n in walk(expr) if isinstance(n, ast.Name)}


def _input_args(call: ast.Call) -> List[ast.AST]:
    """What a model call takes as input: its first positional argument, or `**batch`."""
    inputs = list(call.args[:1])
    inputs += [kw.value for kw in call.keywords if kw.arg is None]
    return inputs


def _other_frameworks() -> Tuple[str, ...]:
    from torchleaklint.semantic.dataflow import _OTHER_FRAMEWORKS

    return _OTHER_FRAMEWORKS


def _self_attribute_name(expr: ast.AST) -> Optional[str]:
    """`meters` for `self.meters`."""
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return expr.attr
    return None


# The node types with statement blocks (`body`, `orelse`, `finalbody`).
_BLOCK_TYPES = tuple(t for t in (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
                                 ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, getattr(ast, "TryStar", None),
                                 ast.ExceptHandler, getattr(ast, "match_case", None)) if t is not None)


def _legacy_branch(test: ast.AST, version_names: Set[str], reads_version) -> Optional[bool]:
    """For a test of the PyTorch version against 0.x releases (`torch_ver == '0.3'`,
    `torch.__version__[:3] in ('0.2', '0.3')`, `!=` and `not in`), True when its body is the
    0.x branch, False when its `else` is; None for any other test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, right = test.left, test.comparators[0]
    if not (isinstance(left, ast.Name) and left.id in version_names or reads_version(left)):
        return None
    literals = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
    if not literals or not all(isinstance(c, ast.Constant) and isinstance(c.value, str)
                               and c.value.startswith("0.") for c in literals):
        return None
    op = test.ops[0]
    if isinstance(op, (ast.Eq, ast.In)):
        return True
    if isinstance(op, (ast.NotEq, ast.NotIn)):
        return False
    return None


def _constructed_bindings(node: ast.Assign, constructed):
    """(target, class name) pairs of `x = Cls()` and `a, b = Cls(), Cls()`."""
    for target in node.targets:
        pairs = [(target, node.value)]
        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                and len(target.elts) == len(node.value.elts):
            pairs = list(zip(target.elts, node.value.elts))
        for leaf, value in pairs:
            # `ema = BufferEMA(m) if buffered else ShadowEMA(m)`: either class; `log = log or
            # GanLog()`: the class built when nothing was handed in
            choices = (value.body, value.orelse) if isinstance(value, ast.IfExp) else \
                value.values if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or) else (value,)
            for choice in choices:
                cls = constructed(choice)
                if cls is not None:
                    yield leaf, cls


def _spread(pairs, start, until=None) -> Set[str]:
    """`start` plus, to a fixed point, the second set of every pair whose first set meets what
    is reached so far (stopping early once `until` is reached): the names data flows into
    (reads -> bindings), or back from (bindings -> reads)."""
    reached = set(start)
    changed = True
    while changed and (until is None or until not in reached):
        changed = False
        for trigger, added in pairs:
            if trigger & reached and not added <= reached:
                reached |= added
                changed = True
    return reached


def _bound_from(loop: ast.AST, names: Set[str], follows) -> Set[str]:
    """`names` plus the names the loop body's assignments bind from them, to a fixed point:
    `follows(value, derived)` says whether an assigned value comes from the names so far."""
    assigns = [n for stmt in loop.body for n in walk(stmt) if isinstance(n, ast.Assign)]
    derived = set(names)
    changed = True
    while changed:
        changed = False
        for node in assigns:
            if follows(node.value, derived):
                bound = {n.id for t in node.targets for n in walk(t) if isinstance(n, ast.Name)}
                if not bound <= derived:
                    derived |= bound
                    changed = True
    return derived


# what a loop body does to a batch without computing anything from it
_MOVING_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "long", "int", "bool", "contiguous",
                             "squeeze", "unsqueeze", "view", "reshape", "permute", "transpose", "clone",
                             "pin_memory", "type", "flatten"})


def _moved_batch_names(loop: ast.AST, names: Set[str]) -> Set[str]:
    """`names` plus the names the loop body binds to them only unpacked, indexed or moved
    (`x, y = x.to(device), y.to(device)`, `imgs = batch["image"].cuda()`), not what a model
    or any other call computes from them."""
    def moved(expr, derived) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in derived
        if isinstance(expr, (ast.Tuple, ast.List)):
            return bool(expr.elts) and all(moved(e, derived) for e in expr.elts)
        if isinstance(expr, ast.Subscript):
            return moved(expr.value, derived)
        if isinstance(expr, ast.Attribute):
            return expr.attr in ("data",) and moved(expr.value, derived)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _MOVING_METHODS:
            return moved(expr.func.value, derived)
        return False

    return _bound_from(loop, names, moved)


def _unpacks_pairs(target: ast.AST) -> bool:
    """`for x, y in ...`: items that unpack into two or more names."""
    return isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) >= 2 and \
        all(isinstance(e, ast.Name) for e in target.elts)


def _comprehension_targets_over(loop: ast.AST, names: Set[str]) -> Set[str]:
    """The names the comprehensions in `loop` bind to items of an iterable that reads one
    of `names` (`v` of `[model(v) for v in views]`)."""
    return {n.id for comp in nodes_within(loop, True) if isinstance(comp, COMPREHENSION_TYPES)
            for gen in comp.generators if {r.id for r in walk(gen.iter) if isinstance(r, ast.Name)} & names
            for n in walk(gen.target) if isinstance(n, ast.Name)}


def _of_other_modules_classes(value: Value) -> bool:
    """A module known to be of a class of another module, or of one of several such."""
    names = [value.name] if value.name else list(value.alts or ())
    return value.kind == MODULE and bool(names) and all("." in name for name in names)


def _may_hold_batches(value: Value) -> bool:
    """An iterable whose items may be batches: of unknown kind, or a sequence of unknown or
    data items."""
    return value.kind == UNKNOWN_V.kind or _unknown_items(value) or _data_items(value)


def _flags_with_literal_defaults(func: ast.AST) -> Dict[str, ast.arg]:
    """The parameters of `func` with a literal default (`train=True`, `mode="sem"`,
    `compute_metrics=None`): the flags its body may branch on."""
    return {a.arg: a for a in named_parameters(func) if isinstance(default_of(func, a), ast.Constant)
            and isinstance(default_of(func, a).value, (bool, int, float, str, type(None)))}


def _drawn_by_next(loop: ast.While) -> Optional[Tuple[ast.AST, ast.AST]]:
    """(the iterator, the target) of `target = next(iterator)` that every iteration of a
    `while` loop runs first: a statement of its body, or of the `try:` its body opens with;
    `.to(device)` / `.cuda()` on what is drawn allowed."""
    body = loop.body
    if body and isinstance(body[0], ast.Try):
        body = body[0].body + body[1:]
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            value = stmt.value
            while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in ("to", "cuda"):
                value = value.func.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "next" \
                    and value.args and not value.keywords:
                return value.args[0], stmt.targets[0]
        if isinstance(stmt, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.Try)):
            return None  # (drawn after a branch or a loop: not surely each iteration's first item)
    return None


def _item_target(loop: ast.AST) -> ast.AST:
    """The part of a for target bound to the items: in `for i, x in enumerate(xs)`, `x`
    (the counter `i` is not data)."""
    target, iterable = loop.target, loop.iter
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" \
            and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        return target.elts[1]
    return target


_ITERABLE_WRAPPERS = frozenset({"enumerate", "zip", "tqdm", "iter", "trange"})


def _item_itself(value: ast.AST, item: ast.AST) -> bool:
    """Is `value` the item, or a method chain on it (`dataset[i].clone()`, `.to(device)`)?"""
    while value is not item:
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
            value = value.func.value
        else:
            return False
    return True


def _wrapped_iterables(iterable: ast.AST) -> Iterator[ast.AST]:
    """The iterables inside `enumerate(...)`, `zip(...)`, `tqdm(...)` (nested too)."""
    stack = [iterable]
    while stack:
        expr = stack.pop()
        if isinstance(expr, ast.Call) and expr.args:
            func = expr.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in _ITERABLE_WRAPPERS:
                inner = [a.value if isinstance(a, ast.Starred) else a for a in expr.args]
                yield from inner
                stack.extend(inner)


def _yields_data(value: Value) -> bool:
    if value.kind in ("dataloader", "dataset"):
        return True
    return bool(value.items) and any(item.kind in ("dataloader", "dataset") for item in value.items)


def _strided_batch_loop(loop: ast.AST) -> Optional[str]:
    """"rows" for `for start in range(0, len(xs), batch_size):` (also `trange`, or inside
    `tqdm(...)`) whose body slices `xs[start:start + batch_size]`: a loop over the batches of
    `xs`; also `for m in range(xs.size(0)):` (or `len(xs)`, `xs.shape[0]`) slicing `xs[m:m + 1]`:
    a loop over its rows, one batch of one at a time (not `x[t]`, a time step of an unroll).
    "step" for a range bounded by anything else whose body cuts `xs[i:i + step]` with the
    range's own step (`range(0, 64, 16)` and `feats[i:i + 16]`). None otherwise."""
    iterable = loop.iter
    while isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "tqdm" \
            and iterable.args:
        iterable = iterable.args[0]
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name)
            and iterable.func.id in ("range", "trange") and 1 <= len(iterable.args) <= 3
            and isinstance(loop.target, ast.Name)):
        return None
    stop = iterable.args[0] if len(iterable.args) == 1 else iterable.args[1]
    rows_of = _rows_counted(stop)
    name = loop.target.id
    if rows_of is None:
        step = iterable.args[2] if len(iterable.args) == 3 else None
        cut = step is not None and any(
            isinstance(node, ast.Subscript) and _strided_slice(node.slice, name)
            and ast.dump(node.slice.upper.right) == ast.dump(step)
            for stmt in loop.body for node in walk(stmt))
        return "step" if cut else None
    for stmt in loop.body:
        for node in walk(stmt):
            if isinstance(node, ast.Subscript) and dotted(node.value) == rows_of and \
                    any(_strided_slice(part, name) for part in walk(node.slice)):
                return "rows"  # `xs[i:i + bs]`, or through a permutation: `xs[idx[i:i + bs]]`
    return None


def _strided_slice(node: ast.AST, name: str) -> bool:
    """`[name:name + size]` (the slice node of a subscript)."""
    return isinstance(node, ast.Slice) and isinstance(node.lower, ast.Name) and node.lower.id == name \
        and isinstance(node.upper, ast.BinOp) and isinstance(node.upper.op, ast.Add) \
        and any(isinstance(n, ast.Name) and n.id == name for n in walk(node.upper))


def _rows_counted(expr: ast.AST) -> Optional[str]:
    """`xs` of `len(xs)`, `xs.size(0)`, `xs.shape[0]`."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and len(expr.args) == 1:
        return dotted(expr.args[0])
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "size" and \
            len(expr.args) == 1 and isinstance(expr.args[0], ast.Constant) and expr.args[0].value == 0:
        return dotted(expr.func.value)
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) and expr.value.attr == "shape" and \
            isinstance(expr.slice, ast.Constant) and expr.slice.value == 0:
        return dotted(expr.value.value)
    return None


def _is_range_like(expr: ast.AST, model: SemanticModel) -> bool:
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("range", "reversed"):
        return True
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("enumerate", "zip"):
        return all(_is_range_like(a, model) for a in expr.args)
    return isinstance(expr, (ast.List, ast.Tuple, ast.Constant))


def bound_on_an_object(model, call) -> bool:
    """`self.losses = self.train_step(x)`: the result outlives the caller's frame."""
    stmt = model.statement_of(call)
    targets = getattr(stmt, "targets", [getattr(stmt, "target", None)])
    return any(isinstance(leaf, (ast.Attribute, ast.Subscript)) for t in targets if t is not None
               for leaf in walk(t))


def _tests_own_attribute(test, receiver: str) -> bool:
    """`self.no_grad`, `not self.no_grad` (alone)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == receiver
