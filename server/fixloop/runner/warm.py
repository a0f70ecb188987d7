"""Host side of the warm fork servers: start them through the Sandbox port, hand them candidates.

Each worker is one long-lived sandboxed command (`python -m fixloop_warm <channel>`) on the scratch
copy; requests and answers are small JSON files in its channel directory, read back without
following symlinks and with a size cap. A worker that dies or never gets ready is dropped, and the
caller falls back to a normal sandboxed pytest run.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import shutil
import threading
import time
from pathlib import Path
from typing import Mapping, Sequence

from ..core.model import TestReport
from ..sandbox.api import Policy, RunResult, Sandbox, SandboxLimits
from ..sandbox.hostio import read_beneath
from .report import parse_report

WORKER = Path(__file__).with_name("warm_worker.py")
MAX_ANSWER_BYTES = 100_000
MAX_REPORT_BYTES = 5_000_000
POLL = 0.002


class WarmWorker:
    def __init__(self, index: int, root: Path, runtime: str, sandbox: Sandbox, python: str, policy: Policy,
                 lifetime: float, pytest_args: Sequence[str] = (), ready_timeout: float = 60.0) -> None:
        self.index = index
        self.channel_rel = f"{runtime}/warm-{index}"
        self.channel = root / self.channel_rel
        shutil.rmtree(self.channel, ignore_errors=True)
        self.channel.mkdir(parents=True)
        self.ids = itertools.count(1)
        self.result: RunResult | None = None
        argv = [python, "-m", "fixloop_warm", self.channel_rel, json.dumps(list(pytest_args))]
        limits = SandboxLimits(wall_seconds=lifetime, cpu_seconds=int(lifetime) + 60)
        self.thread = threading.Thread(target=self._serve, args=(sandbox, argv, root, limits, policy), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + ready_timeout
        while not (self.channel / "ready").exists():
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"warm worker {index} did not start: {self.result.output[-600:] if self.result else 'timeout'}")
            time.sleep(POLL)

    def _serve(self, sandbox: Sandbox, argv: list[str], root: Path, limits: SandboxLimits, policy: Policy) -> None:
        self.result = sandbox.run(argv, root, limits, policy)

    @property
    def alive(self) -> bool:
        return self.thread.is_alive()

    def run(self, files: Mapping[str, str], args: Sequence[str], timeout: float, per_test_timeout: float,
            memory_mb: int) -> TestReport:
        rid = next(self.ids)
        request = {"id": rid, "files": dict(files), "args": list(args), "timeout": timeout,
                   "per_test_timeout": per_test_timeout, "memory_mb": memory_mb}
        tmp = self.channel / f".req-{rid}.tmp"
        tmp.write_text(json.dumps(request), encoding="utf-8")
        os.replace(tmp, self.channel / f"req-{rid:08d}.json")
        answer_name = f"resp-{rid}.json"
        deadline = time.monotonic() + timeout + 30.0
        while not (self.channel / answer_name).exists():
            if not self.alive or time.monotonic() > deadline:
                return TestReport(problem=f"warm worker {self.index} stopped answering")
            time.sleep(POLL)
        try:
            answer = json.loads(read_beneath(self.channel, answer_name, MAX_ANSWER_BYTES))
            (self.channel / answer_name).unlink()
        except (OSError, ValueError) as e:
            return TestReport(problem=f"warm worker {self.index} answered badly: {e}")
        report_name = f"report-{rid}.jsonl"
        try:
            lines = read_beneath(self.channel, report_name, MAX_REPORT_BYTES).decode("utf-8", "replace").splitlines()
        except (OSError, ValueError):
            lines = []
        try:
            (self.channel / report_name).unlink()
        except OSError:
            pass
        killed = str(answer.get("killed", ""))
        report = parse_report(lines, answer.get("returncode"), float(answer.get("duration", 0.0)),
                              killed == "timeout", f"worker: {killed}" if killed else "")
        if killed and not report.results and not report.problem:
            report = TestReport((), report.collection_errors, 0, report.duration, True, report.output_tail, "")
        return report

    def close(self) -> None:
        try:
            (self.channel / "stop").write_text("")
        except OSError:
            pass
        self.thread.join(5.0)


class WarmPool:
    """A few warm workers; `run` takes an idle one, so two threads can validate two candidates at once."""

    def __init__(self, workers: list[WarmWorker]) -> None:
        self.workers = workers
        self.idle: queue.Queue[WarmWorker] = queue.Queue()
        for w in workers:
            self.idle.put(w)

    @property
    def alive(self) -> bool:
        return any(w.alive for w in self.workers)

    def run(self, files: Mapping[str, str], args: Sequence[str], timeout: float, per_test_timeout: float = 0.0,
            memory_mb: int = 2048) -> TestReport:
        worker = None
        while worker is None:
            if not self.alive:
                return TestReport(problem="no warm worker is running")
            try:
                worker = self.idle.get(timeout=1.0)
            except queue.Empty:
                continue
        try:
            report = worker.run(files, args, timeout, per_test_timeout, memory_mb)
        finally:
            if worker.alive:
                self.idle.put(worker)
        return report

    def close(self) -> None:
        for w in self.workers:
            w.close()
