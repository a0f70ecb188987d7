"""Shared fixtures: small real pytest projects written into tmp dirs."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Callable, Iterator, Mapping

import pytest

from tests import dockerd
from tests.project_python import project_python

REPO = Path(__file__).resolve().parent.parent
SERVER = REPO / "server"
LOCKS = REPO / ".cache"  # shared by the workers of `pytest -n`


# The contract stage (`-m contract`, first in scripts/test.sh, well under 30 s): the loop's core driven by
# fakes, the pure converters and the architecture rules. What it guarantees holds on any machine: no sandbox,
# no model, no store.
CONTRACT = ("core/", "test_architecture.py", "lsp/test_units.py", "test_advice.py", "test_progress.py",
            "test_result.py", "test_screen.py", "strategies/test_arrange.py", "strategies/test_bandit.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = Path(__file__).resolve().parent
    for item in items:
        where = item.path.resolve()
        if where.is_relative_to(tests) and where.relative_to(tests).as_posix().startswith(CONTRACT):
            item.add_marker(pytest.mark.contract)


@pytest.fixture(autouse=True)
def _no_secrets_in_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    # The SDK reads these; tests must never depend on (or leak) a developer's real key.
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _private_memory_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Runs learn into the per-user data dir by default; a test gets its own, empty one.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.delenv("FIXLOOP_MEMORY", raising=False)


@pytest.fixture(autouse=True)
def _serial_when_marked(request: pytest.FixtureRequest) -> Iterator[None]:
    """Under `pytest -n`, a test marked `serial` runs while no other test runs (it watches machine-wide
    state, such as /dev/shm): a readers-writer lock across the workers, with a turnstile so that a
    waiting serial test is not starved by the others."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        yield
        return
    serial = request.node.get_closest_marker("serial") is not None
    LOCKS.mkdir(parents=True, exist_ok=True)
    with open(LOCKS / "serial-turnstile.lock", "w") as turnstile, open(LOCKS / "serial.lock", "w") as tests:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(tests, fcntl.LOCK_EX if serial else fcntl.LOCK_SH)
        finally:
            if not serial:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
        yield  # closing the files releases whatever is still held


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[..., Path]:
    def make(files: Mapping[str, str | bytes], name: str = "proj") -> Path:
        root = tmp_path / name
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        return root

    return make


def fixloop_env(**extra: str) -> dict[str, str]:
    """Environment for a `python -m fixloop` subprocess that imports this checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["PYTHONPATH"] = str(SERVER) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


# The interpreter of the test projects (`--python`): pytest without the dev environment's plugins.
PYTHON = project_python()


@pytest.fixture(scope="session")
def docker_engine() -> dockerd.Engine:
    """A private docker engine (started once per machine) and its offline-built sandbox image; DOCKER_HOST
    points at it from here on. Skips where no engine can start."""
    return dockerd.engine()


def pytest_sessionfinish(session: pytest.Session) -> None:
    dockerd.release()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in dockerd.summary_lines(dockerd.SESSION_START):
        terminalreporter.write_line(line)
