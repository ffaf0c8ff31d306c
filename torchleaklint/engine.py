"""The engine: source text -> parse -> semantic model -> rules -> noqa/config -> diagnostics.

Each arrow is a function a test can call. Parsing uses the stdlib `ast` (an order of
magnitude faster than libcst); libcst is used only to write fixes.
"""

from __future__ import annotations

import ast
import signal
import sys
import threading
import time
import traceback
import warnings
from contextlib import contextmanager
from typing import Iterable, List, Optional, Sequence

from torchleaklint.config import Settings
from torchleaklint.diagnostics import Diagnostic, Evidence, Finding, Span
from torchleaklint.environment import PYTHON, environment_kind
from torchleaklint.kinds import NOTEBOOK, NOTEBOOK_MAX_BYTES, file_kind, max_bytes, not_python_message
from torchleaklint.noqa import NoqaLines
from torchleaklint.notebook import is_notebook_json, lint_notebook
from torchleaklint.rules import all_rules
from torchleaklint.semantic import SemanticModel
from torchleaklint.source import (  # noqa: F401  (re-exported: the engine's public names)
    INTERNAL_ERROR, MAX_FILE_BYTES, SYNTAX_ERROR, SourceError, char_column, decode, read_regular_file, split_lines,
)

TIME_LIMIT_SECONDS = 30.0  # per file; ordinary files take well under a second


def selected_rules(settings: Settings, path: Optional[str] = None) -> List[object]:
    rules = []
    for code, cls in all_rules().items():
        enabled = settings.enabled_for_path(code, path) if path else settings.code_enabled(code)
        if enabled:
            rules.append(cls(settings))
    return rules


def lint_source(source, path: str, settings: Settings, verbose: bool = False,
                time_limit: Optional[float] = TIME_LIMIT_SECONDS, project=None, model=None) -> List[Diagnostic]:
    """Lint one file's content (bytes or text) as if it lived at `path`.

    Never raises for bad input: undecodable or unparsable content, code too deep or too
    slow to analyze become one TLL900; a bug in a rule becomes one TLL901 per rule.
    `project` (a `torchleaklint.project.ProjectView`) answers for first-party imports;
    `model`, a SemanticModel already built from `source`, saves parsing it again.
    """
    rules = selected_rules(settings, path)
    if not rules:
        return []
    kind = file_kind(path, source)
    if kind is None:
        return _file_diagnostic(path, settings, SYNTAX_ERROR, *not_python_message(path))
    if kind == NOTEBOOK and is_notebook_json(source):
        return _lint_notebook(source, path, settings, verbose, time_limit, project)
    try:
        with analysis_time_limit(time_limit):
            if model is not None:
                rules = [rule for rule in rules
                         if rule.applies_to(model.source) or rule.applies_to_project(model.project, model.source)]
                return check_tree(model.tree, model.source, path, settings, rules, verbose, model=model) if rules else []
            return _lint_source(source, path, settings, rules, verbose, project)
    except AnalysisTimeout:
        return _file_diagnostic(path, settings, SYNTAX_ERROR,
                                f"analysis took longer than {time_limit:g} s of CPU time; skipped", 1, 1)


def _lint_notebook(source, path: str, settings: Settings, verbose: bool, time_limit, project=None) -> List[Diagnostic]:
    """A notebook: its code cells are linted as one module (torchleaklint.notebook), with
    the project's summaries of what its cells import."""
    try:
        if isinstance(source, bytes):
            if len(source) > NOTEBOOK_MAX_BYTES:
                raise SourceError(f"notebook is larger than {NOTEBOOK_MAX_BYTES // 1_000_000} MB; skipped")
            source, _ = decode(source)
    except SourceError as exc:
        return _file_diagnostic(path, settings, SYNTAX_ERROR, str(exc), exc.line, exc.col)
    return lint_notebook(source, path, settings,
                         lambda text: lint_source(text, path, settings, verbose, time_limit, project=project))


def _lint_source(source, path: str, settings: Settings, rules, verbose: bool, project=None) -> List[Diagnostic]:
    try:
        if isinstance(source, bytes):
            if len(source) > MAX_FILE_BYTES:
                raise SourceError(f"file is larger than {MAX_FILE_BYTES // 1_000_000} MB; skipped")
            text, _ = decode(source)
        else:
            text = source
    except SourceError as exc:
        return _file_diagnostic(path, settings, SYNTAX_ERROR, str(exc), exc.line, exc.col)
    kind = environment_kind(path)
    if kind is not None:  # Compose/Kubernetes/CI YAML, Dockerfile, shell, .env: its own reader
        from torchleaklint.environment.engine import lint_environment

        return lint_environment(text, path, kind, settings, rules, verbose)
    rules = [rule for rule in rules if PYTHON in rule.kinds and
             (rule.applies_to(text) or rule.applies_to_project(project, text))]
    if not rules and not settings.enabled_for_path(SYNTAX_ERROR, path):
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for invalid escapes etc.
            tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        from torchleaklint.newer_syntax import syntax_error_message

        return _file_diagnostic(path, settings, SYNTAX_ERROR, syntax_error_message(exc, split_lines(text)),
                                exc.lineno or 1, exc.offset or 1)
    except (RecursionError, MemoryError):  # what CPython's parser raises on very deep nesting
        return _file_diagnostic(path, settings, SYNTAX_ERROR, "code is nested too deeply to parse; skipped", 1, 1)
    except ValueError as exc:  # e.g. surrogates in a str source
        return _file_diagnostic(path, settings, SYNTAX_ERROR, f"cannot parse: {exc}", 1, 1)
    if not rules:  # parsed only to report syntax errors; no rule can trigger here
        return []
    return check_tree(tree, text, path, settings, rules, verbose, project=project)


def check_tree(tree: ast.AST, text: str, path: str, settings: Settings, rules=None,
               verbose: bool = False, project=None, model=None) -> List[Diagnostic]:
    """Run rules over a parsed tree (the flake8 plugin enters here with flake8's tree)."""
    if rules is None:
        rules = [r for r in selected_rules(settings, path) if PYTHON in r.kinds and
                 (r.applies_to(text) or r.applies_to_project(project, text))]
    lines = split_lines(text)
    noqa_lines = NoqaLines(text, lines)
    try:
        if model is None:
            model = SemanticModel(tree, text, path, settings, project=project)
    except RecursionError:
        return _too_deep(path, settings)
    except Exception as exc:  # a bug in the semantic layer: every rule would fail the same way
        return _internal_error(path, settings, "the semantic model", exc, verbose)
    if model.written_for_another_framework():
        rules = [rule for rule in rules if rule.code.startswith("TLL9")]  # PaddlePaddle, TensorFlow...
    out: List[Diagnostic] = []
    found = []  # (diagnostic, the codes that supersede it), before `# noqa`
    dead = model.unreachable_lines()  # code after a `return` or an `assert False` never runs
    for rule in rules:
        try:
            findings = [(to_diagnostic(finding, path, lines), finding.superseded_by) for finding in rule.check(model)
                        if getattr(finding.node, "lineno", None) not in dead]
        except RecursionError:  # the model's memo may be half-built: stop analyzing this file
            return _too_deep(path, settings)
        except Exception as exc:  # a bug in a rule must not take the run down
            out.extend(_internal_error(path, settings, rule.code, exc, verbose))
            continue
        found.extend(findings)
    raw = _drop_superseded(found)
    out.extend(d for d in raw if not noqa_lines.suppresses(d.code, d.line))
    out.extend(_review_suppressions(rules, raw, text, lines, path, settings, noqa_lines, verbose))
    return sorted(set(out))


def _drop_superseded(found) -> List[Diagnostic]:
    """Drop a finding where a rule that supersedes it reports the same statement (the same
    start): `self.v = 0.9 * self.v + self.fc(x)` in a `forward` is one leak, state the step
    computes with, reported once by the rule that says what it is (TLL002), not also as a
    running total (TLL001). Applied before `# noqa`: silencing TLL002 there silences the leak."""
    at = {}
    for diagnostic, _ in found:
        at.setdefault((diagnostic.line, diagnostic.col, diagnostic.cell), set()).add(diagnostic.code)
    return [diagnostic for diagnostic, superseding in found
            if not set(superseding) & at[(diagnostic.line, diagnostic.col, diagnostic.cell)]]


def _review_suppressions(rules, raw, text, lines, path, settings, noqa_lines, verbose) -> List[Diagnostic]:
    """Rules that judge the `# noqa` comments against every finding, suppressed or not
    (TLL902 unused-noqa), run last."""
    out: List[Diagnostic] = []
    for rule in rules:
        review = getattr(rule, "review_suppressions", None)
        if review is None:
            continue
        try:
            found = list(review(raw, text, lines, path))
        except Exception as exc:  # a bug in a rule must not take the run down
            out.extend(_internal_error(path, settings, rule.code, exc, verbose))
            continue
        out.extend(d for d in found if not noqa_lines.suppresses(d.code, d.line))
    return out


def _too_deep(path: str, settings: Settings) -> List[Diagnostic]:
    return _file_diagnostic(path, settings, SYNTAX_ERROR, "code is nested too deeply to analyze; skipped", 1, 1)


def _internal_error(path: str, settings: Settings, where: str, exc: Exception, verbose: bool) -> List[Diagnostic]:
    if verbose:
        sys.stderr.write(f"torchleaklint: internal error in {where} on {path}:\n")
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    message = f"internal error in {where}: {type(exc).__name__}: {exc}; please report"
    return _file_diagnostic(path, settings, INTERNAL_ERROR, message, 1, 1)


class AnalysisTimeout(BaseException):
    """Raised by the alarm inside a file's analysis. A BaseException so that no
    `except Exception` on the way (a rule's isolation) turns it into an internal error."""


@contextmanager
def analysis_time_limit(seconds: Optional[float]):
    """Raise AnalysisTimeout in this block after `seconds` of CPU time spent by this process
    (SIGALRM: Unix, main thread only; elsewhere no limit). CPU time, not wall time: a loaded
    machine, a suspended run (Ctrl-Z, a paused CI container) or a slow disk must not turn a
    file into a time-out. The alarm is a wall-clock timer; when it rings before the CPU
    budget is spent, it is set again for what is left (CPU time never runs ahead of wall
    time). A timer the caller had set is restored, minus the time spent."""
    if not seconds or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return
    cpu_started = time.process_time()

    def on_alarm(signum, frame):
        left = seconds - (time.process_time() - cpu_started)
        if left > 0.001:
            signal.setitimer(signal.ITIMER_REAL, left)
            return
        # Ring again soon: a signal handled inside a finalizer (`__del__`, a weakref
        # callback run by the GC) has its exception swallowed, and the analysis would go on.
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        raise AnalysisTimeout()

    previous_handler = signal.signal(signal.SIGALRM, on_alarm)
    previous_delay, previous_interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    started = time.monotonic()
    try:
        yield
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        finally:  # even if the alarm went off just before it was disarmed
            signal.signal(signal.SIGALRM, previous_handler)
            if previous_delay:
                remaining = max(previous_delay - (time.monotonic() - started), 1e-6)
                signal.setitimer(signal.ITIMER_REAL, remaining, previous_interval)


def to_diagnostic(finding: Finding, path: str, lines: Sequence[str]) -> Diagnostic:
    node = finding.node
    line = getattr(node, "lineno", 1)
    end_line = getattr(node, "end_lineno", None) or line
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    end_text = lines[end_line - 1] if 0 < end_line <= len(lines) else ""
    col = char_column(text, getattr(node, "col_offset", 0))
    end_col = char_column(end_text, getattr(node, "end_col_offset", None) or 0)
    return Diagnostic(path=path, line=line, col=col + 1, code=finding.code, message=finding.message,
                      end_line=end_line, end_col=end_col + 1, fix=finding.fix, severity=finding.severity,
                      evidence=tuple(_position(step, lines) for step in finding.evidence))


def _position(step, lines: Sequence[str]) -> Evidence:
    line = getattr(step.node, "lineno", 1)
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return Evidence(line=line, col=char_column(text, getattr(step.node, "col_offset", 0)) + 1, message=step.message)


def node_span(node: ast.AST, lines: Sequence[str]) -> Span:
    line = node.lineno
    end_line = node.end_lineno or line
    return Span(line, char_column(lines[line - 1], node.col_offset),
                end_line, char_column(lines[end_line - 1], node.end_col_offset or 0))


def _file_diagnostic(path, settings, code, message, line, col) -> List[Diagnostic]:
    if not settings.enabled_for_path(code, path) and code != INTERNAL_ERROR:
        return []
    return [Diagnostic(path=path, line=max(1, int(line)), col=max(1, int(col)), code=code, message=message)]


def lint_file(path: str, settings: Settings, verbose: bool = False) -> List[Diagnostic]:
    try:
        raw = read_regular_file(path, max_bytes(path) + 1)
    except OSError as exc:
        return _file_diagnostic(path, settings, SYNTAX_ERROR, f"cannot read file: {exc.strerror or exc}", 1, 1)
    return lint_source(raw, path, settings, verbose)


def lint_files(paths: Iterable[str], settings: Settings, verbose: bool = False):
    """(path, diagnostics) for each file, in order."""
    for path in paths:
        yield path, lint_file(path, settings, verbose)
