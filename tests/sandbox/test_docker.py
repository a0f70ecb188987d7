"""The docker backend: its container settings (always), and a real run when an engine answers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from fixloop.sandbox.api import Policy, RunTree, SandboxLimits, SandboxUnavailable
from fixloop.sandbox.docker_backend import DockerSandbox, container_settings

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
    limits = SandboxLimits(processes=77, address_space_mb=512, open_files=99, cpu_seconds=30, tmp_mb=64,
                           disk_quota_mb=48)
    policy = Policy(read_only=(ro,), env={"PATH": "/usr/bin", "ANTHROPIC_API_KEY": "sk-ant-x", "GH_TOKEN": "t"})
    s = container_settings(["python", "-m", "pytest"], RunTree(src, {}, runtime), limits, policy,
                           "python:3.11-slim", 1000, changes)
    assert s["network_mode"] == "none" and s["read_only"] is True
    assert s["cap_drop"] == ["ALL"] and s["security_opt"] == ["no-new-privileges"]
    assert set(s["cap_add"]) <= {"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "SETUID", "SETGID", "SETPCAP"}
    assert s["pids_limit"] == 77 and s["mem_limit"] == 512 * 1024 * 1024 == s["memswap_limit"]
    # Nothing of the host is writable: pristine tree, runtime, changes and interpreter are read-only.
    assert all(v["mode"] == "ro" for v in s["volumes"].values())
    assert {str(p.resolve()) for p in (src, runtime, changes, ro)} == set(s["volumes"])
    ws = str(src.resolve().parent / "src-run")
    assert s["tmpfs"][ws] == "size=48m,mode=0700"
    # The prelude copies as root, then setpriv drops every capability and becomes uid 1000.
    command = s["command"]
    assert command[0] == "/bin/sh" and "--reuid=1000" in command and "--bounding-set=-all" in command
    assert command[-3:] == ["python", "-m", "pytest"] and s["user"] == "0:0"
    assert "ANTHROPIC_API_KEY" not in s["environment"] and "GH_TOKEN" not in s["environment"]
    assert s["environment"]["FIXLOOP_REPORT_FD"] == "9"
    assert s["tmpfs"]["/tmp"] == "size=64m,mode=1777"
    limits_by_name = {u["Name"]: (u["Soft"], u["Hard"]) for u in s["ulimits"]}
    assert limits_by_name == {"cpu": (30, 31), "fsize": (limits.file_size_mb * 2**20,) * 2, "nofile": (99, 99),
                              "core": (0, 0)}
    assert not any("docker.sock" in v for v in s["volumes"])


@pytest.mark.parametrize("path", ["/var/run", "/run", "/"])
def test_never_mounts_the_docker_socket(path: str) -> None:
    with pytest.raises(SandboxUnavailable, match="docker socket"):
        container_settings(["true"], RunTree(Path(path)), SandboxLimits(), Policy(), "img", 1)
    with pytest.raises(SandboxUnavailable, match="docker socket"):
        container_settings(["true"], RunTree(Path("/tmp")), SandboxLimits(), Policy(read_only=(Path(path),)), "img", 1)


def test_real_container_run_when_an_engine_answers(tmp_path: Path) -> None:
    sandbox = DockerSandbox()
    reason = sandbox.probe()
    if reason:
        print(f"docker backend not exercised: {reason}")
        pytest.skip(f"docker backend not exercised: {reason}")
    result = sandbox.run(["python", "-c", "import socket; socket.create_connection(('1.1.1.1', 53), 2)"], RunTree(tmp_path),
                         SandboxLimits(wall_seconds=60), Policy())
    assert result.returncode != 0 and result.backend == "docker", result
    assert sys.executable
