// The package as a user gets it: `npm pack`'s tarball installed into a fresh
// folder, then used from Node (every entry point) and from a browser page
// (the playground, served from the installed copy, in Debian's chromium).
//
//   cd js && node --test test/browser/

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js";

const JS = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

let work;
let tarball;
let installed;

before(() => {
  work = mkdtempSync(join(tmpdir(), "argmend-pack-"));
  // --ignore-scripts: the tests run on the build under test (npm test builds
  // first); prepack would rebuild it, which is the same files.
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], { cwd: JS, encoding: "utf8" }),
  );
  tarball = { path: join(work, packed[0].filename), files: packed[0].files.map((file) => file.path) };
  const project = join(work, "project");
  execFileSync("mkdir", ["-p", project]);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "fresh", private: true, type: "module" }));
  // No dependencies: the install needs no network.
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball.path], { cwd: project });
  installed = join(project, "node_modules", "argmend");
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the tarball holds the module, the glue, the types and the page, and nothing of the build", () => {
  for (const file of [
    "package.json",
    "README.md",
    "LICENSE-MIT",
    "LICENSE-APACHE",
    "lib/node.js",
    "lib/index.js",
    "lib/core.js",
    "lib/index.d.ts",
    "lib/jsonrepair.js",
    "lib/jsonrepair.d.ts",
    "lib/partial-json.js",
    "lib/ai.js",
    "dist/argmend_wasm.js",
    "dist/argmend_wasm_bg.wasm",
    "playground/index.html",
    "scripts/serve.mjs",
  ]) {
    assert.ok(tarball.files.includes(file), `the tarball lacks ${file}`);
  }
  for (const file of tarball.files) {
    assert.ok(!/^(src|test|target|node_modules|bench)\/|Cargo\.(toml|lock)$/.test(file), `the tarball ships ${file}`);
  }
});

test("installed in a fresh folder, every entry point works from Node", () => {
  const script = `
    import assert from "node:assert/strict";
    import init, { repair, Repairer, ToolCallStream, OpenAIChatStream, normalizeToolArgs, version } from "argmend";
    import { jsonrepair, JSONRepairError } from "argmend/jsonrepair";
    import { parse, Allow } from "argmend/partial-json";
    import * as ai from "argmend/ai";
    await init();
    assert.equal(repair("{a: 1,}").text, '{"a": 1}');
    assert.equal(jsonrepair("[1, 2,"), "[1, 2]");
    assert.throws(() => jsonrepair(""), JSONRepairError);
    assert.deepEqual(parse('{"a": [1, "tw', Allow.ALL), { a: [1, "tw"] });
    const r = new Repairer(); r.feed("{'x': "); assert.equal(r.finish().text, '{"x": null}');
    const call = new ToolCallStream("read_file"); call.feed('{"path": "a.py"'); assert.deepEqual(call.finish().args, { path: "a.py" });
    assert.deepEqual(normalizeToolArgs("read_file", "main.go").args, { file: "main.go" });
    assert.equal(typeof OpenAIChatStream, "function");
    assert.ok(Object.keys(ai).length > 0);
    console.log("ok", version());
  `;
  const out = execFileSync("node", ["--input-type=module", "-e", script], { cwd: join(installed, "..", ".."), encoding: "utf8" });
  assert.match(out, /^ok \d+\.\d+\.\d+/);
});

test("installed in a fresh folder, `npm run playground`'s server starts without a warning", { timeout: 20_000 }, async () => {
  const child = spawn("node", ["scripts/serve.mjs", "--port", "0"], { cwd: installed });
  let output = "";
  try {
    await new Promise((ready, fail) => {
      const read = (chunk) => {
        output += chunk;
        if (output.includes("argmend playground: ")) ready();
      };
      child.stdout.on("data", read);
      child.stderr.on("data", read);
      child.on("exit", (code) => fail(new Error(`serve.mjs exited (${code}): ${output}`)));
    });
  } finally {
    child.kill();
  }
  assert.match(output, /^argmend playground: http:\/\/127\.0\.0\.1:\d+\/playground\/ /);
  assert.doesNotMatch(output, /serve:|warn|build-streams/i);
});

test("installed in a fresh folder, the page works in the browser", { timeout: 30_000 }, async () => {
  assert.ok(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM`);
  const { serve } = await import(join(installed, "scripts", "serve.mjs"));
  const { chromium } = await import("playwright-core");
  const server = await serve({ port: 0, root: installed });
  const profile = mkdtempSync(join(tmpdir(), "argmend-pack-browser-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const problems = [];
    page.on("pageerror", (error) => problems.push(error.message));
    await page.goto(`${server.url}/playground/`);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 10_000 });
    await page.click("#tab-paste");
    await page.fill("#input", "{name: 'John', tags: ['a', 'b',]}");
    await page.waitForFunction(() => document.querySelector("#committed")?.textContent.startsWith('{"name"'));
    assert.equal(await page.textContent("#committed"), '{"name": "John", "tags": ["a", "b"]}');
    // The page ran the installed package's own module.
    const wasm = await page.evaluate(() =>
      performance.getEntriesByType("resource").some((entry) => entry.name.endsWith("/dist/argmend_wasm_bg.wasm")),
    );
    assert.ok(wasm, "the page did not load dist/argmend_wasm_bg.wasm from the installed package");
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});
