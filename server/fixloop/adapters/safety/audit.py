"""The auditor's offline form: fixloop's safety rules and bandit on the fix a run found, every finding it adds
kept (a candidate is refused only for an error; here warnings count too), by severity: error -> high,
warning -> medium, the rest -> low. With a model the auditor adds its own reading (`llm/auditor.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from fixloop.adapters.safety.check import PatchSafety
from fixloop.core.model import HIGH, LOW, MEDIUM, Audit, AuditFinding, Finding, Patch, TestReport

SEVERITY = {"error": HIGH, "warning": MEDIUM}


@dataclass(frozen=True)
class AuditSettings:
    enabled: bool = False  # `--audit` switches it on for one run; a project may switch it on, never off


def finding(f: Finding) -> AuditFinding:
    return AuditFinding(SEVERITY.get(f.severity, LOW), f.path, f.line, f"{f.code}: {f.message}",
                        "bandit" if f.code.startswith("B") else "rules")


class RulesAuditor:
    """Implements the `Auditor` port with no model."""

    def __init__(self, safety: PatchSafety | None = None) -> None:
        self.safety = safety or PatchSafety()

    def audit(self, patch: Patch, report: TestReport | None) -> Audit:
        verdict = self.safety.check(patch)
        found = tuple(finding(f) for f in verdict.findings)
        if not verdict.ok and not found:  # refused whole (too large to check): that is a finding too
            found = (AuditFinding(HIGH, "", 0, verdict.reason, "rules"),)
        return Audit("offline", found)
