// Inputs the stream tests share: every input of both peers' suites (in
// ../shared/conformance, when it is there: shared.js) and of argmend's own
// corpus (corpus/<family>/*.in), and a seeded PRNG, so a failure names its
// seed and replays.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { find } from "./shared.js";

const corpus = new URL("../../corpus/", import.meta.url);

/** The shared folder of the peers' suites, and what the tests need of it. */
export const SUITES = ["conformance", "jsonrepair's and json_repair's suites, as inputs"];

function suite(name) {
  const dir = find(SUITES[0]);
  if (!dir) return [];
  return readFileSync(join(dir, name), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const record = JSON.parse(line);
      return { id: record.id, input: record.input };
    });
}

function corpusFiles() {
  const out = [];
  for (const family of readdirSync(corpus, { withFileTypes: true })) {
    if (!family.isDirectory()) continue;
    for (const file of readdirSync(new URL(`${family.name}/`, corpus))) {
      if (file.endsWith(".in")) {
        out.push({ id: `${family.name}/${file}`, input: readFileSync(new URL(`${family.name}/${file}`, corpus), "utf8") });
      }
    }
  }
  return out;
}

/** The inputs of the peers' suites (none without the shared folder). */
export const peerInputs = [...suite("jsonrepair.jsonl"), ...suite("json_repair.jsonl")];

/** Every input, with an id. */
export const inputs = [...peerInputs, ...corpusFiles()];

/** mulberry32: a small, well-mixed 32-bit PRNG. */
export function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `whole` cut into random pieces of 0 to `max` units (strings: UTF-16 code
 * units, so a surrogate pair may be split; arrays: bytes). */
export function cut(whole, random, max = 8) {
  const pieces = [];
  let at = 0;
  while (at < whole.length) {
    const n = Math.floor(random() * (max + 1));
    pieces.push(whole.slice(at, at + n));
    at += n;
  }
  return pieces;
}
