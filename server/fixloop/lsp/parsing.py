"""Syntax trees of open documents, kept up to date incrementally: the old tree is edited with the
changed byte range (found by comparing old and new text), then reparsed with it as a guide."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _parser() -> Any:
    from ..repair.syntax import _parser as shared  # tree-sitter's grammar loads on first use only

    return shared()


def to_bytes(text: str) -> bytes:
    # Lone surrogates (non-UTF-8 content sent as JSON escapes) become "?" instead of an error.
    return text.encode("utf-8", "replace")


@dataclass
class Parsed:
    data: bytes
    tree: Any


class Trees:
    def __init__(self) -> None:
        self._docs: dict[str, Parsed] = {}
        self.full_parses = 0
        self.incremental_parses = 0

    def update(self, uri: str, text: str, incremental: bool = True) -> Any:
        data = to_bytes(text)
        old = self._docs.get(uri)
        if old is not None and old.data == data:
            return old.tree
        if old is None or not incremental:
            tree = _parser().parse(data)
            self.full_parses += 1
        else:
            start, old_end, new_end = changed_range(old.data, data)
            old.tree.edit(start_byte=start, old_end_byte=old_end, new_end_byte=new_end,
                          start_point=point(old.data, start), old_end_point=point(old.data, old_end),
                          new_end_point=point(data, new_end))
            tree = _parser().parse(data, old.tree)
            self.incremental_parses += 1
        self._docs[uri] = Parsed(data, tree)
        return tree

    def get(self, uri: str) -> Any:
        parsed = self._docs.get(uri)
        return parsed.tree if parsed else None

    def forget(self, uri: str) -> None:
        self._docs.pop(uri, None)


def changed_range(old: bytes, new: bytes) -> tuple[int, int, int]:
    """(start, old_end, new_end): the smallest byte range whose replacement turns `old` into `new`."""
    limit = min(len(old), len(new))
    lo, hi = 0, limit  # the longest common prefix, by bisection on slice equality (done in C)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    prefix = lo
    lo, hi = 0, limit - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid:] == new[len(new) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    suffix = lo
    return prefix, len(old) - suffix, len(new) - suffix


def point(data: bytes, offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)
