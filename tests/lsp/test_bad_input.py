"""Bad input gets a clear error (or is skipped and logged) and the server keeps working."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from lsprotocol import types as t
from tests.lsp.lsp_harness import Session, lsp
from pygls.exceptions import JsonRpcException

UNSAFE_LINE = "os.system(cmd)\n"


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "bad_ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "pkg" / "__init__.py").write_text("")
    (ws / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (ws / "tests" / "test_mod.py").write_text("from pkg.mod import f\n\n\ndef test_f():\n    assert f() == 1\n")
    (ws / "tests" / "test_latin1.py").write_bytes(b"# caf\xe9 without a coding line\ndef test_x():\n    pass\n")
    (ws / "README.md").write_text("# readme\n")
    return ws


async def refused(s: Session, match: str, *args: object, command: str = "fixloop.fix") -> None:
    with pytest.raises(JsonRpcException, match=match):
        await s.command(command, *args)


async def still_answers(s: Session) -> None:
    assert await s.command("fixloop.cancel", {}) == {"cancelled": False}


async def test_malformed_and_missing_command_arguments(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    async with lsp(profile, ws, tmp_path) as s:
        await refused(s, "takes one JSON object argument", "tests/test_mod.py")
        await refused(s, "takes one JSON object argument", {"scope": "workspace"}, {"scope": "file"})
        await refused(s, "'scope' must be one of workspace, file, test, position", {"scope": "everything"})
        await refused(s, "'uri' is required", {"scope": "file"})
        await refused(s, "'test' is required", {"scope": "test"})
        await refused(s, "node id relative to the workspace", {"scope": "test", "test": "../x/test_a.py::test_b"})
        await refused(s, "scope 'position' needs", {"scope": "position", "uri": s.uri("tests/test_mod.py")})
        await refused(s, "'run_id' must be a non-empty string", {"run_id": 7}, command="fixloop.cancel")
        await refused(s, "'hunks' must be a list of hunk ids", {"hunks": "all"}, command="fixloop.accept")
        await refused(s, "'id' is required", {}, command="fixloop.forget")
        await refused(s, "no run has produced a fix yet", command="fixloop.accept")
        await refused(s, "no fix to review for run 'nope'", {"run_id": "nope"}, command="fixloop.reject")
        assert await s.command("fixloop.showRun", {"run_id": "nope"}) is None
        assert await s.command("fixloop.showRun") is None
        await still_answers(s)


async def test_uris_that_are_not_workspace_python_files(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    outside = tmp_path / "elsewhere.py"
    outside.write_text("x = 1\n")
    async with lsp(profile, ws, tmp_path) as s:
        await refused(s, "is not a file on disk", {"uri": "untitled:Untitled-1", "scope": "file"})
        await refused(s, "is not a file on disk", {"uri": "https://example.com/a.py", "scope": "file"})
        await refused(s, "is outside the workspace", {"uri": outside.as_uri(), "scope": "file"})
        await refused(s, "is outside the workspace", {"uri": (ws / ".." / "elsewhere.py").as_uri()})
        await refused(s, "README.md is not a Python file", {"uri": s.uri("README.md"), "scope": "file"})
        await refused(s, "is not valid text", {"uri": s.uri("tests/test_latin1.py"), "scope": "position",
                                               "position": {"line": 1, "character": 0}})
        # documents the checks skip: untitled, not Python; a real one still gets its diagnostics
        s.editor.open("untitled:Untitled-1", "import os\n" + UNSAFE_LINE)
        s.editor.open(s.uri("notes.txt"), "import os\n" + UNSAFE_LINE, language="plaintext")
        real = s.uri("pkg/run.py")
        s.editor.open(real, "import os\n\n\ndef run(cmd):\n    " + UNSAFE_LINE)
        await s.until(lambda: s.client.diagnostics.get(real), what="diagnostics on the real file")
        assert "untitled:Untitled-1" not in s.client.diagnostics
        assert s.uri("notes.txt") not in s.client.diagnostics
        await still_answers(s)


async def test_files_over_the_size_limit_are_skipped_and_logged(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    options = {"settings": {"diagnostics": {"debounce_ms": 0, "max_file_bytes": 2000}}}
    async with lsp(profile, ws, tmp_path, options=options) as s:
        big = s.uri("pkg/big.py")
        text = "import os\n" + "x = 1\n" * 500 + UNSAFE_LINE
        s.editor.open(big, text)
        await s.until(lambda: any("over the 2000 limit; not checked" in m.message for m in s.client.log_messages),
                      what="the skip to be logged")
        assert big not in s.client.diagnostics
        s.editor.open(s.uri("tests/test_big.py"), "def test_x():\n    pass\n" + "# pad\n" * 500)
        await refused(s, "over the 2000-character limit", {"uri": s.uri("tests/test_big.py"), "scope": "position",
                                                          "position": {"line": 0, "character": 0}})
        s.editor.set_text(big, "import os\n" + UNSAFE_LINE)  # small again: checked again
        await s.until(lambda: s.client.diagnostics.get(big), what="diagnostics once under the limit")


async def test_non_utf8_content_from_the_editor(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    async with lsp(profile, ws, tmp_path) as s:
        uri = s.uri("pkg/odd.py")
        # A lone surrogate: what an editor sends for bytes it could not decode.
        s.editor.open(uri, "import os\nname = 'caf\udce9'\n" + UNSAFE_LINE)
        found = await s.until(lambda: s.client.diagnostics.get(uri), what="diagnostics despite bad bytes")
        assert [d.range.start.line for d in found if d.code == "FL-S002"] == [2]
        await still_answers(s)


async def test_hundreds_of_rapid_changes(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    options = {"settings": {"diagnostics": {"debounce_ms": 50}}}
    async with lsp(profile, ws, tmp_path, options=options) as s:
        uri = s.uri("pkg/typing.py")
        s.editor.open(uri, "import os\n")
        publishes: list[int | None] = []
        original = s.client.protocol.fm.features[t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

        def count(params: t.PublishDiagnosticsParams) -> None:
            if params.uri == uri:
                publishes.append(params.version)
            original(params)

        s.client.protocol.fm.features[t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = count
        text = "import os\n"
        typed = "def run(cmd):\n    os.system(cmd)\n"
        for ch in typed * 10:  # 300+ keystrokes, one incremental change each
            _, version = s.editor.docs[uri]
            line = text.count("\n")
            col = len(text) - (text.rfind("\n") + 1)
            text += ch
            s.editor.docs[uri] = (text, version + 1)
            at = t.Position(line, col)
            s.client.text_document_did_change(t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version + 1),
                content_changes=[t.TextDocumentContentChangePartial(range=t.Range(at, at), text=ch)]))
        final_version = s.editor.docs[uri][1]
        assert final_version > 300
        started = time.monotonic()
        await still_answers(s)
        assert time.monotonic() - started < 5
        await s.until(lambda: publishes and publishes[-1] == final_version, timeout=20, what="the final publish")
        assert len(publishes) < 100, f"{len(publishes)} publishes for {final_version} changes: not debounced"
        system = [d for d in s.client.diagnostics[uri] if d.code == "FL-S002"]
        assert [d.range.start.line for d in system] == [2 + 2 * i for i in range(10)]
