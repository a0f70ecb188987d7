import assert from "node:assert/strict";
import { test } from "node:test";
import { affectsServer, initializationOptions, serverSettings } from "../src/settings";

test("only explicitly set values are sent, at their snake_case paths", () => {
  const values: { [key: string]: unknown } = {
    model: "claude-haiku-4-5",
    budgetUsd: 0.25,
    maxIterations: 7,
    "sandbox.backend": "bwrap",
    "memory.location": "/tmp/mem",
    "diagnostics.safety": false,
  };
  assert.deepEqual(serverSettings((key) => values[key]), {
    llm: { model: "claude-haiku-4-5" },
    max_cost_usd: 0.25,
    max_iterations: 7,
    sandbox: { backend: "bwrap" },
    memory: { uri: "/tmp/mem" },
    diagnostics: { safety: false },
  });
});

test("nothing set gives an empty tree, so pyproject.toml settings stay in force", () => {
  assert.deepEqual(serverSettings(() => undefined), {});
});

test("false and zero are real values, not 'unset'", () => {
  const values: { [key: string]: unknown } = { "memory.enabled": false, maxIterations: 0, "diagnostics.memory": false };
  assert.deepEqual(serverSettings((key) => values[key]), {
    max_iterations: 0,
    memory: { enabled: false },
    diagnostics: { memory: false },
  });
});

test("the API key is included only when present", () => {
  assert.deepEqual(initializationOptions({}, undefined), { settings: {}, review: "workspaceEdit" });
  assert.deepEqual(initializationOptions({ max_iterations: 3 }, "sk-ant-123456789"), {
    settings: { max_iterations: 3 },
    review: "workspaceEdit",
    apiKey: "sk-ant-123456789",
  });
  assert.equal("apiKey" in initializationOptions({}, ""), false);
});

test("restart only for fixloop settings", () => {
  assert.equal(affectsServer((s) => s === "fixloop.pythonPath"), true);
  assert.equal(affectsServer((s) => s === "fixloop.sandbox.backend"), true);
  assert.equal(affectsServer((s) => s === "editor.fontSize"), false);
});
