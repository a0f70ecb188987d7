// The managed server: offers to install fixloop into a private environment in the extension's global
// storage (the wheel that matches this extension ships in the .vsix), shows progress, and explains failures.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import { bundledWheel, candidates, findPython, Installed, readInstalled, runInstaller } from "./managed";
import { RedactingChannel } from "./output";
import { userPythonPath } from "./python";

const DECLINED_KEY = "fixloop.managedServer.declined"; // "own": the user keeps their interpreter
const MISMATCH_KEY = "fixloop.managedServer.ignoredMismatch";

export class ManagedServer {
  readonly home: string;
  readonly extensionVersion: string;
  /** The working folder of every interpreter the extension starts: its own, never the workspace. */
  readonly cwd: string;
  private offered = false; // the install offer was shown this session
  private installing: Promise<Installed | undefined> | undefined;

  constructor(private readonly context: vscode.ExtensionContext, private readonly output: RedactingChannel) {
    this.home = join(context.globalStorageUri.fsPath, "server");
    this.cwd = context.globalStorageUri.fsPath;
    this.extensionVersion = String(context.extension.packageJSON.version);
  }

  /** `cwd`, made if it is not there yet. */
  neutral(): string {
    mkdirSync(this.cwd, { recursive: true });
    return this.cwd;
  }

  installed(): Installed | undefined {
    return readInstalled(this.home);
  }

  /** Offers the install once per session (unless the user chose their own interpreter for good); false when
   * it does not (the caller explains the problem its own way). */
  offer(problem: string, preferred: string | undefined, onInstalled: () => void): boolean {
    if (this.offered || this.context.globalState.get(DECLINED_KEY) === "own") {
      return false;
    }
    this.offered = true;
    void vscode.window.showInformationMessage(
      `${problem} Install the fixloop server ${this.extensionVersion} into a private environment for this extension?`,
      "Install", "Use my interpreter", "Not now",
    ).then(async (choice) => {
      if (choice === "Install") {
        if (await this.install(preferred)) {
          onInstalled();
        }
      } else if (choice === "Use my interpreter") {
        await this.context.globalState.update(DECLINED_KEY, "own");
        await vscode.commands.executeCommand("workbench.action.openSettings", "fixloop.pythonPath");
      }
    });
    return true;
  }

  /** Installs (or reinstalls) with progress; undefined after a failure has been explained. */
  install(preferred: string | undefined): Promise<Installed | undefined> {
    this.installing ??= this.installOnce(preferred).finally(() => {
      this.installing = undefined;
    });
    return this.installing;
  }

  private async installOnce(preferred: string | undefined): Promise<Installed | undefined> {
    const serverDir = this.context.asAbsolutePath("server");
    const wheel = bundledWheel(serverDir, this.extensionVersion);
    const installer = join(serverDir, "fixloop_install.py");
    if (!wheel) {
      return this.failed(`this build of the extension has no server wheel (fixloop-${this.extensionVersion}-py3-none-any.whl ` +
        `in ${serverDir}); reinstall the extension, or set "fixloop.pythonPath" to a Python that has fixloop.`, preferred);
    }
    const found = await findPython(candidates(preferred), this.neutral());
    if (!found.ok) {
      return this.failed(found.message, preferred);
    }
    this.output.info(`fixloop: installing ${wheel} with ${found.python} (Python ${found.version}) into ${this.home}`);
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: "fixloop: installing the server", cancellable: true },
      (progress, token) => {
        let cancelled = false;
        return runInstaller(found.python, installer, this.home, wheel, this.extensionVersion, (message) => {
          this.output.info(`fixloop install: ${message}`);
          progress.report({ message });
        }, this.neutral(), {
          get cancelled() {
            return cancelled;
          },
          onCancel: (listener) => token.onCancellationRequested(() => {
            cancelled = true;
            listener();
          }),
        });
      },
    );
    if (!result.ok) {
      return this.failed(result.message, preferred);
    }
    this.output.info(`fixloop: server ${result.version} installed (${result.python})`);
    void vscode.window.showInformationMessage(`fixloop: server ${result.version} installed.`);
    return { python: result.python, version: result.version };
  }

  private failed(message: string, preferred: string | undefined): undefined {
    this.output.error(`fixloop: installing the server failed: ${message}`);
    void vscode.window.showErrorMessage(`fixloop: installing the server failed: ${message}`, "Retry", "Show Log")
      .then(async (choice) => {
        if (choice === "Retry") {
          await vscode.commands.executeCommand("fixloop.client.reinstallServer", preferred);
        } else if (choice === "Show Log") {
          this.output.show();
        }
      });
    return undefined;
  }

  /** A server of another version than the extension: offer the matching one (once per version pair). */
  checkVersion(serverVersion: string | undefined, python: string, managed: boolean, reinstall: () => void): void {
    if (!serverVersion || serverVersion === this.extensionVersion) {
      return;
    }
    const pair = `${serverVersion}->${this.extensionVersion}`;
    if (this.context.globalState.get(MISMATCH_KEY) === pair) {
      return;
    }
    const text = managed
      ? `fixloop: the installed server is ${serverVersion}, this extension is ${this.extensionVersion}.`
      : `fixloop: the server in ${python} is ${serverVersion}, this extension is ${this.extensionVersion}.`;
    const fix = managed ? "Update Server" : "Install Matching Server";
    void vscode.window.showWarningMessage(`${text} Versions that differ may not work together.`, fix, "Ignore")
      .then(async (choice) => {
        if (choice === fix) {
          reinstall();
        } else if (choice === "Ignore") {
          await this.context.globalState.update(MISMATCH_KEY, pair);
        }
      });
  }
}

/** "fixloop: Reinstall server" and "fixloop: Show server version". */
export function registerServerCommands(context: vscode.ExtensionContext, managed: ManagedServer,
  server: { current: { python: string; source: string; version?: string } | undefined; restart(): Promise<void> }): void {
  context.subscriptions.push(
    vscode.commands.registerCommand("fixloop.client.reinstallServer", async (preferred?: unknown) => {
      const installed = await managed.install(typeof preferred === "string" ? preferred : undefined);
      if (!installed) {
        return;
      }
      const setting = userPythonPath(undefined);
      if (setting) {
        void vscode.window.showInformationMessage(`fixloop: "fixloop.pythonPath" is set, so the server still runs ` +
          `from ${setting}; clear the setting to use the one just installed.`, "Open Settings").then((choice) => {
          if (choice) {
            void vscode.commands.executeCommand("workbench.action.openSettings", "fixloop.pythonPath");
          }
        });
      }
      await server.restart();
    }),
    vscode.commands.registerCommand("fixloop.client.showServerVersion", () => {
      const current = server.current;
      const installed = managed.installed();
      const running = current?.version ? `server ${current.version} (${current.python}, from ${current.source})`
        : `no server running${current ? ` (tried ${current.python}, from ${current.source})` : ""}`;
      const privateEnv = installed ? `; private environment: ${installed.version}` : "; no private environment";
      void vscode.window.showInformationMessage(`fixloop: extension ${managed.extensionVersion}, ${running}${privateEnv}.`);
    }),
  );
}
