// The one-shot answers (js/src/oneshot.rs, js/src/pieces.rs): `repair()` and
// `jsonrepair()` hand back the caller's own string, pieces of it with
// literal text between, or the engine's text (as UTF-8 when it is ASCII, as
// UTF-16 otherwise), whichever costs least; whichever it is, the text is the
// engine's, character for character. A `Uint8Array` input gets the engine's
// text back with no pieces (no string to take them from), so the two are
// compared on every input, and on inputs made to take each road: long and
// almost valid, full of edits, with characters outside ASCII and lone
// surrogates at the edits. The portable decoders (TextDecoder, not Node's
// Buffer) are tested too.

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { test } from "node:test";

import { Repairer, repair } from "argmend";
import { internal } from "../lib/core.js";
import { jsonrepair } from "argmend/jsonrepair";
import { inputs, rng } from "./inputs.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** UTF-16 units of the text the first `bytes` bytes of `input`'s UTF-8 are. */
function units(input, bytes) {
  return decoder.decode(encoder.encode(input).subarray(0, bytes)).length;
}

/**
 * The engine's outcome, through the road that only decodes its UTF-8 with
 * TextDecoder: no pieces (a `Uint8Array`), no UTF-16, no `Buffer`.
 */
function engine(input) {
  internal.setDecoding({ buffer: null, wide: false });
  try {
    return repair(encoder.encode(input));
  } finally {
    internal.setDecoding(decoding);
  }
}

/** How the tests below decode: Node's entry's way, unless a test says otherwise. */
let decoding = { buffer: Buffer, wide: true };

/** `repair(input)` and `jsonrepair(input)` against the engine's text and offsets. */
function check(input, id) {
  const want = engine(input);
  const got = repair(input);
  assert.equal(got.text, want.text, `${id}: repair()`);
  assert.equal(got.verdict, want.verdict, id);
  assert.deepEqual(
    got.fixes,
    want.fixes.map((fix) => ({ ...fix, offset: units(input, fix.offset) })),
    `${id}: the fixes, their offsets in UTF-16 units`,
  );
  assert.deepEqual(
    got.doubts,
    want.doubts.map((doubt) => ({ ...doubt, offset: units(input, doubt.offset) })),
    `${id}: the doubts`,
  );
  if (want.verdict === "not_json") {
    assert.throws(() => jsonrepair(input), { name: "JSONRepairError" }, id);
  } else {
    assert.equal(jsonrepair(input), want.text, `${id}: jsonrepair()`);
  }
  return internal.lastAnswer();
}

/** A long document, `n` members of code-like text, written as a model breaks it. */
function document(random, n, { wide = false, edits = 1 } = {}) {
  const words = ["alpha", "beta", "let x = 1;", "fn main() {}", "naïve", "日本語", "😀 ok", "a\\\"b"];
  const members = [];
  for (let i = 0; i < n; i++) {
    let value = "";
    while (value.length < 60) value += `${words[Math.floor(random() * (wide ? words.length : 4))]} `;
    members.push(`"key_${i}": "${value}"`);
  }
  let text = `{${members.join(", ")}}`;
  const faults = [
    (t, at) => `${t.slice(0, at)},${t.slice(at)}`, // a stray comma
    (t, at) => t.slice(0, at) + t.slice(at).replace('"key_', "key_").replace('":', ":"), // a bare key
    (t, at) => t.slice(0, at) + t.slice(at).replace(", ", ",\n// a comment of some length\n"), // a comment
    (t, at) => t.slice(0, at) + t.slice(at).replace('": "', "': '").replace('", ', "', "), // single quotes
    (t, at) => t.slice(0, at) + t.slice(at).replace(" ", "\n"), // a raw line break, in a string or not
    (t, at) => t.slice(0, at) + t.slice(at).replace("fn", "\ud800fn"), // a lone surrogate
    (t) => t.slice(0, Math.floor(t.length * 0.9)), // cut off
  ];
  for (let e = 0; e < edits; e++) {
    const fault = faults[Math.floor(random() * faults.length)];
    text = fault(text, Math.floor(random() * text.length));
  }
  return text;
}

test(`every input gives the engine's text and offsets (${inputs.length} inputs)`, () => {
  for (const { id, input } of inputs) check(input, id);
});

test("each road is taken, and each gives the engine's text", () => {
  const random = rng(45);
  const roads = new Map();
  const take = (input, id) => {
    const road = check(input, id);
    roads.set(road, (roads.get(road) ?? 0) + 1);
    return road;
  };
  // Valid JSON is the caller's string itself; an almost valid long text is
  // pieces of it; a text full of edits is the engine's text, in UTF-8 when
  // it is ASCII, in UTF-16 when it is not.
  assert.equal(take('{"a": [1, 2, "three"]}', "valid"), "input");
  const long = document(random, 40);
  assert.equal(take(`${long.slice(0, -1)},}`, "almost valid"), "pieces");
  assert.equal(take("{a: 'b', c: True, d: None,}", "ASCII"), "text");
  assert.equal(take("{a: 'b\u00e9', c: True, d: None,}", "not ASCII"), "wide");
  // Valid JSON with a lone surrogate is not the caller's string: the
  // engine's text has U+FFFD where the string has the surrogate.
  assert.equal(take('{"a": "x\ud800y"}', "a lone surrogate"), "wide");
  for (let round = 0; round < 300; round++) {
    const wide = round % 2 === 1;
    const text = document(random, 1 + Math.floor(random() * 60), { wide, edits: Math.floor(random() * 12) });
    take(text, `document ${round}`);
  }
  for (const road of ["input", "pieces", "text", "wide"]) assert.ok(roads.get(road) > 3, `${road}: ${roads.get(road)} times`);
});

for (const [how, setting] of [
  ["TextDecoder", { buffer: null, wide: true }],
  ["TextDecoder, and no UTF-16 (a runtime without it)", { buffer: null, wide: false }],
]) {
  test(`decoded by ${how}, every road gives the same texts`, () => {
    decoding = setting;
    internal.setDecoding(setting);
    try {
      const random = rng(46);
      for (const { id, input } of inputs.slice(0, 300)) check(input, id);
      for (let round = 0; round < 100; round++) {
        const text = document(random, 1 + Math.floor(random() * 40), { wide: true, edits: Math.floor(random() * 6) });
        check(text, `document ${round}`);
      }
    } finally {
      decoding = { buffer: Buffer, wide: true };
      internal.setDecoding(decoding);
    }
  });
}

test("a large input leaves the module's buffers as they were", () => {
  const big = document(rng(7), 20_000, { wide: true, edits: 40 });
  assert.ok(big.length > 1_000_000);
  check(big, "1 MB");
  check(`${big.slice(0, -1)},}`, "1 MB, almost valid");
  check("[1, 2,]", "small, after a large one");
});

test("a stream's committed text and tails read from the module's memory are the same with and without Buffer", () => {
  // With a snapshot after every chunk, committed text that is not the
  // chunk's own start (a raw line break escaped, a quote replaced) and a
  // changed tail are read from the module's memory by bytesAt: a loop up to
  // 8 bytes, then Buffer's latin1Slice on Node, or one fromCharCode
  // elsewhere, or TextDecoder past 32 bytes or for non-ASCII.
  const stream = (text, size) => {
    const repairer = new Repairer();
    const seen = [];
    for (let at = 0; at < text.length; at += size) {
      seen.push(repairer.feed(text.slice(at, at + size)), repairer.snapshot());
    }
    seen.push(repairer.finish().text);
    return seen;
  };
  const random = rng(45);
  const texts = inputs.slice(0, 120).map(({ input }) => input);
  for (let round = 0; round < 40; round++) {
    texts.push(document(random, 1 + Math.floor(random() * 30), { wide: round % 2 === 0, edits: 1 + Math.floor(random() * 8) }));
  }
  texts.push(`{'code': 'line one\nline two\n${"x".repeat(40)}\nend', tags: ['a', 'b'`);
  for (const text of texts) {
    for (const size of [3, 16, 45]) {
      const withBuffer = stream(text, size);
      internal.setDecoding({ buffer: null, wide: true });
      try {
        assert.deepEqual(stream(text, size), withBuffer, `${JSON.stringify(text.slice(0, 60))} in chunks of ${size}`);
      } finally {
        internal.setDecoding(decoding);
      }
      assert.equal(withBuffer.at(-1), repair(text).text);
    }
  }
});

test("a stream's chunks and one-shot calls between them share the input buffer", () => {
  // A stream writes each chunk where one-shot inputs are written, and
  // JavaScript keeps the buffer's address between calls (core.js
  // `inputBuffer`): a one-shot call between two chunks (short, not ASCII,
  // past the kept room, bytes) must neither change the stream nor be
  // changed by it.
  const big = `{'log': '${"line\\n".repeat(20000)}', n: 1,}`;
  const others = ["{a: 1}", "{'é': '✅', b: [1, 2,]}", big, encoder.encode("[1, 2, 'x']"), "x"];
  const alone = others.map((other) => repair(other));
  const text = `{path: 'src/main.rs', 'content': 'fn main() {\n    println!("héllo ✅");\n}', tags: ['a', 'b',], n: 12 m: None`;
  const stream = (between) => {
    const repairer = new Repairer();
    const seen = [];
    let k = 0;
    for (let at = 0; at < text.length; at += 5) {
      seen.push(repairer.feed(text.slice(at, at + 5)), repairer.snapshot());
      if (between) {
        const j = k++ % others.length;
        assert.deepEqual(repair(others[j]), alone[j]);
      }
    }
    seen.push(repairer.finish().text);
    return seen;
  };
  const plain = stream(false);
  assert.deepEqual(stream(true), plain);
  assert.equal(plain.at(-1), repair(text).text);
});
