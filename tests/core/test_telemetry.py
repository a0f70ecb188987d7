"""Run log schema 2: model calls as events, and each tested candidate's proposer, operator, CPU and memory."""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator, Sequence

from fixloop.core.model import Patch, TestReport
from fixloop.core.ports import ProposalContext
from fixloop.core.telemetry import EVENTS_SCHEMA

from tests.fakes import ScriptedProposer, ScriptedRunner

from .test_loop import GOOD, SOURCE, _run, double_verdict


class MeasuredRunner(ScriptedRunner):
    """Each run "used" 0.25 s of CPU and a peak growing by 10 MB per run."""

    def run(self, patch: Patch | None, select: Sequence[str] = (), fail_fast: bool = False) -> TestReport:
        report = super().run(patch, select, fail_fast)
        return dataclasses.replace(report, cpu_seconds=0.25, peak_mb=10.0 * len(self.calls))


class Calling(ScriptedProposer):
    """A proposer that "calls a model" once per candidate and hands over the calls' records."""

    def __init__(self, texts: list[str]) -> None:
        super().__init__(texts, adaptive=True, name="llm")
        self._calls: list[dict[str, Any]] = []

    def propose(self, ctx: ProposalContext) -> Iterator[Patch]:
        for patch in super().propose(ctx):
            self._calls.append({"kind": "propose", "model": "m-1", "input_tokens": 100, "output_tokens": 20,
                                "cost_usd": 0.001, "seconds": 0.5, "tool_calls": 2})
            yield patch

    def drain_calls(self) -> list[dict[str, Any]]:
        out, self._calls = self._calls, []
        return out


def test_model_calls_and_candidate_telemetry_are_logged() -> None:
    runner = MeasuredRunner({"m.py": SOURCE, "tests/test_m.py": "..."}, double_verdict())
    outcome, events, _ = _run([Calling(["def double(x):\n    return x * x + 1\n", GOOD])], runner=runner)
    assert events[0].kind == "started" and events[0].data["schema"] == EVENTS_SCHEMA == 4
    calls = [e for e in events if e.kind == "model_call"]
    assert len(calls) == 2
    assert calls[0].data["purpose"] == "propose" and calls[0].data["model"] == "m-1"
    assert calls[0].data["proposer"] == "llm" and calls[0].data["tool_calls"] == 2
    tested = [e for e in events if e.kind == "tested"]
    assert [(e.data["proposer"], e.data["operator"], e.data["status"]) for e in tested] == [
        ("llm", "op0", "failed"), ("llm", "op1", "plausible")]
    # the passing candidate ran twice (its failing tests, then the suite): CPU added, memory at its peak
    assert tested[1].data["cpu_seconds"] == 0.5 and tested[1].data["peak_mb"] == 10.0 * len(runner.calls)
    assert tested[0].data["cpu_seconds"] == 0.25
