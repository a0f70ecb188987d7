"""A planted world for the abuse suite: a throwaway home with a key, an original project, baits and listeners.

Everything lives in pytest's tmp dirs; nothing on the real machine is touched. Each test runs the
hostile payload through a real backend (bwrap, landlock and docker, when they work here) and then checks the
host: files unchanged, listeners untouched, bait process alive, nothing left running.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest
from tests.backends import unavailable

from fixloop.adapters.runner.interpreter import interpreter_paths
from fixloop.adapters.sandbox.api import Policy, RunResult, RunTree, SandboxLimits
from fixloop.adapters.sandbox.select import probe

PAYLOAD = Path(__file__).with_name("payload.py")
# FIXLOOP_ABUSE_BACKENDS=none shows the suite has teeth: against the unsandboxed backend it fails.
ISOLATING = tuple(os.environ.get("FIXLOOP_ABUSE_BACKENDS", "bwrap,landlock,docker").split(","))
# docker runs on the tests' private engine, in CI's docker stage (`-m docker`).
PARAMS = [pytest.param(name, marks=pytest.mark.docker) if name == "docker" else name for name in ISOLATING]
BAIT_ENV = {"ANTHROPIC_API_KEY": "sk-ant-bait-0000", "GITHUB_TOKEN": "bait-token", "MY_SECRET": "bait-secret",
            "DB_PASSWORD": "bait-password", "SAFE_SETTING": "visible"}


@pytest.fixture(params=PARAMS)
def sandbox(request: pytest.FixtureRequest) -> Any:
    if request.param == "none" and os.geteuid() == 0:
        pytest.skip("the unsandboxed backend would really write /etc and /usr as root")
    if request.param == "docker":
        request.getfixturevalue("docker_engine")
    backend, reason = probe(request.param)
    if backend is None:
        unavailable(request.param, reason)
    return backend


class Listener:
    """Host-side TCP, UDP and unix-socket listeners that record whether anything reached them."""

    def __init__(self, tmp: Path) -> None:
        self.hits: list[str] = []
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_path = str(tmp / "host.sock")
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(self.unix_path)
        self.unix.listen()
        self.abstract = socket.socket(socket.AF_UNIX)
        # Abstract names are machine-wide (per network namespace): each listener has its own.
        self.abstract_name = f"fixloop-abuse-{uuid.uuid4().hex}"
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen()
        for s in (self.tcp, self.udp, self.unix, self.abstract):
            s.settimeout(0.2)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop:
            for kind, s in (("tcp", self.tcp), ("unix", self.unix), ("abstract", self.abstract)):
                try:
                    conn, _ = s.accept()
                    self.hits.append(kind)
                    conn.close()
                except (socket.timeout, OSError):
                    pass
            try:
                self.udp.recvfrom(100)
                self.hits.append("udp")
            except (socket.timeout, OSError):
                pass

    def drain(self) -> list[str]:
        """Everything that reached the listeners, including connections still waiting in a backlog.
        Stops the serving thread: call it once, at the end of a test."""
        self._stop = True
        self._thread.join(2)
        for kind, s in (("tcp", self.tcp), ("unix", self.unix), ("abstract", self.abstract), ("udp", self.udp)):
            s.setblocking(False)
            try:
                if kind == "udp":
                    s.recvfrom(100)
                else:
                    conn, _ = s.accept()
                    conn.close()
                self.hits.append(kind)
            except OSError:
                pass
        return self.hits

    @property
    def ports(self) -> tuple[int, int]:
        return self.tcp.getsockname()[1], self.udp.getsockname()[1]

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        for s in (self.tcp, self.udp, self.unix, self.abstract):
            s.close()


@dataclass
class World:
    home: Path
    key: Path
    bashrc: Path
    project: Path
    original: Path
    ws: Path  # the pristine tree each run is copied from (read-only to the runs)
    bait: subprocess.Popen[bytes]
    listener: Listener
    tag: str = field(default_factory=lambda: uuid.uuid4().hex)

    def snapshot(self) -> dict[str, bytes]:
        return {str(p): p.read_bytes() for p in (self.key, self.bashrc, self.original)}

    def policy(self, **env: str) -> Policy:
        return Policy(read_only=interpreter_paths(sys.executable),
                      env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", **BAIT_ENV, **env})

    def run(self, sandbox: Any, attack: str, *args: str, **limits: Any) -> tuple[RunResult, dict[str, Any]]:
        defaults: dict[str, Any] = dict(wall_seconds=15.0, cpu_seconds=10, address_space_mb=1024, processes=64,
                                        memory_total_mb=2048,
                                        file_size_mb=64, open_files=256, disk_quota_mb=64, output_bytes=16384)
        defaults.update(limits)
        result = sandbox.run([sys.executable, "payload.py", attack, self.tag, *args], RunTree(self.ws),
                             SandboxLimits(**defaults), self.policy())
        facts: dict[str, Any] = {}
        for line in (result.stdout_head + result.stdout_tail).splitlines():
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                facts.update(obj)
        return result, facts

    def leftovers(self, wait: float = 3.0) -> list[int]:
        """Pids whose command line carries this world's tag, after waiting up to `wait` seconds."""
        end = time.monotonic() + wait
        while True:
            found = []
            for name in os.listdir("/proc"):
                if not name.isdigit():
                    continue
                try:
                    cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
                    state = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[-1].split()[0]
                except OSError:
                    continue
                if self.tag.encode() in cmdline and state != "Z":
                    found.append(int(name))
            if not found or time.monotonic() > end:
                return found
            time.sleep(0.1)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_rsa"
    key.write_text("BAIT-PRIVATE-KEY\n")
    key.chmod(0o600)
    bashrc = home / ".bashrc"
    bashrc.write_text("# bait bashrc\n")
    project = tmp_path / "project"
    project.mkdir()
    original = project / "module.py"
    original.write_text("VALUE = 1\n")
    ws = tmp_path / "scratch" / "ws"
    ws.mkdir(parents=True)
    (tmp_path / "scratch").chmod(0o755)
    shutil.copy(PAYLOAD, ws / "payload.py")
    shutil.copy(original, ws / "module.py")
    os.symlink(key, ws / "secret_link")  # shipped inside the project, pointing at the user's key
    bait = subprocess.Popen(["sleep", "120"], env={"ANTHROPIC_API_KEY": "sk-ant-bait-proc", "PATH": "/usr/bin:/bin"})
    listener = Listener(tmp_path)
    try:
        yield World(home, key, bashrc, project, original, ws, bait, listener)
    finally:
        listener.close()
        bait.kill()
        bait.wait()
