"""KPIs over synthetic run folders, each checked against a count made by hand from the runs' specs."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixloop.application.history import kpis
from fixloop.application.history.store import load

from .synth import Cand, Spec, write

F, P = "failed", "plausible"


def _history(tmp_path: Path) -> tuple[list[Path], list[Spec]]:
    a, b = tmp_path / "alpha", tmp_path / "beta"
    specs_a = [
        # first try, offline, accepted
        Spec("20261101-090000-aaaaa1", cands=[Cand(status=P)], seconds=10, decision=True),
        # third candidate, after an unsafe one (two rules) and a failure; rejected
        Spec("20261101-100000-aaaaa2", cands=[Cand(status="unsafe", rules=("FL-S001", "FL-S002")), Cand(status=F),
                                              Cand(operator="off_by_one", status=P)], seconds=30, decision=False),
        # the model fixes it on its second candidate: 2 calls, 3000 tokens, $0.02
        Spec("20261102-090000-aaaaa3", cands=[Cand("llm", "edit", F), Cand("llm", "edit", P)], seconds=50,
             cost=0.02, tokens=3000, calls=2, exc="TypeError"),
        # gave up after a guard refusal and two failures
        Spec("20261102-100000-aaaaa4", status="gave_up", cands=[Cand(status="guard"), Cand(status=F), Cand(status=F)],
             seconds=40, exc="TypeError"),
        Spec("20261103-090000-aaaaa5", status="nothing_to_fix", lookup=None, seconds=2),
    ]
    specs_b = [
        # replayed from memory, first try
        Spec("20261103-100000-bbbbb1", cands=[Cand("memory", "replay", P)], seconds=4, decision=True),
        Spec("20261104-090000-bbbbb2", status="limits", cands=[Cand(status=F)] * 2, seconds=60, cost=0.05,
             tokens=9000, calls=3, exc="KeyError"),
        # an old run (schema 1: no telemetry, no lookup seconds)
        Spec("20261104-100000-bbbbb3", cands=[Cand(status=F), Cand(status=P)], seconds=20, schema=1),
    ]
    for s in specs_a:
        write(a, s)
    for s in specs_b:
        write(b, s)
    return [a, b], specs_a + specs_b


def test_every_kpi_matches_a_count_by_hand(tmp_path: Path) -> None:
    projects, specs = _history(tmp_path)
    h = load(projects)
    assert len(h.records) == 8 and not h.skipped
    k = kpis.compute(h.records)
    assert k["runs"] == 8 and k["projects"] == 2
    assert k["by_status"] == {"fixed": 5, "gave_up": 1, "limits": 1, "nothing_to_fix": 1}
    assert k["attempted"] == 7 and k["fixed"] == 5
    assert k["fix_rate"] == pytest.approx(5 / 7)
    assert k["first_try_rate"] == pytest.approx(2 / 5)  # runs 1 and b1
    assert k["mean_candidates_per_fix"] == pytest.approx((1 + 3 + 2 + 1 + 2) / 5)
    assert k["mean_iterations_per_fix"] == pytest.approx((0 + 0 + 2 + 0 + 0) / 5)
    # test runs per fix: synth writes 2 + 2 per candidate that ran
    assert k["mean_test_runs_per_fix"] == pytest.approx((4 + 6 + 6 + 4 + 6) / 5)
    assert k["median_seconds_per_fix"] == 20 and k["p90_seconds_per_fix"] == 50  # of 4, 10, 20, 30, 50
    assert k["tokens"] == 12000 and k["cost_usd"] == pytest.approx(0.07)
    assert k["tokens_per_fix"] == pytest.approx(12000 / 5) and k["cost_per_fix_usd"] == pytest.approx(0.07 / 5)
    assert k["zero_cost_fix_share"] == pytest.approx(4 / 5)
    s = k["safety"]
    assert s["refusals_by_rule"] == {"FL-S001": 1, "FL-S002": 1} and s["refused_candidates"] == 1
    assert s["guard_refusals"] == 1 and s["unsafe_candidates_run"] == 0 and s["safe_run_rate"] == 1.0
    assert k["review"] == {"accepted_hunks": 2, "rejected_hunks": 1, "runs_accepted": 2, "runs_rejected": 1}
    assert k["error_classes"]["AssertionError"] == {"runs": 4, "fixed": 4, "fixers": {
        "engine/compare_op": 2, "engine/off_by_one": 1, "memory/replay": 1}}
    assert k["error_classes"]["TypeError"] == {"runs": 2, "fixed": 1, "fixers": {"llm/edit": 1}}
    assert k["error_classes"]["KeyError"] == {"runs": 1, "fixed": 0, "fixers": {}}
    # operators: only schema-2 "tested" events name theirs; the old run's two are "?/?"
    assert k["operators"]["engine/compare_op"] == {"tested": 6, "passed": 1}  # a1, a2, a4 x2, b2 x2
    assert k["operators"]["llm/edit"] == {"tested": 2, "passed": 1}
    assert k["operators"]["?/?"] == {"tested": 2, "passed": 1}
    m = k["memory"]
    assert m["replayed_fixes"] == 1 and m["median_seconds_replayed"] == 4 and m["median_seconds_first_time"] == 20
    assert m["lookups"] == 6 and m["lookup_p95_seconds"] == pytest.approx(0.004)
    assert k["model"]["calls"] == 5 and k["model"]["logged_calls"] == 5
    assert k["model"]["by_model"]["claude-x"]["calls"] == 5
    assert k["model"]["mean_latency_seconds"] == pytest.approx(1.5)
    assert k["cpu_seconds_per_fix"] == pytest.approx(0.5 * 10 / 5)  # 10 candidates ran with telemetry
    assert k["peak_mb"] == 40.0
    by_id = {r["run_id"]: r for r in h.records}
    assert by_id["20261104-100000-bbbbb3"]["schema"] == 1 and by_id["20261101-090000-aaaaa1"]["schema"] == 2
    assert [r["run_id"] for r in h.records] == sorted(s.run_id for s in specs)  # oldest first


def test_since_keeps_later_runs_only(tmp_path: Path) -> None:
    import datetime

    projects, _ = _history(tmp_path)
    since = datetime.datetime(2026, 11, 3).timestamp()
    assert [r["run_id"][:8] for r in load(projects, since).records] == ["20261103"] * 2 + ["20261104"] * 2


def test_percentile_is_nearest_rank() -> None:
    assert kpis.percentile([], 50) is None
    assert kpis.percentile([3.0], 90) == 3.0
    assert kpis.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90) == 9
    assert kpis.percentile([1, 2, 3, 4], 50) == 2


def test_empty_history_has_no_rates(tmp_path: Path) -> None:
    k = kpis.compute(load([tmp_path]).records)
    assert k["runs"] == 0 and k["fix_rate"] is None and k["first_try_rate"] is None and k["cost_per_fix_usd"] is None
