"""Code actions: fix until the test under the cursor passes, fix until all tests pass, on a ruff, mypy or
pyright diagnostic fix with that checker's findings as targets, and on a memory diagnostic show or apply the past fix (checked, then reviewed like a run's fix: past_fixes.py);
on a function, write tests for it (testgen)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as t

from fixloop.core.integrity import is_test_file
from fixloop.application.config import CHECK_TOOLS
from fixloop.lsp.contract import APPLY_PAST, FIX, MEMORY, SHOW_RUN, SOURCE_FIX, WRITE_TESTS, WRITE_TESTS_KIND
from fixloop.lsp.diagnostics import DiagnosticsEngine
from fixloop.lsp.editor import Editor
from fixloop.lsp.parsing import test_at
from fixloop.lsp.paths import BadInput, is_python, relative_path
from fixloop.lsp.past_fixes import past_fix
from fixloop.lsp.review_edits import Reviewer


def code_actions(editor: Editor, diagnostics: DiagnosticsEngine, review: Reviewer,
                 params: t.CodeActionParams) -> list[t.CodeAction]:
    uri = params.text_document.uri
    root = editor.root()
    if root is None:
        return []
    try:
        rel = relative_path(root, uri)
    except BadInput:
        return []
    doc = editor.document(uri)
    if not is_python(rel, doc.language_id if doc else None):
        return []
    actions: list[t.CodeAction] = []
    line = params.range.start.line
    if is_test_file(rel) and doc is not None:
        name = test_at(doc.source, line)
        if name:
            node = f"{rel}::{name}"
            actions.append(_action("Fix until this test passes", t.CodeActionKind.QuickFix, FIX,
                                   {"uri": uri, "scope": "test", "test": node}))
    actions.append(_action("Fix until tests pass", SOURCE_FIX, FIX, {"uri": uri, "scope": "workspace"}))
    if doc is not None and not is_test_file(rel) and _on_definition(doc.source, line):
        actions.append(_action("Write tests for this function", WRITE_TESTS_KIND, WRITE_TESTS,
                               {"uri": uri, "position": {"line": line, "character": params.range.start.character}}))
    actions.extend(_checker_actions(uri, rel, params.context.diagnostics))
    if doc is not None:
        actions.extend(_memory_actions(uri, rel, doc.source, diagnostics, review, params.context.diagnostics))
    only = params.context.only
    if only:
        actions = [a for a in actions if a.kind and any(a.kind == k or a.kind.startswith(k + ".") for k in only)]
    return actions


def _on_definition(text: str, line: int) -> bool:
    """The cursor is in a top-level function or a method (cheap text check first: tree-sitter only then)."""
    if "def " not in text:
        return False
    from fixloop.application.testgen.target import function_at  # tree-sitter loads with the first such request

    return function_at(text, line) is not None


# Pylance is pyright inside VS Code's Python extension: its squiggles are pyright's, and the project's own
# pyright (reading the same pyrightconfig.json or [tool.pyright]) is what the run checks with.
SOURCE_ALIASES = {"pylance": "pyright"}


def checker_of(diagnostic: t.Diagnostic) -> str:
    """The checker (among those `--check` knows) that published `diagnostic`, by the `source` its editor
    extension gives it ("Ruff", "Mypy", "mypy", "Pylance"); "" for any other."""
    source = (diagnostic.source or "").strip().lower()
    source = SOURCE_ALIASES.get(source, source)
    return source if source in CHECK_TOOLS else ""


def _checker_actions(uri: str, rel: str, asked: list[t.Diagnostic]) -> list[t.CodeAction]:
    """On a ruff, mypy or pyright diagnostic of the project's own code: fix it (and what else that checker
    finds in this file; the other files' findings are left, and none may be added), keeping the tests passing."""
    if is_test_file(rel):
        return []  # test files are not fixloop's to change
    actions: list[t.CodeAction] = []
    for tool in dict.fromkeys(checker_of(d) for d in asked):
        if tool:
            mine = [d for d in asked if checker_of(d) == tool]
            actions.append(_action(f"Fix with fixloop ({tool}, tests kept passing)", t.CodeActionKind.QuickFix,
                                   FIX, {"uri": uri, "scope": "workspace", "checks": [tool], "check_scope": "file"}, mine))
    return actions


def _memory_actions(uri: str, rel: str, text: str, diagnostics: DiagnosticsEngine, review: Reviewer,
                    asked: list[t.Diagnostic]) -> list[t.CodeAction]:
    """Show (always) and Apply (when the fix transfers to these lines as they are) on each memory warning."""
    actions: list[t.CodeAction] = []
    for diagnostic in asked:
        if diagnostic.source != MEMORY or not isinstance(diagnostic.data, dict):
            continue
        memory_id, line = str(diagnostic.data.get("memory_id", "")), diagnostic.data.get("line")
        pattern = diagnostics.pattern(uri, memory_id, line if isinstance(line, int) else None)
        if pattern is None:  # the warning is gone: the document or the memory changed since
            continue
        run_id, patch, summary = past_fix(rel, text, pattern)
        if not review.reviewing(run_id, rel, text):  # a checked proposal of this very text keeps its states
            review.put(run_id, summary, None)
        actions.append(_action("Show the past fix", t.CodeActionKind.QuickFix, SHOW_RUN,
                               {"run_id": run_id}, [diagnostic]))
        if patch is not None:
            actions.append(_action("Apply the past fix", t.CodeActionKind.QuickFix, APPLY_PAST,
                                   {"uri": uri, "memory_id": pattern.memory_id, "line": pattern.line}, [diagnostic]))
    return actions


def _action(title: str, kind: str, command: str, argument: dict[str, Any],
            diagnostics: list[t.Diagnostic] | None = None) -> t.CodeAction:
    return t.CodeAction(title=title, kind=kind, diagnostics=diagnostics,
                        command=t.Command(title=title, command=command, arguments=[argument]))
