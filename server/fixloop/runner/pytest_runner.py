"""TestRunner: real pytest, under the project's own interpreter, inside the sandbox, on a scratch copy."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Mapping, Sequence

from ..core.model import Frame, Limits, Patch, TestReport, TestResult
from ..sandbox.api import Policy, Sandbox, SandboxLimits
from ..sandbox.hostio import unlink_beneath
from .scratch import Scratch

PLUGIN = Path(__file__).with_name("fixloop_report.py")
RUNTIME_DIR = ".fixloop_runtime"
MAX_REPORT_BYTES = 20_000_000


def find_python(workspace: Path, configured: str = "") -> str:
    """The project's interpreter: configured, the workspace's virtualenv, the active one, then PATH."""
    if configured:
        return configured
    for venv in (".venv", "venv", "env"):
        candidate = workspace / venv / "bin" / "python"
        if candidate.exists():
            return str(candidate)
    active = os.environ.get("VIRTUAL_ENV")
    if active and (Path(active) / "bin" / "python").exists():
        return str(Path(active) / "bin" / "python")
    for name in ("python3", "python"):
        found = shutil.which(name)
        if found and _has_pytest(found):
            return found
    return sys.executable


def _has_pytest(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import pytest"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def real_executable(python: str) -> str:
    """The interpreter behind a launcher shim (pyenv, asdf): shims need their manager, which no sandbox shows."""
    try:
        out = subprocess.run([python, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True,
                             timeout=20, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return python
    return out if out and Path(out).is_file() else python


def interpreter_paths(python: str) -> tuple[Path, ...]:
    """Directories the sandbox must expose read-only for this interpreter to start."""
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(sys.prefix); print(sys.base_prefix); print(sys.executable)"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.SubprocessError):
        return ()
    paths = {Path(p).resolve() for p in out[:2] if p}
    exe = Path(python)
    paths.add(exe.parent.parent.resolve() if exe.parent.name == "bin" else exe.parent.resolve())
    return tuple(sorted(paths))


def sandbox_env(python: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """An allow-list, never the parent's environment: secrets stay out."""
    env = {
        "PATH": f"{Path(python).parent}:/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": RUNTIME_DIR,
        "PYTEST_ADDOPTS": "",
    }
    env.update(extra or {})
    return env


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


class PytestRunner:
    def __init__(
        self, workspace: Path, sandbox: Sandbox, limits: Limits = Limits(), python: str = "",
        overlays: Mapping[str, str] | None = None, pytest_args: Sequence[str] = (),
    ) -> None:
        self.workspace = workspace
        self.sandbox = sandbox
        self.limits = limits
        self.python = real_executable(find_python(workspace, python))
        self.pytest_args = tuple(pytest_args)
        self.scratch = Scratch(workspace, dict(overlays or {}))
        runtime = self.scratch.root / RUNTIME_DIR
        runtime.mkdir(exist_ok=True)
        shutil.copy(PLUGIN, runtime / "fixloop_report.py")
        self.policy = Policy(read_only=interpreter_paths(self.python), env=sandbox_env(self.python))
        self.runs = 0

    @property
    def root(self) -> Path:
        return self.scratch.root

    def sources(self) -> dict[str, str]:
        return self.scratch.sources()

    def run(self, patch: Patch | None, select: Sequence[str] = (), fail_fast: bool = False) -> TestReport:
        self.runs += 1
        report_name = f"{RUNTIME_DIR}/report-{self.runs}.jsonl"
        written: list[str] = []
        try:
            for change in patch.changes if patch else ():
                self.scratch.write(change.path, change.after)
                written.append(change.path)
            argv = [self.python, "-m", "pytest", "-p", "fixloop_report", "-p", "no:cacheprovider", "-q",
                    "--color=no", "--no-header", "-rN", *self.pytest_args]
            if fail_fast:
                argv.append("-x")
            argv.extend(select)
            env = dict(self.policy.env)
            env["FIXLOOP_REPORT"] = report_name
            env["FIXLOOP_TEST_TIMEOUT"] = str(self.limits.per_test_timeout)
            policy = Policy(self.policy.read_only, env, self.policy.network)
            limits = SandboxLimits(wall_seconds=self.limits.test_timeout, cpu_seconds=int(self.limits.test_timeout) + 10)
            result = self.sandbox.run(argv, self.scratch.root, limits, policy)
            try:
                raw = read_beneath(self.scratch.root / RUNTIME_DIR, Path(report_name).name, MAX_REPORT_BYTES)
                lines = raw.decode("utf-8", "replace").splitlines()
            except (OSError, ValueError):
                lines = []
            report = parse_report(lines, result.returncode, result.duration, result.timed_out, result.output)
            if result.limit_hit and result.limit_hit != "wall" and not report.problem and not report.results:
                report = TestReport(report.results, report.collection_errors, report.returncode, report.duration,
                                    report.timed_out, report.output_tail, f"sandbox limit hit: {result.limit_hit}")
            return report
        finally:
            for name in written:
                try:
                    self.scratch.restore(name)
                except OSError:
                    pass  # a planted symlink or special file: refused, and the next write refuses too
            try:
                unlink_beneath(self.scratch.root, report_name)
            except OSError:
                pass

    def cancel(self) -> None:
        self.sandbox.kill_all()

    def close(self) -> None:
        self.scratch.close()
