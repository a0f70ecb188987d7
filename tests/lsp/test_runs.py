"""Runs in the background: queueing, cancel (command and progress), disconnect, shutdown, no tests."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path

import pytest
from lsprotocol import types as t
from tests.lsp.lsp_harness import Session, lsp
from pygls.exceptions import JsonRpcException

SLOW = {
    "calc/__init__.py": "",
    "calc/ops.py": "def sub(a, b):\n    return a + b\n",
    "tests/test_ops.py": "from calc.ops import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
    "tests/test_slow.py": "import time\n\n\ndef test_slow():\n    time.sleep(60)\n",
}


def write(tmp_path: Path, files: dict[str, str], name: str = "slow_ws") -> Path:
    ws = tmp_path / name
    for rel, text in files.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    return ws


def processes_under(path: Path) -> list[str]:
    """Live processes working inside `path` or naming it (sandboxed pytest left behind)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cwd.startswith(str(path)) or str(path) in cmdline:
            found.append(f"{pid}: {cmdline}")
    return found


async def started_testing(s: Session) -> None:
    """The run has copied the workspace and pytest is running in the sandbox."""
    await s.until(lambda: s.scratch_dirs() and processes_under(s.tmp), timeout=60, what="the run to start pytest")


async def test_queue_then_cancel_by_command_and_by_progress(profile: str, tmp_path: Path) -> None:
    ws = write(tmp_path, SLOW)
    async with lsp(profile, ws, tmp_path) as s:
        first = await s.command("fixloop.fix", {"scope": "workspace"})
        second = await s.command("fixloop.fix", {"scope": "workspace"})
        assert first["queued"] is False and second["queued"] is True
        with pytest.raises(JsonRpcException, match="already running and another is waiting"):
            await s.command("fixloop.fix", {})
        assert await s.command("fixloop.cancel", {"run_id": second["run_id"]}) == {"cancelled": True}
        assert await s.command("fixloop.cancel", {"run_id": "no-such-run"}) == {"cancelled": False}

        await started_testing(s)
        token = f"fixloop-{first['run_id']}"
        began = time.monotonic()
        if s.editor.vscode:  # the Cancel button on the progress notification
            s.client.window_work_done_progress_cancel(t.WorkDoneProgressCancelParams(token=token))
        else:
            assert await s.command("fixloop.cancel", {}) == {"cancelled": True}
        summary = await s.run_finished(first["run_id"])
        stopped = time.monotonic() - began
        assert summary["status"] == "cancelled", summary
        assert stopped < 8, f"cancel took {stopped:.1f} s"  # about 1.5 s on a busy 2-core machine; the test sleeps 60 s
        assert isinstance(s.client.progress_reports[token][-1], t.WorkDoneProgressEnd)
        await s.until(lambda: not s.scratch_dirs(), what="the scratch copy to be removed")
        await s.until(lambda: not processes_under(s.tmp), what="the sandboxed processes to end")
        assert second["run_id"] not in s.client.progress_reports  # the cancelled queued run never started
        assert await s.command("fixloop.showRun", {"run_id": first["run_id"]}) is not None


async def test_client_disconnecting_mid_run_stops_the_loop(profile: str, tmp_path: Path) -> None:
    ws = write(tmp_path, SLOW)
    async with lsp(profile, ws, tmp_path, shutdown=False) as s:
        await s.command("fixloop.fix", {})
        await started_testing(s)
        server = s.client._server
        assert server is not None and server.stdin is not None
        server.stdin.close()  # the editor went away without shutdown/exit
        code = await asyncio.wait_for(server.wait(), 60)
        assert code == 1  # exit without shutdown
        assert s.scratch_dirs() == []
        await s.until(lambda: not processes_under(s.tmp), what="the sandboxed processes to end")


async def test_shutdown_and_exit_during_a_run(profile: str, tmp_path: Path) -> None:
    ws = write(tmp_path, SLOW)
    async with lsp(profile, ws, tmp_path, shutdown=False) as s:
        await s.command("fixloop.fix", {})
        await started_testing(s)
        await asyncio.wait_for(s.client.shutdown_async(None), 30)
        s.client.exit(None)
        server = s.client._server
        assert server is not None
        assert await asyncio.wait_for(server.wait(), 60) == 0
        assert s.scratch_dirs() == []
        # Generous under load: the pid namespace's processes are killed with bwrap, but a loaded 2-core
        # machine can take a while to reap them. The message lists any that stay.
        try:
            await s.until(lambda: not processes_under(s.tmp), timeout=30, what="the sandboxed processes to end")
        except AssertionError as e:
            raise AssertionError(f"{e}: {processes_under(s.tmp)}") from None


async def test_workspace_without_tests(profile: str, tmp_path: Path) -> None:
    ws = write(tmp_path, {"calc/__init__.py": "", "calc/ops.py": "def sub(a, b):\n    return a - b\n"}, "no_tests")
    async with lsp(profile, ws, tmp_path) as s:
        run_id = (await s.command("fixloop.fix", {"scope": "workspace"}))["run_id"]
        summary = await s.run_finished(run_id)
        assert summary["status"] == "nothing_to_fix" and summary["message"] == "no tests were collected"
        assert summary["hunks"] == []
        with pytest.raises(JsonRpcException, match="no fix to review"):
            await s.command("fixloop.accept", {"run_id": run_id})
        assert s.editor.edits == []


async def test_tcp_mode_for_debugging(tmp_path: Path) -> None:
    """`--tcp HOST:PORT` serves the same protocol on a loopback socket."""
    import json
    import socket
    import sys

    from tests.lsp.lsp_harness import LAUNCH, ROOT

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "server")}
    proc = await asyncio.create_subprocess_exec(sys.executable, str(LAUNCH), "--tcp", f"127.0.0.1:{port}", env=env,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("the server did not listen")
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}).encode()
        writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        length = 0
        while (line := await asyncio.wait_for(reader.readline(), 30)) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        result = json.loads(await reader.readexactly(length))["result"]
        assert result["serverInfo"]["name"] == "fixloop"
        assert result["capabilities"]["experimental"] == {"fixloop": {"protocol": 1}}
        assert "fixloop.fix" in result["capabilities"]["executeCommandProvider"]["commands"]
        writer.close()
        assert proc.stdout is not None
        assert await asyncio.wait_for(proc.stdout.read(1), 20) == b""  # nothing on stdout; it exits
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await proc.wait()
