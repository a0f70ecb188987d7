"""A ruff or mypy diagnostic in the editor (pyright's too, Pylance's named as pyright's): "Fix with fixloop" on it, the run with ruff's findings as targets (ruff from
the project's own interpreter, in the sandbox), the fix offered for review like any other."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types as t

from tests.lsp.lsp_harness import lsp
from tests.project_python import project_python

CART = "import os\n\n\ndef total(prices, discount=0):\n    return sum(prices) - discount\n"
TESTS = "from shop.cart import total\n\n\ndef test_total():\n    assert total([1, 2], 1) == 2\n"


def _workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    for rel, text in {"shop/__init__.py": "", "shop/cart.py": CART, "tests/test_cart.py": TESTS}.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    return ws



async def _actions(s: Any, uri: str, where: t.Range, diagnostics: list[t.Diagnostic]) -> dict[str, t.CodeAction]:
    actions = await s.client.text_document_code_action_async(t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri), range=where, context=t.CodeActionContext(diagnostics=diagnostics)))
    return {a.title: a for a in actions}


async def _fixed_by(s: Any, action: t.CodeAction, uri: str, tool: str) -> dict[str, Any]:
    """Runs the action (a run of `tool`'s findings in this file as targets) to its end and the editor's edit."""
    assert action.kind == t.CodeActionKind.QuickFix and action.command is not None
    assert list(action.command.arguments) == [{"uri": uri, "scope": "workspace", "checks": [tool], "check_scope": "file"}]
    started = await s.command(action.command.command, *action.command.arguments)
    summary: dict[str, Any] = await s.run_finished(started["run_id"])
    assert summary["status"] == "fixed", summary
    await s.until(lambda: s.editor.edits, what="workspace/applyEdit")
    return summary

@pytest.mark.e2e  # a whole fix run in the sandbox
async def test_fix_with_fixloop_on_a_ruff_diagnostic(profile: str, tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    venv = str(Path(project_python(("pytest", "ruff"))).parent.parent)
    async with lsp(profile, ws, tmp_path, env={"VIRTUAL_ENV": venv}) as s:
        uri = s.uri("shop/cart.py")
        s.editor.open(uri, CART)
        ruffs = t.Diagnostic(range=t.Range(t.Position(0, 7), t.Position(0, 9)), message="`os` imported but unused",
                             source="Ruff", code="F401")
        other = t.Diagnostic(range=t.Range(t.Position(0, 0), t.Position(0, 9)), message="spelling", source="cSpell")
        titles = await _actions(s, uri, ruffs.range, [ruffs, other])
        action = titles["Fix with fixloop (ruff, tests kept passing)"]
        assert list(action.diagnostics or ()) == [ruffs]
        assert not any("cSpell" in title or "spelling" in title for title in titles)
        summary = await _fixed_by(s, action, uri, "ruff")
        assert summary["failing_before"] == ["ruff::shop/cart.py::F401"]
        assert "-import os\n" in summary["diff"]
        assert (ws / "shop" / "cart.py").read_text() == CART  # on disk as it was: the edit is the editor's


LABELS = ("def label(name: str, count: int) -> str:\n    return f'{count} x {name}'\n\n\n"
          "def shelf_label(item: str, stock: int) -> str:\n    return label(stock, item)\n")


@pytest.mark.e2e  # a whole fix run in the sandbox
async def test_fix_with_fixloop_on_a_mypy_diagnostic_and_pylances_names_pyright(profile: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    tests = "from shop.labels import label\n\n\ndef test_label():\n    assert label('pen', 3) == '3 x pen'\n"
    for rel, text in {"shop/__init__.py": "", "shop/labels.py": LABELS, "tests/test_labels.py": tests}.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    venv = str(Path(project_python(("pytest", "mypy"))).parent.parent)
    async with lsp(profile, ws, tmp_path, env={"VIRTUAL_ENV": venv}) as s:
        uri = s.uri("shop/labels.py")
        s.editor.open(uri, LABELS)
        where = t.Range(t.Position(5, 17), t.Position(5, 22))
        mypys = t.Diagnostic(range=where, source="Mypy", code="arg-type",
                             message='Argument 1 to "label" has incompatible type "int"; expected "str"')
        pylances = t.Diagnostic(range=where, source="Pylance", code="reportArgumentType",
                                message='Argument of type "int" cannot be assigned to parameter "name" of type "str"')
        titles = await _actions(s, uri, where, [mypys, pylances])
        assert list(titles["Fix with fixloop (pyright, tests kept passing)"].diagnostics or ()) == [pylances]
        action = titles["Fix with fixloop (mypy, tests kept passing)"]
        assert list(action.diagnostics or ()) == [mypys]
        summary = await _fixed_by(s, action, uri, "mypy")
        assert summary["failing_before"] == ["mypy::shop/labels.py::arg-type"]
        assert "-    return label(stock, item)\n+    return label(item, stock)" in summary["diff"]
        assert (ws / "shop" / "labels.py").read_text() == LABELS  # on disk as it was: the edit is the editor's


async def test_a_checker_fixloop_does_not_know_is_refused(profile: str, tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    async with lsp(profile, ws, tmp_path) as s:
        with pytest.raises(Exception, match="'checks' must be a list of checkers among ruff, mypy, pyright"):
            await s.command("fixloop.fix", {"scope": "workspace", "checks": ["pylint"]})
        with pytest.raises(Exception, match="'check_scope' must be"):
            await s.command("fixloop.fix", {"scope": "workspace", "checks": ["ruff"], "check_scope": "everything"})
        with pytest.raises(Exception, match="'uri' is required"):
            await s.command("fixloop.fix", {"scope": "workspace", "checks": ["ruff"], "check_scope": "file"})
        uri = s.uri("tests/test_cart.py")
        s.editor.open(uri, TESTS)
        on_test = t.Diagnostic(range=t.Range(t.Position(0, 0), t.Position(0, 4)), message="m", source="Ruff")
        actions = await s.client.text_document_code_action_async(t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri), range=on_test.range,
            context=t.CodeActionContext(diagnostics=[on_test])))
        assert not [a for a in actions if a.title.startswith("Fix with fixloop")]  # tests are not fixloop's to change
