"""A module the tests cannot import that the workspace has: the copy left it out, and the user must hear
which file, why, and the setting that takes it in, instead of a repair search on an import error."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

from fixloop.core.model import TestReport
from fixloop.adapters.runner.listing import Listing

NO_MODULE = re.compile(r"No module named '([A-Za-z_][\w.]*)'")
ROOTS = ("", "src/", "lib/", "python/")


def missing_modules(report: TestReport) -> list[str]:
    """Module names the run failed to import, in order of first mention."""
    texts = [*report.collection_errors, *(r.message + "\n" + r.longrepr for r in report.failed), report.output_tail]
    found: dict[str, None] = {}
    for text in texts:
        for name in NO_MODULE.findall(text):
            found.setdefault(name, None)
    return list(found)


def _candidates(module: str) -> Iterable[str]:
    path = module.replace(".", "/")
    for root in ROOTS:
        yield f"{root}{path}.py"
        yield f"{root}{path}/__init__.py"


def left_out(workspace: Path, listing: Listing, module: str) -> str:
    """The workspace file that would provide `module` but is not in the copy, or ''."""
    copied = set(listing.names)
    for name in _candidates(module):
        if name not in copied and os.path.lexists(workspace / name):
            return name
    return ""


def explain(workspace: Path, listing: Listing, report: TestReport) -> str:
    """'' unless the run failed to import a module whose file the workspace has but the copy does not."""
    for module in missing_modules(report):
        # `a.b.c` may fail because `a.b` is the missing piece: try the name and its parents.
        parts = module.split(".")
        for depth in range(len(parts), 0, -1):
            name = left_out(workspace, listing, ".".join(parts[:depth]))
            if name:
                return _message(module, name, listing)
    return ""


def _message(module: str, name: str, listing: Listing) -> str:
    ignored = name in listing.left_out or any(name.startswith(f) for f in listing.left_out if f.endswith("/"))
    why = ("git ignores it and it is over the copy's budget for ignored files (workspace.ignored_file_kb, "
           "workspace.ignored_total_mb)" if ignored else
           "it is in a folder fixloop never copies (build output, caches, virtualenvs), a link out of the "
           "project, a hard link, or a credential file")
    return (f"the tests import {module}, and your workspace has {name}, but fixloop's copy does not: {why}. "
            f"Take it in with workspace.copy_include = [\"{name}\"] ([tool.fixloop.workspace] in pyproject.toml, "
            f"or --set 'workspace.copy_include=[\"{name}\"]')")
