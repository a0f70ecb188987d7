"""The server never imports the workspace's code. The clients start it isolated (`python -I -m
fixloop.lsp.server`, or the `fixloop-server` script from a neutral folder: docs/protocol.md); as a second
line, once the workspace is known, every module search path entry inside it is dropped, so that nothing
loaded later (the memory store, the model's client, a grammar) can come from the repository. Kept: the
environment the server runs in (`sys.prefix`: a virtualenv the user chose to run, even inside the
workspace) and fixloop's own folder (fixloop developed in a checkout opened as the workspace: that code
is what is running already)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import fixloop


def scrub_sys_path(root: Path, path: list[str] | None = None) -> list[str]:
    """Drop the entries of `path` (default `sys.path`) inside `root`; returns them."""
    entries = sys.path if path is None else path
    workspace = Path(os.path.realpath(root))
    keep = {Path(os.path.realpath(p)) for p in (sys.prefix, sys.base_prefix, Path(fixloop.__file__).parent.parent)}
    dropped: list[str] = []
    kept: list[str] = []
    for entry in entries:
        where = Path(os.path.realpath(entry or os.curdir))  # "" and relative entries: the current folder
        inside = where == workspace or workspace in where.parents
        ours = any(where == k or k in where.parents for k in keep)
        (dropped if inside and not ours else kept).append(entry)
    entries[:] = kept
    return dropped
