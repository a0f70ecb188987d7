"""The auditor's offline form: the safety rules and bandit on the fix, every finding it adds kept, by severity."""

from __future__ import annotations

from pathlib import Path

from fixloop.adapters.safety.audit import AuditSettings, RulesAuditor
from fixloop.core.model import HIGH, MEDIUM, FileChange, Patch

BEFORE = "import tempfile\n\n\ndef scratch():\n    return None\n"


def patch(after: str) -> Patch:
    return Patch((FileChange("pkg/io.py", BEFORE, after),), proposer="test", operator="op")


def test_a_warning_the_candidate_check_lets_through_is_a_medium_finding() -> None:
    audit = RulesAuditor().audit(patch(BEFORE.replace("return None", "return tempfile.mktemp()")), None)
    assert audit.by == "offline" and not audit.blocking
    rules = [f for f in audit.findings if f.source == "rules"]
    assert [(f.severity, f.path, f.line) for f in rules] == [(MEDIUM, "pkg/io.py", 5)]
    assert rules[0].message.startswith("FL-S006: ")


def test_an_error_is_high_and_blocks() -> None:
    audit = RulesAuditor().audit(patch(BEFORE.replace("return None", 'return eval("1")')), None)
    assert audit.blocking and HIGH in {f.severity for f in audit.findings}


def test_a_clean_fix_has_no_finding() -> None:
    audit = RulesAuditor().audit(patch(BEFORE.replace("return None", "return 1")), None)
    assert audit.findings == () and not audit.blocking


def test_a_project_may_switch_the_audit_on_but_never_off_nor_choose_its_model(tmp_path: Path) -> None:
    from fixloop.application.config import Settings, project_table

    on = Settings(audit=AuditSettings(enabled=True))
    table = {"audit": {"enabled": False}, "llm": {"roles": {"auditor": {"model": "cheap-model"}}}}
    allowed, refused = project_table(table, on, tmp_path)
    assert allowed.get("audit", {}) == {} and allowed.get("llm", {}).get("roles", {}).get("auditor", {}) == {}
    assert any("audit.enabled" in r for r in refused) and any("llm.roles.auditor.model" in r for r in refused)
    allowed, refused = project_table({"audit": {"enabled": True}}, Settings(), tmp_path)
    assert allowed == {"audit": {"enabled": True}} and refused == []
