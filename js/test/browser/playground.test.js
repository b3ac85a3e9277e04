// The playground page in a real browser: Debian's chromium, driven by
// playwright-core (no browser download), the page served by
// scripts/serve.mjs on a free port.
//
//   cd js && node --test test/browser/
//
// Needs the package built (`npm run build`) and /usr/bin/chromium
// (`apt-get install -y chromium`; or CHROMIUM=/path/to/chromium). The
// screenshots go to js/test-output/ (git-ignored).

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { CHROMIUM, CHROMIUM_ARGS } from "./chromium.js";
import { SDK } from "../recordings.js";
import { need, skipUnless } from "../shared.js";

const JS = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const ROOT = join(JS, "..");
const OUT = join(JS, "test-output");

/** The recording the browser test replays: four calls, one written Python-style, one cut off. */
const RECORDING = "openai_chat.jsonl";
const BROKEN = "{'path': 'README.md', lines: [1, 20,], follow_links: True, // the rest\n}";

function prerequisites() {
  if (!existsSync(join(JS, "dist", "argmend_wasm_bg.wasm"))) {
    throw new Error("js/dist/argmend_wasm_bg.wasm is missing: build the package first (cd js && npm run build)");
  }
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no browser at ${CHROMIUM}: the playground test drives Debian's chromium through playwright-core ` +
        "(no browser download). Install it with `apt-get install -y chromium` (Debian/Ubuntu), " +
        "or point CHROMIUM at a Chromium or Chrome binary.",
    );
  }
}

/** What the Rust adapter reported for the recording: each call's `call_done`. */
function expectedCalls(format) {
  return readFileSync(join(ROOT, "corpus", "model_streams", `${format}.events`), "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line))
    .filter((event) => event.event === "call_done");
}

test("streams.json is what build-streams.mjs writes from the corpus", async () => {
  const { render, OUTPUT } = await import("../../playground/build-streams.mjs");
  assert.ok(
    readFileSync(OUTPUT, "utf8") === render(),
    "js/playground/streams.json is stale: run `node playground/build-streams.mjs` in js/ and commit it",
  );
  // argmend's own recordings only: the package ships it (issue 41).
  const { recordings } = JSON.parse(readFileSync(OUTPUT, "utf8"));
  for (const rec of recordings) assert.match(rec.source, /^corpus\/model_streams\/[a-z_]+\.jsonl$/, rec.id);
});

test("served from a checkout, the page also gets the SDKs' recordings of ../shared", { skip: skipUnless(...SDK) }, async () => {
  need(...SDK);
  const { serve } = await import("../../scripts/serve.mjs");
  const { sharedRecordings } = await import("../../playground/build-streams.mjs");
  const server = await serve({ port: 0 });
  try {
    const served = await (await fetch(`${server.url}/playground/streams.json`)).json();
    const ids = served.recordings.map((rec) => rec.id);
    const sdk = sharedRecordings().map((rec) => rec.id);
    assert.ok(sdk.length >= 19, `${sdk.length} SDK recordings`);
    assert.deepEqual(ids.slice(-sdk.length), sdk);
    assert.ok(ids.includes("openai_chat.jsonl"));
  } finally {
    await server.close();
  }
});

test("the page's routing of argument text agrees with the adapters", async () => {
  prerequisites();
  const argmend = await import("../../lib/node.js");
  const { recordings, sharedRecordings } = await import("../../playground/build-streams.mjs");
  const adapters = {
    openai_chat: argmend.OpenAIChatStream,
    openai_responses: argmend.OpenAIResponsesStream,
    anthropic: argmend.AnthropicStream,
  };
  // The SDKs' recordings too, when ../shared has them (the test above says when not).
  for (const rec of [...recordings(), ...sharedRecordings()]) {
    const adapter = new adapters[rec.format]();
    const events = rec.steps.flatMap((step) => adapter.push(step.event));
    events.push(...adapter.finish());
    const started = events.filter((event) => event.event === "call_started");
    assert.equal(started.length, rec.calls, `${rec.id}: the adapter saw ${started.length} calls, the routing ${rec.calls}`);
    for (const done of events.filter((event) => event.event === "call_done")) {
      const stream = new argmend.ToolCallStream(done.name);
      stream.feed(rec.raw[done.call]);
      const end = stream.finish();
      assert.deepEqual(end.args, done.args, `${rec.id} call ${done.call}: the raw text the page shows repairs to other arguments`);
      assert.equal(end.text, done.text, `${rec.id} call ${done.call}`);
    }
  }
});

describe("the playground in Debian's chromium", () => {
  let server;
  let context;
  let profile;
  let page;
  const problems = [];

  before(async () => {
    prerequisites();
    const { serve } = await import("../../scripts/serve.mjs");
    const { chromium } = await import("playwright-core");
    server = await serve({ port: 0 });
    profile = mkdtempSync(join(tmpdir(), "argmend-playground-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1440, height: 900 },
      timeout: 15_000,
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => message.type() === "error" && problems.push(`console: ${message.text()}`));
    await page.goto(`${server.url}/playground/`);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 10_000 });
    mkdirSync(OUT, { recursive: true });
  });

  after(async () => {
    await context?.close();
    await server?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  test("a recorded stream replayed in the browser ends with the Rust engine's arguments", { timeout: 20_000 }, async () => {
    await page.selectOption("#recording", RECORDING);
    await page.selectOption("#speed", "max");
    await page.click("#play");
    await page.waitForSelector('body[data-state="done"]', { timeout: 15_000 });

    const expected = expectedCalls("openai_chat");
    assert.equal(await page.locator("#calls .chip").count(), expected.length, "one chip per call");
    for (const done of expected) {
      await page.click(`#calls .chip[data-call="${done.call}"]`);
      const value = JSON.parse(await page.textContent("#value"));
      assert.deepEqual(value, done.args, `call ${done.call} (${done.name}): the live value`);
      const output = (await page.textContent("#committed")) + (await page.textContent("#tail"));
      assert.deepEqual(JSON.parse(output), done.args, `call ${done.call} (${done.name}): the repaired text`);
      assert.equal(await page.textContent("#verdict"), done.verdict, `call ${done.call}: the verdict badge`);
      // Each fix is marked on the raw arguments, under its number.
      const marked = await page.$$eval("#input-view [data-n]", (marks) =>
        new Set(marks.flatMap((mark) => mark.dataset.n.split(" "))).size,
      );
      assert.equal(marked, done.fixes.length, `call ${done.call}: one mark per fix`);
      assert.equal(await page.locator("#legend li").count(), done.fixes.length, `call ${done.call}: the legend`);
    }
    // Field events fired along the way, for every call.
    for (const done of expected) {
      assert.ok(
        (await page.locator(`#events li.ev-field_done[data-call="${done.call}"]`).count()) > 0,
        `call ${done.call}: field_done events listed`,
      );
    }

    // The screenshot: the call written Python-style, its fixes marked.
    const repaired = expected.find((done) => done.verdict === "repaired");
    await page.click(`#calls .chip[data-call="${repaired.call}"]`);
    const shot = join(OUT, "playground.png");
    rmSync(shot, { force: true });
    await page.screenshot({ path: shot, fullPage: true });
    assert.ok(existsSync(shot) && statSync(shot).size > 10_000, `the screenshot ${shot} was written`);
    assert.deepEqual(problems, [], "no errors in the page");
  });

  test("pasted broken JSON is repaired, with its fixes marked on the input", { timeout: 15_000 }, async () => {
    const { repair } = await import("../../lib/node.js");
    const want = repair(BROKEN);
    assert.equal(want.verdict, "repaired");

    await page.click("#tab-paste");
    await page.fill("#input", BROKEN);
    await page.waitForFunction(
      (text) => document.body.dataset.paste === "done" && document.getElementById("committed").textContent === text,
      want.text,
      { timeout: 5_000 },
    );
    assert.equal(await page.textContent("#committed"), want.text, "the repaired text");
    assert.equal(await page.textContent("#tail"), "", "nothing provisional once the input is whole");
    assert.equal(await page.textContent("#verdict"), "repaired");
    assert.ok((await page.locator("#input-view mark.fix").count()) > 0, "a fix is highlighted on the input");
    assert.equal(await page.locator("#legend li.fix").count(), want.fixes.length, "every fix in the legend");
    assert.deepEqual(JSON.parse(await page.textContent("#value")), JSON.parse(want.text), "the value");

    // Streamed token by token: the same text at the end, and field events on the way.
    await page.selectOption("#paste-speed", "max");
    await page.click("#stream");
    await page.waitForFunction(() => document.body.dataset.paste === "done", null, { timeout: 5_000 });
    assert.equal(await page.textContent("#committed"), want.text, "the streamed repair");
    assert.ok((await page.locator("#events li.ev-field_done").count()) >= 3, "field events listed");
    await page.screenshot({ path: join(OUT, "playground-paste.png"), fullPage: true });
    assert.deepEqual(problems, [], "no errors in the page");
  });
});
