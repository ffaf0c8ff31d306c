#!/usr/bin/env python3
"""Time torchleaklint against its peers on one corpus, in one run.

    python benchmarks/bench.py [CORPUS] [--repeat N] [--tools a,b,...] [--json OUT]

CORPUS defaults to the installed `torch` package (~2,400 real files). Every tool gets the
same explicit list of the corpus's .py files, runs in the corpus directory with its own
defaults (no configuration files) and output to /dev/null. Repeats are interleaved across
tools (so a burst of load on the machine hits all of them) and the median wall time is
reported, with the peak RSS of the tool's process (`os.wait4`; for tools that start worker
processes it is the largest of the process and its workers).

Tools: ast (bare `ast.parse` of every file, 1 process), tll-j1 (torchleaklint -j 1
--no-cache), tll (default jobs, --no-cache), tll-warm (cache primed, nothing changed),
tll-dir / tll-dir-noenv (the corpus
walked as a directory, cold, with and without the environment rules TLL101/TLL102, which
make the walk read YAML, Dockerfiles, shell scripts and .env files too), flake8 (default), and, when installed, ruff (default and --select ALL, --no-cache),
torchfix and fixit.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
SLOW_SECONDS = 60
# Every other tool runs with --exit-zero; these have none and exit 1 when they find something.
OK_CODES = {"torchfix": (0, 1), "fixit": (0, 1)}  # a tool slower than this runs once, whatever --repeat says

# Tools run in the corpus directory, so `python -m`/`-c` would put it first on sys.path and
# torch's `signal/` or `types.py` would shadow the stdlib's: every launcher drops it first.
DROP_CWD = "import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]\n"

AST_PARSE = DROP_CWD + """
import ast, warnings
warnings.simplefilter("ignore")
for path in open(sys.argv[1], encoding="utf-8").read().splitlines():
    with open(path, "rb") as handle:
        source = handle.read()
    try:
        ast.parse(source)
    except (SyntaxError, ValueError):
        pass
"""

# flake8 as its users get it by default: without the torchleaklint plugin this checkout
# registers (an installed plugin would make flake8 run torchleaklint's rules too).
FLAKE8_WITHOUT_TLL = DROP_CWD + """
from flake8.plugins import finder
_find = getattr(finder, "find_plugins", None)
if _find is not None:
    finder.find_plugins = lambda *a, **k: [p for p in _find(*a, **k) if p.package != "torchleaklint"]
from flake8.main.cli import main
sys.exit(main())
"""


def module_command(module: str, python: str = sys.executable) -> List[str]:
    launcher = DROP_CWD + f"import runpy; sys.argv[0] = {module!r}; runpy.run_module({module!r}, run_name='__main__')"
    return [python, "-c", launcher]


def default_corpus() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("bench: no corpus given and torch is not installed")
    return Path(list(spec.submodule_search_locations)[0])


def corpus_files(corpus: Path) -> List[str]:
    return sorted(str(p.relative_to(corpus)) for p in corpus.rglob("*.py") if p.is_file())


def tool_commands(file_list: str, files: List[str], cache_dir: str,
                  peers_python: str = sys.executable) -> Dict[str, Optional[List[str]]]:
    """Command line of each tool, None when the tool is not installed."""
    python = sys.executable
    tll = module_command("torchleaklint") + ["check", "--exit-zero", "-q", *files]
    ruff = _ruff_binary()
    return {
        "ast": [python, "-c", AST_PARSE, file_list],
        "tll-j1": tll + ["-j", "1", "--no-cache"],
        "tll": tll + ["--no-cache"],
        "tll-warm": tll + ["--cache-dir", cache_dir],
        # The corpus walked as a directory, cold: with the environment rules (YAML, Dockerfiles,
        # shell scripts and .env files read too) and without them (the walk reads .py only).
        "tll-dir": module_command("torchleaklint") + ["check", "--exit-zero", "-q", "--no-cache",
                                                      "--no-respect-gitignore", "."],
        "tll-dir-noenv": module_command("torchleaklint") + ["check", "--exit-zero", "-q", "--no-cache",
                                                            "--no-respect-gitignore", "--ignore", "TLL101,TLL102", "."],
        "flake8": [python, "-c", FLAKE8_WITHOUT_TLL, "--isolated", "--exit-zero", *files] if _has("flake8") else None,
        "ruff": [ruff, "check", "--isolated", "--no-cache", "--exit-zero", "-q", *files] if ruff else None,
        "ruff-all": [ruff, "check", "--isolated", "--no-cache", "--exit-zero", "-q", "--select", "ALL", *files]
        if ruff else None,
        "torchfix": module_command("torchfix", peers_python) + files if _has("torchfix", peers_python) else None,
        "fixit": module_command("fixit", peers_python) + ["lint", *files] if _has("fixit", peers_python) else None,
    }


def _has(module: str, python: str = sys.executable) -> bool:
    if python == sys.executable:
        return importlib.util.find_spec(module) is not None
    probe = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    return subprocess.run([python, "-c", probe], capture_output=True).returncode == 0


def _ruff_binary() -> Optional[str]:
    try:
        from ruff.__main__ import find_ruff_bin  # the real binary, not a launcher shim

        return str(find_ruff_bin())
    except Exception:
        import shutil

        return shutil.which("ruff")


def run_once(command: List[str], cwd: Path, env: dict, timeout: float, ok_codes=(0,)) -> tuple:
    """(wall seconds, peak RSS in MB) of one run."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            process.kill()
            _, status, usage = os.wait4(process.pid, 0)
            raise TimeoutError(f"{command[:3]} took more than {timeout:.0f} s")
        time.sleep(0.002)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in ok_codes:
        raise RuntimeError(f"{' '.join(command[:4])} ... exited with {process.returncode}")
    run_once.cpu_seconds = usage.ru_utime + usage.ru_stime  # the process and its workers
    return wall, usage.ru_maxrss / 1024


def machine() -> Dict[str, str]:
    model = platform.processor() or "unknown"
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpus": str(cores), "cpu": model, "python": platform.python_version(),
            "platform": platform.platform()}


def benchmark(corpus: Path, tools: List[str], repeat: int, timeout: float, peers_python: str = sys.executable) -> dict:
    files = corpus_files(corpus)
    if not files:
        sys.exit(f"bench: no .py files under {corpus}")
    size = sum((corpus / f).stat().st_size for f in files)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    # torchleaklint's own modules byte-compiled, as `pip install` leaves an installed package
    # (the peers' are): with PYTHONDONTWRITEBYTECODE set, every run would compile them again
    import compileall

    compileall.compile_dir(str(ROOT / "torchleaklint"), quiet=1)
    with tempfile.TemporaryDirectory(prefix="tll-bench-") as scratch:
        file_list = os.path.join(scratch, "files.txt")
        Path(file_list).write_text("\n".join(files) + "\n", encoding="utf-8")
        commands = tool_commands(file_list, files, os.path.join(scratch, "cache"), peers_python)
        unknown = [t for t in tools if t not in commands]
        if unknown:
            sys.exit(f"bench: unknown tools {unknown} (known: {', '.join(commands)})")
        active = [t for t in tools if commands[t] is not None]
        if "tll-warm" in active:
            run_once(commands["tll-warm"], corpus, env, timeout)  # prime the cache
        times: Dict[str, List[float]] = {t: [] for t in active}
        rss: Dict[str, float] = {t: 0.0 for t in active}
        cpu: Dict[str, List[float]] = {t: [] for t in active}
        for round_ in range(repeat):
            for tool in active:
                if round_ and times[tool] and times[tool][0] > SLOW_SECONDS:
                    continue
                wall, peak = run_once(commands[tool], corpus, env, timeout, OK_CODES.get(tool, (0,)))
                cpu[tool].append(run_once.cpu_seconds)
                times[tool].append(wall)
                rss[tool] = max(rss[tool], peak)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    results = {t: {"median": statistics.median(v), "min": min(v), "runs": len(v), "rss_mb": rss[t],
                   "cpu_median": statistics.median(cpu[t])}
               for t, v in times.items()}
    return {"corpus": str(corpus), "files": len(files), "bytes": size, "repeat": repeat,
            "machine": machine(), "load_average_after": load, "prefilter": prefilter(corpus, files), "missing": [t for t in tools if commands[t] is None],
            "results": results, "goals": goals(results)}


def prefilter(corpus: Path, files: List[str]) -> dict:
    """How many files no selected rule's token prefilter lets through (never parsed)."""
    sys.path.insert(0, str(ROOT))
    from torchleaklint.config import Settings
    from torchleaklint.engine import selected_rules
    from torchleaklint.source import SourceError, decode

    rules = selected_rules(Settings())
    skipped = 0
    for name in files:
        try:
            text, _ = decode((corpus / name).read_bytes())
        except (OSError, SourceError):
            continue
        skipped += not any(rule.applies_to(text) for rule in rules)
    return {"skipped": skipped, "files": len(files), "rules": [rule.code for rule in rules]}


def goals(results: dict) -> List[dict]:
    def ratio(a, b):
        if a in results and b in results:
            return results[a]["median"] / results[b]["median"]
        return None

    def cpu_ratio(a, b):
        if a in results and b in results and results[b].get("cpu_median"):
            return results[a]["cpu_median"] / results[b]["cpu_median"]
        return None

    checks = [("cold (default jobs) <= 0.5 x flake8", ratio("tll", "flake8"), 0.5),
              ("warm <= 0.1 x cold (default jobs)", ratio("tll-warm", "tll"), 0.1),
              ("-j 1 cold <= 4 x bare ast.parse", ratio("tll-j1", "ast"), 4.0),
              ("environment files add < 10% to a cold directory run", ratio("tll-dir", "tll-dir-noenv"), 1.1),
              ("environment files add < 10% CPU time to a cold directory run",
               cpu_ratio("tll-dir", "tll-dir-noenv"), 1.1)]
    return [{"goal": name, "ratio": value, "limit": limit, "met": value <= limit}
            for name, value, limit in checks if value is not None]


def report(data: dict) -> str:
    m = data["machine"]
    lines = [f"corpus: {data['corpus']} ({data['files']} files, {data['bytes'] / 1e6:.1f} MB)",
             f"machine: {m['cpus']} CPUs, {m['cpu']}, Python {m['python']}, {m['platform']}",
             f"median of {data['repeat']} interleaved runs (slow tools run once); "
             f"load average after: {data['load_average_after']}",
             f"prefilter: {data['prefilter']['skipped']} of {data['prefilter']['files']} files skipped unparsed "
             f"({100 * data['prefilter']['skipped'] / data['prefilter']['files']:.0f}%; rules {', '.join(data['prefilter']['rules'])})",
             "",
             f"{'tool':<10} {'median s':>9} {'min s':>8} {'x ast':>7} {'x flake8':>9} {'peak RSS MB':>12} {'CPU s':>7}"]
    results = data["results"]
    base_ast = results.get("ast", {}).get("median")
    base_flake8 = results.get("flake8", {}).get("median")
    for tool, r in results.items():
        x_ast = f"{r['median'] / base_ast:7.2f}" if base_ast else f"{'-':>7}"
        x_f8 = f"{r['median'] / base_flake8:9.3f}" if base_flake8 else f"{'-':>9}"
        lines.append(f"{tool:<10} {r['median']:9.3f} {r['min']:8.3f} {x_ast} {x_f8} {r['rss_mb']:12.1f}"
                     f" {r.get('cpu_median', 0):7.2f}")
    if data["missing"]:
        lines.append(f"not installed: {', '.join(data['missing'])}")
    lines.append("")
    for g in data["goals"]:
        lines.append(f"{'MET ' if g['met'] else 'MISS'} {g['goal']}: {g['ratio']:.3f}")
    return "\n".join(lines) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, help="directory of .py files (default: the torch package)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per tool (default 5)")
    parser.add_argument("--tools", default="ast,tll-j1,tll,tll-warm,flake8,ruff,ruff-all,torchfix,fixit",
                        help="comma-separated subset of tools to time")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per run before giving up")
    parser.add_argument("--peers-python", default=sys.executable,
                        help="Python that has TorchFix and Fixit installed (e.g. a separate virtualenv, since "
                             "they pin an older libcst)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args(argv)
    corpus = (args.corpus or default_corpus()).resolve()
    data = benchmark(corpus, [t.strip() for t in args.tools.split(",") if t.strip()], max(1, args.repeat),
                     args.timeout, args.peers_python)
    sys.stdout.write(report(data))
    if args.json:
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
