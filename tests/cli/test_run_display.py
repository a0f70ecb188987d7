"""What `fixloop fix` prints on stderr when it is not a terminal, from a run's events (no process, a
hand-driven clock): occasional progress lines, the lines that stay, `--quiet`, and the end."""

from __future__ import annotations

import io

from rich.console import Console

from fixloop.core.model import Event
from fixloop.run_display import RunDisplay, show_end


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _display(quiet: bool = False) -> tuple[RunDisplay, io.StringIO, Clock]:
    out, clock = io.StringIO(), Clock()
    console = Console(file=out, force_terminal=False, highlight=False, soft_wrap=True, width=300)
    return RunDisplay(console, quiet=quiet, live=False, clock=clock), out, clock


def _event(kind: str, clock: Clock, candidate: int | None = None, **data: object) -> Event:
    return Event(kind, "r", clock.now, "", candidate, data)


def test_plain_progress_every_ten_candidates_and_every_fifteen_seconds() -> None:
    display, out, clock = _display()
    display(_event("started", clock, python="/venv/bin/python", limits={"wall_seconds": 600, "max_candidates": 40}))
    clock.now += 14
    display.beat()
    assert "baseline: running" not in out.getvalue()  # not yet 15 s
    clock.now += 2
    display.beat()
    assert out.getvalue().splitlines()[-1] == "baseline: running the tests as they are (16 s)"
    display(_event("baseline", clock, passed=3, failed=2, seconds=16.0))
    display(_event("localized", clock, suspects=["m.py:4", "m.py:\x1b[2J7"]))
    for n in range(1, 25):
        clock.now += 0.5
        display(_event("candidate", clock, n, where=f"m.py:{n}", operator="swap_comparison", limit=40))
    lines = out.getvalue().splitlines()
    assert lines[:4] == ["python: /venv/bin/python", "baseline: running the tests as they are (16 s)",
                         "baseline: 3 passed, 2 failed (16.0 s)", "suspects: m.py:4, m.py:\\x1b[2J7"]
    assert [ln.split(",")[0] for ln in lines[4:]] == ["search: candidate 10/40", "search: candidate 20/40"]
    assert lines[-1] == "search: candidate 20/40, m.py:20 swap_comparison, ~10 s left at 0.5 s a candidate"
    clock.now += 15
    display.beat()  # a slow candidate: the line again, its time left re-estimated
    assert out.getvalue().splitlines()[-1].startswith("search: candidate 24/40, m.py:24 swap_comparison, ~")


def test_quiet_prints_warnings_only() -> None:
    display, out, clock = _display(quiet=True)
    display(_event("started", clock, python="/venv/bin/python"))
    display(_event("baseline", clock, passed=3, failed=2, seconds=1.0))
    for n in range(1, 12):
        display(_event("candidate", clock, n, where="m.py:1", operator="op", limit=40))
    clock.now += 60
    display.beat()
    display(_event("note", clock, message="no API key: the model is off"))
    assert out.getvalue() == "no API key: the model is off\n"


def test_the_end_lists_what_was_tried_and_the_next_steps_escaped() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, highlight=False, soft_wrap=True, width=300)
    show_end(console, {"tried": {"candidates": 12, "suspects": ["m.py:4"], "proposers": {"mutation": 12},
                                 "operators": {"swap_comparison": 8, "[bold]x": 4}},
                       "next_steps": ["raise the candidate limit (12 now): `--max-candidates 24`", "a\x1b[2Jb"]})
    assert out.getvalue().splitlines() == [
        "tried: 12 candidates (mutation 12)", "  operators: swap_comparison 8, [bold]x 4", "  top suspects: m.py:4",
        "next steps:", "  - raise the candidate limit (12 now): `--max-candidates 24`", "  - a\\x1b[2Jb"]
