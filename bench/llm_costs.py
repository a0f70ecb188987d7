"""Tokens, $ and wall time per fix with the scripted Anthropic-compatible server (no network, no key).

Scenarios, measured side by side in one run with the real SDK, the real loop and real pytest:
  offline-fixable   a bug the offline engine fixes; the model is wired after it   -> expect 0 tokens
  model fix         the model is wrong once, reflects, then right                 -> tokens/$ per fix
  same failure      a model whose every candidate fails the same way, with the identical-failure breaker
  (no breaker)      the same model with the breaker off: it runs until the token budget stops it
  exact repeat      a model that proposes the same patch again: caught before it is run

Usage: python bench/llm_costs.py [--smoke]   (from the repository root; about a minute on a quiet 2-core machine;
`--smoke`: a token budget of 8,000, not 20,000, so the run without the breaker stops sooner, and the offline
bug's tests on the interpreter with pytest only that the scripted scenarios use)
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "server"), str(ROOT)]
for name in [n for n in os.environ if n.startswith("ANTHROPIC_")]:
    del os.environ[name]

from fixloop.application.config import LLMSettings, MemorySettings, Settings  # noqa: E402
from fixloop.core.model import Limits, Outcome  # noqa: E402
from fixloop.core.review import ReviewSettings  # noqa: E402
from fixloop.application.session import FixSession  # noqa: E402
from fixloop.application.run import RunRequest  # noqa: E402
from tests.conftest import PYTHON  # noqa: E402
from tests.llm.fake_anthropic import FakeAnthropic  # noqa: E402
from tests.llm.harness import llm_proposer, run_loop  # noqa: E402
from tests.llm.scripted import AVERAGE_PROJECT, RIGHT, ScriptedModel, always, wrong, write_project  # noqa: E402

OFFLINE_FIXABLE = {
    "age.py": "def is_adult(age):\n    return age > 18\n",
    "test_age.py": "from age import is_adult\n\n\ndef test_eighteen():\n    assert is_adult(18)\n\n\n"
                   "def test_child():\n    assert not is_adult(10)\n",
}


def row(name: str, out: Outcome, seconds: float, requests: int) -> dict[str, object]:
    u = out.usage
    return {"scenario": name, "status": out.status.value, "candidates": out.candidates_evaluated,
            "llm_calls": u.llm_calls, "requests": requests, "tokens": u.tokens, "cost_usd": u.cost_usd,
            "wall_s": seconds, "message": out.message[:70]}


def offline_fixable(tmp: Path, python: str, review: bool) -> dict[str, object]:
    with FakeAnthropic() as fake:
        fake.fallback = ScriptedModel([], tokens=1000)  # answers the reviewer's one call
        root = write_project(tmp / f"offline-{review}", OFFLINE_FIXABLE)
        # No memory: the user's own would replay an earlier run's fix, and the scenario is the offline engine's.
        settings = Settings(python=python, llm=LLMSettings(base_url=fake.url, api_key="bench-key",
                                                           model="fake-model", max_retries=0),
                            memory=MemorySettings(enabled=False), review=ReviewSettings(enabled=review))
        t0 = time.monotonic()
        out = FixSession(RunRequest(root, settings)).run()
        name = f"offline-fixable (model wired after, review {'on' if review else 'off'})"
        return row(name, out, time.monotonic() - t0, len(fake.requests))


def scripted(tmp: Path, name: str, model: ScriptedModel, limits: Limits) -> dict[str, object]:
    with FakeAnthropic() as fake:
        fake.fallback = model
        root = write_project(tmp / name.split()[0], AVERAGE_PROJECT)
        result = run_loop(root, [llm_proposer(fake.url, limits)], limits)
        return row(name, result.outcome, result.seconds, len(fake.requests))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a smaller token budget: proves the bench runs")
    args = parser.parse_args()
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        rows.append(offline_fixable(tmp, PYTHON if args.smoke else sys.executable, review=False))
        rows.append(scripted(tmp, "model fix (2nd attempt)", ScriptedModel([wrong(1), RIGHT]), Limits()))
        # The breaker stops its run at about 5,700 tokens: a budget above that keeps the comparison.
        budget = Limits(max_tokens=8_000 if args.smoke else 20_000, breaker_repeats=3)
        rows.append(scripted(tmp, "same failure + breaker", ScriptedModel(wrong(k) for k in range(1, 1000)), budget))
        no_breaker = dataclasses.replace(budget, breaker_repeats=10_000)
        rows.append(scripted(tmp, "same failure, no breaker", ScriptedModel(wrong(k) for k in range(1, 1000)),
                             no_breaker))
        rows.append(scripted(tmp, "exact repeat", ScriptedModel(always(wrong(1))()), budget))
        rows.append(offline_fixable(tmp, PYTHON if args.smoke else sys.executable, review=True))
    header = f"{'scenario':38} {'status':9} {'cands':>5} {'calls':>5} {'tokens':>7} {'$':>9} {'wall s':>7}  message"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['scenario']:38} {r['status']:9} {r['candidates']:>5} {r['llm_calls']:>5} {r['tokens']:>7} "
              f"{r['cost_usd']:>9.5f} {r['wall_s']:>7.1f}  {r['message']}")
    fix = rows[1]
    print(f"\nper fix by the model: {fix['tokens']} tokens, ${fix['cost_usd']:.5f}, {fix['wall_s']:.1f} s wall "
          f"(scripted usage: 400 input + 40 output tokens per call, $3/$15 per Mtok)")
    print(f"offline-fixable bug: {rows[0]['tokens']} tokens, {rows[0]['requests']} requests to the model with the "
          f"review off; {rows[-1]['tokens']} tokens, {rows[-1]['requests']} request (the review) with it on")
    with_b, without = rows[2], rows[3]
    print(f"breaker: stopped after {with_b['candidates']} candidates / {with_b['tokens']} tokens; without it the same "
          f"model ran {without['candidates']} candidates / {without['tokens']} tokens until the budget "
          f"({int(without['tokens']) / max(1, int(with_b['tokens'])):.1f}x the tokens)")
    print(f"exact repeat: {rows[4]['candidates']} candidate run, then stopped before re-running the same patch")
    errored = [f"{r['scenario']}: {r['message']}" for r in rows if r["status"] == "error"]
    if args.smoke and errored:
        sys.exit("runs that errored: " + "; ".join(errored))


if __name__ == "__main__":
    main()
