"""TLL001: a graph-carrying tensor accumulated into a running total."""

from __future__ import annotations

import ast
import re
from typing import Dict, Iterator, List, Optional, Set

from torchleaklint.diagnostics import SAFE, FixSpec, Span
from torchleaklint.rules.base import Rule
from torchleaklint.rules.kept_graph import KeptGraph, detach_at_the_caller, kept_graph
from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.object_state import registered_by_a_base
from torchleaklint.semantic.provenance import arithmetic_arguments
from torchleaklint.semantic.values import SEQUENCE
from torchleaklint.semantic.syntax import entry_accumulation, short_source as _short, with_method, child_nodes, walk

# Calls that grow a tensor from its previous value rather than compute something new.
_GROWING_CALLS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack",
                            "torch.vstack", "torch.add", "torch.column_stack", "torch.row_stack"})
_ACCUMULATING_OPS = (ast.Add, ast.Sub, ast.Mult, ast.Div)


# the rules that name recurrent state for what it is: kept on `self`, or carried by a local
_STATE_RULES = ("TLL002", "TLL008")


class LossAccumulation(Rule):
    """Loss accumulated into a running total without `.item()`.

    ## What it does
    Finds a tensor that carries an autograd graph (a loss, a model output, anything
    computed from them) being added into a total that survives from one training step to
    the next: `total_loss += loss`, `total = total + loss`, an exponential moving average
    fed by the loss, `preds = torch.cat((preds, out))`, `self.total += loss`,
    `totals[key] += loss`, or a global.

    ## Why is this bad?
    The total becomes part of every step's autograd graph. After N steps it references N
    graphs, each holding the activations saved for backward, so memory grows every step
    until the process is killed (in a Ray worker: `RayActorError ... connection error
    code 2`). The code looks correct and there is no stack trace pointing here.

    ## Example
    ```python
    total_loss = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss
    ```

    ## Use instead
    ```python
    total_loss = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss.item()
    ```

    Not reported: values already detached (`.item()`, `.detach()`, `float()`), loops under
    `torch.no_grad()`, and a total that is itself back-propagated later (summing the losses
    of several micro-steps before one `backward()` is deliberate). Recurrent state, a total
    the step itself computes with (`self.v = 0.9 * self.v + self.fc(x)` in a `forward` whose
    result uses `self.v`), is reported once: by TLL002 (state on `self`) or TLL008 (a local)
    when that rule is selected and reports the same statement, by this rule otherwise.

    ## Fix safety
    Safe. The fix appends `.item()` when the accumulated value is a one-number tensor and
    the total is only used as a number afterwards, and `.detach()` otherwise (also the
    better choice on GPU, where `.item()` synchronizes with the device every step).
    Neither changes a computed value.
    """

    code = "TLL001"
    name = "loss-accumulated-with-graph"
    summary = "Graph-carrying tensor accumulated into a running total across iterations"
    fix_title = "Accumulate `.item()` (or `.detach()`) of the value"
    fix_safety = SAFE
    # A graph needs torch (or a backward call) in the file, and accumulation needs an operator.
    tokens = ("torch", "backward")
    follows_callers = True
    operator_tokens = ("+", "-", "*", "/", "cat(", "stack(")

    def applies_to(self, source: str) -> bool:
        return super().applies_to(source) and any(t in source for t in self.operator_tokens)

    def applies_to_project(self, project, source: str = "") -> bool:
        if super().applies_to_project(project, source):
            return True
        # `th.manual_seed(0)` with `th` bound to torch by a module of the project and star-
        # imported here (`from .helper import *`): torch under another name
        return project is not None and any(t in source for t in self.operator_tokens) and any(
            re.search(rf"\b{re.escape(name)}\.", source)
            for name in project.names_aliasing("torch-module", lambda qual: qual == "torch") if name != "torch")

    def check(self, model) -> Iterator:
        for stmt in model.nodes(ast.AugAssign, ast.Assign):
            found = self._accumulation(model, stmt)
            if found is None:
                continue
            key, operands = found
            if model.feeds_backward(model.unit_of(stmt), key.split("[")[0], gradient=True) or \
                    model.stored_state_differentiated(stmt, key.split("[")[0]):
                continue  # the total itself is differentiated later (here, or from the `self`
                # state it goes into, by another method): deliberate
            if model.local_total_returned_into_a_backward(stmt, key):
                continue  # `penalty_total = penalty_total + penalty` over the parts of one call,
                # returned to callers that add it to their loss and back-propagate it
            if model.grad_disabled_at(stmt) or model.runs_only_without_grad(stmt):
                continue
            if _managed_by_a_base(model, stmt, key):
                continue  # `self.out_i` registered with a spiking framework's `register_memory`
            if any(model.inner_update_of(operand, key) for operand in operands):
                continue  # `params = params - lr * grad` of a create_graph=True gradient: meta-learning
            stored = model.flow(model.unit_of(stmt))
            if stored is None or not stored.stored.get(stmt, _NO).carries_graph:
                continue
            why, inner = model.outlives_step(stmt, key), None
            if why is None:
                # across the batches of one update (gradients accumulated), or across a loop of
                # forwards nothing back-propagates: the total grows within the update all the same
                inner = model.kept_over_back_propagated_batches(stmt, key) or \
                    model.summed_over_forward_iterations(stmt, key, operands[0])
                why = "loop" if inner is not None else None
            caller_loop = model.grows_across_calls(stmt, key) if why is None else None
            if why is None and caller_loop is None:
                continue
            holder = _holder(stmt, key)
            if caller_loop is not None:
                # `self.loss_log[name] = self.loss_log.get(name, 0.0) + loss` in a helper that a
                # loop calls over and over: the total outlives every call
                why = "calls"
                kept = KeptGraph(model, operands[0], holder, caller_loop, None)
            elif inner is not None:
                kept = KeptGraph(model, operands[0], holder, inner, None)
            else:
                kept = kept_graph(model, stmt, operands[0], holder, why, key)
            if model.feeds_the_step(stmt, key.split("[")[0]):
                # recurrent state the step computes with (a simulator's velocity): detaching
                # what is added would cut the gradient the step needs, so no fix is offered
                message, fix, superseded_by = self._state_message(holder, operands, why, kept), None, _STATE_RULES
            else:
                method = _fix_method(model, stmt, key, operands)
                message, fix = self._message(holder, operands, why, kept, method), self._fix(stmt, operands, method)
                superseded_by = ()
                numbers = next(filter(None, (model.parameter_given_numbers(o) for o in operands)), None)
                if numbers is not None:
                    # `Averager.add(x)`, called with a loss by one loop and with a float by another
                    site = model.training_loop_call_site(model.unit_of(stmt))
                    message, fix = self._callers_message(holder, operands, why, kept,
                                                         detach_at_the_caller(model, numbers, site)), None
            yield self.finding(stmt, message, fix, severity=kept.severity,
                               evidence=kept.evidence(f"`{holder}` keeps its value"), superseded_by=superseded_by)

    # A statement is an accumulation when its target is updated from its own previous value
    # with an arithmetic operator or a growing call (torch.cat). Returns the target key and
    # the graph-carrying operands being added.
    def _accumulation(self, model, stmt):
        if isinstance(stmt, ast.AugAssign):
            if not isinstance(stmt.op, _ACCUMULATING_OPS):
                return None
            key = _target_key(stmt.target)
            if key is None or not model.may_outlive_step(stmt, key) or not model.carries_graph(stmt.value):
                return None
            if model.value(stmt.value).kind == SEQUENCE or model.value(stmt.target).kind == SEQUENCE:
                return None  # `history += [loss]`, `ref_acc += scores` on a list: it grows a
                # container (TLL003's business), never a running total
            return key, [_narrow(model, stmt.value)]
        if len(stmt.targets) != 1:
            return None
        key = _target_key(stmt.targets[0])
        if key is None or not model.may_outlive_step(stmt, key):
            return None
        if key.endswith("]"):
            # `self.loss_log[name] = self.loss_log.get(name, 0.0) + loss`: a total per key
            added = entry_accumulation(stmt)
            if added is None or not model.carries_graph(added):
                return None
            return key, [_narrow(model, added)]
        operands = list(_added_operands(model, stmt.value, key))
        if not operands or _started_as_a_list(model, stmt, key):
            return None  # `result = result + out["output"]` after `result = []`: lists concatenated
        return key, operands

    def _message(self, key, operands, why, kept, method: str) -> str:
        shown = _short(operands[0])
        fix = f"`{with_method(operands[0], method)}`"
        where = _where(why, kept)
        return f"`{key}` accumulates `{shown}`, which carries an autograd graph, {where}; {kept.clause()}. Use {fix}"

    @staticmethod
    def _callers_message(key, operands, why, kept, advice: str) -> str:
        shown = _short(operands[0])
        where = _where(why, kept)
        return f"`{key}` accumulates `{shown}`, which carries an autograd graph, {where}; {kept.clause()}. {advice}"

    @staticmethod
    def _state_message(key, operands, why, kept) -> str:
        shown = _short(operands[0])
        where = _where(why, kept)
        return (f"`{key}` accumulates `{shown}`, which carries an autograd graph, {where}; {kept.clause()}. "
                f"The step computes with `{key}` (what it holds is returned or handed to a forward), so it is recurrent "
                f"state: detaching `{shown}` would cut the gradient the step needs; store "
                f"`{key}` detached once this step has used it (and return the undetached value)")

    def _fix(self, stmt, operands, method: str) -> Optional[FixSpec]:
        spans = tuple((o.lineno, o.col_offset, o.end_lineno, o.end_col_offset) for o in operands)
        return FixSpec(codemod="append_method", safety=SAFE, title=f"Use `.{method}()`",
                       target=Span.of(operands[0]), params=(("method", method), ("targets", spans)))


_NO = type("_No", (), {"carries_graph": False})()


def _where(why: str, kept) -> str:
    if why == "calls":
        return f"across the calls the loop at line {kept.loop.lineno} makes"
    if why == "loop":
        return "across iterations"
    return f"across training steps ({kept.step_call})" if kept.step_call else "across training steps"


def _holder(stmt, key: str) -> str:
    """How a message names what keeps the value: `self._sum[idx]` as written, not the key."""
    if not key.endswith("[]"):
        return key
    target = stmt.target if isinstance(stmt, ast.AugAssign) else stmt.targets[0]
    text = ast.unparse(target)
    return text if len(text) <= 40 else key[:-2]


def _target_key(target) -> Optional[str]:
    if isinstance(target, ast.Subscript):
        base = dotted(target.value)
        return f"{base}[]" if base else None
    return dotted(target)


def _added_operands(model, expr, key) -> Iterator[ast.AST]:
    """The graph-carrying parts added to `key` in `key = <expr>`; nothing if expr is not an
    accumulation of key (it must read key only as an operand of +,-,*,/ or a growing call)."""
    readers = _readers(expr, key)
    if not readers:
        return iter(())
    parts: List[ast.AST] = []
    if not _collect(model, expr, key, parts, readers):
        return iter(())
    return iter(_narrow(model, p) for p in parts if model.carries_graph(p))


def _narrow(model, expr):
    """`0.02 * loss` -> `loss`: the graph-carrying operand, where only one side carries it."""
    while isinstance(expr, ast.BinOp):
        left, right = model.carries_graph(expr.left), model.carries_graph(expr.right)
        if left == right:
            break
        expr = expr.left if left else expr.right
    return expr


def _collect(model, expr, key, parts, readers) -> bool:
    if dotted(expr) == key:
        return True
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _ACCUMULATING_OPS):
        left, right = expr.left in readers, expr.right in readers
        if not left and not right:
            parts.append(expr)
            return True
        ok = True
        for side in (expr.left, expr.right):
            if side in readers:
                ok = ok and _collect(model, side, key, parts, readers)
            else:
                parts.append(side)
        return ok
    if isinstance(expr, ast.IfExp):
        # `ema = loss if ema is None else 0.9 * ema + 0.1 * loss`: the test only looks at the
        # total; each branch either starts it or accumulates into it
        ok = True
        for side in (expr.body, expr.orelse):
            if side in readers:
                ok = ok and _collect(model, side, key, parts, readers)
            else:
                parts.append(side)
        return ok and any(side in readers for side in (expr.body, expr.orelse))
    if isinstance(expr, ast.Subscript) and expr.value in readers and expr.slice not in readers:
        # `torch.cat([mem, k])[-n:]`: a window of the grown tensor still references its graph
        return _collect(model, expr.value, key, parts, readers)
    if isinstance(expr, ast.Call) and expr in readers:
        mixed = arithmetic_arguments(model, expr)
        if mixed is not None and any(dotted(a) == key for a in mixed):
            # `ema = smooth(ema, loss)` of `return 0.98 * prev + 0.02 * new`: a total kept by a helper
            parts.extend(a for a in mixed if a not in readers)
            return True
    if isinstance(expr, ast.Call) and model.qualname(expr.func) in _GROWING_CALLS and expr.args:
        first = expr.args[0]
        if isinstance(first, (ast.Tuple, ast.List)) and any(dotted(e) == key for e in first.elts):
            parts.extend(e for e in first.elts if e not in readers)
            return True
    if expr not in readers:
        parts.append(expr)
        return True
    return False


def _readers(expr, key) -> Set[ast.AST]:
    """The nodes of `expr` that read `key` somewhere below them (one pass: asking each
    operand of a long `a + b + c + ...` chain separately was quadratic)."""
    parents: Dict[ast.AST, ast.AST] = {}
    readers: Set[ast.AST] = set()
    for node in walk(expr):
        for child in child_nodes(node):
            parents[child] = node
        if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) == key:
            while node is not None and node not in readers:
                readers.add(node)
                node = parents.get(node)
    return readers


def _is_scalar(model, operands) -> bool:
    return all(model.one_element(o) for o in operands)


def _fix_method(model, stmt, key, operands) -> str:
    """`item` when the total holds one number and later code only prints, formats or
    compares it (a float then does as well); `detach` otherwise, which keeps it a tensor."""
    if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
        return "detach"  # torch.cat needs tensors
    return "item" if _is_scalar(model, operands) and not _used_as_tensor(model, stmt, key) else "detach"


# A Python float has these attributes too; any other attribute or method needs the tensor.
_NUMBER_ATTRIBUTES = frozenset({"real", "imag", "is_integer", "hex", "conjugate", "as_integer_ratio"})
# Calls handed the total that need a tensor (besides `torch.*`): collectives, backward.
_TENSOR_TAKING = frozenset({"all_reduce", "reduce", "all_gather", "broadcast", "backward", "stack", "cat"})


def _used_as_tensor(model, stmt, key) -> bool:
    """Does later code of the function treat the total as a tensor, directly or through
    arithmetic: a tensor method or attribute (`(total / n).detach().cpu().item()`, the shac
    critic's), `torch.*(total)`, a collective? Then `.item()`, which leaves a float, would
    break it: the fix detaches instead."""
    unit = model.unit_of(stmt)
    # an entry of a container (`loss_dict["train_loss"]`): the container handed whole to a call
    # (`reduce_loss_dict(loss_dict)`, an all-reduce of each entry) may need every entry a tensor
    root = key.split("[", 1)[0] if "[" in key else None
    for node in walk(unit):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and dotted(node) == key \
                and not model.is_inside(node, stmt) and _needs_tensor(model, node):
            return True
        if root is not None and isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) \
                and dotted(node) == root and _handed_whole(model, node):
            return True
    return False


# Calls that read a container of numbers as numbers (formatting, logging).
_NUMBER_READERS = frozenset({"print", "str", "repr", "format", "len", "dict", "list", "sorted", "json.dumps",
                             "log", "info", "debug", "warning", "add_scalars", "log_dict", "set_postfix"})


def _handed_whole(model, read) -> bool:
    """Is the container itself (not one of its entries) handed to a call other than one that
    formats or logs it?"""
    parent = model.parent(read)
    if not isinstance(parent, ast.Call) or read is parent.func:
        return False
    func = parent.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name not in _NUMBER_READERS and (dotted(func) or "") not in _NUMBER_READERS


def _needs_tensor(model, read) -> bool:
    use, parent = read, model.parent(read)
    while isinstance(parent, (ast.BinOp, ast.UnaryOp)):  # `total / n`: the same kind of value
        use, parent = parent, model.parent(parent)
    if isinstance(parent, ast.Attribute):
        return parent.attr not in _NUMBER_ATTRIBUTES
    if isinstance(parent, ast.Call) and use is not parent.func:
        func = parent.func
        qual = model.qualname(func) or ""
        return qual.startswith("torch.") or isinstance(func, ast.Attribute) and func.attr in _TENSOR_TAKING
    return False


def _started_as_a_list(model, stmt, key: str) -> bool:
    """Does a definition reaching the total's own read bind a list (`result = []`)? Then `+`
    concatenates lists (a list plus anything else raises): what it keeps is a container's
    business (TLL003), not a running total's."""
    if "." in key or "[" in key:
        return False
    reaching = model.reaching(model.unit_of(stmt))
    for read in walk(stmt.value):
        if isinstance(read, ast.Name) and read.id == key and isinstance(read.ctx, ast.Load):
            for definition in reaching.definitions(read):
                bound = model.statement_of(definition)
                value = getattr(bound, "value", None)
                if isinstance(bound, ast.Assign) and (isinstance(value, (ast.List, ast.ListComp)) or
                                                      isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                                      and value.func.id == "list"):
                    return True
    return False


def _managed_by_a_base(model, stmt, key: str) -> bool:
    """Is the total `self.<attr>` state that a base class registers by name and manages?"""
    if not key.startswith("self.") or key.count(".") != 1:
        return False
    info = model.class_of(model.unit_of(stmt))
    return info is not None and registered_by_a_base(model, info, key.split(".", 1)[1].split("[")[0])
