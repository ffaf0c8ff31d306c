"""Multi-module fixture projects (`fixtures/<rule>/projects/<name>/`): each is linted as a
whole, as the command line lints a project (imports followed across modules), and every
file's findings must match its `# expect:` / `# ok:` markers exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixture_markers import FIXTURES, markers, project_fixtures
from torchleaklint.config import OPT_IN_CODES, Settings
from torchleaklint.discovery import discover
from torchleaklint.runner import lint_paths

PROJECTS = project_fixtures()


@pytest.mark.parametrize("project", PROJECTS, ids=[str(p.relative_to(FIXTURES)) for p in PROJECTS])
def test_project_fixture(project):
    settings = Settings(project_root=str(project), respect_gitignore=False)
    if any(part.upper() in OPT_IN_CODES for part in project.relative_to(FIXTURES).parts):
        # the projects of a preview rule (`fixtures/tll002/projects/...`) select it
        settings = Settings(project_root=str(project), respect_gitignore=False, select=("TLL",) + OPT_IN_CODES)
    paths = discover([str(project)], settings)
    found = {Path(path).resolve(): {(d.line, d.code) for d in diagnostics if not d.code.startswith("TLL9")}
             for path, diagnostics in lint_paths(paths, settings, jobs=1, cache=None)}
    files = sorted(project.rglob("*.py"))
    assert files and set(found) == {f.resolve() for f in files}
    marked = 0
    for path in files:
        expected, ok = markers(path)
        marked += len(expected)
        got = found[path.resolve()]
        assert not (expected & ok)
        assert got == expected, (f"\n{path.relative_to(project)}: missing {sorted(expected - got)}, "
                                 f"unexpected {sorted(got - expected)}")
    assert marked, "a project fixture needs at least one expected finding"
    # analyzed alone, each file misses the findings that need another module
    alone = {(path.resolve(), d.line, d.code) for path in files for d in _alone(path)}
    assert alone != {(p, line, code) for p, lines in found.items() for line, code in lines}


def _alone(path):
    from torchleaklint.engine import lint_file

    return [d for d in lint_file(str(path), Settings()) if not d.code.startswith("TLL9")]


def test_project_fixtures_exist():
    assert PROJECTS
