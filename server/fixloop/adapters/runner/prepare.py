"""Everything a runner needs before the first test runs: the interpreter (probed in the sandbox), the
scratch copy, fixloop's own runtime files, and the policy every run shares."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from fixloop.adapters.sandbox.api import RELOCATE_ENV, Policy, Sandbox
from fixloop.adapters.runner.listing import CopyRule
from fixloop.adapters.runner.interpreter import Interpreter, interpreter_for, sandbox_env
from fixloop.adapters.runner.scratch import Scratch

PLUGIN = Path(__file__).with_name("fixloop_report.py")
SUPERVISOR = Path(__file__).with_name("fixloop_supervise.py")
WARM = Path(__file__).with_name("warm_worker.py")


@dataclass
class Prepared:
    scratch: Scratch
    interpreter: Interpreter
    policy: Policy
    coverage_package: Path | None  # fixloop's coverage.py, shown read-only to coverage runs


def prepare(workspace: Path, sandbox: Sandbox, python: str = "", overlays: Mapping[str, str] | None = None,
            copy_rule: CopyRule = CopyRule()) -> Prepared:
    interpreter = interpreter_for(workspace, python, sandbox)  # never runs project code on the host
    scratch = Scratch(workspace, dict(overlays or {}), copy_rule)
    try:
        # fixloop's own files, all in place before anything runs; every run sees them read-only.
        scratch.add_runtime("fixloop_report.py", PLUGIN.read_bytes())
        scratch.add_runtime("fixloop_paths.py", PLUGIN.with_name("fixloop_paths.py").read_bytes())
        scratch.add_runtime("fixloop_options.py", PLUGIN.with_name("fixloop_options.py").read_bytes())
        scratch.add_runtime("fixloop_values.py", PLUGIN.with_name("fixloop_values.py").read_bytes())
        scratch.add_runtime("fixloop_spectrum.py", PLUGIN.with_name("fixloop_spectrum.py").read_bytes())
        scratch.add_runtime("fixloop_supervise.py", SUPERVISOR.read_bytes())
        scratch.add_runtime("fixloop_warm.py", WARM.read_bytes())
        coverage_package = expose_coverage(scratch)
    except BaseException:
        scratch.close()
        raise
    # Where the project's own files (a `.pth`, an editable finder) say it lives, for backends that cannot
    # place the copy there.
    env = sandbox_env(interpreter.path, scratch.runtime, {RELOCATE_ENV: str(scratch.at)})
    policy = Policy(read_only=interpreter.read_only, env=env)
    return Prepared(scratch, interpreter, policy, coverage_package)


def expose_coverage(scratch: Scratch) -> Path | None:
    """fixloop's coverage.py, linked from the host-only runtime folder (made before any run)."""
    try:
        import coverage
    except ImportError:
        return None
    package = Path(coverage.__file__).resolve().parent
    (scratch.runtime / "cov").mkdir(mode=0o755)
    os.symlink(package, scratch.runtime / "cov" / "coverage")
    return package


def coverage_policy(policy: Policy, prepared: Prepared, tool: str = "coverage") -> Policy:
    """The policy of a run that also records per-test lines (`tool="settrace"` skips coverage.py)."""
    env = dict(policy.env, FIXLOOP_COVERAGE="settrace" if tool == "settrace" else "1")
    read_only = policy.read_only
    if prepared.coverage_package is not None:
        # Appended, so a coverage the project installed itself wins.
        env["PYTHONPATH"] = f"{policy.env.get('PYTHONPATH', '')}:{prepared.scratch.runtime / 'cov'}"
        read_only = read_only + (prepared.coverage_package,)
    return Policy(read_only, env, policy.network)


def warm_policy(policy: Policy, prepared: Prepared) -> Policy:
    """The warm workers' policy: fixloop's coverage.py readable too, for the one child that records the spectrum
    (only that child puts it on its path; a coverage the project installed comes first)."""
    if prepared.coverage_package is None:
        return policy
    return dataclasses.replace(policy, read_only=policy.read_only + (prepared.coverage_package,))
