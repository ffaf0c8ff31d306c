"""The abstract values the data-flow analysis computes for expressions."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Tuple

# Kinds of values. GRAPH is the one that matters most: a tensor with a grad_fn, whose
# reference keeps every saved activation of its autograd graph alive.
GRAPH = "graph"  # tensor carrying an autograd graph
LEAF = "leaf"  # tensor that requires grad but has no graph yet (parameters)
TENSOR = "tensor"  # tensor without graph (detached, no-grad, data)
SCALAR = "scalar"  # Python number, bool, str
NONE = "none"
MODULE = "module"  # nn.Module instance
LOSS_FN = "loss_fn"  # loss module instance or functional loss
OPTIMIZER = "optimizer"
DATALOADER = "dataloader"
DATASET = "dataset"
DATA = "data"  # numpy arrays, dataframes, loaded data
REF = "ref"  # an imported object, by qualified name
FUNCTION = "function"  # a function of this module, by name
CLASS = "class"  # a class of this module, by name
INSTANCE = "instance"  # instance of a class of this module
CONTEXT = "context"  # a grad-mode context manager
SEQUENCE = "sequence"  # list/tuple/iterator with known element value
UNKNOWN = "unknown"

TENSORISH = frozenset({GRAPH, LEAF, TENSOR})


@dataclass(frozen=True)
class Value:
    kind: str
    name: Optional[str] = None  # qualified name (REF), class or function name
    items: Optional[Tuple["Value", ...]] = None  # tuple literal elements, in order
    elem: Optional["Value"] = None  # element of a SEQUENCE
    scalar: bool = False  # a tensor known to hold one number (a loss): `.item()` is valid
    grad_off: bool = False  # CONTEXT that disables grad (no_grad, inference_mode)
    # MODULE none of whose parameters requires grad (`nn.ReLU()`, after `m.requires_grad_(False)`):
    # calling it builds a graph only from an input that carries one
    frozen: bool = False
    # a dict literal's entries by constant key (`{"loss": loss, "acc": acc.item()}`), beside
    # `elem` (the join of them all, what any other key or an iteration gives)
    fields: Optional[Tuple[Tuple[str, "Value"], ...]] = None
    # TENSOR proven graph-free by a cut (`.detach()`, computed with autograd off), not merely
    # a tensor the analysis saw no graph flow into (one filled in place may hold a graph)
    cut: bool = False
    # MODULE or INSTANCE that is one of several classes (`A2CSeparate() if flag else A2CShared()`):
    # their names, each a class whose methods the value's calls may run (`name` is then None)
    alts: Optional[Tuple[str, ...]] = None

    def field(self, key: str) -> Optional["Value"]:
        """The value stored under a constant key, when the dict's entries are known."""
        for name, value in self.fields or ():
            if name == key:
                return value
        return None

    @property
    def carries_graph(self) -> bool:
        if self.kind == GRAPH:
            return True
        if self.items is not None:
            return any(item.carries_graph for item in self.items)
        return self.elem is not None and self.elem.carries_graph

    @property
    def requires_grad(self) -> bool:
        return self.kind in (GRAPH, LEAF) or self.carries_graph

    @property
    def is_tensor(self) -> bool:
        return self.kind in TENSORISH


def v(kind: str, **kw) -> Value:
    return Value(kind, **kw)


UNKNOWN_V = Value(UNKNOWN)
SCALAR_V = Value(SCALAR)
TENSOR_V = Value(TENSOR)
GRAPH_V = Value(GRAPH)
NONE_V = Value(NONE)
CUT_V = Value(TENSOR, cut=True)  # `.detach()`, or a graph computed with autograd off


def join(a: Optional[Value], b: Optional[Value]) -> Value:
    """Least upper bound: a may-analysis, so a graph on either path wins. Two dicts whose
    entries are both known keep them: an entry is the join of what each path stored under its
    key (a key one path never stores is absent there, so the other path's entry is what a
    read can give); a dict of unknown keys on either path drops the entries."""
    if a is b:  # the same value on both paths (often: the shared constants), no comparison
        return a if a is not None else UNKNOWN_V
    out = _join(a, b)
    if a is not None and b is not None and a != b and out.kind in (INSTANCE, MODULE) and out.name \
            and (a.fields or b.fields):
        # an object's attributes that calls filled (`buffer.add(...)` on one path): on the other
        # path they hold what the class gives them, which the reader joins in
        return replace(out, fields=_joined_fields(a.fields or (), b.fields or ()))
    if a is None or b is None or a == b or out.fields is None and not (a.fields and b.fields) \
            or NONE in (a.kind, b.kind):  # `logs = None` on one path: the dict's entries stand
        return out
    if a.fields and b.fields and out.kind == SEQUENCE:
        return replace(out, fields=_joined_fields(a.fields, b.fields))
    return replace(out, fields=None)


def _joined_fields(a, b) -> Tuple[Tuple[str, "Value"], ...]:
    theirs = dict(b)
    fields = [(key, join(value, theirs[key]) if key in theirs else value) for key, value in a]
    mine = {key for key, _ in a}
    return tuple(fields + [(key, value) for key, value in b if key not in mine])


def _alternatives(a: Value, b: Value) -> Optional[Tuple[str, ...]]:
    """The classes of either of two objects, when each is of known class(es)."""
    names = []
    for value in (a, b):
        known = value.alts or ((value.name,) if value.name else None)
        if not known:
            return None
        names.extend(n for n in known if n not in names)
    return tuple(sorted(names)) if len(names) > 1 else None


def with_field(container: Value, key: Optional[str], value: Value) -> Optional[Tuple[Tuple[str, Value], ...]]:
    """A dict's entries after `d[key] = value`: the entry replaced or added for a constant
    key; unknown (None) for any other key, whose store may overwrite any entry."""
    if container.fields is None or key is None:
        return None
    entries = [(k, v) for k, v in container.fields if k != key]
    return tuple(entries + [(key, value)])


def _join(a: Optional[Value], b: Optional[Value]) -> Value:
    if a is None:
        return b or UNKNOWN_V
    if b is None or a == b:
        return a
    if a.items is not None and b.items is not None:
        if len(a.items) == len(b.items):
            return Value(SEQUENCE, items=tuple(join(x, y) for x, y in zip(a.items, b.items)))
        # `return loss, metrics` on one path, `return loss, logits, metrics` on another: which
        # position holds what is unknown (never a graph taken from the other path's layout)
        return Value(SEQUENCE)
    if _empty_list(a) and b.kind == SEQUENCE and b.elem is not None:
        return b  # `outs = []` before a loop that appends: what the loop put in
    if _empty_list(b) and a.kind == SEQUENCE and a.elem is not None:
        return a
    if a == _BARE and b.kind == SEQUENCE and b.elem is not None and b.items is None:
        return b  # `meters = {}` before a loop that fills it (`meters[k] = AverageMeter()`)
    if b == _BARE and a.kind == SEQUENCE and a.elem is not None and a.items is None:
        return a
    if a.kind == GRAPH or b.kind == GRAPH:
        return Value(GRAPH, scalar=a.scalar and b.scalar)
    if a.carries_graph or b.carries_graph:
        return a if a.carries_graph else b
    if a.kind == b.kind and a.kind in TENSORISH:
        return Value(a.kind, cut=a.cut and b.cut)
    if a.kind == b.kind and a.kind in (MODULE, INSTANCE):
        # one of them has parameters; of two different (or unnamed) classes, still a module,
        # one of those classes when both are known
        if a.name == b.name and a.name:
            return Value(a.kind, name=a.name)
        alts = _alternatives(a, b)
        if a.kind == INSTANCE and alts is None:
            return UNKNOWN_V  # objects of unknown or unnamed classes: nothing known of either
        return Value(a.kind, alts=alts)
    if a.kind == b.kind == CLASS:
        # `norm_cls=RunningGraphNorm` left to its default by one call, another class passed by
        # another: either class
        alts = _alternatives(a, b)
        return Value(CLASS, alts=alts) if alts else UNKNOWN_V
    if a.kind == b.kind == REF and a.name != b.name:
        # `ema_cls=LossEMA` left to its default by one call, `FloatEMA` passed by another: either
        alts = _alternatives(a, b)
        return Value(REF, alts=alts) if alts else UNKNOWN_V
    if a.kind == b.kind == SEQUENCE and not a.fields and not b.fields and (a.elem is not None or a.items) \
            and (b.elem is not None or b.items):
        # `extras = [loss.item()]`, then `extras.append(...)` on one path only: a list of either
        # path's elements (the positions no longer known); not for lists of objects, whose
        # classes would then be guessed from either path (`metrics.append(NSEMetric(...))` on
        # one branch, `metrics.append(MSEMetric(...))` on another)
        elem = join(element_of(a), element_of(b))
        if elem.kind not in (MODULE, INSTANCE, CLASS, REF):
            return Value(SEQUENCE, elem=elem)
    if a.kind == b.kind and a.kind in _KINDS_KEPT_BY_A_JOIN:
        # `nn.MSELoss()` on one path, `nn.L1Loss()` on the other: a loss function either way
        return Value(a.kind, name=a.name if a.name == b.name else None)
    if a.kind == NONE:
        return b
    if b.kind == NONE:
        return a
    return UNKNOWN_V


# kinds whose values of different names are still of that kind (a join keeps the kind)
_KINDS_KEPT_BY_A_JOIN = frozenset({LOSS_FN, OPTIMIZER, DATALOADER, DATASET, DATA})


_BARE = Value(SEQUENCE)  # a container with nothing known in it: `{}` before anything is stored


def _empty_list(value: Value) -> bool:
    return value.kind == SEQUENCE and value.items == () and value.elem is None and not value.fields


def sequence_of(elem: Value) -> Value:
    return Value(SEQUENCE, elem=elem)


def element_of(value: Value) -> Value:
    """What iterating over / indexing into `value` yields."""
    if value.kind == SEQUENCE:
        if value.elem is not None:
            return value.elem
        if value.items:
            out = None
            for item in value.items:
                out = join(out, item)
            return out
        return UNKNOWN_V
    if value.kind in (DATALOADER, DATASET):
        return TENSOR_V  # batches from data pipelines carry no graph
    if value.kind == MODULE:
        # only containers of modules can be iterated (ModuleList, Sequential): their layers
        # (a ModuleDict yields its keys, which nothing calls)
        return Value(MODULE)
    if value.kind in TENSORISH:
        return Value(value.kind)
    if value.kind == DATA:
        return Value(DATA)
    return UNKNOWN_V
