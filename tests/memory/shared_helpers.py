"""Two 'machines' sharing one memory: each a SharedStore with its own cache folder."""

from __future__ import annotations

import time
from pathlib import Path

from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.shared import SharedStore
from fixloop.adapters.memory.store import new_id


def machine(uri: str, folder: Path, share: str | None = None, **kw) -> SharedStore:
    """A machine with the default `memory.share` unless `share` says otherwise."""
    if share is not None:
        kw["share"] = share
    return SharedStore(uri, HashingEmbedder(64), folder=folder, retry_seconds=0.0, **kw)


def learner(store: SharedStore, project: str = "shop") -> LearningMemory:
    import numpy as np

    return LearningMemory(store, project, rng=np.random.default_rng(7))


def failure(text: str, project: str = "shop", **extra) -> dict:
    row = {"id": new_id(), "project": project, "run_id": "r", "time": time.time(), "test_id": "t::x",
           "exc_type": "AssertionError", "message": text, "signature": text, "text": text, "fixed": False}
    row.update(extra)
    return row
