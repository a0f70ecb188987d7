"""The auditor role against the scripted Anthropic-compatible server: its own model, the coder's budget, its
findings beside the offline ones, and an audit that cannot be had."""

from __future__ import annotations

from fixloop.adapters.llm.auditor import ModelAuditor
from fixloop.adapters.llm.cost import Meter
from fixloop.adapters.llm.settings import LLMSettings, RoleSettings, RolesSettings
from fixloop.adapters.safety.audit import RulesAuditor
from fixloop.core.model import HIGH, MEDIUM, FileChange, Limits, Patch, Usage
from tests.llm.fake_anthropic import Error, FakeAnthropic, message, tool_use

BEFORE = "import tempfile\n\n\ndef fetch(url, ok):\n    return ok\n"
AFTER = BEFORE.replace("return ok", "return tempfile.mktemp()")
PATCH = Patch((FileChange("pkg/net.py", BEFORE, AFTER),), proposer="test", operator="op")


def auditor(url: str, meter: Meter) -> ModelAuditor:
    llm = LLMSettings(base_url=url, model="coder-model", stream=False, max_retries=0,
                      roles=RolesSettings(auditor=RoleSettings(model="auditor-model")))
    return ModelAuditor(llm, "test-key", meter, RulesAuditor())


def findings(*items: dict[str, object]) -> dict[str, object]:
    return message(tool_use("record_audit", {"findings": list(items)}), input_tokens=300, output_tokens=40)


def test_the_auditors_own_model_adds_its_findings_to_the_rules_and_a_high_one_blocks() -> None:
    meter = Meter(Limits())
    with FakeAnthropic() as fake:
        fake.push(findings({"severity": "high", "file": "pkg/net.py", "line": 5, "issue": "a predictable temp name"},
                           {"severity": "low", "file": "/etc/passwd", "line": 1, "issue": "not a file of the fix"}))
        audit = auditor(fake.url, meter).audit(PATCH, None)
        (body,) = [r.body for r in fake.messages_requests()]
    assert body["model"] == "auditor-model" and body["tool_choice"] == {"type": "tool", "name": "record_audit"}
    assert "tempfile.mktemp()" in body["messages"][0]["content"][0]["text"]
    assert audit.by == "auditor-model" and audit.blocking
    assert [(f.severity, f.path, f.line, f.source) for f in audit.findings if f.source != "bandit"] == [
        (MEDIUM, "pkg/net.py", 5, "rules"),  # the offline pass first (bandit's word on mktemp left out here)
        (HIGH, "pkg/net.py", 5, "auditor-model"),
        ("low", "", 0, "auditor-model")]  # a place outside the fix is not shown as one
    assert meter.total.tokens == 340 and audit.usage.llm_calls == 1  # the coder's meter: one budget


def test_an_audit_that_cannot_be_had_keeps_the_offline_findings_and_says_why() -> None:
    with FakeAnthropic() as fake:
        fake.push(Error(500, "api_error", "down", {"x-should-retry": "false"}))
        audit = auditor(fake.url, Meter(Limits())).audit(PATCH, None)
    assert audit.by == "offline" and audit.note.startswith("no model audit (")
    assert {f.source for f in audit.findings} == {"rules", "bandit"} and not audit.blocking
    with FakeAnthropic() as fake:
        fake.push(findings({"severity": "catastrophic", "issue": "out of shape"}))
        audit = auditor(fake.url, Meter(Limits())).audit(PATCH, None)
    assert audit.note == "no model audit (its answer was out of shape)" and not audit.blocking
    spent = Meter(Limits(max_tokens=10))
    spent.add(Usage(llm_calls=1, input_tokens=11))
    with FakeAnthropic() as fake:
        audit = auditor(fake.url, spent).audit(PATCH, None)
        assert not fake.messages_requests()  # the budget is spent: no call at all
    assert audit.note.startswith("no model audit (")
