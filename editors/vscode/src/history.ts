// The run history in VS Code: "fixloop: Show report" (the server's HTML report in a webview with scripts
// off and a strict CSP) and "fixloop: Show history" (a quick pick of past runs; picking one reopens its
// diff and, where it still applies, its review).
import * as vscode from "vscode";
import { ServerController } from "./server";
import { HistoryRow, historyItem, withCsp } from "./historyText";
import { RunSummary, summaryDocument } from "./summary";

interface ReportResult {
  path: string;
  html: string;
  headline: [string, string][];
  runs: number;
  note: string;
}

export function registerHistoryCommands(context: vscode.ExtensionContext, server: ServerController): void {
  let panel: vscode.WebviewPanel | undefined;

  context.subscriptions.push(
    vscode.commands.registerCommand("fixloop.client.showReport", async () => {
      const report = await server.execute<ReportResult>("fixloop.report", {});
      if (!report) {
        return;
      }
      if (!panel) {
        panel = vscode.window.createWebviewPanel("fixloopReport", "fixloop report", vscode.ViewColumn.Active, {
          enableScripts: false,
          enableForms: false,
          localResourceRoots: [],
        });
        panel.onDidDispose(() => (panel = undefined));
      }
      panel.webview.html = withCsp(report.html);
      panel.reveal();
      if (report.note) {
        void vscode.window.showWarningMessage(`fixloop: ${report.note}`);
      }
    }),

    vscode.commands.registerCommand("fixloop.client.showHistory", async () => {
      const history = await server.execute<{ runs: HistoryRow[]; total: number }>("fixloop.history", {});
      if (!history) {
        return;
      }
      if (history.runs.length === 0) {
        void vscode.window.showInformationMessage("fixloop: no runs in this workspace yet.");
        return;
      }
      const picked = await vscode.window.showQuickPick(history.runs.map(historyItem), {
        title: `fixloop: ${history.total} past runs`,
        matchOnDescription: true,
        matchOnDetail: true,
      });
      if (!picked) {
        return;
      }
      const summary = await server.execute<(RunSummary & { note?: string }) | null>("fixloop.showRun", { run_id: picked.runId });
      if (!summary) {
        void vscode.window.showWarningMessage(`fixloop: run ${picked.runId} cannot be read any more.`);
        return;
      }
      const document = await vscode.workspace.openTextDocument({ content: summaryDocument(summary), language: "diff" });
      await vscode.window.showTextDocument(document, { preview: true });
      const pending = (summary.hunks ?? []).filter((h) => h.state === "pending" || h.state === "conflict");
      if (pending.length === 0) {
        if (summary.note) {
          void vscode.window.showInformationMessage(`fixloop: ${summary.note}`);
        }
        return;
      }
      const choice = await vscode.window.showInformationMessage(
        `fixloop: run ${picked.runId} has ${pending.length} change(s) to review.`,
        "Accept All",
        "Reject All",
      );
      if (choice === "Accept All") {
        await server.execute("fixloop.accept", { run_id: picked.runId });
      } else if (choice === "Reject All") {
        await server.execute("fixloop.reject", { run_id: picked.runId });
      }
    }),
  );
}
