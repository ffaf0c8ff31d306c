"""Containers whose size the code that fills them bounds.

An image pool (`if len(self.pool) < self.size: self.pool.append(x)` else a random slot is
replaced), a ring buffer (`deque(maxlen=N)`), a window trimmed after each append
(`buf.append(x); if len(buf) > n: buf.pop(0)`), the classic replay memory (`if len(m) < cap:
m.append(None)` then `m[pos] = t`): what such a container keeps does not grow with the steps,
so it is no leak of the kind TLL003 reports (at most N values stay referenced).

Evidence, not names: the container is bounded only when every place of its scope that can
make it longer is seen and each one is guarded by a test of its length or followed by a
removal. Anything unseen (another initial value, an alias) leaves it unbounded, and the
finding stands as before.
"""

from __future__ import annotations

import ast
from typing import List, Optional, Tuple

from torchleaklint.semantic import torch_api
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.object_state import class_methods, self_name
from torchleaklint.semantic.syntax import (FUNCTION_TYPES, call_parameters, every_parameter, is_staticmethod, nodes_within,
                                          passed_argument, unpacks_arguments)
from torchleaklint.semantic.syntax import child_nodes, walk

_GROWERS = frozenset({"append", "appendleft", "extend", "extendleft", "insert"})
_REMOVERS = frozenset({"pop", "popleft", "clear"})
_DEQUES = ("collections.deque", "deque")


def bounded_container(model, node: ast.AST, key: str) -> bool:
    """Is the container `key` that `node` stores into bounded by the code that fills it?"""
    scope = _scope(model, node, key)
    if scope is None:
        return False

    def compute() -> bool:
        return _bounded(model, scope, key)
    return model.cached(("bounded_container", key, tuple(id(f) for f, _ in scope)), compute)


def _scope(model, node, key) -> Optional[List[Tuple[ast.AST, str]]]:
    """(function, the name the container is reached by in it): the methods of the class for
    `self.<attr>`, the function itself for a local."""
    unit = model.unit_of(node)
    if not isinstance(unit, FUNCTION_TYPES):
        return None
    parts = key.split(".")
    if len(parts) == 1:
        return [(unit, key)] if key in model.function_locals(unit) else None
    if len(parts) != 2:
        return None
    info = model.class_of(unit)
    if info is None or parts[0] != self_name(unit):
        return None
    out = []
    for method in class_methods(model, info):
        receiver = self_name(method)
        if receiver is not None:
            out.append((method, f"{receiver}.{parts[1]}"))
    return out


# Beyond this many kept graphs a "bounded" buffer is a leak for all practical purposes
# (`deque(maxlen=100000)` fills over a whole run); an unresolved bound is taken as small.
_SMALL_BOUND = 1000
_UNSEEN = object()  # a bound the code states but no expression gives (`buf.pop(0)` each time)


def _bounded(model, scope, key) -> bool:
    rings, lists, dicts, growth, keyed = [], 0, 0, [], []
    for func, name in scope:
        for node in walk(func):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(dotted(t) == name for t in targets):
                    kind, bound = _initial_kind(model, node.value, name)
                    if kind is None:
                        return False  # `self.buf = other` or a list built elsewhere: size unknown
                    if kind == "ring":
                        rings.append((func, bound))
                    elif kind == "list":
                        lists += 1
                    elif kind == "dict":
                        dicts += 1
                keyed += [(func, t.slice, node) for t in targets
                          if isinstance(t, ast.Subscript) and dotted(t.value) == name]
            elif isinstance(node, ast.AugAssign) and dotted(node.target) == name:
                growth.append((func, name, node))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in _GROWERS | _DICT_GROWERS and dotted(node.func.value) == name:
                growth.append((func, name, node))
    if dicts:
        # a dict grows only by new keys: bounded when nothing else adds to it and every key it
        # is given comes from a fixed set (`self.act['conv_{}'.format(self.count)]` with
        # `self.count = self.count % 2` just before: two entries, overwritten by each call)
        return not rings and not lists and not growth and \
            all(_bounded_key(model, func, index, site, 0) for func, index, site in keyed)
    if not rings and not lists:
        return False  # its initial value is set out of view
    if not lists:
        return all(_small(model, func, bound) for func, bound in rings)
    # a list: a store by index replaces a slot (a list never grows that way); each append
    # must be guarded by its length or followed by a removal, against a small bound
    if not growth:
        return False
    for func, name, site in growth:
        bound = _guard_bound(model, site, name)
        if bound is None:
            bound = _trim_bound(func, site, name)
        if bound is None or not _small(model, func, bound):
            return False
    return all(_small(model, func, bound) for func, bound in rings)


def _initial_kind(model, value, name):
    """("list" | "ring" | "trim" | None, the ring's bound)."""
    if isinstance(value, ast.List) and not value.elts or \
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "list" \
            and not value.args:
        return "list", None
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice) and dotted(value.value) == name:
        return "trim", None  # `buf = buf[-n:]`
    if isinstance(value, ast.Dict) and not value.keys or isinstance(value, ast.Call) and not value.args \
            and not value.keywords and (model.qualname(value.func) or dotted(value.func) or "") in _DICTS:
        return "dict", None
    if isinstance(value, ast.Call) and (model.qualname(value.func) or "") in _DEQUES:
        maxlen = next((k.value for k in value.keywords if k.arg == "maxlen"),
                      value.args[1] if len(value.args) > 1 else None)
        if maxlen is not None and not (isinstance(maxlen, ast.Constant) and maxlen.value is None):
            return "ring", maxlen
        return ("list", None) if not value.args else (None, None)
    return None, None


_DICT_GROWERS = frozenset({"update", "setdefault", "__setitem__"})
_DICTS = frozenset({"dict", "collections.OrderedDict", "OrderedDict"})
_KEY_FORMATTERS = frozenset({"str", "int", "repr"})


def _bounded_key(model, func, expr, site, depth: int) -> bool:
    """Can the key `expr`, used at statement `site` of `func`, take only a fixed, small set of
    values: a literal, a formatting of such keys (`'conv_{}'.format(i)`, f-strings, `str(i)`),
    a remainder by a small constant (`n % 2`), a name or `self` attribute the same block
    binds to one of those just before, or the target of a loop over a literal collection?"""
    if depth > 3:
        return False
    if isinstance(expr, ast.Constant):
        return True
    if isinstance(expr, ast.Tuple):
        return all(_bounded_key(model, func, e, site, depth + 1) for e in expr.elts)
    if isinstance(expr, ast.JoinedStr):
        return all(_bounded_key(model, func, v.value, site, depth + 1) for v in expr.values
                   if isinstance(v, ast.FormattedValue))
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.Mod) and not (isinstance(expr.left, ast.Constant) and isinstance(expr.left.value, str)):
            bound = _constant_int(model, func, expr.right, 0)
            return bound is not None and 0 < bound <= _SMALL_BOUND
        return _bounded_key(model, func, expr.left, site, depth + 1) and \
            _bounded_key(model, func, expr.right, site, depth + 1)
    if isinstance(expr, ast.Call):
        callee = expr.func
        formatting = isinstance(callee, ast.Attribute) and callee.attr == "format" and \
            isinstance(callee.value, ast.Constant) and isinstance(callee.value.value, str)
        if not (formatting or isinstance(callee, ast.Name) and callee.id in _KEY_FORMATTERS):
            return False
        return all(_bounded_key(model, func, a, site, depth + 1) for a in list(expr.args) + [k.value for k in expr.keywords])
    if isinstance(expr, (ast.Name, ast.Attribute)) and dotted(expr) is not None:
        return _bound_just_before(model, func, dotted(expr), site, depth)
    return False


def _bound_just_before(model, func, name: str, site, depth: int) -> bool:
    """Is `name`, read at `site`, bound to a fixed-set key by the last statement before it in
    its block (or an enclosing one) that binds it, or the target of an enclosing loop over a
    literal collection?"""
    node = site
    for parent in model.ancestors(site):
        body = model.block_holding(node)  # (`parent` is `node`'s parent: the walk goes up one at a time)
        if body is not None:
            before = body[:next(i for i, stmt in enumerate(body) if stmt is node)]
            for stmt in reversed(before):
                binds = [n for n in walk(stmt) if isinstance(n, (ast.Name, ast.Attribute))
                         and isinstance(n.ctx, ast.Store) and dotted(n) == name]
                if not binds:
                    continue
                return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and dotted(stmt.targets[0]) == name \
                    and _bounded_key(model, func, stmt.value, stmt, depth + 1)
        if isinstance(parent, (ast.For, ast.AsyncFor)) and any(node is s for s in parent.body) and \
                isinstance(parent.target, ast.Name) and parent.target.id == name:
            return _fixed_iteration(model, func, parent.iter)
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and any(
                isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Store) and dotted(n) == name
                for n in walk(parent)):
            return False  # bound again later in the loop (`step += 1`): the next iteration reads that
        if parent is func:
            return False
        node = parent
    return False


def _fixed_iteration(model, func, iterable) -> bool:
    """A literal collection of constants (`for name in ("fc_in", "fc_out"):`). Not a `range`:
    `for it in range(n_iterations): history[it] = loss` is the very loop whose steps it keeps."""
    return isinstance(iterable, (ast.Tuple, ast.List, ast.Set)) and all(isinstance(e, ast.Constant)
                                                                       for e in iterable.elts)


def _guard_bound(model, site, name):
    """The bound of an `if`/`while` whose branch the growth site is on, when that branch runs
    only while the container is shorter (`if len(buf) < n: buf.append(x)`, the `else` of
    `if len(buf) == n:`); None if there is none."""
    child = site
    for parent in model.ancestors(site):
        if isinstance(parent, FUNCTION_TYPES):
            return None
        if isinstance(parent, (ast.If, ast.While)):
            bound = _length_test(parent.test, name, shorter=any(s is child for s in parent.body))
            if bound is not None:
                return bound
        child = parent
    return None


def _length_test(test, name, shorter: bool):
    """The bound `n` when `test` (true for `shorter`, false otherwise) says `len(name) < n`."""
    if isinstance(test, ast.BoolOp):
        # `a and len(b) < n` holds only when each part does; an `or` proves nothing
        if isinstance(test.op, ast.And) == shorter:
            return next((b for b in (_length_test(v, name, shorter) for v in test.values) if b is not None), None)
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if _is_len(right, name):
        op = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}.get(type(op), type(op))()
        left, right = right, left
    elif not _is_len(left, name):
        return None
    below = (ast.Lt, ast.LtE, ast.NotEq) if shorter else (ast.GtE, ast.Gt, ast.Eq)
    return right if isinstance(op, below) else None


def _is_len(expr, name) -> bool:
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "len" and \
        len(expr.args) == 1 and dotted(expr.args[0]) == name


def _trim_bound(func, site, name):
    """The size the same function trims the container to (`del buf[50:]`, `buf.pop(0)` when
    `len(buf) > n`, `buf.popleft()`), _UNSEEN for an unconditional removal; None if none."""
    for node in walk(func):
        if node is site:
            continue
        if isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and dotted(target.value) == name:
                    cut = target.slice
                    return cut.lower if isinstance(cut, ast.Slice) and cut.lower is not None else _UNSEEN
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _REMOVERS and dotted(node.func.value) == name:
            return _UNSEEN
        if isinstance(node, (ast.If, ast.While)):
            bound = _length_test(node.test, name, shorter=False)
            if bound is not None and any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                                         n.func.attr in _REMOVERS and dotted(n.func.value) == name
                                         for n in walk(node)):
                return bound
    return None


def _small(model, func, bound) -> bool:
    if bound is _UNSEEN or bound is None:
        return True
    value = _constant_int(model, func, bound, 0)
    return value is None or value <= _SMALL_BOUND


def _constant_int(model, func, expr, depth: int) -> Optional[int]:
    """The integer an expression holds when a constant gives it: a literal, a parameter's
    default, a local or a `self` attribute bound once from one; None if unknown."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _constant_int(model, func, expr.operand, depth)
        return None if inner is None else abs(inner)
    if isinstance(expr, ast.Constant):
        return expr.value if isinstance(expr.value, int) and not isinstance(expr.value, bool) else None
    if depth > 2:
        return None
    if isinstance(expr, ast.Name):
        return _name_constant(model, func, expr.id, depth)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and isinstance(func, FUNCTION_TYPES):
        info = model.class_of(func)
        if info is None or expr.value.id != self_name(func):
            return None
        values = set()
        for method in class_methods(model, info):
            receiver = self_name(method)
            for node in walk(method):
                if isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Attribute) and t.attr == expr.attr and isinstance(t.value, ast.Name)
                        and t.value.id == receiver for t in node.targets):
                    values.add(_constant_int(model, method, node.value, depth + 1))
        return values.pop() if len(values) == 1 else None
    return None


def _name_constant(model, func, name: str, depth: int) -> Optional[int]:
    if not isinstance(func, FUNCTION_TYPES):
        return None
    args = func.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    stores = [n for n in walk(func) if isinstance(n, ast.Assign)
              and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)]
    if name in defaults and not stores:
        return _constant_int(model, func, defaults[name], depth + 1)
    if len(stores) == 1 and name not in {a.arg for a in positional + args.kwonlyargs}:
        return _constant_int(model, func, stores[0].value, depth + 1)
    return None


_LOGGING_CALLS = frozenset({"print", "log", "info", "debug", "add_scalar", "add_image", "add_histogram",
                            "imshow", "plot", "savefig"})


def inert_read(model, read) -> bool:
    """A read that cannot consume the stored graph: under no-grad, cut at once (`.detach()`,
    `.item()`, `.cpu().numpy()`), or only handed to a logger, a plot or print."""
    if model.grad_disabled_at(read) or model.value_killed_at(read):
        return True
    parent = model.parent(read)
    if isinstance(parent, ast.Attribute) and parent.value is read and parent.attr in torch_api.TENSOR_METADATA_ATTRIBUTES:
        return True  # `kept.grad_fn is not None`: a look at the tensor, not a use of its values
    if isinstance(parent, ast.Subscript) and parent.value is read and isinstance(parent.ctx, ast.Del):
        return True  # `del self.logprobs[:]`: the clear that lets the graphs go
    combined = _torch_op_around(model, read)
    if combined is not read and model.value_killed_at(combined):
        return True  # `torch.stack(memory.logprobs).detach()`: the old log-probabilities as constants
    while isinstance(parent, (ast.Attribute, ast.Subscript)) and not isinstance(model.parent(parent), ast.Call):
        parent = model.parent(parent)
    call = parent if isinstance(parent, ast.Call) else None
    if call is None and isinstance(parent, ast.Attribute) and isinstance(model.parent(parent), ast.Call):
        call = model.parent(parent)
    if call is None:
        return False
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    return name in _LOGGING_CALLS and read is not call.func


def _torch_op_around(model, read):
    """The outermost torch function call that `read` is an argument of, through nested ones
    and argument lists (`torch.stack(x)`, `torch.cat([a, b])`), or `read` itself."""
    outer, expr = read, read
    while True:
        parent = model.parent(expr)
        if isinstance(parent, (ast.List, ast.Tuple)):
            expr, parent = parent, model.parent(parent)
        if not (isinstance(parent, ast.Call) and expr in parent.args
                and (model.qualname(parent.func) or "").startswith("torch.")):
            return outer
        outer = expr = parent


def rollout_keeping(model, node: ast.AST, key: str) -> Optional[ast.AST]:
    """The rollout loop whose iterations `self` state `key` (a container `node` adds to) keeps
    dead graphs of: a loop that runs a forward with grad on what its previous iteration
    computed (`action = self.policy(obs)`, `obs = next_obs.detach()`) and no backward, filling
    an attribute that outlives the call, that nothing in view back-propagates (every read of
    it in the module is inert, none in another module reaches a backward) and that the method
    does not make fresh. None otherwise."""
    unit = model.unit_of(node)
    if "." not in key and isinstance(unit, FUNCTION_TYPES) and key in model.function_locals(unit):
        return _local_rollout_keeping(model, node, key, unit)
    if key.count(".") != 1 or not isinstance(unit, FUNCTION_TYPES) or model.rebound_fresh_in(unit, key) \
            or not (key.startswith("self.") and model.class_of(unit) is not None or _object_handed_in(unit, key)):
        return None
    loop = next((l for l in model.loops_around(node) if model.runs_forward_each_iteration(l)), None)
    if loop is None or model.has_backward_within(loop) or model.grad_disabled_at(node):
        return None
    attr = key.split(".", 1)[1]
    owner = model.enclosing_class_info(node) if key.startswith("self.") else None
    if model.attribute_back_propagated_elsewhere(attr, owner):
        return None
    return loop if _only_inert_reads(model, node, attr) else None


def _only_inert_reads(model, node: ast.AST, attr: str) -> bool:
    """Is every read of `.<attr>` in the module, other than `node` itself and the container's
    own growing calls (`.append`), inert (cut at once, logged, plotted)?"""
    reads = [r for r in model.attribute_loads(attr) if not model.is_inside(r, node)
             and not (isinstance(model.parent(r), ast.Attribute) and model.parent(r).attr in _GROWERS)]
    return all(inert_read(model, r) for r in reads)


def external_rollout_keeping(model, node: ast.AST, key: str):
    """The call site in another module whose rollout loop fills `self` state `key` (a
    container `node` adds to) with dead graphs: `storage.add(obs, action, log_prob, value,
    reward)` per environment step of the runner's collection loop, which runs a forward with
    grad on what its previous iteration computed and no backward. As `rollout_keeping`: only a
    method no call of this module runs, a container it does not make fresh, and an attribute
    no backward in view reads (here or in another module: REINFORCE's `torch.stack(
    storage.log_probs)` in the loss consumes it) and every read of it here inert. The graphs
    live until the storage is cleared, however often that is. Returns that site
    (`model.ExternalCall`), or None."""
    from torchleaklint.semantic.model import ExternalCall

    unit = model.unit_of(node)
    if key.count(".") != 1 or not isinstance(unit, FUNCTION_TYPES) or model.class_of(unit) is None \
            or key.split(".", 1)[0] != self_name(unit) or model.rebound_fresh_in(unit, key) \
            or model.call_sites(unit) or model.grad_disabled_at(node):
        return None
    sites = [site for site in model.external_sites(unit) if site.get("ro") and site.get("lp") and not site["ng"]
             and not site.get("mm") and not site.get("fr") and not site.get("abp") and not site["bp"]]
    if not sites:
        return None
    attr = key.split(".", 1)[1]
    if model.attribute_back_propagated_elsewhere(attr, model.enclosing_class_info(node)):
        return None
    return ExternalCall(sites[0], unit) if _only_inert_reads(model, node, attr) else None


def _local_rollout_keeping(model, node, key: str, unit) -> Optional[ast.AST]:
    """A local list that a rollout loop of this function fills with graphs (`values.append(v)`
    after `logits, v = model(states)`, with grad on and no backward in the loop), whose every
    other read only cuts them (`torch.cat(values).detach()`) and that no backward of the
    function consumes: each iteration's forward stays alive, unused, until the rollout ends.
    A list the function back-propagates after the loop (A2C) is no such list, nor one it
    returns, unless every caller only lets its graphs die (`_returned_list_dies_in_callers`). The
    loop may also feed one input's chunks to a model (`for c, f in zip(coord_chunk, feat_chunk):
    pred.append(model(...))`, then `torch.cat(pred).max(3)[1]`): the chunks' activations stay
    alive, unused, until the prediction is cut."""
    carried = model.carried_loops(node, key)
    loop = next((l for l in carried if model.runs_forward_each_iteration(l) or model.runs_a_forward_on_slices(l)), None)
    if loop is None or model.has_backward_within(loop) or model.grad_disabled_at(node) \
            or model.feeds_backward(unit, key, gradient=True) or _put_value_back_propagated(model, node, unit):
        return None
    reaching = model.reaching(unit)
    receiver = node.func.value if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else None
    # (`buffer["values"].append(v)`: one entry of a local dict of lists)
    entry = _constant_key(receiver) if isinstance(receiver, ast.Subscript) else None
    if entry is not None:
        receiver = receiver.value
    lists = {id(d) for d in reaching.definitions(receiver)} if isinstance(receiver, ast.Name) else set()
    if not lists:
        return None
    # the reads that may see the list (not `values` rebound to `torch.cat(values).detach()`)
    reads = [n for n in nodes_within(unit) if isinstance(n, ast.Name) and n.id == key and isinstance(n.ctx, ast.Load)
             and not model.is_inside(n, node) and lists & {id(d) for d in reaching.definitions(n)}
             and not (isinstance(model.parent(n), ast.Attribute) and model.parent(n).attr in _GROWERS)]
    # (returned to callers that only print it, from a loop running a model it put in eval mode:
    # an evaluation episode, not the unroll of a forward whose outputs are its result)
    returned = _evaluates_a_model(model, loop) and _every_caller_drops_the_result(model, unit)
    return loop if reads and all(_list_use_dies(model, r, unit, entry, returned) for r in reads) else None


def _constant_key(subscript: ast.Subscript):
    """The string constant a subscript reads (`buffer["values"]`), or None."""
    key = subscript.slice
    return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None


def _list_use_dies(model, read, unit, entry, returned_dies: bool, depth: int = 0) -> bool:
    """Does this use of a rollout's list (or, with `entry`, of the dict holding it as
    `buffer[entry]`) let the graphs it holds die unused? A read of another entry of the dict
    (`buffer["obs"]`) does not touch them; a read of the entry itself must be inert
    (`torch.stack(buffer["values"])` under no-grad); the list (or dict) returned as it is, or
    at a position of a returned tuple, dies when every caller's use of it dies in turn
    (`_returned_list_dies_in_callers`)."""
    parent = model.parent(read)
    if entry is not None and isinstance(parent, ast.Subscript) and parent.value is read:
        key = _constant_key(parent)
        if key is None or isinstance(parent.ctx, ast.Del):
            return inert_read(model, read)
        return key != entry or inert_read(model, parent)
    if entry is None and _dies_in_the_function(model, read, unit, returned_dies):
        return True
    if entry is not None and inert_read(model, read):
        return True
    return depth < 2 and _returned_list_dies_in_callers(model, read, unit, entry, depth)


def _returned_list_dies_in_callers(model, read, unit, entry, depth: int) -> bool:
    """`return buffer, obs` of a function every call of which (one at least, all in this
    module, the function never handed out) unpacks that position into a name whose every
    read lets the graphs die (`_list_use_dies`): inert, another entry, a parameter of a
    function of this module that it is handed to whose every read does, or returned on to
    callers that do. The PPO driver that passes the rollout's buffer to an update reading
    the values only under no-grad keeps them, unused, for the whole rollout."""
    position = _returned_position(model, read, unit)
    if position is None or not isinstance(unit, FUNCTION_TYPES) or model.external_sites(unit) \
            or model.handed_out(unit) or model.class_of(unit) is not None and model.calls_by_method_name(unit)[0]:
        return False
    sites = model.call_sites(unit)
    if not sites:
        return False
    for site in sites:
        caller = model.unit_of(site)
        if isinstance(model.parent(site), ast.Expr):
            continue
        bound = _bound_name(model, site, position)
        if bound is None or not isinstance(caller, FUNCTION_TYPES):
            return False
        reaching = model.reaching(caller)
        uses = [n for n in nodes_within(caller) if isinstance(n, ast.Name) and n.id == bound.id
                and isinstance(n.ctx, ast.Load) and any(d is bound for d in reaching.definitions(n))]
        if not all(_list_use_dies(model, u, caller, entry, False, depth + 1)
                   or _handed_to_a_parameter_that_dies(model, u, entry, depth + 1) for u in uses):
            return False
    return True


def _returned_position(model, read, unit) -> Optional[int]:
    """-1 when `read` is what a `return` of `unit` gives, its index in a returned tuple, or None."""
    parent = model.parent(read)
    if isinstance(parent, ast.Return) and model.unit_of(parent) is unit:
        return -1
    if isinstance(parent, ast.Tuple) and isinstance(model.parent(parent), ast.Return) \
            and model.unit_of(parent) is unit and not any(isinstance(e, ast.Starred) for e in parent.elts):
        return parent.elts.index(read)
    return None


def _bound_name(model, site: ast.Call, position: int) -> Optional[ast.Name]:
    """The name a call's result (position -1) or one position of its unpacked tuple result is
    bound to (`buffer, obs = collect(...)`), or None."""
    stmt = model.parent(site)
    if not (isinstance(stmt, ast.Assign) and stmt.value is site and len(stmt.targets) == 1):
        return None
    target = stmt.targets[0]
    if position == -1:
        return target if isinstance(target, ast.Name) else None
    if isinstance(target, (ast.Tuple, ast.List)) and position < len(target.elts) \
            and not any(isinstance(e, ast.Starred) for e in target.elts):
        element = target.elts[position]
        return element if isinstance(element, ast.Name) else None
    return None


def _handed_to_a_parameter_that_dies(model, use, entry, depth: int) -> bool:
    """`agent.train(buffer, obs)`: `use` passed as a positional argument to a function of this
    module whose parameter it binds is never rebound and every read of it lets the graphs die."""
    call = model.parent(use)
    if not (isinstance(call, ast.Call) and use in call.args) or depth > 2 \
            or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    callee = model.resolve_call(call)
    if not isinstance(callee, FUNCTION_TYPES):
        return False
    names = call_parameters(call, callee)
    index = call.args.index(use)
    if index >= len(names):
        return False
    param = names[index]
    reads = [n for n in nodes_within(callee) if isinstance(n, ast.Name) and n.id == param]
    if any(not isinstance(n.ctx, ast.Load) for n in reads):
        return False  # (rebound or deleted: what it holds then is not followed)
    return all(_list_use_dies(model, n, callee, entry, False, depth + 1) for n in reads)


def _dies_in_the_function(model, read, unit, returned_dies: bool = False, depth: int = 0) -> bool:
    """Is `read` inert, or bound (as it is, or through ops that keep its graph: `pred =
    torch.cat(pred).unsqueeze(0)`) to a name whose every later read is inert in turn
    (`outputs = pred.max(3)[1]`)? With `returned_dies`, also a read the function returns
    (`return torch.stack(logps).mean()`, its callers only printing it). Then the graph goes
    nowhere out of the function."""
    if inert_read(model, read):
        return True
    stmt = model.statement_of(read)
    if isinstance(stmt, ast.Return) and model.unit_of(stmt) is unit:
        return returned_dies
    if depth >= 2 or not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return False
    target, reaching = stmt.targets[0], model.reaching(unit)
    later = [n for n in nodes_within(unit) if isinstance(n, ast.Name) and n.id == target.id
             and isinstance(n.ctx, ast.Load) and any(d is target for d in reaching.definitions(n))]
    return bool(later) and all(_dies_in_the_function(model, n, unit, returned_dies, depth + 1) for n in later)


def _evaluates_a_model(model, loop) -> bool:
    """Does `loop` call a model between that model's `eval()` and its next `train()`?"""
    from torchleaklint.semantic.evaluation import in_evaluation_region

    return any(in_evaluation_region(model, node) for node in nodes_within(loop) if isinstance(node, ast.Call))


def _every_caller_drops_the_result(model, unit) -> bool:
    """Is `unit` called (once at least, only in this module, never handed out as a value),
    and does every call only print or log what it returns, or discard it? `print(evaluate(
    env, agent))`: what the function returns dies at the call. (Narrower than
    `model.result_dropped_by_every_caller`, which also counts a result bound to a name only
    read cut, `roll = rollout(...); roll.shape`: a forecast rollout's stacked outputs are its
    result, and keeping them until the caller looks at them is no finding of this rule.)"""
    if not isinstance(unit, FUNCTION_TYPES) or model.external_sites(unit) or model.handed_out(unit) \
            or model.class_of(unit) is not None and model.calls_by_method_name(unit)[0]:
        return False
    sites = model.call_sites(unit)
    return bool(sites) and all(inert_read(model, site) or isinstance(model.parent(site), ast.Expr) for site in sites)


def _put_value_back_propagated(model, node: ast.AST, unit) -> bool:
    """`gen_steps.append(state)` where `state` also feeds the loss a backward of the function
    differentiates (`step_loss = mse(state, y); loss = loss + step_loss` ... `loss.backward()`):
    the graphs the list holds are the ones that backward walks, and the loss holds them anyway."""
    put = node.args[0] if isinstance(node, ast.Call) and len(node.args) == 1 else None
    return isinstance(put, ast.Name) and model.feeds_backward(unit, put.id, gradient=True)


def _object_handed_in(unit, key: str) -> bool:
    """`memory.logprobs` in `collect(policy, memory)`: a container of an object the caller
    hands in, which outlives the call as `self` state does."""
    base = key.split(".", 1)[0]
    return base not in ("self", "cls") and base in {a.arg for a in every_parameter(unit)}


def grows_through_a_parameter(model, node: ast.AST, key: str) -> Optional[ast.AST]:
    """The caller's step loop across which a container handed in as parameter `key` keeps what
    `node` adds to it: `process(batch, cache)` storing `cache[start + j] = logp` and called once
    per update with the same `cache`, made before that loop. Every call site in view binds the
    parameter to a name of the caller that no statement of the loop rebinds, clears or deletes
    from, in a step or epoch loop; the function never rebinds the parameter; no other module
    calls it. None otherwise."""
    unit = model.unit_of(node)
    if "." in key or "[" in key or not isinstance(unit, FUNCTION_TYPES) or model.rebound_fresh_in(unit, key) \
            or key not in {a.arg for a in every_parameter(unit)} or key in ("self", "cls"):
        return None
    sites = model.call_sites(unit)
    if not sites or model.external_sites(unit):
        return None
    loops = [_loop_keeping_the_argument(model, site, unit, key) for site in sites]
    return loops[0] if all(loop is not None for loop in loops) else None


def grows_through_a_parameter_elsewhere(model, node: ast.AST, key: str):
    """As `grows_through_a_parameter`, for a function other modules call: `log_metrics(step,
    logs, z)` per training step of another module's loop, with `logs = new_logs()` made before
    that loop and kept across it (the caller's summary marks such arguments). Every call in
    view, here and in other modules, must keep the argument so. Returns the first other
    module's site (`model.ExternalCall`), or None."""
    from torchleaklint.semantic.model import ExternalCall

    unit = model.unit_of(node)
    if "." in key or "[" in key or not isinstance(unit, FUNCTION_TYPES) or model.rebound_fresh_in(unit, key) \
            or key in ("self", "cls"):
        return None
    names = [a.arg for a in unit.args.posonlyargs + unit.args.args]
    if key not in names + [a.arg for a in unit.args.kwonlyargs]:
        return None
    external = model.external_sites(unit)
    if not external or any(_loop_keeping_the_argument(model, site, unit, key) is None for site in model.call_sites(unit)):
        return None
    offset = 1 if model.class_of(unit) is not None and not is_staticmethod(unit) else 0
    position = str(names.index(key) - offset) if key in names and names.index(key) >= offset else None
    kept = [site for site in external if not site.get("spread") and not site.get("ut")
            and (key in site.get("kc", ()) or position is not None and position in site.get("kc", ()))]
    return ExternalCall(kept[0], unit) if kept and len(kept) == len(external) else None


def arguments_kept_across_loops(model, call: ast.Call) -> List[str]:
    """The arguments of `call` (positions among its plain arguments as strings, keyword names)
    that are a container of the caller kept across its step or epoch loop: a name bound before
    the innermost loop around the call that no statement of the loop rebinds, clears, deletes
    from or hands to another call. What the callee adds to it stays for the rest of the loop
    (a project summary records them for the callee's module: `grows_through_a_parameter_elsewhere`)."""
    if unpacks_arguments(call):
        return []
    given = [(str(i), a) for i, a in enumerate(call.args)] + [(kw.arg, kw.value) for kw in call.keywords if kw.arg]
    return [key for key, argument in given
            if isinstance(argument, ast.Name) and _loop_keeping(model, call, argument) is not None]


def _loop_keeping_the_argument(model, site: ast.Call, callee, param: str) -> Optional[ast.AST]:
    argument = _argument_bound_to(site, callee, param)
    return _loop_keeping(model, site, argument) if isinstance(argument, ast.Name) else None


def _loop_keeping(model, site: ast.Call, argument: ast.Name) -> Optional[ast.AST]:
    loop = next(iter(model.loops_around(site)), None)
    if loop is None or not (model.is_step_loop(loop) or model.is_epoch_loop(loop)):
        return None
    for inner in walk(loop):
        if isinstance(inner, ast.Name) and inner.id == argument.id and not isinstance(inner.ctx, ast.Load):
            return None  # rebound (or deleted) in the loop
        if isinstance(inner, ast.Delete) and any(isinstance(t, ast.Subscript) and dotted(t.value) == argument.id
                                                  for t in inner.targets):
            return None
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and \
                inner.func.attr in _REMOVERS | {"popitem"} and dotted(inner.func.value) == argument.id:
            return None
        if isinstance(inner, ast.Call) and inner is not site and any(
                isinstance(a, ast.Name) and a.id == argument.id for a in list(inner.args) + [k.value for k in inner.keywords]):
            return None  # handed to another call too, which may empty it
    return loop


def _argument_bound_to(call: ast.Call, callee, param: str) -> Optional[ast.AST]:
    """The expression `call` binds to the callee's parameter `param` (positional or keyword)."""
    if unpacks_arguments(call):
        return None
    names = call_parameters(call, callee)
    return passed_argument(call, param, names.index(param) if param in names else -1)


def replaces_an_existing_entry(model, stmt: ast.AST) -> bool:
    """Is `stmt` a store `c[k] = v` under an `if` whose test has just read `c[k]`
    (`if loss < best[split]: best[split] = loss`)? The read raises unless the entry exists,
    so the store replaces it: the container keeps one value per key, it does not grow. Not
    when `v` is computed from `c` (`c[k] = c[k] + loss` chains the entries: TLL001's) or the
    key may be rebound between the test and the store."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)):
        return False
    target = stmt.targets[0]
    container, key = ast.dump(target.value), ast.dump(target.slice)
    if any(ast.dump(n) == container for n in walk(stmt.value)):
        return False
    key_names = {n.id for n in walk(target.slice) if isinstance(n, ast.Name)}
    unit = model.unit_of(stmt)
    child = stmt
    for anc in model.ancestors(stmt):
        if anc is unit or isinstance(anc, (ast.For, ast.AsyncFor, ast.While, *FUNCTION_TYPES)):
            return False
        if isinstance(anc, ast.If) and any(child is s for s in anc.body):
            if _rebinds_before(anc.body, stmt, key_names):
                return False
            if any(isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and ast.dump(n.value) == container
                   and ast.dump(n.slice) == key for n in _always_evaluated(anc.test)):
                return True
        child = anc
    return False


def _always_evaluated(expr: ast.AST):
    """The parts of `expr` that every evaluation of it evaluates: the first operand of `and`
    / `or`, the test of `a if t else b`; nothing inside a lambda or a comprehension."""
    yield expr
    if isinstance(expr, ast.BoolOp):
        children = expr.values[:1]
    elif isinstance(expr, ast.IfExp):
        children = [expr.test]
    elif isinstance(expr, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        children = []
    else:
        children = list(child_nodes(expr))
    for child in children:
        yield from _always_evaluated(child)


def _rebinds_before(body, stmt, names) -> bool:
    """Does a statement of `body` before `stmt` (or around it) bind one of `names`?"""
    for node in body:
        for sub in walk(node):
            if sub is stmt:
                return False
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store) and sub.id in names:
                return True
    return False


def state_a_local_names(model, read: ast.Name) -> Optional[str]:
    """`store = self._stored_metrics[mode]`, then `store[key].append(v)`: the key of the object
    or module state (`self._stored_metrics`) that the local `read` is an alias of, when every
    definition reaching it binds it to (an entry of) that state: the attribute itself, an item
    of it (`self.buffers[k]`, not a slice, which copies) or its `setdefault` entry. What goes
    into the alias goes into the state. None when any definition binds something else (a
    parameter, a fresh list, a copy)."""
    unit = model.unit_of(read)
    if not isinstance(unit, FUNCTION_TYPES):
        return None
    keys = set()
    for definition in model.reaching(unit).definitions(read):
        stmt = model.statement_of(definition)
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and stmt.targets[0] is definition):
            return None
        keys.add(_state_entry_key(model, unit, stmt.value))
    return keys.pop() if len(keys) == 1 else None


def container_base(expr: ast.AST, through_slices: bool = True) -> ast.AST:
    """`self.buf` of `self.buf[k]` and of `self.history.setdefault(name, [])` (the list kept
    under a key of the dict, created there when missing); a slice (`buf[a:b]`, a copy when
    read) is gone through only with `through_slices`."""
    while True:
        if isinstance(expr, ast.Subscript) and (through_slices or not isinstance(expr.slice, ast.Slice)):
            expr = expr.value
        elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "setdefault":
            expr = expr.func.value
        else:
            return expr


def _state_entry_key(model, unit, expr: ast.AST) -> Optional[str]:
    """`self.metrics` of `self.metrics`, `self.metrics[mode]` and `self.metrics.setdefault(k, [])`,
    `HISTORY` of a module-level `HISTORY[name]`; None for anything else."""
    key = dotted(container_base(expr, through_slices=False))
    if key is None:
        return None
    root = key.split(".", 1)[0]
    if "." in key and root == self_name(unit) and model.class_of(unit) is not None:
        return key
    return key if "." not in key and model.is_module_global(unit, key) else None


# torch functions that take a sequence of tensors and fail on a list of Python numbers
_TENSOR_SEQUENCE_FUNCTIONS = frozenset({
    "torch.stack", "torch.cat", "torch.concat", "torch.concatenate", "torch.vstack", "torch.hstack",
    "torch.dstack", "torch.row_stack", "torch.column_stack"})


def made_into_a_tensor_later(model, value: ast.AST) -> bool:
    """Is the container that `value` is put into handed, in the same function, to a torch
    function that needs tensors (`return torch.stack(losses)`)?"""
    name = _container_of(model, value)
    unit = model.unit_of(value)
    if name is None or unit is None:
        return False
    for node in walk(unit):
        if isinstance(node, ast.Call) and (model.qualname(node.func) or "") in _TENSOR_SEQUENCE_FUNCTIONS:
            if any(dotted(arg) == name for arg in node.args):
                return True
    return False


def _container_of(model, value: ast.AST) -> Optional[str]:
    """The name of the container `value` is stored into: `losses` of `losses.append(loss)`,
    `c[k] = v`, `c += [v]`, or `preds = [... for ...]`."""
    stmt = model.statement_of(value)
    node = stmt.value if isinstance(stmt, ast.Expr) else stmt
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and not isinstance(stmt.targets[0], ast.Subscript):
        return dotted(stmt.targets[0])  # a comprehension bound to a name
    return written_container(node)


def written_container(node) -> Optional[str]:
    """The key of the container a statement may put something into, read from the syntax
    alone (`losses` of `losses.append(x)`, `self.buf` of `self.buf[k] = v`)."""
    base = written_base(node)
    return None if base is None else dotted(base)


def written_base(node) -> Optional[ast.AST]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        base = node.func.value
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        base = node.targets[0].value
    elif isinstance(node, ast.AugAssign):
        base = node.target
    else:
        return None
    return container_base(base)
