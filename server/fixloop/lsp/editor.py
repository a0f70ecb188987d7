"""What the handlers (runs, review, diagnostics, commands, code actions) may know of the editor
session. The server fills it in; the handlers never see the server itself."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Sequence

from lsprotocol import types as t

from fixloop.lsp.paths import open_document
from fixloop.lsp.positions import Units, units_for
from fixloop.lsp.settings import ServerConfig


@dataclass(frozen=True)
class Editor:
    root: Callable[[], Path | None]  # the workspace folder, None when none is open
    config: Callable[[], ServerConfig]  # the settings as they are now (they change with the client's)
    workspace: Callable[[], Any]  # pygls' Workspace: the open documents and the position encoding
    capabilities: Callable[[], t.ClientCapabilities]
    show: Callable[[t.MessageType, str], None]  # window/showMessage
    log: Callable[[str], None]  # window/logMessage
    # window/showMessageRequest: the message and the choices -> the chosen title, None when dismissed
    choose: Callable[[str, Sequence[str]], Awaitable[str | None]] | None = None

    def document(self, uri: str) -> Any:
        """The editor's open document for `uri`, or None; never read from disk."""
        return open_document(self.workspace(), uri)

    def units(self) -> Units:
        return units_for(self.workspace().position_encoding)

    def max_file_bytes(self) -> int:
        return self.config().settings.diagnostics.max_file_bytes
