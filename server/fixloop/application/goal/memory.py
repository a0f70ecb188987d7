"""Goals in the learning memory: goal -> spec -> test -> fix, found again by similar words.

A goal is stored as a row of the memory's `failures` table with `error_class = "goal"` (its embedded text
is the words plus the spec), and its fix as a `fixes` row whose summary reads "goal -> spec -> test -> fix".
The repair loop's own rows (the reproduction test's failure and its fix) are recorded as for any run.
The memory is an aid: any problem here is logged and the goal run goes on.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from fixloop.application.config import MemorySettings
from fixloop.core.model import Patch
from fixloop.core.patch import unified_diff
from fixloop.core.goal import Spec

log = logging.getLogger(__name__)
GOAL_CLASS = "goal"
MIN_SIMILARITY = 0.45


def _store(settings: MemorySettings, workspace: Path) -> tuple[Any, str]:
    from fixloop.adapters.memory.factory import make_store, project_key  # lancedb loads only when memory is on
    from fixloop.adapters.memory.remote import is_remote

    return make_store(settings), project_key(workspace, is_remote(settings.uri))


def _text(goal: str, spec_expected: str, where: str) -> str:
    return f"goal: {goal} expected: {spec_expected} where: {where}"


def remember(settings: MemorySettings, workspace: Path, run_id: str, goal: str, spec: Spec, test_path: str,
             patch: Patch | None) -> bool:
    """Record one goal and, when it was fixed, its fix. False when the memory is off or failed."""
    if not settings.enabled:
        return False
    try:
        from fixloop.adapters.memory.store import new_id

        store, project = _store(settings, workspace)
        fid, fix_id = new_id(), (new_id() if patch is not None else "")
        fix = None if patch is None else {
            "id": fix_id, "failure_id": fid, "project": project, "run_id": run_id, "time": time.time(),
            "path": ", ".join(patch.paths), "diff": unified_diff(patch)[:20_000],
            "summary": f"{goal[:200]} -> {spec.expected[:200]} -> {test_path} -> "
                       f"{patch.proposer}/{patch.operator}: {patch.summary}"[:1000],
            "proposer": patch.proposer, "operator": patch.operator, "verified": True, "decision": "",
            "fault_shape": "", "edit": ""}
        store.add("failures", [{
            "id": fid, "project": project, "run_id": run_id, "time": time.time(), "test_id": test_path,
            "exc_type": "Goal", "message": goal[:500], "signature": f"goal: {spec.expected}"[:500], "shape": "",
            "statement": spec.where, "frame": spec.where, "error_class": GOAL_CLASS,
            "text": _text(goal, spec.expected, spec.where), "fixed": patch is not None, "fix_id": fix_id,
            "tried": 0, "tried_operators": "", "fix": fix}])
        if fix is not None:
            store.add("fixes", [fix])
        store.flush()
        return True
    except Exception as e:  # best effort: the goal's fix stands without its memory row
        log.warning("the goal was not remembered: %s: %s", type(e).__name__, e)
        return False


def recall(settings: MemorySettings, workspace: Path, goal: str, k: int = 3) -> list[dict[str, Any]]:
    """Past goals with words like these, with what fixed them: [{"goal", "where", "fix", "similarity"}]."""
    if not settings.enabled:
        return []
    try:
        from fixloop.adapters.memory.store import where_in

        store, _ = _store(settings, workspace)
        hits = [(row, sim) for row, sim in store.similar(_text(goal, "", ""), k=8,
                                                          where=f"error_class = '{GOAL_CLASS}'")
                if sim >= MIN_SIMILARITY]
        if not hits:
            return []
        ids = {row["id"]: (row, sim) for row, sim in hits}
        details = {r["id"]: r for r in store.rows("failures", where_in("id", ids), ["id", "message"])}
        fixes = {f["failure_id"]: f for f in store.rows("fixes", where_in("failure_id", ids))}
        out = [{"goal": details.get(fid, {}).get("message", ""), "where": row["statement"],
                "fix": fixes[fid]["summary"] if fid in fixes else "", "diff": fixes[fid]["diff"] if fid in fixes else "",
                "similarity": round(sim, 3)} for fid, (row, sim) in ids.items()]
        out.sort(key=lambda lesson: -float(lesson["similarity"]))
        return out[:k]
    except Exception as e:
        log.warning("past goals could not be recalled: %s: %s", type(e).__name__, e)
        return []
