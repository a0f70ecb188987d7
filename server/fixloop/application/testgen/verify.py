"""Is a reproduction test any good? It must fail on the current code, for the stated reason.

The test runs in the sandbox like every test (the project is untrusted); this module only judges the
report. Good: an `AssertionError` raised in the generated test (pytest's rewritten assert shows the
compared values; a Hypothesis property test's, on its falsifying example), `pytest.raises` that saw
nothing raised, or an exception the project's own code raises while the test calls it (the behaviour the words describe). Refused: a test that passes, or one
that fails before it gets to the behaviour (ImportError, SyntaxError, a NameError or TypeError of the
test's own making, a fixture or collection error, Hypothesis's own errors such as `Unsatisfiable`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, Sequence

from fixloop.core.model import Patch, TestReport, TestResult

# Failing on these says the test (or its import) is broken, not the behaviour.
BROKEN = {"ImportError", "ModuleNotFoundError", "SyntaxError", "IndentationError", "TabError"}
# These raised by the test's own line mean it calls things wrongly (or names something that is not there).
OWN_MISTAKES = {"NameError", "TypeError", "AttributeError", "UnboundLocalError"}
# Hypothesis's own errors: the property could not be checked (no valid input, a strategy that does not
# build, a flaky test), which says nothing about the behaviour.
HYPOTHESIS_OWN = {"Unsatisfiable", "FailedHealthCheck", "InvalidArgument", "InvalidDefinition", "ResolutionFailed",
                  "Flaky", "FlakyFailure", "FlakyStrategyDefinition", "FlakyReplay", "DidNotReproduce", "Frozen",
                  "HypothesisException", "HypothesisDeprecationWarning", "HypothesisWarning"}
PASSES = "the generated test passes on the current code: the described behaviour is already there?"


class Runs(Protocol):
    def run(self, patch: Patch | None, select: Sequence[str] = (), fail_fast: bool = False) -> TestReport: ...


@dataclass(frozen=True)
class Verification:
    ok: bool
    message: str  # why it was refused; for an accepted test, what the failure showed
    failing: tuple[str, ...] = ()  # node ids that fail for the stated reason
    observed: str = ""  # the failure's own words, e.g. "assert 10.0 == 9.0"


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _collection_error(text: str) -> str:
    """The exception line of a collection error ("ModuleNotFoundError: No module named 'x'")."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        m = re.match(r"^(?:E\s+)?((?:[\w.]+)(?:Error|Exception|Exit)\b.*)$", line)
        if m:
            return m.group(1)
    return lines[-1] if lines else "a collection error"


def _reason(result: TestResult, test_path: str) -> str:
    """"" when `result` failed on the behaviour; else what went wrong instead."""
    if result.outcome == "error":
        return f"{result.exc_type or 'an error'} while setting the test up (a fixture?): {_first_line(result.message)}"
    exc = result.exc_type
    if exc in BROKEN:
        return f"{exc}: {_first_line(result.message)}"
    innermost = result.frames[-1] if result.frames else None
    in_test = innermost is None or innermost.path == test_path
    if exc in HYPOTHESIS_OWN or (innermost is not None and not innermost.in_project and not in_test
                                 and "/hypothesis/" in innermost.path):
        return f"Hypothesis could not check the property ({exc or 'an error'}): {_first_line(result.message)}"
    if exc == "AssertionError":
        return "" if in_test else f"AssertionError raised inside {innermost.path}:{innermost.line}, not by the test's check"
    if exc == "Failed" and "DID NOT RAISE" in result.message:
        return ""
    if exc == "Timeout" or result.hung:
        return "the test hangs (time limit)"
    if in_test:
        if exc in OWN_MISTAKES or not exc:
            return f"{exc or 'an error'} in the test itself: {_first_line(result.message)}"
        return f"{exc}: {_first_line(result.message)}"
    return ""  # raised by the project's code the test calls: that is the behaviour


def judge(report: TestReport, node_ids: Sequence[str], test_path: str) -> Verification:
    """The verdict on a run of the generated test's `node_ids` on the current code."""
    if report.problem:
        return Verification(False, f"the test could not run: {report.problem}")
    if report.collection_errors:
        return Verification(False, f"fails for the wrong reason: {_collection_error(report.collection_errors[-1])[:300]}")
    if report.timed_out:
        return Verification(False, "fails for the wrong reason: the test run hit its time limit")
    wanted = set(node_ids)
    results = [r for r in report.results if r.nodeid in wanted]
    if not results:
        return Verification(False, "fails for the wrong reason: pytest collected none of the generated tests")
    failed = [r for r in results if r.failed]
    if not failed:
        return Verification(False, PASSES)
    reasons = [(r, _reason(r, test_path)) for r in failed]
    wrong = [(r, why) for r, why in reasons if why]
    if wrong:
        return Verification(False, f"fails for the wrong reason: {wrong[0][1]}")
    observed = "; ".join(_first_line(r.message) or r.exc_type for r in failed)
    return Verification(True, f"{len(failed)} of {len(results)} generated tests fail as described: {observed}",
                        tuple(r.nodeid for r in failed), observed)


def verify(runner: Runs, node_ids: Sequence[str], test_path: str) -> Verification:
    """Run the generated tests (already in the runner's scratch copy) on the current code and judge."""
    return judge(runner.run(None, tuple(node_ids)), node_ids, test_path)
