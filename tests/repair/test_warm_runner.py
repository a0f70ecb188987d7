"""Warm fork-server workers and the coverage run, exercised for real: real pytest, real forks."""

from __future__ import annotations

import os
import signal
import textwrap
import time
from pathlib import Path

import pytest

from fixloop.core.model import FileChange, Limits, Patch
from fixloop.adapters.runner.cold import candidate_files
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.plain import PlainSandbox
from tests.conftest import PYTHON

MODULE = "def half(x):\n    return x * 2\n"
TESTS = textwrap.dedent('''
    import os

    import mod

    CALLS = []


    def test_half():
        assert mod.half(4) == 2


    def test_state_starts_clean():
        CALLS.append(1)
        assert CALLS == [1]


    def test_files_start_clean():
        assert not os.path.exists("marker.txt")
        with open("marker.txt", "w") as f:
            f.write("x")


    def test_other():
        assert mod.half(0) == 0
''')


def patch_with(text: str) -> Patch:
    return Patch((FileChange("mod.py", MODULE, text),), "test", "manual")


@pytest.fixture(scope="module")
def runner(tmp_path_factory: pytest.TempPathFactory) -> PytestRunner:
    root = tmp_path_factory.mktemp("proj")
    (root / "mod.py").write_text(MODULE)
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text(TESTS)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    r = PytestRunner.open(root, PlainSandbox(), Limits(test_timeout=60, per_test_timeout=5), PYTHON,
                     warm_workers=1, candidate_memory_mb=1024)
    yield r
    r.close()


TARGET = ("tests/test_mod.py::test_half",)
ALL = ("tests/test_mod.py",)


def test_baseline_is_a_normal_run(runner: PytestRunner) -> None:
    report = runner.run(None)
    assert [r.nodeid for r in report.failed] == list(TARGET)
    assert len(report.passed) == 3


def test_a_screening_run_goes_to_the_warm_worker_and_matches_a_cold_run(runner: PytestRunner) -> None:
    fixed = patch_with("def half(x):\n    return x / 2\n")
    warm = runner.run(fixed, TARGET, fail_fast=True)
    assert runner.pool is not None and not runner.warm_problem
    assert [r.outcome for r in warm.results] == ["passed"]
    still_broken = runner.run(patch_with("def half(x):\n    return x + 2\n"), TARGET, fail_fast=True)
    assert still_broken.failed and still_broken.failed[0].exc_type == "AssertionError"
    both = TARGET + ("tests/test_mod.py::test_other",)
    cold = runner.run(fixed, both, fail_fast=False)  # the confirmation stays a normal sandboxed run
    assert cold.ok and len(cold.results) == 2


def test_each_candidate_gets_fresh_state_and_its_own_files(runner: PytestRunner) -> None:
    fixed = patch_with("def half(x):\n    return x / 2\n")
    for _ in range(3):
        report = runner.run(fixed, ALL, fail_fast=True)
        assert report.ok, [(r.nodeid, r.message) for r in report.failed]
    assert not (runner.root / "marker.txt").exists()  # the pristine tree is never a run's to write


def test_a_hanging_candidate_is_killed_and_counted(runner: PytestRunner) -> None:
    before = runner.killed
    report = runner.run(patch_with("def half(x):\n    while True:\n        pass\n"), TARGET, fail_fast=True)
    assert report.timed_out or report.failed
    assert runner.killed == before + 1
    after = runner.run(patch_with("def half(x):\n    return x // 2\n"), TARGET, fail_fast=True)
    assert [r.outcome for r in after.results] == ["passed"]


def test_a_memory_hungry_candidate_fails_without_harm(runner: PytestRunner) -> None:
    report = runner.run(patch_with("def half(x):\n    return len(bytearray(8 * 1024 ** 3))\n"), TARGET, fail_fast=True)
    assert not report.ok
    assert runner.run(patch_with("def half(x):\n    return x / 2\n"), TARGET, fail_fast=True).ok


def test_a_candidate_that_breaks_the_import_reports_an_error(runner: PytestRunner) -> None:
    report = runner.run(patch_with("def half(x):\n    return x /\n"), TARGET, fail_fast=True)
    assert not report.ok and (report.collection_errors or report.failed)


@pytest.mark.parametrize("tool", ["coverage", "settrace"])
def test_coverage_run_records_lines_per_test(runner: PytestRunner, tool: str) -> None:
    report, spectra = runner.coverage((), tool)
    assert len(report.results) == 4
    assert spectra["tests/test_mod.py::test_half"]["mod.py"] == frozenset({2})
    assert "mod.py" not in spectra.get("tests/test_mod.py::test_files_start_clean", {})
    assert all(not p.startswith((".fixloop", "/")) for files in spectra.values() for p in files)


def test_without_workers_screening_is_a_cold_run(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text(MODULE)
    (tmp_path / "test_mod.py").write_text("import mod\n\ndef test_half():\n    assert mod.half(4) == 2\n")
    r = PytestRunner.open(tmp_path, PlainSandbox(), Limits(test_timeout=60), PYTHON, warm_workers=0)
    try:
        report = r.run(patch_with("def half(x):\n    return x / 2\n"), ("test_mod.py::test_half",), fail_fast=True)
        assert report.ok and r.pool is None
    finally:
        r.close()


def test_a_conftest_that_imports_the_project_sees_the_candidate(tmp_path: Path) -> None:
    """The warm parent imported conftest (and through it the module) once; each child must still
    import the candidate's version of the module, not the parent's stale one."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text(MODULE)
    (tmp_path / "conftest.py").write_text(
        "import pytest\nfrom pkg import mod\n\n@pytest.fixture\ndef halver():\n    return mod.half\n")
    (tmp_path / "test_pkg.py").write_text("def test_half(halver):\n    assert halver(4) == 2\n")
    r = PytestRunner.open(tmp_path, PlainSandbox(), Limits(test_timeout=60), PYTHON, warm_workers=1)
    try:
        assert r.run(None).failed
        fixed = Patch((FileChange("pkg/mod.py", MODULE, "def half(x):\n    return x / 2\n"),), "test", "manual")
        assert r.run(fixed, ("test_pkg.py::test_half",), fail_fast=True).ok
        assert r.pool is not None
        broken = Patch((FileChange("pkg/mod.py", MODULE, "def half(x):\n    return x + 2\n"),), "test", "manual")
        assert not r.run(broken, ("test_pkg.py::test_half",), fail_fast=True).ok
    finally:
        r.close()


def test_a_prefetched_candidate_is_picked_up_by_run(runner: PytestRunner) -> None:
    assert runner.lanes() == 1
    fixed = patch_with("def half(x):\n    return x / 2.0\n")
    broken = patch_with("def half(x):\n    return x - 1\n")
    runner.prefetch(fixed, TARGET)
    runner.prefetch(broken, TARGET)
    assert len(runner.screening.waiting) == 2
    assert runner.run(fixed, TARGET, fail_fast=True).ok
    assert not runner.run(broken, TARGET, fail_fast=True).ok
    assert runner.screening.waiting == {}


def lane_pids(r: PytestRunner) -> list[int]:
    """The pid each lane's copy of the server runs under, read through the lane itself."""
    probe = Patch((FileChange("tests/test_pid.py", "", "import os\n\ndef test_pid():\n    assert os.getppid() == -1\n"),),
                  "test", "manual")
    pids = []
    for lane in r.pool.workers:  # type: ignore[union-attr]
        files = candidate_files(r.scratch, probe)
        assert isinstance(files, dict)
        report = lane.run(files, ["tests/test_pid.py"], 30.0, 10.0, 1024)
        message = report.failed[0].message
        pids.append(int(message.split("assert ")[1].split(" ==")[0]))
    return pids


@pytest.mark.e2e
def test_two_lanes_are_two_servers_and_screen_at_once(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text(MODULE)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mod.py").write_text(TESTS)
    r = PytestRunner.open(tmp_path, PlainSandbox(), Limits(test_timeout=60, per_test_timeout=5), PYTHON,
                          warm_workers=2, candidate_memory_mb=1024)
    try:
        assert r.run(None).failed
        # The second server starts only once the baseline failed, and joins the pool when it is up.
        deadline = time.monotonic() + 30
        while r.lanes() < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert r.lanes() == 2 and r.pool is not None and len(r.pool.servers) == 2
        parents = lane_pids(r)  # a candidate's parent is its lane's server
        assert len(set(parents)) == 2
        fixed, broken = patch_with("def half(x):\n    return x / 2\n"), patch_with("def half(x):\n    return x - 1\n")
        r.prefetch(fixed, TARGET)
        r.prefetch(broken, TARGET)
        assert r.run(fixed, TARGET, fail_fast=True).ok
        assert not r.run(broken, TARGET, fail_fast=True).ok
        # A lane whose copy of the server dies is dropped; the other one goes on screening.
        os.kill(parents[1], signal.SIGKILL)
        r.pool.workers[1].run({}, ["tests/test_mod.py"], 10.0, 5.0, 1024)
        assert r.lanes() == 1
        assert r.run(patch_with("def half(x):\n    return x / 2.0\n"), TARGET, fail_fast=True).ok
        assert not r.warm_problem
    finally:
        r.close()


def test_the_baseline_shares_the_machine_with_one_starting_server_only(tmp_path: Path) -> None:
    """On two cores the baseline and one starting server each have a core; the others start only when the
    baseline failed (a green suite never needs them)."""
    (tmp_path / "mod.py").write_text("def half(x):\n    return x / 2\n")
    (tmp_path / "test_mod.py").write_text("import mod\n\ndef test_half():\n    assert mod.half(4) == 2\n")
    r = PytestRunner.open(tmp_path, PlainSandbox(), Limits(test_timeout=60), PYTHON, warm_workers=3)
    try:
        assert r.run(None).ok
        assert r.lanes() == 1 and r.pool is not None and len(r.pool.servers) == 1
        time.sleep(0.5)
        assert len(r.pool.servers) == 1
    finally:
        r.close()


def test_closing_stops_a_screen_read_ahead_that_nobody_reads(tmp_path: Path) -> None:
    """A candidate screened ahead whose result the run no longer needs is stopped when the run closes,
    not waited for: the slow candidate below passes within its learned limit when it is waited for."""
    (tmp_path / "mod.py").write_text(MODULE)
    (tmp_path / "test_mod.py").write_text("import time\n\nimport mod\n\n\ndef test_half():\n    assert mod.half(4) == 2"
                                          "\n\n\ndef test_slow():\n    time.sleep(0.6)\n")
    r = PytestRunner.open(tmp_path, PlainSandbox(), Limits(test_timeout=120, per_test_timeout=90), PYTHON,
                          warm_workers=1)
    try:
        assert r.run(None).failed  # the baseline (its 0.6 s test makes the learned limit 6.5 s)
        assert r.lanes() == 1 and r.clock.learned() > 6
        slow = patch_with("import time\n\n\ndef half(x):\n    time.sleep(3)\n    return x / 2\n")
        r.prefetch(slow, ("test_mod.py::test_half",))
        (future,) = r.screening.waiting.values()
    finally:
        r.close()
    assert future.done()
    report = future.result() if not future.cancelled() else None
    assert report is None or not report.ok
