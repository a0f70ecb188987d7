"""The user's hooks: real processes given the candidate's diff on stdin. A veto, a hook that hangs and a hook
that crashes each skip the candidate with the hook's message, and the run goes on to the next one; deny
patterns need no process; a project can never set a hook; post_fix and on_apply are told of the fix."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from fixloop.application.config import Settings, from_pyproject, load
from fixloop.core.loop import drive, run
from fixloop.core.model import Event, FileChange, Limits, Patch, Scope, Status, Task
from fixloop.adapters.runner.pytest_runner import PytestRunner
from fixloop.adapters.safety.check import PatchSafety
from fixloop.adapters.safety.hooks import HookedSafety, HookSettings, call
from fixloop.adapters.sandbox.plain import PlainSandbox
from fixloop.application.wiring import make_ports
from tests.conftest import PYTHON, REPO, fixloop_env
from tests.fakes import Candidate, ScriptedProposer
from tests.safety.test_safety_loop import CALC, SWAP, make_project

# Reads the diff; on a candidate that multiplies: `veto` says no, `hang` never answers, `crash` raises.
HOOK = """import os, sys, time
diff = sys.stdin.read()
with open({log!r}, "a") as log:
    log.write(os.getcwd() + "|" + os.environ.get("FIXLOOP_HOOK", "") + "|" + os.environ.get("FIXLOOP_WORKSPACE", "") + "\\n")
    log.write(diff + "\\n--\\n")
if "a * b" in diff:
    if {how!r} == "veto":
        print("multiplying is not allowed here")
        sys.exit(1)
    if {how!r} == "hang":
        time.sleep(30)
    raise RuntimeError("the hook broke")
print("looks fine")
"""


def _hook(tmp_path: Path, how: str) -> tuple[str, ...]:
    script = tmp_path / f"hook_{how}.py"
    script.write_text(HOOK.format(log=str(tmp_path / f"{how}.log"), how=how))
    return (sys.executable, str(script))


def _patch(before: str, after: str) -> Patch:
    return Patch((FileChange("calc.py", before, after),), "test", "op", "summary")


MULTIPLY = _patch(CALC, CALC.replace("a - b", "a * b"))
ADD = _patch(CALC, CALC.replace("a - b", "a + b"))


@pytest.mark.parametrize("how, said", [("veto", "multiplying is not allowed here"),
                                       ("hang", "did not answer within 1 s"),
                                       ("crash", "RuntimeError: the hook broke")])
def test_a_veto_a_hang_and_a_crash_each_refuse_the_candidate_with_the_hooks_message(
        tmp_path: Path, how: str, said: str) -> None:
    hooks = HookSettings(pre_candidate=_hook(tmp_path, how), timeout_seconds=1.0)
    safety = HookedSafety(PatchSafety(), hooks, tmp_path / "proj")
    started = time.monotonic()
    verdict = safety.check(MULTIPLY)
    assert not verdict.ok and said in verdict.reason and verdict.reason.startswith("vetoed by your pre_candidate hook")
    assert [f.code for f in verdict.findings] == ["FL-HOOK"]
    assert time.monotonic() - started < 10  # a hanging hook costs its timeout, not its sleep
    assert safety.check(ADD).ok  # the next candidate is judged on its own
    cwd, hook, workspace = (tmp_path / f"{how}.log").read_text().splitlines()[0].split("|")
    assert hook == "pre_candidate" and workspace == str(tmp_path / "proj")
    assert cwd != str(tmp_path / "proj")  # a hook starts in a folder of its own, never the project
    assert "+    return a + b" in (tmp_path / f"{how}.log").read_text()  # the diff came on stdin


def test_a_hook_that_times_out_is_stopped_with_what_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {pid_file}; wait"
    started = time.monotonic()
    answer = call("pre_candidate", ("sh", "-c", script), "", 1.0, tmp_path)
    assert not answer.ok and "did not answer within 1 s" in answer.said
    assert time.monotonic() - started < 10
    status = Path(f"/proc/{pid_file.read_text().strip()}/status")
    assert not status.exists() or "State:\tZ" in status.read_text()  # gone (or dead, awaiting its reaper)


def test_a_hook_that_cannot_start_refuses_and_the_safety_rules_still_come_first(tmp_path: Path) -> None:
    missing = HookedSafety(PatchSafety(), HookSettings(pre_candidate=(str(tmp_path / "no-such-hook"),)), tmp_path)
    verdict = missing.check(ADD)
    assert not verdict.ok and "could not start" in verdict.reason
    unsafe = _patch(CALC, CALC.replace("    return a - b", "    import os\n    os.system('true')\n    return a + b"))
    allowing = HookedSafety(PatchSafety(), HookSettings(pre_candidate=_hook(tmp_path, "veto")), tmp_path)
    assert not allowing.check(unsafe).ok and not (tmp_path / "veto.log").exists()  # refused before any hook


def test_deny_patterns_refuse_added_lines_only(tmp_path: Path) -> None:
    safety = HookedSafety(PatchSafety(), HookSettings(deny=("a * b", "requests.post")), tmp_path)
    verdict = safety.check(MULTIPLY)
    assert not verdict.ok and "'a * b'" in verdict.reason and "hooks.deny" in verdict.reason
    # The removed line held the pattern, the added one does not: allowed.
    assert safety.check(_patch(CALC.replace("a - b", "a * b"), CALC.replace("a - b", "a + b"))).ok


def test_a_hooks_answer_is_bounded_and_an_exit_code_without_words_is_named(tmp_path: Path) -> None:
    loud = call("post_fix", (sys.executable, "-c", "print('x' * 100000)"), "", 5.0, tmp_path)
    assert loud.ok and len(loud.said) == 500
    quiet = call("pre_candidate", (sys.executable, "-c", "raise SystemExit(3)"), "", 5.0, tmp_path)
    assert not quiet.ok and quiet.said == "your pre_candidate hook exited with code 3"


def test_a_project_can_never_set_a_hook_and_the_users_file_can(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.fixloop.hooks]\npre_candidate = ["sh", "-c", "exit 0"]\n'
                                             'deny = []\ntimeout_seconds = 99\n')
    settings, problems = from_pyproject(tmp_path, Settings())
    assert settings.hooks == HookSettings()
    assert sum("hooks." in p and "ignored from a project file" in p for p in problems) == 3
    mine, problems = load({"hooks": {"pre_candidate": ["my-gate", "--strict"], "deny": ["rm -rf"]}})
    assert mine.hooks.pre_candidate == ("my-gate", "--strict") and mine.hooks.deny == ("rm -rf",) and not problems


@pytest.mark.e2e  # the real loop on real pytest, the hook a real process
@pytest.mark.parametrize("how", ["veto", "hang", "crash"])
def test_the_run_goes_on_past_a_refused_candidate_to_the_fix(tmp_path: Path, how: str) -> None:
    project = make_project(tmp_path)
    limits = Limits(test_timeout=60, per_test_timeout=30, wall_seconds=120)
    task = Task(project, Scope(), limits)
    settings = Settings(hooks=HookSettings(pre_candidate=_hook(tmp_path, how), timeout_seconds=1.0))
    runner = PytestRunner.open(project, PlainSandbox(), limits, python=PYTHON, warm_workers=0)
    try:
        ports = make_ports(task, settings, runner, lambda: False, time.monotonic)
        assert isinstance(ports.safety, HookedSafety)  # the wiring puts the user's hooks after the rules
        multiply = Candidate(lambda s: {"calc.py": s["calc.py"].replace("a - b", "a * b")}, "multiply", "- to *")
        ports = replace(ports, proposers=[ScriptedProposer([multiply, SWAP], path="calc.py")])
        events: list[Event] = []
        outcome = drive(run(task, ports, "run-1"), events.append)
    finally:
        runner.close()
    assert outcome.status is Status.FIXED and outcome.patch is not None
    first, second = outcome.attempts
    assert first.status == "unsafe" and first.report is None and "pre_candidate hook" in first.note
    assert second.patch.operator == "swap" and second.status == "plausible"
    assert [e.candidate for e in events if e.kind == "tested"] == [2]  # the refused candidate never ran
    assert (project / "calc.py").read_text() == CALC


@pytest.mark.e2e  # the CLI end to end
def test_post_fix_and_on_apply_hooks_are_told_of_the_fix_and_shown(tmp_path: Path) -> None:
    project = tmp_path / "inventory"
    shutil.copytree(REPO / "examples" / "inventory", project, ignore=shutil.ignore_patterns(".fixloop", "__pycache__"))
    told = tmp_path / "told"
    script = tmp_path / "tell.py"
    script.write_text("import os, sys\nopen(os.path.join(%r, os.environ['FIXLOOP_HOOK']), 'w').write(sys.stdin.read())\n"
                      "print('noted \\x1b[2J by ' + os.environ['FIXLOOP_HOOK'])\n" % str(told))
    told.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(f"[hooks]\npost_fix = [{json.dumps(sys.executable)}, {json.dumps(str(script))}]\n"
                      f"on_apply = [{json.dumps(sys.executable)}, {json.dumps(str(script))}]\n")
    env = fixloop_env(XDG_DATA_HOME=str(tmp_path / "data"), FIXLOOP_CONFIG=str(config))
    proc = subprocess.run([sys.executable, "-m", "fixloop", "fix", str(project), "--yes", "--python", PYTHON,
                           "--sandbox", "none", "--no-memory", "--offline"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    for hook in ("post_fix", "on_apply"):
        assert "+    if quantity >= BULK_THRESHOLD:" in (told / hook).read_text()
        assert f"{hook} hook: noted \\x1b[2J by {hook}" in proc.stderr  # shown, escaped
    assert "\x1b[2J" not in proc.stderr
    assert proc.stderr.index("post_fix hook") < proc.stderr.index("applied to") < proc.stderr.index("on_apply hook")
    doctor = subprocess.run([sys.executable, "-m", "fixloop", "doctor", str(project), "--sandbox", "none"],
                            capture_output=True, text=True, env=env, timeout=120)
    assert f"hooks: post_fix runs {sys.executable} {script}" in doctor.stdout
    assert "outside the sandbox" in doctor.stdout and "pre_candidate" not in doctor.stdout
