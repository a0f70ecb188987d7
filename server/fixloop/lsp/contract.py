"""The names the protocol (docs/protocol.md) promises the editor clients, in one place: the command ids,
the notification, the code-action kind and the diagnostic sources. The clients in editors/ spell the same
strings; changing one here is a protocol change."""

from __future__ import annotations

from lsprotocol import types as t

PROTOCOL_VERSION = 1  # `capabilities.experimental.fixloop.protocol` in the initialize result

FIX, CANCEL, SHOW_RUN, ACCEPT, REJECT, FORGET = (
    "fixloop.fix", "fixloop.cancel", "fixloop.showRun", "fixloop.accept", "fixloop.reject", "fixloop.forget")
HISTORY, STATS, REPORT = "fixloop.history", "fixloop.stats", "fixloop.report"
TEMPLATES = "fixloop.templates"  # the mined templates: list, show, approve, reject
COMMANDS = (FIX, CANCEL, SHOW_RUN, ACCEPT, REJECT, FORGET, HISTORY, STATS, REPORT, TEMPLATES)

RUN_FINISHED = "fixloop/runFinished"  # notification: a run's summary, sent when any run ends

SOURCE_FIX = t.CodeActionKind.Source + ".fixloop"  # the "Fix until tests pass" source action

SAFETY, MEMORY = "fixloop-safety", "fixloop-memory"  # diagnostic sources
MEMORY_CODE = "FL-M001"  # the code of a memory diagnostic (its data carries the memory_id)
