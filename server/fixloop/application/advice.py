"""The end of a run that did not end fixed: what was tried, and what to do next.

`tried` says where the run looked (its top suspects), who proposed how many candidates with which
operators, and which limit ended it. `next_steps` picks concrete steps from the situation: the fix for a
setup error (tests that cannot be collected or imported, a baseline past its time limit), the exact flag
and a larger value for the limit that ended the run, `--test NODEID` when several tests fail, and a model
key when the run had none. The CLI prints both, `--json` and the editor's run summary carry them.
"""

from __future__ import annotations

import math
import re
import shlex
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from fixloop.application.config import Settings, user_config_path
from fixloop.core.limits import factor_for_twice
from fixloop.core.model import Outcome, Scope, Status, TestResult
from fixloop.core.signature import describe_collection_error, failure_ways
from fixloop.kit.printable import printable

TOP_SUSPECTS = 5
_NO_MODULE = re.compile(r"No module named '([^']+)'")
_SET = re.compile(r"set (--(?:baseline-timeout|wall-seconds) \d+)")


@dataclass(frozen=True)
class Situation:
    outcome: Outcome
    settings: Settings
    scope: Scope = Scope()
    suspects: Sequence[str] = ()  # path:line, best first (the "localized" event)
    python: str = ""  # the interpreter that ran the tests
    no_model: str = ""  # why no model proposed: "offline" | "disabled" | "no key" | "" (one could)
    setup_error: str = ""  # a run that could not start: "sandbox" | "interpreter" | "internal" | ""


def advise(s: Situation) -> dict[str, Any]:
    """`tried` and `next_steps`, for the run summary (and so `--json` and the editor)."""
    return {"tried": tried(s), "next_steps": next_steps(s)}


def tried(s: Situation) -> dict[str, Any]:
    o = s.outcome
    proposers = Counter(printable(a.patch.proposer or "?") for a in o.attempts)
    operators = Counter(printable(a.patch.operator or "?") for a in o.attempts)
    limit = getattr(s.settings, o.stopped_by, None) if o.stopped_by else None
    return {"candidates": o.candidates_evaluated, "suspects": [printable(x) for x in s.suspects[:TOP_SUSPECTS]],
            "proposers": dict(proposers.most_common()), "operators": dict(operators.most_common()),
            "stopped_by": o.stopped_by, "limit": limit}


def next_steps(s: Situation) -> list[str]:
    o = s.outcome
    if o.status in (Status.FIXED, Status.CANCELLED):
        return []
    python = printable(shlex.quote(s.python or "python"))
    if o.status is Status.ERROR and o.baseline is None:
        return _setup(s.setup_error)
    if o.status is Status.FLAKY:
        return ["the failing tests passed when run again, so there is no steady failure to fix: run them a few "
                "times to find what they depend on (test order, time, randomness, the network)"]
    steps = _errors(s, python)
    if o.status is Status.NOTHING_TO_FIX:
        if o.baseline is not None and not o.baseline.results and not steps:
            steps.append(f"check that pytest finds tests here: `{python} -m pytest --collect-only -q`, "
                         "or name a test file with --file")
        return steps
    if o.status is Status.ERROR:
        return steps
    unexplained = not steps and not s.suspects and not s.settings.allow_test_edits
    if o.stopped_by:
        steps.append(_raise(s))
    steps += _narrow(s) + _model(s)
    if unexplained:
        steps.append("no project line outside the tests was suspected: if the fault is in a test file, "
                     "--allow-test-edits lets candidates change tests")
    return steps


def _setup(kind: str) -> list[str]:
    if kind == "sandbox":
        return ["`fixloop doctor` shows which sandbox works here and what to install for the others"]
    if kind == "interpreter":
        return ["point --python at the interpreter the project's tests run with (its virtualenv's bin/python)"]
    if kind == "internal":
        return ["this is a fault in fixloop, not in your project: please report it with the run log"]
    return []


def _errors(s: Situation, python: str) -> list[str]:
    """Steps for a baseline that could not say which tests fail: no pytest, no collection, time limits."""
    baseline, limits = s.outcome.baseline, s.settings
    if baseline is None:
        return []
    steps: list[str] = []
    cut = _SET.search(baseline.problem)
    if cut:  # a baseline stopped at its time limit: the message already names the setting and a value
        steps.append(f"give the baseline more time: set {printable(cut.group(1))}, or run part of the suite with "
                     "--file or --test")
    elif baseline.problem and not any(_NO_MODULE.search(e) for e in baseline.collection_errors):
        if "pytest is not installed" in baseline.problem:
            steps.append(f"install pytest for the interpreter that runs the tests: `{python} -m pip install pytest`, "
                         "or point --python at the project's virtualenv")
        else:
            steps.append(f"see why the tests cannot run: `{python} -m pytest -q` in the project "
                         "(`fixloop doctor` checks the sandbox)")
    for error in baseline.collection_errors[:1]:
        missing = _NO_MODULE.search(error)
        if missing:
            name = printable(missing.group(1))
            steps.append(f"the tests cannot import {name!r} with {python}: point --python at the "
                         f"interpreter that has the project's dependencies, or install them there "
                         f"(`{python} -m pip install -e .`)")
        else:
            steps.append(f"fix what stops pytest from collecting the tests ({printable(describe_collection_error(error))}); "
                         f"`{python} -m pytest --collect-only -q` shows all of it")
    if baseline.timed_out and not cut:
        took = limits.test_timeout or baseline.duration
        steps.append(f"the tests as they are ran past the per-run limit of {took:.0f} s: raise it "
                     f"(`--test-timeout {_more_seconds(took)}`), or run part of the suite with --file or --test")
    if baseline.harness:
        steps.append(f"pytest itself imports {len(baseline.harness)} file(s) of this project "
                     f"({printable(baseline.harness[0])}, ...): a change there counts only when pytest still reports "
                     "fixloop's canary tests right, so a fix that changes how pytest runs is left to you "
                     "(the failing tests' tracebacks show where)")
    hung = [r.nodeid for r in baseline.results if r.hung]
    if hung:
        steps.append(f"{len(hung)} test(s) hit the per-test time limit ({printable(hung[0])}"
                     f"{', ...' if len(hung) > 1 else ''}): if they are slow rather than stuck, raise it "
                     f"(`--per-test-timeout {_more_seconds(limits.per_test_timeout)}`)")
    return steps


# The limit a run can end on: what it is called, its command-line form, and its setting.
_LIMITS = {
    "max_candidates": ("the candidate limit", "--max-candidates"),
    "search_factor": ("the offline search's time, in baselines", "--set search_factor="),
    "wall_seconds": ("the wall-time limit", "--wall-seconds"),
    "max_iterations": ("the limit on model rounds", "--max-iterations"),
    "max_tokens": ("the token budget", "--set max_tokens="),
    "max_cost_usd": ("the cost budget", "--set max_cost_usd="),
    "breaker_repeats": ("how often the same failure may come back before the model is stopped",
                        "--set breaker_repeats="),
}


def _raise(s: Situation) -> str:
    """The limit that ended the run, a larger value, and (for candidates) the wall time that value needs."""
    key, o, limits = s.outcome.stopped_by, s.outcome, s.settings
    what, flag = _LIMITS.get(key, (key, f"--set {key}="))
    current = getattr(limits, key, 0)
    value: float = current * 2
    if key == "wall_seconds":
        value = _more_seconds(current)
    elif key == "search_factor":
        value = factor_for_twice(current, o.durations.get("baseline", 0.0), o.durations.get("total", 0.0))
    shown = f"{value:.2f}" if key == "max_cost_usd" else f"{value:.0f}"
    cli = f"{flag}{shown}" if flag.endswith("=") else f"{flag} {shown}"
    setting, note = f"{key} = {shown}", ""
    per = o.durations.get("candidates", 0.0) / o.candidates_evaluated if o.candidates_evaluated else 0.0
    if key == "max_candidates" and per:
        # The pace so far says how long the larger limit takes; the wall limit must leave room for it.
        needed = o.durations.get("total", 0.0) + per * (value - current)
        if needed > limits.wall_seconds:
            wall = _whole_minutes(needed * 1.2)
            cli += f" --wall-seconds {wall}"
            setting += f" and wall_seconds = {wall}"
        note = f"; at {per:.1f} s a candidate"
    elif key == "wall_seconds" and o.candidates_evaluated:
        note = f"; {o.candidates_evaluated} candidates were tried in {current:.0f} s"
    return (f"raise {what} ({current:g} now): `{cli}`, or {setting} in {_user_file()} "
            f"(a project's [tool.fixloop] may only lower it){note}")


def _more_seconds(seconds: float) -> int:
    """Twice as long, in whole minutes once past one."""
    return _whole_minutes(2 * seconds) if 2 * seconds > 60 else int(math.ceil(2 * seconds))


def _whole_minutes(seconds: float) -> int:
    return int(math.ceil(seconds / 60) * 60)


def _user_file() -> str:
    path = user_config_path()
    home = Path.home()
    return printable(f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path))


def _narrow(s: Situation) -> list[str]:
    """Several failing tests and a run over more than one: one test at a time localizes better."""
    baseline = s.outcome.baseline
    if baseline is None or s.scope.kind == "node":
        return []
    failing = [r for r in baseline.failed if r.nodeid not in s.outcome.flaky]
    if len(failing) < 2:
        return []
    ways = failure_ways(failing)
    if len(ways) < 2:
        return [f"narrow the run to one of the {len(failing)} failing tests: "
                f"`--test {printable(shlex.quote(failing[0].nodeid))}` (in the editor: Fix this test)"]
    # Tests that fail in different ways are often different bugs, or one of them an old failure the fix
    # cannot touch: a candidate is judged on all of them, so the commonest way alone is the better start.
    way, tests = max(ways.items(), key=lambda item: len(item[1]))
    return [f"narrow the run to one of the {len(failing)} failing tests: they fail in {len(ways)} ways, the "
            f"commonest ({len(tests)} of them) {printable(way)}: `--test {printable(shlex.quote(tests[0]))}` "
            "(in the editor: Fix this test)"]


def _model(s: Situation) -> list[str]:
    """A run without a model had only the offline engine and memory: a model may find what they could not."""
    key = printable(s.settings.llm.api_key_env)
    if s.no_model == "offline":
        return [f"let a model propose fixes too: run without --offline (or offline = false), with {key} set"]
    if s.no_model == "disabled":
        return [f"let a model propose fixes too: llm.enabled = true in your settings, with {key} set"]
    if s.no_model == "no key":
        return [f"let a model propose fixes too: set {key} (in the editor: Set Anthropic API key); this run had "
                "no key, so only the offline engine and memory proposed"]
    return []
