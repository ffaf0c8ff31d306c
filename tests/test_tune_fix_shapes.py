"""TLL005's fix (`move_to_with_parameters`) on the common shapes of real Tune code, driven
by the rule's own FixSpecs: with_resources wrappers, class Trainables, a config built
before the call, modules that import Tune's names one by one."""

from __future__ import annotations

import textwrap

from torchleaklint.config import Settings
from torchleaklint.fixes import fix_text


def _fix(source: str) -> str:
    text = textwrap.dedent(source).lstrip("\n")
    result = fix_text(text, "tune_job.py", Settings(), unsafe=True)
    assert fix_text(result.text, "tune_job.py", Settings(), unsafe=True).text == result.text  # idempotent
    return result.text


def _dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_with_resources_wrapper_takes_with_parameters_inside():
    assert _fix("""
        import pandas as pd
        from ray import tune

        def train_fn(config):
            return fit(config["frame"], config["lr"])

        def main():
            tuner = tune.Tuner(
                tune.with_resources(train_fn, {"cpu": 2}),
                param_space={"lr": tune.loguniform(1e-4, 1e-1), "frame": pd.read_csv("a.csv")},
            )
            return tuner.fit()
        """) == _dedent("""
        import pandas as pd
        from ray import tune

        def train_fn(config, *, frame):
            return fit(frame, config["lr"])

        def main():
            tuner = tune.Tuner(
                tune.with_resources(tune.with_parameters(train_fn, frame=pd.read_csv("a.csv")), {"cpu": 2}),
                param_space={"lr": tune.loguniform(1e-4, 1e-1)},
            )
            return tuner.fit()
        """)


TRAINABLE = """
    import numpy as np
    from ray import tune

    class Probe(tune.Trainable):
        def setup(self, config):
            self.x = config["feats"]
            self.lr = config["lr"]

        def step(self):
            return {"loss": train_step(self.x, self.lr)}

    def main(path):
        config = {"lr": tune.uniform(0.01, 0.1)}
        config["feats"] = np.load(path)
        tune.run(Probe, config=config)
    """


def test_class_trainable_receives_the_value_in_setup_and_the_config_entry_is_hoisted():
    assert _fix(TRAINABLE) == _dedent("""
        import numpy as np
        from ray import tune

        class Probe(tune.Trainable):
            def setup(self, config, *, feats=None):
                self.x = feats
                self.lr = config["lr"]

            def step(self):
                return {"loss": train_step(self.x, self.lr)}

        def main(path):
            config = {"lr": tune.uniform(0.01, 0.1)}
            feats = np.load(path)
            tune.run(tune.with_parameters(Probe, feats=feats), config=config)
        """)


def test_no_fix_when_another_method_reads_the_key_from_self_config():
    source = TRAINABLE.replace('return {"loss": train_step(self.x, self.lr)}',
                               'return {"loss": train_step(self.config["feats"], self.lr)}')
    assert _fix(source) == _dedent(source)


def test_no_hoist_when_the_name_is_taken_or_the_entry_is_conditional():
    taken = TRAINABLE.replace("def main(path):", "def main(path, feats=None):")
    assert _fix(taken) == _dedent(taken)
    conditional = TRAINABLE.replace('    config["feats"] = np.load(path)',
                                    '    if path:\n            config["feats"] = np.load(path)')
    assert _fix(conditional) == _dedent(conditional)


def test_update_call_is_hoisted_and_tune_is_imported_when_only_names_were():
    assert _fix("""
        import pandas as pd
        from ray.tune import Tuner, choice

        def train_fn(config):
            return fit(config["frame"], config["lr"])

        def main():
            space = {"lr": choice([0.1, 0.01])}
            space.update(frame=pd.read_csv("a.csv"))
            return Tuner(train_fn, param_space=space).fit()
        """) == _dedent("""
        import pandas as pd
        from ray.tune import Tuner, choice
        from ray import tune

        def train_fn(config, *, frame):
            return fit(frame, config["lr"])

        def main():
            space = {"lr": choice([0.1, 0.01])}
            frame = pd.read_csv("a.csv")
            return Tuner(tune.with_parameters(train_fn, frame=frame), param_space=space).fit()
        """)
