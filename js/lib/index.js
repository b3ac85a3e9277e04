// The portable entry point (browsers, Deno, Bun, edge runtimes): call
// `await init()` once before the first use. Node's entry (node.js) does it
// on import.
export {
  ArgmendError, AnthropicStream, CallParser, OpenAIChatStream, OpenAIResponsesStream, Repairer, ToolCallStream, init, initSync, isReady, normalizeToolArgs, repair, toolCalls, version, wasmMemoryBytes,
} from "./core.js";
export { init as default } from "./core.js";
