// Drives a real VS Code (code-server) in headless Chromium through the fixloop extension.
// Run by scripts/e2e.sh, which passes everything through the environment:
//   E2E_URL, E2E_WS (fixture workspace), E2E_SHOTS (screenshot dir), E2E_PLAYWRIGHT (playwright-core dir),
//   E2E_PYTHON (the interpreter with fixloop), E2E_BARE_PYTHON (one without it), E2E_CHROMIUM.
// Prints `PASS name` / `FAIL name: why` per check and exits 1 if any failed.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SHORT, check, configure, env, failed, goToLine, launch, logText as logOf, page, quickOpen, results, runCommand,
  shot, statusItem, toastWith, waitFor } from "./harness.mjs";

const ws = env("E2E_WS");
const shots = env("E2E_SHOTS");
const LONG = 60_000;
const INSTALL = Number(process.env.E2E_INSTALL_TIMEOUT_MS ?? 900_000); // a pip install of the server and its dependencies
const RUN = Number(process.env.E2E_RUN_TIMEOUT_MS ?? 180_000); // one fixloop run on the fixture (~30-100 s on a busy 2-core machine)
const pricing = join(ws, "inventory", "pricing.py");
const original = readFileSync(pricing, "utf8");
// The user's fixloop settings (code-server's Machine settings: the interpreter and the memory's location are
// machine-scoped, a workspace's value is ignored).
const settingsFile = env("E2E_SETTINGS");
const goodSettings = readFileSync(settingsFile, "utf8"); // no fixloop.pythonPath: the managed server
const apiKey = `sk-ant-e2e-${Math.random().toString(36).slice(2)}${Date.now()}`;
const userDir = env("E2E_USER_DIR");
const logText = () => logOf(userDir);
// FIXLOOP_E2E_ONLY (e2e.sh): only the matching checks run, after the workbench has loaded.
configure({ onlyPattern: process.env.E2E_ONLY, alwaysRun: "workbench loads" });

const safetyProblem = () => page.locator(".markers-panel .monaco-list-row", { hasText: "fixloop-safety" }).first();
const statusText = () => page.locator(".part.statusbar").innerText().catch(() => "");

// Records every status bar and notification text containing "fixloop" (a run may be over quickly).
async function recordTexts() {
  await page.evaluate(() => {
    window.__fixloopSeen = [];
    const note = () => {
      for (const selector of [".part.statusbar", ".notifications-toasts"]) {
        const text = document.querySelector(selector)?.innerText ?? "";
        for (const line of text.split("\n")) {
          if (line.includes("fixloop") && !window.__fixloopSeen.includes(line)) window.__fixloopSeen.push(line);
        }
      }
    };
    window.__fixloopObserver?.disconnect();
    window.__fixloopObserver = new MutationObserver(note);
    window.__fixloopObserver.observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
const seenTexts = () => page.evaluate(() => window.__fixloopSeen ?? []);
// The newest run folder of the workspace (run ids begin with their time).
const latestRun = () => readdirSync(join(ws, ".fixloop", "runs")).filter((n) => /^\d{8}-/.test(n)).sort().at(-1);

// "test": Fix this test, with the cursor in a failing test; "all": Fix until tests pass.
async function openPreviewByRunningFix(kind) {
  if (kind === "test") {
    await quickOpen("tests/test_pricing.py");
    await goToLine(9); // in test_bulk_discount_from_ten_units
  } else {
    await quickOpen("inventory/pricing.py");
  }
  await recordTexts();
  await runCommand(kind === "test" ? "fixloop: Fix this test" : "fixloop: Fix until tests pass");
  await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ timeout: RUN });
}

const browser = await launch();
try {
  await page.goto(env("E2E_URL"), { timeout: 3 * LONG }); // a busy machine serves the first load slowly

  await check("workbench loads", async () => {
    await page.locator(".monaco-workbench").waitFor({ timeout: LONG });
    await page.locator(".part.statusbar").waitFor({ timeout: LONG });
  });

  // A clean profile: no fixloop.pythonPath and no fixloop in python3; the server is only inside the .vsix.

  await check("the install offer appears: Install / Use my interpreter / Not now", async () => {
    const toast = toastWith("Install the fixloop server");
    await toast.waitFor({ timeout: LONG });
    for (const name of ["Install", "Use my interpreter", "Not now"]) {
      await toast.getByRole("button", { name, exact: true }).waitFor({ timeout: SHORT });
    }
    await statusItem("fixloop: stopped").waitFor({ timeout: SHORT });
    await shot("install-offer");
    await toast.getByRole("button", { name: "Install", exact: true }).click();
  });

  await check("with no network to the package index the install fails with a message", async () => {
    // e2e.sh points pip (PIP_CONFIG_FILE) at a closed port first.
    await toastWith("fixloop: installing the server failed: pip could not download").waitFor({ timeout: INSTALL });
    await shot("install-failed");
  });

  await check("Retry installs with progress, and the server starts from the private environment", async () => {
    writeFileSync(env("E2E_PIP_CONF"), "[global]\n"); // the network is back
    await recordTexts();
    await toastWith("installing the server failed").getByRole("button", { name: "Retry", exact: true }).click();
    await toastWith("fixloop: installing the server").waitFor({ timeout: LONG });
    await shot("installing");
    const started = Date.now();
    await statusItem("fixloop: ready").waitFor({ timeout: INSTALL });
    console.log(`  install took ${((Date.now() - started) / 1000).toFixed(0)} s; seen: ${JSON.stringify((await seenTexts()).slice(0, 4))}`);
    if (!readdirSync(join(userDir, "User", "globalStorage"), { recursive: true }).some((n) => String(n).endsWith("current.json"))) {
      throw new Error("no current.json in the extension's global storage");
    }
  });

  await check("Show server version names the extension, the server and the private environment", async () => {
    await runCommand("fixloop: Show server version");
    await page.locator(".notifications-toasts .notification-list-item-message",
      { hasText: /fixloop: extension \d+\.\d+\.\d+\S*, server \d.*private environment/ }).first().waitFor({ timeout: SHORT });
    await shot("server-version");
    await runCommand("Notifications: Clear All Notifications");
  });

  await check("safety diagnostic renders", async () => {
    await quickOpen("inventory/cli_input.py");
    await page.locator(".monaco-editor .squiggly-error, .monaco-editor .squiggly-warning").first().waitFor({ timeout: LONG });
    await page.keyboard.press("Control+Shift+M"); // the Problems panel names the rule
    await page.locator(".markers-panel .monaco-list-row", { hasText: "fixloop-safety" }).first().waitFor({ timeout: SHORT });
    await shot("safety-diagnostic");
  });

  await check("editor context menu lists the commands", async () => {
    await page.locator(".monaco-editor .view-lines").first().click({ button: "right" });
    const menu = page.locator(".context-view .monaco-menu, .monaco-menu-container");
    await menu.getByText("Fix until tests pass").first().waitFor({ timeout: SHORT });
    await menu.getByText("Fix this test").first().waitFor({ timeout: SHORT });
    await shot("context-menu");
    await page.keyboard.press("Escape");
  });

  await check("Fix this test runs, progress shows, the Refactor Preview opens", async () => {
    await openPreviewByRunningFix("test");
    const seen = await seenTexts();
    if (!seen.some((line) => /fixloop: .*\w/.test(line) && !/fixloop: (stopped)/.test(line))) {
      throw new Error(`no progress text seen; saw ${JSON.stringify(seen)}`);
    }
    console.log(`  progress seen: ${JSON.stringify(seen.slice(0, 6))}`);
    await page.locator(".part.panel", { hasText: "pricing.py" }).first().waitFor({ timeout: SHORT });
    await shot("refactor-preview");
  });

  await check("Discard leaves the file unchanged", async () => {
    await page.getByRole("button", { name: "Discard", exact: true }).click();
    await page.getByRole("button", { name: "Discard", exact: true }).waitFor({ state: "hidden", timeout: SHORT });
    await waitFor(async () => /fixloop fixed|fixloop \w/.test(await statusText()), SHORT, "the run result in the status bar");
    if (readFileSync(pricing, "utf8") !== original) throw new Error("pricing.py changed on disk after Discard");
    if (await page.locator(".tabs-container .tab.dirty").count()) throw new Error("an editor is dirty after Discard");
    await shot("after-discard");
  });

  await check("Cancel on the progress notification stops the run", async () => {
    await quickOpen("inventory/pricing.py");
    await runCommand("fixloop: Fix until tests pass");
    const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "fixloop" }).first();
    await toast.getByRole("button", { name: "Cancel" }).click({ timeout: LONG });
    await statusItem("fixloop: last run cancelled").waitFor({ timeout: LONG });
    await shot("cancelled");
    if (readFileSync(pricing, "utf8") !== original) throw new Error("pricing.py changed after Cancel");
    await runCommand("Notifications: Clear All Notifications");
  });

  await check("Fix until tests pass, then Apply (hunk ticked) fixes the file", async () => {
    // A fresh memory (and server): the Discard above may rightly make the server avoid that fix.
    const memory = goodSettings.match(/"fixloop.memory.location": "([^"]*)"/)[1];
    writeFileSync(settingsFile, goodSettings.replace(`"${memory}"`, `"${memory}-2"`));
    await statusItem("fixloop: ready").waitFor({ timeout: LONG });
    await openPreviewByRunningFix("all");
    // needsConfirmation edits start unticked: tick them, else Apply applies nothing.
    const boxes = page.locator(".part.panel .edit-checkbox");
    await boxes.first().waitFor({ timeout: SHORT });
    const hunks = await boxes.count();
    for (let i = 1; i < hunks; i++) await boxes.nth(i).click(); // row 0 is the file, then one row per hunk
    if (hunks === 1) await boxes.first().click();
    await waitFor(async () => (await boxes.first().isChecked().catch(() => false)) ||
      (await boxes.first().getAttribute("aria-checked")) === "true", SHORT, "the file's checkbox to follow its hunks");
    await shot("preview-ticked");
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ state: "hidden", timeout: SHORT });
    await runCommand("File: Save All Files");
    await waitFor(async () => readFileSync(pricing, "utf8") !== original, SHORT, "pricing.py to change on disk");
    await shot("after-apply");
    console.log(`  pricing.py now:\n${readFileSync(pricing, "utf8").split("\n").filter((l) => l.includes("BULK_THRESHOLD")).join("\n")}`);
  });

  await check("Show last run opens the run's summary, the reviewer's word and the diff", async () => {
    await runCommand("fixloop: Show last run");
    await page.locator(".monaco-editor .view-lines", { hasText: "# fixloop run" }).first().waitFor({ timeout: SHORT });
    await page.locator(".monaco-editor .view-lines", { hasText: "# review (offline): accept" }).first()
      .waitFor({ timeout: SHORT });
    await page.locator(".monaco-editor .view-lines", { hasText: "pricing.py" }).first().waitFor({ timeout: SHORT });
    await shot("last-run");
  });

  await check("Show report opens the HTML report in a webview with a strict CSP", async () => {
    await runCommand("fixloop: Show report");
    const inner = page.frameLocator("iframe.webview.ready").last().frameLocator("iframe#active-frame");
    await inner.locator("h1", { hasText: "fixloop report" }).waitFor({ timeout: LONG });
    await inner.locator("h2", { hasText: "Key figures" }).waitFor({ timeout: SHORT });
    await inner.locator("svg").first().waitFor({ timeout: SHORT }); // the plots are inline SVG
    const policies = await inner.locator('meta[http-equiv="Content-Security-Policy"]').evaluateAll((metas) =>
      metas.map((m) => m.getAttribute("content")));
    if (!policies.some((p) => p.startsWith("default-src 'none'"))) throw new Error(`no strict CSP: ${policies}`);
    if (await inner.locator("script").count()) throw new Error("the report has a script");
    await shot("report-webview");
    await page.evaluate(() => { if (document.activeElement instanceof HTMLIFrameElement) document.activeElement.blur(); });
    await page.keyboard.press("Control+W"); // close the report tab (the workbench, not the webview, has the key)
  });

  await check("Show history lists past runs and reopens one's diff", async () => {
    await runCommand("fixloop: Show history");
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "fixed by" }).first();
    await row.waitFor({ timeout: LONG });
    await shot("history-pick");
    await row.click();
    await page.locator(".monaco-editor .view-lines", { hasText: "# fixloop run" }).first().waitFor({ timeout: SHORT });
    await shot("history-run");
    await page.locator(".notifications-toasts .codicon-notifications-clear-all, .notifications-toasts .codicon-close").first()
      .click({ timeout: 2000 }).catch(() => undefined);
  });

  await check("Fix lint and type findings: ruff's and mypy's findings are targets, fixed and reviewed in the Refactor Preview", async () => {
    // An unused import and a call with its arguments the wrong way round, written in now (the workspace's .venv
    // has ruff and mypy); the quick pick starts with ruff picked, and mypy is picked too.
    const stock = join(ws, "inventory", "stock.py");
    const before = readFileSync(stock, "utf8");
    writeFileSync(stock, before.replace("from __future__ import annotations\n", "from __future__ import annotations\n\nimport os\n")
      + "\n\ndef restock(stock: Stock, sku: str, quantity: int) -> int:\n    return stock.receive(quantity, sku)\n");
    await quickOpen("inventory/stock.py");
    await runCommand("fixloop: Fix lint and type findings (ruff, mypy, pyright), tests kept passing");
    await page.locator(".quick-input-widget", { hasText: "pyright" }).first().waitFor({ timeout: SHORT });
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "mypy" }).first().click();
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ timeout: RUN });
    await page.locator(".part.panel", { hasText: "stock.py" }).first().waitFor({ timeout: SHORT });
    await shot("checks-preview");
    // stock.py's box ticks its hunks (ruff's defaults may find more in the example: those stay unticked).
    await page.locator(".part.panel .monaco-list-row", { hasText: "stock.py" }).locator(".edit-checkbox").first().click();
    await page.getByRole("button", { name: "Apply", exact: true }).click();
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ state: "hidden", timeout: SHORT });
    await runCommand("File: Save All Files");
    await waitFor(async () => !readFileSync(stock, "utf8").includes("import os"), SHORT, "the import to go from stock.py");
    if (!readFileSync(stock, "utf8").includes("    return stock.receive(sku, quantity)\n")) {
      throw new Error("the call's arguments were not put the right way round in stock.py");
    }
    const summary = JSON.parse(readFileSync(join(ws, ".fixloop", "runs", latestRun(), "summary.json"), "utf8"));
    for (const target of ["ruff::inventory/stock.py::F401", "mypy::inventory/stock.py::arg-type"]) {
      if (!summary.failing_before.includes(target)) {
        throw new Error(`${target} was not a target: ${JSON.stringify(summary.failing_before)}`);
      }
    }
  });

  await check("Forget this memory asks for an id and reports the server's answer", async () => {
    await quickOpen("inventory/pricing.py"); // no memory diagnostic under the cursor: the command asks
    await runCommand("fixloop: Forget this memory");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible", timeout: SHORT });
    const id = `e2e-no-such-memory-${Date.now()}`;
    await input.fill(id);
    await page.keyboard.press("Enter");
    await page.locator(".notifications-toasts .notification-list-item-message", { hasText: `fixloop: no memory entry ${id}` })
      .first().waitFor({ timeout: SHORT });
  });

  await check("Review mined templates lists a proposed template, previews its diff, and Approve approves it", async () => {
    const memory = env("E2E_TEMPLATES_MEMORY"); // two fixes of one kind, taught by e2e/seed_templates.py
    writeFileSync(settingsFile, readFileSync(settingsFile, "utf8").replace(/"fixloop.memory.location": "[^"]*"/,
      `"fixloop.memory.location": ${JSON.stringify(memory)}`));
    // The settings change restarts the server: until the new one answers, the old one (another memory) may.
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "a strict comparison against a named constant becomes non-strict" }).first();
    await waitFor(async () => {
      await statusItem("fixloop: ready").waitFor({ timeout: LONG });
      await runCommand("fixloop: Review mined templates");
      if (await row.waitFor({ timeout: 5000 }).then(() => true, () => false)) return true;
      await page.keyboard.press("Escape");
      return false;
    }, LONG, "the quick pick to list the mined template");
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "ID1 <|> CONST1" }).first().waitFor({ timeout: SHORT });
    await shot("templates-pick");
    await row.click();
    await page.locator(".monaco-editor .view-lines", { hasText: "-ID1 <|> CONST1" }).first().waitFor({ timeout: SHORT });
    await page.locator(".monaco-editor .view-lines", { hasText: "+if qty >= BULK:" }).first().waitFor({ timeout: SHORT });
    const toast = toastWith("fixloop: mined template");
    await toast.getByRole("button", { name: "Approve", exact: true }).waitFor({ timeout: SHORT });
    await shot("templates-diff");
    await toast.getByRole("button", { name: "Approve", exact: true }).click();
    await toastWith("is approved; the engine tries it before the generic operators").waitFor({ timeout: LONG });
    await shot("templates-approved");
    // The decision is in the user's memory, where the CLI (and every project) sees it.
    const listed = JSON.parse(execFileSync(env("E2E_PYTHON"), ["-m", "fixloop", "memory", "templates", "list", "--json",
      "--memory", memory], { encoding: "utf8" }));
    if (listed.length !== 1 || listed[0].status !== "approved") throw new Error(`the store says ${JSON.stringify(listed)}`);
    await runCommand("Notifications: Clear All Notifications");
  });

  await check("the API key command stores the key and the server gets it, redacted from the log", async () => {
    await runCommand("fixloop: Set Anthropic API key");
    const input = page.locator(".quick-input-widget input[type=password]");
    await input.waitFor({ state: "visible", timeout: SHORT });
    await input.fill(apiKey);
    await page.keyboard.press("Enter");
    await page.locator(".notifications-toasts .notification-list-item-message", { hasText: "fixloop: API key saved" })
      .first().waitFor({ timeout: SHORT });
    await statusItem("fixloop: ready").waitFor({ timeout: LONG });
    // fixloop.trace.server is "verbose" in the fixture, so the initialize request is in the log: with the
    // key's place taken by <redacted>, and the key itself nowhere.
    await waitFor(async () => logText().includes('"apiKey": "<redacted>"'), SHORT, 'an initialize trace with "apiKey": "<redacted>"');
    if (logText().includes(apiKey)) throw new Error("the API key is in the fixloop log");
  });

  const bare = env("E2E_BARE_PYTHON");

  const usePython = (python) => writeFileSync(settingsFile, goodSettings.replace("{", `{\n  "fixloop.pythonPath": ${JSON.stringify(python)},`));
  const errorToast = (text) => page.locator(".notifications-toasts .notification-list-item-message", { hasText: text }).first();

  await check("a Python without fixloop gives a clear message (restart on setting change)", async () => {
    usePython(bare);
    await errorToast(`fixloop is not installed in ${bare}`).waitFor({ timeout: LONG });
    await statusItem("fixloop: stopped").waitFor({ timeout: SHORT });
    await safetyProblem().waitFor({ state: "detached", timeout: SHORT }); // the old server's diagnostics went with it
    await shot("not-installed");
  });

  await check("an incompatible server is refused with a clear message", async () => {
    const old = env("E2E_OLD_PYTHON");
    usePython(old);
    await errorToast(`The fixloop server in ${old} is incompatible with this extension: it speaks protocol 2`).waitFor({ timeout: LONG });
    await statusItem("fixloop: stopped").waitFor({ timeout: SHORT });
    await shot("incompatible");
  });

  await check("a server crash gives a clear message", async () => {
    usePython(env("E2E_CRASH_PYTHON"));
    await errorToast("The fixloop server stopped unexpectedly").waitFor({ timeout: LONG });
    await statusItem("fixloop: stopped").waitFor({ timeout: SHORT });
    await safetyProblem().waitFor({ state: "detached", timeout: SHORT });
    await shot("crashed");
  });

  await check("restoring the setting restarts the server and diagnostics return", async () => {
    await page.locator(".notifications-toasts .codicon-notifications-clear-all, .notifications-toasts .codicon-close").first()
      .click({ timeout: 2000 }).catch(() => undefined);
    writeFileSync(settingsFile, goodSettings);
    await statusItem("fixloop: ready").waitFor({ timeout: LONG });
    await safetyProblem().waitFor({ timeout: LONG }); // the open files are sent to the new server
    await shot("restarted");
  });
} finally {
  await browser.close();
}

writeFileSync(join(shots, "results.json"), JSON.stringify(results, null, 2));
writeFileSync(join(shots, "api-key.txt"), apiKey); // for the script's final leak check
process.exit(failed() ? 1 : 0);
