"""Code under test is untrusted: it cannot forge a pass, and odd outcomes are not fixes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping, Sequence

import pytest

from fixloop.core.model import FileChange, Limits, Patch, Status, TestReport, TestResult
from fixloop.application.run import RunRequest
from fixloop.core.loop import drive, run
from fixloop.core.model import Task
from fixloop.core.ports import Ports
from fixloop.core.integrity import is_test_file
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.runner.report import parse_report
from tests.runner.test_fake_pass import closing
from fixloop.adapters.sandbox.plain import PlainSandbox
from tests.conftest import PYTHON
from tests.fakes import Call, ScriptedProposer, ScriptedRunner

LIB = "def add(a, b):\n    return a - b\n"
TESTS = "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def _runner(root: Path) -> PytestRunner:
    return PytestRunner.open(root, PlainSandbox(), Limits(), python=PYTHON, warm_workers=0)


def test_a_planted_conftest_and_a_quiet_rewrite_do_not_survive(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    planting = LIB + (
        "import os, pathlib\n"
        "pathlib.Path('conftest.py').write_text('def pytest_collection_modifyitems(items):\\n    items.clear()\\n')\n"
        "t = pathlib.Path('tests/test_lib.py'); st = t.stat()\n"
        "t.write_text(t.read_text().replace('== 5', '!= 5'))\n"
        "os.utime(t, ns=(st.st_atime_ns, st.st_mtime_ns))\n"
    )
    runner = _runner(root)
    try:
        runner.run(Patch((FileChange("lib.py", LIB, planting),)))
        after = runner.run(None)
        assert [r.nodeid for r in after.failed] == ["tests/test_lib.py::test_add"]
        assert not (runner.root / "conftest.py").exists()
    finally:
        runner.close()


@pytest.mark.e2e  # a whole fix session
def test_order_dependent_failure_is_not_called_flaky(make_project) -> None:
    from fixloop.application.config import load
    from fixloop.application.session import FixSession

    root = make_project({
        "cache.py": "CACHE = []\n",
        "tests/test_a.py": "from cache import CACHE\n\ndef test_fill():\n    CACHE.append(1)\n",
        "tests/test_b.py": "from cache import CACHE\n\ndef test_starts_empty():\n    assert CACHE == []\n",
    })
    settings, _ = load({"python": PYTHON, "sandbox": {"backend": "none"}, "memory": {"enabled": False},
                        "offline": True, "warm_workers": 0, "max_candidates": 3})
    session = FixSession(RunRequest(root, settings))
    session.run()
    assert session.outcome.status is not Status.FLAKY


def test_report_that_disagrees_with_pytest_exit_code_is_a_failure() -> None:
    lines = ['{"event": "result", "nodeid": "t::x", "outcome": "passed"}']
    report = parse_report(lines, 1, 0.1, False, "")
    assert report.failed and report.failed[0].exc_type == "ReportMismatch"


def test_malformed_report_lines_are_skipped() -> None:
    lines = ["[]", '{"event": "start"}', '{"event": "result", "nodeid": "a", "outcome": "passed", "frames": [[1]]}',
             '{"event": "result", "nodeid": "b", "outcome": "weird"}', "not json",
             '{"event": "result", "nodeid": "c", "outcome": "passed"}',
             '{"event": "junit", "tests": 2, "failures": 0, "errors": 0, "skipped": 0}',
             '{"event": "end", "exitstatus": 0}']
    report = parse_report(lines + [closing(lines)], 0, 0.1, False, "")
    assert [r.nodeid for r in report.results] == ["c"]


def _table_runner(table: dict[str, tuple[TestResult, ...]]) -> ScriptedRunner:
    """Baseline: t1 fails, t2 passes, t3 was never reached. Candidate outcomes come from a table."""

    def verdict(sources: Mapping[str, str], calls: Sequence[Call]) -> TestReport:
        key = "baseline" if calls[-1].patch is None else sources["m.py"]
        return TestReport(table[key], returncode=1)

    return ScriptedRunner({"m.py": "x = 0\n"}, verdict)


def _loop(table: dict[str, tuple[TestResult, ...]], texts: list[str]):  # type: ignore[no-untyped-def]
    ports = Ports(runner=_table_runner(table), proposers=[ScriptedProposer(texts)], is_test_file=is_test_file,
                  now=iter(range(10_000)).__next__)  # type: ignore[arg-type]
    return drive(run(Task(Path("/ws"), limits=Limits(plausible_lookahead=0, search_factor=0)), ports, "r"))


def test_an_xfailed_target_is_not_a_fix_and_new_failures_break_a_candidate() -> None:
    t1_fail, t2_pass = TestResult("t1", "failed", exc_type="AssertionError"), TestResult("t2", "passed")
    table = {
        "baseline": (t1_fail, t2_pass),
        "x = 1\n": (TestResult("t1", "xfailed"), t2_pass),
        "x = 2\n": (TestResult("t1", "passed"), t2_pass, TestResult("t3", "failed")),
        "x = 3\n": (TestResult("t1", "passed"), t2_pass, TestResult("t3", "passed")),
    }
    outcome = _loop(table, ["x = 1\n", "x = 2\n", "x = 3\n"])
    assert outcome.status is Status.FIXED
    assert outcome.patch.changes[0].after == "x = 3\n"
    assert [a.status for a in outcome.attempts] == ["failed", "failed", "plausible"]


def test_reaching_into_the_harness_is_refused() -> None:
    table = {"baseline": (TestResult("t1", "failed"), TestResult("t2", "passed"))}
    outcome = _loop(table, ["import atexit\nx = 1\n", "import os\nos.environ['FIXLOOP_REPORT']\n",
                            "from _pytest.outcomes import XFailed\n"])
    assert [a.status for a in outcome.attempts] == ["rejected"] * 3
    assert all("test harness" in a.note for a in outcome.attempts)


def test_secret_files_are_not_copied(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS, ".env": "API_KEY=x", "deploy/id_rsa": "k",
                         ".netrc": "machine x"})
    runner = _runner(root)
    try:
        assert not (runner.root / ".env").exists() and not (runner.root / "deploy" / "id_rsa").exists()
        assert not (runner.root / ".netrc").exists() and (runner.root / "lib.py").exists()
    finally:
        runner.close()
    assert os.path.exists(root / ".env")
