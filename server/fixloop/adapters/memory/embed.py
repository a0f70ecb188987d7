"""Embedders: text -> unit vector. The default hashes features with numpy: no model, no download,
the same vector on every machine (stored vectors stay comparable when a store is shared)."""

from __future__ import annotations

import hashlib
import importlib
import re
from typing import TYPE_CHECKING, Protocol, Sequence

if TYPE_CHECKING:
    import numpy as np

_WORD = re.compile(r"<[a-z]+>|[A-Za-z]+|\d+|[^\sA-Za-z\d]{1,3}")
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


class Embedder(Protocol):
    name: str  # stored with every row: vectors from different embedders are never compared
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...  # (n, dim) float32, rows of unit length


def _features(text: str) -> list[str]:
    words = _WORD.findall(text)
    feats = [f"w:{w.lower()}" for w in words]
    feats += [f"b:{a.lower()}|{b.lower()}" for a, b in zip(words, words[1:])]
    for w in words:  # parts of identifiers: total_price ~ price_total ~ totalPrice
        parts = [p.lower() for chunk in w.split("_") for p in _CAMEL.findall(chunk)]
        if len(parts) > 1:
            feats += [f"p:{p}" for p in parts]
    return feats


class HashingEmbedder:
    """Signed feature hashing of word unigrams, bigrams and identifier parts (blake2b buckets)."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.name = f"hashing-v1-{dim}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np  # lazy: the language server imports this module at start-up

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in _features(text):
                digest = hashlib.blake2b(feat.encode("utf-8"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, value % self.dim] += 1.0 if (value >> 63) & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm > 0:
                out[row] /= norm
        return out


def load_embedder(spec: str) -> Embedder:
    """`hashing`, `hashing:384`, or `package.module:Factory` (called with no arguments) for a
    semantic embedder the user installed. Raises ValueError with a clear message otherwise."""
    spec = (spec or "hashing").strip()
    if spec == "hashing" or spec.startswith("hashing:"):
        _, _, dim = spec.partition(":")
        if dim and not (dim.isdigit() and 16 <= int(dim) <= 4096):
            raise ValueError(f"memory.embedder {spec!r}: the dimension must be a number from 16 to 4096")
        return HashingEmbedder(int(dim) if dim else 256)
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise ValueError(f"memory.embedder {spec!r}: expected 'hashing' or 'package.module:Factory'")
    try:
        factory = getattr(importlib.import_module(module), attr)
        embedder = factory()
    except Exception as e:  # a broken plug-in is a configuration problem, not a crash
        raise ValueError(f"memory.embedder {spec!r} cannot be loaded: {type(e).__name__}: {e}") from e
    if not hasattr(embedder, "embed") or not isinstance(getattr(embedder, "dim", None), int):
        raise ValueError(f"memory.embedder {spec!r}: the object needs .embed(texts) and an integer .dim")
    if not getattr(embedder, "name", ""):
        embedder.name = spec
    return embedder  # type: ignore[no-any-return]
