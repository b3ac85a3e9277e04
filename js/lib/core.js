// argmend's JavaScript API over the WebAssembly module (dist/argmend_wasm.js).
//
// This file uses no Node-only API: it runs in browsers, Deno, Bun, edge
// runtimes and Node alike. Node's entry (node.js) loads the module from disk
// at import time; everywhere else, `await init()` once before the first call
// (it fetches `argmend_wasm_bg.wasm` beside this package, or takes the URL,
// bytes or `WebAssembly.Module` you give it).
//
// The module's exports take and return strings; anything structured comes
// back as JSON text and is parsed here (see js/src/lib.rs for why).

import wasmInit, * as wasm from "../dist/argmend_wasm.js";

let ready = false;
let initializing = null;
/** The module's linear memory, once loaded (for `wasmMemoryBytes`). */
let memory = null;

/**
 * Load the WebAssembly module. Idempotent: later calls return the first
 * call's promise. In Node the module is already loaded when `argmend` is
 * imported, and this resolves at once.
 *
 * @param {URL | string | Request | Response | BufferSource | WebAssembly.Module} [source]
 *   Where the `.wasm` is; by default `argmend_wasm_bg.wasm` beside this package.
 */
export function init(source) {
  if (ready) return Promise.resolve();
  if (!initializing) {
    const arg = source === undefined ? undefined : { module_or_path: source };
    initializing = wasmInit(arg).then(
      (exports) => {
        memory = exports.memory;
        ready = true;
      },
      (error) => {
        initializing = null;
        throw new ArgmendError("init_failed", `argmend: could not load its WebAssembly module: ${error?.message ?? error}`, { cause: error });
      },
    );
  }
  return initializing;
}

/**
 * Load the WebAssembly module synchronously from its bytes or a compiled
 * `WebAssembly.Module` (what an edge runtime's `import wasm from "….wasm"` gives).
 *
 * @param {BufferSource | WebAssembly.Module} bytesOrModule
 */
export function initSync(bytesOrModule) {
  if (ready) return;
  memory = wasm.initSync({ module: bytesOrModule }).memory;
  ready = true;
}

/**
 * The size of the WebAssembly module's memory, in bytes. WebAssembly memory
 * only grows, so a leak shows as this number climbing while a stream runs:
 * the tests read it, and so can you.
 */
export function wasmMemoryBytes() {
  ensureReady();
  return memory.buffer.byteLength;
}

/** Whether the WebAssembly module is loaded. */
export function isReady() {
  return ready;
}

function ensureReady() {
  if (!ready) {
    throw new ArgmendError(
      "not_initialized",
      "argmend: call `await init()` before the first use (Node loads it on import; browsers, Deno and edge runtimes need init)",
    );
  }
}

/**
 * An error of argmend's: a limit crossed (`too_deep`, `too_large`), a bad
 * argument (`invalid_argument`), a stream used after `finish()`
 * (`finished`), or the module not loaded (`not_initialized`, `init_failed`).
 */
export class ArgmendError extends Error {
  /**
   * @param {string} kind
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(kind, message, options) {
    super(message, options);
    this.name = "ArgmendError";
    /** The error's kind, a stable snake_case name. */
    this.kind = kind;
  }
}

/** The module's errors are JSON strings `{"kind", "message"}`. */
function rethrow(error) {
  if (typeof error === "string" && error.startsWith("{")) {
    const { kind, message } = JSON.parse(error);
    throw new ArgmendError(kind, message);
  }
  throw error;
}

function call(fn) {
  ensureReady();
  try {
    return fn();
  } catch (error) {
    rethrow(error);
  }
}

function invalid(message) {
  return new ArgmendError("invalid_argument", message);
}

const REPAIR_OPTIONS = new Set(["maxDepth", "maxInputBytes", "values", "schema", "fields"]);
const TOOL_OPTIONS = new Set(["schema", "tools", "dropUnknownKeys", "maxDepth", "maxInputBytes"]);

/** Options as the module takes them: JSON text, "" for none. */
function encodeOptions(options, allowed, what) {
  if (options === undefined || options === null) return "";
  if (typeof options !== "object" || Array.isArray(options)) {
    throw invalid(`${what}: options must be an object`);
  }
  let empty = true;
  for (const key of Object.keys(options)) {
    if (!allowed.has(key)) {
      throw invalid(`${what}: unknown option ${JSON.stringify(key)} (known: ${[...allowed].join(", ")})`);
    }
    if (options[key] !== undefined) empty = false;
  }
  return empty ? "" : JSON.stringify(options);
}

function isBytes(input) {
  return input instanceof Uint8Array;
}

function checkInput(input, what) {
  if (typeof input !== "string" && !isBytes(input)) {
    throw invalid(`${what} must be a string or a Uint8Array, not ${describe(input)}`);
  }
}

function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return value.constructor?.name ?? "an object";
  return typeof value;
}

function outcome(text) {
  const meta = JSON.parse(wasm.take_meta());
  const result = { text, verdict: meta.verdict, fixes: meta.fixes, doubts: meta.doubts };
  if (meta.reason !== undefined) result.reason = meta.reason;
  return result;
}

/**
 * Repair one whole input.
 *
 * @param {string | Uint8Array} input broken JSON (a Uint8Array is UTF-8)
 * @param {import("./index.d.ts").RepairOptions} [options]
 * @returns {import("./index.d.ts").Outcome} `{text, verdict, fixes, doubts}`;
 *   offsets count UTF-16 code units of a string input, bytes of a Uint8Array.
 * @example
 * repair("{name: 'John', tags: ['a', 'b',]}").text
 * // '{"name": "John", "tags": ["a", "b"]}'
 */
export function repair(input, options) {
  checkInput(input, "repair: input");
  const encoded = encodeOptions(options, REPAIR_OPTIONS, "repair");
  return call(() =>
    outcome(typeof input === "string" ? wasm.repair_str(input, encoded) : wasm.repair_bytes(input, encoded)),
  );
}

/**
 * A string chunk, after what the last one held back, split into what can be
 * fed now and what is held: a high surrogate that ends it, whose pair is in
 * the next chunk (the module takes whole characters). `[text, held]`.
 */
function holdHighSurrogate(held, chunk) {
  const text = held === "" ? chunk : held + chunk;
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? [text.slice(0, -1), text.slice(-1)] : [text, ""];
}

/**
 * A streaming repair: feed chunks as they arrive, read the committed text
 * and a valid-JSON snapshot after each, then finish.
 *
 * Chunks may be strings or Uint8Arrays (UTF-8), cut anywhere: inside a
 * character, a surrogate pair or an escape. Committed text never changes,
 * and the result is the same however the input was cut.
 *
 * `finish()` frees the WebAssembly memory; a Repairer dropped without it is
 * freed by a FinalizationRegistry.
 */
export class Repairer {
  #raw;
  #text = "";
  #pending = "";
  #finished = false;
  /** The snapshot's tail for the input fed so far, or null when not known. */
  #tail = null;
  /**
   * Whether `snapshot()` was called since the last chunk. A caller that
   * takes a snapshot after every chunk gets the tail with the chunk, in one
   * call into the module instead of two (the crossings cost more than the
   * engine on small chunks); one that never does pays nothing for it.
   */
  #snapshotting = false;

  /** @param {import("./index.d.ts").RepairerOptions} [options] */
  constructor(options) {
    const encoded = encodeOptions(options, REPAIR_OPTIONS, "Repairer");
    this.#raw = call(() => new wasm.RawRepairer(encoded));
  }

  #live() {
    if (this.#finished) throw new ArgmendError("finished", "this Repairer has finished");
    return this.#raw;
  }

  /**
   * Feed the next chunk; returns the text it newly committed.
   * @param {string | Uint8Array} chunk
   * @returns {string}
   */
  feed(chunk) {
    // The hot path of a stream (a call per model token): no closure, no
    // check that the module is loaded (this Repairer's existence says so).
    if (this.#finished) throw new ArgmendError("finished", "this Repairer has finished");
    const raw = this.#raw;
    let committed;
    if (typeof chunk === "string") {
      const [text, held] = holdHighSurrogate(this.#pending, chunk);
      this.#pending = held;
      if (text.length === 0) return "";
      try {
        if (this.#snapshotting) {
          // See RawRepairer::feed_str_coded: strings cross only when
          // JavaScript does not have them already.
          const code = raw.feed_str_coded(text);
          const kind = code & 3;
          committed = kind === 1 ? text.slice(0, code >>> 3) : kind === 2 ? raw.take_text() : "";
          if ((code & 4) === 0 || this.#tail === null) this.#tail = raw.take_tail();
        } else {
          committed = raw.feed_str(text);
          this.#tail = null;
        }
      } catch (error) {
        this.#tail = null;
        rethrow(error);
      }
      this.#snapshotting = false;
    } else {
      checkInput(chunk, "Repairer.feed: chunk");
      this.#flushPending(raw);
      this.#tail = null;
      committed = call(() => raw.feed_bytes(chunk));
    }
    this.#text += committed;
    return committed;
  }

  /** A high surrogate held back is fed alone before bytes or at the end. */
  #flushPending(raw) {
    if (this.#pending) {
      const pending = this.#pending;
      this.#pending = "";
      this.#tail = null;
      this.#text += call(() => raw.feed_str(pending));
    }
  }

  /** Everything committed so far (a prefix of the final text). */
  get text() {
    return this.#text;
  }

  /**
   * Valid JSON of everything fed so far: the committed text and what closes
   * it. Empty before a value starts.
   * @returns {string}
   */
  snapshot() {
    const raw = this.#live();
    this.#snapshotting = true;
    if (this.#tail === null) this.#tail = call(() => raw.snapshot_tail());
    return this.#text + this.#tail;
  }

  /**
   * Hand out the fixes made so far that no later input can undo; `finish()`
   * then reports only the rest. A long stream that calls this after each
   * chunk keeps the module's memory flat.
   * @returns {import("./index.d.ts").Fix[]}
   */
  takeFixes() {
    const raw = this.#live();
    return JSON.parse(call(() => raw.take_fixes()));
  }

  /** Input bytes (UTF-8) fed so far. */
  get bytesFed() {
    return this.#finished ? 0 : this.#raw.bytes_fed();
  }

  /**
   * End the input: close what is open and return the outcome. Frees the
   * WebAssembly memory; every later call throws `ArgmendError` (`finished`).
   * @returns {import("./index.d.ts").Outcome}
   */
  finish() {
    const raw = this.#live();
    try {
      this.#flushPending(raw);
      const rest = call(() => raw.finish());
      const result = outcome(this.#text + rest);
      this.#text = result.text;
      return result;
    } finally {
      this.#finished = true;
      raw.free();
    }
  }

  /** Free the WebAssembly memory without finishing (`using` calls this). */
  free() {
    if (!this.#finished) {
      this.#finished = true;
      this.#raw.free();
    }
  }

  [Symbol.dispose ?? Symbol.for("Symbol.dispose")]() {
    this.free();
  }
}

function parseJson(text) {
  return text === undefined ? undefined : JSON.parse(text);
}

function checkName(name, what) {
  if (typeof name !== "string") throw invalid(`${what}: the tool name must be a string, not ${describe(name)}`);
}

/**
 * Normalize one call's raw arguments with the tool's name and JSON Schema:
 * a bare value goes to the field it belongs to, code with unescaped quotes
 * in a declared string field stays whole, types are coerced to the schema's.
 *
 * @param {string} tool the tool's name
 * @param {string} raw the raw arguments as the model wrote them
 * @param {object | boolean} [schema] the tool's JSON Schema
 * @param {import("./index.d.ts").ToolOptions} [options] `dropUnknownKeys`, `tools`, limits
 * @returns {import("./index.d.ts").Normalized}
 * @example
 * normalizeToolArgs("read_file", "main.go").args // { file: "main.go" }
 */
export function normalizeToolArgs(tool, raw, schema, options) {
  checkName(tool, "normalizeToolArgs");
  if (typeof raw !== "string") throw invalid(`normalizeToolArgs: raw must be a string, not ${describe(raw)}`);
  const all = schema === undefined || schema === null ? options : { ...options, schema };
  const encoded = encodeOptions(all, TOOL_OPTIONS, "normalizeToolArgs");
  const result = JSON.parse(call(() => wasm.normalize_tool_args(tool, raw, encoded)));
  result.args = result.verdict === "not_json" ? null : JSON.parse(result.text);
  return result;
}

/**
 * One tool call's arguments as a model streams them: after each fragment,
 * the committed text, the field events (a value started, a string grew, a
 * value is final) and the value so far; at the end, the mended arguments
 * and whether the call arrived whole.
 */
export class ToolCallStream {
  #raw;
  #pending = "";
  #finished = false;
  /** The tool's name. */
  name;

  /**
   * @param {string} name the tool's name
   * @param {import("./index.d.ts").ToolOptions} [options] `schema`, `tools`, `dropUnknownKeys`, limits
   */
  constructor(name, options) {
    checkName(name, "ToolCallStream");
    const encoded = encodeOptions(options, TOOL_OPTIONS, "ToolCallStream");
    this.#raw = call(() => new wasm.RawToolCall(name, encoded));
    this.name = name;
  }

  #live() {
    if (this.#finished) throw new ArgmendError("finished", "this ToolCallStream has finished");
    return this.#raw;
  }

  /**
   * Feed the next fragment of the arguments.
   * @param {string | Uint8Array} fragment
   * @returns {import("./index.d.ts").ArgsUpdate} `{committed, events}`
   */
  feed(fragment) {
    checkInput(fragment, "ToolCallStream.feed: fragment");
    const raw = this.#live();
    if (typeof fragment === "string") {
      const [text, held] = holdHighSurrogate(this.#pending, fragment);
      this.#pending = held;
      if (text.length === 0) return { committed: "", events: [] };
      return JSON.parse(call(() => raw.feed_str(text)));
    }
    const update = this.#flushPending(raw);
    const next = JSON.parse(call(() => raw.feed_bytes(fragment)));
    return update ? { committed: update.committed + next.committed, events: [...update.events, ...next.events] } : next;
  }

  #flushPending(raw) {
    if (!this.#pending) return null;
    const pending = this.#pending;
    this.#pending = "";
    return JSON.parse(call(() => raw.feed_str(pending)));
  }

  /** Valid JSON of the arguments so far ("" before they start). */
  snapshot() {
    return this.#live().snapshot();
  }

  /**
   * The arguments so far as a value (`undefined` before they start): the
   * snapshot, parsed by `JSON.parse`, so it is exactly the value a caller
   * who parses `snapshot()` gets (a number such as `1e999` is `Infinity`).
   */
  value() {
    const snapshot = this.#live().snapshot();
    return snapshot === "" ? undefined : JSON.parse(snapshot);
  }

  /**
   * End the arguments. Frees the WebAssembly memory.
   * @returns {import("./index.d.ts").CallEnd}
   */
  finish() {
    const raw = this.#live();
    try {
      const first = this.#flushPending(raw);
      const end = JSON.parse(call(() => raw.finish()));
      // The text parsed here, as `value()` is: JSON.parse's own numbers.
      end.args = end.verdict === "not_json" ? null : JSON.parse(end.text);
      if (first) end.events = [...first.events, ...end.events];
      return end;
    } finally {
      this.#finished = true;
      raw.free();
    }
  }

  /** Free the WebAssembly memory without finishing. */
  free() {
    if (!this.#finished) {
      this.#finished = true;
      this.#raw.free();
    }
  }

  [Symbol.dispose ?? Symbol.for("Symbol.dispose")]() {
    this.free();
  }
}

/** The engine's adapters, behind one class per stream format. */
class StreamAdapter {
  #raw;
  #finished = false;

  constructor(kind, options, what) {
    const encoded = encodeOptions(options, TOOL_OPTIONS, what);
    this.#raw = call(() => new wasm.RawAdapter(kind, encoded));
  }

  #live() {
    if (this.#finished) throw new ArgmendError("finished", "this stream adapter has finished");
    return this.#raw;
  }

  /**
   * Push one event of the SDK's stream, as the SDK yields it (a plain
   * object, or its JSON text); returns argmend's events for it.
   * @param {object | string} event
   * @returns {import("./index.d.ts").ClientEvent[]}
   */
  push(event) {
    const raw = this.#live();
    const text = typeof event === "string" ? event : JSON.stringify(event);
    if (text === undefined) throw invalid(`push: the event must be an object, not ${describe(event)}`);
    return JSON.parse(call(() => raw.push(text)));
  }

  /**
   * End the stream: calls still open end here, marked cut. Frees the
   * WebAssembly memory.
   * @returns {import("./index.d.ts").ClientEvent[]}
   */
  finish() {
    const raw = this.#live();
    try {
      return JSON.parse(call(() => raw.finish()));
    } finally {
      this.#finished = true;
      raw.free();
    }
  }

  /** The number of calls seen so far. */
  get calls() {
    return this.#finished ? 0 : this.#raw.calls();
  }

  /** Call `call`'s arguments now, as a value (`undefined` before they start). */
  value(call) {
    return parseJson(this.#live().value(call));
  }

  /** Call `call`'s snapshot while it streams. */
  snapshot(call) {
    return this.#live().snapshot(call);
  }

  /** The model's id for call `call`. */
  id(call) {
    return this.#live().id(call);
  }

  /** The tool's name of call `call`. */
  name(call) {
    return this.#live().name(call);
  }

  /** Free the WebAssembly memory without finishing. */
  free() {
    if (!this.#finished) {
      this.#finished = true;
      this.#raw.free();
    }
  }

  [Symbol.dispose ?? Symbol.for("Symbol.dispose")]() {
    this.free();
  }
}

/**
 * OpenAI Chat Completions: push each `ChatCompletionChunk`
 * (`client.chat.completions.create({stream: true, …})`).
 */
export class OpenAIChatStream extends StreamAdapter {
  /** @param {import("./index.d.ts").ToolOptions} [options] `tools`: the request's tools */
  constructor(options) {
    super("chat", options, "OpenAIChatStream");
  }
}

/**
 * OpenAI Responses: push each stream event
 * (`client.responses.create({stream: true, …})`).
 * Push each event as the SDK yields it: `client.responses.stream()` writes
 * the arguments into the `item` of the `response.output_item.added` event it
 * already yielded, so an event kept and pushed later holds text the deltas
 * send again (same args, but a spurious `final_text` fix).
 */
export class OpenAIResponsesStream extends StreamAdapter {
  /** @param {import("./index.d.ts").ToolOptions} [options] `tools`: the request's tools */
  constructor(options) {
    super("responses", options, "OpenAIResponsesStream");
  }
}

/**
 * Anthropic Messages: push each `MessageStreamEvent`
 * (`client.messages.create({stream: true, …})` or `client.messages.stream(…)`).
 */
export class AnthropicStream extends StreamAdapter {
  /** @param {import("./index.d.ts").ToolOptions} [options] `tools`: the request's tools */
  constructor(options) {
    super("anthropic", options, "AnthropicStream");
  }
}

/**
 * The tool calls a model writes in its text, found as the text streams and
 * mended as they arrive, in argmend's forms and every open-weight format:
 * `new CallParser({format: "qwen3_coder"})` (`CallParser.formats()` names
 * them: `"kimi_k2"`, `"gpt_oss"`, `"deepseek_v3"`, `"glm45"`, `"pythonic"`,
 * …), or, without `format`, argmend's forms, Hermes, Llama 3 and Mistral,
 * and the first marker only one format writes switches to it. `tools` (the
 * request's tools) gives each call its tool's JSON Schema; parameters
 * written as text take its types.
 *
 * `feed(text)` and `finish()` return the stream adapters' events
 * (`call_started`, `delta`, `field_done`, `call_done` with the mended
 * `args` and `complete`; `skipped`) and `{event: "text", text}` for the
 * text around the calls. A call the text cuts off ends with
 * `complete: false` and `cut: "stream_ended"`.
 */
export class CallParser {
  #raw;
  #pending = "";
  #finished = false;
  /** The format chosen, or `undefined`. */
  format;

  /**
   * @param {import("./index.d.ts").CallParserOptions} [options] `format`, `tools`, `schema`, `dropUnknownKeys`, limits
   */
  constructor(options) {
    const { format, ...rest } = options ?? {};
    if (format !== undefined && typeof format !== "string") {
      throw invalid(`CallParser: format must be a string, not ${describe(format)}`);
    }
    const encoded = encodeOptions(options === undefined ? undefined : rest, TOOL_OPTIONS, "CallParser");
    this.#raw = call(() => new wasm.RawCallParser(format ?? "", encoded));
    this.format = format;
  }

  /** The names of the formats `format` takes. */
  static formats() {
    ensureReady();
    return JSON.parse(wasm.RawCallParser.formats());
  }

  #live() {
    if (this.#finished) throw new ArgmendError("finished", "this CallParser has finished");
    return this.#raw;
  }

  /**
   * Feed the next chunk of the model's text (a string, or UTF-8 bytes cut
   * anywhere); returns the events it completed.
   * @param {string | Uint8Array} chunk
   * @returns {import("./index.d.ts").ParserEvent[]}
   */
  feed(chunk) {
    checkInput(chunk, "CallParser.feed: chunk");
    const raw = this.#live();
    if (typeof chunk === "string") {
      const [text, held] = holdHighSurrogate(this.#pending, chunk);
      this.#pending = held;
      if (text.length === 0) return [];
      return JSON.parse(call(() => raw.feed(text)));
    }
    const first = this.#flushPending(raw);
    return [...first, ...JSON.parse(call(() => raw.feed_bytes(chunk)))];
  }

  #flushPending(raw) {
    if (!this.#pending) return [];
    const pending = this.#pending;
    this.#pending = "";
    return JSON.parse(call(() => raw.feed(pending)));
  }

  /**
   * End the text: a call it cut off ends, not complete. Frees the
   * WebAssembly memory.
   * @returns {import("./index.d.ts").ParserEvent[]}
   */
  finish() {
    const raw = this.#live();
    try {
      const first = this.#flushPending(raw);
      return [...first, ...JSON.parse(call(() => raw.finish()))];
    } finally {
      this.#finished = true;
      raw.free();
    }
  }

  /** The number of calls seen so far. */
  get calls() {
    return this.#finished ? 0 : this.#raw.calls();
  }

  /** Call `call`'s arguments now, as a value (`undefined` before they start). */
  value(call) {
    return parseJson(this.#live().value(call));
  }

  /** The tool's name of call `call`. */
  name(call) {
    return this.#live().name(call);
  }

  /** Free the WebAssembly memory without finishing. */
  free() {
    if (!this.#finished) {
      this.#finished = true;
      this.#raw.free();
    }
  }

  [Symbol.dispose ?? Symbol.for("Symbol.dispose")]() {
    this.free();
  }
}

/**
 * Run an adapter over a whole SDK stream: yields argmend's events as the
 * SDK's events arrive, then the events of the end (calls cut short are
 * marked). The adapter is finished (and freed) when the loop ends, even early.
 *
 * @param {AsyncIterable<object> | Iterable<object>} events the SDK's stream
 * @param {StreamAdapter} adapter an OpenAIChatStream, OpenAIResponsesStream or AnthropicStream
 * @returns {AsyncGenerator<import("./index.d.ts").ClientEvent>}
 */
export async function* toolCalls(events, adapter) {
  if (!(adapter instanceof StreamAdapter)) {
    throw invalid("toolCalls: the adapter must be an OpenAIChatStream, OpenAIResponsesStream or AnthropicStream");
  }
  let ended = false;
  try {
    for await (const event of events) yield* adapter.push(event);
    ended = true;
    yield* adapter.finish();
  } finally {
    if (!ended) adapter.free();
  }
}

/** The engine's version. */
export function version() {
  ensureReady();
  return wasm.version();
}

// For the drop-ins in this package (jsonrepair.js, partial-json.js).
export const internal = { call, wasm, ensureReady, invalid, describe };
