"""The graph's tables in a real LanceDB memory store: built when missing, loaded after, one saved file
rewritten alone; an older, corrupt or newer graph is rebuilt (or refused) with a message, the memory kept."""

from __future__ import annotations

from pathlib import Path

import lancedb
import pytest

from fixloop.adapters.graph.store import GRAPH_SCHEMA_VERSION, GraphRefused, GraphStore

from .conftest import PRICING, open_memory


def _failure_rows(memory) -> None:
    memory.store.add("failures", [{"id": f"f{i}", "project": memory.project, "time": 1.0, "text": f"boom {i}",
                                   "entity": "shop.pricing::apply_discount"} for i in range(3)])


def test_built_from_the_workspace_when_missing_then_loaded(workspace: Path, store_uri: str) -> None:
    memory = open_memory(store_uri, workspace)
    graph = memory.code_graph()
    assert graph is not None and graph.tests_of("shop.pricing::apply_discount") == ["tests.test_pricing::test_bulk"]
    assert graph.callers("shop.pricing::apply_discount") == ["shop.pricing::checkout", "tests.test_pricing::test_bulk"]
    stored = GraphStore(memory.store).tables()["graph_entities"].count_rows()
    assert stored == len(graph.links().by_id) == 6
    # A new process loads it from the store; a file deleted meanwhile is dropped, a new one indexed.
    (workspace / "shop" / "extra.py").write_text("def extra():\n    pass\n")
    again = open_memory(store_uri, workspace).code_graph()
    assert again is not None and again.entity("shop.extra::extra") is not None
    assert again.callers("shop.pricing::apply_discount") == ["shop.pricing::checkout", "tests.test_pricing::test_bulk"]


def test_a_saved_file_is_reindexed_alone_and_persisted(workspace: Path, store_uri: str) -> None:
    memory = open_memory(store_uri, workspace)
    assert memory.code_graph() is not None
    changed = PRICING + "\n\ndef refund(price):\n    return apply_discount(price, 1)\n"
    memory.file_saved("shop/pricing.py", changed)
    assert memory.code_graph().callers("shop.pricing::apply_discount") == [  # type: ignore[union-attr]
        "shop.pricing::checkout", "shop.pricing::refund", "tests.test_pricing::test_bulk"]
    memory.file_saved("shop/pricing.py", "def apply_discount(:\n")  # does not parse: the last good index stays
    reloaded = open_memory(store_uri, workspace)
    # (the workspace file on disk is still the old one: a reload re-indexes what changed on disk)
    graph = GraphStore(reloaded.store).load(str(workspace))[0]
    assert "shop.pricing::refund" in {e.id for e in graph["shop/pricing.py"].entities}
    assert not memory.problem


def test_an_older_graph_is_rebuilt_with_a_message_and_the_memory_kept(workspace: Path, store_uri: str) -> None:
    memory = open_memory(store_uri, workspace)
    _failure_rows(memory)
    db = lancedb.connect(store_uri)
    db.create_table("graph_meta", data=[{"key": "schema_version", "value": str(GRAPH_SCHEMA_VERSION - 1)}])
    db.create_table("graph_entities", data=[{"project": "x", "id": "old", "kind": "function"}])
    fresh = open_memory(store_uri, workspace)
    graph = fresh.code_graph()
    assert graph is not None and graph.entity("shop.pricing::apply_discount") is not None
    assert any("schema version 0" in n and "rebuilt" in n for n in fresh.notes), fresh.notes
    assert fresh.store.count("failures") == 3
    assert "digest" in lancedb.connect(store_uri).open_table("graph_entities").schema.names


def test_a_corrupt_graph_table_is_rebuilt_and_nothing_else_lost(workspace: Path, store_uri: str) -> None:
    memory = open_memory(store_uri, workspace)
    _failure_rows(memory)
    assert memory.code_graph() is not None
    data = sorted((Path(store_uri) / "graph_entities.lance" / "data").glob("*.lance"))
    assert data
    for f in data:
        f.write_bytes(b"this is not a lance file")
    fresh = open_memory(store_uri, workspace)
    graph = fresh.code_graph()
    assert graph is not None and graph.entity("shop.pricing::checkout") is not None
    assert any("could not be read" in n for n in fresh.notes), fresh.notes
    assert fresh.store.count("failures") == 3 and fresh.store.count("failures", "entity != ''") == 3


def test_a_newer_graph_is_left_alone_and_the_graph_is_off(workspace: Path, store_uri: str) -> None:
    memory = open_memory(store_uri, workspace)
    assert memory.code_graph() is not None
    db = lancedb.connect(store_uri)
    db.open_table("graph_meta").update(where="key = 'schema_version'", values={"value": str(GRAPH_SCHEMA_VERSION + 1)})
    fresh = open_memory(store_uri, workspace)
    assert fresh.code_graph() is None
    assert any("newer" in n for n in fresh.notes), fresh.notes
    assert db.open_table("graph_entities").count_rows() == 6  # not dropped
    with pytest.raises(GraphRefused):
        GraphStore(fresh.store).tables()
    assert not fresh.problem  # the memory itself works on
    assert "No failures of `apply_discount` remembered" in fresh.entity_hover("shop/pricing.py", PRICING, 4)
    fresh.file_saved("shop/pricing.py", PRICING + "\n\ndef more():\n    pass\n")
    assert db.open_table("graph_entities").count_rows() == 6
