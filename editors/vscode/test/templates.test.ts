import assert from "node:assert/strict";
import { test } from "node:test";
import { MinedTemplate, templateDiff, templateItem } from "../src/templatesText";

const TEMPLATE: MinedTemplate = {
  id: "0123456789ab", name: "a strict comparison against a name becomes non-strict (> -> >=)", status: "proposed",
  place: "only once approved", before_shape: "if ID1 > ID2 :", after_shape: "if ID1 >= ID2 :", support: 2, projects: 2, tries: 0,
  successes: 0,
  examples: [{ project: "/p/shop", path: "shop/price.py", before: "if qty > BULK:", after: "if qty >= BULK:" }],
};

test("a template row names the change, its status and id, its shapes and support", () => {
  const item = templateItem(TEMPLATE);
  assert.equal(item.id, "0123456789ab");
  assert.equal(item.label, TEMPLATE.name);
  assert.equal(item.description, "proposed (0123456789ab)");
  assert.equal(item.detail, "if ID1 > ID2 :  ->  if ID1 >= ID2 :  · 2 fixes in 2 project(s)");
  assert.match(templateItem({ ...TEMPLATE, tries: 4, successes: 3 }).detail, /fixed 3 of 4 runs that tried it$/);
});

test("the preview is a diff of the shapes and of every example", () => {
  const diff = templateDiff(TEMPLATE);
  assert.match(diff, /^# fixloop mined template 0123456789ab: a strict comparison/);
  assert.ok(diff.includes("--- before\n+++ after\n@@ shape @@\n-if ID1 > ID2 :\n+if ID1 >= ID2 :\n"));
  assert.ok(diff.includes("@@ shop/price.py (/p/shop) @@\n-if qty > BULK:\n+if qty >= BULK:\n"));
});
