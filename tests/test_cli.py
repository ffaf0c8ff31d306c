"""The command line, run as a user runs it: exit codes, format, noqa, configuration,
selection, unparsable files, standard input, statistics, --add-noqa, --show-settings."""

from __future__ import annotations

import re

import pytest

from cli_run import CLEAN, LEAKY, LEAKY_COL, LEAKY_LINE, fixes_function, run

CONCISE = re.compile(r"(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>TLL\d{3})(?: \[\*\])? \S.*")


@pytest.fixture
def leaky(tmp_path):
    (tmp_path / "train.py").write_text(LEAKY, encoding="utf-8")
    return tmp_path


def write_config(project, body: str):
    (project / "pyproject.toml").write_text(f"[tool.torchleaklint]\n{body}\n", encoding="utf-8")


# ------------------------------------------------------------------ format and exit status
def test_concise_lines_are_flake8_style(leaky):
    result = run(["train.py"], leaky)
    assert result.returncode == 1
    (line,) = result.stdout.splitlines()
    assert CONCISE.fullmatch(line), line
    assert line.startswith(f"train.py:{LEAKY_LINE}:{LEAKY_COL}: TLL001 [*] `total_loss` ")
    assert result.stderr.startswith("Found 1 problem in 1 file.")


def test_exit_status_clean_is_0(tmp_path):
    (tmp_path / "eval.py").write_text(CLEAN, encoding="utf-8")
    result = run(["eval.py"], tmp_path)
    assert (result.returncode, result.stdout) == (0, "")


def test_exit_status_usage_error_is_2(tmp_path):
    result = run(["missing.py"], tmp_path)
    assert result.returncode == 2 and "missing.py" in result.stderr


def test_exit_zero_reports_but_exits_0(leaky):
    result = run(["--exit-zero", "train.py"], leaky)
    assert result.returncode == 0 and "TLL001" in result.stdout


def test_directories_are_walked_and_excludes_apply(leaky):
    (leaky / "build").mkdir()
    (leaky / "build" / "gen.py").write_text(LEAKY, encoding="utf-8")
    result = run(["."], leaky)
    assert [CONCISE.fullmatch(l).group("path") for l in result.stdout.splitlines()] == ["./train.py"]
    assert "gen.py" in run(["build/gen.py"], leaky).stdout  # named explicitly: linted
    assert run(["--force-exclude", "build/gen.py"], leaky).stdout == ""


# --------------------------------------------------------------------------------- noqa
@pytest.mark.parametrize("comment, suppressed", [
    ("# noqa", True),
    ("# noqa: TLL001", True),
    ("# NOQA:TLL001,E501", True),
    ("# noqa: E501 TLL0", True),
    ("# noqa: E501 TLL", False),  # flake8: a code needs digits, so `TLL` is not one
    ("# noqa: TLL002", False),
    ("# noqa: E501", False),
    ("# no qa", False),
])
def test_noqa(tmp_path, comment, suppressed):
    source = LEAKY.replace("total_loss += loss", f"total_loss += loss  {comment}")
    (tmp_path / "train.py").write_text(source, encoding="utf-8")
    result = run(["train.py"], tmp_path)
    assert (result.returncode, "TLL001" in result.stdout) == ((0, False) if suppressed else (1, True))


def test_noqa_after_a_continuation_covers_the_statement(tmp_path):
    source = LEAKY.replace("total_loss += loss", "total_loss += \\\n            loss  # noqa: TLL001")
    (tmp_path / "train.py").write_text(source, encoding="utf-8")
    assert run(["train.py"], tmp_path).returncode == 0


# ------------------------------------------------------------------------ configuration
@pytest.mark.parametrize("body, names", [
    ('selekt = ["TLL001"]', "`selekt`"),
    ('ignore = "TLL001"', "`ignore`"),
    ("respect-gitignore = 1", "`respect-gitignore`"),
    ('ignore = ["TLL999"]', "TLL999"),
    ('[tool.torchleaklint.per-file-ignores]\n"tests/*" = ["XYZ1"]', "XYZ1"),
])
def test_config_errors_exit_2_naming_file_and_key(leaky, body, names):
    write_config(leaky, body)
    result = run(["train.py"], leaky)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "pyproject.toml" in result.stderr and names in result.stderr
    assert result.stdout == ""


def test_invalid_toml_exits_2(leaky):
    (leaky / "pyproject.toml").write_text("[tool.torchleaklint\n", encoding="utf-8")
    result = run(["train.py"], leaky)
    assert result.returncode == 2 and "pyproject.toml" in result.stderr


def test_config_ignore_applies_and_command_line_select_overrides_it(leaky):
    # ruff's semantics: --ignore adds to the configured ignore; --select replaces the
    # configured selection, its ignore included
    write_config(leaky, 'ignore = ["TLL001"]')
    assert run(["train.py"], leaky).returncode == 0
    assert run(["--ignore", "TLL900", "train.py"], leaky).returncode == 0
    assert run(["--select", "TLL001", "train.py"], leaky).returncode == 1


def test_per_file_ignores(leaky):
    write_config(leaky, '[tool.torchleaklint.per-file-ignores]\n"train.py" = ["TLL001"]')
    assert run(["train.py"], leaky).returncode == 0


# ------------------------------------------------------------------------- --select/--ignore
@pytest.mark.parametrize("args, found", [
    (["--select", "TLL001"], True),
    (["--select", "TLL"], True),
    (["--select", "TLL9"], False),
    (["--ignore", "TLL001"], False),
    (["--ignore", "TLL0"], False),
    (["--select", "TLL9", "--extend-select", "TLL001"], True),
])
def test_select_and_ignore(leaky, args, found):
    result = run([*args, "train.py"], leaky)
    assert (result.returncode, "TLL001" in result.stdout) == ((1, True) if found else (0, False))


def test_unknown_code_on_the_command_line_exits_2(leaky):
    result = run(["--select", "TLL999", "train.py"], leaky)
    assert result.returncode == 2 and "TLL999" in result.stderr


# -------------------------------------------------------------------- unparsable files
def test_syntax_error_is_tll900_and_the_run_goes_on(leaky):
    (leaky / "a_broken.py").write_text("import torch\nloss = (1 +\n", encoding="utf-8")
    (leaky / "z_latin1.py").write_bytes(b"import torch\nname = '\xe9'\ntotal = total + 1\n")
    result = run(["."], leaky)
    found = [CONCISE.fullmatch(l).group("path", "code") for l in result.stdout.splitlines()]
    assert found == [("./a_broken.py", "TLL900"), ("./train.py", "TLL001"), ("./z_latin1.py", "TLL900")]
    assert result.returncode == 1
    assert run(["--ignore", "TLL900", "a_broken.py"], leaky).returncode == 0


# ------------------------------------------------------------------------ standard input
def test_stdin_is_linted_as_the_named_file(tmp_path):
    result = run(["--stdin-filename", "src/train.py", "-"], tmp_path, stdin=LEAKY)
    assert result.returncode == 1
    assert result.stdout.startswith(f"src/train.py:{LEAKY_LINE}:{LEAKY_COL}: TLL001")


def test_stdin_filename_alone_reads_stdin(tmp_path):
    result = run(["--stdin-filename", "train.py"], tmp_path, stdin=LEAKY)
    assert result.returncode == 1 and result.stdout.startswith("train.py:")


def test_stdin_honors_config_and_per_file_ignores(tmp_path):
    write_config(tmp_path, '[tool.torchleaklint.per-file-ignores]\n"legacy/*" = ["TLL001"]')
    assert run(["--stdin-filename", "legacy/train.py", "-"], tmp_path, stdin=LEAKY).returncode == 0
    assert run(["--stdin-filename", "src/train.py", "-"], tmp_path, stdin=LEAKY).returncode == 1


def test_stdin_with_force_exclude_skips_excluded_names(tmp_path):
    result = run(["--force-exclude", "--stdin-filename", "build/train.py", "-"], tmp_path, stdin=LEAKY)
    assert (result.returncode, result.stdout) == (0, "")


def test_stdin_cannot_mix_with_paths(leaky):
    assert run(["-", "train.py"], leaky, stdin=LEAKY).returncode == 2


def test_stdin_fix_writes_the_fixed_source_to_stdout(tmp_path):
    if fixes_function("fix_text") is None:
        pytest.skip("torchleaklint.fixes.fix_text (fixing a source string) is not in this branch yet")
    result = run(["--fix", "--stdin-filename", "train.py", "-"], tmp_path, stdin=LEAKY)
    assert result.stdout != LEAKY and "total_loss += loss\n" not in result.stdout
    compile(result.stdout, "train.py", "exec")
    assert result.returncode == 0, result.stderr


# ---------------------------------------------------------------------------- statistics
def test_statistics(tmp_path):
    source = LEAKY.replace("        total_loss += loss", "        total_loss += loss\n        total_loss += loss")
    (tmp_path / "train.py").write_text(source, encoding="utf-8")
    result = run(["--statistics", "train.py"], tmp_path)
    assert result.returncode == 1
    assert result.stdout == "2  TLL001  loss-accumulated-with-graph\n"


# ------------------------------------------------------------------------------ add-noqa
def test_add_noqa_then_the_run_is_clean(leaky):
    (leaky / "train.py").write_text(LEAKY.replace("total_loss += loss", "total_loss += loss  # noqa: E501"),
                                    encoding="utf-8")
    result = run(["--add-noqa", "."], leaky)
    assert result.returncode == 0 and "Added 1 noqa directive." in result.stderr
    line = (leaky / "train.py").read_text(encoding="utf-8").splitlines()[LEAKY_LINE - 1]
    assert line == "        total_loss += loss  # noqa: E501, TLL001"
    assert run(["."], leaky).returncode == 0


def test_add_noqa_keeps_crlf_and_encoding(tmp_path):
    source = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + LEAKY).replace("\n", "\r\n")
    (tmp_path / "train.py").write_bytes(source.encode("latin-1"))
    assert run(["--add-noqa", "train.py"], tmp_path).returncode == 0
    expected = source.replace("total_loss += loss\r\n", "total_loss += loss  # noqa: TLL001\r\n")
    assert (tmp_path / "train.py").read_bytes() == expected.encode("latin-1")
    assert run(["train.py"], tmp_path).returncode == 0


# ------------------------------------------------------------------------- show-settings
def test_show_settings_names_the_config_file_and_its_values(tmp_path):
    write_config(tmp_path, 'ignore = ["TLL001"]\nper-step-methods = ["forward", "train_step"]')
    result = run(["--show-settings"], tmp_path)
    assert result.returncode == 0
    assert f"# Configuration file: {tmp_path / 'pyproject.toml'}" in result.stdout
    assert 'ignore = ["TLL001"]' in result.stdout
    assert 'per-step-methods = ["forward", "train_step"]' in result.stdout


def test_show_settings_without_a_config(tmp_path):
    result = run(["--show-settings"], tmp_path)
    assert result.returncode == 0 and "# Configuration file: none (defaults)" in result.stdout
