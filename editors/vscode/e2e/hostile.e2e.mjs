// A hostile clone in a real VS Code (code-server) in headless Chromium, in Restricted Mode.
// Run by scripts/e2e.sh on a workspace from editors/shared/hostile_workspace.py: a `fixloop` package,
// stdlib shadows and sitecustomize.py that leave a file in E2E_PROOF when imported, an "interpreter"
// (tools/python) that leaves one when run, and a .vscode/settings.json that sets fixloop.pythonPath to it,
// fixloop.sandbox.backend to none, its own memory location, model and budget, and lowers maxIterations.
// Workspace trust is on and the folder is not trusted: VS Code opens it in Restricted Mode.
//   E2E_URL, E2E_WS, E2E_PROOF, E2E_MEMORY (the user's fixloop.memory.location), E2E_PYTHON (the user's
//   fixloop.pythonPath), E2E_USER_DIR, E2E_SHOTS, E2E_PLAYWRIGHT, E2E_CHROMIUM.
// Prints `PASS hostile: name` / `FAIL hostile: name: why` per check and exits 1 if any failed.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SHORT, check, configure, env, escape, failed, launch, logText as logOf, page, runCommand, shot, statusItem, toastWith,
  waitFor } from "./harness.mjs";

const ws = env("E2E_WS");
const proof = env("E2E_PROOF");
const userDir = env("E2E_USER_DIR");
const LONG = 90_000;
const RUN = Number(process.env.E2E_RUN_TIMEOUT_MS ?? 240_000);
const pricing = join(ws, "inventory", "pricing.py");
const original = readFileSync(pricing, "utf8");
const logText = () => logOf(userDir);
configure({ shots: "hostile-", names: "hostile: " });
const evidence = () => (existsSync(proof) ? readdirSync(proof, { recursive: true }).map(String) : []);

/** Open `dir/name` from the Explorer (Quick Open did not list the file in Restricted Mode in this suite). */
async function openFromExplorer(dir, name) {
  const row = (label) => page.locator(".explorer-folders-view .monaco-list-row", { has: page.locator(".label-name", { hasText: new RegExp(`^${escape(label)}$`) }) }).first();
  await row(dir).click();
  await row(name).waitFor({ timeout: SHORT });
  await row(name).click();
  await page.locator(".tabs-container .tab.active .label-name", { hasText: new RegExp(`^${escape(name)}$`) }).waitFor({ timeout: SHORT });
}

const browser = await launch();
try {
  await page.goto(env("E2E_URL"), { timeout: 3 * 60_000 });

  await check("the workbench opens the folder in Restricted Mode", async () => {
    await page.locator(".monaco-workbench").waitFor({ timeout: LONG });
    await page.locator(".part.statusbar", { hasText: "Restricted Mode" }).first().waitFor({ timeout: LONG });
    await shot("restricted-mode");
  });

  await check("the extension runs there, and names the workspace's settings it ignores", async () => {
    await statusItem("fixloop: ready").waitFor({ timeout: LONG });
    const toast = toastWith("fixloop: ignored the workspace's");
    await toast.waitFor({ timeout: SHORT });
    const text = await toast.innerText();
    for (const key of ["fixloop.pythonPath", "fixloop.sandbox.backend", "fixloop.memory.location", "fixloop.model", "fixloop.budgetUsd"]) {
      if (!text.includes(key)) throw new Error(`${key} is not named: ${text}`);
    }
    if (!text.includes("Restricted Mode")) throw new Error(`the message does not say Restricted Mode: ${text}`);
    await shot("ignored-settings");
    await runCommand("Notifications: Clear All Notifications");
  });

  await check("the server runs isolated, from the user's Python, outside the workspace", async () => {
    const log = logText();
    if (!log.includes(`Python is ${env("E2E_PYTHON")} (from the setting fixloop.pythonPath)`)) {
      throw new Error(`the log does not name the user's Python: ${log.split("\n").filter((l) => l.includes("Python is")).join(" / ")}`);
    }
    if (log.includes("tools/python")) throw new Error("the workspace's interpreter appears in the log");
    if (evidence().length) throw new Error(`the workspace ran: ${evidence().join(", ")}`);
  });

  let report;
  await check("Show settings in effect: the user's values, a real sandbox, the workspace untrusted", async () => {
    await runCommand("fixloop: Show settings in effect");
    await waitFor(async () => logText().includes("fixloop: settings in effect: "), SHORT, "the settings report in the log");
    const line = logText().split("\n").filter((l) => l.includes("fixloop: settings in effect: ")).pop();
    report = JSON.parse(line.slice(line.indexOf("{")));
    const s = report.settings;
    const problems = [];
    if (report.workspaceTrusted !== false) problems.push(`workspaceTrusted ${report.workspaceTrusted}`);
    if (s.sandbox.backend !== "auto") problems.push(`sandbox.backend ${s.sandbox.backend}`);
    if (!["bwrap", "landlock", "docker"].includes(report.sandbox.backend)) problems.push(`sandbox in use ${JSON.stringify(report.sandbox)}`);
    if (s.memory.uri !== env("E2E_MEMORY")) problems.push(`memory.uri ${s.memory.uri}`);
    if (s.llm.model === "claude-evil" || s.llm.base_url !== "") problems.push(`llm ${JSON.stringify(s.llm)}`);
    if (s.max_cost_usd !== 2) problems.push(`max_cost_usd ${s.max_cost_usd}`);
    if (s.max_iterations !== 3) problems.push(`max_iterations ${s.max_iterations} (the workspace may lower it to 3)`);
    if (problems.length) throw new Error(problems.join("; "));
    await shot("settings-in-effect");
  });

  await check("Fix until tests pass runs in Restricted Mode, and Apply fixes the file", async () => {
    await openFromExplorer("inventory", "pricing.py");
    await runCommand("fixloop: Fix until tests pass");
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ timeout: RUN });
    const boxes = page.locator(".part.panel .edit-checkbox");
    await boxes.first().waitFor({ timeout: SHORT });
    const hunks = await boxes.count();
    for (let i = 1; i < hunks; i++) await boxes.nth(i).click();
    if (hunks === 1) await boxes.first().click();
    await shot("preview");
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ state: "hidden", timeout: SHORT });
    await runCommand("File: Save All Files");
    await waitFor(async () => readFileSync(pricing, "utf8") !== original, SHORT, "pricing.py to change on disk");
    await shot("applied");
  });

  await check("the run used the user's sandbox setting, and nothing of the workspace ran", async () => {
    const runs = join(ws, ".fixloop", "runs");
    const fixed = readdirSync(runs).find((id) => JSON.parse(readFileSync(join(runs, id, "summary.json"), "utf8")).status === "fixed");
    if (!fixed) throw new Error(`no fixed run in ${runs}`);
    // The run log's `started` event has the limits the run really used.
    const started = readFileSync(join(runs, fixed, "events.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
      .find((e) => e.kind === "started");
    if (started?.limits?.backend !== "auto") throw new Error(`the run's backend setting was ${started?.limits?.backend}`);
    if (evidence().length) throw new Error(`the workspace ran: ${evidence().join(", ")}`);
    if (existsSync(join(proof, "evil-memory"))) throw new Error("the workspace's memory location was used");
  });
} finally {
  await browser.close();
}

process.exit(failed() ? 1 : 0);
