"""TLL005 across the modules of a project: a dict built in one module and passed to Ray Tune
in another is reported at its entries, where the object is put in; the cache and the
editor mode follow the other module's use (fixture projects: tests/test_project_fixtures.py)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SPACE = '''
    import numpy as np
    from ray import tune


    def build():
        return {"lr": tune.loguniform(1e-4, 1e-1), "matrix": np.load("x.npy")}
'''
DRIVER = '''
    from ray import tune

    from space import build


    def train(config):
        tune.report({"loss": config["lr"]})


    tune.run(train, config=build())
'''


def _write(tmp, files):
    (tmp / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    for name, text in files.items():
        (tmp / name).write_text(textwrap.dedent(text))
    return tmp


def _run(tmp, *args, stdin=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--output-format", "json", *args], cwd=tmp,
                          env=env, capture_output=True, text=True, input=stdin)
    assert proc.returncode in (0, 1), proc.stderr
    return {(Path(f["path"]).name, f["line"], f["code"]): f["message"] for f in json.loads(proc.stdout)}


def test_entry_of_a_dict_another_module_passes_to_tune(tmp_path):
    found = _run(_write(tmp_path, {"space.py": SPACE, "driver.py": DRIVER}), "--no-cache", ".")
    assert list(found) == [("space.py", 7, "TLL005")]
    message = found[("space.py", 7, "TLL005")]
    assert "`build()` returns this dict" in message and "driver.py:11" in message and "np.load" in message
    # alone, neither file shows it: the dict and the Tune call are in different modules
    assert not _run(tmp_path, "--no-cache", "--no-project-analysis", ".")


def test_cache_follows_the_other_modules_use(tmp_path):
    _write(tmp_path, {"space.py": SPACE, "driver.py": DRIVER})
    assert ("space.py", 7, "TLL005") in _run(tmp_path, ".")
    driver = tmp_path / "driver.py"
    driver.write_text(driver.read_text().replace("config=build()", "config={'lr': 0.1}"))
    # space.py did not change, but the use of its dict did: its cached result is not reused
    assert ("space.py", 7, "TLL005") not in _run(tmp_path, ".")
    driver.write_text(textwrap.dedent(DRIVER))
    assert ("space.py", 7, "TLL005") in _run(tmp_path, ".")


def test_editor_buffer_sees_the_use_on_disk(tmp_path):
    _write(tmp_path, {"space.py": SPACE, "driver.py": DRIVER})
    found = _run(tmp_path, "--no-cache", "--stdin-filename", "space.py", "-", stdin=textwrap.dedent(SPACE))
    assert ("space.py", 7, "TLL005") in found


def test_unresolvable_and_unused_dicts_stay_quiet(tmp_path):
    files = {"space.py": SPACE, "driver.py": DRIVER.replace("from space import build", "from elsewhere import build")}
    assert not _run(_write(tmp_path, files), "--no-cache", ".")


def test_module_level_dict_through_star_import_with_all(tmp_path):
    files = {
        "space.py": '''
            __all__ = ["SPACE"]
            from torch import nn

            SPACE = {"lr": 0.1, "model": nn.Linear(512, 10)}
        ''',
        "driver.py": DRIVER.replace("from space import build", "from space import *").replace("build()", "SPACE"),
    }
    found = _run(_write(tmp_path, files), "--no-cache", ".")
    assert list(found) == [("space.py", 5, "TLL005")]
    assert "`SPACE` is this dict" in found[("space.py", 5, "TLL005")]


def test_caller_of_a_function_that_hands_its_argument_to_tune(tmp_path):
    files = {
        "runner.py": '''
            from ray import tune


            def train(config):
                tune.report({"loss": config["lr"]})


            def search(space):
                return tune.run(train, config=space)
        ''',
        "main.py": '''
            from torch import nn

            from runner import search

            search({"lr": 0.1, "model": nn.Linear(512, 10)})
        ''',
    }
    _write(tmp_path, files)
    found = _run(tmp_path, ".")
    assert list(found) == [("main.py", 6, "TLL005")]
    assert "`search()` passes this dict to `tune.run(config=...)` at runner.py:10" in found[("main.py", 6, "TLL005")]
    # main.py did not change, but what runner.py does with its argument did: not reused
    runner = tmp_path / "runner.py"
    runner.write_text(runner.read_text().replace("config=space", "config={'lr': space['lr']}"))
    assert not _run(tmp_path, ".")
