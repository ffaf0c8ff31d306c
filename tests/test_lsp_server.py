"""End to end: the real `torchleaklint server` in a subprocess, driven over stdio by a
JSON-RPC client (tests/lsp_client.py) the way an editor drives it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import CLEAN, LEAKY, LEAKY_COL, LEAKY_LINE, REPO
from lsp_client import CLIENT_CAPABILITIES, LspClient, apply_text_edits

# pygls and lsprotocol are in the `test` extra: without them these tests fail, not skip.

UNSAFE_CASE = REPO / "fixtures" / "fix_cases" / "tll008_tbptt.py"  # one unsafe fix, and its fixed text


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture(scope="module")
def client(workspace):
    client = LspClient(cwd=str(workspace))
    client.initialize(str(workspace))
    yield client
    client.close()


def uri_of(workspace: Path, name: str) -> str:
    return (workspace / name).as_uri()


def code_actions(client, uri, range_, only=None):
    context = {"diagnostics": []}
    if only:
        context["only"] = only
    return client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": range_,
                                                      "context": context}) or []


def cli_fix(text: str, name: str, cwd: Path) -> str:
    """What `torchleaklint --fix` makes of `text` (the real command line, standard input)."""
    proc = subprocess.run([sys.executable, "-m", "torchleaklint", "--fix", "--stdin-filename", name, "-"],
                          input=text.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    return proc.stdout.decode()


def test_initialize_advertises_what_the_server_does(workspace):
    client = LspClient(cwd=str(workspace))
    try:
        capabilities = client.initialize(str(workspace))["capabilities"]
        assert capabilities["positionEncoding"] == "utf-16"
        assert capabilities["textDocumentSync"]["change"] == 2  # incremental
        assert capabilities["textDocumentSync"]["save"] == {"includeText": False}
        assert "source.fixAll.torchleaklint" in capabilities["codeActionProvider"]["codeActionKinds"]
        assert capabilities["notebookDocumentSync"]["notebookSelector"][0]["cells"] == [{"language": "python"}]
        assert capabilities["hoverProvider"] is True
        assert client.shutdown() == 0  # shutdown + exit: a clean exit status
    finally:
        client.close()


def test_stdio_flag_that_some_clients_add_is_accepted(workspace):
    client = LspClient(cwd=str(workspace), argv=[sys.executable, "-m", "torchleaklint", "server", "--stdio"])
    try:
        assert client.initialize(str(workspace))["serverInfo"]["name"] == "torchleaklint"
        assert client.shutdown() == 0
    finally:
        client.close()


def test_open_publishes_the_findings_of_the_buffer_not_the_file(client, workspace):
    # The file on disk is clean; the editor's unsaved buffer has the leak.
    (workspace / "train.py").write_text(CLEAN)
    uri = uri_of(workspace, "train.py")
    client.open(uri, LEAKY)
    [diagnostic] = client.diagnostics(uri, version=1)
    assert diagnostic["code"] == "TLL001"
    assert diagnostic["source"] == "torchleaklint"
    assert diagnostic["severity"] == 2  # warning
    assert diagnostic["range"]["start"] == {"line": LEAKY_LINE - 1, "character": LEAKY_COL - 1}
    assert diagnostic["range"]["end"] == {"line": LEAKY_LINE - 1, "character": len("        total_loss += loss")}
    assert "total_loss" in diagnostic["message"]
    href = diagnostic["codeDescription"]["href"]
    assert href.startswith("file://") and href.endswith("tll001_loss_accumulation.py")
    assert (workspace / "train.py").read_text() == CLEAN  # never written


def test_edits_update_the_diagnostics(client, workspace):
    uri = uri_of(workspace, "edited.py")
    client.open(uri, LEAKY)
    assert [d["code"] for d in client.diagnostics(uri, version=1)] == ["TLL001"]
    client.change(uri, LEAKY.replace("total_loss += loss", "total_loss += loss.item()"), version=2)
    assert client.diagnostics(uri, version=2) == []
    # An incremental change, as editors send them: retype the leak.
    line = LEAKY_LINE - 1
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 3},
        "contentChanges": [{"range": {"start": {"line": line, "character": 26},
                                      "end": {"line": line, "character": 33}}, "text": ""}]})
    assert [d["code"] for d in client.diagnostics(uri, version=3)] == ["TLL001"]


def test_rapid_changes_are_linted_once_for_the_last_version(workspace):
    client = LspClient(cwd=str(workspace))
    try:  # a long delay, so that a loaded machine cannot split the burst of keystrokes
        client.initialize(str(workspace), options={"debounceSeconds": 2.0})
        uri = uri_of(workspace, "typing.py")
        client.open(uri, CLEAN)
        assert client.diagnostics(uri, version=1) == []
        for version in range(2, 7):  # keystrokes faster than the debounce delay
            client.change(uri, LEAKY if version == 6 else CLEAN + "#" * version, version)
        assert [d["code"] for d in client.diagnostics(uri, version=6)] == ["TLL001"]
        stale = [m for m in client.backlog if m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"]["uri"] == uri]
        assert stale == [], "the intermediate versions should have been debounced"
    finally:
        client.close()


def test_save_lints_and_close_clears(client, workspace):
    uri = uri_of(workspace, "saved.py")
    client.open(uri, LEAKY)
    assert len(client.diagnostics(uri, version=1)) == 1
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert len(client.diagnostics(uri, version=1)) == 1
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri) == []


def test_quick_fix_edit_gives_the_fixed_text(client, workspace):
    uri = uri_of(workspace, "quickfix.py")
    client.open(uri, LEAKY)
    [diagnostic] = client.diagnostics(uri, version=1)
    actions = code_actions(client, uri, diagnostic["range"])
    [fix] = [a for a in actions if a["kind"] == "quickfix" and "noqa" not in a["title"]]
    assert fix["isPreferred"] is True and "(unsafe)" not in fix["title"]
    assert fix["diagnostics"][0]["code"] == "TLL001"
    fixed = apply_text_edits(LEAKY, fix["edit"]["changes"][uri])
    assert "total_loss += loss.item()" in fixed
    assert fixed == cli_fix(LEAKY, "quickfix.py", workspace)
    client.change(uri, fixed, version=2)
    assert client.diagnostics(uri, version=2) == []


def test_unsafe_fix_is_labeled_and_not_preferred(client, workspace):
    text = UNSAFE_CASE.read_text()
    uri = uri_of(workspace, "tbptt.py")
    client.open(uri, text)
    [diagnostic] = [d for d in client.diagnostics(uri, version=1) if d["code"] == "TLL008"]
    [fix] = [a for a in code_actions(client, uri, diagnostic["range"]) if "(unsafe)" in a["title"]]
    assert fix["isPreferred"] is False
    fixed = apply_text_edits(text, fix["edit"]["changes"][uri])
    assert fixed == UNSAFE_CASE.with_suffix(".fixed.py").read_text()  # what --fix --unsafe-fixes writes
    client.change(uri, fixed, version=2)
    assert [d for d in client.diagnostics(uri, version=2) if d["code"] == "TLL008"] == []
    # fix-all applies safe fixes only: this file has none, so it is not offered.
    assert code_actions(client, uri, diagnostic["range"], only=["source.fixAll"]) == []


def test_fix_all_matches_the_command_line(client, workspace):
    text = LEAKY + "\n\ndef log_all(model, batches):\n    seen = []\n    for x in batches:\n" \
                   "        out = model(x).sum()\n        out.backward()\n        seen.append(out)\n    return seen\n"
    uri = uri_of(workspace, "fixall.py")
    client.open(uri, text)
    assert sorted(d["code"] for d in client.diagnostics(uri, version=1)) == ["TLL001", "TLL003"]
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    [action] = code_actions(client, uri, whole, only=["source.fixAll"])
    assert action["kind"] == "source.fixAll.torchleaklint"
    fixed = apply_text_edits(text, action["edit"]["changes"][uri])
    assert fixed == cli_fix(text, "fixall.py", workspace) != text
    client.change(uri, fixed, version=2)
    assert client.diagnostics(uri, version=2) == []


def test_add_noqa_for_a_line(client, workspace):
    uri = uri_of(workspace, "noqa.py")
    client.open(uri, LEAKY)
    [diagnostic] = client.diagnostics(uri, version=1)
    [action] = [a for a in code_actions(client, uri, diagnostic["range"]) if "noqa" in a["title"]]
    assert action["title"] == "Add `# noqa: TLL001` for this line"
    fixed = apply_text_edits(LEAKY, action["edit"]["changes"][uri])
    assert fixed.splitlines()[LEAKY_LINE - 1] == "        total_loss += loss  # noqa: TLL001"
    client.change(uri, fixed, version=2)
    assert client.diagnostics(uri, version=2) == []  # the engine's noqa handling applies


def test_actions_resolve_their_edit_when_the_client_can(workspace):
    capabilities = dict(CLIENT_CAPABILITIES)
    capabilities["textDocument"] = dict(capabilities["textDocument"])
    capabilities["textDocument"]["codeAction"] = dict(capabilities["textDocument"]["codeAction"],
                                                      resolveSupport={"properties": ["edit"]}, dataSupport=True)
    client = LspClient(cwd=str(workspace))
    try:
        client.initialize(str(workspace), capabilities)
        uri = uri_of(workspace, "lazy.py")
        client.open(uri, LEAKY)
        [diagnostic] = client.diagnostics(uri, version=1)
        actions = code_actions(client, uri, diagnostic["range"])
        assert actions and all("edit" not in a for a in actions)
        [fix] = [a for a in actions if a["title"] == "Use `.item()`"]
        resolved = client.request("codeAction/resolve", fix)
        assert "total_loss += loss.item()" in apply_text_edits(LEAKY, resolved["edit"]["changes"][uri])
        assert client.shutdown() == 0
    finally:
        client.close()


def test_a_broken_buffer_is_one_diagnostic_and_the_server_goes_on(client, workspace):
    uri = uri_of(workspace, "broken.py")
    broken = LEAKY.replace("def train(model, loader, optimizer):", "def train(model, loader,")
    client.open(uri, broken)
    [diagnostic] = client.diagnostics(uri, version=1)
    assert diagnostic["code"] == "TLL900" and "SyntaxError" in diagnostic["message"]
    assert code_actions(client, uri, diagnostic["range"]) == []  # nothing to fix or silence
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                 "position": diagnostic["range"]["start"]}) is not None
    client.change(uri, LEAKY, version=2)
    assert [d["code"] for d in client.diagnostics(uri, version=2)] == ["TLL001"]


def test_positions_are_utf16_code_units(client, workspace):
    uri = uri_of(workspace, "emoji.py")
    text = LEAKY.replace("        total_loss += loss", '        tag = "\U0001F600"; total_loss += loss')
    client.open(uri, text)
    [diagnostic] = client.diagnostics(uri, version=1)
    # The emoji is one character but two UTF-16 code units.
    assert diagnostic["range"]["start"]["character"] == len('        tag = "\U0001F600"; ') + 1
    [fix] = [a for a in code_actions(client, uri, diagnostic["range"]) if a["title"] == "Use `.item()`"]
    assert "total_loss += loss.item()" in apply_text_edits(text, fix["edit"]["changes"][uri])


def test_positions_in_utf8_for_a_client_that_prefers_it(workspace):
    capabilities = dict(CLIENT_CAPABILITIES, general={"positionEncodings": ["utf-8", "utf-16"]})
    client = LspClient(cwd=str(workspace))
    try:
        assert client.initialize(str(workspace), capabilities)["capabilities"]["positionEncoding"] == "utf-8"
        uri = uri_of(workspace, "emoji8.py")
        prefix = '        tag = "\u00e9\U0001F600"; '
        client.open(uri, LEAKY.replace("        total_loss += loss", prefix + "total_loss += loss"))
        [diagnostic] = client.diagnostics(uri, version=1)
        assert diagnostic["range"]["start"]["character"] == len(prefix.encode())
        assert client.shutdown() == 0
    finally:
        client.close()


def test_a_buffer_too_large_to_analyze_is_one_diagnostic(client, workspace):
    uri = uri_of(workspace, "huge.py")
    client.open(uri, LEAKY + "x = 1\n" * 1_000_000)  # 6 MB
    [diagnostic] = client.diagnostics(uri, version=1, timeout=60)
    assert diagnostic["code"] == "TLL900" and "larger than 5 MB" in diagnostic["message"]


def test_hover_shows_the_finding_and_the_rule_documentation(client, workspace):
    uri = uri_of(workspace, "hover.py")
    client.open(uri, LEAKY)
    [diagnostic] = client.diagnostics(uri, version=1)
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": diagnostic["range"]["start"]})
    value = hover["contents"]["value"]
    assert value.startswith("**TLL001**") and "## Why is this bad?" in value
    elsewhere = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                      "position": {"line": 0, "character": 0}})
    assert elsewhere is None


def test_configuration_is_found_from_the_file(tmp_path):
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.torchleaklint]\nignore = ["TLL001"]\n')
    (tmp_path / "pyproject.toml").write_text('[tool.torchleaklint]\nexclude = ["generated"]\n')
    client = LspClient(cwd=str(tmp_path))
    try:
        client.initialize(str(tmp_path))
        ignored = (project / "sub" / "train.py").as_uri()
        client.open(ignored, LEAKY)
        assert client.diagnostics(ignored, version=1) == []
        linted = (tmp_path / "train.py").as_uri()
        client.open(linted, LEAKY)
        assert [d["code"] for d in client.diagnostics(linted, version=1)] == ["TLL001"]
        excluded = (tmp_path / "generated" / "train.py").as_uri()
        client.open(excluded, LEAKY)
        assert client.diagnostics(excluded, version=1) == []
        (tmp_path / "bad").mkdir()
        (tmp_path / "bad" / "pyproject.toml").write_text('[tool.torchleaklint]\nselect = ["TLL999"]\n')
        misconfigured = (tmp_path / "bad" / "train.py").as_uri()
        client.open(misconfigured, LEAKY)
        [error] = client.diagnostics(misconfigured, version=1)
        assert error["severity"] == 1 and "TLL999" in error["message"]
    finally:
        client.close()


# ------------------------------------------------------------------ notebooks
def notebook_open(client, notebook_uri, cells):
    """Open a notebook of (kind, text) cells; returns the cell URIs."""
    uris = [f"{notebook_uri}#cell{i}" for i in range(len(cells))]
    client.notify("notebookDocument/didOpen", {
        "notebookDocument": {"uri": notebook_uri, "notebookType": "jupyter-notebook", "version": 1,
                             "cells": [{"kind": kind, "document": uri} for (kind, _), uri in zip(cells, uris)]},
        "cellTextDocuments": [{"uri": uri, "languageId": "python" if kind == 2 else "markdown",
                               "version": 1, "text": text} for (kind, text), uri in zip(cells, uris)],
    })
    return uris


NOTEBOOK_CELLS = [
    (2, "%matplotlib inline\nimport torch\nimport torch.nn.functional as F\ntotal_loss = 0"),
    (1, "# Training\nThe loop below leaks."),
    (2, "for x, y in loader:\n    loss = F.cross_entropy(model(x), y)\n    loss.backward()\n"
        "    optimizer.step()\n    total_loss += loss\n"),
]


def test_notebook_cells_are_one_module(client, workspace):
    notebook = uri_of(workspace, "train.ipynb")
    first, markdown, loop = notebook_open(client, notebook, NOTEBOOK_CELLS)
    [diagnostic] = client.diagnostics(loop)  # the accumulator is set up in another cell
    assert diagnostic["code"] == "TLL001"
    assert diagnostic["range"]["start"] == {"line": 4, "character": 4}  # in the cell's own lines
    assert client.diagnostics(first) == []  # the magic is not a syntax error
    [fix] = [a for a in code_actions(client, loop, diagnostic["range"]) if a["title"] == "Use `.item()`"]
    assert list(fix["edit"]["changes"]) == [loop]
    fixed = apply_text_edits(NOTEBOOK_CELLS[2][1], fix["edit"]["changes"][loop])
    assert fixed == NOTEBOOK_CELLS[2][1].replace("total_loss += loss", "total_loss += loss.item()")

    # The user edits the cell: the notebook changes, diagnostics follow.
    client.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": notebook, "version": 2},
        "change": {"cells": {"textContent": [{"document": {"uri": loop, "version": 2},
                                              "changes": [{"text": fixed}]}]}}})
    assert client.diagnostics(loop, version=2) == []
    client.notify("notebookDocument/didClose", {"notebookDocument": {"uri": notebook},
                                                "cellTextDocuments": [{"uri": u} for u in (first, markdown, loop)]})


def test_notebook_noqa_lands_in_the_right_cell(client, workspace):
    notebook = uri_of(workspace, "noqa.ipynb")
    _, _, loop = notebook_open(client, notebook, NOTEBOOK_CELLS)
    [diagnostic] = client.diagnostics(loop)
    [action] = [a for a in code_actions(client, loop, diagnostic["range"]) if "noqa" in a["title"]]
    fixed = apply_text_edits(NOTEBOOK_CELLS[2][1], action["edit"]["changes"][loop])
    assert "    total_loss += loss  # noqa: TLL001\n" in fixed


def test_server_without_the_extra_says_how_to_get_it():
    # The extra missing, as in a base install: pygls cannot be imported.
    code = "import sys; sys.modules['pygls'] = None; from torchleaklint.cli import main; main(['server'])"
    proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert proc.returncode == 2
    assert 'pip install "torchleaklint[lsp]"' in proc.stderr.decode()


def test_the_command_line_and_the_flake8_plugin_do_not_load_the_server():
    code = ("import sys, torchleaklint.cli, torchleaklint.flake8_plugin, torchleaklint.engine; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pygls', 'lsprotocol', 'cattrs')"
            " or m.startswith('torchleaklint.server')))")
    proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, timeout=60, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


# ------------------------------------------------------------------ README setup snippets
def readme_blocks(language):
    import re

    return re.findall(rf"```{language}\n(.*?)```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)


def readme_server_commands():
    """The command each editor's setup snippet in README.md starts the server with."""
    import json
    import re

    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib

    commands = {}
    for block in readme_blocks("json"):
        data = json.loads(block)
        if "glspc.serverCommand" in data:
            commands["vscode"] = [data["glspc.serverCommand"], *data["glspc.serverCommandArguments"]]
            assert data["glspc.languageId"] == "python"
            assert "source.fixAll.torchleaklint" in data["editor.codeActionsOnSave"]
        if "LanguageServerManager" in data:
            spec = data["LanguageServerManager"]["language_servers"]["torchleaklint"]
            assert "python" in spec["languages"]
            commands["jupyterlab"] = spec["argv"]
    for block in readme_blocks("toml"):
        data = tomllib.loads(block)
        if "language-server" in data:
            server = data["language-server"]["torchleaklint"]
            commands["helix"] = [server["command"], *server["args"]]
            assert "torchleaklint" in data["language"][0]["language-servers"]
        if "language_servers" in data:
            assert data["language_servers"]["torchleaklint"]["languages"] == ["Python"]
    [lua] = [b for b in readme_blocks("lua") if "vim.lsp.config" in b]
    commands["neovim"] = re.findall(r'"([^"]+)"', re.search(r"cmd = \{(.*?)\}", lua).group(1))
    [rust] = readme_blocks("rust")
    commands["zed"] = [re.search(r'which\("([^"]+)"\)', rust).group(1),
                       *re.findall(r'"([^"]+)"\.into\(\)', rust)]
    return commands


def test_every_editor_snippet_in_the_readme_starts_the_server(tmp_path):
    commands = readme_server_commands()
    assert set(commands) == {"vscode", "neovim", "helix", "zed", "jupyterlab"}
    assert all(command == ["torchleaklint", "server"] for command in commands.values()), commands
    # ...and that command (run from this checkout) serves: initialize, diagnostics, exit.
    client = LspClient(cwd=str(tmp_path), argv=[sys.executable, "-m", *commands["helix"]])
    try:
        client.initialize(str(tmp_path))
        uri = (tmp_path / "train.py").as_uri()
        client.open(uri, LEAKY)
        assert [d["code"] for d in client.diagnostics(uri, version=1)] == ["TLL001"]
        assert client.shutdown() == 0
    finally:
        client.close()


def test_fix_all_is_offered_next_to_a_fix_not_on_every_line(client, workspace):
    uri = uri_of(workspace, "offer.py")
    client.open(uri, LEAKY)
    [diagnostic] = client.diagnostics(uri, version=1)
    on_finding = [a["kind"] for a in code_actions(client, uri, diagnostic["range"])]
    assert on_finding == ["quickfix", "quickfix", "source.fixAll.torchleaklint"]
    first_line = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    assert code_actions(client, uri, first_line) == []


def test_documents_in_other_languages_are_not_linted(client, workspace):
    toml = uri_of(workspace, "pyproject.toml")
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": toml, "languageId": "toml", "version": 1, "text": "[tool.torchleaklint]\nselect = [\"TLL\"]\n"}})
    python = uri_of(workspace, "after_toml.py")
    client.open(python, LEAKY)
    assert len(client.diagnostics(python, version=1)) == 1  # served in order: the TOML got nothing
    assert not [m for m in client.backlog if m.get("params", {}).get("uri") == toml]


def test_notebook_cells_added_and_removed(client, workspace):
    notebook = uri_of(workspace, "cells.ipynb")
    first, markdown, loop = notebook_open(client, notebook, NOTEBOOK_CELLS)
    assert len(client.diagnostics(loop)) == 1
    # The loop cell is deleted: its diagnostics are cleared.
    client.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": notebook, "version": 2},
        "change": {"cells": {"structure": {"array": {"start": 2, "deleteCount": 1, "cells": []},
                                           "didClose": [{"uri": loop}]}}}})
    assert client.diagnostics(loop) == []
    # A new cell with the loop is inserted before the markdown cell.
    moved = f"{notebook}#cell9"
    client.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": notebook, "version": 3},
        "change": {"cells": {"structure": {
            "array": {"start": 1, "deleteCount": 0, "cells": [{"kind": 2, "document": moved}]},
            "didOpen": [{"uri": moved, "languageId": "python", "version": 1, "text": NOTEBOOK_CELLS[2][1]}]}}}})
    [diagnostic] = client.diagnostics(moved)
    assert diagnostic["code"] == "TLL001" and diagnostic["range"]["start"]["line"] == 4


def test_latency_benchmark_runs_end_to_end(tmp_path):
    import json

    out = tmp_path / "latency.json"
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "lsp_latency.py"), "--lines", "300",
                           "--changes", "2", "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    assert data["lines"] == 300 and data["changes"] == 2 and data["diagnostics"] > 0
    assert 0 < data["median"] <= data["max"] and data["engine_median"] > 0  # no timing asserted
    assert "didChange -> publishDiagnostics" in done.stdout


def test_a_request_during_the_debounce_delay_lints_once_and_publishes(workspace):
    client = LspClient(cwd=str(workspace))
    try:
        client.initialize(str(workspace), options={"debounceSeconds": 5.0})
        uri = uri_of(workspace, "pending.py")
        client.open(uri, CLEAN)
        assert client.diagnostics(uri, version=1) == []
        client.change(uri, LEAKY, version=2)
        line = {"start": {"line": LEAKY_LINE - 1, "character": 9}, "end": {"line": LEAKY_LINE - 1, "character": 9}}
        actions = code_actions(client, uri, line)  # long before the 5 s delay is over
        assert [a["title"] for a in actions][:1] == ["Use `.item()`"]
        assert [d["code"] for d in client.diagnostics(uri, version=2, timeout=2)] == ["TLL001"]
        assert client.shutdown() == 0
    finally:
        client.close()


def test_notebook_fix_all_edits_every_cell_it_fixes(client, workspace):
    notebook = uri_of(workspace, "fixall.ipynb")
    history = ("losses = []\nfor x, y in loader:\n    loss = F.cross_entropy(model(x), y)\n"
               "    loss.backward()\n    optimizer.step()\n    losses.append(loss)\n")
    cells = [NOTEBOOK_CELLS[0], NOTEBOOK_CELLS[2], (2, history)]
    first, loop, kept = notebook_open(client, notebook, cells)
    assert [d["code"] for d in client.diagnostics(loop)] == ["TLL001"]
    assert [d["code"] for d in client.diagnostics(kept)] == ["TLL003"]
    whole = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}
    [action] = code_actions(client, first, whole, only=["source.fixAll"])
    changes = action["edit"]["changes"]
    assert sorted(changes) == sorted([loop, kept])
    assert "total_loss += loss.item()" in apply_text_edits(cells[1][1], changes[loop])
    assert apply_text_edits(history, changes[kept]) == history.replace("append(loss)", "append(loss.item())")


@pytest.mark.parametrize("text", [
    "x = 1\x00\n",  # a NUL byte
    "s = '\ud800'\n" + LEAKY,  # a lone surrogate (JSON can carry it as an escape)
    "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n",  # nested too deeply to parse
    "\ufeff" + LEAKY,  # a byte order mark
    "",
])
def test_hostile_buffers_get_at_most_one_file_diagnostic_and_the_server_goes_on(client, workspace, text):
    uri = uri_of(workspace, f"hostile{abs(hash(text)) % 10_000}.py")
    client.open(uri, text)
    diagnostics = client.diagnostics(uri, version=1)
    assert len([d for d in diagnostics if d["code"] == "TLL900"]) <= 1
    assert code_actions(client, uri, {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}}) \
        is not None
    client.change(uri, LEAKY, version=2)
    assert [d["code"] for d in client.diagnostics(uri, version=2)] == ["TLL001"]
