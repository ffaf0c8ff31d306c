"""Build FixSpecs from `# fix: CODE key=value` comments in a fix case, the way the rules
will, so codemods can be tested without the rules."""

from __future__ import annotations

import ast
import re
from typing import Dict, List

from torchleaklint.diagnostics import SAFE, UNSAFE, FixSpec, Span

MARKER = re.compile(r"#\s*fix:\s*(TLL\d{3})((?:\s+\w+=\S+)*)")
CODEMOD = {"TLL001": ("append_method", SAFE), "TLL003": ("append_method", SAFE),
           "TLL004": ("delete_statement", SAFE), "TLL006": ("add_no_grad_decorator", SAFE),
           "TLL002": ("detach_stored_state", UNSAFE), "TLL008": ("insert_detach", UNSAFE),
           "TLL005": ("move_to_with_parameters", UNSAFE)}


def specs_from_markers(source: str) -> List[FixSpec]:
    tree = ast.parse(source)
    specs = []
    for lineno, line in enumerate(source.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            code = match.group(1)
            params = dict(p.split("=", 1) for p in match.group(2).split())
            specs.append(build(tree, lineno, code, params))
    return specs


def _spans(node) -> tuple:
    return (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def _on_line(tree, lineno, types):
    return [n for n in ast.walk(tree) if isinstance(n, types) and n.lineno == lineno]


def build(tree, lineno: int, code: str, params: Dict[str, str]) -> FixSpec:
    codemod, safety = CODEMOD[code]
    if code == "TLL001":
        value = _on_line(tree, lineno, ast.AugAssign)[0].value
        return FixSpec(codemod, safety, "t", Span.of(value),
                       (("method", params["method"]), ("targets", (_spans(value),))))
    if code == "TLL003":
        value = _on_line(tree, lineno, ast.Call)[0].args[0]
        if "item" in params:  # the item of a stored literal: `{"event": loss}`
            value = next(n for n in ast.walk(value) if isinstance(n, ast.Name) and n.id == params["item"])
        return FixSpec(codemod, safety, "t", Span.of(value), (("method", params["method"]),))
    if code == "TLL004":
        return FixSpec(codemod, safety, "t", Span.of(_on_line(tree, lineno, ast.Expr)[0]))
    if code == "TLL006" and not _on_line(tree, lineno, ast.FunctionDef):
        return _region_spec(tree, lineno, params.get("torch_alias"))
    if code == "TLL006":
        func = _on_line(tree, lineno, ast.FunctionDef)[0]
        return FixSpec(codemod, safety, "t", Span.of(func), (("torch_alias", params.get("torch_alias")),))
    if code == "TLL002":
        stmt = _on_line(tree, lineno, (ast.Assign, ast.AugAssign))[0]
        return FixSpec(codemod, safety, "t", Span.of(stmt), (("attribute", params["attribute"]),))
    if code == "TLL008":
        loop = _on_line(tree, lineno, (ast.For, ast.While))[0]
        return FixSpec(codemod, safety, "t", Span.of(loop),
                       (("name", params["name"]), ("tuple_size", int(params.get("tuple_size", 0)))))
    if code == "TLL005":
        return _tune_spec(tree, lineno, params["key"])
    raise ValueError(code)


def _tune_spec(tree, lineno, key) -> FixSpec:
    entry = next((k, v) for d in ast.walk(tree) if isinstance(d, ast.Dict)
                 for k, v in zip(d.keys, d.values) if k is not None and k.lineno == lineno)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute) and n.func.attr in ("run", "Tuner"))
    target = Span(entry[0].lineno, entry[0].col_offset, entry[1].end_lineno, entry[1].end_col_offset)
    return FixSpec("move_to_with_parameters", UNSAFE, "t", target,
                   (("key", key), ("call", _spans(call)), ("trainable", _spans(call.args[0])),
                    ("tune_alias", "tune")))


def _region_spec(tree, lineno, alias) -> FixSpec:
    """`with no_grad():` around the statements after the `.eval()` statement on the marked
    line, up to its block's `.train()` statement or end."""
    owner = next(n for n in ast.walk(tree) for f in ("body", "orelse")
                 if any(s.lineno == lineno and isinstance(s, ast.Expr) for s in getattr(n, f, []) or []))
    block = next(b for b in (owner.body, getattr(owner, "orelse", [])) if any(s.lineno == lineno for s in b))
    index = next(i for i, s in enumerate(block) if s.lineno == lineno)
    region = []
    for stmt in block[index + 1:]:
        if isinstance(stmt, ast.Expr) and ast.unparse(stmt).endswith(".train()"):
            break
        region.append(stmt)
    return FixSpec("wrap_in_no_grad", SAFE, "t", Span.of(block[index]),
                   (("torch_alias", alias), ("first", _spans(region[0])), ("last", _spans(region[-1]))))
