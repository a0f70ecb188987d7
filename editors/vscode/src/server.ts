// Starts, stops and restarts the fixloop language server, and explains every way it can fail.
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { checkHandshake, PROTOCOL_VERSION } from "./handshake";
import { ManagedServer } from "./install";
import { RedactingChannel } from "./output";
import { probeFixloop, resolveInterpreter, Trust } from "./python";
import { RunFeature } from "./runs";
import { configurationAnswer, initializationOptions, Inspected, ScopedSettings, scopedSettings, userOnlyKeysIn } from "./settings";
import { StatusItem } from "./status";
import { RunSummary } from "./summary";

export const API_KEY_SECRET = "fixloop.anthropicApiKey";

function currentSettings(scope: vscode.Uri | undefined): ScopedSettings {
  const config = vscode.workspace.getConfiguration("fixloop", scope);
  return scopedSettings((key) => config.inspect(key) as Inspected | undefined);
}

/** The workspace's settings files (each folder's .vscode/settings.json, a .code-workspace file). */
async function workspaceSettingsFiles(): Promise<vscode.Uri[]> {
  const files = (vscode.workspace.workspaceFolders ?? []).map((f) => vscode.Uri.joinPath(f.uri, ".vscode", "settings.json"));
  const workspaceFile = vscode.workspace.workspaceFile;
  return workspaceFile?.scheme === "file" ? [...files, workspaceFile] : files;
}

/**
 * `fixloop.<key>` of each user-only setting the workspace sets, by VS Code's reading or in its files (VS Code
 * drops a machine or application setting from a workspace file before the extension could see it).
 */
async function ignoredWorkspaceSettings(scoped: ScopedSettings): Promise<string[]> {
  const found = new Set(scoped.ignored);
  for (const file of await workspaceSettingsFiles()) {
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
      userOnlyKeysIn(text).forEach((key) => found.add(key));
    } catch {
      // no such file
    }
  }
  return [...found];
}

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private chain: Promise<void> = Promise.resolve();
  private problem = "the fixloop server is not running";
  private apiKey: string | undefined;
  private named = ""; // the ignored workspace settings last named to the user
  /** The server that runs (or was last tried), for "fixloop: Show server version". */
  current: { python: string; source: string; version?: string } | undefined;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly output: RedactingChannel,
    private readonly status: StatusItem,
    private readonly onFinished: (summary: RunSummary) => void,
    private readonly neutral: () => string,
    private readonly managed?: ManagedServer,
  ) {}

  /** The secrets to redact from logs. */
  secretValues(): string[] {
    return this.apiKey ? [this.apiKey] : [];
  }

  restart(): Promise<void> {
    this.chain = this.chain.then(() => this.stopClient()).then(() => this.startClient());
    return this.chain;
  }

  stop(): Promise<void> {
    this.chain = this.chain.then(() => this.stopClient());
    return this.chain;
  }

  /** Runs a server command through workspace/executeCommand; undefined (after a message) when it cannot. */
  async execute<T>(command: string, argument: object): Promise<T | undefined> {
    await this.chain;
    if (!this.client || !this.client.isRunning()) {
      this.explain(this.problem, []);
      return undefined;
    }
    try {
      return (await this.client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] })) as T;
    } catch (e) {
      const text = e instanceof ResponseError || e instanceof Error ? e.message : String(e);
      this.output.error(`${command} failed: ${text}`);
      void vscode.window.showErrorMessage(`fixloop: ${command} failed: ${text}`, "Show Log").then((choice) => {
        if (choice) {
          this.output.show();
        }
      });
      return undefined;
    }
  }

  /** Says once which of the workspace's settings are not taken (docs/protocol.md, "Where settings come from"). */
  private async nameIgnored(scoped: ScopedSettings, trusted: boolean): Promise<void> {
    const ignored = await ignoredWorkspaceSettings(scoped);
    const key = ignored.join(",");
    if (!ignored.length || key === this.named) {
      return;
    }
    this.named = key;
    const text = `fixloop: ignored the workspace's ${ignored.join(", ")}: only your user settings choose the ` +
      "interpreter, the sandbox, the memory's location, the model and the budget" +
      (trusted ? "." : " (and this workspace is in Restricted Mode).");
    this.output.warn(text);
    void vscode.window.showWarningMessage(text, "Open User Settings").then((choice) => {
      if (choice) {
        void vscode.commands.executeCommand("workbench.action.openSettings", ignored[0]);
      }
    });
  }

  private async startClient(): Promise<void> {
    this.status.starting();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const trusted = vscode.workspace.isTrusted;
    const trust: Trust = { trusted, folders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath), cwd: this.neutral() };
    const scoped = currentSettings(folder);
    await this.nameIgnored(scoped, trusted);
    const interpreter = await resolveInterpreter(folder, trust);
    if (interpreter.refused) {
      this.output.error(interpreter.refused);
      this.fail(`fixloop: ${interpreter.refused}`, []);
      return;
    }
    // With no fixloop.pythonPath, a server the extension installed wins over the selected interpreter.
    const fromSetting = interpreter.source === "the setting fixloop.pythonPath";
    const installed = fromSetting ? undefined : this.managed?.installed();
    const python = installed?.python ?? interpreter.path;
    const source = installed ? "the private environment of the extension" : interpreter.source;
    this.current = { python, source };
    this.output.info(`fixloop: Python is ${python} (from ${source})`);
    const probe = await probeFixloop(python, trust.cwd);
    if (!probe.ok && !fromSetting && this.managed) {
      const why = probe.problem === "no-python" ? `No Python to run the fixloop server was found (${python}).`
        : `fixloop is not installed in ${python}.`;
      const preferred = interpreter.source === "the Python extension" ? interpreter.path : undefined;
      if (this.managed.offer(why, preferred, () => void this.restart())) {
        this.problem = `${why} Run "fixloop: Reinstall server" to install it, or set "fixloop.pythonPath".`;
        this.status.stopped(this.problem);
        this.output.error(`${why} (${probe.detail})`);
        return;
      }
    }
    if (!probe.ok) {
      const install = `${python} -m pip install fixloop`;
      const messages = {
        "no-python": `fixloop: the Python interpreter "${python}" (from ${interpreter.source}) could not be run. ` +
          `Set "fixloop.pythonPath" to a Python that has fixloop installed.`,
        "no-fixloop": `fixloop is not installed in ${python} (from ${interpreter.source}). ` +
          `Install it with "${install}", or set "fixloop.pythonPath" to a Python that has it.`,
        "no-server": `The fixloop ${probe.detail} in ${python} has no language server. ` +
          `Upgrade it with "${install} --upgrade".`,
      };
      this.output.error(`${messages[probe.problem]} (${probe.detail})`);
      this.fail(messages[probe.problem], probe.problem === "no-python" ? [] : [install]);
      return;
    }
    this.apiKey = await this.secrets.get(API_KEY_SECRET);
    // Isolated, in a folder of the extension's own: the workspace reaches the server as rootUri only, never on
    // its module search path (a repository's `fixloop/` or `json.py` would run on the host otherwise).
    const serverOptions: ServerOptions = {
      command: python,
      args: ["-I", "-m", "fixloop.lsp.server"], // vscode-languageclient appends --stdio
      transport: TransportKind.stdio,
      options: { cwd: trust.cwd },
    };
    let stopping = false;
    let started = false;
    let crashed = false;
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file", language: "python" }],
      outputChannel: this.output,
      traceOutputChannel: this.output,
      initializationOptions: initializationOptions(scoped, trusted, this.apiKey),
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            // The section has the shape of initializationOptions (docs/protocol.md), minus the API key.
            return params.items.map((item, i) =>
              item.section === "fixloop"
                ? configurationAnswer(currentSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : folder))
                : answers[i],
            );
          },
        },
      },
      errorHandler: {
        error: (_error, _message, count) => ({ action: (count ?? 0) < 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true }),
        closed: () => {
          // Before start() resolves, its rejection reports the failure; after, this is a crash.
          if (!stopping && started) {
            crashed = true;
            this.client = undefined;
            this.fail("The fixloop server stopped unexpectedly. Its log is in the \"fixloop\" output; restart it to go on.", []);
          }
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
    };
    const client = new LanguageClient("fixloop", "fixloop", serverOptions, clientOptions);
    client.registerFeature(new RunFeature(client, this.status, this.onFinished));
    const stopThis = async (): Promise<void> => {
      stopping = true;
      await client.stop(5000).catch(() => undefined);
    };
    try {
      await client.start();
      started = true;
    } catch (e) {
      await stopThis();
      this.fail(`The fixloop server in ${python} failed to start: ${e instanceof Error ? e.message : String(e)}.`, []);
      return;
    }
    const handshake = checkHandshake(client.initializeResult);
    if (!handshake.ok) {
      await stopThis();
      this.fail(
        `The fixloop server in ${python} is incompatible with this extension: it speaks ${handshake.found}, ` +
          `the extension needs protocol ${PROTOCOL_VERSION}. Upgrade both, e.g. "${python} -m pip install --upgrade fixloop".`,
        [],
      );
      return;
    }
    if (crashed) {
      return; // closed() has explained it already
    }
    if (!client.isRunning()) {
      this.fail("The fixloop server stopped unexpectedly. Its log is in the \"fixloop\" output; restart it to go on.", []);
      return;
    }
    this.client = client;
    this.stopClient = async () => {
      this.client = undefined;
      await stopThis();
      this.stopClient = async () => undefined;
    };
    this.status.idle();
    const version = client.initializeResult?.serverInfo?.version;
    this.current = { python, source, version };
    this.output.info(`fixloop: server ${version ?? "?"} started`);
    if (!fromSetting) {
      this.managed?.checkVersion(version, python, installed !== undefined,
        () => void vscode.commands.executeCommand("fixloop.client.reinstallServer"));
    } else if (this.managed && version !== this.managed.extensionVersion) {
      this.output.warn(`fixloop: the server in ${python} is ${version ?? "?"}, the extension ${this.managed.extensionVersion}`);
    }
  }

  private stopClient: () => Promise<void> = async () => undefined;

  private fail(message: string, copyable: string[]): void {
    this.problem = message;
    this.status.stopped(message);
    this.explain(message, copyable);
  }

  private explain(message: string, copyable: string[]): void {
    const actions = [...copyable.map(() => "Copy Install Command"), "Open Settings", "Show Log", "Restart"];
    void vscode.window.showErrorMessage(message, ...actions).then(async (choice) => {
      if (choice === "Copy Install Command") {
        await vscode.env.clipboard.writeText(copyable[0]);
      } else if (choice === "Open Settings") {
        await vscode.commands.executeCommand("workbench.action.openSettings", "fixloop.pythonPath");
      } else if (choice === "Show Log") {
        this.output.show();
      } else if (choice === "Restart") {
        await this.restart();
      }
    });
  }

  dispose(): void {
    void this.stop();
  }
}
