"""`move_to_with_parameters` (TLL005): take a large object out of a Tune config and pass it
through `tune.with_parameters`.

target: the dict entry (`"data": df`), keyword (`dict(data=df)`) or `cfg["data"] = df`
statement; params: `key`, `call` (span of the `tune.run` / `Tuner(...)` call), `trainable`
(span of its trainable argument), `tune_alias` (how the module spells `ray.tune`).

The fix is complete or not made:
1. the entry leaves the config;
2. the trainable becomes `tune.with_parameters(train_fn, data=df)` (or gains `data=df` if
   it already is a `with_parameters` call);
3. `train_fn`, a function of the same module, gains a keyword-only parameter `data`, and
   its `config["data"]` / `config.get("data")` reads become `data`.
No fix when any step is uncertain: the key is not an identifier, the trainable is not a
function defined in the module (a class Trainable, an import), the function passes its
config on to other code (which may read the key), or the value would be evaluated at a
different point (an entry built away from the call is moved only when it is a plain
name). Unsafe: the object now reaches the trainable through Ray's object store, once,
instead of inside every trial's config; code elsewhere that reads it from `config` would
need the same change.
"""

from __future__ import annotations

import ast
import keyword
from typing import Dict, List, Optional, Sequence

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
    return module.visit(_Rewrite(plan))


class _Plan:
    def __init__(self):
        self.entries = set()          # DictElement / Arg nodes to drop
        self.statements = set()       # `cfg[k] = v` statements to drop
        self.keywords: Dict[cst.CSTNode, List[cst.Arg]] = {}   # trainable -> new keywords
        self.alias: Dict[cst.CSTNode, str] = {}
        self.functions: Dict[cst.FunctionDef, List[str]] = {}  # trainable def -> new params
        self.config_reads: Dict[cst.CSTNode, str] = {}         # config["k"] -> k


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
    if not inline and not (isinstance(value, cst.Name) and _before(locator, entry, call)):
        return
    wrapped = _with_parameters_target(trainable)
    function_name = (wrapped if wrapped is not None else trainable)
    if not isinstance(function_name, cst.Name) or (wrapped is None and not _is_identifier_path(alias)):
        return
    func = _module_function(module, function_name.value)
    uses = _config_reads(func, key) if func is not None else None
    if uses is None or key in _param_names(func) or key in plan.functions.get(func, []):
        return
    reads, copies = uses
    plan.functions.setdefault(func, []).append(key)
    plan.config_reads.update({read: key for read in reads})
    plan.statements.update(copies)
    (plan.statements if isinstance(entry, cst.Assign) else plan.entries).add(entry)
    plan.keywords.setdefault(trainable, []).append(
        cst.Arg(keyword=cst.Name(key), value=value, equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))))
    if wrapped is None:
        plan.alias[trainable] = alias


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


def _module_function(module: cst.Module, name: str) -> Optional[cst.FunctionDef]:
    found = [s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return found[-1] if len(found) == 1 and found[-1].asynchronous is None else None


def _param_names(func: cst.FunctionDef) -> List[str]:
    p = func.params
    names = [x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)]
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            names.append(star.name.value)
    return names


def _config_reads(func: cst.FunctionDef, key: str) -> Optional[List[cst.CSTNode]]:
    """`config["key"]` and `config.get("key")` in the trainable (config = its first
    parameter), or None when config is used in a way that could read the key elsewhere."""
    params = [*func.params.posonly_params, *func.params.params]
    if not params:
        return None
    finder = _ConfigUses(params[0].name.value, key)
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
        call = cst.parse_expression(f"{alias}.with_parameters()")
        first = cst.Arg(value=updated, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return call.with_changes(args=[first, *_commas(keywords)])

    def leave_FunctionDef(self, original, updated):
        keys = self.plan.functions.get(original)
        if not keys:
            return updated
        params = updated.params
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
