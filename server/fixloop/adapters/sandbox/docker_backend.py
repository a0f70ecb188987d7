"""The docker backend (opt-in): one throwaway container per run, through docker-py.

No network, read-only root, no new privileges, pids and memory limits (cgroups), rlimits. The pristine tree,
fixloop's runtime files, the staged candidate files and what the interpreter needs are bound read-only at their
host paths; the run's copy is a tmpfs of `disk_quota_mb` at the workspace's own path, filled by the same prelude
as bwrap's (as root in the container, with CHOWN and DAC_* only), which then `setpriv`s to an unprivileged uid
with no capabilities (`docker_settings`). Output comes through a stream attached before the container starts,
capped here (the engine keeps no log); the report and the exit status come back from files in a private tmpfs of
the container, read through the engine's archive API (never a host path). The docker socket is never mounted,
and no path that contains it is either. The image is never pulled: a missing one is a message saying how to make
one offline (`docker_engine`).
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from fixloop.adapters.sandbox import docker_engine as engine
from fixloop.adapters.sandbox.api import Policy, RunResult, RunTree, SandboxLimits, SandboxUnavailable
from fixloop.adapters.sandbox.docker_io import OomWatch, Streams, oom_killed, wait
from fixloop.adapters.sandbox.docker_settings import REPORT_DIR, container_settings
from fixloop.adapters.sandbox.fresh import remove, stage_changes
from fixloop.adapters.sandbox.rlimits import classify
from fixloop.adapters.sandbox.streams import Capped, close_fds

GUARANTEES = (
    "container: no network, read-only root, all capabilities dropped after the prelude, no new privileges",
    "only the run's own tmpfs copy writable (bytes and inodes capped); pristine tree and interpreter paths "
    "read-only; environment allow-listed",
    "rlimits: cpu, address space, file size, open files, no core dumps",
    "wall-clock kill (container removed); output capped while it streams, none kept by the engine",
)
# What docker does not guarantee here, said beside what it does (`fixloop doctor`, every run's log).
CAVEATS = (
    "not guaranteed: the engine runs as root, so whoever may use its socket is root on this machine (fixloop never "
    "mounts the socket into a run; guard who is in its group)",
    "not guaranteed: no seccomp filter of fixloop's own: the engine's default profile decides which system calls "
    "a run may make",
    "not guaranteed: a remote engine (DOCKER_HOST=tcp://...) cannot run the tests: the copy, the interpreter and "
    "fixloop's files are bound from the engine's own machine",
)
SANDBOX_UID = 199_999  # as root: a uid of its own for the runs (bwrap's dedicated range starts at 200,000)
TIMES = re.compile(r"(\d+)m([\d.]+)s")


def facts_lines(info: dict[str, Any]) -> tuple[str, ...]:
    """What this engine enforces besides the settings, or does not (from `docker info`)."""
    lines = []
    lines.append("memory: the run's total is a cgroup limit" if info.get("MemoryLimit", True)
                 else "memory: NO cgroup memory limit on this engine (only each process's address space)")
    lines.append("processes: a cgroup pids limit" if info.get("PidsLimit", True)
                 else "processes: NO pids limit on this engine")
    security = " ".join(str(s) for s in info.get("SecurityOptions") or ())
    if "seccomp" in security:
        lines.append("seccomp: the engine's default profile")
    if "rootless" in security or "userns" in security:
        lines.append("the engine maps container root to an unprivileged host user (rootless or userns-remap)")
    if info.get("Driver"):
        lines.append(f"storage driver {info['Driver']}" + (" (each container copies the image: slow starts)"
                                                           if info["Driver"] == "vfs" else ""))
    return tuple(lines)


def parse_status(raw: bytes) -> tuple[int | None, float, str]:
    """(exit status, CPU seconds of every reaped process, tools the image lacks) from the init's status file."""
    text = raw.decode("utf-8", "replace")
    if text.startswith("missing"):
        return None, 0.0, text[len("missing"):].strip()
    lines = text.splitlines()
    status = int(lines[0].split()[1]) if lines and re.fullmatch(r"exit \d+", lines[0]) else None
    cpu = 0.0
    if len(lines) >= 3:  # `times`: the shell's own line, then its children's
        cpu = sum(int(m) * 60 + float(s) for m, s in TIMES.findall(lines[2]))
    return status, cpu, ""


class DockerSandbox:
    name = "docker"
    writes_as_you = False  # the container's user is not you: an install is refused with the command instead

    def __init__(self, image: str = "fixloop-sandbox:bookworm") -> None:
        self.image = image
        self.guarantees: tuple[str, ...] = GUARANTEES
        self._client: Any = None
        self._live: set[str] = set()
        self._lock = threading.Lock()

    def connect(self) -> Any:
        """The engine's client, checked once: it answers and has the image."""
        with self._lock:
            if self._client is None:
                c = engine.client()
                engine.check_image(c, self.image)
                info = engine.engine_facts(c)
                rootless = "rootless" in " ".join(str(o) for o in info.get("SecurityOptions") or ())
                self.guarantees = GUARANTEES + facts_lines(info) + (CAVEATS[1:] if rootless else CAVEATS)
                self._client = c
            return self._client

    def probe(self) -> str:
        """'' when the engine answers, has the image, and the exact recipe runs /bin/true in it."""
        try:
            self.connect()
            with tempfile.TemporaryDirectory(prefix="fixloop-probe-") as tmp:
                (Path(tmp) / "src").mkdir()
                result = self.run(["/bin/true"], RunTree(Path(tmp) / "src"), SandboxLimits(wall_seconds=60), Policy())
        except SandboxUnavailable as e:
            return str(e)
        if result.returncode != 0:
            return f"the docker recipe failed on /bin/true (exit {result.returncode}): {result.output.strip()[-300:]}"
        return ""

    def run(self, argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
            fds: Sequence[int] = ()) -> RunResult:
        changes = None
        try:
            if len(fds) not in (0, 2):
                raise SandboxUnavailable("the docker backend bridges exactly two descriptors (a request and an answer)")
            if policy.network:
                raise SandboxUnavailable("the docker backend never gives network access; set sandbox.backend = \"none\"")
            c = self.connect()
            changes = stage_changes(tree)
            settings = container_settings(argv, tree, limits, policy, self.image, os.getuid() or SANDBOX_UID,
                                          changes, fds)
        except BaseException:
            close_fds(fds)
            remove(changes)
            raise
        try:
            return self._contain(c, settings, limits, fds)
        except SandboxUnavailable as e:
            if not fds:
                raise
            # A warm worker's server runs in a thread of its own: it learns why from the result, and the run
            # goes on with a fresh pytest per candidate.
            return RunResult(returncode=None, stderr_head=str(e), stderr_total=len(str(e)), backend=self.name,
                             guarantees=self.guarantees)
        finally:
            remove(changes)

    def _contain(self, c: Any, settings: dict[str, Any], limits: SandboxLimits, fds: Sequence[int]) -> RunResult:
        started = time.monotonic()
        try:
            container = c.containers.create(**settings)
        except Exception as e:
            close_fds(fds)
            raise SandboxUnavailable(engine.refused(e, self.image)) from e
        self._live.add(container.id)
        out, err = Capped(limits.output_bytes), Capped(limits.output_bytes)
        oom = OomWatch(c, container)
        streams: Streams | None = None
        try:
            streams = Streams(c, container, out, err, fds)
            try:
                container.start()
            except Exception as e:
                raise SandboxUnavailable(engine.refused(e, self.image)) from e
            # The wall clock starts with the container: creating it (seconds on vfs) is the engine's cost.
            limit_hit, code = wait(container, time.monotonic() + limits.wall_seconds)
            oom.stop()
            streams.close()
            files, overflow = engine.read_files(container, REPORT_DIR, limits.report_bytes + 4096)
            report, status_raw = files.get("report.jsonl", b""), files.get("status", b"")
            overflow = overflow or len(report) > limits.report_bytes
            report = report[:limits.report_bytes]
            oom_hit = oom.seen or oom_killed(container)
        finally:
            oom.stop()
            if streams is None:
                close_fds(fds)
            else:
                streams.close()
            self._forget(container)
        rc, cpu, missing = parse_status(status_raw)
        rc = code if rc is None else rc  # no status file: the init itself was killed (memory)
        if missing:
            raise SandboxUnavailable(engine.lacking(self.image, missing))
        eh, et = err.text()
        oh, ot = out.text()
        if oom.seen and limit_hit != "wall":
            limit_hit = "memory"  # the run's memory cap: the whole run ends, as under the other backends
        elif not limit_hit and rc:
            limit_hit = "memory" if oom_hit else classify(rc, eh + et, cpu, limits.cpu_seconds)
        return RunResult(
            returncode=None if limit_hit == "wall" else rc, timed_out=limit_hit == "wall", limit_hit=limit_hit,
            signal=rc - 128 if rc is not None and 128 < rc < 160 else None,
            stdout_head=oh, stdout_tail=ot, stdout_total=out.total, stderr_head=eh, stderr_tail=et,
            stderr_total=err.total, duration=time.monotonic() - started, backend=self.name, guarantees=self.guarantees,
            report=report, report_overflow=overflow, cpu_seconds=cpu,
        )

    def _forget(self, container: Any) -> None:
        try:
            container.remove(force=True, v=True)
        except Exception:  # removed already (kill_all), or the engine went away: nothing of the run survives it
            pass
        self._live.discard(container.id)

    def kill_all(self) -> None:
        for cid in list(self._live):
            try:
                self._client.containers.get(cid).remove(force=True, v=True)
            except Exception:  # already gone
                pass

