"""A validating reader between the client's stdin and pygls.

pygls reads `Content-Length: N` and then `read(N)`: a huge N allocates N bytes at once (MemoryError),
and a missing, non-numeric, negative or zero length makes it skip the blank line and glue the body to
the next header, after which no message is ever parsed again. This reader parses each message's
headers itself, bounds every line and body, and hands pygls one canonical message at a time. On bad
framing it logs what was wrong to stderr and skips to the next `Content-Length: N` line: a JSON body
cannot hold a raw line break (inside a string it is written `\r\n`), so such a line, even glued to the
end of a broken body, can only start the next message. The message that was broken is lost (a request
in it gets no answer); the server and everything it holds (open documents, a fix under review) go on.
"""

from __future__ import annotations

import io
import logging
import re
from typing import BinaryIO

MAX_BODY = 64 * 1024 * 1024  # far above any real message (a whole file's text is a few MB at most)
MAX_HEADER_LINE = 8 * 1024
MAX_HEADERS = 32
CHUNK = 1 << 20
_HEADER = re.compile(rb"([A-Za-z0-9-]+):[ \t]*(.*?)[ \t]*\r?\n")
_NEXT = re.compile(rb"content-length:[ \t]*[0-9]+[ \t]*\r?\n", re.IGNORECASE)  # where a skip may resume

log = logging.getLogger("fixloop.lsp.framing")


class BadFraming(ValueError):
    """The client's stream does not follow the base protocol's framing."""


class FramedInput:
    """What pygls' stdin reader calls (`readline`, `read`), fed from validated messages only."""

    def __init__(self, raw: BinaryIO, max_body: int = MAX_BODY) -> None:
        self.raw = raw
        self.max_body = max_body
        self.pending = io.BytesIO()
        self.ended = False
        self.messages = 0
        self.skipped = 0  # broken messages skipped so far
        self._carry = b""  # the header line a skip stopped at: the next message starts with it

    def readline(self, size: int = -1) -> bytes:
        if not self._fill():
            return b""
        return self.pending.readline(size)

    def read(self, size: int = -1) -> bytes:
        if not self._fill():
            return b""
        return self.pending.read(size)

    def _fill(self) -> bool:
        """Make sure a message is pending (skipping broken ones); False at the end of input."""
        if self.pending.tell() < len(self.pending.getbuffer()):
            return True
        if self.ended:
            return False
        body: bytes | None = None
        while True:
            try:
                body = self._next_body()
                break
            except BadFraming as e:
                self.skipped += 1
                resumed = self._skip()
                log.error("bad message framing from the client (message %d): %s; %s", self.messages + 1, e,
                          "skipped to the next message" if resumed else "no message follows it")
                if not resumed:
                    break
            except MemoryError:  # belt and braces: the caps make this unreachable
                log.error("a message from the client does not fit in memory; the server stops here")
                break
        if body is None:
            self.ended = True
            return False
        self.messages += 1
        self.pending = io.BytesIO(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return True

    def _next_body(self) -> bytes | None:
        """The next message's body, None at a clean end of input, BadFraming for anything else."""
        length: int | None = None
        for count in range(MAX_HEADERS + 1):
            line, self._carry = (self._carry or self.raw.readline(MAX_HEADER_LINE + 1)), b""
            if not line:
                if count == 0:
                    return None  # the client closed the stream between messages
                raise BadFraming("the stream ended inside a message's headers")
            if line in (b"\r\n", b"\n"):
                break
            if len(line) > MAX_HEADER_LINE or not line.endswith(b"\n"):
                self._carry = line[-64:]  # the start of a header this bounded read may have cut in two
                raise BadFraming(f"a header line longer than {MAX_HEADER_LINE} bytes")
            match = _HEADER.fullmatch(line)
            if match is None:
                glued = _NEXT.search(line)  # a broken body's end, then the next message's header
                self._carry = line[glued.start():] if glued is not None else b""
                raise BadFraming(f"not a header line: {line[:80]!r}")
            name, value = match.group(1).lower(), match.group(2)
            if name == b"content-length":
                length = self._length(value)
        else:
            raise BadFraming(f"more than {MAX_HEADERS} header lines")
        if length is None:
            raise BadFraming("a message without a Content-Length header")
        return self._body(length)

    def _skip(self) -> bool:
        """Read on to the next line holding a `Content-Length: N` header (kept for `_next_body`); False
        when the input ends first. Reads a bounded piece at a time, so a huge broken line costs no memory."""
        if _NEXT.fullmatch(self._carry):
            return True
        tail, self._carry = self._carry, b""
        while True:
            piece = self.raw.readline(MAX_HEADER_LINE + 1)
            if not piece:
                return False
            window = tail + piece  # a header split between two pieces of one long line is still found
            found = _NEXT.search(window)
            if found is not None:
                self._carry = window[found.start():]
                return True
            tail = b"" if piece.endswith(b"\n") else window[-64:]

    def _length(self, value: bytes) -> int:
        if not value.isdigit() or len(value) > 20:
            raise BadFraming(f"Content-Length is not a positive number: {value[:40]!r}")
        length = int(value)
        if length == 0:
            raise BadFraming("Content-Length is 0 (a message needs a JSON body)")
        if length > self.max_body:
            raise BadFraming(f"Content-Length {length} is over the {self.max_body} byte limit")
        return length

    def _body(self, length: int) -> bytes:
        # In chunks: memory grows with what the client really sent, not with what it claimed.
        body = bytearray()
        while len(body) < length:
            chunk = self.raw.read(min(CHUNK, length - len(body)))
            if not chunk:
                raise BadFraming(f"the stream ended {length - len(body)} bytes short of the announced "
                                 f"Content-Length {length}")
            body += chunk
        return bytes(body)
