"""The real anthropic SDK against the scripted server: both answer modes, retries, errors, cancellation."""

from __future__ import annotations

import threading
import time

import pytest

from fixloop.application.config import LLMSettings
from fixloop.adapters.llm.client import LLMCancelled, LLMError, ModelClient, Request

from .fake_anthropic import Error, FakeAnthropic, Malformed, Slow, StreamError, message, overloaded, rate_limited, text, tool_use


def client_for(fake: FakeAnthropic, stream: bool, **kw: object) -> ModelClient:
    settings = LLMSettings(base_url=fake.url, stream=stream, model="fake-model", **kw)  # type: ignore[arg-type]
    return ModelClient(settings, "test-key")


REQ = Request(system=[{"type": "text", "text": "sys"}], messages=[{"role": "user", "content": "hi"}], max_tokens=100)


@pytest.mark.parametrize("stream", [False, True])
def test_text_and_tool_use_blocks_come_back(fake: FakeAnthropic, stream: bool) -> None:
    fake.push(message(text("looking"), tool_use("view_file", {"path": "calc.py"}, "toolu_a"), input_tokens=50,
                      output_tokens=7, cache_read=30, cache_write=5))
    reply = client_for(fake, stream).call(REQ)
    assert reply.text == "looking"
    assert [(c.id, c.name, dict(c.input)) for c in reply.tool_calls] == [("toolu_a", "view_file", {"path": "calc.py"})]
    assert reply.stop_reason == "tool_use"
    assert reply.usage.input_tokens == 50 and reply.usage.output_tokens == 7
    assert reply.usage.cache_read_input_tokens == 30
    sent = fake.messages_requests()[0]
    assert sent.headers["authorization"] == "Bearer test-key"
    assert sent.body.get("stream", False) is stream


@pytest.mark.parametrize("stream", [False, True])
def test_retries_on_429_and_529_then_success(fake: FakeAnthropic, stream: bool) -> None:
    fake.push(rate_limited(), overloaded(), message(text("ok")))
    reply = client_for(fake, stream, max_retries=2).call(REQ)
    assert reply.text == "ok"
    counts = [r.headers.get("x-stainless-retry-count") for r in fake.messages_requests()]
    assert counts == ["0", "1", "2"]


def test_gives_up_after_the_configured_retries(fake: FakeAnthropic) -> None:
    fake.push(overloaded(), overloaded(), overloaded())
    with pytest.raises(LLMError, match="OverloadedError"):
        client_for(fake, False, max_retries=1).call(REQ)
    assert len(fake.messages_requests()) == 2


def test_bad_request_is_not_retried(fake: FakeAnthropic) -> None:
    fake.push(Error(400, "invalid_request_error", "bad tool schema"))
    with pytest.raises(LLMError, match="400"):
        client_for(fake, False).call(REQ)
    assert len(fake.messages_requests()) == 1


@pytest.mark.parametrize("stream", [False, True])
def test_malformed_json_is_an_error_not_a_crash(fake: FakeAnthropic, stream: bool) -> None:
    fake.push(Malformed())
    with pytest.raises(LLMError):
        client_for(fake, stream, max_retries=0).call(REQ)


@pytest.mark.serial  # measures wall time
def test_timeout_on_a_slow_answer(fake: FakeAnthropic) -> None:
    fake.push(Slow(message(text("late")), 3.0))
    t0 = time.monotonic()
    with pytest.raises(LLMError, match="Timeout"):
        client_for(fake, False, timeout_seconds=0.3, max_retries=0).call(REQ)
    assert time.monotonic() - t0 < 2.5


@pytest.mark.serial  # measures wall time
@pytest.mark.parametrize("stream", [False, True])
def test_cancel_stops_a_request_in_flight(fake: FakeAnthropic, stream: bool) -> None:
    fake.push(Slow(message(text("a long answer"), tool_use("view_file", {"path": "x.py"})), 2.0))
    client = client_for(fake, stream, timeout_seconds=10)
    cancelled_at: list[float] = []

    def cancel_once_asked() -> None:  # the request is in flight: the server has it and answers in 2 s
        deadline = time.monotonic() + 10
        while not fake.messages_requests() and time.monotonic() < deadline:
            time.sleep(0.01)
        cancelled_at.append(time.monotonic())
        client.cancel()

    threading.Thread(target=cancel_once_asked, daemon=True).start()
    with pytest.raises(LLMCancelled):
        client.call(REQ)
    assert cancelled_at and time.monotonic() - cancelled_at[0] < 1.2  # well before the answer would come
    with pytest.raises(LLMCancelled):  # a cancelled client makes no new request
        client.call(REQ)
    assert len(fake.messages_requests()) == 1


def test_the_runs_cancel_flag_stops_a_request(fake: FakeAnthropic) -> None:
    fake.push(Slow(message(text("late")), 2.0))
    flag = threading.Event()
    client = ModelClient(LLMSettings(base_url=fake.url, stream=False), "k", flag.is_set)
    threading.Timer(0.2, flag.set).start()
    with pytest.raises(LLMCancelled):
        client.call(REQ)


def test_an_error_event_in_the_middle_of_a_stream_is_an_error(fake: FakeAnthropic) -> None:
    fake.push(StreamError())
    with pytest.raises(LLMError, match="Overloaded"):
        client_for(fake, True).call(REQ)


def test_empty_text_blocks_are_not_sent_back(fake: FakeAnthropic) -> None:
    fake.push(message(text(""), tool_use("view_file", {"path": "a.py"})))
    reply = client_for(fake, True).call(REQ)
    assert [b["type"] for b in reply.content] == ["tool_use"]
