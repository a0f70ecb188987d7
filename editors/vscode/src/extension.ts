// Entry point: wires the output channel, status item, server controller and commands together.
import * as vscode from "vscode";
import { registerCommands } from "./commands";
import { registerHistoryCommands } from "./history";
import { ManagedServer, registerServerCommands } from "./install";
import { RedactingChannel } from "./output";
import { onInterpreterChange, userPythonPath } from "./python";
import { API_KEY_SECRET, ServerController } from "./server";
import { affectsServer } from "./settings";
import { StatusItem } from "./status";
import { registerTemplateCommands } from "./templates";
import { endText, RunSummary } from "./summary";

let controller: ServerController | undefined;

function announce(summary: RunSummary): void {
  // A fix arrives as a workspace edit (the Refactor Preview opens); other endings need words.
  if (summary.status === "fixed") {
    return;
  }
  const text = endText(summary);
  const show = summary.status === "nothing_to_fix" ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  void show(text, "Show Last Run").then((choice) => {
    if (choice) {
      void vscode.commands.executeCommand("fixloop.client.showRun");
    }
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const status = new StatusItem();
  let server: ServerController | undefined;
  const output = new RedactingChannel(
    vscode.window.createOutputChannel("fixloop", { log: true }),
    () => server?.secretValues() ?? [],
    () => vscode.workspace.getConfiguration("fixloop").get<string>("trace.server", "off") !== "off",
  );
  const managed = new ManagedServer(context, output);
  server = new ServerController(context.secrets, output, status, announce, () => managed.neutral(), managed);
  controller = server;
  context.subscriptions.push(output, status, server);
  registerCommands(context, server, output);
  registerHistoryCommands(context, server);
  registerTemplateCommands(context, server);
  registerServerCommands(context, managed, server);

  const restart = (): void => void server.restart();
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (affectsServer((section) => event.affectsConfiguration(section))) {
        output.info("fixloop: settings changed; restarting the server");
        restart();
      }
    }),
    // Leaving Restricted Mode: the Python extension's interpreter and the user's `none` backend become possible.
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart()),
    context.secrets.onDidChange((event) => {
      if (event.key === API_KEY_SECRET) {
        restart();
      }
    }),
  );
  const interpreterWatch = await onInterpreterChange(() => {
    if (!userPythonPath(undefined)) {
      restart();
    }
  });
  if (interpreterWatch) {
    context.subscriptions.push(interpreterWatch);
  }
  await server.restart();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
}
