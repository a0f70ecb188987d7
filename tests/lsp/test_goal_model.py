"""Goal mode over LSP with the scripted Anthropic-compatible server: the model's question arrives as
window/showMessageRequest, its spec and reproduction test and the fix arrive in the run summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as t

from tests.llm.fake_anthropic import FakeAnthropic
from tests.llm.goal_model import ScriptedGoalModel
from tests.lsp.lsp_harness import ROOT, lsp, project

GOAL_SHOP = ROOT / "editors" / "shared" / "fixtures" / "goal_shop"
PRICING = "shop/pricing.py"


@pytest.mark.e2e  # a goal run: the test's check and a fix run in the sandbox (about 15-60 s, depending on load)
async def test_the_models_question_spec_test_and_the_fix_arrive_over_lsp(profile: str, tmp_path: Path) -> None:
    ws = project(tmp_path, source=GOAL_SHOP)
    model = ScriptedGoalModel()
    with FakeAnthropic() as fake:
        fake.fallback = model
        options = {"review": "client", "apiKey": "test-key-not-real",
                   "settings": {"sandbox": {"backend": "auto"}, "diagnostics": {"debounce_ms": 0},
                                "memory": {"enabled": False}, "llm": {"base_url": fake.url, "max_retries": 0}}}
        async with lsp(profile, ws, tmp_path, options=options) as s:
            asked: list[t.ShowMessageRequestParams] = []

            @s.client.feature(t.WINDOW_SHOW_MESSAGE_REQUEST)
            def on_question(ls: Any, params: t.ShowMessageRequestParams) -> t.MessageActionItem | None:
                asked.append(params)
                return params.actions[0] if params.actions else None

            uri = s.uri(PRICING)
            s.editor.open(uri, (ws / PRICING).read_text())
            started = await s.command("fixloop.fix", {"goal": "the bulk discount is applied one unit too late",
                                                      "uri": uri, "position": {"line": 15, "character": 4}})
            summary = await s.run_finished(started["run_id"], timeout=300)

            assert [(q.message, [a.title for a in q.actions or ()]) for q in asked] == [
                ("fixloop: Should an order line of exactly 10 units get the bulk discount?",
                 ["Yes, from 10 units on", "No, only above 10 units"])]
            assert summary["status"] == "fixed", summary.get("message")
            assert summary["questions"] == [{"id": "threshold", "text": asked[0].message.removeprefix("fixloop: "),
                                             "answer": "Yes, from 10 units on", "assumed": False}]
            assert summary["spec"]["expected"].startswith("line_total(1.0, 10) == 9.0")
            assert summary["spec"]["where"] == "shop/pricing.py::line_total"
            assert summary["test_origin"] == "model"
            test_file = summary["test_file"]
            assert test_file.startswith("tests/test_") and not (ws / test_file).exists()
            first, *rest = summary["hunks"]
            assert first["new_file"] is True and first["path"] == test_file
            assert "def test_bulk_discount_starts_at_ten_units" in first["new"]
            assert [h["path"] for h in rest] == [PRICING] and "quantity >= BULK_THRESHOLD" in rest[0]["new"]
            assert summary["tokens"] > 0 and summary["llm_calls"] >= 6  # the goal author's calls are counted
            # Each goal step went through its recording tool, after a look at the code.
            assert {"ask_questions", "write_spec", "write_test"} <= set(model.steps)
            assert model.steps.index("ask_questions") < model.steps.index("write_spec") < model.steps.index("write_test")

            rejected = await s.command("fixloop.reject", {"run_id": started["run_id"]})
            assert sorted(rejected["rejected"]) == sorted(h["id"] for h in summary["hunks"])
            assert not (ws / test_file).exists() and "quantity > BULK_THRESHOLD" in (ws / PRICING).read_text()


@pytest.mark.e2e
async def test_a_dismissed_question_cancels_the_goal_and_writes_nothing(profile: str, tmp_path: Path) -> None:
    ws = project(tmp_path, source=GOAL_SHOP)
    with FakeAnthropic() as fake:
        fake.fallback = ScriptedGoalModel()
        options = {"review": "client", "apiKey": "test-key-not-real",
                   "settings": {"memory": {"enabled": False}, "llm": {"base_url": fake.url, "max_retries": 0}}}
        async with lsp(profile, ws, tmp_path, options=options) as s:
            @s.client.feature(t.WINDOW_SHOW_MESSAGE_REQUEST)
            def on_question(ls: Any, params: t.ShowMessageRequestParams) -> None:
                return None  # the user closed the message

            started = await s.command("fixloop.fix", {"goal": "the bulk discount is applied one unit too late",
                                                      "uri": s.uri(PRICING), "position": {"line": 15, "character": 4}})
            summary = await s.run_finished(started["run_id"], timeout=120)
            assert summary["status"] == "cancelled" and "not answered" in summary["message"]
            assert not summary.get("hunks") and sorted(p.name for p in (ws / "tests").iterdir()) == ["test_pricing.py"]
