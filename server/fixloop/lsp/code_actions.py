"""Code actions: fix until the test under the cursor passes, fix until all tests pass, and on a
memory diagnostic show or apply the past fix (through the same review path as a run's fix)."""

from __future__ import annotations

from typing import Any

from lsprotocol import types as t

from ..core.integrity import is_test_file
from ..core.model import FileChange, Patch
from ..core.patch import unified_diff
from .contract import ACCEPT, FIX, MEMORY, SHOW_RUN, SOURCE_FIX, WRITE_TESTS, WRITE_TESTS_KIND
from .diagnostics import DiagnosticsEngine
from .editor import Editor
from .parsing import test_at
from .paths import BadInput, is_python, relative_path
from .providers import MemoryPattern
from .review_edits import Reviewer


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
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != MEMORY or not isinstance(diagnostic.data, dict):
            continue
        pattern = diagnostics.pattern(uri, str(diagnostic.data.get("memory_id", "")))
        if pattern is None or doc is None:
            continue
        run_id, patch, summary = past_fix(rel, doc.source, pattern)
        review.put(run_id, summary, patch)
        actions.append(_action("Show the past fix", t.CodeActionKind.QuickFix, SHOW_RUN,
                               {"run_id": run_id}, [diagnostic]))
        if patch is not None:
            actions.append(_action("Apply the past fix", t.CodeActionKind.QuickFix, ACCEPT,
                                   {"run_id": run_id}, [diagnostic]))
    only = params.context.only
    if only:
        actions = [a for a in actions if a.kind and any(a.kind == k or a.kind.startswith(k + ".") for k in only)]
    return actions


def _on_definition(text: str, line: int) -> bool:
    """The cursor is in a top-level function or a method (cheap text check first: tree-sitter only then)."""
    if "def " not in text:
        return False
    from ..testgen.target import function_at  # tree-sitter loads with the first such request

    return function_at(text, line) is not None


def past_fix(rel: str, text: str, pattern: MemoryPattern) -> tuple[str, Patch | None, dict[str, Any]]:
    """A remembered fix for this document as a proposal (its id is the run id) and its summary; no patch
    when the memory has no replacement for these lines (then there is only a summary to show)."""
    run_id = f"memory-{pattern.memory_id}"
    lines = text.splitlines(keepends=True)
    first, last = pattern.line - 1, pattern.end_line
    if pattern.replacement is None or not (0 <= first < last <= len(lines)):
        return run_id, None, {"run_id": run_id, "status": "fixed", "message": pattern.message,
                              "diff": pattern.fix_diff, "files_changed": []}
    new = pattern.replacement if pattern.replacement.endswith("\n") or last == len(lines) \
        else pattern.replacement + "\n"
    after = "".join(lines[:first]) + new + "".join(lines[last:])
    patch = Patch((FileChange(rel, text, after),), "memory", "replay", f"past fix {pattern.memory_id}")
    summary: dict[str, Any] = {"run_id": run_id, "status": "fixed", "message": pattern.message,
                               "diff": pattern.fix_diff or unified_diff(patch), "files_changed": [rel],
                               "candidates_evaluated": 0, "test_runs": 0, "tokens": 0, "cost_usd": 0.0,
                               "wall_seconds": 0.0}
    return run_id, patch, summary


def _action(title: str, kind: str, command: str, argument: dict[str, Any],
            diagnostics: list[t.Diagnostic] | None = None) -> t.CodeAction:
    return t.CodeAction(title=title, kind=kind, diagnostics=diagnostics,
                        command=t.Command(title=title, command=command, arguments=[argument]))
