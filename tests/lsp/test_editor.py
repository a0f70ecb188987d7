"""Diagnostics, code actions and settings, as an editor meets them."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as t
from tests.lsp.lsp_harness import Session, lsp

UNSAFE = "import os\nimport subprocess\n\n\ndef run(cmd):\n    os.system(cmd)\n    return eval(cmd)\n"
# Fixes learned elsewhere in the project: a comparison made non-strict (it transfers to pkg/limits.py),
# and a signature fix whose stored edit no longer reads (it still warns, but has nothing to apply).
MEMORY = [{"memory_id": "fix-42", "path": "pkg/cap.py", "count": 3,
           "before": "def capped(n, cap):\n    if n > cap:\n        return cap\n    return n\n",
           "after": "def capped(n, cap):\n    if n >= cap:\n        return cap\n    return n\n"},
          {"memory_id": "fix-7", "path": "pkg/ok.py", "edit": "[[[\"def\"", "before": "def ok(x):\n    return x\n",
           "after": "def ok(x=None):\n    return x\n"}]
LIMITS = "LIMIT = 10\n\n\ndef over(quantity):\n    if quantity > LIMIT:\n        return True\n    return False\n"
TESTS = ("import pytest\n\nfrom pkg.limits import over\n\n\nclass TestOver:\n    def test_at_limit(self):\n"
         "        assert over(10)\n\n\ndef test_small():\n    assert not over(1)\n")


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "editor ws"  # a space: URIs arrive percent-encoded
    (ws / "pkg").mkdir(parents=True)
    (ws / "tests").mkdir()
    (ws / "pkg" / "__init__.py").write_text("")
    (ws / "pkg" / "limits.py").write_text(LIMITS)
    (ws / "tests" / "test_limits.py").write_text(TESTS)
    return ws


async def diagnostics(s: Session, uri: str, source: str, present: bool = True) -> list[t.Diagnostic]:
    def check() -> list[t.Diagnostic] | None:
        found = [d for d in s.client.diagnostics.get(uri, []) if d.source == source]
        return found if bool(found) == present else None

    if present:
        return await s.until(check, what=f"{source} diagnostics on {uri}")
    await s.until(lambda: uri in s.client.diagnostics and check() is not None, what=f"{source} to clear")
    return []


async def test_safety_diagnostics_appear_and_clear(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    async with lsp(profile, ws, tmp_path) as s:
        uri = s.uri("pkg/run.py")
        (ws / "pkg" / "run.py").write_text(UNSAFE)
        s.editor.open(uri, UNSAFE)
        found = await diagnostics(s, uri, "fixloop-safety")
        codes = {d.code: d for d in found}
        assert {"FL-S001", "FL-S002"} <= set(codes), codes
        system = codes["FL-S002"]
        assert system.range.start == t.Position(5, 4) and system.severity == t.DiagnosticSeverity.Error
        assert system.message  # the short explanation
        # bandit on save adds its own ids next to ours
        s.client.text_document_did_save(t.DidSaveTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=uri)))
        await s.until(lambda: any(str(d.code).startswith("B") for d in s.client.diagnostics.get(uri, [])),
                      timeout=30, what="bandit findings")
        s.editor.set_text(uri, "def run(cmd):\n    return cmd\n")
        await s.until(lambda: not [d for d in s.client.diagnostics.get(uri, []) if d.code in ("FL-S001", "FL-S002")],
                      what="safety diagnostics to clear")
        s.client.text_document_did_close(t.DidCloseTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=uri)))
        await s.until(lambda: not s.client.diagnostics.get(uri), what=f"diagnostics cleared on close: {s.client.diagnostics.get(uri)}")


async def test_memory_diagnostics_code_actions_and_past_fix(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    async with lsp(profile, ws, tmp_path, memory=MEMORY) as s:
        uri = s.uri("pkg/limits.py")
        s.editor.open(uri, LIMITS)
        show_only, memory = sorted(await diagnostics(s, uri, "fixloop-memory"), key=lambda d: d.range.start.line)
        assert memory.code == "FL-M001" and memory.range.start == t.Position(4, 4)
        assert "failed 3 times" in memory.message and memory.data == {"memory_id": "fix-42", "line": 5}
        assert "if n > cap: -> if n >= cap:" in memory.message

        actions = await s.client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), range=memory.range,
            context=t.CodeActionContext(diagnostics=[memory])))
        titles = {a.title: a for a in actions}
        # (the cursor is in a function, so "Write tests for this function" is offered too)
        assert set(titles) == {"Fix until tests pass", "Show the past fix", "Apply the past fix",
                               "Write tests for this function"}
        assert titles["Fix until tests pass"].kind == "source.fixloop"
        show = titles["Show the past fix"].command
        shown = await s.command(show.command, *show.arguments)
        # the past fix re-made here, with this code's names
        assert "-    if quantity > LIMIT:\n+    if quantity >= LIMIT:" in shown["diff"], shown["diff"]
        assert shown["files_changed"] == ["pkg/limits.py"] and shown["hunks"] == []  # nothing offered before the check
        apply = titles["Apply the past fix"].command
        assert apply.command == "fixloop.applyPastFix"
        assert list(apply.arguments) == [{"uri": uri, "memory_id": "fix-42", "line": 5}]

        # The document changed since the warning: the stale warning applies nothing and says why.
        s.editor.set_text(uri, LIMITS.replace("if quantity > LIMIT:", "if quantity > LIMIT + 1:"))
        await diagnostics(s, uri, "fixloop-memory", present=True)
        await s.until(lambda: len([d for d in s.client.diagnostics[uri] if d.source == "fixloop-memory"]) == 1,
                      what="the edited shape's warning to go")
        with pytest.raises(Exception, match="no memory warning 'fix-42' any more"):
            await s.command(apply.command, *apply.arguments)
        assert s.editor.edits == [] and s.editor.text(uri).count("LIMIT + 1") == 1

        # a memory entry whose stored fix no longer reads can be shown, not applied
        actions = await s.client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), range=show_only.range,
            context=t.CodeActionContext(diagnostics=[show_only])))
        titles = {a.title: a for a in actions}
        assert set(titles) == {"Fix until tests pass", "Show the past fix", "Write tests for this function"}
        shown = await s.command("fixloop.showRun", *titles["Show the past fix"].command.arguments)
        assert shown["message"].startswith("this shape failed 2 times") and shown["hunks"] == []
        assert "cannot be read" in shown["note"] and "+def ok(x=None):" in shown["diff"]  # the fix as it was made
        with pytest.raises(Exception, match="stored edit cannot be read .it is not valid JSON.; nothing was applied"):
            await s.command("fixloop.applyPastFix", {"uri": uri, "memory_id": "fix-7", "line": 4})

        s.editor.set_text(uri, LIMITS)
        await s.until(lambda: len([d for d in s.client.diagnostics[uri] if d.source == "fixloop-memory"]) == 2,
                      what="both memory diagnostics")
        assert await s.command("fixloop.forget", {"id": "fix-42"}) == {"forgotten": True}
        assert await s.command("fixloop.forget", {"id": "fix-7"}) == {"forgotten": True}
        await diagnostics(s, uri, "fixloop-memory", present=False)
        assert await s.command("fixloop.forget", {"id": "fix-42"}) == {"forgotten": False}


async def test_test_code_actions(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    async with lsp(profile, ws, tmp_path) as s:
        uri = s.uri("tests/test_limits.py")
        s.editor.open(uri, TESTS)

        async def actions_at(line: int, only: list[str] | None = None) -> list[t.CodeAction]:
            at = t.Position(line, 8)
            return await s.client.text_document_code_action_async(t.CodeActionParams(
                text_document=t.TextDocumentIdentifier(uri=uri), range=t.Range(at, at),
                context=t.CodeActionContext(diagnostics=[], only=only)))

        in_method = {a.title: a for a in await actions_at(7)}
        fix_test = in_method["Fix until this test passes"]
        assert list(fix_test.command.arguments) == [{"uri": uri, "scope": "test",
                                               "test": "tests/test_limits.py::TestOver::test_at_limit"}]
        in_function = {a.title: a for a in await actions_at(11)}
        assert in_function["Fix until this test passes"].command.arguments[0]["test"] == \
            "tests/test_limits.py::test_small"
        outside = [a.title for a in await actions_at(0)]
        assert outside == ["Fix until tests pass"]
        assert [a.title for a in await actions_at(7, only=["source"])] == ["Fix until tests pass"]


async def test_settings_problems_and_switches(profile: str, tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    options = {"settings": {"max_iterations": "many", "no_such_key": 1, "diagnostics": {"debounce_ms": 0}},
               "review": "sideways", "apiKey": "sk-test-secret-value"}
    async with lsp(profile, ws, tmp_path, options=options, memory=MEMORY) as s:
        await s.until(lambda: len(s.client.messages) >= 3, what="settings warnings")
        text = "\n".join(m.message for m in s.client.messages)
        assert "max_iterations" in text and "no_such_key" in text and "review" in text
        assert all(m.type == t.MessageType.Warning for m in s.client.messages)
        assert "sk-test-secret-value" not in text
        uri = s.uri("pkg/limits.py")
        s.editor.open(uri, LIMITS)
        await diagnostics(s, uri, "fixloop-memory")
        # the workspace configuration switches memory diagnostics off
        s.client.set_configuration({"settings": {"diagnostics": {"memory": False}}}, section="fixloop")
        s.client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
        await diagnostics(s, uri, "fixloop-memory", present=False)
