"""A small LSP client for tests and the latency benchmark: starts `torchleaklint server` as
a subprocess (this checkout first on PYTHONPATH) and speaks JSON-RPC over its stdio, as an
editor does. Server-to-client messages are read by a thread into a queue."""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

REPO = Path(__file__).resolve().parent.parent


class ServerError(Exception):
    pass


class LspClient:
    def __init__(self, cwd: Optional[str] = None, argv=None):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        self.proc = subprocess.Popen(argv or [sys.executable, "-m", "torchleaklint", "server"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=cwd, env=env)
        self.messages: "queue.Queue[Dict]" = queue.Queue()
        self.backlog: List[Dict] = []  # notifications read while waiting for something else
        self.next_id = 0
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    # ------------------------------------------------------------------ wire
    def _send(self, message: Dict) -> None:
        body = json.dumps(message).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _read(self) -> None:
        stream = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def notify(self, method: str, params) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params, timeout: float = 30.0):
        self.next_id += 1
        request_id = self.next_id
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        message = self._wait(lambda m: m.get("id") == request_id and "method" not in m, timeout)
        if "error" in message:
            raise ServerError(message["error"])
        return message.get("result")

    def _wait(self, matches: Callable[[Dict], bool], timeout: float) -> Dict:
        for index, message in enumerate(self.backlog):
            if matches(message):
                return self.backlog.pop(index)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no matching message within {timeout} s; stderr: {self.stderr_so_far()}")
            try:
                message = self.messages.get(timeout=remaining)
            except queue.Empty:
                continue
            if "method" in message and "id" in message:  # a request from the server
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            if matches(message):
                return message
            self.backlog.append(message)

    def stderr_so_far(self) -> str:
        return "" if self.proc.poll() is None else self.proc.stderr.read().decode("utf-8", "replace")

    # ------------------------------------------------------------------ LSP
    def initialize(self, root: str, capabilities: Optional[Dict] = None, options: Optional[Dict] = None) -> Dict:
        params = {"processId": os.getpid(), "rootUri": Path(root).as_uri(),
                  "capabilities": capabilities if capabilities is not None else CLIENT_CAPABILITIES}
        if options is not None:
            params["initializationOptions"] = options
        result = self.request("initialize", params)
        self.notify("initialized", {})
        return result

    def diagnostics(self, uri: str, timeout: float = 30.0, version: Optional[int] = None) -> List[Dict]:
        """The next publishDiagnostics for `uri` (for `version`, if given)."""
        message = self._wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                             and m["params"]["uri"] == uri
                             and (version is None or m["params"].get("version") == version), timeout)
        return message["params"]["diagnostics"]

    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": version, "text": text}})

    def change(self, uri: str, text: str, version: int) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [{"text": text}]})

    def shutdown(self, timeout: float = 15.0) -> int:
        self.request("shutdown", None)
        self.notify("exit", None)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


CLIENT_CAPABILITIES = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"didSave": True},
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True, "codeDescriptionSupport": True},
        "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix", "source.fixAll"]}},
                       "isPreferredSupport": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
    },
    "notebookDocument": {"synchronization": {}},
}


def apply_text_edits(text: str, edits: List[Dict]) -> str:
    """`text` with LSP TextEdits (UTF-16 positions) applied, as an editor applies them."""
    lines = io.StringIO(text, newline="").readlines()
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(position: Dict) -> int:
        if position["line"] >= len(lines):
            return len(text)
        line = lines[position["line"]]
        units, index = 0, 0
        while index < len(line.rstrip("\r\n")) and units < position["character"]:
            units += 2 if ord(line[index]) > 0xFFFF else 1
            index += 1
        return offsets[position["line"]] + index

    ordered = sorted(edits, key=lambda e: (offset(e["range"]["start"]), offset(e["range"]["end"])), reverse=True)
    for edit in ordered:
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text
