"""The user's own hooks: commands from the user's settings called with a candidate's diff on stdin.

`pre_candidate` runs before a candidate's tests and may veto it (a non-zero exit; its last line of output
is the reason); a hook that does not answer within `timeout_seconds`, or cannot start, vetoes too, since a
gate that cannot say yes has not said yes. `deny` patterns veto a candidate whose added lines contain one,
without a process. `post_fix` (a fix was found, before it is offered) and `on_apply` (the fix was written to
the workspace) are told, and cannot undo anything: what they print is shown and logged.

Hooks are trusted like the rest of the user's settings and run on the host, never in the sandbox; a
project, its `.vscode` or its `[tool.fixloop]` can never set one (config.PROJECT_RULES: USER). They start in
a folder of their own, not in the project, so a hook never reads the project's configuration (its `.git`,
say) unless it asks for it through `FIXLOOP_WORKSPACE`. What a hook prints is project-influenced text (it
read the diff): it is bounded here and escaped wherever it is shown.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from fixloop.core.model import Finding, Patch, Verdict
from fixloop.core.patch import unified_diff
from fixloop.core.ports import SafetyCheck

MAX_SAID = 500  # characters of a hook's answer kept for the reason, the log and the screen
PRE_CANDIDATE, POST_FIX, ON_APPLY = "pre_candidate", "post_fix", "on_apply"


@dataclass(frozen=True)
class HookSettings:
    pre_candidate: tuple[str, ...] = ()  # argv; a non-zero exit vetoes the candidate
    post_fix: tuple[str, ...] = ()  # argv; told of the fix before it is offered
    on_apply: tuple[str, ...] = ()  # argv; told once the fix is written to the workspace
    timeout_seconds: float = 10.0
    deny: tuple[str, ...] = ()  # text that no added line of a candidate may contain

    @property
    def any(self) -> bool:
        return bool(self.pre_candidate or self.post_fix or self.on_apply or self.deny)


@dataclass(frozen=True)
class HookAnswer:
    ok: bool
    said: str  # the hook's last line of output, or why it did not answer


def call(hook: str, argv: tuple[str, ...], diff: str, timeout: float, workspace: Path) -> HookAnswer:
    """Run one hook with `diff` on stdin. Never raises: a hook that cannot start or hangs is an answer too."""
    env = dict(os.environ, FIXLOOP_HOOK=hook, FIXLOOP_WORKSPACE=str(workspace))
    try:
        with tempfile.TemporaryDirectory(prefix="fixloop-hook-") as cwd:
            # Its own process group: a hook that times out is stopped with whatever it started.
            with subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  cwd=cwd, env=env, start_new_session=True) as process:
                try:
                    out, err = process.communicate(diff.encode("utf-8", "replace"), timeout=timeout)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError):  # the group ended meanwhile
                        os.killpg(process.pid, signal.SIGKILL)
                    process.communicate()
                    return HookAnswer(False, f"your {hook} hook did not answer within {timeout:g} s "
                                             "(hooks.timeout_seconds)")
    except (OSError, ValueError) as e:
        return HookAnswer(False, f"your {hook} hook could not start: {e}")
    said = _last_line(out) or _last_line(err)
    if process.returncode != 0:
        return HookAnswer(False, said or f"your {hook} hook exited with code {process.returncode}")
    return HookAnswer(True, said)


def _last_line(raw: bytes) -> str:
    lines = [line.strip() for line in raw.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:MAX_SAID] if lines else ""


def denied(diff: str, patterns: tuple[str, ...]) -> str:
    """The first `deny` pattern an added line of the candidate's diff contains, as a reason ('' for none)."""
    added = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    for pattern in patterns:
        if pattern and any(pattern in line for line in added):
            return f"an added line contains {pattern!r}, which your hooks.deny forbids"
    return ""


class HookedSafety:
    """The `SafetyCheck` port: the safety rules first, then the user's deny patterns and pre_candidate hook
    (a veto is a finding of code FL-HOOK, so the candidate is skipped and the run goes on)."""

    def __init__(self, inner: SafetyCheck | None, hooks: HookSettings, workspace: Path) -> None:
        self.inner = inner
        self.hooks = hooks
        self.workspace = workspace

    def check(self, patch: Patch) -> Verdict:
        verdict = self.inner.check(patch) if self.inner is not None else Verdict(True)
        if not verdict.ok:
            return verdict
        diff = unified_diff(patch)  # once: on a large module a diff of the whole file is not free
        reason = denied(diff, self.hooks.deny)
        if not reason and self.hooks.pre_candidate:
            answer = call(PRE_CANDIDATE, self.hooks.pre_candidate, diff, self.hooks.timeout_seconds, self.workspace)
            reason = "" if answer.ok else f"vetoed by your pre_candidate hook: {answer.said}"
        if not reason:
            return verdict
        where = patch.changes[0].path if patch.changes else ""
        return Verdict(False, (*verdict.findings, Finding(where, 0, "FL-HOOK", reason, "error")), reason)


def tell(hook: str, hooks: HookSettings, patch: Patch | None, workspace: Path) -> str:
    """Tell a post_fix or on_apply hook of the fix: what it said, for the screen and the log ('' when none is set)."""
    argv: Mapping[str, tuple[str, ...]] = {POST_FIX: hooks.post_fix, ON_APPLY: hooks.on_apply}
    if patch is None or not argv.get(hook):
        return ""
    answer = call(hook, argv[hook], unified_diff(patch), hooks.timeout_seconds, workspace)
    if not answer.ok:
        return f"{hook} hook failed: {answer.said}"
    return f"{hook} hook: {answer.said}" if answer.said else f"{hook} hook ran"


def describe(hooks: HookSettings) -> list[str]:
    """`fixloop doctor`'s hook lines: which of your commands run, on what, for how long."""
    if not hooks.any:
        return ["hooks: none set (see [hooks] in the README's Configuration)"]
    lines = [f"hooks: {name} runs {' '.join(argv)}" for name, argv in
             ((PRE_CANDIDATE, hooks.pre_candidate), (POST_FIX, hooks.post_fix), (ON_APPLY, hooks.on_apply)) if argv]
    if hooks.deny:
        lines.append(f"hooks: deny refuses candidates adding {', '.join(repr(p) for p in hooks.deny)}")
    lines.append(f"hooks: each may take {hooks.timeout_seconds:g} s; they run on this machine, outside the sandbox")
    return lines
