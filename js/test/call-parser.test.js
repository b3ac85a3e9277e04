// Issue 44: CallParser, the tool calls a model writes in its text, in every
// open-weight format, with the stream adapters' events (and the text around
// the calls). Each format's call is our own text, fed whole and in random
// chunks (strings cut between UTF-16 units, and UTF-8 bytes cut anywhere),
// and must give the same calls; a call the text cuts off is not complete.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ArgmendError, CallParser } from "../lib/node.js";

const tools = [{
  type: "function",
  function: {
    name: "write_file",
    parameters: { type: "object", properties: { path: { type: "string" }, content: { type: "string" }, mode: { type: "integer" } } },
  },
}];
const truth = { path: "src/é.py", content: 'print("hi 👋")\nx = {"a": [1, 2]}\n', mode: 644 };
const args = JSON.stringify(truth);

const calls = {
  hermes: `<tool_call>\n{"name": "write_file", "arguments": ${args}}\n</tool_call>`,
  mistral_v11: `[TOOL_CALLS]write_file[ARGS]${args}`,
  kimi_k2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>${args}<|tool_call_end|><|tool_calls_section_end|>`,
  gpt_oss: `<|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>${args}<|call|>`,
  qwen3_coder: "<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/é.py\n</parameter>\n"
    + '<parameter=content>\nprint("hi 👋")\nx = {"a": [1, 2]}\n\n</parameter>\n<parameter=mode>\n644\n</parameter>\n</function>\n</tool_call>',
  glm45: "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>src/é.py</arg_value>\n"
    + '<arg_key>content</arg_key>\n<arg_value>print("hi 👋")\nx = {"a": [1, 2]}\n</arg_value>\n<arg_key>mode</arg_key>\n<arg_value>644</arg_value>\n</tool_call>',
  gemma4: '<|tool_call>call:write_file{path:<|"|>src/é.py<|"|>,content:<|"|>print("hi 👋")\nx = {"a": [1, 2]}\n<|"|>,mode:644}<tool_call|>',
  pythonic: "[write_file(path='src/é.py', content='print(\"hi 👋\")\\nx = {\"a\": [1, 2]}\\n', mode=644)]",
};

function run(parser, chunks) {
  const events = [];
  for (const chunk of chunks) events.push(...parser.feed(chunk));
  events.push(...parser.finish());
  return events;
}

function summary(events) {
  const text = events.filter((e) => e.event === "text").map((e) => e.text).join("");
  const calls = events
    .filter((e) => e.event === "call_started" || e.event === "call_done")
    .map((e) => (e.event === "call_done" ? [e.event, e.call, e.name, e.args, e.complete] : [e.event, e.call, e.name]));
  return { text, calls };
}

function random(seed) {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return 1 + (state % n);
  };
}

for (const [format, call] of Object.entries(calls)) {
  test(`${format}: the call, in any chunks`, () => {
    const text = `Let me write it.\n${call}\nDone.`;
    const whole = run(new CallParser({ format, tools }), [text]);
    const done = whole.filter((e) => e.event === "call_done");
    assert.deepEqual(done.map((e) => [e.name, e.args, e.complete]), [["write_file", truth, true]]);
    assert.ok(summary(whole).text.startsWith("Let me write it.\n"));
    const next = random(format.length);
    for (let round = 0; round < 10; round++) {
      const strings = [];
      for (let at = 0; at < text.length;) {
        const n = next(7);
        strings.push(text.slice(at, at + n));
        at += n;
      }
      assert.deepEqual(summary(run(new CallParser({ format, tools }), strings)), summary(whole));
      const bytes = new TextEncoder().encode(text);
      const pieces = [];
      for (let at = 0; at < bytes.length;) {
        const n = next(7);
        pieces.push(bytes.subarray(at, at + n));
        at += n;
      }
      assert.deepEqual(summary(run(new CallParser({ format, tools }), pieces)), summary(whole));
    }
  });

  test(`${format}: a call cut off is not complete`, () => {
    const cut = call.slice(0, call.indexOf("print") + 9);
    const done = run(new CallParser({ format, tools }), [cut]).filter((e) => e.event === "call_done");
    assert.equal(done.length, 1);
    assert.equal(done[0].complete, false);
    assert.ok(done[0].args.content.startsWith('print("h'), JSON.stringify(done[0].args));
  });
}

test("the format is told by the first marker", () => {
  for (const format of ["kimi_k2", "gpt_oss", "qwen3_coder", "glm45", "gemma4"]) {
    const done = run(new CallParser({ tools }), [`Sure. ${calls[format]}`]).filter((e) => e.event === "call_done");
    assert.deepEqual(done.map((e) => e.args), [truth], format);
  }
});

test("live values, names, the event shapes", () => {
  const parser = new CallParser({ format: "kimi_k2" });
  const events = parser.feed('<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": "x');
  assert.deepEqual(events[0], { event: "call_started", call: 0, id: null, name: "f" });
  assert.deepEqual(parser.value(0), { a: "x" });
  assert.equal(parser.name(0), "f");
  assert.equal(parser.calls, 1);
  const end = parser.feed('y"}<|tool_call_end|>');
  assert.deepEqual(end.at(-1).args, { a: "xy" });
  assert.equal(end.at(-1).verdict, "valid");
  parser.finish();
  assert.throws(() => parser.feed("more"), ArgmendError);
});

test("prose stays text; a nameless call is skipped", () => {
  const events = run(new CallParser(), ["I could emit a <tool_call> here, but ", "<tool_call>{}</tool_call>", " no."]);
  assert.equal(summary(events).text, "I could emit a <tool_call> here, but  no.");
  assert.deepEqual(events.filter((e) => e.event === "skipped").map((e) => e.kind), ["nameless_call"]);
});

test("formats and a bad format", () => {
  assert.ok(CallParser.formats().includes("qwen3_coder"));
  assert.throws(() => new CallParser({ format: "no_such_format" }), (error) => error instanceof ArgmendError && /qwen3_coder/.test(error.message));
  assert.throws(() => new CallParser({ format: 3 }), ArgmendError);
  assert.throws(() => new CallParser({ frmat: "x" }), ArgmendError);
  assert.equal(new CallParser({ format: "qwen3_xml" }).format, "qwen3_xml");
});
