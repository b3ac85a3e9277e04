// openai-node against `argmend proxy` (tests/proxy.rs):
//
//   node client.mjs BASE_URL CASES.json
//
// The same cases and output lines as client.py. The SDK comes from js/'s
// devDependencies (ARGMEND_JS_DIR names js/). A streamed case is read twice:
// by iterating the chunks, and through the SDK's own accumulator
// (`chat.completions.stream(...).finalChatCompletion()`).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(join(process.env.ARGMEND_JS_DIR, 'package.json'));
const { default: OpenAI, APIError } = await import(require.resolve('openai'));

const [baseURL, casesPath] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey: 'sk-argmend-test', maxRetries: 0, timeout: 60_000 });

async function streamed(request) {
  let content = '';
  let finish = null;
  const calls = new Map();
  const stream = await client.chat.completions.create({ ...request, stream: true });
  for await (const chunk of stream) {
    for (const choice of chunk.choices) {
      const delta = choice.delta ?? {};
      if (delta.content) content += delta.content;
      for (const call of delta.tool_calls ?? []) {
        if (!calls.has(call.index)) calls.set(call.index, { id: null, name: '', arguments: '', argmend: null });
        const entry = calls.get(call.index);
        if (call.id) entry.id = call.id;
        entry.name += call.function?.name ?? '';
        entry.arguments += call.function?.arguments ?? '';
        if (call.argmend !== undefined) entry.argmend = call.argmend;
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  const ordered = [...calls.keys()].sort((a, b) => a - b).map((k) => calls.get(k));
  const out = { content, calls: ordered, finish_reason: finish };
  try {
    const runner = client.chat.completions.stream(request);
    const final = await runner.finalChatCompletion();
    out.sdk_calls = (final.choices[0].message.tool_calls ?? []).map((call) => ({
      name: call.function.name,
      arguments: call.function.arguments,
    }));
  } catch (error) {
    // The accumulator's own refusals (a stream with no `role`).
    out.sdk_error = String(error.message);
  }
  return out;
}

async function whole(request) {
  const response = await client.chat.completions.create(request);
  const message = response.choices[0].message;
  const calls = (message.tool_calls ?? []).map((call) => ({
    id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
    argmend: call.argmend ?? null,
  }));
  return { content: message.content ?? '', calls, finish_reason: response.choices[0].finish_reason };
}

for (const testCase of JSON.parse(readFileSync(casesPath, 'utf8'))) {
  const request = { model: testCase.model, messages: [{ role: 'user', content: 'go' }] };
  if (testCase.tools) request.tools = testCase.tools;
  const out = { name: testCase.name, stream: testCase.stream };
  try {
    Object.assign(out, testCase.stream ? await streamed(request) : await whole(request));
  } catch (error) {
    if (!(error instanceof APIError)) throw error;
    out.error = { status: error.status, message: String(error.message) };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
process.stderr.write('node client: done\n');
