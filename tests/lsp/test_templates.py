"""`fixloop.templates` over a real server on stdio, on a real LanceDB store taught two fixes of one kind:
the editor lists the proposed mined template, shows it, approves and rejects it; bad arguments are refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcException
from tests.lsp.lsp_harness import lsp
from tests.mined.helpers import teach_strict_limit

from fixloop.adapters.memory.embed import HashingEmbedder
from fixloop.adapters.memory.store import MemoryStore

pytestmark = pytest.mark.e2e


async def test_list_show_approve_reject_a_mined_template(profile: str, tmp_path: Path) -> None:
    uri = tmp_path / "team-memory"
    teach_strict_limit(MemoryStore(str(uri), HashingEmbedder()).open())
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "pkg" / "__init__.py").write_text("")
    options = {"settings": {"diagnostics": {"debounce_ms": 0}, "memory": {"uri": str(uri)}}}  # the editor setting
    async with lsp(profile, ws, tmp_path, options) as s:
        listed = await s.command("fixloop.templates", {"action": "list"})
        assert listed["proposed"] == 1
        [template] = listed["templates"]
        assert template["status"] == "proposed" and template["support"] == 2
        assert (template["before_shape"], template["after_shape"]) == ("ID1 <|> CONST1", "ID1 <=|>= CONST1")
        assert {e["before"] for e in template["examples"]} == {"if qty > BULK:", "if age > SENIOR_AGE:"}
        assert await s.command("fixloop.templates", {}) == listed  # `list` is the default action

        shown = await s.command("fixloop.templates", {"action": "show", "id": template["id"][:6]})
        assert shown["template"]["name"] == template["name"]
        approved = await s.command("fixloop.templates", {"action": "approve", "id": template["id"]})
        assert approved["template"]["status"] == "approved"
        assert approved["template"]["place"] == "before the generic operators"
        rejected = await s.command("fixloop.templates", {"action": "reject", "id": template["id"]})
        assert rejected["template"]["status"] == "rejected" and rejected["template"]["place"] == "never"
        assert (await s.command("fixloop.templates", {"action": "list"}))["proposed"] == 0

        for bad, message in (({"action": "delete"}, "'action' must be one of"),
                             ({"action": "approve"}, "needs 'id'"),
                             ({"action": "approve", "id": "ffffff"}, "names 0 mined templates"),
                             ({"action": "show", "id": "ffffff"}, "no mined template")):
            with pytest.raises(JsonRpcException, match=message):
                await s.command("fixloop.templates", bad)
    # The decisions are in the user's store, where the CLI and every other project see them.
    rows = MemoryStore(str(uri), HashingEmbedder()).open().rows("mined_templates", "", ["verdict", "source"])
    assert sorted((r["verdict"], r["source"]) for r in rows) == [("approved", "editor"), ("rejected", "editor")]
