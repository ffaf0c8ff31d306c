"""Code actions: each fix as a quick fix (safe ones preferred, unsafe ones labeled), "fix all
safe problems in this file", and "add `# noqa: CODE`" for a line.

Edits are computed from the buffer's text with the same functions as `--fix` and
`--add-noqa` (the fixes package and `add_noqa_to_source`) and returned as text edits; the
editor applies them. When the client can resolve actions, the edit is computed only for the
action the user picks.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from lsprotocol import types

from torchleaklint.add_noqa import add_noqa_to_source
from torchleaklint.diagnostics import SAFE
from torchleaklint.fixes import apply_specs, fix_text
from torchleaklint.server.buffers import LintResult
from torchleaklint.server.convert import position, to_lsp
from torchleaklint.server.hunks import line_hunks
from torchleaklint.source import INTERNAL_ERROR, SYNTAX_ERROR

FIX_ALL_KIND = "source.fixAll.torchleaklint"
FIX_ALL_TITLE = "torchleaklint: fix all safe problems in this file"


def code_actions(result: LintResult, params: types.CodeActionParams, codec, lazy: bool) -> List[types.CodeAction]:
    """The actions for the findings that overlap the requested range, then fix-all."""
    uri, only = params.text_document.uri, params.context.only
    out: List[types.CodeAction] = []
    if _wanted(types.CodeActionKind.QuickFix, only):
        noqa_seen = set()
        for diagnostic in result.diagnostics:
            converted = to_lsp(diagnostic, result.buffer, codec)
            if converted is None or converted[0] != uri or not _overlaps(converted[1].range, params.range):
                continue
            if diagnostic.fix is not None:
                out.append(_fix_action(diagnostic, converted[1]))
            line_code = (diagnostic.line, diagnostic.code)
            if diagnostic.code not in (SYNTAX_ERROR, INTERNAL_ERROR) and line_code not in noqa_seen:
                noqa_seen.add(line_code)
                out.append(_noqa_action(diagnostic, converted[1]))
    # Fix-all re-lints the file between passes: without resolve, it is computed only when
    # asked for by kind (on save) or offered next to a quick fix, not for every cursor move.
    offer_fix_all = bool(only) or lazy or any(a.data["action"] == "fix" for a in out)
    if offer_fix_all and _wanted(FIX_ALL_KIND, only) and any(
            d.fix is not None and d.fix.safety == SAFE for d in result.diagnostics):
        out.append(types.CodeAction(title=FIX_ALL_TITLE, kind=FIX_ALL_KIND, data={"action": "fix-all"}))
    for action in out:
        action.data = dict(action.data, key=result.buffer.key)
    if lazy:
        return out
    return [action for action in out if _with_edit(action, result, codec)]


def resolve_edit(result: LintResult, data: Dict, codec) -> Optional[types.WorkspaceEdit]:
    """The edit of the action described by `data`, on the buffer as it is now (None: the
    action no longer applies, or its edit cannot be expressed in the editor's documents)."""
    text = result.buffer.text
    new = _new_text(result, data)
    if new is None or new == text:
        return None
    by_document = result.buffer.document_hunks(line_hunks(text, new))
    if not by_document:
        return None
    changes = {}
    for uri, hunks in by_document.items():
        lines = result.buffer.documents[uri]
        changes[uri] = [types.TextEdit(range=types.Range(_line_start(lines, first, codec),
                                                         _line_start(lines, end, codec)), new_text=new_text)
                        for first, end, new_text in hunks]
    return types.WorkspaceEdit(changes=changes)


def _new_text(result: LintResult, data: Dict) -> Optional[str]:
    text, action = result.buffer.text, data.get("action")
    if action == "fix-all":
        return fix_text(text, result.buffer.path, result.settings, unsafe=False, diagnostics=result.diagnostics).text
    diagnostic = _find(result.diagnostics, data)
    if diagnostic is None:
        return None
    if action == "fix" and diagnostic.fix is not None:
        return apply_specs(text, [diagnostic.fix])
    if action == "noqa":
        return add_noqa_to_source(text, {diagnostic.line: {diagnostic.code}})[0]
    return None


def _find(diagnostics: Sequence, data: Dict):
    for diagnostic in diagnostics:
        if (diagnostic.code, diagnostic.line, diagnostic.col) == (data.get("code"), data.get("line"), data.get("col")):
            return diagnostic
    return None


def _fix_action(diagnostic, lsp_diagnostic: types.Diagnostic) -> types.CodeAction:
    fix = diagnostic.fix
    safe = fix.safety == SAFE
    title = f"{fix.title or 'Fix ' + diagnostic.code}{'' if safe else ' (unsafe)'}"
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[lsp_diagnostic],
                            is_preferred=safe, data=_identity("fix", diagnostic))


def _noqa_action(diagnostic, lsp_diagnostic: types.Diagnostic) -> types.CodeAction:
    return types.CodeAction(title=f"Add `# noqa: {diagnostic.code}` for this line", kind=types.CodeActionKind.QuickFix,
                            diagnostics=[lsp_diagnostic], data=_identity("noqa", diagnostic))


def _identity(action: str, diagnostic) -> Dict:
    return {"action": action, "code": diagnostic.code, "line": diagnostic.line, "col": diagnostic.col}


def _with_edit(action: types.CodeAction, result: LintResult, codec) -> bool:
    action.edit = resolve_edit(result, action.data, codec)
    return action.edit is not None


def _line_start(lines: Sequence[str], line: int, codec) -> types.Position:
    """Column 0 of `line`, or the end of the document past its last line."""
    if line < len(lines):
        return types.Position(line=line, character=0)
    last = len(lines) - 1
    return position(lines, last, len(lines[last].rstrip("\r\n")), codec)


def _wanted(kind: str, only: Optional[Sequence[str]]) -> bool:
    """Is `kind` among the kinds asked for (`source` asks for `source.fixAll.x` too)?"""
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def _overlaps(span: types.Range, wanted: types.Range) -> bool:
    start, end = (span.start.line, span.start.character), (span.end.line, span.end.character)
    return start <= (wanted.end.line, wanted.end.character) and (wanted.start.line, wanted.start.character) <= end
