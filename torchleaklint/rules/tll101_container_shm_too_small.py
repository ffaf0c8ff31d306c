"""TLL101: an ML container gets Docker's 64 MB `/dev/shm`."""

from __future__ import annotations

from typing import Iterator

from torchleaklint.environment import SHELL, YAML
from torchleaklint.environment.model import EnvFinding
from torchleaklint.rules.base import Rule

_SIZE_ADVICE = "Ray recommends at least 30% of the container's memory"
_WHAT_FAILS = ("DataLoader workers, NCCL and Ray's object store use /dev/shm, and when it fills the job dies "
               "with `Bus error`, `free(): double free` or a lost Ray worker")
# A Ray node with nothing else shown (no GPU, no DataLoader workers): Ray itself notices.
_WHAT_RAY_DOES = ("Ray's object store lives in /dev/shm; with 64 MB Ray moves it to /tmp (\"The object store is "
                  "using /tmp instead of /dev/shm\"), which is much slower, and workers that share objects in "
                  "it can fail")


def _what_fails(evidence: str) -> str:
    ray_only = "ray" in evidence.lower() and not any(
        word in evidence for word in ("GPU", "NCCL", "DataLoader", "torchrun", "deepspeed", "accelerate"))
    return _WHAT_RAY_DOES if ray_only else _WHAT_FAILS


class ContainerShmTooSmall(Rule):
    """An ML container runs with Docker's default 64 MB `/dev/shm`.

    ## What it does
    Finds containers of an ML workload whose `/dev/shm` keeps Docker's default size:
    a Compose service without `shm_size` or `ipc: host` (a `build: {shm_size: ...}` alone
    sizes only the build container), a Kubernetes workload container (Pod, Deployment,
    StatefulSet, Job, CronJob, DaemonSet, ReplicaSet, Kubeflow PyTorchJob/TFJob/MPIJob and
    trainer runtimes, JobSet, LeaderWorkerSet) without a volume backed by
    `emptyDir: {medium: Memory}` mounted at `/dev/shm`, a `docker run` / `podman run` in a
    shell script or CI step, or a CI job container, without `--shm-size` or `--ipc=host`;
    and an explicit size under 1 GB.

    Evidence. A finding is a claim that the container USES /dev/shm in a way that can
    exhaust 64 MB, and rests on proof of it, link by link; what cannot be seen stays quiet.
    A container with Docker's default `/dev/shm` is reported on one of:

    - several processes on the node: `torchrun`/`python -m torch.distributed.run` with
      `--nproc-per-node` other than 1, `deepspeed`, `accelerate launch`, also inside
      `bash -c`; a Kubeflow Trainer runtime's `mlPolicy.torch.numProcPerNode` or a
      PyTorchJob's `nprocPerNode` other than 1;
    - a Ray node (`ray start`: the object store lives in /dev/shm);
    - two or more GPUs requested by one container of a PyTorch stack (`nvidia.com/gpu: 4`,
      Compose `count: 2` or two `device_ids`, `--gpus 2`, `--gpus '"device=0,1"'`): NCCL's
      ranks on one host talk through /dev/shm. The stack is an image `pytorch/pytorch`,
      `nvcr.io/nvidia/pytorch`, `rayproject/ray*` or with `torch` in its name, an image the
      same repository builds from a PyTorch Dockerfile (`org/name-gpu` <-
      `name/Dockerfile.gpu`, unique match), or a Compose build context that installs torch;
    - Python that the container's command runs and that uses `DataLoader(num_workers>0)`,
      `torch.distributed` or ray: the script a command starts (`python train.py`, `python
      -m pkg.train`, also inside `bash -c`), found in the Compose build context or beside the
      Dockerfile that builds the image; when the file gives no command, the Dockerfile's
      `ENTRYPOINT`/`CMD` is the command. torch.distributed, and workers set only under CUDA
      (`{'num_workers': 1} if use_cuda else {}`), count only where a GPU is requested: on
      CPU torch.distributed is gloo, which uses sockets.

    Not proof, so quiet: a GPU request alone (`--gpus all`, `count: all`, `runtime: nvidia`,
    one GPU: scheduling demos, download jobs, web frontends, vector databases and other
    frameworks' GPU servers request GPUs too); a PyTorch image or a torch-installing build
    context whose command is unknown or starts one process that shows no workers; a notebook
    server; a serving process (`torchserve`, `uvicorn`, a NIM); a command that runs only
    utilities, installs or builds (`nvidia-smi`, sleep loops, `pip install`, `python
    setup.py`, a `python -c` smoke check). An explicit size under 1 GB is reported on a
    PyTorch/Ray stack or the proof above (the size says shared memory is expected to be used).

    ## Why is this bad?
    Docker gives every container 64 MB of `/dev/shm`. DataLoader worker processes hand
    batches to the main process through it, NCCL puts its buffers there, and Ray's object
    store lives there (Ray warns: "The object store is using /tmp instead of /dev/shm
    because /dev/shm has only 67108864 bytes available"). When it fills, the job dies
    with `Bus error`, `unhandled system error`, `free(): double free` or
    `RayActorError ... connection error code 2`, usually hours in, and nothing points at
    the container.

    ## Known problems
    Not reported: KubeRay `RayCluster`/`RayJob`/`RayService` (the operator mounts
    `/dev/shm` itself), containers sharing the host's IPC namespace (`ipc: host`,
    `hostIPC: true`, `--ipc=host`) or the host's `/dev/shm`, containers without the
    proof above, and YAML templates (Helm) that do not parse. Quiet by design, so
    missed: a container whose script starts DataLoader workers unseen (its image built
    elsewhere, its Python not in the repository, `num_workers` read from arguments or a
    config), single-GPU serving or notebooks that do start workers, a GPU CI job container
    whose steps run multi-process tests (the job container's options show only the runtime). Host IPC is enough memory but security
    linters object to it; prefer an explicit size. The rule cannot know the container's
    memory limit, so it asks for 1 GB at least; the message gives the lines to add.

    ## Example
    ```yaml
    services:
      trainer:
        image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
        command: torchrun --nproc-per-node 4 train.py
    ```

    ## Use instead
    ```yaml
    services:
      trainer:
        image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
        command: torchrun --nproc-per-node 4 train.py
        shm_size: "8gb"
    ```

    In Kubernetes, mount a memory-backed volume:
    ```yaml
    volumes:
      - name: dshm
        emptyDir: {medium: Memory, sizeLimit: 8Gi}
    # and in the container:
    volumeMounts:
      - name: dshm
        mountPath: /dev/shm
    ```

    ## Fix safety
    No automatic fix: the right size depends on the container's memory (Ray recommends at
    least 30% of it). Suppress with `# noqa: TLL101` as a comment on the reported line.

    ## References
    - Docker: `docker run --shm-size`; Compose `shm_size`
    - PyTorch: "Please note that PyTorch uses shared memory to share data between processes"
      (the `docker run` note in pytorch/pytorch's README)
    - Ray: "Ray on Kubernetes: /dev/shm" (KubeRay mounts a memory-backed volume)
    """

    code = "TLL101"
    name = "container-shm-too-small"
    summary = "ML container runs with Docker's default 64 MB `/dev/shm`"
    kinds = (YAML, SHELL)
    env_tokens = ("container", "services", "docker", "podman")

    def check(self, model):  # reads no Python
        return ()

    def check_environment(self, env) -> Iterator[EnvFinding]:
        from torchleaklint.environment import containers as c

        if env.kind == SHELL:
            found = c.docker_runs(env.shell_commands(), env)
        else:
            found = self._yaml_containers(env)
        for container in found:
            finding = self._finding(container)
            if finding is not None:
                yield finding

    def _yaml_containers(self, env):
        from torchleaklint.environment import containers as c

        for doc in env.documents():
            kind = c.document_kind(doc, env.path, env.is_ci_path)
            if kind == "compose":
                yield from c.compose_services(env, doc)
            elif kind == "kubernetes":
                yield from c.kubernetes_containers(doc, env)
            elif kind == "ci":
                yield from c.ci_containers(doc, env.lines, env)

    def _finding(self, container):
        from torchleaklint.environment.evidence import ONE_GB, size_bytes

        shm = container.shm
        if shm.host_ipc:
            return None
        if shm.size is not None:
            if not container.sized_evidence:
                return None
            size = size_bytes(shm.size, kubernetes=container.source == "kubernetes")
            if size is None or size >= ONE_GB:
                return None
            line, col = shm.size_at or (container.line, container.col)
            return EnvFinding(line, col, f"{self._subject(container)} sets /dev/shm to `{shm.size}`, under 1 GB, "
                              f"for an ML workload ({container.sized_evidence}): {_WHAT_FAILS}; give it several GB "
                              f"({_SIZE_ADVICE})", line, col + len(shm.size))
        if shm.unlimited_memory_volume or not container.evidence:
            return None
        message = f"{self._subject(container)} uses /dev/shm ({container.evidence}) with " + \
            self._default_shm(container) + f": {_what_fails(container.evidence)}; {self._advice(container)}"
        return EnvFinding(container.line, container.col, message, container.line, container.end_col)

    @staticmethod
    def _subject(container) -> str:
        if container.source == "compose":
            return f"Compose service `{container.name}`"
        if container.source == "kubernetes":
            return f"container `{container.name}` of {container.owner}"
        if container.source == "ci container":
            return f"CI job container `{container.name}`"
        return f"`docker run` of `{container.name}`"

    @staticmethod
    def _default_shm(container) -> str:
        if container.shm.not_memory_backed:
            return "a /dev/shm volume that is not memory-backed (`emptyDir: {medium: Memory}`)"
        if container.shm.build_only:
            return "Docker's default 64 MB /dev/shm (`build.shm_size` sizes only the build container)"
        if container.source == "kubernetes":
            return "the container runtime's default 64 MB /dev/shm"
        return "Docker's default 64 MB /dev/shm"

    @staticmethod
    def _advice(container) -> str:
        if container.source == "compose":
            return f'add `shm_size: "8gb"` to the service ({_SIZE_ADVICE})'
        if container.source == "kubernetes":
            return ("add a volume `{name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}` to the pod and "
                    f"`{{name: dshm, mountPath: /dev/shm}}` to the container's volumeMounts ({_SIZE_ADVICE})")
        if container.source == "ci container":
            return f"add `--shm-size=8g` to the container's options ({_SIZE_ADVICE})"
        return f"add `--shm-size=8g` ({_SIZE_ADVICE})"
