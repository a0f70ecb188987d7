"""What the server shows in the editor, made printable on its way out: the one place every message passes.

Messages, titles, labels and markup (showMessage, logMessage, diagnostics and their related information,
progress, code action and command titles, hover text, the custom notifications' `message`) carry text of the
project, a candidate, the model or the memory. Each such field goes through `printable` (line breaks and tabs
kept): ESC, C1 controls, bidirectional overrides and invisible characters arrive as visible escapes. Every
other field is data and stays exact: an edit's `newText`, a diff, a URI, an id.
"""

from __future__ import annotations

from typing import Any

from fixloop.kit.printable import printable

# The protocol's own display fields, and those of fixloop's notifications the editors show (a run's notes and
# next steps, goal mode's spec, assumptions and questions).
DISPLAY_KEYS = frozenset({"message", "title", "label", "tooltip", "detail", "description", "placeHolder", "prompt",
                          "note", "notes", "next_steps", "goal", "where", "expected", "actual", "assumptions",
                          "questions", "choices"})
MARKUP_KINDS = frozenset({"markdown", "plaintext"})


def displayed(message: Any) -> Any:
    """`message` (plain JSON) with its display text printable; the same object when nothing needed it."""
    if isinstance(message, dict):
        out = None
        markup = message.get("kind") in MARKUP_KINDS or "language" in message
        for key, value in message.items():
            if key in DISPLAY_KEYS or key == "contents" or (markup and key == "value"):
                shown = _text(value)
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


def _text(value: Any) -> Any:
    """A display field: every string in it printable, at any depth (a list of notes, a question and its
    choices, a spec's parts)."""
    if isinstance(value, str):
        shown = printable(value, multiline=True)
        return value if shown == value else shown
    if isinstance(value, list):
        items = [_text(v) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else items
    if isinstance(value, dict):
        fields = {k: _text(v) for k, v in value.items()}
        return value if all(fields[k] is v for k, v in value.items()) else fields
    return value
