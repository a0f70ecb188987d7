from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fixloop.core.model import Frame, TestReport, TestResult
from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.store import MemoryStore

SERVER = str(Path(__file__).resolve().parents[2] / "server")


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(str(tmp_path / "memory"), HashingEmbedder()).open()


@pytest.fixture
def memory(store: MemoryStore) -> LearningMemory:
    return LearningMemory(store, "/projects/shop", rng=np.random.default_rng(7))


def failing_report(nodeid: str, message: str, path: str, line: int, exc_type: str = "AssertionError") -> TestReport:
    test_path = nodeid.split("::")[0]
    frames = (Frame(test_path, 5, nodeid.split("::")[-1]), Frame(path, line, "f"))
    return TestReport(results=(TestResult(nodeid, "failed", 0.01, exc_type, message, frames),
                               TestResult(test_path + "::test_other", "passed")))


@pytest.fixture(scope="session")
def s3_server():
    """One real S3-compatible server (moto) on 127.0.0.1 for the session, torn down after it."""
    from .s3server import S3Server

    server = S3Server()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def shared_uri(s3_server, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """A fresh bucket and the standard AWS environment pointing at it; the relay is up again afterwards."""
    import re

    for key, value in s3_server.env().items():
        monkeypatch.setenv(key, value)
    bucket = s3_server.bucket(re.sub(r"[^a-z0-9-]", "-", request.node.name.lower())[:50].strip("-") or "b")
    yield f"s3://{bucket}/team"
    if s3_server.relay._server is None:
        s3_server.relay.start()
