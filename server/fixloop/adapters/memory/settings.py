"""The memory's settings (read from the user's config and the project's table by `application.config`)."""

from __future__ import annotations

from dataclasses import dataclass

from fixloop.core.sharing import DEFAULT_SHARE


@dataclass(frozen=True)
class MemorySettings:
    enabled: bool = True
    uri: str = ""  # empty: the per-user data directory
    min_pattern_count: int = 2
    max_rows: int = 200_000
    embedder: str = "hashing"  # hashing | hashing:DIM | package.module:Factory
    index_threshold: int = 50_000  # failures rows before a vector index is built at compaction
    share: str = DEFAULT_SHARE  # a shared (s3://, gs://, az://) memory: fixes-only | fixes-and-stats | all
