"""A goal run: words -> spec -> a reproduction test verified in the sandbox -> the normal fix run.

Shared by the CLI (`fixloop fix PATH --goal TEXT`) and the language server (`fixloop.fix` with `goal`).
It offers what a `FixSession` offers (`run`, `cancel`, `summary`, `outcome`, `apply`), with the new test
file as the first change of the fix. Nothing is written to the user's files before `apply`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from fixloop.application.config import project_settings
from fixloop.core.model import Event, Outcome, Scope, Status
from fixloop.kit.rundir import open_run_dir, replace_file
from fixloop.application.result import GoalPart, RunResult
from fixloop.application.run import Run, RunRequest
from fixloop.application.runlog import RunLog
from fixloop.application.session import FixSession, seed_of
from fixloop.application.testgen.verify import Verification, verify
from fixloop.application.wiring import after_spending, make_goal_author, make_runner, make_task
from fixloop.application.workspace_io import ApplyResult
from fixloop.application.goal import memory as goal_memory
from fixloop.kit.source_index import Index
from fixloop.application.goal.newfile import create_file, remove_file, with_new_file
from fixloop.application.goal.place import new_test_path, project_files, read_sources
from fixloop.application.goal.request import Goal
from fixloop.core.goal import GoalAuthor, GoalContext, GoalRefused, Question, ReproTest, Spec
from fixloop.application.goal.resolve import check_words, resolve

log = logging.getLogger(__name__)
MAX_QUESTIONS = 3
Ask = Callable[[Question], "str | None"]  # the user's choice, or None: not answered (the run stops)


@dataclass
class Prepared:
    ctx: GoalContext
    spec: Spec
    test: ReproTest
    verification: Verification
    questions: list[dict[str, Any]] = field(default_factory=list)


class Unanswered(Exception):
    pass


class GoalSession(Run):
    """A goal run: a reproduction test from the words first, then the fix run on it (`inner`)."""

    def __init__(self, request: RunRequest, goal: Goal, ask: Ask | None = None,
                 author: GoalAuthor | None = None) -> None:
        super().__init__(request)
        self.goal = goal
        self.overlays = dict(request.overlays)
        self.notes = request.notes if request.notes is not None else tuple(project_settings(self.workspace)[1])
        self.seed = request.seed
        self.ask = ask
        # With a key (and not offline) a model writes the questions, spec and test; the offline author otherwise.
        self.author: GoalAuthor = author or make_goal_author(self.settings, self._cancel.is_set)
        self.prepared: Prepared | None = None
        self.inner: FixSession | None = None
        self.problem = ""  # usage | test | "" (see docs/protocol.md "Goal mode")
        self.lessons: list[dict[str, Any]] = []  # past goals with similar words (the memory)

    # ---- the Session protocol ------------------------------------------------------------------
    @property
    def setup_error(self) -> str:
        """Why the fix run could not start (`FixSession.setup_error`), "" before it did or when it could."""
        return self.inner.setup_error if self.inner is not None else ""

    def cancel(self) -> None:
        super().cancel()
        if self.inner is not None:
            self.inner.cancel()

    def run(self, on_event: Callable[[Event], None] = lambda e: None) -> Outcome:
        start = time.monotonic()
        self._recall(on_event)
        try:
            self.prepared = self._prepare(on_event)
        except GoalRefused as e:
            if self._cancel.is_set():  # e.g. a model author stopped mid-request by the cancel
                return self._stopped(Status.CANCELLED, "cancelled", on_event, start)
            self.problem = "usage" if e.usage else "test"
            return self._stopped(Status.ERROR, e.message, on_event, start)
        except Unanswered as e:
            return self._stopped(Status.CANCELLED, str(e), on_event, start)
        if self._cancel.is_set():
            return self._stopped(Status.CANCELLED, "cancelled", on_event, start)
        p = self.prepared
        seed = self.seed if self.seed is not None else seed_of(self.run_id)
        # One budget for the goal: what the author spent comes off the fix run's token and dollar limits.
        self.inner = FixSession(RunRequest(self.workspace, after_spending(self.settings, self.author.usage()),
                                           Scope("file", p.test.path), {**self.overlays, p.test.path: p.test.source},
                                           self.notes, seed, self.run_id))
        if self._cancel.is_set():
            self.inner.cancel()
        outcome = self.inner.run(on_event)
        if outcome.status is Status.FIXED and outcome.patch is not None:
            outcome = dataclasses.replace(outcome, patch=with_new_file(outcome.patch, p.test.path, p.test.source))
        assert self.inner.result is not None
        self.result = self._with_goal(dataclasses.replace(self.inner.result, outcome=outcome))
        self._rewrite_log()
        if outcome.status is not Status.CANCELLED:
            goal_memory.remember(self.settings.memory, self.workspace, self.run_id, p.ctx.goal, p.spec, p.test.path,
                                 outcome.patch if outcome.status is Status.FIXED else None)
        return self.result.outcome

    def _recall(self, on_event: Callable[[Event], None]) -> None:
        if not self.goal.text.strip():
            return
        self.lessons = goal_memory.recall(self.settings.memory, self.workspace, self.goal.text.strip())
        for lesson in self.lessons:
            self._note(on_event, f"a similar goal before ({lesson['similarity']}): {lesson['fix'] or lesson['goal']}")

    # ---- preparing the target test -------------------------------------------------------------
    def _note(self, on_event: Callable[[Event], None], message: str, **data: Any) -> None:
        on_event(Event("note", self.run_id, time.monotonic(), "goal", None, {"message": message, **data}))

    def _context(self) -> GoalContext:
        text = check_words(self.goal.text)
        names = project_files(self.workspace)
        sources = read_sources(self.workspace, names, self.overlays)
        index = Index.build(sources)
        cursor = index.at(self.goal.cursor_path, self.goal.cursor_line) if self.goal.cursor_line else None
        found = resolve(text, index, {n for n in sources}, cursor)
        return GoalContext(goal=text, workspace=self.workspace, sources=sources, candidates=found.candidates,
                           cursor_path=self.goal.cursor_path, cursor_line=self.goal.cursor_line,
                           assumptions=() if found.certain or len(found.candidates) > 1 else (
                               f"the goal is about {found.candidates[0].where} ({found.reason})",))

    def _author_notes(self, on_event: Callable[[Event], None]) -> None:
        """What a model author had to say (a fallback to the offline author, a spent budget), once each."""
        notes = getattr(self.author, "notes", None)
        while notes:
            self._note(on_event, notes.pop(0))

    def _answer(self, ctx: GoalContext, on_event: Callable[[Event], None], asked: list[dict[str, Any]]) -> GoalContext:
        for _ in range(MAX_QUESTIONS):
            pending = [q for q in self.author.questions(ctx) if q.id not in ctx.answers][:MAX_QUESTIONS - len(asked)]
            if not pending:
                break
            for q in pending:
                if self.goal.yes or self.ask is None:
                    answer, assumed = q.default, True
                else:
                    answer, assumed = self.ask(q), False
                    if answer is None or self._cancel.is_set():
                        raise Unanswered(f"the question {q.text!r} was not answered; nothing was written")
                asked.append({"id": q.id, "text": q.text, "answer": answer, "assumed": assumed})
                extra = (f"{q.text} assumed: {answer}",) if assumed else ()
                ctx = dataclasses.replace(ctx, answers={**ctx.answers, q.id: answer},
                                          assumptions=ctx.assumptions + extra)
                self._note(on_event, f"{q.text} {'assumed' if assumed else 'answered'}: {answer}")
            if len(asked) >= MAX_QUESTIONS:
                break
        return ctx

    def _prepare(self, on_event: Callable[[Event], None]) -> Prepared:
        ctx = self._context()
        asked: list[dict[str, Any]] = []
        ctx = self._answer(ctx, on_event, asked)
        spec = self.author.spec(ctx)
        self._author_notes(on_event)
        where = spec.target or ctx.candidates[0]
        ctx = dataclasses.replace(ctx, test_path=new_test_path(self.workspace, project_files(self.workspace),
                                                               where.path, where.function))
        self._note(on_event, f"spec: {spec.where}: expected {spec.expected}")
        feedback = ""
        for _ in range(2):  # a model author gets one more try with the refusal as feedback
            test = self.author.reproduction_test(spec, ctx, feedback)
            if test.path != ctx.test_path:
                raise GoalRefused(f"the author wrote {test.path}, not the new test file {ctx.test_path}")
            self._author_notes(on_event)
            unsafe = self._unsafe(test)
            if unsafe:
                raise GoalRefused(f"the reproduction test would do something unsafe, so it is not offered: {unsafe}")
            verification = self._verify(test)
            if verification.ok:
                spec = dataclasses.replace(spec, actual=f"the current code fails it: {verification.observed}")
                self._note(on_event, f"reproduction test {test.path}: {verification.message}")
                return Prepared(ctx, spec, test, verification, asked)
            feedback = verification.message
            self._note(on_event, f"reproduction test refused: {feedback}")
            if self._cancel.is_set():
                break
        raise GoalRefused(f"the reproduction test was refused: {feedback}")

    @staticmethod
    def _unsafe(test: ReproTest) -> str:
        """The safety rules on the new test: examples come from the project's (untrusted) docstrings, and the
        user may run the test outside the sandbox once it is accepted."""
        from fixloop.core.model import FileChange, Patch
        from fixloop.adapters.safety.check import PatchSafety

        verdict = PatchSafety().check(Patch((FileChange(test.path, "", test.source),)))
        return "" if verdict.ok else (verdict.reason or "; ".join(f"{f.code} line {f.line}: {f.message}"
                                                                  for f in verdict.findings if f.severity == "error"))

    def _verify(self, test: ReproTest) -> Verification:
        """Run the new test alone on the current code, in the sandbox, on its own scratch copy."""
        task = make_task(self.workspace, self.settings, Scope("file", test.path),
                         {**self.overlays, test.path: test.source}, seed_of(self.run_id))
        runner = make_runner(task, self.settings)
        try:
            return verify(runner, test.node_ids, test.path)
        finally:
            runner.close()

    # ---- ending ----------------------------------------------------------------------------------
    def _stopped(self, status: Status, message: str, on_event: Callable[[Event], None], start: float) -> Outcome:
        runlog = RunLog(self.workspace, self.run_id)
        outcome = Outcome(status, self.run_id, message, durations={"total": time.monotonic() - start})
        event = Event("finished", self.run_id, time.monotonic(), "done", None,
                      {"status": status.value, "message": message, "goal_problem": self.problem})
        runlog.event(event)
        on_event(event)
        self.result = self._with_goal(runlog.finish(RunResult(outcome)))
        self._rewrite_log()
        return self.result.outcome

    def _with_goal(self, result: RunResult) -> RunResult:
        """The result with the goal's part, the goal author's model calls counted as the run's."""
        p = self.prepared
        outcome = dataclasses.replace(result.outcome, usage=result.outcome.usage + self.author.usage())
        goal = GoalPart(self.goal.text, self.problem, p.spec.as_dict() if p else None, p.test.path if p else "",
                        p.test.origin if p else "", tuple(p.questions) if p else (),
                        tuple(p.spec.assumptions) if p else (),
                        tuple({k: v for k, v in lesson.items() if k != "diff"} for lesson in self.lessons))
        return dataclasses.replace(result, outcome=outcome, goal=goal)

    def _rewrite_log(self) -> None:
        """summary.json and fix.diff with the goal's parts (the fix run wrote them without)."""
        assert self.result is not None
        try:
            dir_fd = open_run_dir(self.workspace, self.run_id)
        except OSError:
            return  # the log went to a private folder (its notice says so): the summary still has it all
        try:
            replace_file(dir_fd, "summary.json", json.dumps(self.summary, indent=2, default=str).encode())
            if self.result.outcome.patch is not None:
                replace_file(dir_fd, "fix.diff", self.result.diff.encode("utf-8", "surrogateescape"))
            if self.prepared is not None:
                replace_file(dir_fd, "goal_test.py", self.prepared.test.source.encode("utf-8"))
        except OSError as e:
            log.warning("cannot add the goal to run %s's log: %s", self.run_id, e)
        finally:
            os.close(dir_fd)

    def apply(self) -> ApplyResult:
        """The new test file first (never over an existing file), then the fix; all or nothing."""
        if self.inner is None or self.prepared is None or self.outcome is None or \
                self.outcome.status is not Status.FIXED:
            return super().apply()
        test = self.prepared.test
        problem = create_file(self.workspace, test.path, test.source)
        if problem:
            return ApplyResult((), (problem,))
        result = self.inner.apply()
        if not result.ok:
            remove_file(self.workspace, test.path)
            return result
        return ApplyResult((test.path,) + result.written, ())
