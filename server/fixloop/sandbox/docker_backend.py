"""The docker backend (opt-in): one throwaway container per run, through docker-py.

No network, read-only root, every capability dropped, no new privileges, pids and memory limits,
only the scratch copy mounted writable (interpreter paths read-only). The docker socket is never
mounted, and no path that contains it is either.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Sequence

from .api import Policy, RunResult, SandboxLimits, SandboxUnavailable
from .launcher import Capped, DiskWatch, clean_env

SOCKETS = ("/var/run/docker.sock", "/run/docker.sock", "/run/podman/podman.sock")
GUARANTEES = (
    "container: no network, read-only root, all capabilities dropped, no new privileges",
    "pids and memory limits (cgroups), rlimits for cpu, file size, open files, no core dumps",
    "only the scratch copy writable; interpreter paths read-only; environment allow-listed",
    "wall-clock kill (container removed); capped output; per-run disk quota",
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


def container_settings(argv: Sequence[str], workspace: Path, limits: SandboxLimits, policy: Policy,
                       image: str, user: str) -> dict[str, Any]:
    """Keyword arguments for `client.containers.run` (pure, unit-tested)."""
    from docker.types import Ulimit

    workspace = workspace.resolve()
    _check_bind(workspace)
    volumes: dict[str, dict[str, str]] = {str(workspace): {"bind": str(workspace), "mode": "rw"}}
    for ro in sorted({Path(p).resolve() for p in policy.read_only}):
        if ro.exists() and str(ro) not in volumes:
            _check_bind(ro)
            volumes[str(ro)] = {"bind": str(ro), "mode": "ro"}
    env = clean_env(policy.env)
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(HOME=HOME, TMPDIR="/tmp")
    mb = 1024 * 1024
    tmp = f"size={limits.tmp_mb}m,mode=1777"
    return {
        "image": image, "command": list(argv), "working_dir": str(workspace), "user": user,
        "environment": env, "volumes": volumes, "network_mode": "none", "read_only": True,
        "cap_drop": ["ALL"], "security_opt": ["no-new-privileges"], "pids_limit": limits.processes,
        "mem_limit": limits.address_space_mb * mb, "memswap_limit": limits.address_space_mb * mb,
        "tmpfs": {"/tmp": tmp, HOME: tmp, "/dev/shm": tmp}, "init": True, "detach": True,
        "stdin_open": False, "tty": False, "labels": {"fixloop.sandbox": "1"},
        "ulimits": [
            Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds + 1),
            Ulimit(name="fsize", soft=limits.file_size_mb * mb, hard=limits.file_size_mb * mb),
            Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
            Ulimit(name="core", soft=0, hard=0),
        ],
    }


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

    def run(self, argv: Sequence[str], workspace: Path, limits: SandboxLimits, policy: Policy) -> RunResult:
        if self._client is None and (reason := self.probe()):
            raise SandboxUnavailable(reason)
        uid = os.getuid() or 65534  # never root inside the container
        if os.getuid() == 0:
            from .bwrap import chown_tree

            chown_tree(workspace, uid)
        settings = container_settings(argv, workspace, limits, policy, self.image, f"{uid}:{uid}")
        started = time.monotonic()
        container = self._client.containers.run(**settings)
        self._live.add(container.id)
        watch = DiskWatch((workspace,), limits.disk_quota_mb, limits.disk_files)
        limit_hit = ""
        try:
            while True:
                container.reload()
                if container.status in ("exited", "dead"):
                    break
                if time.monotonic() - started >= limits.wall_seconds:
                    limit_hit = "wall"
                elif watch.exceeded():
                    limit_hit = "disk"
                if limit_hit:
                    container.kill()
                    break
                time.sleep(0.1)
            rc = container.wait(timeout=10).get("StatusCode")
            out, err = Capped(limits.output_bytes), Capped(limits.output_bytes)
            for chunk in container.logs(stdout=True, stderr=False, stream=True):
                out.feed(chunk)
            for chunk in container.logs(stdout=False, stderr=True, stream=True):
                err.feed(chunk)
        finally:
            container.remove(force=True)
            self._live.discard(container.id)
        oh, ot = out.text()
        eh, et = err.text()
        return RunResult(
            returncode=None if limit_hit == "wall" else rc, timed_out=limit_hit == "wall", limit_hit=limit_hit,
            stdout_head=oh, stdout_tail=ot, stdout_total=out.total, stderr_head=eh, stderr_tail=et,
            stderr_total=err.total, duration=time.monotonic() - started, backend=self.name, guarantees=self.guarantees,
        )

    def kill_all(self) -> None:
        for cid in list(self._live):
            try:
                self._client.containers.get(cid).remove(force=True)
            except Exception:  # already gone
                pass
