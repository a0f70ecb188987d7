"""Screening candidates on warm workers: starting the pool in the background, reading candidates ahead on a
spare worker, and handing each result to whoever asks first."""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Sequence

from fixloop.core.model import Patch, TestReport
from fixloop.adapters.sandbox.api import Policy, Sandbox
from fixloop.adapters.runner.cold import candidate_files, selection_args
from fixloop.adapters.runner.halves import merged
from fixloop.adapters.runner.scratch import Scratch
from fixloop.adapters.runner.test_clock import Screen
from fixloop.adapters.runner.warm import Recorded, WarmPool, WarmServer

READY_SECONDS = 60.0  # a server that has not collected the suite by then is dropped
MAX_WAITING = 8  # prefetched results the loop never asked for (it skipped or stopped)
SPLIT_SELECTION = 4  # tests a traced rerun must have to go in two halves


class Screening:
    """The warm pool of one run. `problem` says why there is none (then the caller runs cold)."""

    def __init__(self, scratch: Scratch, sandbox: Sandbox, python: str, policy: Policy, workers: int,
                 lifetime: float, limits: Callable[[Sequence[str]], Screen], run_cap: Callable[[], float],
                 pytest_args: Sequence[str] = (), memory_mb: int = 2048) -> None:
        self.scratch = scratch
        self.sandbox = sandbox
        self.python = python
        self.policy = policy
        self.workers = workers
        self.lifetime = lifetime
        self.limits = limits  # the per-test limits, asked when a candidate starts (they are learned meanwhile)
        self.run_cap = run_cap  # what a run may take when its tests have no limits
        self.pytest_args = tuple(pytest_args)
        self.memory_mb = memory_mb
        self.pool: WarmPool | None = None
        self.problem = ""
        self.retired = False  # the suite fails on a warm worker and runs cold: no worker is asked again
        self.waiting: dict[tuple[object, tuple[str, ...]], Future[TestReport]] = {}
        self._starting: threading.Thread | None = None
        self._widening: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._executor = ThreadPoolExecutor(max(1, workers), thread_name_prefix="fixloop-prefetch")

    def start_in_background(self) -> None:
        """The first worker starts beside the baseline: on two cores each has one; the others wait for
        `widen`, so that the baseline, which decides everything after it, runs at full speed."""
        if self.workers > 0 and self._starting is None and self.pool is None:
            self._starting = threading.Thread(target=self.ready_pool, daemon=True)
            self._starting.start()

    def widen(self) -> None:
        """Start the other workers in the background; each joins the pool when it is ready."""
        if self.workers > 1 and self._widening is None and not self._closed:
            self._widening = threading.Thread(target=self._add_servers, args=(self.workers - 1,), daemon=True)
            self._widening.start()

    def lanes(self) -> int:
        """How many candidates can be screened at once (the live warm workers; those still starting are not
        waited for)."""
        pool = self.ready_pool() if self.workers > 0 and not self.retired else None
        return sum(w.alive for w in pool.workers) if pool is not None else 1

    def prefetch(self, patch: Patch, select: Sequence[str]) -> None:
        pool = self.pool
        key = (patch.key(), tuple(select))
        if pool is None or key in self.waiting or self._closed or self.retired:
            return
        if len(self.waiting) >= MAX_WAITING:
            self.waiting.pop(next(iter(self.waiting)))
        self.waiting[key] = self._executor.submit(self._screen, pool, patch, select)

    def screen(self, patch: Patch, select: Sequence[str]) -> TestReport | None:
        """The candidate's report from a warm worker (prefetched or now), or None when no worker can run it."""
        ahead = self.waiting.pop((patch.key(), tuple(select)), None)
        pool = self.ready_pool() if not self.retired else None
        if pool is None:
            return None
        report = ahead.result() if ahead is not None else self._screen(pool, patch, select)
        if report.problem:
            self.problem = report.problem
            return None
        return report

    def rerun(self, select: Sequence[str], limits: tuple[float, float], recorded: Recorded | None = None,
              patch: Patch | None = None) -> TestReport | None:
        """Some tests again, not fail-fast, of the code as it is or with `patch` (`recorded`: what the report
        records besides results), or None when no worker can run them."""
        pool = self.ready_pool() if not self.retired else None
        files = candidate_files(self.scratch, patch) if patch is not None else {}
        if pool is None or isinstance(files, TestReport):
            return None
        wall, cpu = limits
        args = [*self.pytest_args, *selection_args(select, None)[0]]
        report = pool.run(files, args, self.run_cap(), wall, self.memory_mb, cpu, recorded=recorded)
        return None if report.problem else report

    def rerun_halves(self, select: Sequence[str], limits: tuple[float, float], recorded: Recorded) -> TestReport | None:
        """`rerun` of the code as it is in two halves at once, each on the first worker free (the one widening
        may bring, or the other half's when it is done): a traced run is two to three times slower, and the
        second core is idle while it runs. The lines both record go to `recorded`; None when a half could
        not run."""
        if self.workers < 2 or len(select) < SPLIT_SELECTION:
            return self.rerun(select, limits, recorded)
        # Contiguous halves: the selection's order (the nearest tests first, the failing ones last) holds in each.
        middle = len(select) // 2
        parts = [(select[:middle], dataclasses.replace(recorded, lines=[])),
                 (select[middle:], dataclasses.replace(recorded, lines=[]))]
        with ThreadPoolExecutor(2, thread_name_prefix="fixloop-traced") as pool:
            first, second = pool.map(lambda part: self.rerun(part[0], limits, part[1]), parts)
        if first is None or second is None:
            return None
        recorded.lines.extend(parts[0][1].lines + parts[1][1].lines)
        return merged(first, second)

    def retire(self) -> None:
        """No warm worker for the rest of the run: a candidate failed there and ran cold (a conftest that
        configures a library once a process, as Django's settings are, fails in every warm child). The
        servers stay idle until the run closes them."""
        self.retired = True

    def _screen(self, pool: WarmPool, patch: Patch, select: Sequence[str]) -> TestReport:
        files = candidate_files(self.scratch, patch)
        if isinstance(files, TestReport):
            return files
        screen = self.limits(select)
        wall, cpu = screen.default
        # The child's own limit: its tests' limits added up, with pytest's start-up in the child (a backstop:
        # each test's own limit stops a hang first), never more than any run may take.
        budget = min(screen.budget, self.run_cap()) if screen.budget else self.run_cap()
        args = [*self.pytest_args, "-x", *selection_args(select, None)[0]]
        return pool.run(files, args, budget, wall, self.memory_mb, cpu, screen.per_test)

    def ready_pool(self) -> WarmPool | None:
        if self._starting is not None and self._starting is not threading.current_thread():
            self._starting.join()
        with self._lock:
            return self._start_pool()

    def _start_pool(self) -> WarmPool | None:
        if self.pool is None and not self.problem and not self._closed:
            ready, problem = self._servers(1)
            if ready:
                self.pool = WarmPool(ready)
            else:
                self.problem = problem
        if self.pool is not None and not self.pool.alive:
            self.problem = "the warm workers stopped"
            return None
        return self.pool

    def _add_servers(self, count: int) -> None:
        pool = self.ready_pool()
        if pool is None:
            return
        ready, _ = self._servers(count)
        with self._lock:
            for server in ready:
                if self._closed:
                    server.close()
                else:
                    pool.add(server)

    def _servers(self, count: int) -> tuple[list[WarmServer], str]:
        """(the servers that came up, why the first that did not failed): one per lane, each on its own copy
        at the project's path, started at once."""
        try:
            servers = [WarmServer(self.scratch.tree(), self.sandbox, self.python, self.policy, self.lifetime,
                                  self.pytest_args) for _ in range(count)]
        except (RuntimeError, OSError) as e:
            return [], str(e) or "no warm worker started"
        deadline = time.monotonic() + READY_SECONDS
        problems = [server.wait_ready(deadline) for server in servers]
        return [s for s, problem in zip(servers, problems) if not problem], next((p for p in problems if p), "")

    def close(self) -> None:
        self._closed = True
        starting = any(t is not None and t.is_alive() for t in (self._starting, self._widening))
        unread = any(not future.done() for future in self.waiting.values())
        if starting or unread:
            # Workers still starting when the run is over (e.g. every test passed), or screening candidates
            # read ahead that the run no longer needs: stop them rather than wait for them; nothing else of
            # this run is left on the sandbox.
            self.sandbox.kill_all()
        for thread in (self._starting, self._widening):
            if thread is not None:
                thread.join()
        self._executor.shutdown(wait=True, cancel_futures=True)
        if self.pool is not None:
            self.pool.close()
