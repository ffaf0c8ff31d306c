"""The flake8 plugin, run by the real flake8, reports exactly what the command line does."""

from __future__ import annotations

import re

from cli_run import LEAKY, REPO, run, run_flake8
from fixture_markers import fixture_files

_FIX_MARKER = re.compile(r" \[\*\]")


def cli_lines(args, cwd):
    result = run(["--quiet", *args], cwd)
    assert result.returncode in (0, 1), result.stderr
    # flake8 has no fix markers and reports unparsable files itself (E999), not as TLL900.
    return sorted(_FIX_MARKER.sub("", line, count=1) for line in result.stdout.splitlines()
                  if not re.search(r": TLL9\d\d ", line))


def flake8_lines(args, cwd):
    result = run_flake8(["--select", "TLL", *args], cwd)
    assert result.returncode in (0, 1), result.stderr
    return sorted(result.stdout.splitlines())


def test_flake8_matches_cli_on_every_fixture():
    files = [str(p.relative_to(REPO)) for p in fixture_files()]
    expected = cli_lines(files, REPO)
    assert expected, "the fixtures must produce findings for this comparison to mean anything"
    assert flake8_lines(files, REPO) == expected


def test_columns_agree_after_non_ascii_text(tmp_path):
    # ast counts bytes, flake8 and the CLI count characters; and flake8 adds 1 to what a
    # plugin yields. A line with `é` before the finding catches both off-by-ones.
    source = LEAKY.replace("        total_loss += loss", '        tag = "é"; total_loss += loss')
    (tmp_path / "train.py").write_text(source, encoding="utf-8")
    expected = cli_lines(["train.py"], tmp_path)
    assert len(expected) == 1 and expected[0].startswith("train.py:12:20: TLL001 ")
    assert flake8_lines(["train.py"], tmp_path) == expected


def test_flake8_honors_pyproject_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torchleaklint.per-file-ignores]\n"legacy_*.py" = ["TLL001"]\n', encoding="utf-8")
    (tmp_path / "train.py").write_text(LEAKY, encoding="utf-8")
    (tmp_path / "legacy_train.py").write_text(LEAKY, encoding="utf-8")
    expected = cli_lines(["train.py", "legacy_train.py"], tmp_path)
    assert [line.split(":")[0] for line in expected] == ["train.py"]
    assert flake8_lines(["train.py", "legacy_train.py"], tmp_path) == expected


def test_flake8_noqa_and_cli_noqa_agree(tmp_path):
    source = LEAKY.replace("total_loss += loss", "total_loss += loss  # noqa: TLL001")
    (tmp_path / "train.py").write_text(source, encoding="utf-8")
    assert cli_lines(["train.py"], tmp_path) == []
    assert flake8_lines(["train.py"], tmp_path) == []
    assert flake8_lines(["--disable-noqa", "train.py"], tmp_path) == []  # the engine honored it too


def test_a_broken_config_stops_flake8_naming_file_and_key(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.torchleaklint]\nselekt = ["TLL001"]\n', encoding="utf-8")
    (tmp_path / "train.py").write_text(LEAKY, encoding="utf-8")
    result = run_flake8(["--select", "TLL", "train.py"], tmp_path)
    assert result.returncode != 0 and result.stdout == ""
    assert "pyproject.toml" in result.stderr and "`selekt`" in result.stderr
    assert "Traceback" not in result.stderr
