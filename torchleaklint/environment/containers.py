"""Containers an environment file starts, with what TLL101 asks of each: where to report,
the ML workload evidence, and how its /dev/shm is provided.

Sources: Compose services, Kubernetes workload pod templates, `docker run` (and `podman
run`) commands in shell scripts and CI steps, and CI job containers (GitHub Actions
`container:`, Azure Pipelines container resources) whose `options` are `docker run` options.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from torchleaklint.environment import evidence, repo_images
from torchleaklint.environment import yaml_reader as y
from torchleaklint.environment.shell_reader import Command, Word, assignments, commands, offsets_origin
from torchleaklint.environment.workload import Workload

_COMPOSE_NAMES = ("docker-compose*.y*ml", "compose*.y*ml", "*.compose.y*ml", "*-compose.y*ml", "*_compose.y*ml")
_COMPOSE_TOP_KEYS = {"version", "services", "volumes", "networks", "configs", "secrets", "name", "include"}
_CI_TOP_KEYS = {"jobs", "steps", "stages", "on", "pool", "trigger", "pr", "resources", "workflow", "workflows"}
WORKLOAD_KINDS = {"Pod", "Deployment", "StatefulSet", "Job", "CronJob", "DaemonSet", "ReplicaSet", "PodTemplate",
                  # Kubeflow training operator / Trainer, JobSet, LeaderWorkerSet: job templates
                  "PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "MXJob", "JAXJob",
                  "TrainingRuntime", "ClusterTrainingRuntime", "JobSet", "LeaderWorkerSet"}
KUBERAY_KINDS = {"RayCluster", "RayJob", "RayService"}  # the operator mounts /dev/shm itself
_SCRIPT_KEYS = {"run", "script", "bash", "sh", "inlineScript", "before_script", "after_script", "commands", "command",
                "pre_build", "post_build"}
_DOCKER_FLAGS = {"-d", "--detach", "-i", "--interactive", "-t", "--tty", "--rm", "--privileged", "--init", "-P",
                 "--publish-all", "--read-only", "--no-healthcheck", "--oom-kill-disable", "-q", "--quiet",
                 "--disable-content-trust", "--help", "--sig-proxy", "--use-api-socket"}
_SHORT_FLAG_LETTERS = set("ditPq")


@dataclass
class Shm:
    """How the container's /dev/shm is provided."""

    host_ipc: bool = False  # ipc: host, hostIPC: true, --ipc=host, the host's /dev/shm mounted
    size: Optional[str] = None  # an explicit size (shm_size, sizeLimit, --shm-size)
    size_at: Optional[Tuple[int, int]] = None  # (line, col 1-based) of the size value
    unlimited_memory_volume: bool = False  # a memory-backed emptyDir without sizeLimit
    not_memory_backed: bool = False  # a volume at /dev/shm that is not emptyDir medium Memory
    build_only: bool = False  # Compose `build.shm_size` without a service shm_size


@dataclass
class Container:
    source: str  # "compose", "kubernetes", "docker run", "ci container"
    name: str
    line: int
    col: int
    end_col: int
    evidence: Optional[str]  # why the default /dev/shm is a finding (see `workload`), or None
    shm: Shm
    owner: str = ""
    sized_evidence: Optional[str] = None  # why an explicit size under 1 GB is (any ML evidence)


def is_compose_name(path: str) -> bool:
    name = os.path.basename(path).lower()
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in _COMPOSE_NAMES)


def document_kind(doc: Node, path: str, is_ci_path: bool) -> Optional[str]:
    if not isinstance(doc, MappingNode):
        return None
    keys = {k.value for k, _ in y.items(doc)}
    if y.scalar(y.get(doc, "apiVersion")) and y.scalar(y.get(doc, "kind")):
        return "kubernetes"
    services = y.get(doc, "services")
    if isinstance(services, MappingNode) and (is_compose_name(path) or (
            keys <= _COMPOSE_TOP_KEYS | {k for k in keys if k.startswith("x-")}
            and all(isinstance(v, MappingNode) and ({"image", "build"} & {k.value for k, _ in y.items(v)})
                    for _, v in y.items(services)))):
        return "compose"
    if is_ci_path or keys & _CI_TOP_KEYS:
        return "ci"
    return None


# --- Compose ----------------------------------------------------------------------------

def compose_services(env, doc: Node) -> Iterator[Container]:
    for key, service in y.items(y.get(doc, "services")):
        if not isinstance(service, MappingNode):
            continue
        line, col = y.position(key)
        workload = _compose_workload(env, service)
        yield Container("compose", key.value, line, col, col + len(key.value),
                        workload.default_shm_evidence(), _compose_shm(service),
                        sized_evidence=workload.sized_shm_evidence())


def _compose_workload(env, service: MappingNode) -> Workload:
    image = y.scalar(y.get(service, "image"))
    workload = _image_workload(env, image, _compose_gpu(service))
    workload.gpu_count = _compose_gpu_count(service)
    words = _compose_words(y.get(service, "entrypoint")) + _compose_words(y.get(service, "command"))
    directory = _build_directory(env, service) if y.get(service, "build") is not None else None
    if not words and directory:  # no command in the file: the Dockerfile's CMD/ENTRYPOINT runs
        words = evidence.dockerfile_command(os.path.join(directory, _dockerfile_name(service)))
    _read_command(workload, words)
    if not workload.stack:
        workload.stack = _compose_build_context(env, service)
    if directory and words:  # only the Python files the command starts say what it runs
        workload.context_python = lambda: evidence.started_script_evidence(directory, words,
                                                                           bool(workload.accelerator))
    return workload


def _read_command(workload: Workload, words: List[str]) -> None:
    workload.command = evidence.command_kind(words)
    workload.processes = evidence.several_processes(words)
    workload.stack = workload.stack or evidence.ml_launcher(words)


def _dockerfile_name(service: MappingNode) -> str:
    build = y.get(service, "build")
    return (y.scalar(y.get(build, "dockerfile")) if isinstance(build, MappingNode) else None) or "Dockerfile"


def _compose_words(node: Optional[Node]) -> List[str]:
    """A Compose `command`/`entrypoint`: a list, or a string split as a shell would (read
    as a shell script when it chains commands, as many files assume)."""
    if isinstance(node, ScalarNode):
        if any(op in node.value for op in ("&&", "||", ";", "|", "\n")):
            return ["sh", "-c", node.value]
        try:
            return shlex.split(node.value)
        except ValueError:
            return node.value.split()
    return y.strings(node)


def _image_workload(env, image: Optional[str], gpu: Optional[str]) -> Workload:
    """What the image and an accelerator request say: the image's stack (by name, or by
    the Dockerfile that builds it in this repository) and whether the GPU counts."""
    stack = evidence.ml_image(image)
    other = evidence.other_framework(image)
    if image and not stack and not other and gpu and env is not None:
        env.reads_other_files = True
        built = repo_images.image_stack(image, repo_images.repository_root(env.directory, env.project_root))
        if built and built[0] == repo_images.TORCH:
            stack = built[1]
        elif built:
            other = True
    accelerator = None if other else evidence.gpu_for_ml(gpu, image)
    return Workload(stack=stack, accelerator=accelerator, cpu_build=evidence.cpu_build(image),
                    ray_image=evidence.ray_image(image))


def _build_directory(env, service: MappingNode) -> Optional[str]:
    build = y.get(service, "build")
    context = y.scalar(build) if isinstance(build, ScalarNode) else y.scalar(y.get(build, "context")) or "."
    if not context or "://" in context or context.startswith("git@") or "$" in context:
        return None
    env.reads_other_files = True
    return os.path.normpath(os.path.join(env.directory, context))


def _compose_build_context(env, service: MappingNode) -> Optional[str]:
    build = y.get(service, "build")
    if build is None:
        return None
    context = y.scalar(build) if isinstance(build, ScalarNode) else y.scalar(y.get(build, "context")) or "."
    dockerfile = y.scalar(y.get(build, "dockerfile")) if isinstance(build, MappingNode) else None
    if not context or "://" in context or context.startswith("git@") or "$" in context:
        return None
    env.reads_other_files = True
    directory = os.path.normpath(os.path.join(env.directory, context))
    reason = evidence.build_context(directory, dockerfile)
    return f"build context `{context}`: {reason}" if reason else None


def _compose_gpu(service: MappingNode) -> Optional[str]:
    if y.scalar(y.get(service, "runtime")) == "nvidia":
        return "`runtime: nvidia`"
    if y.get(service, "gpus") is not None:
        return "GPU request `gpus:`"
    for device in y.sequence(y.path(service, "deploy", "resources", "reservations", "devices")):
        capabilities = [c.lower() for c in y.strings(y.get(device, "capabilities"))]
        if "gpu" in capabilities or y.scalar(y.get(device, "driver")) == "nvidia":
            return "GPU reservation in `deploy.resources`"
    return None


def _compose_gpu_count(service: MappingNode) -> Optional[int]:
    """GPUs a Compose service reserves (`count: 2`, `device_ids: ["0", "1"]`, `gpus:` items);
    None when unknown (`count: all`, `gpus: all`, `runtime: nvidia`)."""
    devices = y.sequence(y.path(service, "deploy", "resources", "reservations", "devices"))
    devices += y.sequence(y.get(service, "gpus"))
    total = 0
    for device in devices:
        capabilities = [c.lower() for c in y.strings(y.get(device, "capabilities"))]
        if capabilities and "gpu" not in capabilities and y.scalar(y.get(device, "driver")) != "nvidia":
            continue
        ids = y.get(device, "device_ids")
        count = _int(y.scalar(y.get(device, "count")))
        if isinstance(ids, SequenceNode):
            total += len(ids.value)
        elif count is not None:
            total += count
        else:
            return None
    return total or None


def _int(text: Optional[str]) -> Optional[int]:
    try:
        return int(str(text).strip()) if text is not None else None
    except ValueError:
        return None


def _compose_shm(service: MappingNode) -> Shm:
    shm = Shm()
    ipc = (y.scalar(y.get(service, "ipc")) or "").strip()
    if ipc == "host" or ipc.startswith(("service:", "container:")):
        shm.host_ipc = True
    size = y.get(service, "shm_size")
    if isinstance(size, ScalarNode):
        shm.size, shm.size_at = size.value, y.position(size)
    elif isinstance(y.get(service, "build"), MappingNode) and y.get(y.get(service, "build"), "shm_size") is not None:
        shm.build_only = True
    for volume in y.sequence(y.get(service, "volumes")) + y.sequence(y.get(service, "tmpfs")):
        text = y.scalar(volume) or y.scalar(y.get(volume, "target")) or ""
        if "/dev/shm" in text:
            shm.host_ipc = True
    if "/dev/shm" in (y.scalar(y.get(service, "tmpfs")) or ""):
        shm.host_ipc = True
    return shm


# --- Kubernetes -------------------------------------------------------------------------

def kubernetes_containers(doc: Node, env=None) -> Iterator[Container]:
    seen = set()
    for workload, outer in _workloads(doc):
        name = y.scalar(y.path(workload, "metadata", "name"))
        owner = f"{y.scalar(y.get(workload, 'kind'))} `{name}`" if name else outer or \
            f"{y.scalar(y.get(workload, 'kind'))} `?`"
        policy = _torch_policy_processes(workload)
        for pod in _pod_specs(workload):
            if id(pod) in seen:
                continue
            seen.add(id(pod))
            yield from _pod_containers(pod, owner, env, policy)


def _torch_policy_processes(workload: MappingNode) -> Optional[Tuple[str, bool]]:
    """Several processes per node started by a Kubeflow operator's torch policy: a
    Trainer runtime's `mlPolicy.torch.numProcPerNode` or a PyTorchJob's `nprocPerNode`
    (other than 1). Returns (reason, whether the operator replaces the container's command:
    a Trainer runtime's command is only a default that each TrainJob's trainer replaces)."""
    kind = y.scalar(y.get(workload, "kind"))
    if kind in ("TrainingRuntime", "ClusterTrainingRuntime"):
        value = y.scalar(y.path(workload, "spec", "mlPolicy", "torch", "numProcPerNode"))
        field = "mlPolicy.torch.numProcPerNode"
    elif kind == "PyTorchJob":
        value = y.scalar(y.path(workload, "spec", "nprocPerNode"))
        field = "nprocPerNode"
    else:
        return None
    if value is None or value.strip() in ("", "1"):
        return None
    return f"{kind} `{field}: {value}` (torchrun with several processes per node)", kind != "PyTorchJob"


def _workloads(doc: Node) -> Iterator[Tuple[MappingNode, Optional[str]]]:
    """Workload mappings (`apiVersion` + a workload `kind`) in a document, also embedded
    ones (a Katib trial template, a CodeFlare AppWrapper, an ElasticJob's pod template);
    nothing below a KubeRay kind. Each with the named object it is embedded in (how a
    message names an anonymous pod template: ElasticJob `imagenet`), or None."""
    stack: List[Tuple[Node, Optional[str]]] = [(doc, None)]
    while stack:
        node, outer = stack.pop()
        if isinstance(node, MappingNode):
            kind = y.scalar(y.get(node, "kind"))
            if kind in KUBERAY_KINDS:
                continue
            if kind in WORKLOAD_KINDS and y.get(node, "apiVersion") is not None:
                yield node, outer
                continue
            name = y.scalar(y.path(node, "metadata", "name"))
            if kind and name:
                outer = f"{kind} `{name}`"
            stack.extend((v, outer) for _, v in reversed(list(y.items(node))))
        elif isinstance(node, SequenceNode):
            stack.extend((v, outer) for v in reversed(node.value))


def _pod_specs(workload: MappingNode) -> Iterator[MappingNode]:
    for node, key, _ in y.walk(workload):
        if isinstance(node, MappingNode) and isinstance(y.get(node, "containers"), SequenceNode):
            if y.scalar(y.get(node, "kind")) in KUBERAY_KINDS:
                continue
            yield node


def _pod_containers(pod: MappingNode, owner: str, env=None, policy=None) -> Iterator[Container]:
    host_ipc = y.truthy(y.get(pod, "hostIPC"))
    volumes = {y.scalar(y.get(v, "name")): v for v in y.sequence(y.get(pod, "volumes"))}
    for container in y.sequence(y.get(pod, "containers")):
        if not isinstance(container, MappingNode):
            continue
        name_key = y.key_node(container, "name")
        name = y.scalar(y.get(container, "name")) or "?"
        anchor = name_key or container
        line, col = y.position(anchor)
        end_col = col + (len(name_key.value) if name_key else 1)
        shm = Shm(host_ipc=host_ipc)
        _kubernetes_shm(container, volumes, shm)
        workload = _kubernetes_workload(container, env, policy)
        yield Container("kubernetes", name, line, col, end_col, workload.default_shm_evidence(), shm, owner,
                        sized_evidence=workload.sized_shm_evidence())


def _kubernetes_shm(container: MappingNode, volumes, shm: Shm) -> None:
    for mount in y.sequence(y.get(container, "volumeMounts")):
        if (y.scalar(y.get(mount, "mountPath")) or "").rstrip("/") != "/dev/shm":
            continue
        volume = volumes.get(y.scalar(y.get(mount, "name")))
        empty_dir = y.get(volume, "emptyDir") if volume is not None else None
        if volume is None:  # defined elsewhere (a patch, a template): trust the mount
            shm.unlimited_memory_volume = True
        elif (y.scalar(y.path(volume, "hostPath", "path")) or "").rstrip("/") == "/dev/shm":
            shm.host_ipc = True
        elif empty_dir is not None and (y.scalar(y.get(empty_dir, "medium")) or "").lower() == "memory":
            limit = y.get(empty_dir, "sizeLimit")
            if isinstance(limit, ScalarNode):
                shm.size, shm.size_at = limit.value, y.position(limit)
            else:
                shm.unlimited_memory_volume = True
        else:
            shm.not_memory_backed = True


def _kubernetes_workload(container: MappingNode, env, policy: Optional[Tuple[str, bool]]) -> Workload:
    image = y.scalar(y.get(container, "image"))
    workload = _image_workload(env, image, _kubernetes_gpu(container))
    workload.gpu_count = _kubernetes_gpu_count(container)
    command = y.strings(y.get(container, "command"))
    args = y.strings(y.get(container, "args"))
    # `args` alone run under the image's entrypoint: a known command only when they name a program
    words = command + args if command or (args and not args[0].startswith("-")) else []
    dockerfile = _built_here(env, image)
    if dockerfile and not command:  # the image's ENTRYPOINT/CMD, read from the Dockerfile that builds it
        default = evidence.dockerfile_command(dockerfile)
        words = (default + args) if args and args[0].startswith("-") and default else (words or default)
    _read_command(workload, words)
    if dockerfile and words:
        directory = os.path.dirname(dockerfile)
        workload.context_python = lambda: evidence.started_script_evidence(directory, words,
                                                                           bool(workload.accelerator))
    if policy and (workload.stack or workload.accelerator):
        reason, replaces_command = policy
        if replaces_command:
            workload.processes, workload.command = reason, evidence.HIDDEN
        elif workload.command != evidence.ONLY_UTILITIES:
            workload.processes = workload.processes or reason
    if workload.processes and not workload.accelerator and "ray start" not in workload.processes \
            and not _gpu_build(image):
        # no accelerator requested and no GPU build of an image (whose runtime may expose the
        # node's GPUs anyway): the ranks are CPU processes talking over gloo's TCP transport,
        # not through /dev/shm (a CPU PyTorchJob, `nprocPerNode: 2`)
        workload.processes = None
    return workload


def _gpu_build(image: Optional[str]) -> bool:
    """An image built for GPUs (`nvcr.io/nvidia/pytorch`, a `-cuda` or `-gpu` tag)."""
    name = (image or "").lower()
    return name.startswith("nvcr.io/") or any(part in name for part in ("cuda", "gpu", "rocm"))


def _built_here(env, image: Optional[str]) -> Optional[str]:
    """The Dockerfile of this repository that builds `image` (unique match), or None."""
    if env is None or not image:
        return None
    env.reads_other_files = True
    return repo_images.image_dockerfile(image, repo_images.repository_root(env.directory, env.project_root))


def _kubernetes_gpu_count(container: MappingNode) -> Optional[int]:
    counts = []
    for section in ("limits", "requests"):
        for key, value in y.items(y.path(container, "resources", section)):
            if key.value.startswith("nvidia.com/") and "gpu" in key.value:
                counts.append(_int(y.scalar(value)))
    known = [c for c in counts if c is not None]
    return max(known) if known else None


def _kubernetes_gpu(container: MappingNode) -> Optional[str]:
    for section in ("limits", "requests"):
        for key, _ in y.items(y.path(container, "resources", section)):
            if key.value.startswith("nvidia.com/") and ("gpu" in key.value or "mig-" in key.value):
                return f"GPU request `{key.value}`"
    return None


# --- docker run -------------------------------------------------------------------------

def docker_runs(command_list: Sequence[Command], env=None) -> Iterator[Container]:
    variables = {}  # IMAGE=pytorch/pytorch:... earlier in the script: `docker run "$IMAGE"` reads it
    for command in command_list:
        if command.program_index() is None:
            for name, value, _ in assignments(command):
                variables[name] = value
            continue
        found = _docker_run(command, variables, env)
        if found is not None:
            yield found


def _docker_run(command: Command, variables=None, env=None) -> Optional[Container]:
    index = command.program_index()
    if index is None:
        return None
    words = command.words
    program = words[index]
    base = program.value.rsplit("/", 1)[-1]
    if base not in ("docker", "podman", "nvidia-docker"):
        return None
    rest = list(words[index + 1:])
    if rest[:2] and rest[0].value == "container":
        rest = rest[1:]
    if not rest or rest[0].value != "run":
        return None
    shm = Shm()
    entrypoint = None
    gpu = "`nvidia-docker`" if base == "nvidia-docker" else None
    gpu_count = None
    image, tail = None, []
    options = _options(rest[1:])
    for name, value, value_word in options["parsed"]:
        if name == "--shm-size":
            shm.size = value
            shm.size_at = (value_word.line, value_word.col + 1) if value_word else None
        elif name == "--ipc" and (value == "host" or value.startswith("container:")):
            shm.host_ipc = True
        elif name in ("-v", "--volume", "--mount", "--tmpfs") and "/dev/shm" in value:
            shm.host_ipc = True
        elif name == "--gpus":
            gpu = gpu or "GPU request `--gpus`"
            gpu_count = _docker_gpu_count(value)
        elif name == "--runtime" and value in ("nvidia", "habana"):
            gpu = gpu or f"`--runtime={value}`"
        elif name == "--entrypoint":
            entrypoint = value
        elif name == "--device" and "nvidia.com/gpu" in value:
            gpu = gpu or "GPU request `--device nvidia.com/gpu`"
    image, tail = options["image"], options["tail"]
    image_name = _expand(image.value, variables or {}) if image else None
    command = ([entrypoint] if entrypoint else []) + [w.value for w in tail]
    if command and evidence.runs_only_utilities(command):
        return None
    workload = _image_workload(env, image_name, gpu)
    workload.gpu_count = gpu_count
    _read_command(workload, command)
    return Container("docker run", image_name or "?", program.line, program.col + 1,
                     program.col + 1 + len(program.raw), workload.default_shm_evidence(), shm,
                     sized_evidence=workload.sized_shm_evidence())


def _docker_gpu_count(value: str) -> Optional[int]:
    """GPUs of `--gpus 2`, `--gpus '"device=0,1"'`, `--gpus count=2`; None for `all` or unknown."""
    text = value.strip().strip("'\"")
    if text.isdigit():
        return int(text)
    for part in text.split(","):
        if part.startswith("count=") and part[6:].isdigit():
            return int(part[6:])
    if text.startswith("device="):
        return len([d for d in text[7:].split(",") if d.strip()])
    return None


def _expand(value: str, variables) -> str:
    """`$NAME` / `${NAME}` replaced by values assigned earlier in the script (unknown ones kept)."""
    if "$" not in value:
        return value
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)",
                  lambda m: variables.get(m.group(1) or m.group(2), m.group(0)), value)


def _options(words: List[Word]):
    parsed = []
    i = 0
    while i < len(words):
        word = words[i]
        value = word.value
        if value == "--":
            i += 1
            break
        if not value.startswith("-") or value == "-":
            break
        if "=" in value and value.startswith("--"):
            name, _, inline = value.partition("=")
            offset = word.raw.find("=") + 1
            parsed.append((name, inline, Word(word.raw[offset:], inline, word.line, word.col + offset,
                                               word.end_col)))
            i += 1
            continue
        if value in _DOCKER_FLAGS or (not value.startswith("--") and len(value) > 2 and set(value[1:]) <= _SHORT_FLAG_LETTERS):
            parsed.append((value, "", None))
            i += 1
            continue
        if not value.startswith("--") and len(value) > 2:  # -p8080:80, -eFOO=1
            parsed.append((value[:2], value[2:], None))
            i += 1
            continue
        following = words[i + 1] if i + 1 < len(words) else None
        parsed.append((value, following.value if following else "", following))
        i += 2
    image = words[i] if i < len(words) else None
    return {"parsed": parsed, "image": image, "tail": words[i + 1:]}


# --- CI workflows -----------------------------------------------------------------------

def ci_containers(doc: Node, lines: List[str], env=None) -> Iterator[Container]:
    """`docker run` in CI scripts, and job containers with their `options`."""
    for node, key, parent in y.walk(doc):
        if isinstance(node, ScalarNode) and key in _SCRIPT_KEYS:  # keys themselves come with key None
            if "run" not in node.value:
                continue
            text, first_line, col = y.scalar_text(node, lines)
            yield from docker_runs(commands(text, offsets_origin(text, first_line, col)), env)
        elif isinstance(node, MappingNode) and key in ("container", "containers"):
            # (a scalar `container: name` is an Azure resource alias or an image: not read)
            container = _ci_container(node, lines, env)
            if container is not None:
                yield container


def _ci_container(node: MappingNode, lines: List[str], env=None) -> Optional[Container]:
    image_key = y.key_node(node, "image")
    image = y.scalar(y.get(node, "image"))
    if image_key is None or not image:
        return None
    options_node = y.get(node, "options")
    options = y.scalar(options_node) or ""
    words: List[Word] = []
    if isinstance(options_node, ScalarNode):
        text, first_line, col = y.scalar_text(options_node, lines)
        words = [w for c in commands(text, offsets_origin(text, first_line, col)) for w in c.words]
    line, col = y.position(image_key)
    run = _docker_run(Command(tuple([Word("docker", "docker", line, col - 1, col - 1), Word("run", "run", line, col - 1,
                                                                                            col - 1)] + words
                                    + [Word(image, image, line, col - 1, col - 1)])), env=env)
    if run is None:
        return None
    run.source, run.name, run.line, run.col, run.end_col = "ci container", image, line, col, col + len("image")
    # A CI job container runs the job's steps, mostly builds and CPU tests: only an
    # accelerator request in its options makes it an ML workload.
    accelerator = any(opt in options for opt in ("--gpus", "--runtime=nvidia", "--runtime=habana", "--runtime nvidia",
                                                 "--runtime habana", "--device"))
    if not accelerator:
        return None
    return run
