"""The sandbox port: run one command on a fresh writable copy of a pristine tree, isolated and bounded.

The caller owns the pristine tree (never writable by anything sandboxed); each run gets its own copy of
it plus the candidate's changed files, made by the backend, and the copy is gone when the run ends.
Results come back through pipes (stdout, stderr and a report pipe whose descriptor number is in
`FIXLOOP_REPORT_FD`), never through files the sandboxed code could plant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Mapping, Protocol, Sequence

REPORT_FD_ENV = "FIXLOOP_REPORT_FD"  # the write end of the run's report pipe, as a number
RELOCATE_ENV = "FIXLOOP_WORKSPACE"  # the path the project's own files name, when the copy is elsewhere


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
    report_bytes: int = 20_000_000  # what the host reads from the report pipe at most


@dataclass(frozen=True)
class RunTree:
    """What a run starts from. `source` and `runtime` belong to the host and stay read-only to the run;
    the command's working directory is a fresh writable copy of `source` with `changes` written over it."""

    source: Path
    changes: Mapping[str, bytes] = field(default_factory=dict)  # plain relative path -> exact bytes
    runtime: Path | None = None  # fixloop's own files for the run (report plugin, warm worker), read-only
    # Where the run sees its copy: the workspace's own path, so editable installs, `.pth` files and absolute
    # paths in configs work unchanged. Backends that mount (bwrap, docker) put the copy there; the others
    # cannot remap paths and use a private folder (`RELOCATE_ENV` tells the tests' interpreter where the
    # project was). None: a folder beside the pristine tree.
    at: Path | None = None

    def __post_init__(self) -> None:
        for name in self.changes:
            parts = PurePosixPath(name).parts
            if not parts or PurePosixPath(name).is_absolute() or any(p in ("", ".", "..") for p in parts) \
                    or "\0" in name:
                raise ValueError(f"refusing the change {name!r}: not a plain relative path")
        if self.at is not None and (not self.at.is_absolute() or self.at == Path("/")):
            raise ValueError(f"refusing to place a run's copy at {self.at}")


@dataclass(frozen=True)
class Policy:
    """What the command may see besides the workspace."""

    read_only: tuple[Path, ...] = ()  # e.g. the project's interpreter prefix and virtualenv
    env: Mapping[str, str] = field(default_factory=dict)  # filtered again by the launcher: no secrets
    network: bool = False  # only loopback inside the sandbox either way; True is refused by isolating backends
    # Folders the command may write besides its own copy: only an install you approved gets one (your
    # virtualenv), and only from a backend that runs as you (`writes_as_you`).
    writable: tuple[Path, ...] = ()


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
    report: bytes = b""  # everything the run wrote to its report pipe, up to `limits.report_bytes`
    report_overflow: bool = False  # it wrote more: the report is cut and cannot be believed
    cpu_seconds: float = 0.0  # user + system time of the whole reaped tree (wait4), when known
    peak_mb: float = 0.0  # ru_maxrss of the tree: the largest resident set of any one process, when known

    @property
    def output(self) -> str:
        return (self.stdout_head + self.stdout_tail)[-8000:] + (self.stderr_head + self.stderr_tail)[-4000:]


class Sandbox(Protocol):
    name: str

    def run(
        self, argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy, fds: Sequence[int] = ()
    ) -> RunResult:
        """Run `argv` in a fresh copy of `tree`. `fds` are descriptors the command gets under the same
        numbers (a warm worker's request and answer pipes); the sandbox closes this process's copies of
        them once the command started (or could not start), so a pipe's other end sees EOF when the
        command ends."""
        ...

    def kill_all(self) -> None:
        """Kill every process this sandbox started and that still runs (cancellation)."""
        ...
