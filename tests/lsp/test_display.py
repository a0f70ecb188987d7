"""Everything the language server sends passes one place (`FixloopProtocol._send_data`): the text an editor
shows (messages, log lines, diagnostics, progress, titles, hover) arrives printable, and data (an edit's text)
arrives exact."""

from __future__ import annotations

import json
from typing import Any

from lsprotocol import types as t

from fixloop.lsp.display import displayed
from fixloop.lsp.server import FixloopServer

PAYLOAD = "x\x1b]52;c;cHduZWQ=\x1b\\ \x1b[1A\x1b[2K\x9b\u202e\u2066\u200b\ry"
SHOWN = "x\\x1b]52;c;cHduZWQ=\\x1b\\ \\x1b[1A\\x1b[2K\\x9b\\u202e\\u2066\\u200b\\ry"


class Wire:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data.split(b"\r\n\r\n", 1)[-1]))

    def close(self) -> None:
        pass


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [s for v in items for s in _strings(v)]


def _server() -> tuple[FixloopServer, Wire]:
    server, wire = FixloopServer(), Wire()
    server.protocol.writer = wire  # type: ignore[assignment]
    return server, wire


def test_what_the_editor_shows_arrives_printable() -> None:
    server, wire = _server()
    server.show(t.MessageType.Warning, PAYLOAD)
    server.log(PAYLOAD)
    server.publish_diagnostics({"uri": "file:///p/m.py", "diagnostics": [
        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "message": PAYLOAD,
         "source": "fixloop", "relatedInformation": [{"location": {"uri": "file:///p/m.py", "range": {
             "start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}, "message": PAYLOAD}]}]})
    server.protocol.notify("$/progress", t.ProgressParams(token="t", value=t.WorkDoneProgressReport(message=PAYLOAD)))
    server.protocol._send_response(1, t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=PAYLOAD)))
    server.protocol._send_response(2, [t.CodeAction(title=PAYLOAD, command=t.Command(title=PAYLOAD, command="c"))])
    assert [s for s in _strings(wire.sent) if not s.isprintable()] == []
    texts = [wire.sent[0]["params"]["message"], wire.sent[1]["params"]["message"],
             wire.sent[2]["params"]["diagnostics"][0]["message"],
             wire.sent[2]["params"]["diagnostics"][0]["relatedInformation"][0]["message"],
             wire.sent[3]["params"]["value"]["message"], wire.sent[4]["result"]["contents"]["value"],
             wire.sent[5]["result"][0]["title"], wire.sent[5]["result"][0]["command"]["title"]]
    assert texts == [SHOWN] * 8, texts


def test_an_edit_stays_exact() -> None:
    server, wire = _server()
    edit = t.WorkspaceEdit(changes={"file:///p/m.py": [t.TextEdit(t.Range(t.Position(0, 0), t.Position(0, 1)),
                                                                  PAYLOAD)]})
    server.protocol.send_request(t.WORKSPACE_APPLY_EDIT, t.ApplyWorkspaceEditParams(edit=edit, label=PAYLOAD))
    [sent] = wire.sent
    assert sent["params"]["edit"]["changes"]["file:///p/m.py"][0]["newText"] == PAYLOAD
    assert sent["params"]["label"] == SHOWN


def test_the_notes_of_a_finished_run_arrive_printable() -> None:
    summary = {"status": "gave_up", "next_steps": [PAYLOAD, "run it again"], "spec": {"where": PAYLOAD,
               "expected": PAYLOAD, "actual": PAYLOAD}, "questions": [{"text": PAYLOAD, "choices": [PAYLOAD]}],
               "diff": PAYLOAD}
    out = displayed({"method": "fixloop/runFinished", "params": summary})["params"]
    assert out["next_steps"] == [SHOWN, "run it again"] and out["questions"] == [{"text": SHOWN, "choices": [SHOWN]}]
    assert out["spec"] == {"where": SHOWN, "expected": SHOWN, "actual": SHOWN} and out["diff"] == PAYLOAD


def test_data_fields_and_clean_messages_are_left_alone() -> None:
    message = {"method": "fixloop/runFinished", "params": {"run_id": "r1", "diff": PAYLOAD, "message": "fixed",
                                                           "suspects": ["m.py:1"]}}
    assert displayed(message) is message
    assert displayed({"params": {"message": PAYLOAD, "diff": PAYLOAD}})["params"] == {"message": SHOWN, "diff": PAYLOAD}
