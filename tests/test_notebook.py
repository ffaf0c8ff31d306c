"""Notebooks (.ipynb) through the real command line: reading, IPython syntax, positions in
every output format, noqa, cache, --jobs, standard input, directory walks, --fix/--diff,
and the byte-for-byte round trip of a notebook with nothing to fix."""

from __future__ import annotations

import difflib
import json
import textwrap

import nbformat
import pytest

from cli_run import run
from notebook_maker import notebook_of, write
from torchleaklint.config import Settings
from torchleaklint.engine import lint_source

IMPORTS = "import torch\nimport torch.nn.functional as F"
TRAIN = textwrap.dedent("""\
    total_loss = 0
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total_loss += loss""")
EVALUATE = textwrap.dedent("""\
    model.eval()
    for x, y in val_loader:
        out = model(x)
        print(out.argmax())""")
HELPER = "def report(acc):\n    print(acc)"


def _notebook(*codes, **kwargs) -> str:
    return write(notebook_of(list(codes), **kwargs))


def _lint(text: str, name: str = "train.ipynb"):
    return lint_source(text.encode("utf-8"), name, Settings())


def _positions(diagnostics):
    return [(d.code, d.cell, d.line, d.col) for d in diagnostics]


@pytest.fixture
def leaky(tmp_path):
    path = tmp_path / "train.ipynb"
    path.write_text(_notebook(IMPORTS, TRAIN, EVALUATE, HELPER), encoding="utf-8")
    return path


# ------------------------------------------------------------------ reading
def test_cells_share_one_namespace_and_markdown_is_skipped():
    # cells are 2, 4, 6, 8 (a markdown cell before each): positions count every cell
    assert _positions(_lint(_notebook(IMPORTS, TRAIN, EVALUATE, HELPER))) == [
        ("TLL001", 4, 7, 5), ("TLL006", 6, 3, 11)]


def test_ipython_syntax_is_masked_and_the_rest_analyzed():
    magics = "%matplotlib inline\n!pip install torch\n%load_ext autoreload\nfiles = !ls\n?torch\ntorch.nn?"
    timed = "%%time\n" + TRAIN
    indented = TRAIN.replace("    optimizer.step()", "    optimizer.step()\n    %time pass")
    found = _lint(_notebook(magics, IMPORTS, timed, indented))
    assert _positions(found) == [("TLL001", 6, 8, 5), ("TLL001", 8, 8, 5)]


def test_automagic_lines_are_masked_but_python_of_the_same_name_is_analyzed():
    # IPython runs `cd ..` and `pip install x` without their `%` (automagic): no parse error;
    # `ls = 3` or `time.sleep(1)` are Python and stay as they are
    automagic = "cd ..\npip install -q torch\nls -la data"
    python = "import time\ncd = 3\ntime.sleep(0)\nprint(cd)"
    found = _lint(_notebook(automagic, python, IMPORTS, TRAIN))
    assert _positions(found) == [("TLL001", 8, 7, 5)]
    [broken] = _lint(_notebook("cd = (", IMPORTS))
    assert broken.code == "TLL900"


def test_a_cell_indented_throughout_runs_in_ipython_and_is_no_parse_error():
    # IPython's leading_indent transform strips the first line's indent from every line
    indented = " x = 1\n for i in range(3):\n     x += i\n print(x)"
    assert _positions(_lint(_notebook(indented, IMPORTS, TRAIN))) == [("TLL001", 6, 7, 5)]
    [broken] = _lint(_notebook(" x = (\n y", IMPORTS))
    assert broken.code == "TLL900"


def test_a_cell_that_does_not_parse_is_one_tll900_and_the_others_are_analyzed():
    found = _lint(_notebook(IMPORTS, "def broken(:\n    pass", TRAIN))
    assert _positions(found) == [("TLL900", 4, 1, 12), ("TLL001", 6, 7, 5)]
    assert "not analyzed" in found[0].message


def test_non_python_cell_magics_are_skipped():
    assert _lint(_notebook("%%bash\nfor x in 1 2; do echo $x; done", "%%writefile a.py\nx +=", IMPORTS)) == []


def test_a_notebook_of_another_language_is_not_analyzed():
    nb = notebook_of(["total <- total + loss"])
    nb.metadata["language_info"] = {"name": "R"}
    nb.metadata["kernelspec"] = {"name": "ir", "language": "R", "display_name": "R"}
    assert _lint(write(nb)) == []


@pytest.mark.parametrize("text, reason", [
    ("{not json", "does not parse"), ("[1, 2]", "no `cells`"),
    (json.dumps({"nbformat": 3, "cells": []}), "nbformat 3"),
])
def test_a_broken_notebook_is_one_tll900(text, reason):
    [d] = _lint(text)
    assert d.code == "TLL900" and reason in d.message and d.cell is None


def test_line_numbers_in_messages_are_cell_relative():
    code = "model.eval()\n" + EVALUATE.split("\n", 1)[1]
    [d] = _lint(_notebook(IMPORTS, code))
    assert "after `model.eval()` at line 1)" in d.message, d.message


NET = "net = torch.nn.Linear(4, 4)\nnet.eval()\nx = torch.randn(2, 4)"


@pytest.mark.parametrize("cell, kept", [
    ("net(x)", True),                      # the cell's value: Jupyter keeps it in Out
    ("net(x);", False),                    # silenced: nothing keeps it
    ("net(x)\nprint('done')", False),      # not the cell's last statement
])
def test_a_forward_ending_a_cell_is_kept_in_out(cell, kept):
    [d] = [d for d in _lint(_notebook(IMPORTS, NET, cell)) if d.code == "TLL006"]
    assert ("keeps the cell's result in `Out`" in d.message) is kept, d.message
    assert ("freed when the statement ends" in d.message) is not kept, d.message


CALLBACK = textwrap.dedent("""\
    from transformers import TrainerCallback


    class EmptyCacheCallback(TrainerCallback):
        def on_step_begin(self, args, state, control, **kwargs):
            torch.cuda.empty_cache()


    eccb = EmptyCacheCallback()""")


@pytest.mark.parametrize("registered, found", [
    ("trainer = Trainer(model=model, args=args)  # callbacks=[eccb]", []),
    ("trainer = Trainer(model=model, args=args, callbacks=[eccb])", ["TLL004"]),
])
def test_a_callback_class_a_notebook_never_registers_runs_no_hook(registered, found):
    # set29 (zero_nlp): no other file can import a notebook, so an object nothing reads is never
    # handed to the trainer; the same class registered is a per-step hook
    text = _notebook(IMPORTS, CALLBACK, registered + "\ntrainer.train()")
    assert [d.code for d in _lint(text)] == found


def test_noqa_works_per_cell_line():
    silenced = TRAIN.replace("total_loss += loss", "total_loss += loss  # noqa: TLL001")
    assert _positions(_lint(_notebook(IMPORTS, silenced, TRAIN))) == [("TLL001", 6, 7, 5)]


# ------------------------------------------------------------------ command line
def test_positions_in_every_output_format(leaky, tmp_path):
    concise = run([leaky.name, "--no-cache"], tmp_path)
    assert concise.returncode == 1
    assert "train.ipynb:cell 4:7:5: TLL001" in concise.stdout
    assert "train.ipynb:cell 6:3:11: TLL006" in concise.stdout
    grouped = run([leaky.name, "--no-cache", "--output-format", "grouped"], tmp_path).stdout
    assert "  cell 4:7:5  TLL001" in grouped
    full = run([leaky.name, "--no-cache", "--output-format", "full"], tmp_path).stdout
    assert "7 |     total_loss += loss\n" in full, full  # the cell's line, not the JSON's
    records = json.loads(run([leaky.name, "--no-cache", "--output-format", "json"], tmp_path).stdout)
    assert [(r["cell"], r["line"], r["column"]) for r in records] == [(4, 7, 5), (6, 3, 11)]
    json_lines = leaky.read_text(encoding="utf-8").splitlines()
    github = run([leaky.name, "--no-cache", "--output-format", "github"], tmp_path).stdout.splitlines()
    line = int(github[0].split("line=")[1].split(",")[0])
    assert json_lines[line - 1].strip() == '"    total_loss += loss"', "the annotation points into the notebook"
    assert "::cell 4, line 7, column 5: " in github[0]
    sarif = json.loads(run([leaky.name, "--no-cache", "--output-format", "sarif"], tmp_path).stdout)
    result = sarif["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == line
    assert result["properties"] == {"cell": 4, "cellLine": 7, "cellColumn": 5}


def test_cache_and_jobs_treat_notebooks_like_other_files(tmp_path):
    for n in range(20):  # enough files for the process pool
        (tmp_path / f"nb{n:02}.ipynb").write_text(_notebook(IMPORTS, TRAIN), encoding="utf-8")
    cache = tmp_path / "cache"
    serial = run([".", "-j", "1", "--no-cache"], tmp_path).stdout
    parallel = run([".", "-j", "2", "--cache-dir", cache], tmp_path).stdout
    cached = run([".", "-j", "2", "--cache-dir", cache], tmp_path).stdout
    assert serial == parallel == cached
    assert serial.count(":cell 4:7:5: TLL001") == 20


def test_standard_input_reads_notebook_json(tmp_path):
    text = _notebook(IMPORTS, TRAIN)
    linted = run(["--stdin-filename", "train.ipynb", "-", "--no-cache"], tmp_path, stdin=text)
    assert linted.returncode == 1 and "train.ipynb:cell 4:7:5: TLL001" in linted.stdout
    github = run(["--stdin-filename", "unsaved.ipynb", "--output-format", "github", "-"], tmp_path, stdin=text)
    line = int(github.stdout.split("line=")[1].split(",")[0])
    assert text.splitlines()[line - 1].strip() == '"    total_loss += loss"', "the line of what was read"
    fixed = run(["--stdin-filename", "train.ipynb", "--fix", "-"], tmp_path, stdin=text)
    nb = nbformat.reads(fixed.stdout, as_version=4)
    nbformat.validate(nb)
    assert "total_loss += loss.item()" in nb.cells[3].source


def test_walks_include_notebooks_and_extend_exclude_leaves_them_out(leaky, tmp_path):
    checkpoints = tmp_path / ".ipynb_checkpoints"
    checkpoints.mkdir()
    (checkpoints / "train-checkpoint.ipynb").write_text(leaky.read_text(encoding="utf-8"), encoding="utf-8")
    walked = run([".", "--no-cache"], tmp_path)
    assert "train.ipynb:cell 4:7:5" in walked.stdout and "checkpoint" not in walked.stdout
    left_out = run([".", "--no-cache", "--extend-exclude", "*.ipynb"], tmp_path)
    assert left_out.returncode == 0, left_out.stdout


def test_a_named_file_that_is_not_python_is_reported(tmp_path):
    (tmp_path / "notes.txt").write_text("total_loss += loss\n", encoding="utf-8")
    (tmp_path / "train").write_text("#!/usr/bin/env python3\nimport torch\n", encoding="utf-8")
    result = run(["notes.txt", "train", "--no-cache"], tmp_path)
    assert result.returncode == 1
    assert result.stdout == "notes.txt:1:1: TLL900 not a Python file (`.txt` file); not analyzed\n"


# ------------------------------------------------------------------ fixing
def test_fix_changes_only_the_fixed_cells_source(leaky, tmp_path):
    before = leaky.read_text(encoding="utf-8")
    diff = run([leaky.name, "--diff", "--no-cache"], tmp_path)
    assert diff.returncode == 1
    assert "--- train.ipynb:cell 4\n+++ train.ipynb:cell 4\n" in diff.stdout
    assert "--- train.ipynb:cell 6\n+++ train.ipynb:cell 6\n" in diff.stdout
    assert "+    total_loss += loss.item()" in diff.stdout
    assert leaky.read_text(encoding="utf-8") == before, "--diff writes nothing"
    fixed = run([leaky.name, "--fix", "--no-cache"], tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    after = leaky.read_text(encoding="utf-8")
    nb = nbformat.reads(after, as_version=4)
    nbformat.validate(nb)
    assert nb.cells[5].source == ("model.eval()\nwith torch.no_grad():\n    for x, y in val_loader:\n"
                                  "        out = model(x)\n        print(out.argmax())")
    assert nb.cells[7].source == HELPER, "the later def is not wrapped"
    changed = [line[2:] for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:2] in ("- ", "+ ")]
    assert changed and all(line.strip().startswith('"') for line in changed), "only source lines change"
    assert run([leaky.name, "--fix", "--no-cache"], tmp_path).stdout == ""
    assert leaky.read_text(encoding="utf-8") == after, "idempotent"


def test_magics_survive_a_fix_in_their_cell(tmp_path):
    path = tmp_path / "train.ipynb"
    code = "%%time\n" + TRAIN.replace("    optimizer.step()", "    optimizer.step()\n    !nvidia-smi")
    path.write_text(_notebook(IMPORTS, code), encoding="utf-8")
    assert run([path.name, "--fix", "--no-cache"], tmp_path).returncode == 0
    source = nbformat.read(str(path), as_version=4).cells[3].source
    assert source == code.replace("total_loss += loss", "total_loss += loss.item()")


SHELL_CONTINUED = "!python -m monai.bundle run \\\n    --config_file configs/train.json \\\n    --tracking mlflow\n"


def test_a_shell_escape_continued_on_indented_lines_is_masked_whole():
    # `!cmd \` then indented continuation lines is valid IPython, not an indentation error
    diagnostics = _lint(_notebook(IMPORTS, SHELL_CONTINUED + TRAIN))
    assert [d.code for d in diagnostics] == ["TLL001"], diagnostics


def test_a_continued_shell_escape_survives_a_fix_in_its_cell(tmp_path):
    path = tmp_path / "train.ipynb"
    code = SHELL_CONTINUED + TRAIN
    path.write_text(_notebook(IMPORTS, code), encoding="utf-8")
    assert run([path.name, "--fix", "--no-cache"], tmp_path).returncode == 0
    source = nbformat.read(str(path), as_version=4).cells[3].source
    assert source == code.replace("total_loss += loss", "total_loss += loss.item()")


@pytest.mark.parametrize("indent, ensure_ascii", [(1, False), (2, True), (4, False)])
def test_a_notebook_with_nothing_to_fix_round_trips_byte_for_byte(tmp_path, indent, ensure_ascii):
    nb = notebook_of([IMPORTS, "model.eval()\nwith torch.no_grad():\n    out = model(x)", HELPER])
    text = json.dumps(nb, indent=indent, ensure_ascii=ensure_ascii, sort_keys=True) + "\n"
    path = tmp_path / "clean.ipynb"
    path.write_bytes(text.encode("utf-8"))
    result = run([path.name, "--fix", "--unsafe-fixes", "--no-cache"], tmp_path)
    assert result.returncode == 0, result.stdout
    assert path.read_bytes() == text.encode("utf-8")


@pytest.mark.parametrize("indent, ensure_ascii", [(2, True), (4, False), (None, False)])
def test_a_fixed_notebook_keeps_its_json_style(tmp_path, indent, ensure_ascii):
    as_lists = json.loads(write(notebook_of([IMPORTS, TRAIN + "  # ünï"])))  # sources as lists of lines
    text = json.dumps(as_lists, indent=indent, ensure_ascii=ensure_ascii) + "\n"
    path = tmp_path / "train.ipynb"
    path.write_text(text, encoding="utf-8")
    run([path.name, "--fix", "--no-cache"], tmp_path)
    after = path.read_text(encoding="utf-8")
    expected = json.loads(text)
    expected["cells"][3]["source"][-1] = expected["cells"][3]["source"][-1].replace("loss  #", "loss.item()  #")
    assert after == json.dumps(expected, indent=indent, ensure_ascii=ensure_ascii) + "\n"


def test_add_noqa_writes_into_the_cell(leaky, tmp_path):
    result = run([leaky.name, "--add-noqa", "--no-cache"], tmp_path)
    assert result.returncode == 0, result.stderr
    nb = nbformat.read(str(leaky), as_version=4)
    nbformat.validate(nb)
    assert nb.cells[3].source.endswith("total_loss += loss  # noqa: TLL001")
    assert "out = model(x)  # noqa: TLL006" in nb.cells[5].source
    assert run([leaky.name, "--no-cache"], tmp_path).returncode == 0


def test_evidence_lines_are_mapped_into_their_cells():
    """The hook for `Diagnostic.evidence` (items with line/col/message): each item's line
    becomes relative to its cell, and an item in another cell says which."""
    import dataclasses

    from torchleaklint.notebook import VirtualModule, map_diagnostic

    @dataclasses.dataclass(frozen=True)
    class Evidence:
        line: int
        col: int
        message: str

    @dataclasses.dataclass(frozen=True)
    class Diag:
        path: str
        line: int
        col: int
        code: str
        message: str
        end_line: int = 0
        end_col: int = 0
        cell: object = None
        evidence: tuple = ()

    # virtual lines: 1 marker of cell 2, 2-3 its code, 4 marker of cell 4, 5-7 its code
    module = VirtualModule("", [(2, 0), (2, 1), (2, 2), (4, 0), (4, 1), (4, 2), (4, 3)])
    d = Diag("nb.ipynb", 7, 5, "TLL001", "set at line 3, used at line 6", 7, 9,
             evidence=(Evidence(3, 1, "bound here"), Evidence(6, 2, "read at line 6")))
    mapped = map_diagnostic(d, module)
    assert (mapped.cell, mapped.line, mapped.end_line) == (4, 3, 3)
    assert mapped.message == "set at line 2 of cell 2, used at line 2"
    assert mapped.evidence == (Evidence(2, 1, "(cell 2) bound here"), Evidence(2, 2, "read at line 2"))


def test_a_notebook_with_large_outputs_is_analyzed(tmp_path):
    """Outputs (images, logs) can make a notebook larger than the 5 MB a .py file may have;
    its code is still analyzed."""
    nb = notebook_of([IMPORTS, TRAIN])
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 6_000_000)]
    (tmp_path / "big.ipynb").write_text(write(nb), encoding="utf-8")
    result = run(["big.ipynb", "--no-cache"], tmp_path)
    assert "big.ipynb:cell 4:7:5: TLL001" in result.stdout, result.stdout


# ------------------------------------------------------------------ project
PROJECT_HELPERS = "import numpy as np\nimport torch\nimport torch.nn as nn\n"
JACOBIAN = textwrap.dedent("""\
    def jacobian_readout(model, loader, num_classes):
        model.eval()
        rows = []
        for x, _ in loader:
            out = model(x)
            for cls in range(num_classes):
                grads = torch.autograd.grad(out[0, cls], model.parameters(), retain_graph=True)
                rows.append(torch.cat([g.view(-1) for g in grads]).detach())
        return rows""")
SCORE = textwrap.dedent("""\
    def score(model, loader):
        model.eval()
        hits = 0
        for x, y in loader:
            out = model(x)
            hits += (out.argmax(1) == y).sum().item()
        return hits""")


def test_a_notebook_reads_the_modules_of_its_project(tmp_path):
    """`from utils import *` brings `torch` into a notebook of the project: its
    `torch.autograd.grad` is gradient code on purpose (no TLL006), while the plain evaluation
    beside it is still reported. Alone, the notebook cannot tell `torch` apart."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'unlearning'\n", encoding="utf-8")
    (tmp_path / "utils.py").write_text(PROJECT_HELPERS, encoding="utf-8")
    (tmp_path / "experiments.ipynb").write_text(_notebook("from utils import *", JACOBIAN, SCORE), encoding="utf-8")
    project = run([".", "--no-cache"], tmp_path)
    assert project.returncode == 1
    assert [line.split(": ")[0] for line in project.stdout.splitlines() if "TLL" in line] == \
        ["./experiments.ipynb:cell 6:5:15"], project.stdout
    alone = run([".", "--no-cache", "--no-project-analysis"], tmp_path)
    assert "cell 4:5:15: TLL006" in alone.stdout, "alone, the Jacobian's forward is not known to be differentiated"
