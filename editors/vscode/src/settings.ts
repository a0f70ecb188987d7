// Maps the extension's `fixloop.*` settings to the server's snake_case settings tree (docs/protocol.md).
// Pure: no `vscode` import, so it is unit-tested with plain node.

/** Extension setting (under `fixloop.`) -> path in the server's settings tree. */
export const SERVER_SETTINGS: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["model", ["llm", "model"]],
  ["budgetUsd", ["max_cost_usd"]],
  ["maxIterations", ["max_iterations"]],
  ["sandbox.backend", ["sandbox", "backend"]],
  ["memory.location", ["memory", "uri"]],
  ["memory.enabled", ["memory", "enabled"]],
  ["diagnostics.safety", ["diagnostics", "safety"]],
  ["diagnostics.memory", ["diagnostics", "memory"]],
];

/** Settings that only the extension reads; changing them restarts the server too. */
export const CLIENT_SETTINGS: readonly string[] = ["pythonPath", "trace.server"];

export type SettingsTree = { [key: string]: unknown };

/**
 * Builds the server settings from the values the user set explicitly (`explicit` returns undefined
 * for a setting left at its default). Defaults are not sent, so the project's `[tool.fixloop]` in
 * pyproject.toml still applies where the user has not overridden it in the editor.
 */
export function serverSettings(explicit: (key: string) => unknown): SettingsTree {
  const tree: SettingsTree = {};
  for (const [key, path] of SERVER_SETTINGS) {
    const value = explicit(key);
    if (value === undefined || value === null) {
      continue;
    }
    let node = tree;
    for (const part of path.slice(0, -1)) {
      node = (node[part] ??= {}) as SettingsTree;
    }
    node[path[path.length - 1]] = value;
  }
  return tree;
}

export interface InitializationOptions {
  settings: SettingsTree;
  review: "workspaceEdit";
  apiKey?: string;
}

export function initializationOptions(settings: SettingsTree, apiKey: string | undefined): InitializationOptions {
  const options: InitializationOptions = { settings, review: "workspaceEdit" };
  if (apiKey) {
    options.apiKey = apiKey;
  }
  return options;
}

/** True when a configuration change touches any setting the server or its start-up depends on. */
export function affectsServer(affects: (section: string) => boolean): boolean {
  return [...SERVER_SETTINGS.map(([key]) => key), ...CLIENT_SETTINGS].some((key) => affects(`fixloop.${key}`));
}
