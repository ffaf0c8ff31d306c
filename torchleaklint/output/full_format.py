"""ruff's `full` format: each concise line, then the source line with carets under the
reported range, and the fix title as help."""

from __future__ import annotations

from typing import List, Optional

from torchleaklint.output.concise_format import line as concise_line
from torchleaklint.output.sources import source_lines


def render(diagnostics, context=None) -> str:
    context = context or {}
    unsafe = bool(context.get("unsafe_fixes"))
    blocks = [_block(d, _lines_of(d, context), unsafe) for d in diagnostics]
    return "".join(block + "\n" for block in blocks)


def _lines_of(d, context) -> Optional[List[str]]:
    if getattr(d, "cell", None):  # a notebook: quote the cell, not the JSON
        from torchleaklint.notebook import cell_source_lines

        return cell_source_lines(d.path, d.cell, context)
    return source_lines(d.path, context)


def _block(d, lines: Optional[List[str]], unsafe_fixes: bool) -> str:
    out = [concise_line(d, unsafe_fixes=unsafe_fixes)]
    if lines and 0 < d.line <= len(lines):
        text = lines[d.line - 1].rstrip("\r\n")
        gutter = " " * len(str(d.line))
        out += [f"{gutter} |", f"{d.line} | {text}", f"{gutter} | {_carets(text, d)}"]
    gutter = " " * len(str(d.line))
    for step in d.evidence:
        out.append(f"{gutter} = evidence: line {step.line}: {step.message}")
    if d.fix is not None and d.fix.title:
        out.append(f"{gutter} = help: {d.fix.title}")
    return "\n".join(out) + "\n"


def _carets(text: str, d) -> str:
    start = max(d.col - 1, 0)
    if d.end_line == d.line and d.end_col > d.col:
        end = d.end_col - 1
    elif d.end_line > d.line:
        end = len(text)
    else:
        end = start + 1
    # Keep tabs so the carets stay under the code in any tab width.
    prefix = "".join(ch if ch == "\t" else " " for ch in text[:start])
    return prefix + "^" * max(min(end, len(text)) - start, 1)
