"""A Python source file's text in its declared encoding (PEP 263, a BOM kept), and back to bytes."""

from __future__ import annotations

import tokenize
from dataclasses import dataclass
from io import BytesIO

MAX_SOURCE_BYTES = 1_000_000  # generated or huge files are not sources we edit


@dataclass(frozen=True)
class SourceFile:
    text: str
    encoding: str
    raw: bytes


def decode_source(raw: bytes) -> SourceFile | None:
    try:
        encoding, _ = tokenize.detect_encoding(BytesIO(raw).readline)
        return SourceFile(raw.decode(encoding), encoding, raw)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None


def encode_source(text: str, encoding: str) -> bytes:
    data = text.encode("utf-8" if encoding == "utf-8-sig" else encoding)
    return (b"\xef\xbb\xbf" + data) if encoding == "utf-8-sig" else data
