"""Fix runs off the event loop: one at a time per workspace (one more may wait), progress while
it works, cancellation from the client, and a summary when it ends."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, runtime_checkable

from lsprotocol import types as t

from fixloop.core.model import Event, Outcome, Scope, Status
from fixloop.application.goal.request import Goal
from fixloop.application.run import Run, RunRequest
from fixloop.application.runlog import new_run_id
from fixloop.lsp.editor import Editor
from fixloop.lsp.overlays import open_python_texts
from fixloop.lsp.paths import BadInput
from fixloop.lsp.progress import BEGIN_MESSAGE, ProgressReporter, end_message
from fixloop.lsp.settings import ServerConfig

if TYPE_CHECKING:
    from fixloop.application.config import Settings

log = logging.getLogger(__name__)


INSTALL, NOT_NOW = "Install", "Not now"


@runtime_checkable
class Installing(Protocol):
    """A session that can install the package its run found missing (a fix run's, not a goal's)."""

    def install(self) -> Any: ...


Session = Run  # a fix run, a goal run or a past fix's check: one kind of run (application/run.py)


SessionFactory = Callable[[RunRequest], Session]
Ask = Callable[[Any], "str | None"]  # a goal's clarifying question (goal.ports.Question) -> the choice
GoalFactory = Callable[[RunRequest, Goal, Ask], Session]
Finished = Callable[[str, dict[str, Any], "Outcome | None"], Awaitable[None]]


def default_session_factory(request: RunRequest) -> Session:
    from fixloop.application.session import FixSession  # the loop's adapters load only when a fix is asked for

    return FixSession(request)


def default_goal_factory(request: RunRequest, goal: Goal, ask: Ask) -> Session:
    from fixloop.application.goal.session import GoalSession  # loads only when a goal is asked for

    return GoalSession(request, goal, ask=ask)


def run_settings(config: ServerConfig) -> "Settings":
    """The settings for a run: the editor's API key goes to the model client, in memory only."""
    from fixloop.application.wiring import with_api_key  # the loop's adapters load only when a fix is asked for

    return with_api_key(config.settings, config.api_key)


@dataclass
class Request:
    run_id: str
    scope: Scope
    overlays: dict[str, str] | None = None  # the editor's text when the fix was asked for
    factory: SessionFactory | None = None  # another kind of session than a fix run (checking a past fix)
    goal: Goal | None = None  # goal mode: the problem in words (docs/protocol.md "Goal mode")
    seed: int | None = None  # replays a logged run's random choices; otherwise they follow from run_id
    checks: tuple[str, ...] = ()  # checkers whose findings are targets too, besides the settings' `checks`
    check_files: tuple[str, ...] = ()  # only the findings in these files are targets (empty: every file's)


@dataclass
class Active:
    request: Request
    session: Session | None = None
    thread: threading.Thread | None = None
    done: asyncio.Future[Outcome] | None = None
    cancel_requested: bool = False


class RunManager:
    """`progress` is pygls' work-done progress tracker; `finished(run_id, summary, outcome)` takes each
    run's end (the review)."""

    def __init__(self, editor: Editor, progress: Callable[[], Any], finished: Finished,
                 factory: SessionFactory = default_session_factory,
                 goal_factory: GoalFactory = default_goal_factory) -> None:
        self.editor = editor
        self.progress = progress
        self.finished = finished
        self.factory = factory
        self.goal_factory = goal_factory
        self.active: Active | None = None
        self.queued: Request | None = None
        self.threads: list[threading.Thread] = []
        self._driver: asyncio.Task[None] | None = None

    # ---- requests from commands -------------------------------------------------------------
    def submit(self, scope: Scope, goal: Goal | None = None, factory: SessionFactory | None = None,
               run_id: str = "", seed: int | None = None, checks: tuple[str, ...] = (),
               check_files: tuple[str, ...] = ()) -> dict[str, Any]:
        """Start (or queue) a fix run (in goal mode with `goal`), or with `factory` another session that
        ends like one."""
        if self.editor.root() is None:
            raise BadInput("no workspace folder is open: open the project's folder to fix it")
        from fixloop.application.workspace_guard import refusal

        refused = refusal(self.editor.root(), self.editor.config().settings.workspace)
        if refused:  # before any copy is made
            self.editor.show(t.MessageType.Error, f"fixloop: {refused}")
            raise BadInput(refused)
        request = Request(run_id or new_run_id(), scope, goal=goal, factory=factory, seed=seed, checks=checks,
                          check_files=check_files)
        if self.active is None:
            request.overlays = self._overlays()
            self.active = Active(request)
            self._driver = asyncio.ensure_future(self._drive())
            return {"run_id": request.run_id, "queued": False}
        if self.queued is None:
            self.queued = request
            self.editor.show(t.MessageType.Info, "a fix is running; this one starts when it ends")
            return {"run_id": request.run_id, "queued": True}
        raise BadInput("a fix is already running and another is waiting; cancel one first (fixloop.cancel)")

    def cancel(self, run_id: str | None = None) -> bool:
        """Cancel the named run (queued or running), or with no id the running one."""
        if run_id is not None and self.queued is not None and self.queued.run_id == run_id:
            self.queued = None
            return True
        active = self.active
        if active is None or (run_id is not None and active.request.run_id != run_id):
            return False
        active.cancel_requested = True
        if active.session is not None:
            active.session.cancel()
        return True

    def cancel_all(self) -> None:
        self.queued = None
        self.cancel()

    def join(self, timeout: float) -> None:
        """Wait for worker threads to finish cleaning up (scratch copies, sandboxed processes)."""
        for thread in list(self.threads):
            thread.join(timeout)

    # ---- the driver -------------------------------------------------------------------------
    async def _drive(self) -> None:
        try:
            while self.active is not None:
                try:
                    await self._run_one(self.active)
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # a bug here must not wedge the queue: report, go on
                    log.exception("the fix run failed")
                    self.editor.show(t.MessageType.Error, f"fixloop: the run failed: {type(e).__name__}: {e}")
                nxt, self.queued = self.queued, None
                self.active = Active(nxt) if nxt is not None else None
        except asyncio.CancelledError:  # the connection went away: stop the loop, clean up
            self.cancel_all()
            raise

    async def _run_one(self, active: Active) -> None:
        request = active.request
        loop = asyncio.get_running_loop()
        token = f"fixloop-{request.run_id}"
        progress = await self._begin_progress(token)

        def send(message: str) -> None:
            if progress:
                self.progress().report(token, t.WorkDoneProgressReport(message=message, cancellable=True))

        reporter = ProgressReporter(send, loop.call_later)  # closed when the run ends, however it ends

        def report(event: Event) -> None:
            if event.kind == "started" and event.data.get("python"):
                self.editor.log(f"fixloop run {request.run_id}: tests run with {event.data['python']}")
            elif event.kind == "note" and event.data.get("config"):
                self.editor.log(f"fixloop settings: {event.data['config']}")
            reporter.update(event)

        def on_event(event: Event) -> None:  # called on the worker thread
            try:
                loop.call_soon_threadsafe(report, event)
            except RuntimeError:  # the event loop is gone: the client disconnected, the run is cancelled
                pass

        root = self.editor.root()
        assert root is not None
        active.done = loop.create_future()
        try:
            session = self._open(request, root, loop, active)
        except Exception as e:  # a bad workspace or settings: report, never crash the server
            log.exception("cannot start a fix")
            session = None
            summary = {"run_id": request.run_id, "status": "error", "message": f"cannot start: {e}"}
        if session is not None:
            active.session = session
            if active.cancel_requested:
                session.cancel()
            thread = threading.Thread(target=self._work, args=(session, on_event, loop, active.done),
                                      name=f"fixloop-run-{request.run_id}")
            self.threads = [th for th in self.threads if th.is_alive()] + [thread]
            active.thread = thread
            thread.start()
            try:
                await asyncio.shield(active.done)
            except asyncio.CancelledError:
                session.cancel()
                reporter.close()
                raise
            summary = {**(session.summary or {"status": "error", "message": "the run ended without a summary"}),
                       "run_id": request.run_id}
        reporter.close()
        if progress:
            self.progress().end(token, t.WorkDoneProgressEnd(message=end_message(summary)))
            self.progress().tokens.pop(token, None)  # pygls keeps ended tokens forever
        outcome = session.outcome if session is not None else None
        installed = await self._offer_install(session, summary) if session is not None else None
        await self.finished(request.run_id, summary | ({"installed": installed} if installed is not None else {}),
                            outcome)
        if installed is not None and installed["ok"] and request.goal is None and self.queued is None:
            self.queued = Request(new_run_id(), request.scope, factory=request.factory)  # the same fix, again

    async def _offer_install(self, session: Session, summary: dict[str, Any]) -> dict[str, Any] | None:
        """A missing package that is all that fails: Install / Not now (nothing installs without the click).
        None when nothing was offered or the client cannot ask."""
        offer, choose = summary.get("install"), self.editor.choose
        if not isinstance(offer, dict) or choose is None or not isinstance(session, Installing):
            return None
        answer = await choose(f"fixloop: the tests need {offer['requirement']}, which {offer['python']} does not "
                              "have. Install it there (wheels from your index, installed in the sandbox) and run "
                              "the fix again?", [INSTALL, NOT_NOW])
        if answer != INSTALL:
            self.editor.show(t.MessageType.Info, f"fixloop: not installed; to install it yourself: {offer['command']}")
            return {"ok": False, "said": "declined"}
        done = await asyncio.to_thread(session.install)  # a download and a sandboxed pip: never on the event loop
        self.editor.show(t.MessageType.Info if done.ok else t.MessageType.Error, f"fixloop: {done.said}")
        return {"ok": done.ok, "said": done.said}

    def _open(self, request: Request, root: Path, loop: asyncio.AbstractEventLoop, active: Active) -> Session:
        config = self.editor.config()
        settings = run_settings(config)
        if request.checks:
            settings = dataclasses.replace(settings, checks=tuple(dict.fromkeys(settings.checks + request.checks)))
        if request.check_files:
            settings = dataclasses.replace(settings, check_files=request.check_files)
        asked = RunRequest(root, settings, request.scope,
                           request.overlays if request.overlays is not None else self._overlays(),
                           config.problems, request.seed, request.run_id)
        if request.goal is None:
            return (request.factory or self.factory)(asked)
        return self.goal_factory(asked, request.goal, self._asker(loop, active))

    def _asker(self, loop: asyncio.AbstractEventLoop, active: Active) -> Ask:
        """A goal's question, asked from the run's worker thread with window/showMessageRequest."""
        choose = self.editor.choose

        def ask(question: Any) -> str | None:
            if choose is None:
                return None
            future = asyncio.run_coroutine_threadsafe(choose(f"fixloop: {question.text}", list(question.choices)),
                                                      loop)
            while not active.cancel_requested:
                try:
                    return future.result(timeout=0.2)
                except TimeoutError:
                    continue
                except Exception as e:  # the client cannot show it, or went away: not answered
                    log.warning("a goal question could not be asked: %s", e)
                    return None
            future.cancel()
            return None

        return ask

    @staticmethod
    def _work(session: Session, on_event: Callable[[Event], None], loop: asyncio.AbstractEventLoop,
              done: asyncio.Future[Outcome]) -> None:
        try:
            outcome = session.run(on_event)
        except BaseException as e:  # FixSession catches program failures; this is the last guard
            log.exception("the fix run failed")
            outcome = Outcome(Status.ERROR, session.run_id, f"internal error: {e}")
        try:
            loop.call_soon_threadsafe(lambda: done.done() or done.set_result(outcome))
        except RuntimeError:  # the event loop is gone: the server is exiting
            pass

    async def _begin_progress(self, token: str) -> bool:
        window = self.editor.capabilities().window
        if not (window and window.work_done_progress):
            return False
        progress = self.progress()
        try:
            await asyncio.wait_for(progress.create_async(token), timeout=5)
        except Exception:
            log.warning("the client did not create a progress token")
            return False
        future = progress.tokens.get(token)
        if future is not None:
            run_id = token.removeprefix("fixloop-")
            future.add_done_callback(lambda f: self.cancel(run_id) if f.cancelled() else None)
        progress.begin(token, t.WorkDoneProgressBegin(
            title="fixloop", message=BEGIN_MESSAGE, cancellable=True))
        return True

    def _overlays(self) -> dict[str, str]:
        root = self.editor.root()
        assert root is not None
        return open_python_texts(self.editor, root)
