from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fixloop.core.model import Frame, TestReport, TestResult
from fixloop.memory.embed import HashingEmbedder
from fixloop.memory.learning import LearningMemory
from fixloop.memory.store import MemoryStore

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
