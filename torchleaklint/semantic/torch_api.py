"""Facts about torch's API, answered from data generated from torch itself.

`torch_api_data.py` is written by `scripts/generate_torch_api.py`; a test regenerates it
and fails if it drifts from the installed torch. Nothing here imports torch.
"""

from __future__ import annotations

import ast
import re
from typing import Optional

from torchleaklint.semantic import torch_api_data as data

GRAPH_KILLER_METHODS = frozenset({"detach", "detach_", "item", "tolist", "numpy"})
# Tensor attributes that describe a tensor (its graph, shape, placement) without using its values:
# reading one consumes no graph (`kept.grad_fn is not None`, `kept.shape[0]`).
TENSOR_METADATA_ATTRIBUTES = frozenset(
    {"grad_fn", "requires_grad", "is_leaf", "shape", "dtype", "device", "ndim", "is_cuda", "layout"})
SCALAR_BUILTINS = frozenset({"float", "int", "bool", "len", "str", "round", "repr", "format", "isinstance", "hash", "id"})
# Module methods that return the module itself.
MODULE_SELF_METHODS = frozenset(
    {"to", "cuda", "cpu", "train", "eval", "half", "float", "double", "bfloat16", "requires_grad_",
     "type", "apply", "share_memory", "to_empty", "xpu", "mps", "compile"}
)
# Evidence that an unannotated name holds an nn.Module (duck typing).
MODULE_EVIDENCE_METHODS = frozenset(
    {"parameters", "named_parameters", "eval", "modules", "named_modules", "children", "buffers",
     "register_buffer", "register_forward_hook", "load_state_dict", "requires_grad_"}
)
# nn.Module methods that run no forward (a module's bookkeeping: its parts, state, mode, device)
MODULE_BOOKKEEPING_METHODS = frozenset(
    {"parameters", "named_parameters", "modules", "named_modules", "children", "named_children", "buffers",
     "named_buffers", "state_dict", "load_state_dict", "register_buffer", "register_parameter", "add_module",
     "register_module", "get_submodule", "get_parameter", "get_buffer", "zero_grad", "train", "eval", "to",
     "cuda", "cpu", "half", "float", "double", "bfloat16", "requires_grad_", "extra_repr", "to_empty",
     "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook"}
)


def telling_names(asked) -> frozenset:
    """What is asked of an object that tells its class: not the methods every module or
    optimizer has (`train`, `eval`, `to`, `zero_grad`...) nor `forward`."""
    return frozenset(asked) - MODULE_BOOKKEEPING_METHODS - MODULE_SELF_METHODS - {"forward"}


HF_NON_MODEL_SUFFIXES = ("Tokenizer", "TokenizerFast", "Config", "Processor", "FeatureExtractor",
                         "ImageProcessor", "Pipeline")


def _torch_member(qualname: str, prefix: str) -> Optional[str]:
    if qualname.startswith(prefix):
        rest = qualname[len(prefix):]
        if "." not in rest:
            return rest
    return None


def nn_class(qualname: str) -> Optional[str]:
    name = _torch_member(qualname, "torch.nn.")
    if name is None:
        for prefix in ("torch.nn.modules.", ):
            if qualname.startswith(prefix):
                name = qualname.rsplit(".", 1)[-1]
    return name if name in data.NN_MODULE_CLASSES else None


# nn layers without parameters (hand-written: tests/test_torch_api_data.py checks each against
# torch): calling one builds a graph only from an input that already carries one.
PARAMETERLESS_NN_CLASSES = frozenset({
    "ReLU", "ReLU6", "LeakyReLU", "ELU", "CELU", "SELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh",
    "Softplus", "Softsign", "Softmax", "Softmin", "LogSoftmax", "LogSigmoid", "Hardtanh", "Hardswish",
    "Hardsigmoid", "Hardshrink", "Softshrink", "Tanhshrink", "Threshold", "GLU", "Softmax2d", "Identity",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
    "LPPool1d", "LPPool2d", "Flatten", "Unflatten", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d",
    "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d",
    "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d",
    "CircularPad3d", "Fold", "Unfold", "CosineSimilarity", "PairwiseDistance",
})

# Module methods that return the module itself, so a chain of them (`net.eval().to(d)`) is
# still the module; `requires_grad_(False)` among them freezes it.
MODULE_CHAIN_METHODS = frozenset({"eval", "train", "to", "cuda", "cpu", "float", "half", "double", "requires_grad_"})


def module_chain_root(expr):
    """`sampler.eval().to(device)` -> `sampler`, `nn.Linear(c, c).to(d)` -> `nn.Linear(c, c)`:
    the expression under calls of methods that return the module itself."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
            expr.func.attr in MODULE_CHAIN_METHODS:
        expr = expr.func.value
    return expr


# torchaudio's feature transforms (hand-written from its documentation; torchaudio is not a
# test dependency): spectrograms, resampling, masking, all without learnable parameters.
PARAMETERLESS_AUDIO_TRANSFORMS = frozenset({
    "Spectrogram", "InverseSpectrogram", "GriffinLim", "AmplitudeToDB", "MelScale", "InverseMelScale",
    "MelSpectrogram", "MFCC", "LFCC", "MuLawEncoding", "MuLawDecoding", "Resample", "TimeStretch", "Fade",
    "FrequencyMasking", "TimeMasking", "Vol", "SlidingWindowCmn", "Vad", "SpectralCentroid", "PitchShift",
    "ComputeDeltas", "Preemphasis", "Deemphasis", "SpeedPerturbation", "AddNoise", "Convolve", "FFTConvolve",
})


# Libraries of data augmentations: their classes (kornia's are nn.Modules, torchvision's v2
# transforms too) hold no learnable parameters.
PARAMETERLESS_AUGMENTATION_PACKAGES = ("kornia.augmentation.", "torchvision.transforms.")


def is_parameterless_layer(qualname: str) -> bool:
    """`nn.ReLU`, `nn.MaxPool2d`, `nn.Dropout`, `torchaudio.transforms.MelSpectrogram`,
    `kornia.augmentation.RandomRotation`...: a layer that holds no parameters."""
    if qualname.startswith("torchaudio.transforms."):
        return qualname.rsplit(".", 1)[-1] in PARAMETERLESS_AUDIO_TRANSFORMS
    if qualname.startswith(PARAMETERLESS_AUGMENTATION_PACKAGES):
        return qualname.rsplit(".", 1)[-1][:1].isupper()  # a class, not a functional helper
    name = nn_class(qualname)
    return name is not None and name in PARAMETERLESS_NN_CLASSES


# Tensor attributes and methods that read only what a tensor is (its shape, type, device).
SHAPE_QUERIES = frozenset({"shape", "size", "dim", "ndim", "ndimension", "numel", "nelement", "dtype", "device"})
# Tensor methods that make a new tensor of the receiver's shape, dtype and device only.
NEW_TENSOR_METHODS = frozenset({"new_zeros", "new_ones", "new_empty", "new_full"})


def is_loss_class(qualname: str) -> bool:
    name = nn_class(qualname)
    return name is not None and name in data.NN_LOSS_CLASSES


def is_functional_loss(qualname: str) -> bool:
    name = _torch_member(qualname, "torch.nn.functional.")
    return name is not None and name in data.FUNCTIONAL_LOSSES


def is_factory(qualname: str) -> bool:
    name = _torch_member(qualname, "torch.")
    return name is not None and name in data.TENSOR_FACTORIES


def is_nondiff_function(qualname: str) -> bool:
    for prefix in ("torch.", "torch.Tensor."):
        name = _torch_member(qualname, prefix)
        if name is not None:
            return name in data.NONDIFF_FUNCTIONS or name in data.SCALAR_FUNCTIONS
    return False


def is_scalar_function(qualname: str) -> bool:
    name = _torch_member(qualname, "torch.")
    return name is not None and name in data.SCALAR_FUNCTIONS


def is_optimizer(qualname: str) -> bool:
    name = _torch_member(qualname, "torch.optim.")
    return name is not None and name in data.OPTIMIZER_CLASSES


def is_lr_scheduler(qualname: str) -> bool:
    name = _torch_member(qualname, "torch.optim.lr_scheduler.")
    return name is not None and name in data.LR_SCHEDULER_CLASSES


def is_dataloader(qualname: str) -> bool:
    name = qualname.rsplit(".", 1)[-1]
    return qualname.startswith("torch.utils.data") and name in data.DATALOADER_CLASSES


def is_dataset_class(qualname: str) -> bool:
    name = qualname.rsplit(".", 1)[-1]
    return qualname.startswith("torch.utils.data") and name in data.DATASET_CLASSES


# Context managers of other libraries that turn autograd off (written by hand, from their
# sources): MONAI's `eval_mode(*nets)` puts the networks in eval mode and yields under
# `torch.no_grad()` (monai/networks/utils.py).
LIBRARY_NO_GRAD_CONTEXTS = frozenset({"monai.networks.utils.eval_mode", "monai.networks.eval_mode"})


def grad_context(qualname: str) -> Optional[str]:
    """'off' for no_grad/inference_mode, 'set' for set_grad_enabled, 'on' for enable_grad."""
    if qualname in data.NO_GRAD_CONTEXTS or qualname in LIBRARY_NO_GRAD_CONTEXTS:
        return "off"
    if qualname in data.SET_GRAD_ENABLED:
        return "set"
    if qualname in data.ENABLE_GRAD_CONTEXTS:
        return "on"
    return None


def is_empty_cache(qualname: str) -> bool:
    return qualname in data.EMPTY_CACHE_FUNCTIONS


# Queries of how much device memory is in use: an `empty_cache()` behind a test of one of them
# runs under memory pressure only, not every step.
MEMORY_QUERY_FUNCTIONS = frozenset(
    f"torch.{device}{sub}.{name}"
    for device in ("cuda", "xpu", "mps", "accelerator")
    for sub in ("", ".memory")
    for name in ("memory_reserved", "memory_allocated", "max_memory_reserved", "max_memory_allocated",
                 "mem_get_info", "memory_stats", "current_allocated_memory", "driver_allocated_memory",
                 "memory_usage", "utilization"))


def is_memory_query(qualname: str) -> bool:
    return qualname in MEMORY_QUERY_FUNCTIONS


# Readings that `empty_cache()` changes: what the device has free or the allocator reserves
# (not what live tensors hold), on the torch API or NVML's
_CACHE_DEPENDENT_READINGS = frozenset({"mem_get_info", "memory_reserved", "max_memory_reserved", "memory_stats",
                                       "driver_allocated_memory", "memory_summary"})
_NVML_READINGS = frozenset({"nvmlDeviceGetMemoryInfo"})


def reads_cache_dependent_memory(qualname: str, name: str) -> bool:
    """Does a call (its qualified name, or its bare name when the module is unknown: `from
    pynvml import *`) read device memory that `empty_cache()` just changed?"""
    if qualname in MEMORY_QUERY_FUNCTIONS and qualname.rsplit(".", 1)[-1] in _CACHE_DEPENDENT_READINGS:
        return True
    return name in _NVML_READINGS


def is_scalar_method(name: str) -> bool:
    return name in data.SCALAR_TENSOR_METHODS


def is_nondiff_method(name: str) -> bool:
    return name in data.NONDIFF_TENSOR_METHODS


def is_nondiff_attribute(name: str) -> bool:
    return name in data.NONDIFF_TENSOR_ATTRIBUTES


def is_model_constructor(qualname: str) -> bool:
    """Constructors of pretrained/zoo models outside torch.nn (torchvision, timm, HF)."""
    parts = qualname.split(".")
    if parts[0] == "torchvision" and len(parts) >= 3 and parts[1] == "models":
        return parts[-1][:1].islower() and not parts[-1].startswith("get_")
    if qualname in ("timm.create_model", "torch.hub.load"):
        return True
    if parts[-1] == "from_pretrained" and len(parts) >= 2:
        owner = parts[-2]
        return not owner.endswith(HF_NON_MODEL_SUFFIXES) and (
            parts[0] in ("transformers", "diffusers", "peft", "sentence_transformers", "timm")
        )
    return False


_TENSOR_TYPE = re.compile(r"torch\.(cuda\.)?([A-Z][a-z]*)?Tensor")


def tensor_type_constructors(value) -> bool:
    """Is `value` a reference to the tensor types (`torch.Tensor`, `torch.cuda.FloatTensor`),
    all of them when it is one of several? Calling one makes a tensor with no graph."""
    if getattr(value, "kind", None) != "ref":
        return False
    names = [value.name] if value.name else list(value.alts or ())
    return bool(names) and all(_TENSOR_TYPE.fullmatch(name) for name in names)
