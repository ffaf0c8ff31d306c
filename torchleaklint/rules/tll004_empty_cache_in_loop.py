"""TLL004: `torch.cuda.empty_cache()` called once per training step."""

from __future__ import annotations

import ast
from typing import Iterator, List, Optional

from torchleaklint.diagnostics import SAFE, WARNING, FixSpec, Span
from torchleaklint.rules.base import Rule
from torchleaklint.semantic import torch_api
from torchleaklint.semantic.evaluation import is_unit_test
from torchleaklint.semantic.gating import in_branch_leaving_the_loop, names_changing_in, precedes_memory_reading, \
    under_equality_on_a_counter, under_memory_pressure_check, under_one_off_guard
from torchleaklint.semantic.syntax import FUNCTION_TYPES, named_parameters, positional_parameters, child_nodes, walk

# Framework hooks that run once per batch, whatever class defines them (Lightning modules
# and callbacks, trainer classes).
# Hooks that are per step only for the framework class that calls them.
_CLASS_HOOKS = (("TrainerCallback", ("on_step_begin", "on_step_end", "on_substep_end")),
                ("Trainable", ("step",)))


class EmptyCacheInLoop(Rule):
    """`torch.cuda.empty_cache()` called every training step.

    ## What it does
    Finds `torch.cuda.empty_cache()` (any alias, also `torch.xpu`/`torch.mps`/
    `torch.accelerator`) in a loop that runs once per step: a loop over batches, or one
    whose body runs forward/backward/`optimizer.step()` directly or through a function of
    the same module, also behind an `if step % N == 0` cadence or a flag. Also in per-step
    hooks: Lightning's `training_step` and `on_*_batch_*`, a HuggingFace
    `TrainerCallback.on_step_end`, a Ray Tune `Trainable.step`, and helpers only ever
    called from such loops.

    ## Why is this bad?
    `empty_cache()` hands the caching allocator's free blocks back to the driver and
    synchronizes the device; the next step pays `cudaMalloc` for them again. Throughput
    drops sharply (30-50% is commonly reported) and no leak is fixed: memory held by live
    tensors, the usual reason for growth, is never freed by it.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        del loss
        torch.cuda.empty_cache()
    ```

    ## Use instead
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    Not reported: once per epoch (an epoch loop whose body calls a function with its own
    batch loop), loops over benchmark sizes or retry attempts, unit tests (a test that times
    kernels over repetitions trains nothing), `on_*_epoch_end` and
    `on_train_end` hooks, after training, between trials, `cleanup()`/`__del__`,
    out-of-memory `except` handlers, and a call behind a test of the memory in use
    (`if torch.cuda.memory_reserved() > limit:`), which runs only under memory pressure. To fight fragmentation, prefer
    `PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True`.

    ## Fix safety
    Safe: the fix deletes the call (a lone statement in a block becomes `pass`). No
    computed value changes, only how much memory the allocator keeps reserved. No fix is
    offered when the call is part of a larger expression.
    """

    code = "TLL004"
    name = "empty-cache-every-step"
    summary = "`torch.cuda.empty_cache()` called once per training step"
    fix_title = "Remove the `empty_cache()` call"
    fix_safety = SAFE
    tokens = ("empty_cache",)

    def applies_to_project(self, project, source: str = "") -> bool:
        # `release_cached()`, imported from a module of the project that has it from torch.cuda
        return project is not None and any(
            name in source for name in project.names_aliasing("empty_cache", torch_api.is_empty_cache))

    def check(self, model) -> Iterator:
        for call in model.calls:
            qual = model.qualname(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
            if not qual or not torch_api.is_empty_cache(qual) or model.in_except_handler(call) \
                    or model.in_recovery_branch(call) \
                    or under_memory_pressure_check(model, call) or precedes_memory_reading(model, call):
                continue
            why = _runs_per_step(model, call)
            if why is None:
                continue
            shown = ast.unparse(call.func)
            loop = next(iter(model.loops_around(call)), None)
            # an inference loop (over images, under no_grad) is slowed the same way, but it is no training
            slowed = "training" if loop is None or model.runs_training_step(loop) else "the loop"
            message = (f"`{shown}()` runs {why}: it frees no memory held by live tensors, synchronizes "
                       f"the device and makes the allocator `cudaMalloc` the same blocks again next "
                       f"iteration, slowing {slowed}. Remove it")
            evidence = [(loop or model.unit_of(call), f"this runs {why}")]
            yield self.finding(call, message, _fix(model, call), severity=WARNING, evidence=evidence)


def _runs_per_step(model, call) -> Optional[str]:
    unit = model.unit_of(call)
    if isinstance(unit, FUNCTION_TYPES) and is_unit_test(model, unit):
        return None  # a unit test (or its helper) trains nothing: repetitions timing two kernels
    for loop in model.loops_around(call):
        if _builds_a_model_each_iteration(model, loop) or _ends_after_first_success(loop) \
                or _sweeps_input_sizes(model, loop):
            return None  # a loop over trials (batch sizes, configurations, retries), not over steps
        if model.is_step_loop(loop) or model.runs_forward_each_iteration(loop):
            if _under_one_off_condition(model, call, loop) or _once_per_pass(model, call, loop):
                return None
            cadence = _cadence(model, call, loop)
            if cadence is not None:
                every = _interval(model, call, loop)
                return f"{every} (under `if {cadence}:` in the loop at line {loop.lineno})"
            every = "every step" if model.runs_training_step(loop) else "every iteration"
            return f"{every} (in the loop at line {loop.lineno})"
    unit = model.unit_of(call)
    if not isinstance(unit, FUNCTION_TYPES):
        return None
    hook = _per_step_hook(model, unit)
    if hook is not None:
        guard = _guard_in(model, call, unit)
        return hook if guard is None else hook.replace("every step", f"on the steps that pass the test at line {guard}", 1)
    if model.passes_over_data(unit) or model.calls_a_pass_over_data(unit):
        return None  # `validation()` empties the cache once per pass over its own loader; `gpu_sk()`
        # once per pass of the helper it calls over the whole dataset
    if _builds_a_model_each_iteration(model, unit):
        return None  # each call is a trial that builds its own model (a benchmark sweep)
    return _only_called_per_step(model, unit, call)


def _builds_a_model_each_iteration(model, loop) -> bool:
    """The loop body (outside its own inner loops) constructs a module: `model = GPT(cfg)`
    per batch size tried, per configuration, per fold. Its iterations are trials. So is
    each call of a function that builds its own model (`linear = nn.Linear(c, c).to(d)` in
    a `bench_leaky(...)` a sweep calls): training steps reuse one."""
    for node in _outside_inner_loops(loop):
        if isinstance(node, ast.Assign) and _constructs_a_module(model, node.value):
            return True
    return False


def _constructs_a_module(model, expr) -> bool:
    """`GPT(cfg)`, `nn.Linear(c, c).to(device)`: a module class called (also through `.to()`/`.cuda()`)."""
    expr = torch_api.module_chain_root(expr)
    return isinstance(expr, ast.Call) and model.value(expr).kind == "module" \
        and model.value(expr.func).kind in ("class", "ref")


_TENSOR_MAKERS = frozenset({"torch.randn", "torch.rand", "torch.zeros", "torch.ones", "torch.empty", "torch.randint",
                            "torch.full"})


def _sweeps_input_sizes(model, loop) -> bool:
    """A benchmark over input sizes: the loop's variable sizes a tensor it makes each iteration
    (`for size in sizes: x = torch.randn(size, d_in)`) or the first rows it cuts from one
    (`images = dataset[:bs]`), outside loops of its own. Its iterations are trials, one per
    size, not training steps over the data."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or model.is_data_loop(loop):
        return False
    names = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)}
    for node in _outside_inner_loops(loop):
        if isinstance(node, ast.Subscript) and _first_rows_up_to(node.slice, names):
            return True
        if isinstance(node, ast.Call) and model.qualname(node.func) in _TENSOR_MAKERS:
            sizes = list(node.args) + [kw.value for kw in node.keywords if kw.arg == "size"]
            if any(_a_size_from(size, names) for size in sizes):
                return True
    return False


def _first_rows_up_to(index, names) -> bool:
    """`[:bs]` (also `[0:bs]`, `[:bs, ...]`) with `bs` one of `names`: the first rows, as many
    as the loop's variable says (not `[i:i + bs]`, a window that moves over the data)."""
    if isinstance(index, ast.Tuple) and index.elts:
        index = index.elts[0]
    return isinstance(index, ast.Slice) and index.step is None \
        and (index.lower is None or isinstance(index.lower, ast.Constant) and index.lower.value == 0) \
        and isinstance(index.upper, ast.Name) and index.upper.id in names


def _a_size_from(expr, names) -> bool:
    """Is `expr` one of `names` used as a number (`size`, `(size, d)`, `2 * size`)? Not a
    batch's own shape (`feats.shape[0]`, `len(xs)`): that is a step sizing its helper tensors."""
    if isinstance(expr, ast.Name):
        return expr.id in names
    if isinstance(expr, (ast.Tuple, ast.List)):
        return any(_a_size_from(e, names) for e in expr.elts)
    if isinstance(expr, ast.BinOp):
        return _a_size_from(expr.left, names) or _a_size_from(expr.right, names)
    return False


def _ends_after_first_success(loop) -> bool:
    """Every iteration that does not raise leaves the loop: a `return` or `break` straight in
    its body or in the `try` body there (`for bs in sizes: try: step(bs); return bs except
    OutOfMemoryError: ...`). The loop probes or retries until one attempt works."""
    blocks = [loop.body] + [stmt.body for stmt in loop.body if isinstance(stmt, ast.Try)]
    return any(isinstance(stmt, (ast.Return, ast.Break)) for block in blocks for stmt in block)


def _outside_inner_loops(loop):
    stack = list(loop.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef,
                             ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(child_nodes(node))


def _under_one_off_condition(model, call, loop) -> bool:
    """Inside the loop, guarded by an equality that holds on one iteration
    (`if train_step == args.pretrain_steps:`, `if i == len(loader) - 1:`): it runs once, not
    every step; or in a branch that leaves the loop (`if i >= stop - 1: ...; break`). A
    cadence (`if step % 100 == 0:`) still runs every N steps: not one-off."""
    if in_branch_leaving_the_loop(model, call, loop):
        return True
    return under_equality_on_a_counter(model, call, loop, names_changing_in(loop))


def _guarded_by_passed_counter(model, call, func, sites) -> bool:
    """In a helper the step loop calls, under an equality or membership test on a parameter
    to which every call site passes a name its loop changes (`if iteration in
    testing_iterations:` in `training_report(..., iteration, ...)`): it runs on the listed
    iterations, not every step."""
    counters = set()
    for name in _parameter_names(func):
        if sites and all(_passes_a_loop_counter(model, site, _argument_for(func, site, name)) for site in sites):
            counters.add(name)
    if not counters:
        return False
    return under_equality_on_a_counter(model, call, func, counters)


def _passes_a_loop_counter(model, site: ast.Call, argument: Optional[ast.AST]) -> bool:
    return isinstance(argument, ast.Name) and any(argument.id in names_changing_in(loop)
                                                  for loop in model.loops_around(site))


def _parameter_names(func) -> List[str]:
    return [a.arg for a in named_parameters(func)]


def _argument_for(func, site: ast.Call, name: str) -> Optional[ast.AST]:
    """The expression a call site passes for parameter `name` (None if it cannot be told)."""
    for kw in site.keywords:
        if kw.arg == name:
            return kw.value
    positional = [a.arg for a in positional_parameters(func)]
    if isinstance(site.func, ast.Attribute) and positional and positional[0] in ("self", "cls"):
        positional = positional[1:]  # `self.report(...)`: the receiver fills the first
    if name in positional and not any(isinstance(a, ast.Starred) for a in site.args):
        index = positional.index(name)
        return site.args[index] if index < len(site.args) else None
    return None


def _once_per_pass(model, call, loop) -> bool:
    """`if (step + 1) % save_steps == 0:` with `save_steps = len(train_dataloader)` (or
    `max(len(loader), 1)`): the period is the length of the data, so it holds once per pass
    over it, before the evaluation that follows an epoch, not every few steps."""
    for anc in model.ancestors(call):
        if anc is loop:
            return False
        if not isinstance(anc, ast.If):
            continue
        for node in walk(anc.test):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _a_data_length(model, node.right):
                return True
    return False


def _a_data_length(model, expr, depth: int = 0) -> bool:
    """`len(loader)`, `max(len(loader), 1)`, or a name every definition of which is one."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
        if expr.func.id == "len" and len(expr.args) == 1:
            return True
        if expr.func.id in ("max", "int") and depth < 2:
            return any(_a_data_length(model, arg, depth + 1) for arg in expr.args)
    if isinstance(expr, ast.Name) and depth < 2:
        definitions = model.reaching(model.unit_of(expr)).definitions(expr)
        statements = [model.statement_of(d) for d in definitions if not isinstance(d, ast.arg)]
        return bool(statements) and len(statements) == len(definitions) and all(
            isinstance(s, ast.Assign) and _a_data_length(model, s.value, depth + 1) for s in statements)
    return False


def _cadence(model, call, loop) -> Optional[str]:
    """The `step % N == 0` test guarding the call inside the loop, as source, if any."""
    for anc in model.ancestors(call):
        if anc is loop:
            return None
        if isinstance(anc, ast.If) and any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)
                                           for n in walk(anc.test)):
            text = ast.unparse(anc.test)
            return text if len(text) <= 40 else text[:37] + "..."
    return None


def _interval(model, call, loop) -> str:
    """How often a call under `if step % N == 0:` runs: `every N steps` for a literal N,
    `periodically` when N is a setting (`self.cfg.empty_cache_every`, 1000 by default in one
    project: "every few steps" would overstate it)."""
    for anc in model.ancestors(call):
        if anc is loop:
            break
        if isinstance(anc, ast.If):
            for node in walk(anc.test):
                if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
                    divisor = node.right
                    if isinstance(divisor, ast.Constant) and isinstance(divisor.value, int) and divisor.value > 1:
                        return f"every {divisor.value} steps"
                    return "periodically"
    return "periodically"


def _per_step_hook(model, func) -> Optional[str]:
    info = model.class_of(func)
    if info is None or model.class_never_used(info):
        return None  # (a callback class a notebook defines and never registers: its hooks never run)
    if model.is_per_batch_hook(func):
        return f"every step (`{func.name}` is called once per batch)"
    for base, hooks in _CLASS_HOOKS:
        if func.name in hooks and model.class_is(info, base):
            return f"every step (`{base}.{func.name}` is called once per training iteration)"
    return None


def _only_called_per_step(model, func, call) -> Optional[str]:
    """A helper all of whose call sites in the module are inside per-step loops (and the call
    is not guarded, in the helper, by a test on the step counter the loop passes it)."""
    sites = model.call_sites(func)
    external = model.external_sites(func)  # call sites in other modules of the project
    if not sites and not external:
        # a method only called by its name on objects of unknown class (`cb.on_before_step(...)`
        # over a list of callbacks), none of them in another module: those calls run it
        sites = [] if model.calls_by_method_name(func)[0] != len(model.calls_of_method_name(func)) \
            else model.calls_of_method_name(func)
    if not sites and not external:
        return None
    if _guarded_by_passed_counter(model, call, func, sites):
        return None
    # a module's forward runs once per step or more: what it calls does too, unless the call
    # is conditional in the helper (`if not self.t5.model_parallel: ...; empty_cache()`, a
    # set-up the first forward does once)
    conditional = model.conditional_within(call, func)
    in_step_loop = [any(model.is_step_loop(l) for l in model.loops_around(site)) for site in sites]
    for site, stepped in zip(sites, in_step_loop):
        if model.in_except_handler(site) or under_one_off_guard(model, site) or \
                not (stepped or not conditional and model.in_module_forward(site)
                     and not model.conditional_within(site, model.unit_of(site))):
            return None  # (a forward that calls it on one branch, `elif technique == "phong":`,
            # may never take that branch in training: which one runs is the caller's setting)
    if any(site["ex"] or site.get("once") or not (site["st"] or site.get("ps") or site.get("fw") and not conditional)
           for site in external):
        return None
    # (name a call that trains, when another module has several: not an evaluation loop's)
    shown = next((site for site in external if site.get("tr")), external[0]) if external else None
    # (likewise here: the call in a loop that trains, before one in an evaluation's batch loop)
    training = [site for site in sites if any(model.runs_training_step(loop) or model.has_backward_within(loop)
                                              for loop in model.loops_around(site))]
    first = min(training or sites, key=lambda site: (site.lineno, site.col_offset)) if sites else None
    where = f"line {first.lineno}" if sites else model.project.label(shown)
    guard = _guard_in(model, call, func)
    if guard is None and sites and all(_guarded_in_loop(model, site) for site in sites):
        guard = next(a.lineno for a in model.ancestors(sites[0]) if isinstance(a, (ast.If, ast.IfExp)))
    every = "every step" if guard is None else f"on the steps that pass the test at line {guard}"
    if guard is None and not sites and all(site.get("cd") for site in external):
        # `calculate_fid(...)` under `if step % eval_freq == 0:` in another module's loop
        return f"every few steps (`{func.name}` is called under a test in the training loop at {where})"
    if not sites and not shown["st"] and shown.get("ps"):
        return f"{every} (`{func.name}` is called once per step, at {where})"
    if sites and training:
        return f"{every} (`{func.name}` is called in the training loop at {where})"
    if sites and any(in_step_loop):
        return f"{every} (`{func.name}` is called in the loop over batches at {where})"
    if not sites and not shown.get("fw"):
        return f"{every} (`{func.name}` is called in the training loop at {where})"
    return f"{every} (`{func.name}` is called by a module's forward at {where})"


def _guard_in(model, call, func) -> Optional[int]:
    """The line of a test in `func` that the call depends on: an `if` around it, or an early
    `return` under an `if` before it (`if step % every != 0: return`), else None. The call
    still runs per step (a cadence is flagged too), but not on every one: the message says so."""
    for anc in model.ancestors(call):
        if anc is func:
            break
        if isinstance(anc, (ast.If, ast.IfExp)):
            return anc.lineno
    for stmt in walk(func):
        if isinstance(stmt, ast.If) and stmt.lineno < call.lineno and model.unit_of(stmt) is func \
                and any(isinstance(n, ast.Return) for body in stmt.body for n in walk(body)):
            return stmt.lineno
    return None


def _guarded_in_loop(model, site) -> bool:
    """Is the call site under an `if` inside its loop?"""
    for anc in model.ancestors(site):
        if isinstance(anc, (ast.For, ast.AsyncFor, ast.While)) or isinstance(anc, FUNCTION_TYPES):
            return False
        if isinstance(anc, (ast.If, ast.IfExp)):
            return True
    return False


def _fix(model, call) -> Optional[FixSpec]:
    stmt = model.parent(call)
    if not isinstance(stmt, ast.Expr):
        return None
    return FixSpec(codemod="delete_statement", safety=SAFE, title="Remove the call", target=Span.of(stmt))
