// The client commands (ids `fixloop.client.*`); each calls the server's command of docs/protocol.md.
// The server's own ids (fixloop.fix, ...) are registered by vscode-languageclient, never here.
import * as vscode from "vscode";
import { API_KEY_SECRET, ServerController } from "./server";
import { RunSummary, summaryDocument } from "./summary";
import { goalProblem } from "./goal";
import { testAt } from "./testAt";

function activePythonUri(): vscode.Uri | undefined {
  const document = vscode.window.activeTextEditor?.document;
  return document?.uri.scheme === "file" && document.languageId === "python" ? document.uri : undefined;
}

function memoryIdAtCursor(editor: vscode.TextEditor | undefined): string | undefined {
  if (!editor) {
    return undefined;
  }
  const cursor = editor.selection.active;
  for (const diagnostic of vscode.languages.getDiagnostics(editor.document.uri)) {
    // vscode-languageclient keeps the LSP `data` field on the diagnostics it creates.
    const data = (diagnostic as { data?: { memory_id?: unknown } }).data;
    if (diagnostic.source === "fixloop-memory" && diagnostic.range.contains(cursor) && typeof data?.memory_id === "string") {
      return data.memory_id;
    }
  }
  return undefined;
}

/** The `fixloop.fix` argument of a goal: the words, and the file and cursor they are likely about. */
function goalArgument(goal: string, editor: vscode.TextEditor | undefined): object {
  const document = editor?.document;
  if (!editor || !document || document.uri.scheme !== "file" || document.languageId !== "python") {
    return { goal: goal.trim() };
  }
  const position = editor.selection.active;
  return { goal: goal.trim(), uri: document.uri.toString(), position: { line: position.line, character: position.character } };
}

interface FixResult {
  run_id: string;
  queued: boolean;
}

export function registerCommands(
  context: vscode.ExtensionContext,
  server: ServerController,
  output: vscode.OutputChannel,
): void {
  const register = (id: string, run: (...args: any[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  };
  const reportQueued = (result: FixResult | undefined): void => {
    if (result?.queued) {
      void vscode.window.showInformationMessage(`fixloop: another run is going on; run ${result.run_id} is queued.`);
    }
  };

  register("fixloop.client.fix", async () => {
    const uri = activePythonUri();
    reportQueued(await server.execute<FixResult>("fixloop.fix", { ...(uri ? { uri: uri.toString() } : {}), scope: "workspace" }));
  });

  register("fixloop.client.fixTest", async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.uri.scheme !== "file") {
      void vscode.window.showWarningMessage("fixloop: open a test file and put the cursor in a test first.");
      return;
    }
    const position = editor.selection.active;
    if (!testAt(editor.document.getText().split(/\r?\n/), position.line)) {
      void vscode.window.showWarningMessage("fixloop: the cursor is not inside a test function (def test_...).");
      return;
    }
    // The server finds the test at the position (with a real parser) and its pytest node id.
    const argument = {
      uri: editor.document.uri.toString(),
      scope: "position",
      position: { line: position.line, character: position.character },
    };
    reportQueued(await server.execute<FixResult>("fixloop.fix", argument));
  });

  register("fixloop.client.fixChecks", async (given?: string[]) => {
    // The checkers' findings as targets beside the failing tests (the server runs each checker from the project's
    // own environment, in the sandbox). The code action "Fix with fixloop" on a ruff or mypy diagnostic does the same.
    const picked =
      Array.isArray(given)
        ? given.map((label) => ({ label }))
        : await vscode.window.showQuickPick(
            [
              { label: "ruff", picked: true },
              { label: "mypy", picked: false },
              { label: "pyright", picked: false },
            ],
            { title: "fixloop: fix the findings of", canPickMany: true, ignoreFocusOut: true },
          );
    if (!picked || picked.length === 0) {
      return; // Escape, or nothing chosen
    }
    const uri = activePythonUri();
    reportQueued(
      await server.execute<FixResult>("fixloop.fix", {
        // In a Python file: that file's findings are the targets (the others are left, none may be added).
        ...(uri ? { uri: uri.toString(), check_scope: "file" } : {}),
        scope: "workspace",
        checks: picked.map((p) => p.label),
      }),
    );
  });

  register("fixloop.client.fixGoal", async (given?: string) => {
    // The words become a spec, a failing reproduction test (reviewed like any hunk), then the fix. The server
    // may ask clarifying questions with window/showMessageRequest: a message with one button per choice.
    const editor = vscode.window.activeTextEditor;
    const text =
      typeof given === "string"
        ? given
        : await vscode.window.showInputBox({
            title: "fixloop: Fix: describe the problem",
            prompt: "What is wrong, in words (e.g. \"the bulk discount is applied one unit too late\")",
            placeHolder: "make line_total match its docstring",
            ignoreFocusOut: true,
            validateInput: (value) => (goalProblem(value) ? goalProblem(value) : undefined),
          });
    if (text === undefined) {
      return; // Escape
    }
    const problem = goalProblem(text);
    if (problem) {
      void vscode.window.showWarningMessage(`fixloop: ${problem}`);
      return;
    }
    reportQueued(await server.execute<FixResult>("fixloop.fix", goalArgument(text, editor)));
  });

  register("fixloop.client.cancel", async () => {
    const result = await server.execute<{ cancelled: boolean }>("fixloop.cancel", {});
    if (result && !result.cancelled) {
      void vscode.window.showInformationMessage("fixloop: no run to cancel.");
    }
  });

  register("fixloop.client.showRun", async () => {
    const summary = await server.execute<RunSummary | null>("fixloop.showRun", {});
    if (summary === null) {
      void vscode.window.showInformationMessage("fixloop: no run yet.");
    } else if (summary) {
      const document = await vscode.workspace.openTextDocument({ content: summaryDocument(summary), language: "diff" });
      await vscode.window.showTextDocument(document, { preview: true });
    }
  });

  register("fixloop.client.forget", async (argument?: { id?: string }) => {
    const id =
      argument?.id ??
      memoryIdAtCursor(vscode.window.activeTextEditor) ??
      (await vscode.window.showInputBox({ prompt: "Id of the fixloop memory entry to forget", ignoreFocusOut: true }));
    if (!id) {
      return;
    }
    const result = await server.execute<{ forgotten: boolean }>("fixloop.forget", { id });
    if (result) {
      void vscode.window.showInformationMessage(
        result.forgotten ? `fixloop forgot memory ${id}.` : `fixloop: no memory entry ${id}.`,
      );
    }
  });

  register("fixloop.client.setApiKey", async () => {
    const key = await vscode.window.showInputBox({
      prompt: "Anthropic API key for fixloop (kept in VS Code's secret storage; empty removes it)",
      password: true,
      ignoreFocusOut: true,
      placeHolder: "sk-ant-...",
    });
    if (key === undefined) {
      return;
    }
    if (key.trim() === "") {
      await context.secrets.delete(API_KEY_SECRET);
      void vscode.window.showInformationMessage("fixloop: API key removed.");
    } else {
      await context.secrets.store(API_KEY_SECRET, key.trim());
      void vscode.window.showInformationMessage("fixloop: API key saved; restarting the server.");
    }
    // The secrets' onDidChange listener restarts the server.
  });

  register("fixloop.client.showSettings", async () => {
    // What the runs use: the user's settings, what the workspace asked for and did not get, the sandbox here.
    const report = await server.execute<object>("fixloop.settings", {});
    if (report) {
      const text = JSON.stringify(report, null, 2);
      output.appendLine(`fixloop: settings in effect: ${JSON.stringify(report)}`);
      const document = await vscode.workspace.openTextDocument({ content: text, language: "json" });
      await vscode.window.showTextDocument(document, { preview: true });
    }
  });

  register("fixloop.client.trust", async () => {
    // The grants to apply fixes of a kind without asking (the server asks for one after `trust.after` accepted).
    type Grant = { id: string; accepted: number; since: number };
    const listed = await server.execute<{ grants: Grant[]; after: number }>("fixloop.trust", {});
    if (!listed) {
      return;
    }
    if (listed.grants.length === 0) {
      void vscode.window.showInformationMessage(
        listed.after > 0
          ? "fixloop: no grants; every fix is offered for review."
          : "fixloop: no grants; set fixloop.trust.after in your user settings for fixloop to offer them.",
      );
      return;
    }
    const all = { label: "Revoke all", id: "all" };
    const picked = await vscode.window.showQuickPick(
      [...listed.grants.map((g) => ({ label: g.id, description: `${g.accepted} accepted before`, id: g.id })), all],
      { title: "fixloop: fixes applied without asking (pick one to revoke it)" },
    );
    if (picked) {
      const result = await server.execute<{ revoked: string[] }>("fixloop.trust", { revoke: picked.id });
      if (result) {
        void vscode.window.showInformationMessage(`fixloop: revoked ${result.revoked.join(", ") || "nothing"}.`);
      }
    }
  });

  register("fixloop.client.undo", async () => {
    const result = await server.execute<{ undone: string[] }>("fixloop.undo", {});
    if (result) {
      void vscode.window.showInformationMessage("fixloop: undone; fixes like it are offered for review again.");
    }
  });

  register("fixloop.client.restart", () => server.restart());
  register("fixloop.client.showLog", () => output.show());
}
