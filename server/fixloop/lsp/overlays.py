"""The editor's text of the workspace's open Python documents, unsaved changes included: what a run or a
test generation works on, so it sees the code the user sees."""

from __future__ import annotations

from pathlib import Path

from fixloop.lsp.editor import Editor
from fixloop.lsp.paths import BadInput, is_python, relative_path


def open_python_texts(editor: Editor, root: Path) -> dict[str, str]:
    """Workspace-relative path -> the editor's text, for open Python documents under `root` within the size
    limit; a text that is not valid Unicode is left out (the file on disk is used) and logged."""
    limit = editor.max_file_bytes()
    out: dict[str, str] = {}
    for uri, doc in list(editor.workspace().text_documents.items()):
        try:
            rel = relative_path(root, uri)
        except BadInput:
            continue
        text = doc.source
        if not is_python(rel, doc.language_id) or len(text) > limit:
            continue
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            editor.log(f"{rel}: the editor's text is not valid Unicode; the run uses the file on disk")
            continue
        out[rel] = text
    return out
