"""Text from a project made safe to show in a terminal or an editor.

Paths, test names, operator summaries (cut from source text) and error messages all come from the
project, which is untrusted: an ESC in a test id could move the cursor, retitle the window or hide a line,
and a bidi override (U+202E) can make `a.py:12` read as something else. Every such string goes through
`printable` before it is shown: control characters, format characters (bidi overrides and isolates,
zero-width marks) and line/paragraph separators become visible escapes like `\\x1b` and `\\u202e`.
"""

from __future__ import annotations

import unicodedata

from rich.markup import escape

# Cc: C0/C1 controls and DEL (ESC among them); Cf: format characters (bidi, zero-width); Cs: lone surrogates
# (from undecodable bytes); Zl/Zp: Unicode line and paragraph separators.
_UNSAFE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escaped(ch: str) -> str:
    code = ord(ch)
    if ch in _NAMED:
        return _NAMED[ch]
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: object, multiline: bool = False) -> str:
    """`text` with nothing in it that a terminal or an editor would act on. With `multiline`, line breaks and
    tabs stay (a CR before a line break is dropped); otherwise they are escaped too, so one item stays on one
    line."""
    s = str(text)
    if s.isprintable():  # the common case; isprintable() is False for everything in _UNSAFE (and a bit more)
        return s
    if multiline:
        s = s.replace("\r\n", "\n")
    out = []
    for ch in s:
        if multiline and ch in "\n\t":
            out.append(ch)
        elif unicodedata.category(ch) in _UNSAFE:
            out.append(_escaped(ch))
        else:
            out.append(ch)
    return "".join(out)


def shown(value: object, multiline: bool = False) -> str:
    """A project string for rich's `console.print`: `printable`, then rich markup escaped."""
    return escape(printable(value, multiline))
