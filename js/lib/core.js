// argmend's JavaScript API over the WebAssembly module (dist/argmend_wasm.js).
//
// This file uses no Node-only API: it runs in browsers, Deno, Bun, edge
// runtimes and Node alike. Node's entry (node.js) loads the module from disk
// at import time; everywhere else, `await init()` once before the first call
// (it fetches `argmend_wasm_bg.wasm` beside this package, or takes the URL,
// bytes or `WebAssembly.Module` you give it).
//
// The module's exports take and return strings; anything structured comes
// back as JSON text and is parsed here (see js/src/lib.rs for why). The
// one-shot calls (`repair`, the jsonrepair drop-in) go through the module's
// memory instead (js/src/oneshot.rs): the input's UTF-8 is written there,
// and the answer is read from there.

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

// ------------------------------------------------------------ the one-shot path
//
// js/src/oneshot.rs says why and what: JavaScript writes the input's UTF-8
// into the module's input buffer, the call returns a code, and the answer is
// read from the module's memory at the places its header gives.

/** Codes of `jsonrepair_input` and `repair_input` (oneshot.rs). */
const NOT_JSON = 0;
const INPUT = 1;
const TEXT = 3;
const WIDE = 4;
/** `RawRepairer.feed_input_coded`'s answer when it throws (stream.rs). */
const FAILED = 0xffffffff;
/** Their flags. */
const FROM_BYTES = 1;
const ASCII = 2;
const WIDE_OK = 4;
/** The header's fields (oneshot.rs `Field`). */
const PIECES_AT = 0;
const PIECES_LEN = 1;
// (The bytes at BYTES_AT: where, how many, whether ASCII; read by bytesAt.)
const BYTES_AT = 2;
const META_AT = 5;
const META_LEN = 6;
const WIDE_AT = 7;
const WIDE_LEN = 8;
// (A stream's tail: the same three fields, from 9 on.)
const TAIL_AT = 9;

const encoder = new TextEncoder();
// As wasm-bindgen's glue decodes: a byte order mark is text, kept.
const DECODER_OPTIONS = { ignoreBOM: true };
let utf8 = new TextDecoder("utf-8", DECODER_OPTIONS);
let utf16 = wideDecoder();
/** Safari's TextDecoder fails past 2 GiB decoded (wasm-bindgen's workaround). */
let decoded = 0;

function wideDecoder() {
  try {
    return new TextDecoder("utf-16le", DECODER_OPTIONS);
  } catch {
    return null; // a runtime with UTF-8 only: the module answers in UTF-8
  }
}

/** Counts bytes decoded, and makes the decoders anew every 2 GiB. */
function decoding(len) {
  decoded += len;
  if (decoded >= 2146435072) {
    utf8 = new TextDecoder("utf-8", DECODER_OPTIONS);
    utf16 = wideDecoder();
    decoded = len;
  }
}

/**
 * Node's `Buffer` class, when the entry point (node.js) hands it over:
 * `Buffer` turns ASCII and UTF-16 into strings several times faster than
 * `TextDecoder` does (js/src/utf16.rs). Everywhere else, null.
 */
let NodeBuffer = null;

/** Views of the module's memory, made again when it grows (which detaches them). */
let u8 = null;
let u32 = null;
let buffer = null;
/** The header's index in `u32`. */
let head = -1;

function views() {
  if (u8 === null || u8.byteLength === 0) {
    u8 = new Uint8Array(memory.buffer);
    u32 = new Uint32Array(memory.buffer);
    buffer = NodeBuffer === null ? null : NodeBuffer.from(memory.buffer);
    if (head < 0) head = wasm.header() >>> 2;
  }
}

/**
 * The input buffer's address, and how many bytes it holds at least, as the
 * last `input_buffer` call left it (`input_from_utf16` rewrites the buffer:
 * then `inputHeld` is 0). A stream writes every chunk there: asking the
 * module each time cost a call per chunk.
 */
let inputAt = 0;
let inputHeld = 0;

/**
 * Room for `n` bytes of input (`input_buffer`), asked of the module only
 * when the room held is too small, or so big that the module should give
 * it back (oneshot.rs `KEEP`).
 */
function inputBuffer(n) {
  if (n > inputHeld || inputHeld > INPUT_KEPT) {
    inputAt = wasm.input_buffer(n);
    inputHeld = n;
  }
  return inputAt;
}

/** Past this many bytes the room is asked for every time (see inputBuffer). */
const INPUT_KEPT = 1 << 16;

/** Whether the last string `putString` wrote was all ASCII. */
let putAscii = false;

/** Strings up to this length are written (and literal text read) by a loop. */
const SHORT = 32;

/**
 * Write `text`'s UTF-8 into the module's input buffer; returns its length
 * in bytes (and sets `putAscii`), in one `encodeInto` (wasm-bindgen's own
 * passing loops over an ASCII prefix in JavaScript, 30 times slower). Room
 * for the most the text can take (3 bytes a unit) up to ROOM; a longer
 * text gets room for one byte a unit, then for the rest if it is not ASCII.
 */
function putString(text) {
  const n = text.length;
  if (n <= SHORT) {
    // A short string: a loop costs less than encodeInto's call.
    const at = inputBuffer(n);
    views();
    let i = 0;
    for (; i < n; i++) {
      const unit = text.charCodeAt(i);
      if (unit > 0x7f) break;
      u8[at + i] = unit;
    }
    if (i === n) {
      putAscii = true;
      return n;
    }
  }
  if (NodeBuffer !== null) {
    // Node: the string's UTF-16 units copied out by Buffer (ucs2Write, 10
    // times faster than encodeInto on a string that is not all ASCII), and
    // made UTF-8 in the module.
    const wideAt = wasm.wide_input_buffer(n);
    views();
    buffer.ucs2Write(text, wideAt, 2 * n);
    const len = wasm.input_from_utf16(n);
    inputHeld = 0;
    putAscii = len < 0;
    return Math.abs(len);
  }
  const room = n <= ROOM ? 3 * n : n;
  let at = inputBuffer(room);
  views();
  let { read, written } = encoder.encodeInto(text, u8.subarray(at, at + room));
  // One byte a unit, all of it: ASCII (any other unit takes 2 or 3 bytes).
  putAscii = read === n && written === n;
  if (read < n) {
    // The rest takes at most 3 bytes a unit (a pair of 2 takes 4).
    const rest = (n - read) * 3;
    at = inputBuffer(written + rest);
    views();
    written += encoder.encodeInto(text.slice(read), u8.subarray(at + written, at + written + rest)).written;
  }
  return written;
}

/** See putString. */
const ROOM = 1 << 18;

/** Whether UTF-16 answers are asked for (the tests turn them off). */
let wideAnswers = true;

/** The flags every one-shot call passes: can this runtime decode UTF-16? */
function wideFlag() {
  return wideAnswers && (NodeBuffer !== null || utf16 !== null) ? WIDE_OK : 0;
}

/** The answer's UTF-8 bytes (a `TEXT` answer, or the literal text of pieces), decoded. */
function answerBytes() {
  return bytesAt(BYTES_AT);
}

/**
 * The UTF-8 text the header's fields from `field` on point at (where, how
 * many bytes, whether all ASCII: the bytes fields, or a stream's tail),
 * decoded. The caller has made the views anew since the module was called.
 */
function bytesAt(field) {
  const at = u32[head + field];
  const len = u32[head + field + 1];
  if (u32[head + field + 2] === 1) {
    // ASCII (Node 20, a string a call): up to 8 bytes a loop of
    // `fromCharCode` is quickest (27 ns for 4); past that Node's
    // `latin1Slice` (57 ns for 18 bytes, where the loop took 139), and
    // elsewhere one `fromCharCode` of the codes (67 ns).
    if (len <= 8) {
      let text = "";
      for (let i = at; i < at + len; i++) text += String.fromCharCode(u8[i]);
      return text;
    }
    if (buffer !== null) return buffer.latin1Slice(at, at + len);
    if (len <= SHORT) {
      const codes = new Array(len);
      for (let i = 0; i < len; i++) codes[i] = u8[at + i];
      return String.fromCharCode.apply(null, codes);
    }
  }
  decoding(len);
  return utf8.decode(u8.subarray(at, at + len));
}

/** The answer's UTF-16 units, decoded. */
function answerWide() {
  const at = u32[head + WIDE_AT];
  const end = at + 2 * u32[head + WIDE_LEN];
  if (buffer !== null) return buffer.ucs2Slice(at, end);
  decoding(end - at);
  return utf16.decode(u8.subarray(at, end));
}

/** The road the last one-shot answer took, for the tests (`internal.lastAnswer`). */
let lastCode = -1;

/** The text a one-shot call answered with `code`, for input string `input`. */
function answerText(code, input) {
  views();
  lastCode = code;
  if (code === INPUT) return input;
  if (code === TEXT) return answerBytes();
  if (code === WIDE) return answerWide();
  // PIECES: [literal end, start, end] triples: literal text, then a range
  // of the input (a slice: a view of the input, not a copy).
  const literal = answerBytes();
  const first = u32[head + PIECES_AT] >>> 2;
  const end = first + u32[head + PIECES_LEN];
  let text = "";
  let at = 0;
  for (let k = first; k < end; k += 3) {
    const to = u32[k];
    if (to > at) {
      text += literal.slice(at, to);
      at = to;
    }
    const start = u32[k + 1];
    const stop = u32[k + 2];
    if (stop > start) text += input.slice(start, stop);
  }
  return text;
}

/** The verdict, fix and doubt kinds by number, as the module numbered them. */
const names = [];

function learnNames() {
  for (const name of JSON.parse(wasm.names(names.length))) names.push(name);
  views();
}

/** The outcome of the last one-shot call or `finish`, its text `text`. */
function outcome(text) {
  views();
  let k = u32[head + META_AT] >>> 2;
  const end = k + u32[head + META_LEN];
  // A kind not met before: learn its name (once per kind).
  let top = u32[k];
  for (let j = k + 4; j < end; j += 2) if (u32[j] > top) top = u32[j];
  if (top >= names.length) learnNames();
  const verdict = names[u32[k]].name;
  const nFixes = u32[k + 1];
  const nDoubts = u32[k + 2];
  const hasReason = u32[k + 3] === 1;
  k += 4;
  const fixes = [];
  for (let j = 0; j < nFixes; j++, k += 2) {
    const kind = names[u32[k]];
    fixes.push({ kind: kind.name, offset: u32[k + 1], truncation: kind.truncation });
  }
  const doubts = [];
  for (let j = 0; j < nDoubts; j++, k += 2) {
    const kind = names[u32[k]];
    doubts.push({ kind: kind.name, offset: u32[k + 1], reason: kind.reason });
  }
  const result = { text, verdict, fixes, doubts };
  if (hasReason) result.reason = wasm.take_reason();
  return result;
}

/**
 * jsonrepair's contract for the drop-in: the repaired text, or undefined
 * where there is no JSON.
 */
function jsonrepairText(text) {
  ensureReady();
  const len = putString(text);
  const code = wasm.jsonrepair_input(len, (putAscii ? ASCII : 0) | wideFlag());
  return code === NOT_JSON ? undefined : answerText(code, text);
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
  ensureReady();
  const string = typeof input === "string";
  let len;
  let flags;
  if (string) {
    len = putString(input);
    flags = putAscii ? ASCII : 0;
  } else {
    len = input.length;
    const at = inputBuffer(len);
    views();
    u8.set(input, at);
    flags = FROM_BYTES;
  }
  let code;
  try {
    code = wasm.repair_input(len, flags | wideFlag(), encoded === "" ? undefined : encoded);
  } catch (error) {
    rethrow(error);
  }
  return outcome(answerText(code, string ? input : undefined));
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
          // See RawRepairer::feed_input_coded: the chunk is written where
          // a one-shot input is, and strings cross back only when
          // JavaScript does not have them already.
          const code = raw.feed_input_coded(putString(text));
          if (code === FAILED) rethrow(raw.take_error());
          const kind = code & 3;
          const newTail = (code & 4) === 0 || this.#tail === null;
          // Other text and a new tail are read from the module's memory.
          if (kind === 2 || newTail) views();
          committed = kind === 1 ? text.slice(0, code >>> 3) : kind === 2 ? bytesAt(BYTES_AT) : "";
          if (newTail) this.#tail = bytesAt(TAIL_AT);
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
export const internal = {
  call,
  wasm,
  ensureReady,
  invalid,
  describe,
  jsonrepairText,
  lastAnswer: () => ["not_json", "input", "pieces", "text", "wide"][lastCode],
  /**
   * How answers are decoded: through Node's `Buffer` (node.js hands it
   * over) or TextDecoder, and whether UTF-16 answers are asked for.
   */
  setDecoding({ buffer, wide }) {
    NodeBuffer = buffer;
    wideAnswers = wide;
    u8 = null;
  },
};
