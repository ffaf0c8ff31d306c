"""Whether a container runs something that fills /dev/shm: TLL101's evidence rule.

The specification's ML workload evidence (a PyTorch/Ray image, a GPU request, a launcher,
a build context that installs torch or ray) says what a container is. /dev/shm is used by
what it runs: DataLoader workers, NCCL (GPUs), several processes of a launcher, Ray's
object store. So a container with Docker's default /dev/shm is reported on one of:

- an accelerator request (`nvidia.com/gpu`, `--gpus`, `runtime: nvidia`, `--runtime=habana`)
  on an image that is not another framework's stack (TensorFlow, JAX, MindSpore, Paddle);
- a command that starts several processes per node (`torchrun --nproc-per-node 4`,
  `deepspeed`, `accelerate launch`) or a Ray node (`ray start`), or a Kubeflow job whose
  torch policy does (`numProcPerNode: auto`);
- Python in its build context that uses DataLoader workers, torch.distributed or ray;
- a PyTorch/Ray stack (image, image built in the repository, build context) whose command
  is not shown (the image's default runs, unseen) and whose image is not a CPU-only build,
  or that runs a notebook server (users run their own DataLoaders there).

Not reported: a known command that runs only utilities (`nvidia-smi`, `echo`, sleep loops);
a known command on a container without accelerator that starts one process (`python
train.py`, a single-process `torchrun`, `pip install && python export.py`): on CPU no NCCL
runs and whether the script starts DataLoader workers cannot be seen, so it stays quiet.
An explicit size under 1 GB needs the stack evidence only: the size says the author expects
shared memory to be used.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from torchleaklint.environment import evidence


@dataclass
class Workload:
    stack: Optional[str] = None  # a PyTorch/Ray stack: image, image built here, build context, launcher
    accelerator: Optional[str] = None  # an accelerator request on an image not of another framework
    processes: Optional[str] = None  # several local processes or a Ray node
    command: str = evidence.HIDDEN  # evidence.HIDDEN / ONLY_UTILITIES / INTERACTIVE / VISIBLE
    cpu_build: bool = False
    ray_image: bool = False
    # Python of a build context (DataLoader workers, torch.distributed, ray): read only when needed
    context_python: Optional[Callable[[], Optional[str]]] = None

    def default_shm_evidence(self) -> Optional[str]:
        """Why a container with the default 64 MB /dev/shm is reported, or None."""
        if self.command == evidence.ONLY_UTILITIES:
            return None
        use = self.accelerator or self.processes or (self.context_python() if self.context_python else None)
        if use:
            return f"{self.stack}; {use}" if self.stack and use not in self.stack else use
        if not self.stack:
            return None
        if self.command == evidence.INTERACTIVE:
            return f"{self.stack}; a notebook server, where users run their own DataLoaders"
        if self.command == evidence.HIDDEN and (self.ray_image or not self.cpu_build):
            return self.stack
        return None

    def sized_shm_evidence(self) -> Optional[str]:
        """Why an explicit size under 1 GB is reported (any ML evidence), or None."""
        if self.command == evidence.ONLY_UTILITIES:
            return None
        return evidence.first((self.stack, self.accelerator, self.processes))
