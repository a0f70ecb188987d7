"""textDocument/hover: on a function's name, what the memory remembers of it (failures, fixes, review
decisions) and its neighbours in the code graph. Answered off the event loop (the store may be opening)."""

from __future__ import annotations

import asyncio

from lsprotocol import types as t

from fixloop.lsp.editor import Editor
from fixloop.lsp.paths import BadInput, is_python, relative_path
from fixloop.lsp.providers import DiagnosticsProvider


async def hover(editor: Editor, provider: DiagnosticsProvider, params: t.HoverParams) -> t.Hover | None:
    root = editor.root()
    doc = editor.document(params.text_document.uri)
    if root is None or doc is None or not editor.config().settings.diagnostics.memory:
        return None
    try:
        path = relative_path(root, params.text_document.uri)
    except BadInput:
        return None
    if not is_python(path, doc.language_id):
        return None
    text, line = doc.source, params.position.line + 1
    markdown = await asyncio.get_running_loop().run_in_executor(None, provider.hover, path, text, line)
    if not markdown:
        return None
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value=markdown))
