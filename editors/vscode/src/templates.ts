// "fixloop: Review mined templates": a quick pick of the memory's mined templates (proposed first); picking
// one opens its before/after diff and asks Approve / Reject.
import * as vscode from "vscode";
import { ServerController } from "./server";
import { MinedTemplate, templateDiff, templateItem } from "./templatesText";

const ORDER = ["proposed", "approved", "approved, demoted", "rejected"];

export function registerTemplateCommands(context: vscode.ExtensionContext, server: ServerController): void {
  context.subscriptions.push(
    vscode.commands.registerCommand("fixloop.client.templates", async () => {
      const listed = await server.execute<{ templates: MinedTemplate[]; proposed: number }>("fixloop.templates", { action: "list" });
      if (!listed) {
        return;
      }
      if (listed.templates.length === 0) {
        void vscode.window.showInformationMessage("fixloop: no mined templates yet (a fix must recur in two places first).");
        return;
      }
      const sorted = [...listed.templates].sort((a, b) => ORDER.indexOf(a.status) - ORDER.indexOf(b.status));
      const picked = await vscode.window.showQuickPick(sorted.map(templateItem), {
        title: `fixloop: mined templates (${listed.proposed} proposed)`,
        matchOnDescription: true,
        matchOnDetail: true,
      });
      if (!picked) {
        return;
      }
      const template = sorted.find((t) => t.id === picked.id);
      if (!template) {
        return;
      }
      const document = await vscode.workspace.openTextDocument({ content: templateDiff(template), language: "diff" });
      await vscode.window.showTextDocument(document, { preview: true });
      const choice = await vscode.window.showInformationMessage(
        `fixloop: mined template ${template.id} (${template.status}): ${template.name}`,
        "Approve",
        "Reject",
      );
      if (!choice) {
        return;
      }
      const action = choice === "Approve" ? "approve" : "reject";
      const decided = await server.execute<{ template: MinedTemplate }>("fixloop.templates", { action, id: template.id });
      if (decided) {
        void vscode.window.showInformationMessage(
          `fixloop: mined template ${decided.template.id} is ${decided.template.status}; the engine tries it ${decided.template.place}.`,
        );
      }
    }),
  );
}
