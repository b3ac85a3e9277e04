// argmend for the Vercel AI SDK (`ai` 5 and 6): the tool inputs of
// `streamText(...).fullStream` as argmend field events and live values, and
// a repair hook for `experimental_repairToolCall`.
//
// Portable like core.js: no Node-only API, and no import of `ai` (the SDK is
// the caller's, at whatever version; its parts and tools are read by shape).
// In Node, `argmend/ai` loads the WebAssembly module on import; elsewhere,
// `await init()` from `argmend` once before the first stream.

import { ArgmendError, ToolCallStream, normalizeToolArgs } from "./core.js";

/** The AI SDK marks its `Schema` wrappers (`jsonSchema()`, `zodSchema()`, …) with this. */
const AI_SDK_SCHEMA = Symbol.for("vercel.ai.schema");

const STREAM_OPTIONS = new Set(["tools", "dropUnknownKeys"]);

function invalid(message) {
  return new ArgmendError("invalid_argument", message);
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The AI SDK sends a zod or Standard Schema tool to the model with
 * `additionalProperties: false` on every object (its
 * `addAdditionalPropertiesToJsonSchema`). argmend reads the same schema the
 * model was given: closed keys are what lets it tell a quote inside code
 * from the end of a value. A copy; the caller's schema is not touched.
 */
function closeObjects(schema) {
  if (!isObject(schema)) return schema;
  const out = { ...schema };
  const type = out.type;
  if (type === "object" || (Array.isArray(type) && type.includes("object"))) {
    out.additionalProperties = isObject(out.additionalProperties) ? closeObjects(out.additionalProperties) : false;
    if (isObject(out.properties)) {
      out.properties = Object.fromEntries(Object.entries(out.properties).map(([key, value]) => [key, closeObjects(value)]));
    }
  }
  if (out.items !== undefined) out.items = Array.isArray(out.items) ? out.items.map(closeObjects) : closeObjects(out.items);
  for (const key of ["anyOf", "allOf", "oneOf"]) if (Array.isArray(out[key])) out[key] = out[key].map(closeObjects);
  if (isObject(out.definitions)) {
    out.definitions = Object.fromEntries(Object.entries(out.definitions).map(([key, value]) => [key, closeObjects(value)]));
  }
  return out;
}

/**
 * How to get a tool's JSON Schema from its `inputSchema`, decided when the
 * stream is made so that a schema argmend cannot read fails at once, with
 * the tool's name, rather than in the middle of a stream. Returns a function
 * giving the schema or a promise of it (read at the tool's first call: the
 * AI SDK's schemas are lazy, and a zod conversion is not free).
 */
function schemaReader(name, inputSchema) {
  if (inputSchema === undefined || inputSchema === null) return () => undefined;
  if (typeof inputSchema === "function") {
    // The AI SDK's lazySchema(): a function that makes the Schema wrapper.
    return () => {
      const made = inputSchema();
      return schemaReader(name, made)();
    };
  }
  if (!isObject(inputSchema)) {
    throw invalid(`toolInputStream: tool ${JSON.stringify(name)}: inputSchema must be an object, not ${typeof inputSchema}`);
  }
  if (inputSchema[AI_SDK_SCHEMA] === true && "jsonSchema" in inputSchema) {
    // jsonSchema(), zodSchema(), valibotSchema()…: the JSON Schema the SDK sends.
    return () => inputSchema.jsonSchema;
  }
  const standard = inputSchema["~standard"];
  if (isObject(standard)) {
    if (typeof standard.jsonSchema?.input === "function") {
      // Standard JSON Schema (zod 4, and others): what the AI SDK's asSchema() calls.
      return () => closeObjects(standard.jsonSchema.input({ target: "draft-07" }));
    }
    throw invalid(
      `toolInputStream: tool ${JSON.stringify(name)}: its ${standard.vendor ?? "Standard Schema"} schema offers no JSON Schema ` +
        "(`~standard.jsonSchema`); wrap it with the AI SDK's `zodSchema()` or `jsonSchema()`, or pass its JSON Schema",
    );
  }
  return () => inputSchema; // a plain JSON Schema
}

function schemaReaders(tools) {
  const readers = new Map();
  if (tools === undefined || tools === null) return readers;
  if (!isObject(tools)) throw invalid("toolInputStream: `tools` must be the object of tools given to streamText ({name: tool})");
  for (const [name, tool] of Object.entries(tools)) {
    if (!isObject(tool)) throw invalid(`toolInputStream: tool ${JSON.stringify(name)} must be an object`);
    readers.set(name, schemaReader(name, tool.inputSchema ?? tool.parameters));
  }
  return readers;
}

/** The unified finish reasons that mean the model was stopped, as argmend's `cut` names them. */
const CUT_BY_FINISH = { length: "length", "content-filter": "content_filter", error: "error" };

/**
 * Turn the AI SDK's stream parts into argmend's tool-input events, for
 * `result.fullStream.pipeThrough(toolInputStream({tools}))`.
 *
 * Every part passes through unchanged and in order: a UI keeps reading its
 * text, reasoning and tool results from the one stream. After each part
 * that moves a tool call's arguments comes argmend's, `type: "argmend"`
 * (a type the AI SDK does not use), keyed by the call's `id`:
 *
 * - after a `tool-input-delta`: one part per field event (`started`, `delta`,
 *   `field_done`, with a JSON Pointer `path`), each with `input`, the
 *   arguments so far as a value (shared by the parts of one delta);
 * - when the call ends, its field events, then `call_done` with argmend's
 *   mended `args` (and `text`), `verdict`, `complete`, `fixes`, `doubts`, and
 *   `cut` when the stream stopped before the call ended. The field events
 *   and `input` follow the model's text as it streams; `args` is also what
 *   the schema made of it (numbers coerced, unknown keys dropped with
 *   `dropUnknownKeys`), so it can differ from the last `input` there;
 * - `skipped`, once per call argmend does not read, with its `kind`:
 *   `text_input` (a tool whose input is free text, not JSON),
 *   `provider_executed` (the provider ran it: not the caller's to repair,
 *   as argmend's adapters skip server tools), `arguments_after_end`,
 *   `arguments_without_start`.
 *
 * A call ends at `tool-input-end`; one that got no argument text by then
 * ends at its `tool-call` part (a provider that sends the input only whole),
 * as does a call the provider sent whole with no `tool-input-*` parts at all.
 * Calls still open at `finish-step`, `abort` or the end of the stream end
 * there, `complete: false`, with `cut` (`length`, `content_filter`, `error`,
 * `aborted`, `stream_ended`, or `no_arguments` for a call with no text).
 *
 * Each call's `ToolCallStream` holds WebAssembly memory; it is freed when the
 * call ends, and every open one when the stream is cancelled or errors (and,
 * on a runtime whose TransformStream never calls `cancel`, by the
 * module's FinalizationRegistry when the stream is dropped).
 *
 * @param {import("./ai.d.ts").ToolInputStreamOptions} [options]
 *   `tools`: the tools given to `streamText`, whose `inputSchema`s (plain
 *   JSON Schema, the AI SDK's `jsonSchema()`/`zodSchema()`/lazy schemas, or
 *   a Standard JSON Schema such as zod 4) tell argmend each call's keys and
 *   types; `dropUnknownKeys`: drop keys a tool's schema does not declare.
 * @returns {TransformStream<any, any>}
 * @throws {ArgmendError} `invalid_argument` for an option or a tool schema
 *   argmend cannot read (a zod 3 schema: wrap it with the AI SDK's `zodSchema()`).
 */
export function toolInputStream(options = {}) {
  if (!isObject(options)) throw invalid("toolInputStream: options must be an object");
  for (const key of Object.keys(options)) {
    if (!STREAM_OPTIONS.has(key)) {
      throw invalid(`toolInputStream: unknown option ${JSON.stringify(key)} (known: ${[...STREAM_OPTIONS].join(", ")})`);
    }
  }
  const readers = schemaReaders(options.tools);
  const dropUnknownKeys = options.dropUnknownKeys;
  /** Each tool's schema, read once (a promise while a lazy one resolves). */
  const schemas = new Map();
  /** The open calls by id: `{stream, toolName, fed, inputEnded}`. */
  const open = new Map();
  /** Ids that ended or were skipped, with their tool's name: later parts for them are not read again. */
  const closed = new Map();
  const reported = new Set();
  let sawError = false;

  function schemaFor(toolName) {
    if (!schemas.has(toolName)) {
      const fail = (error) => {
        throw new ArgmendError("invalid_argument", `toolInputStream: tool ${JSON.stringify(toolName)}: its inputSchema gave no JSON Schema: ${error?.message ?? error}`, { cause: error });
      };
      const reader = readers.get(toolName);
      let schema;
      try {
        schema = reader ? reader() : undefined;
      } catch (error) {
        fail(error);
      }
      // jsonSchema's type is `JSONSchema7 | PromiseLike<JSONSchema7>`.
      if (typeof schema?.then === "function") schema = Promise.resolve(schema).catch(fail);
      schemas.set(toolName, schema);
    }
    return schemas.get(toolName);
  }

  async function openCall(id, toolName) {
    const schema = await schemaFor(toolName);
    const toolOptions = {};
    if (schema !== undefined) toolOptions.schema = schema;
    if (dropUnknownKeys !== undefined) toolOptions.dropUnknownKeys = dropUnknownKeys;
    const call = { stream: new ToolCallStream(toolName, toolOptions), toolName, fed: false, inputEnded: false };
    open.set(id, call);
    return call;
  }

  function fields(controller, id, toolName, events, input) {
    for (const event of events) controller.enqueue({ type: "argmend", id, toolName, ...event, input });
  }

  function feed(controller, id, call, text) {
    if (text.length === 0) return;
    call.fed = true;
    const { events } = call.stream.feed(text);
    if (events.length > 0) fields(controller, id, call.toolName, events, call.stream.value());
  }

  function skip(controller, id, toolName, kind) {
    if (reported.has(id)) return;
    reported.add(id);
    controller.enqueue({ type: "argmend", event: "skipped", id, toolName, kind });
  }

  function end(controller, id, call, cut) {
    open.delete(id);
    closed.set(id, call.toolName);
    const result = call.stream.finish(); // frees the call's memory
    fields(controller, id, call.toolName, result.events, result.args);
    const done = {
      type: "argmend",
      event: "call_done",
      id,
      toolName: call.toolName,
      args: result.args,
      text: result.text,
      verdict: result.verdict,
      complete: cut === undefined ? result.complete : false,
      fixes: result.fixes,
      doubts: result.doubts,
    };
    if (cut !== undefined) done.cut = cut;
    if (result.reason != null) done.reason = result.reason;
    controller.enqueue(done);
  }

  function endOpen(controller, cut) {
    for (const [id, call] of [...open]) end(controller, id, call, call.fed ? cut : "no_arguments");
  }

  function freeAll() {
    for (const call of open.values()) call.stream.free();
    open.clear();
  }

  async function read(part, controller) {
    switch (part?.type) {
      case "tool-input-start": {
        const { id, toolName } = part;
        if (open.has(id) || closed.has(id)) return;
        if (part.inputEncoding === "text" || part.providerExecuted) {
          closed.set(id, toolName);
          skip(controller, id, toolName, part.inputEncoding === "text" ? "text_input" : "provider_executed");
          return;
        }
        await openCall(id, toolName);
        return;
      }
      case "tool-input-delta": {
        const { id } = part;
        const call = open.get(id);
        if (call && !call.inputEnded) feed(controller, id, call, part.delta ?? "");
        else if (call) skip(controller, id, call.toolName, "arguments_after_end");
        // A skipped call was reported at its start: skip() says nothing twice.
        else if (closed.has(id)) skip(controller, id, closed.get(id), "arguments_after_end");
        else skip(controller, id, null, "arguments_without_start");
        return;
      }
      case "tool-input-end": {
        const call = open.get(part.id);
        if (!call) return;
        // No text yet: the input may come whole in the `tool-call` part.
        if (call.fed) end(controller, part.id, call);
        else call.inputEnded = true;
        return;
      }
      case "tool-call": {
        const id = part.toolCallId;
        if (closed.has(id)) return;
        let call = open.get(id);
        if (!call) {
          if (part.providerExecuted) {
            closed.set(id, part.toolName);
            skip(controller, id, part.toolName, "provider_executed");
            return;
          }
          call = await openCall(id, part.toolName); // sent whole, with no tool-input parts
        }
        if (!call.fed) {
          // The AI SDK gives a valid input parsed (and checked), an invalid one as the model's text.
          const text = typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {});
          feed(controller, id, call, text);
        }
        end(controller, id, call);
        return;
      }
      case "finish-step":
        endOpen(controller, CUT_BY_FINISH[part.finishReason?.unified ?? part.finishReason] ?? "stream_ended");
        return;
      case "abort":
        endOpen(controller, "aborted");
        return;
      case "error":
        sawError = true;
        return;
      default:
        return;
    }
  }

  return new TransformStream({
    async transform(part, controller) {
      controller.enqueue(part);
      try {
        await read(part, controller);
      } catch (error) {
        freeAll();
        throw error;
      }
    },
    flush(controller) {
      try {
        endOpen(controller, sawError ? "error" : "stream_ended");
      } finally {
        freeAll();
      }
    },
    cancel() {
      freeAll();
    },
  });
}

/**
 * For `streamText({experimental_repairToolCall: repairToolCall})`: a call
 * whose input the AI SDK could not parse, or that failed its schema, is
 * mended by argmend with the schema the SDK sent the model, so the SDK
 * validates and runs the mended input instead of reporting the call invalid.
 *
 * Only a mending argmend is sure of is returned: none for an input cut
 * short (running a half-written `write_file` is worse than an error), none
 * with a doubt (two readings were possible), none that breaks the schema or
 * is not JSON at all, and none for an unknown tool. For those the SDK
 * reports the call as it would have (`null` keeps its original error). A
 * plain value the model wrote for a tool with one field it can go to is
 * mended into that field (argmend's normalizing: `"weather in Paris"` for
 * a `search` tool is `{"query": "weather in Paris"}`).
 *
 * @param {{toolCall: {toolName: string, input: string}, inputSchema: (call: {toolName: string}) => PromiseLike<object> | object, error?: unknown}} options
 *   what the AI SDK passes its repair function
 * @returns {Promise<object | null>} the call with argmend's input text, or `null`
 */
export async function repairToolCall({ toolCall, inputSchema, error } = {}) {
  if (!isObject(toolCall) || typeof toolCall.toolName !== "string") {
    throw invalid("repairToolCall: pass it as streamText's `experimental_repairToolCall` (it takes the SDK's {toolCall, inputSchema})");
  }
  if (error?.name === "AI_NoSuchToolError") return null;
  const schema = typeof inputSchema === "function" ? await inputSchema({ toolName: toolCall.toolName }) : undefined;
  const raw = typeof toolCall.input === "string" ? toolCall.input : JSON.stringify(toolCall.input ?? {});
  const mended = normalizeToolArgs(toolCall.toolName, raw, schema);
  const cut = mended.verdict === "completed" || mended.fixes.some((fix) => fix.truncation);
  if (mended.verdict === "not_json" || cut || mended.doubts.length > 0) return null;
  // Against the schema: the SDK would reject it again, with a vaguer error.
  if (mended.violations?.length > 0) return null;
  // Nothing argmend would change: the SDK's own error stands.
  if (mended.fixes.length === 0 && mended.text === raw) return null;
  return { ...toolCall, input: mended.text };
}
