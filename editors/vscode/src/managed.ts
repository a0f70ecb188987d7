// The private server environment the extension manages (no `vscode` import: unit-tested with plain node).
// The work is done by server/fixloop_install.py (shipped in the .vsix with the matching wheel); this module
// finds a Python for it, runs it, and reads what it installed.
import { execFile, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const MIN_PYTHON: readonly [number, number] = [3, 10];

export interface Installed {
  python: string;
  version: string;
}

export type Found =
  | { ok: true; python: string; version: string }
  | { ok: false; problem: "no-python" | "old-python"; message: string };

export type InstallResult =
  | { ok: true; python: string; version: string }
  | { ok: false; problem: string; message: string };

/** The environment in use under `home`, if its interpreter is still there. */
export function readInstalled(home: string): Installed | undefined {
  try {
    const current = JSON.parse(readFileSync(join(home, "current.json"), "utf8")) as Partial<Installed>;
    if (typeof current.python === "string" && typeof current.version === "string" && existsSync(current.python)) {
      return { python: current.python, version: current.version };
    }
  } catch {
    // none yet, or a broken file: the same as none
  }
  return undefined;
}

/** The wheel shipped in the extension (server/fixloop-<version>-py3-none-any.whl). */
export function bundledWheel(serverDir: string, version: string): string | undefined {
  const name = `fixloop-${version}-py3-none-any.whl`;
  try {
    return readdirSync(serverDir).includes(name) ? join(serverDir, name) : undefined;
  } catch {
    return undefined;
  }
}

// Every interpreter here runs isolated (-I) in a folder of the extension's own: a project's `sys.py`-style
// shadows or `sitecustomize` are never importable, whatever folder the editor was started in.
function pythonVersion(python: string, cwd: string): Promise<[number, number] | undefined> {
  return new Promise((resolve) => {
    execFile(python, ["-I", "-c", "import sys; print(sys.version_info[0], sys.version_info[1])"], { timeout: 20_000, cwd },
      (error, stdout) => {
        const parts = stdout.trim().split(" ").map(Number);
        resolve(error || parts.length !== 2 || parts.some(Number.isNaN) ? undefined : [parts[0], parts[1]]);
      });
  });
}

/** Candidates in order: the user's chosen interpreter first, then the usual names on PATH. */
export function candidates(preferred: string | undefined): string[] {
  const names = ["python3", "python", "python3.13", "python3.12", "python3.11", "python3.10"];
  return preferred ? [preferred, ...names.filter((n) => n !== preferred)] : names;
}

/** The first candidate that runs and is new enough; else why none is. */
export async function findPython(list: string[], cwd: string): Promise<Found> {
  const old: string[] = [];
  for (const python of list) {
    const version = await pythonVersion(python, cwd);
    if (!version) {
      continue;
    }
    if (version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1])) {
      return { ok: true, python, version: version.join(".") };
    }
    old.push(`${python} is Python ${version.join(".")}`);
  }
  const need = `fixloop's server needs Python ${MIN_PYTHON.join(".")} or newer`;
  if (old.length) {
    return { ok: false, problem: "old-python", message: `${need}, and the only Python found is too old (${old.join("; ")}). ` +
      "Install a newer Python (python.org or your package manager), select it, then retry." };
  }
  return { ok: false, problem: "no-python", message: `${need}, and no Python was found (tried ${list.join(", ")}). ` +
    "Install Python 3.10 or newer (python.org or your package manager), or set \"fixloop.pythonPath\", then retry." };
}

export interface Cancel {
  readonly cancelled: boolean;
  onCancel(listener: () => void): void;
}

/** Runs the installer in `cwd`; `progress` gets each step. Never rejects: failures come back as messages. */
export function runInstaller(python: string, installer: string, home: string, source: string, expect: string,
  progress: (message: string) => void, cwd: string, cancel?: Cancel, env?: NodeJS.ProcessEnv): Promise<InstallResult> {
  return new Promise((resolve) => {
    const child = spawn(python, ["-I", installer, "--home", home, "--source", source, "--expect-version", expect],
      { stdio: ["ignore", "pipe", "pipe"], env: env ?? process.env, cwd });
    let last: InstallResult | undefined;
    let buffered = "";
    let stderr = "";
    cancel?.onCancel(() => child.kill("SIGTERM"));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        try {
          const event = JSON.parse(line) as { progress?: string; ok?: boolean } & Record<string, string>;
          if (typeof event.progress === "string") {
            progress(event.progress);
          } else if (event.ok === true) {
            last = { ok: true, python: event.python, version: event.version };
          } else if (event.ok === false) {
            last = { ok: false, problem: event.problem, message: event.message };
          }
        } catch {
          // not an event line
        }
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    child.on("error", (error) => resolve({ ok: false, problem: "no-python", message: `${python} could not be run: ${error.message}` }));
    child.on("close", (code) => {
      if (last) {
        resolve(last);
      } else if (cancel?.cancelled) {
        resolve({ ok: false, problem: "interrupted", message: "the install was cancelled; nothing was changed. Retry when you are ready." });
      } else {
        resolve({ ok: false, problem: "crash", message: `the installer stopped (exit ${code}) without a result: ${stderr.trim().split("\n").slice(-3).join(" ")}` });
      }
    });
  });
}
