// A drop-in for partial-json (npm `partial-json`): change
//
//   import { parse, Allow, PartialJSON, MalformedJSON } from "partial-json";
//
// to
//
//   import { parse, Allow, PartialJSON, MalformedJSON } from "argmend/partial-json";
//
// Same exports, flag values and error classes. On text partial-json reads
// (a prefix of JSON) the value is partial-json's, for every `Allow`
// combination. On malformed text, which partial-json empties to `{}` or
// `[]` or throws on (single quotes, bare keys, comments, Python literals, a
// missing comma), the value is argmend's repair of it; the flags then apply
// to what the end of the text left open, as the engine read it. The few
// deliberate differences are in corpus/DIVERGENCES.md, "partial-json (npm)".
//
// One module call (js/src/partial/) reads the text: strictly when it is a
// JSON prefix (exactly as partial-json reads it), through the engine's
// repair otherwise; then one scan of the result applies the flags to the
// containers and the value the end cut. It is linear in the text and uses
// no recursion, so any nesting is safe; deeper than the engine's limit (512
// levels) throws `MalformedJSON`.

import { internal } from "./core.js";

// Browsers, Deno and edge runtimes: `await init()` once before the first
// parse (Node's entry, lib/node/partial-json.js, loads the module on import).
export { init } from "./core.js";

/** Allow partial strings like `"hello \u12` to be parsed as `"hello "`. */
export const STR = 0b000000001;
/** Allow partial numbers like `123.` to be parsed as `123`. */
export const NUM = 0b000000010;
/** Allow partial arrays like `[1, 2,` to be parsed as `[1, 2]`. */
export const ARR = 0b000000100;
/** Allow partial objects like `{"a": 1, "b":` to be parsed as `{"a": 1}`. */
export const OBJ = 0b000001000;
/** Allow `nu` to be parsed as `null`. */
export const NULL = 0b000010000;
/** Allow `tr` to be parsed as `true`, and `fa` to be parsed as `false`. */
export const BOOL = 0b000100000;
/** Allow `Na` to be parsed as `NaN`. */
export const NAN = 0b001000000;
/** Allow `Inf` to be parsed as `Infinity`. */
export const INFINITY = 0b010000000;
/** Allow `-Inf` to be parsed as `-Infinity`. */
export const _INFINITY = 0b100000000;
export const INF = INFINITY | _INFINITY;
export const SPECIAL = NULL | BOOL | INF | NAN;
export const ATOM = STR | NUM | SPECIAL;
export const COLLECTION = ARR | OBJ;
export const ALL = ATOM | COLLECTION;

/** What may be partial; combine with `|`, exclude with `~` (`~Allow.STR`). */
export const Allow = { STR, NUM, ARR, OBJ, NULL, BOOL, NAN, INFINITY, _INFINITY, INF, SPECIAL, ATOM, COLLECTION, ALL };

/**
 * The text is incomplete in a way `allow` does not accept (an open object
 * without `Allow.OBJ`, a cut string without `Allow.STR` at the top level).
 * More text may make it readable.
 */
export class PartialJSON extends Error {}

/**
 * The text cannot be read, and more text will not help: a top-level scalar
 * `JSON.parse` rejects (`1.`, or `tr` without `Allow.BOOL`), text with no
 * JSON in it, or nesting deeper than 512 levels.
 */
export class MalformedJSON extends Error {}

// NaN has no JSON text: the module writes it as this string, and the
// reviver below turns it back. A fresh marker per process, so no string a
// model writes is taken for it.
const NAN_MARK = `\u0000argmend:NaN:${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;

function reviveNaN(_key, value) {
  return value === NAN_MARK ? NaN : value;
}

/**
 * Parse incomplete JSON, as partial-json does, and mend malformed JSON.
 *
 * @param {string} jsonString Partial JSON to be parsed
 * @param {number} [allowPartial] What may be partial (default `Allow.ALL`)
 * @returns {any}
 * @throws {PartialJSON} If the JSON is incomplete in a way `allowPartial` rejects
 * @throws {MalformedJSON} If there is no JSON value to read
 * @example
 * parse('{"city": "Par') // { city: "Par" }
 * parse("{'city': 'Paris', temp: 21,") // { city: "Paris", temp: 21 }
 */
export function parseJSON(jsonString, allowPartial = ALL) {
  if (typeof jsonString !== "string") {
    throw new TypeError(`expecting str, got ${typeof jsonString}`);
  }
  if (!jsonString.trim()) {
    throw new Error(`${jsonString} is empty`);
  }
  const text = jsonString.trim();
  // partial-json tests each flag with `&`: any value works as it does there.
  const allow = allowPartial & ALL;
  const { call, wasm } = internal;
  // The module reads UTF-8: a high surrogate that ends the text (half a
  // character, cut by a prefix taken in UTF-16 units) would reach it as
  // U+FFFD. Written as its escape instead, a cut string keeps it as
  // partial-json keeps it.
  const last = text.charCodeAt(text.length - 1);
  const input = last >= 0xd800 && last <= 0xdbff ? `${text.slice(0, -1)}\\u${last.toString(16)}` : text;
  let answer = call(() => wasm.partial_parse(input, allow, undefined));
  if (answer === "N") answer = call(() => wasm.partial_parse(input, allow, NAN_MARK));
  switch (answer.charCodeAt(0)) {
    case 0x76: // v: valid JSON as it is
      return JSON.parse(text);
    case 0x6a: // j
      return JSON.parse(answer.slice(1));
    case 0x6e: // n: NaN inside
      return JSON.parse(answer.slice(1), reviveNaN);
    case 0x50: // P
      throw new PartialJSON(`${answer.slice(1)} at position ${text.length}`);
    case 0x4d: // M: partial-json's message, JSON.parse's own
      throw new MalformedJSON(malformedMessage(text));
    case 0x45: // E: a limit
      throw new MalformedJSON(answer.slice(1));
    default:
      throw new Error(`argmend: unexpected answer from the module: ${answer.slice(0, 20)}`);
  }
}

export const parse = parseJSON;

/** partial-json's message for a top-level value it cannot read. */
function malformedMessage(text) {
  if (text === "-") return "Not sure what '-' is at position 0";
  try {
    JSON.parse(text);
  } catch (error) {
    return `${String(error)} at position 0`;
  }
  return `Unexpected token at position 0`;
}
