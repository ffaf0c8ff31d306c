"""Environment rules (TLL101-TLL103): fixtures, the file walk, bad input, noqa, cache,
output formats, --diff/--fix, `torchleaklint rule`, all through the real command line."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from cli_run import run
from fixture_markers import FIXTURES, environment_fixture_files, markers
from torchleaklint.config import Settings
from torchleaklint.engine import lint_file, lint_source

ENV_FILES = environment_fixture_files()


def run_cli(args, input=None):
    return run(args, cwd="/tmp", stdin=input)

TRAINER = textwrap.dedent("""\
    services:
      trainer:
        image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
        command: torchrun --nproc-per-node 2 train.py
      web:
        image: nginx:1.25
""")


@pytest.mark.parametrize("path", ENV_FILES, ids=[str(p.relative_to(FIXTURES)) for p in ENV_FILES])
def test_environment_fixture(path):
    expected, ok = markers(path)
    assert not (expected & ok)
    found = {(d.line, d.code) for d in lint_file(str(path), Settings())}
    assert found == expected, f"missing {sorted(expected - found)}, unexpected {sorted(found - expected)}"


def test_every_environment_kind_has_fixtures():
    from torchleaklint.environment import environment_kind

    kinds = {environment_kind(p.name) for p in ENV_FILES if markers(p)[0]}
    assert kinds == {"yaml", "dockerfile", "shell", "dotenv"}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_walk_reads_environment_files_only_when_an_environment_rule_is_selected(tmp_path):
    _write(tmp_path, "docker-compose.yml", TRAINER)
    default = run_cli([str(tmp_path), "--no-cache", "--output-format", "json"])
    assert [d["code"] for d in json.loads(default.stdout)] == ["TLL101"]
    python_only = run_cli([str(tmp_path), "--no-cache", "--select", "TLL00", "--output-format", "json"])
    assert json.loads(python_only.stdout) == []
    from torchleaklint.discovery import discover

    assert discover([str(tmp_path)], Settings(select=("TLL00",))) == []
    assert discover([str(tmp_path)], Settings(select=("TLL103",))) == []  # TLL103 reads Python only
    assert len(discover([str(tmp_path)], Settings(select=("TLL102",)))) == 1


def test_message_names_the_service_and_the_evidence(tmp_path):
    path = _write(tmp_path, "docker-compose.yml", TRAINER)
    [d] = lint_file(str(path), Settings())
    assert (d.line, d.col) == (2, 3)
    assert "`trainer`" in d.message and "pytorch/pytorch" in d.message and 'shm_size: "8gb"' in d.message


def test_unparsable_yaml_is_quiet_in_a_walk_and_one_tll900_when_named(tmp_path):
    bad = _write(tmp_path, "k8s/job.yaml", "apiVersion: v1\nkind: Pod\nspec: {containers: [\n")
    walked = run_cli([str(tmp_path), "--no-cache", "--output-format", "json"])
    assert json.loads(walked.stdout) == [] and walked.returncode == 0
    named = run_cli([str(bad), "--no-cache", "--output-format", "json"])
    found = json.loads(named.stdout)
    assert [d["code"] for d in found] == ["TLL900"] and named.returncode == 1


def test_helm_template_is_skipped_even_when_named(tmp_path):
    path = _write(tmp_path, "templates/deploy.yaml", (FIXTURES / "tll101" / "helm-deployment.yaml").read_text())
    result = run_cli([str(path), "--no-cache", "--output-format", "json"])
    assert json.loads(result.stdout) == [] and result.returncode == 0


def test_custom_tags_compose_without_constructing(tmp_path):
    text = "Resources:\n  Bucket:\n    Type: AWS::S3::Bucket\n    Properties:\n      Name: !Ref Name\n" \
           "containers: []\n"
    path = _write(tmp_path, "cfn.yaml", text)
    assert lint_file(str(path), Settings()) == []


def test_binary_and_huge_environment_files_follow_the_limits(tmp_path):
    from torchleaklint.source import MAX_FILE_BYTES

    binary = tmp_path / "compose.yaml"
    binary.write_bytes(b"services:\n  a:\x00\x01\n")
    [d] = lint_file(str(binary), Settings())
    assert d.code == "TLL900" and "null byte" in d.message
    huge = tmp_path / "big.sh"
    huge.write_bytes(b"docker run pytorch/pytorch\n" + b"#" * (MAX_FILE_BYTES + 10))
    [d] = lint_file(str(huge), Settings())
    assert d.code == "TLL900" and "larger than" in d.message


def test_noqa_in_yaml_shell_and_dockerfile_comments():
    compose = "services:\n  trainer:  # noqa: TLL101\n    image: pytorch/pytorch\n    command: torchrun --nproc-per-node 4 t.py\n"
    assert lint_source(compose, "docker-compose.yml", Settings()) == []
    other_code = compose.replace("TLL101", "TLL102")
    assert [d.code for d in lint_source(other_code, "docker-compose.yml", Settings())] == ["TLL101"]
    shell = "docker run pytorch/pytorch torchrun --nproc-per-node 2 t.py  # noqa\n"
    assert lint_source(shell, "run.sh", Settings()) == []
    dockerfile = "FROM x\n# noqa: TLL102\nENV PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128\n"
    assert lint_source(dockerfile, "Dockerfile", Settings()) == []


def test_per_file_ignores_and_ignore_apply_to_environment_files(tmp_path):
    path = _write(tmp_path, "docker-compose.yml", TRAINER)
    assert lint_file(str(path), Settings(ignore=("TLL101",))) == []
    settings = Settings(project_root=str(tmp_path), per_file_ignores=(("docker-compose.yml", ("TLL101",)),))
    assert lint_file(str(path), settings) == []


@pytest.mark.parametrize("fmt", ["concise", "full", "grouped", "json", "github", "sarif"])
def test_every_output_format(tmp_path, fmt):
    path = _write(tmp_path, "docker-compose.yml", TRAINER)
    result = run_cli([str(path), "--no-cache", "--output-format", fmt])
    assert result.returncode == 1
    assert "TLL101" in result.stdout
    if fmt == "sarif":
        sarif = json.loads(result.stdout)
        [res] = sarif["runs"][0]["results"]
        assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    if fmt == "full":
        assert "trainer:" in result.stdout  # the source line is quoted


def test_cache_serves_environment_files_and_never_a_stale_build_context(tmp_path):
    _write(tmp_path, "docker-compose.yml", TRAINER)
    _write(tmp_path, "built/docker-compose.yml", "services:\n  app:\n    build: ./app\n")
    dockerfile = _write(tmp_path, "built/app/Dockerfile", "FROM python:3.11\nRUN pip install flask\n")
    cache = tmp_path / "cache"
    args = [str(tmp_path), "--cache-dir", str(cache), "--output-format", "json"]
    first = json.loads(run_cli(args).stdout)
    assert [(Path(d["path"]).name, d["code"]) for d in first] == [("docker-compose.yml", "TLL101")]
    dockerfile.write_text('FROM python:3.11\nRUN pip install torch\nCMD ["torchrun", "--nproc-per-node", "4", "t.py"]\n',
                          encoding="utf-8")
    second = json.loads(run_cli(args).stdout)
    assert sorted(Path(d["path"]).parent.name for d in second) == ["built", tmp_path.name]
    assert any(cache.rglob("*.json"))  # the cache was written (JSON entries)


def test_diff_and_unsafe_fix_rewrite_only_the_option(tmp_path):
    original = (FIXTURES / "tll102" / "train.env").read_text()
    path = _write(tmp_path, "train.env", original)
    plain = run_cli([str(path), "--no-cache", "--fix"])
    assert path.read_text() == original, "TLL102's fix is unsafe: --fix alone writes nothing"
    diff = run_cli([str(path), "--no-cache", "--diff", "--unsafe-fixes"])
    assert diff.returncode == 1 and "+PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True  # expect: TLL102" in diff.stdout
    assert path.read_text() == original, "--diff writes nothing"
    fixed = run_cli([str(path), "--no-cache", "--fix", "--unsafe-fixes"])
    text = path.read_text()
    assert text == original.replace("max_split_size_mb:128", "expandable_segments:True").replace(
        "max_split_size_mb:256", "expandable_segments:True", 1).replace(
        "# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", "# PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128")
    assert "# Variables for" in text  # comments kept
    assert fixed.returncode == 0 and plain.returncode == 1
    again = run_cli([str(path), "--no-cache", "--fix", "--unsafe-fixes"])
    assert path.read_text() == text and again.returncode == 0


@pytest.mark.parametrize("name", ["compose.yaml", "job.yaml", "Dockerfile", "train.sh", "set_alloc_conf.py",
                                  ".github/workflows/gpu-tests.yml"])
def test_unsafe_fix_clears_every_fixable_finding(tmp_path, name):
    path = _write(tmp_path, name, (FIXTURES / "tll102" / name).read_text())
    before = lint_file(str(path), Settings())
    fixable = [d for d in before if d.fix is not None]
    assert fixable
    run_cli([str(path), "--no-cache", "--fix", "--unsafe-fixes"])
    after = lint_file(str(path), Settings())
    assert len(after) == len(before) - len(fixable)
    assert path.read_text().count("expandable_segments:True") >= len(fixable)


def test_nothing_is_written_without_a_fix_request(tmp_path):
    shutil.copytree(FIXTURES / "tll101", tmp_path / "env")
    before = {p: p.read_bytes() for p in (tmp_path / "env").rglob("*") if p.is_file()}
    run_cli([str(tmp_path / "env"), "--no-cache"])
    run_cli([str(tmp_path / "env"), "--cache-dir", str(tmp_path / "c")])
    assert {p: p.read_bytes() for p in (tmp_path / "env").rglob("*") if p.is_file()} == before


def test_stdin_with_an_environment_file_name():
    result = run_cli(["--stdin-filename", "docker-compose.yml", "-", "--no-cache"], input=TRAINER)
    assert result.returncode == 1 and "docker-compose.yml:2:3: TLL101" in result.stdout


@pytest.mark.parametrize("code", ["TLL101", "TLL102", "TLL103"])
def test_rule_documentation(code):
    result = run_cli(["rule", code])
    assert result.returncode == 0
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):
        assert section in result.stdout


def test_pre_commit_hooks_receive_environment_files():
    import yaml

    hooks = yaml.safe_load((Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml").read_text())
    for hook in hooks:
        kinds = set(hook.get("types_or", []))
        assert {"python", "yaml", "dockerfile", "shell", "dotenv"} <= kinds, hook["id"]


def test_shell_reader_positions_and_heredocs():
    from torchleaklint.environment.shell_reader import commands

    text = 'A=1 echo "x; y" && docker \\\n  run --rm img  # c\ncat <<EOF\ndocker run pytorch/pytorch\nEOF\n'
    cmds = commands(text)
    assert [c.values for c in cmds] == [["A=1", "echo", "x; y"], ["docker", "run", "--rm", "img"], ["cat", "<<EOF"]]
    docker = cmds[1].words[0]
    assert (docker.line, docker.col) == (1, 19)
    assert (cmds[1].words[3].line, cmds[1].words[3].col) == (2, 11)


def test_sizes():
    from torchleaklint.environment.evidence import size_bytes

    assert size_bytes("256m") == 256 * 1024 ** 2
    assert size_bytes("8gb") == 8 * 1024 ** 3
    assert size_bytes("512Mi", kubernetes=True) == 512 * 1024 ** 2
    assert size_bytes("1G", kubernetes=True) == 10 ** 9
    assert size_bytes("${SHM}") is None


def test_add_noqa_in_environment_files(tmp_path):
    compose = _write(tmp_path, "docker-compose.yml", TRAINER)
    dockerfile = _write(tmp_path, "Dockerfile", "FROM x\nENV PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128\n")
    result = run_cli([str(compose), str(dockerfile), "--no-cache", "--add-noqa"])
    assert result.returncode == 0
    assert "  trainer:  # noqa: TLL101\n" in compose.read_text()
    assert dockerfile.read_text() == "FROM x\n# noqa: TLL102\nENV PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128\n"
    assert lint_file(str(compose), Settings()) == [] and lint_file(str(dockerfile), Settings()) == []
