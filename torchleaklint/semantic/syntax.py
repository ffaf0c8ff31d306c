"""Small questions about syntax that rules and the semantic layer share."""

from __future__ import annotations

import ast
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

FUNCTION_TYPES = (ast.FunctionDef, ast.AsyncFunctionDef)
LOOP_TYPES = (ast.For, ast.AsyncFor, ast.While)
SCOPE_TYPES = FUNCTION_TYPES + (ast.Lambda, ast.ClassDef)
COMPREHENSION_TYPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

# Methods that set an object up (or back): what they store is the object's starting state,
# not a step's result.
INIT_METHODS = frozenset({"__init__", "initialize", "reset", "setup", "build", "__post_init__", "reset_parameters",
                          "init_hidden", "reset_state", "reset_states"})


def is_main_guard(node: ast.AST) -> bool:
    """`if __name__ == "__main__":` (the test's left side is `__name__`)."""
    return isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and \
        isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"


def drives_itself(tree: ast.Module) -> bool:
    """Does the module run as a script: a top-level `if __name__ == "__main__":` block?"""
    return any(is_main_guard(node) for node in tree.body)


def entered_context(expr: ast.AST) -> ast.AST:
    """The context manager a `with` item enters: `a and b` evaluates to `b` when `a` is a
    (truthy) context manager, `a or b` to `a` (`with accelerator.accumulate(model) and
    torch.no_grad():` enters only `torch.no_grad()`)."""
    while isinstance(expr, ast.BoolOp) and expr.values:
        expr = expr.values[-1] if isinstance(expr.op, ast.And) else expr.values[0]
    return expr


def keyword_arg(call: ast.Call, name: str) -> Optional[ast.AST]:
    """The value passed as `name=` to `call`, or None."""
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def passed_true(call: ast.Call, keyword: str) -> bool:
    """`retain_graph=True`, `create_graph=True`: the keyword given the literal True."""
    flag = keyword_arg(call, keyword)
    return isinstance(flag, ast.Constant) and flag.value is True


def is_staticmethod(func: ast.AST) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)


def is_property(func: ast.AST) -> bool:
    """`@property` / `@functools.cached_property`: reading the attribute runs the method."""
    def last_name(d) -> str:
        return d.attr if isinstance(d, ast.Attribute) else d.id if isinstance(d, ast.Name) else ""
    return any(last_name(d) in ("property", "cached_property") for d in func.decorator_list)


def is_classmethod(func: ast.AST) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in func.decorator_list)


def is_stub(func: ast.AST) -> bool:
    """An abstract method: `@abstractmethod`, or a body of only a docstring, `pass`, `...` and
    `raise NotImplementedError`. What it does is up to the subclass that overrides it."""
    if any((getattr(d, "id", None) or getattr(d, "attr", None)) == "abstractmethod" for d in func.decorator_list):
        return True
    for stmt in func.body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            continue
        if isinstance(stmt, ast.Raise) and stmt.exc is not None and \
                "NotImplementedError" in ast.unparse(stmt.exc):
            continue
        return False
    return True


def short_source(node: ast.AST, limit: int = 40) -> str:
    """The node's source, cut to `limit` characters for a message."""
    text = ast.unparse(node)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def with_method(node: ast.AST, method: str, limit: int = 40) -> str:
    """`x.detach()` as a message shows it: the value in parentheses when it is not a plain
    name, attribute, call or subscript (`(a if c else b).detach()`), `<value>.detach()` when
    it is too long to show."""
    text = ast.unparse(node)
    if len(text) > limit:
        return f"<value>.{method}()"
    if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
        # `[a1, a2]`: a list has no `.detach()`; each element does
        parts = ", ".join(with_method(elt, method, limit) for elt in node.elts)
        return f"[{parts}]" if isinstance(node, ast.List) else f"({parts}{',' if len(node.elts) == 1 else ''})"
    if not isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
        text = f"({text})"
    return f"{text}.{method}()"


def positional_parameters(func: ast.AST) -> List[ast.arg]:
    """A function's (or lambda's) positional parameters, `self` included, in order."""
    return list(func.args.posonlyargs) + list(func.args.args)


def self_name(func) -> Optional[str]:
    """The name of a method's receiver (`self`), None for static and class methods."""
    if any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in func.decorator_list):
        return None
    args = positional_parameters(func)
    return args[0].arg if args else None


def called_on_self(func: ast.AST, receivers=("self", "cls")) -> bool:
    """`self.m` (or `cls.m`): an attribute read on the method's own receiver by its usual name."""
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in receivers


def unpacks_arguments(call: ast.Call) -> bool:
    """`f(*args)` or `f(**kwargs)`: which argument binds which parameter cannot be told."""
    return any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)


def call_parameters(call: ast.Call, callee: ast.AST) -> List[str]:
    """The positional parameter names of `callee` that `call`'s positional arguments bind, in
    order: after `self`/`cls` for a method called on an object (`obj.m(a)` binds `m`'s second)."""
    names = [a.arg for a in positional_parameters(callee)]
    if isinstance(call.func, ast.Attribute) and names and names[0] in ("self", "cls"):
        names = names[1:]
    return names


def passed_argument(call: ast.Call, name: str, position: int) -> Optional[ast.AST]:
    """What `call` passes for the parameter `name` at `position` (counted after self for a
    method), by keyword or by position; None when it is left to its default."""
    passed = next((k.value for k in call.keywords if k.arg == name), None)
    if passed is None and 0 <= position < len(call.args):
        passed = call.args[position]
    return passed


def default_of(func: ast.AST, param: ast.arg) -> Optional[ast.expr]:
    """The default value expression of a parameter of `func`, or None."""
    args = func.args
    positional = positional_parameters(func)
    if param in positional:
        index = positional.index(param) - (len(positional) - len(args.defaults))
        return args.defaults[index] if index >= 0 else None
    if param in args.kwonlyargs:
        return args.kw_defaults[args.kwonlyargs.index(param)]
    return None


def named_parameters(func: ast.AST) -> List[ast.arg]:
    """Positional then keyword-only parameters (no `*args` / `**kwargs`)."""
    return positional_parameters(func) + list(func.args.kwonlyargs)


def every_parameter(func: ast.AST) -> List[ast.arg]:
    """Every parameter a call binds, `*args` and `**kwargs` included."""
    args = func.args
    return named_parameters(func) + [a for a in (args.vararg, args.kwarg) if a is not None]


def child_nodes(node: ast.AST) -> List[ast.AST]:
    """The children `ast.iter_child_nodes` lists, in the same order, but for the shared
    context and operator markers (`SINGLETON_FIELDS`), kept on the node the first time: the
    rules' questions walk the same subtrees again and again, and the analysis never changes
    a tree it has parsed. The list is shared: never change it."""
    found = node.__dict__.get(CHILDREN_KEY)
    if found is None:
        found = []
        for field in node_fields(type(node)):
            child = getattr(node, field, None)
            if isinstance(child, ast.AST):
                found.append(child)
            elif isinstance(child, list):
                found.extend(item for item in child if isinstance(item, ast.AST))
        node.__dict__[CHILDREN_KEY] = found
    return found


# The fields holding `Load`/`Store`/`Del` and the operators (`ctx`, `op`, `ops`): CPython's
# parser hands out one shared instance of each (every `Load` of a file is the same object),
# so they have no position and no parent of their own, and no question asks about them as
# nodes (a rule reads `name.ctx`, `binop.op`). A third of a file's nodes: no walk visits them.
SINGLETON_FIELDS = frozenset({"ctx", "op", "ops"})
# Fields that hold names, numbers and flags, never a node (`Name.id`, `Constant.value`, ...)
_SCALAR_FIELDS = frozenset({"id", "attr", "name", "arg", "asname", "module", "level", "kind", "type_comment",
                            "conversion", "is_async", "simple", "tag"})
NODE_FIELDS: Dict[type, Tuple[str, ...]] = {}  # node type -> `node_fields(type)`, filled as types are met
_TYPE_ALIAS = getattr(ast, "TypeAlias", None)


def node_fields(node_type: type) -> Tuple[str, ...]:
    """The fields of `node_type` that may hold child nodes (or lists of them), in order."""
    found = NODE_FIELDS.get(node_type)
    if found is None:
        found = tuple(f for f in node_type._fields if f not in SINGLETON_FIELDS and
                      (f not in _SCALAR_FIELDS or node_type is _TYPE_ALIAS)  # (3.12: `type X = ...`, a Name)
                      and not (node_type is ast.Constant and f == "value"))
        NODE_FIELDS[node_type] = found
    return found


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """`ast.walk(node)` (breadth first, the same order) over the children `child_nodes` keeps
    (no `Load`, `Store` or operator markers)."""
    queue = [node]
    for current in queue:  # (the loop reads what it appends: a queue without popping)
        children = current.__dict__.get(CHILDREN_KEY)  # (`child_nodes`, inlined: the common case)
        queue.extend(children if children is not None else child_nodes(current))
        yield current


CHILDREN_KEY = "_tll_children"


def nodes_within(owner: ast.AST, skip_loops: bool = False) -> Iterator[ast.AST]:
    """The nodes of a function's, loop's or statement's body, without entering nested
    functions and classes (nor nested loops, with skip_loops).

    Asked about the same functions and loops again and again (every rule's questions walk
    them), so the list is kept on the owner node the first time: the analysis never changes
    a tree it has parsed, and the list goes with the tree."""
    key = _WITHIN_NO_LOOPS if skip_loops else _WITHIN
    found = owner.__dict__.get(key)
    if found is None:
        found = _walk_within(owner, skip_loops)
        setattr(owner, key, found)
    return iter(found)


_WITHIN, _WITHIN_NO_LOOPS = "_tll_within", "_tll_within_no_loops"


def _walk_within(owner: ast.AST, skip_loops: bool) -> List[ast.AST]:
    skipped = SCOPE_TYPES + LOOP_TYPES if skip_loops else SCOPE_TYPES
    found = []
    stack = list(body_nodes(owner))
    while stack:
        node = stack.pop()
        if isinstance(node, skipped):
            continue
        found.append(node)
        children = node.__dict__.get(CHILDREN_KEY)  # (`child_nodes`, inlined: the common case)
        stack.extend(children if children is not None else child_nodes(node))
    return found


def body_nodes(owner: ast.AST) -> Iterable[ast.AST]:
    if isinstance(owner, LOOP_TYPES + FUNCTION_TYPES + (ast.Module,)):
        return list(owner.body)
    return [owner]


def entry_accumulation(stmt: ast.AST) -> Optional[ast.AST]:
    """For `c[k] = c.get(k, 0.0) + v` or `c[k] = c[k] + v` (either order, also `-`, `*`):
    the added operand `v`, an update of one entry from its own previous value (a running
    total kept per key, like `c[k] += v`); else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)
            and isinstance(stmt.value, ast.BinOp) and isinstance(stmt.value.op, (ast.Add, ast.Sub, ast.Mult))):
        return None
    target = stmt.targets[0]
    container, key = ast.dump(target.value), ast.dump(target.slice)

    def reads_entry(expr) -> bool:
        if isinstance(expr, ast.Subscript):
            return ast.dump(expr.value) == container and ast.dump(expr.slice) == key
        return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" \
            and ast.dump(expr.func.value) == container and bool(expr.args) and ast.dump(expr.args[0]) == key

    left, right = stmt.value.left, stmt.value.right
    if reads_entry(left) and not reads_entry(right):
        return right
    if reads_entry(right) and not reads_entry(left) and not isinstance(stmt.value.op, ast.Sub):
        return left
    return None


def entry_transformed(stmt: ast.AST) -> bool:
    """`c[k] = c[k][:, None].expand(n, d)`, `c[k] = f(c[k])`: one entry replaced by a value
    computed from that entry itself (not added to: `entry_accumulation`). The container keeps
    as many entries as before."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Subscript)) \
            or isinstance(stmt.targets[0].slice, ast.Slice):
        return False
    target = stmt.targets[0]
    container, key = ast.dump(target.value), ast.dump(target.slice)
    return any(isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load) and ast.dump(n.value) == container
               and ast.dump(n.slice) == key for n in walk(stmt.value))


def is_full_slice(target: ast.AST) -> bool:
    """`x[:]` (as in `del x[:]`, which empties a list)."""
    return isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice) and \
        target.slice.lower is None and target.slice.upper is None and target.slice.step is None


def empties(stmt: ast.AST) -> Optional[ast.AST]:
    """The container a statement empties in place (`del x[:]`, `x.clear()`), or None."""
    if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1 and is_full_slice(stmt.targets[0]):
        return stmt.targets[0].value
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
            and stmt.value.func.attr == "clear" and not stmt.value.args:
        return stmt.value.func.value
    return None


_READING_BUILTINS = frozenset({"len", "isinstance", "print", "str", "repr", "bool", "type", "id", "hasattr", "getattr"})
_MUTATING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "__setitem__",
                               "copy_", "add_", "mul_", "sub_", "div_", "fill_", "zero_"})


def passed_through_positions(func: ast.AST) -> Tuple[int, dict]:
    """(the width of the tuple every `return` of `func` gives, {position: parameter} for its
    items that every `return` hands back as the caller passed them): `return loss,
    scalars_to_log` of a logging dict the function neither rebinds nor changes gives what the
    caller passed there. (0, {}) when the returns are not tuples of one width."""
    returns = [n for n in nodes_within(func) if isinstance(n, ast.Return)]
    if not returns or any(not isinstance(r.value, ast.Tuple) for r in returns):
        return 0, {}
    width = len(returns[0].value.elts)
    if any(len(r.value.elts) != width or any(isinstance(e, ast.Starred) for e in r.value.elts) for r in returns):
        return 0, {}
    params = {a.arg for a in every_parameter(func)}
    out = {}
    for position in range(width):
        names = {r.value.elts[position].id if isinstance(r.value.elts[position], ast.Name) else None for r in returns}
        if len(names) == 1 and None not in names and names <= params and _untouched(func, next(iter(names))):
            out[position] = next(iter(names))
    return (width, out) if out else (0, {})


def argument_at(call: ast.Call, position: int, names: List[str]) -> Optional[ast.expr]:
    """The argument a call passes for the parameter at `position` of `names` (the callee's
    parameters, after `self` for a method), by position or by keyword; None when a starred
    argument hides it or the call leaves it to its default."""
    name = names[position] if position < len(names) else None
    keyword = next((kw.value for kw in call.keywords if name is not None and kw.arg == name), None)
    if keyword is not None:
        return keyword
    if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:position + 1]):
        return call.args[position]
    return None


def summary_parameters(summary: dict) -> List[str]:
    """The parameters of a summarized function a call binds (after `self` for a method)."""
    params = summary.get("params") or []
    return params[1:] if summary.get("self") else params


# The line that opens each cell of a notebook's virtual module (torchleaklint.notebook).
CELL_MARKER_PREFIX = "# %% [torchleaklint cell "


def ends_a_notebook_cell(tree: ast.Module, lines: List[str], stmt: ast.AST) -> bool:
    """In a notebook's virtual module, is `stmt` an expression statement that ends its cell,
    not silenced by a trailing `;`? Jupyter displays its value and keeps it in `Out[n]`."""
    if not isinstance(stmt, ast.Expr) or not lines or not lines[0].startswith(CELL_MARKER_PREFIX) \
            or stmt not in tree.body:
        return False
    last = lines[stmt.end_lineno - 1][stmt.end_col_offset:].split("#", 1)[0].strip()
    if last.startswith(";"):
        return False
    index = tree.body.index(stmt)
    stop = tree.body[index + 1].lineno - 1 if index + 1 < len(tree.body) else len(lines)
    return index + 1 == len(tree.body) or any(
        line.startswith(CELL_MARKER_PREFIX) for line in lines[stmt.end_lineno:stop])


_ARITHMETIC_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div)


def arithmetic_parameters(func: ast.AST) -> Optional[List[str]]:
    """The parameters whose values the `return`s of `func` combine by arithmetic alone
    (`return beta * prev + (1 - beta) * new`: prev, new and beta; `if prev is None: return
    new` beside it), none of them rebound on the way; None when a `return` gives anything
    else. The result then references every tensor passed there, graph and all."""
    returns = [n for n in nodes_within(func) if isinstance(n, ast.Return)]
    if not returns or any(r.value is None for r in returns):
        return None
    params = {a.arg for a in every_parameter(func)}
    read: List[str] = []
    for node in (n for r in returns for n in walk(r.value)):
        if isinstance(node, ast.Name):
            if node.id not in params:
                return None
            if node.id not in read:
                read.append(node.id)
        elif not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Constant, ast.Load, ast.operator, ast.unaryop)):
            return None
        elif isinstance(node, ast.BinOp) and not isinstance(node.op, _ARITHMETIC_OPS):
            return None
    if not read or any(not _never_rebound(func, name) for name in read):
        return None
    return read


def arithmetic_positions(func: ast.AST, skip_self: bool = False) -> Optional[List[int]]:
    """The positions (after `self` with `skip_self`) of the positional parameters that
    `arithmetic_parameters` finds, None when there are none."""
    names = arithmetic_parameters(func)
    if not names:
        return None
    positional = [a.arg for a in positional_parameters(func)[1 if skip_self else 0:]]
    return sorted(positional.index(n) for n in names if n in positional) or None


def _never_rebound(func: ast.AST, name: str) -> bool:
    return not any(isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
                   or isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names for node in walk(func))


def returned_parameter(func: ast.AST) -> Optional[str]:
    """The parameter every `return` of `func` hands back, never rebound on the way (its
    entries may change: `space["ref"] = ray.put(x); return space` gives the caller's dict
    back); None otherwise."""
    returns = [n for n in nodes_within(func) if isinstance(n, ast.Return)]
    names = {r.value.id if isinstance(r.value, ast.Name) else None for r in returns}
    if len(names) != 1 or None in names:
        return None
    name = next(iter(names))
    if name not in {a.arg for a in every_parameter(func)}:
        return None
    return name if _never_rebound(func, name) else None


def _untouched(func: ast.AST, name: str) -> bool:
    """Is parameter `name` never rebound, stored into, changed by a method or handed to a call
    (which may change it) in `func`, nested functions included?"""
    for node in walk(func):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _READING_BUILTINS) \
                and any(isinstance(a, ast.Name) and a.id == name for a in list(node.args) + [k.value for k in node.keywords]):
            return False
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load) \
                and isinstance(node.value, ast.Name) and node.value.id == name:
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATING_METHODS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            return False
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
    return True


def unreachable_lines(tree: ast.AST, blocks=None) -> set:
    """The lines of statements that can never run: those after a `return`, `raise`,
    `continue`, `break` or an assertion that always fails (`assert False`, `assert 1 == 2`) in
    the same block. `blocks`: the nodes that may hold statement blocks, when an index of the
    tree already has them (every node of the tree otherwise)."""
    out = set()
    for node in (blocks if blocks is not None else walk(tree)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for index, stmt in enumerate(block):
                if _ends_the_block(stmt):
                    for dead in block[index + 1:]:
                        out.update(range(dead.lineno, (dead.end_lineno or dead.lineno) + 1))
                    break
    return out


def _ends_the_block(stmt: ast.AST) -> bool:
    if isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return True
    return isinstance(stmt, ast.Assert) and _always_false(stmt.test)


def _always_false(test: ast.AST) -> bool:
    """`False`, `0`, `None`, or a comparison of two literals that does not hold (`1 == 2`)."""
    if isinstance(test, ast.Constant):
        return not test.value and not isinstance(test.value, str) or test.value == ""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Constant) \
            and isinstance(test.comparators[0], ast.Constant):
        left, right = test.left.value, test.comparators[0].value
        if type(left) is not type(right) or not isinstance(left, (int, float, str)):
            return False
        checks = {ast.Eq: left == right, ast.NotEq: left != right}
        op = type(test.ops[0])
        return op in checks and not checks[op]
    return False


def bound_once_in_init(info, attr: str) -> Optional[ast.expr]:
    """What the class's `__init__` binds to `self.<attr>`, when that plain assignment is the
    attribute's only store in any method of the class."""
    stores = []
    for other in info.methods.values():
        receiver = other.args.args[0].arg if other.args.args else None
        for node in walk(other):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    elts = target.elts if isinstance(target, ast.Tuple) else [target]
                    for i, elt in enumerate(elts):
                        if isinstance(elt, ast.Attribute) and elt.attr == attr and isinstance(elt.value, ast.Name) \
                                and elt.value.id == receiver:
                            value = node.value
                            if isinstance(target, ast.Tuple):
                                value = value.elts[i] if isinstance(value, ast.Tuple) and len(value.elts) == len(elts) \
                                    else None
                            stores.append((other, node, value))
    if len(stores) != 1:
        return None
    other, node, value = stores[0]
    return value if other.name == "__init__" and isinstance(node, ast.Assign) else None


def required_positional_count(func) -> int:
    """How many positional parameters of `func` (after `self` of a method, which the caller
    gives implicitly) have no default."""
    params = list(func.args.posonlyargs) + list(func.args.args)
    return max(0, len(params) - len(func.args.defaults))


def leaves_a_required_argument(call: ast.Call, params: List[str], required: int) -> bool:
    """Does `call` bind none of the first `required` of `params` (positional, after any
    `self`) by position or keyword? Such a call raises TypeError before the function runs: what
    it would return proves nothing. A call spreading `*args`/`**kwargs` may bind any."""
    if unpacks_arguments(call):
        return False
    bound = set(params[:len(call.args)]) | {kw.arg for kw in call.keywords}
    return any(name not in bound for name in params[:required])
