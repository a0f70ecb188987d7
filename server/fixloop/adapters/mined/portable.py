"""Mined templates to and from a JSON file: share approved templates with a teammate or another machine.

The file is versioned: `{"fixloop_mined_templates": 1, "templates": [spec, ...]}`. Import takes each
template on its own: a corrupt one, or one whose shapes no longer parse as a statement, is refused with
a message naming it, and the others are imported. A decision already in the store is never overwritten
(the person who made it here has the last word); nothing in the store is removed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fixloop.adapters.mined.model import from_spec, problem
from fixloop.adapters.mined.registry import all_templates, decisions, record

if TYPE_CHECKING:
    from fixloop.adapters.memory.store import MemoryStore

FORMAT = 1
KEY = "fixloop_mined_templates"


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)  # template ids newly decided here
    kept: list[str] = field(default_factory=list)  # already decided here: the store's decision stays
    refused: list[str] = field(default_factory=list)  # "template N (id): why"


def export_templates(store: MemoryStore, path: Path, statuses: tuple[str, ...] = ("approved", "proposed", "rejected")
                     ) -> int:
    """Write the store's templates (those with one of `statuses`) to `path` atomically; returns how many."""
    specs = [{**t.spec(), "record": {"tries": t.record.tries, "successes": t.record.successes}}
             for t in all_templates(store) if t.status in statuses]
    data = {KEY: FORMAT, "templates": specs}
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)  # never a half-written file under the real name
    return len(specs)


def read_file(path: Path) -> list[Any]:
    """The file's template entries; ValueError when the file as a whole is not a templates file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except ValueError as e:
        raise ValueError(f"{path} is not JSON ({e})") from None
    if not isinstance(data, dict) or KEY not in data:
        raise ValueError(f"{path} is not a mined-templates file (no \"{KEY}\" key)")
    if data[KEY] != FORMAT:
        raise ValueError(f"{path} has format {data[KEY]!r}; this fixloop reads format {FORMAT}")
    if not isinstance(data.get("templates"), list):
        raise ValueError(f"{path}: \"templates\" must be a list")
    return list(data["templates"])


def import_templates(store: MemoryStore, path: Path) -> ImportReport:
    report = ImportReport()
    entries = read_file(path)
    decided = decisions(store)
    for number, entry in enumerate(entries, 1):
        label = f"template {number}" + (f" ({entry.get('id')})" if isinstance(entry, dict) and entry.get("id") else "")
        if not isinstance(entry, dict):
            report.refused.append(f"{label}: not a JSON object")
            continue
        try:
            template = from_spec(entry)
        except ValueError as e:
            report.refused.append(f"{label}: corrupt: {e}")
            continue
        why = problem(template)
        if why:
            report.refused.append(f"{label}: {why}")
            continue
        if template.id in decided:
            report.kept.append(template.id)
            continue
        record(store, template, template.status, "import")
        decided[template.id] = {}
        report.imported.append(template.id)
    return report
