"""A project that forges its own pass: a conftest that, at collection, writes a pass for every test into
fixloop's report and SIGKILLs its own pytest. A failing suite must never come out as `nothing_to_fix`:
a pytest that did not finish normally, with an exit status that agrees with its report, is never a pass."""

from __future__ import annotations

from .harness import Host, run_fix

BUGGY = "def inc(x):\n    return x - 1\n"
TEST = "from calc import inc\n\n\ndef test_inc():\n    assert inc(1) == 2\n\n\ndef test_two():\n    assert inc(2) == 3\n"
# Reaches fixloop's in-process report plugin through sys.modules, forges every result, then dies before
# pytest can say anything itself.
FORGER = '''
import os
import sys


def pytest_collection_modifyitems(session, config, items):
    report = sys.modules.get("fixloop_report")
    if report is None:
        return
    for item in items:
        report._write({"event": "start", "nodeid": item.nodeid})
        report._write({"event": "result", "nodeid": item.nodeid, "when": "call", "outcome": "passed",
                       "duration": 0.0})
    report._write({"event": "end", "exitstatus": 0})
    os.kill(os.getpid(), 9)
'''


def test_a_conftest_that_forges_passes_and_kills_pytest_is_an_error(host: Host, backend: str) -> None:
    host.write("calc.py", BUGGY)
    host.write("tests/test_calc.py", TEST)
    host.write("conftest.py", FORGER)
    host.snapshot()
    done = run_fix(host, backend, ["--dry-run"])
    assert done.summary is not None, done.stderr
    assert done.summary["status"] == "error", done.summary
    assert "did not finish normally" in done.summary["message"], done.summary["message"]
    assert "cannot be trusted" in done.summary["message"]
    assert host.evidence() == []
