"""Names and summaries for every code a run can report: the rules, plus the engine's own."""

from __future__ import annotations

from typing import Dict, Tuple

from torchleaklint.engine import INTERNAL_ERROR, SYNTAX_ERROR
from torchleaklint.rules import all_rules

# (name, summary, description) for codes that are not rules.
ENGINE_CODES: Dict[str, Tuple[str, str, str]] = {
    SYNTAX_ERROR: ("syntax-error", "File cannot be read or parsed",
                   "The file could not be read, decoded or parsed as Python, so it was not analyzed."),
    INTERNAL_ERROR: ("internal-error", "Internal error while analyzing a file",
                     "A rule failed on this file; its findings for the file are missing. Please report it."),
}


def rule_name(code: str) -> str:
    cls = all_rules().get(code)
    if cls is not None:
        return cls.name
    return ENGINE_CODES.get(code, (code.lower(),))[0]
