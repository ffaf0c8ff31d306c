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


def _is_environ(model, expr: ast.AST) -> bool:
    return model.qualname(expr) == "os.environ"


def _constant_str(node) -> Optional[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def constant_str(node) -> Optional[str]:
    return _constant_str(node)
