"""Output formats: one module per format, each a `render(diagnostics, context) -> str`."""

from __future__ import annotations

import importlib
from typing import Callable

FORMATS = ("concise", "full", "json", "sarif", "github", "grouped")


def renderer(name: str) -> Callable:
    module = importlib.import_module(f"torchleaklint.output.{name}_format")
    return module.render
