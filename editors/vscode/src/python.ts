// Which Python runs the server, and whether fixloop is installed in it.
import { execFile } from "node:child_process";
import * as os from "node:os";
import * as vscode from "vscode";

export interface Interpreter {
  path: string;
  source: "the setting fixloop.pythonPath" | "the Python extension" | "the default";
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

export async function resolveInterpreter(folder: vscode.Uri | undefined): Promise<Interpreter> {
  const configured = vscode.workspace.getConfiguration("fixloop", folder).get<string>("pythonPath", "").trim();
  if (configured) {
    return { path: expand(configured, folder), source: "the setting fixloop.pythonPath" };
  }
  const environments = (await pythonExtensionApi())?.environments;
  if (environments) {
    try {
      const active = environments.getActiveEnvironmentPath(folder);
      const resolved = await environments.resolveEnvironment(active);
      const executable = resolved?.executable?.uri?.fsPath;
      if (executable) {
        return { path: executable, source: "the Python extension" };
      }
    } catch {
      // Fall through to the default interpreter.
    }
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

export function probeFixloop(python: string, cwd: string | undefined): Promise<Probe> {
  return new Promise((resolve) => {
    execFile(python, ["-c", PROBE], { timeout: 30_000, cwd }, (error, stdout, stderr) => {
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
