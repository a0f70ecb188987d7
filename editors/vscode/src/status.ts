// The status bar item: idle / running (phase, iteration) / last result / stopped.
import * as vscode from "vscode";
import { resultText, runningText, RunSummary } from "./summary";

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("fixloop.status", vscode.StatusBarAlignment.Left, 50);
  private running = false;

  constructor() {
    this.item.name = "fixloop";
    this.item.command = "fixloop.client.showRun";
    this.set("$(beaker) fixloop", "fixloop: starting the server");
    this.item.show();
  }

  private set(text: string, tooltip: string): void {
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  private setRunning(running: boolean): void {
    this.running = running;
    void vscode.commands.executeCommand("setContext", "fixloop.running", running);
  }

  starting(): void {
    this.setRunning(false);
    this.item.backgroundColor = undefined;
    this.set("$(loading~spin) fixloop", "fixloop: starting the server");
  }

  idle(): void {
    this.setRunning(false);
    this.item.backgroundColor = undefined;
    this.set("$(beaker) fixloop", "fixloop is ready: run \"fixloop: Fix until tests pass\"");
  }

  progress(message: string | undefined): void {
    this.setRunning(true);
    this.set(`$(sync~spin) fixloop: ${runningText(message)}`, message ?? "fixloop is running");
  }

  progressEnded(): void {
    if (this.running) {
      this.idle();
    }
  }

  finished(summary: RunSummary): void {
    this.setRunning(false);
    const icon = summary.status === "fixed" || summary.status === "nothing_to_fix" ? "$(pass)" : "$(error)";
    this.set(`${icon} ${resultText(summary)}`, `${summary.message ?? resultText(summary)}\nClick to show the run.`);
  }

  stopped(reason: string): void {
    this.setRunning(false);
    this.item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
    this.set("$(error) fixloop: stopped", reason);
  }

  dispose(): void {
    this.item.dispose();
  }
}
