// Every ```js example of the package README runs as written, in a module
// inside the package (so `import … from "argmend"` resolves as it does for
// a user), with the names it leaves to the reader defined: `body` (a
// stream of chunks), `render`/`show`/`run` (which record what they get),
// `model`, `messages`, `tools`, `schema`. The OpenAI example's client talks
// to a recorded stream through a stubbed global `fetch`.
//
// A line `expression; // 'literal'`, or an expression line followed by a
// line `// 'literal'`, asserts that the expression equals the literal.
// The AI SDK example runs in ai.test.js, on the SDK's mock model.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

import { recordings, serve } from "./recordings.js";

const README = new URL("../README.md", import.meta.url);
const OUT = new URL("../test-output/readme/", import.meta.url);

function blocks() {
  const text = readFileSync(README, "utf8");
  return [...text.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((match, n) => ({
    n,
    line: text.slice(0, match.index).split("\n").length,
    code: match[1],
  }));
}

/** A comment that is a JS literal (a string, an object, an array). */
function literal(comment) {
  const text = comment.trim();
  if (!/^['"{[]/.test(text)) return null;
  try {
    new Function(`return (${text});`);
    return text;
  } catch {
    return null;
  }
}

const STATEMENT = /^\s*(import|export|const|let|var|for|if|while|await init|\}|\/\/)/;

/** The block with its value comments turned into assertions. */
export function instrument(code) {
  const lines = code.split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    // The last `//` of the line starts the comment (a string may hold one).
    const inline = line.match(/^(\s*)(.+)\s\/\/\s*(.+)$/);
    if (inline && !STATEMENT.test(line) && literal(inline[3])) {
      const expression = inline[2].trim().replace(/;$/, "");
      out.push(`${inline[1]}assert.deepStrictEqual((${expression}), (${literal(inline[3])}));`);
      continue;
    }
    const next = lines[i + 1]?.match(/^\s*\/\/\s*(.+)$/);
    if (next && !STATEMENT.test(line) && literal(next[1]) && line.trim().endsWith(";")) {
      out.push(`assert.deepStrictEqual((${line.trim().replace(/;$/, "")}), (${literal(next[1])}));`);
      i += 1;
      continue;
    }
    out.push(line);
  }
  return out.join("\n");
}

/** The names the examples leave to the reader, each defined unless the block defines it. */
const GIVEN = {
  render: "(...args) => globalThis.__readme.render.push(args)",
  show: "(...args) => globalThis.__readme.show.push(args)",
  run: "(...args) => globalThis.__readme.run.push(args)",
  body: `(async function* () { for (const chunk of ["{'city': 'Par", "is', temp: 2", "1, tags: ['a',"]) yield chunk; })()`,
  schema: '{ type: "object", properties: { path: { type: "string" }, content: { type: "string" } } }',
  model: '"gpt-test"',
  messages: '[{ role: "user", content: "go" }]',
  tools: "undefined",
};

function prelude(code) {
  const lines = ['import assert from "node:assert/strict";'];
  for (const [name, value] of Object.entries(GIVEN)) {
    if (!new RegExp(`\\b(const|let|var)\\s+${name}\\b`).test(code)) lines.push(`const ${name} = ${value};`);
  }
  return lines.join("\n");
}

for (const block of blocks()) {
  const imports = [...block.code.matchAll(/from "([^"]+)"/g)].map((match) => match[1]);
  if (imports.includes("ai")) continue; // ai.test.js runs it on the AI SDK's mock model
  test(`README.md line ${block.line}: the example runs as written`, async () => {
    globalThis.__readme = { render: [], show: [], run: [] };
    const saved = globalThis.fetch;
    if (imports.includes("openai")) {
      const recording = recordings().find((rec) => rec.name === "openai_chat.jsonl");
      globalThis.fetch = serve(recording.body);
      process.env.OPENAI_API_KEY ??= "test";
    }
    try {
      // Imports first: a module's imports must come before the prelude's statements.
      const lines = instrument(block.code).split("\n");
      const head = lines.filter((line) => /^import /.test(line)).join("\n");
      const rest = lines.filter((line) => !/^import /.test(line)).join("\n");
      mkdirSync(OUT, { recursive: true });
      const file = new URL(`block-${block.n}.mjs`, OUT);
      writeFileSync(file, `${head}\n${prelude(block.code)}\n${rest}\n`);
      await import(`${pathToFileURL(file.pathname).href}?${Date.now()}`);
    } finally {
      globalThis.fetch = saved;
    }
    const seen = globalThis.__readme;
    if (/\brender\(/.test(block.code)) assert.ok(seen.render.length > 0, "render was never called");
    if (/\bshow\(/.test(block.code)) assert.ok(seen.show.length > 0, "show was never called");
    if (/\brun\(/.test(block.code)) assert.ok(seen.run.length > 0, "run was never called: no call ended");
  });
}

test("the README has examples, and value comments become assertions", () => {
  assert.ok(blocks().length >= 6);
  assert.equal(instrument('f(1); // "x"'), 'assert.deepStrictEqual((f(1)), ("x"));');
  assert.equal(instrument("g();\n// [1]"), "assert.deepStrictEqual((g()), ([1]));");
  assert.equal(instrument('import { a } from "b"; // was "c"'), 'import { a } from "b"; // was "c"');
});
