"""The committed torch API data must be exactly what the generator derives from torch."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "scripts" / "generate_torch_api.py"
DATA = ROOT / "torchleaklint" / "semantic" / "torch_api_data.py"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generator = _load(GENERATOR, "generate_torch_api")
committed = _load(DATA, "committed_torch_api_data")


@pytest.fixture(scope="module")
def fresh():
    return generator.collect()


def test_generated_from_the_installed_torch():
    header = DATA.read_text().splitlines()[0]
    assert f"from torch {generator.torch_version()};" in header, (
        f"{header!r} does not match torch {torch.__version__}: install the pinned torch or "
        "rerun scripts/generate_torch_api.py"
    )


def test_committed_data_matches_torch(fresh):
    committed_sets = {k: v for k, v in vars(committed).items() if k.isupper()}
    assert sorted(committed_sets) == sorted(fresh)
    for key, names in fresh.items():
        stale, missing = committed_sets[key] - names, names - committed_sets[key]
        assert not stale and not missing, (
            f"{key} drifted from torch (rerun scripts/generate_torch_api.py): "
            f"no longer derived {sorted(stale)}, newly derived {sorted(missing)}"
        )
    assert generator.render(fresh) == DATA.read_text()


def test_generation_is_deterministic(fresh):
    assert generator.collect() == fresh


def test_data_module_does_not_import_torch():
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('d', {str(DATA)!r})\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "assert 'torch' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "key, present, absent",
    [
        ("NONDIFF_FUNCTIONS", {"argmax", "argmin", "eq", "isnan", "nonzero", "bucketize"},
         {"relu", "abs", "sum", "mean", "clone", "where"}),
        ("NONDIFF_TENSOR_METHODS", {"argmax", "detach", "long", "bool", "eq", "new_zeros"},
         {"clone", "cpu", "to", "view", "float", "sum", "type"}),
        ("SCALAR_FUNCTIONS", {"numel", "is_tensor"}, {"sum"}),
        ("SCALAR_TENSOR_METHODS", {"item", "tolist", "size", "dim", "numel"}, {"detach"}),
        ("CONVERSION_TENSOR_METHODS", {"numpy"}, {"detach"}),
        ("NONDIFF_TENSOR_ATTRIBUTES", {"shape", "dtype", "data", "grad", "requires_grad"},
         {"grad_fn", "T", "mT", "real"}),
        ("NN_MODULE_CLASSES", {"Linear", "LSTM", "Sequential", "CrossEntropyLoss"}, {"Parameter"}),
        ("NN_LOSS_CLASSES", {"CrossEntropyLoss", "MSELoss"}, {"Linear"}),
        ("FUNCTIONAL_LOSSES", {"cross_entropy", "mse_loss", "kl_div"}, {"relu", "softmax"}),
        ("TENSOR_FACTORIES", {"zeros", "ones", "randn", "tensor", "arange", "zeros_like"},
         {"relu", "cat"}),
        ("OPTIMIZER_CLASSES", {"SGD", "Adam", "Optimizer"}, set()),
        ("LR_SCHEDULER_CLASSES", {"StepLR", "ReduceLROnPlateau"}, set()),
        ("DATASET_CLASSES", {"Dataset", "TensorDataset", "IterableDataset"}, {"DataLoader"}),
        ("DATALOADER_CLASSES", {"DataLoader"}, set()),
        ("NO_GRAD_CONTEXTS", {"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad"},
         {"torch.enable_grad", "torch.set_grad_enabled"}),
        ("SET_GRAD_ENABLED", {"torch.set_grad_enabled"}, set()),
        ("ENABLE_GRAD_CONTEXTS", {"torch.enable_grad"}, {"torch.no_grad"}),
        ("EMPTY_CACHE_FUNCTIONS", {"torch.cuda.empty_cache", "torch.cuda.memory.empty_cache"},
         set()),
    ],
)
def test_sanity(key, present, absent):
    names = getattr(committed, key)
    assert present <= names, f"{key} lacks {sorted(present - names)}"
    assert not absent & names, f"{key} wrongly holds {sorted(absent & names)}"


def test_parameterless_layers_hold_no_parameters():
    """Every layer TLL006 and the data flow treat as parameterless exists in torch.nn, and an
    instance built with simple arguments has no parameter."""
    from torchleaklint.semantic.torch_api import PARAMETERLESS_NN_CLASSES

    built = 0
    for name in sorted(PARAMETERLESS_NN_CLASSES):
        cls = getattr(torch.nn, name, None)
        assert cls is not None, f"torch.nn.{name} does not exist"
        for args in ((), (2,), (2, 2), ((2, 2),), (1, (2, 2))):
            try:
                layer = cls(*args)
            except Exception:
                continue
            assert not list(layer.parameters()), f"torch.nn.{name}{args} has parameters"
            built += 1
            break
    assert built >= len(PARAMETERLESS_NN_CLASSES) - 5, "too few layers could be built to check"
