// The status bar item: idle / running (phase, iteration) / last result / stopped.
import * as vscode from "vscode";
import { resultText, runningText, RunSummary } from "./summary";

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("fixloop.status", vscode.StatusBarAlignment.Left, 50);
  private running = false;

  constructor() {
    this.item.name = "fixloop";
    this.item.command = "fixloop.client.showRun";
    this.set("$(loading~spin) fixloop", "fixloop: starting the server", "fixloop: starting");
    this.item.show();
  }

  private set(text: string, tooltip: string, label: string): void {
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label, role: "button" };
  }

  private setRunning(running: boolean): void {
    this.running = running;
    void vscode.commands.executeCommand("setContext", "fixloop.running", running);
  }

  starting(): void {
    this.setRunning(false);
    this.item.backgroundColor = undefined;
    this.set("$(loading~spin) fixloop", "fixloop: starting the server", "fixloop: starting");
  }

  idle(): void {
    this.setRunning(false);
    this.item.backgroundColor = undefined;
    this.set("$(beaker) fixloop", "fixloop is ready: run \"fixloop: Fix until tests pass\"", "fixloop: ready");
  }

  progress(message: string | undefined): void {
    this.setRunning(true);
    this.set(`$(sync~spin) fixloop: ${runningText(message)}`, message ?? "fixloop is running", `fixloop: running, ${runningText(message)}`);
  }

  progressEnded(): void {
    if (this.running) {
      this.idle();
    }
  }

  finished(summary: RunSummary): void {
    this.setRunning(false);
    const icon = summary.status === "fixed" || summary.status === "nothing_to_fix" ? "$(pass)" : "$(error)";
    this.set(`${icon} ${resultText(summary)}`, `${summary.message ?? resultText(summary)}\nClick to show the run.`,
      `fixloop: last run ${summary.status}`);
  }

  stopped(reason: string): void {
    this.setRunning(false);
    this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
    this.set("$(error) fixloop: stopped", reason, "fixloop: stopped");
  }

  dispose(): void {
    this.item.dispose();
  }
}
