// Which Python runs the server, and whether fixloop is installed in it.
import { execFile } from "node:child_process";
import * as os from "node:os";
import * as vscode from "vscode";
import { insideAny } from "./settings";

export interface Interpreter {
  path: string;
  source: "the setting fixloop.pythonPath" | "the Python extension" | "the default";
  /** Why it may not run here (an interpreter inside an untrusted workspace); then nothing is started. */
  refused?: string;
}

/** Where the server and every probe run: the project is never importable (docs/protocol.md). */
export interface Trust {
  trusted: boolean; // vscode.workspace.isTrusted
  folders: string[]; // the workspace folders: no interpreter from inside them unless the user set it and trusts them
  cwd: string; // a folder of the extension's own, never the workspace
}

export type Probe =
  | { ok: true; version: string }
  | { ok: false; problem: "no-python" | "no-fixloop" | "no-server"; detail: string };

/** The subset of the Python extension's API (ms-python.python) that is used here. */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(env: { path: string }): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>("ms-python.python");
  if (!extension) {
    return undefined;
  }
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch {
    return undefined;
  }
}

function expand(value: string, folder: vscode.Uri | undefined): string {
  let out = value.replace(/^~(?=$|\/)/, os.homedir());
  if (folder) {
    out = out.split("${workspaceFolder}").join(folder.fsPath);
  }
  return out;
}

/** fixloop.pythonPath from the user's own settings only (a workspace value is ignored: docs/protocol.md). */
export function userPythonPath(folder: vscode.Uri | undefined): string {
  const value = vscode.workspace.getConfiguration("fixloop", folder).inspect<string>("pythonPath")?.globalValue;
  return typeof value === "string" ? value.trim() : "";
}

/**
 * The Python extension's interpreter, in a trusted workspace only, and never one inside the workspace (its
 * `.venv` is the repository's: its site-packages and `.pth` files would run on the host).
 */
export async function pythonExtensionInterpreter(folder: vscode.Uri | undefined, trust: Trust): Promise<string | undefined> {
  const environments = trust.trusted ? (await pythonExtensionApi())?.environments : undefined;
  if (!environments) {
    return undefined;
  }
  try {
    const active = environments.getActiveEnvironmentPath(folder);
    const resolved = await environments.resolveEnvironment(active);
    const executable = resolved?.executable?.uri?.fsPath;
    return executable && !insideAny(executable, trust.folders) ? executable : undefined;
  } catch {
    return undefined;
  }
}

export async function resolveInterpreter(folder: vscode.Uri | undefined, trust: Trust): Promise<Interpreter> {
  const configured = userPythonPath(folder);
  if (configured) {
    const path = expand(configured, folder);
    const refused = !trust.trusted && insideAny(path, trust.folders)
      ? `fixloop.pythonPath (${path}) is inside this workspace, which is not trusted (Restricted Mode): fixloop ` +
        "does not start an interpreter from an untrusted workspace. Trust the workspace, or set fixloop.pythonPath " +
        "to a Python outside it."
      : undefined;
    return { path, source: "the setting fixloop.pythonPath", refused };
  }
  const fromExtension = await pythonExtensionInterpreter(folder, trust);
  if (fromExtension) {
    return { path: fromExtension, source: "the Python extension" };
  }
  return { path: process.platform === "win32" ? "python" : "python3", source: "the default" };
}

/** Fires when the Python extension's active interpreter changes (if that extension is installed). */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const event = (await pythonExtensionApi())?.environments?.onDidChangeActiveEnvironmentPath;
  return event ? event(() => listener()) : undefined;
}

// find_spec imports the parent packages only (cheap): the server module itself pulls in pygls.
const PROBE = [
  "import importlib.util",
  "try:",
  "    import fixloop",
  "except ImportError as e:",
  "    print('no-fixloop', e)",
  "else:",
  "    print('ok' if importlib.util.find_spec('fixloop.lsp.server') else 'no-server', getattr(fixloop, '__version__', '?'))",
].join("\n");

/** `-I` and a folder of the extension's: `-c` would put the current folder first on sys.path. */
export function probeFixloop(python: string, cwd: string): Promise<Probe> {
  return new Promise((resolve) => {
    execFile(python, ["-I", "-c", PROBE], { timeout: 30_000, cwd }, (error, stdout, stderr) => {
      const [word, ...rest] = stdout.trim().split(" ");
      const detail = rest.join(" ");
      if (word === "ok") {
        resolve({ ok: true, version: detail });
      } else if (word === "no-fixloop" || word === "no-server") {
        resolve({ ok: false, problem: word, detail });
      } else {
        resolve({ ok: false, problem: "no-python", detail: (error?.message ?? stderr).trim() });
      }
    });
  });
}
