"""An editor's run is one run: the run id the editor is given names its log, its seed follows that id, and the
logged seed sent back with `fixloop.fix` replays the same candidates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pygls.exceptions import JsonRpcException

from fixloop.application.session import seed_of
from tests.lsp.lsp_harness import PRICING, lsp, project


def events(workspace: Path, run_id: str) -> list[dict[str, Any]]:
    path = workspace / ".fixloop" / "runs" / run_id / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def tried(log: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["operator"], e["summary"]) for e in log if e["kind"] == "candidate"]


def through_first_fix(log: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The candidates up to the first plausible one. After it the run looks ahead for a smaller fix for about one
    baseline's time, so how many more it tries depends on the machine's speed, not on the seed."""
    first = min(e["candidate"] for e in log if e["kind"] == "tested" and e["status"] == "plausible")
    return [(e["operator"], e["summary"]) for e in log if e["kind"] == "candidate" and e["candidate"] <= first]


@pytest.mark.e2e  # two whole offline fix runs of examples/inventory
async def test_the_logged_seed_replays_the_editors_run(profile: str, tmp_path: Path) -> None:
    ws = project(tmp_path)
    # No memory: a fix remembered by the first run would rightly change what the second tries first.
    settings = {"sandbox": {"backend": "auto"}, "offline": True, "memory": {"enabled": False},
                "diagnostics": {"debounce_ms": 0}}
    async with lsp(profile, ws, tmp_path, options={"settings": settings}) as s:
        s.editor.take = "none"
        first = (await s.command("fixloop.fix", {"uri": s.uri(PRICING), "scope": "workspace"}))["run_id"]
        summary = await s.run_finished(first, timeout=120)
        assert summary["run_id"] == first
        log = events(ws, first)
        started = log[0]
        assert started["kind"] == "started" and started["run_id"] == first
        assert started["seed"] == seed_of(first)  # the seed follows the id the editor was given
        assert tried(log)

        for bad in ("7", -1, True, 2**32):
            with pytest.raises(JsonRpcException, match="'seed' must be an integer"):
                await s.command("fixloop.fix", {"scope": "workspace", "seed": bad})

        again = (await s.command("fixloop.fix", {"scope": "workspace", "seed": started["seed"]}))["run_id"]
        await s.run_finished(again, timeout=120)
        replay = events(ws, again)
        assert again != first and replay[0]["seed"] == started["seed"]
        assert through_first_fix(replay) == through_first_fix(log)
        shorter, longer = sorted((tried(replay), tried(log)), key=len)
        assert longer[:len(shorter)] == shorter  # the look-ahead's candidates come in the same order too
