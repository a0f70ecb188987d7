"""The version, read from one place: pyproject.toml's `[project] version`.

Installed (wheel or editable), it is the distribution's metadata; run from a checkout without installing
(PYTHONPATH=server), it is the checkout's pyproject.toml."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

UNKNOWN = "0+unknown"


def _from_checkout() -> str | None:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return None
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.S | re.M)
    if not project or not re.search(r'^name\s*=\s*"fixloop"', project.group(1), re.M):
        return None  # some other project's file
    found = re.search(r'^version\s*=\s*"([^"]+)"', project.group(1), re.M)
    return found.group(1) if found else None


def version() -> str:
    # A checkout beside the package wins: an editable install's metadata is stale after a version bump.
    checkout = _from_checkout()
    if checkout:
        return checkout
    try:
        return metadata.version("fixloop")
    except metadata.PackageNotFoundError:
        return UNKNOWN
