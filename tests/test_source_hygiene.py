"""The linter's own source: a name used but never bound is a crash waiting for the one input
that reaches it (a `keyword_arg` left after an import was renamed to `_kw` turned every file
with `torch.autograd.grad(..., inputs=...)` in a loop into a TLL901 internal error). Real
ruff, over the package as shipped."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "torchleaklint"


def test_no_undefined_names_in_the_package():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (it is in the `test` extra)")
    # F821 undefined name, F822 undefined name in __all__, F823 local used before assignment
    result = subprocess.run([ruff, "check", "--isolated", "--no-cache", "--select", "F821,F822,F823",
                             "--output-format", "concise", str(PACKAGE)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
