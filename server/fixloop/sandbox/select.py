"""Choose a sandbox backend from settings. Each backend is probed once per process (its exact recipe
on /bin/true) and the answer cached. `auto` takes bwrap, then landlock, and never falls back to running
unsandboxed: that needs `sandbox.backend = "none"` said explicitly.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..config import SandboxSettings
from .api import Policy, RunResult, RunTree, Sandbox, SandboxLimits, SandboxUnavailable

AUTO_ORDER = ("bwrap", "landlock")
_lock = threading.Lock()
_probed: dict[str, tuple[Any, str]] = {}  # name -> (backend instance or None, reason it does not work)


def _factory(name: str, settings: SandboxSettings) -> Callable[[], Any]:
    if name == "bwrap":
        from .bwrap import BwrapSandbox
        return BwrapSandbox
    if name == "landlock":
        from .landlock import LandlockSandbox
        return LandlockSandbox
    if name == "docker":
        from .docker_backend import DockerSandbox
        return lambda: DockerSandbox(settings.docker_image)
    if name == "none":
        from .plain import PlainSandbox
        return PlainSandbox
    raise SandboxUnavailable(f"unknown sandbox backend {name!r}")


def probe(name: str, settings: SandboxSettings = SandboxSettings()) -> tuple[Any, str]:
    """(backend, '') when `name` works here, else (None, why not). Cached for the process."""
    with _lock:
        if name not in _probed:
            if name in ("bwrap", "landlock") and not sys.platform.startswith("linux"):
                _probed[name] = (None, f"{name} needs Linux")
            else:
                try:
                    backend = _factory(name, settings)()
                    reason = backend.probe()
                except Exception as e:  # a probe must report, never crash the caller
                    backend, reason = None, f"{type(e).__name__}: {e}"
                _probed[name] = (None if reason else backend, reason)
        return _probed[name]


def forget_probes() -> None:
    with _lock:
        _probed.clear()


@dataclass
class Configured:
    """A backend with the user's caps on memory, processes and disk applied to every run."""

    inner: Any
    settings: SandboxSettings

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def guarantees(self) -> tuple[str, ...]:
        return tuple(self.inner.guarantees)

    def run(self, argv: Sequence[str], tree: RunTree, limits: SandboxLimits, policy: Policy,
            fds: Sequence[int] = ()) -> RunResult:
        s = self.settings
        limits = dataclasses.replace(
            limits, address_space_mb=min(limits.address_space_mb, s.memory_mb),
            memory_total_mb=min(limits.memory_total_mb, s.memory_mb) if limits.memory_total_mb else s.memory_mb,
            processes=min(limits.processes, s.processes), disk_quota_mb=min(limits.disk_quota_mb, s.disk_quota_mb))
        return self.inner.run(argv, tree, limits, policy, fds)

    def kill_all(self) -> None:
        self.inner.kill_all()


def resolve(settings: SandboxSettings) -> Any:
    """The working backend for these settings, or SandboxUnavailable saying what to do."""
    wanted = settings.backend
    if wanted != "auto":
        backend, reason = probe(wanted, settings)
        if backend is None:
            hint = {"bwrap": "install bubblewrap (apt-get install bubblewrap)",
                    "docker": "start a docker engine or choose another backend",
                    "landlock": "use a kernel with Landlock and install pyseccomp"}.get(wanted, "")
            raise SandboxUnavailable(f"sandbox backend {wanted!r} does not work here: {reason}"
                                     + (f"; {hint}" if hint else ""))
        return backend
    reasons = []
    for name in AUTO_ORDER:
        backend, reason = probe(name, settings)
        if backend is not None:
            return backend
        reasons.append(f"{name}: {reason}")
    raise SandboxUnavailable(
        "no isolating sandbox works here (" + "; ".join(reasons) + "). Install bubblewrap "
        "(apt-get install bubblewrap), or run tests unsandboxed by setting sandbox.backend = \"none\" "
        "explicitly: --sandbox none, the editor setting, or your own config file (a project's pyproject.toml "
        "cannot choose the backend).")


def choose(settings: SandboxSettings) -> Sandbox:
    return Configured(resolve(settings), settings)
