"""The one-line status of a run (shared by the terminal and the editor), and `printable`, which every
project string goes through before it is shown."""

from __future__ import annotations

from fixloop.core.limits import SEARCH_CEILING, SEARCH_FLOOR
from fixloop.core.model import Event
from fixloop.kit.printable import printable
from fixloop.application.progress import RunProgress, duration


def _event(kind: str, time: float, candidate: int | None = None, **data: object) -> Event:
    return Event(kind, "r", time, "", candidate, data)


def _searching(limit: int) -> RunProgress:
    p = RunProgress()
    p.update(_event("started", 0.0, limits={"wall_seconds": 600.0, "max_candidates": limit}))
    p.update(_event("baseline", 10.0, passed=9, failed=2))
    p.update(_event("localized", 12.0, suspects=["pkg/m.py:12"]))
    for n, t in ((1, 20.0), (2, 22.0), (3, 24.0)):
        p.update(_event("candidate", t, n, where="pkg/m.py:12", operator="swap_comparison", limit=limit,
                        summary="pkg/m.py:12: `>` -> `>=`"))
    return p


def test_each_phase_has_its_line() -> None:
    p = RunProgress()
    assert p.line(0.0).startswith("starting")
    p.update(_event("started", 0.0))
    assert p.line(5.0) == "baseline: running the tests as they are (5 s)"
    p.update(_event("baseline", 10.0, passed=9, failed=2))
    assert p.line(11.0) == "localize: 2 failing, 9 passing; ranking suspect lines (1 s)"
    p.update(_event("localized", 12.0))
    assert p.line(75.0) == "search: preparing candidates (1m03s)"


def test_search_shows_candidate_n_of_n_the_suspect_and_the_time_left() -> None:
    # 2 s a candidate: 37 more take 74 s, well inside the wall budget.
    assert _searching(40).line(24.0) == (
        "search: candidate 3/40, pkg/m.py:12 swap_comparison (`>` -> `>=`), ~1m14s left at 2.0 s a candidate")
    # 397 more would take longer than the wall budget left: that is the bound.
    assert _searching(400).line(24.0) == (
        "search: candidate 3/400, pkg/m.py:12 swap_comparison (`>` -> `>=`), "
        "9m36s left before the wall-time limit, 2.0 s a candidate")


def test_the_offline_search_shows_what_is_left_of_its_own_time() -> None:
    """The search stops at `search_factor` baselines (core/limits.search_budget): its candidates are bound by that, a
    model's are not."""
    p = RunProgress()
    p.update(_event("started", 0.0, limits={"wall_seconds": 600.0, "max_candidates": 400, "search_factor": 6.0}))
    p.update(_event("baseline", 10.0, passed=9, failed=2, seconds=10.0))
    p.update(_event("localized", 12.0))
    for n, t in ((1, 20.0), (2, 22.0), (3, 24.0)):
        p.update(_event("candidate", t, n, where="m.py:1", operator="op", proposer="mutation", limit=400))
    assert p.line(24.0).endswith(", 36 s left of the offline search's time, 2.0 s a candidate")
    p.update(_event("candidate", 26.0, 4, where="m.py:1", operator="edit", proposer="llm", limit=400))
    assert p.line(26.0).endswith("9m34s left before the wall-time limit, 2.0 s a candidate")
    short = RunProgress()
    short.update(_event("started", 0.0, limits={"wall_seconds": 600.0, "max_candidates": 400, "search_factor": 6.0}))
    short.update(_event("baseline", 1.0, passed=9, failed=2, seconds=1.0))
    short.update(_event("candidate", 2.0, 1, where="m.py:1", operator="op", proposer="mutation", limit=400))
    short.update(_event("candidate", 3.0, 2, where="m.py:1", operator="op", proposer="mutation", limit=400))
    # At a second a candidate its share of candidates does not fit: the ceiling is what it may take.
    assert short.line(3.0).endswith(f", {SEARCH_CEILING - 3:.0f} s left of the offline search's time, 1.0 s a candidate")
    quick = RunProgress()
    quick.update(_event("started", 0.0, limits={"wall_seconds": 600.0, "max_candidates": 400, "search_factor": 6.0}))
    quick.update(_event("baseline", 1.0, passed=9, failed=2, seconds=1.0))
    quick.update(_event("candidate", 2.0, 1, where="m.py:1", operator="op", proposer="mutation", limit=400))
    quick.update(_event("candidate", 2.1, 2, where="m.py:1", operator="op", proposer="mutation", limit=400))
    # At a tenth of a second its share of candidates (98 more) takes it to about 11.9 s of run, past the floor.
    assert quick.line(2.1).endswith(", 10 s left of the offline search's time, 0.1 s a candidate")
    quick.update(_event("candidate", 11.0, 99, where="m.py:1", operator="op", proposer="mutation", limit=400))
    quick.update(_event("candidate", 11.1, 100, where="m.py:1", operator="op", proposer="mutation", limit=400))
    assert quick.line(11.1).endswith(", 0 s left of the offline search's time, 0.1 s a candidate")  # share tried: floor passed


def test_confirm_says_the_whole_suite_runs() -> None:
    p = _searching(40)
    p.update(_event("confirming", 25.0, 3))
    assert p.line(25.0).startswith("confirm: candidate 3/40, pkg/m.py:12 swap_comparison (`>` -> `>=`): passes the "
                                   "failing tests, running the whole suite, ~1m14s left")
    p.update(_event("tested", 30.0, 3, status="failed"))
    assert p.line(30.0).startswith("search: candidate 3/40")


def test_project_strings_in_the_line_are_escaped() -> None:
    p = RunProgress()
    p.update(_event("candidate", 1.0, 1, where="a\x1b[2J.py:3", operator="op\u202e", summary="x\x07\ny", limit=9))
    line = p.line(1.0)
    assert "\x1b" not in line and "\u202e" not in line and "\x07" not in line and "\n" not in line
    assert "a\\x1b[2J.py:3 op\\u202e (x\\x07\\ny)" in line


def test_printable_escapes_what_a_terminal_or_editor_acts_on() -> None:
    assert printable("tests/test_ü.py::test[a-b] 1 → 2") == "tests/test_ü.py::test[a-b] 1 → 2"
    assert printable("\x1b]0;title\x07\x00\x7f\x9b") == "\\x1b]0;title\\x07\\x00\\x7f\\x9b"
    assert printable("abc\u202edef\u2066\u200b\u2028") == "abc\\u202edef\\u2066\\u200b\\u2028"
    assert printable("line\r\nnext\tcol\x1b", multiline=True) == "line\nnext\tcol\\x1b"
    assert printable("a\nb\tc\rd") == "a\\nb\\tc\\rd"
    assert printable("caf\udce9") == "caf\\udce9"
    assert printable(printable("\x1b")) == printable("\x1b")


def test_durations_read_at_a_glance() -> None:
    assert [duration(s) for s in (0.4, 45, 130, 3725)] == ["0 s", "45 s", "2m10s", "1h02m"]
