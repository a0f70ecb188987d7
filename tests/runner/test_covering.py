"""Which tests run the code a patch changes (pure: the baseline's per-test lines against the patch)."""

from __future__ import annotations

from fixloop.core.model import FileChange, Patch
from fixloop.adapters.runner.covering import apart, changed_lines, covering, touched_functions

LIB = """\
LIMIT = 10


def clamp(x, top=LIMIT):
    if x > top:
        return top
    return x


class Box:
    size = 3

    @staticmethod
    def grow(n):
        def inner(k):
            return k + 1
        return inner(n) * 2


def unused():
    return 0
"""
# Lines each test ran (the def lines and the decorator run at import: no test shows them).
SPECTRA = {
    "t.py::test_clamp": {"lib.py": frozenset({5, 6, 7}), "t.py": frozenset({3})},
    "t.py::test_grow": {"lib.py": frozenset({15, 16, 17}), "t.py": frozenset({6})},
    "t.py::test_other": {"t.py": frozenset({9})},
}


def _patch(old: str, new: str) -> Patch:
    assert old in LIB
    return Patch((FileChange("lib.py", LIB, LIB.replace(old, new, 1)),))


def test_a_change_in_a_body_is_run_by_the_tests_that_ran_that_function() -> None:
    assert covering(SPECTRA, _patch("if x > top:", "if x >= top:")) == {"t.py::test_clamp"}


def test_a_default_value_in_the_def_line_counts_for_the_tests_that_call_the_function() -> None:
    """A default runs at import, so no test's lines show the `def` line; its callers run the body."""
    assert covering(SPECTRA, _patch("def clamp(x, top=LIMIT):", "def clamp(x, top=LIMIT - 1):")) == {
        "t.py::test_clamp"}


def test_a_nested_function_and_a_decorated_method_count_as_their_innermost_function() -> None:
    patch = _patch("return k + 1", "return k - 1")
    assert touched_functions(patch.changes[0].before, patch.changes[0].after) == ((15, 16),)
    assert covering(SPECTRA, patch) == {"t.py::test_grow"}
    assert covering(SPECTRA, _patch("    @staticmethod\n", "")) == {"t.py::test_grow"}


def test_a_function_no_test_runs_is_covered_by_none() -> None:
    assert covering(SPECTRA, _patch("return 0", "return 1")) == frozenset()


def test_a_change_outside_every_function_narrows_nothing() -> None:
    assert covering(SPECTRA, _patch("LIMIT = 10", "LIMIT = 11")) is None
    assert covering(SPECTRA, _patch("size = 3", "size = 4")) is None
    assert covering(SPECTRA, Patch((FileChange("new.py", "", "x = 1\n"),))) is None
    assert covering(SPECTRA, Patch((FileChange("bad.py", "def f(:\n", "def f():\n"),))) is None


def test_the_tests_apart_from_a_change_are_the_recorded_ones_that_never_enter_its_functions() -> None:
    tests = ("t.py::test_clamp", "t.py::test_grow", "t.py::test_other", "t.py::test_unrecorded")
    # An unrecorded test may run anything: never apart.
    assert apart(SPECTRA, _patch("return top", "return top - 1"), tests) == {"t.py::test_grow", "t.py::test_other"}
    assert apart(SPECTRA, _patch("return k + 1", "return k"), tests) == {"t.py::test_clamp", "t.py::test_other"}
    # A module constant or a class attribute may reach any test that imports the module: none is apart.
    assert apart(SPECTRA, _patch("LIMIT = 10", "LIMIT = 11"), tests) == frozenset()
    assert apart(SPECTRA, _patch("size = 3", "size = 4"), tests) == frozenset()


def test_changed_lines_place_an_insertion_at_the_line_before_it() -> None:
    assert changed_lines("a\nb\nc\n", "a\nB\nc\n") == {2}
    assert changed_lines("a\nb\nc\n", "a\nb\nx\nc\n") == {2}
    assert changed_lines("a\nb\nc\n", "a\nc\n") == {2}
