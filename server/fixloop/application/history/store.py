"""The history of one or more projects: run folders read (untrusted), records cached in the user's data dir.

The cache (`$XDG_DATA_HOME/fixloop/history/<project hash>.json`) and the index of projects fixloop ran in
(`.../fixloop/projects.json`) are the user's own files, never the project's. A cached record is reused while
its run folder's files keep their size and mtime, so a warm `fixloop stats` stats files instead of parsing them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from fixloop.application.history import files, record
from fixloop.kit.replace_file import replace_text

log = logging.getLogger("fixloop.run_history")
CACHE_VERSION = 3  # 2: records carry the run's strategy; 3: the KPIs count fixes by source
MAX_PROJECTS = 500


def data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "fixloop"


@dataclass
class History:
    records: list[dict[str, Any]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # why -> how many runs were left out
    notes: list[str] = field(default_factory=list)  # one line per problem worth telling, bounded
    projects: list[str] = field(default_factory=list)

    def skip(self, why: str, note: str = "") -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1
        if note and len(self.notes) < 50:
            self.notes.append(note)


def _write_json(path: Path, obj: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    replace_text(path, json.dumps(obj, separators=(",", ":")))


def _read_json(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


# ---- the projects fixloop ran in ----------------------------------------------------------------
def projects_file() -> Path:
    return data_dir() / "projects.json"


def known_projects() -> list[str]:
    data = _read_json(projects_file())
    rows = data.get("projects") if isinstance(data, dict) else None
    return [p for p in rows if isinstance(p, str)] if isinstance(rows, list) else []


def remember_project(workspace: Path) -> None:
    """Add a project to the index (`--all-projects`); best effort, never fails a run."""
    try:
        path = str(workspace.resolve())
        rows = [p for p in known_projects() if p != path]
        _write_json(projects_file(), {"projects": ([path] + rows)[:MAX_PROJECTS], "updated": time.time()})
    except OSError as e:
        log.warning("cannot update the list of projects in %s: %s", projects_file(), e)


# ---- one project's runs -------------------------------------------------------------------------
def cache_file(project: str) -> Path:
    return data_dir() / "history" / (hashlib.sha256(project.encode("utf-8", "surrogateescape")).hexdigest()[:24] + ".json")


def load_project(project: Path, history: History, use_cache: bool = True) -> None:
    """Add one project's runs to `history` (reading only what changed since the cache was written)."""
    name = str(project)
    history.projects.append(name)
    runs_fd = files.open_runs_dir(project)
    if runs_fd is None:
        return
    cached = _read_json(cache_file(name)) if use_cache else None
    old: dict[str, Any] = {}
    if isinstance(cached, dict) and cached.get("version") == CACHE_VERSION and cached.get("project") == name \
            and isinstance(cached.get("runs"), dict):
        old = cached["runs"]
    fresh: dict[str, Any] = {}
    changed = False
    try:
        for run_id in files.run_ids(runs_fd):
            sig = files.signature(runs_fd, run_id)
            hit = old.get(run_id)
            if isinstance(hit, dict) and hit.get("sig") == list(sig) and isinstance(hit.get("record"), dict):
                rec = hit["record"]
            else:
                raw = files.read_run(runs_fd, run_id)
                rec = None
                if raw.data:
                    mtime = sig[1] / 1e9 if sig[1] > 0 else sig[4] / 1e9
                    rec = record.build(run_id, name, raw.data, raw.problems, mtime)
                    rec.pop("phases", None)  # `fixloop show` reads its run afresh: the cache stays small
                changed = True
                hit = {"sig": list(sig), "record": rec}
            fresh[run_id] = hit
            if rec is None:
                history.skip("empty run folder", f"{name}: run {run_id} has no readable files: skipped")
                continue
            for problem in rec.get("problems", [])[:3]:
                if len(history.notes) < 50:
                    history.notes.append(f"{name}: run {run_id}: {problem}")
            history.records.append(rec)
    except OSError as e:
        history.notes.append(f"{name}: cannot list .fixloop/runs ({e.strerror or e})")
    finally:
        os.close(runs_fd)
    if use_cache and (changed or len(fresh) != len(old)):
        try:
            _write_json(cache_file(name), {"version": CACHE_VERSION, "project": name, "runs": fresh})
        except OSError as e:
            log.warning("cannot write the history cache %s: %s", cache_file(name), e)


def load(projects: Iterable[Path], since: float | None = None, use_cache: bool = True) -> History:
    history = History()
    seen: set[str] = set()
    for project in projects:
        key = str(project)
        if key in seen:
            continue
        seen.add(key)
        load_project(project, history, use_cache)
    if since is not None:
        history.records = [r for r in history.records if r.get("started", 0) >= since]
    history.records.sort(key=lambda r: (r.get("started", 0), r.get("run_id", "")))
    return history


# ---- KPIs of an unchanged history ---------------------------------------------------------------
def fingerprint(projects: Iterable[Path], since: float | None) -> str:
    """A digest of every run folder's file sizes and mtimes (stat only, nothing read): equal digests mean
    the same runs, so the KPIs computed last time still hold."""
    h = hashlib.sha256(f"{CACHE_VERSION}|{since}".encode())
    for project in dict.fromkeys(str(p) for p in projects):
        h.update(b"\0" + project.encode("utf-8", "surrogateescape"))
        runs_fd = files.open_runs_dir(Path(project))
        if runs_fd is None:
            continue
        try:
            for run_id in files.run_ids(runs_fd):
                h.update(run_id.encode() + repr(files.signature(runs_fd, run_id)).encode())
        except OSError:
            h.update(b"unlistable")
        finally:
            os.close(runs_fd)
    return h.hexdigest()


def _kpi_file(key: str) -> Path:
    return data_dir() / "history" / f"kpis-{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:24]}.json"


def cached_kpis(projects: list[Path], since: float | None) -> tuple[str, dict[str, Any] | None]:
    """The fingerprint of the history and the KPIs stored for it, if that history was seen before."""
    digest = fingerprint(projects, since)
    data = _read_json(_kpi_file(repr(sorted(map(str, projects))) + repr(since)))
    if isinstance(data, dict) and data.get("digest") == digest and isinstance(data.get("kpis"), dict):
        return digest, data["kpis"]
    return digest, None


def store_kpis(projects: list[Path], since: float | None, digest: str, kpis: dict[str, Any]) -> None:
    try:
        _write_json(_kpi_file(repr(sorted(map(str, projects))) + repr(since)), {"digest": digest, "kpis": kpis})
    except OSError as e:
        log.warning("cannot write the KPI cache: %s", e)
