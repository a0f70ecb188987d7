// Text shown for runs: status bar, notifications, the "Show last run" document. Pure.

export interface Hunk {
  id: string;
  path: string;
  start_line: number;
  end_line: number;
  state: string;
  new_file?: boolean; // a goal's reproduction test: the hunk creates its file
}

export interface RunSummary {
  run_id: string;
  goal?: string; // goal mode: the problem in words, its spec and the new test file
  spec?: { expected?: string; where?: string };
  test_file?: string;
  status: string;
  message?: string;
  diff?: string;
  files_changed?: string[];
  candidates_evaluated?: number;
  test_runs?: number;
  tokens?: number;
  cost_usd?: number;
  wall_seconds?: number;
  hunks?: Hunk[];
}

const STATUS_WORDS: { [status: string]: string } = {
  fixed: "fixed",
  gave_up: "gave up",
  limits: "hit its limits",
  cancelled: "cancelled",
  error: "failed with an error",
  nothing_to_fix: "found nothing to fix",
  flaky: "found the failure flaky",
};

export function statusWord(status: string): string {
  return STATUS_WORDS[status] ?? status;
}

/** Status bar text while running: the phase and the first detail of a report, e.g. "run: candidate 4". */
export function runningText(message: string | undefined): string {
  if (!message) {
    return "starting";
  }
  const first = message.split(",")[0].trim();
  return first.length > 48 ? `${first.slice(0, 47)}…` : first;
}

export function resultText(summary: RunSummary): string {
  const seconds = summary.wall_seconds === undefined ? "" : ` in ${summary.wall_seconds.toFixed(1)} s`;
  return `fixloop ${statusWord(summary.status)}${seconds}`;
}

/** The "Show last run" document (a diff-highlighted text). */
export function summaryDocument(summary: RunSummary): string {
  const lines = [
    `# fixloop run ${summary.run_id}: ${statusWord(summary.status)}`,
    ...(summary.message ? [`# ${summary.message}`] : []),
    ...(summary.goal ? [`# goal: ${summary.goal}`] : []),
    ...(summary.spec?.expected ? [`# spec: ${summary.spec.where ?? "?"}: expected ${summary.spec.expected}`] : []),
    ...(summary.test_file ? [`# reproduction test: ${summary.test_file}`] : []),
    `# ${summary.candidates_evaluated ?? 0} candidates, ${summary.test_runs ?? 0} test runs, ` +
      `${summary.tokens ?? 0} tokens, $${(summary.cost_usd ?? 0).toFixed(4)}, ${(summary.wall_seconds ?? 0).toFixed(1)} s`,
  ];
  for (const hunk of summary.hunks ?? []) {
    const where = hunk.new_file ? "new file" : `lines ${hunk.start_line + 1}-${hunk.end_line}`;
    lines.push(`# hunk ${hunk.id} (${where}): ${hunk.state}`);
  }
  lines.push("", summary.diff ?? "");
  return lines.join("\n");
}
