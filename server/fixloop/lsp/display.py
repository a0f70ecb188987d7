"""What the server shows in the editor, made printable on its way out: the one place every message passes.

Messages, titles, labels and markup (showMessage, logMessage, diagnostics and their related information,
progress, code action and command titles, hover text, the custom notifications' `message`) carry text of the
project, a candidate, the model or the memory. Each such field goes through `printable` (line breaks and tabs
kept): ESC, C1 controls, bidirectional overrides and invisible characters arrive as visible escapes. Every
other field is data and stays exact: an edit's `newText`, a diff, a URI, an id.
"""

from __future__ import annotations

from typing import Any

from ..printable import printable

DISPLAY_KEYS = frozenset({"message", "title", "label", "tooltip", "detail", "description", "placeHolder", "prompt"})
MARKUP_KINDS = frozenset({"markdown", "plaintext"})


def displayed(message: Any) -> Any:
    """`message` (plain JSON) with its display text printable; the same object when nothing needed it."""
    if isinstance(message, dict):
        out = None
        markup = message.get("kind") in MARKUP_KINDS or "language" in message
        for key, value in message.items():
            if isinstance(value, str):
                shown = printable(value, multiline=True) if key in DISPLAY_KEYS or (markup and key == "value") \
                    or key == "contents" else value
            else:
                shown = displayed(value)
            if shown is not value:
                out = dict(message) if out is None else out
                out[key] = shown
        return message if out is None else out
    if isinstance(message, list):
        items = [displayed(v) for v in message]
        return message if all(a is b for a, b in zip(items, message)) else items
    return message
