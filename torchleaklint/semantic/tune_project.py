"""Ray Tune configs across the modules of a project, and large objects bound into the trainable.

A search space is often built in one module (`config.py`: a module-level dict, or a function
returning one) and handed to `tune.run` / `tune.Tuner` in another (`search.py`). Two halves:

- the driver's summary records, for each Tune call, the first-party names of other modules
  its config comes from (`tune_uses`: what a function returns, or a module-level dict), with
  where the call is and what it is (plain data, see `project/summary.py`);
- the project index turns those records into sites of the defining module (`TUNE_SITES` of
  its view), and the defining module's check reads the entries of the dict it defines there
  (`external_config_roots`): a finding sits at the entry, where the object is put in.

Only proven facts travel: the record exists only when the driver's config expression really
comes from that name (through variables, `dict(...)`, `{**base}`, `.copy()`, `d.update`);
an unresolvable import resolves to nothing and stays quiet.

Also here: a large object bound into the trainable with `functools.partial(train, data=df)`
is pickled with the trainable into every trial (`partial_captures`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.tune import (
    _ENTRY_POINTS, _RUN_EXPERIMENTS, MAX_DEPTH, ConfigEntry, config_entries, passed_arguments, reaching_bindings,
    tune_calls, unpacked_sources, _argument, _bindings_before, _local_helper, _unpacking_of, _update_entries,
)
from torchleaklint.semantic.syntax import drives_itself, keyword_arg as _keyword, nodes_within, walk

# the key of a view's sites under which the Tune uses of this module's names are indexed
TUNE_SITES = "@tune"
# the key of a view's sites under which this module's calls of functions that pass their
# argument to Tune are indexed
TUNE_CALLERS = "@tune-callers"
_MAX_HOPS = 8
MAX_NESTING = 2  # param_space={"train_loop_config": {...}} and one level more (as the rule)
_WRAPPERS = frozenset({"with_resources", "with_parameters"})  # ray.tune wrappers keep the trainable
_PARTIAL = frozenset({"functools.partial"})


# ------------------------------------------------------------- driver side
def tune_uses(model, module: str) -> List[dict]:
    """Summary records: first-party names of other modules whose dict this module passes as
    a Tune config. `t` the qualified name, `call` whether it is what a function returns (else
    a module-level variable), `l`/`c` the Tune call, `api` how it is written, `p` the
    parameter (`config` / `param_space`), `tr` the trainable's name when known."""
    view = model.project
    if view is None:
        return []
    out, seen = [], set()
    for tune_call in tune_calls(model):
        for origin, is_call, keys in nested_origins(model, tune_call.config):
            if is_call is None:  # a parameter: see tune_parameters
                continue
            qual = model.qualname(origin.func if is_call else origin)
            if not qual or qual.startswith(module + ".") or not view.is_first_party(qual):
                continue
            key = (qual, is_call, keys, tune_call.call.lineno, tune_call.call.col_offset,
                   getattr(origin, "index", None))
            if key in seen:
                continue
            seen.add(key)
            record = {"t": qual, "call": is_call, "l": tune_call.call.lineno, "c": tune_call.call.col_offset,
                      "api": dotted(tune_call.call.func) or "tune.run", "p": tune_call.param,
                      "tr": trainable_text(model, tune_call.trainable)}
            if isinstance(origin, UnpackedElement):
                record["ix"], record["sz"] = origin.index, origin.size
            if keys:
                record["k"] = [list(k) for k in keys]
            out.append(record)
    return out


@dataclass(frozen=True)
class UnpackedElement:
    """The element `index` of the tuple a call returns (`space, valid = build_space(data)`)."""

    call: ast.Call
    index: int
    size: int

    @property
    def func(self) -> ast.AST:
        return self.call.func


def nested_origins(model, config: ast.AST, keys: tuple = (), depth: int = 0):
    """`config_origins` of the config and of the dicts nested in its entries, with the keys
    that lead there (`param_space={"train_loop_config": SPACE}`: SPACE under
    ("train_loop_config", True))."""
    for origin, kind in config_origins(model, config):
        yield origin, kind, keys
    if depth < MAX_NESTING:
        for entry in config_entries(model, config):
            if isinstance(entry.value, (ast.Name, ast.Call, ast.Attribute, ast.Dict, ast.BinOp)):
                yield from nested_origins(model, entry.value, keys + ((entry.key, entry.literal_key),), depth + 1)


def key_prefix(site: dict) -> Tuple[ConfigEntry, ...]:
    """The entries that lead to a nested dict (a record's `k`), for messages."""
    return tuple(ConfigEntry(text, bool(literal), None, None) for text, literal in site.get("k") or ())


def config_origins(model, expr: ast.AST, depth: int = 0) -> Iterator[Tuple[ast.AST, bool]]:
    """The expressions a config dict comes from that this module cannot open: calls of
    imported functions (True), imported names (False) and parameters of the enclosing
    function (`ast.arg`, None: what its callers pass). Follows what `config_entries`
    follows (variables, parameters bound by local call sites, `dict(...)`, `{**base}`,
    `base | {...}`, `.copy()`, `copy.deepcopy`, `d.update(base)`, `d |= base`)."""
    if depth > MAX_DEPTH:
        return
    if isinstance(expr, ast.Dict):
        for key, value in zip(expr.keys, expr.values):
            if key is None:
                yield from config_origins(model, value, depth + 1)
    elif isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
        yield from config_origins(model, expr.left, depth + 1)
        yield from config_origins(model, expr.right, depth + 1)
    elif isinstance(expr, ast.Call):
        yield from _call_origins(model, expr, depth)
    elif isinstance(expr, ast.Name):
        definitions, updates = reaching_bindings(model, expr)
        for definition in definitions:
            if isinstance(definition, ast.arg):
                yield definition, None  # what callers in other modules pass
            sources = passed_arguments(model, definition) if isinstance(definition, ast.arg) else [definition]
            for source in sources:
                yield from config_origins(model, source, depth + 1)
        for update in updates:
            if isinstance(update, ast.AugAssign):
                yield from config_origins(model, update.value, depth + 1)
            elif isinstance(update, ast.Expr):
                for arg in update.value.args[:1]:
                    yield from config_origins(model, arg, depth + 1)
        if not definitions and model.qualname(expr):
            yield expr, False
        unpacked = _unpacking_of(model, expr)
        if unpacked is not None and not definitions and model.qualname(unpacked[0].func):
            yield UnpackedElement(*unpacked), True  # `space, valid = build_space(data)` of another module
    elif isinstance(expr, ast.Attribute) and model.qualname(expr):  # config_module.SPACE
        yield expr, False


def _call_origins(model, call: ast.Call, depth: int) -> Iterator[Tuple[ast.AST, bool]]:
    func = call.func
    qual = model.qualname(func)
    if isinstance(func, ast.Name) and func.id == "dict" and qual is None:
        for arg in call.args[:1]:
            yield from config_origins(model, arg, depth + 1)
        for kw in call.keywords:
            if kw.arg is None:
                yield from config_origins(model, kw.value, depth + 1)
    elif isinstance(func, ast.Attribute) and func.attr == "copy" and not call.args and qual is None:
        yield from config_origins(model, func.value, depth + 1)
    elif qual in ("copy.copy", "copy.deepcopy") and call.args:
        yield from config_origins(model, call.args[0], depth + 1)
    elif qual:
        yield call, True
        given = _handed_back_argument(model, call, qual)
        if given is not None:  # `attach_ref(build_space())` gives the built dict back
            yield from config_origins(model, given, depth + 1)


def _handed_back_argument(model, call: ast.Call, qual: str) -> Optional[ast.expr]:
    """The argument of a call of another module's function that the function returns as
    it was given (its summary's `retp`), e.g. the dict `attach_ref(space)` adds an entry to
    and returns."""
    from torchleaklint.semantic.syntax import argument_at, summary_parameters

    if model.project is None or not model.project.is_first_party(qual):
        return None
    found = model.project.imported_summary(qual)
    if found is None or found[0] != "function" or not found[1] or found[1].get("retp") is None:
        return None
    return argument_at(call, found[1]["retp"], summary_parameters(found[1]))


def tune_parameters(model) -> dict:
    """objpath -> records of the parameters of this module's functions that reach a Tune
    config parameter (`def search(space): tune.run(train, config=space)`): `a` the
    parameter, `l` the Tune call's line, `api`, `p` and `tr` as in `tune_uses`."""
    out: dict = {}
    for tune_call in tune_calls(model):
        for origin, kind, keys in nested_origins(model, tune_call.config):
            if kind is not None:
                continue
            func = model.parent(origin)
            while func is not None and not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                func = model.parent(func)
            objpath = model.objpath(func) if func is not None else None
            if objpath is None:
                continue
            record = {"a": origin.arg, "l": tune_call.call.lineno, "api": dotted(tune_call.call.func) or "tune.run",
                      "p": tune_call.param, "tr": trainable_text(model, tune_call.trainable)}
            if keys:
                record["k"] = [list(k) for k in keys]
            if record not in out.setdefault(objpath, []):
                out[objpath].append(record)
    return out


@dataclass(frozen=True)
class Forwarded:
    """A dict this module passes to a function of another module that hands it to Tune."""

    call: ast.Call
    argument: ast.expr
    use: dict  # the callee's `tune_p` record
    callee: str  # how the call names it
    where: str  # `search.py:12`: the Tune call in the other module


def project_uses_tune(view) -> bool:
    """Other modules pass a dict of this one to Tune, or this one calls a function of
    another module that does with its argument: TLL005 has work here even if the file never
    names `tune` (both are sites of this file, part of its cache key)."""
    return view is not None and bool(view.external_sites(TUNE_SITES) or view.external_sites(TUNE_CALLERS))


def forwarded_configs(model) -> Iterator[Forwarded]:
    """Arguments of calls of other modules' functions whose parameter reaches a Tune
    config there (the callee's summary: `tune_p`, indexed as `TUNE_CALLERS` sites here)."""
    view = model.project
    if view is None:
        return
    sites = {(site["l"], site["c"]): site for site in view.external_sites(TUNE_CALLERS)}
    if not sites:
        return
    for call in model.calls:
        site = sites.get((call.lineno, call.col_offset))
        if site is None:
            continue
        params = list(site["params"])
        offset = 1 if site["self"] else 0
        for use in site["uses"]:
            argument = _keyword(call, use["a"])
            if argument is None and use["a"] in params:
                index = params.index(use["a"]) - offset
                if 0 <= index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
                    argument = call.args[index]
            if argument is not None:
                yield Forwarded(call, argument, use, dotted(call.func) or "the function",
                                view.definition_label(site["def"], use["l"]))


def trainable_text(model, trainable: Optional[ast.AST]) -> Optional[str]:
    """`train_fn` for `train_fn`, `tune.with_resources(train_fn, ...)`, `partial(train_fn, ...)`
    and a name bound to one of those."""
    for _ in range(4):
        if isinstance(trainable, ast.Call) and trainable.args and \
                ((dotted(trainable.func) or "").rsplit(".", 1)[-1] in _WRAPPERS | {"partial"}):
            trainable = trainable.args[0]
        elif isinstance(trainable, ast.Name):
            definitions, _ = reaching_bindings(model, trainable)
            if len(definitions) != 1 or not isinstance(definitions[0], ast.Call):
                break
            trainable = definitions[0]
        else:
            break
    return dotted(trainable) if trainable is not None else None


# ------------------------------------------------------------ project index
def resolve_definition(resolver, qual: str, hops: int = 0) -> Optional[Tuple[str, str]]:
    """(file, name) of the module function or module-level variable a first-party qualified
    name denotes, following re-exports (`from .space import SPACE` in `__init__.py`)."""
    from torchleaklint.project.view import Resolver

    if hops > _MAX_HOPS:
        return None
    found = resolver.lookup(qual)
    if found is not None:
        return (found[2], found[3]) if found[0] == "function" and "." not in found[3] else None
    path, _, rest = resolver.split(qual)
    if path is None or not rest or "." in rest:
        return None
    summary = resolver.summary(path)
    if summary is None or rest in summary.get("defs", {}):
        return None
    target = resolver.alias(path, summary, rest)
    if target is not None:
        if not resolver.is_first_party(target):
            return None
        return resolve_definition(Resolver(path, resolver.summaries, resolver.reads), target, hops + 1)
    return path, rest


def index_tune_uses(index: dict, summaries: dict) -> None:
    """Add to `index` (file -> objpath -> sites): every summary's Tune uses, as sites of the
    defining modules (`TUNE_SITES`); and every call of another module's function whose
    parameter reaches a Tune config there, as a site of the calling module (`TUNE_CALLERS`:
    what the callee does travels with the site, so the caller's cached result depends on it
    exactly as on its other sites)."""
    from torchleaklint.project.packed import sorted_items
    from torchleaklint.project.view import Resolver

    for path, summary in sorted_items(summaries):
        records = summary.get("tune") or ()
        calls = [c for c in summary.get("calls", ()) if not c.get("self")]
        if not records and not calls:
            continue
        resolver = Resolver(path, summaries)
        for record in records:
            found = resolve_definition(resolver, record["t"])
            if found is None or found[0] == path:
                continue
            index.setdefault(found[0], {}).setdefault(TUNE_SITES, []).append(dict(record, path=path, n=found[1]))
        for call in calls:
            found = resolver.lookup(call["t"])
            if found is None or found[0] != "function" or not found[1] or found[2] == path:
                continue
            uses = found[1].get("tune_p")
            if uses:
                index.setdefault(path, {}).setdefault(TUNE_CALLERS, []).append({
                    "path": path, "l": call["l"], "c": call["c"], "params": found[1].get("params", []),
                    "self": bool(found[1].get("self")), "uses": uses, "def": found[2]})


# ---------------------------------------------------------- defining side
@dataclass(frozen=True)
class ExternalConfig:
    """A dict of this module that another module passes as a Tune config."""

    entries: Tuple[ConfigEntry, ...]
    anchor: ast.AST  # what in this module becomes the config: a `return` or the variable's binding
    what: str  # "`build_config()` returns this dict" / "`SEARCH_SPACE`"
    site: dict  # the record of the Tune call in the other module


def external_configs(model) -> Iterator[ExternalConfig]:
    """The dicts this module defines that other modules of the project pass to Tune."""
    view = model.project
    if view is None:
        return
    for site in view.external_sites(TUNE_SITES):
        name = site.get("n", "")
        if site.get("call"):
            func = model.module_functions.get(name)
            if func is None:
                continue
            for ret in _returns(model, func):
                value = ret.value
                if "ix" in site:  # one element of the tuple it returns
                    if not (isinstance(value, ast.Tuple) and len(value.elts) == site["sz"]):
                        continue
                    value = value.elts[site["ix"]]
                yield ExternalConfig(tuple(config_entries(model, value)), ret,
                                     f"`{name}()` returns this dict", site)
        else:
            definitions, updates, _ = _bindings_before(model, model.tree, name, None)
            entries = []
            for definition in definitions:
                entries.extend(config_entries(model, definition))
            for update in updates:
                entries.extend(_update_entries(model, update, 0))
            anchor = _module_binding(model, name)
            if anchor is not None:
                yield ExternalConfig(tuple(entries), anchor, f"`{name}` is this dict", site)


def _returns(model, func) -> List[ast.Return]:
    return [node for node in walk(func)
            if isinstance(node, ast.Return) and node.value is not None and model.unit_of(node) is func]


def _module_binding(model, name: str) -> Optional[ast.stmt]:
    found = None
    for stmt in model.tree.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            found = stmt
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            found = stmt
    return found


# ------------------------------------------------------- partial captures
@dataclass(frozen=True)
class Capture:
    """A value bound into the trainable by `functools.partial` (pickled into every trial)."""

    partial: ast.Call
    keyword: Optional[str]  # the keyword it is bound to, None for a positional argument
    value: ast.expr
    where: ast.AST
    tune_call: ast.Call
    trainable: Optional[str]


_REGISTER_TRAINABLE = frozenset({"ray.tune.register_trainable", "ray.tune.registry.register_trainable"})


def partial_captures(model) -> Iterator[Capture]:
    """Arguments of `functools.partial(trainable, ...)` calls that reach the trainable
    argument of a Tune entry point (through names and `tune.with_resources`)."""
    seen = set()
    for call, trainable in _trainables(model):
        for bound in _partials(model, trainable, 0):
            if id(bound) in seen:
                continue
            seen.add(id(bound))
            name = trainable_text(model, bound)
            for arg in bound.args[1:]:
                if not isinstance(arg, ast.Starred):
                    yield Capture(bound, None, arg, arg, call, name)
            for kw in bound.keywords:
                if kw.arg is not None:
                    yield Capture(bound, kw.arg, kw.value, kw, call, name)


def _trainables(model) -> Iterator[Tuple[ast.Call, ast.expr]]:
    for call in model.calls:
        qual = model.qualname(call.func)
        if qual in _ENTRY_POINTS:
            _, _, keyword, position = _ENTRY_POINTS[qual]
            trainable = _argument(call, keyword, position)
            if trainable is not None:
                yield call, trainable
        elif qual in _RUN_EXPERIMENTS:
            for tune_call in tune_calls(model):
                if tune_call.call is call and tune_call.trainable is not None:
                    yield call, tune_call.trainable
        elif qual in _REGISTER_TRAINABLE:
            # `tune.register_trainable("name", partial(train, data=df))`, then
            # `tune.run("name")`: the registry pickles the trainable for every trial
            trainable = _argument(call, "trainable", 1)
            if trainable is not None:
                yield call, trainable


def _partials(model, expr: ast.AST, depth: int) -> Iterator[ast.Call]:
    if depth > MAX_DEPTH:
        return
    if isinstance(expr, ast.Call):
        qual = model.qualname(expr.func) or ""
        if qual in _PARTIAL and expr.args:
            yield expr
            yield from _partials(model, expr.args[0], depth + 1)  # partial(partial(f, a), b)
        elif qual.startswith("ray.tune.") and qual.rsplit(".", 1)[-1] in _WRAPPERS and expr.args:
            yield from _partials(model, expr.args[0], depth + 1)
        elif _local_helper(model, expr) is not None:
            # `tune.Tuner(partial_trainable(), ...)`, `self.partial_trainable()`: what the
            # helper of this module returns
            helper = _local_helper(model, expr)
            for node in nodes_within(helper):
                if isinstance(node, ast.Return) and node.value is not None:
                    yield from _partials(model, node.value, depth + 1)
    elif isinstance(expr, ast.Name):
        definitions, _ = reaching_bindings(model, expr)
        for definition in definitions:
            if not isinstance(definition, ast.arg):
                yield from _partials(model, definition, depth + 1)
        if not definitions:
            # `trainable, config = build_search(...)`: what the helper returns there
            for source in unpacked_sources(model, expr):
                yield from _partials(model, source, depth + 1)
    elif isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        # `tune.run(self.trainable, ...)`: what the class's methods store there
        # (`self.trainable = functools.partial(train_forecaster, feature_array=features)`)
        for value in _stored_on_self(model, expr):
            yield from _partials(model, value, depth + 1)


def _stored_on_self(model, read: ast.Attribute) -> List[ast.AST]:
    """The values the methods of the class around `read` assign to `self.<attr>`."""
    info = model.class_of(model.unit_of(read))
    if info is None:
        return []
    found = []
    for method in info.methods.values():
        for node in walk(method):
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Attribute) and t.attr == read.attr and isinstance(t.value, ast.Name)
                    and t.value.id == "self" for t in node.targets):
                found.append(node.value)
    return found


# ------------------------------------------------------- global captures
@dataclass(frozen=True)
class GlobalRead:
    """A module-level object read by a trainable defined in the script Tune runs."""

    read: ast.Name  # the first read in the trainable
    function: str
    tune_call: ast.Call


def global_captures(model) -> Iterator[GlobalRead]:
    """Module-level names a trainable function reads, when the module is a script (a
    `__main__` block, or Tune started at module level): Ray pickles such a function by value,
    with the globals it reads, into every trial. Only plain functions of this module (a
    method or an imported function is pickled by reference)."""
    if not _runs_as_script(model):
        return
    seen = set()
    for call, trainable in _trainables(model):
        func = _trainable_function(model, trainable, 0)
        if func is None or func in seen:
            continue
        seen.add(func)
        reads = {}
        for node in walk(func):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in reads and \
                    _reads_global(model, node, func):
                reads[node.id] = node
        for read in reads.values():
            yield GlobalRead(read, func.name, call)


def _runs_as_script(model) -> bool:
    if drives_itself(model.tree):
        return True
    return any(isinstance(model.unit_of(call), ast.Module) for call, _ in _trainables(model))


def _trainable_function(model, expr: ast.AST, depth: int):
    """The module function a trainable expression runs (through names, `partial`,
    `tune.with_parameters` / `with_resources`)."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        if expr.id in model.module_functions and model.qualname(expr) is None:
            unit = model.unit_of(expr)
            if isinstance(unit, ast.Module) or not _has_local_binding(model, unit, expr.id):
                return model.module_functions[expr.id]
            return None
        definitions, _ = reaching_bindings(model, expr)
        if len(definitions) == 1 and not isinstance(definitions[0], ast.arg):
            return _trainable_function(model, definitions[0], depth + 1)
        return None
    if isinstance(expr, ast.Call) and expr.args:
        qual = model.qualname(expr.func) or ""
        if qual in _PARTIAL or (qual.startswith("ray.tune.") and qual.rsplit(".", 1)[-1] in _WRAPPERS):
            return _trainable_function(model, expr.args[0], depth + 1)
    return None


def _has_local_binding(model, unit, name: str) -> bool:
    from torchleaklint.semantic.tune import _parameter, _scope_bindings

    return bool(_scope_bindings(model, unit, name)) or _parameter(unit, name) is not None


def _reads_global(model, name: ast.Name, func) -> bool:
    """`name` reads a module-level variable: no scope between the use and the module binds
    it, and it is not a function, class or import of the module."""
    if name.id in model.module_functions or name.id in model.classes or model.qualname(name) is not None:
        return False
    unit = model.unit_of(name)
    while unit is not None and not isinstance(unit, ast.Module):
        if _has_local_binding(model, unit, name.id) or _comprehension_binds(model, name):
            return False
        if unit is func:
            break
        unit = model.unit_of(model.parent(unit))
    return True


def _comprehension_binds(model, name: ast.Name) -> bool:
    node = model.parent(name)
    while node is not None and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        if isinstance(node, ast.Lambda) and any(a.arg == name.id for a in walk(node.args)
                                                  if isinstance(a, ast.arg)):
            return True
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            for generator in node.generators:
                if any(isinstance(t, ast.Name) and t.id == name.id for t in walk(generator.target)):
                    return True
        node = model.parent(node)
    return False
