"""Generate torchleaklint/semantic/torch_api_data.py by introspecting the installed torch.

The analyzer never imports torch; it reads the frozensets written here instead. Most sets
come from class hierarchies and object identity; the "does this op carry grad?" sets are
found empirically, by calling every public op on a tensor that requires grad.

Usage: python scripts/generate_torch_api.py
"""

from __future__ import annotations

import contextlib
import inspect
import io
import re
import signal
import sys
import threading
import time
import types
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F
import torch.optim.lr_scheduler
import torch.utils.data

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "torchleaklint" / "semantic" / "torch_api_data.py"

# torch.X callables never probed: they change global state, touch files/processes, or
# trace/compile their argument instead of computing on it.
SKIP_FUNCTIONS = {
    "manual_seed", "seed", "initial_seed",  # global RNG
    "save", "load", "from_file", "get_file_path", "import_ir_module",
    "import_ir_module_from_buffer", "prepare_multiprocessing_environment",  # files, processes
    "use_deterministic_algorithms", "init_num_threads",  # global switches
    "autocast_increment_nesting", "autocast_decrement_nesting", "clear_autocast_cache",
    "profiler_allow_cudagraph_cupti_lazy_reinit_cuda12",
    "compile", "vmap", "cond", "while_loop", "fork", "wait",  # tracing / async
}
SKIP_FUNCTION_PREFIXES = ("set_", "sym_constrain")

# Tensor methods never probed: autograd side effects, device transfers, stream bookkeeping.
SKIP_METHODS = {
    "backward", "register_hook", "register_post_accumulate_grad_hook", "retain_grad",
    "reinforce", "cuda", "xpu", "ipu", "mtia", "pin_memory", "record_stream", "module_load",
    "index",  # first-class dims: imports functorch.dim (seconds) on first call
}

# Attributes of a graph tensor that reference the graph itself, however they are typed.
GRAPH_ATTRIBUTES = {"grad_fn"}

SCALAR_TYPES = (
    bool, int, float, complex, str,
    torch.dtype, torch.device, torch.layout, torch.memory_format, torch.Size,
)
PER_CALL_SECONDS = 2.0
SETS_IN_ORDER = (
    "NN_MODULE_CLASSES", "NN_LOSS_CLASSES", "FUNCTIONAL_LOSSES", "TENSOR_FACTORIES",
    "NONDIFF_FUNCTIONS", "SCALAR_FUNCTIONS", "NONDIFF_TENSOR_METHODS",
    "SCALAR_TENSOR_METHODS", "CONVERSION_TENSOR_METHODS", "NONDIFF_TENSOR_ATTRIBUTES",
    "OPTIMIZER_CLASSES", "LR_SCHEDULER_CLASSES", "DATASET_CLASSES", "DATALOADER_CLASSES",
    "NO_GRAD_CONTEXTS", "SET_GRAD_ENABLED", "ENABLE_GRAD_CONTEXTS", "EMPTY_CACHE_FUNCTIONS",
)


def torch_version() -> str:
    return torch.__version__.split("+")[0]


def _public(module) -> list[str]:
    return sorted(n for n in dir(module) if not n.startswith("_"))


def _subclasses(module, *bases) -> set[str]:
    return {
        n for n in _public(module)
        if inspect.isclass(obj := getattr(module, n)) and issubclass(obj, bases)
    }


# ---- class hierarchies ---------------------------------------------------------------


def _nn_sets() -> dict[str, set[str]]:
    modules = _subclasses(torch.nn, torch.nn.Module)
    loss_subclasses = _subclasses(torch.nn, torch.nn.modules.loss._Loss)
    functional = {n for n in _public(F) if n.endswith("_loss") and callable(getattr(F, n))}
    for name in sorted(loss_subclasses):
        source = inspect.getsource(getattr(torch.nn, name).forward)
        functional |= {f for f in re.findall(r"\bF\.(\w+)\(", source) if hasattr(F, f)}
    return {
        "NN_MODULE_CLASSES": modules,
        "NN_LOSS_CLASSES": loss_subclasses | {n for n in modules if n.endswith("Loss")},
        "FUNCTIONAL_LOSSES": functional,
    }


def _optim_data_sets() -> dict[str, set[str]]:
    data = torch.utils.data
    return {
        "OPTIMIZER_CLASSES": _subclasses(torch.optim, torch.optim.Optimizer),
        "LR_SCHEDULER_CLASSES": _subclasses(
            torch.optim.lr_scheduler, torch.optim.lr_scheduler.LRScheduler
        ),
        "DATASET_CLASSES": _subclasses(data, data.Dataset, data.IterableDataset),
        "DATALOADER_CLASSES": _subclasses(data, data.DataLoader),
    }


# ---- identity: grad-mode contexts and empty_cache ----------------------------------------


def _grad_mode_sets() -> dict[str, set[str]]:
    targets = {
        "NO_GRAD_CONTEXTS": (torch.no_grad, torch.inference_mode),
        "SET_GRAD_ENABLED": (torch.set_grad_enabled,),
        "ENABLE_GRAD_CONTEXTS": (torch.enable_grad,),
    }
    out = {key: set() for key in targets}
    for module in (torch, torch.autograd, torch.autograd.grad_mode):
        for name in _public(module):
            obj = getattr(module, name)
            for key, objs in targets.items():
                if any(obj is t for t in objs):
                    out[key].add(f"{module.__name__}.{name}")
    return out


def _submodules(module) -> list[types.ModuleType]:
    subs = (getattr(module, n) for n in _public(module))
    return [
        m for m in subs
        if isinstance(m, types.ModuleType) and m.__name__.startswith(module.__name__ + ".")
    ]


def _empty_cache_functions() -> set[str]:
    # Device modules with an empty_cache (cuda, mps, xpu, mtia, accelerator, ...) and their
    # submodules holding one too (torch.cuda.memory).
    found = set()
    for device in _submodules(torch):
        if callable(getattr(device, "empty_cache", None)):
            for module in (device, *_submodules(device)):
                if callable(getattr(module, "empty_cache", None)):
                    found.add(f"{module.__name__}.empty_cache")
    return found


# ---- empirical probing -----------------------------------------------------------------


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _guard(seconds: float):
    """Abort a probe that runs too long (only possible in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _flatten(value):
    if isinstance(value, (tuple, list)) and not isinstance(value, torch.Size):
        for item in value:
            yield from _flatten(item)
    else:
        yield value


def _kind(value) -> str | None:
    """'grad' / 'nograd' (tensors), 'scalar' (plain Python data), 'other', or None."""
    if value is None:
        return None
    items = list(_flatten(value))
    tensors = [v for v in items if isinstance(v, torch.Tensor)]
    if tensors:
        return "grad" if any(t.requires_grad for t in tensors) else "nograd"
    if all(isinstance(v, SCALAR_TYPES) for v in items):  # [] counts: tolist() of an empty tensor
        return "scalar"
    return "other"


def _probe(call, argument_sets, timeouts: list, label: str) -> set[str]:
    """Kinds of the results of every call(*args, **kwargs) that succeeds."""
    kinds = set()
    for args, kwargs in argument_sets:
        try:
            with _guard(PER_CALL_SECONDS):
                kinds.add(_kind(call(*args, **kwargs)))
        except _Timeout:
            timeouts.append(label)
        except Exception:
            pass
    kinds.discard(None)
    return kinds


def _inputs():
    """Fresh leaf tensors that require grad: a matrix, a vector (bucketize's boundaries) and a
    0-d scalar (item(), is_nonzero())."""
    return [torch.rand(shape, requires_grad=True) for shape in ((4, 4), (4,), ())]


def _function_args(x):
    return [
        ((x,), {}), ((x, x), {}), ((x, 0), {}), ((x,), {"dim": 0}), ((x, x, x), {}),
        ((x, 1), {}),  # a count: multinomial(probs, num_samples) samples indices
        ((x > 0.5, x, x), {}),  # a mask first: where(cond, a, b)
        ((x, torch.float64), {}),
        ((x, (-1,)), {}),  # a shape: view_copy(x, dtype) alone would look nondiff
    ]


def _method_args(x):
    return [
        ((), {}), ((x,), {}), ((0,), {}), ((1,), {}), ((), {"dim": 0}), ((x, x), {}),
        ((torch.float64,), {}),  # type(dtype), to(dtype)
        ((-1,), {}),  # a shape: view(dtype) alone would look nondiff
        (((2,), 1.0), {}),  # new_full(size, fill)
    ]


def _method_call(name: str, receiver):
    return lambda *args, **kwargs: getattr(receiver(), name)(*args, **kwargs)


def _probe_functions(timeouts: list) -> dict[str, set[str]]:
    nondiff, scalar = set(), set()
    for name in _public(torch):
        fn = getattr(torch, name)
        if (
            name.endswith("_")  # in-place
            or name in SKIP_FUNCTIONS
            or name.startswith(SKIP_FUNCTION_PREFIXES)
            or not callable(fn)
            or inspect.isclass(fn)
            or isinstance(fn, types.ModuleType)
        ):
            continue
        kinds = set()
        for x in _inputs():
            kinds |= _probe(fn, _function_args(x), timeouts, f"torch.{name}")
        if kinds == {"nograd"}:
            nondiff.add(name)
        elif kinds == {"scalar"}:
            scalar.add(name)
    return {"NONDIFF_FUNCTIONS": nondiff, "SCALAR_FUNCTIONS": scalar}


def _probe_methods(timeouts: list) -> dict[str, set[str]]:
    nondiff, scalar, conversion = set(), set(), set()
    for name in _public(torch.Tensor):
        if name.endswith("_") or name in SKIP_METHODS or not callable(getattr(torch.Tensor, name)):
            continue
        kinds = set()
        for x in _inputs():
            # receiver: a fresh non-leaf graph tensor per call; arguments drawn from the leaf
            call = _method_call(name, x.clone)
            kinds |= _probe(call, _method_args(x), timeouts, f"Tensor.{name}")
        if not kinds:
            # Fails on a graph tensor (numpy): what does it give once detached?
            for x in _inputs():
                call = _method_call(name, x.detach().clone)
                kinds |= _probe(call, [((), {})], timeouts, f"Tensor.{name}") - {"grad", "nograd"}
        if kinds == {"nograd"}:
            nondiff.add(name)
        elif kinds == {"scalar"}:
            scalar.add(name)
        elif kinds and kinds <= {"scalar", "other"}:
            conversion.add(name)
    return {
        "NONDIFF_TENSOR_METHODS": nondiff,
        "SCALAR_TENSOR_METHODS": scalar,
        "CONVERSION_TENSOR_METHODS": conversion,
    }


def _probe_attributes() -> set[str]:
    """Non-callable attributes that, on a leaf and on a non-leaf graph tensor, never give a
    tensor that requires grad (some only exist on one of them: grad_dtype is leaf-only)."""
    kinds: dict[str, set[str]] = {}
    for x in _inputs():
        for tensor in (x, x * 2):
            for name in _public(torch.Tensor):
                try:
                    value = getattr(tensor, name)
                except Exception:
                    continue
                if not callable(value) and name not in GRAPH_ATTRIBUTES:
                    grad = isinstance(value, torch.Tensor) and value.requires_grad
                    kinds.setdefault(name, set()).add(grad)
    return {name for name, grads in kinds.items() if grads == {False}}


def _factories(timeouts: list) -> set[str]:
    """torch.X documented with a `requires_grad` argument and confirmed by a tiny call."""
    base = torch.rand(2)
    attempts = [
        (2,), ((2,),), (2.0,), (base,), ([1.0],), ((2,), 1.0), (0.0, 1.0, 3), (3, (2,)),
        (base, 1.0), (base, 3), ((2,), (0,)), ((2,), (1,)),
    ]
    found = set()
    for name in _public(torch):
        fn = getattr(torch, name)
        if (
            name in SKIP_FUNCTIONS
            or not callable(fn)
            or inspect.isclass(fn)
            or "requires_grad (bool" not in (fn.__doc__ or "")
        ):
            continue
        for kwargs in ({"requires_grad": True}, {"requires_grad": True, "dtype": torch.float32}):
            argument_sets = [(args, kwargs) for args in attempts]
            if "grad" in _probe(fn, argument_sets, timeouts, f"torch.{name}"):
                found.add(name)
    return found


def _empirical_sets() -> dict[str, set[str]]:
    timeouts: list[str] = []
    out_err = io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.random.fork_rng())  # leave the caller's RNG untouched
        stack.enter_context(torch.enable_grad())
        stack.enter_context(warnings.catch_warnings())
        stack.enter_context(contextlib.redirect_stdout(out_err))
        stack.enter_context(contextlib.redirect_stderr(out_err))
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        data = {
            "TENSOR_FACTORIES": _factories(timeouts),
            **_probe_functions(timeouts),
            **_probe_methods(timeouts),
            "NONDIFF_TENSOR_ATTRIBUTES": _probe_attributes(),
        }
    if timeouts:
        print(f"warning: probes timed out, skip them: {sorted(set(timeouts))}", file=sys.stderr)
    return data


# ---- assembly ----------------------------------------------------------------------------


def collect() -> dict[str, frozenset[str]]:
    data = {
        **_nn_sets(),
        **_empirical_sets(),
        **_optim_data_sets(),
        **_grad_mode_sets(),
        "EMPTY_CACHE_FUNCTIONS": _empty_cache_functions(),
    }
    return {key: frozenset(data[key]) for key in SETS_IN_ORDER}


def render(data: dict[str, frozenset[str]]) -> str:
    lines = [
        f"# Generated by scripts/generate_torch_api.py from torch {torch_version()}; do not edit.",
        '"""What torchleaklint knows about the torch API, without importing torch."""',
        "",
    ]
    for key, names in data.items():
        lines.append(f"{key} = frozenset({{")
        lines.extend(f'    "{name}",' for name in sorted(names))
        lines += ["})", ""]
    return "\n".join(lines)


def main() -> None:
    start = time.perf_counter()
    data = collect()
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(render(data))
    for key, names in data.items():
        sample = ", ".join(sorted(names)[:6])
        print(f"{key:28} {len(names):4}  {sample}{', ...' if len(names) > 6 else ''}")
    print(f"wrote {OUTPUT} in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
