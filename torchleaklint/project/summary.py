"""Per-module summaries: what other modules of the project need to know about a module.

A summary is plain data (dicts, lists, strings, numbers: JSON-serializable) computed by
the per-file semantic layer:

- `aliases`: module-level import names -> qualified names (`th` -> `torch`);
  `all`: `__all__` when it is a literal list; `defs`: top-level functions and classes;
  `exports`: what `from this import *` binds (honoring `__all__`); `stars`: the first-party
  modules it star-imports (their names are not copied into `aliases` nor `exports`).
- `functions`: per module function and method (`f`, `Cls.m`): line, parameters, the value
  it returns (`ret`; `ret_g` when its tensor arguments carry a graph; `ret_m` when modules
  are handed for the parameters `mp` it calls), whether it runs with
  autograd off (`nograd`; `fwd_off` when every forward in it runs under no-grad; `fwd_own` when
  an attribute of its object chooses that; `fwd_if` the flags,
  name, position, the truth value that lets a forward run and the default, without which it
  runs none with grad on), back-propagates (`bw`; `bwp` the parameters whose values it
  back-propagates; `bwr` those whose values may reach a backward through what it computes), computes gradients on purpose (`grad`; `gtr` when only in train mode, under
  `if self.training:`), passes over data in a loop of its own (`pod`), and which parameters it keeps on `self`
  or in a container (`keeps`: parameter -> `self.attr`); `weight` / `weights` what makes
  its returned data (or each element of its returned tuple) too big for a Tune config;
  `tune_p` its parameters that reach a Ray Tune config.
- `classes`: line, qualified bases, kind (module / dataset / loss / ""), methods, the
  values `__init__`-like methods bind to attributes (`attrs`), and the attributes only those
  methods store (`fixed`: the same for an object's whole life); `out` the attributes of self
  its methods return (`return self.error_term(self.preds, self.labels)`).
- `calls`: calls this module makes of first-party functions and methods of other modules
  (and `self.method()` calls in loops, for subclasses elsewhere): target, position, argument
  values, whether autograd is off there (`ng`), whether it is in a training loop (`tr`) or a
  per-step loop (`st`), or in a function that runs one training step per call (`ps`: a
  learner's `train(batch)` restarting the controller's state before its unroll); `nb` when
  that loop also holds a nested loop that back-propagates (a reset once per episode, then a
  backward at every tick of it; or the call, once per call of its function, precedes such a
  loop); `ev` when it is made after `receiver.eval()` of the object it
  calls (an evaluation); `md` when a method of a module class makes it (part of a model's
  computation, `mm` when in a loop of such a method); `in`, for a call outside loops, the
  function that makes it (the site index marks it `lpx` when another module calls that
  function in a loop: `log.record_value(v)` in `select_action`, which train.py runs per step).
- `tune`: first-party names of other modules whose dict this module passes as a Ray Tune
  config (`semantic/tune_project.py`), indexed as sites of the defining module.
- `named`: calls of the run's method names on receivers of unknown class (`self.policy.act(x)`):
  name -> [calls, calls under no-grad, references as a value], indexed for the modules that
  define such a method.
- `vars`: module-level variables too big for a Tune config (`TRAIN_DF = pd.read_csv(...)`):
  name -> what / kind / line.
- `imports`: the files of the first-party modules this module imports.
- `fattrs`: attributes the module stores in a loop on objects other than a method's own
  `self` (`rnn.hidden = rnn.init_hidden(batch)` before each batch), indexed for the modules whose classes store them
  on `self` (`~fst`): state managed from outside.

Values are encoded by `encode` / `decode`: a kind string, or a small dict for values with a
name, elements or items.
"""

from __future__ import annotations

import ast
import builtins
from typing import Dict, List, Optional, Set

from torchleaklint.semantic.values import (
    CLASS, DATA, FUNCTION, GRAPH, INSTANCE, MODULE, NONE, REF, UNKNOWN, Value, DATASET, DATALOADER, LOSS_FN,
)

from torchleaklint.project.modules import BUILTIN_KNOWLEDGE
from torchleaklint.semantic import torch_api
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.syntax import (FUNCTION_TYPES, INIT_METHODS, is_staticmethod, named_parameters, nodes_within,
                                          positional_parameters, self_name, walk)

SUMMARY_VERSION = 70
# Returned values that a graph-carrying argument could turn into a graph (`ret_g`).
_MAY_DEPEND_ON_ARGUMENTS = frozenset({UNKNOWN, "tensor", "sequence", "leaf"})
_NAMED_LOCAL = (INSTANCE, MODULE, DATASET, LOSS_FN)


def encode(value: Optional[Value], module: str = "", depth: int = 0):
    if value is None:
        return None
    kind, name = value.kind, value.name
    if kind == FUNCTION and name:
        kind, name = REF, f"{module}.{name}"
    elif kind == CLASS and name:
        kind, name = REF, f"{module}.{name}"
    elif kind in _NAMED_LOCAL and name and "." not in name:
        name = f"{module}.{name}"
    if name is None and value.items is None and value.elem is None and not value.scalar and not value.grad_off \
            and value.fields is None and not value.frozen and not value.cut and not value.alts:
        return kind
    out: Dict[str, object] = {"k": kind}
    if name:
        out["n"] = name
    if value.scalar:
        out["s"] = 1
    if value.grad_off:
        out["g"] = 1
    if value.frozen:
        out["z"] = 1  # a module whose parameters are all frozen (pytorch-fid's InceptionV3)
    if value.cut:
        out["x"] = 1  # a tensor cut from any graph (`.detach()`, computed under no-grad)
    if value.alts:
        out["a"] = [f"{module}.{n}" if "." not in n else n for n in value.alts]  # one of these classes
    if depth < 3:
        if value.items is not None:
            out["i"] = [encode(item, module, depth + 1) for item in value.items]
        if value.elem is not None:
            out["e"] = encode(value.elem, module, depth + 1)
        if value.fields is not None:
            out["f"] = [[key, encode(item, module, depth + 1)] for key, item in value.fields]
    return out


def decode(data) -> Value:
    if data is None:
        return Value(UNKNOWN)
    if isinstance(data, str):
        return Value(data)
    items = data.get("i")
    elem = data.get("e")
    fields = data.get("f")
    return Value(data.get("k", UNKNOWN), name=data.get("n"),
                 items=tuple(decode(i) for i in items) if items is not None else None,
                 elem=decode(elem) if elem is not None else None,
                 scalar=bool(data.get("s")), grad_off=bool(data.get("g")), frozen=bool(data.get("z")),
                 cut=bool(data.get("x")), alts=tuple(data["a"]) if data.get("a") else None,
                 fields=tuple((key, decode(item)) for key, item in fields) if fields is not None else None)


def summarize(model, module: str, partial: bool = False) -> dict:
    """The summary of the module `model` describes (its view resolves first-party names).
    `partial` (a module no other module imports): no per-function entries nor class
    attributes, which only importers read; names, classes, calls and imports as in full."""
    view = model.project
    summary: Dict[str, object] = {
        "v": SUMMARY_VERSION, "module": module,
        "aliases": view.own_aliases(model.imports.aliases) if view is not None else dict(model.imports.aliases),
        "all": _dunder_all(model.tree), "defs": {}, "functions": {}, "classes": {}, "calls": [],
        "imports": sorted(view.imported_files()) if view is not None else [],
    }
    defs = summary["defs"]
    if module.split(".")[0] in BUILTIN_KNOWLEDGE:
        # no module can import this one as first-party (torch's own sources): names only,
        # no data flow spent on what nobody will ask
        for node in model.tree.body:
            if isinstance(node, FUNCTION_TYPES):
                defs[node.name] = "function"
            elif isinstance(node, ast.ClassDef):
                defs[node.name] = "class"
        summary["exports"] = {}
        return summary
    if view is not None and view.stars:
        summary["stars"] = list(view.stars)
    if partial:
        summary["partial"] = 1
    summary["calls"], named = _calls(model, module, partial)
    # a module no other imports still hands objects of its classes to other modules' code
    # (`MILTrainer(model, opt)` with `model = AttnMIL()`): their methods are what that code runs
    handed = _classes_handed_to_other_modules(summary["calls"], module) if partial else set()
    for node in model.tree.body:
        if isinstance(node, FUNCTION_TYPES):
            defs[node.name] = "function"
            if not partial:
                summary["functions"][node.name] = _function(model, node, module, None)
        elif isinstance(node, ast.ClassDef):
            defs[node.name] = "class"
            info = model.classes.get(node.name)
            if info is None or info.node is not node:
                continue
            summary["classes"][node.name] = _class(model, info, module, partial)
            # a module no other imports still overrides its first-party base class's methods
            # (`TaggerTrainer.train_step` for `BaseTrainer.train_step`): the base calls them
            overrides = _overriding_methods(info, view) if partial and node.name not in handed else None
            for name, method in info.methods.items():
                if overrides is None or name in overrides:
                    summary["functions"][f"{node.name}.{name}"] = _function(model, method, module, info)
    if not partial and "tune" in model.source:
        _add_tune_parameters(model, summary["functions"])
    if not partial:
        heavy = _heavy_variables(model)
        if heavy:
            summary["vars"] = heavy
    summary["exports"] = _exports(summary, module, model.imports.aliases)
    backpropagated = model.backpropagated_attributes()
    if backpropagated:
        summary["bwa"] = sorted(backpropagated)  # attributes its backwards read (`model.aux.loss`)
    stored = _self_attributes_stored(model)
    if stored and not partial:
        summary["sattrs"] = stored  # attributes its classes store on `self`
    foreign = _foreign_attributes_stored(model)
    if foreign:
        summary["fattrs"] = foreign  # attributes it stores on other objects in loops (`rnn.hidden = ...`)
    if named:
        summary["named"] = named
    tune = _tune_uses(model, module)
    if tune:
        summary["tune"] = tune
    return summary


def _classes_handed_to_other_modules(sites: List[dict], module: str) -> Set[str]:
    """The classes of `module` whose objects its calls of other modules' code hand over as
    arguments (the encoded values of the sites' arguments, items and elements included)."""
    found: Set[str] = set()
    prefix = module + "."

    def collect(encoded, depth: int = 0) -> None:
        if not isinstance(encoded, dict) or depth > 3:
            return
        name = encoded.get("n")
        if isinstance(name, str) and name.startswith(prefix) and "." not in name[len(prefix):]:
            found.add(name[len(prefix):])
        for item in encoded.get("i") or ():
            collect(item, depth + 1)
        collect(encoded.get("e"), depth + 1)

    for site in sites:
        for encoded in list(site.get("a") or ()) + list((site.get("kw") or {}).values()):
            collect(encoded)
    return found


def _self_attributes_stored(model) -> List[str]:
    """The attributes the module's methods store on `self` (`self.loss = ...`)."""
    return sorted({n.attr for n in model.nodes(ast.Attribute) if isinstance(n.ctx, ast.Store)
                   and isinstance(n.value, ast.Name) and n.value.id == "self"})


def _foreign_attributes_stored(model) -> List[str]:
    """The attributes the module stores inside a loop on objects other than a method's own
    `self` (`rnn.hidden = rnn.init_hidden(batch)` before each batch of a training script):
    state its callers restart or detach as they step. (A store made once, before the loop,
    restarts nothing between steps.)"""
    from torchleaklint.semantic.object_state import self_name

    names = set()
    for node in model.nodes(ast.Attribute):
        if isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) and node.attr not in names \
                and model.loops_around(node):
            unit = model.unit_of(node)
            if not isinstance(unit, FUNCTION_TYPES) or model.class_of(unit) is None or node.value.id != self_name(unit):
                names.add(node.attr)
    return sorted(names)


def _add_tune_parameters(model, functions: dict) -> None:
    """`tune_p`: the parameters of a function that reach a Ray Tune config in it (TLL005:
    a caller in another module that passes a dict holding a model is reported there)."""
    from torchleaklint.semantic.tune_project import tune_parameters

    for objpath, uses in tune_parameters(model).items():
        if objpath in functions:
            functions[objpath]["tune_p"] = uses


def _tune_uses(model, module: str) -> List[dict]:
    """Names of other modules whose dict this module passes as a Ray Tune config (TLL005;
    semantic/tune_project.py). Only a module that names `tune` can have any."""
    if "tune" not in model.source:
        return []
    from torchleaklint.semantic.tune_project import tune_uses

    return tune_uses(model, module)


def _dunder_all(tree) -> Optional[List[str]]:
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and \
                    isinstance(node.value, (ast.List, ast.Tuple)):
                return [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


def _exports(summary: dict, module: str, every_alias: Dict[str, str]) -> Dict[str, str]:
    """What `from module import *` binds: name -> qualified name. Without `__all__`, the
    module's own imports and definitions (what its star imports bind is found through
    `stars`); with it, the names listed, wherever they come from (`every_alias`: the
    import table, star imports included)."""
    names = summary["all"]
    aliases, defs = (summary["aliases"] if names is None else every_alias), summary["defs"]
    out = {}
    for name in (names if names is not None else list(aliases) + list(defs)):
        if names is None and name.startswith("_"):
            continue
        if name in defs:
            out[name] = f"{module}.{name}"
        elif name in aliases:
            out[name] = aliases[name]
        elif names is not None and isinstance(name, str) and name.isidentifier():
            out[name] = f"{module}.{name}"  # listed in __all__: a module-level variable (SPACE = {...})
    return out


def _overriding_methods(info, view) -> Set[str]:
    """Methods of the class that a first-party base class of another module also defines."""
    if view is None:
        return set()
    out: Set[str] = set()
    for base in info.base_names:
        if "." not in base or not view.is_first_party(base):
            continue
        for name in info.methods:
            if name not in out and view.method_of(base, name) is not None:
                out.add(name)
    return out


def _function(model, func, module: str, info) -> dict:
    from torchleaklint.semantic.syntax import is_staticmethod, is_stub, named_parameters

    params = [a.arg for a in named_parameters(func)]
    has_self = info is not None and not is_staticmethod(func) and bool(params)
    out: Dict[str, object] = {"line": func.lineno, "params": params, "self": has_self}
    from torchleaklint.semantic.syntax import required_positional_count

    required = required_positional_count(func) - (1 if has_self else 0)
    if required > 0:
        out["req"] = required  # positional parameters (after `self`) without a default
    # the function's own data flow (shared with the rules' questions, computed once): its
    # parameters take what the module's call sites pass, as they would for a local caller
    flow = model.flow(func)
    if flow is None:
        return out
    out["ret"] = encode(flow.returns, module)
    base = flow.params
    unknown = [p for p in params[1 if has_self else 0:] if base.get(p, Value(UNKNOWN)).kind == UNKNOWN]
    may_depend = flow.returns is not None and flow.returns.kind in _MAY_DEPEND_ON_ARGUMENTS \
        and (not flow.returns.carries_graph or _has_unknown_item(flow.returns))
    if unknown and may_depend:
        ret_g = _returns_when(model, func, base, {p: Value(GRAPH) for p in unknown}, module)
        if ret_g != out["ret"]:
            out["ret_g"] = ret_g
            graph_parameters = _graph_parameters_per_item(model, func, base, unknown, out["ret"], ret_g, module)
            if graph_parameters:
                out["gp"] = graph_parameters
    called = _called_parameters(func, set(unknown))
    if called and may_depend:
        # `run_episode(env, policy)` calls `policy(obs)`: what it returns when a caller hands
        # a module there (`ret_m`, for the parameters `mp`)
        ret_m = _returns_when(model, func, base, {p: Value(MODULE) for p in called}, module)
        if ret_m != out["ret"]:
            out["ret_m"], out["mp"] = ret_m, sorted(called)
    if flow.returns is not None and (flow.returns.kind in (DATA, UNKNOWN) or flow.returns.kind in ("tensor", "leaf")):
        # (also a tensor: `load_table()` returning `torch.cat([x, y], 1)` of 50,000 rows)
        weight = _returned_weight(model, func)
        if weight is not None:
            out["weight"] = weight
    weights = _returned_element_weights(model, func, flow.returns)
    if weights:
        out["weights"] = weights
    templates = _returned_element_shapes(model, func, flow.returns, weights)
    if templates:
        out["wdims"] = templates  # elements sized by the arguments (`torch.randn(n, dim)`)
    sources = _returned_element_sources(model, func, flow.returns, has_self)
    if sources:
        out["wfrom"] = sources  # elements as big as an argument (`return x[:n], x[n:]`)
    from torchleaklint.semantic.syntax import arithmetic_positions

    mixed = arithmetic_positions(func, skip_self=has_self)
    if mixed:
        out["mix"] = mixed  # returns an arithmetic combination of these arguments (`beta * prev + ...`)
    returned = _returned_position(func, has_self)
    if returned is not None:
        out["retp"] = returned  # hands back the object passed there (`return space`)
    if _returns_detached_parameter(func, set(params)):
        out["detaches"] = True
    from torchleaklint.semantic.syntax import passed_through_positions

    width, passed = passed_through_positions(func)
    if passed:
        # the tuple it returns, and the items it hands back untouched (`return loss, logs`)
        out["pass"] = {"w": width, "p": {str(k): v for k, v in passed.items()}}
    from torchleaklint.semantic.state_cuts import parameters_cut_on_entry

    cuts = parameters_cut_on_entry(model, func)
    if cuts:
        out["cuts"] = sorted(cuts)
    from torchleaklint.semantic.dataflow import frozen_parameters

    frozen = frozen_parameters(func)
    if frozen:
        out["frz"] = frozen  # positions of the modules it freezes (`freeze_model(model)`)
    if model.grad_off_decorated(func) or model.framework_runs_without_grad(func):
        out["nograd"] = True
    elif not model.may_run_forward(func):
        out["nofwd"] = True  # no module is called in it (`update_evaluator` on lists): no forward
    elif model.forwards_only_without_grad(func):
        out["fwd_off"] = True  # its forwards all run under `with torch.no_grad():` inside it
    elif model.grad_set_by_own_setting(func):
        out["fwd_own"] = True  # autograd off or on as an attribute of its object says (`if self.no_grad:`)
    elif func.name == "forward" and model.forwards_with_grad_only_in_training(func):
        out["fwd_tr"] = True  # forwards with grad on only under `if self.training:`
    elif func.name == "forward" and model.forwards_with_grad_only_through_unknown_callables(func):
        out["fwd_unk"] = True  # forwards with grad on only through callables nothing here tells
    else:
        flags = model.forwards_with_grad_only_if(func)
        if flags:
            out["fwd_if"] = [list(f) for f in flags]  # the flags (name, position, running value, default) its forwards with grad need
    if not out.get("nograd") and not out.get("nofwd") and not model.surely_runs_forward(func):
        out["fwd_maybe"] = True  # it only hands a module to calls that may run a forward
    driven = _driven_parameters(func, has_self)
    if driven:
        out["pcall"] = driven  # positions of parameters it calls, or calls methods of (`pn.transit(...)`)
    from torchleaklint.semantic.syntax import INIT_METHODS

    if has_self and func.name not in INIT_METHODS:
        kept = model.stores_on_its_object(func)
        if kept:
            out["sself"] = kept  # what it stores on its object that may carry a graph (`self.phi_AB`)
    from torchleaklint.semantic.evaluation import runs_own_forward_with_grad

    if out.get("nograd") is None and info is not None and runs_own_forward_with_grad(model, func):
        out["fwd_self"] = True  # a module's method running its own forward with grad on (`act(obs)`)
    if out.get("nograd") is None and info is not None and func.name not in INIT_METHODS:
        from torchleaklint.semantic.evaluation import parts_forwarded_with_grad

        parts = parts_forwarded_with_grad(model, func)
        if parts:
            out["fwdp"] = parts  # the parts of its object whose forwards it runs with grad on
            # (`self.model(state)` in an agent's `act`): `agent.model.eval(); agent.act(s)` evaluates
    if is_stub(func):
        out["stub"] = True  # abstract: what runs is a subclass's override
    if info is not None:
        from torchleaklint.semantic.object_state import cut_attributes

        cut = cut_attributes(model, func)
        if cut:
            out["scut"] = cut  # `self` attributes it detaches or restarts (`detach_state()`)
    if model.backward_calls_in(func):
        out["bw"] = True
        if model.returns_what_it_back_propagated(func):
            out["rbp"] = True  # `loss.backward(); ...; return loss`: what it returns holds a freed graph
    from torchleaklint.semantic.evaluation import computes_gradients

    if computes_gradients(model, func):
        out["grad"] = True  # differentiates on purpose (`torch.autograd.grad`, `requires_grad_()`)
        if not computes_gradients(model, func, eval_mode=True):
            out["gtr"] = True  # ... only in train mode (`if self.training: accelerator.backward(loss)`)
    if model.passes_over_data(func):
        out["pod"] = True  # a loop over batches of its own (an evaluation or aggregation pass)
    if model.runs_one_step_per_call(func):
        out["step"] = True  # a backward or an update per call, outside loops of its own
    elif model.trains_in_own_loop(func):
        out["ep"] = True  # a loop over training steps per call (`train_epoch`)
    from torchleaklint.semantic.dataflow import backpropagated_parameters

    handed = backpropagated_parameters(model, func)
    if handed:
        out["bwp"] = sorted(handed)  # parameters it back-propagates (`_optimize(self, loss)`)
    reaching = [a.arg for a in positional_parameters(func) if model.feeds_backward(func, a.arg)]
    if reaching:
        out["bwr"] = reaching  # parameters whose values may reach a backward (`d_fake` in a loss)
    if has_self and len(params) > 1 and info.base_names and not model.is_module_class(info):
        fed = model.parameters_fed_to_a_forward(func)
        if fed:
            out["fwdp"] = fed  # positions (after self) of the parameters it feeds a model (`val_step(e, i, batch)`)
    keeps = _keeps(func, set(params[1:])) if has_self else None
    if keeps:
        out["keeps"] = keeps
        derived = _stored_from(func, set(params[1:]))
        if derived:
            out["kst"] = derived  # param -> the self attributes plain stores compute from it
    return out


def _heavy_variables(model) -> Dict[str, dict]:
    """Module-level variables too big for a Tune config (`TRAIN_DF = pd.read_csv(...)`), as
    TLL005 would say it: a module that imports them may put them in a config."""
    from torchleaklint.semantic.tune import weight_of

    out: Dict[str, dict] = {}
    for node in model.tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call):
            found = weight_of(model, node.value)
            if found is not None:
                out[node.targets[0].id] = {"what": found.what, "kind": found.kind, "line": node.lineno}
    return out


def _returned_weight(model, func) -> Optional[dict]:
    """What makes the returned data too big for a Tune config (`a DataFrame loaded by
    pd.read_parquet(...)`), as TLL005 would say it of the returned expression."""
    from torchleaklint.semantic.tune import weight_of

    for node in walk(func):
        if isinstance(node, ast.Return) and node.value is not None and model.unit_of(node) is func:
            found = weight_of(model, node.value)
            if found is not None:
                return {"what": found.what, "kind": found.kind}
    return None


_HEAVY_KINDS = frozenset({DATA, DATASET, DATALOADER, MODULE, UNKNOWN, "tensor", "sequence"})


def _the_returned_tuple(model, func) -> Optional[ast.Tuple]:
    """The tuple literal (no starred item) that is the function's one `return`, else None."""
    returned = [node.value for node in walk(func) if isinstance(node, ast.Return) and node.value is not None
                and model.unit_of(node) is func]
    if len(returned) != 1 or not isinstance(returned[0], ast.Tuple) or \
            any(isinstance(e, ast.Starred) for e in returned[0].elts):
        return None
    return returned[0]


def _returned_element_weights(model, func, returns) -> Optional[list]:
    """Per element of a returned tuple (`return noisy, clean`), what makes it too big for a
    Tune config, as `_returned_weight` says it (None for a light element). Only for a
    function that returns one tuple literal of heavy-looking values."""
    from torchleaklint.semantic.tune import weight_of

    if returns is None or returns.items is None or not any(i.kind in _HEAVY_KINDS for i in returns.items):
        return None
    returned = _the_returned_tuple(model, func)
    if returned is None:
        return None
    out = []
    for elt in returned.elts:
        found = weight_of(model, elt)
        out.append({"what": found.what, "kind": found.kind} if found is not None else None)
    return out if any(out) else None


def _returned_element_shapes(model, func, returns, weights) -> Optional[list]:
    """Per element of the one returned tuple that has no weight of its own, the shape
    template of the array it is when its sizes are the function's parameters (`return x, y`
    of `x = torch.randn(n, dim)`), else None: a caller's arguments give its size."""
    from torchleaklint.semantic.tune import shape_template

    returned = _the_returned_tuple(model, func) if returns is not None and returns.items is not None else None
    if returned is None:
        return None
    out = [None if weights and weights[i] else shape_template(model, elt) for i, elt in enumerate(returned.elts)]
    return out if any(out) else None


def _returned_element_sources(model, func, returns, has_self: bool) -> Optional[list]:
    """Per element of the one returned tuple, the position (after `self`) of the positional
    parameter it is a slice or an element-wise result of (`return series[:-n], series[-n:]`),
    else None: a caller passing bulk data there gets bulk data back."""
    from torchleaklint.semantic.syntax import positional_parameters
    from torchleaklint.semantic.tune import bulk_parameter

    returned = _the_returned_tuple(model, func) if returns is not None and returns.items is not None else None
    if returned is None:
        return None
    positional = positional_parameters(func)[1 if has_self else 0:]
    out = []
    for elt in returned.elts:
        param = bulk_parameter(model, elt)
        out.append(positional.index(param) if param in positional else None)
    return out if any(p is not None for p in out) else None


def _returned_position(func, has_self: bool) -> Optional[int]:
    """The position (after `self`) of the positional parameter every `return` gives back."""
    from torchleaklint.semantic.syntax import positional_parameters, returned_parameter

    name = returned_parameter(func)
    positional = [a.arg for a in positional_parameters(func)[1 if has_self else 0:]]
    return positional.index(name) if name in positional else None


def _returns_when(model, func, base, assumed, module: str):
    """What `func` returns (encoded) when its parameters hold `assumed` on top of `base`."""
    from torchleaklint.semantic.dataflow import analyze_unit

    params = dict(base)
    params.update(assumed)
    return encode(analyze_unit(model, func, params, 1).returns, module)


def _graph_parameters_per_item(model, func, base, unknown, ret, ret_g, module: str) -> Optional[Dict[str, List[str]]]:
    """For a tuple the function returns, the item positions that `ret_g` makes graph-carrying,
    each with the parameters whose values can flow into it (`gp`): `return actor_loss, alpha,
    alpha_loss` where `alpha` is the parameter handed back, or `log_alpha.exp().item()`, is a
    graph only when the caller's `alpha` is. The flow is read from the syntax (cut at
    `.item()`, `.detach()`, `float(...)`), then checked by one analysis in which every other
    parameter holds a graph: the item must stay graph-free. None when the result is no tuple
    of the same length both ways, or the check fails."""
    items, items_g = (ret or {}).get("i") if isinstance(ret, dict) else None, \
        ret_g.get("i") if isinstance(ret_g, dict) else None
    if not items or not items_g or len(items) != len(items_g):
        return None
    differing = [i for i in range(len(items)) if items[i] != items_g[i]]
    if not differing:
        return None
    # (every parameter but `self`: one the module's own calls type, `output` handed an object
    # here, may be handed a graph by another module's call)
    every = [a.arg for a in named_parameters(func)][1 if model.class_of(func) is not None
                                                    and not is_staticmethod(func) else 0:]
    flowing: Dict[int, set] = {i: set() for i in differing}
    returns = [node for node in nodes_within(func) if isinstance(node, ast.Return) and model.unit_of(node) is func]
    for node in returns:
        if not (isinstance(node.value, ast.Tuple) and len(node.value.elts) == len(items)):
            return None  # (a tuple built elsewhere, or a return of another shape: not read item by item)
        for i in differing:
            flowing[i] |= _parameters_flowing_into(model, func, node.value.elts[i], set(every))
    out: Dict[str, List[str]] = {}
    for needed in {frozenset(v) for v in flowing.values()}:
        others = {p: Value(GRAPH) for p in unknown if p not in needed}
        found = _returns_when(model, func, base, others, module) if others else ret
        found_items = found.get("i") if isinstance(found, dict) else None
        if not found_items or len(found_items) != len(items):
            return None
        for i in differing:
            if flowing[i] == needed:
                if found_items[i] != items[i]:
                    return None  # (the item takes a graph from elsewhere too: the syntax missed a flow)
                out[str(i)] = sorted(needed)
    return out


# Calls whose result holds none of their receiver's or argument's graph.
_FLOW_CUTTING_METHODS = torch_api.GRAPH_KILLER_METHODS | torch_api.SHAPE_QUERIES


def _parameters_flowing_into(model, func, expr, params: set, depth: int = 0) -> set:
    """The parameters (of `params`) whose values `expr` may hold a graph of: the names it reads,
    directly or through the local bindings that reach it (four bindings deep), not under a
    call that cuts the graph (`log_alpha.exp().item()`, `float(x)`)."""
    found = set()
    if expr is None:
        return found
    reaching = model.reaching(func)
    todo = [expr]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Call) and (
                isinstance(node.func, ast.Attribute) and node.func.attr in _FLOW_CUTTING_METHODS
                or isinstance(node.func, ast.Name) and node.func.id in torch_api.SCALAR_BUILTINS):
            continue
        todo.extend(ast.iter_child_nodes(node))
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        for definition in reaching.definitions(node) or ():
            if not isinstance(definition, ast.AST) or isinstance(definition, ast.arg):
                if node.id in params:
                    found.add(node.id)  # the parameter as the call hands it
                continue
            statement = model.statement_of(definition)
            if isinstance(statement, ast.AugAssign) and node.id in params:
                found.add(node.id)
            source = getattr(statement, "value", None) if isinstance(statement, (ast.Assign, ast.AugAssign,
                                                                                  ast.AnnAssign)) else \
                getattr(statement, "iter", None) if isinstance(statement, (ast.For, ast.AsyncFor)) else statement
            if depth < 4:
                found |= _parameters_flowing_into(model, func, source, params, depth + 1)
            else:
                found |= params  # (too deep to follow: any of them)
    return found


def _has_unknown_item(value: Value) -> bool:
    """A tuple or dict result one of whose items is unknown (`return rec, kl`: the
    reconstruction a loss function's graph, the KL a tensor expression of the arguments):
    that item may be a graph when a caller's arguments are."""
    items = value.items if value.items is not None else \
        tuple(v for _, v in value.fields) if value.fields is not None else ()
    return any(item.kind in (UNKNOWN, "tensor") or _has_unknown_item(item) for item in items
               if item.kind in _MAY_DEPEND_ON_ARGUMENTS)


def _driven_parameters(func, has_self: bool) -> List[int]:
    """The positions (after `self`) of the positional parameters the function calls, or whose
    methods it calls other than a module's bookkeeping (`pn.transit(obs)`, not
    `model.state_dict()`): a module handed there runs what the function asks of it."""
    from torchleaklint.semantic import torch_api
    from torchleaklint.semantic.syntax import positional_parameters

    names = [a.arg for a in positional_parameters(func)[1 if has_self else 0:]]
    driven = set()
    for node in walk(func):
        if not isinstance(node, ast.Call):
            continue
        target = node.func
        if isinstance(target, ast.Attribute) and target.attr not in torch_api.MODULE_BOOKKEEPING_METHODS \
                and target.attr not in torch_api.MODULE_SELF_METHODS:
            target = target.value
        if isinstance(target, ast.Name) and target.id in names:
            driven.add(names.index(target.id))
    return sorted(driven)


def _called_parameters(func, params) -> set:
    """The parameters among `params` that the function calls (`policy(obs)`)."""
    return {node.func.id for node in walk(func) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in params}


def _returns_detached_parameter(func, params) -> bool:
    """`return state.detach()` on the tensor path of a helper (`repackage_hidden`-style):
    what it returns for a tensor argument is cut from the graph; its other paths handle
    containers and non-tensors."""
    for node in walk(func):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
            call = node.value.func
            if isinstance(call, ast.Attribute) and call.attr in ("detach", "detach_") \
                    and isinstance(call.value, ast.Name) and call.value.id in params:
                return True
    return False


def _keeps(func, params) -> Dict[str, str]:
    """Parameters whose value a method stores on self: `self.sum += val * n`, `self.values.append(v)`."""
    out: Dict[str, str] = {}
    if not params:
        return out
    for node in walk(func):
        if not isinstance(node, (ast.Assign, ast.AugAssign, ast.Call)):
            continue
        target = value = None
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            target = next((t for t in targets if _self_attr(t)), None)
            value = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("append", "extend", "insert", "add", "appendleft") and _self_attr(node.func.value):
            target, value = node.func.value, node
        if target is None or value is None:
            continue
        for name in walk(value):
            if isinstance(name, ast.Name) and name.id in params and name.id not in out:
                out[name.id] = f"self.{_self_attr(target)}"
    return out


def _stored_from(func, params) -> Dict[str, List[str]]:
    """The `self` attributes each parameter's value reaches by plain stores of the method,
    in statement order: `self.sum += val * n` then `self.avg = self.sum / self.count` gives
    `val` -> [sum, avg] (a meter's average of the losses it is handed)."""
    out: Dict[str, List[str]] = {}
    receiver = self_name(func)
    rebound = {n.id for n in walk(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    stores = []  # (the attributes a plain store binds, what its value reads), in walk order
    for node in walk(func):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            attrs = [t.attr for t in targets if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                     and t.value.id == receiver]
            if attrs:
                reads = {n.id for n in walk(node.value) if isinstance(n, ast.Name)} | \
                    {n.attr for n in walk(node.value) if isinstance(n, ast.Attribute)
                     and isinstance(n.value, ast.Name) and n.value.id == receiver}
                stores.append((attrs, reads))
    for param in sorted(params - rebound):  # (not `val = float(val)` first: a number is stored)
        reached: List[str] = []
        for attrs, reads in stores:
            if param in reads or reads & set(reached):
                reached += [a for a in attrs if a not in reached]
        if reached:
            out[param] = reached
    return out


def _self_attr(node) -> Optional[str]:
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _attributes_handed_out(info) -> List[str]:
    """`preds` and `labels` of `return self.error_term(self.preds, self.labels)` and of `return
    self.preds`: what the class's methods (not `__init__`) hand to their callers."""
    found = set()
    for name, method in info.methods.items():
        if name == "__init__":
            continue
        for node in nodes_within(method):
            if isinstance(node, ast.Return) and node.value is not None:
                found |= {n.attr for n in walk(node.value) if isinstance(n, ast.Attribute)
                          and isinstance(n.value, ast.Name) and n.value.id == "self" and isinstance(n.ctx, ast.Load)
                          and not _called(n, node.value)}
    return sorted(found)


def _attributes_from_init_parameters(init) -> Dict[str, list]:
    """`{attr: [position after self, name]}` for each `self.<attr> = <parameter>` that
    `__init__` runs first thing (a statement of its body, before any other binding of the
    parameter or of the attribute)."""
    if init is None:
        return {}
    params = [a.arg for a in positional_parameters(init)]
    if not params:
        return {}
    receiver, positions = params[0], {name: i for i, name in enumerate(params[1:])}
    positions.update({a.arg: None for a in init.args.kwonlyargs})
    out: Dict[str, list] = {}
    rebound: Set[str] = set()
    for stmt in init.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Name) \
                and isinstance(stmt.targets[0], ast.Attribute) and isinstance(stmt.targets[0].value, ast.Name) \
                and stmt.targets[0].value.id == receiver and stmt.value.id in positions \
                and stmt.value.id not in rebound and stmt.targets[0].attr not in rebound:
            out[stmt.targets[0].attr] = [positions[stmt.value.id], stmt.value.id]
            continue
        for node in walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                rebound.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                rebound.add(node.attr)  # (set again later: not the parameter alone)
    return {attr: found for attr, found in out.items() if attr not in rebound}


def _called(attribute, expr) -> bool:
    """Is `attribute` the function of a call in `expr` (`self.error_term(...)`)?"""
    return any(isinstance(n, ast.Call) and n.func is attribute for n in walk(expr))


def _class(model, info, module: str, partial: bool = False) -> dict:
    from torchleaklint.semantic.dataflow import class_attribute_value

    kind = ""
    if model.is_module_class(info):
        kind = "loss" if any(b.endswith("Loss") for b in model.class_bases(info)) else "module"
    elif model.is_dataset_class(info):
        kind = "dataset"
    elif model.is_loader_class(info):
        kind = "loader"
    attrs = {}
    init = info.methods.get("__init__") if not partial else None
    # (what the init-like methods store: `__init__`, and `initialize(opt)` of the models that
    # build themselves after construction)
    for method in [m for name, m in info.methods.items() if name in INIT_METHODS] if not partial else ():
        for node in walk(method):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                    isinstance(node.value, ast.Name) and node.value.id == "self" and node.attr not in attrs:
                value = class_attribute_value(model, info.name, node.attr)
                if value.kind != UNKNOWN:
                    attrs[node.attr] = encode(value, module)
    out = {"line": info.node.lineno, "bases": list(info.base_names), "kind": kind,
           "methods": sorted(info.methods), "attrs": attrs}
    handed = _attributes_from_init_parameters(init)
    if handed:
        out["pattrs"] = handed  # `self.model = model` in `__init__`: a subclass's
        # `super().__init__(net, opt)` decides what its methods find in `self.model`
    handed_out = _attributes_handed_out(info)
    if handed_out:
        out["out"] = handed_out  # attributes of self its methods return (or return a call of):
        # a subclass elsewhere that stores them has them read by code it inherits
    if not partial:
        from torchleaklint.semantic.object_state import attributes_set_only_at_construction

        fixed = attributes_set_only_at_construction(model, info)
        if fixed:
            out["fixed"] = fixed  # attributes only its init-like methods store: fixed per object
    forward = info.methods.get("forward")
    if kind == "module" and forward is not None:
        from torchleaklint.semantic.evaluation import computes_gradients

        if computes_gradients(model, forward):
            out["gfw"] = True  # its forward differentiates on purpose (also in a partial summary)
    if kind == "module" and not partial:
        from torchleaklint.semantic.dataflow import construction_freeze, holds_no_parameters

        if holds_no_parameters(model, info.name):
            out["noparams"] = True
        else:
            from torchleaklint.semantic.dataflow import parameter_free_unless_handed

            handed = parameter_free_unless_handed(model, info.name)
            if handed:
                out["npu"] = [list(pair) for pair in handed]  # parameter-free unless handed these
        from torchleaklint.semantic.object_state import holds_no_graph_state

        if holds_no_graph_state(model, info.name):
            out["nostate"] = True  # keeps nothing between calls (TLL007's handed modules)
        # (or built without the flag its `forward` records a graph only with: `trainable=False`)
        freeze = construction_freeze(init, info.methods) or model.forward_gate(info)
        if freeze is not None:
            out["freeze"] = list(freeze)
    return out


def _calls(model, module: str, partial: bool = False):
    """Calls of first-party functions of other modules, and self-calls in loops (not in a
    module no other module imports: no subclass elsewhere can override its methods); and
    the counts of calls of the run's method names on receivers of unknown class (`named`)."""
    view = model.project
    names = getattr(view, "callable_names", None)
    out = []
    unresolved: List[list] = []
    for call in model.calls:
        func = call.func
        self_call = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"
        submodule = self_call and _code_of_another_module(model, call)
        if submodule:
            # `self.norm(h)`: the forward of the layer it holds; `self.log_step(loss)`: a method
            # its base class in another module defines. Not a method of its own class
            self_call = False
        if self_call and partial:
            continue
        if names is not None and not self_call and not submodule and not _may_name_run_function(model, func, names):
            continue
        loops = model.loops_around(call)
        if self_call and not loops:
            continue
        if not self_call and view is None:
            continue
        unit = model.unit_of(call)
        # a method name of the run called on a receiver of unknown class (`self.policy.act(x)`)
        named = not self_call and isinstance(func, ast.Attribute) and names is not None and func.attr in names \
            and not model.receiver_of_another_kind(call) \
            and not (func.attr in torch_api.MODULE_BOOKKEEPING_METHODS and model.value(func.value).kind == MODULE)
        # (`ep_log_probs.clear()` of a list; `model.train()` of a module runs `nn.Module.train`)
        if not self_call and not submodule and not _may_call_first_party(model, call):
            if named:
                unresolved.append([func.attr, int(bool(model.grad_disabled_at(call))), _passes_on(call, unit)])
            continue
        flow = model.flow(unit)
        if flow is None:
            continue
        targets = _call_targets(model, flow, call, module, self_call)
        if not targets:
            if named:
                unresolved.append([func.attr, int(bool(model.grad_disabled_at(call))), _passes_on(call, unit)])
            continue
        for target in targets:
            out.append(_site(model, flow, call, target, self_call, loops, module))
            if len(targets) > 1:
                out[-1]["alt"] = 1  # on an object of one of several classes: this one's method, maybe
        if isinstance(unit, FUNCTION_TYPES) and model.runs_one_step_per_call(unit):
            for site in out[-len(targets):]:
                site["ps"] = 1  # written only when true: most sites are not in a step function
    return out, _counted(unresolved, _handed_out(model, names))


def _code_of_another_module(model, call) -> bool:
    """`self.<attr>(...)` that is no method of the enclosing class and runs code of another
    module: `self.norm(h)` where `self.norm` holds a module of another module's class (or of
    one of several: `self.center = Detached() if flag else Plain()`), or `self.log_step(loss)`
    that a base class of another module defines."""
    from torchleaklint.semantic.dataflow import inherited_method

    info = model.enclosing_class_info(call)
    if info is None or model.method(info.name, call.func.attr) is not None:
        return False
    value = model.value(call.func)
    return value.kind == MODULE and any("." in name for name in ((value.name,) if value.name else value.alts or ())) \
        or inherited_method(model, info, call.func.attr) is not None


def _call_targets(model, flow, call, module: str, self_call: bool) -> List[str]:
    """What a call may run, by qualified name: a function or class of another module
    (`losses.dice(...)`), a method of this module's class called on `self`, or the
    `__call__` of an instance of another module's class (`abstractor(x)`), of each class
    whose instance can reach the call (`abstractor = Abstractor(p)` or `BeamAbstractor(p)`)."""
    func = call.func
    view = model.project
    callee = flow.values.get(func)
    if self_call and callee is not None and callee.kind in (FUNCTION, UNKNOWN):
        info = model.enclosing_class_info(call)
        return [f"{module}.{info.name}.{func.attr}"] if info is not None else []
    if view is None:
        return []
    if callee is not None and callee.alts:
        # an object of one of several classes called (`abstractor(tokens)`): each one's `__call__`
        found = [_other_module_target(view, Value(callee.kind, name=n), module) for n in callee.alts]
        return list(dict.fromkeys(t for t in found if t))
    if callee is not None and callee.kind not in (UNKNOWN, NONE):
        target = _other_module_target(view, callee, module)
        return [target] if target else []
    if isinstance(func, ast.Attribute):
        # `logger.log(name, loss)` on an instance of another module's class: that class's
        # method (found along its bases), so its parameters see what this call hands them;
        # of each class, for an object of one of several (`A2CSeparate() if flag else A2CShared()`)
        receiver = flow.values.get(func.value)
        receivers = [Value(receiver.kind, name=n) for n in receiver.alts] if receiver is not None and receiver.alts \
            else [receiver]
        targets = []
        for one in receivers:
            target = _other_module_method(view, one, func.attr, module)
            if target and target not in targets:
                targets.append(target)
        return targets
    if not isinstance(func, ast.Name):
        return []
    # a local bound on several paths to different objects: each binding the read can see
    targets = []
    for definition in model.reaching(model.unit_of(call)).definitions(func):
        bound = model.parent(definition)
        if isinstance(bound, ast.Assign) and bound.targets == [definition]:
            value = flow.values.get(bound.value)
            target = _other_module_target(view, value, module) if value is not None else None
            if target and target not in targets:
                targets.append(target)
    return targets


def _other_module_target(view, callee, module: str) -> Optional[str]:
    """A function or class of another module of the project (REF), or the `__call__` an
    instance of another module's class runs (found along its bases)."""
    name = callee.name
    if not name or name.startswith(module + ".") or not view.is_first_party(name):
        return None
    if callee.kind == REF:
        return name
    if callee.kind in (INSTANCE, MODULE):
        # an nn.Module's call runs its `forward` (`self.norm(h)` of a norm layer built from
        # another module's class), any other object's its `__call__`
        found = view.method_of(name, "forward" if callee.kind == MODULE else "__call__")
        if found is not None:
            return _qualified(view, found)
    return None


def _qualified(view, found) -> Optional[str]:
    """The qualified name of a function `view.method_of` found (path found[2], objpath
    found[3]) under which this module reaches it: its module's name from the source root, or,
    for a module outside any importable package (a script directory, `large-scale/models.py`
    imported as `models`), its name from this module's directory. None if neither."""
    from torchleaklint.project.modules import name_from

    module = name_from(found[2], view.path)
    return f"{module}.{found[3]}" if module else None


def _other_module_method(view, receiver, method: str, module: str) -> Optional[str]:
    """The qualified name of `method` of the first-party class of another module that
    `receiver` is an instance of, or None."""
    if receiver is None or receiver.kind not in (INSTANCE, MODULE):
        return None
    name = receiver.name
    if not name or name.startswith(module + ".") or not view.is_first_party(name):
        return None
    found = view.method_of(name, method)
    return _qualified(view, found) if found is not None else None


def _in_a_unit_test(model, call) -> bool:
    """Is `call` made by a pytest/unittest test function (or code nested in one)?"""
    from torchleaklint.semantic.evaluation import is_unit_test

    unit = model.unit_of(call)
    return isinstance(unit, FUNCTION_TYPES) and is_unit_test(model, unit)


def _site(model, flow, call, target: str, self_call: bool, loops, module: str) -> dict:
    from torchleaklint.semantic.containers import arguments_kept_across_loops
    from torchleaklint.semantic.model import bound_on_an_object

    site = {
        "t": target, "l": call.lineno, "c": call.col_offset, "self": self_call,
        "a": [encode(flow.values.get(a), module) for a in call.args if not isinstance(a, ast.Starred)],
        "kw": {kw.arg: encode(flow.values.get(kw.value), module) for kw in call.keywords if kw.arg},
        # keywords given a falsy literal (`marginal=False`): an opt-in flag left off (gating)
        "fk": sorted(kw.arg for kw in call.keywords if kw.arg and isinstance(kw.value, ast.Constant)
                     and not kw.value.value),
        "ng": bool(model.grad_disabled_at(call)),
        "tr": any(model.runs_training_step(loop) or model.has_backward_within(loop) for loop in loops),
        "st": any(model.is_step_loop(loop) for loop in loops),
        "ex": model.in_except_handler(call),
        "bp": model.result_back_propagated(call),  # the caller back-propagates the result
        "rt": model.result_returned(call),  # or hands it to its own caller
        "ob": bound_on_an_object(model, call),  # or keeps it on an object (`self.out = f(x)`)
        "fw": model.in_module_forward(call),  # made by a module's forward: part of it
        "ps": _in_per_step_function(model, call),  # made once per step by the caller's own step
    }
    literal = [i for i, a in enumerate(call.args) if isinstance(a, ast.Constant)] + \
        [kw.arg for kw in call.keywords if kw.arg and isinstance(kw.value, ast.Constant)]
    if literal:
        site["lit"] = literal  # the arguments given a literal (positions, keyword names)
        given = list(enumerate(call.args)) + [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
        numbers = {str(key): node.value for key, node in given
                   if isinstance(node, ast.Constant) and type(node.value) is int}
        if numbers:
            site["iv"] = numbers  # the integers given (`build_space(in_dim=8)`): sizes a callee computes with
    if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
        site["spread"] = 1  # `f(*args)`, `f(**kw)`: which argument goes where is not spelled out
    if _in_a_unit_test(model, call):
        site["ut"] = 1  # made by a pytest/unittest test: its made-up arguments are no run's values
    if model.in_module_method(call):
        site["md"] = 1  # made by a method of a module class (`render_rays` of a generator): part of a model
    if model.result_dropped_at(call):
        site["dr"] = 1  # a statement of its own (or bound to a name only read cut): the caller drops
        # what it returns
    if loops:
        site["lp"] = 1  # made in a loop of the caller: called over and over
        site["lo"] = loops[-1].lineno  # the outermost loop's line: calls in one loop nest share it
        site["li"] = loops[0].lineno  # the innermost's: calls in one loop body share it
        if not site["ng"] and any(model.runs_forward_each_iteration(loop) and not model.has_backward_within(loop)
                                  for loop in loops):
            site["ro"] = 1  # ... of a rollout: a forward each iteration on what the last one
            # computed, with autograd on and no backward in the loop
            if _a_function_of_the_training_loop(model, call):
                site["rs"] = 1  # ... in a function a training loop calls each iteration (an
                # episode simulated, then back-propagated): the rollouts follow one another
        if model.receiver_rebuilt_per_step(call):
            site["fr"] = 1  # on an object the step loop builds anew each iteration: it lives one step
        if site.get("md"):
            site["mm"] = 1  # ... of a module's method: over the parts of one input (decoding steps)
        kept = arguments_kept_across_loops(model, call)
        if kept:
            site["kc"] = kept  # containers of the caller kept across its step loop (`logs` made
            # before it): what the callee adds to them stays for the rest of the loop
    else:
        unit = model.unit_of(call)
        enclosing = model.objpath(unit) if isinstance(unit, FUNCTION_TYPES) else None
        if enclosing is not None:
            site["in"] = enclosing  # the caller's function: the index marks the site `lpx` when
            # another module calls that function in a loop (`agent.select_action(s)` per env step)
    if loops and _backward_loop_nested_beside(model, call, loops[0]):
        site["nb"] = 1  # once per iteration of a loop whose nested loop back-propagates several
        # times (`plant.reset()` per episode, then a backward at every tick): not between those steps
    elif not loops and site["ps"] and _backward_loop_nested_beside(model, call, model.unit_of(call)):
        site["nb"] = 1  # once per call of a function that then back-propagates in a loop of its
        # own (`model.encoder.reset_state()`, then a backward per batch, one update per epoch)
    from torchleaklint.semantic.evaluation import in_evaluation_region

    if in_evaluation_region(model, call):
        site["ev"] = 1  # after `model.eval()` of its receiver: the caller evaluates what it calls
    weights = _data_argument_weights(model, flow, call)
    if weights:
        site["wt"] = weights  # arguments that are bulk data (`build_space(df)` of a read CSV)
    consumed = _arguments_back_propagated(model, call, loops)
    if consumed:
        site["abp"] = consumed  # arguments its step back-propagates (written only when some are)
    if site["ps"] or site["st"] or site["tr"]:
        from torchleaklint.semantic.gating import under_one_off_guard
        from torchleaklint.semantic.object_state import runs_conditionally

        if runs_conditionally(model, call):
            site["cd"] = True  # under a test that varies from step to step (`if it % 10 == 9:`)
            if under_one_off_guard(model, call):
                site["once"] = 1  # ... that holds on one step (`if self.step == self.start_step:`)
    return site


def _data_argument_weights(model, flow, call) -> Dict[str, str]:
    """Position (or keyword) -> what it is, for the arguments of a call that are bulk data
    (a frame read by `pd.read_csv`, an array of 100,000 elements): what a callee putting them
    in a Ray Tune config puts there. Only for values the data flow typed as data."""
    from torchleaklint.semantic.tune import weight_of

    out: Dict[str, str] = {}
    given = [(str(i), a) for i, a in enumerate(call.args) if not isinstance(a, ast.Starred)] + \
        [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
    for key, arg in given:
        value = flow.values.get(arg)
        if value is not None and value.kind in (DATA, UNKNOWN, "tensor"):  # (`table = load_table()`)
            found = weight_of(model, arg)
            if found is not None and found.kind == DATA:
                out[key] = found.what
    return out


def _backward_loop_nested_beside(model, call, loop) -> bool:
    """Does `loop` (the innermost around `call`, a method call `obj.reset()`) hold a loop, not
    around `call`, that calls `obj` again (`obj.step(u)`, `obj(x)`) and back-propagates in its
    iterations? Not a loop over the parts of one step's losses, which calls no `obj`."""
    receiver = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None
    if receiver is None:
        return False

    def calls_receiver(node) -> bool:
        # the object itself, or the one holding it (`model.compute_loss(x)` runs `model.encoder`)
        return any(isinstance(c, ast.Call) and (_same_or_holder(dotted(c.func), receiver) or isinstance(
            c.func, ast.Attribute) and _same_or_holder(dotted(c.func.value), receiver)) for c in walk(node))
    for node in walk(loop):
        if node is not loop and isinstance(node, (ast.For, ast.AsyncFor, ast.While)) \
                and not model.is_inside(call, node) and model.has_backward_within(node) and calls_receiver(node):
            return True
    return False


def _same_or_holder(name: Optional[str], receiver: str) -> bool:
    return name is not None and (name == receiver or receiver.startswith(name + "."))


def _arguments_back_propagated(model, call, loops) -> list:
    """The positions (and keyword names) of the call's arguments whose graph a backward of the
    caller's iteration consumes (`meter.update(loss)` beside `loss.backward()`): what the
    callee keeps of them holds a freed graph's nodes, not dead activations. A call made by a
    per-step method outside its loops (`self.d_meter.update(d_loss)` after `d_loss.backward()`
    in `train_step`): one call of the method is the iteration."""
    scope = loops[0] if loops else model.unit_of(call) if _in_per_step_function(model, call) else None
    if scope is None:
        return []
    out: list = []
    arguments = [(i, a) for i, a in enumerate(call.args) if not isinstance(a, ast.Starred)]
    arguments += [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
    differentiated = None
    for key, arg in arguments:
        if isinstance(arg, ast.Subscript) and model.carries_graph(arg):
            # `loss_meter.update(out["loss"])` after `out["loss"].backward()`: the very entry
            if differentiated is None:
                differentiated = {ast.dump(model.backward_target(c)) for c in model.iteration_backwards(scope)
                                  if model.backward_target(c) is not None}
            if ast.dump(arg) in differentiated and model.consumed_by_backward(arg, scope) is not None:
                out.append(key)
        elif isinstance(arg, ast.Name) and model.carries_graph(arg) and (
                model.consumed_by_backward(arg, scope) is not None or model.returned_after_its_backward(arg)):
            out.append(key)
    return out


def _a_function_of_the_training_loop(model, call) -> bool:
    """Is the call made by a module function that a training loop of this module calls
    (`loss = _episode(controller, plant)` then `loss.backward()`, per iteration)?"""
    caller = model.unit_of(call)
    return isinstance(caller, FUNCTION_TYPES) and model.class_of(caller) is None \
        and model.training_loop_call_site(caller, other_modules=False) is not None


def _in_per_step_function(model, call) -> bool:
    """Is the call made, outside loops, by a method or function that runs once per training
    step (`train_step` calling `self.bag.update_loss(...)`)? Then the callee runs once per step."""
    caller = model.unit_of(call)
    if not isinstance(caller, FUNCTION_TYPES) or model.loops_around(call):
        return False
    return bool(model.is_per_step_method(caller)) or model.steps_once_per_call(caller) \
        or model.is_per_batch_hook(caller) and not any(
            word in caller.name for word in ("validation", "test", "predict", "eval"))
    # (`on_train_batch_end` of a callback; not an evaluation hook, which Lightning runs without grad)


def _handed_out(model, names) -> Dict[str, int]:
    """Method names of the run referenced as values, not called (`run_stage("evaluate",
    self.evaluate)`, `callbacks=[self.on_val]`): handed out, called where nobody can see."""
    if names is None:
        return {}
    return {name: n for name, n in model.attribute_references().items() if name in names}


def _counted(unresolved: List[list], handed_out: Dict[str, int]) -> Dict[str, list]:
    """Calls of a run's method name on receivers of unknown class (`self.policy.act(obs)`),
    and references to it as a value: name -> [calls, calls under no-grad, references, calls
    passing the method on]. Counts, not sites: they can only say that every call of that name
    anyone makes runs without grad, that the method is handed out to callers out of view, or
    that a holder's method of the same name runs it on a part (`self.net.reset()` in an
    agent's `reset()`)."""
    out: Dict[str, list] = {}
    for name, no_grad, passed_on in unresolved:
        counts = out.setdefault(name, [0, 0, 0, 0])
        counts[0] += 1
        counts[1] += no_grad
        counts[3] += passed_on
    for name, references in handed_out.items():
        out.setdefault(name, [0, 0, 0, 0])[2] += references
    return out


def _passes_on(call: ast.Call, unit) -> int:
    """1 for `self.<part>.<name>(...)` inside a method called `<name>` itself: a holder passing
    the call on to a part it holds (`def reset(self): self.memory_network.reset()`)."""
    func = call.func
    owner = func.value if isinstance(func, ast.Attribute) else None
    return int(isinstance(unit, FUNCTION_TYPES) and unit.name == func.attr and isinstance(owner, ast.Attribute)
               and isinstance(owner.value, ast.Name) and owner.value.id == self_name(unit))


_BUILTINS = frozenset(dir(builtins))


def _may_name_run_function(model, func, names) -> bool:
    """Cheap test: a call can only reach a function or method of another module of the run
    that some file imports (the only call sites anyone reads) if the name it calls is one
    such a module defines (`names`, every `def` of the run's imported modules):
    `x.update(...)` needs a `def update`; `f(...)` for an imported `f` needs its original
    name defined; a builtin is never one. (Not for `self.m()`: an override of `m` may be in
    any subclass.)"""
    if isinstance(func, ast.Attribute):
        return func.attr in names
    if isinstance(func, ast.Name):
        qual = model.imports.aliases.get(func.id)
        if qual is not None:
            return qual.rpartition(".")[2] in names
        return func.id in names or func.id not in _BUILTINS
    return True


def _may_call_first_party(model, call) -> bool:
    """Cheap test before running a data flow: a call whose receiver chain starts at an
    imported first-party name, or at a local variable (it may hold a first-party object)."""
    func = call.func
    while isinstance(func, (ast.Attribute, ast.Call, ast.Subscript)):
        func = func.value if not isinstance(func, ast.Call) else func.func
    if not isinstance(func, ast.Name):
        return False
    qual = model.imports.aliases.get(func.id)
    if qual is not None:
        return model.project.is_first_party(qual)
    if not _names_and_items(call.func):
        return False
    if model.project.has_first_party_imports():
        return True
    # a parameter that other modules' calls pass first-party objects for (`plant.step(u)`
    # in a loop whose `plant` the entry script constructs), though this module imports none
    # (or to a function of this module that hands it on: `fit(model, ...)` -> `_train_epoch(model, ...)`)
    # Or one that the methods asked of it type as an object of a class of another module
    # (`storage.add(...)`, `storage.clear()` of the project's RolloutStorage)
    unit = model.unit_of(call)
    return isinstance(unit, FUNCTION_TYPES) and \
        any(a.arg == func.id for a in positional_parameters(unit)) and \
        (_called_from_other_modules(model, unit) or _typed_by_another_module(model, call))


def _typed_by_another_module(model, call) -> bool:
    """`storage.add(...)` on a parameter whose value the data flow types as an object of a
    class of another module of the project, or of one of a few (from the methods asked of it)."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    if not isinstance(receiver, ast.Name) or not model.project.class_owners(call.func.attr):
        return False
    value = model.value(receiver)
    return any("." in name for name in ((value.name,) if value.name else value.alts or ()))


def _called_from_other_modules(model, unit, depth: int = 0) -> bool:
    """Do other modules call `unit`, or a function of this module that calls it (two levels)?"""
    if model.external_sites(unit):
        return True
    if depth >= 2:
        return False
    callers = {model.unit_of(site) for site in model.call_sites(unit)}
    return any(isinstance(caller, FUNCTION_TYPES) and caller is not unit and
               _called_from_other_modules(model, caller, depth + 1) for caller in callers)


def _names_and_items(expr) -> bool:
    """`self.metrics["auc"].update`, `meters[k].add`: a chain of attributes and subscripts
    from a name (no call in it), such as a dict of first-party objects is read through."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return isinstance(expr, ast.Name)
