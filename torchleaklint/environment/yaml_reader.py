"""YAML text -> documents of PyYAML nodes (`yaml.compose_all`), which keep line numbers.

Why PyYAML: it is the YAML parser of the Python world (maintained, a C accelerator in every
wheel, used by pre-commit and most tools that read Compose/Kubernetes files), and its node
API keeps the position of every key and value, which the rules report. Composing does not
construct Python objects, so custom tags (`!Ref`, `!reference`) are kept as tags rather than
rejected, and no tag can run code. Fixes are text edits at positions the nodes give, so
comments and formatting survive without a round-trip parser (ruamel.yaml is not needed).
"""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

try:  # libyaml: about 10x faster; the pure-Python loader gives the same nodes
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader as _Loader

_MERGE_TAG = "tag:yaml.org,2002:merge"


class YamlError(Exception):
    def __init__(self, message: str, line: int = 1, col: int = 1):
        super().__init__(message)
        self.line = line
        self.col = col


def parse_documents(text: str) -> List[Node]:
    """Every document's root node; raises YamlError when any document does not parse."""
    try:
        return [doc for doc in yaml.compose_all(text, Loader=_Loader) if doc is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise YamlError(f"{exc.problem or exc.context or 'invalid YAML'}", line, col) from None
    except (yaml.YAMLError, RecursionError, ValueError) as exc:
        raise YamlError(str(exc).splitlines()[0] if str(exc) else "invalid YAML") from None


def items(node: Optional[Node]) -> Iterator[Tuple[ScalarNode, Node]]:
    """(key, value) pairs of a mapping, with `<<: *anchor` merges expanded (own keys win)."""
    if not isinstance(node, MappingNode):
        return
    own = []
    merged = []
    for key, value in node.value:
        if key.tag == _MERGE_TAG or (isinstance(key, ScalarNode) and key.value == "<<" and key.style is None):
            sources = value.value if isinstance(value, SequenceNode) else [value]
            for source in sources:
                merged.extend(items(source))
        elif isinstance(key, ScalarNode):
            own.append((key, value))
    seen = {key.value for key, _ in own}
    yield from own
    for key, value in merged:
        if key.value not in seen:
            seen.add(key.value)
            yield key, value


def get(node: Optional[Node], key: str) -> Optional[Node]:
    for k, value in items(node):
        if k.value == key:
            return value
    return None


def key_node(node: Optional[Node], key: str) -> Optional[ScalarNode]:
    for k, _ in items(node):
        if k.value == key:
            return k
    return None


def path(node: Optional[Node], *keys: str) -> Optional[Node]:
    for key in keys:
        node = get(node, key)
        if node is None:
            return None
    return node


def scalar(node: Optional[Node]) -> Optional[str]:
    return node.value if isinstance(node, ScalarNode) else None


def sequence(node: Optional[Node]) -> List[Node]:
    return list(node.value) if isinstance(node, SequenceNode) else []


def strings(node: Optional[Node]) -> List[str]:
    """A scalar as one string, a sequence of scalars as its strings."""
    if isinstance(node, ScalarNode):
        return [node.value]
    return [item.value for item in sequence(node) if isinstance(item, ScalarNode)]


def truthy(node: Optional[Node]) -> bool:
    return scalar(node) is not None and scalar(node).lower() in ("true", "yes", "on", "1")


def position(node: Node) -> Tuple[int, int]:
    """(line 1-based, column 1-based) where the node starts."""
    return node.start_mark.line + 1, node.start_mark.column + 1


def walk(node: Optional[Node], parent_key: Optional[str] = None) -> Iterator[Tuple[Node, Optional[str], Node]]:
    """(node, key of the mapping entry it is the value of, enclosing collection) for every
    node under `node` (aliases are visited once)."""
    seen = set()
    stack = [(node, parent_key, node)]
    while stack:
        current, key, parent = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current, key, parent
        if isinstance(current, MappingNode):
            for k, v in reversed(current.value):
                stack.append((v, k.value if isinstance(k, ScalarNode) else None, current))
                stack.append((k, None, current))
        elif isinstance(current, SequenceNode):
            for item in reversed(current.value):
                stack.append((item, key, current))


def scalar_text(node: ScalarNode, lines: List[str]):
    """(text, first line, column of every line) of a scalar as it sits in the file, so that
    positions inside it map back exactly: a block scalar (`|`, `>`) is its dedented lines;
    anything else its value at the node's position."""
    start = node.start_mark
    if node.style in ("|", ">"):
        end = node.end_mark
        last = end.line if end.column > 0 else end.line - 1
        body = lines[start.line + 1:last + 1]
        indents = [len(l) - len(l.lstrip(" ")) for l in body if l.strip()]
        indent = min(indents) if indents else 0
        return "\n".join(l[indent:] for l in body), start.line + 2, indent
    quote = 1 if node.style in ("'", '"') else 0
    return node.value, start.line + 1, start.column + quote
