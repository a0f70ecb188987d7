import assert from "node:assert/strict";
import { test } from "node:test";
import { checkHandshake } from "../src/handshake";
import { redact } from "../src/redact";
import { endText, resultText, runningText, summaryDocument } from "../src/summary";
import { testAt } from "../src/testAt";

test("handshake accepts protocol 1 only", () => {
  assert.deepEqual(checkHandshake({ capabilities: { experimental: { fixloop: { protocol: 1 } } } }), { ok: true });
  assert.deepEqual(checkHandshake({ capabilities: { experimental: { fixloop: { protocol: 2 } } } }), { ok: false, found: "protocol 2" });
  assert.deepEqual(checkHandshake({ capabilities: {} }), { ok: false, found: "no fixloop protocol" });
  assert.deepEqual(checkHandshake(undefined), { ok: false, found: "no fixloop protocol" });
});

test("redact removes every occurrence of a secret and ignores short ones", () => {
  const key = "sk-ant-abcdefgh12345";
  assert.equal(redact(`{"apiKey":"${key}"} and ${key}`, [key]), '{"apiKey":"<redacted>"} and <redacted>');
  assert.equal(redact("a b c", ["a"]), "a b c");
});

test("status texts", () => {
  assert.equal(runningText("search: candidate 4/400, calc/ops.py:12 swap_comparison (> -> >=), ~2m10s left"),
    "search: candidate 4/400");
  assert.equal(runningText(undefined), "starting");
  assert.equal(resultText({ run_id: "r", status: "gave_up", wall_seconds: 3.25 }), "fixloop gave up in 3.3 s");
  const doc = summaryDocument({
    run_id: "r1", status: "fixed", diff: "--- a/x.py\n+++ b/x.py\n",
    hunks: [{ id: "x.py#0", path: "x.py", start_line: 2, end_line: 4, state: "pending" }],
  });
  assert.match(doc, /^# fixloop run r1: fixed/);
  assert.match(doc, /# hunk x.py#0 \(lines 3-4\): pending/);
  assert.match(doc, /\+\+\+ b\/x.py/);
  assert.doesNotMatch(doc, /next steps/);
  const reviewed = summaryDocument({ run_id: "r1", status: "fixed", message: "fixed by mutation/swap",
    review: { verdict: "accept", reason: "the smallest of 2 plausible fixes", by: "offline" } });
  assert.match(reviewed, /^# fixed by mutation\/swap\n# review \(offline\): accept, the smallest of 2 plausible fixes$/m);
  const audited = summaryDocument({ run_id: "r1", status: "fixed", audit: { by: "auditor-model", blocking: true,
    findings: [{ severity: "high", path: "x.py", line: 3, message: "reads\nany path", source: "auditor-model" }] } });
  assert.match(audited, /^# audit \(auditor-model\): 1 finding\(s\)\n# {3}high x.py:3: reads any path \(auditor-model\)$/m);
  assert.match(summaryDocument({ run_id: "r1", status: "fixed", audit: { by: "offline", findings: [] } }),
    /^# audit \(offline\): nothing found$/m);
});

test("a run that did not end fixed says what it tried and what to do next", () => {
  const summary = {
    run_id: "r2", status: "limits", message: "candidate limit of 400 reached", wall_seconds: 300,
    tried: { candidates: 400, suspects: ["calc/ops.py:12", "calc/ops.py:3"], proposers: { mutation: 400 },
      operators: { swap_comparison: 250, integer_nudge: 150 }, stopped_by: "max_candidates" },
    next_steps: ["raise the candidate limit (400 now): `--max-candidates 800`", "set ANTHROPIC_API_KEY"],
  };
  assert.equal(endText(summary), "fixloop hit its limits in 300.0 s: candidate limit of 400 reached. "
    + "Next: raise the candidate limit (400 now): `--max-candidates 800`");
  assert.equal(endText({ run_id: "r3", status: "cancelled", message: "cancelled" }), "fixloop cancelled");
  const doc = summaryDocument(summary);
  assert.match(doc, /^# tried: 400 candidates \(mutation 400\)$/m);
  assert.match(doc, /^# {3}operators: swap_comparison 250, integer_nudge 150$/m);
  assert.match(doc, /^# {3}top suspects: calc\/ops.py:12, calc\/ops.py:3$/m);
  assert.match(doc, /^# next steps:\n# {3}- raise the candidate limit \(400 now\): `--max-candidates 800`\n# {3}- set ANTHROPIC_API_KEY$/m);
});

const SOURCE = [
  "import pytest",              // 0
  "",                           // 1
  "def helper():",              // 2
  "    return 1",               // 3
  "",                           // 4
  "def test_plain():",          // 5
  "    x = helper()",           // 6
  "",                           // 7
  "    assert x == 1",          // 8
  "",                           // 9
  "class TestGroup:",           // 10
  "    def setup_method(self):",// 11
  "        pass",               // 12
  "",                           // 13
  "    @pytest.mark.slow",      // 14
  "    def test_inner(self):",  // 15
  "        if True:",           // 16
  "            assert 1",       // 17
];

test("testAt finds the enclosing test, qualified by its class", () => {
  assert.equal(testAt(SOURCE, 5), "test_plain");
  assert.equal(testAt(SOURCE, 8), "test_plain");
  assert.equal(testAt(SOURCE, 7), "test_plain");
  assert.equal(testAt(SOURCE, 17), "TestGroup::test_inner");
  assert.equal(testAt(SOURCE, 15), "TestGroup::test_inner");
  assert.equal(testAt(SOURCE, 3), undefined);
  assert.equal(testAt(SOURCE, 12), undefined);
  assert.equal(testAt(SOURCE, 0), undefined);
  assert.equal(testAt(SOURCE, 10), undefined);
});
