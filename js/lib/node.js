// Node's entry point: loads the WebAssembly module from the package's own
// files at import time, so `import { repair } from "argmend"` is ready to use.
// Everything else is the portable core (core.js).

import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { initSync, internal } from "./core.js";

initSync(readFileSync(new URL("../dist/argmend_wasm_bg.wasm", import.meta.url)));
// Strings from the module's memory through Buffer: several times faster
// than TextDecoder for text that is not all ASCII (js/src/utf16.rs).
internal.setDecoding({ buffer: Buffer, wide: true });

export {
  ArgmendError, AnthropicStream, CallParser, OpenAIChatStream, OpenAIResponsesStream, Repairer, ToolCallStream, init, initSync, isReady, normalizeToolArgs, repair, toolCalls, version, wasmMemoryBytes,
} from "./core.js";
export { init as default } from "./core.js";
