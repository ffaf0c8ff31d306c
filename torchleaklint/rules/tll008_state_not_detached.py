"""TLL008: recurrent state carried from one iteration to the next without detach."""

from __future__ import annotations

import re
from typing import Iterator, Tuple

from torchleaklint.diagnostics import ERROR, UNSAFE, FixSpec, Span
from torchleaklint.rules.base import Rule
from torchleaklint.semantic.carried_state import backward_in, carried_states
from torchleaklint.semantic.structure import state_structure


class StateNotDetached(Rule):
    """Recurrent state carried across iterations without detach.

    ## What it does
    Finds a value that a loop feeds back into its own next iteration through a call
    (`output, hidden = model(x, hidden)`, `state = cell(x, state)`, `y = y + dt * f(y)`)
    while the loop calls `backward()` every iteration, and that is never detached
    (`hidden = hidden.detach()`, or a helper such as `repackage_hidden(hidden)` that
    returns a detached value) before it is reused. The finding points at the statement
    that rebinds the state.

    ## Why is this bad?
    This is truncated back-propagation through time without the truncation. Each
    iteration's state is computed from the previous iteration's graph, so each `backward()`
    walks back through the whole history. Without `retain_graph=True` the second
    iteration fails with "Trying to backward through the graph a second time"; with it
    (the usual "fix" found online) the graph, and memory, grow every step until OOM.

    ## Example
    ```python
    hidden = model.init_hidden(batch_size)
    for x, y in batches:
        output, hidden = model(x, hidden)
        loss = criterion(output, y)
        loss.backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    hidden = model.init_hidden(batch_size)
    for x, y in batches:
        hidden = hidden.detach()  # LSTM: tuple(h.detach() for h in hidden)
        output, hidden = model(x, hidden)
        loss = criterion(output, y)
        loss.backward()
        optimizer.step()
    ```

    The state may travel through locals and expressions: `y = net(torch.cat([x, h]))` then
    `h = y[:, -1]`, or `hidden = (h.detach(), c)` after `out, (h, c) = lstm(x, hidden)`
    (`c` is still carried). What counts is reaching definitions: the value read in one
    iteration is the one bound in the previous iteration, and the chain passes a call, or
    the loop's own backward differentiates the state every iteration whatever the chain is
    made of (a leaky integrator `v = 0.9 * v + fc(x)` whose spikes make the loss).

    Not reported: state detached anywhere in the loop before reuse, state re-initialized
    every iteration (or rebound earlier in the same iteration), loops without a backward
    (inference, sampling), an inner unroll differentiated with
    `autograd.grad(..., create_graph=True)` (kept on purpose: second-order MAML), results
    of calls whose value is unknown, and running totals that no backward of the loop
    differentiates (`total += loss`, `torch.cat((preds, out))`), which TLL001 reports.

    ## Fix safety
    Unsafe. The fix inserts `hidden = hidden.detach()` (each element for a tuple state) at
    the top of the loop body. When the code does not show whether the state is a tensor or a
    tuple (what a model returns: an LSTM's `(h, c)`), the inserted line handles both
    (`hidden.detach() if hasattr(hidden, "detach") else tuple(t.detach() for t in hidden)`).
    Gradients stop flowing into earlier iterations, which is the intended truncation, but it
    changes what is learned if full back-propagation through the whole sequence was really
    meant.
    """

    code = "TLL008"
    name = "recurrent-state-not-detached"
    summary = "Loop-carried state fed back into the next iteration without detach while backward runs each step"
    fix_title = "Detach the carried state at the top of the loop body"
    fix_safety = UNSAFE
    tokens = ("backward", "autograd.grad")

    def applies_to_project(self, project, source: str = "") -> bool:
        # `agent.train_step(state, logp, reward)` in a loop: a step function of another module
        # back-propagates there
        return project is not None and any(f"{name}(" in source and _calls(source, name)
                                           for name in project.training_step_names())

    def check(self, model) -> Iterator:
        for stmt, loop, reported in carried_states(model):
            yield self.finding(stmt, self._message(reported, loop), self._fix(model, stmt, loop, reported),
                               severity=ERROR, evidence=_evidence(model, stmt, loop, reported))

    def _message(self, names, loop) -> str:
        shown = ", ".join(f"`{n}`" for n in names)
        what = "is" if len(names) == 1 else "are"
        return (f"{shown} {what} fed back into the next iteration of the loop at line {loop.lineno} "
                f"without `.detach()`, while a backward runs in the loop: each backward walks the "
                f"whole history. Without `retain_graph=True` this fails on the second backward; with it, "
                f"memory grows every step. Detach {shown} at the top of the loop body")

    def _fix(self, model, stmt, loop, names) -> FixSpec:
        if len(names) == 1:
            # a tensor (0), a tuple of n tensors, or -1: not known (a model's output may be
            # an LSTM's `(h, c)`, which has no `.detach()`)
            size = state_structure(model, stmt, names[0])
            params: Tuple[Tuple[str, object], ...] = (("name", names[0]), ("tuple_size", size))
        else:
            params = (("name", ", ".join(names)), ("tuple_size", len(names)), ("names", tuple(names)))
        return FixSpec(codemod="insert_detach", safety=UNSAFE, title=self.fix_title,
                       target=Span.of(loop), params=params)


def _evidence(model, stmt, loop, names) -> list:
    shown = ", ".join(f"`{n}`" for n in names)
    backward = backward_in(model, loop)
    through_a_call = any(model.recurrent_through_call(stmt, name, loop) for name in names)
    how = "through a call that builds an autograd graph" if through_a_call else \
        "with autograd on, and the loop's backward differentiates what is read from it"
    steps = [(stmt, f"{shown} is computed here from the previous iteration's value {how}"),
             (loop, "the value bound in one iteration of this loop is the one read in the next "
                    "(no `.detach()` or fresh binding in between)")]
    if backward is not None:
        steps.append((backward, "this backward runs in the loop and walks back through every earlier "
                                "iteration's graph"))
    return steps


def _calls(source: str, name: str) -> bool:
    """Does the text call `name` (`agent.train_step(`, `train_step(`), not only define it?"""
    return re.search(rf"(?<!def )(?<![\w]){re.escape(name)}\(|\.{re.escape(name)}\(", source) is not None


__all__ = ("StateNotDetached",)
