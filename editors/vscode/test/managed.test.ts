import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { bundledWheel, candidates, findPython, readInstalled, runInstaller } from "../src/managed";

// out-test/ is beside test/: the installer is the repo's own.
const INSTALLER = resolve(__dirname, "..", "..", "shared", "fixloop_install.py");
const OLD_PYTHON = "/root/.pyenv/versions/3.9.18/bin/python";

test("readInstalled reads current.json and ignores a missing or broken one", () => {
  const home = mkdtempSync(join(tmpdir(), "fixloop-managed-"));
  assert.equal(readInstalled(home), undefined);
  writeFileSync(join(home, "current.json"), "{not json");
  assert.equal(readInstalled(home), undefined);
  writeFileSync(join(home, "current.json"), JSON.stringify({ python: join(home, "gone/bin/python"), version: "0.1.0" }));
  assert.equal(readInstalled(home), undefined, "an interpreter that is gone is no install");
  writeFileSync(join(home, "current.json"), JSON.stringify({ python: process.execPath, version: "0.1.0" }));
  assert.deepEqual(readInstalled(home), { python: process.execPath, version: "0.1.0" });
});

test("bundledWheel finds only the wheel of the extension's version", () => {
  const dir = mkdtempSync(join(tmpdir(), "fixloop-wheel-"));
  writeFileSync(join(dir, "fixloop-0.0.9-py3-none-any.whl"), "");
  assert.equal(bundledWheel(dir, "0.1.0"), undefined);
  writeFileSync(join(dir, "fixloop-0.1.0-py3-none-any.whl"), "");
  assert.equal(bundledWheel(dir, "0.1.0"), join(dir, "fixloop-0.1.0-py3-none-any.whl"));
  assert.equal(bundledWheel(join(dir, "nope"), "0.1.0"), undefined);
});

test("candidates put the user's interpreter first", () => {
  assert.deepEqual(candidates("/venv/bin/python").slice(0, 2), ["/venv/bin/python", "python3"]);
  assert.equal(candidates(undefined)[0], "python3");
});

test("findPython: no Python at all, then only an old one, then a good one", async () => {
  const none = await findPython(["/no/such/python3", "/no/such/python"], tmpdir());
  assert.equal(none.ok, false);
  assert.match(!none.ok ? none.message : "", /no Python was found .*\/no\/such\/python3.*3\.10 or newer/);
  if (existsSync(OLD_PYTHON)) {
    const old = await findPython(["/no/such/python3", OLD_PYTHON], tmpdir());
    assert.equal(old.ok ? "" : old.problem, "old-python");
    assert.match(!old.ok ? old.message : "", /too old .*Python 3\.9/);
  }
  const good = await findPython(["/no/such/python3", "python3"], tmpdir());
  assert.equal(good.ok, true);
});

test("runInstaller reports the installer's message for an old Python, and a Python that cannot run", async () => {
  const home = join(mkdtempSync(join(tmpdir(), "fixloop-home-")), "server");
  if (existsSync(OLD_PYTHON)) {
    const old = await runInstaller(OLD_PYTHON, INSTALLER, home, "x.whl", "0.1.0", () => undefined, tmpdir());
    assert.equal(old.ok ? "" : old.problem, "old-python");
    assert.equal(existsSync(home), false, "nothing was created");
  }
  const gone = await runInstaller("/no/such/python", INSTALLER, home, "x.whl", "0.1.0", () => undefined, tmpdir());
  assert.equal(gone.ok ? "" : gone.problem, "no-python");
});

test("runInstaller passes progress on and reads a failure (a source pip cannot find)", async () => {
  const home = join(mkdtempSync(join(tmpdir(), "fixloop-home-")), "server");
  mkdirSync(home, { recursive: true });
  const steps: string[] = [];
  const env = { ...process.env, PIP_CONFIG_FILE: "/dev/null", PIP_INDEX_URL: "http://127.0.0.1:9/simple", PIP_RETRIES: "0",
    PIP_FIND_LINKS: "", PIP_NO_CACHE_DIR: "1" };
  const result = await runInstaller("python3", INSTALLER, home, "/no/such/fixloop.whl", "0.1.0", (m) => steps.push(m), tmpdir(), undefined, env);
  assert.equal(result.ok, false);
  assert.ok(steps.some((s) => s.startsWith("creating a virtual environment")), JSON.stringify(steps));
  assert.equal(readInstalled(home), undefined);
});
