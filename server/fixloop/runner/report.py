"""Reading what a sandboxed pytest run wrote: the plugin's JSON lines, read without following symlinks."""

from __future__ import annotations

import json

from ..core.model import Frame, TestReport, TestResult

OUTCOMES = frozenset({"passed", "failed", "error", "skipped", "xfailed", "xpassed"})


def parse_report(lines: list[str], returncode: int | None, duration: float, timed_out: bool, output: str) -> TestReport:
    results: dict[str, TestResult] = {}
    errors: list[str] = []
    started: list[str] = []
    ended = False
    for line in lines:
        # Every line was written inside the sandbox: anything malformed is skipped, never trusted.
        try:
            obj = json.loads(line)
            kind = obj.get("event")
            if kind == "start":
                started.append(str(obj["nodeid"]))
            elif kind == "collect_error":
                errors.append(f"{obj.get('nodeid', '')}: {obj.get('longrepr', '')}")
            elif kind == "end":
                ended = True
            elif kind == "result" and obj["outcome"] in OUTCOMES:
                nodeid = str(obj["nodeid"])
                if nodeid in results and results[nodeid].failed:
                    continue  # a later report (teardown, or a forged line) must not hide a failure
                frames = tuple(Frame(str(f[0]), int(f[1]), str(f[2]), bool(f[3])) for f in obj.get("frames", []))
                results[nodeid] = TestResult(
                    nodeid, obj["outcome"], float(obj.get("duration", 0.0)), str(obj.get("exc_type", "")),
                    str(obj.get("message", "")), frames, str(obj.get("longrepr", "")),
                )
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            continue
    hung = [n for n in started if n not in results]
    if hung and not ended:
        # The per-test timeout (or a crash) ended the process inside this test.
        node = hung[-1]
        results[node] = TestResult(node, "failed", 0.0, "Timeout", "the test did not finish in time", (), output[-2000:])
        timed_out = True
    if returncode in (1, 2, 3) and results and not errors and not any(r.failed for r in results.values()):
        # pytest said tests failed but the report shows none: the report was tampered with.
        results["<fixloop report>"] = TestResult("<fixloop report>", "failed", 0.0, "ReportMismatch",
                                                 f"pytest exited with {returncode} but reported no failure")
    problem = ""
    if not results and not errors and returncode not in (0, 5):
        if "No module named pytest" in output:
            problem = "pytest is not installed in the project's interpreter"
        elif not timed_out:
            problem = f"pytest exited with code {returncode} without reporting tests: {output.strip()[-600:]}"
    return TestReport(tuple(results.values()), tuple(errors), returncode or 0, duration, timed_out, output[-4000:], problem)


def parse_coverage(lines: list[str]) -> dict[str, dict[str, frozenset[int]]]:
    """Per-test executed lines (test node id -> path -> lines) from the plugin's coverage events."""
    out: dict[str, dict[str, frozenset[int]]] = {}
    for line in lines:
        if '"coverage"' not in line:
            continue
        try:
            obj = json.loads(line)
            if obj.get("event") == "coverage":
                out[str(obj["nodeid"])] = {str(p): frozenset(int(n) for n in ls) for p, ls in obj["lines"].items()}
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            continue
    return out
