"""Choose a sandbox backend from settings. Each backend (`backends.BACKENDS`) is probed once per process
(its exact recipe on /bin/true) and the answer cached. `auto` takes the table's `auto` entries in order
(bwrap, then landlock) and never falls back to running unsandboxed: that needs `sandbox.backend = "none"`
said explicitly.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Sequence

from fixloop.adapters.sandbox.api import Policy, RunResult, RunTree, Sandbox, SandboxLimits, SandboxUnavailable
from fixloop.adapters.sandbox.backends import AUTO, AUTO_ORDER, Probed, SandboxSettings, backend as entry, find

_lock = threading.Lock()
_probed: dict[str, tuple[Probed | None, str]] = {}  # name -> (backend, or None and why it does not work)


def probe(name: str, settings: SandboxSettings = SandboxSettings()) -> tuple[Probed | None, str]:
    """(backend, '') when `name` works here, else (None, why not). Cached for the process."""
    with _lock:
        if name not in _probed:
            made: Probed | None = None
            try:
                reason = entry(name).unsupported()
                if not reason:
                    made = entry(name).make(settings)
                    reason = made.probe()
            except Exception as e:  # a probe must report, never crash the caller
                made, reason = None, f"{type(e).__name__}: {e}"
            _probed[name] = (None if reason else made, reason)
        return _probed[name]


@dataclass
class Configured:
    """A backend with the user's caps on memory, processes and disk applied to every run."""

    inner: Probed
    settings: SandboxSettings

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def guarantees(self) -> tuple[str, ...]:
        return tuple(self.inner.guarantees)

    @property
    def writes_as_you(self) -> bool:
        return bool(getattr(self.inner, "writes_as_you", False))

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


def resolve(settings: SandboxSettings) -> Probed:
    """The working backend for these settings, or SandboxUnavailable saying what to do."""
    wanted = settings.backend
    if wanted != AUTO:
        backend, reason = probe(wanted, settings)
        if backend is None:
            known = find(wanted)
            hint = known.hint if known is not None else ""
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
