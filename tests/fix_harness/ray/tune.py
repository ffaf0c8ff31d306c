"""See `ray/__init__.py`: a stand-in with Tune's serialization behaviour, nothing more."""

import itertools
import pickle

SERIALIZED_BYTES = [0]


class grid_search(dict):
    def __init__(self, values):
        super().__init__(grid_search=list(values))


class _Analysis:
    def __init__(self, results):
        self.results = results


def _variants(config):
    grids = {k: v["grid_search"] for k, v in config.items() if isinstance(v, grid_search)}
    for combo in itertools.product(*grids.values()):
        yield {**config, **dict(zip(grids, combo))}


def run(trainable, config):
    results = []
    for variant in _variants(config):
        blob = pickle.dumps(variant)  # every trial gets its own copy of the config
        SERIALIZED_BYTES[0] += len(blob)
        results.append(trainable(pickle.loads(blob)))
    return _Analysis(results)


def with_parameters(trainable, **kwargs):
    blob = pickle.dumps(kwargs)  # ray.put once, shared by all trials
    SERIALIZED_BYTES[0] += len(blob)

    def wrapped(config):
        return trainable(config, **pickle.loads(blob))

    return wrapped
