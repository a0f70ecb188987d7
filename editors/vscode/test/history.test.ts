import assert from "node:assert/strict";
import { test } from "node:test";
import { historyItem, REPORT_CSP, withCsp } from "../src/historyText";

test("the webview's CSP goes first in <head> and forbids scripts and remote loads", () => {
  const page = withCsp('<!DOCTYPE html><html><head><meta charset="utf-8"><title>r</title></head><body>x</body></html>');
  assert.ok(page.indexOf(REPORT_CSP) < page.indexOf("<title>"));
  assert.match(page, /<head><meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  assert.ok(!REPORT_CSP.includes("script-src") && REPORT_CSP.startsWith("default-src 'none'"));
  assert.ok(withCsp("<p>no head</p>").startsWith("<meta http-equiv"));
});

test("a history row says what happened, when, what it cost and what the user decided", () => {
  const item = historyItem({
    run_id: "20261101-090000-abcdef", project: "/p", started: Date.UTC(2026, 10, 1, 9, 0) / 1000, target: "",
    status: "fixed", proposer: "engine", operator: "compare_op", candidates: 3, tokens: 0, cost_usd: 0, seconds: 12.25,
    decision: "rejected",
  });
  assert.equal(item.runId, "20261101-090000-abcdef");
  assert.equal(item.label, "fixed by engine/compare_op");
  assert.equal(item.description, "2026-11-01 09:00 all tests");
  assert.equal(item.detail, "3 candidates, 0 tokens, $0.0000, 12.3 s, you rejected (20261101-090000-abcdef)");
});
