"""Fixes applied without asking, under a trust grant: into the editor's buffers (never saved), with a notice
that offers Undo; the editor's own undo counts too (the document back to the text it had before), and
either ends the grant. `fixloop.undo` takes such a fix back by command."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Protocol, Sequence

from lsprotocol import types as t

from fixloop.core.model import FileChange, Patch
from fixloop.core.patch import apply_hunks
from fixloop.lsp.contract import AUTO_APPLIED, UNDO
from fixloop.lsp.editor import Editor
from fixloop.lsp.paths import BadInput, read_disk_text
from fixloop.lsp.review import ACCEPTED, PENDING, REJECTED, HunkState, Proposal, place, proposal_from

log = logging.getLogger(__name__)
UNDO_ACTION, KEEP = "Undo", "Keep"
UNDONE = "you undid a fix applied without asking"


class Applied(Protocol):
    taken: list[HunkState]
    unknown: list[HunkState]
    untaken: list[HunkState]
    conflicts: list[HunkState]
    refused: bool
    failure: str


class Reviewing(Protocol):
    """What applying without asking needs of the reviewer (lsp/review_edits.py)."""

    editor: Editor
    notify: Callable[[str, Any], None]

    def apply_hunks(self, proposal: Proposal, states: list[HunkState], confirm: bool, label: str
                    ) -> Awaitable[Applied]: ...

    def decide(self, proposal: Proposal, h: HunkState, state: str, counted: bool = True, why: str = "") -> None: ...

    def keep(self, task: Any) -> None: ...


@dataclass
class Watched:
    proposal: Proposal
    before: dict[str, str]  # uri -> the document's text before the fix went in


class AutoApplier:
    def __init__(self, review: Reviewing) -> None:
        self.review = review
        self._watched: dict[str, Watched] = {}  # run id -> the fix applied without asking

    async def apply(self, proposal: Proposal) -> bool:
        """Apply every hunk of `proposal` without a confirmation; False (nothing applied) when any hunk could
        not go in as it is: then the fix is offered for review as usual."""
        review = self.review
        states, _ = proposal.get(None, (PENDING,))
        before = self._texts(proposal)
        if before is None or any(place(proposal.before[h.hunk.path], before[h.uri], [h.hunk])[1] for h in states):
            return False  # a file changed where the fix goes: never half a fix without asking
        kind = proposal.kind
        assert kind is not None
        result = await review.apply_hunks(proposal, states, confirm=False,
                                          label=f"fixloop: applied without asking ({kind.words()})")
        applied = result.taken + result.unknown
        if result.failure or result.refused or not applied:
            for h in states:
                if h.state != PENDING:
                    h.state, h.message = PENDING, ""
            return False
        for h in applied:
            review.decide(proposal, h, ACCEPTED, counted=False)
        self._watched[proposal.run_id] = Watched(proposal, before)
        files = sorted({h.hunk.path for h in applied})
        review.notify(AUTO_APPLIED, {"run_id": proposal.run_id, "kind": kind.id, "files": files,
                                     "hunks": [h.id for h in applied], "undo": {"command": UNDO,
                                                                                "arguments": [{"run_id": proposal.run_id}]}})
        task = asyncio.ensure_future(self._notice(proposal, files))
        review.keep(task)
        return True

    async def _notice(self, proposal: Proposal, files: list[str]) -> None:
        choose = self.review.editor.choose
        assert proposal.kind is not None
        message = (f"fixloop applied a fix to {', '.join(files)} without asking ({proposal.kind.words()}); "
                   "not saved. Undo ends this grant.")
        if choose is None:
            self.review.editor.show(t.MessageType.Info, message)
            return
        try:
            answer = await choose(message, [UNDO_ACTION, KEEP])
        except Exception:  # a client without message requests still has its own undo and fixloop.undo
            log.exception("asking about the applied fix failed")
            return
        if answer == UNDO_ACTION and proposal.run_id in self._watched:
            try:
                await self.undo(proposal.run_id)
            except BadInput as e:  # the lines changed since: the editor's own undo is left
                self.review.editor.show(t.MessageType.Warning, f"fixloop: {e}")

    async def undo(self, run_id: str | None) -> dict[str, Any]:
        """Put back what a fix applied without asking replaced; its hunks become rejected, its grant ends."""
        run_id = run_id or next(reversed(self._watched), None)
        watched = self._watched.get(run_id or "")
        if watched is None:
            raise BadInput(f"{UNDO}: no fix applied without asking to undo" + (f" for run {run_id!r}" if run_id else ""))
        proposal = watched.proposal
        taken = [h for h in proposal.hunks if h.state == ACCEPTED]
        inverse = proposal_from(f"{proposal.run_id}-undo", _inverse(proposal, taken),
                                lambda rel: next(h.uri for h in taken if h.hunk.path == rel))
        result = await self.review.apply_hunks(inverse, inverse.hunks, confirm=False,
                                               label=f"fixloop: undo {proposal.run_id}")
        if result.failure or result.refused or result.conflicts or result.untaken:
            problem = result.failure or "; ".join(h.message for h in result.conflicts) or \
                "the editor did not take the change back"
            raise BadInput(f"{UNDO}: {problem}; undo it in the editor instead")
        self._undone(proposal)
        return {"undone": [h.id for h in taken]}

    def changed(self, uri: str) -> None:
        """A document changed: the editor's own undo brought it back to the text before an applied fix."""
        for run_id, watched in list(self._watched.items()):
            before = watched.before.get(uri)
            doc = self.review.editor.document(uri) if before is not None else None
            if doc is not None and doc.source == before:
                self._undone(watched.proposal)

    def closed(self, uri: str) -> None:
        for run_id, watched in list(self._watched.items()):
            if uri in watched.before:
                del self._watched[run_id]  # closed unsaved or saved: the fix is the user's text now

    def _undone(self, proposal: Proposal) -> None:
        self._watched.pop(proposal.run_id, None)
        for h in proposal.hunks:
            if h.state == ACCEPTED:
                self.review.decide(proposal, h, REJECTED, why=UNDONE)

    def _texts(self, proposal: Proposal) -> dict[str, str] | None:
        """The text of each file the fix changes, as the editor has it now (None when one cannot be read)."""
        root = self.review.editor.root()
        if root is None:
            return None
        out: dict[str, str] = {}
        for h in proposal.hunks:
            if h.uri in out:
                continue
            doc = self.review.editor.document(h.uri)
            try:
                out[h.uri] = doc.source if doc is not None else read_disk_text(root, h.hunk.path,
                                                                              self.review.editor.max_file_bytes())
            except BadInput:
                return None
        return out


def _inverse(proposal: Proposal, taken: Sequence[HunkState]) -> Patch:
    """The change that takes `taken` hunks back out, on the text they made."""
    changes = []
    for path in dict.fromkeys(h.hunk.path for h in taken):
        after = apply_hunks(proposal.before[path], [h.hunk for h in taken if h.hunk.path == path])
        changes.append(FileChange(path, after, proposal.before[path]))
    return Patch(tuple(changes), "review", "undo")
