"""TLL101's evidence rule (torchleaklint/environment/workload.py): a container is reported
on proof that it uses /dev/shm (several processes, several GPUs of a PyTorch stack, Python it
runs that starts DataLoader workers, torch.distributed or ray), not merely when torch is in
its image or it requests a GPU."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from cli_run import run
from torchleaklint.config import Settings
from torchleaklint.engine import lint_file
from torchleaklint.environment import evidence


@pytest.mark.parametrize("words, several", [
    (["torchrun", "--nproc-per-node", "4", "train.py"], True),
    (["torchrun", "--nproc_per_node=gpu", "train.py"], True),
    (["torchrun", "--nproc_per_node=$NUM_GPUS", "train.py"], True),
    (["torchrun", "--nnodes=4", "--nproc_per_node=1", "train.py"], False),
    (["torchrun", "train.py"], False),  # torchrun's default: one process
    (["python", "-m", "torch.distributed.run", "--nproc-per-node=2", "eval.py"], True),
    (["python", "-m", "torch.distributed.launch", "train.py"], False),
    (["deepspeed", "train.py"], True),  # deepspeed's default: every GPU
    (["deepspeed", "--num_gpus", "1", "train.py"], False),
    (["accelerate", "launch", "train.py"], True),  # from accelerate's config
    (["accelerate", "launch", "--num_processes", "1", "train.py"], False),
    (["ray", "start", "--head", "--block"], True),
    (["bash", "-c", "pip install -e . && torchrun --nproc-per-node 8 train.py"], True),
    (["bash", "-xc", "torchrun --nproc_per_node=1 mnist.py"], False),
    (["python", "train.py"], False),
])
def test_several_processes(words, several):
    assert bool(evidence.several_processes(words)) is several


@pytest.mark.parametrize("words, kind", [
    ([], evidence.HIDDEN),
    (["nvidia-smi"], evidence.ONLY_UTILITIES),
    (["/bin/bash", "-c", "--", "while true; do sleep 30; done;"], evidence.ONLY_UTILITIES),
    (["python", "-c", "import torch; print(torch.cuda.is_available())"], evidence.ONLY_UTILITIES),
    (["python", "-c", "from app import train; train.main()"], evidence.VISIBLE),
    (["python", "-c", "for i in range(3): print(i)"], evidence.VISIBLE),
    (["bash", "-c", "pip install -r requirements.txt && python setup.py bdist_wheel"], evidence.ONLY_UTILITIES),
    (["python3", "-m", "pip", "install", "-e", "."], evidence.ONLY_UTILITIES),
    (["bash", "-c", "pip install -r requirements.txt && python save_jit_model.py"], evidence.VISIBLE),
    (["jupyter", "lab", "--ip=0.0.0.0"], evidence.INTERACTIVE),
    (["/bin/bash"], evidence.VISIBLE),  # a shell kept for `docker exec`: whatever is run there
])
def test_command_kind(words, kind):
    assert evidence.command_kind(words) == kind


@pytest.mark.parametrize("image, cpu", [
    ("pytorch/torchserve:latest-cpu", True),
    ("ghcr.io/kubeflow/katib/pytorch-mnist-cpu:latest", True),
    ("myorg/trainer:cpu", True),
    ("pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime", False),
    ("myorg/cpu-gpu-trainer:1", False),
    ("myorg/cpuinfo:1", False),
])
def test_cpu_build(image, cpu):
    assert evidence.cpu_build(image) is cpu


def _write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


JOB = """\
    apiVersion: batch/v1
    kind: Job
    metadata: {name: trial}
    spec:
      template:
        spec:
          containers:
            - name: trial
              image: ghcr.io/acme/cnn-search-gpu:1.0
              command: ["python3", "run_trial.py"]
              resources: {limits: {nvidia.com/gpu: 2}}
"""


@pytest.mark.parametrize("base, reported", [
    ("nvcr.io/nvidia/pytorch:24.01-py3", True),
    ("nvcr.io/nvidia/tensorflow:22.12-tf2-py3", False),
    ("jax/jax:latest", False),
])
def test_gpu_image_built_in_the_repository_is_judged_by_its_dockerfile(tmp_path, base, reported):
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "images/cnn-search/Dockerfile.gpu", f"FROM {base}\nCOPY . /app\n")
    manifest = _write(tmp_path, "deploy/job.yaml", JOB)
    found = lint_file(str(manifest), Settings(project_root=str(tmp_path)))
    assert [d.code for d in found] == (["TLL101"] if reported else [])
    if reported:
        assert "images/cnn-search/Dockerfile.gpu" in found[0].message


def test_gpu_image_with_two_matching_dockerfiles_that_disagree_is_unknown_and_quiet(tmp_path):
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "a/cnn-search/Dockerfile.gpu", "FROM nvcr.io/nvidia/pytorch:24.01-py3\n")
    _write(tmp_path, "b/cnn-search/Dockerfile.gpu", "FROM python:3.11\n")
    manifest = _write(tmp_path, "job.yaml", JOB)
    assert lint_file(str(manifest), Settings(project_root=str(tmp_path))) == []


@pytest.mark.parametrize("gpus, reported", [("2", True), ("8", True), ("1", False)])
def test_several_gpus_of_a_pytorch_stack_are_proof_and_one_is_not(tmp_path, gpus, reported):
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "images/cnn-search/Dockerfile.gpu", "FROM nvcr.io/nvidia/pytorch:24.01-py3\n")
    manifest = _write(tmp_path, "job.yaml", JOB.replace("nvidia.com/gpu: 2", f"nvidia.com/gpu: {gpus}"))
    found = lint_file(str(manifest), Settings(project_root=str(tmp_path)))
    assert [d.code for d in found] == (["TLL101"] if reported else [])
    if reported:
        assert f"{gpus} GPUs in one container" in found[0].message


@pytest.mark.parametrize("image", ["registry.k8s.io/e2e-test-images/agnhost:2.53", "registry.k8s.io/nginx-slim:0.27",
                                   "milvusdb/milvus:v2.4.15-gpu", "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.0"])
def test_a_gpu_request_alone_is_not_proof(tmp_path, image):
    manifest = _write(tmp_path, "job.yaml", JOB.replace("ghcr.io/acme/cnn-search-gpu:1.0", image))
    assert lint_file(str(manifest), Settings(project_root=str(tmp_path))) == []


def test_cache_never_serves_a_stale_repository_image(tmp_path):
    (tmp_path / ".git").mkdir()
    dockerfile = _write(tmp_path, "images/cnn-search/Dockerfile.gpu",
                        "FROM nvcr.io/nvidia/tensorflow:22.12-tf2-py3\n")
    _write(tmp_path, "job.yaml", JOB)
    args = [str(tmp_path), "--cache-dir", str(tmp_path / ".cache"), "--output-format", "json", "--select", "TLL101"]
    assert json.loads(run(args, cwd=str(tmp_path)).stdout) == []
    dockerfile.write_text("FROM nvcr.io/nvidia/pytorch:24.01-py3\n", encoding="utf-8")
    assert [d["code"] for d in json.loads(run(args, cwd=str(tmp_path)).stdout)] == ["TLL101"]


def test_build_context_python_with_dataloader_workers_is_evidence_for_a_cpu_script(tmp_path):
    _write(tmp_path, "app/Dockerfile", "FROM python:3.11-slim\nCOPY . /app\n")
    _write(tmp_path, "app/train.py",
           "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=8)\n")
    compose = _write(tmp_path, "docker-compose.yml", """\
        services:
          train:
            build: ./app
            command: python train.py
    """)
    [finding] = lint_file(str(compose), Settings(project_root=str(tmp_path)))
    assert "DataLoader workers" in finding.message
    for command in ("uvicorn api:app", "python other.py", "bash -c 'python -m pip install . && python serve.py'"):
        compose.write_text(compose.read_text().rsplit("command:", 1)[0] + f'command: "{command}"\n')
        assert lint_file(str(compose), Settings(project_root=str(tmp_path))) == [], command
    compose.write_text(compose.read_text().rsplit("command:", 1)[0] + 'command: ["bash", "-c", "python ./train.py"]\n')
    assert len(lint_file(str(compose), Settings(project_root=str(tmp_path)))) == 1
    (tmp_path / "app" / "train.py").write_text("print('no loader')\n", encoding="utf-8")
    evidence.build_context_python.cache_clear()
    evidence.build_context.cache_clear()
    assert lint_file(str(compose), Settings(project_root=str(tmp_path))) == []


def test_explicit_small_size_needs_only_the_stack(tmp_path):
    compose = _write(tmp_path, "docker-compose.yml", """\
        services:
          train:
            image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
            command: python train.py
            shm_size: 256m
          smoke:
            image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
            command: nvidia-smi
            shm_size: 256m
    """)
    assert [(d.line, d.code) for d in lint_file(str(compose), Settings())] == [(5, "TLL101")]


@pytest.mark.parametrize("command, reported", [
    ("pip install -e . && accelerate launch train.py", True),
    ("torchrun --nproc-per-node 4 train.py", True),
    ("python train.py", False),
    ("pip install -e . && python setup.py develop", False),
    ("sleep infinity", False),
])
def test_compose_string_command(tmp_path, command, reported):
    compose = _write(tmp_path, "docker-compose.yml", f"""\
        services:
          train:
            image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
            command: {command}
    """)
    assert len(lint_file(str(compose), Settings())) == (1 if reported else 0)


@pytest.mark.parametrize("cmd, reported", [
    ('CMD ["torchrun", "--nproc-per-node", "4", "train.py"]', True),
    ('CMD ["python", "train.py"]', True),  # train.py starts DataLoader workers
    ('ENTRYPOINT ["python"]\nCMD ["/app/train.py"]', True),  # a path inside the image, copied from the context
    ('CMD ["uvicorn", "app:app", "--host", "0.0.0.0"]', False),  # a server, though train.py sits beside it
    ("CMD python serve.py", False),
    ("", False),  # neither CMD nor ENTRYPOINT: the base image's default, unseen
])
def test_compose_service_without_command_runs_the_dockerfile_cmd(tmp_path, cmd, reported):
    _write(tmp_path, "app/Dockerfile", f"FROM python:3.11-slim\nRUN pip install torch\nCOPY . /app\n{cmd}\n")
    _write(tmp_path, "app/train.py", "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4)\n")
    _write(tmp_path, "app/serve.py", "import onnxruntime\n")
    compose = _write(tmp_path, "docker-compose.yml", "services:\n  api:\n    build: ./app\n")
    found = lint_file(str(compose), Settings(project_root=str(tmp_path)))
    assert len(found) == (1 if reported else 0)


def test_a_dockerfile_stage_resets_the_command():
    dockerfile = 'FROM a AS build\nCMD ["torchrun", "x.py"]\nFROM b\nENTRYPOINT ["uvicorn", "app:app"]\n'
    import tempfile, os
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "Dockerfile")
        Path(path).write_text(dockerfile, encoding="utf-8")
        assert evidence.dockerfile_command(path) == ["uvicorn", "app:app"]


def test_kubernetes_command_script_is_read_from_the_dockerfile_that_builds_the_image(tmp_path):
    """Kubeflow's MNIST example: the script copied to /opt/mnist/src builds DataLoaders with
    `{'num_workers': 1}` kwargs; the gloo send/recv smoke test uses no workers."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "examples/mnist/Dockerfile",
           "FROM pytorch/pytorch:1.0-cuda10.0-cudnn7-runtime\nWORKDIR /opt/mnist/src\n"
           "ADD mnist.py /opt/mnist/src/mnist.py\nENTRYPOINT [\"python\", \"/opt/mnist/src/mnist.py\"]\n")
    _write(tmp_path, "examples/mnist/mnist.py",
           "kwargs = {'num_workers': 1, 'pin_memory': True} if use_cuda else {}\n"
           "loader = torch.utils.data.DataLoader(train, **kwargs)\n")
    job = _write(tmp_path, "examples/mnist/job.yaml", """\
        apiVersion: batch/v1
        kind: Job
        metadata: {name: mnist}
        spec:
          template:
            spec:
              containers:
                - name: pytorch
                  image: gcr.io/acme/mnist:1.0
                  args: ["--backend", "nccl"]
                  resources: {limits: {nvidia.com/gpu: 1}}
    """)
    [finding] = lint_file(str(job), Settings(project_root=str(tmp_path)))
    assert "mnist.py` in the build context uses DataLoader workers" in finding.message
    (tmp_path / "examples/mnist/mnist.py").write_text("loader = DataLoader(train, batch_size=64)\n", encoding="utf-8")
    evidence.build_context_python.cache_clear()
    assert lint_file(str(job), Settings(project_root=str(tmp_path))) == []


@pytest.mark.parametrize("option, count", [("all", None), ("2", 2), ('"device=0,1"', 2), ("count=4", 4),
                                           ("'\"device=3\"'", 1)])
def test_docker_gpu_count(option, count):
    from torchleaklint.environment.containers import _docker_gpu_count

    assert _docker_gpu_count(option.strip("'")) == count


@pytest.mark.parametrize("reservation, reported", [
    ("count: 2", True), ('device_ids: ["0", "1", "2"]', True), ("count: 1", False), ("count: all", False),
])
def test_compose_gpu_count_of_a_pytorch_stack(tmp_path, reservation, reported):
    compose = _write(tmp_path, "docker-compose.yml", f"""\
        services:
          train:
            image: nvcr.io/nvidia/pytorch:24.05-py3
            command: python train.py
            deploy:
              resources:
                reservations:
                  devices:
                    - driver: nvidia
                      {reservation}
                      capabilities: [gpu]
    """)
    assert len(lint_file(str(compose), Settings())) == (1 if reported else 0)


@pytest.mark.parametrize("command", [["jupyter", "lab", "--ip=0.0.0.0"], ["torchserve", "--start"], []])
def test_notebook_server_serving_and_hidden_command_of_a_pytorch_image_are_quiet(tmp_path, command):
    compose = _write(tmp_path, "docker-compose.yml", "services:\n  s:\n    image: pytorch/pytorch:latest\n"
                     "    runtime: nvidia\n" + (f"    command: {json.dumps(command)}\n" if command else ""))
    assert lint_file(str(compose), Settings()) == []


def test_workers_set_only_under_cuda_count_only_with_a_gpu_request(tmp_path):
    """Katib's MNIST trials run `{'num_workers': 1} if use_cuda else {}` on a CPU image."""
    (tmp_path / ".git").mkdir()
    _write(tmp_path, "mnist/Dockerfile", "FROM python:3.11\nRUN pip install torch\nCOPY mnist.py /opt/mnist.py\n"
           'ENTRYPOINT ["python3", "/opt/mnist.py"]\n')
    _write(tmp_path, "mnist/mnist.py", "kwargs = {'num_workers': 1, 'pin_memory': True} if use_cuda else {}\n"
           "loader = DataLoader(train, **kwargs)\n")
    text = JOB.replace("ghcr.io/acme/cnn-search-gpu:1.0", "acme/mnist:cpu").replace(
        '              command: ["python3", "run_trial.py"]\n', "").replace("nvidia.com/gpu: 2", "nvidia.com/gpu: 1")
    job = _write(tmp_path, "job.yaml", text)
    [finding] = lint_file(str(job), Settings(project_root=str(tmp_path)))
    assert "uses DataLoader workers" in finding.message
    job = _write(tmp_path, "job.yaml", text.replace("              resources: {limits: {nvidia.com/gpu: 1}}\n", ""))
    assert "nvidia.com/gpu" not in job.read_text()
    assert lint_file(str(job), Settings(project_root=str(tmp_path))) == []


@pytest.mark.parametrize("gpu, reported", [(False, False), (True, True)])
def test_torch_distributed_in_the_script_is_proof_only_where_a_gpu_runs_nccl(tmp_path, gpu, reported):
    """Kubeflow's send/recv smoke test: gloo between pods on CPU passes tensors over sockets."""
    _write(tmp_path, "app/Dockerfile", "FROM python:3.11\nRUN pip install torch\nCOPY . /app\n")
    _write(tmp_path, "app/dist.py", "import torch.distributed as dist\ndist.init_process_group('gloo')\n")
    reservation = "    runtime: nvidia\n" if gpu else ""
    compose = _write(tmp_path, "docker-compose.yml",
                     f"services:\n  rank:\n    build: ./app\n    command: python dist.py\n{reservation}")
    found = lint_file(str(compose), Settings(project_root=str(tmp_path)))
    assert len(found) == (1 if reported else 0)
