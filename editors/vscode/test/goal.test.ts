import assert from "node:assert/strict";
import { test } from "node:test";
import { goalProblem } from "../src/goal";

test("a goal needs words and a sensible length", () => {
  assert.equal(goalProblem("make line_total match its docstring"), undefined);
  assert.equal(goalProblem("  f(3) should be 4 "), undefined);
  assert.match(goalProblem("") ?? "", /describe the problem/);
  assert.match(goalProblem("   \n ") ?? "", /describe the problem/);
  assert.match(goalProblem("?? 42 !!") ?? "", /needs words/);
  assert.match(goalProblem("x".repeat(2001)) ?? "", /under 2000/);
});
