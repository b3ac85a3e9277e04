// No call leaks WebAssembly memory. WebAssembly memory only grows, so a
// leak shows as `wasmMemoryBytes()` climbing; every loop below runs a first
// round to let the allocator reach its working size, then checks that more
// rounds do not grow it.

import assert from "node:assert/strict";
import { setImmediate as tick } from "node:timers/promises";
import { test } from "node:test";

import { AnthropicStream, Repairer, ToolCallStream, normalizeToolArgs, repair, wasmMemoryBytes } from "argmend";
import { jsonrepair } from "argmend/jsonrepair";

const MB = 1 << 20;

test("a stream of 10,000 chunks keeps the module's memory flat", () => {
  const repairer = new Repairer();
  const item = (i) => `{id: ${i}, name: 'item ${i}', tags: ['a', 'b',], note: "x \\"y\\" z"}, `;
  repairer.feed("[");
  let baseline = 0;
  let total = 0;
  for (let i = 0; i < 10_000; i++) {
    total += repairer.feed(item(i)).length;
    repairer.takeFixes();
    if (i === 1_000) baseline = wasmMemoryBytes();
  }
  assert.equal(wasmMemoryBytes(), baseline, "memory grew between chunk 1,000 and chunk 10,000");
  const outcome = repairer.finish();
  assert.ok(total > 500_000, `${total} bytes committed`);
  assert.equal(JSON.parse(outcome.text).length, 10_000);
});

test("a valid stream keeps the module's memory flat past the prelude's 1 MiB", () => {
  // Strictly valid input is read by the engine's prelude, which holds what
  // it reads up to 1 MiB and then hands over to the machine (whose memory
  // stays flat): after that point, no more growth.
  const repairer = new Repairer();
  const item = (i) => `{"id": ${i}, "name": "item ${i}", "tags": ["a", "b"]}, `;
  repairer.feed("[");
  let baseline = 0;
  let total = 0;
  let fed = 1;
  for (let i = 0; i < 60_000; i++) {
    const chunk = item(i);
    total += repairer.feed(chunk).length;
    fed += chunk.length;
    if (i === 40_000) {
      assert.ok(fed > 2 * MB, `only ${fed} bytes fed by chunk 40,000`);
      baseline = wasmMemoryBytes();
    }
  }
  assert.equal(wasmMemoryBytes(), baseline, "memory grew between chunk 40,000 and chunk 60,000");
  const outcome = repairer.finish();
  assert.ok(total > 3 * MB, `${total} bytes committed`);
  assert.equal(JSON.parse(outcome.text).length, 60_000);
});

test("10,000 finished Repairers, ToolCallStreams and adapters free what they used", () => {
  const round = () => {
    for (let i = 0; i < 2_000; i++) {
      const repairer = new Repairer();
      repairer.feed(`{'a': [1, 2, 'three', {b: ${i}}`);
      repairer.snapshot();
      repairer.finish();
      const call = new ToolCallStream("write_file");
      call.feed(`{"path": "a.py", "content": "print("${i}")`);
      call.value();
      call.finish();
      const adapter = new AnthropicStream();
      adapter.push({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "n", input: {} } });
      adapter.push({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a": 1' } });
      adapter.finish();
      repair(`{a: ${i},}`);
      jsonrepair(`[${i}, ${i},]`);
      normalizeToolArgs("read_file", `file${i}.go`);
    }
  };
  round();
  const baseline = wasmMemoryBytes();
  for (let r = 0; r < 4; r++) round();
  assert.equal(wasmMemoryBytes(), baseline);
});

test("a Repairer dropped without finish() is freed by the FinalizationRegistry", async (t) => {
  if (typeof globalThis.gc !== "function") {
    assert.fail("run node with --expose-gc (npm test does)");
  }
  const big = `{"content": "${"x".repeat(64 * 1024)}`; // held by the engine until finished
  const round = async () => {
    for (let i = 0; i < 200; i++) {
      const repairer = new Repairer();
      repairer.feed(big);
      const call = new ToolCallStream("write_file");
      call.feed(big);
    }
    // Let the collector find them and the registry run its callbacks.
    for (let i = 0; i < 5; i++) {
      globalThis.gc();
      await tick();
    }
  };
  await round();
  await round();
  const baseline = wasmMemoryBytes();
  for (let r = 0; r < 5; r++) await round();
  // Without the registry, 5 rounds would hold 5 × 200 × 2 × 64 KB = 128 MB more.
  const grown = wasmMemoryBytes() - baseline;
  t.diagnostic(`memory grew by ${(grown / MB).toFixed(1)} MB over 2,000 dropped streams`);
  assert.ok(grown <= 8 * MB, `grew by ${(grown / MB).toFixed(1)} MB`);
});
