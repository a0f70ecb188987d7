from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fixloop.adapters.graph.memory import GraphMemory
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore

PRICING = ("LIMIT = 10\n\n\ndef apply_discount(price, q):\n    if q > LIMIT:\n        return price * 0.9\n"
           "    return price\n\n\ndef checkout(items):\n    return sum(apply_discount(p, q) for p, q in items)\n")
TESTS = ("from shop.pricing import apply_discount\n\n\ndef test_bulk():\n    assert apply_discount(10, 10) == 9\n")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "shop").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "shop" / "__init__.py").write_text("")
    (ws / "shop" / "pricing.py").write_text(PRICING)
    (ws / "tests" / "test_pricing.py").write_text(TESTS)
    return ws


@pytest.fixture
def store_uri(tmp_path: Path) -> str:
    return str(tmp_path / "memory")


def open_memory(uri: str, workspace: Path, now: float | None = None) -> GraphMemory:
    kwargs = {"now": (lambda: now)} if now is not None else {}
    return GraphMemory(MemoryStore(uri, HashingEmbedder()), str(workspace), workspace, 2,
                       rng=np.random.default_rng(7), **kwargs)
