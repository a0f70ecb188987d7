"""`fixloop memory ...` through the real typer app on a real store."""

import json
from pathlib import Path

from typer.testing import CliRunner

from fixloop.cli import app
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.store import MemoryStore

from .test_learning import _learn_fix

runner = CliRunner()


def _memory(uri: Path) -> LearningMemory:
    return LearningMemory(MemoryStore(str(uri), HashingEmbedder()), "/projects/shop")


def _run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["memory", *args])
    return result.exit_code, result.stdout, result.stderr


def test_stats_search_show_and_forget(tmp_path: Path) -> None:
    uri = tmp_path / "memory"
    _learn_fix(_memory(uri))
    code, out, _ = _run("stats", "--memory", str(uri))
    stats = json.loads(out)
    assert code == 0 and stats["rows"]["failures"] == 1 and stats["rows"]["fixes"] == 1
    assert stats["projects"] == {"/projects/shop": 1} and stats["schema_version"] == "1"

    code, out, _ = _run("search", "assert 20 == 19", "--memory", str(uri))
    (hit,) = json.loads(out)
    assert code == 0 and hit["fixed"] and "if q >= LIMIT:" in hit["fix"]

    code, out, _ = _run("show", hit["id"], "--memory", str(uri))
    shown = json.loads(out)
    assert shown["table"] == "failures" and shown["fixes"][0]["operator"] == "comparison_swap"

    assert _run("forget", hit["id"], "--memory", str(uri))[0] == 0
    assert _run("show", hit["id"], "--memory", str(uri))[0] == 1
    assert _run("forget", "nope", "--memory", str(uri))[0] == 1


def test_export_then_import_elsewhere_is_idempotent(tmp_path: Path, monkeypatch) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    _learn_fix(_memory(first))
    dump = tmp_path / "memory.jsonl"
    assert _run("export", str(dump), "--memory", str(first))[0] == 0
    lines = dump.read_text().splitlines()
    assert json.loads(lines[0])["fixloop_memory_export"] == 1 and len(lines) == 1 + 1 + 1 + 2
    monkeypatch.setenv("FIXLOOP_MEMORY", str(second))
    for _ in range(2):
        assert _run("import", str(dump))[0] == 0
    store = MemoryStore(str(second), HashingEmbedder()).open()
    assert {n: store.count(n) for n in ("failures", "fixes", "operator_stats")} == \
        {"failures": 1, "fixes": 1, "operator_stats": 2}
    assert store.similar("AssertionError: assert <num> == <num>", k=1)  # re-embedded on import


def test_import_skips_bad_lines_with_a_message(tmp_path: Path) -> None:
    dump = tmp_path / "bad.jsonl"
    dump.write_text('not json\n{"table": "nope", "id": "x"}\n[1]\n{"table": "fixes"}\n'
                    '{"table": "failures", "id": "f1", "text": "ValueError: bad", "exc_type": "ValueError"}\n')
    code, _, err = _run("import", str(dump), "--memory", str(tmp_path / "m"))
    assert code == 0 and "imported 1 row(s) (4 skipped)" in err and "line 1: not JSON" in err
    assert _run("import", str(tmp_path / "missing.jsonl"), "--memory", str(tmp_path / "m"))[0] == 2


def test_a_corrupt_store_is_reported_and_moved_aside(tmp_path: Path) -> None:
    uri = tmp_path / "memory"
    uri.write_text("not a store")
    code, out, err = _run("stats", "--memory", str(uri))
    assert code == 0 and "was moved to" in err and json.loads(out)["rows"]["failures"] == 0
