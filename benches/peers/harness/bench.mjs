// Times jsonrepair (npm) on one workload's files; prints one JSON line.
//
//     node harness/bench.mjs DIR VARIANT MODE [BUDGET_SECS]
//
// The loop is the one of examples/timing.rs (argmend and the Rust peers) and
// harness/bench.py (json_repair, Python); see examples/timing.rs for it. The
// call is `jsonrepair(text)` with its defaults. MODE `stream` re-repairs
// every prefix that ends a 16-byte chunk (cut back to a character boundary),
// the text a live preview would show after each chunk.

import { readFileSync, readdirSync } from 'node:fs'
import { basename, join, normalize } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { jsonrepair } from 'jsonrepair'

const CHUNK = 16
const STREAM_PASS_MAX = 3.0
const MIN_SAMPLE = 0.01
const MIN_SAMPLES = 5

const now = () => Number(process.hrtime.bigint()) / 1e9

function readCases(folder) {
  return readdirSync(folder)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => readFileSync(join(folder, n)))
}

// UTF-16 lengths of the prefixes that end each CHUNK-byte chunk of the UTF-8
// bytes `data`, each cut back to a character boundary.
function prefixEnds(data) {
  const ends = []
  const n = data.length
  for (let i = 1; i <= Math.ceil(n / CHUNK); i++) {
    let end = Math.min(i * CHUNK, n)
    while (end < n && (data[end] & 0xc0) === 0x80) end--
    ends.push(data.subarray(0, end).toString('utf8').length)
  }
  return ends
}

function check(text, want) {
  let out
  try {
    out = jsonrepair(text)
  } catch {
    return 'error'
  }
  let got
  try {
    got = JSON.parse(out)
  } catch {
    return 'invalid'
  }
  return isDeepStrictEqual(got, want) ? 'correct' : 'wrong'
}

function measure(pass, budget) {
  let t = now()
  pass()
  const once = now() - t
  if (once >= budget) return [once]
  const batch = Math.max(1, Math.ceil(MIN_SAMPLE / Math.max(once, 1e-9)))
  const warm = now()
  while (now() - warm < budget / 4) pass()
  const samples = []
  const start = now()
  while (now() - start < budget || samples.length < MIN_SAMPLES) {
    t = now()
    for (let i = 0; i < batch; i++) pass()
    samples.push((now() - t) / batch)
    if (now() - start > budget * 3) break
  }
  return samples
}

function one(text) {
  try {
    return jsonrepair(text).length
  } catch {
    return 1
  }
}

const [folder, variant, mode, budgetArg] = process.argv.slice(2)
const budget = budgetArg ? Number(budgetArg) : 1.0
const stream = mode === 'stream'
const raw = readCases(join(folder, variant))
const inputs = raw.map((b) => b.toString('utf8'))
const wants = readCases(join(folder, 'valid')).map((b) => JSON.parse(b.toString('utf8')))
const line = {
  impl: 'jsonrepair_js',
  lang: 'javascript',
  version: JSON.parse(readFileSync(new URL('../node_modules/jsonrepair/package.json', import.meta.url))).version,
  workload: basename(normalize(folder)),
  variant,
  mode,
  bytes: raw.reduce((a, b) => a + b.length, 0),
  cases: inputs.length,
}
line.checks = inputs.map((text, i) => check(text, wants[i]))

let stride = 1
let scale = 1.0
let ends = stream ? raw.map(prefixEnds) : null
if (stream) {
  // One call on the middle prefix of each case, × the prefix count.
  const t = now()
  inputs.forEach((text, c) => one(text.slice(0, ends[c][Math.floor(ends[c].length / 2)])))
  const middle = now() - t
  const prefixes = ends.reduce((a, e) => a + e.length, 0)
  const est = middle * prefixes
  if (est > STREAM_PASS_MAX) {
    stride = Math.ceil(est / STREAM_PASS_MAX)
    ends = ends.map((es) => es.filter((_, i) => i % stride === stride - 1 || i === es.length - 1))
    scale = prefixes / ends.reduce((a, e) => a + e.length, 0)
  }
}

const pass = stream
  ? () => {
      let total = 0
      inputs.forEach((text, c) => {
        for (const e of ends[c]) total += one(text.slice(0, e))
      })
      return total
    }
  : () => {
      let total = 0
      for (const text of inputs) total += one(text)
      return total
    }

const samples = measure(pass, budget)
  .map((s) => s * scale * 1e9)
  .sort((a, b) => a - b)
const n = samples.length
const median = n % 2 ? samples[(n - 1) / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2
Object.assign(line, {
  status: 'ok',
  stride,
  samples: n,
  median_ns: median,
  mean_ns: samples.reduce((a, b) => a + b, 0) / n,
})
console.log(JSON.stringify(line))
