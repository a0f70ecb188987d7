"""The sandbox port: run one command on a scratch copy, isolated and bounded."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Protocol, Sequence


@dataclass(frozen=True)
class SandboxLimits:
    wall_seconds: float = 120.0
    cpu_seconds: int = 130
    address_space_mb: int = 4096
    processes: int = 512
    file_size_mb: int = 1024
    open_files: int = 4096
    disk_quota_mb: int = 2048
    output_bytes: int = 64 * 1024  # head and tail kept, each


@dataclass(frozen=True)
class Policy:
    """What the command may see besides the workspace."""

    read_only: tuple[Path, ...] = ()  # e.g. the project's interpreter prefix and virtualenv
    env: Mapping[str, str] = field(default_factory=dict)  # already allow-listed by the caller
    network: bool = False


@dataclass(frozen=True)
class RunResult:
    returncode: int | None
    signal: int | None = None
    timed_out: bool = False
    limit_hit: str = ""  # cpu | memory | disk | output | wall | ""
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
