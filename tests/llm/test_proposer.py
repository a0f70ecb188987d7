"""The proposer on its own (no test runs): round limits, reflection fallbacks, lessons in the prompt."""

from __future__ import annotations

from typing import Any

import pytest

from fixloop.core.model import Attempt, FileChange, Lesson, Patch
from fixloop.core.model import TestReport as Report
from fixloop.core.model import TestResult as Result
from fixloop.core.ports import ProposalContext

from .fake_anthropic import FakeAnthropic, message, text, tool_use
from .harness import llm_proposer
from .scripted import AVERAGE_PROJECT, kind_of

FAILING = Result("test_calc.py::test_empty", "failed", exc_type="ZeroDivisionError", message="division by zero")


def context(**kw: Any) -> ProposalContext:
    return ProposalContext(dict(AVERAGE_PROJECT), Report((FAILING,)), (FAILING.nodeid,),
                           is_test_file=lambda p: p.startswith("test_"), **kw)


def test_a_model_that_only_looks_is_stopped_by_the_round_limit(fake: FakeAnthropic) -> None:
    def answer(body: dict) -> dict:
        if kind_of(body) == "plan":
            return message(text("Hypothesis: unknown"))
        return message(tool_use("view_file", {"path": "calc.py"}))

    fake.fallback = answer
    llm = llm_proposer(fake.url, max_tool_rounds=4)
    assert list(llm.propose(context())) == []
    assert len(fake.messages_requests()) == 1 + 4 + 4  # plan, then two candidates of four turns each
    last = fake.messages_requests()[4].body["messages"][-1]["content"]
    assert last[-1]["text"].startswith("Model turns left for this candidate: 1.")
    assert any("no usable new candidate" in n for n in llm.notes)
    assert llm.usage().llm_calls == 9


@pytest.mark.parametrize("answer,expected", [
    (message(tool_use("record_reflection", {"root_cause": "off by one", "location": "calc.py:3",
                                            "strategy": "use len", "confidence": 3})), ("off by one", "calc.py:3", 1.0)),
    (message(text('Here: {"root_cause": "empty list", "location": "calc.py:3", "strategy": "guard", '
                  '"confidence": 0.4}')), ("empty list", "calc.py:3", 0.4)),
    (message(text("The divisor is zero for an empty list.")), ("The divisor is zero for an empty list.", "", 0.0)),
])
def test_reflection_from_a_tool_call_json_text_or_prose(fake: FakeAnthropic, answer: dict,
                                                        expected: tuple[str, str, float]) -> None:
    fake.push(answer)
    llm = llm_proposer(fake.url)
    patch = Patch((FileChange("calc.py", AVERAGE_PROJECT["calc.py"], AVERAGE_PROJECT["calc.py"] + "\n"),), "llm", "edit")
    r = llm.reflect(Attempt(1, patch, "failed", report=Report((FAILING,))), context())
    assert r is not None and (r.root_cause, r.location, r.confidence) == expected
    body = fake.messages_requests()[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "record_reflection"}


def test_other_proposers_attempts_are_not_reflected_on(fake: FakeAnthropic) -> None:
    patch = Patch((FileChange("calc.py", "a", "b"),), "mutation", "comparison_swap")
    assert llm_proposer(fake.url).reflect(Attempt(1, patch, "failed"), context()) is None
    assert fake.requests == []


def test_lessons_from_memory_reach_the_prompt(fake: FakeAnthropic) -> None:
    fake.push(message(text("Hypothesis: as in the lesson")))
    lesson = Lesson("ZeroDivisionError @ calc.py:average", "a guard for the empty list fixed it",
                    "+    if not values:\n+        return 0.0", similarity=0.93, outcome="fixed")
    llm = llm_proposer(fake.url)
    gen = llm.propose(context(lessons=(lesson,)))
    with pytest.raises(StopIteration):
        next(gen)  # the plan is made, then the script is exhausted: the model stops with a note
    case = fake.messages_requests()[0].body["messages"][0]["content"][0]["text"]
    assert "a guard for the empty list fixed it" in case and "+        return 0.0" in case
    assert any("model stopped" in n for n in llm.notes)
