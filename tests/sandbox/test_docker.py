"""The docker backend without an engine: its container settings, its init's status file, and the messages for
an engine that is not there. `test_docker_engine.py` runs it on a real engine."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from fixloop.adapters.sandbox.api import Policy, RunTree, SandboxLimits, SandboxUnavailable
from fixloop.adapters.sandbox.docker_backend import DockerSandbox, parse_status
from fixloop.adapters.sandbox.docker_engine import client
from fixloop.adapters.sandbox.docker_settings import OPENED, REPORT_DIR, container_settings

docker = pytest.importorskip("docker")


def test_container_settings_isolate(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    changes = tmp_path / "changes"
    changes.mkdir()
    ro = tmp_path / "venv"
    ro.mkdir()
    limits = SandboxLimits(processes=77, address_space_mb=512, memory_total_mb=300, open_files=99, cpu_seconds=30,
                           tmp_mb=64, disk_quota_mb=48, disk_files=5000)
    policy = Policy(read_only=(ro,), env={"PATH": "/usr/bin", "ANTHROPIC_API_KEY": "sk-ant-x", "GH_TOKEN": "t"})
    s = container_settings(["python", "-m", "pytest"], RunTree(src, {}, runtime), limits, policy,
                           "fixloop-sandbox:bookworm", 1000, changes)
    assert s["network_mode"] == "none" and s["read_only"] is True
    assert s["cap_drop"] == ["ALL"] and s["security_opt"] == ["no-new-privileges"]
    assert set(s["cap_add"]) <= {"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "SETUID", "SETGID", "SETPCAP"}
    # The run's memory is a cgroup limit; each process's address space is limited inside, after setpriv.
    assert s["pids_limit"] == 77 and s["mem_limit"] == 300 * 1024 * 1024 == s["memswap_limit"]
    # Nothing of the host is writable: pristine tree, runtime, changes and interpreter are read-only.
    assert all(v["mode"] == "ro" for v in s["volumes"].values())
    assert {str(p.resolve()) for p in (src, runtime, changes, ro)} == set(s["volumes"])
    ws = str(src.resolve().parent / "src-run")
    assert s["tmpfs"][ws] == "size=48m,nr_inodes=5000,mode=0700,exec"
    # The prelude copies as root, then setpriv drops every capability and becomes uid 1000.
    command = s["command"]
    assert command[0] == "/bin/sh" and "--reuid=1000" in command and "--bounding-set=-all" in command
    assert command[-6:] == ["prlimit", f"--as={512 * 2**20}", "--", "python", "-m", "pytest"] and s["user"] == "0:0"
    # Our own first process, not the engine's docker-init; the report folder outlives the container.
    assert s["init"] is False and [m["Target"] for m in s["mounts"]] == [REPORT_DIR]
    assert s["log_config"]["Type"] == "none" and s["stdin_open"] is False
    assert "ANTHROPIC_API_KEY" not in s["environment"] and "GH_TOKEN" not in s["environment"]
    assert s["environment"]["FIXLOOP_REPORT_FD"] == "9"
    assert s["tmpfs"]["/tmp"] == "size=64m,mode=1777,exec"
    limits_by_name = {u["Name"]: (u["Soft"], u["Hard"]) for u in s["ulimits"]}
    assert limits_by_name == {"cpu": (30, 31), "fsize": (limits.file_size_mb * 2**20,) * 2, "nofile": (99, 99),
                              "core": (0, 0)}
    assert not any("docker.sock" in v for v in s["volumes"])


def test_a_bind_in_a_private_top_folder_gets_a_folder_it_can_reach(tmp_path: Path) -> None:
    # An image keeps /root private (0700): a pyenv Python under it needs the folder opened; /usr needs nothing.
    home = Path("/root/.pyenv/versions/3.11.7")
    s = container_settings(["python"], RunTree(tmp_path), SandboxLimits(), Policy(), "img", 1000)
    assert "/root" not in s["tmpfs"]
    s = container_settings(["python"], RunTree(tmp_path, at=home / "project"), SandboxLimits(), Policy(), "img", 1000)
    assert s["tmpfs"]["/root"] == OPENED and s["tmpfs"][str(home / "project")].startswith("size=")
    command = s["command"]
    assert command[command.index(REPORT_DIR) + 1:command.index(REPORT_DIR) + 3] == ["/root", "--"]


def test_two_descriptors_become_the_containers_stdin_and_stdout(tmp_path: Path) -> None:
    s = container_settings(["python", "-m", "fixloop_warm"], RunTree(tmp_path), SandboxLimits(), Policy(), "img", 1000,
                           fds=(23, 26))
    assert s["stdin_open"] is True
    init = s["command"][2]
    assert "bash -c 'exec 23<&0 26>&1 1>&2 0</dev/null; exec \"$@\"'" in init and " bash;" in init


def test_the_inits_status_file() -> None:
    assert parse_status(b"exit 3\n0m0.010000s 0m0.000000s\n1m2.500000s 0m0.500000s\n") == (3, 63.0, "")
    assert parse_status(b"missing setpriv prlimit\n") == (None, 0.0, "setpriv prlimit")
    assert parse_status(b"") == (None, 0.0, "")


@pytest.mark.parametrize("path", ["/var/run", "/run", "/"])
def test_never_mounts_the_docker_socket(path: str) -> None:
    with pytest.raises(SandboxUnavailable, match="docker socket"):
        container_settings(["true"], RunTree(Path(path)), SandboxLimits(), Policy(), "img", 1)
    with pytest.raises(SandboxUnavailable, match="docker socket"):
        container_settings(["true"], RunTree(Path("/tmp")), SandboxLimits(), Policy(read_only=(Path(path),)), "img", 1)


def test_no_engine_at_the_address_is_its_own_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/none.sock")
    with pytest.raises(SandboxUnavailable, match=r"no docker engine answers at unix://.*none\.sock \(no such socket\)"):
        client()
    assert DockerSandbox().probe().startswith("no docker engine answers")


def test_a_socket_nobody_listens_on_is_its_own_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "stale.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))  # bound, never listening: what a crashed engine leaves behind
        monkeypatch.setenv("DOCKER_HOST", f"unix://{path}")
        with pytest.raises(SandboxUnavailable, match=r"connection refused"):
            client()


def test_an_engine_that_accepts_but_never_answers_is_its_own_message(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import fixloop.adapters.sandbox.docker_engine as engine

    path = tmp_path / "hung.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        s.listen(8)  # connections wait in the backlog; nothing ever answers them
        monkeypatch.setenv("DOCKER_HOST", f"unix://{path}")
        monkeypatch.setattr(engine, "PING_SECONDS", 1.0)  # the ping's patience, not what is tested
        with pytest.raises(SandboxUnavailable, match=r"did not answer in time \(a ping\)"):
            client()


def test_the_docker_backend_refuses_the_network(tmp_path: Path) -> None:
    sandbox = DockerSandbox()
    r, w = os.pipe()
    with pytest.raises(SandboxUnavailable, match="network"):
        sandbox.run([sys.executable], RunTree(tmp_path), SandboxLimits(), Policy(network=True), fds=(r, w))
    for fd in (r, w):  # closed by the backend, as the port promises
        with pytest.raises(OSError):
            os.fstat(fd)
