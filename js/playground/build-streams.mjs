// Writes js/playground/streams.json: argmend's own recorded model streams
// (corpus/model_streams/<format>.jsonl), for the playground page to replay
// (a static page cannot list a directory, and the corpus is outside the
// package).
//
//   node playground/build-streams.mjs           (rewrite streams.json)
//   node playground/build-streams.mjs --check   (exit 1 if it is stale)
//
// The file is committed and ships in the package, so the page also works
// from any static host; test/browser/playground.test.js fails when it no
// longer matches the corpus. It holds argmend's own recordings only: the
// SDKs' recordings are other projects' data, kept in ../shared/ beside the
// checkout (issue 41). scripts/serve.mjs, run from a checkout that has them,
// adds them to the streams.json it serves (`sharedRecordings`); nothing
// writes them into the repository or the package.
//
// Each recording is a list of steps, one per SDK event, in the recorded
// order (an SSE file's multi-response runs stay one stream: one adapter
// takes them all, as vercel/ai's tests do). The page pushes `event` to
// argmend's adapter for the format, which is what a user's code does.
//
// `feeds` is for the page's "raw arguments" view only: the argument text
// each event carries, per call, as the adapter routes it (`[call, text]`,
// or `[call, text, "reset"]` where the adapter starts the call's text over:
// deltas after a whole start value, a final text that differs from the
// deltas). The routing below mirrors src/call/clients/ (calls.rs, openai.rs,
// anthropic.rs); the playground test checks it against the adapter itself
// (the same calls, and every call's raw text repairs to the adapter's
// arguments), so a change there that this misses fails the test.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const corpus = join(root, "corpus", "model_streams");
export const OUTPUT = join(here, "streams.json");

/**
 * The SDKs' recordings beside the checkout: $ARGMEND_SHARED/model_streams/sdk
 * or ../shared/model_streams/sdk (as test/shared.js finds it), or null.
 */
export function sharedSdkDir() {
  const shared = process.env.ARGMEND_SHARED ? resolve(root, process.env.ARGMEND_SHARED) : join(root, "..", "shared");
  const dir = join(shared, "model_streams", "sdk");
  return existsSync(dir) && statSync(dir).isDirectory() ? dir : null;
}

const FORMATS = ["openai_chat", "openai_responses", "anthropic"];

/** What argmend's own recordings (`<format>.jsonl`) hold: the same four calls in each format. */
const OWN_NOTE =
  "argmend's own recording, four calls: `write_file` with code full of quotes, " +
  "`read_file` written Python-style (single quotes, bare keys, trailing commas, `True`), " +
  "`search` with escapes and non-ASCII text, and a `write_file` cut off by the token limit.";

/** An SSE body's events, as tests/sdk_streams.rs reads them (`data:` lines; `[DONE]` skipped). */
export function sseEvents(text) {
  const events = [];
  let data = [];
  const flush = () => {
    const joined = data.join("\n").trim();
    data = [];
    if (joined && joined !== "[DONE]") events.push(JSON.parse(joined));
  };
  for (let line of text.split("\n")) {
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line === "") flush();
    else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
  }
  flush();
  return events;
}

/** The "what it shows" column of the SDK recordings' README.md, by file. */
function sdkNotes(sdk) {
  const notes = new Map();
  const readme = readFileSync(join(sdk, "README.md"), "utf8");
  for (const line of readme.split("\n")) {
    const cells = line.split(" | ");
    const file = /^\| `([^`]+\.sse)`$/.exec(cells[0])?.[1];
    if (file && cells.length >= 6) notes.set(file, cells.at(-1).replace(/ \|$/, ""));
  }
  return notes;
}

// ---------------------------------------------------------------------------
// The adapters' routing of argument text (src/call/clients/calls.rs).

class Calls {
  slots = [];
  skipped = new Set();
  /** The feeds of the event being read. */
  ops = [];

  find(key) {
    const call = this.slots.findIndex((slot) => !slot.retired && slot.key === key);
    return call < 0 ? null : call;
  }

  newMessage() {
    this.endAll();
    for (const slot of this.slots) slot.retired = true;
    this.skipped.clear();
  }

  start(key) {
    const found = this.find(key);
    if (found !== null) return found;
    this.slots.push({ key, raw: "", open: true, fromStart: false, held: false, retired: false });
    return this.slots.length - 1;
  }

  isOpen(key) {
    const call = this.find(key);
    return call !== null && this.slots[call].open;
  }

  feed(key, fragment) {
    if (fragment === "") return;
    const call = this.find(key) ?? this.start(key);
    const slot = this.slots[call];
    if (!slot.open) return; // arguments after the call's end: the adapter skips them
    if (slot.fromStart) {
      slot.fromStart = false;
      slot.raw = "";
      this.ops.push([call, "", "reset"]);
    }
    slot.raw += fragment;
    this.ops.push([call, fragment]);
  }

  startValue(key, text) {
    this.feed(key, text);
    const call = this.find(key);
    if (call !== null) this.slots[call].fromStart = true;
  }

  finalText(key, text) {
    const call = this.find(key);
    if (call === null) return this.feed(key, text);
    const slot = this.slots[call];
    if (!slot.open || slot.raw === text) return;
    if (text.startsWith(slot.raw)) return this.feed(key, text.slice(slot.raw.length));
    slot.raw = text;
    slot.fromStart = false;
    this.ops.push([call, text, "reset"]);
  }

  hold(key) {
    const call = this.find(key);
    if (call !== null) this.slots[call].held = true;
  }

  endCall(call) {
    this.slots[call].held = false;
    this.slots[call].open = false;
  }

  endHeld() {
    this.slots.forEach((slot, call) => slot.held && this.endCall(call));
  }

  end(key) {
    const call = this.find(key);
    if (call !== null) this.endCall(call);
  }

  endPrefixed(prefix) {
    this.slots.forEach((slot, call) => slot.key.startsWith(prefix) && this.endCall(call));
  }

  endAll() {
    this.slots.forEach((_, call) => this.endCall(call));
  }

  skip(handle) {
    this.skipped.add(handle);
  }

  isSkipped(handle) {
    return this.skipped.has(handle);
  }
}

const str = (value, key) => (typeof value?.[key] === "string" ? value[key] : undefined);
const index = (value) => (Number.isInteger(value) && value >= 0 ? value : 0);

/** src/call/clients/openai.rs, OpenAiChatStream::push. */
function chatRouter() {
  const calls = new Calls();
  let completion = null;
  const callDelta = (n, idx, delta) => {
    const key = `${n}/${idx}`;
    if (str(delta, "type") === "custom" || calls.isSkipped(key)) return calls.skip(key);
    if (calls.find(key) === null) {
      calls.endPrefixed(`${n}/`);
      calls.start(key);
    }
    const fragment = str(delta.function, "arguments");
    if (fragment !== undefined) calls.feed(key, fragment);
  };
  return {
    calls,
    push(chunk) {
      const id = str(chunk, "id");
      if (id) {
        if (completion !== null && completion !== id) calls.newMessage();
        completion = id;
      }
      for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
        const n = index(choice.index);
        const deltas = choice.delta?.tool_calls;
        for (const delta of Array.isArray(deltas) ? deltas : []) callDelta(n, String(index(delta.index)), delta);
        const legacy = choice.delta?.function_call;
        if (legacy && typeof legacy === "object" && !Array.isArray(legacy)) {
          callDelta(n, "function_call", { function: legacy });
        }
        if (str(choice, "finish_reason") !== undefined) calls.endPrefixed(`${n}/`);
      }
    },
  };
}

/** src/call/clients/openai.rs, OpenAiResponsesStream::push. */
function responsesRouter() {
  const calls = new Calls();
  const itemKey = (event) =>
    str(event, "item_id") ??
    str(event.item, "id") ??
    ("output_index" in event ? JSON.stringify(event.output_index) : "");
  const item = (key, item, done) => {
    const kind = str(item, "type") ?? "";
    if (kind !== "function_call") {
      if (kind.endsWith("_call") || kind === "mcp_approval_request") calls.skip(key);
      return;
    }
    calls.start(key);
    const args = str(item, "arguments") ?? "";
    if (!done) return calls.feed(key, args);
    if (args !== "" || !calls.isOpen(key)) calls.finalText(key, args);
    calls.end(key);
  };
  return {
    calls,
    push(event) {
      const kind = str(event, "type") ?? "";
      switch (kind) {
        case "response.created":
          return calls.newMessage();
        case "response.output_item.added":
        case "response.output_item.done":
          if (event.item !== undefined) item(itemKey(event), event.item, kind.endsWith(".done"));
          return;
        case "response.function_call_arguments.delta": {
          const delta = str(event, "delta");
          if (delta !== undefined) calls.feed(itemKey(event), delta);
          return;
        }
        case "response.function_call_arguments.done": {
          const key = itemKey(event);
          if (calls.find(key) === null) calls.start(key);
          const args = str(event, "arguments");
          if (args !== undefined) calls.finalText(key, args);
          return;
        }
        case "response.custom_tool_call_input.delta":
        case "response.custom_tool_call_input.done":
          return calls.skip(itemKey(event));
        case "response.completed":
        case "response.incomplete":
        case "response.failed":
        case "error": {
          const output = event.response?.output;
          (Array.isArray(output) ? output : []).forEach((entry, n) => item(str(entry, "id") ?? String(n), entry, true));
          return calls.endAll();
        }
      }
    },
  };
}

/** src/call/clients/anthropic.rs, AnthropicStream::push. */
function anthropicRouter() {
  const calls = new Calls();
  const holdsNoCall = (kind) => ["text", "thinking", "redacted_thinking"].includes(kind) || kind.endsWith("_result");
  const block = (key, block) => {
    const kind = str(block, "type") ?? "";
    if (kind !== "tool_use") {
      if (!holdsNoCall(kind)) calls.skip(key);
      return;
    }
    calls.start(key);
    const input = block.input;
    const empty = input && typeof input === "object" && !Array.isArray(input) && Object.keys(input).length === 0;
    if (input !== undefined && !empty) calls.startValue(key, JSON.stringify(input));
  };
  return {
    calls,
    push(event) {
      const key = "index" in event ? JSON.stringify(event.index) : "";
      switch (str(event, "type") ?? "") {
        case "message_start": {
          calls.newMessage();
          const blocks = event.message?.content;
          (Array.isArray(blocks) ? blocks : []).forEach((entry, n) => {
            block(`message_start/${n}`, entry);
            calls.hold(`message_start/${n}`);
          });
          return;
        }
        case "content_block_start":
          calls.endHeld();
          if (event.content_block !== undefined) block(key, event.content_block);
          return;
        case "content_block_delta": {
          const delta = event.delta;
          const fragment = str(delta, "partial_json");
          if (str(delta, "type") === "input_json_delta" && !calls.isSkipped(key) && fragment !== undefined) {
            calls.feed(key, fragment);
          }
          return;
        }
        case "content_block_stop":
          return calls.hold(key);
        case "message_delta":
          if (str(event.delta, "stop_reason") !== undefined) calls.endAll();
          return;
        case "message_stop":
        case "error":
          return calls.endAll();
      }
    },
  };
}

const ROUTERS = { openai_chat: chatRouter, openai_responses: responsesRouter, anthropic: anthropicRouter };

/** One recording: its steps, each event with the argument text it carries per call. */
export function recording(format, events, fields) {
  const router = ROUTERS[format]();
  const steps = events.map((event) => {
    router.calls.ops = [];
    router.push(event);
    return router.calls.ops.length ? { event, feeds: router.calls.ops } : { event };
  });
  const raw = router.calls.slots.map((slot) => slot.raw);
  return { ...fields, format, calls: raw.length, steps, raw };
}

/** argmend's own recordings, the `.jsonl` streams: what streams.json holds. */
export function recordings() {
  const out = [];
  for (const format of FORMATS) {
    const path = join(corpus, `${format}.jsonl`);
    const events = readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line));
    out.push(
      recording(format, events, {
        id: `${format}.jsonl`,
        title: "argmend's four calls",
        source: relative(root, path),
        note: OWN_NOTE,
        expected: `${relative(root, corpus)}/${format}.events`,
      }),
    );
  }
  return out;
}

/**
 * The SDKs' recordings in `sdk` (sharedSdkDir(): other projects' data,
 * never written to a file here), by format and name; [] without them.
 */
export function sharedRecordings(sdk = sharedSdkDir()) {
  const out = [];
  if (!sdk) return out;
  const notes = sdkNotes(sdk);
  for (const format of FORMATS) {
    const dir = join(sdk, format);
    for (const name of readdirSync(dir).filter((name) => name.endsWith(".sse")).sort()) {
      const events = sseEvents(readFileSync(join(dir, name), "utf8"));
      out.push(
        recording(format, events, {
          id: `sdk/${format}/${name}`,
          title: name.replace(/\.sse$/, ""),
          source: `shared/model_streams/sdk/${format}/${name}`,
          note: notes.get(`${format}/${name}`) ?? "",
        }),
      );
    }
  }
  return out;
}

/** streams.json's text: one step per line, so a change in the corpus reads as a small diff. */
export function render(list = recordings()) {
  const lines = ["{", '  "generator": "js/playground/build-streams.mjs (do not edit by hand)",', '  "recordings": ['];
  list.forEach((rec, n) => {
    const { steps, raw, ...head } = rec;
    const fields = Object.entries(head).map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)},`);
    lines.push("  {", ...fields);
    lines.push(`    "raw": ${JSON.stringify(raw)},`);
    lines.push('    "steps": [');
    steps.forEach((step, i) => lines.push(`      ${JSON.stringify(step)}${i + 1 < steps.length ? "," : ""}`));
    lines.push("    ]", `  }${n + 1 < list.length ? "," : ""}`);
  });
  lines.push("  ]", "}", "");
  return lines.join("\n");
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = render();
  if (process.argv.includes("--check")) {
    let current = null;
    try {
      current = readFileSync(OUTPUT, "utf8");
    } catch {}
    if (current !== text) {
      console.error(`${relative(process.cwd(), OUTPUT)} is stale: run \`node playground/build-streams.mjs\` in js/`);
      process.exit(1);
    }
    console.log(`${relative(process.cwd(), OUTPUT)} is up to date`);
  } else {
    writeFileSync(OUTPUT, text);
    console.log(`wrote ${relative(process.cwd(), OUTPUT)}`);
  }
}
