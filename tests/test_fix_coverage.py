"""benchmarks/fix_coverage.py on a few fixture files: after `--fix --unsafe-fixes` every
file still parses and a second pass changes nothing. (The removal percentage is a
benchmark number, reported by the script, not asserted here.)"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

import fix_coverage  # noqa: E402

SAMPLE = ("tll002/battery_sim_advance_in_loop.py", "tll005/tuner_param_space_dataframes.py",
          "tll006/fit_trains_then_evaluates.py", "tll008/word_lm_without_repackage_hidden.py")


def test_fixes_keep_files_parsing_and_are_idempotent(tmp_path):
    for name in SAMPLE:
        shutil.copy(ROOT / "fixtures" / name, tmp_path / Path(name).name)
    result = fix_coverage.measure(tmp_path)
    assert sum(result["before"].values()) > 0
    assert result["changed"], "the sample has fixable findings: some file must change"
    assert result["broken"] == []
    assert result["unstable"] == []
    assert sum(result["after"].values()) <= sum(result["before"].values())


def test_copy_excludes_fix_cases(tmp_path):
    fix_coverage.copy_tree(ROOT / "fixtures", tmp_path / "copy")
    assert not (tmp_path / "copy" / "fix_cases").exists()
    assert (tmp_path / "copy" / "tll001").is_dir()
