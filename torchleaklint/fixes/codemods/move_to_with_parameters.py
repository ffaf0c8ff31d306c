"""`move_to_with_parameters` (TLL005): take a large object out of a Tune config and pass it
through `tune.with_parameters`.

target: the dict entry (`"data": df`), keyword (`dict(data=df)`, `cfg.update(data=df)`) or
`cfg["data"] = df` statement; params: `key`, `call` (span of the `tune.run` / `Tuner(...)`
call), `trainable` (span of its trainable argument), `tune_alias` (how the module spells
`ray.tune`), `with_parameters` (the local name of `ray.tune.with_parameters` when the
module imports it by name).

The fix is complete or not made:
1. the entry leaves the config: an entry written inside the call is moved as is; one
   stored before the call by `cfg["data"] = expr` / `cfg.update(data=expr)` becomes
   `data = expr` in place (evaluated where it was), when that statement always runs
   before the call (same block or an enclosing one) and the name is free in that scope;
   a plain name entry built earlier is moved as that name;
2. the trainable becomes `tune.with_parameters(train_fn, data=df)` (inside a
   `with_resources(...)` wrapper, or gaining `data=df` if it already is a
   `with_parameters` call); without a `ray.tune` alias in the module, `from ray import
   tune` is added (unless the name `tune` is taken);
3. `train_fn`, a function of the same module, gains a keyword-only parameter `data`, and
   its `config["data"]` / `config.get("data")` reads become `data`; a `tune.Trainable`
   subclass of the module gets it in `setup(self, config, *, data=None)` instead (Ray
   passes with_parameters' keywords to `setup`), provided no other part of the class
   mentions the key (`self.config["data"]` in `step`, `reset_config`).
No fix when any step is uncertain: the key is not an identifier, the trainable is not a
function or Trainable class defined in the module, the function passes its config on to
other code (which may read the key), or the value would be evaluated at a different point.
Unsafe: the object now reaches the trainable through Ray's object store, once, instead of
inside every trial's config; code elsewhere that reads it from `config` would need the
same change.
"""

from __future__ import annotations

import ast
import keyword
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from torchleaklint.diagnostics import FixSpec
from torchleaklint.fixes.edit import StatementRemover
from torchleaklint.fixes.locate import Locator


def apply(module: cst.Module, specs: Sequence[FixSpec]) -> cst.Module:
    locator = Locator(module)
    plan = _Plan()
    for spec in specs:
        _add(plan, module, locator, spec)
    if not plan.keywords:
        return module
    module = module.visit(_Rewrite(plan))
    return _add_tune_import(module) if plan.import_tune else module


class _Plan:
    def __init__(self):
        self.entries = set()          # DictElement / Arg nodes to drop
        self.statements = set()       # `cfg[k] = v` statements to drop
        self.keywords: Dict[cst.CSTNode, List[cst.Arg]] = {}   # trainable -> new keywords
        self.alias: Dict[cst.CSTNode, str] = {}
        self.functions: Dict[cst.FunctionDef, List[str]] = {}  # trainable def -> new params
        self.config_reads: Dict[cst.CSTNode, str] = {}         # config["k"] -> k
        self.hoisted: Dict[cst.CSTNode, tuple] = {}             # cfg["k"] = v -> k = v
        self.methods = set()                                    # Trainable.setup methods
        self.import_tune = False                                # add `from ray import tune`


def _add(plan: _Plan, module, locator: Locator, spec: FixSpec) -> None:
    key, alias = spec.param("key"), spec.param("tune_alias")
    if not isinstance(key, str) or not key.isidentifier() or keyword.iskeyword(key):
        return
    entry = locator.find(spec.target, (cst.DictElement, cst.Arg, cst.Assign))
    value = _entry_value(entry, key)
    call = locator.find(spec.param("call"), cst.Call, exact=True) if spec.param("call") else None
    trainable = locator.find(spec.param("trainable"), cst.BaseExpression, exact=True) \
        if spec.param("trainable") else None
    if value is None or call is None or trainable is None or locator.parent(trainable) not in call.args:
        return
    inline = any(a is call for a in locator.ancestors(entry))
    hoist = not inline and not isinstance(value, cst.Name) and _hoistable(locator, entry, call, key)
    if not inline and not hoist and not (isinstance(value, cst.Name) and _before(locator, entry, call)):
        return
    target = _without_resources(trainable)
    wrapped = _with_parameters_target(target)
    function_name = (wrapped if wrapped is not None else target)
    callee, needs_import = _with_parameters_callee(module, alias, spec.param("with_parameters"))
    if not isinstance(function_name, cst.Name) or (wrapped is None and callee is None):
        return
    func, config_index = _trainable_function(module, function_name.value, key)
    uses = _config_reads(func, key, config_index) if func is not None else None
    if uses is None or key in _param_names(func) or key in plan.functions.get(func, []):
        return
    reads, copies = uses
    plan.functions.setdefault(func, []).append(key)
    if config_index:
        plan.methods.add(func)
    plan.config_reads.update({read: key for read in reads})
    plan.statements.update(copies)
    if hoist:
        plan.hoisted[_hoist_statement(locator, entry)] = (key, value)  # `k = v`, evaluated where it was
        value = cst.Name(key)
    else:
        (plan.statements if isinstance(entry, cst.Assign) else plan.entries).add(entry)
    plan.keywords.setdefault(target, []).append(
        cst.Arg(keyword=cst.Name(key), value=value, equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
    if wrapped is None:
        plan.alias[target] = callee
        plan.import_tune = plan.import_tune or needs_import


def _with_parameters_callee(module: cst.Module, alias, imported) -> Tuple[Optional[str], bool]:
    """How to spell `ray.tune.with_parameters`, and whether that needs an import: through
    the module's name for `ray.tune`, the name it imported `with_parameters` under, or
    `tune.with_parameters` after adding `from ray import tune` (only when the module uses
    no name `tune`)."""
    if _is_identifier_path(alias):
        return f"{alias}.with_parameters", False
    if isinstance(imported, str) and imported.isidentifier():
        return imported, False
    if "tune" in _names_in(module):
        return None, False
    return "tune.with_parameters", True


def _add_tune_import(module: cst.Module) -> cst.Module:
    """`from ray import tune` after the last top-level import."""
    body = list(module.body)
    last = max((i for i, stmt in enumerate(body) if isinstance(stmt, cst.SimpleStatementLine)
                and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)), default=-1)
    new = cst.parse_statement("from ray import tune\n", config=module.config_for_parsing)
    return module.with_changes(body=[*body[:last + 1], new, *body[last + 1:]])


def _without_resources(trainable):
    """`tune.with_resources(fn, {...})` -> `fn` (with_parameters goes inside it)."""
    while isinstance(trainable, cst.Call) and trainable.args and _called_name(trainable) == "with_resources":
        trainable = trainable.args[0].value
    return trainable


def _called_name(call: cst.Call) -> Optional[str]:
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)


def _hoistable(locator: Locator, entry, call, key: str) -> bool:
    """`cfg["k"] = <expr>` (or `cfg.update(k=<expr>)`) in a block that (directly or further
    out) holds the tune call, before it, in a function (or module) where the name `k` is
    not used: the statement can become `k = <expr>` and the call can take `k=k`."""
    statement = _hoist_statement(locator, entry)
    if statement is None:
        return False
    line = locator.parent(statement)
    block = locator.parent(line)
    if not isinstance(line, cst.SimpleStatementLine) or not isinstance(block, (cst.IndentedBlock, cst.Module)):
        return False
    holder = next((a for a in locator.ancestors(call) if locator.parent(a) is block), None)
    body = list(block.body)
    if holder is None or not any(s is line for s in body[:next(i for i, s in enumerate(body) if s is holder)]):
        return False
    scope = locator.enclosing(entry, cst.FunctionDef) or locator.module
    return key not in _names_in(scope)


def _hoist_statement(locator: Locator, entry):
    """The statement that stores the entry: the `cfg["k"] = v` assignment, or the
    expression statement `cfg.update(k=v)` when that is its only argument."""
    if isinstance(entry, cst.Assign):
        return entry
    call = locator.parent(entry)
    statement = locator.parent(call)
    if isinstance(entry, cst.Arg) and isinstance(call, cst.Call) and len(call.args) == 1 and \
            _called_name(call) == "update" and isinstance(call.func, cst.Attribute) and \
            isinstance(statement, cst.Expr) and statement.value is call:
        return statement
    return None


def _names_in(node) -> set:
    finder = _Names()
    node.visit(finder)
    return finder.names


class _Names(cst.CSTVisitor):
    """Variable names (not attribute names or keyword argument names)."""

    def __init__(self):
        super().__init__()
        self.names = set()

    def visit_Name(self, node):
        self.names.add(node.value)

    def visit_Attribute(self, node):
        node.value.visit(self)
        return False

    def visit_Arg(self, node):
        node.value.visit(self)
        return False


def _entry_value(entry, key: str) -> Optional[cst.BaseExpression]:
    if isinstance(entry, cst.DictElement) and _string_value(entry.key) == key:
        return entry.value
    if isinstance(entry, cst.Arg) and entry.keyword is not None and entry.keyword.value == key:
        return entry.value
    if isinstance(entry, cst.Assign) and len(entry.targets) == 1:
        target = entry.targets[0].target
        if isinstance(target, cst.Subscript) and len(target.slice) == 1 and \
                isinstance(target.slice[0].slice, cst.Index) and \
                _string_value(target.slice[0].slice.value) == key:
            return entry.value
    return None


def _string_value(node) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        try:
            value = ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return None
        return value if isinstance(value, str) else None
    return None


def _before(locator: Locator, entry, call) -> bool:
    end, start = locator.positions[entry].end, locator.positions[call].start
    return (end.line, end.column) <= (start.line, start.column)


def _is_identifier_path(alias) -> bool:
    return isinstance(alias, str) and all(part.isidentifier() for part in alias.split("."))


def _with_parameters_target(trainable) -> Optional[cst.BaseExpression]:
    """`tune.with_parameters(fn, ...)` -> `fn`; None for anything else."""
    if not isinstance(trainable, cst.Call) or not trainable.args:
        return None
    func = trainable.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    return trainable.args[0].value if name == "with_parameters" else None


def _trainable_function(module: cst.Module, name: str, key: str):
    """(the function that receives the trainable's keywords, index of its config
    parameter): a module function `name`, or the `setup` method of a module class `name`
    (a `tune.Trainable`: with_parameters passes the keywords to `setup`). None for a class
    that mentions the key anywhere else (`self.config["k"]` in `step`, `reset_config`)."""
    found = [s for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef)) and s.name.value == name]
    if len(found) != 1:
        return None, 0
    definition = found[0]
    if isinstance(definition, cst.FunctionDef):
        return (definition, 0) if definition.asynchronous is None else (None, 0)
    methods = [s for s in definition.body.body if isinstance(s, cst.FunctionDef)]
    setups = [m for m in methods if m.name.value == "setup"]
    if len(setups) != 1 or setups[0].asynchronous is not None or setups[0].decorators:
        return None, 0
    others = [s for s in definition.body.body if s is not setups[0]]
    if any(_mentions_key(s, key) for s in others):
        return None, 0
    return setups[0], 1


def _mentions_key(node, key: str) -> bool:
    finder = _KeyStrings(key)
    node.visit(finder)
    return finder.found


class _KeyStrings(cst.CSTVisitor):
    def __init__(self, key: str):
        super().__init__()
        self.key, self.found = key, False

    def visit_SimpleString(self, node):
        self.found = self.found or _string_value(node) == self.key


def _param_names(func: cst.FunctionDef) -> List[str]:
    p = func.params
    names = [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            names.append(star.name.value)
    return names


def _config_reads(func: cst.FunctionDef, key: str, index: int = 0) -> Optional[List[cst.CSTNode]]:
    """`config["key"]` and `config.get("key")` in the trainable (config = its parameter
    number `index`), or None when config is used in a way that could read the key elsewhere."""
    params = [*func.params.posonly_params, *func.params.params]
    if len(params) <= index:
        return None
    finder = _ConfigUses(params[index].name.value, key)
    func.body.visit(finder)
    return None if finder.escapes else (finder.reads, finder.copies)


class _ConfigUses(cst.CSTVisitor):
    def __init__(self, config: str, key: str):
        super().__init__()
        self.config, self.key = config, key
        self.reads: List[cst.CSTNode] = []
        self.copies: List[cst.Assign] = []  # `data = config["data"]`: redundant once `data` is a parameter
        self.accounted = set()
        self.escapes = False

    def visit_Subscript(self, node):
        if self._is_config(node.value) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            self.accounted.add(node.value)
            if _string_value(node.slice[0].slice.value) == self.key:
                self.reads.append(node)
            elif _string_value(node.slice[0].slice.value) is None:
                self.escapes = True  # config[variable] might be our key

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, cst.Attribute) and self._is_config(func.value) and func.attr.value == "get" \
                and node.args and node.args[0].keyword is None:
            self.accounted.add(func.value)
            first = _string_value(node.args[0].value)
            if first == self.key:
                self.reads.append(node)
            elif first is None:
                self.escapes = True

    def leave_Assign(self, node):
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) \
                and node.targets[0].target.value == self.key and node.value in self.reads:
            self.copies.append(node)

    def visit_AssignTarget(self, node):
        if self._is_config(node.target):
            self.escapes = True

    def visit_Name(self, node):
        if node.value == self.config and node not in self.accounted:
            self.escapes = True

    def _is_config(self, node) -> bool:
        return isinstance(node, cst.Name) and node.value == self.config


class _Rewrite(StatementRemover):
    def __init__(self, plan: _Plan):
        super().__init__(plan.statements)
        self.plan = plan

    def leave_Dict(self, original, updated):
        elements = _without(original.elements, updated.elements, self.plan.entries)
        if len(elements) == len(updated.elements):
            return updated
        if original.elements[-1] in self.plan.entries:  # its end-of-line comment sits before `}`
            updated = updated.with_changes(rbrace=updated.rbrace.with_changes(
                whitespace_before=_strip_comment(updated.rbrace.whitespace_before)))
        return updated.with_changes(elements=elements)

    def leave_Call(self, original, updated):
        args = _without(original.args, updated.args, self.plan.entries)
        if len(args) != len(updated.args):
            updated = updated.with_changes(args=args)
        if original in self.plan.config_reads:
            return cst.Name(self.plan.config_reads[original])
        return self._trainable(original, updated)

    def leave_Assign(self, original, updated):
        if original not in self.plan.hoisted:
            return updated
        target = updated.targets[0]
        return updated.with_changes(targets=[target.with_changes(target=cst.Name(self.plan.hoisted[original][0]))])

    def leave_Expr(self, original, updated):
        if original not in self.plan.hoisted:
            return updated
        key, value = self.plan.hoisted[original]
        return cst.Assign(targets=[cst.AssignTarget(cst.Name(key))], value=value, semicolon=updated.semicolon)

    def leave_Subscript(self, original, updated):
        if original in self.plan.config_reads:
            return cst.Name(self.plan.config_reads[original])
        return updated

    def on_leave(self, original, updated):
        updated = super().on_leave(original, updated)
        if isinstance(original, cst.Call):
            return updated
        return self._trainable(original, updated)

    def _trainable(self, original, updated):
        keywords = self.plan.keywords.get(original)
        if not keywords:
            return updated
        alias = self.plan.alias.get(original)
        if alias is None:  # already `with_parameters(fn, ...)`
            args = list(updated.args)
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            return updated.with_changes(args=[*args, *keywords])
        call = cst.parse_expression(f"{alias}()")
        first = cst.Arg(value=updated, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return call.with_changes(args=[first, *_commas(keywords)])

    def leave_FunctionDef(self, original, updated):
        keys = self.plan.functions.get(original)
        if not keys:
            return updated
        params = updated.params
        if original in self.plan.methods:  # `setup(self, config, *, data=None)`, as Ray documents it
            equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
            new = [cst.Param(cst.Name(k), default=cst.Name("None"), equal=equal) for k in keys]
        else:
            new = [cst.Param(cst.Name(k)) for k in keys]
        star = cst.ParamStar() if isinstance(params.star_arg, cst.MaybeSentinel) else params.star_arg
        return updated.with_changes(params=params.with_changes(
            star_arg=star, kwonly_params=[*params.kwonly_params, *new]))


def _commas(args: List[cst.Arg]) -> List[cst.Arg]:
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [a.with_changes(comma=comma) for a in args[:-1]] + args[-1:]


def _without(originals, updated, drop):
    """`updated` minus the elements whose original is in `drop`. When the last element
    goes, the new last one takes its comma and layout (no `, }` left behind), minus the
    dropped entry's own trailing comment."""
    kept = [new for old, new in zip(originals, updated) if old not in drop]
    if len(kept) == len(updated):
        return list(updated)
    if kept and originals[-1] in drop:
        last = originals[-1]
        changes = {"comma": _strip_comment(last.comma)}
        if isinstance(last, cst.Arg):
            changes["whitespace_after_arg"] = _strip_comment(last.whitespace_after_arg)
        kept[-1] = kept[-1].with_changes(**changes)
    return kept


def _strip_comment(node):
    """A comma or whitespace without the end-of-line comment it carries."""
    if isinstance(node, cst.Comma):
        return node.with_changes(whitespace_before=_strip_comment(node.whitespace_before),
                                 whitespace_after=_strip_comment(node.whitespace_after))
    if isinstance(node, cst.ParenthesizedWhitespace):
        return node.with_changes(first_line=cst.TrailingWhitespace(newline=node.first_line.newline))
    return node
