// Chunk invariance: every input, fed in random pieces (strings cut at any
// UTF-16 unit, byte arrays at any byte), gives the same text, verdict, fixes
// and doubts as the whole; committed text only grows, and the snapshot after
// every chunk is valid JSON that starts with it.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Repairer, ToolCallStream, repair } from "argmend";
import { SUITES, cut, inputs, peerInputs, rng } from "./inputs.js";
import { need, skipUnless } from "./shared.js";

const encoder = new TextEncoder();

function stream(pieces, id) {
  const repairer = new Repairer();
  let committed = "";
  for (const piece of pieces) {
    const piece_committed = repairer.feed(piece);
    committed += piece_committed;
    const snapshot = repairer.snapshot();
    assert.ok(snapshot.startsWith(committed), `${id}: the snapshot does not start with the committed text`);
    if (snapshot !== "") {
      try {
        JSON.parse(snapshot);
      } catch {
        assert.fail(`${id}: snapshot is not JSON: ${JSON.stringify(snapshot)}`);
      }
    }
  }
  const outcome = repairer.finish();
  assert.ok(outcome.text.startsWith(committed), `${id}: committed text was rewritten`);
  return outcome;
}

// The tests below run on the corpus alone without the peers' suites; this
// one says so (skipped, with the folder), or checks they are there.
test("the peers' suites are among the inputs", { skip: skipUnless(...SUITES) }, () => {
  need(...SUITES);
  assert.ok(peerInputs.length > 700, `${peerInputs.length} inputs from the peers' suites`);
});

test(`every input in random string pieces gives the whole's outcome (${inputs.length} inputs × 3 cuttings)`, () => {
  for (let seed = 1; seed <= 3; seed++) {
    const random = rng(seed);
    for (const { id, input } of inputs) {
      const whole = repair(input);
      const pieces = cut(input, random, seed * 4);
      assert.deepEqual(stream(pieces, `${id} seed ${seed}`), whole, `${id} seed ${seed}: ${JSON.stringify(pieces)}`);
    }
  }
});

test("every input in random byte pieces gives the whole's outcome, offsets in bytes", () => {
  const random = rng(7);
  for (const { id, input } of inputs) {
    const bytes = encoder.encode(input);
    const whole = repair(bytes);
    assert.equal(whole.text, repair(input).text, id);
    const pieces = cut(bytes, random, 6);
    assert.deepEqual(stream(pieces, id), whole, `${id}: ${pieces.length} pieces`);
  }
});

test("one byte at a time, and one UTF-16 unit at a time", () => {
  for (const { id, input } of inputs.slice(0, 400)) {
    const whole = repair(input);
    assert.deepEqual(stream([...encoder.encode(input)].map((byte) => Uint8Array.of(byte)), id), repair(encoder.encode(input)), id);
    assert.deepEqual(stream(input.split(""), id), whole, id);
  }
});

test("ToolCallStream: the same end however the arguments were cut", () => {
  const random = rng(11);
  for (const { id, input } of inputs) {
    const whole = new ToolCallStream("write_file");
    whole.feed(input);
    const expected = whole.finish();
    const call = new ToolCallStream("write_file");
    const events = [];
    for (const piece of cut(input, random, 5)) {
      events.push(...call.feed(piece).events);
      const value = call.value();
      if (value !== undefined) assert.deepEqual(value, JSON.parse(call.snapshot()), id);
    }
    const end = call.finish();
    assert.deepEqual(end.args, expected.args, id);
    assert.equal(end.text, expected.text, id);
    assert.equal(end.verdict, expected.verdict, id);
    assert.deepEqual(end.fixes, expected.fixes, id);
    const done = [...events, ...end.events].filter((event) => event.event === "field_done");
    if (end.verdict !== "not_json" && done.length > 0) {
      // The last final value is the whole arguments. An event's value is
      // built by the engine, which holds a number past a double's range
      // (`1e999`) as null, as JSON.stringify writes Infinity, and `-0` as 0.
      assert.equal(JSON.stringify(done.at(-1).value), JSON.stringify(end.args), id);
    }
  }
});
