"""Where the project is, for fixloop's report plugin (inside the sandbox, under the project's interpreter:
the standard library only): pointing the interpreter at the run's copy when it is not at the project's
own path, and finding the project files pytest imported before any test."""

import importlib
import os
import sys


def relocate(old, new):
    """Point what the interpreter's start-up read from the virtualenv at the copy: `.pth` lines on sys.path,
    setuptools' editable finders (`MAPPING`, `NAMESPACES`) and the `editables` redirector name the
    project's own path, where a backend that cannot mount shows nothing of it (landlock) or the user's
    unpatched files (none). Modules imported before this plugin (by pytest itself) stay where they are."""
    # The interpreter's own environment stays where it is even inside the project (a `.venv` there): the copy
    # leaves virtualenvs out, and what pytest has not imported yet (any other dependency) is found there only.
    kept = [p for p in {sys.prefix, sys.exec_prefix} if p == old or p.startswith(old + os.sep)]

    def moved(value):
        if not isinstance(value, str) or any(value == k or value.startswith(k + os.sep) for k in kept):
            return value
        if value == old:
            return new
        return new + value[len(old):] if value.startswith(old + os.sep) else value

    sys.path[:] = [moved(p) for p in sys.path]
    for name, module in list(sys.modules.items()):
        if not name.startswith("__editable__"):
            continue
        mapping = getattr(module, "MAPPING", None)
        if isinstance(mapping, dict):
            for key in list(mapping):
                mapping[key] = moved(mapping[key])
        namespaces = getattr(module, "NAMESPACES", None)
        if isinstance(namespaces, dict):
            for key in list(namespaces):
                if isinstance(namespaces[key], list):
                    namespaces[key] = [moved(p) for p in namespaces[key]]
    redirector = sys.modules.get("editables.redirector")
    redirections = getattr(getattr(redirector, "RedirectingFinder", None), "_redirections", None)
    if isinstance(redirections, dict):
        for key in list(redirections):
            redirections[key] = moved(redirections[key])
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()


def harness_files(root, workspace):
    """Project files pytest imported before this plugin (the project is pluggy, or another of pytest's own
    dependencies): a change to them can change how pytest reports results, so no candidate may touch them."""
    roots = [os.path.realpath(root)] + ([os.path.realpath(workspace)] if workspace else [])
    found = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            continue
        path = os.path.realpath(path)
        for root in roots:
            if path.startswith(root + os.sep):
                parts = path[len(root) + 1:].split(os.sep)
                if not any(p in ("site-packages", ".venv", "venv") for p in parts):
                    found.add("/".join(parts))
    return sorted(found)[:200]
