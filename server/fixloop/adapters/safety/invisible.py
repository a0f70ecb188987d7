"""FL-S014: characters that change how code reads without changing what it does (Trojan Source).

Bidirectional controls (U+202A-202E embeddings and overrides, U+2066-2069 isolates, U+200E/200F marks,
U+061C) reorder what an editor or a terminal shows; zero-width characters (U+200B-200D, U+2060, U+FEFF
anywhere but the very start of a file) and every other Unicode format character (category Cf), plus the
line and paragraph separators, are invisible. Anywhere in the text counts, comments included: a comment
is where such a character hides a change to the line after it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterator

# Categories Cf, Zl and Zp above ASCII (Unicode 15), as ranges: listing them from unicodedata at import
# walks 1.1 million code points (half a second).
_RANGES = ((0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
           (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x2028, 0x202E),
           (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
           (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
           (0xE0020, 0xE007F))
_INVISIBLE = re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in _RANGES) + "]")


def invisible(src: bytes, start: int, end: int) -> Iterator[tuple[int, int, str]]:
    """(start byte, end byte, message) of each such character in src[start:end] (UTF-8, whole lines)."""
    chunk = src[start:end]
    if chunk.isascii():  # nearly every file: no decoding at all
        return
    text = chunk.decode("utf-8", "replace")
    offset = start
    last = 0
    for m in _INVISIBLE.finditer(text):
        offset += len(text[last:m.start()].encode("utf-8"))
        last = m.start()
        ch = m.group()
        if ch == "\ufeff" and offset == 0:
            continue  # a byte-order mark that starts the file is not in the text
        size = len(ch.encode("utf-8"))
        yield offset, offset + size, f"U+{ord(ch):04X} ({unicodedata.name(ch, 'format character')}) is invisible or reorders the text"
