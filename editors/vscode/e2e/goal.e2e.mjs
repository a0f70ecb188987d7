// Goal mode in a real VS Code (code-server) in headless Chromium: "fixloop: Fix: describe the problem…".
// Run by scripts/e2e.sh after the main script, on two copies of editors/shared/fixtures/goal_shop (a bug no
// test catches; line_total's docstring shows the right answer), each opened as its own folder:
//   E2E_GOAL_OFFLINE_URL / E2E_GOAL_OFFLINE_WS  offline project ([tool.fixloop] offline = true): the test comes
//                                                from the docstring
//   E2E_GOAL_MODEL_URL / E2E_GOAL_MODEL_WS      the scripted Anthropic-compatible server (tests/llm/goal_model.py)
//                                                asks a question, writes the spec and the test
//   E2E_GOAL_REQUESTS  the scripted server's request log; E2E_SHOTS, E2E_PLAYWRIGHT, E2E_CHROMIUM as for the
//                      main script.
// Prints `PASS name` / `FAIL name: why` per check and exits 1 if any failed.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SHORT, check, configure, env, failed, goToLine, launch, page, quickOpen, runCommand, shot, statusItem, toastWith,
  escape, waitFor } from "./harness.mjs";

const LONG = 90_000;
const RUN = Number(process.env.E2E_RUN_TIMEOUT_MS ?? 300_000); // a goal run: the test, its check, then the fix
configure({ shots: "goal-" });

/** Open a folder's workbench and wait until the fixloop server is ready. */
async function openFolder(url) {
  await page.goto(url, { timeout: 3 * 60_000 });
  await page.locator(".monaco-workbench").waitFor({ timeout: LONG });
  await statusItem("fixloop: ready").waitFor({ timeout: LONG });
}

/** "fixloop: Fix: describe the problem…" with the cursor in line_total, typing `goal` in the input box. */
async function describeProblem(goal) {
  await quickOpen("shop/pricing.py");
  await goToLine(16); // `if quantity > BULK_THRESHOLD:` in line_total
  await runCommand("fixloop: Fix: describe the problem…");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: SHORT });
  await page.locator(".quick-input-widget", { hasText: "What is wrong, in words" }).first().waitFor({ timeout: SHORT });
  await input.fill(goal);
  await page.keyboard.press("Enter");
}

/** Save All until `done()` (a file created by the edit may get its text a moment after Apply). */
async function saveAllUntil(done, what) {
  const deadline = Date.now() + LONG;
  while (Date.now() < deadline) {
    await runCommand("File: Save All Files");
    await page.waitForTimeout(1000);
    if (await done()) return;
  }
  throw new Error(`timed out after ${LONG / 1000} s saving until ${what}`);
}

/** The latest run summary the server wrote under the workspace (.fixloop/runs/<id>/summary.json). */
function latestSummary(ws) {
  const runs = join(ws, ".fixloop", "runs");
  if (!existsSync(runs)) return undefined;
  const ids = readdirSync(runs).filter((id) => existsSync(join(runs, id, "summary.json"))).sort();
  return ids.length ? JSON.parse(readFileSync(join(runs, ids[ids.length - 1], "summary.json"), "utf8")) : undefined;
}

async function isTicked(box) {
  return (await box.isChecked().catch(() => false)) || (await box.getAttribute("aria-checked")) === "true";
}

// The Refactor Preview's rows: a file row, then one row per hunk of that file. Tick the rows whose label
// matches `which` (all when undefined); unticked rows are not applied. Ticking a file row ticks its hunks a
// moment later: each box is read only once the click before it has settled, else a hunk read as unticked
// is clicked back off.
async function tickPreview(which) {
  const rows = page.locator(".part.panel .monaco-list-row");
  await rows.first().waitFor({ timeout: SHORT });
  const count = await rows.count();
  const labels = [];
  for (let i = 0; i < count; i++) {
    const row = rows.nth(i);
    const label = (await row.innerText()).replace(/\s+/g, " ").trim();
    labels.push(label);
    const box = row.locator(".edit-checkbox");
    if (!(await box.count()) || !(which === undefined || which.test(label)) || (await isTicked(box))) continue;
    await box.click();
    await waitFor(async () => isTicked(box), SHORT, `the preview row "${label.slice(0, 40)}" to be ticked`);
    await page.waitForTimeout(300);
  }
  return labels;
}

const browser = await launch();
try {
  const offlineWs = env("E2E_GOAL_OFFLINE_WS");
  const modelWs = env("E2E_GOAL_MODEL_WS");
  const pricingBefore = readFileSync(join(offlineWs, "shop", "pricing.py"), "utf8");

  await check("goal: the workbench opens the offline project and the server is ready", async () => {
    await openFolder(env("E2E_GOAL_OFFLINE_URL"));
  });

  await check("goal: an empty description is refused in the input box", async () => {
    await quickOpen("shop/pricing.py");
    await runCommand("fixloop: Fix: describe the problem…");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: SHORT });
    await input.fill("   ");
    await page.locator(".quick-input-widget", { hasText: "describe the problem in a few words" }).first().waitFor({ timeout: SHORT });
    await shot("empty-goal");
    await page.keyboard.press("Escape");
  });

  await check("goal offline: a test from the docstring, then the fix, in the Refactor Preview; Apply all", async () => {
    await describeProblem("make line_total match its docstring");
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ timeout: RUN });
    const summary = latestSummary(offlineWs);
    if (!summary?.test_file) throw new Error(`no test_file in the run summary: ${JSON.stringify(summary)?.slice(0, 400)}`);
    if (summary.test_origin !== "docstring") throw new Error(`test_origin ${summary.test_origin}`);
    const name = summary.test_file.split("/").pop();
    await page.locator(".part.panel", { hasText: name }).first().waitFor({ timeout: SHORT });
    await page.locator(".part.panel", { hasText: "pricing.py" }).first().waitFor({ timeout: SHORT });
    await shot("offline-preview");
    const labels = await tickPreview(undefined);
    console.log(`  preview rows: ${JSON.stringify(labels)}`);
    await shot("offline-preview-ticked");
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ state: "hidden", timeout: SHORT });
    const testFile = join(offlineWs, summary.test_file);
    await saveAllUntil(async () => existsSync(testFile) && readFileSync(testFile, "utf8").includes("def test_") &&
      readFileSync(join(offlineWs, "shop", "pricing.py"), "utf8") !== pricingBefore, `${summary.test_file} on disk`);
    await waitFor(async () => readFileSync(join(offlineWs, "shop", "pricing.py"), "utf8") !== pricingBefore, SHORT,
      "pricing.py to change on disk");
    if (!readFileSync(join(offlineWs, "shop", "pricing.py"), "utf8").includes("quantity >= BULK_THRESHOLD")) {
      throw new Error("pricing.py does not have the fix");
    }
    await shot("offline-applied");
  });

  await check("goal with a model: the question shows as a message with buttons; the answer goes to the server", async () => {
    await openFolder(env("E2E_GOAL_MODEL_URL"));
    await describeProblem("the bulk discount is applied one unit too late");
    const toast = toastWith("Should an order line of exactly 10 units get the bulk discount?");
    await toast.waitFor({ timeout: RUN });
    for (const name of ["Yes, from 10 units on", "No, only above 10 units"]) {
      await toast.getByRole("button", { name, exact: true }).waitFor({ timeout: SHORT });
    }
    await shot("model-question");
    await toast.getByRole("button", { name: "Yes, from 10 units on", exact: true }).click();
  });

  await check("goal with a model: the model's spec and test, then the fix; only the test file is ticked", async () => {
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ timeout: RUN });
    const summary = latestSummary(modelWs);
    if (summary?.test_origin !== "model") throw new Error(`test_origin ${summary?.test_origin}: ${JSON.stringify(summary)?.slice(0, 400)}`);
    if (!String(summary.spec?.expected).includes("ten units already get the 10% bulk discount")) {
      throw new Error(`spec ${JSON.stringify(summary.spec)}`);
    }
    if (summary.questions?.[0]?.answer !== "Yes, from 10 units on") throw new Error(`questions ${JSON.stringify(summary.questions)}`);
    const name = summary.test_file.split("/").pop();
    await page.locator(".part.panel", { hasText: name }).first().waitFor({ timeout: SHORT });
    await shot("model-preview");
    const labels = await tickPreview(new RegExp(escape(name)));
    console.log(`  preview rows: ${JSON.stringify(labels)}`);
    await shot("model-preview-ticked");
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ state: "hidden", timeout: SHORT });
    const testFile = join(modelWs, summary.test_file);
    await saveAllUntil(async () => existsSync(testFile) &&
      readFileSync(testFile, "utf8").includes("test_bulk_discount_starts_at_ten_units"), `${summary.test_file} with the model's test on disk`);
    if (readFileSync(join(modelWs, "shop", "pricing.py"), "utf8").includes("quantity >= BULK_THRESHOLD")) {
      throw new Error("pricing.py changed although its hunk was not ticked");
    }
    const steps = readFileSync(env("E2E_GOAL_REQUESTS"), "utf8");
    for (const step of ["ask_questions", "write_spec", "write_test"]) {
      if (!steps.includes(`"step": "${step}"`)) throw new Error(`the model was never asked to ${step}`);
    }
    await shot("model-applied");
  });

  await check("goal with a model: Show last run has the test hunk accepted and the fix rejected", async () => {
    await runCommand("fixloop: Show last run");
    const view = page.locator(".monaco-editor .view-lines", { hasText: "# fixloop run" }).first();
    await view.waitFor({ timeout: SHORT });
    await waitFor(async () => {
      const text = (await view.innerText()).replace(/\u00a0/g, " ");
      return /test_\w+\.py#0 \([^)]*\): accepted/.test(text) && /pricing\.py#0 \(lines [^)]*\): rejected/.test(text);
    }, SHORT, "accepted / rejected states in the run document");
    await shot("model-last-run");
  });
} finally {
  await browser.close();
}

process.exit(failed() ? 1 : 0);
