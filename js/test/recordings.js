// The recorded model streams of corpus/model_streams, as the HTTP bodies an
// API sends, for the SDK tests (sdk.test.js). The same rules as Python's
// python/tests/recordings.py, so both packages are checked on the same bytes.
//
// Two kinds of recording:
//
// - corpus/model_streams/<format>.jsonl: one event's JSON per line, with
//   <format>.events, what argmend's Rust adapter reports for it (one
//   ClientEvent::to_json per line). Served as the API would: `data:` lines,
//   with an `event: <type>` line before each for Anthropic and the Responses
//   API, and `data: [DONE]` at the end of a Chat stream.
// - ../shared/model_streams/sdk/<format>/*.sse: the SDKs' own recorded
//   bodies (the README there says where each comes from; other projects'
//   data, kept beside the checkout: shared.js), served byte for byte.
//   Two changes only, both what the real servers send: a file holding
//   several recorded responses one after the other (a multi-step run) is
//   served as one body per response, as a client would request them; and an
//   Anthropic event recorded without its `event:` line (vercel/ai's fixtures
//   keep the data only) gets it back, since the Anthropic SDK reads an event
//   by that line and drops one without it.

import { readFileSync, readdirSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

import { find } from "./shared.js";

/** <repo>/corpus/model_streams (this file is <repo>/js/test/recordings.js). */
export const STREAMS = fileURLToPath(new URL("../../corpus/model_streams/", import.meta.url));
export const FORMATS = ["openai_chat", "openai_responses", "anthropic"];
/** The shared folder of the SDKs' recordings, and what the tests need of it. */
export const SDK = ["model_streams/sdk", "the SDKs' recorded streams"];

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * `{block, data}` for each event of an SSE body with JSON data (not
 * `[DONE]`, not an empty one). Blocks are split as the SSE spec splits
 * events (a blank line), so a recorded block can be served again unchanged.
 * @param {string} text
 */
export function* parseSse(text) {
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => (line.startsWith("data: ") ? line.slice(6) : line.slice(5)))
      .join("\n")
      .trim();
    if (data && data !== "[DONE]") yield { block, data };
  }
}

function startsResponse(format, event) {
  return (
    (format === "openai_responses" && event.type === "response.created") ||
    (format === "anthropic" && event.type === "message_start")
  );
}

/** The recorded responses of one `.sse` file, each as the body the API sent. */
function sseBodies(format, text) {
  const responses = [];
  let changed = false;
  for (let { block, data } of parseSse(text)) {
    const event = JSON.parse(data);
    if (responses.length === 0 || (startsResponse(format, event) && responses.at(-1).length > 0)) responses.push([]);
    if (format === "anthropic" && !block.split(/\r?\n/).some((line) => line.startsWith("event:"))) {
      block = `event: ${event.type}\n${block}`;
      changed = true;
    }
    responses.at(-1).push(block);
  }
  if (responses.length === 1 && !changed) return [encoder.encode(text)]; // as recorded, byte for byte
  const done = text.includes("data: [DONE]") ? "\n\ndata: [DONE]" : "";
  return responses.map((blocks) => encoder.encode(blocks.join("\n\n") + done + "\n\n"));
}

function jsonlBody(format, text) {
  let out = "";
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const { type } = JSON.parse(line);
    out += format === "openai_chat" ? `data: ${line}\n\n` : `event: ${type}\ndata: ${line}\n\n`;
  }
  if (format === "openai_chat") out += "data: [DONE]\n\n";
  return encoder.encode(out);
}

/**
 * One recorded response of a stream.
 * @typedef {object} Recording
 * @property {string} name e.g. `openai_chat.jsonl`, `sdk/anthropic/x.sse#1`
 * @property {"openai_chat" | "openai_responses" | "anthropic"} format
 * @property {Uint8Array} body the HTTP body, as the API sends it
 * @property {object[] | null} expected what the Rust adapter reports (`.jsonl` only)
 */

/**
 * Every recording: the `.jsonl` streams, then the SDKs' own, by name (none
 * when ../shared/model_streams/sdk is missing).
 * @returns {Recording[]}
 */
export function recordings() {
  const out = [];
  for (const format of FORMATS) {
    const text = readFileSync(join(STREAMS, `${format}.jsonl`), "utf8");
    const expected = readFileSync(join(STREAMS, `${format}.events`), "utf8")
      .split("\n")
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line));
    out.push({ name: `${format}.jsonl`, format, body: jsonlBody(format, text), expected });
  }
  const sdk = find(SDK[0]);
  for (const format of sdk ? FORMATS : []) {
    const dir = join(sdk, format);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).filter((name) => name.endsWith(".sse")).sort()) {
      const bodies = sseBodies(format, readFileSync(join(dir, file), "utf8"));
      bodies.forEach((body, n) => {
        const suffix = bodies.length > 1 ? `#${n}` : "";
        out.push({ name: `sdk/${format}/${file}${suffix}`, format, body, expected: null });
      });
    }
  }
  return out;
}

/** The body's events as objects, as an SDK would parse them. */
export function bodyEvents(recording) {
  return [...parseSse(decoder.decode(recording.body))].map(({ data }) => JSON.parse(data));
}

/**
 * A `fetch` for the SDKs' `fetch` option: answers every request with `body`
 * as a server-sent event stream, sent in `chunkSize`-byte pieces (so the
 * SDK's own SSE decoder meets events and characters cut across reads, as
 * on a real socket), and keeps the requests it got (`fetch.requests`).
 * @param {Uint8Array} body
 * @param {{chunkSize?: number}} [options]
 */
export function serve(body, { chunkSize = 61 } = {}) {
  const requests = [];
  async function fetch(url, init = {}) {
    requests.push({ url: String(url), method: init.method, body: init.body === undefined ? undefined : String(init.body) });
    let offset = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (offset >= body.length) {
          controller.close();
          return;
        }
        controller.enqueue(body.slice(offset, offset + chunkSize));
        offset += chunkSize;
      },
    });
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } });
  }
  fetch.requests = requests;
  return fetch;
}
