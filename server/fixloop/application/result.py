"""What a run ends with: one typed result, read by the terminal, `--json`, `summary.json` and the editors.

A fix run, a goal run and a past fix's check all end with a `RunResult`; the goal's and the check's own
parts ride along in `goal` and `check`. `as_json` is the one place the summary's keys are written: scripts
and editors read them, so their names are stable (`docs/protocol.md`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from fixloop.core.model import Outcome, Patch
from fixloop.core.patch import unified_diff
from fixloop.core.sources import source_of

# summary.json's schema: 2 added "schema" itself (older summaries have none and are read as 1).
SUMMARY_SCHEMA = 2


@dataclass(frozen=True)
class GoalPart:
    """Goal mode's words, spec and reproduction test (`docs/protocol.md` "Goal mode")."""

    goal: str
    problem: str = ""  # usage | test | "": why the goal stopped before its fix run
    spec: Mapping[str, Any] | None = None
    test_file: str = ""
    test_origin: str = ""
    questions: tuple[Mapping[str, Any], ...] = ()
    assumptions: tuple[str, ...] = ()
    lessons: tuple[Mapping[str, Any], ...] = ()  # past goals with similar words, without their diffs

    def as_json(self) -> dict[str, Any]:
        return {"goal": self.goal, "goal_problem": self.problem, "spec": dict(self.spec) if self.spec else None,
                "test_file": self.test_file, "test_origin": self.test_origin,
                "questions": [dict(q) for q in self.questions], "assumptions": list(self.assumptions),
                "lessons": [dict(lesson) for lesson in self.lessons]}


@dataclass(frozen=True)
class CheckPart:
    """A past fix from memory, checked in the sandbox: what it was and what its test runs said."""

    memory_id: str
    patch: Patch  # the past fix, shown even when the check refuses it
    tests: int = 0
    failing: tuple[str, ...] = ()
    broken: tuple[str, ...] = ()  # failing with the fix, passing without it

    def as_json(self) -> dict[str, Any]:
        return {"memory_id": self.memory_id,
                "check": {"tests": self.tests, "failing": list(self.failing), "broken": list(self.broken)}}


@dataclass(frozen=True)
class RunResult:
    outcome: Outcome
    run_dir: str = ""
    run_log_notice: str = ""  # why the run log is not in the workspace, and where it is
    strategy: Mapping[str, str] = field(default_factory=dict)  # the search order the run chose, and why
    advice: Mapping[str, Any] = field(default_factory=dict)  # `tried` and `next_steps` (application/advice.py)
    review: Mapping[str, Any] | None = None  # the reviewer's word on the fix offered
    audit: Mapping[str, Any] | None = None  # the security pass on it, when `audit.enabled`
    hooks: tuple[str, ...] = ()  # what the user's post_fix hook said
    python: str = ""  # the interpreter that ran the tests
    limits: Mapping[str, Any] = field(default_factory=dict)  # the limits the run really used
    install: Mapping[str, str] | None = None  # the missing package a yes would install
    goal: GoalPart | None = None
    check: CheckPart | None = None

    @property
    def shown_patch(self) -> Patch | None:
        """The fix the result is about: the run's, or the past fix a check refused."""
        return self.outcome.patch or (self.check.patch if self.check is not None else None)

    @cached_property
    def diff(self) -> str:
        """The fix as a unified diff, made once (the run log's fix.diff and the summary's `diff`)."""
        patch = self.shown_patch
        return unified_diff(patch) if patch is not None else ""

    def as_json(self) -> dict[str, Any]:
        o, patch, usage = self.outcome, self.outcome.patch, self.outcome.usage
        out: dict[str, Any] = {
            "schema": SUMMARY_SCHEMA,
            "status": o.status.value,
            "message": o.message,
            "run_id": o.run_id,
            "files_changed": list(self.shown_patch.paths) if self.shown_patch is not None else [],
            "diff": self.diff,
            "proposer": patch.proposer if patch else "",
            "operator": patch.operator if patch else "",
            "source": source_of(patch.proposer) if patch else "",  # replay, template, search, model...
            "iterations": o.iterations,
            "candidates_evaluated": o.candidates_evaluated,
            "plausible_fixes": o.plausible,
            "test_runs": o.test_runs,
            "llm_calls": usage.llm_calls,
            "tokens": usage.tokens,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens,
            "cost_usd": round(usage.cost_usd, 6),
            "wall_seconds": round(o.durations.get("total", 0.0), 3),
            "durations": {k: round(v, 3) for k, v in o.durations.items()},
            "flaky": list(o.flaky),
            "still_failing": list(o.still_failing),
            "failing_before": [r.nodeid for r in o.baseline.failed] if o.baseline else [],
            "run_dir": self.run_dir,
            **self.strategy,
            **self.advice,
            "run_log_notice": self.run_log_notice,
            "python": self.python,
            "limits": dict(self.limits),
        }
        if self.hooks:
            out["hooks"] = list(self.hooks)
        for key, value in (("review", self.review), ("audit", self.audit), ("install", self.install)):
            if value is not None:
                out[key] = dict(value)
        return out | (self.goal.as_json() if self.goal else {}) | (self.check.as_json() if self.check else {})
