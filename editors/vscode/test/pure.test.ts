import assert from "node:assert/strict";
import { test } from "node:test";
import { checkHandshake } from "../src/handshake";
import { redact } from "../src/redact";
import { resultText, runningText, summaryDocument } from "../src/summary";
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
  assert.equal(runningText("run: candidate 4, tests 9 passed / 2 failed, 0 tokens"), "run: candidate 4");
  assert.equal(runningText(undefined), "starting");
  assert.equal(resultText({ run_id: "r", status: "gave_up", wall_seconds: 3.25 }), "fixloop gave up in 3.3 s");
  const doc = summaryDocument({
    run_id: "r1", status: "fixed", diff: "--- a/x.py\n+++ b/x.py\n",
    hunks: [{ id: "x.py#0", path: "x.py", start_line: 2, end_line: 4, state: "pending" }],
  });
  assert.match(doc, /^# fixloop run r1: fixed/);
  assert.match(doc, /# hunk x.py#0 \(lines 3-4\): pending/);
  assert.match(doc, /\+\+\+ b\/x.py/);
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
