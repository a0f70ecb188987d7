"""The `Memory` port on the LanceDB store: recall lessons, learn from every run and every review.

A memory problem never breaks a run or the language server: every public method logs the error
and returns an empty answer. The store is opened on first use, not when this object is built.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Mapping, TypeVar

from fixloop.core.integrity import is_test_file
from fixloop.core.model import Attempt, Lesson, Outcome, Patch, PatternHit, Status, TestReport
from fixloop.core.patch import touched, unified_diff
from fixloop.core.ports import ProposalContext
from fixloop.kit.entity_links import fixed_entity, suspect_entity
from fixloop.adapters.memory.describe import FailureInfo, describe
from fixloop.adapters.memory.priors import REVIEW_WEIGHT, Posterior, learned_priors, posterior_from
from fixloop.adapters.memory.pastfix import FixDetails, KnownFix, hits_in
from fixloop.adapters.memory.faultkeys import features, nearest
from fixloop.kit.shapes import StatementEdit, changed_statements, code_of, statements
from fixloop.kit.shapes import edits_from_json, edits_to_json as _edits_json  # noqa: F401  (replay imports edits_from_json here)
from fixloop.adapters.memory import packed
from fixloop.adapters.memory.store import MemoryStore, new_id, quote, where_in

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("fixloop.adapters.memory")
T = TypeVar("T")
MIN_PATTERN_TOKENS = 4  # `return ID` matches everything: too generic to warn about or replay by shape alone
SHAPE_MATCH_SIMILARITY = 0.5  # the rank of a lesson found by its faulty shape, not by its signature
ANALOGY_SIMILARITY = 0.4  # ... and of one found by its fault key alone (any error class): for the analogy
MAX_ANALOGY_LESSONS = 5
MAX_SHAPE_LESSONS = 20
AUTO_COMPACT_EVERY = 50  # failures-table versions between automatic compactions
MAX_SHAPE_SCAN_CHARS = 500_000  # files on the traceback first; a big project is not parsed whole


class LearningMemory:
    def __init__(self, store: MemoryStore, project: str, min_pattern_count: int = 2, min_similarity: float = 0.55,
                 max_lessons: int = 5, rng: np.random.Generator | None = None,
                 now: Callable[[], float] = time.time, seed: int | None = None) -> None:
        self.store = store
        self.project = project
        self.min_pattern_count = min_pattern_count
        self.min_similarity = min_similarity
        self.max_lessons = max_lessons
        self._rng = rng
        self.seed = seed
        self.now = now
        self._attempts: dict[str, list[Attempt]] = {}
        self._patterns: tuple[tuple[int, int], dict[str, KnownFix]] | None = None
        self._fix_details = FixDetails(store)
        self._shapes: tuple[int, dict[str, list[str]], frozenset[str]] | None = None
        self._keys: dict[frozenset[str], list[str]] = {}  # fault key -> failure ids, with _shapes
        self._balance: tuple[int, dict[str, tuple[int, int]]] | None = None
        self.broken = ""  # the last error, for `fixloop memory stats` and the server's log
        self._lock = threading.RLock()  # the language server may ask from several worker threads

    @property
    def problem(self) -> str:
        return self.store.problem or self.broken

    @property
    def notes(self) -> list[str]:
        """Messages for the user, said once each (the loop empties the list as it reports them)."""
        return self.store.notes

    def _safe(self, what: str, action: Callable[[], T], fallback: T) -> T:
        try:
            with self._lock:
                return action()
        except Exception as e:  # memory is an aid: its failure must not end a run or the server
            self.broken = f"memory {what} failed: {type(e).__name__}: {e}"
            log.warning(self.broken)
            return fallback

    # ---- the Memory port ------------------------------------------------------------------------

    def recall(self, report: TestReport, sources: Mapping[str, str]) -> tuple[Lesson, ...]:
        return self._safe("recall", lambda: self._recall(report, sources), ())

    def priors(self, report: TestReport) -> Mapping[str, float]:
        return self._safe("priors", lambda: self._priors(report), {})

    def record_attempt(self, run_id: str, attempt: Attempt, ctx: ProposalContext) -> None:
        # Buffered: one commit per run (record_outcome), not one per candidate.
        self._attempts.setdefault(run_id, []).append(attempt)

    def record_outcome(self, outcome: Outcome, ctx: ProposalContext | None) -> None:
        attempts = self._attempts.pop(outcome.run_id, [])
        self._safe("write", lambda: self._record_outcome(outcome, ctx, attempts), None)
        self._safe("sync", self.store.flush, None)

    # ---- what the language server calls ---------------------------------------------------------

    def warm(self) -> None:
        """Open the store now (a run calls this in a background thread while its baseline runs): importing
        LanceDB and opening the tables takes seconds its first lookup would otherwise wait for."""
        self._safe("open", self.store.open, None)

    def record_decision(self, run_id: str, hunk_id: str, accepted: bool, patch: Patch | None = None) -> None:
        """The developer accepted or rejected one hunk of run `run_id`'s fix. `patch` is that hunk
        as a Patch (optional: without it the run's whole fix is meant). Up-weights or down-weights
        the fix shape in recall and the operator in the priors."""
        self._safe("decision", lambda: self._record_decision(run_id, hunk_id, accepted, patch), None)
        self._safe("sync", self.store.flush, None)

    def patterns_in(self, path: str, source: str) -> list[PatternHit]:
        """Statements of `source` whose abstract shape was the faulty statement of at least
        `min_pattern_count` fixed failures in this project."""
        return self._safe("patterns", lambda: self._patterns_in(path, source), [])

    def forget(self, row_id: str) -> int:
        """Delete a failure, fix or decision by id, with the rows that hang off it. Returns the count."""
        removed = self._safe("forget", lambda: self._forget(row_id), 0)
        self._safe("sync", self.store.flush, None)
        return removed

    # ---- implementation ------------------------------------------------------------------------

    def _failing(self, report: TestReport, targets: tuple[str, ...] = ()) -> list[Any]:
        failing = [r for r in report.failed if not targets or r.nodeid in targets] or list(report.failed)
        return failing[:5]

    def _recall(self, report: TestReport, sources: Mapping[str, str]) -> tuple[Lesson, ...]:
        infos = [describe(r, sources) for r in self._failing(report)[:3]]
        if not infos:
            return ()
        best: dict[str, tuple[dict[str, Any], float]] = {}
        for info in infos:
            for row, sim in self.store.similar(info.text, k=8):
                if sim >= self.min_similarity and sim > best.get(row["id"], ({}, -1.0))[1]:
                    best[row["id"]] = (row, sim)
        # Second channel: fixed failures of this error class whose faulty statement shape occurs
        # in this project's code (the message may differ: `assert False == True` vs numbers).
        # Third channel: fixed failures whose fault key (what the statement does, any error class, any
        # names) is like a statement's here: one such fix is enough for the analogy proposer.
        same_shape, same_key = self._shape_matches(sources, self._failing(report)[:3], exclude=set(best))
        for row in same_shape:
            best[row["id"]] = (row, SHAPE_MATCH_SIMILARITY)
        by_key = {row["id"] for row in same_key}
        for row in same_key:
            best[row["id"]] = (row, ANALOGY_SIMILARITY)
        if not best:
            return ()
        # A failure row carries its fix (packed.py); the fixes table says whether that fix still exists
        # (forgotten, evicted) and is read only for fixed rows written before failures carried their fix.
        verified = self._known_fixes()[1]
        fixes, older = [], []
        for fid, (row, _) in best.items():
            fix = row["fix"] if "fix" in row else packed.fix_of(row.get("recall"))
            if fix is not None and fix["id"] in verified:
                fixes.append({**fix, "failure_id": fid})
            elif fix is None and row["fixed"]:
                older.append(fid)
        if older:
            fixes += self.store.rows("fixes", where_in("failure_id", older) + " AND verified = true")
        verdicts = self._review_balance({f["fault_shape"] for f in fixes})
        lessons: list[tuple[float, Lesson]] = []
        for fix in fixes:
            row, sim = best[fix["failure_id"]]
            accepted, rejected = verdicts.get(fix["fault_shape"], (0, 0))
            if rejected > accepted:  # the developer keeps saying no to this shape of fix
                continue
            weight = sim * (1.0 + 0.1 * accepted) / (1.0 + 0.5 * rejected)
            lessons.append((weight, Lesson(
                signature=row["signature"], summary=f"{row['exc_type']} at `{row['statement']}` was fixed by "
                f"{fix['proposer']}/{fix['operator']}: {fix['summary']}", fix_diff=fix["diff"], operator=fix["operator"],
                proposer=fix["proposer"], similarity=round(sim, 4), outcome="fixed",
                meta={"fix_id": fix["id"], "failure_id": row["id"], "project": row["project"],
                      "fault_shape": fix["fault_shape"], "edits": fix["edit"], "weight": weight,
                      "channel": "key" if row["id"] in by_key else "signature"})))
        fixed_ids = {f["failure_id"] for f in fixes}
        for fid, (row, sim) in best.items():
            if fid not in fixed_ids and not row["fixed"] and row["tried"]:
                lessons.append((sim * 0.5, Lesson(
                    signature=row["signature"], summary=f"{row['exc_type']} at `{row['statement']}`: "
                    f"{row['tried']} candidates failed ({row['tried_operators'] or 'none recorded'})",
                    similarity=round(sim, 4), outcome="failed", meta={"failure_id": fid, "project": row["project"]})))
        lessons.sort(key=lambda item: -item[0])
        return tuple(lesson for _, lesson in lessons[: self.max_lessons])

    def _known_fixes(self) -> tuple[dict[str, list[str]], frozenset[str]]:
        """fault shape -> failure ids of verified fixes (every project), and the ids of those fixes;
        cached per table version."""
        version = self.store.table("fixes").version
        if self._shapes is not None and self._shapes[0] == version:
            return self._shapes[1], self._shapes[2]
        out: dict[str, list[str]] = {}
        keys: dict[frozenset[str], list[str]] = {}
        ids = []
        for f in self.store.rows("fixes", "verified = true", ["id", "fault_shape", "failure_id"], limit=1_000_000):
            ids.append(f["id"])
            if len(f["fault_shape"].split()) >= MIN_PATTERN_TOKENS:
                out.setdefault(f["fault_shape"], []).append(f["failure_id"])
            key = features(f["fault_shape"])
            if key:
                keys.setdefault(key, []).append(f["failure_id"])
        self._shapes, self._keys = (version, out, frozenset(ids)), keys
        return out, self._shapes[2]

    def _shape_matches(self, sources: Mapping[str, str], failing: list[Any],
                       exclude: set[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Failures whose fixed statement has the shape of a statement here (same error class), and those
        whose fault key is like one here (any class, for the analogy): one read of the code, one query."""
        error_class = failing[0].exc_type or failing[0].outcome  # as describe() names it
        known = self._known_fixes()[0]
        if not known and not self._keys:
            return [], []
        here: set[str] = set()
        budget = MAX_SHAPE_SCAN_CHARS
        on_traceback = {f.path for r in failing for f in r.frames}
        for path, text in sorted(sources.items(), key=lambda item: (item[0] not in on_traceback, item[0])):
            if is_test_file(path) or len(text) > budget:
                continue
            budget -= len(text)
            here.update(" ".join(t.shape for t in tokens) for _, tokens in statements(text))
        ids = [fid for shape in sorted(here & set(known)) for fid in known[shape][-MAX_SHAPE_LESSONS:]]
        ids = [i for i in ids if i not in exclude][-MAX_SHAPE_LESSONS:]
        by_key = [i for i in nearest(here, self._keys, MAX_ANALOGY_LESSONS + len(exclude) + len(ids))
                  if i not in exclude][: MAX_ANALOGY_LESSONS + len(ids)]
        if not ids and not by_key:
            return [], []
        rows = self.store.rows("failures", where_in("id", ids + by_key))
        same = [r for r in rows if r["id"] in ids and r["error_class"] == error_class]
        taken = {r["id"] for r in same}
        return same, [r for r in rows if r["id"] in by_key and r["id"] not in taken][:MAX_ANALOGY_LESSONS]

    def _review_balance(self, shapes: set[str]) -> dict[str, tuple[int, int]]:
        """fault shape -> (accepted, rejected) hunks; every shape's, cached per decisions-table version."""
        if not shapes - {""}:
            return {}
        version = self.store.table("decisions").version
        if self._balance is None or self._balance[0] != version:
            out: dict[str, tuple[int, int]] = {}
            for d in self.store.rows("decisions", "", ["fault_shape", "accepted"], limit=1_000_000):
                a, r = out.get(d["fault_shape"], (0, 0))
                out[d["fault_shape"]] = (a + 1, r) if d["accepted"] else (a, r + 1)
            self._balance = (version, out)
        return self._balance[1]

    def _priors(self, report: TestReport) -> dict[str, float]:
        failing = self._failing(report)
        if not failing:
            return {}
        error_class = failing[0].exc_type or failing[0].outcome  # as describe() names it
        events = self.store.rows("operator_stats", f"error_class = {quote(error_class)}",
                                 ["operator", "success", "weight"], limit=1_000_000)
        post: Posterior = posterior_from(events)
        if self._rng is None:
            import numpy as np

            self._rng = np.random.default_rng(self.seed)
        return learned_priors(post, self._rng)

    def _record_outcome(self, outcome: Outcome, ctx: ProposalContext | None, attempts: list[Attempt]) -> None:
        if ctx is None or outcome.baseline is None or outcome.status is Status.CANCELLED:
            return
        infos: list[FailureInfo] = [describe(r, ctx.sources) for r in self._failing(outcome.baseline, ctx.target_tests)]
        if not infos:
            return
        now = self.now()
        fixed = outcome.status is Status.FIXED and outcome.patch is not None
        fix_id = new_id() if fixed else ""
        failure_ids = [new_id() for _ in infos]
        # A replayed edit that missed says little about its operator in general: only its wins count.
        evaluated = [a for a in attempts if a.status in ("failed", "plausible") and a.patch.operator
                     and not (a.patch.proposer in ("memory", "analogy") and a.status == "failed")]
        # A mined template that missed where the run was not fixed was sent there by the localizer: the miss
        # says nothing of the template, which would otherwise lose its place over other bugs' statements.
        fixed_at = touched(outcome.patch) if fixed and outcome.patch is not None else set()
        evaluated = [a for a in evaluated if not (fixed_at and a.status == "failed" and a.patch.meta.get("template")
                                                  and not touched(a.patch) & fixed_at)]
        tried_ops = sorted({a.patch.operator for a in evaluated if a.status == "failed"})
        # The code graph's link: the fixed function when there is a fix, else the most suspect one.
        entity = (fixed_entity(outcome.patch) if fixed and outcome.patch is not None else "") or suspect_entity(
            ctx.sources, ctx.suspects, self._failing(outcome.baseline, ctx.target_tests), is_test_file)
        fixes: list[dict[str, Any]] = []
        if fixed and outcome.patch is not None:
            patch = outcome.patch
            edits = [e for c in patch.changes for e in changed_statements(c.before, c.after)][:3]
            # Every failing test of the run was fixed by the same patch: one fix row per failure, the
            # diff kept once.
            fixes = [{
                "id": fix_id if n == 0 else new_id(), "failure_id": fid, "project": self.project,
                "run_id": outcome.run_id, "time": now, "path": ", ".join(patch.paths),
                "diff": unified_diff(patch)[:20_000] if n == 0 else "", "summary": fix_summary(edits, patch),
                "proposer": patch.proposer, "operator": patch.operator, "verified": True, "decision": "",
                "fault_shape": edits[0].fault_shape if edits else "", "edit": _edits_json(edits), "entity": entity,
                "review": str(patch.meta.get("review", "")),
            } for n, fid in enumerate(failure_ids)]
        self.store.add("failures", [{
            "id": fid, "project": self.project, "run_id": outcome.run_id, "time": now, "test_id": info.test_id,
            "exc_type": info.exc_type, "message": info.message, "signature": info.signature, "shape": info.shape,
            "statement": info.statement, "frame": info.frame, "error_class": info.error_class, "text": info.text,
            "fixed": fixed, "fix_id": fix_id, "tried": outcome.candidates_evaluated,
            "tried_operators": ", ".join(tried_ops), "entity": entity, "fix": fix,
        } for fid, info, fix in zip(failure_ids, infos, fixes or [None] * len(infos))])
        self.store.add("fixes", fixes)
        self.store.add("operator_stats", [{
            "id": new_id(), "project": self.project, "error_class": infos[0].error_class, "operator": a.patch.operator,
            "success": a.status == "plausible", "weight": 1.0, "source": "test", "run_id": outcome.run_id, "time": now,
        } for a in evaluated])
        self.store.enforce_cap()
        if self.store.table("failures").version % AUTO_COMPACT_EVERY == 0:
            # Small appends pile up files and versions; merging them here keeps lookups fast.
            # The vector index is left to `fixloop memory compact` (minutes on a large store).
            self.store.compact(build_index=False)

    def _record_decision(self, run_id: str, hunk_id: str, accepted: bool, patch: Patch | None) -> None:
        fixes = self.store.rows("fixes", f"run_id = {quote(run_id)}")
        main = next((f for f in fixes if f["diff"]), fixes[0] if fixes else None)
        shape = main["fault_shape"] if main else ""
        operator = main["operator"] if main else (patch.operator if patch else "")
        if patch is not None:
            edits = [e for c in patch.changes for e in changed_statements(c.before, c.after)]
            shape = edits[0].fault_shape if edits else shape
        now = self.now()
        self.store.add("decisions", [{
            "id": new_id(), "project": self.project, "run_id": run_id, "hunk_id": hunk_id, "accepted": accepted,
            "fix_id": main["id"] if main else "", "fault_shape": shape, "operator": operator,
            "diff": unified_diff(patch)[:20_000] if patch else "", "time": now,
            "entity": (main or {}).get("entity", "") or (fixed_entity(patch) if patch else ""),
        }])
        if fixes:
            verdict = "accepted" if accepted else "rejected"
            decision = "mixed" if any(f["decision"] and f["decision"] != verdict for f in fixes) else verdict
            self.store.update("fixes", f"run_id = {quote(run_id)}", {"decision": decision})
            # The fix was shared before this review: a team's other machines learn it from this row (sync.py).
            self.store.add("verdicts", [{"id": new_id(), "fix_id": f["id"], "decision": decision, "time": now}
                                        for f in fixes])
            classes = self.store.rows("failures", f"run_id = {quote(run_id)}", ["error_class"], limit=10)
            if operator and classes:
                self.store.add("operator_stats", [{
                    "id": new_id(), "project": self.project, "error_class": classes[0]["error_class"],
                    "operator": operator, "success": accepted, "weight": REVIEW_WEIGHT, "source": "review",
                    "run_id": run_id, "time": now,
                }])

    def _pattern_table(self) -> dict[str, KnownFix]:
        """fault shape -> how often it was fixed in this project and its latest fix, cached per table version."""
        key = (self.store.table("fixes").version, self.store.table("decisions").version)
        if self._patterns is not None and self._patterns[0] == key:
            return self._patterns[1]
        fixes = self.store.rows("fixes", f"project = {quote(self.project)} AND verified = true",
                                ["id", "run_id", "time", "fault_shape", "summary", "decision"], limit=1_000_000)
        table: dict[str, KnownFix] = {}
        for f in sorted(fixes, key=lambda f: f["time"]):  # the latest fix of a shape is the one offered
            shape = f["fault_shape"]
            if not shape or len(shape.split()) < MIN_PATTERN_TOKENS or f["decision"] == "rejected":
                continue
            count = table[shape].count if shape in table else 0
            table[shape] = KnownFix(count + 1, f["summary"], f["id"], f["run_id"])
        self._patterns = (key, table)
        return table

    def _patterns_in(self, path: str, source: str) -> list[PatternHit]:
        table = {s: v for s, v in self._pattern_table().items() if v.count >= max(self.min_pattern_count, 1)}
        return hits_in(path, source, table, self._fix_details) if table else []

    def _forget(self, row_id: str) -> int:
        q = quote(row_id)
        fixes = [r["id"] for r in self.store.rows("fixes", f"id = {q} OR failure_id = {q}", ["id"])]
        removed = self.store.forget("failures", f"id = {q}")
        removed += self.store.forget("fixes", f"id = {q} OR failure_id = {q}")
        removed += self.store.forget("decisions", f"id = {q} OR fix_id = {q}")
        if fixes:  # what the review said of them: not a row the user counts
            self.store.forget("verdicts", where_in("fix_id", fixes))
        removed += self.store.forget("operator_stats", f"id = {q}")
        self._patterns = self._shapes = self._balance = None
        return removed


def fix_summary(edits: list[StatementEdit], patch: Patch) -> str:
    if edits:
        return "; ".join(f"{code_of(e.before).strip()} -> {code_of(e.after).strip()}" for e in edits)[:500]
    return patch.summary[:500]
