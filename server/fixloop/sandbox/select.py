"""Choose a sandbox backend from settings (probed once per process)."""

from __future__ import annotations

from ..config import SandboxSettings
from .api import Sandbox
from .plain import PlainSandbox


def choose(settings: SandboxSettings) -> Sandbox:
    # Only the unsandboxed backend exists so far; the isolating backends plug in here.
    return PlainSandbox()
