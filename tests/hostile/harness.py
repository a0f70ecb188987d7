"""Hostile projects, built by the tests, and the real `fixloop` CLI run against them as root and as an
unprivileged user, on every sandbox backend that works here.

Every test builds its own attacker project in a fresh world-traversable directory (so uid 65534 can
run there too), next to a bait home: a private key, a shell rc file and an outside folder that nothing
may touch. `Host.evidence()` is the host-side proof: what changed outside the project.

The unprivileged user runs fixloop from its own virtualenv (built once per machine from the system
Python, in a world-readable cache folder; `FIXLOOP_NOBODY_VENV` points at another), because the
developer's virtualenv may sit under root's private home.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import pytest

from fixloop.adapters.sandbox.backends import AUTO_ORDER
from tests.backends import unavailable
from tests import dockerd
from tests.conftest import PYTHON

REPO = Path(__file__).resolve().parents[2]


def _unprivileged_uid() -> int:
    """uid 65534 (nobody) for the first test worker, one below it for each further one. RLIMIT_NPROC counts
    every process of a uid on the machine: a hostile test's fork chain as one worker's user must not leave
    another worker's fixloop run unable to start its tests."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    number = worker[2:]
    return 65534 - (int(number) if worker.startswith("gw") and number.isdigit() else 0)


NOBODY = _unprivileged_uid()
USERS = ("root", "nobody")
# Every backend `auto` may pick (the backend table's), and docker on the tests' private engine (CI runs those in
# their own stage, `-m docker`); each is skipped where it does not work.
BACKENDS = (*AUTO_ORDER, pytest.param("docker", marks=pytest.mark.docker))
BAIT_KEY = "BAIT-PRIVATE-KEY\n"
BAIT_RC = "# the user's shell rc\n"
BAIT_API_KEY = "sk-ant-bait-hostile-0000"
SYSTEM_PYTHON = "/usr/bin/python3"


@dataclass
class Host:
    """A throwaway world: the attacker's project, a bait home and an outside folder."""

    top: Path
    project: Path
    home: Path
    outside: Path
    user: str
    before: dict[str, tuple[int, bytes]] = field(default_factory=dict)

    @property
    def key(self) -> Path:
        return self.home / ".ssh" / "id_rsa"

    @property
    def bashrc(self) -> Path:
        return self.home / ".bashrc"

    def write(self, rel: str, text: str, mode: int = 0o644) -> Path:
        path = self.project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.chmod(path, mode)
        return path

    def snapshot(self) -> None:
        """Remember every file outside the project (bait home and outside folder) and the project itself."""
        self.before = _files(self.home) | _files(self.outside) | _files(self.project, skip=(".fixloop",))

    def evidence(self) -> list[str]:
        """What changed since `snapshot()` outside the project's run log: each entry is an escape."""
        after = _files(self.home) | _files(self.outside) | _files(self.project, skip=(".fixloop",))
        found = [f"created {p}" for p in sorted(set(after) - set(self.before))]
        found += [f"removed {p}" for p in sorted(set(self.before) - set(after))]
        found += [f"changed {p}" for p in sorted(set(after) & set(self.before)) if after[p] != self.before[p]]
        return found

    def give_away(self) -> None:
        """Hand the whole world to the user the test runs as."""
        if self.user == "nobody":
            for dirpath, dirnames, filenames in os.walk(self.top):
                for name in dirnames + filenames + ["."]:
                    os.lchown(os.path.join(dirpath, name), NOBODY, NOBODY)


def _files(root: Path, skip: Sequence[str] = ()) -> dict[str, tuple[int, bytes]]:
    out: dict[str, tuple[int, bytes]] = {}
    if not root.exists():
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            try:
                st = os.lstat(path)
                data = os.readlink(path).encode() if os.path.islink(path) else Path(path).read_bytes()
            except OSError:
                continue
            out[path] = (st.st_mode, data)
    return out


def make_host(user: str) -> Host:
    top = Path(tempfile.mkdtemp(prefix="fixloop-hostile-", dir="/tmp"))
    os.chmod(top, 0o755)
    project, home, outside = top / "project", top / "home", top / "outside"
    for d in (project, home / ".ssh", outside):
        d.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(BAIT_KEY)
    os.chmod(home / ".ssh" / "id_rsa", 0o600)
    (home / ".bashrc").write_text(BAIT_RC)
    (outside / "keep.txt").write_text("outside file\n")
    return Host(top, project, home, outside, user)


def nobody_python() -> str:
    """A Python with fixloop and pytest that uid 65534 can run; built once per machine and source tree."""
    if env := os.environ.get("FIXLOOP_NOBODY_VENV"):
        return str(Path(env) / "bin" / "python")
    if not os.path.exists(SYSTEM_PYTHON) or not shutil.which("setpriv"):
        pytest.skip("setpriv or the system python3 is missing")
    probe = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "test", "-r",
                            str(REPO / "server" / "fixloop" / "__init__.py")])
    if probe.returncode != 0:
        pytest.skip(f"the checkout at {REPO} is not readable by uid {NOBODY}")
    spec = f"{REPO}[docker]"  # docker-py too: the docker backend's client runs as this user
    tag = hashlib.sha256((spec + (REPO / "pyproject.toml").read_text()).encode()).hexdigest()[:12]
    cache = Path(os.environ.get("FIXLOOP_HOSTILE_CACHE", "/var/cache/fixloop-hostile"))
    venv = cache / f"venv-{tag}"
    python = venv / "bin" / "python"
    if (venv / ".complete").exists():
        return str(python)
    cache.mkdir(parents=True, exist_ok=True)
    os.chmod(cache, 0o755)
    with open(cache / f".venv-{tag}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test workers (pytest -n) build it once, one at a time
        if not (venv / ".complete").exists():
            t0 = time.monotonic()
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([SYSTEM_PYTHON, "-m", "venv", str(venv)], check=True)
            subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", spec, "pytest"], check=True,
                           stdout=subprocess.DEVNULL)
            (venv / ".complete").write_text("")
            sys.stderr.write(f"\nhostile: built the unprivileged user's virtualenv in {time.monotonic() - t0:.0f} s\n")
    return str(python)


def user_env(host: Host, backend: str) -> dict[str, str]:
    """The environment a fixloop command gets: the bait home, private data folders, a bait API key, and the
    private engine's address for docker."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(host.home), "LANG": "C.UTF-8",
           "XDG_DATA_HOME": str(host.top / "data"), "XDG_CACHE_HOME": str(host.top / "cache"),
           "ANTHROPIC_API_KEY": BAIT_API_KEY}
    if backend == "docker":
        env["DOCKER_HOST"] = dockerd.engine().host
    return env


def as_user(host: Host, backend: str, argv: Sequence[str]) -> list[str]:
    """`argv` as the host's user: uid 65534 with no groups, except the engine socket's group for docker (whoever
    may use a docker engine must be in it)."""
    if host.user != "nobody":
        return list(argv)
    groups = ["--clear-groups"]
    if backend == "docker":
        gid = dockerd.engine().group
        if gid == 0:
            pytest.skip("the private engine's socket belongs to group root: no unprivileged user may use it")
        groups = [f"--groups={gid}"]
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", *groups, *argv]


@dataclass
class Fixed:
    returncode: int
    summary: dict[str, Any] | None
    stdout: str
    stderr: str


def run_fix(host: Host, backend: str, args: Sequence[str] = (), python: str | None = "",
            env: Mapping[str, str] | None = None, timeout: float = 300, offline: bool = True) -> Fixed:
    """`fixloop fix PROJECT --json --no-memory --offline --sandbox BACKEND ARGS` as the host's user.

    `python=""` passes the test's own interpreter as the user's `--python`; `None` lets fixloop find the
    project's interpreter itself (what an attacker's `.venv` is for). `offline=False` only with a model
    endpoint on loopback in `args` (`--set llm.base_url=...`)."""
    interpreter = sys.executable if host.user == "root" else nobody_python()
    # --offline: the bait API key is in the environment, and tests never reach beyond loopback.
    argv = [interpreter, "-m", "fixloop", "fix", str(host.project), "--json", "--no-memory",
            *(["--offline"] if offline else []), "--sandbox", backend]
    if python is not None:
        # root's projects run on the lean test interpreter (pytest without the dev plugins, as in most projects).
        argv += ["--python", python or (PYTHON if host.user == "root" else interpreter)]
    argv += list(args)
    base_env = user_env(host, backend)
    base_env["FIXLOOP_BAIT"] = "bait-in-the-parent-environment"
    base_env.update(env or {})
    host.give_away()
    done = subprocess.run(as_user(host, backend, argv), cwd=host.top, env=base_env, capture_output=True, text=True,
                          timeout=timeout)
    summary = None
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            try:
                summary = json.loads(line)
            except ValueError:
                pass
            break
    # (docker is given the socket's group: there a refusal is a failure, not a skip)
    if host.user == "nobody" and backend != "docker" and "does not work here" in done.stderr and backend in done.stderr:
        unavailable(backend, f"it does not start for an unprivileged user: {done.stderr.strip()[-300:]}")
    return Fixed(done.returncode, summary, done.stdout, done.stderr)


@pytest.fixture(params=USERS)
def host(request: pytest.FixtureRequest) -> Any:
    if os.geteuid() != 0 and request.param == "root":
        pytest.skip("not running as root")
    h = make_host(request.param)
    yield h
    shutil.rmtree(h.top, ignore_errors=True)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    from fixloop.adapters.sandbox.select import probe

    if request.param == "docker":
        request.getfixturevalue("docker_engine")
    found, reason = probe(request.param)
    if found is None:
        unavailable(request.param, reason)
    return str(request.param)
