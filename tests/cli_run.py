"""Run the real command line (and flake8) in a subprocess against this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

LEAKY = '''\
import torch
import torch.nn.functional as F


def train(model, loader, optimizer):
    total_loss = 0
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss
    return total_loss
'''
LEAKY_LINE, LEAKY_COL = 12, 9

CLEAN = '''\
import torch


def evaluate(model, x):
    with torch.no_grad():
        return model(x).sum().item()
'''


def fixes_function(name: str):
    """`torchleaklint.fixes.<name>` when the fix machinery is in this branch, else None."""
    try:
        import torchleaklint.fixes as fixes
    except ImportError:
        return None
    # The shared editable install can make another checkout's half-written package
    # importable; only this checkout's own fixes package counts.
    location = getattr(fixes, "__file__", None)
    if location is None or REPO not in Path(location).resolve().parents:
        return None
    return getattr(fixes, name, None)


def env() -> dict:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(REPO) + os.pathsep + environment.get("PYTHONPATH", "")
    return environment


def run(args, cwd, stdin: str = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchleaklint", *map(str, args)], cwd=cwd, env=env(),
                          input=stdin, capture_output=True, text=True, timeout=300)


def run_flake8(args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8", *map(str, args)], cwd=cwd, env=env(),
                          capture_output=True, text=True, timeout=300)
