// The jsonrepair drop-in on jsonrepair's own suite: the same answer as the
// Rust engine on every case, and jsonrepair's error where the engine finds
// no JSON.
//
// The suite is other projects' data, in ../shared/conformance (shared.js),
// so the Rust engine's answers on it are not committed either: tests/js.rs
// writes them to target/js-engine-answers.jsonl (`cargo test --test main
// js::`; ARGMEND_ENGINE_ANSWERS names another file) before it runs these.
// Without the shared folder the tests on the suite are skipped and say so.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { repair, Repairer } from "argmend";
import { jsonrepair, JSONRepairError } from "argmend/jsonrepair";
import { REPO, find, need, required, skipUnless } from "./shared.js";

const SUITE = ["conformance", "jsonrepair's suite, with the Rust engine's answers on it"];
const ANSWERS = process.env.ARGMEND_ENGINE_ANSWERS || join(REPO, "target", "js-engine-answers.jsonl");
// Run by hand (`cd js && npm test`) before cargo wrote the answers, the
// tests on the suite are skipped with the command that writes them.
const skip =
  skipUnless(...SUITE) ||
  (!existsSync(ANSWERS) && !required() && `needs ${ANSWERS}, the Rust engine's answers: \`cargo test --test main js::\` writes them`);

let read = null;

/** The Rust engine's answer on each case, one per line (written by tests/js.rs), read once. */
function answers() {
  if (read) return read;
  need(...SUITE);
  if (!existsSync(ANSWERS)) {
    throw new Error(`${ANSWERS} is missing: \`cargo test --test main js::\` writes the Rust engine's answers on ${find(SUITE[0])} there`);
  }
  read = readFileSync(ANSWERS, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return read;
}

test("the answers cover jsonrepair's whole suite", { skip }, () => {
  const suite = readFileSync(join(need(...SUITE), "jsonrepair.jsonl"), "utf8").split("\n").filter(Boolean);
  assert.equal(answers().length, suite.length);
  assert.deepEqual(
    answers().map((answer) => answer.id),
    suite.map((line) => JSON.parse(line).id),
  );
});

test("jsonrepair() gives the Rust engine's text on every case", { skip }, () => {
  let same = 0;
  for (const answer of answers()) {
    if (answer.error) continue;
    assert.equal(jsonrepair(answer.input), answer.text, `${answer.id}: ${JSON.stringify(answer.input)}`);
    same += 1;
  }
  assert.ok(same >= 430, `only ${same} cases had a text`);
});

test("jsonrepair() throws JSONRepairError exactly where the engine finds no JSON", { skip }, () => {
  const refused = answers().filter((answer) => answer.error);
  assert.ok(refused.length > 0);
  for (const answer of refused) {
    assert.throws(
      () => jsonrepair(answer.input),
      (error) => {
        assert.ok(error instanceof JSONRepairError, answer.id);
        assert.ok(error instanceof Error);
        assert.equal(error.name, "JSONRepairError");
        assert.equal(error.position, answer.input.length);
        assert.match(error.message, / at position \d+$/);
        return true;
      },
    );
  }
});

test("repair() and a Repairer give the same text and verdict as the engine", { skip }, () => {
  for (const answer of answers()) {
    if (answer.error) {
      assert.equal(repair(answer.input).verdict, "not_json", answer.id);
      continue;
    }
    const outcome = repair(answer.input);
    assert.equal(outcome.text, answer.text, answer.id);
    assert.equal(outcome.verdict, answer.verdict, answer.id);
    const repairer = new Repairer();
    repairer.feed(answer.input);
    assert.equal(repairer.finish().text, answer.text, answer.id);
  }
});

test("jsonrepair() rejects what is not a string, as a TypeError", () => {
  assert.throws(() => jsonrepair(42), TypeError);
  assert.throws(() => jsonrepair(undefined), TypeError);
});
