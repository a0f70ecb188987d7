from __future__ import annotations

from pathlib import Path

import pytest

from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(str(tmp_path / "memory"), HashingEmbedder()).open()
