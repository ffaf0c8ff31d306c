"""TLL902: a `# noqa: TLL...` code with no finding on its line (ruff's RUF100, for our codes)."""

from __future__ import annotations

import io
import tokenize
from typing import Dict, Iterator, List, Sequence, Tuple

from torchleaklint.diagnostics import SAFE, Diagnostic, FixSpec, Span
from torchleaklint.noqa import NOQA, _SEP, noqa_ranges
from torchleaklint.rules.base import Rule, all_rules
from torchleaklint.source import INTERNAL_ERROR, SYNTAX_ERROR

_OWN_PREFIX = "TLL"
_NOT_REVIEWED = (SYNTAX_ERROR, INTERNAL_ERROR)  # file-level codes: a `# noqa` never applies to them


class UnusedNoqa(Rule):
    """`# noqa: TLL...` code that suppresses nothing.

    ## What it does
    Finds the torchleaklint codes in `# noqa:` comments that no finding on that line (or
    on the statement the comment closes, flake8's rule for multi-line strings and
    backslash continuations) needs: the code was fixed, the line moved, or the comment
    names a code that does not exist. Other tools' codes in the same comment (`E501`,
    `F401`) are left alone, and so is a blanket `# noqa`.

    Off by default, like ruff's RUF100: enable it with `extend-select = ["TLL902"]` (or
    `--extend-select TLL902`); `select = ["TLL"]` does not turn it on.

    ## Why is this bad?
    A stale suppression hides the next real finding on that line. ruff's RUF100 cannot
    report these codes: the README tells ruff users to declare `external = ["TLL"]`, and
    ruff then treats every `TLL` code as used.

    ## Known problems
    A code of a rule that is not enabled for the file (`ignore`, `per-file-ignores`,
    `--select`) is not reported: without running the rule, there is no telling whether the
    comment is still needed. Codes of the file-level TLL900 and TLL901 are not reviewed.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        total += loss.item()  # noqa: TLL001
    ```

    ## Use instead
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        total += loss.item()
    ```

    ## Fix safety
    Safe: the fix removes the unused codes from the comment (the whole `# noqa: ...`
    directive when none is left; other codes and any text after it stay). Nothing that is
    suppressed today becomes reported.

    ## References
    - [ruff: unused-noqa (RUF100)](https://docs.astral.sh/ruff/rules/unused-noqa/)
    - [flake8: selecting and ignoring violations](https://flake8.pycqa.org/en/latest/user/violations.html)
    """

    code = "TLL902"
    name = "unused-noqa"
    summary = "`# noqa` code with no finding on its line"
    fix_title = "Remove the unused `noqa` code"
    fix_safety = SAFE
    tokens = ("noqa",)

    def applies_to(self, source: str) -> bool:
        return "noqa" in source.lower()

    def check(self, model) -> Iterator:
        return iter(())  # works on the findings of every rule: see review_suppressions

    def review_suppressions(self, raw: Sequence[Diagnostic], text: str, lines: Sequence[str],
                            path: str) -> Iterator[Diagnostic]:
        """One TLL902 per `# noqa:` comment with unused torchleaklint codes."""
        try:
            comments = _noqa_comments(text)
            ranges = noqa_ranges(text)
        except (tokenize.TokenError, SyntaxError):
            return
        covering = _covering_lines(ranges)
        findings_by_comment_line: Dict[int, List[str]] = {}
        for d in raw:
            last = covering.get(d.line, d.line)
            findings_by_comment_line.setdefault(last, []).append(d.code)
        known = list(all_rules())
        for line, col, comment in comments:
            unused = [code for code in _own_codes(comment)
                      if self._reviewable(code, known, path)
                      and not any(found.startswith(code) for found in findings_by_comment_line.get(line, ()))]
            if unused:
                yield self._diagnostic(path, line, col, comment, unused, lines, known)

    def _reviewable(self, code: str, known: Sequence[str], path: str) -> bool:
        if code == self.code or code in _NOT_REVIEWED:
            return False
        matching = [k for k in known if k.startswith(code) and k != self.code]
        if not matching:
            return True  # no such rule: the code can never suppress anything
        settings = self.settings
        return settings is None or all(settings.enabled_for_path(k, path) for k in matching)

    def _diagnostic(self, path, line, col, comment, unused, lines, known) -> Diagnostic:
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        start = col + (NOQA.search(comment).start() if NOQA.search(comment) else 0)
        unknown = [c for c in unused if not any(k.startswith(c) for k in known)]
        listed = ", ".join(f"`{c}`" for c in unused)
        why = "no such rule" if unknown == unused else "no finding of it here"
        message = (f"Unused `noqa` code{'s' if len(unused) > 1 else ''} {listed} ({why}); "
                   f"remove {'them' if len(unused) > 1 else 'it'} so the comment hides nothing new")
        byte = lambda c: len(text[:c].encode("utf-8"))  # noqa: E731 - Span columns are UTF-8 bytes
        fix = FixSpec(codemod="remove_noqa_codes", safety=SAFE, title=self.fix_title,
                      target=Span(line, byte(col), line, byte(len(text))),
                      params=(("codes", tuple(unused)), ("col", col)))
        return Diagnostic(path=path, line=line, col=start + 1, code=self.code, message=message,
                          end_line=line, end_col=len(text) + 1, fix=fix)


def _noqa_comments(text: str) -> List[Tuple[int, int, str]]:
    """(line, character column, text) of every comment that holds a `# noqa:` with codes."""
    out = []
    for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
        if token.type == tokenize.COMMENT and "noqa" in token.string.lower():
            match = NOQA.search(token.string)
            if match is not None and match.group("codes"):
                out.append((token.start[0], token.start[1], token.string))
    return out


def _own_codes(comment: str) -> List[str]:
    match = NOQA.search(comment)
    codes = [c.upper() for c in _SEP.split(match.group("codes").strip()) if c]
    return [c for c in dict.fromkeys(codes) if c.startswith(_OWN_PREFIX)]


def _covering_lines(ranges) -> Dict[int, int]:
    """Each physical line of a multi-line range -> the range's last line (where its comment sits)."""
    covering = {}
    for first, last in ranges:
        for line in range(first, last + 1):
            covering[line] = last
    return covering
