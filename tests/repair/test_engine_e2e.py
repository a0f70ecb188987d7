"""The overfitting look-ahead in the loop (with a scripted runner), and the whole offline engine
on a real project: spectrum localization over a real coverage run, warm screening, full-suite check."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import pytest

from fixloop.application.config import load
from fixloop.application.run import RunRequest
from fixloop.core.loop import drive, run
from fixloop.core.model import Limits, Patch, Status, Task, Verdict
from fixloop.core.model import TestResult as Result
from fixloop.core.ports import Ports, ProposalContext
from fixloop.application.session import FixSession
from tests.fakes import Call, RunVerdict, ScriptedProposer, ScriptedRunner
from tests.conftest import PYTHON

BUGS = Path(__file__).resolve().parents[2] / "bench" / "bugs"
BEFORE = "a = 1\nb = 2\nc = 3\n"


def passing_for(good: set[str]) -> RunVerdict:
    """The tests pass exactly for the sources of m.py listed as good."""

    def verdict(sources: Mapping[str, str], calls: Sequence[Call]) -> list[Result]:
        return [Result("t::x", "passed" if sources["m.py"] in good else "failed"), Result("t::y", "passed")]

    return verdict


def scripted_runner(good: set[str]) -> ScriptedRunner:
    return ScriptedRunner({"m.py": BEFORE}, passing_for(good))


def run_scripted(afters: list[str], good: set[str], lookahead: int) -> tuple[object, ScriptedRunner]:
    runner = scripted_runner(good)
    task = Task(Path("."), limits=Limits(plausible_lookahead=lookahead))
    outcome = drive(run(task, Ports(runner=runner, proposers=[ScriptedProposer(afters)]), "r1"))
    return outcome, runner


BIG = "a = 9\nb = 9\nc = 3\n"      # two changed lines
SAME = "a = 8\nb = 8\nc = 3\n"     # as big: not worth running
SMALL = "a = 1\nb = 7\nc = 3\n"    # one changed line


def test_the_loop_keeps_looking_for_a_smaller_plausible_fix() -> None:
    outcome, runner = run_scripted([BIG, SAME, SMALL], {BIG, SAME, SMALL}, lookahead=5)
    assert outcome.status is Status.FIXED
    assert outcome.patch.changes[0].after == SMALL
    assert outcome.plausible == 2
    assert SAME not in runner.screened  # a candidate no smaller than the winner is never run


def test_the_look_ahead_is_bounded() -> None:
    outcome, _ = run_scripted([BIG, SAME, SMALL], {BIG, SAME, SMALL}, lookahead=1)
    assert outcome.patch.changes[0].after == BIG and outcome.plausible == 1


@pytest.mark.e2e  # a whole offline fix session
def test_offline_engine_fixes_a_real_project(tmp_path: Path) -> None:
    work = tmp_path / "stack"
    shutil.copytree(BUGS / "stack", work, ignore=shutil.ignore_patterns("hidden_check.py", "__pycache__"))
    settings, problems = load({"python": PYTHON, "offline": True, "memory": {"enabled": False},
                               "sandbox": {"backend": "none"}, "max_candidates": 60})
    assert not problems
    events = []
    outcome = FixSession(RunRequest(work, settings)).run(events.append)
    assert outcome.status is Status.FIXED, outcome.message
    assert outcome.patch.changes[0].after.count("self.items.pop(-1)") == 1 or "pop()" in outcome.patch.changes[0].after
    localized = next(e for e in events if e.kind == "localized")
    assert "stack.py:11" in localized.data["suspects"][:3]
    assert outcome.plausible >= 1
    assert (work / "stack.py").read_text().count("pop(0)") == 1  # the workspace is untouched


@pytest.mark.e2e  # a whole offline fix session
def test_a_failure_inside_a_dependency_is_reported_as_such(tmp_path: Path) -> None:
    dep = tmp_path / "site" / "fancyparse"
    dep.mkdir(parents=True)
    (dep / "__init__.py").write_text("def parse(text):\n    raise ValueError('fancyparse cannot parse ' + text)\n")
    work = tmp_path / "proj"
    (work / "tests").mkdir(parents=True)
    (work / "app.py").write_text("import fancyparse\n\n\ndef load(text):\n    return fancyparse.parse(text)\n")
    (work / "tests" / "test_app.py").write_text("from app import load\n\n\ndef test_load():\n    assert load('1,2') == [1, 2]\n")
    (work / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {str(tmp_path / 'site')!r})\n")
    settings, _ = load({"python": PYTHON, "offline": True, "memory": {"enabled": False},
                        "sandbox": {"backend": "none"}, "max_candidates": 3})
    outcome = FixSession(RunRequest(work, settings)).run()
    assert outcome.status in (Status.GAVE_UP, Status.LIMITS), outcome.message
    if outcome.status is Status.GAVE_UP:
        assert "outside the project" in outcome.message and "fancyparse" in outcome.message


class PrefetchingRunner(ScriptedRunner):
    def __init__(self, good: set[str]) -> None:
        super().__init__({"m.py": BEFORE}, passing_for(good))
        self.prefetched: list[str] = []

    def lanes(self) -> int:
        return 2

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None:
        self.prefetched.append(patch.changes[0].after)


class RefuseNines:
    def check(self, patch: Patch) -> Verdict:
        return Verdict(ok="9" not in patch.changes[0].after, reason="nines are unsafe")


def test_read_ahead_prefetches_only_checked_candidates_and_keeps_the_order() -> None:
    runner = PrefetchingRunner({SMALL})
    ports = Ports(runner=runner, proposers=[ScriptedProposer([BIG, SAME, SMALL])], safety=RefuseNines())
    outcome = drive(run(Task(Path(".")), ports, "r2"))
    assert outcome.patch.changes[0].after == SMALL
    assert BIG not in runner.prefetched and SAME in runner.prefetched and SMALL in runner.prefetched
    assert [a.status for a in outcome.attempts] == ["unsafe", "failed", "plausible"]


def test_an_adaptive_proposer_is_not_asked_again_after_a_fix() -> None:
    class Model(ScriptedProposer):
        def __init__(self, afters: list[str]) -> None:
            super().__init__(afters, adaptive=True)
            self.asked = 0

        def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
            for patch in super().propose(ctx):
                self.asked += 1
                yield patch

    model = Model([BIG, SMALL])
    outcome = drive(run(Task(Path(".")), Ports(runner=scripted_runner({BIG, SMALL}), proposers=[model]), "r3"))
    assert outcome.patch.changes[0].after == BIG and model.asked == 1


def test_the_look_ahead_takes_about_one_baseline_of_time() -> None:
    """The clock ticks ten seconds at each reading: the baseline took ten, and the look-ahead's first
    reading after the fix is already past that, so the first fix stands."""
    ticks = iter(float(10 * i) for i in range(10_000))
    runner = scripted_runner({BIG, SAME, SMALL})
    task = Task(Path("."), limits=Limits(plausible_lookahead=5, search_factor=0, wall_seconds=1e9))
    ports = Ports(runner=runner, proposers=[ScriptedProposer([BIG, SAME, SMALL])], now=lambda: next(ticks))
    outcome = drive(run(task, ports, "r1"))
    assert outcome.patch.changes[0].after == BIG and outcome.plausible == 1
