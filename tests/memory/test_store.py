import os
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest

from fixloop.adapters.memory import schema
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore, StoreUnavailable, new_id


def failure(text: str, **extra) -> dict:
    row = {"id": new_id(), "project": "p", "run_id": "r", "time": time.time(), "test_id": "t::x",
           "exc_type": "AssertionError", "message": text, "signature": text, "text": text, "fixed": False}
    row.update(extra)
    return row


def test_rows_are_written_searched_and_redacted(store: MemoryStore) -> None:
    store.add("failures", [failure("AssertionError: assert <num> == <num> @ if ID > ID :"),
                           failure("KeyError: <str> @ return ID [ ID ] password=hunter22", exc_type="KeyError")])
    (best, sim), _ = store.similar("AssertionError: assert <num> == <num> @ if ID >= ID :", k=2)
    assert best["exc_type"] == "AssertionError" and 0.6 < sim <= 1.0001
    stored = store.rows("failures", "exc_type = 'AssertionError'")
    assert len(stored) == 1 and stored[0]["tried"] == 0  # columns not given get their default
    assert all("hunter22" not in str(r) for r in store.rows("failures"))
    assert store.meta() == {"schema_version": str(schema.SCHEMA_VERSION), "embedder": "hashing-v1-256"}


def test_an_older_layout_is_migrated_on_open(tmp_path: Path) -> None:
    import lancedb

    uri = str(tmp_path / "old")
    db = lancedb.connect(uri)
    old_fixes = pa.schema([f for f in schema.FIXES if f.name not in ("decision", "edit")])
    db.create_table("fixes", schema=old_fixes).add([{n: ("x" if t == pa.string() else (1.0 if t == pa.float64() else True))
                                                     for n, t in zip(old_fixes.names, old_fixes.types)}])
    store = MemoryStore(uri, HashingEmbedder()).open()
    row = store.rows("fixes")[0]
    assert row["decision"] == "" and row["edit"] == "" and row["diff"] == "x"
    assert store.meta()["schema_version"] == str(schema.SCHEMA_VERSION)


def test_a_store_from_a_newer_version_is_refused_not_moved(tmp_path: Path) -> None:
    uri = str(tmp_path / "newer")
    store = MemoryStore(uri, HashingEmbedder()).open()
    store._set_meta({"schema_version": str(schema.SCHEMA_VERSION + 1)})
    with pytest.raises(StoreUnavailable, match="newer than this fixloop"):
        MemoryStore(uri, HashingEmbedder()).open()
    assert Path(uri).is_dir()


def test_a_changed_embedder_re_embeds_every_row(tmp_path: Path) -> None:
    uri = str(tmp_path / "m")
    MemoryStore(uri, HashingEmbedder(256)).open().add("failures", [failure("ValueError: bad @ x = ID")])
    store = MemoryStore(uri, HashingEmbedder(64)).open()
    (row, sim), = store.similar("ValueError: bad @ x = ID", k=1, columns=("id", "embedder"))
    assert sim > 0.99 and row["embedder"] == "hashing-v1-64"
    assert store.meta()["embedder"] == "hashing-v1-64"


def _corrupt_manifests(root: Path) -> None:
    for manifest in root.glob("failures.lance/_versions/*.manifest"):
        manifest.write_bytes(b"this is not a manifest" * 10)


@pytest.mark.parametrize("damage", ["manifests", "file_in_place"])
def test_a_corrupt_store_is_moved_aside_with_a_message(tmp_path: Path, damage: str) -> None:
    root = tmp_path / "memory"
    if damage == "manifests":
        MemoryStore(str(root), HashingEmbedder()).open().add("failures", [failure("x")])
        _corrupt_manifests(root)
    else:
        root.write_text("garbage")
    store = MemoryStore(str(root), HashingEmbedder()).open()
    assert "was moved to" in store.problem and "new, empty store" in store.problem
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("memory.corrupt-")]
    assert len(aside) == 1 and aside[0].exists()
    store.add("failures", [failure("y")])
    assert store.count("failures") == 1


def test_the_size_cap_evicts_unfixed_and_oldest_rows_first(tmp_path: Path) -> None:
    store = MemoryStore(str(tmp_path / "m"), HashingEmbedder(64), max_rows=20).open()
    store.add("failures", [failure(f"fixed {i}", fixed=True, time=1000.0 + i) for i in range(10)])
    store.add("failures", [failure(f"open {i}", time=2000.0 + i) for i in range(15)])
    removed = store.enforce_cap()
    assert removed == 25 - 18
    left = store.rows("failures", columns=["message", "fixed"])
    assert sum(r["fixed"] for r in left) == 10  # every fixed failure survived
    assert {r["message"] for r in left if not r["fixed"]} == {f"open {i}" for i in range(7, 15)}


def test_compaction_merges_versions_and_sweeps_crash_leftovers(store: MemoryStore) -> None:
    for i in range(6):
        store.add("failures", [failure(f"row {i}")])
    data = Path(store.uri) / "failures.lance" / "data"
    stale = data / ".tmp_orphan"
    stale.write_bytes(b"x" * 100)
    old = time.time() - 7200
    os.utime(stale, (old, old))
    fresh = data / ".tmp_fresh"
    fresh.write_bytes(b"y")
    fragments_before = store.table("failures").stats()["fragment_stats"]["num_fragments"]
    report = store.compact(build_index=False)
    assert report["removed_tmp_files"] == 1 and not stale.exists() and fresh.exists()
    assert store.table("failures").stats()["fragment_stats"]["num_fragments"] < fragments_before
    assert store.count("failures") == 6


def test_a_vector_index_is_built_past_the_threshold(tmp_path: Path) -> None:
    store = MemoryStore(str(tmp_path / "m"), HashingEmbedder(32), index_threshold=300).open()
    store.add("failures", [failure(f"ValueError: case {i} @ x = ID {i % 17}") for i in range(299)])
    assert store.ensure_index() is False
    store.add("failures", [failure("ValueError: one more")])
    assert store.ensure_index() is True
    assert store.table("failures").list_indices()
    assert store.similar("ValueError: case 5 @ x = ID 5", k=3)


def test_a_registered_migration_step_runs_once_on_an_older_store(tmp_path: Path, monkeypatch) -> None:
    uri = str(tmp_path / "m")
    MemoryStore(uri, HashingEmbedder()).open().add("failures", [failure("old row")])
    ran: list[object] = []

    def step_1_to_2(db) -> None:  # e.g. backfill a column from existing data
        ran.append(db.open_table("failures").count_rows())

    monkeypatch.setattr(schema, "SCHEMA_VERSION", 2)
    monkeypatch.setattr(schema, "MIGRATIONS", {1: step_1_to_2})
    store = MemoryStore(uri, HashingEmbedder()).open()
    assert ran == [1] and store.meta()["schema_version"] == "2"
    MemoryStore(uri, HashingEmbedder()).open()
    assert ran == [1]  # already at version 2: not again


def test_lookups_take_one_round_trip_and_answer_as_the_synchronous_builder(tmp_path: Path) -> None:
    """The pinned lancedb has the asynchronous table behind the synchronous one: lookups run on it
    (one round trip). Should an upgrade lose it, the synchronous builder answers, with the same rows."""
    store = MemoryStore(str(tmp_path / "m"), HashingEmbedder(32)).open()
    store.add("failures", [failure(f"ValueError: case {i} @ x = ID {i % 7}", fixed=i % 2 == 0) for i in range(40)])
    assert store._direct is not None
    direct = (store.similar("ValueError: case 5 @ x = ID 5", k=5, where="fixed = true"),
              store.rows("failures", "fixed = false", ["id", "message"], limit=7))
    store._direct = None
    fallback = (store.similar("ValueError: case 5 @ x = ID 5", k=5, where="fixed = true"),
                store.rows("failures", "fixed = false", ["id", "message"], limit=7))
    assert direct == fallback
    assert len(direct[0]) == 5 and all(row["id"] for row, _ in direct[0])
    assert len(direct[1]) == 7 and set(direct[1][0]) == {"id", "message"}


def test_threads_opening_one_store_at_once_open_it_once(tmp_path: Path) -> None:
    # A run opens its store in the background while the baseline runs; its first lookup may come meanwhile.
    MemoryStore(str(tmp_path / "m"), HashingEmbedder(64)).open().add("failures", [failure("kept")])
    opened: list[str] = []

    class Counting(MemoryStore):
        def _open_once(self) -> None:
            opened.append(threading.current_thread().name)
            time.sleep(0.2)  # every other thread arrives while this one opens
            super()._open_once()

    store = Counting(str(tmp_path / "m"), HashingEmbedder(64))
    seen: list[str] = []
    threads = [threading.Thread(target=lambda: seen.append(store.rows("failures")[0]["message"])) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(opened) == 1 and seen == ["kept"] * 4 and store.problem == ""
