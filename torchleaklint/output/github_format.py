"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

`::error file=F,line=L,col=C,endLine=L2,endColumn=C2,title=TLL001::message`
"""

from __future__ import annotations


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def line(d) -> str:
    props = {"file": d.path, "line": d.line, "col": d.col}
    if d.end_line:
        props.update(endLine=d.end_line, endColumn=d.end_col)
    props["title"] = d.code
    rendered = ",".join(f"{key}={_escape_property(str(value))}" for key, value in props.items())
    command = "warning" if getattr(d, "severity", "error") == "warning" else "error"
    return f"::{command} {rendered}::{_escape_data(d.message)}"


def render(diagnostics, context=None) -> str:
    return "".join(line(d) + "\n" for d in diagnostics)
