"""torchleaklint diagnostics as LSP diagnostics: positions in the client's units (UTF-16 by
default), severity, a link to the rule's documentation, the evidence chain as related
information, and the hover text."""

from __future__ import annotations

import functools
import inspect
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from lsprotocol import types

from torchleaklint.server.buffers import Buffer, LintResult

SOURCE = "torchleaklint"
Place = Tuple[str, int, int]  # (document URI, 0-based line, 0-based column in characters)


def diagnostics_by_document(result: LintResult, codec) -> Dict[str, List[types.Diagnostic]]:
    """{document URI: its LSP diagnostics} for one lint of a buffer."""
    out: Dict[str, List[types.Diagnostic]] = {}
    if result.config_error is not None:
        first = next(iter(result.buffer.documents))
        out[first] = [types.Diagnostic(
            range=types.Range(types.Position(0, 0), types.Position(0, 0)), severity=types.DiagnosticSeverity.Error,
            source=SOURCE, message=f"configuration error: {result.config_error}")]
        return out
    for diagnostic in result.diagnostics:
        converted = to_lsp(diagnostic, result.buffer, codec)
        if converted is not None:
            out.setdefault(converted[0], []).append(converted[1])
    return out


def to_lsp(diagnostic, buffer: Buffer, codec) -> Optional[Tuple[str, types.Diagnostic]]:
    start = place(buffer, diagnostic.line, diagnostic.col)
    if start is None:
        return None
    uri, line, col = start
    end = place(buffer, diagnostic.end_line, diagnostic.end_col) if diagnostic.end_line else None
    if end is None or end[0] != uri or (end[1], end[2]) <= (line, col):
        end = (uri, line, len(_content(buffer.documents[uri], line)))  # to the end of the line
    lines = buffer.documents[uri]
    return uri, types.Diagnostic(
        range=types.Range(position(lines, line, col, codec), position(lines, end[1], end[2], codec)),
        message=diagnostic.message,
        severity=severity(diagnostic),
        code=diagnostic.code,
        code_description=_code_description(diagnostic.code),
        source=SOURCE,
        related_information=related_information(diagnostic, buffer, codec) or None,
    )


def severity(diagnostic) -> types.DiagnosticSeverity:
    # `Diagnostic.severity` ("error" | "warning") is new in the engine; older builds lack it.
    if getattr(diagnostic, "severity", "warning") == "error":
        return types.DiagnosticSeverity.Error
    return types.DiagnosticSeverity.Warning


def related_information(diagnostic, buffer: Buffer, codec) -> List[types.DiagnosticRelatedInformation]:
    """The evidence chain (`Diagnostic.evidence`: items with .line, .col, .message) as
    locations the editor lists under the diagnostic."""
    out = []
    for item in getattr(diagnostic, "evidence", ()) or ():
        where = place(buffer, getattr(item, "line", 1), getattr(item, "col", 1))
        if where is None:
            continue
        uri, line, col = where
        at = position(buffer.documents[uri], line, col, codec)
        out.append(types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=types.Range(at, at)), message=str(getattr(item, "message", ""))))
    return out


def place(buffer: Buffer, line: int, col: int) -> Optional[Place]:
    """The editor position of 1-based `line`, 1-based character `col` of the linted source."""
    located = buffer.place(max(int(line), 1) - 1)
    if located is None:
        return None
    uri, doc_line = located
    lines = buffer.documents[uri]
    doc_line = min(doc_line, len(lines) - 1)
    return uri, doc_line, min(max(int(col), 1) - 1, len(_content(lines, doc_line)))


def position(lines: Sequence[str], line: int, col: int, codec) -> types.Position:
    """A position in the client's units (`col` counts characters of `lines[line]`)."""
    text = _content(lines, line)
    return types.Position(line=line, character=codec.client_num_units(text[:col]))


def _content(lines: Sequence[str], line: int) -> str:
    return lines[line].rstrip("\r\n") if 0 <= line < len(lines) else ""


@functools.lru_cache(maxsize=None)
def rule_class(code: str):
    from torchleaklint.rules import all_rules

    return all_rules().get(code)


@functools.lru_cache(maxsize=None)
def rule_documentation_uri(code: str) -> Optional[str]:
    """The rule's documentation: its module (the class docstring is the documentation that
    `torchleaklint rule CODE` prints), as a file URI of the installed package."""
    cls = rule_class(code)
    if cls is None:
        return None
    try:
        return Path(inspect.getsourcefile(cls)).resolve().as_uri()
    except (TypeError, OSError):
        return None


def _code_description(code: str) -> Optional[types.CodeDescription]:
    uri = rule_documentation_uri(code)
    return types.CodeDescription(href=uri) if uri else None


def hover_text(result: LintResult, uri: str, at: types.Position, codec) -> str:
    """Markdown for the findings under the cursor: message, evidence chain, rule documentation."""
    parts = []
    for diagnostic in result.diagnostics:
        converted = to_lsp(diagnostic, result.buffer, codec)
        if converted is None or converted[0] != uri or not _contains(converted[1].range, at):
            continue
        text = f"**{diagnostic.code}** {diagnostic.message}"
        evidence = getattr(diagnostic, "evidence", ()) or ()
        if evidence:
            text += "\n\nWhy:\n" + "\n".join(
                f"- line {_cell_line(result.buffer, getattr(item, 'line', 1))}: {getattr(item, 'message', '')}"
                for item in evidence)
        cls = rule_class(diagnostic.code)
        if cls is not None:
            text += "\n\n---\n\n" + cls.documentation()
        parts.append(text)
    return "\n\n---\n\n".join(parts)


def _cell_line(buffer: Buffer, line: int) -> int:
    located = buffer.place(max(int(line), 1) - 1)
    return located[1] + 1 if located else line


def _contains(span: types.Range, at: types.Position) -> bool:
    start, end = (span.start.line, span.start.character), (span.end.line, span.end.character)
    return start <= (at.line, at.character) <= end
