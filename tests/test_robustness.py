"""Bad input is normal input: every odd file gets one clear diagnostic and the run goes on."""

from __future__ import annotations

import subprocess
import sys

import pytest

from torchleaklint.config import Settings
from torchleaklint.engine import lint_file, lint_source

LEAK = (
    "import torch\n"
    "def train(model, loader, opt):\n"
    "    total = 0\n"
    "    for x, y in loader:\n"
    "        loss = torch.nn.functional.mse_loss(model(x), y)\n"
    "        loss.backward()\n"
    "        opt.step()\n"
    "{line}\n"
)


def run_cli(*args, cwd=None, stdin=None):
    return subprocess.run([sys.executable, "-m", "torchleaklint", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=120)


def codes(diagnostics):
    return [(d.line, d.col, d.code) for d in diagnostics]


def test_column_counts_characters_after_non_ascii_text(tmp_path):
    line = '        s = "ü€"; total += loss'
    path = tmp_path / "u.py"
    path.write_text(LEAK.format(line=line), encoding="utf-8")
    [d] = lint_file(str(path), Settings())
    assert (d.line, d.code) == (8, "TLL001")
    assert d.col == line.index("total") + 1  # characters, not UTF-8 bytes


def test_latin1_coding_cookie(tmp_path):
    source = "# -*- coding: latin-1 -*-\n" + LEAK.format(line="        total += loss  # caf\xe9")
    path = tmp_path / "latin.py"
    path.write_bytes(source.encode("latin-1"))
    assert codes(lint_file(str(path), Settings())) == [(9, 9, "TLL001")]


def test_utf8_bom_and_crlf_line_endings(tmp_path):
    source = LEAK.format(line="        total += loss").replace("\n", "\r\n")
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + source.encode("utf-8"))
    assert codes(lint_file(str(path), Settings())) == [(8, 9, "TLL001")]


def test_mixed_line_endings_and_tabs(tmp_path):
    source = LEAK.format(line="\t\ttotal += loss").replace("\n", "\r", 3)
    source = source.replace("        ", "\t\t").replace("    ", "\t")
    path = tmp_path / "mixed.py"
    path.write_bytes(source.encode())
    assert [(d.line, d.code) for d in lint_file(str(path), Settings())] == [(8, "TLL001")]


@pytest.mark.parametrize("content, fragment", [
    (b"import torch\x00\nloss.backward()\n", "null byte"),
    (b"# -*- coding: utf-8 -*-\ntotal += 1 # \xff\xfe +=\n", "cannot decode"),
    (b"# -*- coding: klingon -*-\nx += 1\n", "encoding"),
    (b"def f(:\n    x += 1\n", "SyntaxError"),
])
def test_unreadable_content_is_one_tll900(tmp_path, content, fragment):
    path = tmp_path / "bad.py"
    path.write_bytes(content)
    [d] = lint_file(str(path), Settings())
    assert d.code == "TLL900" and fragment in d.message


def test_bad_file_does_not_stop_the_run(tmp_path):
    (tmp_path / "a_bad.py").write_text("def f(:\n  x += 1\n")
    (tmp_path / "b_leak.py").write_text(LEAK.format(line="        total += loss"))
    proc = run_cli(str(tmp_path))
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1
    assert [line.split(": ")[1].split()[0] for line in lines] == ["TLL900", "TLL001"]
    assert "Traceback" not in proc.stderr


def test_broken_symlink_and_symlink_loop(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg")
    (tmp_path / "pkg" / "gone.py").symlink_to(tmp_path / "does-not-exist.py")
    (tmp_path / "pkg" / "leak.py").write_text(LEAK.format(line="        total += loss"))
    proc = run_cli("--no-respect-gitignore", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert "gone.py:1:1: TLL900 cannot read file" in proc.stdout
    assert proc.stdout.count("TLL001") == 1  # the loop did not lint leak.py twice


def test_nonexistent_path_is_a_usage_error(tmp_path):
    proc = run_cli(str(tmp_path / "missing"))
    assert proc.returncode == 2 and "no such file" in proc.stderr and not proc.stdout


def test_paths_with_spaces_and_non_ascii_names(tmp_path):
    folder = tmp_path / "my project ü"
    folder.mkdir()
    (folder / "trainer ø.py").write_text(LEAK.format(line="        total += loss"), encoding="utf-8")
    proc = run_cli(str(folder))
    assert proc.returncode == 1 and "trainer ø.py:8:9: TLL001" in proc.stdout


def test_deeply_nested_expression_does_not_crash():
    source = "import torch\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\nx += 1\n"
    [d] = lint_source(source.encode(), "deep.py", Settings())
    assert d.code == "TLL900"


def test_deep_but_parseable_nesting_is_analyzed():
    body = "loss.backward()\n"
    for depth in range(60):
        body = "if x:\n" + "".join("    " + l + "\n" for l in body.splitlines())
    assert lint_source(("import torch\n" + body).encode(), "nested.py", Settings()) == []


def test_excluded_directories_are_skipped(tmp_path):
    for folder in ("build", ".venv", "src"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "leak.py").write_text(LEAK.format(line="        total += loss"))
    proc = run_cli("--no-respect-gitignore", str(tmp_path))
    assert {line.split(":")[0] for line in proc.stdout.splitlines()} == {str(tmp_path / "src" / "leak.py")}


def test_gitignored_files_are_skipped_unless_asked(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("generated/\n")
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "leak.py").write_text(LEAK.format(line="        total += loss"))
    assert run_cli(str(tmp_path)).returncode == 0
    assert run_cli("--no-respect-gitignore", str(tmp_path)).returncode == 1
    # a file named explicitly (as pre-commit does) is linted even though ignored
    assert run_cli(str(tmp_path / "generated" / "leak.py")).returncode == 1
