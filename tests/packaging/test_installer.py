"""editors/shared/fixloop_install.py, the installer both editors run: real venvs, real pip, real signals.

The package it installs is a tiny wheel written here (a `fixloop` with `fixloop.lsp.server`), so the tests
exercise the installer's own behaviour (private environment, atomic switch, messages, retry) without
downloading fixloop's dependencies; the full install is checked by scripts/check_package.sh and the
editor suites."""

from __future__ import annotations

import importlib.util
import base64
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALLER = REPO / "editors" / "shared" / "fixloop_install.py"
OLD_PYTHON = Path("/root/.pyenv/versions/3.9.18/bin/python")


def make_wheel(dest: Path, version: str = "0.1.0", requires: tuple[str, ...] = ()) -> Path:
    files = {
        "fixloop/__init__.py": f'__version__ = "{version}"\n',
        "fixloop/lsp/__init__.py": "",
        "fixloop/lsp/server.py": "",
        f"fixloop-{version}.dist-info/METADATA": "Metadata-Version: 2.1\nName: fixloop\nVersion: " + version + "\n"
        + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"fixloop-{version}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = f"fixloop-{version}.dist-info/RECORD"
    lines = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        lines.append(f"{name},sha256={digest},{len(text.encode())}")
    lines.append(f"{record},,")
    wheel = dest / f"fixloop-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr(record, "\n".join(lines) + "\n")
    return wheel


def offline_env(index: str = "http://127.0.0.1:9/simple") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL=index, PIP_RETRIES="0", PIP_TIMEOUT="5",
               PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def run(home: Path, source: Path | str, env: dict[str, str], python: str = sys.executable,
        expect: str | None = None, cwd: Path | None = None) -> tuple[int, list[dict]]:
    cmd = [python, str(INSTALLER), "--home", str(home), "--source", str(source)]
    if expect:
        cmd += ["--expect-version", expect]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, cwd=cwd)
    return proc.returncode, [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


@pytest.fixture
def hanging_index() -> Iterator[str]:
    """An index that accepts connections and never answers: pip waits, as on a stalled network."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/simple"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


@pytest.mark.skipif(not OLD_PYTHON.exists(), reason="no Python 3.9 on this machine")
def test_an_old_python_gets_a_message(tmp_path: Path) -> None:
    status, out = run(tmp_path / "home", "fixloop", offline_env(), python=str(OLD_PYTHON))
    assert status == 1 and out[-1]["problem"] == "old-python"
    assert "3.9" in out[-1]["message"] and "3.10 or newer" in out[-1]["message"]
    assert not (tmp_path / "home").exists()


def test_a_second_install_at_once_is_refused(tmp_path: Path) -> None:
    import fcntl

    home = tmp_path / "home"
    home.mkdir()
    with open(home / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        status, out = run(home, "fixloop", offline_env())
    assert status == 1 and out[-1]["problem"] == "busy"


@pytest.mark.e2e
def test_install_switch_and_reinstall(tmp_path: Path) -> None:
    home = tmp_path / "home"
    status, out = run(home, make_wheel(tmp_path), offline_env(), expect="0.1.0")
    assert status == 0 and out[-1]["ok"] is True and out[-1]["version"] == "0.1.0"
    current = json.loads((home / "current.json").read_text())
    assert current["python"] == out[-1]["python"]
    first_env = Path(current["env"])
    probe = subprocess.run([current["python"], "-c", "import fixloop.lsp.server, fixloop; print(fixloop.__version__)"],
                           capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == "0.1.0"
    # A newer version replaces it; the old environment goes.
    (tmp_path / "new").mkdir()
    time.sleep(1.1)  # environments are named by the second
    status, out = run(home, make_wheel(tmp_path / "new", "0.2.0"), offline_env())
    assert status == 0 and out[-1]["version"] == "0.2.0"
    assert not first_env.exists() and len(list((home / "envs").iterdir())) == 1


@pytest.mark.e2e
def test_started_in_a_hostile_project_it_imports_nothing_of_it(tmp_path: Path) -> None:
    """Editors may start the installer with a project as the current folder: `-m venv`, `-m pip` and the
    check's `-c import fixloop` would import a `venv.py`, a `pip/` or a `fixloop/` from there."""
    project, proof = tmp_path / "project", tmp_path / "proof"
    for rel in ("venv.py", "pip/__init__.py", "fixloop/__init__.py", "fixloop/lsp/__init__.py", "fixloop/lsp/server.py"):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(f"open({str(proof)!r}, 'a').write(__name__ + '\\n')\n__version__ = '0.1.0'\n")
    code, events = run(tmp_path / "home", make_wheel(tmp_path), offline_env(), cwd=project)
    assert code == 0 and events[-1]["ok"] is True, events
    assert not proof.exists(), proof.read_text()


@pytest.mark.e2e
def test_no_network_fails_with_a_message_and_keeps_the_working_server(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run(home, make_wheel(tmp_path), offline_env())[0] == 0
    before = (home / "current.json").read_text()
    (tmp_path / "dep").mkdir()
    time.sleep(1.1)
    status, out = run(home, make_wheel(tmp_path / "dep", "0.2.0", requires=("pygls>=2",)), offline_env())
    assert status == 1 and out[-1]["problem"] == "network"
    assert "package index" in out[-1]["message"] and "again" in out[-1]["message"]
    assert (home / "current.json").read_text() == before, "a failed install must leave the working one in use"
    assert len(list((home / "envs").iterdir())) == 1, "the failed environment is removed"


@pytest.mark.e2e
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_an_interrupted_install_leaves_nothing_in_use_and_a_retry_works(tmp_path: Path, hanging_index: str,
                                                                         how: str) -> None:
    home = tmp_path / "home"
    source = make_wheel(tmp_path, requires=("some-dependency",))
    proc = subprocess.Popen([sys.executable, str(INSTALLER), "--home", str(home), "--source", str(source)],
                            stdout=subprocess.PIPE, text=True, env=offline_env(hanging_index), start_new_session=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # wait until pip is at work
        if "installing the fixloop server" in line:
            break
    time.sleep(1.5)
    if how == "SIGTERM":  # the editor cancels
        proc.send_signal(signal.SIGTERM)
        rest = proc.stdout.read()
        assert proc.wait(30) == 1
        assert json.loads(rest.strip().splitlines()[-1])["problem"] == "interrupted"
        assert not (home / "envs").exists() or not list((home / "envs").iterdir())
    else:  # the editor (and everything it started) dies
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(30)
        assert len(list((home / "envs").iterdir())) == 1
    assert not (home / "current.json").exists()
    (tmp_path / "ok").mkdir()
    status, out = run(home, make_wheel(tmp_path / "ok"), offline_env())  # the network is back
    assert status == 0, out
    assert json.loads((home / "current.json").read_text())["version"] == "0.1.0"
    assert len(list((home / "envs").iterdir())) == 1
    if how == "SIGKILL":
        assert any("unfinished install" in o.get("progress", "") for o in out)


def test_an_editor_install_brings_the_report_extra(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("fixloop_install", INSTALLER)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    wheel = tmp_path / "fixloop-1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    assert module.with_extras(str(wheel)) == f"{wheel}[report]"
    assert module.with_extras(str(REPO)) == f"{REPO}[report]"
    assert module.with_extras("fixloop==1.0") == "fixloop==1.0"  # a spec is the user's to write
