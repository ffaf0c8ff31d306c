"""Where `--add-noqa` puts a directive, checked on source text (the CLI tests run it on files)."""

from __future__ import annotations

import pytest

from torchleaklint.add_noqa import add_noqa_to_source
from torchleaklint.noqa import NoqaLines, suppressed
from torchleaklint.source import split_lines


@pytest.mark.parametrize("before, line, after", [
    ("x = 1\n", 1, "x = 1  # noqa: TLL001\n"),
    ("x = 1   \n", 1, "x = 1  # noqa: TLL001\n"),
    ("x = 1", 1, "x = 1  # noqa: TLL001"),
    ("x = 1\r\n", 1, "x = 1  # noqa: TLL001\r\n"),
    # a line ending inside a string: the directive goes after the string ends
    ('s = """a\nb""" + loss\n', 1, 's = """a\nb""" + loss  # noqa: TLL001\n'),
    # a backslash continuation: never after the backslash
    ("t = a + \\\n    b\n", 1, "t = a + \\\n    b  # noqa: TLL001\n"),
    # inside brackets each line can hold its own comment
    ("f(a,\n  b)\n", 1, "f(a,  # noqa: TLL001\n  b)\n"),
    # merged into an existing directive, even one on another line of the same range
    ("x = 1  # noqa: E501\n", 1, "x = 1  # noqa: E501, TLL001\n"),
    ("x = 1  # NOQA:E501,W291 why\n", 1, "x = 1  # noqa: E501, W291, TLL001 why\n"),
    ("t = a + \\\n    b  # noqa: E501\n", 1, "t = a + \\\n    b  # noqa: E501, TLL001\n"),
    ("x = 1  # keep this\n", 1, "x = 1  # keep this  # noqa: TLL001\n"),
    # already covered: unchanged
    ("x = 1  # noqa\n", 1, "x = 1  # noqa\n"),
    ("x = 1  # noqa: TLL\n", 1, "x = 1  # noqa: TLL\n"),  # for flake8 a code has digits: this is bare
    ("x = 1  # noqa: TLL0\n", 1, "x = 1  # noqa: TLL0\n"),
])
def test_placement(before, line, after):
    assert add_noqa_to_source(before, {line: {"TLL001"}})[0] == after


@pytest.mark.parametrize("source, line", [
    ('s = """a\nb""" + loss\n', 1),
    ("t = a + \\\n    b\n", 1),
    ("x = 1  # noqa: E501\n", 1),
    ("f(a,\n  b)\n", 1),
])
def test_the_added_directive_suppresses_the_finding(source, line):
    fixed, changed = add_noqa_to_source(source, {line: {"TLL001"}})
    assert changed == 1
    assert suppressed("TLL001", NoqaLines(fixed, split_lines(fixed)).for_line(line))
    assert not suppressed("TLL001", NoqaLines(source, split_lines(source)).for_line(line))


def test_several_codes_on_one_line_make_one_directive():
    assert add_noqa_to_source("x = 1\n", {1: {"TLL003", "TLL001"}}) == ("x = 1  # noqa: TLL001, TLL003\n", 1)


def test_untokenizable_source_is_left_alone():
    assert add_noqa_to_source('s = """never closed\n', {1: {"TLL001"}}) == ('s = """never closed\n', 0)
