"""Fuzz the linter: it must never raise, never report an internal error (TLL901), and
every fix it produces must parse and be idempotent (fixing the fixed text changes nothing).

Two sources of programs: hypothesmith (grammar-generated Python) and mutated fixtures
(lines deleted, leak patterns inserted at random places with the surrounding indentation).
Usage: python scripts/fuzz.py --minutes 10 [--seed N]. Failing inputs are written to
fixtures/fuzz_regressions/ so that they become regression fixtures.
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
import time
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from torchleaklint.config import Settings  # noqa: E402
from torchleaklint.engine import INTERNAL_ERROR, lint_source  # noqa: E402
from torchleaklint.fixes import applicable, fix_text  # noqa: E402

LEAK_SNIPPETS = [
    "total_loss += loss",
    "losses.append(loss)",
    "self.y = next_y",
    "torch.cuda.empty_cache()",
    "loss.backward(retain_graph=True)",
    "out, hidden = model(x, hidden)",
    "preds = torch.cat((preds, model(x)))",
    "with torch.no_grad():\n    out = model(x)",
    "for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    total += loss",
    "tune.run(train_fn, config={'model': Net(), 'data': np.load('x.npy')})",
    "model.eval()\npred = model(x)",
]


class Failure(Exception):
    pass


def check(source: str, name: str = "fuzz.py") -> list:
    """Lint `source`; raise Failure if the linter crashed or reported an internal error."""
    try:
        diagnostics = lint_source(source.encode("utf-8", "surrogatepass"), name, Settings())
    except Exception as exc:  # the linter must never raise
        raise Failure(f"raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}") from exc
    for d in diagnostics:
        if d.code == INTERNAL_ERROR:
            raise Failure(d.message)
    return diagnostics


def check_fixes(source: str, diagnostics, name: str = "fuzz.py") -> bool:
    """Apply every fix (unsafe ones too) to `source`; raise Failure if the result does not
    parse or a second `--fix` would change it again. True if a fix was applied."""
    if not any(applicable(d, unsafe=True) for d in diagnostics):
        return False
    settings = Settings()
    try:
        first = fix_text(source, name, settings, unsafe=True, diagnostics=diagnostics)
        if first.text == source:
            return False
        if not _parses(first.text):
            raise Failure(f"fixed text does not parse:\n{first.text}")
        second = fix_text(first.text, name, settings, unsafe=True)
    except Failure:
        raise
    except Exception as exc:
        raise Failure(f"fixing raised {type(exc).__name__}: {exc}\n{traceback.format_exc()}") from exc
    if second.text != first.text:
        raise Failure("fix is not idempotent: a second --fix changed the file again\n"
                      + "".join(_diff(first.text, second.text)))
    return True


def _diff(old: str, new: str):
    import difflib

    return difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True))


def mutate(source: str, rng: random.Random) -> str:
    lines = source.splitlines()
    for _ in range(rng.randint(1, 4)):
        if not lines:
            break
        index = rng.randrange(len(lines))
        if rng.random() < 0.4:
            del lines[index]
        else:
            indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
            snippet = rng.choice(LEAK_SNIPPETS).splitlines()
            lines[index:index] = [indent + part for part in snippet]
    newline = rng.choice(["\n"] * 6 + ["\r\n", "\r"])  # line endings the fixes must keep
    return newline.join(lines) + newline


def fixture_sources():
    return [p.read_text(encoding="utf-8") for p in sorted((ROOT / "fixtures").rglob("*.py"))]


def run(seconds: float, seed: int, use_hypothesmith: bool = True) -> dict:
    rng = random.Random(seed)
    sources = fixture_sources()
    counts = {"mutated": 0, "generated": 0, "parseable": 0, "fixed": 0, "failures": 0}
    deadline = time.monotonic() + seconds
    generated = _hypothesmith_programs(seed) if use_hypothesmith else iter(())
    while time.monotonic() < deadline:
        if counts["mutated"] <= counts["generated"] * 4 or not use_hypothesmith:
            source = mutate(rng.choice(sources), rng)
            counts["mutated"] += 1
        else:
            source = next(generated, None)
            if source is None:
                use_hypothesmith = False
                continue
            counts["generated"] += 1
        counts["parseable"] += _parses(source)
        try:
            counts["fixed"] += check_fixes(source, check(source))
        except Failure as failure:
            counts["failures"] += 1
            _save(source, str(failure))
    return counts


def _parses(source: str) -> int:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
        return 1
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return 0


def _hypothesmith_programs(seed: int):
    import hypothesmith
    from hypothesis import HealthCheck, given, settings

    programs = []

    @settings(max_examples=200, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(hypothesmith.from_grammar())
    def collect(source):
        programs.append(source)

    while True:
        collect()
        yield from programs
        programs.clear()


def _save(source: str, message: str) -> None:
    folder = ROOT / "fixtures" / "fuzz_regressions"
    folder.mkdir(parents=True, exist_ok=True)
    name = f"case_{abs(hash(source)) % 10**10}.py.txt"
    (folder / name).write_text(f"# {message.splitlines()[0]}\n{source}", encoding="utf-8")
    print(f"FAILURE saved to {folder / name}: {message.splitlines()[0]}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-hypothesmith", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore", SyntaxWarning)  # hypothesmith compiles odd literals
    counts = run(args.minutes * 60, args.seed, not args.no_hypothesmith)
    print(" ".join(f"{k}={v}" for k, v in counts.items()))
    return 1 if counts["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
