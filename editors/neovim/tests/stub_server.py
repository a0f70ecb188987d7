"""A small stand-in for the fixloop language server, speaking docs/protocol.md.

Used by the plugin tests for what the real server cannot be made to do on purpose: announce another
protocol version, or crash. Its "fix" is fixed: the two lines of REWRITES in inventory/pricing.py
(two hunks), like the real engine's fix of the two_hunks fixture.

    python stub_server.py [--protocol N] [--crash-on-fix] [--exit-at-start]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from pathlib import Path
from typing import Any, Generator

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import from_fs_path, to_fs_path

ARGS = argparse.ArgumentParser()
ARGS.add_argument("--protocol", type=int, default=1, help="0: announce no protocol")
ARGS.add_argument("--crash-on-fix", action="store_true")
ARGS.add_argument("--exit-at-start", action="store_true")
ARGS.add_argument("--stdio", action="store_true")
opts = ARGS.parse_args()
if opts.exit_at_start:
    sys.stderr.write("ModuleNotFoundError: No module named 'fixloop' (stub)\n")
    sys.exit(2)


class HandshakeProtocol(LanguageServerProtocol):
    @lsp_method(t.INITIALIZE)
    def lsp_initialize(self, params: t.InitializeParams) -> Generator[Any, Any, t.InitializeResult]:
        if params.root_uri:
            root.append(Path(to_fs_path(params.root_uri) or "."))
        result = yield from super().lsp_initialize(params)
        if opts.protocol:
            result.capabilities.experimental = {"fixloop": {"protocol": opts.protocol}}
        return result


root: list[Path] = []
server = LanguageServer("fixloop", "0.0.0-stub", protocol_cls=HandshakeProtocol)
runs: dict[str, dict[str, Any]] = {}
order: list[str] = []

REWRITES = {
    "    if (subtotal >= FREE_SHIPPING_FROM\n": "    if not ((subtotal >= FREE_SHIPPING_FROM\n",
    "            or member):\n": "            or member)):\n",
}


def _hunks(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text().splitlines(keepends=True)
    out = []
    for i, line in enumerate(lines):
        if line in REWRITES:
            out.append({"id": f"inventory/pricing.py#{len(out)}", "path": "inventory/pricing.py",
                        "uri": from_fs_path(str(path)), "start_line": i, "end_line": i + 1,
                        "old": line, "new": REWRITES[line], "state": "pending"})
    return out


@server.command("fixloop.fix")
async def fix(ls: LanguageServer, *args: Any) -> dict[str, Any]:
    if opts.crash_on_fix:
        sys.stderr.write("stub: crashing on purpose\n")
        sys.stderr.flush()
        import os
        os._exit(3)
    run_id = uuid.uuid4().hex[:8]
    arg = args[0] if args else {}
    position = arg.get("position") or {}
    # What the client asked for, so tests can check the command's arguments.
    asked = f"scope={arg.get('scope')} uri={arg.get('uri')} line={position.get('line')} character={position.get('character')}"
    summary = {"run_id": run_id, "status": "fixed", "message": f"fixed by stub/negate_condition ({asked})",
               "diff": "", "files_changed": ["inventory/pricing.py"], "candidates_evaluated": 1, "test_runs": 3,
               "tokens": 0, "cost_usd": 0.0, "wall_seconds": 0.1,
               "hunks": _hunks(root[0] / "inventory" / "pricing.py")}
    runs[run_id] = summary
    order.append(run_id)

    async def go() -> None:
        token = str(uuid.uuid4())
        await ls.work_done_progress.create_async(token)
        ls.work_done_progress.begin(token, t.WorkDoneProgressBegin(title="fixloop", cancellable=True,
                                                                   message="baseline"))
        await asyncio.sleep(0.2)
        ls.work_done_progress.report(token, t.WorkDoneProgressReport(message="run: candidate 1, tests 5 passed / 0 failed, 0 tokens"))
        await asyncio.sleep(0.2)
        ls.work_done_progress.end(token, t.WorkDoneProgressEnd(message="fixed"))
        ls.protocol.notify("fixloop/runFinished", summary)

    asyncio.ensure_future(go())
    return {"run_id": run_id, "queued": False}


@server.command("fixloop.showRun")
def show_run(ls: LanguageServer, *args: Any) -> dict[str, Any] | None:
    arg = args[0] if args else {}
    run_id = (arg or {}).get("run_id") or (order[-1] if order else None)
    return runs.get(run_id) if run_id else None


def _chosen(arg: dict[str, Any]) -> list[dict[str, Any]]:
    summary = runs[arg.get("run_id") or order[-1]]
    ids = arg.get("hunks")
    return [h for h in summary["hunks"] if h["state"] == "pending" and (ids is None or h["id"] in ids)]


@server.command("fixloop.accept")
async def accept(ls: LanguageServer, *args: Any) -> dict[str, Any]:
    chosen = _chosen(args[0] if args else {})
    edits: dict[str, list[t.TextEdit]] = {}
    for h in chosen:
        rng = t.Range(t.Position(h["start_line"], 0), t.Position(h["end_line"], 0))
        edits.setdefault(h["uri"], []).append(t.TextEdit(rng, h["new"]))
    result = await ls.workspace_apply_edit_async(
        t.ApplyWorkspaceEditParams(t.WorkspaceEdit(changes=edits), label="fixloop"))
    for h in chosen:
        h["state"] = "accepted" if result.applied else "conflict"
    return {"applied": [h["id"] for h in chosen if result.applied], "conflicts": []}


@server.command("fixloop.reject")
def reject(ls: LanguageServer, *args: Any) -> dict[str, Any]:
    chosen = _chosen(args[0] if args else {})
    for h in chosen:
        h["state"] = "rejected"
    return {"rejected": [h["id"] for h in chosen]}


@server.command("fixloop.cancel")
def cancel(ls: LanguageServer, *args: Any) -> dict[str, Any]:
    return {"cancelled": False}


if __name__ == "__main__":
    server.start_io()
