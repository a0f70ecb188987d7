"""What leaves the machine: rows bound for the shared memory, with secrets, absolute paths and user
names removed, and the share policy (`memory.share`) deciding which rows go at all."""

from __future__ import annotations

import getpass
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from fixloop.core.sharing import ALL, FIXES_AND_STATS
from fixloop.adapters.memory.codefree import code_free, reduced
from fixloop.adapters.memory.packed import repacked
from fixloop.adapters.memory.redact import redactor

VERDICTS = "verdicts"  # a fix's review verdict, made after the fix was shared: always shared with it
SHARED_TABLES = ("failures", "fixes", "decisions", "operator_stats", "mined_templates", VERDICTS)
UNPROJECTED = frozenset({"mined_templates", VERDICTS})  # a team's decisions on templates and fixes: no project column
FORGOTTEN = "forgotten"  # ids forgotten on the team's memory: always shared, handled apart (sync.py)
TEXT_KEYS = ("message", "statement", "text", "signature", "diff", "summary", "test_id", "tried_operators",
             "path", "frame", "hunk_id")
CODE_KEYS = ("edit", "shape", "fault_shape", "spec")  # code structure a replay needs verbatim: only secrets masked
# An absolute POSIX or Windows path: kept as its last two parts, which say what it was without whose it was.
_ABS_PATH = re.compile(r"(?<![\w.:/\\~-])(?:/(?:[^/\s'\"():,;]+/)+|[A-Za-z]:\\(?:[^\\\s'\"]+\\)+)(?=[^/\\\s'\"():,;]+)")


def shareable(table: str, row: Mapping[str, Any], share: str) -> bool:
    """`fixes-only`: fixed failures and their verified fixes (what recall and the templates need);
    `fixes-and-stats`: also the operator statistics whose error class, operator and source carry nothing of
    the project (codefree.py); `all`: also unfixed failures, review decisions and every statistic. Decisions
    on mined templates are always shared: approving one for the team is their point; so is a shared fix's
    verdict (the `decision` the fix row would carry had it been decided before it was shared). What each
    mode lets out, column by column, is listed in leaving.py."""
    if table in (FORGOTTEN, VERDICTS):
        return True
    if table not in SHARED_TABLES:
        return False
    if share == ALL or table == "mined_templates":
        return True
    if table == "operator_stats":
        return share == FIXES_AND_STATS and code_free(row)
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


def scrubber(home: str = "", env: Mapping[str, str] | None = None) -> Callable[[str], str]:
    """A function giving a text with secrets masked, the home folder written `~`, other absolute folders
    dropped and the user's login name replaced (the environment is read once, here)."""
    env = os.environ if env is None else env
    secrets = redactor(env)
    home = (home or str(Path.home())).rstrip("/")
    # The login name as a path part or an address (`alice@host`), not as a word of code (`self.root`).
    names = [re.compile(rf"(?<=[/\\]){re.escape(n)}(?=[/\\])|(?<![\w.-]){re.escape(n)}(?=@)") for n in _identities(env)]

    def scrub_one(text: str) -> str:
        if not text:
            return text
        text = secrets(text)
        if home:
            text = text.replace(home + "/", "~/")
        text = _ABS_PATH.sub("…/", text)
        for name in names:
            text = name.sub("<user>", text)
        return text

    return scrub_one


def scrub(text: str, home: str = "", env: Mapping[str, str] | None = None) -> str:
    return scrubber(home, env)(text)


def project_name(project: str) -> str:
    """The name a project goes by in the shared memory: its folder's name, never the path to it."""
    return Path(project.rstrip("/\\")).name or project if project.startswith(("/", "~")) or "\\" in project else project


def for_sharing(table: str, rows: Iterable[Mapping[str, Any]], share: str,
                env: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """The rows of `table` that `share` lets go, scrubbed (or reduced to counts: codefree.py); vectors and the
    embedder stay behind (each machine embeds with its own). leaving.py lists the outcome column by column."""
    out = []
    env = os.environ if env is None else env
    scrub_text, secrets = scrubber(env=env), redactor(env)
    for row in rows:
        if not shareable(table, row, share):
            continue
        if table == "operator_stats" and share != ALL:  # counts, not the row: see codefree.py
            out.append(reduced(row))
            continue
        clean = {k: v for k, v in row.items() if k not in ("vector", "_distance", "embedder")}
        for key in TEXT_KEYS:
            if isinstance(clean.get(key), str):
                clean[key] = scrub_text(clean[key])
        for key in CODE_KEYS:
            if isinstance(clean.get(key), str):
                clean[key] = secrets(clean[key])
        if isinstance(clean.get("project"), str):
            clean["project"] = project_name(clean["project"])
        if isinstance(clean.get("recall"), str):  # a failure's packed copy of its fields and fix
            clean["recall"] = repacked(clean, lambda k, v: scrub_text(v) if k in TEXT_KEYS else secrets(v))
        out.append(clean)
    return out
