// Types of the jsonrepair drop-in (`argmend/jsonrepair`): the same as the
// `jsonrepair` package's.

/** jsonrepair's error: the message ends with ` at position N`. */
export class JSONRepairError extends Error {
  constructor(message: string, position: number);
  /** A UTF-16 index into the input. */
  position: number;
}

/**
 * Repair a string containing invalid JSON; returns valid JSON text. Throws
 * `JSONRepairError` when the text holds no JSON at all.
 */
export function jsonrepair(text: string): string;
