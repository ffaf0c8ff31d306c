"""Code behind an opt-in flag: `if use_cache: self.cache_k = torch.cat([self.cache_k, k])`
in a `forward(self, x, use_cache=False)`. The store runs only for calls that turn the flag
on; when every call in view that may turn it on runs without grad (generation under
`torch.no_grad()`), the store never keeps a graph, whatever training does with the same
method (it passes the default).

A flag is a parameter with a literal falsy default (`False`, `None`, `0`) tested as is
(`if use_cache:`, `if use_cache is True:`, `if store and ...:`). Calls are found by the
keyword (`use_cache=...`): module calls (`blk(x, use_cache=use_cache)`) cannot be resolved
to the method they run, and a flag is passed by keyword in practice. A call that forwards
the flag from its own caller (`use_cache=use_cache`) is followed to that caller's calls.
Calls from the project's other modules come from their summaries: `test_classifier(P, model,
loader, marginal=True)` under `torch.no_grad()` in eval.py, and without the flag in train.py.

The other way round, code on the default path (`else` of `if run_fn is not None:`, the body
of `if run_fn is None:`) runs only for calls that leave the optional parameter out: when every
call in view that leaves it out runs under no-grad (`measure_memory(model, x)` under
`torch.no_grad()` in a test, `measure_memory(model, x, run_fn=train_step)` with grad on), the
default path records no graph.
"""

from __future__ import annotations

import ast
from typing import Optional
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.syntax import FUNCTION_TYPES, LOOP_TYPES, positional_parameters, walk

MAX_FORWARDING = 4


def gating_flag(model, stmt) -> Optional[str]:
    """The opt-in flag parameter an `if` around `stmt` (inside its function) tests."""
    unit = model.unit_of(stmt)
    if not isinstance(unit, FUNCTION_TYPES):
        return None
    flags = _falsy_default_parameters(unit)
    if not flags:
        return None
    for test in model.guarding_tests(stmt, unit):
        name = _tested_flag(test, flags)
        if name is not None:
            return name
    return None


def runs_only_without_grad(model, stmt, seen_enabled: bool = False) -> bool:
    """Does `stmt` sit behind an opt-in flag that no call in view turns on with grad enabled?
    With `seen_enabled`, some call in view must also turn it on (under no-grad): a flag
    nobody in view turns on proves nothing about the grad mode of code behind it."""
    flag = gating_flag(model, stmt)
    if flag is None:
        return False
    func = model.unit_of(stmt)
    if model.cached(("flag_enabled_with_grad", func, flag), lambda: _enabled_with_grad(model, func, flag, 0)):
        return False
    return not seen_enabled or _enabled_without_grad(model, func, flag)


def default_path_runs_only_without_grad(model, stmt) -> bool:
    """Does `stmt` run only when an optional parameter is left out, and does every call in
    view that leaves it out (at least one) run under no-grad?"""
    flag = _default_path_flag(model, stmt)
    if flag is None:
        return False
    func = model.unit_of(stmt)
    index = _positional_index(model, func, flag)
    seen = False
    for call in model.call_sites(func):
        value = next((kw.value for kw in call.keywords if kw.arg == flag), None)
        if value is not None and not (isinstance(value, ast.Constant) and not value.value):
            continue  # passed: the other path
        if value is None and index is not None and index < len(call.args):
            return False  # passed by position: may be None
        if not model.grad_disabled_at(call):
            return False
        seen = True
    for site in model.external_sites(func):
        if flag in site.get("kw", {}) and flag not in site.get("fk", ()) and _encoded_kind(site["kw"][flag]) != "none":
            continue
        if flag not in site.get("kw", {}) and index is not None and index < len(site.get("a", ())):
            return False
        if not site.get("ng"):
            return False
        seen = True
    return seen


def _encoded_kind(encoded) -> Optional[str]:
    """The kind of a value as a summary encodes it (a kind, or a dict with its kind)."""
    return encoded if isinstance(encoded, str) else (encoded or {}).get("k")


def _default_path_flag(model, stmt) -> Optional[str]:
    """The parameter with a `None` default whose absence the `if` around `stmt` tests."""
    unit = model.unit_of(stmt)
    if not isinstance(unit, FUNCTION_TYPES):
        return None
    optional = _none_default_parameters(unit)
    if not optional:
        return None
    child = stmt
    for anc in model.ancestors(stmt):
        if anc is unit:
            return None
        if isinstance(anc, ast.If):
            given = _tested_given(anc.test, optional)
            if given is not None and any(child is s for s in anc.orelse):
                return given  # `if run_fn is not None: ... else: <stmt>`
            absent = _tested_absent(anc.test, optional)
            if absent is not None and any(child is s for s in anc.body):
                return absent  # `if run_fn is None: <stmt>`
        child = anc
    return None


def _tested_given(test, names: set) -> Optional[str]:
    if isinstance(test, ast.Name) and test.id in names:
        return test.id
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
            and isinstance(test.left, ast.Name) and test.left.id in names \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return test.left.id
    return None


def _tested_absent(test, names: set) -> Optional[str]:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _tested_given(test.operand, names) if isinstance(test.operand, ast.Name) else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
            and isinstance(test.left, ast.Name) and test.left.id in names \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        return test.left.id
    return None


def _none_default_parameters(func) -> set:
    args = func.args
    positional = positional_parameters(func)
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults)) + \
        list(zip(args.kwonlyargs, args.kw_defaults))
    return {arg.arg for arg, default in pairs if isinstance(default, ast.Constant) and default.value is None}


def _positional_index(model, func, name: str) -> Optional[int]:
    params = positional_parameters(func)
    if params and model.class_of(func) is not None and params[0].arg in ("self", "cls"):
        params = params[1:]
    return next((i for i, p in enumerate(params) if p.arg == name), None)


def _enabled_without_grad(model, func, flag: str) -> bool:
    """A call in view that turns the flag on, under no-grad (this module by keyword, or
    another module's summary)."""
    by_keyword = model.cached(("calls_by_keyword",), lambda: _calls_by_keyword(model))
    for call in by_keyword.get(flag, ()):
        value = next((kw.value for kw in call.keywords if kw.arg == flag), None)
        if value is not None and not (isinstance(value, ast.Constant) and not value.value) \
                and model.grad_disabled_at(call):
            return True
    return any(site.get("ng") and flag in site.get("kw", {}) and flag not in site.get("fk", ())
               for site in model.external_sites(func))


def _enabled_with_grad(model, func, flag: str, depth: int) -> bool:
    if depth > MAX_FORWARDING:
        return True  # too far to follow: it may be on
    by_keyword = model.cached(("calls_by_keyword",), lambda: _calls_by_keyword(model))
    for call in by_keyword.get(flag, ()):
        value = next((kw.value for kw in call.keywords if kw.arg == flag), None)
        if value is None:
            continue
        if isinstance(value, ast.Constant) and not value.value:
            continue  # `use_cache=False`
        if model.grad_disabled_at(call) or model.unit_of(call) is not func and isinstance(
                model.unit_of(call), FUNCTION_TYPES) and model.only_called_without_grad(model.unit_of(call)):
            continue  # (also made by a function every call of which, in any module, is under no-grad)
        target = model.resolve_call(call)
        if isinstance(target, FUNCTION_TYPES) and target is not func:
            continue  # `generate(model, use_cache=...)`: another function's flag, whose own calls are seen
        caller = model.unit_of(call)
        if caller is func and isinstance(value, ast.Name) and value.id == flag:
            continue  # the function handing its own flag on to a sublayer: not a call of it
        if isinstance(value, ast.Name) and isinstance(caller, FUNCTION_TYPES) and caller is not func \
                and value.id in _falsy_default_parameters(caller) \
                and _enabled_with_grad(model, caller, value.id, depth + 1) is False:
            continue  # `blk(x, use_cache=use_cache)` forwarded from a caller that keeps it off
        if isinstance(value, ast.Name) and isinstance(caller, FUNCTION_TYPES) and _off_since_construction(model, value):
            continue  # `update = self.is_train and self.use_norm_update`: off in every object built in view
        return True
    return _enabled_in_other_modules(model, func, flag)


def _off_since_construction(model, name: ast.Name) -> bool:
    """Is `name` bound (once, before its use) to `self.<attr>` or to `... and self.<attr> and
    ...`, where the class's `__init__` alone stores `self.<attr> = <parameter>` whose default
    is a falsy literal, and every construction of the class in view (one at least, in any
    module) leaves that parameter out or passes a falsy literal? Then it is off in every
    object the project builds."""
    definitions = model.reaching(model.unit_of(name)).definitions(name)
    if len(definitions) != 1 or isinstance(definitions[0], ast.arg):
        return False
    binding = model.parents.get(definitions[0])
    if not (isinstance(binding, ast.Assign) and binding.targets == [definitions[0]]):
        return False
    value = binding.value
    operands = value.values if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.And) else [value]
    return any(isinstance(o, ast.Attribute) and isinstance(o.value, ast.Name) and o.value.id == "self"
               and _constructed_off(model, o) for o in operands)


def _constructed_off(model, read: ast.Attribute) -> bool:
    method, attr = model.unit_of(read), read.attr
    info = model.class_of(method) if isinstance(method, FUNCTION_TYPES) else None
    init = info.methods.get("__init__") if info is not None else None
    if init is None or not model.set_only_at_construction(read):
        return False
    stored = [node.value for node in walk(init) if isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Attribute) and node.targets[0].attr == attr
              and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == "self"]
    if len(stored) != 1 or not isinstance(stored[0], ast.Name):
        return False
    param = stored[0].id
    if param not in _falsy_default_parameters(init):
        return False
    index = next((i for i, p in enumerate(positional_parameters(init)[1:]) if p.arg == param), None)
    seen = False
    for call in model.call_sites(init):
        given = next((kw.value for kw in call.keywords if kw.arg == param), None)
        if given is not None and not (isinstance(given, ast.Constant) and not given.value) or \
                index is not None and index < len(call.args) or any(kw.arg is None for kw in call.keywords):
            return False
        seen = True
    for site in model.external_sites(init):
        if _site_may_turn_on(site, param, index) or site.get("spread"):
            return False
        seen = True
    return seen


def _enabled_in_other_modules(model, func, flag: str) -> bool:
    """Does a call of `func` in another module of the project turn the flag on with grad
    enabled? One that leaves it out (the default is off) or passes a falsy literal keeps it
    off; one under no-grad does not matter; one that may pass it positionally may turn it on."""
    params = positional_parameters(func)
    if params and model.class_of(func) is not None and params[0].arg in ("self", "cls"):
        params = params[1:]
    index = next((i for i, p in enumerate(params) if p.arg == flag), None)
    return any(not site.get("ng") and _site_may_turn_on(site, flag, index) for site in model.external_sites(func))


def _site_may_turn_on(site: dict, flag: str, index: Optional[int]) -> bool:
    """Does a call of another module (its summary's site) pass the flag a value that may be
    on: by keyword, unless a falsy literal (`marginal=False`), or by position?"""
    if flag in site.get("kw", {}):
        return flag not in site.get("fk", ())
    return index is not None and index < len(site.get("a", ()))


def _calls_by_keyword(model) -> dict:
    out: dict = {}
    for call in model.calls:
        for kw in call.keywords:
            if kw.arg:
                out.setdefault(kw.arg, []).append(call)
    return out


def _falsy_default_parameters(func) -> set:
    args = func.args
    positional = positional_parameters(func)
    out = set()
    for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
        if isinstance(default, ast.Constant) and not default.value:
            out.add(arg.arg)
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if isinstance(default, ast.Constant) and not default.value:
            out.add(arg.arg)
    return out


def _tested_flag(test, flags: set) -> Optional[str]:
    if isinstance(test, ast.Name) and test.id in flags:
        return test.id
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq)) \
            and isinstance(test.left, ast.Name) and test.left.id in flags \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is True:
        return test.left.id
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return next((n for n in (_tested_flag(v, flags) for v in test.values) if n is not None), None)
    return None


# ---------------------------------------------------------------- one-off tests
# `if i == len(loader) - 1:`, `if self.iteration_step == self.initial_iter_step:`: code in a
# loop or a per-step method that runs on one step, not every step.

def names_changing_in(loop) -> set:
    """Names bound by the loop's target or rebound in its body (a step counter)."""
    names = {n.id for n in walk(loop.target) if isinstance(n, ast.Name)} if hasattr(loop, "target") else set()
    for node in walk(loop):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in walk(t) if isinstance(n, ast.Name)}
    return names


def equality_on_a_counter(test, changing: set) -> bool:
    """`counter == value` on a name the loop changes: true on one iteration. An equality on
    loop-invariant values is a configuration switch (every step when on), and `%` makes a
    cadence."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        # every branch of the `or` holds on one step (`i >= len(loader) - 1 or (total_steps == 1
        # and validate_at_start)`), or some branch may hold every step
        return all(equality_on_a_counter(value, changing) for value in test.values)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(equality_on_a_counter(value, changing) for value in test.values)
    if any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in walk(test)):
        return False
    return any(isinstance(c, ast.Compare) and _one_off_comparison(c, changing) for c in walk(test))


def _one_off_comparison(compare: ast.Compare, changing: set) -> bool:
    """`step == n` (either side the counter), or `step in eval_steps` (the counter listed
    among a few iterations)."""
    if all(isinstance(op, ast.Eq) for op in compare.ops):
        return bool({dotted(n) for n in walk(compare) if isinstance(n, (ast.Name, ast.Attribute))} & changing)
    if len(compare.ops) == 1 and isinstance(compare.ops[0], (ast.GtE, ast.Gt)) and \
            isinstance(compare.left, ast.Name) and compare.left.id in changing and _last_index(compare.comparators[0]):
        return True  # `i_batch >= len(train_loader) - 1`: the last batch of the pass only
    # a named list (`testing_iterations`) or a literal one; not `range(...)`, a window of steps
    return len(compare.ops) == 1 and isinstance(compare.ops[0], ast.In) \
        and isinstance(compare.left, ast.Name) and compare.left.id in changing \
        and isinstance(compare.comparators[0], (ast.Name, ast.Attribute, ast.List, ast.Tuple, ast.Set))


def _last_index(expr) -> bool:
    """`len(loader) - 1`: the index of a collection's last item."""
    return isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and isinstance(expr.right, ast.Constant) \
        and expr.right.value == 1 and isinstance(expr.left, ast.Call) and isinstance(expr.left.func, ast.Name) \
        and expr.left.func.id == "len"


def under_one_off_guard(model, node) -> bool:
    """Is `node` in the body of an `if` that holds on one step: inside a loop, an equality on
    a name the loop changes (`if i == len(loader) - 1:`); outside loops in its function, an
    equality on an attribute of `self` that its class steps (`if self.iteration_step ==
    self.initial_iter_step:` in a per-step method, where a loop binds `for self.iteration_step
    in range(...)` or a method increments it: the set-up of the first step after resuming)?"""
    func = model.unit_of(node)
    if not isinstance(func, FUNCTION_TYPES):
        return False
    loops = model.loops_around(node)
    if loops and in_branch_leaving_the_loop(model, node, loops[0]):
        return True
    stop = loops[0] if loops else func
    counters = names_changing_in(loops[0]) if loops else _stepped_attributes(model)
    if not counters:
        return False
    return under_equality_on_a_counter(model, node, stop, counters)


def under_equality_on_a_counter(model, node, stop, counters: set) -> bool:
    """Is `node` in the body of an `if` inside `stop` whose test holds on one value of the
    `counters` (`if step == warmup_steps:`): it runs on that iteration only?"""
    for anc in model.ancestors(node):
        if anc is stop:
            return False
        if isinstance(anc, ast.If) and any(model.is_inside(node, stmt) or node is stmt for stmt in anc.body) \
                and equality_on_a_counter(anc.test, counters):
            return True
    return False


def in_branch_leaving_the_loop(model, node, loop) -> bool:
    """Is `node` in a branch of an `if` inside `loop` that ends by leaving it (`if i_iter >=
    stop - 1: save(); evaluate(); break`)? That branch runs at most once per loop."""
    child = node
    for anc in model.ancestors(node):
        if anc is loop:
            return False
        if isinstance(anc, ast.If):
            for branch in (anc.body, anc.orelse):
                if child in branch and isinstance(branch[-1], (ast.Break, ast.Return, ast.Raise)):
                    return True
        if isinstance(anc, LOOP_TYPES + FUNCTION_TYPES):
            return False  # (a `break` here would leave an inner loop only)
        child = anc
    return False


def _stepped_attributes(model) -> set:
    """`self.x` attributes the module steps: bound as a loop's target or incremented."""
    def compute() -> set:
        out = set()
        for node in walk(model.tree):
            if isinstance(node, (ast.For, ast.AsyncFor)):
                out |= {dotted(t) for t in walk(node.target) if isinstance(t, ast.Attribute)}
            elif isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Attribute):
                out.add(dotted(node.target))
        return {key for key in out if key and key.startswith("self.")}
    return model.cached(("stepped_attributes",), compute)


def in_exclusive_modes(model, a: ast.AST, b: ast.AST) -> bool:
    """Do `a` and `b` (in one function) run in calls of different modes? One is under a
    condition on a flag (`if template:`), the other under its negation (`if not template and
    ...:`, `if use_template is True and template is False:`), and the flag (a parameter or a
    local) keeps one value for the whole call. A store in one mode read in the other is handed
    from one call to another of a different kind (a tracker's template pass to its search
    pass), not from one step to the next."""
    func = model.unit_of(a)
    if func is None or model.unit_of(b) is not func or not isinstance(func, FUNCTION_TYPES):
        return False
    guards_a, guards_b = _mode_guards(model, a, func), _mode_guards(model, b, func)
    return any((name, not polarity) in guards_b and _fixed_for_the_call(func, name, a, b)
               for name, polarity in guards_a)


def _mode_guards(model, node, func) -> set:
    """(flag, value) pairs every path to `node` has tested: the conjuncts of the `if` tests
    it is the body of, the single flag of those it is the `else` of."""
    out = set()
    child = node
    for anc in model.ancestors(node):
        if anc is func:
            break
        if isinstance(anc, ast.If):
            if child in anc.body:
                for conjunct in _conjuncts(anc.test):
                    literal = _flag_literal(conjunct)
                    if literal is not None:
                        out.add(literal)
            elif child in anc.orelse:
                literal = _flag_literal(anc.test)
                if literal is not None:
                    out.add((literal[0], not literal[1]))
        child = anc
    return out


def _conjuncts(test):
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [c for value in test.values for c in _conjuncts(value)]
    return [test]


def _flag_literal(test):
    """`flag` -> (flag, True); `not flag`, `flag is False`, `flag == False` -> (flag, False)."""
    if isinstance(test, ast.Name):
        return test.id, True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _flag_literal(test.operand)
        return (inner[0], not inner[1]) if inner is not None else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
            and isinstance(test.comparators[0], ast.Constant) and isinstance(test.comparators[0].value, bool) \
            and isinstance(test.ops[0], (ast.Is, ast.Eq, ast.IsNot, ast.NotEq)):
        value = test.comparators[0].value
        return test.left.id, value if isinstance(test.ops[0], (ast.Is, ast.Eq)) else not value
    return None


def _fixed_for_the_call(func, name: str, a, b) -> bool:
    """Is `name` a parameter never rebound, or a local bound only outside loops and before
    both nodes (`template = x.size(-1) < 200` at the top of the forward)?"""
    first = min((a.lineno, a.col_offset), (b.lineno, b.col_offset))
    is_param = name in {p.arg for p in positional_parameters(func)} | {p.arg for p in func.args.kwonlyargs}
    bindings = [n for n in walk(func) if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)]
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in walk(func)):
        return False
    if is_param:
        return not bindings
    if not bindings:
        return False
    loops = [n for n in walk(func) if isinstance(n, LOOP_TYPES)]
    for binding in bindings:
        if (binding.lineno, binding.col_offset) >= first:
            return False
        if any(binding in set(walk(loop)) for loop in loops):
            return False
    return True


def under_memory_pressure_check(model, node) -> bool:
    """Is `node` in the body of an `if` (in its function) that tests how much device memory is
    in use (`if torch.cuda.memory_reserved(dev) > 30e9:`)? It runs when memory runs short, as
    an out-of-memory handler does, not once per step."""
    from torchleaklint.semantic import torch_api

    def queries(expr) -> bool:
        return any(isinstance(n, ast.Call) and torch_api.is_memory_query(model.qualname(n.func) or "")
                   for n in walk(expr))

    unit = model.unit_of(node)
    # names bound from a memory query (`free, total = torch.cuda.mem_get_info()`)
    measured = {t.id for n in walk(unit) if isinstance(n, ast.Assign) and queries(n.value)
                for target in n.targets for t in walk(target) if isinstance(t, ast.Name)} if unit is not None else set()
    child = node
    for anc in model.ancestors(node):
        if isinstance(anc, FUNCTION_TYPES):
            return False
        if isinstance(anc, ast.If) and child in anc.body and (queries(anc.test) or any(
                isinstance(n, ast.Name) and n.id in measured for n in walk(anc.test))):
            return True
        child = anc
    return False


def precedes_memory_reading(model, call) -> bool:
    """Is the `empty_cache()` call a statement followed, in the same block, by a reading of
    free or reserved device memory (`free = nvmlDeviceGetMemoryInfo(h).free`,
    `torch.cuda.mem_get_info()`)? It runs so that the reading counts cached blocks as free:
    part of a measurement whose number the code uses, which deleting it would change."""
    from torchleaklint.semantic import torch_api

    stmt = model.parent(call)
    holder = model.parent(stmt) if isinstance(stmt, ast.Expr) else None
    if holder is None:
        return False
    for field in ("body", "orelse", "finalbody"):
        block = getattr(holder, field, None)
        if isinstance(block, list) and stmt in block:
            following = block[block.index(stmt) + 1:][:_READING_WINDOW]
            return any(isinstance(n, ast.Call) and torch_api.reads_cache_dependent_memory(
                model.qualname(n.func) or "", _called_name(n)) and _reading_used(model, n)
                for later in following for n in walk(later))
    return False


_READING_WINDOW = 3  # statements after the call in which a reading makes it part of a measurement
# calls that only report a number (a per-step flush "to log the reserved memory" is still a flush)
_REPORTS = frozenset({"print", "log", "info", "debug", "warning", "write", "add_scalar", "add_scalars",
                      "log_metrics", "log_dict", "set_postfix"})


def _reading_used(model, reading) -> bool:
    """Is the memory reading's number used by the code (returned, tested, or bound to a name
    read elsewhere than in a report), not only logged?"""
    stmt = model.statement_of(reading)  # the innermost statement: the reading may be in a branch
    if _in_report(model, reading, stmt):
        return False
    if isinstance(stmt, ast.Return) or isinstance(stmt, (ast.If, ast.While)) and model.is_inside(reading, stmt.test):
        return True
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    names = {n.id for t in targets for n in walk(t) if isinstance(n, ast.Name)}
    unit = model.unit_of(stmt)
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names
               and not _in_report(model, n, unit) for n in walk(unit))


def _in_report(model, node, limit) -> bool:
    for anc in model.ancestors(node):
        if anc is limit:
            return False
        if isinstance(anc, ast.Call) and _called_name(anc) in _REPORTS:
            return True
    return False


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
