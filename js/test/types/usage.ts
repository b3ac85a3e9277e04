// Type-checked by types.test.js (tsc --noEmit, strict): what a TypeScript
// user writes against the package's declarations, resolved through the
// package's own "exports" as a user's project resolves them.

import init, {
  AnthropicStream,
  ArgmendError,
  CallParser,
  OpenAIChatStream,
  OpenAIResponsesStream,
  Repairer,
  ToolCallStream,
  initSync,
  normalizeToolArgs,
  repair,
  toolCalls,
  version,
  wasmMemoryBytes,
  type CallEnd,
  type ClientEvent,
  type ParserEvent,
  type Fix,
  type Outcome,
  type Verdict,
} from "argmend";
import { JSONRepairError, jsonrepair } from "argmend/jsonrepair";
import { Allow, MalformedJSON, PartialJSON, parse } from "argmend/partial-json";
import { repairToolCall, toolInputStream } from "argmend/ai";

export async function use(bytes: Uint8Array, events: AsyncIterable<object>): Promise<string> {
  await init();
  initSync(new Uint8Array(0));
  const outcome: Outcome = repair("{a: 1}", { maxDepth: 64, values: "lines", fields: ["a"] });
  const verdict: Verdict = outcome.verdict;
  const offsets: number[] = outcome.fixes.map((fix: Fix) => fix.offset);
  repair(bytes);

  const repairer = new Repairer({ schema: { type: "object" } });
  const committed: string = repairer.feed("{'a': ") + repairer.feed(bytes);
  const snapshot: string = repairer.snapshot();
  const early: Fix[] = repairer.takeFixes();
  const done: Outcome = repairer.finish();
  {
    using scoped = new Repairer();
    scoped.feed("[");
  }

  const call = new ToolCallStream("write_file", { schema: { type: "object" }, dropUnknownKeys: true });
  const update = call.feed('{"path": "a');
  for (const event of update.events) {
    if (event.event === "delta") event.text.toUpperCase();
    if (event.event === "started") event.kind satisfies "object" | "array" | "string" | "number" | "bool" | "null";
  }
  const value: unknown = call.value();
  const end: CallEnd = call.finish();
  end.complete satisfies boolean;
  end.cut satisfies string | null;

  const normalized = normalizeToolArgs("read_file", "main.go", { type: "object" }, { maxInputBytes: 1024 });
  normalized.violations.map((violation) => violation.path);

  for (const adapter of [new OpenAIChatStream({ tools: [] }), new OpenAIResponsesStream(), new AnthropicStream()]) {
    const out: ClientEvent[] = adapter.push({ type: "x" });
    adapter.value(0);
    adapter.finish();
    out.length;
  }
  for await (const event of toolCalls(events, new AnthropicStream())) {
    if (event.event === "call_done") event.args;
  }

  try {
    jsonrepair("");
  } catch (error) {
    if (error instanceof JSONRepairError) error.position satisfies number;
    if (error instanceof ArgmendError) error.kind satisfies string;
  }
  const partial: unknown = parse('{"a": "x', Allow.STR | Allow.OBJ);
  [PartialJSON, MalformedJSON].map((kind) => kind.name);

  const transform = toolInputStream({ tools: {} });
  transform.readable;
  repairToolCall;

  return [verdict, offsets, committed, snapshot, early, done, value, end, partial, version(), wasmMemoryBytes()].join();
}

export function parse_calls(text: string): unknown[] {
  const parser = new CallParser({ format: "qwen3_coder", tools: [] });
  const names: string[] = CallParser.formats();
  const events: ParserEvent[] = [...parser.feed(text), ...parser.finish()];
  const args: unknown[] = [];
  for (const event of events) {
    if (event.event === "call_done") args.push(event.args);
    if (event.event === "text") args.push(event.text.length + names.length);
  }
  return args;
}
