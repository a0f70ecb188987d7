// Maps the extension's `fixloop.*` settings to the server's snake_case settings tree (docs/protocol.md), and
// says which scope may set which: a repository's `.vscode/settings.json` is the repository's, not the user's.
// Pure: no `vscode` import, so it is unit-tested with plain node.
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";

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
  ["trust.after", ["trust", "after"]],
  ["trust.model", ["trust", "model"]],
];

/** Settings that only the extension reads; changing them restarts the server too. */
export const CLIENT_SETTINGS: readonly string[] = ["pythonPath", "trace.server"];

/**
 * Settings that weaken isolation or name an executable, a location, the model or a budget: only the user's
 * own scope (user, machine, application) sets them. package.json declares them `machine`/`application` and
 * lists them in `restrictedConfigurations`; they are also read from `globalValue` alone, because a workspace
 * may hold values from before they were, and a workspace value is named to the user.
 */
export const USER_ONLY: readonly string[] = [
  "pythonPath", "model", "budgetUsd", "sandbox.backend", "memory.location", "trust.after", "trust.model",
];

export type SettingsTree = { [key: string]: unknown };

/** What `WorkspaceConfiguration.inspect()` says of one setting (the scopes read here). */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export interface ScopedSettings {
  /** The user's own values: initializationOptions.settings (the server trusts them). */
  user: SettingsTree;
  /** The workspace's values of the other settings: initializationOptions.workspaceSettings (tighten-only). */
  workspace: SettingsTree;
  /** `fixloop.<key>` of each user-only setting the workspace tried to set. */
  ignored: string[];
}

function put(tree: SettingsTree, path: readonly string[], value: unknown): void {
  let node = tree;
  for (const part of path.slice(0, -1)) {
    node = (node[part] ??= {}) as SettingsTree;
  }
  node[path[path.length - 1]] = value;
}

const given = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * Splits the explicitly set values by scope. Defaults are not sent, so the project's `[tool.fixloop]` in
 * pyproject.toml still applies where nobody has overridden it in the editor.
 */
export function scopedSettings(inspect: (key: string) => Inspected | undefined): ScopedSettings {
  const out: ScopedSettings = { user: {}, workspace: {}, ignored: [] };
  for (const [key, path] of SERVER_SETTINGS) {
    const seen = inspect(key) ?? {};
    if (given(seen.globalValue)) {
      put(out.user, path, seen.globalValue);
    }
    const local = given(seen.workspaceFolderValue) ? seen.workspaceFolderValue : seen.workspaceValue;
    if (!given(local)) {
      continue;
    }
    if (USER_ONLY.includes(key)) {
      out.ignored.push(`fixloop.${key}`);
    } else {
      put(out.workspace, path, local);
    }
  }
  const python = inspect("pythonPath") ?? {};
  if (given(python.workspaceFolderValue) || given(python.workspaceValue)) {
    out.ignored.unshift("fixloop.pythonPath");
  }
  return out;
}

/** The user-only settings a settings file (JSON with comments, `.vscode/settings.json`) sets, flat or nested. */
export function userOnlyKeysIn(text: string): string[] {
  let data: unknown;
  try {
    data = JSON.parse(stripJsonComments(text));
  } catch {
    // Unreadable as JSON: name what looks like one of the keys.
    return USER_ONLY.filter((key) => new RegExp(`"fixloop\\.${key.replace(".", "\\.")}"\\s*:`).test(text))
      .map((key) => `fixloop.${key}`);
  }
  if (typeof data !== "object" || data === null) {
    return [];
  }
  const root = data as { [key: string]: unknown };
  return USER_ONLY.filter((key) => given(root[`fixloop.${key}`]) || given(nested(root, ["fixloop", ...key.split(".")])))
    .map((key) => `fixloop.${key}`);
}

function nested(node: unknown, path: string[]): unknown {
  for (const part of path) {
    if (typeof node !== "object" || node === null) {
      return undefined;
    }
    node = (node as { [key: string]: unknown })[part];
  }
  return node;
}

/** JSON with comments and trailing commas, as VS Code writes settings, made plain JSON. */
export function stripJsonComments(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === "\\") {
          i++;
        }
      }
      out += text.slice(start, i + 1);
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") {
        i++;
      }
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else {
      out += c;
    }
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

/** True when `path` (as written, or with its links resolved) is one of `folders` or inside one. */
export function insideAny(path: string, folders: readonly string[]): boolean {
  // Links resolved as far as the path exists (an interpreter that is not there yet still lies somewhere).
  const real = (p: string): string => {
    const full = resolve(p);
    try {
      return realpathSync(full);
    } catch {
      const parent = dirname(full);
      return parent === full ? full : join(real(parent), basename(full));
    }
  };
  const forms = [resolve(path), real(path)];
  return folders.some((folder) => [resolve(folder), real(folder)].some((root) => forms.some((p) => {
    const rel = relative(root, p);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  })));
}

export interface InitializationOptions {
  settings: SettingsTree;
  workspaceSettings: SettingsTree;
  workspaceTrusted: boolean;
  review: "workspaceEdit";
  apiKey?: string;
}

export function initializationOptions(scoped: ScopedSettings, trusted: boolean, apiKey: string | undefined): InitializationOptions {
  const options: InitializationOptions = {
    settings: scoped.user,
    workspaceSettings: scoped.workspace,
    workspaceTrusted: trusted,
    review: "workspaceEdit",
  };
  if (apiKey) {
    options.apiKey = apiKey;
  }
  return options;
}

/** The answer to `workspace/configuration` section `fixloop` (the server treats all of it as the workspace's). */
export function configurationAnswer(scoped: ScopedSettings): { settings: SettingsTree; workspaceSettings: SettingsTree } {
  return { settings: scoped.user, workspaceSettings: scoped.workspace };
}

/** True when a configuration change touches any setting the server or its start-up depends on. */
export function affectsServer(affects: (section: string) => boolean): boolean {
  return [...SERVER_SETTINGS.map(([key]) => key), ...CLIENT_SETTINGS].some((key) => affects(`fixloop.${key}`));
}
