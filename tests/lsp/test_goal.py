"""Goal mode over LSP: `fixloop.fix` with `goal`, a question answered through window/showMessageRequest,
and the run summary holding the new test file's hunk and the fix (the real server over stdio)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException

from tests.lsp.lsp_harness import lsp

NO_MEMORY = {"settings": {"sandbox": {"backend": "auto"}, "diagnostics": {"debounce_ms": 0},
                          "memory": {"enabled": False}}}
RATES = '''def discount(qty):
    """The bulk discount rate: 10% from 10 items on.

    >>> discount(10)
    0.1
    >>> discount(3)
    0.0
    """
    if qty > 10:
        return 0.1
    return 0.0


def shipping(weight):
    """Shipping cost by weight.

    >>> shipping(2)
    5
    """
    return 5 if weight <= 5 else 9
'''


def goal_project(tmp_path: Path) -> Path:
    ws = tmp_path / "goal_ws"
    (ws / "shop").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "shop" / "__init__.py").write_text("")
    (ws / "shop" / "rates.py").write_text(RATES)
    (ws / "tests" / "test_shipping.py").write_text(
        "from shop.rates import shipping\n\n\ndef test_heavy():\n    assert shipping(8) == 9\n")
    return ws


@pytest.mark.e2e  # a whole goal run: the test's verification, then a fix run in the sandbox
async def test_goal_asks_which_function_then_offers_the_test_and_the_fix(profile: str, tmp_path: Path) -> None:
    ws = goal_project(tmp_path)
    asked: list[t.ShowMessageRequestParams] = []
    async with lsp(profile, ws, tmp_path, options=NO_MEMORY) as s:
        @s.client.feature(t.WINDOW_SHOW_MESSAGE_REQUEST)
        def answer(ls: Any, params: t.ShowMessageRequestParams) -> t.MessageActionItem:
            asked.append(params)
            return t.MessageActionItem(title="shop/rates.py::discount")

        # Two functions have docstring examples and the words name neither: a question.
        started = await s.command("fixloop.fix", {"goal": "make it match its docstring"})
        summary = await s.run_finished(started["run_id"], timeout=240)
        assert len(asked) == 1 and asked[0].message == "fixloop: Which function is the goal about?"
        assert {a.title for a in asked[0].actions or []} == {"shop/rates.py::discount", "shop/rates.py::shipping"}
        assert summary["status"] == "fixed", summary
        assert summary["test_file"] == "tests/test_discount_goal.py"
        assert summary["spec"]["where"] == "shop/rates.py::discount"
        assert summary["questions"] == [{"id": "target", "text": "Which function is the goal about?",
                                         "answer": "shop/rates.py::discount", "assumed": False}]
        first, *fix = summary["hunks"]
        assert first["new_file"] is True and first["path"] == "tests/test_discount_goal.py"
        assert first["old"] == "" and "assert discount(10) == 0.1" in first["new"]
        assert [h["path"] for h in fix] == ["shop/rates.py"] and "qty >= 10" in fix[0]["new"]
        # Nothing is written before review: the test editor applies the offered edit as soon as it arrives (so the
        # file may exist by now), and its CreateFile fails on a file that existed, which would leave the hunk
        # unaccepted below.

        await s.until(lambda: s.editor.edits, what="workspace/applyEdit", timeout=20)
        created = [c for c in s.editor.edits[0].edit.document_changes or [] if isinstance(c, t.CreateFile)]
        assert [c.uri for c in created] == [s.uri("tests/test_discount_goal.py")]
        assert created[0].options == t.CreateFileOptions(overwrite=False, ignore_if_exists=False)
        got = await s.settled_states(started["run_id"])
        assert got == {"tests/test_discount_goal.py#0": "accepted", "shop/rates.py#0": "accepted"}
        assert s.editor.text(s.uri("tests/test_discount_goal.py")) == first["new"]


async def test_goal_bad_input_is_refused_clearly(tmp_path: Path) -> None:
    ws = goal_project(tmp_path)
    async with lsp("visual-studio-code", ws, tmp_path, options=NO_MEMORY) as s:
        with pytest.raises(JsonRpcException, match="'goal' must say what is wrong"):
            await s.command("fixloop.fix", {"goal": "   "})
        with pytest.raises(JsonRpcException, match="'yes' must be true or false"):
            await s.command("fixloop.fix", {"goal": "fix discount", "yes": "please"})
        started = await s.command("fixloop.fix", {"goal": "`refund(3)` should be 2", "yes": True})
        summary = await s.run_finished(started["run_id"], timeout=60)
        assert summary["status"] == "error" and summary["goal_problem"] == "usage"
        assert "no function of that name" in summary["message"] and summary["hunks"] == []
        assert sorted(p.name for p in (ws / "tests").iterdir()) == ["test_shipping.py"]
