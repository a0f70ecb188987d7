"""A real fix run (real pytest on a scratch copy, real store): the failure and the fix link to the fixed
function, and the coverage the localizer recorded becomes test -> function edges of the graph."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from fixloop.application.config import MemorySettings, Settings
from fixloop.application.run import RunRequest
from fixloop.core.model import Status
from fixloop.adapters.graph.memory import GraphMemory
from fixloop.adapters.graph.factory import make_memory
from fixloop.application.session import FixSession

PROJECT = {
    "shop/__init__.py": "",
    "shop/price.py": "BULK = 10\n\n\ndef line_total(unit: float, qty: int) -> float:\n    if qty > BULK:\n"
                     "        return discounted(unit * qty)\n    return round(unit * qty, 2)\n\n\n"
                     "def discounted(amount: float) -> float:\n    return round(amount * 0.9, 2)\n",
    "tests/test_price.py": "from shop import price\n\n\ndef test_bulk_from_ten():\n"
                           "    assert price.line_total(1.0, 10) == 9.0\n\n\ndef test_big():\n"
                           "    assert price.line_total(1.0, 20) == 18.0\n",
}


@pytest.mark.e2e  # a whole fix session
def test_a_run_links_its_rows_and_records_coverage_edges(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for name, text in PROJECT.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    uri = str(tmp_path / "memory")
    settings = dataclasses.replace(Settings(), offline=True, sandbox=dataclasses.replace(Settings().sandbox, backend="none"),
                                   memory=MemorySettings(uri=uri))
    outcome = FixSession(RunRequest(ws, settings)).run()
    assert outcome.status is Status.FIXED
    memory = make_memory(MemorySettings(uri=uri), ws)
    assert isinstance(memory, GraphMemory)
    assert {r["entity"] for r in memory.store.rows("failures")} == {"shop.price::line_total"}
    assert {r["entity"] for r in memory.store.rows("fixes")} == {"shop.price::line_total"}
    graph = memory.code_graph()
    assert graph is not None
    # `discounted` is reached only through line_total: no test calls it, the recorded coverage says who ran it
    assert graph.tests_of("shop.price::discounted") == ["tests.test_price::test_big"]
    assert "tests.test_price::test_bulk_from_ten" in graph.tests_of("shop.price::line_total")
    assert graph.coverage["tests.test_price::test_big"] == {"shop.price::line_total", "shop.price::discounted"}
