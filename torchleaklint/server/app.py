"""The language server's protocol handlers (pygls): diagnostics on open, change (debounced)
and save, code actions, hover, for text documents and notebooks.

Everything is computed from the editor's buffers; edits go back to the editor as text
edits and the server never writes a file.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from typing import Dict, List, Optional, Set
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path, uri_scheme

from torchleaklint import __version__
from torchleaklint.server import actions
from torchleaklint.server.buffers import Buffer, LintResult, lint_buffer
from torchleaklint.server.cells import join_cells
from torchleaklint.server.convert import diagnostics_by_document, hover_text

# Keystrokes closer together than this are linted once, after the last one.
DEBOUNCE_SECONDS = 0.05
CONFIG_FILES = ("pyproject.toml", "torchleaklint.toml")
log = logging.getLogger(__name__)


class TorchLeakLintServer(LanguageServer):
    def __init__(self):
        super().__init__(
            "torchleaklint", __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    notebook="*", cells=[types.NotebookCellLanguage(language="python")])],
                save=True),
        )
        self.pending: Dict[str, asyncio.TimerHandle] = {}
        self.results: Dict[str, LintResult] = {}
        self.published: Dict[str, Set[str]] = {}  # buffer key -> document URIs with diagnostics
        self.debounce = DEBOUNCE_SECONDS

    # ----------------------------------------------------------------- buffers
    def buffer(self, key: str) -> Optional[Buffer]:
        """The current buffer for a text document or notebook URI, from the editor's text."""
        notebook = self.workspace.get_notebook_document(notebook_uri=key)
        if notebook is not None:
            return self._notebook_buffer(notebook)
        document = self.workspace.text_documents.get(unquote(key))
        if document is None or not _is_python(document.language_id, key):
            return None
        return Buffer.for_text(key, self.path_of(key), document.source, document.version)

    def _notebook_buffer(self, notebook: types.NotebookDocument) -> Buffer:
        cells, versions = [], {}
        for cell in notebook.cells:
            document = self.workspace.text_documents.get(unquote(cell.document))
            if cell.kind != types.NotebookCellKind.Code or document is None:
                continue
            if (document.language_id or "python") != "python":
                continue
            cells.append((cell.document, document.source))
            versions[cell.document] = document.version
        return Buffer.for_notebook(notebook.uri, self.path_of(notebook.uri), join_cells(cells), versions)

    def buffer_key(self, uri: str) -> str:
        """The buffer a document belongs to: its notebook for a cell, else itself."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    def path_of(self, uri: str) -> str:
        """The file a buffer stands for (configuration is looked up from there); an
        unsaved buffer stands for a file of that name in the workspace root."""
        if uri_scheme(uri) in ("file", None, ""):
            path = to_fs_path(uri)
            if path:
                return path
        root = self.workspace.root_path or os.getcwd()
        name = unquote(uri).rstrip("/").rsplit("/", 1)[-1].split(":")[-1] or "untitled"
        suffix = "" if name.endswith((".py", ".ipynb")) else ".py"
        return os.path.join(root, name + suffix)

    # ----------------------------------------------------------------- linting
    def schedule(self, key: str) -> None:
        self.cancel(key)
        self.pending[key] = asyncio.get_running_loop().call_later(self.debounce, self.lint_now, key)

    def cancel(self, key: str) -> None:
        handle = self.pending.pop(key, None)
        if handle is not None:
            handle.cancel()

    def lint_now(self, key: str) -> None:
        self.cancel(key)
        try:
            buffer = self.buffer(key)
            if buffer is None:
                return
            result = lint_buffer(buffer)
            self.results[key] = result
            self.publish(key, result)
        except Exception:  # never let one buffer take the server down
            log.exception("torchleaklint: linting %s failed", key)

    def publish(self, key: str, result: LintResult) -> None:
        by_document = diagnostics_by_document(result, self.workspace.position_codec)
        previous = self.published.get(key, set())
        for uri in previous | set(result.buffer.documents):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, diagnostics=by_document.get(uri, []), version=result.buffer.versions.get(uri)))
        self.published[key] = set(result.buffer.documents)

    def forget(self, key: str) -> None:
        self.cancel(key)
        self.results.pop(key, None)
        for uri in self.published.pop(key, set()):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def relint_all(self) -> None:
        for key in list(self.published):
            self.lint_now(key)

    def current_result(self, key: str) -> Optional[LintResult]:
        """The last lint of `key` if the buffer has not changed since, else a fresh one,
        which is published too (a request that arrives before the debounce delay is over,
        as code actions do while typing, takes the pending lint's place instead of adding one)."""
        buffer = self.buffer(key)
        if buffer is None:
            return None
        result = self.results.get(key)
        if result is None or result.buffer.text != buffer.text:
            self.lint_now(key)
            result = self.results.get(key)
        # Edits computed on other text than the editor's would corrupt it.
        return result if result is not None and result.buffer.text == buffer.text else None


server = TorchLeakLintServer()


@server.feature(types.INITIALIZE)
def initialize(ls: TorchLeakLintServer, params: types.InitializeParams) -> None:
    options = params.initialization_options
    delay = options.get("debounceSeconds") if isinstance(options, dict) else None
    if isinstance(delay, (int, float)) and 0 <= delay <= 10:
        ls.debounce = float(delay)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: TorchLeakLintServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.lint_now(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: TorchLeakLintServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
def did_save(ls: TorchLeakLintServer, params: types.DidSaveTextDocumentParams) -> None:
    if unquote(params.text_document.uri).endswith(CONFIG_FILES):
        ls.relint_all()  # the configuration changed: every open buffer may lint differently
    else:
        ls.lint_now(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: TorchLeakLintServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.forget(params.text_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
def notebook_did_open(ls: TorchLeakLintServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.lint_now(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
def notebook_did_change(ls: TorchLeakLintServer, params: types.DidChangeNotebookDocumentParams) -> None:
    ls.schedule(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
def notebook_did_save(ls: TorchLeakLintServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.lint_now(params.notebook_document.uri)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
def notebook_did_close(ls: TorchLeakLintServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.forget(params.notebook_document.uri)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, actions.FIX_ALL_KIND], resolve_provider=True))
def code_action(ls: TorchLeakLintServer, params: types.CodeActionParams) -> Optional[List[types.CodeAction]]:
    key = ls.buffer_key(params.text_document.uri)
    result = ls.current_result(key)
    if result is None:
        return None
    return actions.code_actions(result, params, ls.workspace.position_codec, _can_resolve_edits(ls))


@server.feature(types.CODE_ACTION_RESOLVE)
def code_action_resolve(ls: TorchLeakLintServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data or {}
    result = ls.current_result(data.get("key", "")) if isinstance(data, dict) else None
    if result is not None:
        action.edit = actions.resolve_edit(result, data, ls.workspace.position_codec)
    return action


@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(ls: TorchLeakLintServer, params: types.HoverParams) -> Optional[types.Hover]:
    result = ls.current_result(ls.buffer_key(params.text_document.uri))
    if result is None:
        return None
    text = hover_text(result, params.text_document.uri, params.position, ls.workspace.position_codec)
    if not text:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def _is_python(language_id: Optional[str], uri: str) -> bool:
    """A client that sends every open document (pyproject.toml too) gets findings only for Python."""
    return language_id in (None, "", "python") or unquote(uri).endswith((".py", ".pyi"))


def _can_resolve_edits(ls: TorchLeakLintServer) -> bool:
    """Does the client ask for a code action's edit only when the user picks it?"""
    text_document = ls.client_capabilities.text_document
    code_action_caps = text_document.code_action if text_document else None
    resolve = code_action_caps.resolve_support if code_action_caps else None
    return bool(resolve and "edit" in resolve.properties)


def serve() -> None:
    """Serve on stdin/stdout. Anything else that writes to `sys.stdout` (a stray print in a
    rule) would corrupt the protocol stream, so it goes to stderr instead."""
    logging.basicConfig(level=logging.WARNING, format="torchleaklint server: %(message)s")
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr
    server.start_io(sys.stdin.buffer, protocol_out)
