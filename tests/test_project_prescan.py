"""The import prescan of whole-project analysis (issue 14, speed): which modules get partial
summaries, and that a module the scan misses still gets its full summary (no finding lost).
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from test_project import run as run_findings, write  # the same on-disk project helpers
from torchleaklint.project import prescan
from torchleaklint.project.view import SITE_MARK

ROOT = Path(__file__).resolve().parent.parent


def run(tmp, *args):
    """The (path, line, code) keys of a real command-line run's findings."""
    return set(run_findings(tmp, *args))


def test_import_forms_found():
    raw = textwrap.dedent('''
        import os, utils.meters as um
        from .losses import (total,  # the sum
                             parts)
        from .. import models
        from config \\
            import settings; import data
        if x: from helpers import *
        myimport = 1
        reimport_x = "frommodule import y"
    ''').encode()
    found = {}
    for dots, module, names in prescan.imported_names(raw):
        found.setdefault((dots, module), set()).update(names)
    assert (0, "os") in found and (0, "utils.meters") in found
    assert {"total", "parts"} <= found[(1, "losses")]  # (words of the comment too: a superset)
    assert "models" in found[(2, "")]
    assert "settings" in found[(0, "config")] and (0, "data") in found
    assert (0, "helpers") in found
    assert not [m for _, m in found if m in ("x", "module", "frommodule")]  # words ending in import/from are not statements


def test_referenced_and_defined(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "from .losses import total\n",
        "pkg/losses.py": "def total(a, b):\n    return a + b\n",
        "pkg/unused.py": "async def lonely():\n    pass\n",
        "train.py": "import torch\nfrom pkg import total\n\ndef main():\n    pass\n",
    })
    files = [str(p) for p in sorted(tmp_path.rglob("*.py"))]
    referenced, names, _ = prescan.scan(files)
    rel = {os.path.relpath(p, tmp_path) for p in referenced}
    assert rel == {os.path.join("pkg", "__init__.py"), os.path.join("pkg", "losses.py")}
    assert "total" in names and not {"lonely", "main"} & names  # defined in modules no one imports


LOSS_PROJECT = {
    "pkg/__init__.py": "",
    "pkg/losses.py": '''
        import torch.nn.functional as F

        def total_loss(pred, y):
            return F.mse_loss(pred, y)
    ''',
    "pkg/sub/__init__.py": "",
    "pkg/sub/train.py": '''
        from ..losses import total_loss

        def train(model, loader, opt):
            history = []
            for x, y in loader:
                loss = total_loss(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                history.append(total_loss(model(x), y))
    ''',
}


def test_module_the_scan_misses_is_summarized_in_full(tmp_path):
    """`from . . losses import` (dots apart) is one the text patterns do not see: the exact
    imports of the first round put the module back among those summarized in full."""
    files = dict(LOSS_PROJECT)
    files["pkg/sub/train.py"] = files["pkg/sub/train.py"].replace("from ..losses", "from . . losses")
    write(tmp_path, files)
    raw = (tmp_path / "pkg/sub/train.py").read_bytes()
    assert not [m for _, m, _ in prescan.imported_names(raw) if m == "losses"]  # the scan misses it
    found = run(tmp_path, "--no-cache", ".")
    assert ("pkg/sub/train.py", 11, "TLL003") in found
    assert found == run(write(tmp_path, LOSS_PROJECT), "--no-cache", ".")


def stored_summaries(cache_dir):
    found = {}
    for path in Path(cache_dir).rglob("project-*.jsonl"):  # one JSON line per file
        for line in path.read_text().splitlines():
            file, entry = json.loads(line)
            found[os.path.basename(file)] = entry["summary"]
    return found


def test_only_imported_modules_get_function_entries(tmp_path):
    write(tmp_path, LOSS_PROJECT)
    run(tmp_path, "--cache-dir", str(tmp_path / "cache"), ".")
    summaries = stored_summaries(tmp_path / "cache")
    assert "total_loss" in summaries["losses.py"]["functions"] and not summaries["losses.py"].get("partial")
    assert summaries["train.py"].get("partial") == 1 and summaries["train.py"]["functions"] == {}
    assert summaries["train.py"]["calls"]  # its calls still reach losses.py's check as call sites


def rounds(tmp, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TORCHLEAKLINT_DEBUG_ROUNDS="1")
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "-q", "--exit-zero", *args],
                          cwd=tmp, env=env, capture_output=True, text=True)
    return [line for line in proc.stderr.splitlines() if "round" in line]


def test_warm_run_computes_no_round(tmp_path):
    files = dict(LOSS_PROJECT)
    files["broken.py"] = "def f(:\n"  # no summary: known all the same
    files["Dockerfile"] = "FROM pytorch/pytorch\nRUN pip install torch\n"
    write(tmp_path, files)
    cache = ["--cache-dir", str(tmp_path / "cache"), "."]
    first = rounds(tmp_path, *cache)
    assert "round 1: 6 files" in first[-1]
    assert rounds(tmp_path, *cache) == ["round 1: 0 files; checked: 0 files"]
    # editing the leaf that imports the others: it alone is summarized and checked again
    with open(tmp_path / "pkg/sub/train.py", "a") as handle:
        handle.write("\n\ndef added(x):\n    return x\n")
    assert rounds(tmp_path, *cache)[-1] == "round 1: 1 files; checked: 1 files"


def test_calls_into_a_module_the_scan_misses_are_call_sites(tmp_path):
    """The callee's own finding rests on its callers' call sites: still there when the scan
    missed the import of its module."""
    files = {
        "pkg/__init__.py": "",
        "pkg/meters.py": '''
            class Meter:
                def __init__(self):
                    self.sum = 0

                def update(self, val, n=1):
                    self.sum += val * n
        ''',
        "pkg/sub/__init__.py": "",
        "pkg/sub/train.py": '''
            import torch
            from ..meters import Meter


            def train(model, loader, opt):
                meter = Meter()
                for x, y in loader:
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    meter.update(loss)
        ''',
    }
    expected = run(write(tmp_path, files), "--no-cache", ".")
    assert ("pkg/meters.py", 7, "TLL001") in expected
    files["pkg/sub/train.py"] = files["pkg/sub/train.py"].replace("from ..meters", "from . . meters")
    assert run(write(tmp_path, files), "--no-cache", ".") == expected


def test_buffer_importing_a_module_no_other_file_imports(tmp_path):
    """The last run stored a partial summary of `losses.py` (no file imported it); a new
    buffer importing it reads its full summary (summarized from disk)."""
    files = dict(LOSS_PROJECT)
    train = files.pop("pkg/sub/train.py")
    write(tmp_path, files)
    run(tmp_path, ".")  # the default cache directory: the one an editor buffer's run reads
    assert stored_summaries(tmp_path / ".torchleaklint_cache")["losses.py"].get("partial") == 1
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--output-format", "json",
                           "--stdin-filename", "pkg/sub/train.py", "-"],
                          cwd=tmp_path, env=env, input=textwrap.dedent(train), capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    assert (11, "TLL003") in {(f["line"], f["code"]) for f in json.loads(proc.stdout)}


def analyses(tmp, *args) -> int:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TORCHLEAKLINT_DEBUG_ROUNDS="1")
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "-q", "--exit-zero", *args],
                          cwd=tmp, env=env, capture_output=True, text=True)
    return int(next(line for line in proc.stderr.splitlines() if line.startswith("analyses:")).split()[1])


def test_a_module_no_other_imports_is_analyzed_once(tmp_path):
    """train.py imports losses.py and nothing imports train.py: no summary round reads its
    summary, so its one analysis is its check, with losses.py's final summary."""
    write(tmp_path, LOSS_PROJECT)
    # four files, each analyzed once, and losses.py checked again with train.py's call of
    # `total_loss` (its check asked about it); train.py analyzed twice would make six
    assert analyses(tmp_path, "--no-cache", ".") == 5
    assert ("pkg/sub/train.py", 11, "TLL003") in run(tmp_path, "--no-cache", ".")


def test_a_check_depends_on_the_call_sites_it_asked_about(tmp_path):
    """losses.py's check asks about the call sites of `total_loss`: its fingerprint changes
    when another module's call of it changes, and not when an unrelated call does."""
    from torchleaklint.config import Settings
    from torchleaklint.project import Project
    from torchleaklint.project.run import analyze_one

    write(tmp_path, LOSS_PROJECT)
    settings = Settings(project_root=str(tmp_path))
    losses, train = str(tmp_path / "pkg/losses.py"), str(tmp_path / "pkg/sub/train.py")

    def fingerprint(train_text):
        (tmp_path / "pkg/sub/train.py").write_text(textwrap.dedent(train_text))
        summaries = {losses: analyze_one(losses, settings, False, None)[2]}
        summaries[train] = analyze_one(train, settings, False, Project(dict(summaries)))[2]
        project = Project(summaries)
        _, _, _, reads, _ = analyze_one(losses, settings, False, project)
        assert SITE_MARK + "total_loss" in reads
        return project.fingerprint(losses, reads)

    base = fingerprint(LOSS_PROJECT["pkg/sub/train.py"])
    assert base is not None
    unrelated = LOSS_PROJECT["pkg/sub/train.py"] + "\n        print(len(history))\n"
    assert fingerprint(unrelated) == base
    detached = LOSS_PROJECT["pkg/sub/train.py"].replace("history.append(total_loss(model(x), y))",
                                                        "history.append(total_loss(model(x).detach(), y))")
    assert fingerprint(detached) != base
