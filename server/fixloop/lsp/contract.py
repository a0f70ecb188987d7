"""The names the protocol (docs/protocol.md) promises the editor clients, in one place: the command ids,
the notification, the code-action kind and the diagnostic sources. The clients in editors/ spell the same
strings; changing one here is a protocol change."""

from __future__ import annotations

from lsprotocol import types as t

PROTOCOL_VERSION = 1  # `capabilities.experimental.fixloop.protocol` in the initialize result

FIX, CANCEL, SHOW_RUN, ACCEPT, REJECT, FORGET = (
    "fixloop.fix", "fixloop.cancel", "fixloop.showRun", "fixloop.accept", "fixloop.reject", "fixloop.forget")
HISTORY, STATS, REPORT = "fixloop.history", "fixloop.stats", "fixloop.report"
WRITE_TESTS = "fixloop.writeTests"  # {uri, position}: tests for the function there, offered as a new file
APPLY_PAST = "fixloop.applyPastFix"  # a memory warning's past fix: checked, then offered for review
TEMPLATES = "fixloop.templates"  # the mined templates: list, show, approve, reject
SETTINGS = "fixloop.settings"  # the settings in effect, what the workspace asked for and did not get, the sandbox
TRUST = "fixloop.trust"  # the grants to apply fixes without asking: list, revoke
UNDO = "fixloop.undo"  # {run_id}: take back a fix applied without asking (and end its grant)
COMMANDS = (FIX, CANCEL, SHOW_RUN, ACCEPT, REJECT, FORGET, HISTORY, STATS, REPORT, WRITE_TESTS, APPLY_PAST, TEMPLATES,
            SETTINGS, TRUST, UNDO)

RUN_FINISHED = "fixloop/runFinished"  # notification: a run's summary, sent when any run ends
AUTO_APPLIED = "fixloop/autoApplied"  # notification: a fix went into the buffers without asking (a trust grant)

SOURCE_FIX = t.CodeActionKind.Source + ".fixloop"  # the "Fix until tests pass" source action
# "Write tests for this function": a refactor (it belongs to the definition under the cursor, so editors show
# it with the other actions there, not only in a "Source Action" menu).
WRITE_TESTS_KIND = t.CodeActionKind.Refactor + ".fixloop.writeTests"

SAFETY, MEMORY = "fixloop-safety", "fixloop-memory"  # diagnostic sources
MEMORY_CODE = "FL-M001"  # the code of a memory diagnostic (its data carries the memory_id)
ENTITY_CODE = "FL-M002"  # a function's own history, on its name (its data carries the entity id)
