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
  tried?: Tried; // a fix run: where it looked and what it tried (docs/protocol.md "Run summary")
  next_steps?: string[]; // a run that did not end fixed: what to do next, most useful first
  review?: Review; // the reviewer's word on the fix offered (or on the last one it rejected)
  audit?: Audit; // the security pass on the fix (`--audit`, audit.enabled)
}

export interface Audit {
  by: string; // "offline", or the model that audited
  blocking?: boolean; // a high finding: never applied without a person
  note?: string;
  findings?: { severity: string; path: string; line: number; message: string; source: string }[];
}

export interface Review {
  verdict: string; // accept | prefer | reject
  reason: string;
  by: string; // "offline", or the model that reviewed
}

export interface Tried {
  candidates?: number;
  suspects?: string[];
  proposers?: { [name: string]: number };
  operators?: { [name: string]: number };
  stopped_by?: string;
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

/** The notification for a run that did not end fixed: what happened and the first next step. */
export function endText(summary: RunSummary): string {
  const detail = summary.message && summary.message !== summary.status ? `: ${summary.message}` : "";
  const next = summary.next_steps?.[0];
  return `${resultText(summary)}${detail}${next ? `. Next: ${next}` : ""}`;
}

function counts(byName: { [name: string]: number } | undefined): string {
  return Object.entries(byName ?? {}).map(([name, n]) => `${name} ${n}`).join(", ");
}

/** What a run tried and the next steps, as comment lines of the "Show last run" document. */
function triedLines(summary: RunSummary): string[] {
  const tried = summary.tried;
  const lines: string[] = [];
  if (tried?.candidates) {
    lines.push(`# tried: ${tried.candidates} candidates (${counts(tried.proposers)})`);
    lines.push(`#   operators: ${counts(tried.operators)}`);
  }
  if (tried?.suspects?.length) {
    lines.push(`#   top suspects: ${tried.suspects.join(", ")}`);
  }
  if (summary.next_steps?.length) {
    lines.push("# next steps:", ...summary.next_steps.map((step) => `#   - ${step}`));
  }
  return lines;
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
    ...(summary.review ? [`# review (${summary.review.by}): ${summary.review.verdict}, ${oneLine(summary.review.reason)}`] : []),
    ...auditLines(summary.audit),
    ...(summary.goal ? [`# goal: ${summary.goal}`] : []),
    ...(summary.spec?.expected ? [`# spec: ${summary.spec.where ?? "?"}: expected ${summary.spec.expected}`] : []),
    ...(summary.test_file ? [`# reproduction test: ${summary.test_file}`] : []),
    `# ${summary.candidates_evaluated ?? 0} candidates, ${summary.test_runs ?? 0} test runs, ` +
      `${summary.tokens ?? 0} tokens, $${(summary.cost_usd ?? 0).toFixed(4)}, ${(summary.wall_seconds ?? 0).toFixed(1)} s`,
    ...(summary.status === "fixed" ? [] : triedLines(summary)),
  ];
  for (const hunk of summary.hunks ?? []) {
    const where = hunk.new_file ? "new file" : `lines ${hunk.start_line + 1}-${hunk.end_line}`;
    lines.push(`# hunk ${hunk.id} (${where}): ${hunk.state}`);
  }
  lines.push("", summary.diff ?? "");
  return lines.join("\n");
}

/** The security pass beside the diff: by whom, then each finding (model and project text kept on one line). */
export function auditLines(audit: Audit | undefined): string[] {
  if (!audit) {
    return [];
  }
  const findings = audit.findings ?? [];
  const note = audit.note ? ` (${oneLine(audit.note)})` : "";
  return [
    `# audit (${audit.by}): ${findings.length ? `${findings.length} finding(s)` : "nothing found"}${note}`,
    ...findings.map((f) => `#   ${f.severity} ${f.path ? `${f.path}:${f.line}: ` : ""}${oneLine(f.message)} (${f.source})`),
  ];
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

