"""What the host keeps of a run's output: capped buffers, and the descriptors that carry it."""

from __future__ import annotations

import os
from typing import Iterable


class Bounded:
    """Everything of one stream up to a cap; past it, only a mark that more came."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.overflow = False

    def feed(self, chunk: bytes) -> None:
        room = self.cap - len(self.data)
        if len(chunk) > room:
            self.overflow = True
        if room > 0:
            self.data += chunk[:room]


class Capped:
    """Head and tail of one stream; everything in between is counted and dropped."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.cap - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.cap:
                del self.tail[: len(self.tail) - self.cap]

    def text(self) -> tuple[str, str]:
        return self.head.decode("utf-8", "replace"), self.tail.decode("utf-8", "replace")


def close_fds(fds: Iterable[int]) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def report_pipe() -> tuple[int, int]:
    """(read end for the host, write end for the run); both close-on-exec until `Popen(pass_fds=...)`."""
    return os.pipe()
