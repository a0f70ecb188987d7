"""What a person sees of the mined templates, and the decisions they make, in one place for the CLI and
the language server (`fixloop.templates`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fixloop.adapters.mined.mine import MIN_SUPPORT
from fixloop.adapters.mined.model import MinedTemplate

if TYPE_CHECKING:
    from fixloop.adapters.memory.store import MemoryStore


def status_label(template: MinedTemplate) -> str:
    return "approved, demoted" if template.status == "approved" and template.record.demoted else template.status


def summary(template: MinedTemplate) -> dict[str, Any]:
    """One template as plain JSON: its spec, its status (with `demoted`), where the engine puts it, how it did."""
    rec = template.record
    return {**template.spec(), "status": status_label(template), "origin": template.origin, "place": template.place,
            "tries": rec.tries, "successes": rec.successes,
            "success_rate": round(rec.rate, 3) if rec.rate is not None else None,
            "recent": ["fixed" if won else "missed" for won in rec.recent], "demoted": rec.demoted}


class TemplateDesk:
    """The templates of one memory store, listed and decided (`source` says who decided: cli, editor)."""

    def __init__(self, store: MemoryStore, source: str, min_support: int = MIN_SUPPORT) -> None:
        self.store = store
        self.source = source
        self.min_support = min_support

    def list(self, statuses: tuple[str, ...] = ("approved", "proposed", "rejected")) -> list[dict[str, Any]]:
        from fixloop.adapters.mined.registry import all_templates

        return [summary(t) for t in all_templates(self.store, self.min_support) if t.status in statuses]

    def show(self, template_id: str) -> dict[str, Any] | None:
        from fixloop.adapters.mined.registry import all_templates, find

        found = find(all_templates(self.store, self.min_support), template_id)
        return summary(found) if found is not None else None

    def decide(self, template_id: str, verdict: str) -> dict[str, Any]:
        """ValueError when `template_id` names no template (or several)."""
        from fixloop.adapters.mined.registry import decide

        decide(self.store, template_id, verdict, self.source, self.min_support)
        shown = self.show(template_id)
        assert shown is not None
        return shown
