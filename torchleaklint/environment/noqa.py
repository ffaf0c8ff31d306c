"""`--add-noqa` for environment files: a `# noqa: CODE` comment at the end of the reported
line (YAML, shell, .env), or, in a Dockerfile (where `#` inside an instruction is literal
text), on a comment line of its own above the reported line."""

from __future__ import annotations

from typing import Dict, Set, Tuple

from torchleaklint.environment import DOCKERFILE
from torchleaklint.noqa import noqa_codes


def add_noqa_to_environment(text: str, codes_by_line: Dict[int, Set[str]], kind: str) -> Tuple[str, int]:
    lines = text.splitlines(keepends=True)
    changed = 0
    for line in sorted(codes_by_line, reverse=True):  # bottom up: insertions keep positions above
        if not 0 < line <= len(lines):
            continue
        codes = ",".join(sorted(codes_by_line[line]))
        physical = lines[line - 1]
        if kind == DOCKERFILE:
            above = lines[line - 2] if line >= 2 else ""
            if above.lstrip().startswith("#") and noqa_codes(above) is not None:
                continue
            indent = physical[:len(physical) - len(physical.lstrip())]
            ending = physical[len(physical.rstrip("\r\n")):] or "\n"
            lines.insert(line - 1, f"{indent}# noqa: {codes}{ending}")
        else:
            if noqa_codes(physical) is not None:
                continue
            body = physical.rstrip("\r\n")
            lines[line - 1] = f"{body}  # noqa: {codes}{physical[len(body):]}"
        changed += 1
    return "".join(lines), changed
