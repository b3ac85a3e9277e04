// A drop-in for partial-json's types (npm `partial-json` 0.1.x): the same
// exports, so switching the import is the only change.

/** Allow partial strings like `"hello \u12` to be parsed as `"hello "`. */
export declare const STR = 1;
/** Allow partial numbers like `123.` to be parsed as `123`. */
export declare const NUM = 2;
/** Allow partial arrays like `[1, 2,` to be parsed as `[1, 2]`. */
export declare const ARR = 4;
/** Allow partial objects like `{"a": 1, "b":` to be parsed as `{"a": 1}`. */
export declare const OBJ = 8;
/** Allow `nu` to be parsed as `null`. */
export declare const NULL = 16;
/** Allow `tr` to be parsed as `true`, and `fa` to be parsed as `false`. */
export declare const BOOL = 32;
/** Allow `Na` to be parsed as `NaN`. */
export declare const NAN = 64;
/** Allow `Inf` to be parsed as `Infinity`. */
export declare const INFINITY = 128;
/** Allow `-Inf` to be parsed as `-Infinity`. */
export declare const _INFINITY = 256;
export declare const INF: number;
export declare const SPECIAL: number;
export declare const ATOM: number;
export declare const COLLECTION: number;
export declare const ALL: number;

/**
 * What may be partial; combine with `|`, exclude with `~`.
 *
 * @example
 * parse(`[{"a": 1, "b": 2}, {"a": 3,`, Allow.ARR); // [ { a: 1, b: 2 } ]
 * parse(`["complete string", "incompl`, ~Allow.STR); // [ 'complete string' ]
 */
export declare const Allow: {
  STR: number;
  NUM: number;
  ARR: number;
  OBJ: number;
  NULL: number;
  BOOL: number;
  NAN: number;
  INFINITY: number;
  _INFINITY: number;
  INF: number;
  SPECIAL: number;
  ATOM: number;
  COLLECTION: number;
  ALL: number;
};

/**
 * The text is incomplete in a way `allow` does not accept (an open object
 * without `Allow.OBJ`, a cut string without `Allow.STR` at the top level).
 * More text may make it readable.
 */
export declare class PartialJSON extends Error {}

/**
 * The text cannot be read, and more text will not help: a top-level scalar
 * `JSON.parse` rejects (`1.`, or `tr` without `Allow.BOOL`), text with no
 * JSON in it, or nesting deeper than 512 levels.
 */
export declare class MalformedJSON extends Error {}

/**
 * Parse incomplete JSON as partial-json does, and mend malformed JSON
 * (single quotes, bare keys, comments, trailing commas, Python literals).
 *
 * @param jsonString Partial JSON to be parsed
 * @param allowPartial What may be partial, see {@link Allow} (default `Allow.ALL`)
 * @returns The parsed value
 * @throws {PartialJSON} If the JSON is incomplete in a way `allowPartial` rejects
 * @throws {MalformedJSON} If there is no JSON value to read
 * @throws {Error} If the text is empty or only whitespace
 */
declare function parseJSON(jsonString: string, allowPartial?: number): any;
declare const parse: typeof parseJSON;
export { parse, parseJSON };

/**
 * Load the WebAssembly module (browsers, Deno, edge runtimes; Node loads it
 * on import): `init` from `argmend`, re-exported so a page needs one import.
 */
export { init } from "./index.js";
