"""One module per codemod, `<name>.py` with `apply(module, specs) -> module`, where the
name is the `FixSpec.codemod` rules emit. The registry discovers them."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable, Dict

_registry: Dict[str, Callable] = {}


def codemods() -> Dict[str, Callable]:
    """`apply` function of every codemod, by name."""
    if not _registry:
        for info in pkgutil.iter_modules(__path__):
            if not info.name.startswith("_"):
                module = importlib.import_module(f"{__name__}.{info.name}")
                _registry[info.name] = module.apply
    return dict(_registry)


def codemod(name: str):
    return codemods().get(name)
