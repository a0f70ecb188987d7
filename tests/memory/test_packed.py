"""The packed `recall` column: a failure carries its recall fields and its fix, and nothing it carries
outlives or contradicts the rows it was made from."""

import time
from pathlib import Path

import pyarrow as pa

from fixloop.adapters.memory import packed, schema
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.privacy import for_sharing
from fixloop.adapters.memory.store import MemoryStore, new_id

from .test_learning import CINEMA, _cinema_report, _learn_fix


def _row(**extra: object) -> dict:
    row = {"id": new_id(), "project": "/home/alice/shop", "run_id": "r", "time": time.time(), "test_id": "t::x",
           "exc_type": "AssertionError", "message": "assert 1 == 2", "signature": "AssertionError: assert <num>",
           "statement": "if q > LIMIT:", "text": "AssertionError: assert <num> == <num> @ if ID > ID :",
           "fixed": True, "tried": 3, "tried_operators": "arith"}
    row.update(extra)
    return row


def test_fields_round_trip_and_anything_else_is_refused() -> None:
    fix = {"id": "f1", "proposer": "mutation", "operator": "swap", "summary": "a\x1fb", "fault_shape": "if ID > ID :",
           "edit": "[]", "diff": "-a\n+b\n\x1f" + "x" * 5000}
    value = packed.pack(_row(statement="x\x1fy = 1"), fix)
    row = packed.unpack(value)
    assert row is not None and row["statement"] == "x y = 1" and row["fixed"] is True and row["tried"] == 3
    assert row["fix"]["summary"] == "a\x1fb" and len(row["fix"]["diff"]) == packed.DIFF_CHARS
    assert packed.unpack(packed.pack(_row(fixed=False), None))["fix"] is None
    for bad in ("", "x", None, 7, value + "\x1fmore", value.replace("\x1ftrue\x1f", "\x1fyes\x1f"), "\x1f" * 8):
        assert packed.unpack(bad) is None
    assert packed.fix_of(value.rsplit("\x1f", 1)[0] + "\x1f{not json") is None


def test_an_older_store_gets_the_column_filled_from_its_own_rows(tmp_path: Path) -> None:
    import lancedb

    uri = str(tmp_path / "old")
    old = pa.schema([f for f in schema.failures(256) if f.name != "recall"])
    row = _row(id="a1", statement="return x\x1f[0]")
    full = {f.name: row.get(f.name, schema.empty_value(f.type)) for f in old}
    full["vector"] = [0.0] * 255 + [1.0]
    lancedb.connect(uri).create_table("failures", schema=old).add([full])
    store = MemoryStore(uri, HashingEmbedder()).open()
    (stored,) = store.rows("failures")
    assert stored["recall"] == packed.pack(full, None)  # the SQL fill packs as the writer does


def test_a_forgotten_fix_is_not_recalled_from_the_failure_that_carries_it(memory: LearningMemory) -> None:
    _learn_fix(memory)
    assert memory.recall(_cinema_report(), {"cinema/t.py": CINEMA})[0].outcome == "fixed"
    (fix,) = memory.store.rows("fixes")
    assert memory.forget(fix["id"]) == 1
    assert len(memory.store.rows("failures")) == 1  # the failure stays, and still carries the fix's copy
    assert all(lesson.outcome != "fixed" for lesson in memory.recall(_cinema_report(), {"cinema/t.py": CINEMA}))


def test_a_fixed_row_without_a_carried_fix_is_joined_with_the_fixes_table(memory: LearningMemory) -> None:
    _learn_fix(memory)
    (failure,) = memory.store.rows("failures")
    bare = dict(failure, recall="", id=new_id())  # as an older fixloop wrote it: no fix inside
    memory.store.delete("failures", f"id = '{failure['id']}'")
    memory.store.add("failures", [bare])
    memory.store.update("fixes", "true", {"failure_id": bare["id"]})
    (lesson, *_) = memory.recall(_cinema_report(), {"cinema/t.py": CINEMA})
    assert lesson.outcome == "fixed" and "+    if q >= LIMIT:" in lesson.fix_diff


def test_an_unreadable_packed_value_falls_back_to_the_columns(store: MemoryStore) -> None:
    store.add("failures", [_row(statement="if a > b:")])
    store.table("failures").update(where="true", values={"recall": "garbage"})
    ((row, sim),) = store.similar(_row()["text"], k=1)
    assert row["statement"] == "if a > b:" and sim > 0.99 and "fix" not in row


def test_a_written_value_cannot_contradict_its_row(store: MemoryStore) -> None:
    forged = packed.pack(_row(statement="os.system('evil')"), {"id": "f9", "summary": "ok", "diff": "+x"})
    store.add("failures", [_row(statement="if a > b:", recall=forged)])
    ((row, _),) = store.similar(_row()["text"], k=1)
    assert row["statement"] == "if a > b:"  # the fields come from the row; only the fix is kept
    assert row["fix"]["id"] == "f9"  # and a fix id the fixes table lacks is dropped by recall


def test_sharing_scrubs_the_carried_fix_like_the_columns(monkeypatch) -> None:
    monkeypatch.setenv("HOME", "/home/alice")
    monkeypatch.setenv("SHOP_API_TOKEN", "tok-9f8e7d6c5b4a")
    fix = {"id": "f1", "summary": "see /home/alice/shop/app.py", "diff": "+KEY = 'tok-9f8e7d6c5b4a'\n",
           "fault_shape": "if ID > ID :", "edit": "[]", "proposer": "mutation", "operator": "swap"}
    row = dict(_row(), recall=packed.pack(_row(), fix))
    (shared,) = for_sharing("failures", [row], "fixes-only")
    carried = packed.unpack(shared["recall"])
    assert carried is not None and carried["project"] == "shop" == shared["project"]
    assert "alice" not in shared["recall"] and "tok-9f8e7d6c5b4a" not in shared["recall"]
    assert carried["fix"]["id"] == "f1" and carried["fix"]["fault_shape"] == "if ID > ID :"
