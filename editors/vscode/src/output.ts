// The "fixloop" output channel (server log and LSP trace), with the API key redacted from every line.
// vscode-languageclient traces only when the channel's log level is Trace; this channel reports Trace
// while `fixloop.trace.server` is on and writes the trace at Info, so that setting alone turns it on.
import * as vscode from "vscode";
import { redact } from "./redact";

function format(message: string | Error, args: unknown[]): string {
  const parts = [message instanceof Error ? (message.stack ?? message.message) : message];
  for (const arg of args) {
    parts.push(typeof arg === "string" ? arg : arg instanceof Error ? (arg.stack ?? arg.message) : JSON.stringify(arg));
  }
  return parts.join(" ");
}

export class RedactingChannel implements vscode.LogOutputChannel {
  constructor(
    private readonly inner: vscode.LogOutputChannel,
    private readonly secrets: () => readonly string[],
    private readonly tracing: () => boolean,
  ) {}

  private clean(text: string): string {
    return redact(text, this.secrets());
  }

  get name(): string {
    return this.inner.name;
  }
  get logLevel(): vscode.LogLevel {
    return this.tracing() ? vscode.LogLevel.Trace : this.inner.logLevel;
  }
  get onDidChangeLogLevel(): vscode.Event<vscode.LogLevel> {
    return this.inner.onDidChangeLogLevel;
  }
  trace(message: string, ...args: unknown[]): void {
    if (this.tracing()) {
      this.inner.info(this.clean(format(message, args)));
    } else {
      this.inner.trace(this.clean(format(message, args)));
    }
  }
  debug(message: string, ...args: unknown[]): void {
    this.inner.debug(this.clean(format(message, args)));
  }
  info(message: string, ...args: unknown[]): void {
    this.inner.info(this.clean(format(message, args)));
  }
  warn(message: string, ...args: unknown[]): void {
    this.inner.warn(this.clean(format(message, args)));
  }
  error(error: string | Error, ...args: unknown[]): void {
    this.inner.error(this.clean(format(error, args)));
  }
  append(value: string): void {
    this.inner.append(this.clean(value));
  }
  appendLine(value: string): void {
    this.inner.appendLine(this.clean(value));
  }
  replace(value: string): void {
    this.inner.replace(this.clean(value));
  }
  clear(): void {
    this.inner.clear();
  }
  show(columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    if (typeof columnOrPreserveFocus === "boolean" || columnOrPreserveFocus === undefined) {
      this.inner.show(columnOrPreserveFocus);
    } else {
      this.inner.show(columnOrPreserveFocus, preserveFocus);
    }
  }
  hide(): void {
    this.inner.hide();
  }
  dispose(): void {
    this.inner.dispose();
  }
}
