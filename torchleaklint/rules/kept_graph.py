"""What keeping a graph-carrying tensor costs, said the same way by every rule that keeps one
(TLL001 running totals, TLL003 containers): the facts come from the semantic layer's graph
provenance; this module only words them and picks the severity."""

from __future__ import annotations

import ast
from typing import List, Optional

from torchleaklint.diagnostics import ERROR, WARNING
from torchleaklint.semantic.syntax import passed_true


class KeptGraph:
    """The cost of keeping `operand` in `holder` across the step loop `loop` (None when the
    holder outlives a per-step function instead)."""

    def __init__(self, model, operand, holder: str, loop, unit=None, external=None):
        self.holder = holder
        self.loop = loop
        self.unit = unit
        # a call site in another module (`model.ExternalCall`) whose loop calls `unit` over and
        # over: what it keeps grows with that loop (`loop` is then None)
        self.external = external
        self.external_label = model.site_label(external) if external is not None else ""
        # the loop that repeats the call: around it, or (`lpx`) a loop of another module that
        # calls the function making it (`agent.select_action(s)` per environment step)
        self.external_loop = "" if external is None else \
            f"the loop around the call at {self.external_label}" if external.site.get("lp") else \
            f"the loop of another module that runs the call at {self.external_label}"
        # (a loop over batches without a backward, an evaluation, does not train)
        self.external_trains = external is not None and bool(external.site["tr"])
        # where a per-step function's training loop calls it (`update` at `train.py:13`)
        site = model.training_loop_call_site(unit) if loop is None and external is None and \
            isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        self.step_call = f"`{unit.name}` is called in the training loop at {model.site_label(site)}" \
            if site is not None else ""
        self.origin = model.graph_origin(operand)
        self.consumer = model.consumed_by_backward(operand, loop)
        # `mse += mean_squared_error(obs, pred)`: the forward's activations go with the backward,
        # but the ops computed from them after it, never back-propagated, keep what they saved
        self.saves_more = self.consumer is not None and _computes_with_saved_inputs(operand)
        # `loss.backward(retain_graph=True)`: the backward frees nothing, the activations stay
        self.retained = self.consumer is not None and _retains_graph(self.consumer)
        # a per-step function keeping its argument, which the caller's step back-propagates
        self.callers_consume = loop is None and unit is not None and (
            model.argument_back_propagated_by_callers(operand, unit) or _returned_into_a_backward(model, operand))
        self.backwards: List = model.iteration_backwards(loop) if loop is not None else []
        # a step run by a callee (`self.train_step(batch)` whose override back-propagates):
        # a backward runs each iteration, out of this loop's text
        self.stepped = loop is not None and not self.backwards and model.runs_training_step(loop)
        # an epoch loop: each iteration runs a loop of training steps in a function it calls
        self.epochs = loop is not None and not self.backwards and not self.stepped and model.is_epoch_loop(loop)

    @property
    def severity(self) -> str:
        # Only a loop we can see whole (here, or summarized in another module) proves that
        # nothing back-propagates the graph.
        if self.external is not None:
            return WARNING if self.external_trains else ERROR
        return ERROR if self.retained or self.saves_more or self.loop is not None and not self.backwards and not self.stepped \
            and not self.epochs else WARNING

    def clause(self) -> str:
        if self.external is not None:
            if self.external_trains:
                return (f"every call's graph stays referenced from `{self.holder}` (its nodes at least; its "
                        f"activations too if the backward of {self.external_loop} does not "
                        f"reach it)")
            return (f"nothing in {self.external_loop} back-propagates it, so every "
                    f"call's graph and saved activations stay alive on the device")
        if self.retained:
            return (f"`backward(retain_graph=True)` at line {self.consumer.lineno} keeps its activations, so "
                    f"every step's graph and saved activations stay referenced from `{self.holder}` (device "
                    f"memory grows each step)")
        if self.consumer is not None and self.saves_more:
            return (f"`backward()` at line {self.consumer.lineno} frees the forward's activations, but the ops "
                    f"that compute this value from them are not back-propagated: the tensors they saved "
                    f"(on the device) and every step's graph nodes stay referenced from `{self.holder}` "
                    f"(memory grows each step)")
        if self.consumer is not None:
            return (f"`backward()` at line {self.consumer.lineno} frees its activations, but every step's "
                    f"graph nodes stay referenced from `{self.holder}` (host memory grows each step)")
        if self.backwards:
            return (f"every step's graph stays referenced from `{self.holder}` (its nodes at least; its "
                    f"activations too if the backward at line {self.backwards[0].lineno} does not reach it)")
        if self.epochs:
            return (f"every epoch's graph stays referenced from `{self.holder}` for the rest of the run (the "
                    f"nodes of its steps at least; their activations too if no backward reaches it)")
        if self.stepped:
            return (f"every step's graph stays referenced from `{self.holder}` (its nodes at least; its "
                    f"activations too if the step's backward does not reach it)")
        if self.loop is not None:
            # no backward in the loop: an inference or collection loop, not training steps
            return ("nothing back-propagates it, so every iteration's graph and saved activations stay alive "
                    "on the device")
        if self.callers_consume:
            return (f"the caller's `backward()` frees its activations, but every step's graph nodes stay "
                    f"referenced from `{self.holder}` (host memory grows each step)")
        return f"every step's graph stays referenced from `{self.holder}`"

    @property
    def trains(self) -> bool:
        """Does the loop run a training step (a backward in it, or a step a callee runs)?"""
        return bool(self.backwards) or self.stepped or self.epochs

    def evidence(self, kept_how: str) -> list:
        steps: list = [self.origin]
        if self.loop is not None and self.epochs:
            steps.append((self.loop, f"each iteration of this loop runs an epoch of training steps and {kept_how} "
                                     f"from one iteration to the next"))
        elif self.loop is not None:
            runs = "runs once per step" if self.trains else "repeats"
            steps.append((self.loop, f"this loop {runs} and {kept_how} from one iteration to the next"))
        elif self.external is not None:
            with_grad = "in a training loop" if self.external_trains else "with autograd on and no backward"
            steps.append((self.unit, f"`{getattr(self.unit, 'name', 'this code')}` is called over and over by "
                                     f"{self.external_loop} ({with_grad}) and "
                                     f"`{self.holder}` outlives every call"))
        elif self.unit is not None:
            steps.append((self.unit, f"`{getattr(self.unit, 'name', 'this code')}` runs once per step and "
                                     f"`{self.holder}` outlives it"))
        if self.retained:
            steps.append((self.consumer, "this backward keeps the graph (`retain_graph=True`): its activations stay"))
        elif self.consumer is not None:
            steps.append((self.consumer, "this backward frees the activations; the graph's nodes stay referenced"))
        elif self.loop is not None and not self.backwards and not self.stepped and not self.epochs:
            steps.append((self.loop, "no backward runs in this loop: the saved activations are never freed"))
        return steps


def kept_graph(model, stmt, operand, holder: str, why: Optional[str], key: str) -> KeptGraph:
    loop = model.step_loop_carrying(stmt, key) if why == "loop" else None
    return KeptGraph(model, operand, holder, loop, None if loop is not None else model.unit_of(stmt))


def detach_at_the_caller(model, param: str, site) -> str:
    """The advice where some callers hand the helper a number for `param`, so `.detach()` in
    it would fail for them: detach at the call `site` that hands the tensor in."""
    at = f" (the call at {model.site_label(site)})" if site is not None else ""
    return f"Other callers pass a number for `{param}`, so detach (`.item()`) where the tensor is handed in{at}, not here"


def _retains_graph(call) -> bool:
    """Does the backward call pass `retain_graph=True` (or `create_graph=True`, which retains it)?"""
    return passed_true(call, "retain_graph") or passed_true(call, "create_graph")


# methods of a tensor whose backward needs only its shape or nothing saved of any size
_LIGHT_METHODS = frozenset({"mean", "sum", "view", "reshape", "squeeze", "unsqueeze", "flatten", "clone",
                            "contiguous", "float", "double", "half", "to", "cpu", "cuda", "neg", "t"})


def _returned_into_a_backward(model, operand) -> bool:
    """`loss.cpu()` kept where the function returns `loss` to callers that back-propagate it:
    the stored value is that graph (through ops that save nothing), whose activations the
    callers' backward frees."""
    node = operand
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _LIGHT_METHODS \
            and not node.args:
        node = node.func.value
    return isinstance(node, ast.Name) and model.returned_into_a_backward(node)


def _computes_with_saved_inputs(operand) -> bool:
    """Is `operand` a call that computes from graph-carrying inputs with ops that save them
    (`mean_squared_error(obs, pred)`, `F.mse_loss(p, y)`, `criterion(out, y)`), not a name or a
    light method chain on one (`loss.mean()`, `out.sum()`)?"""
    node = operand
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _LIGHT_METHODS:
        node = node.func.value
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return isinstance(node, ast.Call)
