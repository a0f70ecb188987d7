"""Settings -> the learning memory with the workspace's code graph (or None). Cheap: the store opens on
first use."""

from __future__ import annotations

from pathlib import Path

from fixloop.adapters.graph.memory import GraphMemory
from fixloop.adapters.memory.factory import make_store, project_key
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.remote import is_remote
from fixloop.adapters.memory.settings import MemorySettings


def make_memory(settings: MemorySettings, workspace: Path, seed: int | None = None) -> LearningMemory | None:
    """`seed` makes the memory's random choices (exploration) those of one run; None leaves them unseeded."""
    if not settings.enabled:
        return None
    return GraphMemory(make_store(settings), project_key(workspace, is_remote(settings.uri)), workspace,
                       settings.min_pattern_count, seed=seed)
