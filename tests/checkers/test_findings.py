"""A checker's findings as targets: ruff's real JSON read, its fixes made, the targets and the guard judged."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fixloop.adapters.checkers import mypy, pyright, ruff
from fixloop.adapters.checkers.findings import (Edit, Finding, Fix, apply_edits, deleted, fixed, guard_id, outcomes,
                                                parse_id)
from fixloop.adapters.checkers.proposer import CheckerFixProposer
from fixloop.core.model import FileChange, Patch, TestReport, TestResult
from fixloop.core.ports import ProposalContext

CART = "import os\nimport sys\n\n\ndef total(prices):\n    unused = 1\n    return sum(prices) + lenght\n"


def _ruff_json(root: Path) -> str:
    """ruff's own output on `root` (our files, so it may run here, outside any sandbox)."""
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "json", "--no-cache",
                           "--exit-zero", "--isolated", "--select", "F", "."], cwd=root, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_ruffs_own_output_reads_as_findings_with_their_fixes(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "cart.py").write_text(CART)
    found = ruff.parse(_ruff_json(tmp_path), ["shop/cart.py"])
    assert isinstance(found, list)
    assert [(f.code, f.line) for f in found] == [("F401", 1), ("F401", 2), ("F841", 6), ("F821", 7)]
    assert all(f.path == "shop/cart.py" and f.target == "ruff::shop/cart.py::" + f.code for f in found)
    imports, undefined = found[0], found[3]
    assert imports.fix is not None and imports.fix.safe and undefined.fix is None
    assert found[2].fix is not None and not found[2].fix.safe  # removing an assignment may change what runs

    safe = fixed({"shop/cart.py": CART}, found, safe_only=True)
    assert safe == {"shop/cart.py": "\n\ndef total(prices):\n    unused = 1\n    return sum(prices) + lenght\n"}
    every = fixed({"shop/cart.py": CART}, found, safe_only=False)
    assert every["shop/cart.py"] == "\n\ndef total(prices):\n    return sum(prices) + lenght\n"


def test_a_file_outside_the_project_and_output_that_is_not_ruffs_are_refused() -> None:
    item = ('[{"code": "F401", "message": "m", "filename": "/elsewhere/x.py", "location": {"row": 1, "column": 1},'
            ' "fix": null, "cell": null}]')
    assert ruff.parse(item, ["shop/cart.py"]) == []
    assert isinstance(ruff.parse("not json", ["shop/cart.py"]), str)
    assert isinstance(ruff.parse('{"a": 1}', ["shop/cart.py"]), str)
    assert ruff.parse('[{"code": 3}, "x", null]', ["shop/cart.py"]) == []  # junk items are skipped


def test_why_ruff_could_not_check_is_said() -> None:
    assert ruff.problem(0, "", "/p/python") == ""
    missing = ruff.problem(1, "/p/python: No module named ruff\n", "/p/python")
    assert "not installed in the project's environment (/p/python)" in missing and "never installs" in missing
    bad = ruff.problem(2, "ruff failed\n  Cause: unknown field `selectt`\n", "/p/python")
    assert "exit status 2" in bad and "selectt" in bad


def test_edits_are_made_from_the_end_and_overlapping_or_outside_ones_refused() -> None:
    text = "ab\ncd\n"
    assert apply_edits(text, [Edit(1, 1, 1, 2, "X"), Edit(2, 2, 3, 1, "Y\n")]) == "Xb\ncY\n"
    assert apply_edits(text, [Edit(1, 1, 2, 1, "")]) == "cd\n"
    assert apply_edits(text, [Edit(1, 1, 1, 3, ""), Edit(1, 2, 1, 3, "")]) is None  # overlap
    assert apply_edits(text, [Edit(5, 1, 5, 2, "")]) is None
    assert apply_edits("é = 1\n", [Edit(1, 2, 1, 3, "=")]) == "é== 1\n"  # columns count characters


def _f(code: str, line: int, message: str = "m", path: str = "a.py") -> Finding:
    return Finding("ruff", code, message, path, line)


def test_a_target_passes_once_its_file_has_no_finding_of_its_rule() -> None:
    baseline = [_f("F401", 1, "os"), _f("F401", 2, "sys"), _f("E711", 5), _f("F821", 3, path="b.py")]
    results = {r.nodeid: r for r in outcomes("ruff", baseline, [_f("E711", 4)], ["a.py"])}
    assert results["ruff::a.py::F401"].outcome == "passed"
    assert results["ruff::a.py::E711"].outcome == "failed"  # moved a line up: still there
    assert results["ruff::b.py::F821"].outcome == "failed"  # not checked again: as at the baseline
    assert results[guard_id("ruff")].outcome == "passed"
    failed = results["ruff::b.py::F821"]
    assert failed.exc_type == "ruff F821" and failed.frames[0].path == "b.py" and failed.frames[0].line == 3


def test_the_guard_fails_on_a_finding_the_changed_file_did_not_have() -> None:
    baseline = [_f("F401", 1, "os")]
    now = [_f("F841", 7, "x is assigned to but never used")]
    results = {r.nodeid: r for r in outcomes("ruff", baseline, now, ["a.py"])}
    assert results["ruff::a.py::F401"].outcome == "passed"
    guard = results[guard_id("ruff")]
    assert guard.outcome == "failed" and "F841" in guard.longrepr and guard.frames[0].line == 7
    # The same finding twice where the baseline had it once is one new finding.
    twice = outcomes("ruff", [_f("E711", 2)], [_f("E711", 2), _f("E711", 9)], ["a.py"])
    assert [r.outcome for r in twice] == ["failed", "failed"]


def test_ids_of_findings_are_told_from_tests() -> None:
    assert parse_id("ruff::pkg/a.py::F401", ["ruff"]) == ("ruff", "pkg/a.py", "F401")
    assert parse_id(guard_id("ruff"), ["ruff"]) == ("ruff", "", "")
    assert parse_id("tests/test_a.py::test_x", ["ruff"]) is None
    assert parse_id("ruff::pkg/a.py::F401", ["mypy"]) is None


def test_mypys_own_json_lines_read_as_findings(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "labels.py").write_text("def f(x: int) -> str:\n    return x\n\n\ndef g() -> None:\n    f('a')\n")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--output", "json", "--cache-dir", "/dev/null", "."],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "No module named" not in proc.stderr, proc.stderr  # found errors: status 1
    found = mypy.parse(proc.stdout, ["shop/labels.py"])
    assert isinstance(found, list)
    assert [(f.code, f.line, f.column) for f in found] == [("return-value", 2, 12), ("arg-type", 6, 7)]
    assert found[0].target == "mypy::shop/labels.py::return-value" and found[0].fix is None
    assert mypy.problem(proc.returncode, proc.stderr, "p", proc.stdout) == ""
    assert isinstance(mypy.parse("oops\n", ["shop/labels.py"]), str)
    assert mypy.no_target("mypy: error: Missing target module, package, files, or command.")
    assert "not installed" in mypy.problem(1, "/p/python: No module named mypy\n", "/p/python")


def test_pyrights_own_json_report_reads_as_findings(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "labels.py").write_text("def f(x: int) -> str:\n    return x\n\n\ndef g() -> None:\n    f('a')\n")
    (tmp_path / "labels.py").write_text("x: int = 'one'\n")  # a shorter path the long one also ends with
    proc = subprocess.run([sys.executable, "-m", "pyright", "--outputjson"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 1 and "No module named" not in proc.stderr, proc.stderr + proc.stdout
    found = pyright.parse(proc.stdout, ["labels.py", "shop/labels.py"])
    assert isinstance(found, list)
    assert sorted((f.path, f.code, f.line, f.column) for f in found) == [
        ("labels.py", "reportAssignmentType", 1, 10),
        ("shop/labels.py", "reportArgumentType", 6, 7), ("shop/labels.py", "reportReturnType", 2, 12)]
    shop = next(f for f in found if f.code == "reportReturnType")
    assert shop.target == "pyright::shop/labels.py::reportReturnType" and "\n" not in shop.message
    assert [f.path for f in pyright.parse(proc.stdout, ["labels.py"])] == ["labels.py"]  # not ours: shop/labels.py
    assert pyright.problem(proc.returncode, proc.stderr, "p", proc.stdout) == ""
    for bad in ("oops", "[]", '{"generalDiagnostics": 3}'):
        assert isinstance(pyright.parse(bad, ["shop/labels.py"]), str)
    assert "not installed" in pyright.problem(1, "/p/python: No module named pyright\n", "/p/python")
    assert "exit status 3" in pyright.problem(3, "Config file could not be parsed", "p")


def test_deleting_the_line_of_a_finding_without_a_fix_does_not_clear_it() -> None:
    before = "def drop(p):\n    if p:\n        return\n    raise ValueError(plugn)\n"
    undefined = Finding("ruff", "F821", "Undefined name `plugn`", "a.py", 4)
    passed = TestResult("ruff::a.py::F821", "passed")

    def judged(after: str) -> TestResult:
        return deleted(passed, [undefined], Patch((FileChange("a.py", before, after),)))

    gone = judged(before.replace("    raise ValueError(plugn)\n", ""))
    assert gone.outcome == "failed" and "was deleted, not fixed" in gone.message
    assert judged(before.replace("plugn", "p")).outcome == "passed"  # edited: fixed
    assert judged(before.replace("    raise ValueError(plugn)\n", "    pass\n")).outcome == "passed"  # replaced: judged by tests
    unused = Finding("ruff", "F401", "`os` imported but unused", "a.py", 1, fix=Fix("remove", (), True))
    removal = Patch((FileChange("a.py", "import os\nx = 1\n", "x = 1\n"),))
    assert deleted(TestResult("ruff::a.py::F401", "passed"), [unused], removal).outcome == "passed"  # its fix


def test_an_unsafe_fix_is_proposed_only_where_passing_tests_run_it(tmp_path: Path) -> None:
    source = "def f(x):\n    if x != False:\n        return 1\n    return 0\n"
    (tmp_path / "a.py").write_text(source)
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "json", "--no-cache", "--exit-zero",
                           "--isolated", "--select", "E712", "."], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    found = ruff.parse(proc.stdout, ["a.py"])
    assert isinstance(found, list) and found and found[0].fix is not None and not found[0].fix.safe
    ctx = ProposalContext({"a.py": source}, TestReport(), ("ruff::a.py::E712",))
    assert list(CheckerFixProposer(lambda: found, lambda patch: False).propose(ctx)) == []
    offered = list(CheckerFixProposer(lambda: found, lambda patch: True).propose(ctx))
    assert [p.changes[0].after for p in offered] == ["def f(x):\n    if x:\n        return 1\n    return 0\n"]
