"""The templates of one memory (a user's or a team's, shared by every project): what was mined, what a
person decided, and how each approved template did when the engine tried it.

Decisions are rows of the `mined_templates` table, appended and never rewritten (the latest row for a
template wins), so two processes deciding at once lose nothing and a team's store can share them. A
decision row carries the template's spec: an approved template is used without mining again, and an
imported one lives on without the fixes it was mined from. How a template did comes from the
operator statistics every run writes (`mined:<id>`), read per run: a run tried it when one of its
candidates ran, and succeeded when one of them fixed the bug.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Iterable

from fixloop.adapters.memory.store import new_id, where_in
from fixloop.adapters.mined.mine import ALL_ROWS, MIN_SUPPORT, mine
from fixloop.adapters.mined.model import MinedTemplate, Record, from_spec, problem

if TYPE_CHECKING:
    from fixloop.adapters.memory.store import MemoryStore

log = logging.getLogger("fixloop.adapters.mined")
TABLE = "mined_templates"
DEMOTE_WINDOW = 5  # the last runs that tried a template
DEMOTE_MIN_TRIES = 3  # runs in the window before a template can lose its place
DEMOTE_BELOW = 0.3  # success rate over the window under which it loses its place


def decisions(store: MemoryStore) -> dict[str, dict[str, Any]]:
    """template id -> its latest decision row."""
    latest: dict[str, dict[str, Any]] = {}
    for row in store.rows(TABLE, "", ["template_id", "verdict", "spec", "source", "time", "id"], limit=ALL_ROWS):
        current = latest.get(row["template_id"])
        if current is None or (row["time"], row["id"]) > (current["time"], current["id"]):
            latest[row["template_id"]] = row
    return latest


def record(store: MemoryStore, template: MinedTemplate, verdict: str, source: str, when: float | None = None) -> None:
    store.add(TABLE, [{"id": new_id(), "template_id": template.id, "verdict": verdict,
                       "spec": json.dumps(template.with_status(verdict).spec()), "source": source,
                       "time": time.time() if when is None else when}])
    store.flush()  # a team's store shares the decision now, not at the next run


def records(store: MemoryStore, ids: Iterable[str], window: int = DEMOTE_WINDOW, min_tries: int = DEMOTE_MIN_TRIES,
            below: float = DEMOTE_BELOW) -> dict[str, Record]:
    """How each template did when tried, per run, and whether it lost its place (the last `window` runs:
    at least `min_tries` of them and a success rate under `below`)."""
    operators = {"mined:" + i: i for i in ids}
    if not operators:
        return {}
    runs: dict[str, dict[str, tuple[float, bool]]] = {}
    for row in store.rows("operator_stats", where_in("operator", operators), ["operator", "run_id", "success", "time"],
                          limit=ALL_ROWS):
        per_run = runs.setdefault(operators[row["operator"]], {})
        when, won = per_run.get(row["run_id"], (row["time"], False))
        per_run[row["run_id"]] = (max(when, row["time"]), won or bool(row["success"]))
    out: dict[str, Record] = {}
    for template_id, per_run in runs.items():
        ordered = [won for _, won in sorted(per_run.values())]
        recent = tuple(ordered[-window:])
        demoted = len(recent) >= min_tries and sum(recent) / len(recent) < below
        out[template_id] = Record(len(ordered), sum(ordered), recent, demoted)
    return out


def _stored(row: dict[str, Any]) -> MinedTemplate | None:
    try:
        template = from_spec(json.loads(row["spec"]))
    except (ValueError, TypeError) as e:
        log.warning("mined template %s: its stored form is unreadable (%s); ignored", row["template_id"], e)
        return None
    why = problem(template)
    if why:
        log.warning("mined template %s is not used: %s", row["template_id"], why)
        return None
    return template


def all_templates(store: MemoryStore, min_support: int = MIN_SUPPORT) -> list[MinedTemplate]:
    """Every template this memory knows: mined now or kept by a decision, with its status and record.
    Rejected templates are listed (so a person sees what was said no to) but never mined again."""
    decided = decisions(store)
    rejected = frozenset(i for i, row in decided.items() if row["verdict"] == "rejected")
    by_id: dict[str, MinedTemplate] = {t.id: t for t in mine(store, min_support, skip=rejected)}
    for template_id, row in decided.items():
        stored = _stored(row)
        mined = by_id.get(template_id)
        if mined is not None:
            by_id[template_id] = mined.with_status(row["verdict"])
        elif stored is not None and stored.id == template_id:
            by_id[template_id] = stored.with_status(row["verdict"], "imported" if row["source"] == "import" else "mined")
    found = records(store, by_id)
    return sorted((t if t.id not in found else _with_record(t, found[t.id]) for t in by_id.values()),
                  key=lambda t: (("approved", "proposed", "rejected").index(t.status), -t.support, t.id))


def _with_record(template: MinedTemplate, rec: Record) -> MinedTemplate:
    return replace(template, record=rec)


def approved(store: MemoryStore) -> list[MinedTemplate]:
    """The approved templates with their records (demoted ones included: `record.demoted`), best first.
    Cheap: reads the decisions and the templates' statistics, mines nothing."""
    templates = []
    for template_id, row in decisions(store).items():
        if row["verdict"] != "approved":
            continue
        stored = _stored(row)
        if stored is not None and stored.id == template_id:
            templates.append(stored.with_status("approved"))
    found = records(store, [t.id for t in templates])
    out = [_with_record(t, found[t.id]) if t.id in found else t for t in templates]
    out.sort(key=lambda t: (t.record.demoted, -(t.record.rate if t.record.rate is not None else 0.5), -t.support, t.id))
    return out


def find(templates: Iterable[MinedTemplate], prefix: str) -> MinedTemplate | None:
    """The template whose id starts with `prefix` (unambiguously), or None."""
    hits = [t for t in templates if t.id.startswith(prefix)] if prefix else []
    return hits[0] if len(hits) == 1 else None


def decide(store: MemoryStore, template_id: str, verdict: str, source: str = "cli",
           min_support: int = MIN_SUPPORT) -> MinedTemplate:
    """Approve or reject a template by id (or an unambiguous prefix of it); ValueError when there is none."""
    if verdict not in ("approved", "rejected"):
        raise ValueError(f"a decision is 'approved' or 'rejected', not {verdict!r}")
    templates = all_templates(store, min_support)
    template = find(templates, template_id)
    if template is None:
        matches = [t.id for t in templates if template_id and t.id.startswith(template_id)]
        raise ValueError(f"{template_id!r} names {len(matches)} mined templates"
                         + (f" ({', '.join(matches[:5])})" if matches else "; `fixloop memory templates list` shows them"))
    record(store, template, verdict, source)
    return template.with_status(verdict)
