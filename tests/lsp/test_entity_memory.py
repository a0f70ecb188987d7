"""The code graph in the editor, on a real memory store: a function whose tests keep failing gets a
warning on its name, a hover shows its history and neighbours, and a save re-indexes the file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
from lsprotocol import types as t
from tests.lsp.lsp_harness import lsp

from fixloop.core.model import Attempt, FileChange, Outcome, Patch, Status, Suspect
from fixloop.core.ports import ProposalContext
from fixloop.adapters.graph.memory import GraphMemory
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore
from tests.memory.conftest import failing_report

PRICING = ("LIMIT = 10\n\n\ndef apply_discount(price, q):\n    if q > LIMIT:\n        return price * 0.9\n"
           "    return price\n")
TESTS = "from shop.pricing import apply_discount\n\n\ndef test_bulk():\n    assert apply_discount(10, 10) == 9\n"
NODE = "tests/test_pricing.py::test_bulk"


def remember(uri: str, ws: Path) -> None:
    """Three runs on apply_discount, as a real memory stores them: one not fixed, two fixes rejected."""
    memory = GraphMemory(MemoryStore(uri, HashingEmbedder()), str(ws.resolve()), ws, 2, rng=np.random.default_rng(1))
    report = failing_report(NODE, "assert 10 == 9", "shop/pricing.py", 5)
    ctx = ProposalContext(sources={"shop/pricing.py": PRICING, "tests/test_pricing.py": TESTS}, baseline=report,
                          target_tests=(NODE,), suspects=(Suspect("shop/pricing.py", 5, 0.9),))
    patch = Patch((FileChange("shop/pricing.py", PRICING, PRICING.replace("q > LIMIT", "q >= LIMIT")),),
                  "mutation", "comparison_swap", "fix")
    for i in range(3):
        fixed = i > 0
        memory.record_outcome(Outcome(Status.FIXED if fixed else Status.GAVE_UP, f"run-{i}", "",
                                      patch if fixed else None, baseline=report, candidates_evaluated=1), ctx)
        if fixed:
            memory.record_decision(f"run-{i}", "shop/pricing.py#0", accepted=False)


@pytest.mark.e2e
async def test_entity_warning_hover_and_save(profile: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "shop").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "shop" / "__init__.py").write_text("")
    (ws / "shop" / "pricing.py").write_text(PRICING)
    (ws / "tests" / "test_pricing.py").write_text(TESTS)
    store = str(tmp_path / "memory")
    remember(store, ws)
    options = {"settings": {"sandbox": {"backend": "auto"}, "diagnostics": {"debounce_ms": 0},
                            "memory": {"uri": store}}}
    async with lsp(profile, ws, tmp_path, options=options) as s:
        uri = s.uri("shop/pricing.py")
        s.editor.open(uri, PRICING)

        def entity_warnings() -> list[t.Diagnostic]:
            return [d for d in s.client.diagnostics.get(uri, []) if d.code == "FL-M002"]

        [warning] = await s.until(entity_warnings, timeout=60, what="the entity-level warning")
        assert warning.source == "fixloop-memory" and warning.severity == t.DiagnosticSeverity.Warning
        assert warning.range == t.Range(start=t.Position(3, 4), end=t.Position(3, 18))
        assert warning.message == ("the tests of `apply_discount` failed 3 times in the last 30 days; "
                                   "2 fixes here were rejected")
        assert warning.data == {"entity": "shop.pricing::apply_discount"}
        actions = await s.client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), range=warning.range,
            context=t.CodeActionContext(diagnostics=[warning])))
        assert not [a for a in actions or [] if "past fix" in a.title]  # history, not a remembered fix

        hovered = await s.client.text_document_hover_async(t.HoverParams(
            text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(3, 8)))
        assert hovered is not None and isinstance(hovered.contents, t.MarkupContent)
        text = hovered.contents.value
        assert "`shop.pricing::apply_discount`" in text and "Failed 3 times (3 in the last 30 days)" in text
        assert "fixed twice" in text and "rejected 2" in text and "Tests: `tests.test_pricing::test_bulk`" in text
        assert await s.client.text_document_hover_async(t.HoverParams(
            text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(4, 8))) is None

        # a save re-indexes the file: the new caller shows in the hover (the file on disk is left as it was,
        # so only didSave can have brought it)
        changed = PRICING + "\n\ndef refund(price):\n    return apply_discount(price, 1)\n"
        s.editor.set_text(uri, changed)
        s.client.text_document_did_save(t.DidSaveTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=uri)))

        async def refund_listed() -> bool:
            again = await s.client.text_document_hover_async(t.HoverParams(
                text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(3, 8)))
            return again is not None and "`shop.pricing::refund`" in again.contents.value  # type: ignore[union-attr]

        for _ in range(100):
            if await refund_listed():
                break
            await asyncio.sleep(0.1)
        assert await refund_listed()
