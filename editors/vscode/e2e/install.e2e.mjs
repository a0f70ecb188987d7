// An approved install in a real VS Code (code-server) in headless Chromium. Run by scripts/e2e.sh on the
// project tests/package_index.py builds (its tests import tinydep, which the project's .venv lacks) while that
// script serves tinydep's wheel on 127.0.0.1, named as the index in the user's config file:
//   E2E_URL / E2E_WS  the project's workbench and folder; E2E_SHOTS, E2E_PLAYWRIGHT, E2E_CHROMIUM as for the
//                     main script.
// "Fix until tests pass" -> the server's question as a notification with Install / Not now -> Install ->
// tinydep in the project's .venv, the fix run again by itself, and its Refactor Preview; the run document
// then shows the review and the audit (the user's config turns it on).
// Prints `PASS name` / `FAIL name: why` per check and exits 1 if any failed.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SHORT, check, configure, env, failed, launch, page, runCommand, shot, statusItem, toastWith } from "./harness.mjs";

const ws = env("E2E_WS");
const LONG = 90_000;
const RUN = 300_000; // the first run, the install, then the fix
configure({ shots: "install-" });

function installed() {
  const lib = join(ws, ".venv", "lib");
  return existsSync(lib) && readdirSync(lib).some((v) => existsSync(join(lib, v, "site-packages", "tinydep", "__init__.py")));
}

const browser = await launch();
try {
  await check("install: the workbench opens the project and the server is ready", async () => {
    await page.goto(env("E2E_URL"), { timeout: 3 * 60_000 });
    await page.locator(".monaco-workbench").waitFor({ timeout: LONG });
    await statusItem("fixloop: ready").waitFor({ timeout: LONG });
  });

  await check("install: the missing package is a question with Install / Not now, nothing installed before it", async () => {
    if (installed()) throw new Error("tinydep is in the project's .venv before anything ran");
    await runCommand("fixloop: Fix until tests pass");
    const toast = toastWith("the tests need tinydep>=1");
    await toast.waitFor({ timeout: RUN });
    for (const name of ["Install", "Not now"]) {
      await toast.getByRole("button", { name, exact: true }).waitFor({ timeout: SHORT });
    }
    await shot("question");
    if (installed()) throw new Error("tinydep was installed before the click");
    await toast.getByRole("button", { name: "Install", exact: true }).click();
  });

  await check("install: Install puts tinydep in the project's .venv, and the fix runs again to its preview", async () => {
    await page.getByRole("button", { name: "Apply", exact: true }).waitFor({ timeout: RUN });
    if (!installed()) throw new Error("tinydep is not in the project's .venv");
    await page.locator(".part.panel", { hasText: "calc.py" }).first().waitFor({ timeout: SHORT });
    await shot("preview");
  });

  await check("install: Show last run has the reviewer's and the auditor's word beside the diff", async () => {
    await page.getByRole("button", { name: "Discard", exact: true }).click();
    await runCommand("fixloop: Show last run");
    for (const text of ["# review (offline): accept", "# audit (offline): nothing found"]) {
      await page.locator(".monaco-editor .view-lines", { hasText: text }).first().waitFor({ timeout: SHORT });
    }
    await shot("last-run");
  });
} finally {
  await browser.close();
}
process.exit(failed() ? 1 : 0);
