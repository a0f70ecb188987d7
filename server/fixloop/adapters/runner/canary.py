"""The canary: tests whose outcomes are known, run when a candidate changes code pytest itself imports.

When the project is one of pytest's own dependencies (pluggy, packaging, iniconfig, a plugin registered by
an entry point), pytest reports results through the project's code, so a candidate there could make a
failing test look passed. Such a candidate counts as a pass only when, with its change, pytest still
reports each canary test as it must: passes, assertion failures, exceptions, fixture errors, methods,
parametrized cases and skips. The canary runs in its own pytest process, in a folder of its own inside the
copy: the project's configuration and plugins apply to it as to the tests (a plugin its `addopts` loads is
part of the harness too), the run's `-k`/`-m` arguments do not. A project whose configuration changes how
these plain tests come out (an autouse fixture that fails, other function name patterns) gets no fix in
the files pytest imports: the canary cannot vouch for them there.
"""

from __future__ import annotations

from typing import Mapping

from fixloop.core.model import TestReport

CANARY_PATH = ".fixloop_canary/test_canary.py"  # written into the candidate's own fresh copy only

SOURCE = '''\
import pytest


@pytest.fixture
def broken():
    raise RuntimeError("canary: a fixture that fails")


def test_passes():
    assert sum([1, 2]) == 3


def test_assert_fails():
    assert sum([1, 2]) == 4


def test_raises():
    raise ValueError("canary: an exception")


def test_fixture_errors(broken):
    assert broken is None


class TestGroup:
    def test_method_fails(self):
        assert [] == [0]

    def test_method_passes(self):
        assert [0] == [0]


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n == 1


def test_skips():
    pytest.skip("canary: skipped")
'''

# By the node id after the file's name (the rootdir, and so the rest, is the project's to decide).
EXPECTED = {
    "test_passes": "passed",
    "test_assert_fails": "failed",
    "test_raises": "failed",
    "test_fixture_errors": "error",
    "TestGroup::test_method_fails": "failed",
    "TestGroup::test_method_passes": "passed",
    "test_param[1]": "passed",
    "test_param[2]": "failed",
    "test_skips": "skipped",
}


def is_canary(nodeid: str) -> bool:
    return f"/{CANARY_PATH}::" in f"/{nodeid}"


def canary_problem(report: TestReport) -> str:
    """Empty when pytest reported every canary test as it must, else what it got wrong."""
    if report.problem:
        return f"with this change pytest cannot run its canary tests ({report.problem.splitlines()[0][:200]})"
    seen = {r.nodeid.rsplit("test_canary.py::", 1)[-1]: r.outcome for r in report.results}
    wrong = [f"{name} {seen.get(name, 'missing')} (must be {outcome})"
             for name, outcome in EXPECTED.items() if seen.get(name) != outcome]
    extra = sorted(set(seen) - set(EXPECTED))
    if wrong or extra or report.returncode != 1:
        told = ", ".join(wrong[:3] + [f"{n} unexpected" for n in extra[:2]]) or f"exit status {report.returncode}"
        return ("the change alters how pytest reports results (it imports this file itself): its canary "
                f"tests came out wrong: {told}")
    return ""


def without_failure_path(spectra: Mapping[str, Mapping[str, frozenset[int]]]) -> dict[str, dict[str, frozenset[int]]]:
    """The spectrum of a run that had the canary beside the tests, less the canary and less the lines pytest
    runs only because a test failed (the canary's failing tests ran them, its passing ones did not): in the
    project's files pytest imports, those lines go with every failure, whatever the bug."""
    failure_path: dict[str, set[int]] = {}
    normal_path: dict[str, set[int]] = {}
    for test, files in spectra.items():
        if not is_canary(test):
            continue
        outcome = EXPECTED.get(test.rsplit("test_canary.py::", 1)[-1])
        # A skip raises too: it is neither path.
        into = failure_path if outcome in ("failed", "error") else normal_path if outcome == "passed" else None
        for path, lines in files.items() if into is not None else ():
            into.setdefault(path, set()).update(lines)
    noise = {path: frozenset(lines - normal_path.get(path, set())) for path, lines in failure_path.items()}
    return {test: {path: lines - noise.get(path, frozenset()) for path, lines in files.items()}
            for test, files in spectra.items() if not is_canary(test)}
