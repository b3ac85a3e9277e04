// The portable entry in Deno (the `deno` npm package's binary; no network):
// `await init()` fetches the module beside the package over file://, and
// the API, the drop-ins and the adapters answer as they do in Node.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const SCRIPT = `
import init, { repair, Repairer, ToolCallStream, AnthropicStream, version } from "../lib/index.js";
import { jsonrepair } from "../lib/jsonrepair.js";
import { parse } from "../lib/partial-json.js";
await init();
const out = {
  version: version(),
  repair: repair("{name: 'John', tags: ['a', 'b',]}").text,
  jsonrepair: jsonrepair("[1, 2,"),
  partial: parse('{"city": "Par'),
  stream: (() => { const r = new Repairer(); r.feed("{'a': [1, "); const s = r.snapshot(); r.feed("2]}"); return [s, r.finish().text]; })(),
  call: (() => { const c = new ToolCallStream("write_file"); c.feed('{"path": "a.py", "content": "print("hi")"}'); return c.finish().args; })(),
  adapter: (() => {
    const a = new AnthropicStream();
    a.push({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t1", name: "note", input: {} } });
    a.push({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "{'a': 1," } });
    a.push({ type: "content_block_stop", index: 0 });
    const events = a.push({ type: "message_delta", delta: { stop_reason: "tool_use" } }).concat(a.finish());
    return events.find((event) => event.event === "call_done")?.args;
  })(),
};
console.log(JSON.stringify(out));
`;

test("the portable entry works in Deno", () => {
  const deno = createRequire(import.meta.url).resolve("deno/bin.cjs");
  const cwd = fileURLToPath(new URL(".", import.meta.url));
  const result = spawnSync(process.execPath, [deno, "eval", "--ext=js", SCRIPT], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
  });
  assert.equal(result.status, 0, `deno failed:\n${result.stdout}\n${result.stderr}`);
  const out = JSON.parse(result.stdout.trim().split("\n").at(-1));
  assert.match(out.version, /^\d+\.\d+\.\d+/);
  assert.equal(out.repair, '{"name": "John", "tags": ["a", "b"]}');
  assert.equal(out.jsonrepair, "[1, 2]");
  assert.deepEqual(out.partial, { city: "Par" });
  assert.deepEqual(JSON.parse(out.stream[0]), { a: [1] });
  assert.equal(out.stream[1], '{"a": [1, 2]}');
  assert.deepEqual(out.call, { path: "a.py", content: 'print("hi")' });
  assert.deepEqual(out.adapter, { a: 1 });
});
