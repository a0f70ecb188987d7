import assert from "node:assert/strict";
import { test } from "node:test";
import { goalProblem } from "../src/goal";
import { summaryDocument } from "../src/summary";

test("a goal needs words and a sensible length", () => {
  assert.equal(goalProblem("make line_total match its docstring"), undefined);
  assert.equal(goalProblem("  f(3) should be 4 "), undefined);
  assert.match(goalProblem("") ?? "", /describe the problem/);
  assert.match(goalProblem("   \n ") ?? "", /describe the problem/);
  assert.match(goalProblem("?? 42 !!") ?? "", /needs words/);
  assert.match(goalProblem("x".repeat(2001)) ?? "", /under 2000/);
});

test("the run document names a goal's spec and its new test file", () => {
  const doc = summaryDocument({
    run_id: "r2", status: "fixed", goal: "make line_total match its docstring", test_file: "tests/test_line_total_goal.py",
    spec: { where: "shop/pricing.py::line_total", expected: "line_total(1.0, 10) == 9.0" },
    hunks: [
      { id: "tests/test_line_total_goal.py#0", path: "tests/test_line_total_goal.py", start_line: 0, end_line: 0, state: "accepted", new_file: true },
      { id: "shop/pricing.py#0", path: "shop/pricing.py", start_line: 15, end_line: 16, state: "rejected" },
    ],
  });
  assert.match(doc, /# goal: make line_total match its docstring/);
  assert.match(doc, /# spec: shop\/pricing.py::line_total: expected line_total\(1.0, 10\) == 9.0/);
  assert.match(doc, /# reproduction test: tests\/test_line_total_goal.py/);
  assert.match(doc, /# hunk tests\/test_line_total_goal.py#0 \(new file\): accepted/);
  assert.match(doc, /# hunk shop\/pricing.py#0 \(lines 16-16\): rejected/);
});
