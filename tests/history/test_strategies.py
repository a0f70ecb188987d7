"""`fixloop stats --strategies` on synthetic run logs: the comparison and its intervals, counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fixloop.cli import app
from fixloop.application.history.strategies import NOT_RECORDED, compare, mean_interval, ratio_interval, wilson

from .synth import Cand, Spec, run_id, write

runner = CliRunner()
P, F = "plausible", "failed"


def _project(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    n = 0

    def add(strategy: str, status: str, cands: int, seconds: float, cost: float = 0.0) -> None:
        nonlocal n
        n += 1
        tried = [Cand(status=F)] * (cands - 1) + [Cand(status=P if status == "fixed" else F)]
        write(p, Spec(run_id(1, n), status=status, cands=tried, seconds=seconds, cost=cost, tokens=int(cost * 1e5),
                      calls=1 if cost else 0, strategy=strategy))

    for cands, seconds in ((1, 4.0), (1, 6.0), (2, 8.0), (4, 10.0)):
        add("memory-first", "fixed", cands, seconds)
    add("memory-first", "gave_up", 30, 60.0)
    for cands, seconds in ((5, 10.0), (7, 14.0)):
        add("mutation-first", "fixed", cands, seconds)
    add("mutation-first", "limits", 20, 90.0)
    add("mutation-first", "nothing_to_fix", 0, 1.0)  # a run, but not one that tried
    add("model-first", "fixed", 2, 20.0, cost=0.04)
    write(p, Spec(run_id(2, 99), cands=[Cand(status=P)], seconds=3.0))  # logged before strategies were recorded
    return p


def test_the_comparison_per_strategy(tmp_path: Path) -> None:
    result = runner.invoke(app, ["stats", str(_project(tmp_path)), "--strategies", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["strategies"]
    assert list(rows) == ["memory-first", "mutation-first", NOT_RECORDED, "model-first"]
    m = rows["memory-first"]
    assert (m["runs"], m["attempted"], m["fixed"], m["fix_rate"]) == (5, 5, 4, 0.8)
    assert m["candidates_per_fix"] == 2.0 and m["seconds_per_fix"] == 7.0
    assert m["fix_rate_interval"] == pytest.approx([0.3755, 0.9638], abs=1e-3)  # Wilson, 4 of 5
    # t interval of (1, 1, 2, 4): mean 2, sd 1.4142, t(3) = 3.182 -> 2 +- 2.250, the lower end kept at 0
    assert m["candidates_per_fix_interval"] == pytest.approx([0.0, 4.2503], abs=1e-3)
    assert m["cost_per_fix_usd"] == 0.0
    u = rows["mutation-first"]
    assert (u["runs"], u["attempted"], u["fixed"], u["candidates_per_fix"]) == (4, 3, 2, 6.0)
    assert rows["model-first"]["cost_per_fix_usd"] == pytest.approx(0.04)
    assert rows["model-first"]["candidates_per_fix_interval"] is None  # one fix: no interval
    assert rows[NOT_RECORDED]["fixed"] == 1


def test_the_table_and_the_full_json(tmp_path: Path) -> None:
    p = _project(tmp_path)
    result = runner.invoke(app, ["stats", str(p), "--strategies"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "strategies compared" in result.stdout and "mutation-first" in result.stdout
    assert "80 [38, 96]%" in result.stdout and "2.0 [0.0, 4.3]" in result.stdout
    full = json.loads(runner.invoke(app, ["stats", str(p), "--json"]).stdout)
    assert full["runs"] == 11 and full["strategies"]["memory-first"]["fixed"] == 4


def test_wilson_at_the_edges() -> None:
    assert wilson(0, 0) is None
    low, high = wilson(0, 10)  # type: ignore[misc]
    assert low == 0.0 and 0.2 < high < 0.35
    low, high = wilson(10, 10)  # type: ignore[misc]
    assert 0.65 < low < 0.8 and high == pytest.approx(1.0)


def test_means_and_ratios_with_few_values() -> None:
    assert mean_interval([]) == (None, None)
    assert mean_interval([3.0]) == (3.0, None)
    assert ratio_interval([(0.1, False)]) == (None, None)
    value, interval = ratio_interval([(0.02, True), (0.04, False), (0.0, True), (0.02, True)])
    assert value == pytest.approx(0.08 / 3) and interval is not None and interval[0] <= value <= interval[1]


def test_a_run_s_strategy_text_is_bounded_and_odd_values_are_ignored() -> None:
    base = {"status": "fixed", "candidates": 1, "seconds": 1.0, "cost_usd": 0.0}
    rows = compare([{**base, "strategy": "x" * 40}, {**base, "strategy": None}, base])
    assert set(rows) == {"x" * 40, NOT_RECORDED} and rows[NOT_RECORDED]["runs"] == 2


def test_a_run_s_strategy_comes_from_its_summary_or_its_events() -> None:
    from fixloop.application.history.record import build

    started = b'{"kind": "started", "time": 1.0, "strategy": "mutation-first"}\n'
    assert build("r", "p", {"events.jsonl": started}, [], 0.0)["strategy"] == "mutation-first"
    summary = b'{"status": "fixed", "strategy": "template-first"}'
    assert build("r", "p", {"events.jsonl": started, "summary.json": summary}, [], 0.0)["strategy"] == "template-first"
    chosen = started + b'{"kind": "strategy", "time": 2.0, "strategy": "memory-first"}\n'  # schema 3
    assert build("r", "p", {"events.jsonl": chosen}, [], 0.0)["strategy"] == "memory-first"
    odd = b'{"kind": "started", "time": 1.0, "strategy": ["not", "text"]}\n'
    assert build("r", "p", {"events.jsonl": odd, "summary.json": b'{"strategy": 7}'}, [], 0.0)["strategy"] == ""
