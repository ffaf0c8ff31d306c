"""--fix / --diff / --show-fixes through the real CLI, on real files (TLL001 fixtures)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import libcst as cst

from torchleaklint.diagnostics import SAFE, UNSAFE, Diagnostic, FixSpec, Span
from torchleaklint.fixes import _apply
from torchleaklint.output.concise_format import line

ROOT = Path(__file__).resolve().parent.parent
LEAKY = (ROOT / "fixtures" / "fix_cases" / "tll001_running_loss.py").read_text(encoding="utf-8")
FIXED = (ROOT / "fixtures" / "fix_cases" / "tll001_running_loss.fixed.py").read_text(encoding="utf-8")


def cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "torchleaklint", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_diff_prints_the_change_writes_nothing_and_exits_1(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(LEAKY, encoding="utf-8")
    result = cli("--diff", "train.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "-        running_loss += loss  # fix" in result.stdout
    assert "+        running_loss += loss.item()  # fix" in result.stdout
    assert path.read_text(encoding="utf-8") == LEAKY
    path.write_text(FIXED, encoding="utf-8")
    assert cli("--diff", "train.py", cwd=tmp_path).returncode == 0


def test_fix_reports_remaining_and_fixed_and_show_fixes_lists_them(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(LEAKY, encoding="utf-8")
    before = cli("train.py", cwd=tmp_path)
    assert "TLL001 [*]" in before.stdout and "fixable with the `--fix` option" in before.stderr
    result = cli("--fix", "--show-fixes", "train.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""
    assert "Fixed 1 problem" in result.stderr and "1 × TLL001" in result.stderr
    assert "(1 fixed)" in result.stderr
    assert path.read_text(encoding="utf-8") == FIXED


def test_fix_keeps_bom_crlf_and_permissions(tmp_path):
    path = tmp_path / "train.py"
    path.write_bytes(b"\xef\xbb\xbf" + LEAKY.replace("\n", "\r\n").encode("utf-8"))
    os.chmod(path, 0o640)
    assert cli("--fix", "train.py", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + FIXED.replace("\n", "\r\n").encode("utf-8")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name != ".torchleaklint_cache")
    assert leftovers == ["train.py"]  # no temp file left behind (the cache directory is expected)


def test_fix_keeps_a_declared_latin1_encoding(tmp_path):
    source = "# -*- coding: latin-1 -*-\n# café\n" + LEAKY
    path = tmp_path / "train.py"
    path.write_bytes(source.encode("latin-1"))
    assert cli("--fix", "train.py", cwd=tmp_path).returncode == 0
    assert path.read_bytes() == ("# -*- coding: latin-1 -*-\n# café\n" + FIXED).encode("latin-1")


def test_read_only_file_is_reported_not_crashed_on(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(LEAKY, encoding="utf-8")
    os.chmod(path, 0o444)
    result = cli("--fix", "train.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "not writable" in result.stderr and "Traceback" not in result.stderr
    assert path.read_text(encoding="utf-8") == LEAKY
    assert "TLL001" in result.stdout  # still reported: it was not fixed


def test_write_through_a_symlink_replaces_the_target_not_the_link(tmp_path):
    real = tmp_path / "real.py"
    real.write_text(LEAKY, encoding="utf-8")
    (tmp_path / "link.py").symlink_to(real)
    assert cli("--fix", "link.py", cwd=tmp_path).returncode == 0
    assert (tmp_path / "link.py").is_symlink()
    assert real.read_text(encoding="utf-8") == FIXED


def test_fix_marker_only_for_fixes_the_current_flags_apply():
    def diag(safety):
        return Diagnostic("f.py", 1, 1, "TLL002", "m", fix=FixSpec("detach_stored_state", safety, "t", Span(1, 0, 1, 1)))

    assert " [*] " in line(diag(SAFE))
    assert "[*]" not in line(diag(UNSAFE))
    assert " [*] " in line(diag(UNSAFE), unsafe_fixes=True)
    assert "[*]" not in line(Diagnostic("f.py", 1, 1, "TLL007", "m"))


def test_a_fix_that_would_not_parse_is_discarded():
    def broken(module, specs):
        return module.with_changes(body=[cst.SimpleStatementLine([cst.Expr(cst.Name("def"))])])

    assert _apply(broken, "x = 1\n", []) is None
