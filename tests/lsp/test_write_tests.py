""""Write tests for this function" over LSP (stdio, both client profiles): the code action on a definition,
the command working in the background, and the new test file offered as a hunk that creates it."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException

from tests.lsp.lsp_harness import lsp
from tests.project_python import project_python

PYTHON_H = project_python(("pytest", "hypothesis"))
CODEC = ('def dumps(values: list[int]) -> str:\n    return ",".join(str(v) for v in values)\n\n\n'
         'def loads(text: str) -> list[int]:\n    return [int(p) for p in text.split(",")]\n\n\nLIMIT = 3\n')
REL = "pkg/codec.py"


def project(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "pkg" / "__init__.py").write_text("")
    (ws / "pkg" / "codec.py").write_text(CODEC)
    (ws / "tests" / "test_codec.py").write_text("from pkg.codec import dumps\n\ndef test_dumps():\n"
                                                "    assert dumps([1, 2]) == '1,2'\n")
    return ws


def options() -> dict:
    return {"settings": {"python": PYTHON_H, "sandbox": {"backend": "auto"}, "diagnostics": {"debounce_ms": 0}}}


@pytest.mark.e2e  # a server, the sandboxed recording and a Hypothesis run
async def test_write_tests_code_action_offers_a_new_file_with_the_suspected_bug(profile: str, tmp_path: Path) -> None:
    ws = project(tmp_path)
    async with lsp(profile, ws, tmp_path, options=options()) as s:
        uri = s.uri(REL)
        s.editor.open(uri, CODEC)
        actions = await s.client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), range=t.Range(t.Position(1, 4), t.Position(1, 4)),
            context=t.CodeActionContext(diagnostics=[])))
        [action] = [a for a in actions or [] if a.title == "Write tests for this function"]
        assert action.kind == "refactor.fixloop.writeTests" and action.command is not None
        none_here = await s.client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), range=t.Range(t.Position(8, 0), t.Position(8, 0)),
            context=t.CodeActionContext(diagnostics=[])))
        assert not [a for a in none_here or [] if a.title == "Write tests for this function"]

        started = await s.command(action.command.command, *action.command.arguments)
        assert started["function"] == "pkg/codec.py::dumps"
        summary = await s.run_finished(started["run_id"], timeout=240)
        assert summary["status"] == "generated", summary
        new = "tests/test_codec_dumps_generated.py"
        assert summary["file"] == new and summary["files_changed"] == [new] and summary["suspected_bugs"] == 1
        bug = next(x for x in summary["tests"] if x["status"] == "suspected_bug")
        assert bug["name"] == "test_loads_inverts_dumps" and "value=[]" in bug["reason"]
        [hunk] = summary["hunks"]
        assert hunk["id"] == f"{new}#0" and "suspected bug" in hunk["message"] and hunk["new"] == summary["text"]

        await s.until(lambda: s.editor.edits, what="workspace/applyEdit", timeout=30)
        edit = s.editor.edits[0].edit
        new_uri = s.uri(new)
        create, change = edit.document_changes  # both editors: create the file (never over one), then its text
        assert isinstance(create, t.CreateFile) and create.uri == new_uri and create.options.overwrite is False
        assert change.text_document.uri == new_uri and change.text_document.version is None
        assert await s.settled_states(started["run_id"]) == {f"{new}#0": "accepted"}
        assert s.editor.text(new_uri) == summary["text"]
        assert any("suspected bug" in m.message for m in s.client.messages)
        assert (ws / new).read_text() == ""  # created empty; the editor holds its text until the user saves it
        assert s.scratch_dirs() == []


async def test_write_tests_bad_input_is_a_clear_error(profile: str, tmp_path: Path) -> None:
    ws = project(tmp_path)
    async with lsp(profile, ws, tmp_path, options=options()) as s:
        uri = s.uri(REL)
        s.editor.open(uri, CODEC)
        with pytest.raises(JsonRpcException, match="no function definition at pkg/codec.py line 9"):
            await s.command("fixloop.writeTests", {"uri": uri, "position": {"line": 8, "character": 0}})
        with pytest.raises(JsonRpcException, match="outside the workspace"):
            await s.command("fixloop.writeTests", {"uri": (tmp_path / "x.py").as_uri(),
                                                   "position": {"line": 0, "character": 0}})
        with pytest.raises(JsonRpcException, match="needs \"position\""):
            await s.command("fixloop.writeTests", {"uri": uri})
