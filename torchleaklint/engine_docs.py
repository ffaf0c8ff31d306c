"""Documentation of the engine's own codes, shown by `torchleaklint rule TLL900` like a rule's."""

from __future__ import annotations

from typing import Dict, Tuple

from torchleaklint.source import INTERNAL_ERROR, SYNTAX_ERROR

SYNTAX_ERROR_DOC = """\
A file that could not be read, decoded or parsed, so it was not analyzed.

## What it does
Reports a file torchleaklint skipped: unreadable (permissions, not a regular file),
undecodable (a wrong `# -*- coding -*-` cookie, a null byte), larger than 5 MB, a
`SyntaxError`, code nested too deeply for the parser, or analysis that took longer than
30 s. One finding per file, at the error's position.

## Why is this bad?
Nothing in the file was checked: a leak in it goes unreported. A file that uses syntax
newer than the running Python (`type X = ...` or `def f[T]()` under Python 3.11) is a
`SyntaxError` to that interpreter; the message then names the Python that parsed the file
and the version the syntax needs: run torchleaklint with that Python (in pre-commit,
`language_version: python3.12`).

## Known problems
A `# noqa` comment does not suppress it (the file may not tokenize); exclude the file, add
it to `per-file-ignores`, or `ignore = ["TLL900"]`.

## Example
```python
def f(:
    pass
```

## Use instead
Fix the syntax, or lint with a Python that understands it.

## Fix safety
No fix.
"""

INTERNAL_ERROR_DOC = """\
A rule (or the semantic model) failed on a file: a bug in torchleaklint.

## What it does
Reports the exception a rule raised while analyzing the file; the other rules' findings
for the file are still reported, the failing rule's are missing. The run exits with status
`2`, and the result is not cached. `-v` prints the traceback.

## Why is this bad?
The file was only partly checked.

## Known problems
Please report it, with the file (or a reduced copy) and the traceback from `-v`.

## Example
Any file that makes a rule raise.

## Use instead
Upgrade torchleaklint; meanwhile `per-file-ignores` for the file and code silences it.

## Fix safety
No fix.
"""

ENGINE_DOCS: Dict[str, Tuple[str, str]] = {
    SYNTAX_ERROR: ("syntax-error", SYNTAX_ERROR_DOC),
    INTERNAL_ERROR: ("internal-error", INTERNAL_ERROR_DOC),
}


def engine_documentation(code: str) -> str:
    name, body = ENGINE_DOCS[code]
    return f"# {name} ({code})\n\n{body}"
