"""TLL005: a model, dataset, DataLoader or array put into a Ray Tune config."""

from __future__ import annotations

import ast
from typing import Iterator, Optional, Set, Tuple

from torchleaklint.diagnostics import WARNING, UNSAFE, FixSpec, Span
from torchleaklint.rules.base import Rule
from torchleaklint.semantic.tune_project import (
    external_configs, forwarded_configs, global_captures, key_prefix, partial_captures, project_uses_tune,
    trainable_text,
)
from torchleaklint.semantic.tune import (
    ConfigEntry, TuneCall, Weight, config_entries, reaching_bindings, tune_calls, tune_module_alias, weight_of,
)

_MAX_NESTING = 2  # param_space={"train_loop_config": {...}} and one level more


class LargeObjectInTuneConfig(Rule):
    """Model, dataset, DataLoader or array put into a Ray Tune config.

    ## What it does
    Finds objects that are expensive to serialize in the dict Ray Tune hands to every trial:
    `tune.run(config=...)`, `tune.Tuner(param_space=...)`, `tune.Experiment(config=...)` and
    the `"config"` of a `tune.run_experiments` spec, however they are imported. The dict may
    be built in a variable first (`d["k"] = v`, `d.update(...)`, `dict(k=v)`), also in
    another function that passes it on, returned by a helper (`config=make_space()`), kept on
    `self` (`param_space=self.config`), or defined in another module of the project (a
    module-level dict, or a function returning one, that a driver elsewhere passes to Tune:
    reported at the entry, in the module that defines it). Also a large object bound into
    the trainable with `functools.partial(train_fn, data=df)`, or a module-level one that a
    trainable function of the script Tune runs reads (a `__main__` block, or Tune started at
    module level: Ray pickles such a function by value with its globals): it is pickled with
    the trainable into every trial. Reported values: `nn.Module` instances (not
    parameter-free layers such as `nn.ReLU()`), `Dataset` and `DataLoader` objects, Hugging
    Face `load_dataset(...)`, data read by `np.load`, `pd.read_*`, `torch.load`, arrays and
    tensors copied from data (`np.array(x)`, `torch.tensor(x)`), large factory tensors
    (`torch.randn(10000, 512)`) and a model's `state_dict()`.

    ## Why is this bad?
    Tune serializes the config into every trial and keeps a copy in each trial's results
    (`ResultGrid`, the experiment state and checkpoints). A model or a dataset there is
    copied once per trial: memory on the driver and on every node grows with the number of
    trials until the run is killed, while the training function looks fine.

    ## Example
    ```python
    train_df = pd.read_csv("train.csv")
    tuner = tune.Tuner(
        train_fn,
        param_space={"lr": tune.loguniform(1e-4, 1e-1), "data": train_df},
    )
    ```

    ## Use instead
    ```python
    train_df = pd.read_csv("train.csv")
    tuner = tune.Tuner(
        tune.with_parameters(train_fn, data=train_df),  # stored once in the object store
        param_space={"lr": tune.loguniform(1e-4, 1e-1)},
    )
    ```

    Not reported: search-space objects (`tune.choice`, `tune.grid_search`, ...), numbers,
    strings, paths, small literal lists, `ray.put(...)` references, classes and functions
    (build the model inside the trial), small tensors (`torch.tensor(0.1)`).

    ## Fix safety
    Unsafe. The fix removes the entry from the config and passes the object with
    `tune.with_parameters(trainable, key=value)`; the trainable then reads it from its
    keyword argument (`def train_fn(config, *, data)`, or `setup(self, config, *,
    data=None)` of a `tune.Trainable`) instead of `config["data"]`. An entry stored by
    `cfg["data"] = expr` before the call becomes `data = expr`. No fix when the dict is
    built in another function or module, the trainable passes its config on, or the object
    is bound with `functools.partial` (replace `partial` by `tune.with_parameters` by hand;
    the trainable then receives the same keyword arguments).
    """

    code = "TLL005"
    name = "large-object-in-tune-config"
    summary = "Model, dataset, DataLoader or array put into a Ray Tune config"
    fix_title = "Pass the object with `tune.with_parameters(...)`"
    fix_safety = UNSAFE
    tokens = ("tune",)

    def applies_to_project(self, project, source: str = "") -> bool:
        # a module that never names `tune` can still build the dict another module passes to it
        return project_uses_tune(project)

    def check(self, model) -> Iterator:
        reported: Set[Tuple[int, int]] = set()
        alias = tune_module_alias(model)
        for tune_call in tune_calls(model):
            for keys, weight in _heavy_entries(model, tune_call.config, (), 0):
                entry = keys[-1]
                where = (entry.where.lineno, entry.where.col_offset)
                if where in reported:
                    continue
                reported.add(where)
                yield self.finding(entry.where, _message(model, tune_call, keys, weight),
                                   _fix(model, tune_call, keys, alias), severity=WARNING,
                                   evidence=[(entry.where, f"{weight.what} enters the Tune config here"),
                                             (tune_call, "Tune serializes the whole config into every trial "
                                                         "and keeps it in each trial's results")])
        yield from _external(self, model, reported)
        yield from _forwarded(self, model, reported)
        yield from _captures(self, model, reported)
        yield from _global_reads(self, model, reported)


def _heavy_entries(model, config: ast.AST, path, depth, entries=None
                   ) -> Iterator[Tuple[Tuple[ConfigEntry, ...], Weight]]:
    for entry in (config_entries(model, config) if entries is None else entries):
        keys = path + (entry,)
        weight = weight_of(model, entry.value)
        if weight is not None:
            yield keys, weight
        elif depth < _MAX_NESTING:
            yield from _heavy_entries(model, entry.value, keys, depth + 1)


def _external(rule, model, reported) -> Iterator:
    """Entries of a dict this module defines that another module passes to Tune: reported
    here, at the entry (the other module's call is named in the message)."""
    for config in external_configs(model):
        site = config.site
        where_call = model.project.label(site)
        shown_call = f"`{site['api']}({site['p']}=...)`"
        prefix = key_prefix(site)
        for keys, weight in _heavy_entries(model, None, prefix, len(prefix), entries=config.entries):
            found = _entry_finding(rule, reported, keys, weight, site,
                                   f"{config.what} and {where_call} passes it to {shown_call}", f" at {where_call}",
                                   (config.anchor, f"{config.what}; {where_call} passes it to {shown_call}, "
                                                   "which serializes it into every trial"))
            if found is not None:
                yield found


def _forwarded(rule, model, reported) -> Iterator:
    """Entries of a dict this module passes to another module's function that hands it to
    Tune (`search(space)`, where search.py runs `tune.run(train, config=space)`)."""
    for forwarded in forwarded_configs(model):
        use = forwarded.use
        shown_call = f"`{use['api']}({use['p']}=...)`"
        prefix = key_prefix(use)
        for keys, weight in _heavy_entries(model, forwarded.argument, prefix, len(prefix)):
            found = _entry_finding(rule, reported, keys, weight, use,
                                   f"`{forwarded.callee}()` passes this dict to {shown_call} at {forwarded.where}", "",
                                   (forwarded.call, f"the dict goes to `{forwarded.callee}()`, which passes "
                                                    f"it to {shown_call} at {forwarded.where}"))
            if found is not None:
                yield found


def _entry_finding(rule, reported, keys, weight, use, passes: str, at: str, last_step):
    """The finding for one heavy entry of a dict another module hands to Tune (None when
    that entry was reported already): `passes` says how the dict reaches Tune."""
    entry = keys[-1]
    where = (entry.where.lineno, entry.where.col_offset)
    if where in reported:
        return None
    reported.add(where)
    shown = use["p"] + "".join(_subscript(e) for e in keys)
    name = entry.key if entry.literal_key and entry.key.isidentifier() else "name"
    message = (f"`{shown}` is {weight.what}; {passes}: Tune serializes the config into every trial and keeps it "
               f"in the results, so memory grows with the number of trials")
    if len(keys) > 1:
        message += ". Load or build it inside the training function, or pass a `ray.put(...)` reference"
    else:
        message += f". Pass it with `tune.with_parameters({use.get('tr') or 'trainable'}, {name}=...)`{at} instead"
    return rule.finding(entry.where, message, None, severity=WARNING,
                        evidence=[(entry.where, f"{weight.what} enters the dict here"), last_step])


def _captures(rule, model, reported) -> Iterator:
    """Large objects bound into the trainable with `functools.partial`: pickled with it."""
    for capture in partial_captures(model):
        weight = weight_of(model, capture.value)
        if weight is None:
            continue
        where = (capture.where.lineno, capture.where.col_offset)
        if where in reported:
            continue
        reported.add(where)
        bound = f"`{capture.keyword}`" if capture.keyword else "an argument"
        helper = f"{_with_parameters_text(model)}({capture.trainable or 'trainable'}, " \
                 f"{capture.keyword or 'name'}=...)"
        message = (f"`partial(...)` binds {bound}, {weight.what}, into the trainable: Tune pickles the trainable "
                   f"into every trial, so the object is copied once per trial. Pass it with `{helper}` instead "
                   f"(stored once in the object store)")
        yield rule.finding(capture.where, message, None, severity=WARNING,
                           evidence=[(capture.where, f"{weight.what} is bound into the trainable here"),
                                     (capture.tune_call, "Tune pickles the trainable into every trial")])


def _global_reads(rule, model, reported) -> Iterator:
    """Module-level objects a trainable of a script reads: pickled with the function."""
    for capture in global_captures(model):
        definitions, _ = reaching_bindings(model, capture.read)
        weight = next((w for w in (weight_of(model, d) for d in definitions if not isinstance(d, ast.arg))
                       if w is not None), None)
        if weight is None:
            continue
        where = (capture.read.lineno, capture.read.col_offset)
        if where in reported:
            continue
        reported.add(where)
        name = capture.read.id
        message = (f"`{capture.function}` reads the module-level `{name}`, {weight.what}: the trainable is defined "
                   f"in the script Tune runs, so Ray pickles it by value with the globals it reads into every "
                   f"trial. Pass it with `{_with_parameters_text(model)}({capture.function}, {name}={name})` and "
                   f"read the argument instead")
        yield rule.finding(capture.read, message, None, severity=WARNING,
                           evidence=[(capture.read, f"`{name}` is {weight.what}"),
                                     (capture.tune_call, f"Tune pickles `{capture.function}` into every trial")])


def _message(model, tune_call: TuneCall, keys, weight: Weight) -> str:
    shown = tune_call.param + "".join(_subscript(e) for e in keys)
    name = keys[-1].key if keys[-1].literal_key and keys[-1].key.isidentifier() else "name"
    why = (f"`{shown}` is {weight.what}; Tune serializes the config into every trial and keeps it "
           f"in the results, so memory grows with the number of trials")
    if len(keys) > 1:  # a nested dict goes to a wrapper (TorchTrainer's train_loop_config)
        return f"{why}. Load or build it inside the training function, or pass a `ray.put(...)` reference"
    helper = f"{_with_parameters_text(model)}({_trainable_name(model, tune_call.trainable)}, {name}=...)"
    return f"{why}. Pass it with `{helper}` instead"


def _fix(model, tune_call: TuneCall, keys, alias: Optional[str]) -> Optional[FixSpec]:
    entry = keys[-1]
    # with_parameters passes keyword arguments: the key must be an identifier, and only a
    # top-level entry maps onto one (nested dicts belong to wrappers such as TorchTrainer).
    if len(keys) != 1 or not entry.literal_key or not entry.key.isidentifier() or tune_call.trainable is None:
        return None
    # The value expression moves to the call: it must be written in the same function, or
    # its names may not exist there (seed 004 builds the dict in main() for grid_search()).
    if model.unit_of(entry.value) is not model.unit_of(tune_call.call):
        return None
    return FixSpec(codemod="move_to_with_parameters", safety=UNSAFE,
                   title=f"Pass `{entry.key}` with `tune.with_parameters(...)`",
                   target=Span.of(entry.where),
                   params=(("key", entry.key), ("call", _span(tune_call.call)),
                           ("trainable", _span(tune_call.trainable)), ("tune_alias", alias),
                           ("with_parameters", _imported_with_parameters(model))))


def _subscript(entry: ConfigEntry) -> str:
    return f'["{entry.key}"]' if entry.literal_key else f"[{entry.key}]"


def _imported_with_parameters(model) -> Optional[str]:
    """The local name of `ray.tune.with_parameters` when the module imports it by name."""
    for local, qual in sorted(model.imports.aliases.items()):
        if qual == "ray.tune.with_parameters":
            return local
    return None


def _with_parameters_text(model) -> str:
    """How this file can spell `ray.tune.with_parameters`."""
    for local, qual in sorted(model.imports.aliases.items()):
        if qual == "ray.tune.with_parameters":
            return local
    return f"{tune_module_alias(model) or 'tune'}.with_parameters"


def _trainable_name(model, trainable: Optional[ast.AST]) -> str:
    """`train_fn` for `train_fn`, `tune.with_resources(train_fn, ...)`, `partial(train_fn, ...)`,
    and for a name bound to one of those (`trainable = tune.with_parameters(train_fn)`)."""
    return trainable_text(model, trainable) or "trainable"


def _span(node: ast.AST) -> Tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
