"""Settings -> the learning memory (or None). Cheap: the store opens on first use."""

from __future__ import annotations

import logging
from pathlib import Path

from ..config import MemorySettings
from .embed import HashingEmbedder, load_embedder
from .learning import LearningMemory
from .store import MemoryStore

log = logging.getLogger("fixloop.memory")


def make_store(settings: MemorySettings) -> MemoryStore:
    try:
        embedder = load_embedder(settings.embedder)
    except ValueError as e:
        log.warning("%s; using the hashing embedder", e)
        embedder = HashingEmbedder()
    return MemoryStore(settings.uri, embedder, settings.max_rows, settings.index_threshold)


def project_key(workspace: Path) -> str:
    return str(workspace.expanduser().resolve())


def make_memory(settings: MemorySettings, workspace: Path, seed: int | None = None) -> LearningMemory | None:
    """`seed` makes the memory's random choices (exploration) those of one run; None leaves them unseeded."""
    if not settings.enabled:
        return None
    return LearningMemory(make_store(settings), project_key(workspace), settings.min_pattern_count, seed=seed)
