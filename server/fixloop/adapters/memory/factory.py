"""Settings -> the memory's store (the learning memory with the code graph is made in `graph.factory`).
Cheap: the store opens on first use."""

from __future__ import annotations

import logging
from pathlib import Path

from fixloop.adapters.memory.settings import MemorySettings
from fixloop.adapters.memory.embed import HashingEmbedder, load_embedder
from fixloop.adapters.memory.privacy import project_name
from fixloop.adapters.memory.remote import is_remote
from fixloop.adapters.memory.store import MemoryStore

log = logging.getLogger("fixloop.adapters.memory")


def make_store(settings: MemorySettings) -> MemoryStore:
    try:
        embedder = load_embedder(settings.embedder)
    except ValueError as e:
        log.warning("%s; using the hashing embedder", e)
        embedder = HashingEmbedder()
    if is_remote(settings.uri):  # a team's memory: used through a local cache (see shared.py)
        from fixloop.adapters.memory.shared import SharedStore

        return SharedStore(settings.uri, embedder, settings.share, max_rows=settings.max_rows,
                           index_threshold=settings.index_threshold)
    return MemoryStore(settings.uri, embedder, settings.max_rows, settings.index_threshold)


def project_key(workspace: Path, shared: bool = False) -> str:
    """A private store names a project by its path; a shared one by its folder's name (no user name in it)."""
    path = str(workspace.expanduser().resolve())
    return project_name(path) if shared else path
