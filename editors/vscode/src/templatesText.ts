// Text for the mined templates (the quick pick rows, the before/after diff preview). Pure.

export interface TemplateExample {
  project: string;
  path: string;
  before: string;
  after: string;
}

/** A mined template as `fixloop.templates` returns it (docs/protocol.md). */
export interface MinedTemplate {
  id: string;
  name: string;
  status: string; // approved | approved, demoted | proposed | rejected
  place: string;
  before_shape: string;
  after_shape: string;
  support: number;
  projects: number;
  tries: number;
  successes: number;
  examples: TemplateExample[];
}

/** One quick pick row: proposed templates say what they would do, decided ones say what was decided. Pure. */
export function templateItem(t: MinedTemplate): { id: string; label: string; description: string; detail: string } {
  const tried = t.tries ? `, fixed ${t.successes} of ${t.tries} runs that tried it` : "";
  return {
    id: t.id,
    label: t.name,
    description: `${t.status} (${t.id})`,
    detail: `${t.before_shape}  ->  ${t.after_shape}  · ${t.support} fixes in ${t.projects} project(s)${tried}`,
  };
}

/** The template as a unified diff: its shapes, then each example it was mined from. Pure. */
export function templateDiff(t: MinedTemplate): string {
  const out = [
    `# fixloop mined template ${t.id}: ${t.name}`,
    `# ${t.status}; the engine tries it ${t.place}`,
    "--- before",
    "+++ after",
    "@@ shape @@",
    `-${t.before_shape}`,
    `+${t.after_shape}`,
  ];
  for (const e of t.examples) {
    out.push(`@@ ${e.path} (${e.project}) @@`, `-${e.before}`, `+${e.after}`);
  }
  return out.join("\n") + "\n";
}
