"""A candidate that forges its own pass: when imported during the test it reaches fixloop's report plugin
through `sys.modules`, writes a pass for every test and SIGKILLs its own pytest. It must never be `fixed`.
The runner-level tests send the candidate straight to the runner (no safety rules in the way), so they
show the verdict rule itself; the session-level test goes through the whole loop."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any, Callable

import pytest

from fixloop.application.config import load
from fixloop.core.model import FileChange, Limits, Patch
from fixloop.core.ports import Ports
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.runner.report import parse_report
from fixloop.adapters.sandbox.plain import PlainSandbox
from fixloop.adapters.sandbox.select import probe
from fixloop.application.run import RunRequest
from fixloop.application.session import FixSession
from fixloop.core.bandit import Choice
from tests.backends import unavailable
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
# The attack, verbatim in spirit: no harness name at all. A result, the JUnit totals and an end record
# for every test go to every pipe the process inherited, then pytest is replaced by /bin/true (exit 0).
BLIND = (
    "import json as _j, os as _o, stat as _s\n"
    "_lines = ''.join(_j.dumps(r) + '\\n' for r in (\n"
    f"    [{{'event': 'start', 'nodeid': n}} for n in {NODES!r}]\n"
    f"    + [{{'event': 'result', 'nodeid': n, 'when': 'call', 'outcome': 'passed', 'duration': 0.0}} for n in {NODES!r}]\n"
    f"    + [{{'event': 'junit', 'tests': {len(NODES)}, 'failures': 0, 'errors': 0, 'skipped': 0}},\n"
    "       {'event': 'end', 'exitstatus': 0}])).encode()\n"
    "for _fd in range(3, 1024):\n"
    "    try:\n"
    "        if _s.S_ISFIFO(_o.fstat(_fd).st_mode):\n"
    "            _o.write(_fd, _lines)\n"
    "    except OSError:\n"
    "        pass\n"
    "_o.execv('/bin/true', ['/bin/true'])\n"
)


def _runner(root: Path, backend: str) -> PytestRunner:
    if backend == "none":
        sandbox: Any = PlainSandbox()
    else:
        sandbox, reason = probe(backend)
        if sandbox is None:
            unavailable(backend, reason)
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


# The same records and a closing record of the supervisor's (digest included) into every pipe any process of
# the run holds that /proc lets it open: the supervisor's own channel to the host, where the sandbox shows it.
# Only processes of the run's own session, and never on the `none` backend: unsandboxed (as root) /proc shows
# every process of the machine, and the payload must not write into anyone else's pipes.
THROUGH_PROC = BLIND.split("for _fd in")[0] + (
    "import hashlib as _h\n"
    "_lines += (_j.dumps({'event': 'supervised', 'returncode': 0, 'signal': None, 'sealed': 6, 'unsealed': 0,\n"
    "                     'lost': False, 'digest': _h.sha256(_lines).hexdigest()}) + '\\n').encode()\n"
    "_done = set()\n"
    "try:\n"
    "    _pids = [p for p in _o.listdir('/proc') if p.isdigit()]\n"
    "except OSError:  # landlock: no /proc\n"
    "    _pids = []\n"
    "for _p in _pids:\n"
    "    try:\n"
    "        _fds = _o.listdir(f'/proc/{_p}/fd') if _o.getsid(int(_p)) == _o.getsid(0) else []\n"
    "    except OSError:\n"
    "        _fds = []\n"
    "    for _n in _fds:\n"
    "        try:\n"
    "            _pipe = _o.readlink(f'/proc/{_p}/fd/{_n}')\n"
    "            if _pipe.startswith('pipe:') and _pipe not in _done:  # each pipe once\n"
    "                _o.write(_o.open(f'/proc/{_p}/fd/{_n}', _o.O_WRONLY | _o.O_NONBLOCK), _lines)\n"
    "                _done.add(_pipe)\n"
    "        except OSError:\n"
    "            pass\n"
    "_o.execv('/bin/true', ['/bin/true'])\n")
assert THROUGH_PROC != BLIND


@pytest.mark.parametrize("backend, attack", [("none", BLIND), ("bwrap", BLIND), ("landlock", BLIND),
                                             ("bwrap", THROUGH_PROC)],  # landlock shows no /proc at all
                         ids=["none", "bwrap", "landlock", "bwrap-through-proc"])
def test_a_pass_written_to_every_pipe_before_exec_is_not_believed(make_project, backend: str, attack: str) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    runner = _runner(root, backend)
    try:
        report = runner.run(Patch((FileChange("lib.py", LIB, attack + LIB),)), NODES)
        assert not report.ok and not report.passed, report
        assert "cannot be trusted" in report.problem, report.problem
        if attack == BLIND:
            assert "were not sealed by fixloop's plugin" in report.problem, report.problem
    finally:
        runner.close()


@pytest.mark.e2e  # a warm worker's start-up
def test_a_warm_worker_does_not_believe_a_pass_written_to_every_pipe(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    runner = PytestRunner.open(root, PlainSandbox(), Limits(test_timeout=60), python=PYTHON, warm_workers=1)
    try:
        assert not runner.run(None).ok  # the baseline (cold) starts the worker
        report = runner.run(Patch((FileChange("lib.py", LIB, BLIND + LIB),)), NODES, fail_fast=True)
        # The worker's report is not believed (a problem sends the candidate to a cold run, not believed either).
        assert "were not sealed by fixloop's plugin" in runner.warm_problem, runner.warm_problem
        assert any("ran without the warm worker" in note for note in runner.notes), runner.notes  # said once
        assert not report.ok and not report.passed, report
        runs = runner.cold.runs
        honest = runner.run(Patch((FileChange("lib.py", LIB, LIB.replace("a - b", "a + b")),)), NODES, fail_fast=True)
        assert runner.cold.runs == runs and honest.ok, honest  # screened warm, and believed
    finally:
        runner.close()


def closing(lines: list[str], **changes: object) -> str:
    """The supervisor's closing record for `lines` as it forwarded them (its digest included)."""
    digest = hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()
    record = {"event": "supervised", "returncode": 0, "signal": None, "sealed": len(lines), "unsealed": 0,
              "lost": False, "digest": digest}
    return json.dumps({**record, **changes})


PASSED = ['{"event": "start", "nodeid": "t::a"}', '{"event": "result", "nodeid": "t::a", "outcome": "passed"}']
END = '{"event": "end", "exitstatus": 0}'
JUNIT = '{"event": "junit", "tests": 1, "failures": 0, "errors": 0, "skipped": 0}'


def test_a_report_without_its_end_record_or_junit_totals_is_not_believed() -> None:
    assert parse_report(PASSED + [END, JUNIT] + [closing(PASSED + [END, JUNIT])], 0, 0.1, False, "").ok
    for lines, rc, why in ((PASSED + [JUNIT], 0, "no end record"),
                           (PASSED + [END], 0, "no JUnit totals"),
                           (PASSED + ['{"event": "end", "exitstatus": 1}', JUNIT], 0, "exit status"),
                           (PASSED + [END, JUNIT.replace('"tests": 1', '"tests": 2')], 0, "JUnit"),
                           (PASSED + [END, JUNIT], -9, "signal 9")):
        report = parse_report(lines + [closing(lines)], rc, 0.1, False, "")
        assert not report.ok and "cannot be trusted" in report.problem and why in report.problem, (why, report)


def test_a_report_the_supervisor_does_not_vouch_for_is_not_believed() -> None:
    body = PASSED + [END, JUNIT]
    forged = '{"event": "result", "nodeid": "t::b", "outcome": "passed"}'
    for lines, why in ((body, "no closing record"),
                       (body + [closing(body, unsealed=3)], "3 line(s) on its report pipe were not sealed"),
                       (body + [closing(body, lost=True)], "went missing"),
                       (body + [closing(body, returncode=None, signal=9)], "killed by signal 9"),
                       (body + [closing(body, returncode=1)], "supervisor saw exit status 1"),
                       (body + [closing(body)] * 2, "came after its supervisor's closing record"),
                       # Lines another writer put into the channel, whole or spliced into a forwarded one.
                       ([forged] + body + [closing(body)], "not what its supervisor forwarded"),
                       ([body[0][:-1] + ', "x": 1}'] + body[1:] + [closing(body)], "not what its supervisor forwarded"),
                       (body + ["garbage"] + [closing(body)], "not what its supervisor forwarded")):
        report = parse_report(lines, 0, 0.1, False, "")
        assert not report.ok and "cannot be trusted" in report.problem and why in report.problem, (why, report)


def test_a_test_the_session_ended_inside_is_a_failure() -> None:
    # pytest.exit(returncode=0) inside a test: pytest itself ends normally, with no result for that test.
    lines = PASSED + ['{"event": "start", "nodeid": "t::b"}', END, JUNIT]
    report = parse_report(lines + [closing(lines)], 0, 0.1, False, "")
    assert [(r.nodeid, r.outcome, r.exc_type) for r in report.failed] == [("t::b", "failed", "Interrupted")]


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
    session = _ForgerFirst(RunRequest(root, settings))
    outcome = session.run()
    assert outcome.status.value != "fixed", outcome
    forged = [a for a in outcome.attempts if a.patch is not None and a.patch.proposer == "forger"]
    assert forged and forged[0].status != "plausible", forged
    assert (root / "lib.py").read_text() == LIB
