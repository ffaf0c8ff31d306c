"""TLL103: `PYTORCH_CUDA_ALLOC_CONF` set after CUDA was initialized."""

from __future__ import annotations

import ast
from typing import Iterator, List, Optional

from torchleaklint.rules.base import Rule
from torchleaklint.semantic.syntax import FUNCTION_TYPES, child_nodes

# torch.cuda functions that initialize CUDA (torch.cuda._lazy_init) when called. Not here:
# is_available/device_count (no context), empty_cache/memory_* (no-ops before init),
# manual_seed* (queued until init).
_INITIALIZING = {"init", "set_device", "current_device", "synchronize", "get_device_properties", "get_device_name",
                 "get_device_capability", "mem_get_info", "Stream", "current_stream", "default_stream"}
_SCOPES = FUNCTION_TYPES + (ast.ClassDef, ast.Lambda)


class AllocConfAfterCudaInit(Rule):
    """`PYTORCH_CUDA_ALLOC_CONF` set after the process initialized CUDA.

    ## What it does
    Finds an assignment of `PYTORCH_CUDA_ALLOC_CONF` (or `PYTORCH_ALLOC_CONF`) to this
    process's environment (`os.environ[...] =`, `os.environ.setdefault`, `os.putenv`,
    `os.environ.update`) that runs after a CUDA-initializing call on every path: earlier
    in the same module body or function body, `.cuda()`, `.to("cuda")`, a tensor created
    with `device="cuda"`, or an initializing `torch.cuda` call (`init`, `set_device`,
    `current_device`, `synchronize`, `get_device_properties`, `mem_get_info`, ...).

    ## Why is this bad?
    The caching allocator reads `PYTORCH_CUDA_ALLOC_CONF` once, when CUDA initializes.
    Setting it afterwards silently does nothing: the job runs with the default allocator
    and the OOM it was meant to prevent comes back.

    ## Known problems
    Only calls in the same function or module body, before the assignment and not inside
    a branch, count; a function (or module) that starts child processes (`subprocess`,
    `multiprocessing`, `torch.multiprocessing.spawn`) is not reported, since the children read
    the variable when they initialize CUDA; CUDA initialized in another function or module is not seen, and a
    device chosen at run time (`.to(device)`) is not read. Importing torch, creating
    `torch.device("cuda")`, `torch.cuda.is_available()` and `device_count()` do not
    initialize CUDA and are fine.

    ## Example
    ```python
    model = Net().cuda()
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
    ```

    ## Use instead
    ```python
    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"  # first, before any CUDA use
    model = Net().cuda()
    ```
    or set it in the job's environment (Dockerfile `ENV`, the launcher's `env`).

    ## Fix safety
    No automatic fix: moving the assignment can change what runs before it.

    ## References
    - PyTorch docs: "CUDA semantics: Memory management" (`PYTORCH_CUDA_ALLOC_CONF`)
    """

    code = "TLL103"
    name = "alloc-conf-after-cuda-init"
    summary = "`PYTORCH_CUDA_ALLOC_CONF` set after CUDA was initialized: it has no effect"
    tokens = ("ALLOC_CONF",)

    def check(self, model) -> Iterator:
        from torchleaklint.environment.alloc_conf import VARIABLES
        from torchleaklint.environment.python_env import settings

        for setting in settings(model, VARIABLES):
            if not setting.process:
                continue
            init = self._initialized_before(model, setting.node)
            if init is not None and not _starts_processes(model, model.unit_of(setting.node)):
                target = _describe_target(setting)
                yield self.finding(setting.node, (
                    f"{target} is set after CUDA was initialized (`{ast.unparse(init)[:60]}` on line "
                    f"{init.lineno}): the caching allocator read its configuration then, so this does nothing; "
                    f"set it before any CUDA use (top of the entry script) or in the job's environment"))

    def _initialized_before(self, model, node: ast.AST) -> Optional[ast.Call]:
        """A CUDA-initializing call that runs before `node` on every path: in a statement
        of an enclosing block (module or function body, `with`/`try` bodies) that precedes
        the statement holding `node`."""
        statement = model.statement_of(node)
        while statement is not None:
            parent = model.parent(statement)
            if parent is None:
                return None
            block = _block_of(parent, statement)
            if block is not None:
                for earlier in block[:block.index(statement)]:
                    found = _initializing_call(model, earlier)
                    if found is not None:
                        return found
            if isinstance(parent, _SCOPES):
                return None
            if isinstance(parent, ast.If) and statement in parent.orelse + parent.body:
                found = _initializing_call_in_expr(model, parent.test)
                if found is not None:
                    return found
            statement = parent if isinstance(parent, ast.stmt) else model.statement_of(parent)
        return None


_PROCESS_STARTERS = ("subprocess.", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "multiprocessing.",
                     "torch.multiprocessing.", "torch.distributed.launcher", "torch.distributed.run")


def _starts_processes(model, unit) -> bool:
    """The same function (or module) starts child processes: setting the variable then
    configures them, and the children read it when they initialize CUDA."""
    stack = [unit]
    while stack:
        node = stack.pop()
        if node is not unit and isinstance(node, _SCOPES):
            continue  # a nested function runs only if called
        stack.extend(child_nodes(node))
        if isinstance(node, ast.Call):
            qualname = model.qualname(node.func) or ""
            if qualname.startswith(_PROCESS_STARTERS) or (
                    isinstance(node.func, ast.Attribute) and node.func.attr in ("spawn", "Popen", "start_processes")):
                return True
    return False


def _block_of(parent: ast.AST, statement: ast.stmt) -> Optional[List[ast.stmt]]:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and statement in block:
            return block
    return None


def _initializing_call(model, statement: ast.stmt) -> Optional[ast.Call]:
    """A CUDA-initializing call that runs whenever `statement` completes: not in nested
    functions/classes/lambdas, not in a branch or a loop body that may not run."""
    if isinstance(statement, (ast.If, ast.While)):
        return _initializing_call_in_expr(model, statement.test)
    if isinstance(statement, (ast.For, ast.AsyncFor)):
        return _initializing_call_in_expr(model, statement.iter)
    if isinstance(statement, (ast.With, ast.AsyncWith)):
        for item in statement.items:
            found = _initializing_call_in_expr(model, item.context_expr)
            if found is not None:
                return found
        return _first_in_block(model, statement.body)
    if isinstance(statement, ast.Try):
        return _first_in_block(model, statement.body)
    if isinstance(statement, _SCOPES) or not isinstance(statement, ast.stmt):
        return None
    return _initializing_call_in_expr(model, statement)


def _first_in_block(model, block) -> Optional[ast.Call]:
    for statement in block:
        found = _initializing_call(model, statement)
        if found is not None:
            return found
    return None


def _initializing_call_in_expr(model, root: ast.AST) -> Optional[ast.Call]:
    stack = [root]
    found = []
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)) or (
                node is not root and isinstance(node, _SCOPES)):
            continue
        if isinstance(node, ast.Call) and _initializes_cuda(model, node):
            found.append(node)
        stack.extend(child_nodes(node))
    return min(found, key=lambda n: (n.lineno, n.col_offset)) if found else None


def _initializes_cuda(model, call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Attribute):
        if func.attr == "cuda" and model.qualname(func) != "torch.cuda":
            return True
        if func.attr == "to" and (any(_is_cuda_device(model, a) for a in call.args[:1])
                                  or any(k.arg == "device" and _is_cuda_device(model, k.value) for k in call.keywords)):
            return True
    qualname = model.qualname(func) or ""
    if qualname.startswith("torch.cuda.") and qualname.rsplit(".", 1)[-1] in _INITIALIZING:
        return True
    if qualname.startswith("torch.") and any(k.arg == "device" and _is_cuda_device(model, k.value)
                                             for k in call.keywords):
        return True
    return False


def _is_cuda_device(model, node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value == "cuda" or node.value.startswith("cuda:")
    if isinstance(node, ast.Call) and model.qualname(node.func) == "torch.device" and node.args:
        return _is_cuda_device(model, node.args[0])
    return False


def _describe_target(setting) -> str:
    return f'`os.environ["{setting.name}"]`'
