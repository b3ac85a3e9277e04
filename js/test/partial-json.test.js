// The partial-json drop-in (`argmend/partial-json`) against the real
// partial-json 0.1.7: every prefix of realistic documents under many `Allow`
// combinations must give partial-json's value or error class, except the
// deliberate divergences listed below (and in corpus/DIVERGENCES.md,
// "partial-json (npm)"). Then what the drop-in is for: malformed text that
// partial-json loses or rejects comes out mended.
//
//   cd js && node --test test/partial-json.test.js

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

// Imported the way a user imports it: the package's own "exports" map.
import * as drop from "argmend/partial-json";
import { Allow, MalformedJSON, PartialJSON, parse } from "argmend/partial-json";

const peer = createRequire(import.meta.url)("partial-json");

const { STR, NUM, ARR, OBJ, NULL, BOOL, NAN, INFINITY, _INFINITY, ALL } = Allow;
const BASIC = [STR, NUM, ARR, OBJ, NULL, BOOL, NAN, INFINITY, _INFINITY];

// ---------------------------------------------------------------------------
// The documents: valid JSON (and partial-json's NaN/Infinity extension) as
// tool-call arguments look. Each is cut at every UTF-16 index, so surrogate
// pairs are cut in half too.

const writeFile = JSON.stringify({
  path: "src/main.rs",
  content: 'fn main() {\n\tprintln!("hello \\"world\\"");\n    let path = "C:\\\\temp\\\\x";\n}\n',
  mode: "overwrite",
});

const search = String.raw`{"query": "weather in Zürich", "filters": {"date": {"from": "2024-01-01", "to": null}, "tags": ["rain", "wind"], "limit": 10, "exact": false, "verbose": true}, "score": -0.75, "boost": 1.5e-3, "big": 12345678901234567890, "avogadro": 6.02E23, "tiny": -1e-7, "zero": 0, "negzero": -0}`;

const pretty = JSON.stringify(
  {
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "get_weather", arguments: { city: "Paris", days: 3 } } },
      { id: "call_2", type: "function", function: { name: "noop", arguments: {} } },
    ],
    parallel: true,
    note: null,
  },
  null,
  2,
);

const unicode = String.raw`{"emoji": "😀 party 🎉", "escaped": "\ud83d\ude00 and \uD83C\uDF89", "cjk": "東京タワー", "accents": "caf\u00e9 \u2603 naïve", "controls": "a\tb\nc\r\\d\/e\bf\f", "quote": "say \"hi\" \\\"", "empty": ""}`;

const arrays = String.raw`[1, [2, [3, [4, []]]], {"a": [{}]}, "end", -12.5e+3, [true, false, null], [], {}]`;

const toolList = String.raw`[{"name":"read_file","arguments":{"path":"README.md","lines":[1,20]}},{"name":"run","arguments":{"cmd":["cargo","test","--","--nocapture"],"timeout":120.5}}]`;

const keys = String.raw`{"k\"ey": 1, "\u00e9t\u00e9": 2, "": 3, "a b": [true, false, null], "a": 1, "a": "two", "b": [1], "b": {"x": 1}, "2": "two", "1": [3]}`;

const spaced = '{ "a" :\n\t[ 1 ,\r\n 2 ] , "b" : { } ,\n "c" : "x" , "d" : -3.5 , "e" : true , "f" : [ ] , "g" : 1 \n}';

const numbers = "[0,-0,1e5,1E+5,-1.25e-10,100,0.5,-7,3e0]";

const specials = "{\"a\": NaN, \"b\": Infinity, \"c\": -Infinity, \"d\": [NaN, -Infinity, Infinity, 1], \"e\": \"NaN\"}";

const nested = String.raw`{"a":{"b":{"c":{"d":[[[["deep", 1.5, {"e": null}]]]]}}}}`;

const scalars = [
  String.raw`"just a string with \" and \\ and \u00e9 and \ud83d\ude00"`,
  "-12.5e+3",
  "1e-7",
  "0",
  "-0",
  "42",
  "true",
  "false",
  "null",
  '""',
  "[]",
  "{}",
  "NaN",
  "Infinity",
  "-Infinity",
];

const DOCUMENTS = [writeFile, search, pretty, unicode, arrays, toolList, keys, spaced, numbers, specials, nested, ...scalars];

// Every basic flag alone and every one left out, and the combinations UIs use.
const COMBOS = [
  ALL,
  0,
  ...BASIC,
  ...BASIC.map((flag) => ~flag),
  STR | OBJ,
  ARR | OBJ,
  STR | ARR,
  NUM | OBJ,
  NUM | ARR,
  STR | NUM | OBJ,
  STR | NUM | ARR | OBJ,
  Allow.COLLECTION,
  Allow.ATOM,
  Allow.SPECIAL,
  Allow.INF,
  Allow.ATOM | OBJ,
  Allow.ATOM | ARR,
  Allow.SPECIAL | Allow.COLLECTION,
];

// All 2^9 combinations of the basic flags, on documents that hold every
// kind of value each flag governs.
const EVERY_COMBO = Array.from({ length: 1 << BASIC.length }, (_, bits) => bits);
const SWEPT = [
  String.raw`[1, "a\u00e9\ud83d\ude00", true, null, {"k": -2.5e3, "f": false}, NaN, -Infinity, [Infinity]]`,
  String.raw`{"a": [1, {"b": "c"}], "n": null, "t": true, "x": 10.5e-2, "s": "é"}`,
];

/**
 * Random documents from a seeded generator (mulberry32): every kind of
 * value, keys and strings full of JSON's own punctuation and of every
 * escape (lone surrogates too), numbers in every form, random whitespace.
 */
function randomDocuments(seed, count) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (list) => list[Math.floor(next() * list.length)];
  const space = () => (next() < 0.7 ? "" : pick([" ", "  ", "\n", "\t", "\r\n  ", " \n "]));
  const PIECES = ["a", "hello", " ", "é", "東京", "😀", "\\n", "\\t", '\\"', "\\\\", "\\/", "\\b", "\\u0041", "\\u00e9", "\\ud83d\\ude00", "\\uD83C\\uDF89", "\\ud800", "\\udc00x", "\\u0000", "e", "null", "1.5", ",", "]", "}", ":", "{", "[", "http:"];
  const NUMBERS = ["0", "-0", "1", "-1", "12", "105", "1.5", "-0.25", "10.0", "1e5", "1E5", "1e+5", "1e-5", "-2.5E-3", "6.02e23", "123456789012345678901234", "3e0"];
  const LITERALS = ["true", "false", "null", "NaN", "Infinity", "-Infinity"];
  const string = () => {
    let text = '"';
    for (let n = Math.floor(next() * 5); n > 0; n--) text += pick(PIECES);
    return `${text}"`;
  };
  // Depth is bounded (5), so plain recursion is fine here.
  const value = (depth) => {
    const r = next();
    const items = [];
    if (depth < 5 && r < 0.2) {
      for (let n = Math.floor(next() * 4); n > 0; n--) items.push(space() + value(depth + 1) + space());
      return `[${items.join(",") || (next() < 0.5 ? "" : "\n")}]`;
    }
    if (depth < 5 && r < 0.45) {
      for (let n = Math.floor(next() * 4); n > 0; n--) items.push(`${space()}${string()}${space()}:${space()}${value(depth + 1)}${space()}`);
      return `{${items.join(",") || space()}}`;
    }
    if (r < 0.65) return string();
    if (r < 0.85) return pick(NUMBERS);
    return pick(LITERALS);
  };
  return Array.from({ length: count }, () => value(0));
}

// ---------------------------------------------------------------------------
// Deliberate divergences in the differential (corpus/DIVERGENCES.md,
// "partial-json (npm)"). Each must occur at least once (the last test
// checks), so a stale entry fails.
const DIVERGENCES = [
  {
    // partial-json's parseArr does not skip whitespace after `[`: in an
    // empty array written `[ ]` it reads `]` as a value, fails, and its
    // catch returns `[]` without consuming the `]`, which then ends the
    // parent too: `[[ ], 1]` is `[[]]`, `{"a": [ ], "b": 1}` is `{a: []}`,
    // and without Allow.ARR the complete text `[ ]` throws PartialJSON.
    // argmend gives JSON.parse's value. Listed only where partial-json,
    // given the same text with each `[ ]` written `[]`, agrees with argmend.
    why: "an empty array with whitespace inside, `[ ]`",
    test: (text, allow, ours) => {
      const tight = withoutBlankArrays(text);
      return tight !== text && agree(ours, outcome(peer, tight, allow));
    },
  },
];

/** `text` with each `[`, whitespace, `]` outside strings written `[]`. */
function withoutBlankArrays(text) {
  const blank = /\[[ \t\n\r]+\]/y;
  let out = "";
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const c = text[at];
    if (inString && c === "\\") {
      out += text.slice(at, at + 2);
      at++;
      continue;
    }
    if (inString) {
      inString = c !== '"';
    } else if (c === '"') {
      inString = true;
    } else if (c === "[") {
      blank.lastIndex = at;
      if (blank.test(text)) {
        out += "[]";
        at = blank.lastIndex - 1;
        continue;
      }
    }
    out += c;
  }
  return out;
}
const occurred = new Map(DIVERGENCES.map((divergence) => [divergence, 0]));

// ---------------------------------------------------------------------------

/** What a parse gave: its value, or its error's class and message. */
function outcome(module, text, allow) {
  try {
    return { value: module.parse(text, allow) };
  } catch (error) {
    let kind = error.constructor.name;
    if (error instanceof module.PartialJSON) kind = "PartialJSON";
    else if (error instanceof module.MalformedJSON) kind = "MalformedJSON";
    return { error: kind, message: error.message };
  }
}

/** Deep equality that also compares key order, -0 and NaN. */
function same(a, b) {
  if (typeof a !== typeof b) return false;
  if (a === null || b === null || typeof a !== "object") return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key, index) => key === keysB[index] && same(a[key], b[key]));
}

/** partial-json's messages end with " at position N"; N may differ (see DIVERGENCES.md). */
function stem(message) {
  return message.replace(/ at position \d+$/, "");
}

function agree(ours, theirs) {
  if ("value" in ours || "value" in theirs) {
    return "value" in ours && "value" in theirs && same(ours.value, theirs.value);
  }
  return ours.error === theirs.error && stem(ours.message) === stem(theirs.message);
}

function show(result) {
  if ("error" in result) return `${result.error}: ${result.message}`;
  const text = JSON.stringify(result.value, (_key, value) =>
    typeof value === "number" && !Number.isFinite(value) ? `<${value}>` : value,
  );
  return text ?? String(result.value);
}

function differential(documents, combos) {
  let compared = 0;
  let agreed = 0;
  let listed = 0;
  const failures = [];
  for (const document of documents) {
    for (let end = 0; end <= document.length; end++) {
      const text = document.slice(0, end);
      for (const allow of combos) {
        const ours = outcome(drop, text, allow);
        const theirs = outcome(peer, text, allow);
        compared++;
        if (agree(ours, theirs)) {
          agreed++;
          continue;
        }
        const divergence = DIVERGENCES.find((entry) => entry.test(text, allow, ours, theirs));
        if (divergence) {
          occurred.set(divergence, occurred.get(divergence) + 1);
          listed++;
          continue;
        }
        failures.push(`${JSON.stringify(text)} allow=${allow}\n    argmend:      ${show(ours)}\n    partial-json: ${show(theirs)}`);
      }
    }
  }
  return { compared, agreed, listed, failures };
}

function report(t, name, { compared, agreed, listed, failures }) {
  const rate = ((100 * agreed) / compared).toFixed(3);
  t.diagnostic(`${name}: ${agreed}/${compared} agree (${rate}%), ${listed} listed divergences, ${failures.length} unlisted`);
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} unlisted disagreements`);
}

test("exports what partial-json exports, with the same values", () => {
  for (const [name, value] of Object.entries(peer)) {
    assert.ok(name in drop, `argmend/partial-json lacks ${name}`);
    if (typeof value === "number") assert.equal(drop[name], value, name);
  }
  assert.deepEqual(drop.Allow, peer.Allow);
  assert.equal(drop.parse, drop.parseJSON);
});

test("differential: every prefix, the usual Allow combinations", (t) => {
  report(t, "partial-json differential (36 combinations)", differential(DOCUMENTS, COMBOS));
});

test("differential: every prefix, all 512 combinations of the basic flags", (t) => {
  report(t, "partial-json differential (all 512 combinations)", differential(SWEPT, EVERY_COMBO));
});

test("differential: every prefix of 400 random documents", (t) => {
  const combos = [ALL, 0, STR, NUM, ARR, OBJ, STR | OBJ, ARR | OBJ, ~STR, ~NUM, ~Allow.SPECIAL, Allow.COLLECTION | NUM];
  report(t, "partial-json differential (400 random documents)", differential(randomDocuments(29, 400), combos));
});

test("every listed divergence occurred", () => {
  for (const [divergence, n] of occurred) assert.ok(n > 0, `stale divergence entry: ${divergence.why}`);
});

test("the Allow flags on the cases partial-json documents", () => {
  assert.deepEqual(parse('[{"a": 1, "b": 2}, {"a": 3,', Allow.ARR), [{ a: 1, b: 2 }]);
  assert.deepEqual(parse('[{"a": 1, "b": 2}, {"a": 3,', ~Allow.OBJ), [{ a: 1, b: 2 }]);
  assert.deepEqual(parse('["complete string", "incompl', ~Allow.STR), ["complete string"]);
  assert.deepEqual(parse('{"a": "hello \\u12'), { a: "hello " });
  assert.deepEqual(parse('{"a": 1, "b":'), { a: 1 });
  assert.deepEqual(parse("[1, 2,"), [1, 2]);
  // A literal is completed only at the very end of the text.
  for (const [text, value] of [["[nu", null], ["[tr", true], ["[fa", false], ["[Na", NaN], ["[Inf", Infinity], ["[-Inf", -Infinity]]) {
    assert.deepEqual(parse(text), [value], text);
    assert.deepEqual(parse(text, ~(Allow.SPECIAL)), [], text);
  }
  assert.deepEqual(parse("[1, 2", ~Allow.NUM), [1]);
  // A valid prefix is read strictly: the engine alone, made for unescaped
  // quotes in model output, would take the quote after `x` for an inner one.
  assert.deepEqual(parse('{"a": "x", "http:'), { a: "x" });
  assert.deepEqual(parse('{"a": "x", "http:'), peer.parse('{"a": "x", "http:'));
});

// ---------------------------------------------------------------------------
// What switching buys: malformed text partial-json rejects or empties.

const MENDED = [
  // [text, argmend's value, partial-json's answer with Allow.ALL]
  ["{'city': 'Paris', 'temp': 21}", { city: "Paris", temp: 21 }, { value: {} }],
  ['{city: "Paris", temp: 21}', { city: "Paris", temp: 21 }, { value: {} }],
  ['{"a": 1, /* why */ "b": 2}', { a: 1, b: 2 }, { value: { a: 1 } }],
  ['{"a": 1 // note\n}', { a: 1 }, { value: {} }],
  ['{"ok": True, "fail": False, "none": None}', { ok: true, fail: false, none: null }, { value: {} }],
  ["[1 2 3]", [1, 2, 3], { value: [] }],
  ["'abc'", "abc", { error: "MalformedJSON" }],
  ["None", null, { error: "MalformedJSON" }],
  ['/* args */ {"a": 1}', { a: 1 }, { error: "MalformedJSON" }],
  ['```json\n{"a": [1, 2]}\n```', { a: [1, 2] }, { error: "MalformedJSON" }],
  // Trailing commas partial-json reads too: the same value.
  ['{"a": 1, "b": 2,}', { a: 1, b: 2 }, { value: { a: 1, b: 2 } }],
  ["[1, 2,]", [1, 2], { value: [1, 2] }],
];

test("malformed text comes out mended", () => {
  for (const [text, value, theirs] of MENDED) {
    assert.deepEqual(parse(text), value, text);
    const peerResult = outcome(peer, text, ALL);
    if ("error" in theirs) assert.equal(peerResult.error, theirs.error, `partial-json on ${text}`);
    else assert.deepEqual(peerResult.value, theirs.value, `partial-json on ${text}`);
  }
});

test("mended and cut: the flags apply to what the end left open", () => {
  assert.deepEqual(parse("{'a': 'b"), { a: "b" });
  assert.deepEqual(parse("{'a': 'b", ~Allow.STR), {});
  assert.throws(() => parse("{'a': 'b", Allow.STR), PartialJSON);
  assert.deepEqual(parse('{city: "Par'), { city: "Par" });
  assert.deepEqual(parse("[True, Fal"), [true, false]);
  assert.deepEqual(parse("[True, Fal", ~Allow.BOOL), [true]);
  assert.deepEqual(parse("[True, Non", ~Allow.NULL), [true]);
  assert.deepEqual(parse("{a: 1, b: [1, 2", ~Allow.ARR), { a: 1 });
  assert.deepEqual(parse("{a: 1, b: [1, 2", ~Allow.NUM), { a: 1, b: [1] });
});

test("every prefix of a malformed stream reads with Allow.ALL", () => {
  const stream = "{'path': 'a.py', content: 'print(\"hi\")\\n', 'lines': [1, 2, 3,], // end\n 'ok': True}";
  let previous;
  for (let end = 1; end <= stream.length; end++) {
    const text = stream.slice(0, end);
    if (!text.trim()) continue;
    const value = parse(text);
    assert.equal(typeof value, "object", text);
    previous = value;
  }
  assert.deepEqual(previous, { path: "a.py", content: 'print("hi")\n', lines: [1, 2, 3], ok: true });
});

// ---------------------------------------------------------------------------
// Errors.

test("error classes, inheritance and messages", () => {
  for (const [Class, Peer] of [
    [PartialJSON, peer.PartialJSON],
    [MalformedJSON, peer.MalformedJSON],
  ]) {
    assert.equal(Class.name, Peer.name);
    assert.equal(Object.getPrototypeOf(Class), Error);
    const error = new Class("x");
    assert.ok(error instanceof Error);
    assert.equal(error.name, new Peer("x").name);
  }

  assert.throws(() => parse("[", 0), PartialJSON);
  assert.throws(() => parse("[", 0), (error) => error instanceof Error && !(error instanceof MalformedJSON));
  assert.throws(() => parse("[", 0), { message: "Expected ']' at end of array at position 1" });
  assert.throws(() => parse('{"a": 1', ~Allow.OBJ), { message: "Expected '}' at end of object at position 7" });
  assert.throws(() => parse('"abc', ~Allow.STR), { message: "Unterminated string literal at position 4" });

  // Top-level scalars partial-json cannot read: its message, JSON.parse's.
  for (const [text, allow] of [
    ["1.", ALL],
    ["1e", ~Allow.NUM],
    ["tr", ~Allow.BOOL],
    ["-", ALL],
    ["-Inf", ~Allow._INFINITY],
    ["Na", ~Allow.NAN],
  ]) {
    const ours = outcome(drop, text, allow);
    const theirs = outcome(peer, text, allow);
    assert.equal(ours.error, "MalformedJSON", text);
    assert.equal(ours.message, theirs.message, text);
  }
  assert.throws(() => parse("-"), { message: "Not sure what '-' is at position 0" });

  // Empty text and a non-string: plain Error and TypeError, as partial-json.
  for (const text of ["", "   ", "\n\t"]) {
    const ours = outcome(drop, text, ALL);
    assert.equal(ours.error, "Error");
    assert.equal(ours.message, outcome(peer, text, ALL).message);
  }
  assert.throws(() => parse(42), { name: "TypeError", message: "expecting str, got number" });
  assert.throws(() => parse(undefined), TypeError);
});

test("deep nesting neither crashes nor recurses", () => {
  // Within the engine's limit of 512 levels: partial-json's answer.
  for (const text of ["[".repeat(512), "[".repeat(512) + "]".repeat(512), '{"a":'.repeat(511) + "1"]) {
    for (const allow of [ALL, 0, ~Allow.ARR]) {
      assert.ok(agree(outcome(drop, text, allow), outcome(peer, text, allow)), `${text.slice(0, 12)}… ${allow}`);
    }
  }
  // Deeper: MalformedJSON with the limit and where it was crossed.
  for (const text of [
    "[".repeat(513),
    "[".repeat(10_000),
    "[".repeat(10_000) + "]".repeat(10_000),
    '{"a":'.repeat(10_000) + "1",
    '[{"a":'.repeat(10_000),
    "[".repeat(1_000_000),
  ]) {
    assert.throws(() => parse(text), (error) => {
      assert.ok(error instanceof MalformedJSON);
      assert.match(error.message, /^nesting deeper than 512 levels at position \d+$/);
      return true;
    });
  }
});

// ---------------------------------------------------------------------------
// The deliberate divergences (corpus/DIVERGENCES.md, "partial-json (npm)").

test("divergence: __proto__ is an own key, as JSON.parse makes it", () => {
  for (const text of ['{"__proto__": {"x": 1}}', '{"__proto__": {"x": 1}, "a": "b']) {
    const ours = parse(text);
    assert.ok(Object.hasOwn(ours, "__proto__"), text);
    assert.equal(Object.getPrototypeOf(ours), Object.prototype);
    const theirs = peer.parse(text);
    assert.ok(!Object.hasOwn(theirs, "__proto__")); // partial-json set the prototype instead
    assert.equal(theirs.x, 1);
  }
  assert.deepEqual(parse('{"__proto__": {"x": 1}}'), JSON.parse('{"__proto__": {"x": 1}}'));
});

test("divergence: a lone surrogate before the end of a cut text becomes U+FFFD", () => {
  const text = '["\uD800", "x';
  assert.deepEqual(parse(text), ["\uFFFD", "x"]);
  assert.deepEqual(peer.parse(text), ["\uD800", "x"]);
  // At the end (a pair cut in half) and in complete text, partial-json's.
  assert.deepEqual(parse('["x\uD83D'), ["x\uD83D"]);
  assert.deepEqual(parse('["\uD800", "x"]'), ["\uD800", "x"]);
  assert.deepEqual(parse('["\\ud800", "x'), ["\uD800", "x"]);
});

test("divergence: what partial-json reads from malformed text", () => {
  // partial-json cuts a number at the first `,`, `]` or `}` and drops what
  // JSON.parse then refuses, with the rest of its container: `{}`.
  assert.deepEqual(peer.parse('{"a": 1 "b": 2}'), {});
  assert.deepEqual(parse('{"a": 1 "b": 2}'), { a: 1, b: 2 });
  // Text after a complete top-level value: both drop it.
  assert.deepEqual(parse('{"a": 1} trailing'), peer.parse('{"a": 1} trailing'));
});
