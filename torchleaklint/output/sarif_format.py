"""SARIF 2.1.0, as GitHub code scanning accepts it (`github/codeql-action/upload-sarif`).

Every rule is described from its class (the docstring is the help text), so the rules a
reader sees in the code-scanning UI are the same documentation `torchleaklint rule` prints.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Dict, List
from urllib.parse import quote

from torchleaklint import __version__
from torchleaklint.output.rule_info import ENGINE_CODES
from torchleaklint.rules import all_rules

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
PROJECT_URL = "https://pypi.org/project/torchleaklint/"

def render(diagnostics, context=None) -> str:
    context = context or {}
    descriptors = _descriptors()
    index = {descriptor["id"]: i for i, descriptor in enumerate(descriptors)}
    base = context.get("cwd") or os.getcwd()
    run = {
        "tool": {"driver": {
            "name": "torchleaklint",
            "version": __version__,
            "semanticVersion": __version__,
            "informationUri": PROJECT_URL,
            "rules": descriptors,
        }},
        "columnKind": "unicodeCodePoints",
        "results": [_result(d, index, base, context) for d in diagnostics],
    }
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _descriptors() -> List[Dict]:
    out = [_descriptor(code, cls.name, cls.summary, _section(cls.documentation(), "What it does"),
                       cls.documentation(), cls.severity)
           for code, cls in all_rules().items()]
    for code, (name, summary, text) in ENGINE_CODES.items():
        out.append(_descriptor(code, name, summary, text, text))
    return out


def _descriptor(code: str, name: str, summary: str, full: str, help_markdown: str, level: str = "error") -> Dict:
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": full or summary},
        "help": {"text": help_markdown, "markdown": help_markdown},
        "defaultConfiguration": {"level": level},
    }


def _section(markdown: str, heading: str) -> str:
    """The text under `## heading` in a rule's documentation, as one paragraph."""
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", markdown, re.S | re.M)
    return " ".join(match.group(1).split()) if match else ""


def _result(d, index: Dict[str, int], base: str, context=None) -> Dict:
    cell = getattr(d, "cell", None)
    if cell:  # a notebook: the line of the .ipynb file that holds the cell's line
        from torchleaklint.notebook import physical_line

        region = {"startLine": physical_line(d.path, d, context)}
    else:
        region = {"startLine": d.line, "startColumn": d.col}
    if d.end_line and not cell:
        region.update(endLine=d.end_line, endColumn=d.end_col)
    uri = artifact_uri(d.path, base)
    result = {
        "ruleId": d.code,
        "level": d.severity if d.severity in ("error", "warning", "note") else "error",
        "message": {"text": d.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": uri},
            "region": region,
        }}],
    }
    if d.evidence:
        result["codeFlows"] = [_code_flow(d, uri)]
    if d.code in index:
        result["ruleIndex"] = index[d.code]
    if cell:  # where in the notebook, as a reader of the notebook counts
        result["properties"] = {"cell": cell, "cellLine": d.line, "cellColumn": d.col}
    return result


def _code_flow(d, uri: str) -> Dict:
    """The evidence chain as one thread flow: GitHub code scanning shows it as a path."""
    steps = list(d.evidence) + [type(d.evidence[0])(d.line, d.col, d.message)]
    return {"threadFlows": [{"locations": [
        {"location": {
            "physicalLocation": {"artifactLocation": {"uri": uri},
                                 "region": {"startLine": step.line, "startColumn": step.col}},
            "message": {"text": step.message},
        }} for step in steps]}]}


def artifact_uri(path: str, base: str) -> str:
    """A path relative to `base` (the repository root in CI) as a URI reference; absolute
    `file://` URIs only for files outside it."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(os.path.abspath(base))
    except ValueError:
        return absolute.as_uri()
    # A file name that is not UTF-8 (kept by Python as surrogate escapes) becomes its own
    # bytes, percent-encoded: a valid URI naming exactly that file.
    return quote(relative.as_posix().encode("utf-8", "surrogateescape"))
