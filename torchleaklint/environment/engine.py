"""Lint one environment file: reader -> rules -> noqa -> the engine's `Diagnostic`s.

Never raises for bad input. A YAML file that does not parse becomes one TLL900 whose
message starts with `YAML_PARSE_ERROR_PREFIX` (the command line keeps it only for files
named explicitly); a Helm/Jinja template (`{{ ... }}`) that does not parse is not YAML
at all and is skipped in silence, even when named (pre-commit names every staged file).
"""

from __future__ import annotations

import sys
import traceback
from typing import List

from torchleaklint.diagnostics import Diagnostic
from torchleaklint.environment import DOCKERFILE, YAML, YAML_PARSE_ERROR_PREFIX
from torchleaklint.environment.model import EnvFile
from torchleaklint.noqa import noqa_codes, suppressed
from torchleaklint.source import INTERNAL_ERROR, SYNTAX_ERROR, split_lines

# Results that depend on other files (a Compose service's build context) must not be
# cached by this file's content alone; the runner asks here (per process).
_reads_other_files = set()


def reads_other_files(path: str) -> bool:
    return path in _reads_other_files


def lint_environment(text: str, path: str, kind: str, settings, rules, verbose: bool = False) -> List[Diagnostic]:
    rules = [rule for rule in rules if kind in rule.kinds and rule.applies_to_environment(kind, text)]
    _reads_other_files.discard(path)
    if not rules:
        return []
    lines = split_lines(text)
    env = EnvFile(path, kind, text, lines)
    env.project_root = getattr(settings, "project_root", None)
    if kind == YAML:
        from torchleaklint.environment.yaml_reader import YamlError

        try:
            env.documents()
        except YamlError as exc:
            if "{{" in text or "{%" in text:  # a template, not YAML
                return []
            return _file_diagnostic(path, settings, f"{YAML_PARSE_ERROR_PREFIX}: {exc}; skipped", exc.line, exc.col)
    out: List[Diagnostic] = []
    for rule in rules:
        try:
            findings = list(rule.check_environment(env))
        except RecursionError:
            return _file_diagnostic(path, settings, "file is nested too deeply to analyze; skipped", 1, 1)
        except Exception as exc:  # a bug in a rule must not take the run down
            if verbose:
                sys.stderr.write(f"torchleaklint: internal error in {rule.code} on {path}:\n")
                traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
            out.append(Diagnostic(path=path, line=1, col=1, code=INTERNAL_ERROR,
                                  message=f"internal error in {rule.code}: {type(exc).__name__}: {exc}; please report"))
            continue
        for finding in findings:
            if _noqa(rule.code, finding.line, lines, kind):
                continue
            out.append(Diagnostic(path=path, line=finding.line, col=finding.col, code=rule.code,
                                  message=finding.message, end_line=finding.end_line or finding.line,
                                  end_col=finding.end_col or finding.col, fix=finding.fix))
    if env.reads_other_files:
        _reads_other_files.add(path)
    return sorted(set(out))


def _noqa(code: str, line: int, lines: List[str], kind: str) -> bool:
    """`# noqa` / `# noqa: TLL101` as a comment on the reported line. A Dockerfile has no
    trailing comments (`#` inside an instruction is literal text), so there the comment
    may also sit on the line above, as hadolint's `# hadolint ignore=` does."""
    physical = lines[line - 1] if 0 < line <= len(lines) else ""
    if suppressed(code, physical):
        return True
    if kind == DOCKERFILE and line >= 2:
        above = lines[line - 2].strip()
        return above.startswith("#") and noqa_codes(above) is not None and suppressed(code, above)
    return False


def _file_diagnostic(path, settings, message, line, col) -> List[Diagnostic]:
    if not settings.enabled_for_path(SYNTAX_ERROR, path):
        return []
    return [Diagnostic(path=path, line=max(1, int(line)), col=max(1, int(col)), code=SYNTAX_ERROR, message=message)]
