"""Host side of the warm fork servers: start them through the Sandbox port, hand them candidates.

Each worker is one long-lived sandboxed command (`python -m fixloop_warm <pristine-tree>`) on its own
fresh copy, placed where the project lives; requests and answers travel over two pipes the host created (a 4-byte length, then JSON),
read here with a size cap and a deadline. Nothing is exchanged through files, so nothing the
sandboxed code plants can be opened by the host. A worker that dies or never gets ready is dropped,
and the caller falls back to a normal sandboxed pytest run.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import queue
import select
import struct
import threading
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from fixloop.core.model import TestReport
from fixloop.adapters.sandbox.api import Policy, RunResult, RunTree, Sandbox, SandboxLimits
from fixloop.adapters.runner.report import parse_report

WORKER = Path(__file__).with_name("warm_worker.py")
MAX_ANSWER_BYTES = 6_000_000  # the report lines ride in the answer


class ChannelError(OSError):
    """The worker closed its pipe, answered too much, or not in time."""


def write_frame(fd: int, obj: Any) -> None:
    data = json.dumps(obj).encode("utf-8")
    data = struct.pack(">I", len(data)) + data
    while data:
        data = data[os.write(fd, data):]


def read_frame(fd: int, deadline: float, cap: int = MAX_ANSWER_BYTES) -> Any:
    """One frame from a non-blocking pipe, or ChannelError; never waits past `deadline`."""
    buf = bytearray()
    need = 4
    size: int | None = None
    while True:
        while len(buf) < need:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChannelError("no answer in time")
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if not ready:
                continue
            try:
                chunk = os.read(fd, need - len(buf))
            except BlockingIOError:
                continue
            if not chunk:
                raise ChannelError("the worker closed its channel")
            buf += chunk
        if size is None:
            (size,) = struct.unpack(">I", bytes(buf[:4]))
            if size > cap:
                raise ChannelError(f"an answer of {size} bytes, over the {cap} byte cap")
            need = 4 + size
            continue
        return json.loads(bytes(buf[4:]).decode("utf-8"))


@dataclasses.dataclass
class Recorded:
    """A run whose report plugin records more than results, as its FIXLOOP_* settings in `env` say (the
    spectrum's FIXLOOP_COVERAGE, the reviewer's FIXLOOP_VALUES), with fixloop's coverage.py at `coverage_path`
    when the project has none; the report's raw lines are added to `lines`."""

    env: dict[str, str]
    coverage_path: str = ""
    lines: list[str] = dataclasses.field(default_factory=list)


class WarmServer:
    """One sandboxed fork server on its own copy: it collects the suite once, then screens one candidate at a
    time in that copy. `start` returns at once; `wait_ready` says whether it came up."""

    def __init__(self, tree: RunTree, sandbox: Sandbox, python: str, policy: Policy, lifetime: float,
                 pytest_args: Sequence[str] = ()) -> None:
        self.result: RunResult | None = None
        request_r, request_w = os.pipe()
        answer_r, answer_w = os.pipe()
        os.set_blocking(answer_r, False)
        argv = [python, "-m", "fixloop_warm", str(tree.source), json.dumps(list(pytest_args))]
        env = dict(policy.env, FIXLOOP_WARM_FDS=f"{request_r},{answer_w}")
        policy = dataclasses.replace(policy, env=env)
        limits = SandboxLimits(wall_seconds=lifetime, cpu_seconds=int(lifetime) + 60)
        self.thread = threading.Thread(target=self._serve, args=(sandbox, argv, tree, limits, policy,
                                                                 (request_r, answer_w)), daemon=True)
        self.thread.start()
        self.lane = WarmWorker(0, self, request_w, answer_r)

    def wait_ready(self, deadline: float) -> str:
        """"" once the server is ready, else why not (then it is closed)."""
        problem = self.lane.wait_ready(deadline)
        if problem:
            self.close()
            output = self.result.output[-600:] if self.result else problem
            return f"the warm worker did not start: {output}"
        return ""

    def _serve(self, sandbox: Sandbox, argv: list[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
               child_ends: tuple[int, ...]) -> None:
        # The sandbox closes our copies of the worker's ends once it started: EOF when the worker goes.
        self.result = sandbox.run(argv, tree, limits, policy, fds=child_ends)

    @property
    def alive(self) -> bool:
        return self.thread.is_alive()

    def close(self) -> None:
        self.lane.close_request()  # end of the request pipe: the server stops
        self.thread.join(5.0)
        if not self.thread.is_alive():
            self.lane.close_answer()


class WarmWorker:
    """One lane of a warm server: one candidate at a time over its own pair of pipes."""

    def __init__(self, index: int, server: WarmServer, request_w: int, answer_r: int) -> None:
        self.index = index
        self.server = server
        self.ids = itertools.count(1)
        self._request_w = request_w
        self._answer_r = answer_r
        self._closing = threading.Lock()
        self._closed = False
        self._answer_closed = False
        self._dead = False

    def wait_ready(self, deadline: float) -> str:
        """"" when the lane said it is ready before `deadline`, else why not."""
        try:
            ready = read_frame(self._answer_r, deadline, 1024)
            if not isinstance(ready, dict) or "ready" not in ready:
                raise ChannelError(f"a strange greeting: {str(ready)[:100]}")
        except (ChannelError, ValueError) as e:
            return str(e) or "no greeting"
        return ""

    @property
    def alive(self) -> bool:
        return self.server.alive and not (self._closed or self._dead)

    def run(self, files: Mapping[str, bytes], args: Sequence[str], timeout: float, per_test_timeout: float,
            memory_mb: int, cpu_limit: float = 0.0, test_limits: Mapping[str, float] | None = None,
            recorded: Recorded | None = None) -> TestReport:
        rid = next(self.ids)
        # Bytes in the file's own encoding, carried through JSON one character per byte.
        request = {"id": rid, "files": {k: v.decode("latin-1") for k, v in files.items()}, "args": list(args),
                   "timeout": timeout, "per_test_timeout": per_test_timeout, "memory_mb": memory_mb,
                   "cpu_limit": cpu_limit, "test_limits": dict(test_limits or {})}
        if recorded is not None:
            request.update(env=recorded.env, coverage_path=recorded.coverage_path)
        if self._closed:
            return TestReport(problem=f"warm worker {self.index} is closed")
        try:
            write_frame(self._request_w, request)
            # The worker's own limit starts after the candidate's copy of the tree (up to 120 s).
            answer = read_frame(self._answer_r, time.monotonic() + timeout + 150.0)
            if not isinstance(answer, dict) or answer.get("id") != rid:
                raise ChannelError("an answer to another request")
        except (OSError, ValueError) as e:
            self._dead = True  # its copy of the server is gone (or confused): the lane is not used again
            return TestReport(problem=f"warm worker {self.index} stopped answering: {e}")
        lines = str(answer.get("report", "")).splitlines()
        if recorded is not None:
            recorded.lines.extend(lines)
        killed = str(answer.get("killed", ""))
        returncode = answer.get("returncode")
        report = parse_report(lines, returncode if isinstance(returncode, int) else None,
                              float(answer.get("duration", 0.0)), killed == "timeout",
                              f"worker: {killed}" if killed else "", bool(answer.get("overflow")))
        if killed:
            # Killed (time or memory): not a pass, and not a problem of the worker either.
            report = TestReport(report.failed, report.collection_errors, 0, report.duration, True,
                                report.output_tail, "")
        return dataclasses.replace(report, cpu_seconds=_measure(answer.get("cpu_seconds")),
                                   peak_mb=_measure(answer.get("peak_mb")))

    def close_request(self) -> None:
        with self._closing:
            if self._closed:
                return
            self._closed = True
            os.close(self._request_w)  # end of the request pipe: the lane stops

    def close_answer(self) -> None:
        with self._closing:
            if not self._answer_closed:
                self._answer_closed = True
                os.close(self._answer_r)


class WarmPool:
    """A few warm workers; `run` takes an idle one, so two threads can validate two candidates at once."""

    def __init__(self, servers: list[WarmServer]) -> None:
        self.servers = servers
        self.workers = [server.lane for server in servers]
        self.idle: queue.Queue[WarmWorker] = queue.Queue()
        for w in self.workers:
            self.idle.put(w)

    @property
    def alive(self) -> bool:
        return any(w.alive for w in self.workers)

    def add(self, server: WarmServer) -> None:
        """A server that came up after the pool started: its lane is idle at once."""
        self.servers.append(server)
        self.workers.append(server.lane)
        self.idle.put(server.lane)

    def run(self, files: Mapping[str, bytes], args: Sequence[str], timeout: float, per_test_timeout: float = 0.0,
            memory_mb: int = 2048, cpu_limit: float = 0.0, test_limits: Mapping[str, float] | None = None,
            recorded: Recorded | None = None) -> TestReport:
        worker = None
        while worker is None:
            if not self.alive:
                return TestReport(problem="no warm worker is running")
            try:
                worker = self.idle.get(timeout=1.0)
            except queue.Empty:
                continue
            if not worker.alive:  # a lane whose copy of the server died leaves the queue for good
                worker = None
        try:
            report = worker.run(files, args, timeout, per_test_timeout, memory_mb, cpu_limit, test_limits, recorded)
        finally:
            if worker.alive:
                self.idle.put(worker)
        return report

    def close(self) -> None:
        for server in self.servers:
            server.close()


def _measure(value: Any) -> float:
    """A telemetry figure from the worker's answer (the worker runs project code): a sane number or 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e7:
        return 0.0
    return round(float(value), 3)
