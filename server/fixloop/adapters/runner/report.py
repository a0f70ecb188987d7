"""Reading what a sandboxed pytest run said: the plugin's JSON lines from the report pipe, and whether to
believe them.

The report comes from fixloop's supervisor (`fixloop_supervise`, or the warm worker for its children): it
forwards only the records the report plugin sealed with the run's key and ends with its own record of how
pytest ended and how many lines on the plugin's pipe were not sealed. A pass is believed only when that
record is there with no unsealed line and no lost record, the process itself ended normally (not killed,
not timed out), the plugin's end record carries the same exit status as the process, and the totals of
pytest's own JUnit XML agree with the reported results. Otherwise failures it shows stay failures, and
nothing in it counts as a pass.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json

from fixloop.core.model import Frame, TestReport, TestResult

OUTCOMES = frozenset({"passed", "failed", "error", "skipped", "xfailed", "xpassed"})
PYTEST_EXIT_CODES = range(0, 6)  # ok, tests failed, interrupted, internal error, usage error, no tests


def _signal_of(returncode: int | None) -> int:
    if returncode is None:
        return 0
    if returncode < 0:
        return -returncode
    return returncode - 128 if 128 < returncode < 160 else 0  # a shell, bwrap or a supervisor passed it on


def _unsupervised(supervised: dict[str, object] | None, returncode: int, digest: str, after: int) -> str:
    """Why the supervisor's closing record does not vouch for the run, or ''. `digest` is the SHA-256 of the
    lines before it as the host read them, `after` how many lines followed it."""
    if supervised is None:
        return "no closing record from fixloop's supervisor"
    if after:
        return f"{after} line(s) came after its supervisor's closing record"
    if supervised.get("digest") != digest:
        return "its report is not what its supervisor forwarded (something else wrote into the channel)"
    unsealed = supervised.get("unsealed")
    if not isinstance(unsealed, int) or unsealed:
        return (f"{unsealed} line(s) on its report pipe were not sealed by fixloop's plugin: something in the test "
                "process wrote them")
    if supervised.get("lost") is not False:
        return "a sealed record of its report went missing"
    if isinstance(supervised.get("signal"), int):
        return f"killed by signal {supervised['signal']}"
    if supervised.get("returncode") != returncode:
        return f"its supervisor saw exit status {supervised.get('returncode')} but the run exited with {returncode}"
    return ""


def _distrust(returncode: int | None, timed_out: bool, overflow: bool, end_status: object,
              junit: dict[str, int] | None, passes: int, failures: int,
              supervised: dict[str, object] | None, digest: str, after: int) -> str:
    """Why the report cannot be believed, or '' when the process and its report agree."""
    if overflow:
        return "its report was larger than the cap"
    if timed_out or returncode is None:
        return "it was stopped at the time limit"
    if sig := _signal_of(returncode):
        return f"killed by signal {sig}"
    if why := _unsupervised(supervised, returncode, digest, after):
        return why
    if returncode not in PYTEST_EXIT_CODES:
        return f"exit status {returncode}"
    if end_status is _MISSING:
        return "no end record: it stopped before pytest finished"
    if end_status != returncode:
        return f"its report says exit status {end_status} but the process exited with {returncode}"
    if junit is None:
        return "no JUnit totals at the end of the session"
    junit_passes = junit["tests"] - junit["failures"] - junit["errors"] - junit["skipped"]
    if junit_passes != passes or (junit["failures"] + junit["errors"] > 0) != (failures > 0):
        return (f"the JUnit totals ({junit_passes} passed, {junit['failures'] + junit['errors']} failed) disagree "
                f"with the report ({passes} passed, {failures} failed)")
    return ""


_MISSING = object()


def _closing(lines: list[str]) -> tuple[list[str], dict[str, object] | None, str, int]:
    """The lines before the supervisor's closing record, the record, the SHA-256 of those lines as the host
    read them (the record carries the one of what it forwarded) and how many lines came after it."""
    digest = hashlib.sha256()
    for i, line in enumerate(lines):
        if '"supervised"' in line:
            try:
                obj = json.loads(line)
            except ValueError:
                obj = None
            if isinstance(obj, dict) and obj.get("event") == "supervised":
                return lines[:i], obj, digest.hexdigest(), len(lines) - i - 1
        digest.update(line.encode("utf-8", "surrogatepass") + b"\n")
    return lines, None, digest.hexdigest(), 0


def parse_report(lines: list[str], returncode: int | None, duration: float, timed_out: bool, output: str,
                 overflow: bool = False) -> TestReport:
    results: dict[str, TestResult] = {}
    errors: list[str] = []
    started: list[str] = []
    ended = False
    end_status: object = _MISSING
    junit: dict[str, int] | None = None
    passes = failures = 0  # result lines as written, for the JUnit cross-check
    seconds: dict[str, float] = {}  # whole-test times, only ever used to set a test's own time limit
    harness: tuple[str, ...] = ()
    lines, supervised, digest, after = _closing(lines)
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
                end_status = obj.get("exitstatus")
            elif kind == "finish" and 0 <= float(obj["seconds"]) < 1e6:  # never NaN or infinite
                seconds[str(obj["nodeid"])] = float(obj["seconds"])
            elif kind == "harness":
                harness = tuple(str(f) for f in obj["files"][:200])
            elif kind == "junit":
                junit = {k: int(obj[k]) for k in ("tests", "failures", "errors", "skipped")}
            elif kind == "result" and obj["outcome"] in OUTCOMES:
                nodeid = str(obj["nodeid"])
                passes += obj["outcome"] in ("passed", "xpassed")
                failures += obj["outcome"] in ("failed", "error")
                if nodeid in results and results[nodeid].failed:
                    continue  # a later report (teardown, or a forged line) must not hide a failure
                frames = tuple(Frame(str(f[0]), int(f[1]), str(f[2]), bool(f[3])) for f in obj.get("frames", []))
                results[nodeid] = TestResult(
                    nodeid, obj["outcome"], float(obj.get("duration", 0.0)), str(obj.get("exc_type", "")),
                    str(obj.get("message", "")), frames, str(obj.get("longrepr", "")),
                )
        except (ValueError, KeyError, TypeError, AttributeError, IndexError):
            continue
    results = {n: dataclasses.replace(r, seconds=seconds[n]) if n in seconds else r for n, r in results.items()}
    why = _distrust(returncode, timed_out, overflow, end_status, junit, passes, failures + len(errors), supervised,
                    digest, after)
    hung = [n for n in started if n not in results]
    if hung and not ended:
        # The per-test timeout (or a crash) ended the process inside this test.
        node = hung[-1]
        results[node] = TestResult(node, "failed", 0.0, "Timeout", "the test did not finish in time", (), output[-2000:])
        timed_out = True
    elif hung:
        # pytest finished while these tests were running (pytest.exit, KeyboardInterrupt): none of them passed.
        for node in hung:
            results[node] = TestResult(node, "failed", 0.0, "Interrupted", "the session ended inside this test")
    if returncode in (1, 2, 3) and results and not errors and not any(r.failed for r in results.values()):
        # pytest said tests failed but the report shows none: the report was tampered with.
        results["<fixloop report>"] = TestResult("<fixloop report>", "failed", 0.0, "ReportMismatch",
                                                 f"pytest exited with {returncode} but reported no failure")
    problem = ""
    if not results and not errors and returncode not in (0, 5):
        if "No module named pytest" in output:
            problem = "pytest is not installed in the project's interpreter"
        elif not timed_out and returncode is not None:
            problem = f"pytest exited with code {returncode} without reporting tests: {_tail(output)}"
    if why:
        # Failures it shows stay failures (a hung test stays the failure that ended the run); no pass counts.
        shown = {n: r for n, r in results.items() if r.failed}
        if not shown and not errors and not problem and not timed_out:
            problem = f"pytest did not finish normally ({why}); its report cannot be trusted"
        results = shown
    return TestReport(tuple(results.values()), tuple(errors), returncode or 0, duration, timed_out, output[-4000:], problem,
                      harness=harness)


def _tail(output: str, lines: int = 12, chars: int = 1200) -> str:
    """The end of pytest's output in whole lines, where the error it died of is said."""
    kept = output.strip().splitlines()[-lines:]
    while len("\n".join(kept)) > chars and len(kept) > 1:
        kept = kept[1:]
    return "\n".join(kept)[-chars:]


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


def progress(lines: list[str]) -> tuple[int, int]:
    """(tests pytest collected, tests that finished) as the run said them: how far a cut run had got."""
    count = finished = 0
    for line in lines:
        if '"collected"' not in line and '"finish"' not in line:
            continue
        try:
            obj = json.loads(line)
            if obj.get("event") == "collected":
                count = max(0, int(obj["count"]))
            elif obj.get("event") == "finish":
                finished += 1
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return count, finished
