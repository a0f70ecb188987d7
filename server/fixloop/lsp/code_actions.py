"""Code actions: fix until the test under the cursor passes, fix until all tests pass, and on a
memory diagnostic show or apply the past fix (through the same review path as a run's fix)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types as t

from ..core.integrity import is_test_file
from ..core.model import FileChange, Patch
from .diagnostics import MEMORY
from .paths import BadInput, is_python, open_document, relative_path
from .providers import MemoryPattern

if TYPE_CHECKING:
    from .server import FixloopServer

SOURCE_FIX = t.CodeActionKind.Source + ".fixloop"


def test_at(text: str, line: int) -> str | None:
    """`Class::test_name` (or `test_name`) of the test function around a 0-based line."""
    from .parsing import _parser, to_bytes

    tree = _parser().parse(to_bytes(text))
    node = tree.root_node.descendant_for_point_range((line, 0), (line, 0))
    names: list[str] = []
    found = False
    while node is not None:
        if node.type in ("function_definition", "class_definition"):
            name_node = node.child_by_field_name("name")
            name = (name_node.text or b"").decode("utf-8", "replace") if name_node else ""
            if node.type == "function_definition":
                names = [name] if name.startswith("test") else []
                found = name.startswith("test")
            elif found:
                if not name.startswith("Test"):
                    return None
                names.insert(0, name)
        node = node.parent
    return "::".join(names) if found else None


def code_actions(server: "FixloopServer", params: t.CodeActionParams) -> list[t.CodeAction]:
    uri = params.text_document.uri
    root = server.root
    if root is None:
        return []
    try:
        rel = relative_path(root, uri)
    except BadInput:
        return []
    doc = open_document(server.workspace, uri)
    if not is_python(rel, doc.language_id if doc else None):
        return []
    actions: list[t.CodeAction] = []
    line = params.range.start.line
    if is_test_file(rel) and doc is not None:
        name = test_at(doc.source, line)
        if name:
            node = f"{rel}::{name}"
            actions.append(_action("Fix until this test passes", t.CodeActionKind.QuickFix, "fixloop.fix",
                                   {"uri": uri, "scope": "test", "test": node}))
    actions.append(_action("Fix until tests pass", SOURCE_FIX, "fixloop.fix", {"uri": uri, "scope": "workspace"}))
    for diagnostic in params.context.diagnostics:
        if diagnostic.source != MEMORY or not isinstance(diagnostic.data, dict):
            continue
        memory_id = str(diagnostic.data.get("memory_id", ""))
        pattern = next((p for p in server.diagnostics.patterns.get(uri, []) if p.memory_id == memory_id), None)
        if pattern is None or doc is None:
            continue
        run_id, applicable = past_fix_proposal(server, rel, doc.source, pattern)
        actions.append(_action("Show the past fix", t.CodeActionKind.QuickFix, "fixloop.showRun",
                               {"run_id": run_id}, [diagnostic]))
        if applicable:
            actions.append(_action("Apply the past fix", t.CodeActionKind.QuickFix, "fixloop.accept",
                                   {"run_id": run_id}, [diagnostic]))
    only = params.context.only
    if only:
        actions = [a for a in actions if a.kind and any(a.kind == k or a.kind.startswith(k + ".") for k in only)]
    return actions


def past_fix_proposal(server: "FixloopServer", rel: str, text: str, pattern: MemoryPattern) -> tuple[str, bool]:
    """Turn a remembered fix into a reviewable proposal for this document (its id is the run id),
    or, when the memory has no replacement for these lines, a summary to show. True: it can be applied."""
    run_id = f"memory-{pattern.memory_id}"
    lines = text.splitlines(keepends=True)
    first, last = pattern.line - 1, pattern.end_line
    if pattern.replacement is None or not (0 <= first < last <= len(lines)):
        server.review.proposals.pop(run_id, None)
        server.review.summaries[run_id] = {"run_id": run_id, "status": "fixed", "message": pattern.message,
                                           "diff": pattern.fix_diff, "files_changed": []}
        return run_id, False
    new = pattern.replacement if pattern.replacement.endswith("\n") or last == len(lines) \
        else pattern.replacement + "\n"
    after = "".join(lines[:first]) + new + "".join(lines[last:])
    patch = Patch((FileChange(rel, text, after),), "memory", "replay", f"past fix {pattern.memory_id}")
    from ..core.patch import unified_diff

    summary: dict[str, Any] = {"run_id": run_id, "status": "fixed", "message": pattern.message,
                               "diff": pattern.fix_diff or unified_diff(patch), "files_changed": [rel],
                               "candidates_evaluated": 0, "test_runs": 0, "tokens": 0, "cost_usd": 0.0,
                               "wall_seconds": 0.0}
    existing = server.review.proposals.get(run_id)
    if existing is None or existing.before.get(rel) != text:
        server.review.add(run_id, patch, summary)
    return run_id, True


def _action(title: str, kind: str, command: str, argument: dict[str, Any],
            diagnostics: list[t.Diagnostic] | None = None) -> t.CodeAction:
    return t.CodeAction(title=title, kind=kind, diagnostics=diagnostics,
                        command=t.Command(title=title, command=command, arguments=[argument]))
