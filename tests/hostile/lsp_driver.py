"""A minimal LSP client over a subprocess's pipes, for starting the server exactly as an editor does (its
argv, its working directory, its user) and answering the server's requests the way a client that takes
its configuration from the workspace would. Plain JSON-RPC, so it needs nothing the unprivileged user's
environment lacks."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Mapping, Sequence


class Driver:
    def __init__(self, argv: Sequence[str], cwd: Path, env: Mapping[str, str], configuration: Any) -> None:
        self.proc = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.configuration = configuration  # the answer to workspace/configuration (the workspace's)
        self.responses: dict[int, "queue.Queue[Any]"] = {}
        self.notifications: list[dict[str, Any]] = []
        self.next_id = 0
        self.lock = threading.Lock()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr or []), daemon=True).start()

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        with self.lock:
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            message = json.loads(stream.read(length))
            if "method" in message and "id" in message:
                self._answer(message)
            elif "method" in message:
                self.notifications.append(message)
            elif message.get("id") in self.responses:
                self.responses[message["id"]].put(message)

    def _answer(self, request: dict[str, Any]) -> None:
        method = request["method"]
        if method == "workspace/configuration":
            result: Any = [self.configuration for _ in request["params"]["items"]]
        elif method == "workspace/applyEdit":
            result = {"applied": False}  # the human says no; the test looks at the run, not the files
        else:
            result = None  # progress tokens, capability registrations, questions dismissed
        self._send({"id": request["id"], "result": result})

    def request(self, method: str, params: Any, timeout: float = 60) -> Any:
        with self.lock:
            self.next_id += 1
            ident = self.next_id
            self.responses[ident] = queue.Queue()
        self._send({"id": ident, "method": method, "params": params})
        try:
            reply = self.responses[ident].get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer to {method} in {timeout} s; stderr: {self.error_text()}") from None
        if "error" in reply:
            raise AssertionError(f"{method} failed: {reply['error']}")
        return reply.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def initialize(self, root: Path, options: Any) -> Any:
        capabilities = {"workspace": {"configuration": True, "applyEdit": True,
                                      "workspaceEdit": {"documentChanges": True}},
                        "window": {"workDoneProgress": True}}
        result = self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": capabilities,
                                             "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                                             "initializationOptions": options})
        self.notify("initialized", {})
        return result

    def wait_for(self, method: str, match: Any = lambda params: True, timeout: float = 300) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for n in list(self.notifications):
                if n["method"] == method and match(n.get("params")):
                    return dict(n.get("params") or {})
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"no {method} (server exit {self.proc.poll()}); stderr: {self.error_text()}")

    def messages(self) -> list[str]:
        return [str(n["params"].get("message", "")) for n in self.notifications if n["method"] == "window/showMessage"]

    def error_text(self) -> str:
        return b"".join(self.stderr).decode(errors="replace")[-2000:]

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, timeout=30)
                self.notify("exit", None)
            self.proc.wait(timeout=30)
        except Exception:
            self.proc.kill()
            self.proc.wait()
