"""The editor's side of trust grants (core/trust.py): each offered fix's kind, the user's decisions counted,
the question asked once a kind has earned it, the grants listed and revoked (`fixloop.trust`)."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Mapping

from lsprotocol import types as t

from fixloop.application.trust_ledger import LedgerFile
from fixloop.core import trust
from fixloop.core.model import Outcome
from fixloop.core.trust import FixKind, TrustSettings
from fixloop.lsp.contract import TRUST
from fixloop.lsp.editor import Editor
from fixloop.lsp.paths import BadInput

log = logging.getLogger(__name__)
GRANT, KEEP_ASKING = "Apply fixes like this without asking", "Keep asking"


def errors_fixed(outcome: Outcome) -> list[str]:
    """The error classes of the failures the fix made pass (a checker's finding counts as `ruff F401`)."""
    if outcome.baseline is None:
        return []
    still = set(outcome.still_failing)
    return [r.exc_type or r.outcome for r in outcome.baseline.failed if r.nodeid not in still]


class TrustKeeper:
    def __init__(self, editor: Editor, ledger: Callable[[], LedgerFile] = LedgerFile) -> None:
        self.editor = editor
        self._ledger = ledger
        self._file: LedgerFile | None = None

    def settings(self) -> TrustSettings:
        return self.editor.config().settings.trust

    def kind(self, outcome: Outcome) -> FixKind | None:
        return trust.kind_of(outcome.patch, errors_fixed(outcome))

    def applies(self, kind: FixKind | None) -> bool:
        """A fix of `kind` goes into the buffer without asking: the user granted it and trust is on."""
        if kind is None or self.settings().after <= 0:
            return False
        return trust.active(self._read(lambda ledger: ledger.get(self._project(), kind.id)), kind, self.settings())

    def decided(self, kind: FixKind | None, run_id: str, accepted: bool, why: str = "") -> None:
        """Count the user's decision on a fix of `kind`; a rejection ends the kind's grant (said once)."""
        if kind is None or (self.settings().after <= 0 and not self._file_now().path.exists()):
            return  # trust never switched on: no ledger is started for it
        project = self._project()

        def step(ledger: trust.Ledger) -> bool:
            before = ledger.get(project, kind.id)
            ledger.put(project, kind.id, trust.decided(before, run_id, accepted, why))
            return bool(before.granted) and not accepted

        if self._change(step, False):
            self.editor.show(t.MessageType.Info, f"fixloop: fixes like this ({kind.words()}) are offered for review "
                             f"again: {why or 'you rejected one'}")

    async def ask(self, kind: FixKind | None) -> bool:
        """After an accepted fix: when `kind` has earned it, ask whether fixes like it may be applied without
        asking. Only the user's yes makes a grant; "keep asking" waits for as many accepted again."""
        if kind is None or self.editor.choose is None:
            return False
        project = self._project()
        settings = self.settings()
        entry = self._read(lambda ledger: ledger.get(project, kind.id))
        if entry is None or not trust.may_ask(entry, kind, settings):
            return False
        answer = await self.editor.choose(
            f"fixloop: you accepted the last {len(entry.streak)} fixes like this ({kind.words()}) and rejected none. "
            "Apply fixes like this to the open file without asking? They are never saved for you; undo, or a "
            f"rejection, ends it ({TRUST} lists and revokes).", [GRANT, KEEP_ASKING])
        yes = answer == GRANT
        self._change(lambda ledger: ledger.put(project, kind.id, trust.granted(ledger.get(project, kind.id), time.time())
                                               if yes else trust.declined(ledger.get(project, kind.id))), None)
        return yes

    def command(self, arg: Mapping[str, Any]) -> dict[str, Any]:
        """`fixloop.trust`: list this project's grants, or revoke one (`"revoke": kind id`) or all (`"all"`)."""
        project = self._project()
        target = arg.get("revoke")
        if target is not None:
            if not isinstance(target, str) or not target:
                raise BadInput(f"{TRUST}: 'revoke' must be a grant's kind id as listed, or \"all\"")

            def step(ledger: trust.Ledger) -> list[str]:
                ended = [k for _, k, _ in ledger.grants(project) if target in (k, "all")]
                for k in ended:
                    ledger.put(project, k, trust.revoked(ledger.get(project, k), "you revoked it"))
                return ended

            ended = self._change(step, [])
            if not ended and target != "all":
                raise BadInput(f"{TRUST}: no grant {target!r} in this project")
            return {"revoked": ended, "grants": self.listed()}
        return {"grants": self.listed(), "after": self.settings().after, "model": self.settings().model}

    def listed(self) -> list[dict[str, Any]]:
        grants = self._read(lambda ledger: ledger.grants(self._project())) or []
        return [{"id": k, "since": e.granted, "accepted": len(e.streak)} for _, k, e in grants]

    def _project(self) -> str:
        root = self.editor.root()
        if root is None:
            raise BadInput("no workspace folder is open")
        return str(root)

    def _file_now(self) -> LedgerFile:
        if self._file is None:
            self._file = self._ledger()
        return self._file

    def _read(self, look: Callable[[trust.Ledger], Any]) -> Any:
        return self._change(look, None, write=False)

    def _change(self, step: Callable[[trust.Ledger], Any], failed: Any, write: bool = True) -> Any:
        """The ledger read (and changed) under its lock; a ledger that cannot be used grants nothing."""
        ledger = self._file_now()
        try:
            out = ledger.change(step) if write else step(ledger.read())
        except OSError as e:
            log.warning("the trust ledger %s could not be used: %s", ledger.path, e)
            self.editor.show(t.MessageType.Warning, f"fixloop: the trust ledger could not be used ({e}); "
                             "every fix is offered for review")
            return failed
        if ledger.problem:
            self.editor.show(t.MessageType.Warning, f"fixloop: {ledger.problem}")
            ledger.problem = ""
        return out
