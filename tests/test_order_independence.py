"""The same code gives the same findings whatever the order the analysis meets it in: every
fixture with several top-level definitions, linted with their order reversed (other
statements in place), gives the same findings per rule and enclosing definition."""

from __future__ import annotations

import ast
from collections import Counter

import pytest

from fixture_markers import fixture_files
from torchleaklint.config import Settings
from torchleaklint.engine import lint_source

DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _reordered(source: str) -> str:
    tree = ast.parse(source)
    definitions = [node for node in tree.body if isinstance(node, DEFINITIONS)]
    slots = [i for i, node in enumerate(tree.body) if isinstance(node, DEFINITIONS)]
    for slot, node in zip(slots, reversed(definitions)):
        tree.body[slot] = node
    return ast.unparse(tree)


def _findings_by_definition(source: str, path: str) -> Counter:
    spans = [(n.lineno, n.end_lineno, n.name) for n in ast.walk(ast.parse(source)) if isinstance(n, DEFINITIONS)]
    out = Counter()
    for d in lint_source(source, path, Settings()):
        if not d.code.startswith("TLL9"):
            out[(d.code, "/".join(name for start, end, name in spans if start <= d.line <= end))] += 1
    return out


FILES = [p for p in fixture_files() if p.suffix == ".py"
         and sum(isinstance(n, DEFINITIONS) for n in ast.parse(p.read_text(encoding="utf-8")).body) >= 2]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_findings_do_not_depend_on_definition_order(path):
    source = ast.unparse(ast.parse(path.read_text(encoding="utf-8")))
    assert _findings_by_definition(source, str(path)) == _findings_by_definition(_reordered(source), str(path))
