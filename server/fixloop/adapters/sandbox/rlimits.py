"""Resource limits of a sandboxed run: the `prlimit` prefix that sets them, and which one ended a run."""

from __future__ import annotations

import resource
import shutil
import signal

from fixloop.adapters.sandbox.api import SandboxLimits


def _clamp(kind: int, wanted: int) -> int:
    """Never ask for more than the launcher's own hard limit: raising it would make prlimit fail."""
    hard = resource.getrlimit(kind)[1]
    return wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)


def prlimit_argv(limits: SandboxLimits) -> list[str]:
    """`prlimit ... --`, run *inside* the sandbox so the limits bind after namespaces and uid changes."""
    prlimit = shutil.which("prlimit") or "/usr/bin/prlimit"
    cpu = _clamp(resource.RLIMIT_CPU, max(1, int(limits.cpu_seconds)))
    cpu_hard = _clamp(resource.RLIMIT_CPU, cpu + 1)  # SIGXCPU first, SIGKILL a second later
    mb = 1024 * 1024
    return [
        prlimit,
        f"--cpu={cpu}:{cpu_hard}",
        f"--as={_clamp(resource.RLIMIT_AS, limits.address_space_mb * mb)}",
        f"--nproc={_clamp(resource.RLIMIT_NPROC, limits.processes)}",
        f"--fsize={_clamp(resource.RLIMIT_FSIZE, limits.file_size_mb * mb)}",
        f"--nofile={_clamp(resource.RLIMIT_NOFILE, limits.open_files)}",
        "--core=0",
        "--",
    ]


def classify(returncode: int | None, stderr_tail: str, cpu_used: float = 0.0, cpu_limit: float = 0.0) -> str:
    """Which rlimit most likely ended the run (a hint for the report, never a verdict)."""
    sig = -returncode if returncode is not None and returncode < 0 else (
        returncode - 128 if returncode is not None and 128 < returncode < 160 else 0)
    # SIGKILL comes at the hard limit (soft + 1 s) when the program ignored SIGXCPU; `cpu_used` is the
    # reaped tree's total or the last once-a-second sample, which is at least the soft limit by then.
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_limit and cpu_used >= cpu_limit - 0.1):
        return "cpu"
    if sig == signal.SIGXFSZ or "File too large" in stderr_tail:
        return "file_size"
    if "No space left on device" in stderr_tail:
        return "disk"
    if "MemoryError" in stderr_tail or "Cannot allocate memory" in stderr_tail:
        return "memory"
    if "Too many open files" in stderr_tail:
        return "open_files"
    if "Resource temporarily unavailable" in stderr_tail and "fork" in stderr_tail.lower():
        return "processes"
    return ""
