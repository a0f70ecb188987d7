"""The offline reviewer's evidence, measured for real: what the functions a fix changes return in the passing
tests that run them, with the fix and without, in the sandbox (a warm worker, or a cold pytest)."""

from __future__ import annotations

import dataclasses
from typing import Callable

import pytest

from fixloop.application.config import load
from fixloop.application.run import RunRequest
from fixloop.application.session import FixSession
from fixloop.adapters.runner.behaviour import probed
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.select import probe
from fixloop.core.bandit import Choice
from fixloop.core.model import FileChange, Limits, Patch
from fixloop.core.ports import Ports
from fixloop.core.review import changed_values
from tests.backends import unavailable
from tests.fakes import Candidate, ScriptedProposer
from tests.project_python import project_python

pytestmark = pytest.mark.e2e

LIB = ("def scale(x):\n    return x * 2\n\n\ndef describe(x):\n    return 'big' if scale(x) > 10 else 'small'\n\n\n"
       "def evens(n):\n    for i in range(n):\n        yield 2 * i\n")
TESTS = ("from lib import describe, evens, scale\n\n\ndef test_small():\n    assert describe(1) == 'small'\n\n\n"
         "def test_big():\n    assert describe(20) == 'big'\n\n\ndef test_scale():\n    assert scale(3) == 7\n\n\n"
         "def test_evens():\n    assert list(evens(2)) == [0, 2]\n")
# Both pass every test; the first changes what `scale` returns for every input, the second only for 3.
EVERYWHERE = Patch((FileChange("lib.py", LIB, LIB.replace("return x * 2\n", "return x * 2 + 1\n")),))
ONLY_THREE = Patch((FileChange("lib.py", LIB, LIB.replace("return x * 2\n", "return x * 2 + (x == 3)\n")),))
GENERATOR = Patch((FileChange("lib.py", LIB, LIB.replace("yield 2 * i", "yield i + i")),))


def test_the_functions_a_fix_changes_are_named() -> None:
    assert probed(EVERYWHERE) == {"lib.py": ["scale"]}
    outside = Patch((FileChange("lib.py", "LIMIT = 3\n\n\n" + LIB, "LIMIT = 4\n\n\n" + LIB),))
    assert probed(outside) is None  # a change outside every function is on no one call


@pytest.mark.parametrize("backend,warm_workers", [("bwrap", 1), ("bwrap", 0), ("landlock", 1)])
def test_values_with_and_without_a_fix_in_the_sandbox(make_project, backend: str, warm_workers: int) -> None:
    sandbox, reason = probe(backend)
    if sandbox is None:
        unavailable(backend, reason)
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    runner = PytestRunner.open(root, sandbox, Limits(test_timeout=120), python=project_python(),
                               warm_workers=warm_workers)
    try:
        assert not runner.run(None).ok
        runner.coverage(())  # the spectrum: which tests run which lines
        cold_runs = runner.cold.runs
        before = runner.values(None, EVERYWHERE)
        assert before is not None and set(before) == {("tests/test_lib.py::test_small", "scale", 0),
                                                      ("tests/test_lib.py::test_big", "scale", 0)}
        everywhere, only_three = runner.values(EVERYWHERE, EVERYWHERE), runner.values(ONLY_THREE, ONLY_THREE)
        assert everywhere is not None and only_three is not None
        assert changed_values(before, everywhere) == (2, 2)
        assert changed_values(runner.values(None, ONLY_THREE) or {}, only_three) == (0, 2)
        assert (runner.cold.runs == cold_runs) == (warm_workers > 0), runner.warm_problem  # warm when it can
        # A generator's yields are its values; a new generator object's address is no difference.
        gen_before, gen_after = runner.values(None, GENERATOR), runner.values(GENERATOR, GENERATOR)
        assert gen_before is not None and gen_after is not None
        assert len(gen_before) >= 2 and changed_values(gen_before, gen_after) == (0, len(gen_before))
    finally:
        runner.close()


CLAMP = "def clamp(x, hi):\n    if x > hi + 1:\n        return hi\n    return x\n"
CLAMP_TESTS = ("from lib import clamp\n\n\ndef test_over():\n    assert clamp(11, 10) == 10\n\n\n"
               "def test_inside():\n    assert clamp(5, 10) == 5\n\n\n"
               "def test_loose():\n    assert clamp(8, 10) <= 10\n")
# Both pass every test. The right fix is the larger change; the smaller one also returns 10 for 8, which
# only a loose test sees.
RIGHT = CLAMP.replace("    if x > hi + 1:\n", "    limit = hi\n    if x > limit:\n")
SMALLER = CLAMP.replace("x > hi + 1", "x > hi - 5")


class _TwoFixesFirst(FixSession):
    def ports(self, runner: PytestRunner, on_choice: Callable[[Choice], None] = lambda choice: None) -> Ports:
        ports = super().ports(runner, on_choice)
        two = ScriptedProposer([Candidate(RIGHT, "scripted", "the right fix"),
                                Candidate(SMALLER, "scripted", "a smaller fix")], path="lib.py", name="two")
        return dataclasses.replace(ports, proposers=[two, *ports.proposers])


def test_a_whole_run_offers_the_fix_that_keeps_the_passing_tests_values(make_project) -> None:
    """Two plausible fixes in one real run: the smaller leads by size, the offline reviewer prefers the one
    that changes no value the passing tests see, and that one is offered."""
    if probe("bwrap")[0] is None:
        unavailable("bwrap", probe("bwrap")[1])
    root = make_project({"lib.py": CLAMP, "tests/test_lib.py": CLAMP_TESTS})
    settings, _ = load({"python": project_python(), "sandbox": {"backend": "bwrap"}, "memory": {"enabled": False},
                        "offline": True})
    outcome = _TwoFixesFirst(RunRequest(root, settings)).run()
    assert outcome.status.value == "fixed", outcome
    assert outcome.patch is not None and outcome.patch.changes[0].after == RIGHT
    assert outcome.patch.meta.get("review") == "prefer (offline)"
    assert (root / "lib.py").read_text() == CLAMP  # nothing written without an accepted edit
