// argmend/ai with the real Vercel AI SDK (`ai` 6): `streamText` over the
// SDK's own mock model (`MockLanguageModelV3` from `ai/test`), whose stream
// sends tool inputs of broken JSON in small `tool-input-delta` pieces, as a
// provider does. Its `fullStream` goes through `toolInputStream`, and the
// field events, live values and mended arguments are checked against the
// JSON the model meant, and against the stream's own invariants (the deltas
// of a string add up to its final value; a final field never changes
// afterwards; the last live value is the final `args`).

import { test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";

import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import * as z3 from "zod/v3";

import { ArgmendError, ToolCallStream } from "argmend";
import { repairToolCall, toolInputStream } from "argmend/ai";

// ---------------------------------------------------------------------------
// The model

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};

function finish(unified = "tool-calls") {
  return { type: "finish", finishReason: { unified, raw: unified }, usage: USAGE };
}

/** A tool call as a provider streams it: start, the text in `size`-character deltas, end, the whole call. */
function streamedCall(id, toolName, text, size = 3) {
  const parts = [{ type: "tool-input-start", id, toolName }];
  for (let i = 0; i < text.length; i += size) parts.push({ type: "tool-input-delta", id, delta: text.slice(i, i + size) });
  parts.push({ type: "tool-input-end", id }, { type: "tool-call", toolCallId: id, toolName, input: text });
  return parts;
}

/**
 * A `MockLanguageModelV3` whose `doStream` answers each step with the next
 * list of parts (as a provider's stream: one part per read, so every delta
 * reaches `streamText` on its own).
 */
function model(...steps) {
  return new MockLanguageModelV3({
    doStream: steps.map((parts) => ({
      stream: new ReadableStream({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
        },
        pull(controller) {
          const part = parts.shift();
          if (part === undefined) controller.close();
          else if (part instanceof Error) controller.error(part);
          else controller.enqueue(part);
        },
      }),
    })),
  });
}

async function collect(stream) {
  const out = [];
  for await (const part of stream) out.push(part);
  return out;
}

// ---------------------------------------------------------------------------
// The tools and the broken JSON the model sends

const WRITE_FILE = {
  type: "object",
  additionalProperties: false,
  required: ["path", "content"],
  properties: { path: { type: "string" }, content: { type: "string" }, mode: { type: "string" } },
};

// Code with unescaped quotes: only the tool's keys tell the quote before
// `, "path": 2}` is inside the string.
const QUOTES = '{"path": "a.py", "content": "d = {"a": 1, "path": 2}", "mode": "w"}';
const QUOTES_TRUTH = { path: "a.py", content: 'd = {"a": 1, "path": 2}', mode: "w" };

// Single quotes, a bare key, Python literals, trailing commas, a comment.
const SLOPPY = "{'query': 'café \"quoted\" ✓', limit: 5, filters: {'lang': ['py', 'rs',],}, exact: True, // done\n}";
const SLOPPY_TRUTH = { query: 'café "quoted" ✓', limit: 5, filters: { lang: ["py", "rs"] }, exact: true };

const SEARCH = {
  type: "object",
  properties: {
    query: { type: "string" },
    limit: { type: "number" },
    filters: { type: "object", properties: { lang: { type: "array", items: { type: "string" } } } },
    exact: { type: "boolean" },
  },
};

const ran = [];
const tools = {
  write_file: tool({
    description: "Write a file",
    inputSchema: jsonSchema(WRITE_FILE),
    execute: async (input) => {
      ran.push(input);
      return "written";
    },
  }),
  search: tool({ description: "Search", inputSchema: jsonSchema(SEARCH) }),
};

// ---------------------------------------------------------------------------
// The checks every run gets

function at(value, pointer) {
  let here = value;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    here = Array.isArray(here) ? here[Number(key)] : here?.[key];
  }
  return here;
}

/**
 * The argmend parts of one call, checked against each other: they come
 * between its first and last SDK part, strings grow by their deltas to
 * their final value, each live `input` holds every field final so far,
 * and the last one is the final args. Returns the call's parts.
 */
function checkCall(parts, id) {
  const mine = parts.filter((p) => p.type === "argmend" && p.id === id);
  const done = mine.filter((p) => p.event === "call_done");
  assert.equal(done.length, 1, `${id}: one call_done`);
  assert.equal(mine.at(-1), done[0], `${id}: call_done comes last`);
  const fields = mine.slice(0, -1);
  const grown = new Map();
  const final = new Map();
  for (const part of fields) {
    assert.ok(["started", "delta", "field_done"].includes(part.event), `${id}: a field event: ${part.event}`);
    assert.ok(part.input !== null && typeof part.input === "object", `${id}: a live value with each field event`);
    if (part.event === "started" && part.kind === "string") grown.set(part.path, "");
    if (part.event === "delta") grown.set(part.path, (grown.get(part.path) ?? "") + part.text);
    if (part.event === "field_done") {
      if (typeof part.value === "string") assert.equal(grown.get(part.path), part.value, `${id}: ${part.path}: its deltas add up to its value`);
      final.set(part.path, part.value);
    }
    // Every field final so far keeps its value in the live input.
    for (const [path, value] of final) assert.deepEqual(at(part.input, path), value, `${id}: ${path} stays final in the live value`);
  }
  assert.deepEqual(final.get(""), done[0].args, `${id}: the whole value's field_done is the args`);
  if (fields.length > 0) assert.deepEqual(fields.at(-1).input, done[0].args, `${id}: the last live value is the args`);
  return mine;
}

/** Fixed ids and clock, so runs are alike. */
const FIXED = { now: () => 0, generateId: () => "id" };

/**
 * streamText's fullStream through toolInputStream. The fullStream is teed
 * first, so the parts that come out can be checked against the very objects
 * the SDK yielded: each passes through, unchanged (the same object), in order.
 */
async function run(makeModel, options = {}, streamOptions = { tools }) {
  const result = streamText({ model: makeModel(), prompt: "Go", tools, ...options, _internal: FIXED });
  const [sdk, mended] = result.fullStream.tee();
  const [plain, parts] = await Promise.all([collect(sdk), collect(mended.pipeThrough(toolInputStream(streamOptions)))]);
  const passed = parts.filter((p) => p.type !== "argmend");
  assert.equal(passed.length, plain.length, "every AI SDK part passes through");
  passed.forEach((part, i) => assert.equal(part, plain[i], `part ${i} (${plain[i].type}) passes through as it was`));
  return parts;
}

// ---------------------------------------------------------------------------

test("broken JSON in 3-character deltas: field events, live values and the mended args", async () => {
  const makeModel = () => model([...streamedCall("call_1", "write_file", QUOTES), ...streamedCall("call_2", "search", SLOPPY, 2), finish()]);
  const parts = await run(makeModel);

  const write = checkCall(parts, "call_1");
  const search = checkCall(parts, "call_2");
  const [writeDone, searchDone] = [write.at(-1), search.at(-1)];
  assert.deepEqual(writeDone.args, QUOTES_TRUTH);
  assert.deepEqual(searchDone.args, SLOPPY_TRUTH);
  for (const done of [writeDone, searchDone]) {
    assert.equal(done.verdict, "repaired");
    assert.equal(done.complete, true);
    assert.deepEqual(done.doubts, []);
    assert.ok(done.fixes.length > 0, "the fixes say what changed");
    assert.deepEqual(JSON.parse(done.text), done.args);
    assert.equal(done.cut, undefined);
  }
  assert.ok(searchDone.fixes.some((f) => f.kind === "quoted_key"), JSON.stringify(searchDone.fixes));

  // The field events, as argmend's engine gives them for the same deltas.
  const engine = new ToolCallStream("write_file", { schema: WRITE_FILE });
  const expected = [];
  for (const part of streamedCall("call_1", "write_file", QUOTES).filter((p) => p.type === "tool-input-delta")) expected.push(...engine.feed(part.delta).events);
  expected.push(...engine.finish().events);
  assert.deepEqual(
    write.slice(0, -1).map(({ type, id, toolName, input, ...event }) => event),
    expected,
  );
  // What the UI sees: the path final before the content starts, the code
  // growing with its quotes unescaped.
  assert.deepEqual(write.find((p) => p.event === "field_done" && p.path === "/path")?.value, "a.py");
  const contents = write.filter((p) => p.event === "delta" && p.path === "/content").map((p) => p.input.content);
  assert.ok(contents.length >= 5, `the content grows delta by delta: ${contents.length}`);
  contents.forEach((content, i) => assert.ok(QUOTES_TRUTH.content.startsWith(content) && (i === 0 || content.length > contents[i - 1].length), JSON.stringify(contents)));

  // Each argmend part comes after the SDK part that caused it: a call's
  // call_done right after its tool-input-end, with only the whole value's
  // field_done before it (the arguments' last closer is final once their
  // end is known).
  for (const id of ["call_1", "call_2"]) {
    const end = parts.findIndex((p) => p.type === "tool-input-end" && p.id === id);
    const whole = parts[end + 1];
    assert.deepEqual([whole.event, whole.id, whole.path], ["field_done", id, ""]);
    assert.deepEqual(parts[end + 2], parts.find((p) => p.event === "call_done" && p.id === id));
  }
  // The AI SDK alone could not parse either call.
  const calls = parts.filter((p) => p.type === "tool-call");
  assert.deepEqual(calls.map((c) => c.invalid), [true, true]);
});

test("the same chunks one character at a time give the same args and fields", async () => {
  const by = async (size) => {
    const parts = await run(() => model([...streamedCall("c", "write_file", QUOTES, size), finish()]));
    const mine = checkCall(parts, "c");
    // Deltas merge differently; the started and final events do not.
    return { done: mine.at(-1).args, final: mine.filter((p) => p.event !== "delta").map(({ input, ...p }) => p) };
  };
  const [one, whole] = [await by(1), await by(QUOTES.length)];
  assert.deepEqual(one.done, QUOTES_TRUTH);
  assert.deepEqual(one, whole);
});

test("with repairToolCall the AI SDK runs the mended call; without it, the call is invalid", async () => {
  ran.length = 0;
  const steps = () => model([...streamedCall("call_1", "write_file", QUOTES), finish()], [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Done." }, { type: "text-end", id: "t" }, finish("stop")]);
  const parts = await run(steps, { experimental_repairToolCall: repairToolCall, stopWhen: stepCountIs(2) });
  const call = parts.find((p) => p.type === "tool-call");
  assert.equal(call.invalid, undefined);
  assert.deepEqual(call.input, QUOTES_TRUTH);
  assert.deepEqual(ran, [QUOTES_TRUTH], "the tool ran with the mended input");
  assert.deepEqual(parts.find((p) => p.type === "tool-result")?.output, "written");
  assert.deepEqual(parts.find((p) => p.event === "call_done").args, QUOTES_TRUTH, "the same args the stream showed");
  assert.ok(parts.some((p) => p.type === "text-delta" && p.text === "Done."), "the second step ran");

  ran.length = 0;
  const bare = await run(steps, { stopWhen: stepCountIs(2) });
  assert.equal(bare.find((p) => p.type === "tool-call").invalid, true);
  assert.ok(bare.some((p) => p.type === "tool-error"));
  assert.deepEqual(ran, []);
});

test("repairToolCall gives nothing it is not sure of: a cut input, a doubt, no JSON", async () => {
  const schema = async () => WRITE_FILE;
  const mend = (input, inputSchema = schema) => repairToolCall({ toolCall: { type: "tool-call", toolCallId: "c", toolName: "write_file", input }, inputSchema });
  assert.deepEqual(JSON.parse((await mend(QUOTES)).input), QUOTES_TRUTH);
  assert.equal(await mend('{"path": "a.py", "content": "half a fi'), null, "cut short");
  assert.equal(await mend(QUOTES, async () => undefined), null, "without the schema the quotes leave a doubt");
  // Prose for a tool with two required fields: argmend would wrap it in a
  // field (its plain-value rule), but the schema rules that out.
  assert.equal(await mend("I cannot do that."), null, "prose the schema rules out");
  const lookup = { type: "object", required: ["query"], properties: { query: { type: "string" }, limit: { type: "number" } } };
  const plain = (toolName) => repairToolCall({ toolCall: { toolName, input: "weather in Paris" }, inputSchema: async () => lookup });
  assert.deepEqual(JSON.parse((await plain("lookup")).input), { query: "weather in Paris" }, "a plain value goes to the one field it can be");
  assert.equal(await plain("find_docs").then((c) => c && JSON.parse(c.input).query), "weather in Paris");
  const noPrimary = await repairToolCall({ toolCall: { toolName: "find_docs", input: "weather" }, inputSchema: async () => SEARCH });
  assert.equal(noPrimary, null, "not JSON, and no field to put it in");
  assert.equal(await mend('{"path": "a.py", "content": "x"}'), null, "nothing to mend: the SDK's own error stands");
  const unknown = { toolCall: { toolName: "nope", input: "{}" }, inputSchema: () => assert.fail("not asked"), error: { name: "AI_NoSuchToolError" } };
  assert.equal(await repairToolCall(unknown), null);
  await assert.rejects(repairToolCall({}), (e) => e instanceof ArgmendError && e.kind === "invalid_argument");
});

test("a call cut by the output limit ends at finish-step, not complete, its text kept", async () => {
  const text = '{"path": "notes.md", "content": "# TODO\\n- fix the pars';
  const cut = streamedCall("c", "write_file", text, 4).filter((p) => p.type === "tool-input-start" || p.type === "tool-input-delta");
  const parts = await run(() => model([...cut, finish("length")]));
  const done = checkCall(parts, "c").at(-1);
  assert.deepEqual(done.args, { path: "notes.md", content: "# TODO\n- fix the pars" });
  assert.equal(done.complete, false);
  assert.equal(done.cut, "length");
  assert.equal(done.verdict, "completed");
  const finishStep = parts.findIndex((p) => p.type === "finish-step");
  const after = parts.slice(finishStep + 1, parts.indexOf(done) + 1);
  assert.ok(after.length > 1 && after.every((p) => p.type === "argmend"), "its end follows the finish-step that cut it");
});

test("a provider that sends the input only whole: ends at its tool-call", async () => {
  // No deltas between start and end (LM Studio's Responses server), and a
  // call with no tool-input parts at all.
  const parts = await run(() =>
    model([
      { type: "tool-input-start", id: "a", toolName: "search" },
      { type: "tool-input-end", id: "a" },
      { type: "tool-call", toolCallId: "a", toolName: "search", input: SLOPPY },
      { type: "tool-call", toolCallId: "b", toolName: "write_file", input: QUOTES },
      finish(),
    ]),
  );
  assert.deepEqual(checkCall(parts, "a").at(-1).args, SLOPPY_TRUTH);
  assert.deepEqual(checkCall(parts, "b").at(-1).args, QUOTES_TRUTH);
  const call = parts.findIndex((p) => p.type === "tool-call" && p.toolCallId === "a");
  assert.equal(parts[call + 1].type, "argmend", "its events follow its tool-call");
  // A valid input the SDK parsed is read as its JSON.
  const valid = await run(() => model([{ type: "tool-call", toolCallId: "v", toolName: "search", input: '{"query": "x", "limit": 2}' }, finish()]));
  const done = checkCall(valid, "v").at(-1);
  assert.deepEqual([done.args, done.verdict, done.complete], [{ query: "x", limit: 2 }, "valid", true]);
});

test("free-text inputs and provider-executed calls are reported skipped, once", async () => {
  const parts = await run(() =>
    model([
      { type: "tool-input-start", id: "t", toolName: "search", inputEncoding: "text" },
      { type: "tool-input-delta", id: "t", delta: "just text" },
      { type: "tool-input-end", id: "t" },
      { type: "tool-input-start", id: "p", toolName: "web_search", providerExecuted: true },
      { type: "tool-input-delta", id: "p", delta: '{"query": "x"}' },
      { type: "tool-input-end", id: "p" },
      finish(),
    ]),
  );
  const argmend = parts.filter((p) => p.type === "argmend");
  assert.deepEqual(
    argmend.map(({ event, id, kind }) => ({ event, id, kind })),
    [
      { event: "skipped", id: "t", kind: "text_input" },
      { event: "skipped", id: "p", kind: "provider_executed" },
    ],
  );
});

test("the tools' schemas: plain JSON Schema, jsonSchema(), a lazy or async schema, zod 4", async () => {
  const closed = (schema) => ({ write_file: { inputSchema: schema } });
  const asyncSchema = { [Symbol.for("vercel.ai.schema")]: true, validate: undefined, jsonSchema: Promise.resolve(WRITE_FILE) };
  const zod = z.object({ path: z.string(), content: z.string(), mode: z.string().optional() });
  const cases = {
    "plain JSON Schema": closed(WRITE_FILE),
    "jsonSchema()": closed(jsonSchema(WRITE_FILE)),
    "a lazy schema": closed(() => jsonSchema(WRITE_FILE)),
    "an async jsonSchema": closed(asyncSchema),
    "zod 4": { write_file: tool({ inputSchema: zod }) },
  };
  const makeModel = () => model([...streamedCall("c", "write_file", QUOTES, 5), finish()]);
  for (const [what, streamTools] of Object.entries(cases)) {
    const done = checkCall(await run(makeModel, {}, { tools: streamTools }), "c").at(-1);
    assert.deepEqual([done.args, done.complete, done.doubts], [QUOTES_TRUTH, true, []], what);
  }
  // Without the schema the keys are a guess: other args, and a doubt says so.
  const bare = checkCall(await run(makeModel, {}, {}), "c").at(-1);
  assert.ok(!isDeepStrictEqual(bare.args, QUOTES_TRUTH) && bare.doubts.length > 0, JSON.stringify(bare));
  // dropUnknownKeys goes through to each call.
  const extra = '{"path": "a", "content": "b", "colour": "red"}';
  const parts = await run(() => model([...streamedCall("c", "write_file", extra), finish()]), {}, { tools, dropUnknownKeys: true });
  const dropped = parts.find((p) => p.event === "call_done");
  assert.deepEqual(dropped.args, { path: "a", content: "b" });
  // The field events and live values follow the model's text; the args are
  // what normalizing made of it.
  assert.deepEqual(parts.findLast((p) => p.event === "field_done").value, { path: "a", content: "b", colour: "red" });
});

test("schemas and options argmend cannot read fail when the stream is made, with the tool's name", () => {
  const fails = (options, pattern) =>
    assert.throws(() => toolInputStream(options), (e) => e instanceof ArgmendError && e.kind === "invalid_argument" && pattern.test(e.message));
  fails({ tools: { old: { inputSchema: z3.z.object({ a: z3.z.string() }) } } }, /"old".*zod.*no JSON Schema.*zodSchema\(\)/);
  fails({ tools: { bad: { inputSchema: "string" } } }, /"bad": inputSchema must be an object/);
  fails({ tool: {} }, /unknown option "tool"/);
  fails({ tools: [] }, /`tools` must be the object/);
});

// ---------------------------------------------------------------------------
// Every ToolCallStream is freed: at its end, on cancel, on error

/** Counts the ToolCallStreams the helper ends or frees (each once). */
function spyOnStreams() {
  const ended = new Set();
  const { finish, free } = ToolCallStream.prototype;
  ToolCallStream.prototype.finish = function (...args) {
    ended.add(this);
    return finish.apply(this, args);
  };
  ToolCallStream.prototype.free = function (...args) {
    ended.add(this);
    return free.apply(this, args);
  };
  return {
    ended,
    restore() {
      Object.assign(ToolCallStream.prototype, { finish, free });
    },
  };
}

/** Whether a ToolCallStream's memory is gone: every method says `finished`. */
function isFreed(stream) {
  try {
    stream.snapshot();
    return false;
  } catch (e) {
    return e instanceof ArgmendError && e.kind === "finished";
  }
}

test("every call's stream is freed when the consumer stops reading", async () => {
  const spy = spyOnStreams();
  try {
    const parts = [...streamedCall("a", "write_file", QUOTES), ...streamedCall("b", "search", SLOPPY)];
    // Both calls open: a's deltas then b's, interleaved, and no end.
    const open = [parts[0], parts[1], parts[parts.findIndex((p) => p.id === "b")], ...parts.filter((p) => p.type === "tool-input-delta")];
    const result = streamText({ model: model([...open, finish()]), prompt: "Go", tools });
    let seen = 0;
    for await (const part of result.fullStream.pipeThrough(toolInputStream({ tools }))) {
      if (part.type === "argmend" && part.event === "started" && ++seen === 2) break; // the consumer leaves
    }
    assert.equal(spy.ended.size, 2, "both open calls freed");
    assert.ok([...spy.ended].every(isFreed));
  } finally {
    spy.restore();
  }
});

test("a provider's error part: open calls end cut by the error; a failing stream frees them", async () => {
  const spy = spyOnStreams();
  try {
    const half = streamedCall("a", "write_file", QUOTES).slice(0, 6);
    const parts = await run(() => model([...half, { type: "error", error: new Error("overloaded") }]));
    assert.ok(parts.some((p) => p.type === "error"), "the SDK passes the error on");
    const done = checkCall(parts, "a").at(-1);
    assert.deepEqual([done.complete, done.cut], [false, "error"]);
    assert.equal(spy.ended.size, 1);
    assert.ok([...spy.ended].every(isFreed));

    // The model's stream itself fails: the fullStream errors, and so does
    // the transform, its open calls freed.
    spy.ended.clear();
    const result = streamText({ model: model([...half, new Error("connection reset")]), prompt: "Go", tools });
    await assert.rejects(collect(result.fullStream.pipeThrough(toolInputStream({ tools }))), /connection reset/);
    assert.equal(spy.ended.size, 1);
    assert.ok([...spy.ended].every(isFreed));
  } finally {
    spy.restore();
  }
});

test("many calls leave nothing behind: each call's stream is ended exactly when it ends", async () => {
  const spy = spyOnStreams();
  try {
    const calls = Array.from({ length: 50 }, (_, n) => streamedCall(`c${n}`, n % 2 ? "search" : "write_file", n % 2 ? SLOPPY : QUOTES, 7));
    const parts = await run(() => model([...calls.flat(), finish()]));
    assert.equal(parts.filter((p) => p.event === "call_done").length, 50);
    assert.equal(spy.ended.size, 50);
    assert.ok([...spy.ended].every(isFreed));
  } finally {
    spy.restore();
  }
});

test("the README's example runs as written", async () => {
  const shown = [];
  const render = (id, input) => shown.push([id, structuredClone(input)]);
  const logged = [];
  const console = { log: (...args) => logged.push(args) };
  const model = makeReadmeModel();
  const prompt = "Fix the bug in a.py";

  // --- the example (README.md, "Vercel AI SDK") ---
  const result = streamText({ model, tools, prompt, experimental_repairToolCall: repairToolCall });
  for await (const part of result.fullStream.pipeThrough(toolInputStream({ tools }))) {
    if (part.type !== "argmend") continue; // the SDK's own parts pass through too
    if (part.event === "delta") render(part.id, part.input); // the arguments so far, as a value
    if (part.event === "call_done") console.log(part.toolName, part.args, part.complete);
  }
  // --- end of the example ---

  assert.deepEqual(logged, [["write_file", QUOTES_TRUTH, true]]);
  assert.ok(shown.length > 5 && shown.every(([id]) => id === "call_1"));
  assert.deepEqual(shown.at(-1)[1], QUOTES_TRUTH);
});

function makeReadmeModel() {
  return model([...streamedCall("call_1", "write_file", QUOTES, 4), finish()]);
}
