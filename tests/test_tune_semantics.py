"""Ray Tune semantics (semantic/tune.py) and the fix TLL005 describes."""

from __future__ import annotations

import textwrap
import warnings

import pytest

from torchleaklint.config import Settings
from torchleaklint.engine import lint_source
from torchleaklint.semantic.tune import PARAMETER_FREE_NN_CLASSES


def _tll005(source):
    source = textwrap.dedent(source)
    return source.splitlines(), [d for d in lint_source(source, "sweep.py", Settings()) if d.code == "TLL005"]


def _text(lines, span):
    line, col, end_line, end_col = span
    if line == end_line:
        return lines[line - 1].encode()[col:end_col].decode()
    middle = [l for l in lines[line:end_line - 1]]
    return "\n".join([lines[line - 1].encode()[col:].decode()] + middle + [lines[end_line - 1].encode()[:end_col].decode()])


def _target(lines, fix):
    t = fix.target
    return _text(lines, (t.line, t.col, t.end_line, t.end_col))


def test_parameter_free_nn_classes_hold_no_parameters_or_buffers():
    nn = pytest.importorskip("torch.nn")
    checked = 0
    for name in sorted(PARAMETER_FREE_NN_CLASSES):
        cls = getattr(nn, name)
        instance = None
        for args in ((), (2,), (2, 2), (1, (2, 2))):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    instance = cls(*args)
                break
            except Exception:
                continue
        if instance is None:
            continue
        checked += 1
        assert not list(instance.parameters()) and not list(instance.buffers()), name
    assert checked > 0.9 * len(PARAMETER_FREE_NN_CLASSES)
    assert "Linear" not in PARAMETER_FREE_NN_CLASSES and "Sequential" not in PARAMETER_FREE_NN_CLASSES


def test_dict_entry_fix_spans_key_to_value_and_names_call_and_trainable():
    lines, found = _tll005("""
        import pandas as pd
        from ray import tune

        def train_fn(config):
            pass

        df = pd.read_csv("x.csv")
        tuner = tune.Tuner(
            tune.with_resources(train_fn, {"cpu": 2}),
            param_space={"lr": tune.loguniform(1e-4, 1e-1),
                         "data": df.dropna()},
        )
        """)
    assert [(d.line, d.col) for d in found] == [(12, 18)]
    fix = found[0].fix
    assert fix.codemod == "move_to_with_parameters" and fix.safety == "unsafe"
    assert _target(lines, fix) == '"data": df.dropna()'
    assert fix.param("key") == "data" and fix.param("tune_alias") == "tune"
    assert _text(lines, fix.param("trainable")) == 'tune.with_resources(train_fn, {"cpu": 2})'
    assert _text(lines, fix.param("call")).startswith("tune.Tuner(") and _text(lines, fix.param("call")).endswith(")")
    assert "`param_space[\"data\"]` is a `DataFrame` loaded by `pd.read_csv(...)`" in found[0].message
    assert "tune.with_parameters(train_fn, data=...)" in found[0].message


def test_keyword_update_and_item_assignment_targets():
    lines, found = _tll005("""
        import torch
        from ray.tune import run as tune_run
        from torchvision.models import resnet50

        def train_fn(config):
            pass

        def main():
            cfg = dict(lr=0.1, net=resnet50())
            cfg.update(bank=torch.randn(1000, 1000))
            cfg["weights"] = torch.load("w.pt")
            tune_run(train_fn, config=cfg)
        """)
    targets = [_target(lines, d.fix) for d in found]
    assert targets == ["net=resnet50()", "bank=torch.randn(1000, 1000)", 'cfg["weights"] = torch.load("w.pt")']
    assert all(d.fix.param("tune_alias") is None for d in found)


def test_no_fix_when_the_dict_is_built_in_another_function():
    _, found = _tll005("""
        import numpy as np
        from ray import tune

        def run(config):
            pass

        def search(config):
            tune.run(run, config=config)

        def main():
            search({"x": np.load("x.npy"), "lr": 0.1})
        """)
    assert len(found) == 1 and found[0].line == 12 and found[0].fix is None


def test_small_values_and_references_are_not_reported():
    _, found = _tll005("""
        import numpy as np
        import ray
        import torch
        import torch.nn as nn
        from ray import tune

        N = 1000
        def train_fn(config):
            pass

        big = np.load("x.npy")
        tune.run(train_fn, config={
            "act": nn.ReLU(), "w": torch.tensor([0.2, 0.8]), "z": torch.zeros(N), "q": np.array([1, 2]),
            "ref": ray.put(big), "n": len(big), "mean": big.mean(), "cls": nn.Linear, "loss": nn.MSELoss(),
            "grid": tune.grid_search([nn.Linear(2, 2), nn.Linear(4, 4)]),
        })
        """)
    assert found == []


def test_config_reached_through_a_parameter_default_and_a_global():
    _, found = _tll005("""
        import torch
        from ray import tune

        CONFIG = {"lr": 0.1}
        CONFIG["emb"] = torch.nn.Embedding(50000, 256)

        def train_fn(config):
            pass

        def sweep(space=CONFIG):
            tune.run(train_fn, config=space)

        sweep()
        """)
    assert [d.line for d in found] == [6]
