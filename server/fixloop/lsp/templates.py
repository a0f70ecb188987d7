"""`fixloop.templates`: the mined templates of the user's memory, for the editor to list, approve and reject.

The store (LanceDB) loads on the first call, in a worker thread, never on the event loop or at start-up.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Mapping

from fixloop.application.config import MemorySettings
from fixloop.lsp.contract import TEMPLATES
from fixloop.lsp.paths import BadInput

ACTIONS = ("list", "show", "approve", "reject")
VERDICTS = {"approve": "approved", "reject": "rejected"}


class TemplateCommands:
    def __init__(self, settings: Callable[[], MemorySettings]) -> None:
        self._settings = settings
        self._desk: Any = None
        self._uri: str | None = None

    def _open(self) -> Any:
        from fixloop.application import wiring

        settings = self._settings()
        if not settings.enabled:
            raise BadInput(f"{TEMPLATES}: the learning memory is off (memory.enabled = false)")
        if self._desk is None or self._uri != settings.uri:
            self._desk, self._uri = wiring.make_template_desk(settings), settings.uri
        return self._desk

    def _work(self, action: str, template_id: str) -> dict[str, Any]:
        desk = self._open()
        if action == "list":
            templates = desk.list()
            return {"templates": templates, "proposed": sum(t["status"] == "proposed" for t in templates)}
        if action == "show":
            shown = desk.show(template_id)
            if shown is None:
                raise BadInput(f"{TEMPLATES}: no mined template {template_id!r} (or the prefix names several)")
            return {"template": shown}
        try:
            return {"template": desk.decide(template_id, VERDICTS[action])}
        except ValueError as e:
            raise BadInput(f"{TEMPLATES}: {e}") from None

    async def templates(self, arg: Mapping[str, Any]) -> dict[str, Any]:
        action = arg.get("action", "list")
        if action not in ACTIONS:
            raise BadInput(f"{TEMPLATES}: 'action' must be one of {', '.join(ACTIONS)}, got {action!r:.60}")
        template_id = arg.get("id")
        if action != "list" and (not isinstance(template_id, str) or not template_id.strip()):
            raise BadInput(f"{TEMPLATES}: '{action}' needs 'id', a mined template's id (or a unique prefix of it)")
        try:
            return await asyncio.to_thread(self._work, action, (template_id or "").strip())
        except BadInput:
            raise
        except Exception as e:  # a store that cannot be opened or read: say so, the server goes on
            raise BadInput(f"{TEMPLATES}: the memory cannot be read ({type(e).__name__}: {e})") from None
