"""A private docker engine for the docker backend's tests (`scripts/docker_engine.sh`), never the machine's own.

The first test that needs it starts the engine and builds the sandbox image offline (both cached per machine
under $FIXLOOP_DOCKER_CACHE); every test process that uses it holds a shared lock on it, and the last one to
finish stops it, if a test session started it (an engine started by hand or by CI's script is left running).
`summary_lines` gives the session's engine start and image build times for pytest's closing summary.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest
from tests.backends import unavailable

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "docker_engine.sh"
CACHE = Path(os.environ.get("FIXLOOP_DOCKER_CACHE", "/var/cache/fixloop-docker"))
ENGINE = CACHE / "engine"
STARTED_BY_TESTS = ENGINE / "started-by-tests"


@dataclass(frozen=True)
class Engine:
    host: str  # DOCKER_HOST
    image: str
    socket: Path

    @property
    def group(self) -> int:
        """The socket's group: an unprivileged user in it may use the engine."""
        return self.socket.stat().st_gid


_engine: Engine | None = None
_problem = ""
_users: IO[str] | None = None  # the shared lock this process holds while it may use the engine


def _script(*args: str, timeout: float) -> dict[str, str]:
    done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "FIXLOOP_DOCKER_CACHE": str(CACHE)})
    if done.returncode != 0:
        raise RuntimeError(f"docker_engine.sh {' '.join(args)} failed: {done.stderr.strip()[-600:]}")
    return dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)


def engine() -> Engine:
    """The running engine with the sandbox image, started (and the image built) once; skips with the reason when
    this machine cannot run one."""
    global _engine, _problem, _users
    if _engine is None and not _problem:
        if os.geteuid() != 0:
            _problem = "starting a private docker engine needs root"
        elif shutil.which("dockerd") is None or shutil.which("debootstrap") is None:
            _problem = "dockerd or debootstrap is not installed (apt-get install docker.io debootstrap)"
        else:
            try:
                ENGINE.mkdir(parents=True, exist_ok=True)
                _users = open(ENGINE / "users.lock", "w")
                fcntl.flock(_users, fcntl.LOCK_SH)
                started = _script("start", timeout=120)
                if started.get("STATE") == "started":
                    STARTED_BY_TESTS.write_text(str(os.getpid()))
                built = _script("image", timeout=900)
                _engine = Engine(started["DOCKER_HOST"], built["IMAGE"], ENGINE / "docker.sock")
            except (RuntimeError, OSError, KeyError, subprocess.TimeoutExpired) as e:
                _problem = str(e)
    if _engine is None:
        unavailable("docker", f"no private docker engine: {_problem}")
    os.environ["DOCKER_HOST"] = _engine.host  # fixloop's client and every CLI the tests start find it there
    return _engine


def release() -> None:
    """This process is done with the engine; the last one out stops it if a test session started it."""
    global _users
    if _users is None:
        return
    fcntl.flock(_users, fcntl.LOCK_UN)
    try:
        fcntl.flock(_users, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # another test process still uses it
        _users.close()
        _users = None
        return
    try:
        if STARTED_BY_TESTS.exists():
            STARTED_BY_TESTS.unlink()
            _script("stop", timeout=60)
    finally:
        _users.close()
        _users = None


def summary_lines(since: float) -> list[str]:
    """The engine's timings recorded since `since` (epoch seconds): start and image build or import."""
    try:
        lines = (ENGINE / "timings").read_text().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        stamp, _, text = line.partition(" ")
        if stamp.isdigit() and int(stamp) >= int(since):
            out.append(f"docker {text}")
    return out


SESSION_START = time.time()
