"""Reading what a sandboxed pytest run wrote: the plugin's JSON lines, read without following symlinks."""

from __future__ import annotations

import json
import os

from ..core.model import Frame, TestReport, TestResult


def parse_report(lines: list[str], returncode: int | None, duration: float, timed_out: bool, output: str) -> TestReport:
    results: dict[str, TestResult] = {}
    errors: list[str] = []
    started: list[str] = []
    ended = False
    for line in lines:
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        kind = obj.get("event")
        if kind == "start":
            started.append(obj["nodeid"])
        elif kind == "collect_error":
            errors.append(f"{obj.get('nodeid', '')}: {obj.get('longrepr', '')}")
        elif kind == "end":
            ended = True
        elif kind == "result":
            nodeid = obj["nodeid"]
            if nodeid in results and results[nodeid].failed:
                continue  # a teardown report must not hide the call's failure
            frames = tuple(Frame(f[0], int(f[1]), str(f[2]), bool(f[3])) for f in obj.get("frames", []))
            results[nodeid] = TestResult(
                nodeid, obj["outcome"], float(obj.get("duration", 0.0)), obj.get("exc_type", ""),
                obj.get("message", ""), frames, obj.get("longrepr", ""),
            )
    hung = [n for n in started if n not in results]
    if hung and not ended:
        # The per-test timeout (or a crash) ended the process inside this test.
        node = hung[-1]
        results[node] = TestResult(node, "failed", 0.0, "Timeout", "the test did not finish in time", (), output[-2000:])
        timed_out = True
    problem = ""
    if not results and not errors and returncode not in (0, 5):
        if "No module named pytest" in output:
            problem = "pytest is not installed in the project's interpreter"
        elif not timed_out:
            problem = f"pytest exited with code {returncode} without reporting tests: {output.strip()[-600:]}"
    return TestReport(tuple(results.values()), tuple(errors), returncode or 0, duration, timed_out, output[-4000:], problem)


def read_beneath(root: Path, name: str, limit: int) -> bytes:
    """Read a file written by sandboxed code without following symlinks and with a size cap."""
    dir_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    try:
        st = os.fstat(fd)
        if not (st.st_mode & 0o170000 == 0o100000) or st.st_size > limit:
            raise ValueError(f"{name} is not a regular file of at most {limit} bytes")
        with os.fdopen(fd, "rb") as f:
            fd = -1
            return f.read(limit)
    finally:
        if fd >= 0:
            os.close(fd)


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
