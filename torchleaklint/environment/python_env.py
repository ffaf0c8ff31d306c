"""Python that sets an environment variable: `os.environ[NAME] = v`, `os.environ.setdefault(NAME, v)`,
`os.putenv(NAME, v)`, `os.environ.update({NAME: v})` / `update(NAME=v)`, and environment
dicts for child processes (`{**os.environ, NAME: v}`, `env_vars={NAME: v}`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterator, Optional, Sequence

_SETTERS = ("os.environ.setdefault", "os.putenv")


@dataclass(frozen=True)
class EnvSetting:
    name: str
    value: Optional[ast.AST]  # the value expression
    node: ast.AST  # what to report: the assignment target or the call
    process: bool  # sets this process's environment (not a dict for a child process)


def settings(model, names: Sequence[str]) -> Iterator[EnvSetting]:
    for node in model.nodes(ast.Assign):
        for target in node.targets:
            if isinstance(target, ast.Subscript) and _is_environ(model, target.value):
                name = _constant_str(target.slice)
                if name in names:
                    yield EnvSetting(name, node.value, target, True)
    for call in model.calls:
        qualname = model.qualname(call.func)
        if qualname in _SETTERS and len(call.args) >= 2:
            name = _constant_str(call.args[0])
            if name in names:
                yield EnvSetting(name, call.args[1], call, True)
        elif qualname == "os.environ.update":
            for keyword in call.keywords:
                if keyword.arg in names:
                    yield EnvSetting(keyword.arg, keyword.value, call, True)
            for arg in call.args:
                if isinstance(arg, ast.Dict):
                    for key, value in zip(arg.keys, arg.values):
                        if _constant_str(key) in names:
                            yield EnvSetting(_constant_str(key), value, call, True)
    updated = {id(a) for c in model.calls if model.qualname(c.func) == "os.environ.update" for a in c.args}
    for node in model.nodes(ast.Dict):
        if id(node) in updated:
            continue
        for key, value in zip(node.keys, node.values):
            if _constant_str(key) in names:
                yield EnvSetting(_constant_str(key), value, key, False)


def overwritten_at_once(model, setting: EnvSetting) -> bool:
    """`os.environ[NAME] = a` followed, in the same block, by `os.environ[NAME] = b` with only
    other environment assignments in between: nothing can read `a` (the process's own
    environment; a child's dict is another matter)."""
    if not setting.process or not isinstance(setting.node, ast.Subscript):
        return False
    stmt = model.parent(setting.node)
    block = _block_of(model, stmt)
    if block is None:
        return False
    for later in block[block.index(stmt) + 1:]:
        if not (isinstance(later, ast.Assign) and len(later.targets) == 1
                and isinstance(later.targets[0], ast.Subscript) and _is_environ(model, later.targets[0].value)):
            return False
        if _constant_str(later.targets[0].slice) == setting.name:
            return True
    return False


def _block_of(model, stmt: ast.AST) -> Optional[list]:
    parent = model.parent(stmt)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None) if parent is not None else None
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    if parent is None and any(s is stmt for s in model.tree.body):
        return model.tree.body
    return None


def _is_environ(model, expr: ast.AST) -> bool:
    return model.qualname(expr) == "os.environ"


def _constant_str(node) -> Optional[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def constant_str(node) -> Optional[str]:
    return _constant_str(node)
