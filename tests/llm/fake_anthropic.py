"""A scripted Anthropic-compatible Messages server on 127.0.0.1, stdlib only.

The real `anthropic` SDK talks to it through `base_url`. Each POST /v1/messages takes the next
entry from the script; an entry is a message dict, an error, malformed JSON, a delay wrapper, or
a callable that builds one of those from the request body. A request with `"stream": true` gets
the same message as server-sent events. Every request (headers and body) is recorded.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator

_ids = itertools.count(1)


# ----- script entries -----------------------------------------------------------------------------

def text(s: str) -> dict[str, Any]:
    return {"type": "text", "text": s}


def tool_use(name: str, input: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": id or f"toolu_{next(_ids)}", "name": name, "input": input}


def message(*content: dict[str, Any], stop_reason: str | None = None, input_tokens: int = 100,
            output_tokens: int = 20, cache_read: int = 0, cache_write: int = 0) -> dict[str, Any]:
    if stop_reason is None:
        stop_reason = "tool_use" if any(c["type"] == "tool_use" for c in content) else "end_turn"
    return {
        "id": f"msg_{next(_ids)}", "type": "message", "role": "assistant", "model": "fake-model",
        "content": list(content), "stop_reason": stop_reason, "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                  "cache_creation_input_tokens": cache_write, "cache_read_input_tokens": cache_read},
    }


@dataclass
class Error:
    status: int
    kind: str = "overloaded_error"
    message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Malformed:
    body: str = '{"id": "msg_bad", "type": "message", "content": [ {"type": "text", '


@dataclass
class StreamError:
    """A stream that starts, then fails with an `error` event (as an overloaded API does mid-answer)."""

    kind: str = "overloaded_error"
    message: str = "Overloaded"


@dataclass
class Slow:
    entry: Any
    delay: float


def overloaded(retry_ms: int = 10) -> Error:
    return Error(529, "overloaded_error", "Overloaded", {"retry-after-ms": str(retry_ms)})


def rate_limited(retry_ms: int = 10) -> Error:
    return Error(429, "rate_limit_error", "rate limited", {"retry-after-ms": str(retry_ms)})


# ----- the server ---------------------------------------------------------------------------------

@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):  # a cancelled client hangs up
            super().handle_error(request, client_address)


class FakeAnthropic:
    def __init__(self) -> None:
        self.script: deque[Any] = deque()
        self.requests: list[Request] = []
        self.fallback: Callable[[dict[str, Any]], Any] | None = None
        self._lock = threading.Lock()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="fake-anthropic")

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def push(self, *entries: Any) -> "FakeAnthropic":
        self.script.extend(entries)
        return self

    def __enter__(self) -> "FakeAnthropic":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def messages_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.startswith("/v1/messages")]

    def _next(self, body: dict[str, Any]) -> Any:
        with self._lock:
            entry = self.script.popleft() if self.script else None
        if entry is None:
            if self.fallback is not None:
                return self.fallback(body)
            return Error(500, "api_error", "the fake's script is exhausted", {"x-should-retry": "false"})
        return entry(body) if callable(entry) else entry

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {}
                fake.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                if not self.headers.get("authorization", "").startswith("Bearer ") and not self.headers.get("x-api-key"):
                    return self._json(401, {"type": "error", "error": {"type": "authentication_error", "message": "no key"}})
                entry = fake._next(body)
                try:
                    self._answer(entry, bool(body.get("stream")))
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _answer(self, entry: Any, stream: bool) -> None:
                if isinstance(entry, Slow):
                    if stream and isinstance(entry.entry, dict):
                        return self._sse(entry.entry, entry.delay)
                    time.sleep(entry.delay)
                    return self._answer(entry.entry, stream)
                if isinstance(entry, Error):
                    return self._json(entry.status, {"type": "error", "error": {"type": entry.kind, "message": entry.message}},
                                      entry.headers)
                if isinstance(entry, StreamError):
                    return self._sse_error(entry)
                if isinstance(entry, Malformed):
                    return self._raw(200, entry.body.encode(), "application/json")
                if stream:
                    return self._sse(entry, 0.0)
                return self._json(200, entry)

            def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
                self._raw(status, json.dumps(obj).encode(), "application/json", headers)

            def _raw(self, status: int, data: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.send_header("request-id", f"req_{next(_ids)}")
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

            def _sse(self, msg: dict[str, Any], delay: float) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                for kind, data in sse_events(msg):
                    self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
                    self.wfile.flush()
                    if delay:
                        time.sleep(delay)

            def _sse_error(self, entry: StreamError) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                start = next(sse_events(message(text("partial"))))
                self.wfile.write(f"event: {start[0]}\ndata: {json.dumps(start[1])}\n\n".encode())
                error = {"type": "error", "error": {"type": entry.kind, "message": entry.message}}
                self.wfile.write(f"event: error\ndata: {json.dumps(error)}\n\n".encode())
                self.wfile.flush()

        return Handler


def sse_events(msg: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The frames of a streamed message: start, each block in two or more deltas, delta, stop."""
    usage = dict(msg["usage"])
    start = dict(msg, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for i, block in enumerate(msg["content"]):
        if block["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}
            s = block["text"]
            for part in (s[: len(s) // 2], s[len(s) // 2:]):
                yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "text_delta", "text": part}}
        else:
            head = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": head}
            s = json.dumps(block["input"])
            for part in (s[: len(s) // 2], s[len(s) // 2:]):
                yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "input_json_delta", "partial_json": part}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                            "usage": {"output_tokens": usage["output_tokens"]}}
    yield "message_stop", {"type": "message_stop"}
