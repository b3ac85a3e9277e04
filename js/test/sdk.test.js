// Issue 29: the adapters fed the real SDKs' own stream objects.
//
// Every recorded stream (recordings.js: the `.jsonl` streams and the SDKs'
// own fixtures under ../shared/model_streams/sdk, skipped when missing) is served as the HTTP body the
// API sends, through the `fetch` option of a real `openai` client
// (`chat.completions.create({stream: true})`, `responses.create({stream:
// true})`) or a real `@anthropic-ai/sdk` client (`messages.create({stream:
// true})`). No network: the SDK's own HTTP, SSE and stream code does the
// rest. The objects the SDK yields go to the matching adapter through
// `toolCalls`, and every call is checked against what the SDK itself makes
// of the same bytes, through its own stream helper (a second request):
//
// - Chat Completions: `chat.completions.stream()`, its
//   `currentChatCompletionSnapshot` after the last chunk (the accumulation
//   `finalChatCompletion()` returns, read before that helper's end checks,
//   which reject one recording: see SDK_LIMITS); a call's arguments are its
//   `function.arguments`, parsed.
// - Responses: the `function_call` items of `response.output_item.done`,
//   else the `response.function_call_arguments.done` text, else the deltas;
//   and, where `responses.stream()` finishes, its `finalResponse()` items.
// - Anthropic: `messages.stream()`'s `finalMessage()` (its `currentMessage`
//   where the body never delivers `message_stop`): each `tool_use` block's
//   `input`. For the `.jsonl` stream, malformed on purpose, which that helper
//   cannot parse, the `partial_json` fragments concatenated, as it would.
//
// A call the stream cut (a Chat choice's last call under `length`; an
// unfinished or `incomplete` Responses item; the Anthropic block being
// written at `max_tokens`) must come back `complete: false`, with a `cut`
// reason, and arguments that keep all of the SDK's partial reading (the
// SDK's own vendored partial-JSON parser drops a cut string; argmend keeps
// it). Every other call must be `complete` with exactly the SDK's arguments
// where those are JSON. For the `.jsonl` streams the events must be the Rust
// adapter's (`<format>.events`), field for field. The same SDK objects are
// also pushed one at a time, and after every push each call's `value(call)`
// must be its snapshot parsed, a value once it starts, the value at each
// `field_done` path must be that event's value, and a call's last value
// must be its final `args`.

import { test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";

import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { partialParse as openaiPartialParse } from "openai/_vendor/partial-json-parser/parser";
import { partialParse as anthropicPartialParse } from "@anthropic-ai/sdk/_vendor/partial-json-parser/parser";

import { AnthropicStream, OpenAIChatStream, OpenAIResponsesStream, toolCalls } from "argmend";
import { SDK, bodyEvents, parseSse, recordings, serve } from "./recordings.js";
import { need, skipUnless } from "./shared.js";

const RECORDINGS = recordings();
const MESSAGES = [{ role: "user", content: "What's the weather?" }];

/**
 * Where an SDK's own stream helper cannot give its accumulation, by
 * recording and why. The test fails if a helper fails anywhere else, or
 * stops failing here (then this list is stale).
 */
const SDK_LIMITS = {
  // openai-node's ChatCompletionStream ends with "missing role for choice 0":
  // no delta of this Mistral stream says `role`. Its snapshot after the last
  // chunk is still read.
  "sdk/openai_chat/vercel-ai-mistral-incremental-tool-call.sse": "chat_missing_role",
  // The synthetic `response.created` has no `output` array; ResponseStream
  // accumulates into the created response and throws.
  "openai_responses.jsonl": "responses_no_output",
  // Malformed on purpose: MessageStream's partial parser throws on the
  // single-quoted arguments at `content_block_stop`.
  "anthropic.jsonl": "anthropic_malformed",
};

/** Counts for the summary test at the end (and the final report). */
const counts = { recordings: 0, sdkEvents: 0, calls: 0, checks: 0 };

function eq(actual, expected, message) {
  counts.checks++;
  assert.deepStrictEqual(actual, expected, message);
}

function ok(value, message) {
  counts.checks++;
  assert.ok(value, message);
}

// ---------------------------------------------------------------------------
// The SDKs, served the recorded bytes

// The body reaches the SDK in pieces of `chunkSize` bytes: the stream
// requests read 61 at a time, the helpers' 7, so the SDKs' SSE decoders
// meet lines, events and UTF-8 characters cut at different places.

function openaiClient(body, chunkSize = 61) {
  return new OpenAI({ apiKey: "test", baseURL: "http://test.invalid/v1", fetch: serve(body, { chunkSize }), maxRetries: 0 });
}

function anthropicClient(body, chunkSize = 61) {
  return new Anthropic({ apiKey: "test", baseURL: "http://test.invalid", fetch: serve(body, { chunkSize }), maxRetries: 0 });
}

/** The SDK's stream of the recording, from `create({stream: true})`. */
function create(recording, tools) {
  const extra = tools ? { tools } : {};
  if (recording.format === "anthropic") {
    return anthropicClient(recording.body).messages.create({ model: "claude-opus-4-6", max_tokens: 1024, messages: MESSAGES, stream: true, ...extra });
  }
  const client = openaiClient(recording.body);
  if (recording.format === "openai_chat") {
    return client.chat.completions.create({ model: "gpt-4.1", messages: MESSAGES, stream: true, ...extra });
  }
  return client.responses.create({ model: "gpt-5", input: "What's the weather?", stream: true, ...extra });
}

function adapterFor(format, options) {
  if (format === "openai_chat") return new OpenAIChatStream(options);
  if (format === "openai_responses") return new OpenAIResponsesStream(options);
  return new AnthropicStream(options);
}

/** Yields the stream's events and keeps them. */
async function* recorded(stream, into) {
  for await (const event of stream) {
    into.push(event);
    yield event;
  }
}

/** The SDK's objects, through `toolCalls`. */
async function replay(recording) {
  const sdkEvents = [];
  const events = [];
  const stream = await create(recording);
  for await (const event of toolCalls(recorded(stream, sdkEvents), adapterFor(recording.format))) events.push(event);
  return { sdkEvents, events };
}

// ---------------------------------------------------------------------------
// What the SDK makes of the stream (its own helpers)

function loads(raw) {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function partialOf(parse, raw) {
  try {
    return raw ? parse(raw) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * openai-node's accumulation: `chat.completions.stream()` iterated to the
 * end, its snapshot kept after each chunk (the helper clears it when its
 * end checks fail). Also returns the helper's chunks and its error, if any.
 */
async function chatHelper(recording) {
  const stream = openaiClient(recording.body, 7).chat.completions.stream({ model: "gpt-4.1", messages: MESSAGES });
  stream.on("error", () => {}); // the error is read from the iteration below
  const chunks = [];
  const events = [];
  let snapshot;
  let error;
  async function* snapshots() {
    for await (const chunk of stream) {
      chunks.push(chunk);
      snapshot = structuredClone(stream.currentChatCompletionSnapshot);
      yield chunk;
    }
  }
  try {
    for await (const event of toolCalls(snapshots(), adapterFor(recording.format))) events.push(event);
    const final = await stream.finalChatCompletion();
    // The helper's final completion is the snapshot it built.
    eq(
      final.choices.map((c) => (c.message.tool_calls ?? []).map((t) => t.function.arguments)),
      snapshot.choices.map((c) => (c.message.tool_calls ?? []).map((t) => t.function.arguments)),
      "finalChatCompletion() is the last snapshot",
    );
  } catch (e) {
    error = e;
  }
  return { chunks, events, snapshot, error };
}

function expectedChat(snapshot) {
  const out = [];
  for (const choice of snapshot?.choices ?? []) {
    const calls = choice.message.tool_calls ?? [];
    calls.forEach((call, n) => {
      const reason = choice.finish_reason;
      const cut = reason == null || ((reason === "length" || reason === "content_filter") && n === calls.length - 1);
      const raw = call.function.arguments;
      out.push({ id: call.id || null, name: call.function.name, raw, args: cut ? partialOf(openaiPartialParse, raw) : loads(raw), cut });
    });
  }
  return out;
}

/** The Responses oracle, from the SDK's event objects. */
function expectedResponses(sdkEvents) {
  const calls = new Map();
  for (const event of sdkEvents) {
    if ((event.type === "response.output_item.added" || event.type === "response.output_item.done") && event.item.type === "function_call") {
      if (!calls.has(event.item.id)) calls.set(event.item.id, { id: event.item.call_id, deltas: "", done: undefined, item: undefined });
      const call = calls.get(event.item.id);
      call.name = event.item.name;
      if (event.type === "response.output_item.done") call.item = event.item;
    } else if (event.type === "response.function_call_arguments.delta" && calls.has(event.item_id)) {
      calls.get(event.item_id).deltas += event.delta;
    } else if (event.type === "response.function_call_arguments.done" && calls.has(event.item_id)) {
      calls.get(event.item_id).done = event.arguments;
    }
  }
  return [...calls.values()].map((call) => {
    const { item, done } = call;
    const finished = item !== undefined || done !== undefined;
    const cut = !finished || item?.status === "incomplete";
    const raw = item ? item.arguments : done ?? call.deltas;
    return { id: call.id, name: call.name, raw, args: cut ? partialOf(openaiPartialParse, raw) : loads(raw), cut };
  });
}

/**
 * `responses.stream()`: argmend's events over it, and its final response
 * when it has one. The events go to the adapter as they arrive: the helper
 * accumulates into the `item` of the `response.output_item.added` it
 * yielded, so that object holds the whole arguments by the end.
 */
async function responsesHelper(recording) {
  const stream = openaiClient(recording.body, 7).responses.stream({ model: "gpt-5", input: "What's the weather?" });
  stream.on("error", () => {});
  const events = [];
  let final;
  let error;
  try {
    for await (const event of toolCalls(stream, adapterFor(recording.format))) events.push(event);
    final = await stream.finalResponse();
  } catch (e) {
    error = e;
  }
  return { events, final, error };
}

/** The indexes of the Anthropic blocks the stream cut: in a message
 * stopped by its output limit (or never stopped), the last block. */
function anthropicCutBlocks(sdkEvents) {
  let reason = null;
  let stopped = false;
  let last = null;
  for (const event of sdkEvents) {
    if (event.type === "message_start" && event.message.content.length) last = event.message.content.length - 1;
    else if (event.type === "content_block_start") last = event.index;
    else if (event.type === "message_delta" && event.delta.stop_reason) [reason, stopped] = [event.delta.stop_reason, true];
    else if (event.type === "message_stop") stopped = true;
  }
  const cut = !stopped || ["max_tokens", "model_context_window_exceeded", "refusal"].includes(reason);
  return cut && last !== null ? new Set([last]) : new Set();
}

/** `messages.stream()`: argmend's events over it, and its message (final,
 * or as it stood at the end when `message_stop` never came). */
async function anthropicHelper(recording) {
  const stream = anthropicClient(recording.body, 7).messages.stream({ model: "claude-opus-4-6", max_tokens: 1024, messages: MESSAGES });
  stream.on("error", () => {});
  const sdkEvents = [];
  const events = [];
  let message;
  let error;
  try {
    for await (const event of toolCalls(recorded(stream, sdkEvents), adapterFor(recording.format))) events.push(event);
    message = sdkEvents.some((e) => e.type === "message_stop") ? await stream.finalMessage() : stream.currentMessage;
  } catch (e) {
    error = e;
  }
  return { events, message, error };
}

function expectedAnthropic(message, sdkEvents) {
  const cutBlocks = anthropicCutBlocks(sdkEvents);
  if (message) {
    return message.content.flatMap((block, n) =>
      block.type === "tool_use" ? [{ id: block.id, name: block.name, raw: null, args: block.input, cut: cutBlocks.has(n) }] : [],
    );
  }
  // The helper could not parse it: the fragments, as it would concatenate them.
  const blocks = new Map();
  for (const event of sdkEvents) {
    if (event.type === "content_block_start" && event.content_block.type === "tool_use") {
      const block = event.content_block;
      blocks.set(event.index, { id: block.id, name: block.name, raw: "", cut: cutBlocks.has(event.index) });
    } else if (event.type === "content_block_delta" && event.delta.type === "input_json_delta" && blocks.has(event.index)) {
      blocks.get(event.index).raw += event.delta.partial_json;
    }
  }
  return [...blocks.values()].map((b) => ({ ...b, args: b.cut ? partialOf(anthropicPartialParse, b.raw) : loads(b.raw) }));
}

/** `got` keeps all that `want` (a partial value) has. */
function extendsValue(got, want) {
  if (Array.isArray(want)) return Array.isArray(got) && got.length >= want.length && want.every((w, i) => extendsValue(got[i], w));
  if (want !== null && typeof want === "object") {
    return got !== null && typeof got === "object" && !Array.isArray(got) && Object.entries(want).every(([k, v]) => k in got && extendsValue(got[k], v));
  }
  return isDeepStrictEqual(got, want);
}

// ---------------------------------------------------------------------------
// The checks

/** The fields of `got` that the Rust `.events` line has (fixes: theirs too). */
function project(got, want) {
  const out = {};
  for (const key of Object.keys(want)) {
    if (key === "fixes" && Array.isArray(want.fixes) && Array.isArray(got.fixes)) {
      out.fixes = got.fixes.map((fix, i) => (want.fixes[i] ? Object.fromEntries(Object.keys(want.fixes[i]).map((k) => [k, fix[k]])) : fix));
    } else {
      out[key] = got[key];
    }
  }
  return out;
}

function at(value, pointer) {
  let here = value;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    here = Array.isArray(here) ? here[Number(key)] : here?.[key];
  }
  return here;
}

/**
 * The SDK's objects pushed one at a time: after each push, every call's
 * live value against its snapshot, the `field_done` values against the
 * live value, and each call's last value against its final args.
 */
function pushOneByOne(format, sdkEvents) {
  const adapter = adapterFor(format);
  const events = [];
  const last = new Map();
  try {
    for (const sdkEvent of sdkEvents) {
      const pushed = adapter.push(sdkEvent);
      events.push(...pushed);
      for (let call = 0; call < adapter.calls; call++) {
        // A snapshot while the call is open ("" before its arguments
        // start); none once it ended, when the value is its args.
        const snapshot = adapter.snapshot(call);
        const value = adapter.value(call);
        const ended = events.find((e) => e.event === "call_done" && e.call === call);
        if (ended) {
          eq(snapshot, undefined, `call ${call}: no snapshot once it ended`);
          eq(value, ended.args, `call ${call}: value() is its args once it ended`);
        } else if (snapshot === "") {
          eq(value, undefined, `call ${call}: no value before its arguments start`);
          continue;
        } else {
          eq(value, JSON.parse(snapshot), `call ${call}: value() is snapshot() parsed`);
        }
        ok(value !== null && typeof value === "object", `call ${call}: the arguments are an object or array: ${JSON.stringify(value)}`);
        last.set(call, value);
      }
      for (const event of pushed) {
        if (event.event === "field_done") eq(at(adapter.value(event.call), event.path), event.value, `call ${event.call}: ${event.path} is final`);
        if (event.event === "call_done") eq(adapter.value(event.call), event.args, `call ${event.call}: value() is the args once done`);
      }
    }
    // Before the end: what finish() will close.
    const open = new Map([...last].filter(([call]) => !events.some((e) => e.event === "call_done" && e.call === call)));
    const end = adapter.finish();
    events.push(...end);
    for (const event of end) {
      if (event.event !== "call_done") continue;
      // The end only closes what is open: the last live value, as argmend
      // would close it, is the final args.
      if (open.has(event.call)) ok(extendsValue(event.args, open.get(event.call)), `call ${event.call}: the final args keep its last live value`);
    }
  } finally {
    adapter.free();
  }
  return { events, last };
}

function checkOrder(events) {
  const started = events.filter((e) => e.event === "call_started").map((e) => e.call);
  eq(started, started.map((_, i) => i + (started[0] ?? 0)), "calls are numbered in the order they start");
  const done = events.filter((e) => e.event === "call_done");
  eq(done.map((e) => e.call).sort((a, b) => a - b), [...started].sort((a, b) => a - b), "every call started ends once");
  const state = new Map();
  for (const event of events) {
    if (event.event === "call_started") {
      ok(!state.has(event.call), `call ${event.call} starts once`);
      state.set(event.call, "open");
    } else if (event.event === "call_done") {
      eq(state.get(event.call), "open", `call ${event.call} ends after it starts`);
      state.set(event.call, "done");
    } else if (event.event === "skipped") {
      ok(typeof event.kind === "string", `a skipped notice says what it skipped: ${JSON.stringify(event)}`);
    } else {
      eq(state.get(event.call), "open", `call ${event.call}: ${event.event} while it is open`);
    }
  }
}

function checkAgainstSdk(done, want, name) {
  eq(done.length, want.length, `${name}: one call_done per call the SDK accumulated`);
  done.forEach((got, i) => {
    const call = want[i];
    eq([got.id, got.name], [call.id, call.name], `${name}: call ${i}'s id and name`);
    counts.calls++;
    if (call.cut) {
      eq(got.complete, false, `${name}: call ${i} was cut: not complete`);
      ok(typeof got.cut === "string", `${name}: call ${i} says why it was cut`);
      if (call.args !== undefined) ok(extendsValue(got.args, call.args), `${name}: call ${i} keeps the SDK's partial value ${JSON.stringify(call.args)}: ${JSON.stringify(got.args)}`);
    } else if (call.args !== undefined) {
      eq(got.args, call.args, `${name}: call ${i}'s args are the SDK's`);
      eq(got.complete, true, `${name}: call ${i} is complete`);
    }
    if (got.complete && got.doubts.length === 0 && call.args !== undefined) {
      eq(got.args, call.args, `${name}: call ${i}: never other args than the SDK's reported complete without a doubt`);
    }
  });
}

/**
 * The SDK yields every event of the body but two kinds: a last one with no
 * blank line after it (the SSE spec dispatches an event at the blank line;
 * two anthropic-sdk-python fixtures end without one, so the JS SDK never
 * sees their `message_stop`), and Anthropic's `ping` (its Stream skips it).
 */
function checkSdkSawTheBody(recording, sdkEvents) {
  const text = new TextDecoder().decode(recording.body);
  let sent = bodyEvents(recording);
  if (!/\n\r?\n$/.test(text)) sent = sent.slice(0, -1);
  if (recording.format === "anthropic") sent = sent.filter((e) => e.type !== "ping");
  eq(sdkEvents.map((e) => e.type ?? e.object), sent.map((e) => e.type ?? e.object), "the SDK yielded each event of the body");
}

for (const recording of RECORDINGS) {
  test(`${recording.name}: through the ${recording.format === "anthropic" ? "Anthropic" : "OpenAI"} SDK`, async () => {
    counts.recordings++;
    const { sdkEvents, events } = await replay(recording);
    counts.sdkEvents += sdkEvents.length;
    ok(sdkEvents.length > 0, "the SDK yielded events");
    checkSdkSawTheBody(recording, sdkEvents);

    // The same objects, pushed one at a time: the same events, and live values.
    const pushed = pushOneByOne(recording.format, sdkEvents);
    eq(pushed.events, events, "push() one by one gives toolCalls()'s events");
    checkOrder(events);
    for (const event of events.filter((e) => e.event === "call_done")) {
      eq(pushed.last.get(event.call), event.args, `call ${event.call}: its last live value is its args`);
    }

    if (recording.expected) {
      eq(events.length, recording.expected.length, "as many events as the Rust adapter reports");
      events.forEach((got, i) => eq(project(got, recording.expected[i]), recording.expected[i], `event ${i} is the Rust adapter's`));
      ok(recording.expected.some((e) => e.cut) && recording.expected.some((e) => e.complete), "the recording has a cut call and a complete one");
    }

    // What the SDK's own helper makes of the same bytes.
    const done = events.filter((e) => e.event === "call_done");
    let want;
    let helper;
    if (recording.format === "openai_chat") {
      helper = await chatHelper(recording);
      ok(helper.snapshot !== undefined, "the helper accumulated the chunks");
      want = expectedChat(helper.snapshot);
      if (!helper.error) eq(helper.events, events, "toolCalls() over chat.completions.stream() gives the same events");
    } else if (recording.format === "openai_responses") {
      helper = await responsesHelper(recording);
      want = expectedResponses(sdkEvents);
      if (helper.final) {
        const items = helper.final.output.filter((item) => item.type === "function_call");
        eq(items.map((item) => loads(item.arguments)), want.map((call) => call.args), "finalResponse()'s function calls are the oracle's");
      }
      if (!helper.error) eq(helper.events, events, "toolCalls() over responses.stream() gives the same events");
    } else {
      helper = await anthropicHelper(recording);
      want = expectedAnthropic(helper.message, sdkEvents);
      if (!helper.error) eq(helper.events, events, "toolCalls() over messages.stream() gives the same events");
    }
    eq(helper.error ? SDK_LIMITS[recording.name] ?? `unexpected: ${helper.error.message}` : undefined, SDK_LIMITS[recording.name], "the SDK's helper fails only where SDK_LIMITS says");
    checkAgainstSdk(done, want, recording.name);
  });
}

// Without the SDKs' recordings the loop above ran argmend's own three; this
// says what did not run (or, under ARGMEND_REQUIRE_SHARED=1, fails).
if (!RECORDINGS.some((recording) => recording.name.startsWith("sdk/"))) {
  test("the SDKs' own recordings, through the SDKs", { skip: skipUnless(...SDK) }, () => {
    need(...SDK);
  });
}

test("every format has recordings, and each SDK file has a client tool call", async () => {
  eq(new Set(RECORDINGS.map((r) => r.format)), new Set(["openai_chat", "openai_responses", "anthropic"]), "three formats");
  const files = new Map();
  for (const recording of RECORDINGS) {
    const file = recording.name.split("#")[0];
    const { events } = await replay(recording);
    files.set(file, (files.get(file) ?? 0) + events.filter((e) => e.event === "call_done").length);
  }
  for (const [file, calls] of files) ok(calls > 0, `${file} has a tool call`);
});

test("the request's tools reach each call, through each SDK", async () => {
  // A write_file call with unescaped quotes in its content: right with the
  // request's tools (their keys and additionalProperties: false), a doubt
  // without them.
  const raw = '{"path": "a.py", "content": "d = {"a": 1, "path": 2}", "mode": "w"}';
  const truth = { path: "a.py", content: 'd = {"a": 1, "path": 2}', mode: "w" };
  const parameters = {
    type: "object",
    additionalProperties: false,
    required: ["path", "content"],
    properties: { path: { type: "string" }, content: { type: "string" }, mode: { type: "string" } },
  };
  const half = Math.floor(raw.length / 2);
  const chunk = (delta, finish = null) => ({ object: "chat.completion.chunk", id: "c", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] });
  const chat = [
    chunk({ role: "assistant", tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "write_file", arguments: raw.slice(0, half) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: raw.slice(half) } }] }),
    chunk({}, "tool_calls"),
  ];
  const item = { type: "function_call", id: "fc_1", call_id: "call_1", name: "write_file", arguments: "" };
  const responses = [
    { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress" } },
    { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: raw.slice(0, half) },
    { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 0, delta: raw.slice(half) },
    { type: "response.output_item.done", output_index: 0, item: { ...item, arguments: raw, status: "completed" } },
  ];
  const messages = [
    { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "write_file", input: {} } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: raw.slice(0, half) } },
    { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: raw.slice(half) } },
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
    { type: "message_stop" },
  ];
  const sse = (events, named) => new TextEncoder().encode(events.map((e) => `${named ? `event: ${e.type}\n` : ""}data: ${JSON.stringify(e)}\n\n`).join("") + (named ? "" : "data: [DONE]\n\n"));
  const cases = [
    { format: "openai_chat", body: sse(chat, false), tools: [{ type: "function", function: { name: "write_file", parameters } }] },
    { format: "openai_responses", body: sse(responses, true), tools: [{ type: "function", name: "write_file", parameters }] },
    { format: "anthropic", body: sse(messages, true), tools: [{ name: "write_file", input_schema: parameters }] },
  ];
  for (const { format, body, tools } of cases) {
    const recording = { name: format, format, body };
    const withTools = [];
    for await (const event of toolCalls(await create(recording, tools), adapterFor(format, { tools }))) withTools.push(event);
    const [end] = withTools.filter((e) => e.event === "call_done");
    eq([end.args, end.complete, end.doubts], [truth, true, []], `${format}: with the request's tools`);
    const without = [];
    for await (const event of toolCalls(await create(recording), adapterFor(format))) without.push(event);
    const [bare] = without.filter((e) => e.event === "call_done");
    ok(!isDeepStrictEqual(bare.args, truth) && bare.doubts.length > 0, `${format}: without them, other args only with a doubt`);
  }
});

test("the SDK got the request argmend's caller made (the fetch option is the only transport)", async () => {
  const [recording] = RECORDINGS;
  const fetch = serve(recording.body);
  const client = new OpenAI({ apiKey: "test", baseURL: "http://test.invalid/v1", fetch, maxRetries: 0 });
  const stream = await client.chat.completions.create({ model: "gpt-4.1", messages: MESSAGES, stream: true });
  for await (const _ of stream);
  eq(fetch.requests.length, 1, "one request");
  eq(fetch.requests[0].url, "http://test.invalid/v1/chat/completions", "to the chat endpoint");
  eq(JSON.parse(fetch.requests[0].body).stream, true, "asking for a stream");
});

test("counts", (t) => {
  t.diagnostic(`${counts.recordings} recordings, ${counts.sdkEvents} SDK events, ${counts.calls} calls compared, ${counts.checks} checks`);
  ok(counts.recordings === RECORDINGS.length, "every recording ran");
});
