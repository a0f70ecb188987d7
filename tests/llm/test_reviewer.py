"""The reviewer role against the scripted Anthropic-compatible server: its own model, the coder's budget, a
rejection that makes the loop search on, a preference, and a review that cannot be had."""

from __future__ import annotations

from fixloop.core.model import Limits, Status, Usage
from fixloop.adapters.llm.cost import Meter
from fixloop.adapters.llm.reviewer import ModelReviewer
from fixloop.adapters.llm.settings import LLMSettings, RoleSettings, RolesSettings
from tests.core.test_loop import GOOD, _run
from tests.core.test_review import ALSO_GOOD, after
from tests.fakes import ScriptedProposer
from tests.llm.fake_anthropic import Error, FakeAnthropic, message, tool_use


def reviewer(url: str, meter: Meter) -> ModelReviewer:
    llm = LLMSettings(base_url=url, model="coder-model", stream=False, max_retries=0,
                      roles=RolesSettings(reviewer=RoleSettings(model="reviewer-model")))
    return ModelReviewer(llm, "test-key", meter)


def verdict(**answer: object) -> dict[str, object]:
    return message(tool_use("record_review", dict(answer)), input_tokens=300, output_tokens=40)


def test_a_rejection_by_the_reviewers_own_model_makes_the_loop_search_on() -> None:
    meter = Meter(Limits())
    with FakeAnthropic() as fake:
        fake.push(verdict(verdict="reject", reason="it only fits the test's input"),
                  verdict(verdict="accept", reason="fixes the cause"))
        outcome, events, _ = _run([ScriptedProposer([GOOD, ALSO_GOOD])], reviewer=reviewer(fake.url, meter))
        bodies = [r.body for r in fake.messages_requests()]
    assert outcome.status is Status.FIXED and after(outcome.patch) == ALSO_GOOD
    assert [(e.candidate, e.data["verdict"], e.data["by"]) for e in events if e.kind == "reviewed"] == [
        (1, "reject", "reviewer-model"), (2, "accept", "reviewer-model")]
    assert [b["model"] for b in bodies] == ["reviewer-model"] * 2  # its own model, not the coder's
    assert bodies[0]["tool_choice"] == {"type": "tool", "name": "record_review"}
    assert "The winning fix is candidate 1" in bodies[0]["messages"][0]["content"][0]["text"]
    assert meter.total.tokens == 2 * 340  # the coder's meter: one budget for every role


def test_the_reviewer_may_prefer_another_candidate_but_only_one_on_the_list() -> None:
    with FakeAnthropic() as fake:
        fake.push(verdict(verdict="prefer", candidate=1, reason="the guard also covers None"))
        outcome, _, _ = _run([ScriptedProposer([ALSO_GOOD, GOOD])], reviewer=reviewer(fake.url, Meter(Limits())))
    assert outcome.status is Status.FIXED and after(outcome.patch) == ALSO_GOOD
    with FakeAnthropic() as fake:
        fake.push(verdict(verdict="prefer", candidate=7, reason="a fix that does not exist"))
        outcome, events, _ = _run([ScriptedProposer([ALSO_GOOD, GOOD])], reviewer=reviewer(fake.url, Meter(Limits())))
    assert after(outcome.patch) == GOOD  # out of shape: the offline order stands, and says so
    (reviewed,) = [e for e in events if e.kind == "reviewed"]
    assert reviewed.data["by"] == "offline" and reviewed.data["reason"].startswith("no model review (its answer")


def test_a_review_that_cannot_be_had_never_blocks_the_fix() -> None:
    with FakeAnthropic() as fake:
        fake.push(Error(500, "api_error", "down", {"x-should-retry": "false"}))
        outcome, events, _ = _run([ScriptedProposer([GOOD])], reviewer=reviewer(fake.url, Meter(Limits())))
    assert outcome.status is Status.FIXED and after(outcome.patch) == GOOD
    (reviewed,) = [e for e in events if e.kind == "reviewed"]
    assert reviewed.data["verdict"] == "accept" and "no model review (the model request failed" in reviewed.data["reason"]
    spent = Meter(Limits(max_tokens=10))
    spent.add(Usage(llm_calls=1, input_tokens=11))  # what the coder already spent
    with FakeAnthropic() as fake:
        outcome, events, _ = _run([ScriptedProposer([GOOD])], reviewer=reviewer(fake.url, spent))
        assert not fake.messages_requests()  # the budget is spent: no call at all
    assert outcome.status is Status.FIXED
