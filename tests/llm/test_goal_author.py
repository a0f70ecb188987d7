"""The Claude-backed goal author against the scripted Anthropic-compatible server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pytest

from fixloop.application.config import LLMSettings
from fixloop.core.model import Limits, Usage
from fixloop.core.goal import GoalAuthor, GoalContext, GoalRefused, Question, ReproTest, Spec, Target
from fixloop.adapters.llm.goal_author import ClaudeGoalAuthor

from .fake_anthropic import Error, FakeAnthropic, message, text, tool_use
from .goal_model import ScriptedGoalModel, step_of

PRICING = ("BULK_THRESHOLD = 10\n\n\n"
           "def line_total(unit_price, quantity):\n"
           "    \"\"\"Price of one order line; bulk orders get 10% off.\"\"\"\n"
           "    total = unit_price * quantity\n"
           "    if quantity > BULK_THRESHOLD:\n"
           "        total -= total * 0.1\n"
           "    return round(total, 2)\n")
SOURCES = {"shop/__init__.py": "", "shop/pricing.py": PRICING,
           "tests/test_pricing.py": "from shop.pricing import line_total\n\n\ndef test_small():\n    assert line_total(2.0, 3) == 6.0\n"}
TARGET = Target("shop/pricing.py", "line_total", 4, 9, "shop.pricing", PRICING.split("\n\n\n", 1)[1],
                "Price of one order line; bulk orders get 10% off.", "line_total(unit_price, quantity)")


def goal_context(**kw: Any) -> GoalContext:
    base: dict[str, Any] = dict(goal="the bulk discount is applied one unit too late", workspace=Path("/nonexistent"),
                                sources=SOURCES, candidates=(TARGET,), cursor_path="shop/pricing.py", cursor_line=7,
                                test_path="tests/test_goal_line_total.py")
    base.update(kw)
    return GoalContext(**base)


class OfflineStandIn:
    """The fallback author's role, recorded: what the model author hands over when it cannot go on."""

    name = "offline"

    def __init__(self) -> None:
        self.called: list[str] = []

    def questions(self, ctx: GoalContext) -> Sequence[Question]:
        self.called.append("questions")
        return ()

    def spec(self, ctx: GoalContext) -> Spec:
        self.called.append("spec")
        return Spec(ctx.goal, "offline expected", "offline actual", TARGET.where, "line_total(1.0, 10) == 9.0", TARGET)

    def reproduction_test(self, spec: Spec, ctx: GoalContext, feedback: str = "") -> ReproTest:
        self.called.append("test")
        raise GoalRefused("nothing to build a test from: add a docstring example")

    def usage(self) -> Usage:
        return Usage()


def author(url: str, fallback: GoalAuthor | None = None, key: str = "test-key", **settings: Any) -> ClaudeGoalAuthor:
    limits = settings.pop("limits", Limits())
    offline = settings.pop("offline", False)
    llm = LLMSettings(base_url=url, model="fake-model", max_retries=settings.pop("max_retries", 0), **settings)
    return ClaudeGoalAuthor(llm, key, limits, fallback or OfflineStandIn(), offline=offline)


def test_the_author_implements_the_port() -> None:
    assert isinstance(author("http://127.0.0.1:9"), GoalAuthor)


def test_questions_spec_and_test_come_from_the_model_through_tools(fake: FakeAnthropic) -> None:
    model = ScriptedGoalModel()
    fake.fallback = model
    fallback = OfflineStandIn()
    a = author(fake.url, fallback)
    ctx = goal_context()

    questions = a.questions(ctx)
    assert [(q.id, q.choices, q.default) for q in questions] == [
        ("threshold", ("Yes, from 10 units on", "No, only above 10 units"), "Yes, from 10 units on")]
    answered = goal_context(answers={"threshold": "Yes, from 10 units on"})
    assert tuple(a.questions(answered)) == ()  # one round of questions: answered, the model is not asked again
    spec = a.spec(answered)
    assert spec.example == "line_total(1.0, 10) == 9.0" and spec.target == TARGET and spec.where == TARGET.where
    test = a.reproduction_test(spec, answered)
    assert test.path == "tests/test_goal_line_total.py" and test.origin == "model"
    assert test.tests == ("test_bulk_discount_starts_at_ten_units",) and "line_total(1.0, 10) == 9.0" in test.source

    assert fallback.called == []
    # Each step looked at the code first (a view_file round), then recorded its answer.
    assert model.steps == ["ask_questions", "ask_questions", "write_spec", "write_spec", "write_test", "write_test"]
    spec_request = fake.messages_requests()[2].body
    assert "threshold: Yes, from 10 units on" in spec_request["messages"][0]["content"][1]["text"]
    assert {t["name"] for t in spec_request["tools"]} == {"view_file", "module_outline", "search_symbol", "write_spec"}
    assert "replace_snippet" not in str([t["name"] for r in fake.messages_requests() for t in r.body["tools"]])
    # The project's code reaches the model only inside data blocks.
    case = spec_request["messages"][0]["content"][0]["text"]
    assert '<data kind="code">\nshop/pricing.py::line_total' in case
    assert a.usage().llm_calls == 6 and a.usage().tokens > 0


def test_no_questions_when_the_model_asks_none_and_answered_questions_are_not_asked_again(fake: FakeAnthropic) -> None:
    fake.push(message(text("No questions.")))
    assert tuple(author(fake.url).questions(goal_context())) == ()
    ask = {"questions": [{"id": "threshold", "text": "From 10?", "choices": ["yes", "no"]},
                         {"id": "Rounding mode!", "text": "Round?", "choices": ["cents", "none", "cents"]}]}
    fake.push(message(tool_use("ask_questions", ask)))
    qs = author(fake.url).questions(goal_context(answers={"threshold": "yes"}))
    assert [(q.id, q.choices) for q in qs] == [("rounding_mode", ("cents", "none"))]


def test_more_than_three_questions_or_a_question_without_choices_is_refused_to_the_model(fake: FakeAnthropic) -> None:
    four = {"questions": [{"text": f"q{i}?", "choices": ["a", "b"]} for i in range(4)]}
    fake.push(message(tool_use("ask_questions", four)),
              message(tool_use("ask_questions", {"questions": [{"text": "which?", "choices": ["only one"]}]})),
              message(tool_use("ask_questions", {"questions": [{"text": "which?", "choices": ["a", "b"]}]})))
    qs = author(fake.url).questions(goal_context())
    assert [q.text for q in qs] == ["which?"]
    second, third = fake.messages_requests()[1].body, fake.messages_requests()[2].body
    assert "ask at most 3 questions" in str(second["messages"][-1]["content"])
    assert "at least 2 `choices`" in str(third["messages"][-1]["content"])


@pytest.mark.parametrize("path, why", [
    ("shop/pricing.py", "not a test file name"),
    ("tests/conftest.py", "not a test file name"),
    ("tests/test_pricing.py", "already exists"),
    ("test_elsewhere.py", "outside the project's tests folder"),
    ("/tmp/test_x.py", "absolute"),
    ("tests/../shop/test_x.py", "leaves the project"),
    ("tests/test_other.py", "write the reproduction test to tests/test_goal_line_total.py"),
])
def test_write_test_refuses_anything_but_the_new_test_file(fake: FakeAnthropic, path: str, why: str) -> None:
    good = {"path": "tests/test_goal_line_total.py", "content": "def test_x():\n    assert 1 == 2\n"}
    fake.push(message(tool_use("write_test", {"path": path, "content": "def test_x():\n    assert False\n"})),
              message(tool_use("write_test", good)))
    spec = Spec("g", "e", "a", TARGET.where, "x", TARGET)
    test = author(fake.url).reproduction_test(spec, goal_context())
    assert test.path == "tests/test_goal_line_total.py" and test.tests == ("test_x",)
    refused = fake.messages_requests()[1].body["messages"][-1]["content"][0]
    assert refused["is_error"] and why in refused["content"]


def test_a_test_with_a_syntax_error_or_no_test_function_is_refused(fake: FakeAnthropic) -> None:
    path = "tests/test_goal_line_total.py"
    fake.push(message(tool_use("write_test", {"path": path, "content": "def test_x(:\n    pass\n"})),
              message(tool_use("write_test", {"path": path, "content": "def helper():\n    return 1\n"})),
              message(tool_use("write_test", {"path": path, "content": "def test_ok():\n    assert 1 + 1 == 3\n"})))
    test = author(fake.url).reproduction_test(Spec("g", "e", "a", "w", "x"), goal_context())
    assert test.tests == ("test_ok",)
    said = [str(r.body["messages"][-1]["content"]) for r in fake.messages_requests()[1:]]
    assert "syntax error" in said[0] and "no top-level test function" in said[1]


def test_a_refused_test_comes_back_with_the_reason_as_the_next_request_shows(fake: FakeAnthropic) -> None:
    model = ScriptedGoalModel()
    fake.fallback = model
    a = author(fake.url)
    spec = Spec("g", "line_total(1.0, 10) == 9.0", "a", TARGET.where, "line_total(1.0, 10) == 9.0", TARGET)
    first = a.reproduction_test(spec, goal_context())
    a.reproduction_test(spec, goal_context(), feedback="the test passed on the current code")
    retry = fake.messages_requests()[-2].body["messages"][0]["content"][1]["text"]
    assert "Your earlier reproduction test was refused" in retry
    assert first.source.splitlines()[0] in retry and "the test passed on the current code" in retry


def test_without_a_key_or_offline_the_offline_author_writes_everything_and_no_request_is_made(fake: FakeAnthropic) -> None:
    for a in (author(fake.url, key=""), author(fake.url, offline=True)):
        fallback = a.fallback
        assert isinstance(fallback, OfflineStandIn)
        assert tuple(a.questions(goal_context())) == ()
        assert a.spec(goal_context()).expected == "offline expected"
        with pytest.raises(GoalRefused, match="add a docstring example"):
            a.reproduction_test(a.spec(goal_context()), goal_context())
        assert fallback.called == ["questions", "spec", "spec", "test"]
        assert len(a.notes) == 1 and "offline author" in a.notes[0]
    assert fake.messages_requests() == []


def test_a_failing_endpoint_falls_back_to_the_offline_author_with_a_note(fake: FakeAnthropic) -> None:
    fake.fallback = lambda body: Error(500, "api_error", "down", {"x-should-retry": "false"})
    a = author(fake.url)
    assert a.spec(goal_context()).expected == "offline expected"
    assert any("model stopped" in n and "offline author" in n for n in a.notes)


def test_the_budget_is_the_runs_and_an_exhausted_one_falls_back(fake: FakeAnthropic) -> None:
    model = ScriptedGoalModel()
    fake.fallback = model
    a = author(fake.url, limits=Limits(max_tokens=100))  # one call of 120 tokens, then the budget is spent
    spec = a.spec(goal_context())
    assert spec.expected == "offline expected"
    assert len(model.steps) == 1 and a.usage().tokens == 120
    assert any("token budget of 100 exceeded" in n for n in a.notes)


def test_a_model_that_never_records_gives_way_to_the_offline_author_after_its_turns(fake: FakeAnthropic) -> None:
    fake.fallback = lambda body: message(tool_use("view_file", {"path": "shop/pricing.py"}))
    fallback = OfflineStandIn()
    a = author(fake.url, fallback, max_tool_rounds=3)
    assert a.spec(goal_context()).expected == "offline expected"
    assert len(fake.messages_requests()) == 3
    assert fake.messages_requests()[-1].body["tool_choice"] == {"type": "tool", "name": "write_spec"}
    assert fallback.called == ["spec"] and any("no usable spec" in n for n in a.notes)


def test_the_step_is_recognised_by_its_recording_tool() -> None:
    assert step_of({"tools": [{"name": "view_file"}, {"name": "write_test"}], "messages": []}) == "write_test"
    assert step_of({"tool_choice": {"type": "none"}, "messages": []}) == "plan"


def test_a_run_with_a_key_and_not_offline_gets_the_model_author_else_the_offline_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    from fixloop.application.config import Settings
    from fixloop.application.testgen.goal_offline import OfflineAuthor
    from fixloop.application.wiring import after_spending, make_goal_author

    keyed = Settings(llm=LLMSettings(api_key="k"))
    made = make_goal_author(keyed)
    assert isinstance(made, ClaudeGoalAuthor) and isinstance(made.fallback, OfflineAuthor)
    assert isinstance(make_goal_author(Settings()), OfflineAuthor)  # no key anywhere (the env is cleared)
    assert isinstance(make_goal_author(dataclasses.replace(keyed, offline=True)), OfflineAuthor)
    assert isinstance(make_goal_author(Settings(llm=LLMSettings(api_key="k", enabled=False))), OfflineAuthor)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    assert isinstance(make_goal_author(Settings()), ClaudeGoalAuthor)
    # What the author spent comes off the fix run's budget.
    left = after_spending(Settings(max_tokens=1000, max_cost_usd=1.0), Usage(3, 600, 0, 0, 0, 0.25))
    assert (left.max_tokens, left.max_cost_usd) == (400, 0.75)
    assert after_spending(keyed, Usage()) is keyed
