// Types for `argmend/ai`: argmend for the Vercel AI SDK (`ai` 5 and 6).
// Self-contained: the AI SDK's own types are not imported, so this package
// does not depend on `ai`; its stream parts and tools are read by shape.

/** The JSON value arguments and field values are. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** What a tool definition brings: its input schema (the rest is not read). */
export interface ToolLike {
  /**
   * A plain JSON Schema, an AI SDK `Schema` (`jsonSchema()`, `zodSchema()`),
   * a lazy schema (a function returning one), or a Standard JSON Schema
   * (zod 4 and others with `~standard.jsonSchema`). A zod 3 schema has no
   * JSON Schema of its own: wrap it with the AI SDK's `zodSchema()`.
   */
  inputSchema?: unknown;
  [key: string]: unknown;
}

export interface ToolInputStreamOptions {
  /** The tools given to `streamText`, by name: each call gets its tool's schema. */
  tools?: Record<string, ToolLike>;
  /** Drop keys a tool's schema does not declare. */
  dropUnknownKeys?: boolean;
}

/** A change argmend made, at an offset of the model's text (UTF-16 code units). */
export interface Fix {
  kind: string;
  offset: number;
  /** Made because the text stopped (a string or container closed). */
  truncation?: boolean;
}

/** Where the text could be read two ways, and which reading argmend chose. */
export interface Doubt {
  kind: string;
  offset: number;
  reason: string;
  [key: string]: unknown;
}

interface ArgmendPartBase {
  type: "argmend";
  /** The tool call's id: the `id` of its `tool-input-*` parts, the `toolCallId` of its `tool-call`. */
  id: string;
  toolName: string;
}

/** A field event of one call, after the part that caused it. */
export type ToolInputFieldPart = ArgmendPartBase & {
  /** The arguments so far, as a value (shared by the parts of one delta). */
  input: JsonValue | undefined;
} & (
    | { event: "started"; path: string; kind: "object" | "array" | "string" | "number" | "bool" | "null" }
    | { event: "delta"; path: string; text: string }
    | { event: "field_done"; path: string; value: JsonValue }
  );

/** A call's end: argmend's mended arguments and how it got them. */
export interface ToolInputDonePart extends ArgmendPartBase {
  event: "call_done";
  args: JsonValue;
  /** `args` as JSON text, as argmend wrote it. */
  text: string;
  verdict: "valid" | "repaired" | "completed" | "not_json";
  /** False when a string, container or number had to be closed, or the stream stopped first (`cut`). */
  complete: boolean;
  fixes: Fix[];
  doubts: Doubt[];
  /** Why the stream stopped before the call ended. */
  cut?: "length" | "content_filter" | "error" | "aborted" | "stream_ended" | "no_arguments";
  reason?: string;
}

/** A call argmend does not read, reported once. */
export interface ToolInputSkippedPart {
  type: "argmend";
  event: "skipped";
  id: string;
  toolName: string | null;
  kind: "text_input" | "provider_executed" | "arguments_after_end" | "arguments_without_start";
}

export type ToolInputPart = ToolInputFieldPart | ToolInputDonePart | ToolInputSkippedPart;

/**
 * `result.fullStream.pipeThrough(toolInputStream({tools}))`: every AI SDK
 * part passes through unchanged, and argmend's parts (`type: "argmend"`)
 * follow the parts that move a tool call's arguments.
 */
export function toolInputStream<PART = unknown>(options?: ToolInputStreamOptions): TransformStream<PART, PART | ToolInputPart>;

/** What the AI SDK passes its `experimental_repairToolCall` function (the fields read). */
export interface RepairToolCallOptions<CALL extends { toolName: string; input: unknown }> {
  toolCall: CALL;
  inputSchema: (call: { toolName: string }) => PromiseLike<unknown> | unknown;
  error?: unknown;
}

/**
 * For `streamText({experimental_repairToolCall: repairToolCall})`: the call
 * with argmend's mended input text, or `null` (the SDK's error stands) when
 * the input was cut short, could be read two ways, is not JSON, or names
 * an unknown tool.
 */
export function repairToolCall<CALL extends { toolName: string; input: unknown }>(
  options: RepairToolCallOptions<CALL>,
): Promise<(CALL & { input: string }) | null>;
