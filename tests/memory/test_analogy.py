"""The one-shot analogy: one verified fix in a real store (LanceDB on disk), carried over by real tree-sitter
to differently written code; what does not match proposes nothing; a wrong analogy costs at most its bound."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pytest

from fixloop.application.config import MemorySettings, Settings
from fixloop.application.run import RunRequest
from fixloop.core.loop import drive, run
from fixloop.core.model import (Attempt, FileChange, Frame, Lesson, Limits, Outcome, Patch, Status, Suspect, Task,
                                TestReport, TestResult)
from fixloop.core.ports import Ports, ProposalContext
from fixloop.adapters.llm.context import lessons_text
from fixloop.adapters.memory.analogy import analogies
from fixloop.adapters.memory.analogy_proposer import AnalogyProposer
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.faultkeys import features
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.replay import MemoryReplayProposer
from fixloop.adapters.memory.store import MemoryStore
from fixloop.engines.repair.mutate import MutationProposer
from fixloop.adapters.safety.check import PatchSafety
from fixloop.application.session import FixSession
from tests.conftest import PYTHON
from tests.fakes import Call, ScriptedRunner

CLAMP = "def clamp(value, low, high):\n    return max(low, min(value, low))\n"
THERMOSTAT = ("class Thermostat:\n    def __init__(self, low, high):\n        self.low = low\n        self.high = high\n\n"
              "    def setpoint(self, requested):\n        return min(max(requested, self.low), self.low)\n")
VENUE = "CAPACITY = 100\n\n\ndef sold_out(taken):\n    if taken > CAPACITY:\n        return True\n    return False\n"
RIDE = ("class Ride:\n    def __init__(self, min_height):\n        self.min_height = min_height\n\n"
        "    def admits(self, height):\n        return self.min_height < height\n")
SHARE = ("def percent(part, whole):\n    return 100.0 * part / whole\n\n\n"
         "def vote_share(votes, turnout):\n    return round(percent(turnout, votes), 1)\n")
JOB = ("def fraction(done, total):\n    return done / total\n\n\nclass Job:\n    def __init__(self, steps):\n"
       "        self.steps = steps\n        self.finished = 0\n\n    def progress(self):\n"
       "        return fraction(self.steps, self.finished)\n")
KIOSK = ("class Kiosk:\n    def __init__(self, quiet, loud, capacity):\n        self.quiet = quiet\n"
         "        self.loud = loud\n        self.capacity = capacity\n        self.volume = quiet\n\n"
         "    def set_volume(self, level):\n        self.volume = max(self.quiet, min(level, self.quiet))\n"
         "        return self.volume\n")
YEARS = "def table(years):\n    return [year * 2 for year in range(years)]\n"
SLOTS = ("def share(part, whole):\n    return part / whole\n\n\ndef level(value, low, high):\n"
         "    return max(low, min(value, high))\n\n\ndef full(taken, capacity):\n    return taken >= capacity\n\n\n"
         "def hours(first, last, done, total):\n    print(share(done, total))\n    return [str(h) for h in range(first, last)]\n")
SHELF = ("class Shelf:\n    def __init__(self, capacity):\n        self.capacity = capacity\n        self.count = 0\n\n"
         "    def restock(self, delivered, damaged):\n        usable = delivered + damaged\n"
         "        self.count = min(self.count + usable, self.capacity)\n        return self.count\n")


def _store(tmp_path: Path) -> LearningMemory:
    return LearningMemory(MemoryStore(str(tmp_path / "memory"), HashingEmbedder()).open(), "/projects/a",
                          rng=np.random.default_rng(0))


def _report(path: str, line: int, exc_type: str = "AssertionError", message: str = "assert 1 == 2") -> TestReport:
    frames = (Frame("tests/test_x.py", 3, "test_x"), Frame(path, line, "f"))
    return TestReport((TestResult("tests/test_x.py::test_x", "failed", 0.01, exc_type, message, frames),
                       TestResult("tests/test_x.py::test_y", "passed")))


def _learn(memory: LearningMemory, path: str, before: str, after: str, line: int, operator: str,
           exc_type: str = "AssertionError") -> None:
    """A verified fix, written by the code path a run's end takes (record_attempt, record_outcome)."""
    report = _report(path, line, exc_type)
    ctx = ProposalContext(sources={path: before}, baseline=report, target_tests=("tests/test_x.py::test_x",))
    fix = Patch((FileChange(path, before, after),), "mutation", operator, "fix")
    memory.record_attempt("run-a", Attempt(1, fix, "plausible"), ctx)
    memory.record_outcome(Outcome(Status.FIXED, "run-a", "fixed", fix, baseline=report, candidates_evaluated=1), ctx)


def _line(source: str, needle: str) -> int:
    return next(i + 1 for i, text in enumerate(source.splitlines()) if needle in text)


def _proposed(memory: LearningMemory, path: str, source: str, needle: str, exc_type: str = "AssertionError") -> list[Patch]:
    line = _line(source, needle)
    report = _report(path, line, exc_type)
    sources = {path: source}
    ctx = ProposalContext(sources=sources, baseline=report, target_tests=("tests/test_x.py::test_x",),
                          suspects=(Suspect(path, line, 0.9),), lessons=memory.recall(report, sources))
    return list(AnalogyProposer().propose(ctx))


def test_a_name_becomes_an_attribute_role_and_the_new_name_its_sibling(tmp_path: Path) -> None:
    memory = _store(tmp_path)
    _learn(memory, "ranges/clamp.py", CLAMP, CLAMP.replace("min(value, low)", "min(value, high)"), 2, "replace_identifier")
    # Another error class: the fix is recalled by what the statement does, not by how the test failed.
    patches = _proposed(memory, "heating/thermostat.py", THERMOSTAT, "return min(", exc_type="TypeError")
    assert patches and patches[0].proposer == "analogy"
    assert patches[0].changes[0].after == THERMOSTAT.replace("self.low), self.low)", "self.low), self.high)")
    assert "low ~ self.low" in patches[0].summary and "high ~ self.high" in patches[0].summary
    assert len(patches) <= 3


def test_a_name_with_no_counterpart_by_its_words_becomes_the_sibling_declared_beside_the_role(
        tmp_path: Path) -> None:
    """`floor` -> `ceiling` where the bounds are `quiet` and `loud`: no word relates them, but bounds are
    declared together, and the fix carried to an assignment is the same edit as to a return."""
    memory = _store(tmp_path)
    clamp = "def clamp(amount, floor, ceiling):\n    return max(floor, min(amount, floor))\n"
    _learn(memory, "books/clamp.py", clamp, clamp.replace("min(amount, floor)", "min(amount, ceiling)"), 2,
           "replace_identifier")
    patches = _proposed(memory, "kiosk/machine.py", KIOSK, "self.volume = max(")
    assert patches[0].changes[0].after == KIOSK.replace("min(level, self.quiet)", "min(level, self.loud)")
    assert len(patches) <= 3


def test_an_operator_fix_carries_over_within_its_family_in_the_other_direction(tmp_path: Path) -> None:
    memory = _store(tmp_path)
    _learn(memory, "tickets/venue.py", VENUE, VENUE.replace("taken > CAPACITY", "taken >= CAPACITY"), 5, "comparison_swap")
    patches = _proposed(memory, "rides/ride.py", RIDE, "return self.min_height")
    assert patches[0].changes[0].after == RIDE.replace("self.min_height < height", "self.min_height <= height")


def test_a_swap_of_arguments_carries_over_to_a_call_with_the_same_roles(tmp_path: Path) -> None:
    memory = _store(tmp_path)
    _learn(memory, "stats/share.py", SHARE, SHARE.replace("percent(turnout, votes)", "percent(votes, turnout)"), 6,
           "swap_arguments")
    patches = _proposed(memory, "jobs/progress.py", JOB, "return fraction(")
    assert patches[0].changes[0].after == JOB.replace("fraction(self.steps, self.finished)",
                                                      "fraction(self.finished, self.steps)")


def test_a_past_fix_of_another_shape_proposes_nothing(tmp_path: Path) -> None:
    memory = _store(tmp_path)
    _learn(memory, "ranges/clamp.py", CLAMP, CLAMP.replace("min(value, low)", "min(value, high)"), 2, "replace_identifier")
    assert _proposed(memory, "stock/shelf.py", SHELF, "usable = delivered") == []
    assert analogies("return max(low, min(value, low))", "return max(low, min(value, high))", SHELF,
                     _line(SHELF, "usable =")) == []
    # A comparison fix where there is no comparison, a swap where no call has two arguments: nothing.
    assert analogies("if taken > CAPACITY:", "if taken >= CAPACITY:", SHELF, _line(SHELF, "usable =")) == []
    assert analogies("return f(a, b)", "return f(b, a)", SHELF, _line(SHELF, "usable =")) == []


def test_recall_by_fault_key_finds_the_fix_without_reading_the_whole_project(tmp_path: Path) -> None:
    assert features("return max ( ID , min ( ID , ID ) )") == features("return min ( max ( ID , self . ID ) , self . ID )")
    assert features("if ID > ID :") == features("return self . ID < ID")
    memory = _store(tmp_path)
    _learn(memory, "ranges/clamp.py", CLAMP, CLAMP.replace("min(value, low)", "min(value, high)"), 2, "replace_identifier")
    memory.min_similarity = 1.01  # no failure text is that near: only the fault key can find the fix
    lessons = memory.recall(_report("heating/thermostat.py", 7, "TypeError"), {"heating/thermostat.py": THERMOSTAT})
    assert [lesson.meta["channel"] for lesson in lessons] == ["key"]
    assert "min(value, high)" in lessons[0].summary  # the before/after a model's context shows
    plain = "def total(prices, tax):\n    net = sum(prices)\n    return net + tax\n"
    assert memory.recall(_report("shop/total.py", 3), {"shop/total.py": plain}) == ()  # no min/max here


def _recalled_by_key(tmp_path: Path, path: str, source: str, needle: str) -> ProposalContext:
    """The clamp fix recalled by its fault key alone, at a run on `source` whose top suspect is `needle`'s line."""
    memory = _store(tmp_path)
    _learn(memory, "ranges/clamp.py", CLAMP, CLAMP.replace("min(value, low)", "min(value, high)"), 2, "replace_identifier")
    memory.min_similarity = 1.01  # only the fault key answers: the lesson is an analogy
    line = _line(source, needle)
    report = _report(path, line, "TypeError")
    ctx = ProposalContext(sources={path: source}, baseline=report, target_tests=("tests/test_x.py::test_x",),
                          suspects=(Suspect(path, line, 0.9),), lessons=memory.recall(report, {path: source}))
    assert [lesson.meta["channel"] for lesson in ctx.lessons] == ["key"]
    return ctx


def test_a_lesson_recalled_by_key_shows_the_model_its_before_after_and_roles_here(tmp_path: Path) -> None:
    text = lessons_text(_recalled_by_key(tmp_path, "heating/thermostat.py", THERMOSTAT, "return min("))
    assert "past fix: `return max(low, min(value, low))` -> `return max(low, min(value, high))`" in text
    assert "here (heating/thermostat.py:7): `self.low` -> `self.high`" in text
    assert "roles: low -> self.low, high -> self.high" in text  # in the order the past statement names them
    assert text.count("<data") == text.count("</data>") == 1  # the project's text stays inside its wrapper
    assert text.index("roles:") < text.index("</data>")


def test_a_lesson_whose_shape_does_not_map_onto_the_suspect_adds_no_roles(tmp_path: Path) -> None:
    """The recall matched another statement of SHELF (its `min`); the top suspect, a sum, maps nothing."""
    text = lessons_text(_recalled_by_key(tmp_path, "stock/shelf.py", SHELF, "usable = delivered"))
    assert "same kind of statement fixed elsewhere" in text
    assert "roles:" not in text and "past fix:" not in text


def _lesson(edits: object) -> Lesson:
    return Lesson("sig", "a teammate's fix", outcome="fixed", similarity=0.9,
                  meta={"edits": edits if isinstance(edits, str) else json.dumps(edits), "fix_id": "x"})


def test_a_malformed_or_hostile_stored_edit_is_rejected_without_an_exception() -> None:
    line = _line(THERMOSTAT, "return min(")
    hostile = [
        "not json", "[1, 2, 3]", json.dumps([[[["ID", "x"]], None]]), "[" * 5000 + "]" * 5000,
        [[[["ID", "return max(low, min(value, low))"]], [["ID", "return max(low, min(value, __import__('os').system('x')))"]]]],
        [[[["ID", "return max(low, min(value, low))" * 500]], [["ID", "return 1"]]]],
        [[[["ID", "return max(low, min(value, low))"]], [["ID", "return max(low, min(value, high" + ")" * 3000]]]],
        [[[["ID", "\x00if x:"]], [["ID", "if y:"]]]],
    ]
    ctx = ProposalContext(sources={"t.py": THERMOSTAT}, baseline=_report("t.py", line), target_tests=(),
                          suspects=(Suspect("t.py", line, 1.0),), lessons=tuple(_lesson(e) for e in hostile))
    patches = list(AnalogyProposer().propose(ctx))
    # A name the target's scope does not have is never made up (`__import__`): only in-scope names are used.
    assert all("__import__" not in p.changes[0].after and "system" not in p.changes[0].after for p in patches)
    assert all(p.changes[0].after.count("\n") == THERMOSTAT.count("\n") for p in patches)


class _Suspects:
    """The localizer's answer, given (the spectrum localizer has its own tests; here it is not under test)."""

    runs_tests = False
    note = ""

    def __init__(self, suspects: Sequence[Suspect]) -> None:
        self.suspects = tuple(suspects)

    def localize(self, report: TestReport, sources: Mapping[str, str], targets: Sequence[str]) -> tuple[Suspect, ...]:
        return self.suspects


def _position_of_fix(memory: LearningMemory | None) -> tuple[int, list[str]]:
    """The real loop on SHELF (the bug: `+` where `-` was meant), the offline engine after the memory's proposers."""
    fixed = SHELF.replace("delivered + damaged", "delivered - damaged")
    report = _report("stock/shelf.py", 7)

    def verdict(sources: Mapping[str, str], calls: Sequence[Call]) -> TestReport:
        return TestReport(tuple(TestResult(r.nodeid, "passed", 0.01) for r in report.results)) \
            if sources["stock/shelf.py"] == fixed else report

    runner = ScriptedRunner({"stock/shelf.py": SHELF}, verdict)
    lines = [_line(SHELF, "usable ="), _line(SHELF, "self.count = min"), _line(SHELF, "return self.count")]
    proposers = [MemoryReplayProposer(), AnalogyProposer(), MutationProposer()] if memory else [MutationProposer()]
    ports = Ports(runner=runner, proposers=proposers, localizer=_Suspects([Suspect("stock/shelf.py", n, 0.9 - 0.1 * i)
                                                                           for i, n in enumerate(lines)]),
                  safety=PatchSafety(), memory=memory)
    outcome = drive(run(Task(Path("."), limits=Limits(max_candidates=60)), ports, "run-b"))
    assert outcome.status is Status.FIXED, outcome.message
    return outcome.candidates_evaluated, [a.patch.proposer for a in outcome.attempts]


def test_a_wrong_analogy_costs_at_most_its_bound_in_the_real_loop(tmp_path: Path) -> None:
    memory = _store(tmp_path)
    # A misleading past fix: a clamp's `min` that should have been `max`, and a sum that should have been larger.
    past = "def fill(level, extra, top):\n    total = level + extra\n    return min(level + extra, top)\n"
    _learn(memory, "tank/fill.py", past, past.replace("return min(", "return max("), 3, "sibling_call")
    _learn(memory, "tank/fill.py", past, past.replace("level + extra\n    return", "level + extra + 1\n    return"),
           2, "integer_nudge")
    cold, _ = _position_of_fix(None)
    warm, order = _position_of_fix(memory)
    misled = order.count("analogy")
    assert misled >= 1  # the memory did mislead: the bound is what is tested
    assert warm - cold <= AnalogyProposer().per_fix * 2 and misled <= AnalogyProposer().per_fix * 2
    assert warm <= cold + misled + order.count("memory")


@pytest.mark.e2e  # two whole fix sessions on real pytest (the first takes ~20 candidates)
def test_a_clamp_fixed_in_one_project_fixes_the_other_at_the_first_candidate(tmp_path: Path) -> None:
    pair = Path(__file__).resolve().parents[2] / "bench" / "analogy_pairs" / "clamp_roles"
    settings = dataclasses.replace(Settings(), offline=True, python=PYTHON, memory=MemorySettings(uri=str(tmp_path / "m")),
                                   sandbox=dataclasses.replace(Settings().sandbox, backend="none"))
    for name in ("a", "b"):
        shutil.copytree(pair / name, tmp_path / name)
        outcome = FixSession(RunRequest(tmp_path / name, settings, seed=0)).run()
        assert outcome.status is Status.FIXED, outcome.message
    assert outcome.candidates_evaluated == 1 and outcome.patch is not None and outcome.patch.proposer == "analogy"
    assert "self.low), self.high)" in outcome.patch.changes[0].after


def test_past_fixes_of_other_kinds_that_fit_statements_here_do_not_crowd_out_the_kind_this_bug_is(
        tmp_path: Path) -> None:
    """Past fixes of other kinds that fit some statement of this file (an exchange fits any call of two
    names, a clamp a clamp, a limit a comparison) leave room for the one of the kind this bug is."""
    memory = _store(tmp_path)
    _learn(memory, "books/plan.py", YEARS, YEARS.replace("range(years)", "range(years + 1)"), 2, "bound_nudge")
    _learn(memory, "stats/share.py", SHARE, SHARE.replace("percent(turnout, votes)", "percent(votes, turnout)"), 6,
           "swap_arguments")
    _learn(memory, "ranges/clamp.py", CLAMP, CLAMP.replace("min(value, low)", "min(value, high)"), 2, "replace_identifier")
    _learn(memory, "tickets/venue.py", VENUE, VENUE.replace("taken > CAPACITY", "taken >= CAPACITY"), 5, "comparison_swap")
    patches = _proposed(memory, "kiosk/slots.py", SLOTS, "range(first, last)")
    assert SLOTS.replace("range(first, last)", "range(first, last + 1)") in [p.changes[0].after for p in patches]


def test_a_statement_that_has_the_fix_already_gets_no_analogy(tmp_path: Path) -> None:
    """A past fix that made `+` a `-`, met at a `-`: carried over, it would turn the right operator wrong."""
    memory = _store(tmp_path)
    garage = "def stay(now, parked):\n    return now + parked\n"
    _learn(memory, "garage/lot.py", garage, garage.replace("now + parked", "now - parked"), 2, "arithmetic_swap")
    clock = "def late(due, arrived):\n    return arrived - due\n"
    assert [p.changes[0].after for p in _proposed(memory, "trains/clock.py", clock.replace(" - ", " + "), "return")] \
        == [clock]
    assert _proposed(memory, "trains/clock.py", clock, "return") == []
