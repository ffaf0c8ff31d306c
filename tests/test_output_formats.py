"""Every `--output-format`, produced by the real command line on real files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from cli_run import LEAKY, LEAKY_COL, LEAKY_LINE, run

SARIF_SCHEMA = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"
JSON_FIELDS = {"path", "line", "column", "end_line", "end_column", "code", "message", "fix_available",
               "fix_safety", "fix_title", "severity", "evidence", "cell"}


@pytest.fixture
def project(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(LEAKY, encoding="utf-8")
    (tmp_path / "src" / "broken.py").write_text("import torch\ntotal = total +\n", encoding="utf-8")
    return tmp_path


def output(project, fmt):
    result = run(["--output-format", fmt, "src"], project)
    assert result.returncode == 1, result.stderr
    return result.stdout


def test_json_round_trips_with_the_documented_fields(project):
    records = json.loads(output(project, "json"))
    assert [set(r) for r in records] == [JSON_FIELDS] * 2
    broken, leak = records
    assert (broken["path"], broken["code"], broken["line"]) == ("src/broken.py", "TLL900", 2)
    assert (broken["fix_available"], broken["fix_safety"], broken["fix_title"]) == (False, None, None)
    assert (leak["path"], leak["line"], leak["column"], leak["code"]) == ("src/train.py", LEAKY_LINE, LEAKY_COL, "TLL001")
    assert (leak["end_line"], leak["end_column"]) == (LEAKY_LINE, LEAKY_COL + len("total_loss += loss"))
    assert "total_loss" in leak["message"]
    assert leak["fix_available"] is True and leak["fix_safety"] in ("safe", "unsafe") and leak["fix_title"]
    assert broken["severity"] == "error" and broken["evidence"] == []
    # the loss is back-propagated every step: what stays alive is the graph's nodes (host memory)
    assert leak["severity"] == "warning"
    lines = [step["line"] for step in leak["evidence"]]
    # where the graph comes from (the loss), the loop that keeps the total, the backward that ran on it
    assert lines == [LEAKY_LINE - 4, LEAKY_LINE - 5, LEAKY_LINE - 2], leak["evidence"]
    assert all(set(step) == {"line", "column", "message"} for step in leak["evidence"])


def test_json_of_a_clean_run_is_an_empty_list(tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    result = run(["--output-format", "json", "ok.py"], tmp_path)
    assert (result.returncode, json.loads(result.stdout)) == (0, [])


def test_sarif_validates_against_the_official_schema(project):
    log = json.loads(output(project, "sarif"))
    validator = jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    errors = sorted(validator.iter_errors(log), key=str)
    assert not errors, "\n".join(e.message for e in errors[:5])
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "torchleaklint" and driver["version"] and driver["informationUri"]
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert rules["TLL001"]["name"] == "loss-accumulated-with-graph"
    assert "## Why is this bad?" in rules["TLL001"]["help"]["markdown"]
    assert {"TLL900", "TLL901"} <= set(rules)


def test_sarif_results_locate_findings_relative_to_the_run(project):
    results = json.loads(output(project, "sarif"))["runs"][0]["results"]
    leak = next(r for r in results if r["ruleId"] == "TLL001")
    location = leak["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "src/train.py"
    assert location["region"] == {"startLine": LEAKY_LINE, "startColumn": LEAKY_COL, "endLine": LEAKY_LINE,
                                  "endColumn": LEAKY_COL + len("total_loss += loss")}
    assert leak["level"] == "warning" and "total_loss" in leak["message"]["text"]  # graph nodes, not activations
    flow = leak["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [step["location"]["physicalLocation"]["region"]["startLine"] for step in flow][-1] == LEAKY_LINE


def test_the_schema_check_can_fail(project):
    log = json.loads(output(project, "sarif"))
    del log["runs"][0]["results"][0]["message"]
    validator = jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    assert list(validator.iter_errors(log))


def test_github_workflow_commands(project):
    lines = output(project, "github").splitlines()
    assert lines[1].startswith(f"::warning file=src/train.py,line={LEAKY_LINE},col={LEAKY_COL},"
                               f"endLine={LEAKY_LINE},endColumn={LEAKY_COL + 18},title=TLL001::`total_loss`")
    assert re.fullmatch(r"::error file=src/broken\.py,line=2,col=\d+,title=TLL900::SyntaxError.*", lines[0])


def test_github_escapes_what_would_end_a_property():
    from torchleaklint.diagnostics import Diagnostic
    from torchleaklint.output.github_format import line

    d = Diagnostic(path="a,b:c.py", line=1, col=1, code="TLL001", message="50% of\nmemory")
    assert line(d) == "::error file=a%2Cb%3Ac.py,line=1,col=1,title=TLL001::50%25 of%0Amemory"


def test_grouped(project):
    text = output(project, "grouped")
    assert text.startswith("src/broken.py:\n  2:")
    assert f"\nsrc/train.py:\n  {LEAKY_LINE}:{LEAKY_COL} TLL001 " in text


def test_full_quotes_the_line_with_carets_under_the_finding(project):
    lines = output(project, "full").splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith(f"src/train.py:{LEAKY_LINE}:{LEAKY_COL}: TLL001"))
    source, carets = lines[start + 2], lines[start + 3]
    assert source == f"{LEAKY_LINE} |         total_loss += loss"
    assert carets.index("^") == source.index("total_loss")
    assert carets.strip(" |").strip() == "^" * len("total_loss += loss")


def test_full_quotes_standard_input(tmp_path):
    result = run(["--output-format", "full", "--stdin-filename", "train.py", "-"], tmp_path, stdin=LEAKY)
    assert f"{LEAKY_LINE} |         total_loss += loss" in result.stdout
