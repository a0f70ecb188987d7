"""`fixloop-server`: the language server (pygls 2, stdio or TCP).

Start-up imports only pygls, lsprotocol and the settings: the loop's adapters, tree-sitter's grammar,
bandit and the memory store load when first needed, so `initialize` answers at once.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import signal
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Generator, NoReturn, Sequence, cast

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.exceptions import FeatureNotificationError, JsonRpcMethodNotFound
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import CANCEL_REQUEST
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from fixloop import __version__
from fixloop.kit.printable import log_to
from fixloop.lsp.code_actions import code_actions
from fixloop.lsp.commands import guarded, handlers
from fixloop.lsp.contract import PROTOCOL_VERSION, SOURCE_FIX, WRITE_TESTS, WRITE_TESTS_KIND
from fixloop.lsp.diagnostics import DiagnosticsEngine
from fixloop.lsp.display import displayed
from fixloop.lsp.editor import Editor
from fixloop.lsp.framing import FramedInput
from fixloop.lsp.hover import hover
from fixloop.lsp.providers import DecisionRecorder, DefaultProviders, DiagnosticsProvider, RunDirRecorder
from fixloop.lsp.review_edits import Reviewer
from fixloop.lsp.write_tests import TestWriter
from fixloop.lsp.runs import RunManager, SessionFactory, default_session_factory
from fixloop.lsp.isolation import scrub_sys_path
from fixloop.lsp.settings import ServerConfig, parse_options

log = logging.getLogger("fixloop.lsp")
CLEANUP_SECONDS = 30.0


class FixloopProtocol(LanguageServerProtocol):
    def _handle_notification(self, method_name: str, params: Any) -> None:
        """pygls 2.1 keeps a future per handled notification in `_request_futures` and never removes
        it (about 2 KB per didChange, unbounded). Same handling, but the entry goes when it is done."""
        if method_name == CANCEL_REQUEST:
            return super()._handle_notification(method_name, params)
        try:
            handler = self._get_handler(method_name)
        except JsonRpcMethodNotFound:
            log.debug("ignoring notification %r", method_name)
            return None
        msg_id = str(uuid.uuid4())

        def done(future: Any) -> None:
            if not future.cancelled():  # shutdown cancels while iterating over the dict: leave it then
                self._request_futures.pop(msg_id, None)
            self._check_handler_result(future)

        try:
            self._execute_handler(msg_id=msg_id, handler=handler, args=(params,), callback=done)
        except Exception as error:
            log.exception("failed to handle notification %r", method_name)
            self._server._report_server_error(error, FeatureNotificationError)
        return None

    # What this server relies on of pygls 2's protocol internals (pinned <3 in pyproject.toml), named once here.
    def _send_data(self, data: Any) -> None:
        """Every message to the editor, its display text made printable (lsp/display.py)."""
        if data and not isinstance(data, dict):
            data = json.loads(json.dumps(data, default=self._serialize_message))
        super()._send_data(displayed(data) if data else data)

    def send_raw(self, message: dict[str, Any]) -> None:
        """Send a message that is already plain JSON, skipping lsprotocol's converter."""
        self._send_data(message)

    @property
    def shut_down(self) -> bool:
        """The client asked for `shutdown` before the connection ended (a clean exit)."""
        return bool(self._shutdown)

    @lsp_method(t.INITIALIZE)
    def lsp_initialize(self, params: t.InitializeParams) -> Generator[Any, Any, t.InitializeResult]:
        result = yield from super().lsp_initialize(params)
        result.capabilities.experimental = {"fixloop": {"protocol": PROTOCOL_VERSION}}
        return result


class FixloopServer(LanguageServer):
    """The composition root of the language server: it owns the connection and hands each part only
    what that part needs (the parts never see the server)."""

    def __init__(self, provider: DiagnosticsProvider | None = None, recorder: DecisionRecorder | None = None,
                 session_factory: SessionFactory = default_session_factory) -> None:
        super().__init__("fixloop", __version__, t.TextDocumentSyncKind.Incremental, protocol_cls=FixloopProtocol)
        self.config = ServerConfig()
        self.root: Path | None = None
        self.init_options: Any = None
        self.pending_problems: list[str] = []
        self.said: set[str] = set()  # settings problems already shown (each configuration pull finds them again)
        self.editor = Editor(root=lambda: self.root, config=lambda: self.config, workspace=lambda: self.workspace,
                             capabilities=lambda: self.client_capabilities, show=self.show, log=self.log,
                             choose=self.choose)
        provider = provider or DefaultProviders(lambda: self.root, lambda: self.config.settings)
        self.diagnostics = DiagnosticsEngine(self.editor, provider, self.publish_diagnostics)
        self.review = Reviewer(self.editor, self.protocol.notify, self.workspace_apply_edit_async,
                               recorder or RunDirRecorder(lambda: self.root, provider.store,
                                                                        lambda: self.config.settings))
        self.runs = RunManager(self.editor, lambda: self.work_done_progress, self.review.finished, session_factory)
        self.tests = TestWriter(self.editor, self.review, lambda: self.work_done_progress)

    @property
    def rpc(self) -> FixloopProtocol:
        return cast(FixloopProtocol, self.protocol)  # __init__ passes protocol_cls=FixloopProtocol

    def publish_diagnostics(self, params: dict[str, Any]) -> None:
        """Diagnostics go out as plain JSON: a 2,000-line file has hundreds, and converting lsprotocol
        objects costs more than finding them."""
        self.rpc.send_raw({"jsonrpc": "2.0", "method": t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, "params": params})

    def show(self, kind: t.MessageType, message: str) -> None:
        self.window_show_message(t.ShowMessageParams(type=kind, message=message))

    async def choose(self, message: str, choices: Sequence[str]) -> str | None:
        """A question with buttons (goal mode's clarifying questions); None when the user dismisses it."""
        answer = await self.window_show_message_request_async(t.ShowMessageRequestParams(
            type=t.MessageType.Info, message=message, actions=[t.MessageActionItem(title=c) for c in choices]))
        return answer.title if answer is not None else None

    def log(self, message: str, kind: t.MessageType = t.MessageType.Info) -> None:
        self.window_log_message(t.LogMessageParams(type=kind, message=message))

    def warn_settings(self, problems: Sequence[str]) -> None:
        """Each settings problem once per server: a configuration pull finds the project's again."""
        for p in problems:
            if p not in self.said:
                self.said.add(p)
                self.show(t.MessageType.Warning, f"fixloop settings: {p}")

    def apply_config(self, answer: Any) -> None:
        """The client's `workspace/configuration` answer, over the user's initializationOptions (settings.py
        says who may decide what)."""
        config, problems = parse_options(self.init_options, self.root, answer)
        before = self.config.settings.diagnostics
        self.config = config
        self.warn_settings(problems)
        if config.settings.diagnostics != before:
            self.diagnostics.refresh_all()

    async def pull_configuration(self) -> None:
        caps = self.client_capabilities.workspace
        if not (caps and caps.configuration):
            return
        scope = self.root.as_uri() if self.root else None
        try:
            values = await self.workspace_configuration_async(
                t.ConfigurationParams(items=[t.ConfigurationItem(section="fixloop", scope_uri=scope)]))
        except Exception as e:
            log.warning("workspace/configuration failed: %s", e)
            return
        value = values[0] if values else None
        if value is not None:
            self.apply_config(value)


def _workspace_root(params: t.InitializeParams) -> Path | None:
    uri = params.workspace_folders[0].uri if params.workspace_folders else params.root_uri
    path = to_fs_path(uri) if uri else params.root_path
    if not path:
        return None
    root = Path(path).resolve()
    return root if root.is_dir() else None


async def _warn_about_root(ls: FixloopServer) -> None:
    """A root that is `/`, a home folder or too large to copy: say so now, fixes will be refused."""
    from fixloop.application.workspace_guard import refusal

    if ls.root is None:
        return
    # The count stops at the limit, but it reads the disk: off the event loop.
    refused = await asyncio.get_running_loop().run_in_executor(None, refusal, ls.root, ls.config.settings.workspace)
    if refused:
        ls.show(t.MessageType.Warning, f"fixloop: diagnostics only; {refused}")


def _warm_up() -> None:
    """Load the grammar and the safety rules before the first document needs them."""
    try:
        from fixloop.application import wiring

        wiring.editor_safety_scan("import os\nos.system('true')\n", "")
    except Exception:
        log.exception("warm-up failed")


def build_server(provider: DiagnosticsProvider | None = None, recorder: DecisionRecorder | None = None,
                 session_factory: SessionFactory = default_session_factory) -> FixloopServer:
    server = FixloopServer(provider, recorder, session_factory)

    @server.feature(t.INITIALIZE)
    def initialize(ls: FixloopServer, params: t.InitializeParams) -> None:
        ls.root = _workspace_root(params)
        if ls.root is not None:
            for entry in scrub_sys_path(ls.root):
                log.warning("dropped %s from the module search path: it is inside the workspace", entry)
        ls.init_options = params.initialization_options
        ls.config, ls.pending_problems = parse_options(params.initialization_options, ls.root)

    @server.feature(t.INITIALIZED)
    async def initialized(ls: FixloopServer, params: t.InitializedParams) -> None:
        ls.warn_settings(ls.pending_problems)
        ls.pending_problems = []
        if ls.root is None:
            ls.show(t.MessageType.Warning, "fixloop: no workspace folder is open; diagnostics only, no fixes")
        else:
            await _warn_about_root(ls)
        threading.Thread(target=_warm_up, name="fixloop-warm-up", daemon=True).start()
        await ls.pull_configuration()

    @server.feature(t.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(ls: FixloopServer, params: t.DidChangeConfigurationParams) -> None:
        await ls.pull_configuration()

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: FixloopServer, params: t.DidOpenTextDocumentParams) -> None:
        ls.diagnostics.changed(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: FixloopServer, params: t.DidChangeTextDocumentParams) -> None:
        ls.diagnostics.changed(params.text_document.uri)
        ls.review.auto.changed(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: FixloopServer, params: t.DidSaveTextDocumentParams) -> None:
        ls.diagnostics.saved(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: FixloopServer, params: t.DidCloseTextDocumentParams) -> None:
        ls.diagnostics.closed(params.text_document.uri)
        ls.review.auto.closed(params.text_document.uri)

    @server.feature(t.TEXT_DOCUMENT_CODE_ACTION,
                    t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix, SOURCE_FIX, WRITE_TESTS_KIND]))
    def code_action(ls: FixloopServer, params: t.CodeActionParams) -> list[t.CodeAction]:
        return code_actions(ls.editor, ls.diagnostics, ls.review, params)

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: FixloopServer, params: t.HoverParams) -> t.Hover | None:
        return await hover(ls.editor, ls.diagnostics.provider, params)

    @server.feature(t.SHUTDOWN)
    def shutdown(ls: FixloopServer, params: Any = None) -> None:
        ls.runs.cancel_all()

    for name, handler in handlers(server.editor, server.runs, server.review, server.diagnostics).items():
        server.command(name)(guarded(name, handler))
    server.command(WRITE_TESTS)(guarded(WRITE_TESTS, server.tests.submit))
    return server


def main(argv: Sequence[str] | None = None) -> NoReturn:
    run_until_exit(build_server(), argv)


def run_until_exit(server: FixloopServer, argv: Sequence[str] | None = None) -> NoReturn:
    """`serve`, then end the process (`leave`) with the code the connection ended with."""
    try:
        code = serve(server, argv)
    except SystemExit as e:  # pygls ends the connection with sys.exit() on `exit`; argparse on --help
        code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    leave(code)


def leave(code: int) -> NoReturn:
    """End the process without the interpreter's teardown, once the runs are stopped and cleaned up: a
    daemon thread still inside native code (a store's or a parser's) when the interpreter finalizes is
    unwound by force, and the process aborted ("FATAL: exception not rethrown", SIGABRT or SIGSEGV), so
    an editor saw a crash after a clean shutdown. Non-daemon threads are waited for as a normal exit
    would; the logs and both streams are flushed."""
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe: the editor is gone, nothing more to say to it
            pass
    os._exit(code)


def serve(server: FixloopServer, argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fixloop-server", description="The fixloop language server.")
    parser.add_argument("--stdio", action="store_true", help="speak LSP on stdin/stdout (the default)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port instead (for debugging)")
    parser.add_argument("--version", action="version", version=f"fixloop-server {__version__}")
    args = parser.parse_args(argv)
    log_to(sys.stderr, logging.WARNING, "fixloop-server %(levelname)s %(message)s")  # escaped: a human reads it
    # Everything imported so far lives as long as the server: keep it out of the collector's full
    # passes, and collect less often, so a keystroke does not wait on a full collection.
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        if args.tcp:
            host, _, port = args.tcp.rpartition(":")
            if not host or not port.isdigit():
                parser.error("--tcp takes HOST:PORT, e.g. 127.0.0.1:2087")
            server.start_tcp(host, int(port))
        else:
            stdout = sys.stdout.buffer
            sys.stdout = sys.stderr  # a stray print() must never corrupt the protocol stream
            # Validated framing: a bad or huge Content-Length ends the server with a message, never a hang.
            server.start_io(FramedInput(sys.stdin.buffer), stdout)  # type: ignore[arg-type]
    finally:
        stop(server)
    return 0 if server.rpc.shut_down else 1


def stop(server: FixloopServer) -> None:
    """The client is gone or asked us to exit: stop any run and wait for its cleanup."""
    server.runs.cancel_all()
    server.runs.join(CLEANUP_SECONDS)
    server.diagnostics.close()


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
