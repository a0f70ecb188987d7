"""Text from a project made safe to show in a terminal or an editor.

Paths, test names, operator summaries (cut from source text) and error messages all come from the
project, which is untrusted: an ESC in a test id could move the cursor, retitle the window or hide a line,
and a bidi override (U+202E) can make `a.py:12` read as something else. Every such string goes through
`printable` before it is shown: control characters, format characters (bidi overrides and isolates,
zero-width marks) and line/paragraph separators become visible escapes like `\\x1b` and `\\u202e`.

The choke points: `screen.PrintableConsole` (every console of the command line), `PrintableFormatter` (the
log), `diff_shown` (the diff a user is asked to accept) and, in the language server, the protocol's outgoing
messages (lsp/display.py).
"""

from __future__ import annotations

import logging
import unicodedata
from collections import Counter
from typing import Any

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


def diff_shown(diff: str) -> tuple[str, str]:
    """A diff as the user reviews it in a terminal: every character a terminal would act on or that would
    not show (a carriage return included) as a visible escape, and a note naming them, since in the file
    they are the characters themselves. ('', '') for an empty diff."""
    found: Counter[str] = Counter()
    out = []
    for ch in diff:
        if ch in "\n\t" or ch.isprintable():
            out.append(ch)
        else:
            found[ch] += 1
            out.append(_escaped(ch))
    if not found:
        return "".join(out), ""
    kinds = ", ".join(f"{_escaped(ch)} ({unicodedata.name(ch, 'control')}) x{n}" for ch, n in found.most_common(6))
    more = f" and {len(found) - 6} more" if len(found) > 6 else ""
    return "".join(out), (f"the change holds characters shown here as escapes: {kinds}{more}; applied, they are "
                          "the characters themselves, not the backslash text")


class PrintableFormatter(logging.Formatter):
    """Log lines a human reads (the server's stderr, the editor's output panel): the message escaped on one
    line, a traceback kept on its lines but escaped within them."""

    def format(self, record: logging.LogRecord) -> str:
        saved = record.msg, record.args
        record.msg, record.args = printable(record.getMessage()), None
        try:
            return super().format(record)
        finally:
            record.msg, record.args = saved

    def formatException(self, ei: Any) -> str:
        return printable(super().formatException(ei), multiline=True)


def log_to(stream: Any, level: int, fmt: str) -> None:
    """Send the log to `stream` through `PrintableFormatter` (the root logger's only handler)."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(PrintableFormatter(fmt))
    logging.basicConfig(level=level, handlers=[handler], force=True)
