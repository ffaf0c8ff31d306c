"""The engine: source text -> parse -> semantic model -> rules -> noqa/config -> diagnostics.

Each arrow is a function a test can call. Parsing uses the stdlib `ast` (an order of
magnitude faster than libcst); libcst is used only to write fixes.
"""

from __future__ import annotations

import ast
import sys
import traceback
import warnings
from typing import Iterable, List, Optional, Sequence

from torchleaklint.config import Settings
from torchleaklint.diagnostics import Diagnostic, Finding, Span
from torchleaklint.noqa import NoqaLines, suppressed
from torchleaklint.rules import all_rules
from torchleaklint.semantic import SemanticModel
from torchleaklint.source import SourceError, char_column, decode, split_lines

SYNTAX_ERROR = "TLL900"
INTERNAL_ERROR = "TLL901"
MAX_FILE_BYTES = 5_000_000


def selected_rules(settings: Settings, path: Optional[str] = None) -> List[object]:
    rules = []
    for code, cls in all_rules().items():
        enabled = settings.enabled_for_path(code, path) if path else settings.code_enabled(code)
        if enabled:
            rules.append(cls(settings))
    return rules


def lint_source(source, path: str, settings: Settings, verbose: bool = False) -> List[Diagnostic]:
    """Lint one file's content (bytes or text) as if it lived at `path`."""
    rules = selected_rules(settings, path)
    if not rules:
        return []
    try:
        if isinstance(source, bytes):
            if len(source) > MAX_FILE_BYTES:
                raise SourceError(f"file is larger than {MAX_FILE_BYTES // 1_000_000} MB; skipped")
            text, _ = decode(source)
        else:
            text = source
    except SourceError as exc:
        return _file_diagnostic(path, settings, SYNTAX_ERROR, str(exc), exc.line, exc.col)
    rules = [rule for rule in rules if rule.applies_to(text)]
    if not rules and not settings.enabled_for_path(SYNTAX_ERROR, path):
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for invalid escapes etc.
            tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        return _file_diagnostic(path, settings, SYNTAX_ERROR, f"SyntaxError: {exc.msg}",
                                exc.lineno or 1, exc.offset or 1)
    except (ValueError, MemoryError, RecursionError) as exc:
        return _file_diagnostic(path, settings, SYNTAX_ERROR, f"cannot parse: {type(exc).__name__}: {exc}", 1, 1)
    if not rules:  # parsed only to report syntax errors; no rule can trigger here
        return []
    return check_tree(tree, text, path, settings, rules, verbose)


def check_tree(tree: ast.AST, text: str, path: str, settings: Settings, rules=None,
               verbose: bool = False) -> List[Diagnostic]:
    """Run rules over a parsed tree (the flake8 plugin enters here with flake8's tree)."""
    if rules is None:
        rules = [r for r in selected_rules(settings, path) if r.applies_to(text)]
    lines = split_lines(text)
    model = SemanticModel(tree, text, path, settings)
    noqa_lines = NoqaLines(text, lines)
    out: List[Diagnostic] = []
    for rule in rules:
        try:
            findings = list(rule.check(model))
        except RecursionError:
            return _file_diagnostic(path, settings, SYNTAX_ERROR,
                                    "code is nested too deeply to analyze; skipped", 1, 1)
        except Exception as exc:  # a bug in a rule must not take the run down
            if verbose:
                traceback.print_exc(file=sys.stderr)
            message = f"internal error in {rule.code}: {type(exc).__name__}: {exc}; please report"
            out.extend(_file_diagnostic(path, settings, INTERNAL_ERROR, message, 1, 1, noqa=False))
            continue
        for finding in findings:
            diagnostic = to_diagnostic(finding, path, lines)
            if not suppressed(diagnostic.code, noqa_lines.for_line(diagnostic.line)):
                out.append(diagnostic)
    return sorted(set(out))


def to_diagnostic(finding: Finding, path: str, lines: Sequence[str]) -> Diagnostic:
    node = finding.node
    line = getattr(node, "lineno", 1)
    end_line = getattr(node, "end_lineno", None) or line
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    end_text = lines[end_line - 1] if 0 < end_line <= len(lines) else ""
    col = char_column(text, getattr(node, "col_offset", 0))
    end_col = char_column(end_text, getattr(node, "end_col_offset", None) or 0)
    return Diagnostic(path=path, line=line, col=col + 1, code=finding.code, message=finding.message,
                      end_line=end_line, end_col=end_col + 1, fix=finding.fix)


def node_span(node: ast.AST, lines: Sequence[str]) -> Span:
    line = node.lineno
    end_line = node.end_lineno or line
    return Span(line, char_column(lines[line - 1], node.col_offset),
                end_line, char_column(lines[end_line - 1], node.end_col_offset or 0))


def _file_diagnostic(path, settings, code, message, line, col, noqa=True) -> List[Diagnostic]:
    if not settings.enabled_for_path(code, path) and code != INTERNAL_ERROR:
        return []
    return [Diagnostic(path=path, line=max(1, int(line)), col=max(1, int(col)), code=code, message=message)]


def lint_file(path: str, settings: Settings, verbose: bool = False) -> List[Diagnostic]:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return _file_diagnostic(path, settings, SYNTAX_ERROR, f"cannot read file: {exc.strerror or exc}", 1, 1)
    return lint_source(raw, path, settings, verbose)


def lint_files(paths: Iterable[str], settings: Settings, verbose: bool = False):
    """(path, diagnostics) for each file, in order."""
    for path in paths:
        yield path, lint_file(path, settings, verbose)
