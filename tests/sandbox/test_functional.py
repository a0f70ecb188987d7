"""What the sandbox must not break: real pytest runs with a loopback server, multiprocessing, asyncio
subprocesses and tmp_path, under the project's interpreter; and the runner end to end."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from fixloop.application.config import SandboxSettings
from fixloop.core.model import Limits
from fixloop.adapters.runner.interpreter import interpreter_paths
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.sandbox.api import Policy, RunTree, SandboxLimits
from fixloop.adapters.sandbox.select import choose
from tests.backends import unavailable
from tests.conftest import PYTHON

SUITE = textwrap.dedent('''
    import asyncio, multiprocessing, socket, sys, tempfile, threading

    def _square(x):
        return x * x

    def test_loopback_server():
        server = socket.create_server(("127.0.0.1", 0))
        port = server.getsockname()[1]
        def serve():
            conn, _ = server.accept()
            conn.sendall(conn.recv(10).upper())
            conn.close()
        t = threading.Thread(target=serve); t.start()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
            c.sendall(b"ping")
            assert c.recv(10) == b"PING"
        t.join(); server.close()

    def test_multiprocessing_pool():
        with multiprocessing.Pool(2) as pool:
            assert pool.map(_square, range(5)) == [0, 1, 4, 9, 16]

    def test_asyncio_subprocess():
        async def main():
            proc = await asyncio.create_subprocess_exec(sys.executable, "-c", "print(6*7)",
                                                        stdout=asyncio.subprocess.PIPE)
            out, _ = await proc.communicate()
            return out.strip()
        assert asyncio.run(main()) == b"42"

    def test_tmp_path(tmp_path):
        (tmp_path / "f.txt").write_text("x")
        assert (tmp_path / "f.txt").read_text() == "x"

    def test_tempfile():
        with tempfile.NamedTemporaryFile() as f:
            f.write(b"x"); f.flush()
''')


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_pytest_features_work_inside(backend: str, tmp_path: Path) -> None:
    sandbox = choose(SandboxSettings(backend=backend)) if _works(backend) else unavailable(backend)
    ws = tmp_path / "ws"
    ws.mkdir()
    tmp_path.chmod(0o755)
    (ws / "test_features.py").write_text(SUITE)
    policy = Policy(read_only=interpreter_paths(sys.executable), env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
    result = sandbox.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rA"], RunTree(ws),
                         SandboxLimits(wall_seconds=60), policy)
    out = result.output
    if backend == "landlock":
        # The documented cost of the fallback: no sockets at all, so the loopback test fails.
        assert "FAILED test_features.py::test_loopback_server" in out and "4 passed" in out, out
    else:
        assert result.returncode == 0 and "5 passed" in out, out


def _works(name: str) -> bool:
    from fixloop.adapters.sandbox.select import probe

    return probe(name)[0] is not None


def test_runner_finds_results_through_the_default_sandbox(tmp_path: Path) -> None:
    if not _works("bwrap"):
        unavailable("bwrap")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (project / "test_calc.py").write_text("from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\n"
                                          "def test_zero():\n    assert add(0, 0) == 0\n")
    runner = PytestRunner.open(project, choose(SandboxSettings()), Limits(test_timeout=60), PYTHON)
    try:
        assert runner.sandbox.name == "bwrap"
        report = runner.run(None)
        outcomes = {r.nodeid: r.outcome for r in report.results}
        assert outcomes == {"test_calc.py::test_add": "failed", "test_calc.py::test_zero": "passed"}, report
    finally:
        runner.close()
    assert (project / "calc.py").read_text().endswith("a - b\n")  # the real project is never touched
    assert shutil.which("bwrap")
