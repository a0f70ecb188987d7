"""Review through `workspace/applyEdit`: offer a fix hunk by hunk, learn from the documents which
hunks were taken (never from `applied` alone), accept and reject on command, record decisions."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Sequence

from lsprotocol import types as t

from fixloop.core.model import Outcome, Patch, Status
from fixloop.lsp.auto_apply import AutoApplier
from fixloop.lsp.contract import RUN_FINISHED
from fixloop.lsp.editor import Editor
from fixloop.lsp.paths import BadInput, read_disk_text, uri_for
from fixloop.lsp.positions import line_offsets, position_at
from fixloop.lsp.providers import DecisionRecorder
from fixloop.lsp.review import (ACCEPTED, CONFLICT, PENDING, REJECTED, HunkState, Placed, Proposal, place, proposal_from,
                     summary_hunks, taken)
from fixloop.lsp.trust import TrustKeeper

ApplyEdit = Callable[[t.ApplyWorkspaceEditParams], Awaitable[t.ApplyWorkspaceEditResult]]

log = logging.getLogger(__name__)
SETTLE_SECONDS = 1.0  # how long the documents get to report an applied edit (Neovim debounces 150 ms)


@dataclass
class FileEdit:
    uri: str
    path: str
    base: str  # the text the edits were computed against
    version: int | None  # None: the document is not open in the editor
    placed: list[Placed] = field(default_factory=list)
    new: bool = False  # the file does not exist yet: a CreateFile comes first


@dataclass
class Applied:
    taken: list[HunkState] = field(default_factory=list)
    untaken: list[HunkState] = field(default_factory=list)
    unknown: list[HunkState] = field(default_factory=list)
    conflicts: list[HunkState] = field(default_factory=list)
    refused: bool = False  # the client answered applied=false
    failure: str = ""


class Reviewer:
    """Holds each run's summary and proposal. `notify` sends a notification to the client, `apply_edit`
    sends `workspace/applyEdit`, `recorder` keeps each decision, `trust` counts them by kind of fix."""

    def __init__(self, editor: Editor, notify: Callable[[str, Any], None], apply_edit: ApplyEdit,
                 recorder: DecisionRecorder, trust: TrustKeeper | None = None) -> None:
        self.editor = editor
        self.notify = notify
        self.apply_edit = apply_edit
        self.recorder = recorder
        self.trust = trust or TrustKeeper(editor)
        self.auto = AutoApplier(self)
        self.latest: str | None = None  # the run that finished last: the default of showRun/accept/reject
        self._proposals: dict[str, Proposal] = {}
        self._summaries: dict[str, dict[str, Any]] = {}
        self._offers: set[asyncio.Task[Any]] = set()

    # ---- after a run -------------------------------------------------------------------------
    async def finished(self, run_id: str, summary: dict[str, Any], outcome: Outcome | None) -> None:
        """A run ended: keep its summary (and its fix, as a proposal), tell the client, offer the fix (or, under
        a trust grant for its kind, apply it without asking, whatever the review mode)."""
        proposal = None
        if outcome is not None and outcome.status is Status.FIXED and outcome.patch is not None:
            proposal = self.add(run_id, outcome.patch)
            proposal.kind = self.trust.kind(outcome)
        trusted = proposal is not None and proposal.kind is not None and self.trust.applies(proposal.kind)
        if trusted and proposal is not None and proposal.kind is not None:
            summary = {**summary, "applied_without_asking": proposal.kind.id}
        self._summaries[run_id] = summary
        self.latest = run_id
        self.notify(RUN_FINISHED, self.show(run_id) or summary)
        for said in summary.get("hooks", []):  # the user's post_fix hook answered
            self.editor.show(t.MessageType.Info, f"fixloop: {said}")
        if proposal is not None and (trusted or self.editor.config().review == "workspaceEdit"):
            # The user may keep the review open for long: the next queued run does not wait for it.
            self.keep(asyncio.ensure_future(self._offer_logged(proposal, trusted)))

    def keep(self, task: asyncio.Task[Any]) -> None:
        """Hold a background task (an offer, a question) until it ends."""
        self._offers.add(task)
        task.add_done_callback(self._offers.discard)

    async def _offer_logged(self, proposal: Proposal, trusted: bool = False) -> None:
        try:
            if trusted and await self.auto.apply(proposal):
                return
            if trusted:
                self._summaries[proposal.run_id].pop("applied_without_asking", None)
                self.editor.show(t.MessageType.Warning, f"fixloop: the fix of run {proposal.run_id} could not be "
                                 "applied as it is (the file changed); it is offered for review")
                if self.editor.config().review != "workspaceEdit":
                    self.notify(RUN_FINISHED, self.show(proposal.run_id))
                    return
            await self.offer(proposal)
        except Exception:  # a client that cannot apply edits still has accept/showRun
            log.exception("offering the fix failed")

    def add(self, run_id: str, patch: Patch, summary: dict[str, Any] | None = None) -> Proposal:
        root = self.editor.root()
        assert root is not None
        proposal = proposal_from(run_id, patch, lambda rel: uri_for(root, rel))
        self._proposals[run_id] = proposal
        if summary is not None:
            self._summaries[run_id] = summary
        return proposal

    def put(self, run_id: str, summary: dict[str, Any], patch: Patch | None, new_files: set[str] | None = None) -> None:
        """A fix from elsewhere (memory's past fix, generated tests) under `run_id`: reviewable when `patch` is
        given (kept as it is while it still applies to the same text, so decisions made on it stay), else a
        summary alone. `new_files`: the patch's files that do not exist yet (their `before` is "")."""
        if patch is None:
            self._proposals.pop(run_id, None)
            self._summaries[run_id] = summary
            return
        existing = self._proposals.get(run_id)
        if existing is None or any(existing.before.get(c.path) != c.before for c in patch.changes):
            for h in self.add(run_id, patch, summary).hunks:
                h.new_file = h.hunk.path in (new_files or ())

    def reviewing(self, run_id: str, path: str, text: str) -> bool:
        """A fix of `run_id` made on this very `text` of `path` is held for review (its hunks keep their states)."""
        proposal = self._proposals.get(run_id)
        return proposal is not None and proposal.before.get(path) == text

    def show(self, run_id: str | None) -> dict[str, Any] | None:
        run_id = run_id or self.latest
        if run_id is None or run_id not in self._summaries:
            return None
        out = dict(self._summaries[run_id])
        proposal = self._proposals.get(run_id)
        out["hunks"] = summary_hunks(proposal.hunks) if proposal else []
        return out

    def proposal(self, run_id: str | None) -> Proposal:
        run_id = run_id or self.latest
        if run_id is None or run_id not in self._proposals:
            raise BadInput(f"no fix to review for run {run_id!r}" if run_id else "no run has produced a fix yet")
        return self._proposals[run_id]

    # ---- the three ways to decide ------------------------------------------------------------
    async def offer(self, proposal: Proposal) -> Applied:
        """Send every pending hunk for review (with confirmation where the client supports it)."""
        states, _ = proposal.get(None, (PENDING,))
        annotate = self._annotations_supported()
        result = await self.apply_hunks(proposal, states, confirm=annotate, label=f"fixloop: fix {proposal.run_id}")
        if result.conflicts:
            self.editor.show(t.MessageType.Warning, "fixloop: not offered, you changed these lines during the run: "
                             + "; ".join(h.message for h in result.conflicts))
        if result.failure:
            return result
        for h in result.taken:
            self.decide(proposal, h, ACCEPTED)
        await self._applied(proposal, result.taken)
        # An honest refusal (VS Code's Discard) or edits the documents show were not made: rejected.
        for h in result.untaken:
            self.decide(proposal, h, REJECTED)
        for h in result.unknown:
            h.message = "the editor did not report this document back; decide with fixloop.accept / fixloop.reject"
        await self._ask_trust(proposal)
        return result

    async def _ask_trust(self, proposal: Proposal) -> None:
        """A fix taken whole: its kind may have earned the question whether to apply such fixes without asking."""
        if proposal.hunks and all(h.state == ACCEPTED for h in proposal.hunks):
            await self.trust.ask(proposal.kind)

    async def accept(self, run_id: str | None, ids: Sequence[str] | None) -> dict[str, Any]:
        proposal = self.proposal(run_id)
        states, unknown = proposal.get(ids, (PENDING, CONFLICT))
        if unknown:
            raise BadInput(f"no hunk {', '.join(unknown)} in run {proposal.run_id}")
        states = [h for h in states if h.state != ACCEPTED]
        result = await self.apply_hunks(proposal, states, confirm=False, label=f"fixloop: accept {proposal.run_id}")
        for h in result.taken + result.unknown:  # no confirmation was asked: `applied` is the answer
            self.decide(proposal, h, ACCEPTED)
        await self._applied(proposal, result.taken + result.unknown)
        conflicts = [{"id": h.id, "message": h.message} for h in result.conflicts]
        if result.refused or result.failure:
            reason = result.failure or "the editor did not apply the edit"
            conflicts += [{"id": h.id, "message": reason} for h in result.untaken]
        elif result.untaken:
            conflicts += [{"id": h.id, "message": "the document does not show this change"} for h in result.untaken]
        if conflicts:
            self.editor.show(t.MessageType.Warning, "fixloop: some changes were not applied: "
                             + "; ".join(c["message"] for c in conflicts))
        self.keep(asyncio.ensure_future(self._ask_trust(proposal)))  # the answer to accept does not wait for it
        return {"applied": [h.id for h in result.taken + result.unknown], "conflicts": conflicts}

    def reject(self, run_id: str | None, ids: Sequence[str] | None) -> dict[str, Any]:
        proposal = self.proposal(run_id)
        states, unknown = proposal.get(ids, (PENDING, CONFLICT))
        if unknown:
            raise BadInput(f"no hunk {', '.join(unknown)} in run {proposal.run_id}")
        done = []
        for h in states:
            if h.state != ACCEPTED:
                self.decide(proposal, h, REJECTED)
                done.append(h.id)
        return {"rejected": done}

    async def _applied(self, proposal: Proposal, taken: Sequence[HunkState]) -> None:
        """Tell the user's on_apply hook what was applied (off the event loop: a hook may take its timeout)."""
        if not taken:
            return
        try:
            said = await asyncio.to_thread(self.recorder.applied, proposal.run_id, proposal.part(taken, "applied"))
        except Exception:  # a hook is the user's: its failure never undoes a decision
            log.exception("telling the on_apply hook failed")
            return
        if said:
            self.editor.show(t.MessageType.Info, f"fixloop: {said}")

    def decide(self, proposal: Proposal, h: HunkState, state: str, counted: bool = True, why: str = "") -> None:
        """Record the decision on hunk `h`; `counted`: the user's (not a grant's), so the trust ledger counts it."""
        h.state, h.message = state, ""
        try:
            self.recorder.record_decision(proposal.run_id, h.to_json(), state == ACCEPTED, proposal.part([h], "hunk"))
        except Exception:  # the memory is best effort: a decision is never lost for the user
            log.exception("recording a review decision failed")
        if counted:
            try:
                self.trust.decided(proposal.kind, proposal.run_id, state == ACCEPTED, why)
            except Exception:  # as the memory: the decision stands, the ledger grants nothing new
                log.exception("counting a review decision failed")

    # ---- applying ----------------------------------------------------------------------------
    async def apply_hunks(self, proposal: Proposal, states: list[HunkState], confirm: bool, label: str) -> Applied:
        result = Applied()
        files = self._place(proposal, states, result)
        if not any(f.placed for f in files):
            return result
        by_id = {h.id: h for h in states}
        edit = self._workspace_edit(files, confirm)
        try:
            answer = await self.apply_edit(t.ApplyWorkspaceEditParams(edit=edit, label=label))
        except Exception as e:
            result.failure = f"the editor could not apply the edit ({e})"
            log.warning(result.failure)
            return result
        placed_states = [by_id[p.hunk.id] for f in files for p in f.placed]
        if not answer.applied:
            result.refused = True
            result.failure = answer.failure_reason or ""
            if result.failure:
                result.failure = f"the editor refused the edit: {result.failure}"
            result.untaken.extend(placed_states)
            return result
        await self._settle(files)
        for f in files:
            doc = self.editor.document(f.uri)
            verdicts = taken(f.base, doc.source, f.placed) if doc is not None else {}
            for p in f.placed:
                verdict = verdicts.get(p.hunk.id)
                bucket = result.taken if verdict else (result.untaken if verdict is False else result.unknown)
                bucket.append(by_id[p.hunk.id])
        return result

    def _place(self, proposal: Proposal, states: list[HunkState], result: Applied) -> list[FileEdit]:
        files: list[FileEdit] = []
        root = self.editor.root()
        assert root is not None
        limit = self.editor.max_file_bytes()
        for path in dict.fromkeys(h.hunk.path for h in states):
            group = [h for h in states if h.hunk.path == path]
            uri = group[0].uri
            doc = self.editor.document(uri)
            if group[0].new_file:
                files.extend(self._place_new(path, group, doc, result))
                continue
            try:
                current = doc.source if doc is not None else read_disk_text(root, path, limit)
            except BadInput as e:
                for h in group:
                    h.state, h.message = CONFLICT, f"{h.id}: {e}"
                    result.conflicts.append(h)
                continue
            placed, conflicts = place(proposal.before[path], current, [h.hunk for h in group])
            for h in group:
                if h.id in conflicts:
                    h.state, h.message = CONFLICT, conflicts[h.id]
                    result.conflicts.append(h)
            files.append(FileEdit(uri, path, current, doc.version if doc is not None else None, placed))
        return files

    def _place_new(self, path: str, group: list[HunkState], doc: Any, result: Applied) -> list[FileEdit]:
        """A file the fix creates: only where the client can create files, and never over one."""
        root = self.editor.root()
        assert root is not None
        caps = self.editor.capabilities().workspace
        ops = (caps.workspace_edit.resource_operations if caps and caps.workspace_edit else None) or ()
        problem = ""
        if t.ResourceOperationKind.Create not in ops:
            problem = (f"this editor cannot create files through workspace/applyEdit: create {path} with the "
                       "hunk's text yourself (fixloop.showRun)")
        elif doc is not None or (root / path).exists() or (root / path).is_symlink():
            problem = f"{path} exists now; fixloop never overwrites a file with a new test"
        if problem:
            for h in group:
                h.state, h.message = CONFLICT, problem
                result.conflicts.append(h)
            return []
        return [FileEdit(group[0].uri, path, "", None, [Placed(0, h.hunk) for h in group], new=True)]

    def _workspace_edit(self, files: list[FileEdit], confirm: bool) -> t.WorkspaceEdit:
        caps = self.editor.capabilities().workspace
        we = caps.workspace_edit if caps else None
        versioned = bool(we and we.document_changes) or any(f.new for f in files)
        annotate = self._annotations_supported()
        units = self.editor.units()
        annotations: dict[str, t.ChangeAnnotation] = {}
        per_file: list[tuple[FileEdit, list[t.TextEdit | t.AnnotatedTextEdit]]] = []
        for f in files:
            offsets = line_offsets(f.base)
            edits: list[t.TextEdit | t.AnnotatedTextEdit] = []
            for p in f.placed:
                h = p.hunk
                start = position_at(f.base, offsets[p.start], units)
                end = position_at(f.base, offsets[p.start + len(h.old_lines)], units)
                rng = t.Range(t.Position(*start), t.Position(*end))
                text = "".join(h.new_lines)
                if annotate:
                    edits.append(t.AnnotatedTextEdit(range=rng, new_text=text, annotation_id=h.id))
                    annotations[h.id] = t.ChangeAnnotation(
                        label=f"{h.path} line {h.start + 1}", needs_confirmation=confirm or None,
                        description=_hunk_diff(h.old_lines, h.new_lines))
                else:
                    edits.append(t.TextEdit(range=rng, new_text=text))
            per_file.append((f, edits))
        if versioned:
            changes: list[Any] = []
            for f, edits in per_file:
                if f.new and edits:  # the file first, then its text; an existing file makes the edit fail
                    changes.append(t.CreateFile(uri=f.uri, options=t.CreateFileOptions(overwrite=False,
                                                ignore_if_exists=False),
                                                annotation_id=f.placed[0].hunk.id if annotate else None))
                if edits:
                    changes.append(t.TextDocumentEdit(text_document=t.OptionalVersionedTextDocumentIdentifier(
                        uri=f.uri, version=f.version), edits=edits))
            return t.WorkspaceEdit(document_changes=changes, change_annotations=annotations or None)
        return t.WorkspaceEdit(changes={f.uri: list(edits) for f, edits in per_file if edits})

    async def _settle(self, files: list[FileEdit]) -> None:
        """Give the editor a moment to send the didChange/didOpen that follow an applied edit."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SETTLE_SECONDS
        while loop.time() < deadline:
            if all(self._changed(f) for f in files):
                return
            await asyncio.sleep(0.02)

    def _changed(self, f: FileEdit) -> bool:
        doc = self.editor.document(f.uri)
        return doc is not None and (doc.version != f.version or doc.source != f.base)

    def _annotations_supported(self) -> bool:
        caps = self.editor.capabilities().workspace
        we = caps.workspace_edit if caps else None
        return bool(we and we.document_changes and we.change_annotation_support is not None)


def _hunk_diff(old: Sequence[str], new: Sequence[str]) -> str:
    return "".join(f"-{line}" if line.endswith("\n") else f"-{line}\n" for line in old) + \
        "".join(f"+{line}" if line.endswith("\n") else f"+{line}\n" for line in new)
