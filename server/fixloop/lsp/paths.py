"""URIs from the client -> paths inside the workspace, with a clear error for anything else."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pygls.uris import from_fs_path, to_fs_path

from fixloop.kit.source_text import decode_source


class BadInput(ValueError):
    """A request the server refuses, with a message meant for the user."""


def relative_path(root: Path, uri: str) -> str:
    """The workspace-relative path (forward slashes) of a `file:` URI inside `root`."""
    if not isinstance(uri, str) or not uri:
        raise BadInput("a document URI is required")
    if not uri.startswith("file:"):
        raise BadInput(f"{uri} is not a file on disk (only file: URIs are supported)")
    fs = to_fs_path(uri)
    if fs is None:
        raise BadInput(f"{uri} is not a file on disk")
    path = Path(fs).resolve()
    real_root = root.resolve()
    if path != real_root and real_root not in path.parents:
        raise BadInput(f"{path} is outside the workspace {real_root}")
    return path.relative_to(real_root).as_posix()


def open_document(workspace: Any, uri: str) -> Any:
    """The editor's open document for `uri` (pygls keys them unquoted), or None; never read from disk."""
    return workspace.text_documents.get(unquote(uri))


def is_python(path: str, language_id: str | None = None) -> bool:
    return path.endswith((".py", ".pyi")) or language_id == "python"


def uri_for(root: Path, rel: str) -> str:
    return from_fs_path(str(root / rel)) or (root / rel).as_uri()


def read_disk_text(root: Path, rel: str, max_bytes: int) -> str:
    """A source file as text, decoded the way Python would (PEP 263), or BadInput."""
    path = root / rel
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise BadInput(f"{rel} is {size} bytes, over the {max_bytes}-byte limit; skipped")
        raw = path.read_bytes()
    except OSError as e:
        raise BadInput(f"cannot read {rel}: {e.strerror or e}") from None
    decoded = decode_source(raw)
    if decoded is None:
        raise BadInput(f"{rel} is not valid text in its declared encoding (UTF-8 unless a coding line says otherwise)")
    return decoded.text
