// Text for the run history (the report's webview policy, the history quick pick rows). Pure.
import { statusWord } from "./summary";

// The report carries the same policy in its own <meta>; this one is the webview's, whatever the page says.
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export interface HistoryRow {
  run_id: string;
  project: string;
  started: number;
  target: string;
  status: string;
  proposer: string;
  operator: string;
  candidates: number;
  tokens: number;
  cost_usd: number;
  seconds: number;
  decision: string;
}

/** The page with our CSP first in <head>, so no later tag can loosen it. Pure. */
export function withCsp(html: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">`;
  return /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, (head) => `${head}${meta}`) : `${meta}${html}`;
}

/** One quick pick row for a past run. Pure. */
export function historyItem(row: HistoryRow): { runId: string; label: string; description: string; detail: string } {
  const when = new Date(row.started * 1000).toISOString().slice(0, 16).replace("T", " ");
  const fixer = row.proposer ? ` by ${row.proposer}/${row.operator}` : "";
  const decision = row.decision ? `, you ${row.decision}` : "";
  return {
    runId: row.run_id,
    label: `${statusWord(row.status)}${fixer}`,
    description: `${when} ${row.target || "all tests"}`,
    detail: `${row.candidates} candidates, ${row.tokens} tokens, $${row.cost_usd.toFixed(4)}, ${row.seconds.toFixed(1)} s${decision} (${row.run_id})`,
  };
}

