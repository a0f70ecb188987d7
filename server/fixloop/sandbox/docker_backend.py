"""The docker backend (opt-in): one throwaway container per run, through docker-py.

No network, read-only root, no new privileges, pids and memory limits. The pristine tree, fixloop's
runtime files and the staged candidate files are mounted read-only; the workspace is a tmpfs of
`disk_quota_mb`, filled by the same prelude as bwrap's (as root in the container, with CHOWN and DAC_*
only), which then `setpriv`s to an unprivileged uid with no capabilities. The report comes back from
a file in a private tmpfs of the container, read through the engine's archive API (never a host path).
The docker socket is never mounted, and no path that contains it is either.
"""

from __future__ import annotations

import io
import os
import tarfile
import time
from pathlib import Path
from typing import Any, Sequence

from .api import REPORT_FD_ENV, Policy, RunResult, RunTree, SandboxLimits, SandboxUnavailable
from .fresh import prelude_argv, remove, stage_changes, workspace_path
from .envpolicy import clean_env
from .streams import Capped

REPORT_DIR = "/run/fixloop-report"
REPORT_FD = 9
PRELUDE_CAPS = ["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "SETUID", "SETGID", "SETPCAP"]

SOCKETS = ("/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock")
GUARANTEES = (
    "container: no network, read-only root, all capabilities dropped, no new privileges",
    "pids and memory limits (cgroups), rlimits for cpu, file size, open files, no core dumps",
    "only the run's own tmpfs copy writable; pristine tree and interpreter paths read-only; "
    "environment allow-listed",
    "wall-clock kill (container removed); capped output; disk quota enforced by a size-limited tmpfs",
)
HOME = "/home/sandbox"


def _check_bind(path: Path) -> None:
    resolved = path.resolve()
    for sock in SOCKETS:
        s = Path(sock)
        if resolved == s or resolved in s.parents or resolved == Path("/"):
            raise SandboxUnavailable(f"refusing to mount {path} into a container: it exposes the docker socket")
    if resolved.is_socket():
        raise SandboxUnavailable(f"refusing to mount the socket {path} into a container")


def container_settings(argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
                       image: str, uid: int, changes: Path | None = None) -> dict[str, Any]:
    """Keyword arguments for `client.containers.run` (pure, unit-tested)."""
    from docker.types import Ulimit

    source = tree.source.resolve()
    workspace = workspace_path(tree)
    volumes: dict[str, dict[str, str]] = {}
    policy_paths = {Path(p).resolve() for p in policy.read_only}
    for ro in [source, *([tree.runtime.resolve()] if tree.runtime else []), *([changes] if changes else []),
               *sorted(policy_paths)]:
        if not ro.exists() or str(ro) in volumes:
            continue
        _check_bind(ro)
        if ro in policy_paths and (ro == workspace or ro in workspace.parents):
            continue  # would show the host's folder over (or around) the run's copy
        volumes[str(ro)] = {"bind": str(ro), "mode": "ro"}
    env = clean_env(policy.env)
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(HOME=HOME, TMPDIR="/tmp", **{REPORT_FD_ENV: str(REPORT_FD)})
    mb = 1024 * 1024
    tmp = f"size={limits.tmp_mb}m,mode=1777"
    # Root opens the report file, fills the tmpfs and hands it over; setpriv drops every capability.
    command = ["/bin/sh", "-c", f'exec {REPORT_FD}>"$0/report.jsonl"; exec "$@"', REPORT_DIR,
               *prelude_argv(source, workspace, changes, f"{uid}:{uid}"),
               "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--bounding-set=-all",
               "--inh-caps=-all", "--no-new-privs", "--", *argv]
    return {
        "image": image, "command": command, "working_dir": "/", "user": "0:0",
        "environment": env, "volumes": volumes, "network_mode": "none", "read_only": True,
        "cap_drop": ["ALL"], "cap_add": list(PRELUDE_CAPS), "security_opt": ["no-new-privileges"],
        "pids_limit": limits.processes,
        "mem_limit": limits.address_space_mb * mb, "memswap_limit": limits.address_space_mb * mb,
        "tmpfs": {"/tmp": tmp, HOME: tmp, "/dev/shm": tmp, REPORT_DIR: f"size={limits.report_bytes // mb + 1}m,mode=0700",
                  str(workspace): f"size={max(1, limits.disk_quota_mb)}m,mode=0700"},
        "init": True, "detach": True, "stdin_open": False, "tty": False, "labels": {"fixloop.sandbox": "1"},
        "ulimits": [
            Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds + 1),
            Ulimit(name="fsize", soft=limits.file_size_mb * mb, hard=limits.file_size_mb * mb),
            Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
            Ulimit(name="core", soft=0, hard=0),
        ],
    }


def read_report(container: Any, cap: int) -> tuple[bytes, bool]:
    """The report file from the container's private tmpfs, through the engine (capped; a non-regular
    member, such as a planted link, is ignored)."""
    try:
        stream, _ = container.get_archive(f"{REPORT_DIR}/report.jsonl")
        raw = bytearray()
        for chunk in stream:
            raw += chunk
            if len(raw) > cap + 1024 * 1024:
                return b"", True
        with tarfile.open(fileobj=io.BytesIO(bytes(raw))) as tar:
            member = tar.next()
            if member is None or not member.isreg():
                return b"", False
            data = tar.extractfile(member).read(cap + 1)  # type: ignore[union-attr]
            return data[:cap], len(data) > cap
    except Exception:  # no report file: the run never got that far
        return b"", False


def client() -> Any:
    """A docker-py client whose engine answers, or SandboxUnavailable with the reason."""
    try:
        import docker
    except ImportError as e:
        raise SandboxUnavailable(f"docker-py is not installed ({e}); pip install 'fixloop[docker]'") from e
    try:
        c = docker.from_env(timeout=3)
        c.ping()
        return c
    except Exception as e:  # docker.errors.DockerException, requests errors
        raise SandboxUnavailable(f"no docker engine answers: {e}") from e


class DockerSandbox:
    name = "docker"
    guarantees = GUARANTEES

    def __init__(self, image: str = "python:3.11-slim") -> None:
        self.image = image
        self._client: Any = None
        self._live: set[str] = set()

    def probe(self) -> str:
        try:
            self._client = client()
        except SandboxUnavailable as e:
            return str(e)
        return ""

    def run(self, argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
            fds: Sequence[int] = ()) -> RunResult:
        if fds:
            for fd in fds:
                os.close(fd)
            raise SandboxUnavailable("the docker backend cannot pass descriptors into a container")
        if self._client is None and (reason := self.probe()):
            raise SandboxUnavailable(reason)
        uid = os.getuid() or 65534  # never root inside the container once the prelude is done
        changes = stage_changes(tree)
        try:
            settings = container_settings(argv, tree, limits, policy, self.image, uid, changes)
            started = time.monotonic()
            container = self._client.containers.run(**settings)
            self._live.add(container.id)
            limit_hit = ""
            try:
                while True:
                    container.reload()
                    if container.status in ("exited", "dead"):
                        break
                    if time.monotonic() - started >= limits.wall_seconds:
                        limit_hit = "wall"
                        container.kill()
                        break
                    time.sleep(0.1)
                rc = container.wait(timeout=10).get("StatusCode")
                out, err = Capped(limits.output_bytes), Capped(limits.output_bytes)
                for chunk in container.logs(stdout=True, stderr=False, stream=True):
                    out.feed(chunk)
                for chunk in container.logs(stdout=False, stderr=True, stream=True):
                    err.feed(chunk)
                report, overflow = read_report(container, limits.report_bytes)
            finally:
                container.remove(force=True)
                self._live.discard(container.id)
        finally:
            remove(changes)
        oh, ot = out.text()
        eh, et = err.text()
        if not limit_hit and "No space left on device" in et:
            limit_hit = "disk"
        return RunResult(
            returncode=None if limit_hit == "wall" else rc, timed_out=limit_hit == "wall", limit_hit=limit_hit,
            stdout_head=oh, stdout_tail=ot, stdout_total=out.total, stderr_head=eh, stderr_tail=et,
            stderr_total=err.total, duration=time.monotonic() - started, backend=self.name, guarantees=self.guarantees,
            report=report, report_overflow=overflow,
        )

    def kill_all(self) -> None:
        for cid in list(self._live):
            try:
                self._client.containers.get(cid).remove(force=True)
            except Exception:  # already gone
                pass
