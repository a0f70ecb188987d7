"""Strategy outcomes kept in the learning memory, next to the operator statistics they resemble.

A run's strategy outcome is one `operator_stats` row: `source = "strategy"`, the strategy's name as the
operator, `success` = fixed, `weight` = the run's reward (`bandit.reward`), and an error class no
exception type has (`STRATEGY_CLASS`), so the operator priors, which read one error class, never see it.
Rows of every project count: what a strategy is worth carries over. A memory problem never breaks a run:
reading gives an empty record, writing gives up with a log line.
"""

from __future__ import annotations

import logging
import time

from fixloop.core.model import Outcome, Status
from fixloop.adapters.memory.learning import LearningMemory
from fixloop.adapters.memory.store import new_id
from fixloop.core.bandit import Tally, reward

log = logging.getLogger("fixloop.engines.strategies")
SOURCE = "strategy"
STRATEGY_CLASS = "(strategy)"
COUNTED = (Status.FIXED, Status.GAVE_UP, Status.LIMITS)  # runs where the order could matter


def record_of(memory: object) -> dict[str, Tally]:
    """Each strategy's recorded runs and summed reward in this memory ({} without a learning memory)."""
    if not isinstance(memory, LearningMemory):
        return {}
    try:
        rows = memory.store.rows("operator_stats", f"source = '{SOURCE}'", ["operator", "weight"], limit=1_000_000)
    except Exception as e:  # the memory is an aid: a run goes on with today's order
        log.warning("strategy record unreadable: %s: %s", type(e).__name__, e)
        return {}
    out: dict[str, Tally] = {}
    for row in rows:
        name = str(row.get("operator") or "")
        out[name] = out.get(name, Tally()).add(float(row.get("weight") or 0.0))
    return out


def record(memory: object, strategy: str, outcome: Outcome) -> bool:
    """Add the run's outcome under its strategy; False when nothing was recorded (no memory, or a run
    that did not try to fix anything: nothing to fix, flaky, cancelled, an error)."""
    if not isinstance(memory, LearningMemory) or outcome.status not in COUNTED:
        return False
    fixed = outcome.status is Status.FIXED
    value = reward(fixed, outcome.candidates_evaluated, outcome.usage.cost_usd)
    try:
        memory.store.add("operator_stats", [{
            "id": new_id(), "project": memory.project, "error_class": STRATEGY_CLASS, "operator": strategy,
            "success": fixed, "weight": round(value, 6), "source": SOURCE, "run_id": outcome.run_id,
            "time": time.time(),
        }])
        memory.store.flush()
    except Exception as e:
        log.warning("strategy outcome not recorded: %s: %s", type(e).__name__, e)
        return False
    return True
