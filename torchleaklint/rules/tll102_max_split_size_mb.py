"""TLL102: `PYTORCH_CUDA_ALLOC_CONF` tunes `max_split_size_mb` instead of enabling expandable segments."""

from __future__ import annotations

import ast
from typing import Iterator

from torchleaklint.environment import DOCKERFILE, DOTENV, SHELL, YAML
from torchleaklint.environment.model import EnvFinding
from torchleaklint.rules.base import Rule
from torchleaklint.source import char_column


class MaxSplitSizeInAllocConf(Rule):
    """`PYTORCH_CUDA_ALLOC_CONF` sets `max_split_size_mb` and not `expandable_segments:True`.

    ## What it does
    Finds a value of `PYTORCH_CUDA_ALLOC_CONF` (or `PYTORCH_ALLOC_CONF`) that sets
    `max_split_size_mb` without `expandable_segments:True`, wherever it is set: Python
    (`os.environ[...] = `, `os.environ.setdefault`, `os.putenv`, `os.environ.update`, an
    environment dict for a child process), shell `export` and inline assignments,
    Dockerfile `ENV` and `RUN`, Compose/Kubernetes/CI `env`/`environment`/`variables`, and
    `.env` files.

    ## Why is this bad?
    `max_split_size_mb` was the old answer to fragmentation OOMs ("reserved memory is >>
    allocated memory"): it stops the caching allocator from splitting large blocks, which
    trades fragmentation for waste and needs tuning per model. Since PyTorch 2.1,
    `expandable_segments:True` maps freed memory into one growing virtual range, so the
    fragmentation goes away without the waste.

    ## Known problems
    Expandable segments need Linux and CUDA 11.7 or newer; on other platforms PyTorch
    warns and ignores the option. Values built at run time (f-strings, variables) are not
    read.

    ## Example
    ```python
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:128"
    ```

    ## Use instead
    ```python
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    ```

    ## Fix safety
    Unsafe (`--fix --unsafe-fixes`): it replaces the `max_split_size_mb:N` option with
    `expandable_segments:True`, which changes how the allocator behaves and needs Linux and
    CUDA 11.7+. Other options in the value are kept. No fix is offered when the value
    already mentions `expandable_segments` (e.g. `:False`, a deliberate choice).

    ## References
    - PyTorch docs: "CUDA semantics: Optimizing memory usage with PYTORCH_CUDA_ALLOC_CONF"
    """

    code = "TLL102"
    name = "alloc-conf-max-split-size"
    summary = "`PYTORCH_CUDA_ALLOC_CONF` tunes `max_split_size_mb` instead of `expandable_segments:True`"
    fix_title = "Replace `max_split_size_mb:N` with `expandable_segments:True`"
    fix_safety = "unsafe"
    kinds = ("python", YAML, DOCKERFILE, SHELL, DOTENV)
    tokens = ("max_split_size_mb",)
    env_tokens = ("max_split_size_mb",)

    def check(self, model) -> Iterator:
        from torchleaklint.environment import alloc_conf
        from torchleaklint.environment.python_env import constant_str, overwritten_at_once, settings

        lines = None
        for setting in settings(model, alloc_conf.VARIABLES):
            value = constant_str(setting.value)
            if value is None or not alloc_conf.tunes_max_split(value) or overwritten_at_once(model, setting):
                continue
            if lines is None:
                lines = model.source.splitlines()
            yield self.finding(setting.value, self._message(setting.name, value),
                               self._python_fix(setting.value, value, lines))

    @staticmethod
    def _python_fix(node: ast.AST, value: str, lines):
        from torchleaklint.environment import alloc_conf

        if node.lineno != node.end_lineno or not 0 < node.lineno <= len(lines):
            return None
        text = lines[node.lineno - 1]
        start = char_column(text, node.col_offset)
        fix = alloc_conf.text_fix(lines, node.lineno, start, value)
        if fix is None or fix.target.end_col > char_column(text, node.end_col_offset):
            return None
        return fix

    def check_environment(self, env) -> Iterator[EnvFinding]:
        from torchleaklint.environment import alloc_conf

        for name, value, line, col0, span in alloc_conf.settings_in(env):
            if not alloc_conf.tunes_max_split(value):
                continue
            fix = alloc_conf.text_fix(env.lines, line, col0, value, span)
            found = alloc_conf.locate(env.lines, line, col0, span)
            end_line, end_col = (found[0], found[2] + 1) if found else (line, col0 + 1 + len(value))
            yield EnvFinding(line, col0 + 1, self._message(name, value), end_line, end_col, fix)

    @staticmethod
    def _message(name: str, value: str) -> str:
        return (f"`{name}={value}` tunes `max_split_size_mb` against fragmentation; since PyTorch 2.1 "
                f"`expandable_segments:True` removes the fragmentation without wasting the split blocks "
                f"(needs Linux and CUDA 11.7+)")
