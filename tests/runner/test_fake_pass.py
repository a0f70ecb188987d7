"""A candidate that forges its own pass: when imported during the test it reaches fixloop's report plugin
through `sys.modules`, writes a pass for every test and SIGKILLs its own pytest. It must never be `fixed`.
The runner-level tests send the candidate straight to the runner (no safety rules in the way), so they
show the verdict rule itself; the session-level test goes through the whole loop."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

import pytest

from fixloop.config import load
from fixloop.core.model import FileChange, Limits, Patch
from fixloop.core.ports import Ports
from fixloop.runner.pytest_runner import PytestRunner
from fixloop.runner.report import parse_report
from fixloop.sandbox.plain import PlainSandbox
from fixloop.sandbox.select import probe
from fixloop.session import FixSession
from fixloop.strategies.bandit import Choice
from tests.conftest import PYTHON
from tests.fakes import Candidate, ScriptedProposer

LIB = "def add(a, b):\n    return a - b\n"
TESTS = "from lib import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
NODES = ["tests/test_lib.py::test_add", "tests/test_lib.py::test_zero"]
# Names built at run time, so that a patch check reading the source sees no harness name.
FORGE = (
    "import gc as _g\n"
    "_sy = __import__('s' + 'ys')\n"
    "_os = __import__('o' + 's')\n"
    "_rep = getattr(_sy, 'mod' + 'ules').get('fixloop' + '_report')\n"
    "if _rep is not None:\n"
    f"    for _n in {NODES!r}:\n"
    "        getattr(_rep, '_wr' + 'ite')({'event': 'result', 'nodeid': _n, 'when': 'call', 'outcome': 'passed',\n"
    "                                      'duration': 0.0})\n"
    "    getattr(_rep, '_wr' + 'ite')({'event': 'end', 'exitstatus': 0})\n"
    "    getattr(_os, 'ki' + 'll')(getattr(_os, 'get' + 'pid')(), 9)\n"
)
FORGED = FORGE + LIB


def _runner(root: Path, backend: str) -> PytestRunner:
    if backend == "none":
        sandbox: Any = PlainSandbox()
    else:
        sandbox, reason = probe(backend)
        if sandbox is None:
            pytest.skip(f"{backend} unavailable: {reason}")
    return PytestRunner.open(root, sandbox, Limits(test_timeout=60), python=PYTHON, warm_workers=0)


@pytest.mark.parametrize("backend", ["none", "bwrap", "landlock"])
def test_a_forged_pass_from_a_killed_pytest_is_not_believed(make_project, backend: str) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    runner = _runner(root, backend)
    try:
        report = runner.run(Patch((FileChange("lib.py", LIB, FORGED),)), NODES)
        assert not report.ok, report
        assert "did not finish normally" in report.problem and "cannot be trusted" in report.problem, report
        assert "signal 9" in report.problem
        honest = runner.run(Patch((FileChange("lib.py", LIB, LIB.replace("a - b", "a + b")),)), NODES)
        assert honest.ok and not honest.problem, honest
    finally:
        runner.close()


def test_a_report_without_its_end_record_or_junit_totals_is_not_believed() -> None:
    passed = ['{"event": "start", "nodeid": "t::a"}', '{"event": "result", "nodeid": "t::a", "outcome": "passed"}']
    end = '{"event": "end", "exitstatus": 0}'
    junit = '{"event": "junit", "tests": 1, "failures": 0, "errors": 0, "skipped": 0}'
    assert parse_report(passed + [end, junit], 0, 0.1, False, "").ok
    for lines, rc, why in ((passed + [junit], 0, "no end record"),
                           (passed + [end], 0, "no JUnit totals"),
                           (passed + ['{"event": "end", "exitstatus": 1}', junit], 0, "exit status"),
                           (passed + [end, junit.replace('"tests": 1', '"tests": 2')], 0, "JUnit"),
                           (passed + [end, junit], -9, "signal 9")):
        report = parse_report(lines, rc, 0.1, False, "")
        assert not report.ok and "cannot be trusted" in report.problem and why in report.problem, (why, report)


class _ForgerFirst(FixSession):
    def ports(self, runner: PytestRunner, on_choice: Callable[[Choice], None] = lambda choice: None) -> Ports:
        ports = super().ports(runner, on_choice)
        forger = ScriptedProposer([Candidate(FORGED, "forge", "forge a pass")], path="lib.py", name="forger")
        return dataclasses.replace(ports, proposers=[forger, *ports.proposers])


@pytest.mark.e2e  # a whole fix session (the runner-level tests above stay fast)
def test_a_forging_candidate_is_never_fixed(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    settings, _ = load({"python": PYTHON, "sandbox": {"backend": "none"}, "memory": {"enabled": False},
                        "offline": True, "warm_workers": 0, "max_candidates": 1})
    session = _ForgerFirst(root, settings)
    outcome = session.run()
    assert outcome.status.value != "fixed", outcome
    forged = [a for a in outcome.attempts if a.patch is not None and a.patch.proposer == "forger"]
    assert forged and forged[0].status != "plausible", forged
    assert (root / "lib.py").read_text() == LIB
