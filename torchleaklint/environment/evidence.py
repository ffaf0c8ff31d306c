"""ML workload evidence for a container (specification: "ML workload evidence").

A container is an ML workload when its image is a PyTorch or Ray stack, it requests a GPU,
its command starts a distributed launcher, or it is built from a context in the same
repository whose Dockerfile or requirements install torch or ray, or whose Python uses
`DataLoader(num_workers>0)`, `torch.distributed` or ray. Each function returns a short
reason (used in messages) or None. Whether a container with that evidence RUNS something
that uses /dev/shm is decided in `workload.py` from these facts (command kind, launcher
process count, accelerator, CPU-only build).
"""

from __future__ import annotations

import functools
import os
import re
from typing import Iterable, List, Optional, Sequence

from torchleaklint.environment.shell_reader import commands
from torchleaklint.semantic.syntax import walk

_ML_IMAGE_PARTS = ("pytorch/pytorch", "nvcr.io/nvidia/pytorch", "rayproject/ray", "torch")
_BUILD_IMAGE_PARTS = ("manylinux", "builder")
# Programs that do no ML work: a container that runs only these (a driver check, an image
# pre-pull, a packaging step, a sleep loop) is not an ML workload, whatever its image.
_PYTHON_SETUP = "python (install/build step)"  # python -m pip, python setup.py ...
_PYTHON_SMOKE = "python -c (smoke check)"  # python -c "import torch; print(torch.cuda.is_available())"
UTILITIES = {"nvidia-smi", "echo", "printf", "sleep", "true", "false", "done", "cat", "ls", "env", "printenv", "pwd",
             "mkdir", "mv", "cp", "rm", "tail", "torch-model-archiver", "ds_report", "hl-smi", "rocm-smi", "nproc",
             "date", "hostname", "exit", "wait", "trap", ":",
             # installing and building: a container that only sets up or compiles does no ML work
             "pip", "pip3", "apt-get", "apt", "yum", "dnf", "apk", "make", "cmake", "ninja", "git", "wget", "curl",
             "tar", "unzip", "cd", "export", "source", ".", "chmod", "chown", "ln", "touch", "grep", "sed", "awk",
             "which", "test", "[", "set", "nvcc", "twine", "auditwheel",
             _PYTHON_SETUP, _PYTHON_SMOKE}
_TORCH_PACKAGES = r"(?:torch|pytorch|torchvision|torchaudio|ray|lightning|pytorch-lightning)"
_INSTALL = re.compile(
    r"\b(?:pip[0-9.]*|uv\s+pip|conda|mamba|micromamba|poetry|uv)\s+(?:install|add)\b[^\n;&|]*?"
    r"(?<![\w./-])" + _TORCH_PACKAGES + r"(?![\w-])", re.IGNORECASE)
_REQUIREMENT = re.compile(r"^\s*" + _TORCH_PACKAGES + r"\s*(?:\[|[=<>~!;@ ]|$)", re.IGNORECASE | re.MULTILINE)
_REQUIREMENTS_FILE = re.compile(r"-r\s+(\S+)|--requirement[= ](\S+)")
_NUM_WORKERS = re.compile(r"(?:num_workers\s*=|['\"]num_workers['\"]\s*:)\s*"
                          r"(?:[1-9]|os\.cpu_count|multiprocessing\.cpu_count|mp\.cpu_count)")
_RAY_IMPORT = re.compile(r"^\s*(?:import\s+ray\b|from\s+ray(?:\.\w+)*\s+import\b)", re.MULTILINE)
_MAX_CONTEXT_FILES = 2000
_MAX_READ = 1_000_000
SKIP_DIRS = _SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", "build", "dist", ".tox", "site-packages"}


def ml_image(image: Optional[str]) -> Optional[str]:
    if not image:
        return None
    lower = image.lower()
    if any(part in lower for part in _BUILD_IMAGE_PARTS):  # compiles wheels/ops; never trains
        return None
    if any(part in lower for part in _ML_IMAGE_PARTS):
        return f"image `{image}`"
    return None


_PYTHON = re.compile(r"^(?:.*/)?python[0-9.]*$")


def ml_launcher(words: Sequence[str], last: bool = True) -> Optional[str]:
    """The launcher a command starts (torchrun, torch.distributed.run, deepspeed,
    accelerate launch, ray start), also inside `bash -c "..."`. `last`: nothing runs after
    this command in the container; then `ray start` without `--block` is no Ray node (it
    starts the node's daemons and returns, the container's main process exits, and they
    die with it)."""
    for i, word in enumerate(words):
        base = word.rsplit("/", 1)[-1]
        rest = list(words[i + 1:])
        if base in ("torchrun", "deepspeed"):
            return f"`{base}`"
        if base == "accelerate" and rest[:1] == ["launch"]:
            return "`accelerate launch`"
        if base == "ray" and rest[:1] == ["start"]:
            return "`ray start`" if not last or "--block" in rest else None
        if _PYTHON.match(word) and len(rest) >= 2 and rest[0] == "-m" and rest[1].startswith(
                ("torch.distributed.run", "torch.distributed.launch")):
            return f"`python -m {rest[1]}`"
        if base in ("bash", "sh", "zsh") and "-c" in rest[:3]:
            script_index = rest.index("-c") + 1
            if script_index < len(rest):
                return ml_launcher_in_script(rest[script_index])
            return None
        if base in ("sudo", "env", "exec", "nohup", "time") or "=" in word:
            continue
        return None
    return None


def ml_launcher_in_script(script: str) -> Optional[str]:
    found_commands = list(commands(script))
    for index, command in enumerate(found_commands):
        found = ml_launcher(command.values, last=index == len(found_commands) - 1)
        if found:
            return found
    return None


# GPU users that are not PyTorch/Ray workloads: media servers transcoding, llama.cpp-based
# servers, TensorFlow, the NVIDIA device plugin and monitoring. A GPU request by one of these
# images is no evidence of DataLoader workers, NCCL or a Ray object store.
_NON_TORCH_GPU_IMAGES = ("jellyfin", "plex", "emby", "frigate", "handbrake", "ffmpeg", "ollama", "llama.cpp",
                         "llama-cpp", "localai", "tensorflow", "dcgm", "device-plugin", "gpu-operator",
                         "gpu-feature-discovery", "nvidia/cuda", "cuda-sample", "gpu-burn", "immich", "photoprism",
                         "tdarr", "unmanic", "xmrig", "nicehash",
                         # CUDA samples and GPU software built on other runtimes (CTranslate2,
                         # ONNX Runtime, OpenVINO, candle, GStreamer, ggml)
                         "nvidia/samples", "vectoradd", "faster-whisper", "whisper.cpp", "ctranslate2", "koboldcpp",
                         "text-embeddings-inference", "onnxruntime", "openvino", "deepstream", "blender", "lolminer")
# Stacks of other ML frameworks: their GPU jobs are no evidence about PyTorch's DataLoader
# workers or a Ray object store (and this linter cannot judge their shared-memory needs).
_OTHER_FRAMEWORKS = ("tensorflow", "mindspore", "paddle", "jax", "mxnet")


def other_framework(image: Optional[str]) -> bool:
    """Whether an image names another ML framework's stack (and not PyTorch/Ray too)."""
    lower = (image or "").lower()
    return any(part in lower for part in _OTHER_FRAMEWORKS) and not ml_image(image)


def gpu_for_ml(reason: Optional[str], image: Optional[str]) -> Optional[str]:
    """A GPU request counts as ML evidence unless the image is a known non-PyTorch GPU user."""
    if reason and image and (any(part in image.lower() for part in _NON_TORCH_GPU_IMAGES) or other_framework(image)):
        return None
    return reason


_CPU_TOKEN = re.compile(r"(?:^|[-_.:/])cpu(?:$|[-_.:/@])", re.IGNORECASE)


def cpu_build(image: Optional[str]) -> bool:
    """An image whose name or tag marks a CPU-only build (`torchserve:latest-cpu`,
    `pytorch-mnist-cpu`): it has no NCCL and cannot use a GPU even where the container
    runtime hands GPUs to every container."""
    return bool(image) and bool(_CPU_TOKEN.search(image)) and "gpu" not in image.lower()


def ray_image(image: Optional[str]) -> bool:
    return "rayproject/ray" in (image or "").lower()


# What a known command runs (`command_kind`).
HIDDEN = "hidden"  # no command given: the image's own default runs, unseen
ONLY_UTILITIES = "utilities"  # only utilities (a driver check, a sleep loop, echo): no workload
INTERACTIVE = "interactive"  # a notebook server: users run their own DataLoaders in it
VISIBLE = "visible"  # any other known command (a script, a server, a one-off export)
_NOTEBOOK_SERVERS = {"jupyter", "jupyter-lab", "jupyter-notebook", "jupyterhub-singleuser", "jupyter-server"}


def command_kind(words: Sequence[str]) -> str:
    if not words:
        return HIDDEN
    programs = _programs(list(words), depth=0)
    if programs and all(p in UTILITIES for p in programs):
        return ONLY_UTILITIES
    if any(p in _NOTEBOOK_SERVERS for p in programs):
        return INTERACTIVE
    return VISIBLE


def command_kind_of_script(script: str) -> str:
    return command_kind(["sh", "-c", script])


def several_processes(words: Sequence[str]) -> Optional[str]:
    """Reason when a command starts several processes on the node that share /dev/shm:
    a launcher with more than one local process (torchrun's and torch.distributed.run's
    default is one; deepspeed's is every GPU; accelerate's comes from its config), or a
    Ray node (`ray start`: the object store lives in /dev/shm)."""
    found = _launch(list(words), depth=0)
    if found is None:
        return None
    name, rest = found
    if name == "`ray start`":
        return "`ray start` (a Ray node: its object store lives in /dev/shm)"
    flags = {"`deepspeed`": ("--num_gpus", "--num-gpus"),
             "`accelerate launch`": ("--num_processes", "--num-processes")}.get(name, ("--nproc-per-node",
                                                                                       "--nproc_per_node"))
    value = _flag_value(rest, flags)
    default_single = name not in ("`deepspeed`", "`accelerate launch`")
    if value == "1" or (value is None and default_single):
        return None
    return f"{name} starting {'`' + value + '`' if value else 'several'} processes per node"


def _launch(words: List[str], depth: int, last: bool = True):
    """(launcher reason, its arguments) of the launcher a command starts, also inside
    `bash -c "..."` scripts (`last`: see `ml_launcher`)."""
    if depth > 3:
        return None
    for i, word in enumerate(words):
        base = word.rsplit("/", 1)[-1]
        rest = words[i + 1:]
        if base in ("bash", "sh", "zsh"):
            flags = [w for w in rest if w.startswith("-") and not w.startswith("--")]
            scripts = [w for w in rest if not w.startswith("-")]
            if any("c" in f.lstrip("-") for f in flags) and scripts:
                found_commands = list(commands(scripts[0]))
                for index, command in enumerate(found_commands):
                    found = _launch(command.values, depth + 1, last=index == len(found_commands) - 1)
                    if found:
                        return found
            return None
        reason = ml_launcher(words[i:], last)
        if reason:
            skip = 2 if reason in ("`accelerate launch`", "`ray start`") or reason.startswith("`python -m") else 1
            return reason if not reason.startswith("`python -m") else "`torchrun`", rest[skip - 1:]
        if base in ("sudo", "env", "exec", "nohup", "time") or "=" in word:
            continue
        return None
    return None


def _flag_value(words: Sequence[str], names: Sequence[str]) -> Optional[str]:
    for i, word in enumerate(words):
        for name in names:
            if word == name and i + 1 < len(words):
                return words[i + 1]
            if word.startswith(name + "="):
                return word.split("=", 1)[1]
    return None


def runs_only_utilities(words: Sequence[str]) -> bool:
    """Whether a known command (program and arguments, e.g. Kubernetes command + args) runs
    nothing but utilities: `nvidia-smi`, `bash -c "while true; do sleep 30; done"`, `echo`."""
    programs = _programs(list(words), depth=0)
    return bool(programs) and all(p in UTILITIES for p in programs)


def _programs(words: List[str], depth: int) -> List[str]:
    if not words or depth > 3:
        return []
    base = words[0].rsplit("/", 1)[-1]
    if base in ("bash", "sh", "zsh"):
        rest = [w for w in words[1:] if w != "--"]
        flags = [w for w in rest if w.startswith("-")]
        if any("c" in f.lstrip("-") for f in flags if not f.startswith("--")):
            scripts = [w for w in rest if not w.startswith("-")]
            out = []
            for command in commands(scripts[0]) if scripts else []:
                index = command.program_index()
                if index is not None:
                    out.extend(_programs(command.values[index:], depth + 1))
            return out
        return _programs([w for w in rest if not w.startswith("-")], depth + 1)
    if _PYTHON.match(base):
        return [_python_program(words[1:])]
    return [base]


_SETUP_MODULES = ("pip", "ensurepip", "venv", "build", "wheel", "compileall", "torch.utils.collect_env")
_WORKLOAD_WORDS = ("DataLoader", "init_process_group", "ray.init", "multiprocessing", "spawn", ".fit(", "train")


def _python_program(args: List[str]) -> str:
    """`python` as run by a command: an install/build step (`-m pip`, `setup.py`), a smoke
    check (`-c` code that only imports, prints and asserts), or python itself."""
    for i, arg in enumerate(args):
        if arg == "-c":
            return _PYTHON_SMOKE if i + 1 < len(args) and _is_smoke_check(args[i + 1]) else "python"
        if arg == "-m":
            module = args[i + 1] if i + 1 < len(args) else ""
            return _PYTHON_SETUP if module.startswith(_SETUP_MODULES) else "python"
        if arg.startswith("-"):
            continue
        return _PYTHON_SETUP if arg.rsplit("/", 1)[-1] == "setup.py" else "python"
    return "python"


def _is_smoke_check(code: str) -> bool:
    import ast

    if len(code) > 400 or any(word in code for word in _WORKLOAD_WORDS):
        return False
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    loops = (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith)
    return not any(isinstance(node, loops) for node in walk(tree))


def first(reasons: Iterable[Optional[str]]) -> Optional[str]:
    for reason in reasons:
        if reason:
            return reason
    return None


@functools.lru_cache(maxsize=256)
def build_context(context: str, dockerfile: Optional[str] = None) -> Optional[str]:
    """Evidence found in a build context directory of the same repository."""
    if not os.path.isdir(context):
        return None
    dockerfile_path = os.path.join(context, dockerfile or "Dockerfile")
    found = _dockerfile_evidence(dockerfile_path, context)
    if found:
        return found
    for requirements in _requirements_files(context):
        if _REQUIREMENT.search(_read(requirements)):
            return f"`{os.path.relpath(requirements, context)}` in the build context installs torch/ray"
    return _python_evidence(context)


def dockerfile_evidence(path: str, context: str) -> Optional[str]:
    """Evidence that the Dockerfile at `path` builds a PyTorch/Ray stack."""
    return _dockerfile_evidence(path, context)


def _dockerfile_evidence(path: str, context: str) -> Optional[str]:
    text = _read(path)
    if not text:
        return None
    from torchleaklint.environment.dockerfile_reader import from_image, instructions

    name = os.path.basename(path)
    for instruction in instructions(text):
        if instruction.keyword == "FROM":
            image = from_image(instruction)
            if ml_image(image):
                return f"its {name} builds on `{image}`"
        elif instruction.keyword == "RUN":
            args = instruction.args.replace("\\\n", " ")
            if _INSTALL.search(args):
                return f"its {name} installs torch/ray"
            for match in _REQUIREMENTS_FILE.finditer(args):
                requirement = os.path.join(context, os.path.basename(match.group(1) or match.group(2)))
                if _REQUIREMENT.search(_read(requirement)):
                    return f"its {name} installs `{os.path.basename(requirement)}` (torch/ray)"
    return None


def _requirements_files(context: str) -> List[str]:
    out = []
    for directory in (context, os.path.join(context, "requirements")):
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        out.extend(os.path.join(directory, n) for n in names
                   if n.endswith(".txt") and (n.startswith("requirements") or directory != context))
    return out


@functools.lru_cache(maxsize=256)
def build_context_python(context: str) -> Optional[str]:
    """DataLoader workers, torch.distributed or ray in the Python of a build context."""
    return _python_evidence(context) if os.path.isdir(context) else None


def _python_evidence(context: str) -> Optional[str]:
    seen = 0
    for directory, dirnames, filenames in os.walk(context):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            seen += 1
            if seen > _MAX_CONTEXT_FILES:
                return None
            found = _file_evidence(os.path.join(directory, name), context)
            if found:
                return found
    return None


def _only_with_cuda(text: str, offset: int) -> bool:
    """Whether the `num_workers` at `offset` is set only when CUDA is there, on its own line
    (`kwargs = {'num_workers': 1, 'pin_memory': True} if use_cuda else {}`)."""
    start, end = text.rfind("\n", 0, offset) + 1, text.find("\n", offset)
    line = text[start:end if end >= 0 else len(text)]
    condition = line[line.find(" if ", offset - start):] if " if " in line[offset - start:] else ""
    return "cuda" in condition.lower()


def _file_evidence(path: str, context: str, gpu: bool = True) -> Optional[str]:
    text = _read(path)
    rel = os.path.relpath(path, context)
    # torch.distributed on CPU is gloo, which passes tensors over sockets, not /dev/shm (a
    # send/recv smoke test); only where a GPU is requested does it run NCCL.
    if gpu and ("torch.distributed" in text or "from torch import distributed" in text):
        return f"`{rel}` in the build context uses torch.distributed"
    if "DataLoader" in text and any(gpu or not _only_with_cuda(text, m.start()) for m in _NUM_WORKERS.finditer(text)):
        return f"`{rel}` in the build context uses DataLoader workers"
    if "ray" in text and _RAY_IMPORT.search(text):
        return f"`{rel}` in the build context uses ray"
    return None


def started_script_evidence(context: str, words: Sequence[str], gpu: bool = True) -> Optional[str]:
    """Evidence in the Python files a known command starts (`python train.py`, `python -m
    pkg.train`, also inside `bash -c`), looked up in the build context; other Python of
    the context (a training script beside a web service) says nothing about this command."""
    for target in _python_targets(list(words), depth=0):
        path = _locate(context, target)
        if path:  # workers set only under CUDA count only where a GPU is requested
            found = _file_evidence(path, context, gpu)
            if found:
                return found
    return None


def _locate(context: str, target: str) -> Optional[str]:
    """The file of the build context a command's path names: relative to the context, or,
    for a path inside the image (`/opt/app/src/train.py`, copied there by the Dockerfile),
    the longest tail of it that exists in the context."""
    parts = [p for p in target.replace("\\", "/").split("/") if p not in ("", ".")]
    candidates = [os.path.join(*parts[i:]) for i in range(len(parts))] if target.startswith("/") else \
        [os.path.join(*parts)] if parts else []
    root = os.path.abspath(context)
    for candidate in candidates:
        path = os.path.normpath(os.path.join(root, candidate))
        if os.path.commonpath([root, path]) == root and os.path.isfile(path):
            return path
    return None


def dockerfile_command(path: str) -> List[str]:
    """The command a Dockerfile's image runs by default: its last ENTRYPOINT followed by its
    last CMD (exec form as a list; shell form as `sh -c`); [] when it sets neither."""
    text = _read(path)
    if not text:
        return []
    from torchleaklint.environment.dockerfile_reader import instructions

    found = {}
    for instruction in instructions(text):
        if instruction.keyword == "FROM":
            found = {}  # a later stage starts from its own base image
        elif instruction.keyword in ("CMD", "ENTRYPOINT"):
            found[instruction.keyword] = _exec_words(instruction.args.replace("\\\n", " "))
    return found.get("ENTRYPOINT", []) + found.get("CMD", [])


def _exec_words(args: str) -> List[str]:
    import json

    text = args.strip()
    if text.startswith("["):
        try:
            value = json.loads(text)
        except ValueError:
            return []
        return [str(v) for v in value] if isinstance(value, list) else []
    return ["sh", "-c", text] if text else []


def _python_targets(words: List[str], depth: int) -> List[str]:
    """Relative paths of the Python files a command runs."""
    if not words or depth > 3:
        return []
    base = words[0].rsplit("/", 1)[-1]
    if base in ("bash", "sh", "zsh"):
        rest = [w for w in words[1:] if w != "--"]
        flags = [w for w in rest if w.startswith("-") and not w.startswith("--")]
        scripts = [w for w in rest if not w.startswith("-")]
        if any("c" in f.lstrip("-") for f in flags) and scripts:
            out = []
            for command in commands(scripts[0]):
                index = command.program_index()
                if index is not None:
                    out.extend(_python_targets(command.values[index:], depth + 1))
            return out
        return []
    if not _PYTHON.match(base):
        return []
    args = words[1:]
    for i, arg in enumerate(args):
        if arg == "-m" and i + 1 < len(args):
            module = args[i + 1].replace(".", "/")
            return [module + ".py", module + "/__main__.py"]
        if arg.startswith("-"):
            continue
        return [arg] if arg.endswith(".py") else []
    return []


def read_text(path: str) -> str:
    return _read(path)


def _read(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(_MAX_READ).decode("utf-8", "replace")
    except OSError:
        return ""


_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1024 ** 2, "mb": 1024 ** 2, "g": 1024 ** 3, "gb": 1024 ** 3,
          "t": 1024 ** 4, "tb": 1024 ** 4,
          "ki": 1024, "mi": 1024 ** 2, "gi": 1024 ** 3, "ti": 1024 ** 4}
_K8S_DECIMAL = {"k": 10 ** 3, "m": 10 ** 6, "g": 10 ** 9, "t": 10 ** 12}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*$")
ONE_GB = 10 ** 9


def size_bytes(text: str, kubernetes: bool = False) -> Optional[float]:
    """Bytes of a Docker (`512m`, `2gb`, bytes) or Kubernetes (`512Mi`, `1G`) size; None
    when it is not a literal size (a variable, a template)."""
    match = _SIZE.match(str(text))
    if not match:
        return None
    number, unit = float(match.group(1)), match.group(2)
    if kubernetes and unit in ("k", "M", "G", "T"):
        return number * _K8S_DECIMAL[unit.lower()]
    factor = _UNITS.get(unit.lower())
    return None if factor is None else number * factor
