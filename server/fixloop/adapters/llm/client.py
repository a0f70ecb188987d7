"""The one place that talks to the `anthropic` SDK: a request in, a plain `Reply` out.

`anthropic` is imported lazily (about 1.5 s) on the first request. Each request runs in a
worker thread so the caller can stop waiting the moment the run is cancelled; the SDK client
is then closed, which drops the connection.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from fixloop.adapters.llm.settings import LLMSettings

log = logging.getLogger("fixloop.adapters.llm")
POLL_SECONDS = 0.05


class LLMError(Exception):
    """The request failed for good (after the SDK's retries), or the answer was unusable."""


class LLMCancelled(Exception):
    pass


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True)
class Reply:
    text: str
    tool_calls: tuple[ToolCall, ...]
    stop_reason: str
    content: tuple[Mapping[str, Any], ...]  # the assistant turn, to send back in the next request
    usage: Any = None  # the API's usage object; priced by the caller
    model: str = ""


@dataclass(frozen=True)
class Request:
    system: Sequence[Mapping[str, Any]]
    messages: Sequence[Mapping[str, Any]]
    max_tokens: int
    tools: Sequence[Mapping[str, Any]] = ()
    tool_choice: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


def reply_from_message(msg: Any) -> Reply:
    texts: list[str] = []
    calls: list[ToolCall] = []
    content: list[Mapping[str, Any]] = []
    for block in getattr(msg, "content", None) or ():
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
            if block.text:  # the API refuses empty text blocks when they are sent back
                content.append({"type": "text", "text": block.text})
        elif kind == "tool_use":
            data = block.input if isinstance(block.input, dict) else {}
            calls.append(ToolCall(block.id, block.name, data))
            content.append({"type": "tool_use", "id": block.id, "name": block.name, "input": data})
    return Reply("\n".join(texts), tuple(calls), getattr(msg, "stop_reason", None) or "", tuple(content),
                 getattr(msg, "usage", None), getattr(msg, "model", "") or "")


class ModelClient:
    def __init__(self, settings: LLMSettings, api_key: str, cancelled: Callable[[], bool] = lambda: False) -> None:
        self.settings = settings
        self._api_key = api_key
        self._cancelled = cancelled
        self._stop = threading.Event()
        self._sdk: Any = None
        self._errors: tuple[type[BaseException], ...] = ()
        self._lock = threading.Lock()

    def _client(self) -> Any:
        with self._lock:
            if self._sdk is None:
                import anthropic  # lazy: keeps the language server's start-up fast

                kwargs: dict[str, Any] = {"api_key": self._api_key, "max_retries": self.settings.max_retries,
                                          "timeout": self.settings.timeout_seconds}
                if self.settings.base_url:
                    kwargs["base_url"] = self.settings.base_url
                self._sdk = anthropic.Anthropic(**kwargs)
                self._errors = (anthropic.APIError,)
            return self._sdk

    def stopped(self) -> bool:
        return self._stop.is_set() or self._cancelled()

    def cancel(self) -> None:
        """Stop the request in flight (if any) and refuse new ones."""
        self._stop.set()
        self.close()

    def close(self) -> None:
        with self._lock:
            sdk, self._sdk = self._sdk, None
        if sdk is not None:
            try:
                sdk.close()
            except Exception:  # closing under a reader thread may raise; the request is abandoned anyway
                log.debug("closing the model client raised", exc_info=True)

    def call(self, request: Request) -> Reply:
        if self.stopped():
            raise LLMCancelled("cancelled")
        client = self._client()
        box: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["reply"] = self._send(client, request)
            except BaseException as e:  # handed to the caller's thread
                box["error"] = e
            finally:
                done.set()

        threading.Thread(target=work, name="fixloop-llm-request", daemon=True).start()
        while not done.wait(POLL_SECONDS):
            if self.stopped():
                self.cancel()
                raise LLMCancelled("cancelled while waiting for the model")
        if "error" in box:
            raise self._translate(box["error"])
        return box["reply"]

    def _send(self, client: Any, r: Request) -> Reply:
        kwargs: dict[str, Any] = {"model": self.settings.model, "max_tokens": r.max_tokens,
                                  "system": list(r.system), "messages": list(r.messages), **r.extra}
        if r.tools:
            kwargs["tools"] = list(r.tools)
        if r.tool_choice:
            kwargs["tool_choice"] = dict(r.tool_choice)
        if not self.settings.stream:
            return reply_from_message(client.messages.create(**kwargs))
        with client.messages.stream(**kwargs) as stream:
            for _event in stream:
                if self.stopped():
                    raise LLMCancelled("cancelled during the stream")
            return reply_from_message(stream.get_final_message())

    def _translate(self, e: BaseException) -> BaseException:
        if isinstance(e, LLMCancelled) or self.stopped():
            return LLMCancelled("cancelled")
        if self._errors and isinstance(e, self._errors):
            status = getattr(e, "status_code", None)
            detail = str(e).splitlines()[0][:300] if str(e) else type(e).__name__
            where = f"HTTP {status}: " if status else ""
            return LLMError(f"the model request failed ({type(e).__name__}, {where}{detail})")
        if isinstance(e, (ValueError, TypeError, KeyError, AssertionError)):
            # Malformed answers surface as parsing errors inside the SDK.
            return LLMError(f"the model's answer could not be read ({type(e).__name__}: {str(e)[:300]})")
        return e
