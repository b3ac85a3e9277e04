// A drop-in for jsonrepair (npm `jsonrepair`): change
//
//   import { jsonrepair, JSONRepairError } from "jsonrepair";
//
// to
//
//   import { jsonrepair, JSONRepairError } from "argmend/jsonrepair";
//
// Same signature and error class. The answers differ where argmend
// deliberately mends otherwise (code with unescaped quotes stays whole, a
// cut-off string is closed where it was cut, several values are not merged
// into an array): corpus/DIVERGENCES.md lists every case of jsonrepair's own
// suite, and js/README.md sums them up. It throws only where argmend finds
// no JSON at all (empty input, only whitespace or comments), where jsonrepair
// throws too; it never throws on text jsonrepair gives up on.

import { internal } from "./core.js";

/**
 * jsonrepair's error: `message` ends with ` at position N`, and `position`
 * is N (a UTF-16 index into the input).
 */
export class JSONRepairError extends Error {
  /**
   * @param {string} message
   * @param {number} position
   */
  constructor(message, position) {
    super(`${message} at position ${position}`);
    this.name = "JSONRepairError";
    this.position = position;
  }
}

/**
 * Repair a string containing invalid JSON; returns valid JSON text, laid out
 * as the input was. Throws `JSONRepairError` when the text holds no JSON.
 *
 * @param {string} text
 * @returns {string}
 * @example
 * jsonrepair("{name: 'John'}") // '{"name": "John"}'
 */
export function jsonrepair(text) {
  if (typeof text !== "string") {
    throw new TypeError(`jsonrepair: text must be a string, not ${internal.describe(text)}`);
  }
  const repaired = internal.jsonrepairText(text);
  if (repaired !== undefined) return repaired;
  // The engine's reason is not asked for: jsonrepair's wording is kept.
  // jsonrepair says this when the text ends before any value: the position
  // is where the text ended.
  throw new JSONRepairError("Unexpected end of json string", text.length);
}
