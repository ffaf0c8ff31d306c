"""The integration snippets in README.md work with the tool as it is."""

from __future__ import annotations

import json
import re

import yaml

from cli_run import LEAKY, LEAKY_COL, LEAKY_LINE, REPO, run

README = (REPO / "README.md").read_text(encoding="utf-8")


def blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", README, re.S)


def test_vscode_problem_matcher_matches_concise_output(tmp_path):
    (task,) = [json.loads(b)["tasks"][0] for b in blocks("json") if '"problemMatcher"' in b]
    pattern = task["problemMatcher"]["pattern"]
    (tmp_path / "train.py").write_text(LEAKY, encoding="utf-8")
    lines = run(["--quiet", "train.py"], tmp_path).stdout.splitlines()
    assert lines
    for line in lines:
        match = re.match(pattern["regexp"], line)
        assert match, line
        assert match.group(pattern["file"]) == "train.py"
        assert (match.group(pattern["line"]), match.group(pattern["column"])) == (str(LEAKY_LINE), str(LEAKY_COL))
        assert match.group(pattern["code"]) == "TLL001"
        assert match.group(pattern["message"]).startswith("`total_loss`")


def test_yaml_snippets_parse():
    snippets = blocks("yaml")
    assert len(snippets) >= 3
    for snippet in snippets:
        assert yaml.safe_load(snippet)


def test_pre_commit_hooks_definition():
    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"torchleaklint", "torchleaklint-fix"}
    assert hooks["torchleaklint"]["entry"] == "torchleaklint --force-exclude"
    assert hooks["torchleaklint-fix"]["entry"].split() == ["torchleaklint", "--force-exclude", "--fix"]
    for hook in hooks.values():
        # notebooks and environment files too: pre-commit tags *.ipynb as `jupyter`
        assert (hook["language"], hook["require_serial"]) == ("python", False)
        assert {"python", "pyi", "jupyter", "yaml", "dockerfile", "shell"} <= set(hook["types_or"])
    local = next(yaml.safe_load(b) for b in blocks("yaml") if "repo: local" in b)
    assert local["repos"][0]["hooks"][0]["entry"] == hooks["torchleaklint"]["entry"]
    assert local["repos"][0]["hooks"][0]["types_or"] == hooks["torchleaklint"]["types_or"]
