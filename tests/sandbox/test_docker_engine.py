"""The docker backend on a real engine (the tests' private one, `tests/dockerd.py`): the interpreters people
have, orphans reaped, a slow engine waited for, each bad engine or image with its own message, and the README's
demo project fixed inside containers. The abuse suite and the hostile projects run on docker too."""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import threading
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from fixloop.adapters.runner.interpreter import resolve
from fixloop.adapters.sandbox.api import Policy, RunTree, SandboxLimits, SandboxUnavailable
from fixloop.adapters.sandbox.docker_backend import DockerSandbox
from tests.conftest import REPO, fixloop_env
from tests.dockerd import Engine

pytestmark = [pytest.mark.docker, pytest.mark.e2e]
LIMITS = SandboxLimits(wall_seconds=60)


@pytest.fixture
def sandbox(docker_engine: Engine) -> DockerSandbox:
    return DockerSandbox(docker_engine.image)


def test_a_run_streams_its_output_and_reports_through_its_descriptor(sandbox: DockerSandbox, tmp_path: Path) -> None:
    (tmp_path / "data.txt").write_text("from the pristine tree\n")
    script = 'cat data.txt; echo to-stderr >&2; echo \'{"from": "the run"}\' >&9; echo new > made.txt; exit 3'
    result = sandbox.run(["/bin/sh", "-c", script], RunTree(tmp_path), LIMITS, Policy())
    assert result.returncode == 3 and result.backend == "docker", result
    assert result.stdout_head == "from the pristine tree\n" and result.stderr_head == "to-stderr\n"
    assert result.report == b'{"from": "the run"}\n'
    assert not (tmp_path / "made.txt").exists()


def _interpreters() -> Iterator[str]:
    """The interpreters this machine has: the tests' own (a virtualenv), its base (pyenv, python.org), the
    distribution's, and a virtualenv of the distribution's."""
    from tests.conftest import PYTHON

    yield PYTHON
    yield os.path.realpath(sys.executable)
    yield "/usr/bin/python3"


@pytest.mark.parametrize("python", [*_interpreters(), "distribution-venv"])
def test_the_interpreters_people_have_start_with_their_libraries(sandbox: DockerSandbox, tmp_path: Path,
                                                                 python: str) -> None:
    if python == "distribution-venv":
        venv = REPO / ".cache" / f"docker-venv-{uuid.uuid4().hex[:8]}"  # outside the project, not under /tmp
        subprocess.run(["/usr/bin/python3", "-m", "venv", "--without-pip", str(venv)], check=True)
        python = str(venv / "bin" / "python")
    elif not os.path.exists(python):
        pytest.skip(f"{python} is not on this machine")
    try:
        interpreter = resolve(tmp_path, python)
        code = "import sys, ssl, sqlite3, ctypes, decimal; print(sys.version.split()[0], sys.prefix)"
        result = sandbox.run([interpreter.path, "-c", code], RunTree(tmp_path), LIMITS, Policy(interpreter.read_only))
        assert result.returncode == 0, result.output
    finally:
        if "docker-venv-" in python:
            shutil.rmtree(Path(python).parent.parent, ignore_errors=True)


ORPHANS = """
import os, time
for _ in range(20):
    if os.fork() == 0:
        if os.fork() == 0:
            time.sleep(0.2)   # the grandchild outlives its parent: an orphan, then a zombie unless reaped
            os._exit(0)
        os._exit(0)
    os.wait()
time.sleep(1.5)
zombies = 0
for pid in os.listdir("/proc"):
    try:
        if pid.isdigit() and open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z":
            zombies += 1
    except OSError:
        pass
print("zombies", zombies)
"""


def test_orphans_are_reaped_while_the_command_runs(sandbox: DockerSandbox, tmp_path: Path) -> None:
    interpreter = resolve(tmp_path, sys.executable)
    result = sandbox.run([interpreter.path, "-c", ORPHANS], RunTree(tmp_path), LIMITS, Policy(interpreter.read_only))
    assert result.returncode == 0 and result.stdout_head == "zombies 0\n", result.output


class SlowEngine:
    """A socket in front of the engine that holds every container creation for `delay` seconds."""

    def __init__(self, engine: Engine, folder: Path, delay: float) -> None:
        self.engine, self.delay = engine, delay
        self.path = folder / "slow.sock"
        self.server = socket.socket(socket.AF_UNIX)
        self.server.bind(str(self.path))
        self.server.listen(16)
        self.held = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX)
            upstream.connect(str(self.engine.socket))
            threading.Thread(target=self._pipe, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, False), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, requests: bool) -> None:
        import time

        try:
            while data := src.recv(1 << 16):
                if requests and b"/containers/create" in data:
                    self.held += 1
                    time.sleep(self.delay)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.server.close()


def test_a_slow_engine_is_waited_for(docker_engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # vfs copies the whole image for each container: creation takes seconds on a busy disk (it used to end the
    # run as an "internal error" after 3 s).
    slow = SlowEngine(docker_engine, tmp_path, 4.0)
    try:
        monkeypatch.setenv("DOCKER_HOST", f"unix://{slow.path}")
        sandbox = DockerSandbox(docker_engine.image)
        result = sandbox.run(["/bin/true"], RunTree(tmp_path), LIMITS, Policy())
        assert result.returncode == 0 and slow.held >= 1, result
    finally:
        slow.close()


def _import_image(engine: Engine, name: str, files: dict[str, tuple[bytes, int]]) -> None:
    import docker

    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for path, (data, mode) in files.items():
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    docker.from_env().api.import_image_from_data(raw.getvalue(), repository=name)


@pytest.fixture
def images(docker_engine: Engine) -> Iterator[dict[str, str]]:
    """Broken images: one without /bin/sh, one whose /bin/sh works but that lacks setpriv."""
    import docker

    tag = uuid.uuid4().hex[:8]
    names = {"no-shell": f"fixloop-test-no-shell:{tag}", "no-setpriv": f"fixloop-test-no-setpriv:{tag}"}
    c = docker.from_env()
    _import_image(docker_engine, names["no-shell"], {"etc/hostname": (b"x\n", 0o644)})
    made = c.containers.run(docker_engine.image, ["rm", "/usr/bin/setpriv"], detach=True, network_mode="none")
    made.wait()
    made.commit(*names["no-setpriv"].split(":"))
    made.remove()
    yield names
    for name in names.values():
        c.images.remove(name, force=True)


def test_each_bad_image_has_its_own_message(docker_engine: Engine, images: dict[str, str]) -> None:
    missing = DockerSandbox(f"fixloop-test-missing:{uuid.uuid4().hex[:8]}").probe()
    assert "is not on the engine" in missing and "never pulls" in missing and "debootstrap --variant=minbase" in missing
    assert "docker import" in missing and "sandbox.docker_image" in missing
    no_shell = DockerSandbox(images["no-shell"]).probe()
    assert "has no usable /bin/sh" in no_shell, no_shell
    no_setpriv = DockerSandbox(images["no-setpriv"]).probe()
    assert "lacks setpriv" in no_setpriv and "util-linux" in no_setpriv, no_setpriv
    assert DockerSandbox(docker_engine.image).probe() == ""


def test_a_warm_worker_that_cannot_start_says_why_in_its_result(images: dict[str, str], tmp_path: Path) -> None:
    # Its server runs in a thread of its own: a result (and the descriptors closed, so the host sees EOF), not
    # an exception that would end that thread with a traceback.
    request_r, request_w = os.pipe()
    answer_r, answer_w = os.pipe()
    result = DockerSandbox(images["no-setpriv"]).run(["/bin/true"], RunTree(tmp_path), LIMITS, Policy(),
                                                     fds=(request_r, answer_w))
    assert result.returncode is None and "lacks setpriv" in result.stderr_head, result
    assert os.read(answer_r, 10) == b""  # EOF: no write end is left open
    for fd in (request_w, answer_r):
        os.close(fd)


def test_a_socket_without_permission_has_its_own_message(docker_engine: Engine) -> None:
    from tests.hostile.harness import NOBODY, nobody_python

    code = "from fixloop.adapters.sandbox.docker_backend import DockerSandbox; print(DockerSandbox().probe())"
    done = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", nobody_python(),
                           "-c", code], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "DOCKER_HOST": docker_engine.host})
    assert f"permission denied on the docker socket {docker_engine.host}" in done.stdout, done.stdout + done.stderr
    assert f"gid {docker_engine.group}" in done.stdout and f"uid {NOBODY}" in done.stdout


def test_a_missing_image_stops_a_fix_with_that_message_not_an_internal_error(docker_engine: Engine,
                                                                              tmp_path: Path) -> None:
    project = tmp_path / "proj"
    shutil.copytree(REPO / "examples" / "inventory", project, ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--dry-run", "--no-memory", "--offline",
                           "--set", "sandbox.backend=docker", "--set", "sandbox.docker_image=fixloop-test-missing:x"],
                          capture_output=True, text=True, env=fixloop_env(), timeout=300)
    assert done.returncode == 1 and "internal error" not in done.stderr, done.stderr
    assert "fixloop-test-missing:x is not on the engine" in done.stderr


def test_the_readme_demo_is_fixed_in_containers(docker_engine: Engine, tmp_path: Path) -> None:
    project = tmp_path / "inventory"
    shutil.copytree(REPO / "examples" / "inventory", project, ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
    done = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--dry-run", "--json", "--no-memory",
                           "--offline", "--set", "sandbox.backend=docker"], capture_output=True, text=True,
                          env=fixloop_env(), timeout=600)
    summary = json.loads(done.stdout)
    assert summary["status"] == "fixed", done.stderr
    assert summary["limits"]["backend"] == "docker" and "+    if quantity >= BULK_THRESHOLD:" in summary["diff"]
    events = [json.loads(line) for line in (Path(summary["run_dir"]) / "events.jsonl").read_text().splitlines()]
    assert any("docker" in json.dumps(e) for e in events if e["kind"] == "started"), events[0]
