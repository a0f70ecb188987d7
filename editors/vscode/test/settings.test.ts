import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  affectsServer,
  configurationAnswer,
  initializationOptions,
  Inspected,
  insideAny,
  scopedSettings,
  stripJsonComments,
  userOnlyKeysIn,
} from "../src/settings";

const user = (values: { [key: string]: unknown }) => (key: string): Inspected => ({ globalValue: values[key] });

test("only explicitly set values are sent, at their snake_case paths", () => {
  const values: { [key: string]: unknown } = {
    model: "claude-haiku-4-5",
    budgetUsd: 0.25,
    maxIterations: 7,
    "sandbox.backend": "bwrap",
    "memory.location": "/tmp/mem",
    "diagnostics.safety": false,
  };
  assert.deepEqual(scopedSettings(user(values)).user, {
    llm: { model: "claude-haiku-4-5" },
    max_cost_usd: 0.25,
    max_iterations: 7,
    sandbox: { backend: "bwrap" },
    memory: { uri: "/tmp/mem" },
    diagnostics: { safety: false },
  });
});

test("nothing set gives empty trees, so pyproject.toml settings stay in force", () => {
  assert.deepEqual(scopedSettings(() => undefined), { user: {}, workspace: {}, ignored: [] });
});

test("false and zero are real values, not 'unset'", () => {
  const values: { [key: string]: unknown } = { "memory.enabled": false, maxIterations: 0, "diagnostics.memory": false };
  assert.deepEqual(scopedSettings(user(values)).user, {
    max_iterations: 0,
    memory: { enabled: false },
    diagnostics: { memory: false },
  });
});

test("a workspace never sets the interpreter, sandbox, memory location, model or budget; it is named", () => {
  const seen: { [key: string]: Inspected } = {
    pythonPath: { workspaceValue: "/repo/evil" },
    "sandbox.backend": { globalValue: "bwrap", workspaceValue: "none" },
    "memory.location": { workspaceFolderValue: "/tmp/evil" },
    model: { workspaceValue: "claude-opus" },
    budgetUsd: { globalValue: 1, workspaceValue: 100 },
    maxIterations: { globalValue: 30, workspaceFolderValue: 5, workspaceValue: 9 },
    "diagnostics.safety": { workspaceValue: false },
  };
  const scoped = scopedSettings((key) => seen[key]);
  assert.deepEqual(scoped.user, { sandbox: { backend: "bwrap" }, max_cost_usd: 1, max_iterations: 30 });
  // The rest goes as the workspace's (the server lets it only tighten); the folder's value wins.
  assert.deepEqual(scoped.workspace, { max_iterations: 5, diagnostics: { safety: false } });
  assert.deepEqual(scoped.ignored.sort(), ["fixloop.budgetUsd", "fixloop.memory.location", "fixloop.model",
    "fixloop.pythonPath", "fixloop.sandbox.backend"]);
});

test("a workspace never grants itself fixes applied without asking; the user's own value goes through", () => {
  const seen: { [key: string]: Inspected } = {
    "trust.after": { globalValue: 3, workspaceValue: 1 },
    "trust.model": { workspaceFolderValue: true },
  };
  const scoped = scopedSettings((key) => seen[key]);
  assert.deepEqual(scoped.user, { trust: { after: 3 } });
  assert.deepEqual(scoped.workspace, {});
  assert.deepEqual(scoped.ignored.sort(), ["fixloop.trust.after", "fixloop.trust.model"]);
});

test("the user-only keys a settings file sets are found, with comments, trailing commas, nested or not", () => {
  const text = `{
    // the repository's settings
    "fixloop.sandbox.backend": "none", /* a comment with "fixloop.model": "x" in it */
    "fixloop.maxIterations": 5,
    "fixloop": { "pythonPath": "\${workspaceFolder}/evil", "memory": { "location": "/tmp/m" } },
  }`;
  assert.deepEqual(userOnlyKeysIn(text), ["fixloop.pythonPath", "fixloop.sandbox.backend", "fixloop.memory.location"]);
  assert.deepEqual(userOnlyKeysIn('{"fixloop.budgetUsd": 9, oops'), ["fixloop.budgetUsd"]);
  assert.deepEqual(userOnlyKeysIn("{}"), []);
  assert.equal(stripJsonComments('{"a": "// not a comment", /* x */ "b": 1,}'), '{"a": "// not a comment",  "b": 1}');
});

test("an interpreter inside a workspace folder is found, by its path or where its links lead", () => {
  const top = mkdtempSync(join(tmpdir(), "fixloop-inside-"));
  const ws = join(top, "ws");
  mkdirSync(join(ws, ".venv", "bin"), { recursive: true });
  symlinkSync(join(ws, ".venv"), join(top, "elsewhere"));
  assert.equal(insideAny(join(ws, ".venv", "bin", "python"), [ws]), true);
  assert.equal(insideAny(join(top, "elsewhere", "bin", "python"), [ws]), true);
  assert.equal(insideAny(ws, [ws]), true);
  assert.equal(insideAny("/usr/bin/python3", [ws]), false);
  assert.equal(insideAny(join(top, "ws2", "python"), [ws]), false);
});

test("initializationOptions carry the user's, the workspace's and the trust; the key only when present", () => {
  const scoped = { user: { max_iterations: 3 }, workspace: { diagnostics: { memory: false } }, ignored: [] };
  assert.deepEqual(initializationOptions(scoped, false, "sk-ant-123456789"), {
    settings: { max_iterations: 3 },
    workspaceSettings: { diagnostics: { memory: false } },
    workspaceTrusted: false,
    review: "workspaceEdit",
    apiKey: "sk-ant-123456789",
  });
  assert.equal("apiKey" in initializationOptions(scoped, true, ""), false);
  assert.deepEqual(configurationAnswer(scoped), { settings: { max_iterations: 3 }, workspaceSettings: { diagnostics: { memory: false } } });
});

test("restart only for fixloop settings", () => {
  assert.equal(affectsServer((s) => s === "fixloop.pythonPath"), true);
  assert.equal(affectsServer((s) => s === "fixloop.sandbox.backend"), true);
  assert.equal(affectsServer((s) => s === "editor.fontSize"), false);
});
