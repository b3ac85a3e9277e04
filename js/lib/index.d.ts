// Types of argmend's JavaScript API (lib/core.js). The same declarations
// serve Node's entry (lib/node.js) and the portable one (lib/index.js).

/** The verdict on a whole input. */
export type Verdict =
  /** The input was one JSON value; the text is the input, unchanged. */
  | "valid"
  /** Something other than a truncation was mended. */
  | "repaired"
  /** The only fixes closed what a cut-off input left open. */
  | "completed"
  /** Nothing JSON-like was found (empty input, only whitespace or comments). */
  | "not_json";

/** One repair: what was done, and where. */
export interface Fix {
  /** A stable snake_case name: `quoted_key`, `removed_comma`, `closed_string`, … */
  kind: string;
  /**
   * Where in the input: a UTF-16 index into the input string (what
   * `input[offset]` reads), or a byte offset when the input was a Uint8Array.
   */
  offset: number;
  /** Whether it closed what a cut-off input left open. */
  truncation: boolean;
}

/**
 * A choice between readings the input could not settle. The verdict does
 * not change because of a doubt: a caller that cannot afford a guess asks
 * the model again.
 */
export interface Doubt {
  /** What was chosen: `early_close`, `quote_as_text`, … */
  kind: string;
  /** Where in the input (as `Fix.offset`). */
  offset: number;
  /** What was chosen and what the other reading was, in a sentence. */
  reason: string;
}

/** The result of a repair. */
export interface Outcome {
  /** The repaired JSON text ("" when the verdict is `not_json`). */
  text: string;
  verdict: Verdict;
  /** Every repair, in input order. */
  fixes: Fix[];
  /** Every guess the input could not settle (usually none). */
  doubts: Doubt[];
  /** Why there is no JSON, when the verdict is `not_json`. */
  reason?: string;
}

/** Limits: crossing one throws `ArgmendError` (`too_deep`, `too_large`). */
export interface Limits {
  /** Nesting deeper than this many arrays and objects (default 512). */
  maxDepth?: number;
  /** More input than this many UTF-8 bytes in all (default: no limit). */
  maxInputBytes?: number;
}

export interface RepairOptions extends Limits {
  /**
   * Several top-level values (`{"a":1} {"b":2}`): keep the `"first"`
   * (default), write each on its own line (`"lines"`, NDJSON), or put them
   * all in one `"array"`.
   */
  values?: "first" | "lines" | "array";
  /**
   * A JSON Schema of the value: its keys tell where a string with unescaped
   * quotes ends (a `, "name":` that names no declared key does not end it).
   */
  schema?: object | boolean;
  /** The keys objects may have, as `schema` gives them. */
  fields?: string[];
}

export type RepairerOptions = RepairOptions;

/** The tool layer's options. */
export interface ToolOptions extends Limits {
  /** The tool's JSON Schema (OpenAI's `parameters`, Anthropic's `input_schema`). */
  schema?: object | boolean;
  /** The request's tools list (OpenAI's or Anthropic's): each call's schema by its name. */
  tools?: object[] | { tools: object[] };
  /** Drop keys the schema does not declare (default: keep them). */
  dropUnknownKeys?: boolean;
}

/** A schema rule the normalized arguments still break (reported, not fixed). */
export interface Violation {
  /** Where: `$` is the whole value, `$.a[0]` the first item of member `a`. */
  path: string;
  message: string;
}

/** The result of normalizing one call's arguments. */
export interface Normalized {
  /** The JSON text; with `not_json`, the raw arguments untouched. */
  text: string;
  /** The arguments as a value (`null` with `not_json`). */
  args: unknown;
  verdict: Verdict;
  /**
   * Which strategy the arguments needed, 1 to 7 as the CLI and the Python
   * package report it (1: valid JSON … 6: a plain value or command line);
   * `null` with `not_json`.
   */
  strategy: number | null;
  /** The same strategy by name: `strict_parse`, `single_quotes`, `plain_value`, … */
  strategyName: string | null;
  /** Every change, syntax repairs and tool-level ones (`wrapped_value`, `coerced_string`, …). */
  fixes: Fix[];
  doubts: Doubt[];
  violations: Violation[];
  reason: string | null;
}

/** A field event of a call's arguments. Paths are JSON Pointers (`""`, `/content`, `/items/0`). */
export type FieldEvent =
  /** A value started at `path`. */
  | { event: "started"; path: string; kind: "object" | "array" | "string" | "number" | "bool" | "null" }
  /** Characters were added to the string at `path` (decoded text). */
  | { event: "delta"; path: string; text: string }
  /**
   * The value at `path` is final. The engine builds it: a number beyond a
   * double's range (`1e999`) is `null` here, where `JSON.parse` gives Infinity.
   */
  | { event: "field_done"; path: string; value: unknown };

/** What one fragment did. */
export interface ArgsUpdate {
  /** The mended text this fragment committed (it never changes afterwards). */
  committed: string;
  /** The field events, in text order. */
  events: FieldEvent[];
}

/** The end of one call. */
export interface CallEnd {
  /** The tool's name. */
  name: string;
  /** The mended arguments (`null` when they are not JSON; see `reason`). */
  args: unknown;
  /** The same, as JSON text (the raw arguments when they are not JSON). */
  text: string;
  verdict: Verdict;
  /** 1 to 7, as in {@link Normalized.strategy}. */
  strategy: number | null;
  strategyName: string | null;
  /**
   * Whether the arguments arrived whole: JSON, nothing closed because the
   * input ended, and (through an adapter) the stream said the call ended.
   */
  complete: boolean;
  /** Why the stream says the call stopped short (adapters only): `max_tokens`, `length`, `stream_ended`, … */
  cut: string | null;
  reason: string | null;
  fixes: Fix[];
  doubts: Doubt[];
  /** The last field events (what the end completed or closed). */
  events: FieldEvent[];
}

/** An event of a model API stream adapter. `call` numbers the calls 0, 1, … */
export type ClientEvent =
  | { event: "call_started"; call: number; id: string | null; name: string }
  | (FieldEvent & { call: number })
  | { event: "skipped"; kind: string; id: string | null; name: string | null }
  | ({ event: "call_done"; call: number; id: string | null } & Omit<CallEnd, "events"> & { events: FieldEvent[] });

/**
 * An error of argmend's: a limit crossed (`too_deep`, `too_large`), a bad
 * argument (`invalid_argument`), a stream used after `finish()` (`finished`),
 * or the module not loaded (`not_initialized`, `init_failed`).
 */
export class ArgmendError extends Error {
  readonly kind:
    | "too_deep"
    | "too_large"
    | "stuck"
    | "invalid_argument"
    | "finished"
    | "not_initialized"
    | "init_failed";
}

/** Where the `.wasm` is, or its bytes, or the compiled module. */
export type WasmSource = URL | string | Request | Response | BufferSource | WebAssembly.Module;

/**
 * Load the WebAssembly module (idempotent). Node loads it on import;
 * browsers, Deno and edge runtimes `await init()` once before the first call.
 */
export function init(source?: WasmSource | Promise<Response>): Promise<void>;
export default init;
/** Load the module synchronously from its bytes or a compiled `WebAssembly.Module`. */
export function initSync(bytesOrModule: BufferSource | WebAssembly.Module): void;
/** Whether the module is loaded. */
export function isReady(): boolean;
/** The size of the module's memory in bytes (it only grows: a leak shows here). */
export function wasmMemoryBytes(): number;
/** The engine's version. */
export function version(): string;

/** Repair one whole input. */
export function repair(input: string | Uint8Array, options?: RepairOptions): Outcome;

/**
 * A streaming repair: feed chunks (strings or UTF-8 bytes, cut anywhere),
 * read the committed text and a valid-JSON snapshot after each, then finish.
 * `finish()` frees the module's memory; a Repairer dropped without it is
 * freed by a FinalizationRegistry.
 */
export class Repairer {
  constructor(options?: RepairerOptions);
  /** Feed the next chunk; returns the text it newly committed. */
  feed(chunk: string | Uint8Array): string;
  /** Everything committed so far (a prefix of the final text). */
  readonly text: string;
  /** Valid JSON of everything so far ("" before a value starts). */
  snapshot(): string;
  /** The fixes no later input can undo; `finish()` then reports only the rest. */
  takeFixes(): Fix[];
  /** Input bytes (UTF-8) fed so far. */
  readonly bytesFed: number;
  /** End the input: close what is open; frees the module's memory. */
  finish(): Outcome;
  /** Free the module's memory without finishing. */
  free(): void;
  [Symbol.dispose](): void;
}

/**
 * Normalize one call's raw arguments with the tool's name and JSON Schema.
 * @example normalizeToolArgs("read_file", "main.go").args // { file: "main.go" }
 */
export function normalizeToolArgs(tool: string, raw: string, schema?: object | boolean | null, options?: ToolOptions): Normalized;

/** One tool call's arguments as a model streams them. */
export class ToolCallStream {
  constructor(name: string, options?: ToolOptions);
  readonly name: string;
  /** Feed the next fragment of the arguments. */
  feed(fragment: string | Uint8Array): ArgsUpdate;
  /** Valid JSON of the arguments so far ("" before they start). */
  snapshot(): string;
  /** The arguments so far as a value: `JSON.parse(snapshot())` (`undefined` before they start). */
  value(): unknown;
  /** End the arguments; frees the module's memory. */
  finish(): CallEnd;
  free(): void;
  [Symbol.dispose](): void;
}

/** What the three stream adapters share. */
declare class StreamAdapter {
  /** Push one event of the SDK's stream, as the SDK yields it; returns argmend's events. */
  push(event: object | string): ClientEvent[];
  /** End the stream: calls still open end here, marked cut; frees the module's memory. */
  finish(): ClientEvent[];
  /** The number of calls seen so far. */
  readonly calls: number;
  /** The call's arguments now (the snapshot while it streams, the mended arguments once it ended). */
  value(call: number): unknown;
  /** The call's snapshot while it streams. */
  snapshot(call: number): string | undefined;
  /** The model's id for the call (`call_…`, `toolu_…`). */
  id(call: number): string | undefined;
  /** The tool's name of the call. */
  name(call: number): string | undefined;
  free(): void;
  [Symbol.dispose](): void;
}
export type { StreamAdapter };

/** OpenAI Chat Completions: push each `ChatCompletionChunk`. */
export class OpenAIChatStream extends StreamAdapter {
  constructor(options?: ToolOptions);
}
/** OpenAI Responses: push each stream event. */
export class OpenAIResponsesStream extends StreamAdapter {
  constructor(options?: ToolOptions);
}
/** Anthropic Messages: push each `MessageStreamEvent`. */
export class AnthropicStream extends StreamAdapter {
  constructor(options?: ToolOptions);
}

/** Options of a `CallParser`: a format's name, and a tool's options. */
export interface CallParserOptions extends ToolOptions {
  /** One wire format (`"qwen3_coder"`, `"kimi_k2"`, `"gpt_oss"`, …; `CallParser.formats()`); without it, argmend's forms and the first telling marker. */
  format?: string;
}

/** What a `CallParser` gives: the adapters' events, and the text around the calls. */
export type ParserEvent = ClientEvent | { event: "text"; text: string };

/**
 * The tool calls a model writes in its text, in argmend's forms and every
 * open-weight format, found and mended as the text streams.
 * @example new CallParser({ format: "qwen3_coder", tools }).feed(text)
 */
export class CallParser {
  constructor(options?: CallParserOptions);
  /** The names of the formats `format` takes. */
  static formats(): string[];
  /** The format chosen, or `undefined`. */
  readonly format: string | undefined;
  /** Feed the next chunk of text (a string, or UTF-8 bytes cut anywhere); returns the events it completed. */
  feed(chunk: string | Uint8Array): ParserEvent[];
  /** End the text: a call it cut off ends, not complete; frees the module's memory. */
  finish(): ParserEvent[];
  /** The number of calls seen so far. */
  readonly calls: number;
  /** The call's arguments now (so far while they stream, the mended ones once it ended). */
  value(call: number): unknown;
  /** The tool's name of the call. */
  name(call: number): string | undefined;
  free(): void;
  [Symbol.dispose](): void;
}

/**
 * Run an adapter over a whole SDK stream: yields argmend's events as the
 * SDK's arrive, then the end's. The adapter is finished or freed when the
 * loop ends, even early.
 */
export function toolCalls(
  events: AsyncIterable<object> | Iterable<object>,
  adapter: OpenAIChatStream | OpenAIResponsesStream | AnthropicStream,
): AsyncGenerator<ClientEvent, void, undefined>;
