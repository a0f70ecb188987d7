"""The sandbox port: run one command on a scratch copy, isolated and bounded."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Protocol, Sequence


class SandboxUnavailable(RuntimeError):
    """The configured backend cannot run here; the message says what to install or configure."""


@dataclass(frozen=True)
class SandboxLimits:
    wall_seconds: float = 120.0
    cpu_seconds: int = 130
    address_space_mb: int = 4096  # per process (RLIMIT_AS)
    memory_total_mb: int = 8192  # resident memory of the whole run, summed by the launcher's watchdog; 0 = off
    processes: int = 512
    file_size_mb: int = 1024
    open_files: int = 4096
    disk_quota_mb: int = 2048
    disk_files: int = 200_000  # inodes a run may create (many empty files beat any byte quota)
    output_bytes: int = 64 * 1024  # head and tail kept, each
    tmp_mb: int = 256  # size of the sandbox's private /tmp, home and /dev/shm (bwrap)


@dataclass(frozen=True)
class Policy:
    """What the command may see besides the workspace."""

    read_only: tuple[Path, ...] = ()  # e.g. the project's interpreter prefix and virtualenv
    env: Mapping[str, str] = field(default_factory=dict)  # filtered again by the launcher: no secrets
    network: bool = False  # only loopback inside the sandbox either way; True is refused by isolating backends


@dataclass(frozen=True)
class RunResult:
    returncode: int | None
    signal: int | None = None
    timed_out: bool = False
    limit_hit: str = ""  # wall | disk | cpu | memory | processes | file_size | open_files | ""
    stdout_head: str = ""
    stdout_tail: str = ""
    stdout_total: int = 0
    stderr_head: str = ""
    stderr_tail: str = ""
    stderr_total: int = 0
    duration: float = 0.0
    backend: str = ""
    guarantees: tuple[str, ...] = ()

    @property
    def output(self) -> str:
        return (self.stdout_head + self.stdout_tail)[-8000:] + (self.stderr_head + self.stderr_tail)[-4000:]


class Sandbox(Protocol):
    name: str

    def run(
        self, argv: Sequence[str], workspace: Path, limits: SandboxLimits, policy: Policy
    ) -> RunResult: ...

    def kill_all(self) -> None:
        """Kill every process this sandbox started and that still runs (cancellation)."""
        ...
