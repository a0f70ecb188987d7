"""The pytest runner on real fixture projects: results, frames, timeouts, scratch copy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fixloop.core.model import FileChange, Limits, Patch, TestReport
from fixloop.core.selection import Plan, judge
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.hostio import read_beneath
from fixloop.adapters.runner.listing import list_files
from fixloop.adapters.sandbox.plain import PlainSandbox
from fixloop.adapters.sandbox.select import probe
from tests.backends import unavailable
from tests.conftest import PYTHON
from tests.project_python import project_python

LIB = "def add(a, b):\n    return a - b\n"
TESTS = "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n"


def _runner(root: Path, limits: Limits = Limits()) -> PytestRunner:
    return PytestRunner.open(root, PlainSandbox(), limits, python=PYTHON)


def test_report_has_outcomes_exception_and_frames(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    runner = _runner(root)
    try:
        report = runner.run(None)
        by_id = {r.nodeid: r for r in report.results}
        failed = by_id["tests/test_lib.py::test_add"]
        assert failed.outcome == "failed" and failed.exc_type == "AssertionError"
        assert "assert -1 == 5" in failed.message
        assert failed.frames[-1].path == "tests/test_lib.py" and failed.frames[-1].line == 4
        assert by_id["tests/test_lib.py::test_zero"].outcome == "passed"
        patch = Patch((FileChange("lib.py", LIB, LIB.replace("a - b", "a + b")),))
        assert runner.run(patch, ["tests/test_lib.py::test_add"], fail_fast=True).ok
        # The scratch copy is restored after each candidate.
        assert (runner.root / "lib.py").read_text() == LIB
    finally:
        runner.close()
    assert not runner.root.exists()


def test_frames_inside_project_code(make_project) -> None:
    root = make_project({"lib.py": "def get(xs, i):\n    return xs[i]\n",
                         "tests/test_lib.py": "from lib import get\n\ndef test_get():\n    assert get([1], 1) == 1\n"})
    runner = _runner(root)
    try:
        result = runner.run(None).results[0]
        assert result.exc_type == "IndexError"
        assert [(f.path, f.line) for f in result.frames if f.in_project][-1] == ("lib.py", 2)
    finally:
        runner.close()


def test_hanging_test_is_stopped_by_the_per_test_timeout_and_the_run_goes_on(make_project) -> None:
    root = make_project({"tests/test_hang.py": "import time\n\ndef test_hang():\n    time.sleep(60)\n\ndef test_ok():\n    pass\n"})
    runner = _runner(root, Limits(per_test_timeout=1.5, test_timeout=30))
    try:
        report = runner.run(None)
        by_id = {r.nodeid: r for r in report.results}
        hung = by_id["tests/test_hang.py::test_hang"]
        assert hung.exc_type == "Timeout" and hung.hung and "did not finish in 1.5 s" in hung.message
        assert by_id["tests/test_hang.py::test_ok"].outcome == "passed"  # the next test still ran
        assert not report.timed_out and not report.problem
        assert report.duration < 60  # not the 60 s sleep, however busy the machine is
    finally:
        runner.close()


def test_a_test_that_ignores_the_soft_limit_is_killed(make_project) -> None:
    """Blocking the timer's signal does not help: the whole run ends a little later, from inside."""
    body = "import signal, time\n\ndef test_hang():\n    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n    time.sleep(60)\n"
    root = make_project({"tests/test_hang.py": body})
    runner = _runner(root, Limits(per_test_timeout=1.0, test_timeout=30))
    try:
        report = runner.run(None)
        hung = report.results[0]
        assert hung.exc_type == "Timeout" and report.timed_out
        assert report.duration < 60  # killed at 1 + 2 s, however busy the machine is, not at the 30 s run limit
    finally:
        runner.close()


def test_a_loop_that_never_ends_is_stopped_by_its_cpu_limit_and_judged_hung_again_alone(make_project) -> None:
    """The probe stops it in the baseline; judged again alone, it hits the per-test limit too, so it is hung.
    The loop's lines are in its traceback and in its coverage, recorded under a short limit (it is known to hang)."""
    lib = "def count(n):\n    i = 0\n    while i < n:\n        i = i * 2\n    return i\n"
    tests = "from lib import count\n\ndef test_count():\n    assert count(3) == 3\n\ndef test_zero():\n    assert count(0) == 0\n"
    root = make_project({"lib.py": lib, "tests/test_lib.py": tests})
    runner = _runner(root, Limits(per_test_timeout=3, hang_probe_seconds=0.3))
    try:
        report = runner.run(None)
        by_id = {r.nodeid: r for r in report.results}
        hung = by_id["tests/test_lib.py::test_count"]
        assert hung.hung and "did not finish in 3 s" in hung.message  # the second look: the per-test limit
        assert report.duration < 30  # the probe (0.9 s of CPU under coverage), then 3 s: never a long wait
        assert any("even alone" in note and "tests/test_lib.py::test_count" in note for note in runner.notes)
        assert ("lib.py", 4) in {(f.path, f.line) for f in hung.frames} or ("lib.py", 3) in {(f.path, f.line) for f in hung.frames}
        assert by_id["tests/test_lib.py::test_zero"].outcome == "passed"
        assert runner.clock.hung == {"tests/test_lib.py::test_count"}
        again, spectra = runner.coverage(("tests/test_lib.py::test_count", "tests/test_lib.py::test_zero"))
        assert again.duration < 10  # never the full wait again
        assert {3, 4} <= spectra["tests/test_lib.py::test_count"]["lib.py"]
    finally:
        runner.close()


def test_whole_run_timeout_kills_the_process_group(make_project) -> None:
    """A run after the baseline is capped by `test_timeout` (the baseline has no cap of its own)."""
    root = make_project({"tests/test_hang.py": "import time\n\ndef test_hang():\n    time.sleep(60)\n",
                         "tests/test_ok.py": "def test_ok():\n    pass\n"})
    runner = _runner(root, Limits(per_test_timeout=0, test_timeout=2))
    try:
        assert runner.run(None, ["tests/test_ok.py"]).ok  # the baseline
        report = runner.run(None, ["tests/test_hang.py"])
        assert report.timed_out and report.duration < 10
    finally:
        runner.close()


def test_scratch_copy_skips_clutter_and_outside_symlinks(make_project, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("key")
    root = make_project({"lib.py": LIB, ".venv/lib/x.py": "", "node_modules/a.js": "", "__pycache__/x.pyc": "",
                         "tests/test_lib.py": TESTS})
    os.symlink(secret, root / "leak.txt")
    os.symlink(root / "lib.py", root / "alias.py")
    runner = _runner(root)
    try:
        names = sorted(p.relative_to(runner.root).as_posix() for p in runner.root.rglob("*") if not p.is_dir())
        assert "leak.txt" not in names and "alias.py" in names
        assert not any(n.startswith((".venv", "node_modules", "__pycache__")) for n in names)
    finally:
        runner.close()


def test_planted_symlink_report_is_not_followed(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("key")
    os.symlink(tmp_path / "secret", tmp_path / "report.jsonl")
    try:
        read_beneath(tmp_path, "report.jsonl", 1000)
    except OSError:
        pass
    else:
        raise AssertionError("a symlinked report was read")


def test_unsaved_overlay_is_what_runs(make_project) -> None:
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS})
    runner = PytestRunner.open(root, PlainSandbox(), Limits(), python=PYTHON, overlays={"lib.py": LIB.replace("-", "+")})
    try:
        assert runner.run(None).ok
        assert runner.scratch.disk["lib.py"] == LIB.encode()
    finally:
        runner.close()


def test_the_spectrum_sees_project_code_that_a_test_runs_with_os_path_patched(make_project) -> None:
    """Coverage decides once per file whether to trace it: a test that patches `os.path.join` (as real suites
    do to fake another platform) must not make it skip the project's files."""
    lib = "import os\n\n\ndef where(name):\n    return os.path.join('/data', name)\n"
    tests = ("import os\n\nimport lib\n\n\ndef test_where(monkeypatch):\n"
             "    monkeypatch.setattr(os.path, 'join', lambda *parts: '/'.join(parts))\n"
             "    assert lib.where('x') == '/data/y'\n")
    root = make_project({"lib.py": lib, "tests/test_lib.py": tests})
    runner = _runner(root)
    try:
        report, spectra = runner.coverage(())
        assert report.failed and spectra["tests/test_lib.py::test_where"].get("lib.py") == frozenset({5})
    finally:
        runner.close()


def test_a_suite_that_turns_warnings_into_errors_runs_every_way(make_project) -> None:
    """`filterwarnings = error` is common; fixloop's own plugin must raise no warning of its own there (pytest
    warned that it could not rewrite a module the supervisor had imported, and the suite ended before its
    first test): the baseline, the spectrum's run and a candidate's screening all report their tests."""
    lib = "def inc(x):\n    return x + 2\n"
    tests = "from lib import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n\n\ndef test_ok():\n    assert inc\n"
    root = make_project({"lib.py": lib, "tests/test_lib.py": tests,
                         "pytest.ini": "[pytest]\nfilterwarnings =\n    error\n"})
    runner = _runner(root)
    try:
        report = runner.run(None)
        assert not report.problem and {r.nodeid: r.outcome for r in report.results} == {
            "tests/test_lib.py::test_inc": "failed", "tests/test_lib.py::test_ok": "passed"}
        spectrum, spectra = runner.coverage(("tests/test_lib.py::test_inc", "tests/test_lib.py::test_ok"))
        assert not spectrum.problem and spectra["tests/test_lib.py::test_inc"]["lib.py"] == frozenset({2})
        fixed = Patch((FileChange("lib.py", lib, lib.replace("x + 2", "x + 1")),))
        screened = runner.run(fixed, ["tests/test_lib.py::test_inc"], fail_fast=True)
        assert not screened.problem and [r.outcome for r in screened.results] == ["passed"]
    finally:
        runner.close()


def test_a_suite_that_asks_pytest_xdist_for_workers_runs_in_one_process(make_project) -> None:
    """`addopts = -n 2` (pytest-xdist) is common: its workers would run the tests without fixloop's report
    pipe, so nothing of them (results, times, lines) reached the host; every run is one process instead."""
    lib = "def inc(x):\n    return x + 2\n"
    tests = "from lib import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n\n\ndef test_ok():\n    assert inc\n"
    root = make_project({"lib.py": lib, "tests/test_lib.py": tests, "pytest.ini": "[pytest]\naddopts = -n 2\n"})
    runner = PytestRunner.open(root, PlainSandbox(), Limits(), python=project_python(("pytest", "pytest-xdist")))
    try:
        report = runner.run(None)
        assert not report.problem and {r.nodeid: r.outcome for r in report.results} == {
            "tests/test_lib.py::test_inc": "failed", "tests/test_lib.py::test_ok": "passed"}
        _, spectra = runner.coverage(("tests/test_lib.py::test_inc", "tests/test_lib.py::test_ok"))
        assert spectra["tests/test_lib.py::test_inc"]["lib.py"] == frozenset({2})
        fixed = Patch((FileChange("lib.py", lib, lib.replace("x + 2", "x + 1")),))
        assert [r.outcome for r in runner.run(fixed, ["tests/test_lib.py::test_inc"], fail_fast=True).results] == [
            "passed"]
        assert runner.run(fixed).ok
    finally:
        runner.close()


def test_a_suite_that_measures_coverage_with_a_floor_still_passes_a_few_tests(make_project) -> None:
    """`addopts = --cov=lib --cov-fail-under=100` (pytest-cov): a run of one test measures less, and pytest-cov
    would fail it; fixloop's runs leave pytest-cov's measurement to the user's own runs."""
    lib = "def inc(x):\n    return x + 2\n\n\ndef dec(x):\n    return x - 1\n"
    tests = ("from lib import dec, inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n\n\n"
             "def test_dec():\n    assert dec(1) == 0\n")
    root = make_project({"lib.py": lib, "tests/test_lib.py": tests,
                         "pytest.ini": "[pytest]\naddopts = --cov=lib --cov-fail-under=100\n"})
    runner = PytestRunner.open(root, PlainSandbox(), Limits(), python=project_python(("pytest", "pytest-cov")),
                               warm_workers=0)
    try:
        report = runner.run(None)
        assert not report.problem and {r.nodeid: r.outcome for r in report.results} == {
            "tests/test_lib.py::test_inc": "failed", "tests/test_lib.py::test_dec": "passed"}
        _, spectra = runner.coverage(("tests/test_lib.py::test_inc",))
        assert spectra["tests/test_lib.py::test_inc"]["lib.py"] == frozenset({2})
        fixed = Patch((FileChange("lib.py", lib, lib.replace("x + 2", "x + 1")),))
        screened = runner.run(fixed, ["tests/test_lib.py::test_inc"], fail_fast=True)
        assert not screened.problem and screened.ok
    finally:
        runner.close()


MOMENT_TESTS = ("import time\n\nimport pytest\n\nfrom lib import inc\n\n\n"
                "@pytest.mark.parametrize('stamp', [str(time.time_ns())])\ndef test_stamp(stamp):\n    assert stamp\n\n\n"
                "def test_inc():\n    assert inc(1) == 2\n")


def test_a_test_whose_id_is_made_of_the_moment_neither_ends_a_run_nor_breaks_a_fix(make_project) -> None:
    """`@parametrize` with the time (real suites format `datetime.now()`) gives a test a new id in every run:
    selected by its old id it must not end the run ("not found"), and missing under its old id from a fix's
    full run it is not a test the fix broke."""
    lib = "def inc(x):\n    return x + 2\n"
    root = make_project({"lib.py": lib, "tests/test_lib.py": MOMENT_TESTS})
    runner = _runner(root)
    try:
        baseline = runner.run(None)
        stamp = next(r.nodeid for r in baseline.results if "test_stamp[" in r.nodeid)
        report, spectra = runner.coverage(("tests/test_lib.py::test_inc", stamp))
        assert not report.problem and {r.outcome for r in report.results} == {"failed", "passed"}
        assert spectra["tests/test_lib.py::test_inc"]["lib.py"] == frozenset({2})
        fixed = Patch((FileChange("lib.py", lib, lib.replace("x + 2", "x + 1")),))
        plan = Plan(("tests/test_lib.py::test_inc",), (), frozenset({stamp}), frozenset({"tests/test_lib.py::test_inc"}))
        judging = judge(runner, fixed, plan)
        while True:
            try:
                next(judging)
            except StopIteration as done:
                status, full, _ = done.value
                break
        assert status == "plausible" and stamp not in {r.nodeid for r in full.results}
    finally:
        runner.close()


@pytest.mark.e2e
@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_a_suite_runs_with_a_fix_and_without_it_at_once(make_project, backend: str) -> None:
    """The confirmation of a narrowed run's fix: two sandboxed processes at the same time, each on its own copy
    at the project's path, each seeing only its own code."""
    sandbox, reason = probe(backend)
    if sandbox is None:
        unavailable(backend, reason)
    slow = "import time\n\n\ndef test_slow():\n    time.sleep(1.5)\n"
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS, "tests/test_slow.py": slow})
    runner = PytestRunner.open(root, sandbox, Limits(test_timeout=60), python=project_python(), warm_workers=0)
    try:
        runner.run(None)
        patch = Patch((FileChange("lib.py", LIB, LIB.replace("a - b", "a + b")),))
        before, after = runner.run_pair(patch, ())
        assert [r.nodeid for r in before.failed] == ["tests/test_lib.py::test_add"] and len(before.passed) == 2
        assert after.ok and len(after.passed) == 3
        assert (runner.root / "lib.py").read_text() == LIB
    finally:
        runner.close()


def test_a_limit_that_fires_while_pytest_reports_a_test_does_not_end_the_session(make_project) -> None:
    """The project's own code may run outside a test's setup, call and teardown (a conftest hook while pytest
    reports it): a time limit raised there would end the whole session and leave every later test unrun."""
    conftest = ("import time\n\n\ndef pytest_runtest_logreport(report):\n"
                "    if report.when == 'call' and report.nodeid.endswith('test_reported_slowly'):\n"
                "        started = time.process_time()\n        while time.process_time() - started < 1.5:\n"
                "            pass\n")
    tests = "def test_reported_slowly():\n    pass\n\n\ndef test_after():\n    pass\n"
    outcomes, report = _baseline_with_a_short_probe(make_project({"conftest.py": conftest, "tests/test_x.py": tests}))
    assert outcomes == {"tests/test_x.py::test_reported_slowly": "passed", "tests/test_x.py::test_after": "passed"}
    assert not report.problem


def test_a_limit_never_fires_where_the_code_has_no_line_number(make_project) -> None:
    """pytest cannot report an exception raised at an instruction without a line (its INTERNALERROR ended
    networkx's session after a third of its tests): the limit waits for code that has one."""
    lib = ("import time\n\n\ndef _spin():\n    started = time.process_time()\n"
           "    while time.process_time() - started < 1.5:\n        pass\n\n\n"
           "spin = type(_spin)(_spin.__code__.replace(co_linetable=b''), globals())\n")
    tests = "from lib import spin\n\n\ndef test_spins():\n    spin()\n\n\ndef test_after():\n    pass\n"
    outcomes, report = _baseline_with_a_short_probe(make_project({"lib.py": lib, "tests/test_x.py": tests}))
    assert outcomes.get("tests/test_x.py::test_after") == "passed", (outcomes, report.output_tail[-2000:])
    assert "tests/test_x.py::test_spins" in outcomes and not report.problem


def _baseline_with_a_short_probe(root: Path) -> tuple[dict[str, str], TestReport]:
    """(each test's outcome, the report) of the baseline, whose hang probe fires after 0.3 s of CPU."""
    runner = _runner(root, Limits(per_test_timeout=10, hang_probe_seconds=0.3))
    try:
        report = runner.run(None)
        return {r.nodeid: r.outcome for r in report.results}, report
    finally:
        runner.close()


def test_a_suite_that_fails_on_a_warm_worker_and_runs_cold_is_not_tried_warm_again(make_project, tmp_path: Path) -> None:
    """A conftest that configures a library once a process (Django's `settings.configure()` in
    `pytest_configure`, as Django REST framework's does) fails in every warm child, which inherits the
    configured library from its server: the first candidate that fails there and runs cold ends the warm
    screening for the run, instead of paying a failed warm run before each cold one."""
    log = tmp_path / "configured.log"
    conftest = ("import sys\n\n\ndef pytest_configure(config):\n    if not config.option.collectonly:\n"
                f"        with open({str(log)!r}, 'a') as f:\n            f.write('run\\n')\n"
                "    if getattr(sys, 'configured_once', False):\n        raise RuntimeError('Settings already configured.')\n"
                "    sys.configured_once = True\n")
    root = make_project({"lib.py": LIB, "tests/test_lib.py": TESTS, "conftest.py": conftest})
    runner = _runner(root)
    try:
        assert runner.run(None).failed
        first = Patch((FileChange("lib.py", LIB, LIB.replace("a - b", "a * b")),))
        assert runner.run(first, ["tests/test_lib.py::test_add"], fail_fast=True).failed  # warm failed, then cold
        assert runner.screening.retired and any("without the warm worker" in n for n in runner.notes)
        runs = len(log.read_text().splitlines())
        fixed = Patch((FileChange("lib.py", LIB, LIB.replace("a - b", "a + b")),))
        report = runner.run(fixed, ["tests/test_lib.py::test_add"], fail_fast=True)
        assert [r.outcome for r in report.results] == ["passed"]
        assert len(log.read_text().splitlines()) == runs + 1  # one cold pytest, no warm child before it
    finally:
        runner.close()


def test_the_spectrum_runs_in_two_halves_at_once_and_records_every_test(make_project) -> None:
    """Six traced tests go to the two warm workers in two halves, in their order: each half is its own
    process (the failing test, last, sees only its half's tests before it), and every test's lines and
    result come back in one report."""
    lib = "def inc(x):\n    return x + 2\n"
    tests = ("from lib import inc\n\nseen = []\n\n" +
             "".join(f"def test_p{i}():\n    seen.append({i})\n    assert inc({i}) > 0\n\n" for i in range(1, 6)) +
             "def test_inc():\n    assert inc(1) == 2, f'ran before me: {seen}'\n")
    root = make_project({"lib.py": lib, "tests/test_lib.py": tests})
    runner = _runner(root)
    try:
        assert not runner.run(None).ok  # the baseline: the workers start
        select = tuple(f"tests/test_lib.py::test_p{i}" for i in range(1, 6)) + ("tests/test_lib.py::test_inc",)
        report, spectra = runner.coverage(select)
        assert sorted(r.nodeid for r in report.results) == sorted(select)
        assert set(spectra) == set(select) and all(spectra[t]["lib.py"] == frozenset({2}) for t in select)
        failed = next(r for r in report.results if r.nodeid.endswith("test_inc"))
        assert "ran before me: [4, 5]" in failed.message
    finally:
        runner.close()
