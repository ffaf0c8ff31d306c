"""TLL006 offers `with torch.no_grad():` around an evaluation region only when that
cannot change a gradient (the codemod itself is tested in test_codemods.py)."""

from __future__ import annotations

import textwrap

from torchleaklint.config import Settings
from torchleaklint.engine import lint_source
from torchleaklint.fixes import fix_text


def _tll006(source: str):
    return [d for d in lint_source(textwrap.dedent(source), "train.py", Settings()) if d.code == "TLL006"]


def _codemods(source: str):
    return [d.fix.codemod if d.fix else None for d in _tll006(source)]


TRAIN_THEN_EVAL = """
    import torch
    import torch.nn.functional as F

    def fit(model, loader, val_loader, optimizer):
        for epoch in range(3):
            model.train()
            for x, y in loader:
                out = model(x)
                loss = F.cross_entropy(out, y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            model.eval()
            correct = 0
            for x, y in val_loader:
                out = model(x)
                correct += (out.argmax(1) == y).sum().item()
            print(epoch, correct)
"""


def test_region_after_eval_in_a_training_function_is_wrapped():
    # `out` is bound in the region, but the training code rebinds it before reading it.
    assert _codemods(TRAIN_THEN_EVAL) == ["wrap_in_no_grad"]
    fixed = fix_text(textwrap.dedent(TRAIN_THEN_EVAL), "train.py", Settings())
    assert "        with torch.no_grad():\n            correct = 0\n" in fixed.text
    assert not [d for d in fixed.remaining if d.code == "TLL006"]
    assert fix_text(fixed.text, "train.py", Settings()).text == fixed.text


def test_a_forward_whose_graph_the_training_part_back_propagates_is_not_reported():
    # eval mode, but the graph is used: training code (a DDPG critic in eval mode for its
    # normalization statistics), so neither a finding nor a fix
    assert _codemods("""
        def finetune(model, head, x, optimizer):
            model.eval()
            feats = model(x)
            model.train()
            loss = head(feats).sum()
            loss.backward()
            optimizer.step()
    """) == []


def test_outputs_collected_in_the_region_and_back_propagated_later_are_not_reported():
    # the stacked outputs are differentiated: their graphs are used (graph provenance
    # through the container)
    assert _codemods("""
        import torch

        def collect(model, xs, optimizer):
            outs = []
            model.eval()
            for x in xs:
                outs.append(model(x))
            model.train()
            torch.stack(outs).sum().backward()
    """) == []


def test_no_fix_in_a_generator_or_for_a_returned_graph():
    assert _codemods("""
        def stream(model, xs, optimizer):
            model(xs[0]).sum().backward()
            model.eval()
            for x in xs:
                yield model(x)
    """) == [None]
    assert _codemods("""
        def features(model, x, optimizer):
            model(x).sum().backward()
            model.eval()
            return model(x)
    """) == [None]



ATTACKS_HANDED_IN = """
    import torch
    import torch.nn as nn

    def robust_accuracy(model, attacks, loader):
        dist: nn.Module = nn.PairwiseDistance()
        model.eval()
        for attack in attacks:
            for x, y in loader:
                x_adv = attack(x, y)
                print(model(x_adv).argmax(1).eq(y).float().mean().item())
"""


def test_no_fix_turns_autograd_off_around_a_callable_that_was_handed_in():
    # each attack back-propagates through the model inside its own forward: `@torch.no_grad()`
    # on the function, or a `with` around the loop, would break it; the finding stays, unfixed
    found = _tll006(ATTACKS_HANDED_IN)
    assert found and all(d.fix is None for d in found)
    assert "not the whole evaluation" in found[0].message
    # the same loop without the attack call gets its fix
    plain = ATTACKS_HANDED_IN.replace("x_adv = attack(x, y)", "x_adv = x + 0.01")
    assert any(d.fix is not None for d in _tll006(plain))


ATTACK_METHOD_HANDED_IN = """
    import torch

    def eval_multiple_restarts(attack, model, dataloader, num_restarts=5):
        model.eval()
        for _ in range(num_restarts):
            correct = []
            for x, y in dataloader:
                x_adv, _ = attack.perturb(x, y)
                out = model(x_adv)
                correct.extend((out.argmax(dim=1) == y).tolist())
        return correct
"""


def test_no_decorator_over_a_method_of_a_handed_in_object():
    # `attack.perturb(x, y)` (a PGD attack handed in) back-propagates inside: `@torch.no_grad()`
    # on the function would break it (set17, adversarial_robustness_pytorch's eval-adv.py)
    found = _tll006(ATTACK_METHOD_HANDED_IN)
    assert found and all(d.fix is None for d in found)
    assert "decorate" not in found[0].message
    # a logger handed in is bookkeeping: the decorator stays a safe fix
    logged = ATTACK_METHOD_HANDED_IN.replace("x_adv, _ = attack.perturb(x, y)", "attack.log(x, y); x_adv = x")
    assert any(d.fix is not None for d in _tll006(logged))



def test_no_decorator_over_an_evaluation_that_runs_another_modules_training_step():
    # nope-nerf's `eval()` reads the focal length, then refines the test poses through a
    # `PoseTrainer.train_step` of another module that back-propagates (set50, a blind reader's
    # "harmful fix"): no `@torch.no_grad()` on it, and the advice names this forward only
    import json
    import subprocess
    import sys
    from pathlib import Path

    project = Path(__file__).resolve().parent.parent / "fixtures/tll006/projects/evaluation_that_optimises_poses"
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--no-cache", "--output-format", "json", "."],
                          cwd=project, capture_output=True, text=True)
    found = {d["message"].split("`")[1]: d for d in json.loads(proc.stdout) if d["code"] == "TLL006"}
    readout = found["focal_net(0)"]
    assert not readout["fix_available"]
    assert "not the whole evaluation" in readout["message"] and "decorate" not in readout["message"]
    # the rendering pass of the same module trains nothing: the decorator stays a safe fix there
    assert found["field(poses(i))"]["fix_available"]


BATCHES_MOVED_TO_THE_DEVICE = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    model = nn.Linear(8, 2)
    device = torch.device("cpu")

    def val(loader):
        model.eval()
        loss_all = 0
        for data in loader:
            data = data.to(device)
            loss_all += F.nll_loss(model(data), data.y, reduction="sum").item()
        return loss_all / len(loader.dataset)
"""


def test_a_batch_moved_to_the_device_is_no_handed_in_callable():
    # `data.to(device)` on the batch drawn from the loader moves data: nothing in `val` can
    # compute gradients, so the advice is the decorator and the fix is offered (set54, k-gnn)
    found = _tll006(BATCHES_MOVED_TO_THE_DEVICE)
    assert found and all(d.fix is not None for d in found)
    assert "an attack" not in found[0].message and "decorate `val`" in found[0].message
    # an object drawn from the loader and called on the batch is still a callable it was handed
    attacked = BATCHES_MOVED_TO_THE_DEVICE.replace("for data in loader:", "for data, attack in loader:").replace(
        "data = data.to(device)", "data = attack.perturb(data, device)")
    assert "an attack" in _tll006(attacked)[0].message


SAMPLED_FROM_A_MEMORY = """
    import torch

    def evaluate(memory, model, device):
        model.eval()
        (x, u, _, _), lens = memory.sample(1)
        x = torch.tensor(x).float().to(device)
        u = torch.tensor(u).float().to(device)
        states, priors = model(x, u)
        return states

    def attacked(attack, model, x, y):
        model.eval()
        adv = attack.perturb(x, y)
        return model(adv)
"""


def test_a_handed_in_object_whose_result_is_the_models_input_is_a_data_source():
    # `memory.sample(1)` hands out the batch: no attack that may differentiate, so the
    # evaluation gets its no-grad fix; `attack.perturb(x, y)` may back-propagate: no fix
    found = {d.line: d for d in _tll006(SAMPLED_FROM_A_MEMORY)}
    assert sorted(found) == [9, 15]
    assert found[9].fix is not None and "a callable it was handed" not in found[9].message
    assert found[15].fix is None and "a callable it was handed" in found[15].message


CRITERION_HANDED_IN = """
    import torch

    def validate(val_loader, model, criterion):
        model.eval()
        total = 0.0
        for x, target in val_loader:
            output = model(x)
            loss = criterion(output, target)
            total += loss.item()
        return total


    class Learner:
        def test(self, model):
            model.eval()
            correct = 0
            for x, targets in self.testloader:
                outputs = model(x)
                pred = outputs.argmax(1).view(1, -1)
                correct += pred.eq(targets.view(1, -1).expand_as(pred)).sum().item()
            return correct
"""


def test_a_loss_handed_in_scores_outputs_and_is_no_attack():
    # `criterion(output, target)` is handed what the forward returned (PAConv's validate), and
    # `targets.view(...)` is a method of the object's own loader's items (iTAML's test): neither
    # is a handed-in callable that may differentiate, so the advice is the whole evaluation
    found = _tll006(CRITERION_HANDED_IN)
    assert len(found) == 2
    assert all("not the whole evaluation" not in d.message for d in found)
    # an attack handed the batch still is one
    attack = CRITERION_HANDED_IN.replace("output = model(x)", "x_adv = criterion(x, target)\n            output = model(x_adv)")
    assert any("not the whole evaluation" in d.message for d in _tll006(attack))
