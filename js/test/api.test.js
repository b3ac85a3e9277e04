// argmend's own API: results, options, errors, the tool layer.

import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ArgmendError,
  OpenAIChatStream,
  Repairer,
  ToolCallStream,
  init,
  isReady,
  normalizeToolArgs,
  repair,
  version,
} from "argmend";

test("Node loads the module on import; init() resolves at once", async () => {
  assert.ok(isReady());
  await init();
  assert.match(version(), /^\d+\.\d+\.\d+/);
});

test("repair() gives text, verdict, fixes and doubts", () => {
  const outcome = repair("{name: 'John', tags: ['a', 'b',]}");
  assert.equal(outcome.text, '{"name": "John", "tags": ["a", "b"]}');
  assert.equal(outcome.verdict, "repaired");
  assert.deepEqual(
    outcome.fixes.map((fix) => fix.kind),
    ["quoted_key", "replaced_quotes", "quoted_key", "replaced_quotes", "replaced_quotes", "removed_comma"],
  );
  assert.deepEqual(outcome.fixes[5], { kind: "removed_comma", offset: 30, truncation: false });
  assert.deepEqual(outcome.doubts, []);
});

test("valid JSON passes through byte for byte", () => {
  const text = '{ "a" : [1, 2.50, "x\\u0041"],\n  "b": null }';
  assert.deepEqual(repair(text), { text, verdict: "valid", fixes: [], doubts: [] });
});

test("a cut-off input is completed, and says so", () => {
  const outcome = repair('{"a": "trunc');
  assert.equal(outcome.text, '{"a": "trunc"}');
  assert.equal(outcome.verdict, "completed");
  assert.ok(outcome.fixes.every((fix) => fix.truncation));
});

test("a guess the input cannot settle is a doubt", () => {
  // The value may end at the first closing brace, or run on to the last.
  const outcome = repair('{"a": "x"} note: "done"');
  assert.equal(outcome.doubts.length, 1, JSON.stringify(outcome));
  const [doubt] = outcome.doubts;
  assert.equal(doubt.kind, "early_close");
  assert.equal(doubt.offset, 11);
  assert.match(doubt.reason, /\w/);
});

test("nothing JSON-like is the not_json verdict, with a reason", () => {
  const outcome = repair("   ");
  assert.equal(outcome.verdict, "not_json");
  assert.equal(outcome.text, "");
  assert.equal(typeof outcome.reason, "string");
});

test("several values: first, lines or array", () => {
  // The second value is dropped, and the whitespace before it with it.
  assert.equal(repair('{"a":1} {"b":2}').text, '{"a":1}');
  assert.equal(repair('{"a": 1} {"b": 2}').text, '{"a": 1}');
  assert.equal(repair('{"a":1} {"b":2}', { values: "lines" }).text, '{"a":1}\n{"b":2}');
  assert.equal(repair('{"a":1} {"b":2}', { values: "array" }).text, '[{"a":1}, {"b":2}]');
});

test("limits are ArgmendError with a kind", () => {
  assert.throws(
    () => repair("[[[[1]]]]", { maxDepth: 2 }),
    (error) => error instanceof ArgmendError && error instanceof Error && error.kind === "too_deep",
  );
  assert.throws(
    () => repair("[1, 2, 3]", { maxInputBytes: 4 }),
    (error) => error instanceof ArgmendError && error.kind === "too_large",
  );
  const repairer = new Repairer({ maxInputBytes: 4 });
  assert.throws(() => repairer.feed("[1, 2, 3]"), (error) => error.kind === "too_large");
  // A caller taking snapshots feeds through the coded path (one number
  // back, the error fetched after): the same errors, and the snapshot
  // still what was settled before the limit.
  for (const [options, input, kind] of [
    [{ maxInputBytes: 6 }, "[1, 2, 3]", "too_large"],
    [{ maxDepth: 2 }, "[[[[1]]]]", "too_deep"],
  ]) {
    const streamed = new Repairer(options);
    streamed.feed(input.slice(0, 2));
    assert.doesNotThrow(() => JSON.parse(streamed.snapshot() || "null"));
    assert.throws(
      () => streamed.feed(input.slice(2)),
      (error) => error instanceof ArgmendError && error.kind === kind,
      `${kind} through the coded path`,
    );
    assert.throws(() => streamed.feed("]"), (error) => error instanceof ArgmendError && error.kind === kind);
  }
});

test("bad arguments are ArgmendError invalid_argument, naming the argument", () => {
  const invalid = (fn, pattern) =>
    assert.throws(fn, (error) => error instanceof ArgmendError && error.kind === "invalid_argument" && pattern.test(error.message));
  invalid(() => repair(42), /repair: input must be a string or a Uint8Array, not number/);
  invalid(() => repair("{}", { maxdepth: 3 }), /unknown option "maxdepth"/);
  invalid(() => repair("{}", { values: "all" }), /values must be/);
  invalid(() => repair("{}", { maxDepth: -1 }), /maxDepth/);
  invalid(() => repair("{}", []), /options must be an object/);
  invalid(() => new Repairer().feed(null), /chunk must be a string or a Uint8Array, not null/);
  invalid(() => normalizeToolArgs(3, "x"), /tool name must be a string/);
  invalid(() => normalizeToolArgs("t", "{}", "not a schema"), /schema must be/);
});

test("a finished stream refuses further use", () => {
  const repairer = new Repairer();
  repairer.feed("[1");
  repairer.finish();
  for (const use of [() => repairer.feed("2"), () => repairer.snapshot(), () => repairer.finish()]) {
    assert.throws(use, (error) => error instanceof ArgmendError && error.kind === "finished");
  }
  const call = new ToolCallStream("t");
  call.finish();
  assert.throws(() => call.feed("{"), (error) => error.kind === "finished");
});

test("Repairer: committed text only grows; the snapshot is valid JSON after every chunk", () => {
  const repairer = new Repairer();
  let committed = "";
  const chunks = ["{'city': 'Par", "is', temp: 21,", " tags: ['a',", " 'b'"];
  for (const chunk of chunks) {
    committed += repairer.feed(chunk);
    assert.equal(repairer.text, committed);
    const snapshot = repairer.snapshot();
    assert.ok(snapshot.startsWith(committed));
    JSON.parse(snapshot);
  }
  const outcome = repairer.finish();
  assert.equal(outcome.text, '{"city": "Paris", "temp": 21, "tags": ["a", "b"]}');
  assert.ok(outcome.text.startsWith(committed));
});

test("Repairer with fields: code with unescaped quotes stays whole", () => {
  const repairer = new Repairer({ fields: ["path", "content"] });
  repairer.feed('{"content": "f("a", "b": 1)", "path": "x.py"}');
  assert.equal(repairer.finish().text, '{"content": "f(\\"a\\", \\"b\\": 1)", "path": "x.py"}');
});

test("repair with schema or fields: the keys say where a string with unescaped quotes ends", () => {
  // `"b"` is no declared key, so `, "b": ` is part of the text.
  const input = '{"a": "say "hi", "b": "x"}';
  const whole = '{"a": "say \\"hi\\", \\"b\\": \\"x"}';
  // Without them, `"b"` reads as a key of its own.
  assert.equal(repair(input).text, '{"a": "say \\"hi", "b": "x"}');
  const schema = { type: "object", properties: { a: { type: "string" } } };
  for (const options of [{ fields: ["a"] }, { schema }]) {
    const outcome = repair(input, options);
    assert.equal(outcome.text, whole, JSON.stringify(options));
    // As a `Repairer` given the same options answers, fed whole or in pieces.
    for (const size of [input.length, 5]) {
      const repairer = new Repairer(options);
      for (let i = 0; i < input.length; i += size) repairer.feed(input.slice(i, i + size));
      const streamed = repairer.finish();
      assert.equal(streamed.text, outcome.text);
      assert.deepEqual(streamed.fixes, outcome.fixes);
      assert.deepEqual(streamed.doubts, outcome.doubts);
    }
  }
  // The same input as bytes: the hints apply there too.
  assert.equal(repair(new TextEncoder().encode(input), { fields: ["a"] }).text, whole);
  // Keys that settle a guess leave no doubt behind.
  const command = '{"command": "echo "a", "b": c"}';
  assert.deepEqual(repair(command).doubts.map((doubt) => doubt.kind), ["quote_as_text"]);
  assert.deepEqual(repair(command, { fields: ["command"] }).doubts, []);
});

test("normalizeToolArgs: a bare value goes to its field; the schema coerces", () => {
  const read = normalizeToolArgs("read_file", "main.go");
  assert.deepEqual(read.args, { file: "main.go" });
  assert.equal(read.verdict, "repaired");
  assert.deepEqual(read.fixes.map((fix) => fix.kind), ["wrapped_value"]);
  // The strategy is the number the CLI and Python report, and its name beside it.
  assert.deepEqual([read.strategy, read.strategyName], [6, "plain_value"]);
  const valid = normalizeToolArgs("read_file", '{"file": "a"}');
  assert.deepEqual([valid.strategy, valid.strategyName], [1, "strict_parse"]);
  const schema = { type: "object", properties: { paths: { type: "array", items: { type: "string" } } } };
  const many = normalizeToolArgs("read_many", '{"paths": "a.py"}', schema);
  assert.equal(many.text, '{"paths": ["a.py"]}');
  assert.deepEqual(many.fixes.map((fix) => fix.kind), ["wrapped_in_array"]);
});

test("normalizeToolArgs: a declared string field keeps code with unescaped quotes", () => {
  const schema = { type: "object", properties: { path: { type: "string" }, content: { type: "string" } } };
  const out = normalizeToolArgs("write_file", '{"path": "a.py", "content": "print("hi")"}', schema);
  assert.deepEqual(out.args, { path: "a.py", content: 'print("hi")' });
});

test("normalizeToolArgs: dropUnknownKeys drops what the schema does not declare", () => {
  const schema = { type: "object", properties: { a: { type: "integer" } } };
  const out = normalizeToolArgs("t", '{"a": "1", "b": 2}', schema, { dropUnknownKeys: true });
  assert.deepEqual(out.args, { a: 1 });
});

test("ToolCallStream: field events, a live value in text order, and the end", () => {
  const call = new ToolCallStream("write_file");
  const done = [];
  for (const fragment of ['{"path": "a.py", "con', 'tent": "print(1)\\n', "\", \"mode\": 'w'}"]) {
    const update = call.feed(fragment);
    for (const event of update.events) if (event.event === "field_done") done.push([event.path, event.value]);
    assert.notEqual(call.value(), undefined);
    JSON.parse(call.snapshot());
  }
  assert.deepEqual(done.slice(0, 2), [["/path", "a.py"], ["/content", "print(1)\n"]]);
  assert.deepEqual(Object.keys(call.value()), ["path", "content", "mode"]);
  const end = call.finish();
  assert.deepEqual(end.args, { path: "a.py", content: "print(1)\n", mode: "w" });
  assert.equal(end.complete, true);
  assert.equal(end.name, "write_file");
  assert.equal(end.cut, null);
  assert.equal(typeof end.strategy, "number");
});

test("an adapter's call_done has the end's fields, `cut` null for a call that arrived whole", () => {
  const adapter = new OpenAIChatStream();
  const chunk = (delta, finish = null) => ({ choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [
    ...adapter.push(chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "read_file", arguments: "{'file': 'a'}" } }] })),
    ...adapter.push(chunk({}, "tool_calls")),
    ...adapter.finish(),
  ];
  const done = events.find((event) => event.event === "call_done");
  assert.equal(done.complete, true);
  assert.strictEqual(done.cut, null);
  assert.deepEqual([done.strategy, done.strategyName], [2, "single_quotes"]);
  // The same fields as a ToolCallStream's end.
  const call = new ToolCallStream("read_file");
  call.feed("{'file': 'a'}");
  const end = call.finish();
  for (const key of ["args", "text", "verdict", "strategy", "strategyName", "cut", "reason"]) {
    assert.deepEqual(done[key], end[key], key);
  }
});

test("ToolCallStream: a cut-off call is not complete", () => {
  const call = new ToolCallStream("write_file");
  call.feed('{"path": "a.py", "content": "x');
  const end = call.finish();
  assert.equal(end.complete, false);
  assert.deepEqual(end.args, { path: "a.py", content: "x" });
});
