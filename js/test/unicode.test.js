// UTF-8 and UTF-16 at the edges of chunks: surrogate pairs split across
// string chunks, characters split across byte chunks, lone surrogates, and
// offsets that index the caller's own string.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Repairer, ToolCallStream, normalizeToolArgs, repair } from "argmend";
import { jsonrepair } from "argmend/jsonrepair";

const encoder = new TextEncoder();
const text = "{'emoji': '😀👍🏽', 'cjk': '中文', 'accent': 'é', 'flag': '🇫🇷'}";

test("a surrogate pair split across string chunks stays one character", () => {
  const whole = repair(text);
  for (let at = 0; at <= text.length; at++) {
    const repairer = new Repairer();
    let committed = repairer.feed(text.slice(0, at));
    assert.ok(!/\uFFFD/.test(committed), `cut at ${at}: ${committed}`);
    JSON.parse(repairer.snapshot() || "null");
    committed += repairer.feed(text.slice(at));
    const outcome = repairer.finish();
    assert.deepEqual(outcome, whole, `cut at ${at}`);
    assert.ok(outcome.text.startsWith(committed));
  }
  assert.deepEqual(JSON.parse(whole.text), { emoji: "😀👍🏽", cjk: "中文", accent: "é", flag: "🇫🇷" });
});

test("a character split across byte chunks, at every byte", () => {
  const bytes = encoder.encode(text);
  const whole = repair(bytes);
  for (let a = 0; a <= bytes.length; a++) {
    for (const b of [a, Math.min(a + 1, bytes.length), Math.min(a + 3, bytes.length)]) {
      const repairer = new Repairer();
      for (const piece of [bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]) {
        assert.ok(!/\uFFFD/.test(repairer.feed(piece)));
      }
      assert.deepEqual(repairer.finish(), whole, `cuts at ${a}, ${b}`);
    }
  }
});

test("fix offsets index the input string in UTF-16 units", () => {
  const outcome = repair(text);
  // Every replaced quote sits at a quote of the input string.
  const quotes = outcome.fixes.filter((fix) => fix.kind === "replaced_quotes");
  assert.ok(quotes.length >= 8);
  for (const fix of quotes) assert.equal(text[fix.offset], "'", `offset ${fix.offset}`);
  // The same fixes fed as bytes count bytes.
  const bytes = encoder.encode(text);
  for (const fix of repair(bytes).fixes.filter((fix) => fix.kind === "replaced_quotes")) {
    assert.equal(bytes[fix.offset], "'".charCodeAt(0));
  }
});

test("offsets after astral characters in a stream still index the whole string", () => {
  const input = "{'a😀': '😀😀', b: 'x',}";
  const repairer = new Repairer();
  for (const piece of input.split("")) repairer.feed(piece);
  const outcome = repairer.finish();
  assert.deepEqual(outcome, repair(input));
  const comma = outcome.fixes.find((fix) => fix.kind === "removed_comma");
  assert.equal(input[comma.offset], ",");
  const key = outcome.fixes.find((fix) => fix.kind === "quoted_key");
  assert.equal(input[key.offset], "b");
});

test("a lone surrogate becomes U+FFFD, once, and never throws", () => {
  for (const input of ['{"a": "x\uD83D"}', '{"a": "\uDE00y"}', '["\uD83D', '"\uD800\uD800"']) {
    const whole = repair(input);
    JSON.parse(whole.text);
    assert.ok(whole.text.isWellFormed(), `${JSON.stringify(whole.text)} keeps a lone surrogate`);
    assert.ok(whole.text.includes("\uFFFD"), JSON.stringify(whole.text));
    const repairer = new Repairer();
    for (const piece of input.split("")) repairer.feed(piece);
    assert.deepEqual(repairer.finish(), whole, JSON.stringify(input));
  }
  // A high surrogate that ends the input is held back until the end.
  const repairer = new Repairer();
  repairer.feed('"ab\uD83D');
  assert.equal(repairer.finish().text, '"ab\uFFFD"');
});

test("ToolCallStream: surrogate pairs and split bytes in fragments", () => {
  const input = '{"path": "a.md", "content": "# 😀 Titre é\\n中文"}';
  const expected = { path: "a.md", content: "# 😀 Titre é\n中文" };
  const call = new ToolCallStream("write_file");
  let streamed = "";
  for (const piece of input.split("")) {
    for (const event of call.feed(piece).events) if (event.event === "delta" && event.path === "/content") streamed += event.text;
  }
  const end = call.finish();
  for (const event of end.events) if (event.event === "delta" && event.path === "/content") streamed += event.text;
  assert.deepEqual(end.args, expected);
  assert.equal(streamed, expected.content);
  const bytes = encoder.encode(input);
  const byBytes = new ToolCallStream("write_file");
  for (let i = 0; i < bytes.length; i++) byBytes.feed(bytes.subarray(i, i + 1));
  assert.deepEqual(byBytes.finish().args, expected);
});

test("normalizeToolArgs: offsets in UTF-16 units", () => {
  const raw = "{'path': '😀.txt', content: 'x'}";
  const out = normalizeToolArgs("write_file", raw);
  assert.deepEqual(out.args, { path: "😀.txt", content: "x" });
  for (const fix of out.fixes.filter((fix) => fix.kind === "replaced_quotes")) assert.equal(raw[fix.offset], "'");
});

test("long strings cross the boundary whole: every length, a wide character at every place", () => {
  // The module converts the text in and out sixteen units a step (SIMD) and
  // the rest a word, then a character, at a time (src/utf16.rs): a wide
  // character at each place of each block length, valid (the caller's own
  // string back) and repaired (the answer built in the module), must come
  // back as it went in.
  for (const wide of ["é", "中", "😀", "\u0080", "\u07ff", "\uffff"]) {
    for (let n = 0; n <= 40; n++) {
      for (let at = 0; at <= n; at += n < 20 ? 1 : 7) {
        const body = "a".repeat(at) + wide + "b".repeat(n - at) + "~";
        const want = JSON.stringify({ s: body, t: "x".repeat(n) });
        assert.equal(jsonrepair(want), want, `valid, ${JSON.stringify(wide)} at ${at} of ${n}`);
        // Single quotes: the answer is built (and converted) by the module.
        const broken = `{'s': '${body}', 't': '${"x".repeat(n)}'}`;
        assert.deepEqual(JSON.parse(jsonrepair(broken)), JSON.parse(want), `repaired, ${wide} at ${at} of ${n}`);
        assert.equal(repair(broken).text, jsonrepair(broken));
      }
    }
  }
  // A lone surrogate after a long ASCII run still becomes U+FFFD.
  const lone = `{'s': '${"q".repeat(37)}\ud800${"r".repeat(19)}'}`;
  assert.deepEqual(JSON.parse(jsonrepair(lone)), { s: `${"q".repeat(37)}\ufffd${"r".repeat(19)}` });
});
