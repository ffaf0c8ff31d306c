"""Applying fixes: `--fix`, `--unsafe-fixes`, `--diff`, `--show-fixes`.

Rules describe fixes (`FixSpec`); the codemods in `fixes/codemods/` apply them with libcst.
For one file: lint, apply every applicable spec of one codemod, re-lint (positions moved),
next codemod; repeat whole passes until nothing changes (at most `MAX_PASSES`). A codemod's
output that does not parse is thrown away, so a fix can never leave a broken file.
"""

from __future__ import annotations

import ast
import difflib
import sys
import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from torchleaklint.diagnostics import SAFE, UNSAFE, Diagnostic
from torchleaklint.environment import environment_kind
from torchleaklint.environment.alloc_conf import TEXT_EDIT
from torchleaklint.environment.fixes import apply_text_edits
from torchleaklint.fixes.codemods import codemods
from torchleaklint.fixes.sourcefile import ChangedWhileFixing, SourceFile, WriteError
from torchleaklint.notebook import cell_diffs, fix_notebook, is_notebook_json, is_notebook_path
from torchleaklint.source import SourceError

MAX_PASSES = 5
# Order within a pass: edits inside statements first, statement removals and insertions
# next, then the decorator and import (which shift every line below them).
ORDER = ("append_method", "detach_stored_state", "insert_detach", "delete_statement",
         "move_to_with_parameters", "wrap_in_no_grad", "add_no_grad_decorator")


def applicable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    """Would `--fix` (with `--unsafe-fixes` when `unsafe`) apply this diagnostic's fix?"""
    fix = diagnostic.fix
    return fix is not None and (fix.safety == SAFE or (unsafe and fix.safety == UNSAFE))


@dataclass
class FileFix:
    """What fixing one file's text produced."""

    text: str
    remaining: List[Diagnostic]
    fixed: Counter = field(default_factory=Counter)  # code -> findings gone
    titles: Dict[str, str] = field(default_factory=dict)  # code -> fix title


def fix_text(text: str, path: str, settings, unsafe: bool = False,
             diagnostics: Optional[Sequence[Diagnostic]] = None, verbose: bool = False) -> FileFix:
    """Fix `text`. `diagnostics`, when given, must have been computed on exactly `text`.

    A codemod whose output still holds as many of its findings as it was asked to fix did
    not work: its output is thrown away and it is not tried again on this file (with
    `verbose`, reported as the bug it is), so fixing always converges."""
    from torchleaklint.engine import lint_source

    if is_notebook_path(path) and is_notebook_json(text):
        return _fix_notebook(text, path, settings, unsafe, diagnostics)
    current = list(diagnostics) if diagnostics is not None else lint_source(text, path, settings)
    before = Counter(d.code for d in current if applicable(d, unsafe))
    titles = _titles(d.code for d in current if applicable(d, unsafe))
    failed = set()
    for _ in range(MAX_PASSES):
        changed = False
        for name in (TEXT_EDIT,) + tuple(_ordered(codemods())):
            if name in failed:
                continue
            if current is None:
                current = lint_source(text, path, settings)
            mine = [d for d in current if applicable(d, unsafe) and d.fix.codemod == name]
            if not mine:
                continue
            specs = [d.fix for d in mine]
            if name == TEXT_EDIT:  # environment files and option swaps: plain text edits
                new = apply_text_edits(text, specs, python=environment_kind(path) is None)
            else:
                new = _apply(codemods()[name], text, specs)
            if new is None or new == text:
                continue
            after = lint_source(new, path, settings)
            if sum(1 for d in after if applicable(d, unsafe) and d.fix.codemod == name) >= len(mine):
                failed.add(name)
                if verbose:
                    _error(f"bug: the {name} fix for {', '.join(sorted({d.code for d in mine}))} in {path} "
                           f"did not remove its finding; not applied (please report)")
                continue
            text, current, changed = new, after, True
        if not changed:
            break
    remaining = current if current is not None else lint_source(text, path, settings)
    after = Counter(d.code for d in remaining)
    fixed = Counter({code: n - after[code] for code, n in before.items() if n > after[code]})
    return FileFix(text, remaining, fixed, titles)


def _fix_notebook(text: str, path: str, settings, unsafe: bool, diagnostics) -> FileFix:
    """A notebook: the fixes run on its virtual module and go back cell by cell
    (torchleaklint.notebook); a notebook that cannot be fixed cleanly stays as it is."""
    found = fix_notebook(text, path, settings, unsafe,
                         lambda virtual: fix_text(virtual, path, settings, unsafe=unsafe))
    if found is None:
        from torchleaklint.engine import lint_source

        return FileFix(text, list(diagnostics) if diagnostics is not None else lint_source(text, path, settings))
    new_text, remaining, fixed, titles = found
    return FileFix(new_text, remaining, fixed, titles)


def _titles(codes) -> Dict[str, str]:
    from torchleaklint.rules import all_rules

    rules = all_rules()
    return {code: rules[code].fix_title for code in set(codes) if code in rules}


def _ordered(available) -> List[str]:
    return [n for n in ORDER if n in available] + sorted(n for n in available if n not in ORDER)


def _apply(apply, text: str, specs) -> Optional[str]:
    """The codemod's output, or None when the codemod failed or produced code that does
    not parse (a bug in a fix must never cost the user their file)."""
    try:
        new = apply(cst.parse_module(text), specs).code
    except Exception:  # libcst parse/validation error, or a codemod bug
        return None
    new = _keep_final_newline(text, new)
    return new if parses(new) else None


def _keep_final_newline(old: str, new: str) -> str:
    """libcst drops the final newline of a file whose lines end in a lone \r."""
    ending = next((e for e in ("\r\n", "\r", "\n") if old.endswith(e)), "")
    if ending and new and not new.endswith(("\r", "\n")):
        return new + ending
    return new


def parses(text: str) -> bool:
    """Does `text` parse as Python? (A fix whose output does not is thrown away.)"""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def apply_fixes_to_results(results, settings, unsafe: bool = False, write: bool = True,
                           show: bool = False, verbose: bool = False):
    """Fix every file of `results` (a list of `(path, diagnostics)`); returns the results
    after fixing (the remaining diagnostics), the number of findings fixed, and whether
    any file changed. With `write=False` prints the unified diff instead of writing."""
    out: List[Tuple[str, List[Diagnostic]]] = []
    fixed_total, changed = 0, False
    report: List[Tuple[str, Counter, Dict[str, str]]] = []
    for path, diagnostics in results:
        if not any(applicable(d, unsafe) for d in diagnostics):
            out.append((path, diagnostics))
            continue
        try:
            source = SourceFile.read(path)
        except (OSError, SourceError) as exc:
            _error(f"cannot read {path} to fix it: {exc}")
            out.append((path, diagnostics))
            continue
        # Fixes are computed on exactly the text read now: the file may have changed since
        # it was linted (an editor, a concurrent fixer), and a cached result is not trusted
        # with the user's lines. Only files with something to fix pay for this.
        result = fix_text(source.text, path, settings, unsafe, verbose=verbose)
        if result.text == source.text:
            out.append((path, diagnostics))
            continue
        if write:
            try:
                source.write(result.text)
            except ChangedWhileFixing as exc:
                sys.stderr.write(f"torchleaklint: warning: {exc}\n")
                out.append((path, diagnostics))
                continue
            except WriteError as exc:
                _error(f"not fixed: {exc}")
                out.append((path, diagnostics))
                continue
        else:
            diff = cell_diffs if is_notebook_path(path) else unified_diff  # a notebook: per cell
            sys.stdout.write(diff(path, source.text, result.text))
        changed = True
        fixed_total += sum(result.fixed.values())
        report.append((path, result.fixed, result.titles))
        out.append((path, result.remaining))
    sys.stdout.flush()
    if show or not write:
        _report(report, fixed_total, write)
    return out, fixed_total, changed


def unified_diff(path: str, old: str, new: str) -> str:
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=path, tofile=path)
    text = "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n"
                   for line in lines)
    return text


def _report(report, fixed_total: int, written: bool) -> None:
    verb = "Fixed" if written else "Would fix"
    if not fixed_total:
        if written:
            sys.stderr.write("No fixes applied.\n")
        return
    sys.stderr.write(f"{verb} {fixed_total} problem{'s' if fixed_total != 1 else ''}:\n")
    for path, fixed, titles in report:
        if not fixed:
            continue
        sys.stderr.write(f"- {path}:\n")
        for code, count in sorted(fixed.items()):
            sys.stderr.write(f"    {count} × {code} ({titles.get(code, 'fix')})\n")
    sys.stderr.flush()


def _error(message: str) -> None:
    sys.stderr.write(f"torchleaklint: error: {message}\n")


def apply_specs(text: str, specs) -> str:
    """Apply FixSpecs (all computed on `text`) codemod by codemod, without re-linting:
    the specs of later codemods must not be moved by earlier ones (tests, single fixes)."""
    available = codemods()
    for name in _ordered(available):
        chosen = [s for s in specs if s.codemod == name]
        if chosen:
            new = _apply(available[name], text, chosen)
            if new is not None:
                text = new
    return text
