// What the browser scripts of scripts/e2e.sh share: the environment, headless Chromium and its page, named
// checks that print `PASS name` / `FAIL name: why`, screenshots, and the workbench's commands (the palette,
// Quick Open, Go to Line, the status bar, notifications).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const SHORT = 30_000;

export const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`missing environment variable ${name}`);
  return value;
};

/** The browser's page, once `launch()` has made it (an ES module binding: importers see the new value). */
export let page;
export const results = [];
let shotPrefix = "";
let namePrefix = "";
let only = null;
let always = "";
let shotNo = 0;

/** shots: the screenshots' file prefix; names: what every check's line starts with; only / always: run only
 * the checks matching `only` (FIXLOOP_E2E_ONLY), and `always` whatever it is. */
export function configure({ shots = "", names = "", onlyPattern = undefined, alwaysRun = "" } = {}) {
  shotPrefix = shots;
  namePrefix = names;
  only = onlyPattern ? new RegExp(onlyPattern) : null;
  always = alwaysRun;
}

export async function launch() {
  const { chromium } = await import(pathToFileURL(join(env("E2E_PLAYWRIGHT"), "index.mjs")).href);
  const browser = await chromium.launch({
    executablePath: process.env.E2E_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(SHORT);
  return browser;
}

export async function shot(name) {
  shotNo += 1;
  const file = join(env("E2E_SHOTS"), `${shotPrefix}${String(shotNo).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file }).catch(() => undefined);
  return file;
}

export async function check(name, body) {
  const started = Date.now();
  if (only && !only.test(name) && name !== always) {
    console.log(`SKIP ${namePrefix}${name}`);
    return;
  }
  try {
    await body();
    results.push({ name, ok: true });
    console.log(`PASS ${namePrefix}${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`FAIL ${namePrefix}${name}: ${String(error?.message ?? error).split("\n").slice(0, 4).join(" / ")}`);
    await shot(`FAILED-${name.replace(/\W+/g, "-")}`);
  }
}

export const failed = () => results.some((r) => !r.ok);

export async function waitFor(predicate, timeout, what) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await page.waitForTimeout(250);
  }
  throw new Error(`timed out after ${timeout / 1000} s waiting for ${what}`);
}

export const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
// The first row of the quick input list, once it shows `label` (Enter acts on row 0; before the filter has
// run, row 0 is still a recently used entry).
export const firstRow = (label) =>
  page.locator('.quick-input-list .monaco-list-row[data-index="0"] .label-name', { hasText: new RegExp(`^${escape(label)}$`) });
export const statusItem = (label) => page.locator(`.part.statusbar [aria-label="${label}"]`).first();
export const toastWith = (text) => page.locator(".notifications-toasts .notification-toast", { hasText: text }).first();

/** The extension's output channel, as VS Code writes it under the user data directory. */
export const logText = (userDir) =>
  readdirSync(join(userDir, "logs"), { recursive: true })
    .filter((name) => String(name).endsWith("fixloop.log"))
    .map((name) => readFileSync(join(userDir, "logs", String(name)), "utf8"))
    .join("\n");

export async function quickOpen(file) {
  const name = file.split("/").pop();
  const dir = file.split("/").slice(0, -1).join("/");
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: SHORT });
  await input.fill(file);
  const nameLabel = page.locator(".label-name", { hasText: new RegExp(`^${escape(name)}$`) });
  await page.locator('.quick-input-list .monaco-list-row[data-index="0"]', { has: nameLabel, hasText: dir }).waitFor({ timeout: SHORT });
  await page.keyboard.press("Enter");
  await page.locator(".tabs-container .tab.active .label-name", { hasText: new RegExp(`^${escape(name)}$`) }).waitFor({ timeout: SHORT });
}

export async function runCommand(title) {
  const input = page.locator(".quick-input-widget input");
  for (let attempt = 0; ; attempt++) {
    // A webview (the report) keeps key presses to itself while it has the focus: hand it back first; a palette
    // that opened but did not take the text is closed and opened again, once.
    await page.evaluate(() => { if (document.activeElement instanceof HTMLIFrameElement) document.activeElement.blur(); });
    await page.keyboard.press("F1");
    const open = await input.waitFor({ state: "visible", timeout: attempt ? SHORT : 5000 }).then(() => true, () => false);
    if (open && await input.fill(`>${title}`, { timeout: attempt ? SHORT : 5000 }).then(() => true, () => false)) break;
    if (attempt) throw new Error(`the command palette did not take "${title}"`);
    await page.keyboard.press("Escape");
  }
  await firstRow(title).waitFor({ timeout: SHORT });
  await page.keyboard.press("Enter");
}

export async function goToLine(line) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: SHORT });
  await input.fill(`:${line}`);
  await page.locator(".quick-input-widget", { hasText: `line ${line}` }).first().waitFor({ timeout: SHORT });
  await page.keyboard.press("Enter");
  await page.locator(".statusbar-item", { hasText: `Ln ${line},` }).first().waitFor({ timeout: SHORT });
}
