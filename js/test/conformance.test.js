// The jsonrepair drop-in on jsonrepair's own suite: the same answer as the
// Rust engine on every case (fixtures/engine-answers.jsonl, which
// tests/js.rs holds to the engine), and jsonrepair's error where the engine
// finds no JSON.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { repair, Repairer } from "argmend";
import { jsonrepair, JSONRepairError } from "argmend/jsonrepair";

const answers = readFileSync(new URL("fixtures/engine-answers.jsonl", import.meta.url), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line));

test("the fixture covers jsonrepair's whole suite", () => {
  assert.equal(answers.length, 435);
});

test("jsonrepair() gives the Rust engine's text on every case", () => {
  let same = 0;
  for (const answer of answers) {
    if (answer.error) continue;
    assert.equal(jsonrepair(answer.input), answer.text, `${answer.id}: ${JSON.stringify(answer.input)}`);
    same += 1;
  }
  assert.ok(same >= 430, `only ${same} cases had a text`);
});

test("jsonrepair() throws JSONRepairError exactly where the engine finds no JSON", () => {
  const refused = answers.filter((answer) => answer.error);
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

test("repair() and a Repairer give the same text and verdict as the engine", () => {
  for (const answer of answers) {
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
