// Run progress and results from the server: `$/progress` shown as a notification with Cancel and in
// the status bar, and the `fixloop/runFinished` notification.
//
// A client feature rather than plain handlers so that it is re-installed whenever the client
// (re)starts, after the built-in progress feature (whose window progress has no Cancel button).
import * as vscode from "vscode";
import {
  BaseLanguageClient,
  ClientCapabilities,
  ExecuteCommandRequest,
  FeatureState,
  ProgressToken,
  StaticFeature,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
} from "vscode-languageclient/node";
import { StatusItem } from "./status";
import { RunSummary } from "./summary";

export class RunFeature implements StaticFeature {
  private disposables: vscode.Disposable[] = [];
  private readonly ends = new Set<() => void>();

  constructor(
    private readonly client: BaseLanguageClient,
    private readonly status: StatusItem,
    private readonly onFinished: (summary: RunSummary) => void,
  ) {}

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    (capabilities.window ??= {}).workDoneProgress = true;
  }

  getState(): FeatureState {
    return { kind: "static" };
  }

  initialize(): void {
    this.disposables.push(
      this.client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => this.track(token)),
      this.client.onNotification("fixloop/runFinished", (summary: RunSummary) => {
        this.status.finished(summary);
        this.onFinished(summary);
      }),
    );
  }

  clear(): void {
    for (const end of [...this.ends]) {
      end();
    }
    this.disposables.forEach((d) => d.dispose());
    this.disposables = [];
  }

  private track(token: ProgressToken): void {
    let report: ((message: string | undefined) => void) | undefined;
    let finish: (() => void) | undefined;
    let ended = false;
    const end = (): void => {
      ended = true;
      subscription.dispose();
      this.ends.delete(end);
      finish?.();
      this.status.progressEnded();
    };
    this.ends.add(end);
    const subscription = this.client.onProgress(WorkDoneProgress.type, token, (value) => {
      if (value.kind === "begin") {
        this.status.progress(value.message);
        void vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: value.title || "fixloop", cancellable: value.cancellable ?? true },
          (progress, cancellation) => {
            report = (message) => progress.report({ message });
            report(value.message);
            cancellation.onCancellationRequested(() => this.cancel(token));
            return ended ? Promise.resolve() : new Promise<void>((resolve) => (finish = resolve));
          },
        );
      } else if (value.kind === "report") {
        this.status.progress(value.message);
        report?.(value.message);
      } else {
        end();
      }
    });
  }

  private cancel(token: ProgressToken): void {
    // The progress cancel is the LSP way; fixloop.cancel also stops a run that is still queued.
    void this.client.sendNotification(WorkDoneProgressCancelNotification.type, { token }).catch(() => undefined);
    void this.client
      .sendRequest(ExecuteCommandRequest.type, { command: "fixloop.cancel", arguments: [{}] })
      .catch(() => undefined);
  }
}
