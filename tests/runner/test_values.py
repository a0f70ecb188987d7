"""The offline reviewer's evidence, measured for real: what the functions a fix changes return in the passing
tests that run them, with the fix and without, in the sandbox (a warm worker, or a cold pytest)."""

from __future__ import annotations

import pytest

from fixloop.adapters.runner.behaviour import probed
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.select import probe
from fixloop.core.model import FileChange, Limits, Patch
from fixloop.core.review import changed_values
from tests.backends import unavailable
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
