"""The launcher layer on its own, and backend selection."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tests.backends import unavailable

from fixloop.application.config import SandboxSettings
from fixloop.adapters.sandbox.api import Policy, RunTree, SandboxLimits, SandboxUnavailable
from fixloop.adapters.sandbox.envpolicy import clean_env
from fixloop.adapters.sandbox.rlimits import prlimit_argv
from fixloop.adapters.sandbox.streams import Capped
from fixloop.adapters.sandbox.plain import PlainSandbox
from fixloop.adapters.sandbox.select import Configured, choose, probe

REPO = Path(__file__).resolve().parents[2]


def test_env_allow_list_drops_secrets_whoever_passes_them() -> None:
    env = clean_env({
        "PATH": "/usr/bin", "LANG": "C.UTF-8", "ANTHROPIC_API_KEY": "x", "anthropic_api_key": "x",
        "GITHUB_TOKEN": "x", "AWS_SECRET_ACCESS_KEY": "x", "DB_PASSWORD": "x", "MY_PASSWD": "x",
        "LD_PRELOAD": "/tmp/evil.so", "SSH_AUTH_SOCK": "/run/agent", "HARMLESS": "sk-ant-api03-abc",
        "bad name": "x", "NUL": "a\0b", "PYTHONHASHSEED": "0",
    })
    assert env == {"PATH": "/usr/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}


def test_prlimit_argv_never_asks_above_the_current_hard_limit() -> None:
    import resource

    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    argv = prlimit_argv(SandboxLimits(open_files=10**9, cpu_seconds=5))
    assert f"--nofile={min(10**9, hard) if hard != resource.RLIM_INFINITY else 10**9}" in argv
    assert "--core=0" in argv and argv[-1] == "--" and "--cpu=5:6" in argv


def test_capped_keeps_head_and_tail_only() -> None:
    c = Capped(4)
    for chunk in (b"abc", b"defgh", b"ijklmnop"):
        c.feed(chunk)
    assert (bytes(c.head), bytes(c.tail), c.total) == (b"abcd", b"mnop", 16)


def test_unsandboxed_backend_is_labelled_and_still_bounded(tmp_path: Path) -> None:
    sandbox = PlainSandbox()
    result = sandbox.run([sys.executable, "-c", "import os; print(sorted(os.environ))"], RunTree(tmp_path),
                         SandboxLimits(wall_seconds=10), Policy(env={"ANTHROPIC_API_KEY": "sk-ant-x", "KEEP": "1"}))
    assert result.backend == "none" and result.guarantees[0].startswith("UNSANDBOXED")
    assert "ANTHROPIC_API_KEY" not in result.output and "KEEP" in result.output


def test_an_orphan_holding_the_pipe_does_not_hang_the_reader(tmp_path: Path) -> None:
    # setsid escapes the process group: only the "stop reading after exit" rule saves the caller here.
    code = textwrap.dedent("""
        import os, time
        if os.fork() == 0:
            os.setsid()
            time.sleep(8)
            os._exit(0)
        print("parent done", flush=True)
    """)
    started = time.monotonic()
    result = PlainSandbox().run([sys.executable, "-c", code], RunTree(tmp_path), SandboxLimits(wall_seconds=20),
                                Policy())
    assert time.monotonic() - started < 4 and "parent done" in result.output and result.returncode == 0


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_kill_all_ends_a_running_command(tmp_path: Path, backend: str) -> None:
    import threading

    if probe(backend)[0] is None:
        unavailable(backend)
    sandbox = choose(SandboxSettings(backend=backend))
    results = []
    t = threading.Thread(target=lambda: results.append(sandbox.run(
        ["sleep", "30"], RunTree(tmp_path), SandboxLimits(wall_seconds=30), Policy())))
    t.start()
    time.sleep(1.0)
    sandbox.kill_all()
    t.join(10)
    assert results and results[0].duration < 10 and results[0].returncode != 0
    out = subprocess.run(["pgrep", "-f", "sleep 30"], capture_output=True, text=True).stdout.split()
    assert all("fixloop-run-" not in str(Path(f"/proc/{pid}/cwd").resolve()) for pid in out
               if Path(f"/proc/{pid}").exists())


def test_auto_picks_bwrap_here_and_caps_apply(tmp_path: Path) -> None:
    if probe("bwrap")[0] is None:
        unavailable("bwrap", probe("bwrap")[1])
    sandbox = choose(SandboxSettings(backend="auto", processes=20))
    assert isinstance(sandbox, Configured) and sandbox.name == "bwrap"
    result = sandbox.run(["grep", "Max processes", "/proc/self/limits"], RunTree(tmp_path), SandboxLimits(), Policy())
    assert result.stdout_head.split()[2:4] == ["20", "20"], result.output


def test_probes_run_once_per_process() -> None:
    first = probe("bwrap")
    assert probe("bwrap") is first and probe("none") is probe("none")


def test_auto_refuses_to_run_unsandboxed_when_nothing_isolates() -> None:
    # No bwrap and no prlimit on PATH: neither isolating backend can start, and auto must say so.
    code = ("from fixloop.application.config import SandboxSettings\nfrom fixloop.adapters.sandbox.select import choose\n"
            "try:\n    choose(SandboxSettings())\nexcept Exception as e:\n    print(type(e).__name__, e)\n"
            "else:\n    print('CHOSE')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/nonexistent", "PYTHONPATH": str(REPO / "server")}).stdout
    assert out.startswith("SandboxUnavailable") and "install bubblewrap" in out.lower(), out
    assert 'sandbox.backend = "none"' in out


def test_explicit_backend_that_does_not_work_is_a_clear_error() -> None:
    if probe("docker")[0] is not None:
        pytest.skip("a docker engine answers here")
    with pytest.raises(SandboxUnavailable, match="docker"):
        choose(SandboxSettings(backend="docker"))


def test_doctor_lists_backends_and_the_choice() -> None:
    out = subprocess.run([sys.executable, "-m", "fixloop", "doctor"], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(REPO / "server")}, cwd=REPO)
    for name in ("bwrap", "landlock", "docker", "none (unsandboxed"):
        assert name in out.stdout
    if probe("bwrap")[0] is not None:
        assert "a run would use: bwrap" in out.stdout and out.returncode == 0


def test_fix_stops_with_instructions_when_no_sandbox_works(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text("def test_a():\n    assert False\n")
    done = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(tmp_path), "--dry-run", "--no-memory"],
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": "/nonexistent", "PYTHONPATH": str(REPO / "server")})
    assert done.returncode == 1, done.stderr
    assert "install bubblewrap" in done.stderr.lower() and "internal error" not in done.stderr


def test_closing_every_pipe_early_does_not_end_the_watch(tmp_path: Path) -> None:
    code = ("import os, time\nos.close(int(os.environ['FIXLOOP_REPORT_FD'])); os.close(1); os.close(2)\n"
            "time.sleep(1.0)\nos._exit(7)\n")
    result = PlainSandbox().run([sys.executable, "-c", code], RunTree(tmp_path), SandboxLimits(wall_seconds=20), Policy())
    assert result.returncode == 7 and result.duration >= 1.0
    result = PlainSandbox().run([sys.executable, "-c", "import os, time\nos.close(1); os.close(2)\ntime.sleep(60)"],
                                RunTree(tmp_path), SandboxLimits(wall_seconds=1.5), Policy())
    assert result.timed_out and result.duration < 5


def test_disk_watch_ignores_writes_by_other_programs(tmp_path: Path) -> None:
    from fixloop.adapters.sandbox.watch import DiskWatch

    ws = tmp_path / "ws"
    ws.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    watch = DiskWatch([ws], quota_mb=4, quota_files=1000)
    (other / "big").write_bytes(os.urandom(6 * 1024 * 1024))  # same filesystem, not the run's
    os.sync()
    assert not watch.exceeded()
    (ws / "big").write_bytes(os.urandom(6 * 1024 * 1024))
    os.sync()
    assert watch.exceeded()


def _python_policy() -> Policy:
    from fixloop.adapters.runner.interpreter import interpreter_paths

    return Policy(read_only=interpreter_paths(sys.executable), env={"PATH": "/usr/bin:/bin"})


@pytest.mark.parametrize("backend", ["none", "bwrap", "landlock"])
def test_the_report_pipe_is_read_with_a_cap_and_not_held_open_by_an_orphan(tmp_path: Path, backend: str) -> None:
    sandbox = PlainSandbox() if backend == "none" else probe(backend)[0]
    if sandbox is None:
        unavailable(backend)
    code = textwrap.dedent("""
        import os, time
        fd = int(os.environ["FIXLOOP_REPORT_FD"])
        os.write(fd, b"x" * 3000)
        if os.fork() == 0:
            os.setsid()
            time.sleep(8)  # an orphan that keeps the report pipe open
            os._exit(0)
    """)
    started = time.monotonic()
    result = sandbox.run([sys.executable, "-c", code], RunTree(tmp_path),
                         SandboxLimits(wall_seconds=20, report_bytes=1000), _python_policy())
    assert time.monotonic() - started < 6, "an orphan holding the report pipe kept the run open"
    assert result.report == b"x" * 1000 and result.report_overflow, result


@pytest.mark.parametrize("backend", ["none", "bwrap", "landlock"])
def test_every_run_dir_is_private_and_removed(tmp_path: Path, backend: str) -> None:
    sandbox = PlainSandbox() if backend == "none" else probe(backend)[0]
    if sandbox is None:
        unavailable(backend)
    (tmp_path / "mod.py").write_text("x = 1\n")
    code = "import os, stat; print(oct(stat.S_IMODE(os.stat('.').st_mode)), os.getcwd())"
    result = sandbox.run([sys.executable, "-c", code], RunTree(tmp_path, {"new/f.py": b"y = 2\n"}),
                         SandboxLimits(wall_seconds=20), _python_policy())
    mode, cwd = result.stdout_head.split()
    assert mode == "0o700" and cwd != str(tmp_path), result.output
    assert not Path(cwd).exists() or backend == "bwrap"  # bwrap's copy lived in a tmpfs of its own
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mod.py"]
