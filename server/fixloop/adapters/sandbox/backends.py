"""Every sandbox backend in one table: its name, what it isolates, how to make it, what it needs, whether
`auto` may pick it, and what to do when it does not work here.

`select` (probe and choose), `doctor`, the settings check in `config.py` and the CLI's `--sandbox` help read
this table (and `config.py` takes `SandboxSettings` from here); the editors' settings and the docs cannot import it, so `tests/sandbox/test_backends.py` holds
them to it. Adding a backend is one entry here plus its module. Backend modules load only when their factory
is called, so importing this table costs nothing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, Protocol

from fixloop.adapters.sandbox.api import Sandbox, SandboxUnavailable

AUTO = "auto"  # not a backend: the first entry with `auto=True` that works here


class Probed(Sandbox, Protocol):
    """A backend as `select` and `doctor` use it."""

    @property
    def guarantees(self) -> tuple[str, ...]:
        """What isolates a run here, one line each (every result carries them too)."""
        ...

    def probe(self) -> str:
        """'' when this backend works on this machine (its exact recipe on /bin/true), else why not."""
        ...


@dataclass(frozen=True)
class SandboxSettings:
    """The user's `[sandbox]` settings (`config.Settings.sandbox`). They live beside the backends they choose
    from so that the sandbox package never imports `config`."""

    backend: str = AUTO  # one of `choices()`
    memory_mb: int = 4096
    processes: int = 512
    disk_quota_mb: int = 2048
    docker_image: str = "fixloop-sandbox:bookworm"  # never pulled: made offline (scripts/docker_engine.sh)


@dataclass(frozen=True)
class Backend:
    name: str
    summary: str  # what it isolates, in one line (`fixloop doctor` says it of a backend that does not work)
    make: Callable[[SandboxSettings], Probed]
    auto: bool = False  # `auto` may pick it, in table order
    linux_only: bool = False
    hint: str = ""  # what to do when it does not work here
    label: str = ""  # said beside its name by `fixloop doctor`

    def unsupported(self) -> str:
        """Why it cannot work on this platform at all ('' when it may), before anything is imported."""
        return f"{self.name} needs Linux" if self.linux_only and not sys.platform.startswith("linux") else ""


def _bwrap(settings: SandboxSettings) -> Probed:
    from fixloop.adapters.sandbox.bwrap import BwrapSandbox
    return BwrapSandbox()


def _landlock(settings: SandboxSettings) -> Probed:
    from fixloop.adapters.sandbox.landlock import LandlockSandbox
    return LandlockSandbox()


def _docker(settings: SandboxSettings) -> Probed:
    from fixloop.adapters.sandbox.docker_backend import DockerSandbox
    return DockerSandbox(settings.docker_image)


def _none(settings: SandboxSettings) -> Probed:
    from fixloop.adapters.sandbox.plain import PlainSandbox
    return PlainSandbox()


BACKENDS: tuple[Backend, ...] = (
    Backend("bwrap", "bubblewrap: own pid/net/ipc/uts namespaces, read-only system, capabilities dropped",
            _bwrap, auto=True, linux_only=True, hint="install bubblewrap (apt-get install bubblewrap)"),
    Backend("landlock", "Landlock file rules, seccomp (no sockets) and a subreaper supervisor",
            _landlock, auto=True, linux_only=True, hint="use a kernel with Landlock and install pyseccomp"),
    Backend("docker", "one throwaway container per run: no network, read-only root, no capabilities",
            _docker, hint="docs/sandbox.md says how to run a private engine with an image made offline; "
                          "or choose another backend"),
    Backend("none", "unsandboxed: limits only, every run labelled so", _none,
            label="unsandboxed: explicit opt-in only"),
)

AUTO_ORDER: tuple[str, ...] = tuple(b.name for b in BACKENDS if b.auto)


def names() -> tuple[str, ...]:
    return tuple(b.name for b in BACKENDS)


def choices() -> tuple[str, ...]:
    """Every value `sandbox.backend` accepts, `auto` first."""
    return (AUTO, *names())


def find(name: str) -> Backend | None:
    return next((b for b in BACKENDS if b.name == name), None)


def backend(name: str) -> Backend:
    found = find(name)
    if found is not None:
        return found
    raise SandboxUnavailable(f"unknown sandbox backend {name!r}; choose one of {', '.join(choices())}")
