"""`workspace/executeCommand`: each command takes one JSON object; anything else is a clear error."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Callable, Mapping

from pygls.exceptions import JsonRpcInvalidParams

from fixloop.core.integrity import is_test_file
from fixloop.core.model import Scope
from fixloop.application.config import CHECK_TOOLS
from fixloop.application.goal.request import Goal
from fixloop.lsp.contract import (ACCEPT, APPLY_PAST, CANCEL, FIX, FORGET, HISTORY, REJECT, REPORT, SETTINGS, SHOW_RUN, STATS,
                       TEMPLATES, TRUST, UNDO)
from fixloop.lsp.diagnostics import DiagnosticsEngine
from fixloop.lsp.editor import Editor
from fixloop.lsp.history import HistoryCommands
from fixloop.lsp.parsing import test_at
from fixloop.lsp.past_fixes import checker, past_fix
from fixloop.lsp.paths import BadInput, is_python, read_disk_text, relative_path
from fixloop.lsp.review_edits import Reviewer
from fixloop.lsp.runs import RunManager
from fixloop.lsp.settings import effective
from fixloop.lsp.templates import TemplateCommands

Handler = Callable[[Mapping[str, Any]], Any]  # the command's argument -> its result (or an awaitable of it)
SCOPES = ("workspace", "file", "test", "position")


def argument(command: str, args: tuple[Any, ...]) -> Mapping[str, Any]:
    if not args or args == (None,):
        return {}
    if len(args) != 1 or not isinstance(args[0], Mapping):
        raise BadInput(f"{command} takes one JSON object argument (see docs/protocol.md), got {list(args)!r:.200}")
    return args[0]


def text_field(arg: Mapping[str, Any], name: str, command: str, required: bool = False) -> str | None:
    value = arg.get(name)
    if value is None:
        if required:
            raise BadInput(f"{command}: '{name}' is required")
        return None
    if not isinstance(value, str) or not value:
        raise BadInput(f"{command}: '{name}' must be a non-empty string, got {value!r:.100}")
    return value


def hunk_ids(arg: Mapping[str, Any], command: str) -> list[str] | None:
    value = arg.get("hunks")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadInput(f"{command}: 'hunks' must be a list of hunk ids such as \"pkg/mod.py#0\"")
    return value


def fix_seed(arg: Mapping[str, Any]) -> int | None:
    """The seed of a logged run, to replay its random choices (`seed` in its run log's `started` event)."""
    seed = arg.get("seed")
    if seed is None:
        return None
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**32:
        raise BadInput(f"{FIX}: 'seed' must be an integer from 0 to 2**32 - 1 (a run log's seed), got {seed!r:.40}")
    return seed


def fix_checks(arg: Mapping[str, Any]) -> tuple[str, ...]:
    """The checkers whose findings the run fixes too (`"checks": ["ruff"]`), on top of the settings' own."""
    checks = arg.get("checks", [])
    if not isinstance(checks, list) or not all(isinstance(c, str) and c in CHECK_TOOLS for c in checks):
        raise BadInput(f"{FIX}: 'checks' must be a list of checkers among {', '.join(CHECK_TOOLS)}, got {checks!r:.80}")
    return tuple(dict.fromkeys(checks))


def check_files(editor: Editor, arg: Mapping[str, Any]) -> tuple[str, ...]:
    """`"check_scope": "file"`: only the findings in `uri`'s file are targets (the diagnostic's file, the file
    the user is in); "workspace" (the default): every file's."""
    scope = arg.get("check_scope", "workspace")
    if scope not in ("workspace", "file"):
        raise BadInput(f"{FIX}: 'check_scope' must be \"workspace\" or \"file\", got {scope!r:.40}")
    if scope == "workspace":
        return ()
    root = editor.root()
    uri = text_field(arg, "uri", FIX, required=True)
    if root is None or uri is None:
        raise BadInput("no workspace folder is open: open the project's folder to fix it")
    return (relative_path(root, uri),)


def fix_scope(editor: Editor, arg: Mapping[str, Any]) -> Scope:
    """The contract's scopes -> the loop's: workspace, the tests of a file, one node id, the test at a position."""
    root = editor.root()
    if root is None:
        raise BadInput("no workspace folder is open: open the project's folder to fix it")
    scope = text_field(arg, "scope", FIX) or ("file" if arg.get("uri") else "workspace")
    if scope not in SCOPES:
        raise BadInput(f"{FIX}: 'scope' must be one of {', '.join(SCOPES)}, got {scope!r:.60}")
    uri = text_field(arg, "uri", FIX, required=scope in ("file", "position"))
    if scope == "workspace":  # the document the user was in does not matter then
        return Scope()
    rel = relative_path(root, uri) if uri else None
    if rel is not None:
        doc = editor.document(uri)
        if not is_python(rel, doc.language_id if doc else None):
            raise BadInput(f"{rel} is not a Python file; fixloop fixes Python projects")
    if scope == "test":
        node = text_field(arg, "test", FIX, required=True)
        assert node is not None
        file_part = node.split("::", 1)[0]
        if file_part.startswith(("/", "\\")) or ".." in file_part.replace("\\", "/").split("/"):
            raise BadInput(f"{FIX}: 'test' must be a pytest node id relative to the workspace, got {node!r:.100}")
        return Scope("node", node)
    assert rel is not None
    if scope == "file":
        return Scope("file", rel) if is_test_file(rel) else Scope()
    position = arg.get("position")
    if not isinstance(position, Mapping) or not isinstance(position.get("line"), int) or position["line"] < 0:
        raise BadInput(f"{FIX}: scope 'position' needs \"position\": {{\"line\": n, \"character\": n}}")
    doc = editor.document(uri)
    limit = editor.max_file_bytes()
    text = doc.source if doc is not None else read_disk_text(root, rel, limit)
    if len(text) > limit:
        raise BadInput(f"{rel} is over the {limit}-character limit; skipped")
    if is_test_file(rel):
        name = test_at(text, position["line"])
        if name:
            return Scope("node", f"{rel}::{name}")
        return Scope("file", rel)
    return Scope()


def apply_past_fix(editor: Editor, diagnostics: DiagnosticsEngine, runs: RunManager,
                   arg: Mapping[str, Any]) -> dict[str, Any]:
    """Check the past fix of the memory warning named by `arg` in the sandbox, then offer it for review."""
    uri = text_field(arg, "uri", APPLY_PAST, required=True)
    memory_id = text_field(arg, "memory_id", APPLY_PAST, required=True)
    line = arg.get("line")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        raise BadInput(f"{APPLY_PAST}: 'line' must be the warning's 1-based line, as its code action gives it")
    root = editor.root()
    if root is None:
        raise BadInput("no workspace folder is open: open the project's folder to apply a past fix")
    assert uri is not None and memory_id is not None
    rel = relative_path(root, uri)
    doc = editor.document(uri)
    pattern = diagnostics.pattern(uri, memory_id, line) if doc is not None else None
    if doc is None or pattern is None:
        raise BadInput(f"{rel}:{line} has no memory warning {memory_id!r} any more (the document or the memory "
                       "changed): nothing was applied")
    run_id, patch, summary = past_fix(rel, doc.source, pattern)
    if patch is None:
        raise BadInput(f"{rel}:{line}: {summary['note']}; nothing was applied")
    return runs.submit(Scope(), factory=checker(patch, pattern.memory_id), run_id=run_id)


MAX_GOAL = 2000


def fix_goal(editor: Editor, arg: Mapping[str, Any]) -> Goal | None:
    """Goal mode's argument (`goal`, `yes`, and the cursor from `uri` + `position`), or None without a goal."""
    if "goal" not in arg:
        return None
    text = arg.get("goal")
    if not isinstance(text, str) or not text.strip():
        raise BadInput(f"{FIX}: 'goal' must say what is wrong in words, e.g. \"discount(10) should be 9.0\"")
    if len(text) > MAX_GOAL:
        raise BadInput(f"{FIX}: 'goal' is {len(text)} characters long; keep it under {MAX_GOAL}")
    yes = arg.get("yes", False)
    if not isinstance(yes, bool):
        raise BadInput(f"{FIX}: 'yes' must be true or false, got {yes!r:.60}")
    root = editor.root()
    if root is None:
        raise BadInput("no workspace folder is open: open the project's folder to fix it")
    uri = text_field(arg, "uri", FIX)
    rel = relative_path(root, uri) if uri else ""
    position = arg.get("position")
    line = position.get("line") if isinstance(position, Mapping) else None
    cursor_line = line + 1 if isinstance(line, int) and line >= 0 and rel else 0
    return Goal(text.strip(), yes, rel or "", cursor_line)


async def settings_in_effect(editor: Editor) -> dict[str, Any]:
    """`fixloop.settings`: what the runs use, whatever the workspace asked for; the sandbox as probed here."""
    from fixloop.application import wiring

    config = editor.config()
    backend, problem = await asyncio.get_running_loop().run_in_executor(
        None, wiring.sandbox_in_use, config.settings.sandbox)
    return {**effective(config), "sandbox": {"backend": backend, "problem": problem}}


def handlers(editor: Editor, runs: RunManager, review: Reviewer, diagnostics: DiagnosticsEngine
             ) -> dict[str, Handler]:
    """Every command of the contract, by id."""

    def forget(arg: Mapping[str, Any]) -> dict[str, Any]:
        memory_id = text_field(arg, "id", FORGET, required=True)
        assert memory_id is not None
        return {"forgotten": diagnostics.forget(memory_id)}

    past = HistoryCommands(editor, review)
    mined = TemplateCommands(lambda: editor.config().settings.memory)
    return {
        FIX: lambda arg: runs.submit(fix_scope(editor, {k: v for k, v in arg.items() if k != "scope"})
                                     if "goal" in arg else fix_scope(editor, arg), fix_goal(editor, arg),
                                     seed=fix_seed(arg), checks=fix_checks(arg), check_files=check_files(editor, arg)),
        CANCEL: lambda arg: {"cancelled": runs.cancel(text_field(arg, "run_id", CANCEL))},
        SHOW_RUN: lambda arg: past.show_run(text_field(arg, "run_id", SHOW_RUN)),
        ACCEPT: lambda arg: review.accept(text_field(arg, "run_id", ACCEPT), hunk_ids(arg, ACCEPT)),
        REJECT: lambda arg: review.reject(text_field(arg, "run_id", REJECT), hunk_ids(arg, REJECT)),
        FORGET: forget,
        HISTORY: past.history,
        STATS: past.stats,
        REPORT: past.report,
        APPLY_PAST: lambda arg: apply_past_fix(editor, diagnostics, runs, arg),
        TEMPLATES: mined.templates,
        SETTINGS: lambda arg: settings_in_effect(editor),
        TRUST: review.trust.command,
        UNDO: lambda arg: review.auto.undo(text_field(arg, "run_id", UNDO)),
    }


def guarded(command: str, handler: Handler) -> Callable[..., Any]:
    """A pygls command function: one JSON object in, bad input answered with -32602 and its message."""

    async def run(ls: Any, *args: Any) -> Any:  # plain annotations: pygls resolves them
        try:
            result = handler(argument(command, args))
            return (await result) if inspect.isawaitable(result) else result
        except BadInput as e:
            raise JsonRpcInvalidParams(message=str(e)) from None

    run.__name__ = command.replace(".", "_")
    return run
