"""`fixloop doctor`: which sandbox backends work here, which one a run would use, what each guarantees."""

from __future__ import annotations

import os
from dataclasses import dataclass

from fixloop.adapters.sandbox.api import SandboxUnavailable
from fixloop.adapters.sandbox.backends import BACKENDS, Backend, SandboxSettings
from fixloop.adapters.sandbox.select import probe, resolve


@dataclass(frozen=True)
class BackendStatus:
    kind: Backend
    works: bool
    reason: str
    guarantees: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.kind.name


def diagnose(settings: SandboxSettings = SandboxSettings()) -> tuple[list[BackendStatus], str, str]:
    """Every backend's status, the backend a run would use ('' if none) and, if none, why."""
    statuses = []
    for kind in BACKENDS:
        backend, reason = probe(kind.name, settings)
        statuses.append(BackendStatus(kind, backend is not None, reason,
                                      tuple(backend.guarantees) if backend is not None else ()))
    try:
        chosen, problem = str(resolve(settings).name), ""
    except SandboxUnavailable as e:
        chosen, problem = "", str(e)
    return statuses, chosen, problem


def render(settings: SandboxSettings = SandboxSettings()) -> tuple[str, bool]:
    """Plain text for the terminal, and whether a run could start with these settings."""
    statuses, chosen, problem = diagnose(settings)
    lines = [f"running as uid {os.geteuid()}; sandbox.backend = {settings.backend!r}", ""]
    for s in statuses:
        mark = "ok  " if s.works else "no  "
        label = f" ({s.kind.label})" if s.kind.label else ""
        lines.append(f"{mark}{s.name}{label}" + ("" if s.works else f": {s.reason}"))
        lines.extend(f"      - {g}" for g in s.guarantees)
        if not s.works:
            lines.append(f"      would give: {s.kind.summary}" + (f"; to use it: {s.kind.hint}" if s.kind.hint else ""))
    lines.append("")
    lines.append(f"a run would use: {chosen}" if chosen else f"a run cannot start: {problem}")
    return "\n".join(lines) + "\n", bool(chosen)
