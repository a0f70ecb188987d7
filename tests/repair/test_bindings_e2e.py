"""Whole offline fix runs on generated projects whose bug is outside any function body (a `def` default, a
class attribute, a module constant two calls away from the test), and one where the only passing edit
puts a function where a local value was: that "fix" must never be proposed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from fixloop.application.config import load
from fixloop.application.run import RunRequest
from fixloop.core.model import Event, Outcome, Status
from fixloop.core.model import Limits
from fixloop.engines.repair.localize import SpectrumLocalizer
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.plain import PlainSandbox
from fixloop.application.session import FixSession
from tests.conftest import PYTHON

PYPROJECT = '[project]\nname = "p"\nversion = "0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in {"pyproject.toml": PYPROJECT, **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def fix(work: Path, max_candidates: int) -> tuple[Outcome, list[Event]]:
    settings, problems = load({"python": PYTHON, "offline": True, "memory": {"enabled": False},
                               "sandbox": {"backend": "none"}, "max_candidates": max_candidates})
    assert not problems
    events: list[Event] = []
    return FixSession(RunRequest(work, settings)).run(events.append), events


def changed_lines(outcome: Outcome) -> list[str]:
    assert outcome.patch is not None
    change = outcome.patch.changes[0]
    return sorted(set(change.after.splitlines()) - set(change.before.splitlines()))


@pytest.mark.e2e  # a whole offline fix session
def test_a_wrong_def_default_is_fixed_at_the_def_line(tmp_path: Path) -> None:
    work = project(tmp_path / "pager", {
        "pager.py": '''
            """Split a list into pages."""


            def page(items, number, size=11):
                """The items on page `number` (1-based), `size` per page."""
                start = (number - 1) * size
                return items[start:start + size]
        ''',
        "tests/test_pager.py": '''
            from pager import page


            def test_first_page():
                assert page(list(range(25)), 1) == list(range(10))


            def test_last_page():
                assert page(list(range(25)), 3) == [20, 21, 22, 23, 24]


            def test_explicit_size():
                assert page(list(range(9)), 2, size=4) == [4, 5, 6, 7]
        ''',
    })
    outcome, events = fix(work, max_candidates=25)
    assert outcome.status is Status.FIXED, outcome.message
    assert changed_lines(outcome) == ["def page(items, number, size=10):"]
    localized = next(e for e in events if e.kind == "localized")
    assert "pager.py:4" in localized.data["suspects"][:5]


@pytest.mark.e2e  # a whole offline fix session
def test_a_wrong_class_attribute_is_fixed_where_it_is_bound(tmp_path: Path) -> None:
    work = project(tmp_path / "limiter", {
        "limiter.py": '''
            """A fixed-window rate limiter: five calls a minute."""


            class RateLimiter:
                max_calls = 4
                window = 60.0

                def __init__(self):
                    self.calls = []

                def allow(self, now):
                    self.calls = [t for t in self.calls if now - t < self.window]
                    if len(self.calls) >= self.max_calls:
                        return False
                    self.calls.append(now)
                    return True

                def remaining(self, now):
                    recent = [t for t in self.calls if now - t < self.window]
                    return self.max_calls - len(recent)
        ''',
        "tests/test_limiter.py": '''
            from limiter import RateLimiter


            def test_five_calls_allowed():
                limiter = RateLimiter()
                assert all(limiter.allow(float(i)) for i in range(5))


            def test_sixth_call_refused():
                limiter = RateLimiter()
                for i in range(5):
                    limiter.allow(float(i))
                assert not limiter.allow(5.0)


            def test_window_expires():
                limiter = RateLimiter()
                limiter.allow(0.0)
                assert limiter.allow(61.0)


            def test_remaining():
                limiter = RateLimiter()
                limiter.allow(0.0)
                assert limiter.remaining(1.0) == 4
        ''',
    })
    outcome, _ = fix(work, max_candidates=40)
    assert outcome.status is Status.FIXED, outcome.message
    assert changed_lines(outcome) == ["    max_calls = 5"]


@pytest.mark.e2e  # a whole offline fix session
def test_a_module_constant_two_calls_from_the_test_is_fixed(tmp_path: Path) -> None:
    work = project(tmp_path / "report", {
        "report/__init__.py": "",
        "report/text.py": '''
            """Text helpers for report cells."""

            MAX_WIDTH = 9
            ELLIPSIS = "..."


            def shorten(text):
                """`text` cut to MAX_WIDTH characters, the cut marked with an ellipsis."""
                if len(text) <= MAX_WIDTH:
                    return text
                return text[: MAX_WIDTH - len(ELLIPSIS)] + ELLIPSIS
        ''',
        "report/table.py": '''
            """Plain-text tables: cells ten characters wide."""

            from .text import shorten


            def cell(value):
                return shorten(str(value)).ljust(10)


            def row(values):
                return "|".join(cell(v) for v in values)
        ''',
        "tests/test_table.py": '''
            from report.table import row


            def test_short_values_are_padded():
                assert row(["a", 1]) == "a         |1         "


            def test_ten_characters_fit():
                assert row(["abcdefghij"]) == "abcdefghij"


            def test_long_values_are_cut():
                assert row(["abcdefghijklmnop"]) == "abcdefg..."
        ''',
    })
    outcome, _ = fix(work, max_candidates=30)
    assert outcome.status is Status.FIXED, outcome.message
    assert outcome.patch is not None and outcome.patch.paths == ("report/text.py",)
    assert changed_lines(outcome) == ["MAX_WIDTH = 10"]


@pytest.mark.e2e  # a whole offline fix session
def test_a_function_is_never_put_where_a_local_value_was(tmp_path: Path) -> None:
    # The tests are weak: every row under one key passes them. `totals[normalize]` would, and is wrong.
    work = project(tmp_path / "totals", {
        "totals.py": '''
            """Totals per customer."""

            from collections import defaultdict


            def normalize(name):
                return " ".join(name.split()).lower()


            def group_totals(rows):
                totals = defaultdict(int)
                for row in rows:
                    key = row["name"]
                    totals[key] += row["amount"]
                return dict(totals)


            def grand_total(rows):
                return sum(group_totals(rows).values())
        ''',
        "tests/test_totals.py": '''
            from totals import grand_total, group_totals, normalize


            def test_normalize():
                assert normalize("  Ann  Lee ") == "ann lee"


            def test_same_customer_is_one_group():
                rows = [{"name": "Ann", "amount": 2}, {"name": "ann", "amount": 3}]
                assert sorted(group_totals(rows).values()) == [5]


            def test_grand_total():
                rows = [{"name": "Ann", "amount": 2}, {"name": "Bob", "amount": 3}]
                assert grand_total(rows) == 5
        ''',
    })
    outcome, events = fix(work, max_candidates=40)
    tried = [e.data["summary"].split(": ", 1)[1] for e in events if e.kind == "candidate"]
    values, functions = ("key", "row", "rows", "totals"), ("normalize", "defaultdict", "group_totals", "grand_total")
    assert tried and not {f"{v} -> {f}" for v in values for f in functions} & set(tried)
    if outcome.status is Status.FIXED:
        assert not any("normalize]" in line for line in changed_lines(outcome))


@pytest.mark.e2e  # two real pytest runs (baseline, spectrum)
def test_a_cache_filled_by_the_first_test_is_not_blamed_on_the_failing_test(tmp_path: Path) -> None:
    work = project(tmp_path / "units", {
        "units.py": '''
            _FACTORS = None


            def factors():
                global _FACTORS
                if _FACTORS is None:
                    table = {"m": 1, "km": 1000}
                    table["cm"] = 0.01
                    _FACTORS = table
                return _FACTORS


            def convert(value, unit):
                return value * factors()[unit]


            def to_metres(values, unit):
                return [convert(v, unit) for v in values[1:]]
        ''',
        "tests/test_units.py": '''
            from units import convert, to_metres


            def test_to_metres():
                assert to_metres([1, 2], "km") == [1000, 2000]


            def test_convert_km():
                assert convert(2, "km") == 2000


            def test_convert_cm():
                assert convert(200, "cm") == 2
        ''',
    })
    runner = PytestRunner.open(work, PlainSandbox(), Limits(), python=PYTHON, warm_workers=0)
    try:
        baseline = runner.run(None, ())
        failing = [r.nodeid for r in baseline.failed]
        assert failing == ["tests/test_units.py::test_to_metres"]
        localizer = SpectrumLocalizer(runner, lambda p: p.startswith("tests/"))
        suspects = localizer.localize(baseline, runner.sources(), failing)
    finally:
        runner.close()
    score = {s.line: s.score for s in suspects if s.path == "units.py"}
    # The failing test comes first in its file, so it filled the cache in a plain run; the spectrum runs it
    # last, and the cache's lines are shared with the passing tests like `convert`'s.
    assert score.get(7, 0.0) < score[14] and score.get(8, 0.0) < score[14]
