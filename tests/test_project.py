"""Whole-project analysis: imports, calls and classes followed across modules (issue 14).

Each test writes a small project to disk (pyproject.toml marks the root) and runs the real
command line on it, or the project index on it.
"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path


from torchleaklint.project import Project, modules
from torchleaklint.project.run import analyze_one
from torchleaklint.project.view import SITE_MARK
from torchleaklint.config import Settings

ROOT = Path(__file__).resolve().parent.parent


def write(tmp, files):
    # the examples use TLL002, a preview rule: the project selects it
    (tmp / "pyproject.toml").write_text("[project]\nname = 'demo'\n[tool.torchleaklint]\nextend-select = ['TLL002']\n")
    for name, text in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp


def run(tmp, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--output-format", "json", *args],
                          cwd=tmp, env=env, capture_output=True, text=True)
    assert proc.returncode in (0, 1), proc.stderr
    return {(f["path"].replace("\\", "/").removeprefix("./"), f["line"], f["code"]): f["message"] for f in json.loads(proc.stdout)}


METER = {
    "utils.py": '''
        class Meter:
            def __init__(self):
                self.sum = 0

            def update(self, val, n=1):
                self.sum += val * n
    ''',
    "train.py": '''
        import torch
        from utils import Meter


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


def test_callee_in_other_module_sees_graph_argument(tmp_path):
    found = run(write(tmp_path, METER), "--no-cache", ".")
    assert ("utils.py", 7, "TLL001") in found
    assert "train.py:13" in found[("utils.py", 7, "TLL001")]  # the message names the other module


def test_a_checkout_without_markers_is_one_project_from_where_the_run_starts(tmp_path):
    """No pyproject.toml, setup.* or .git (an archive, a copied folder): the directory the run
    starts in is the project root, so imports are followed as in a marked checkout."""
    write(tmp_path, METER)
    (tmp_path / "pyproject.toml").unlink()
    found = run(tmp_path, "--no-cache", "--extend-select", "TLL002", ".")
    assert ("utils.py", 7, "TLL001") in found
    assert not run(tmp_path, "--no-cache", "--extend-select", "TLL002", "--no-project-analysis", ".")


def test_detached_argument_is_quiet(tmp_path):
    files = dict(METER)
    files["train.py"] = files["train.py"].replace("meter.update(loss)", "meter.update(loss.item())")
    found = run(write(tmp_path, files), "--no-cache", ".")
    assert not [k for k in found if k[0] == "utils.py"]


def test_imported_loss_helper_return_carries_graph(tmp_path):
    files = {
        "pkg/__init__.py": "from .losses import total_loss\n",
        "pkg/losses.py": '''
            import torch.nn.functional as F

            def total_loss(pred, y):
                return F.mse_loss(pred, y)
        ''',
        "train.py": '''
            from pkg import total_loss

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
    found = run(write(tmp_path, files), "--no-cache", ".")
    assert ("train.py", 11, "TLL003") in found  # through the __init__ re-export and a relative import


def test_only_called_under_no_grad_in_other_modules(tmp_path):
    files = {
        "infer.py": '''
            import torch

            def predict(model, x):
                model.eval()
                return model(x)
        ''',
        "serve.py": '''
            import torch
            from infer import predict

            def handle(model, x):
                with torch.no_grad():
                    return predict(model, x)
        ''',
    }
    write(tmp_path, files)
    assert not run(tmp_path, "--no-cache", ".")
    (tmp_path / "other.py").write_text("from infer import predict\n\ndef go(m, x):\n    return predict(m, x)\n")
    assert ("infer.py", 6, "TLL006") in run(tmp_path, "--no-cache", ".")


def star_train(module):
    """A training loop that empties the cache through `th`, which only `from <module> import *`
    binds (line 10: the TLL004 finding)."""
    return f'''
        from {module} import *

        def train(model, loader, opt):
            for x, y in loader:
                loss = model(x).sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
                th.cuda.empty_cache()
    '''


def test_star_import_alias_of_torch(tmp_path):
    files = {
        "util/__init__.py": "",
        "util/misc.py": "import torch as th\n__all__ = ['th']\n",
        "train.py": star_train("util.misc"),
    }
    assert ("train.py", 10, "TLL004") in run(write(tmp_path, files), "--no-cache", ".")


STAR_CHAIN = {
    "base.py": "import torch as th\nimport os\n",
    "middle.py": "from base import *\nimport math\n",
    "top.py": "from middle import *\n",
    "train.py": star_train("top"),
}


def test_star_chain_without_all_resolves_through_every_level(tmp_path):
    assert ("train.py", 10, "TLL004") in run(write(tmp_path, STAR_CHAIN), "--no-cache", ".")


def test_star_import_keeps_a_reference_not_a_copy_of_names(tmp_path):
    # a chain of star imports must not make each summary carry its whole chain's names
    # (peak memory with project size, docs/performance.md)
    write(tmp_path, STAR_CHAIN)
    settings = Settings(project_root=str(tmp_path))
    summaries = {}
    for name in ("base.py", "middle.py", "top.py"):
        path = str(tmp_path / name)
        _, _, summaries[path], _, _ = analyze_one(path, settings, False, Project(dict(summaries)))
    top = summaries[str(tmp_path / "top.py")]
    assert top["stars"] == ["middle"] and "th" not in top["aliases"] and "th" not in top["exports"]
    view = Project(summaries).view(str(tmp_path / "train.py"))
    assert view.resolver.alias(str(tmp_path / "top.py"), top, "th") == "torch"
    assert view.resolver.exported(str(tmp_path / "top.py"), "math") == "math"


def test_star_import_without_all_hides_private_names(tmp_path):
    files = {"misc.py": "import torch as _th\n", "train.py": "from misc import *\n_th.cuda.empty_cache()\n"}
    write(tmp_path, files)
    view = Project({}).view(str(tmp_path / "train.py"))
    assert view.imported_summary("misc._th") is None  # no summary yet: opaque, never a guess


def test_third_party_and_missing_modules_stay_opaque(tmp_path):
    files = {"train.py": '''
        import torch
        from somewhere_else import helper

        def train(model, loader, opt):
            kept = []
            for x, y in loader:
                loss = helper(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                kept.append(helper(x, y))
    '''}
    write(tmp_path, files)
    assert modules.find_module("torch", str(tmp_path / "train.py")) is None
    assert not run(tmp_path, "--no-cache", ".")


def test_src_layout_module_names(tmp_path):
    write(tmp_path, {"src/kit/__init__.py": "", "src/kit/a.py": "", "src/kit/sub/__init__.py": ""})
    assert modules.module_name(str(tmp_path / "src/kit/a.py")) == "kit.a"
    assert modules.module_name(str(tmp_path / "src/kit/sub/__init__.py")) == "kit.sub"
    assert modules.resolve_relative(str(tmp_path / "src/kit/a.py"), "sub", 1) == "kit.sub"
    assert modules.find_module("kit.a", str(tmp_path / "src/kit/sub/__init__.py")) == str(tmp_path / "src/kit/a.py")


def test_summaries_are_plain_data(tmp_path):
    write(tmp_path, METER)
    settings = Settings(project_root=str(tmp_path))
    _, _, summary, reads, _ = analyze_one(str(tmp_path / "utils.py"), settings, False, None)
    assert json.loads(json.dumps(summary)) == summary
    assert summary["functions"]["Meter.update"]["keeps"]["val"] == "self.sum"
    project = Project({str(tmp_path / "utils.py"): summary})
    _, _, train, reads, _ = analyze_one(str(tmp_path / "train.py"), settings, False, project)
    assert [r for r in reads if not r.startswith(SITE_MARK)] == [str(tmp_path / "utils.py")]
    call = next(c for c in train["calls"] if c["t"] == "utils.Meter.update")
    assert call["a"] == [{"k": "graph", "s": 1}] and call["tr"] and not call["ng"]  # a one-number loss


def test_parent_class_in_other_module(tmp_path):
    files = {
        "base.py": '''
            import torch.nn as nn

            class Trainer:
                def __init__(self, opt):
                    self.model = nn.Linear(4, 1)
                    self.opt = opt

                def fit(self, loader):
                    for batch in loader:
                        loss = self.model(batch).mean()
                        self.opt.zero_grad()
                        loss.backward()
                        self.opt.step()
                        self.record(self.model(batch))

                def record(self, output):
                    pass
        ''',
        "rnn.py": '''
            from base import Trainer

            class RNNTrainer(Trainer):
                def record(self, output):
                    self.last = output
        ''',
    }
    assert ("rnn.py", 6, "TLL002") in run(write(tmp_path, files), "--no-cache", ".")


def test_argument_the_caller_back_propagates_is_not_dead(tmp_path):
    """`self.record(loss)` after `loss.backward()` in a base class of another module: what the
    override keeps is one step's graph whose activations the backward freed, not a dead graph."""
    files = {
        "base.py": '''
            class Trainer:
                def fit(self, loader):
                    for batch in loader:
                        loss = self.model(batch).mean()
                        self.opt.zero_grad()
                        loss.backward()
                        self.opt.step()
                        self.record(loss)

                def record(self, loss):
                    pass
        ''',
        "rnn.py": '''
            from base import Trainer

            class RNNTrainer(Trainer):
                def record(self, loss):
                    self.last = loss
        ''',
    }
    assert ("rnn.py", 6, "TLL002") not in run(write(tmp_path, files), "--no-cache", ".")


def test_cache_rechecks_dependents_only(tmp_path):
    write(tmp_path, METER)
    (tmp_path / "leaf.py").write_text("def f(x):\n    return x\n")
    first = run(tmp_path, ".")
    assert ("utils.py", 7, "TLL001") in first
    train = tmp_path / "train.py"
    train.write_text(train.read_text().replace("meter.update(loss)", "meter.update(loss.item())"))
    second = run(tmp_path, ".")
    # utils.py did not change, but the call site it depends on did: its entry is not reused
    assert not [k for k in second if k[0] == "utils.py"]
    assert run(tmp_path, ".") == second


def test_stdin_buffer_reads_the_project_on_disk(tmp_path):
    write(tmp_path, METER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    source = (tmp_path / "utils.py").read_bytes()
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-cache", "--stdin-filename", "utils.py", "-"],
                          cwd=tmp_path, env=env, input=source, capture_output=True)
    assert b"utils.py:7:9: TLL001" in proc.stdout and b"train.py:13" in proc.stdout
    # without a name there is no project: the buffer is analyzed alone
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-cache", "-"],
                          cwd=tmp_path, env=env, input=source, capture_output=True)
    assert b"TLL001" not in proc.stdout


def test_flake8_plugin_follows_imports(tmp_path):
    write(tmp_path, METER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "TLL", "utils.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True)
    assert "utils.py:7:9: TLL001" in proc.stdout, proc.stderr


def test_project_analysis_can_be_turned_off(tmp_path):
    write(tmp_path, METER)
    assert not run(tmp_path, "--no-cache", "--no-project-analysis", ".")


def test_isolated_reads_no_configuration_and_no_other_module(tmp_path):
    """`--isolated` (as in ruff): the defaults for every file, whatever pyproject.toml says,
    and each file analyzed on its own."""
    write(tmp_path, METER)
    with_config = run(tmp_path, "--no-cache", ".")
    assert ("utils.py", 7, "TLL001") in with_config  # across modules
    isolated = run(tmp_path, "--no-cache", "--isolated", "--extend-select", "TLL002", ".")
    assert ("utils.py", 7, "TLL001") not in isolated  # `val` is known only from train.py's call
    (tmp_path / "pyproject.toml").write_text("[tool.torchleaklint]\nignore = ['TLL001']\n")
    (tmp_path / "loop.py").write_text(textwrap.dedent('''
        import torch.nn.functional as F


        def train(model, loader, optimizer):
            total = 0
            for x, y in loader:
                loss = F.cross_entropy(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss
    '''))
    assert ("loop.py", 12, "TLL001") not in run(tmp_path, "--no-cache", ".")
    assert ("loop.py", 12, "TLL001") in run(tmp_path, "--no-cache", "--isolated", ".")


def test_isolated_cannot_be_combined_with_a_configuration_file(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--isolated", "--config", "pyproject.toml", "."],
                          cwd=write(tmp_path, METER), env=env, capture_output=True, text=True)
    assert proc.returncode == 2 and "--isolated" in proc.stderr


def test_a_meter_filled_by_another_modules_evaluation_loop_names_that_loop(tmp_path):
    """A container a method keeps, filled by a loop of another module that evaluates with
    autograd on (no backward): the message names that loop and says the activations stay."""
    write(tmp_path, {
        "metrics.py": """
            class PredictionMeter:
                def __init__(self):
                    self.preds = []

                def add_batch(self, pred):
                    self.preds.append(pred)
            """,
        "engine.py": """
            import torch
            import torch.nn.functional as F
            from metrics import PredictionMeter


            def train(model, batches, optimizer):
                for x, y in batches:
                    loss = F.mse_loss(model(x), y)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()


            def test(model, batches, meter):
                model.eval()
                for x, _ in batches:
                    meter.add_batch(model(x))
                return len(meter.preds)


            def main():
                model = torch.nn.Linear(4, 1)
                batches = [(torch.randn(2, 4), torch.randn(2, 1))]
                train(model, batches, torch.optim.SGD(model.parameters(), lr=0.1))
                return test(model, batches, PredictionMeter())
            """,
    })
    found = run(tmp_path, "--no-cache", "--select", "TLL003", ".")
    message = found[("metrics.py", 7, "TLL003")]
    assert "nothing in the loop around the call at engine.py:18 back-propagates it" in message
    assert "saved activations stay alive" in message


def _cache_and_meter(update_call):
    return {
        "pkg/__init__.py": "",
        "pkg/meters.py": """
            class ExponentialMovingAverage:
                def __init__(self, alpha=0.9):
                    self.alpha = alpha
                    self.ema = None

                def update(self, num):
                    prev = num if self.ema is None else self.ema
                    self.ema = self.alpha * prev + (1.0 - self.alpha) * num
                    return self.ema
            """,
        "pkg/attention.py": f"""
            import torch.nn as nn
            from pkg import meters

            class Attention(nn.Module):
                def __init__(self, d=16):
                    super().__init__()
                    self.k = nn.Linear(d, d)
                    self.v = nn.Linear(d, d)

                def forward(self, x, past_key_value=None):
                    key_states, value_states = self.k(x), self.v(x)
                    if past_key_value is not None:
                        {update_call}
                    return key_states @ value_states.transpose(-1, -2)
            """,
    }


def test_a_common_method_name_with_another_signature_types_nothing(tmp_path):
    # `past_key_value.update(k, v, layer, kwargs)` (a HuggingFace cache) calls `update` with four
    # arguments: the project's one-parameter meter `update` is not what runs there
    write(tmp_path, _cache_and_meter("key_states, value_states = past_key_value.update(key_states, value_states, 0, {})"))
    assert not [key for key in run(tmp_path, ".") if key[0] == "pkg/meters.py"]


def test_one_common_method_name_with_one_argument_is_no_proof(tmp_path):
    # the same name called with the one argument the meter's `update` takes: a signature of
    # one parameter matches too many objects to type this one as the project's meter
    write(tmp_path, _cache_and_meter("past_key_value.update(key_states)"))
    assert not [key for key in run(tmp_path, ".") if key[0] == "pkg/meters.py"]


SAMPLER = {
    "ops.py": '''
        import torch


        def sample(n, points):
            torch.cuda.empty_cache()
            return points[:, :n]
    ''',
    "train.py": '''
        import torch
        from torch.utils.data import DataLoader
        from ops import sample


        def test(model, dataset):
            for points in DataLoader(dataset, batch_size=8):
                points = sample(512, points)
                print(model(points).argmax(-1))


        def train(model, dataset, opt):
            for points, y in DataLoader(dataset, batch_size=8, shuffle=True):
                points = sample(512, points)
                loss = torch.nn.functional.cross_entropy(model(points), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
    ''',
}


def test_per_step_message_names_the_call_that_trains(tmp_path):
    # `sample` is called first by an evaluation loop, then by the training loop: the message
    # names the one that trains
    message = run(write(tmp_path, SAMPLER), "--no-cache", ".")[("ops.py", 6, "TLL004")]
    assert "training loop at train.py:15" in message, message


KEEPER = {
    "nets.py": '''
        import torch.nn as nn


        class Registration(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Linear(4, 4)

            def forward(self, a, b):
                self.phi = self.net(a) - self.net(b)
                return self.phi.pow(2).mean()
    ''',
    "evaluate.py": '''
        import torch
        from nets import Registration


        def evaluate(pairs):
            net = Registration()
            net.eval()
            for a, b in pairs:
                net(a, b)
    ''',
}


def test_a_forward_of_another_module_storing_on_its_object_is_said_so(tmp_path):
    # the forward keeps `self.phi` on the module: the message says the graph outlives the call,
    # not that it is freed when the statement ends
    message = run(write(tmp_path, KEEPER), "--no-cache", ".")[("evaluate.py", 10, "TLL006")]
    assert "stores what it computes on its object (`self.phi`)" in message, message


def test_a_device_kept_on_the_object_is_not_a_kept_graph(tmp_path):
    # `self.device = data.pos.device` stores what a tensor says of itself, not a graph: the
    # message must not say the forward keeps the graph on its object (3D-EMGP x7, blind set69)
    files = dict(KEEPER)
    files["nets.py"] = files["nets.py"].replace("self.phi = self.net(a) - self.net(b)", "self.device = a.pos.device") \
        .replace("return self.phi.pow(2).mean()", "return (self.net(a.x) - self.net(b)).pow(2).mean()")
    files["evaluate.py"] = files["evaluate.py"].replace("net(a, b)", "loss = net(a, b)")
    message = run(write(tmp_path, files), "--no-cache", ".")[("evaluate.py", 10, "TLL006")]
    assert "stores what it computes on its object" not in message, message
    assert "alive while its outputs are referenced" in message, message


def test_a_summary_that_fails_is_reported_only_in_debug_mode(tmp_path, monkeypatch, capsys):
    """A bug in summarizing leaves the file without a summary (its own check still runs);
    with TORCHLEAKLINT_DEBUG set, the traceback says which file and why."""
    import torchleaklint.project as project

    path = tmp_path / "mod.py"
    path.write_text("import torch\n\ndef f(x):\n    return x * 2\n", encoding="utf-8")

    def broken(model, module, partial=False):
        raise KeyError("summary bug")

    monkeypatch.setattr(project, "summarize", broken)
    monkeypatch.delenv("TORCHLEAKLINT_DEBUG", raising=False)
    assert project.summarize_file(str(path), path.read_bytes(), Settings()) == (None, None)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("TORCHLEAKLINT_DEBUG", "1")
    assert project.summarize_file(str(path), path.read_bytes(), Settings()) == (None, None)
    err = capsys.readouterr().err
    assert f"no summary for {path}" in err and "KeyError: 'summary bug'" in err
