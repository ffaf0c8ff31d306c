"""Reaching definitions of one function (or module body), with loop back edges made explicit.

For every read of a name or a dotted attribute (`loss`, `self.total`, `res.features`) the
analysis knows which definitions can reach it, and for each definition which loops' back
edges it crossed on the way. That answers, from the code and not from its text, the question
every loop rule asks: is the value read here the one made in the previous iteration?

    for x, y in loader:
        loss, state = out[0], out[1:]
        loss = loss.float().mean()      # reads the `loss` bound two lines up: not carried
        total = total + loss            # reads the `total` of the previous iteration: carried

A definition is a binding statement's target (assignment, augmented assignment, `for`
target, `with ... as`, walrus, import, def/class, match capture), a parameter, or a reset of a
container (`buf.clear()`, `del buf[:]`). `ENTRY` stands for the value a name had when the unit
started (a global, a builtin, the attribute state of `self` at the call). Rebinding a name
`x` also replaces every `x.attr` key: the attributes then belong to the new object.

Nested functions, classes and lambdas are their own units; comprehension targets are local
to the comprehension. The analysis is linear in the size of the unit for straight-line code
and iterates each loop to a fixed point (bounded), so it stays cheap on very long functions.
"""

from __future__ import annotations

import ast
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple

from torchleaklint.semantic.imports import dotted
from torchleaklint.semantic.syntax import every_parameter, is_full_slice, child_nodes, walk

ENTRY = "<entry>"  # the definition a key has when the unit starts

Pair = Tuple[object, FrozenSet[ast.AST]]  # (definition node or ENTRY, loops whose back edge it crossed)
State = Dict[str, FrozenSet[Pair]]

_MAX_LOOP_PASSES = 4
_NO_LOOPS: FrozenSet[ast.AST] = frozenset()
_ENTRY_PAIRS: FrozenSet[Pair] = frozenset({(ENTRY, _NO_LOOPS)})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_CLEARING_METHODS = frozenset({"clear"})
# Calls that put something into their receiver without replacing it.
_MUTATING_METHODS = frozenset({"append", "appendleft", "extend", "extendleft", "insert", "add", "update",
                               "setdefault", "__setitem__", "put", "push"})


# ReachingDefinitions' method for each kind of statement (`_stmt_If`, or None)
_STMT_METHODS: Dict[type, object] = {}
_UNSET = object()


class ReachingDefinitions:
    """`reaching(read)`: the (definition, crossed loops) pairs that reach a read node."""

    def __init__(self, unit: ast.AST):
        self.unit = unit
        self.reads: Dict[ast.AST, FrozenSet[Pair]] = {}
        self.def_loops: Dict[ast.AST, FrozenSet[ast.AST]] = {}  # definition -> loops it is inside
        self.read_loops: Dict[ast.AST, FrozenSet[ast.AST]] = {}  # read -> loops it is inside
        self.reads_by_key: Dict[str, List[ast.AST]] = {}
        # (statement or call, key) -> the definition or mutation it makes of key
        self.effects: Dict[Tuple[ast.AST, str], ast.AST] = {}
        self.mutations = set()  # effects that put a value into a container
        self._loop_stack: List[ast.AST] = []
        self._loops_frozen: Optional[FrozenSet[ast.AST]] = frozenset()
        self._dotted_roots = set()
        self._stmt_stack: List[ast.AST] = []
        self._jumps: Dict[ast.AST, Dict[str, List[State]]] = {}
        self._phase: Dict[str, Tuple[int, bool]] = {}  # counter -> (first value, in the first iteration?)
        self._loop_exits: Dict[tuple, Optional[State]] = {}  # (nested loop, entry state, phase) -> exit state
        self._warm_heads: Dict[tuple, State] = {}  # (loop, phase) -> the head state it last reached
        state: Optional[State] = {}
        if isinstance(unit, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for arg in every_parameter(unit):
                state = self._define(state, arg.arg, arg)
        body = unit.body if isinstance(unit.body, list) else []
        self._block(body, state)

    # ------------------------------------------------------------------ queries
    def reaching(self, read: ast.AST) -> Optional[FrozenSet[Pair]]:
        """None when the read is not one this analysis saw (inside a nested scope)."""
        return self.reads.get(read)

    def carried_over(self, read: ast.AST, loop: ast.AST) -> Optional[bool]:
        """Is a value read here made in an earlier iteration of `loop` (a definition inside
        the loop that reaches the read around its back edge)?"""
        pairs = self.reads.get(read)
        if pairs is None:
            return None
        return any(loop in crossed for _, crossed in pairs)

    def survives_into(self, read: ast.AST, loop: ast.AST) -> Optional[bool]:
        """Is the object read here possibly not made in this iteration of `loop`: bound
        before the loop (or at entry) or in an earlier iteration? (For containers and
        objects, which keep what is put into them whoever rebinds them.)"""
        pairs = self.reads.get(read)
        if pairs is None:
            return None
        for definition, crossed in pairs:
            if loop in crossed or definition == ENTRY or loop not in self.def_loops.get(definition, ()):
                return True
        return False

    def from_entry(self, read: ast.AST) -> Optional[bool]:
        """Can the value read here be the one the key had when the unit started (for
        `self.x` in a method: the value the previous call left)?"""
        pairs = self.reads.get(read)
        if pairs is None:
            return None
        return any(definition == ENTRY for definition, _ in pairs)

    def effect_survives(self, node: ast.AST, key: str, loop: ast.AST) -> Optional[bool]:
        """Does what `node` (a statement or a call) did to `key` (binding it, or putting a
        value into it) reach a read of `key` in a later iteration of `loop`? A container
        cleared or rebound after the append, on every path, does not carry the value on."""
        effect = self.effects.get((node, key))
        if effect is None:
            return None
        for read in self.reads_by_key.get(key, ()):
            if loop not in self.read_loops.get(read, ()):
                continue
            if any(d is effect and loop in crossed for d, crossed in self.reads[read]):
                return True
        return False

    def is_mutation(self, node: ast.AST, key: str) -> bool:
        """Does `node` put something into `key` (append, item store) rather than rebind it?"""
        effect = self.effects.get((node, key))
        return effect is not None and effect in self.mutations

    def carried_definitions(self, read: ast.AST, loop: ast.AST) -> List[ast.AST]:
        """The definitions that reach `read` from an earlier iteration of `loop`."""
        return [d for d, crossed in self.reads.get(read, ()) if loop in crossed and d != ENTRY]

    def definitions(self, read: ast.AST) -> List[ast.AST]:
        return [d for d, _ in self.reads.get(read, ()) if d != ENTRY]

    # ------------------------------------------------------------------ state
    def _lookup(self, state: State, key: str) -> FrozenSet[Pair]:
        pairs = state.get(key)
        if pairs is not None:
            return pairs
        # `res.features` after `res = Result()`: the attribute belongs to the object made there
        root = key.split(".", 1)[0]
        if root != key and root in state:
            return _attribute_pairs(state[root])
        return _ENTRY_PAIRS

    def _record_read(self, node: ast.AST, key: str, state: State) -> None:
        if node not in self.reads:
            self.reads_by_key.setdefault(key, []).append(node)
            self.read_loops[node] = self._loops_now()
            self.reads[node] = self._lookup(state, key)
        elif self._phase:
            # a counted loop walks its first and its later iterations apart: a read sees both
            self.reads[node] = self.reads[node] | self._lookup(state, key)
        else:
            self.reads[node] = self._lookup(state, key)

    def _counter_branch(self, test: ast.AST) -> Optional[bool]:
        """In a counted loop's first or later iterations, which branch `if t == 0:` (or
        `t != 0`, `0 == t`) takes: True for the body, False for the else, None if not such a test."""
        if not (self._phase and isinstance(test, ast.Compare) and len(test.ops) == 1
                and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
            return None
        left, right = test.left, test.comparators[0]
        if isinstance(right, ast.Name) and isinstance(left, ast.Constant):
            left, right = right, left
        if not (isinstance(left, ast.Name) and left.id in self._phase and isinstance(right, ast.Constant)):
            return None
        start, first = self._phase[left.id]
        if type(right.value) is not int or right.value != start:
            return None
        return first if isinstance(test.ops[0], ast.Eq) else not first

    def _note_effect(self, key: str, node: ast.AST) -> None:
        if self._stmt_stack:
            self.effects[(self._stmt_stack[-1], key)] = node

    def _mutate(self, state: Optional[State], key: str, node: ast.AST) -> Optional[State]:
        """`key` now also holds what `node` put into it: its earlier definitions still reach."""
        if state is None:
            return None
        self.def_loops[node] = self._loops_now()
        self.mutations.add(node)
        self.effects[(node, key)] = node
        self._note_effect(key, node)
        if "." in key:
            self._dotted_roots.add(key.split(".", 1)[0])
        state[key] = self._lookup(state, key) | {(node, _NO_LOOPS)}
        return state

    # States are updated in place along straight-line code; every branch, loop pass and
    # jump works on its own copy (copying per definition made long functions quadratic).
    def _define(self, state: Optional[State], key: str, node: ast.AST) -> Optional[State]:
        if state is None:
            return None
        self.def_loops[node] = self._loops_now()
        self._note_effect(key, node)
        if key in self._dotted_roots:
            prefix = key + "."
            for other in [k for k in state if k.startswith(prefix)]:
                del state[other]  # a rebound object's attributes are the new object's
        if "." in key:
            self._dotted_roots.add(key.split(".", 1)[0])
        state[key] = frozenset({(node, _NO_LOOPS)})
        return state

    def _kill(self, state: Optional[State], key: str) -> Optional[State]:
        if state is None:
            return None
        state[key] = frozenset()
        return state

    def _loops_now(self) -> FrozenSet[ast.AST]:
        if self._loops_frozen is None:
            self._loops_frozen = frozenset(self._loop_stack)
        return self._loops_frozen

    # ------------------------------------------------------------------ statements
    def _block(self, stmts: Iterable[ast.stmt], state: Optional[State]) -> Optional[State]:
        for stmt in stmts:
            if state is None:
                break  # unreachable after return/raise/break/continue
            state = self._stmt(stmt, state)
        return state

    def _stmt(self, s: ast.stmt, state: State) -> Optional[State]:
        self._stmt_stack.append(s)
        try:
            method = _STMT_METHODS.get(type(s), _UNSET)
            if method is _UNSET:  # (found once per statement type)
                method = _STMT_METHODS[type(s)] = getattr(ReachingDefinitions, "_stmt_" + type(s).__name__, None)
            if method is not None:
                return method(self, s, state)
            for child in child_nodes(s):
                if isinstance(child, ast.expr):
                    state = self._expr(child, state)
            return state
        finally:
            self._stmt_stack.pop()

    def _stmt_Assign(self, s: ast.Assign, state: State) -> Optional[State]:
        state = self._expr(s.value, state)
        for target in s.targets:
            state = self._bind(target, state)
        return state

    def _stmt_AnnAssign(self, s: ast.AnnAssign, state: State) -> Optional[State]:
        if s.value is None:
            return state
        state = self._expr(s.value, state)
        return self._bind(s.target, state)

    def _stmt_AugAssign(self, s: ast.AugAssign, state: State) -> Optional[State]:
        state = self._expr(s.value, state)
        target = s.target
        key = dotted(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
        if key is not None:
            self._record_read(target, key, state)  # `x += v` reads x first
            if isinstance(target, ast.Attribute):
                state = self._expr(target.value, state)
            return self._define(state, key, target)
        return self._bind(target, state)

    def _stmt_For(self, s, state: State) -> Optional[State]:
        state = self._expr(s.iter, state)
        counter = _first_iteration_counter(s)
        if counter is not None:
            return self._counted_loop(s, state, counter)
        return self._loop(s, state, lambda st: self._bind(s.target, st))

    def _counted_loop(self, loop, entry: State, counter: Tuple[str, int]) -> Optional[State]:
        """A loop over `range`/`enumerate` whose body tests its counter against the first value
        (`if t == 0: pred = im else: pred = torch.cat((pred, im))`): the first iteration takes
        that branch, the later ones the other. Walked as a first iteration, then the later
        ones to a fixed point, so that a binding the first iteration always makes cuts what
        came from before the loop (an outer loop's previous iteration)."""
        name, start = counter
        head = (lambda st: self._bind(loop.target, st))
        self._push_loop(loop)
        back, breaks = None, []
        try:
            self._phase[name] = (start, True)
            self._jumps[loop] = {"break": [], "continue": []}
            first_end = self._block(loop.body, head(dict(entry)))
            first_back = _join_all([first_end] + self._jumps[loop]["continue"])
            first_breaks = self._jumps.pop(loop)["break"]
            self._phase[name] = (start, False)
            from_first = self._crossed(first_back, loop)
            if from_first is not None:
                _, back, breaks = self._fixed_point(loop, from_first, head)
        finally:
            self._phase.pop(name, None)
            self._pop_loop()
        after_body = _join(first_back, back)
        after = self._block(loop.orelse, dict(after_body) if after_body is not None else dict(entry))
        return _join_all([after] + first_breaks + breaks)

    _stmt_AsyncFor = _stmt_For

    def _stmt_While(self, s: ast.While, state: State) -> Optional[State]:
        return self._loop(s, state, lambda st: self._expr(s.test, st))

    def _loop(self, loop, entry: State, head) -> Optional[State]:
        # A nested loop entered again with the state it was entered with before (an enclosing
        # loop's pass that changed nothing it sees) ends as it did then, its reads the same.
        if not self._loop_stack:
            return self._walk_loop(loop, entry, head)
        key = (loop, frozenset(entry.items()), tuple(sorted(self._phase.items())))
        if key not in self._loop_exits:
            self._loop_exits[key] = self._walk_loop(loop, entry, head)
        found = self._loop_exits[key]
        return dict(found) if found is not None else None

    def _walk_loop(self, loop, entry: State, head) -> Optional[State]:
        self._push_loop(loop)
        try:
            at_head, back, breaks = self._fixed_point(loop, entry, head)
        finally:
            self._pop_loop()
        # The loop ends when its test fails (or its iterable is exhausted) at the head. A
        # loop over batches or steps is taken to run at least once: a value that could only
        # reach past it by the loop running zero times is not taken as carried (no finding
        # may rest on an empty loader).
        after_body = dict(back) if back is not None else dict(at_head)
        exit_state = head(after_body) if isinstance(loop, ast.While) else after_body
        after = self._block(loop.orelse, exit_state)
        return _join_all([after] + breaks)

    def _fixed_point(self, loop, start: State, head):
        """Walk the body from `start` (joined with what the back edge brings) until the head
        state is stable, or for `_MAX_LOOP_PASSES`: (head state, state at the back edge, the
        states at its `break`s)."""
        # A loop entered again (an enclosing loop's next pass) starts from the head state it
        # reached last time, joined with the new entry: entries only grow (outside a counted
        # loop's phases), so that is still below the new fixed point, which one pass then
        # usually confirms. Without it, loops nested d deep are walked 2**d times.
        warm_key = (loop, tuple(sorted(self._phase.items())))
        warm = self._warm_heads.get(warm_key) if not self._phase else None
        at_head = _join(start, warm) if warm is not None else dict(start)
        back = None
        for _ in range(_MAX_LOOP_PASSES):
            self._jumps[loop] = {"break": [], "continue": []}
            end = self._block(loop.body, head(dict(at_head)))
            back = _join_all([end] + self._jumps[loop]["continue"])
            new_head = _join(start, self._crossed(back, loop))
            if new_head == at_head:
                break
            at_head = new_head
        if not self._phase:
            self._warm_heads[warm_key] = at_head
        return at_head, back, self._jumps.pop(loop)["break"]

    def _push_loop(self, loop) -> None:
        self._loop_stack.append(loop)
        self._loops_frozen = None

    def _pop_loop(self) -> None:
        self._loop_stack.pop()
        self._loops_frozen = None

    def _crossed(self, state: Optional[State], loop: ast.AST) -> Optional[State]:
        """`state` as the head of `loop` sees it through the back edge: definitions made
        inside the loop are now from the previous iteration."""
        if state is None:
            return None
        out: State = {}
        for key, pairs in state.items():
            out[key] = _compact(frozenset(
                (d, crossed | {loop}) if d != ENTRY and loop in self.def_loops.get(d, ()) else (d, crossed)
                for d, crossed in pairs))
        return out

    def _stmt_Break(self, s, state: State) -> None:
        if self._loop_stack:
            self._jumps[self._loop_stack[-1]]["break"].append(state)
        return None

    def _stmt_Continue(self, s, state: State) -> None:
        if self._loop_stack:
            self._jumps[self._loop_stack[-1]]["continue"].append(state)
        return None

    def _stmt_Return(self, s: ast.Return, state: State) -> None:
        if s.value is not None:
            self._expr(s.value, state)
        return None

    def _stmt_Raise(self, s: ast.Raise, state: State) -> None:
        for child in (s.exc, s.cause):
            if child is not None:
                self._expr(child, state)
        return None

    def _stmt_If(self, s: ast.If, state: State) -> Optional[State]:
        state = self._expr(s.test, state)
        taken = self._counter_branch(s.test)
        if taken is True:
            return self._block(s.body, dict(state))
        if taken is False:
            return self._block(s.orelse, state) if s.orelse else state
        if not s.orelse:
            return _join(self._block(s.body, dict(state)), state)
        return _join(self._block(s.body, dict(state)), self._block(s.orelse, state))

    def _stmt_With(self, s, state: State) -> Optional[State]:
        for item in s.items:
            state = self._expr(item.context_expr, state)
            if item.optional_vars is not None:
                state = self._bind(item.optional_vars, state)
        return self._block(s.body, state)

    _stmt_AsyncWith = _stmt_With

    def _stmt_Try(self, s, state: State) -> Optional[State]:
        before = dict(state)
        after_body = self._block(s.body, state)
        # a handler may start anywhere in the body: from its start or its end
        handler_entry = _join(before, after_body)
        outcomes = [self._block(s.orelse, dict(after_body) if after_body is not None else None)]
        for handler in s.handlers:
            entry = dict(handler_entry) if handler_entry is not None else None
            if handler.type is not None and entry is not None:
                entry = self._expr(handler.type, entry)
            if handler.name and entry is not None:
                entry = self._define(entry, handler.name, handler)
            outcomes.append(self._block(handler.body, entry))
        joined = _join_all(outcomes)
        if s.finalbody:
            final_entry = joined if joined is not None else handler_entry
            finished = self._block(s.finalbody, final_entry)
            return finished if joined is not None else None
        return joined

    _stmt_TryStar = _stmt_Try

    def _stmt_Match(self, s, state: State) -> Optional[State]:
        state = self._expr(s.subject, state)
        outcomes: List[Optional[State]] = [state]  # no case matched
        for case in s.cases:
            entry = dict(state)
            for node in walk(case.pattern):
                name = getattr(node, "name", None) if type(node).__name__ in ("MatchAs", "MatchStar") else \
                    getattr(node, "rest", None) if type(node).__name__ == "MatchMapping" else None
                if name:
                    entry = self._define(entry, name, node)
            if case.guard is not None and entry is not None:
                entry = self._expr(case.guard, entry)
            outcomes.append(self._block(case.body, entry))
        return _join_all(outcomes)

    def _stmt_FunctionDef(self, s, state: State) -> Optional[State]:
        for dec in s.decorator_list:
            state = self._expr(dec, state)
        return self._define(state, s.name, s)

    _stmt_AsyncFunctionDef = _stmt_FunctionDef
    _stmt_ClassDef = _stmt_FunctionDef

    def _stmt_Import(self, s, state: State) -> Optional[State]:
        for alias in s.names:
            name = alias.asname or alias.name.split(".", 1)[0]
            state = self._define(state, name, s)
        return state

    def _stmt_ImportFrom(self, s, state: State) -> Optional[State]:
        for alias in s.names:
            if alias.name != "*":
                state = self._define(state, alias.asname or alias.name, s)
        return state

    def _stmt_Delete(self, s: ast.Delete, state: State) -> Optional[State]:
        for target in s.targets:
            key = dotted(target)
            if key is not None:
                state = self._kill(state, key)
            elif is_full_slice(target) and dotted(target.value) is not None:
                state = self._expr(target.value, state)
                state = self._define(state, dotted(target.value), s)  # `del buf[:]` empties it
            else:
                state = self._expr(target, state)
        return state

    def _stmt_Expr(self, s: ast.Expr, state: State) -> Optional[State]:
        state = self._expr(s.value, state)
        call = s.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr in _CLEARING_METHODS and not call.args:
            key = dotted(call.func.value)
            if key is not None:
                state = self._define(state, key, call)  # `buf.clear()`: empty like `buf = []`
        return state

    # ------------------------------------------------------------------ binding
    def _bind(self, target: ast.AST, state: Optional[State]) -> Optional[State]:
        if state is None:
            return None
        if isinstance(target, ast.Name):
            return self._define(state, target.id, target)
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                state = self._bind(elt, state)
            return state
        if isinstance(target, ast.Starred):
            return self._bind(target.value, state)
        if isinstance(target, ast.Attribute):
            state = self._expr(target.value, state)
            key = dotted(target)
            return self._define(state, key, target) if key is not None else state
        if isinstance(target, ast.Subscript):  # `x[i] = v` mutates x: a read of x, not a definition
            state = self._expr(target.value, state)
            state = self._expr(target.slice, state)
            key = dotted(target.value)
            return self._mutate(state, key, target) if key is not None else state
        return self._expr(target, state)

    # ------------------------------------------------------------------ expressions
    def _expr(self, e: ast.AST, state: Optional[State]) -> Optional[State]:
        """Record the reads of `e` (in evaluation order); walrus targets define."""
        if state is None or e is None:
            return state
        stack = [e]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    self._record_read(node, node.id, state)
                continue
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                key = dotted(node)
                if key is not None:
                    self._record_read(node, key, state)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in _MUTATING_METHODS:
                # arguments first, then the receiver takes them in
                for child in list(node.args) + [kw.value for kw in node.keywords]:
                    state = self._expr(child, state)
                state = self._expr(node.func.value, state)
                key = dotted(node.func.value)
                if key is not None:
                    state = self._mutate(state, key, node)
                continue
            elif isinstance(node, ast.NamedExpr):
                state = self._expr(node.value, state)
                state = self._bind(node.target, state)
                continue
            elif isinstance(node, _COMPREHENSIONS):
                self._comprehension(node, state)
                continue
            elif isinstance(node, ast.Lambda):
                continue
            stack.extend(reversed(child_nodes(node)))
        return state

    def _comprehension(self, node, state: State) -> None:
        local = dict(state)  # comprehension targets are local to it
        for index, gen in enumerate(node.generators):
            # the first iterable is evaluated in the enclosing scope, the rest inside
            self._expr(gen.iter, state if index == 0 else local)
            local = self._bind(gen.target, local) or local
            for cond in gen.ifs:
                self._expr(cond, local)
        parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        for part in parts:
            self._expr(part, local)


def _first_iteration_counter(loop) -> Optional[Tuple[str, int]]:
    """(counter, first value) of `for t in range(n)` / `range(a, n)` / `for i, x in
    enumerate(xs)` whose body tests `counter == first` and never rebinds the counter."""
    target, it = loop.target, loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("range", "enumerate")):
        return None
    if it.func.id == "range" and isinstance(target, ast.Name) and 1 <= len(it.args) <= 3:
        name = target.id
        start = it.args[0] if len(it.args) >= 2 else ast.Constant(value=0)
    elif it.func.id == "enumerate" and isinstance(target, ast.Tuple) and len(target.elts) == 2 \
            and isinstance(target.elts[0], ast.Name):
        name = target.elts[0].id
        start = next((k.value for k in it.keywords if k.arg == "start"), it.args[1] if len(it.args) > 1 else None) \
            or ast.Constant(value=0)
    else:
        return None
    if not (isinstance(start, ast.Constant) and type(start.value) is int):
        return None
    tested = False
    for node in walk(ast.Module(body=loop.body, type_ignores=[])):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            return None  # rebound in the body: the test says nothing about the iteration
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and any(
                isinstance(side, ast.Name) and side.id == name for side in (node.left, node.comparators[0])):
            tested = True
    return (name, start.value) if tested else None


def _compact(pairs: FrozenSet[Pair]) -> FrozenSet[Pair]:
    """The pairs of a definition reaching through more than two sets of crossed loops, as
    two: the union and the intersection of those sets. Every question asked of one loop
    keeps its answer (is there a path crossing its back edge: the loop is in the union; one
    not crossing it: the loop is not in the intersection), while the sets no longer multiply
    with the nesting depth (twenty nested loops made a million combinations)."""
    by_definition: Dict[object, List[FrozenSet[ast.AST]]] = {}
    for definition, crossed in pairs:
        by_definition.setdefault(definition, []).append(crossed)
    if all(len(sets) <= 2 for sets in by_definition.values()):
        return pairs
    out = set()
    for definition, sets in by_definition.items():
        if len(sets) <= 2:
            out.update((definition, crossed) for crossed in sets)
        else:
            out.add((definition, frozenset().union(*sets)))
            out.add((definition, frozenset.intersection(*sets)))
    return frozenset(out)


def _join(a: Optional[State], b: Optional[State]) -> Optional[State]:
    if a is None:
        return b
    if b is None:
        return a
    out = dict(a)
    for key, pairs in b.items():
        if key in out:
            if out[key] is not pairs:
                out[key] = out[key] | pairs
        else:
            out[key] = pairs | _unbound_pairs(a, key)
    for key in a:
        if key not in b:
            out[key] = out[key] | _unbound_pairs(b, key)
    return out


def _unbound_pairs(state: State, key: str) -> FrozenSet[Pair]:
    """What a state that never bound `key` says it holds (entry, or its root's object)."""
    root = key.split(".", 1)[0]
    if root != key and root in state:
        return _attribute_pairs(state[root])
    return _ENTRY_PAIRS


def _attribute_pairs(root_pairs: FrozenSet[Pair]) -> FrozenSet[Pair]:
    """The attributes of an object bound by these definitions: the object made there, except
    for a parameter (`self`, an argument), whose attributes are what the caller left."""
    return frozenset((ENTRY, crossed) if isinstance(d, ast.arg) else (d, crossed) for d, crossed in root_pairs)


def _join_all(states: List[Optional[State]]) -> Optional[State]:
    out: Optional[State] = None
    for state in states:
        out = _join(out, state)
    return out


