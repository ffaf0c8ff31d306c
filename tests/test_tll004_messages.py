"""TLL004's message names where the per-step call is made: the training loop's call of a step
helper, not an evaluation loop's."""

from __future__ import annotations

from torchleaklint.config import Settings
from torchleaklint.engine import lint_source


def test_empty_cache_message_names_the_training_loop_not_the_validation_loop():
    """A step helper called per batch by the training loop and by the no-grad validation loop
    below it: TLL004's message cites the training loop's call, not the validation loop's
    (RViMLab's managers, blind set70, where it cited the validation loop)."""
    source = b'''import torch
from tqdm import tqdm


class Manager:
    def __init__(self, model, optimiser, loss, loaders, empty_cache=True):
        self.model, self.optimiser, self.loss, self.loaders = model, optimiser, loss, loaders
        self.empty_cache = empty_cache

    def forward_step(self, img, lbl):
        ret = {}
        output = self.model(img)
        ret["loss"] = self.loss(output, lbl)
        if self.empty_cache:
            torch.cuda.empty_cache()
        return ret

    def train_one_epoch(self):
        self.model.train()
        for batch_num, (img, lbl) in enumerate(tqdm(self.loaders["train_loader"])):
            self.optimiser.zero_grad()
            ret = self.forward_step(img, lbl)
            loss = ret["loss"]
            loss.backward()
            self.optimiser.step()

    def validate(self):
        self.model.eval()
        total = 0.0
        with torch.no_grad():
            for rec_num, (img, lbl) in enumerate(tqdm(self.loaders["valid_loader"])):
                ret = self.forward_step(img, lbl)
                total += ret["loss"].item()
        return total


def main(model, optimiser, loss, loaders, epochs=10):
    manager = Manager(model, optimiser, loss, loaders)
    for _ in range(epochs):
        manager.train_one_epoch()
        manager.validate()
'''
    [d] = lint_source(source, "manager.py", Settings(select=["TLL004"]))
    assert "`forward_step` is called in the training loop at line 22" in d.message, d.message
