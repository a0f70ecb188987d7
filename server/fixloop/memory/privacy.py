"""What leaves the machine: rows bound for the shared memory, with secrets, absolute paths and user
names removed, and the share policy (`memory.share`) deciding which rows go at all."""

from __future__ import annotations

import getpass
import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from .redact import redact

SHARES = ("fixes-only", "all")
SHARED_TABLES = ("failures", "fixes", "decisions", "operator_stats")
TEXT_KEYS = ("message", "statement", "text", "signature", "diff", "summary", "test_id", "tried_operators",
             "path", "frame")
CODE_KEYS = ("edit", "shape", "fault_shape")  # code structure a replay needs verbatim: only secrets masked
# An absolute POSIX or Windows path: kept as its last two parts, which say what it was without whose it was.
_ABS_PATH = re.compile(r"(?<![\w.:/\\~-])(?:/(?:[^/\s'\"():,;]+/)+|[A-Za-z]:\\(?:[^\\\s'\"]+\\)+)(?=[^/\\\s'\"():,;]+)")


def shareable(table: str, row: Mapping[str, Any], share: str) -> bool:
    """`fixes-only`: fixed failures and their verified fixes (what recall and the templates need);
    `all`: also unfixed failures, review decisions and operator statistics."""
    if table not in SHARED_TABLES:
        return False
    if share == "all":
        return True
    if table == "failures":
        return bool(row.get("fixed"))
    if table == "fixes":
        return bool(row.get("verified"))
    return False


def _identities(env: Mapping[str, str]) -> list[str]:
    names = {env.get("USER", ""), env.get("LOGNAME", ""), env.get("USERNAME", "")}
    try:
        names.add(getpass.getuser())
    except (KeyError, OSError):
        pass
    return sorted((n for n in names if len(n) >= 3), key=len, reverse=True)


def scrub(text: str, home: str = "", env: Mapping[str, str] | None = None) -> str:
    """`text` with secrets masked, the home folder written `~`, other absolute folders dropped and
    the user's login name replaced."""
    if not text:
        return text
    env = os.environ if env is None else env
    text = redact(text, env)
    home = home or str(Path.home())
    if len(home) > 1:
        text = text.replace(home.rstrip("/") + "/", "~/")
    text = _ABS_PATH.sub("…/", text)
    for name in _identities(env):  # as a path part or an address (`alice@host`), not a word of code (`root`)
        text = re.sub(rf"(?<=[/\\]){re.escape(name)}(?=[/\\])|(?<![\w.-]){re.escape(name)}(?=@)", "<user>", text)
    return text


def project_name(project: str) -> str:
    """The name a project goes by in the shared memory: its folder's name, never the path to it."""
    return Path(project.rstrip("/\\")).name or project if project.startswith(("/", "~")) or "\\" in project else project


def for_sharing(table: str, rows: Iterable[Mapping[str, Any]], share: str,
                env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The rows of `table` that `share` lets go, scrubbed; vectors and the embedder stay behind
    (each machine embeds with its own)."""
    out = []
    for row in rows:
        if not shareable(table, row, share):
            continue
        clean = {k: v for k, v in row.items() if k not in ("vector", "_distance")}
        for key in TEXT_KEYS:
            if isinstance(clean.get(key), str):
                clean[key] = scrub(clean[key], env=env)
        for key in CODE_KEYS:
            if isinstance(clean.get(key), str):
                clean[key] = redact(clean[key], os.environ if env is None else env)
        if isinstance(clean.get("project"), str):
            clean["project"] = project_name(clean["project"])
        out.append(clean)
    return out
