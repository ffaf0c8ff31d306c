"""Whether a container USES /dev/shm so that 64 MB can run out: TLL101's evidence rule.

The specification's ML workload evidence (a PyTorch/Ray image, a GPU request, a launcher,
a build context that installs torch or ray) says what a container IS. /dev/shm is used by
what it RUNS, and a finding is a claim about run time, proven link by link (patterns.md,
"What a finding must rest on"). So a container with Docker's default /dev/shm is reported
only on proof that it uses shared memory:

- several processes on the node: a launcher with more than one local process (`torchrun
  --nproc-per-node 4`, `deepspeed`, `accelerate launch`), a Kubeflow job whose torch policy
  starts them (`numProcPerNode: auto`, `nprocPerNode: 4`), or a Ray node (`ray start`: the
  object store lives in /dev/shm);
- two or more GPUs requested by one container of a PyTorch stack: NCCL's ranks on one host
  talk through /dev/shm;
- Python that the container's command runs (its own command, or the Dockerfile's
  CMD/ENTRYPOINT when none is given) and that uses `DataLoader(num_workers>0)`,
  `torch.distributed` or ray.

Not proven, so quiet: a GPU request alone (a scheduling demo, a download job, a web
frontend, another framework's GPU server), a PyTorch image or a torch-installing build
context with an unknown or single-process command, a notebook server, a serving process,
a command that runs only utilities. An explicit size under 1 GB needs a PyTorch/Ray stack
or the proof above: the size says the author expects shared memory to be used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from torchleaklint.environment import evidence


@dataclass
class Workload:
    stack: Optional[str] = None  # a PyTorch/Ray stack: image, image built here, build context, launcher
    accelerator: Optional[str] = None  # an accelerator request on an image not of another framework
    gpu_count: Optional[int] = None  # GPUs the request names (None: unknown, e.g. `count: all`)
    processes: Optional[str] = None  # several local processes or a Ray node
    command: str = evidence.HIDDEN  # evidence.HIDDEN / ONLY_UTILITIES / INTERACTIVE / VISIBLE
    cpu_build: bool = False
    ray_image: bool = False
    # Python the container's command runs (DataLoader workers, torch.distributed, ray): read only when needed
    context_python: Optional[Callable[[], Optional[str]]] = None

    def default_shm_evidence(self) -> Optional[str]:
        """Proof that a container with the default 64 MB /dev/shm uses it, or None."""
        if self.command == evidence.ONLY_UTILITIES:
            return None
        use = self.processes or self._several_gpus() or (self.context_python() if self.context_python else None)
        if not use:
            return None
        if not self.stack or use in self.stack or use.startswith(self.stack):
            return use  # `ray start` (a Ray node: ...) already names the launcher
        return f"{self.stack}; {use}"

    def _several_gpus(self) -> Optional[str]:
        if self.stack and self.accelerator and self.gpu_count is not None and self.gpu_count >= 2:
            return f"{self.accelerator} for {self.gpu_count} GPUs in one container (NCCL ranks share /dev/shm)"
        return None

    def sized_shm_evidence(self) -> Optional[str]:
        """Why an explicit size under 1 GB is reported (a PyTorch/Ray stack or proof of use), or None."""
        if self.command == evidence.ONLY_UTILITIES:
            return None
        return evidence.first((self.stack, self.processes))
