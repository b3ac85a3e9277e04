// argmend (WebAssembly) against jsonrepair (npm, pure JavaScript), in one
// Node process, on the peers' fixtures (issue 29, "Speed").
//
//   npm run bench                          (= node bench/speed.mjs)
//   node bench/speed.mjs --write           also write the table into docs/performance.md
//   node bench/speed.mjs --only api_1k     the rows whose workload contains this
//   node bench/speed.mjs --budget 2        seconds a fast cell is sampled (default 1)
//
// Run `npm run build` first: this times lib/ and dist/ as they are.
//
// Inputs. The bytes the Rust benches time, made by the repository's own
// generators: bench/fixtures.rs includes benches/fixtures.rs (through
// benches/peers/src/lib.rs) and writes the valid and malformed twin of
// tool_call_200b (192 B), api_1k, write_file_50k (a `write_file` call whose
// `content` is Rust code with escaped quotes and raw line breaks) and api_1m
// (benches/repair.rs's 1 MB document; the peers' table has api_10m instead).
// It is compiled with plain `rustc` into target/bench/ and run when its
// sources change, so nothing large is committed and every run sees the
// same bytes.
//
// Before anything is timed, every output is checked: argmend's `jsonrepair`
// and `repair`, and jsonrepair's, must parse to the valid twin's value (a
// row where one does not is marked ✗ and its target cannot pass); the
// streamed run must end with the one-shot text, and its snapshots must be
// JSON that starts with the committed text. A cut-off call has no valid
// twin: there both outputs must be JSON, and argmend's two must agree.
//
// What is timed, per call, string marshalling included:
// - one shot: `jsonrepair(text)` from "argmend/jsonrepair" and from
//   "jsonrepair", and argmend's `repair(text)` with its verdict, fixes and
//   doubts (parsed into objects);
// - streamed (malformed twins): the text cut into 16-byte chunks (of its
//   UTF-8, each cut back to a character boundary, as benches/peers does) and
//   fed as strings. argmend: one `Repairer`, `feed` then `snapshot()` after
//   every chunk, then `finish()`. jsonrepair: `jsonrepair(prefix)` after
//   every chunk (what a jsonrepair user does to show a live value). A
//   jsonrepair pass estimated over STREAM_PASS_MAX seconds is timed on one
//   prefix in k (the middle one of each run of k) and scaled by the number of
//   prefixes: its cell says "≈".
//
// Method: each cell warms up, then runs batches of at least MIN_SAMPLE
// seconds; the libraries of a row take turns, batch by batch, in rotating
// order, so they share the machine's noise. Cells are medians of the
// batches' per-call times. Calls slower than a batch are timed one by one
// (at least 3 samples). Speedups are jsonrepair's time ÷ argmend's, from the
// same run.
//
// Prints the table (markdown) and the targets, PASS or MISS, on stdout;
// progress on stderr. Exits 1 only when an argmend output is wrong.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

const JS = join(dirname(fileURLToPath(import.meta.url)), "..");
if (!existsSync(join(JS, "dist", "argmend_wasm_bg.wasm"))) {
  console.error("bench: dist/ is missing: run `npm run build` first");
  process.exit(2);
}
// The package's own entry points, by its name (as a user imports them).
const { Repairer, repair } = await import("argmend");
const { jsonrepair: argmendJsonrepair } = await import("argmend/jsonrepair");
const { jsonrepair } = await import("jsonrepair");

const ROOT = join(JS, "..");
const CHUNK = 16;
const MIN_SAMPLE = 0.01; // seconds a batch lasts at least
const MIN_SAMPLES = 5;
const MAX_SAMPLES = 41;
const STREAM_PASS_MAX = 8; // seconds: a longer jsonrepair stream pass is sampled

// The issue's 200-byte call, 1 KB, 50 KB `write_file` call and 1 MB. `cut`:
// also time the malformed twin cut off where CUT_AT of its bytes have
// arrived (a call a stream's end cut short: issue 45).
const WORKLOADS = [
  { name: "tool_call_200b", cut: true },
  { name: "api_1k" },
  { name: "write_file_50k", cut: true },
  { name: "api_1m" },
];
const CUT_AT = 0.9;

// ---------------------------------------------------------------- arguments

const args = process.argv.slice(2);
function option(flag, fallback) {
  const i = args.indexOf(flag);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}
const budget = Number(option("--budget", "1"));
const only = option("--only", "");
const writeResults = args.includes("--write");
if (!(budget > 0) || args.includes("--help")) {
  console.error("usage: node bench/speed.mjs [--budget SECS] [--only WORKLOAD] [--write]");
  process.exit(args.includes("--help") ? 0 : 2);
}

// ------------------------------------------------------------------- inputs

/** Compile bench/fixtures.rs and write the inputs, when their sources changed. */
function inputs() {
  const out = join(JS, "target", "bench");
  const bin = join(out, process.platform === "win32" ? "fixtures.exe" : "fixtures");
  const dir = join(out, "inputs");
  const sources = [
    join(JS, "bench", "fixtures.rs"),
    join(ROOT, "benches", "fixtures.rs"),
    join(ROOT, "benches", "peers", "src", "lib.rs"),
  ];
  const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : -Infinity);
  const newest = Math.max(...sources.map(mtime));
  mkdirSync(out, { recursive: true });
  if (mtime(bin) < newest) {
    console.error("bench: compiling bench/fixtures.rs (rustc, once)");
    try {
      execFileSync("rustc", ["--edition", "2024", "-O", sources[0], "-o", bin], { stdio: "inherit" });
    } catch (error) {
      console.error(`bench: could not compile bench/fixtures.rs with rustc (${error.message}); the build needs Rust anyway`);
      process.exit(2);
    }
  }
  const files = WORKLOADS.flatMap((w) => ["valid", "malformed"].map((v) => join(dir, `${w.name}.${v}.json`)));
  if (files.some((f) => mtime(f) < mtime(bin))) {
    console.error("bench: writing the fixtures to target/bench/inputs");
    execFileSync(bin, [dir], { stdio: ["ignore", "ignore", "inherit"] });
  }
  return dir;
}

/**
 * UTF-16 ends of the prefixes after each 16-byte chunk of the text's UTF-8,
 * each cut back to a character boundary (benches/peers/harness/bench.mjs's
 * prefixes, counted in one pass instead of decoding every prefix).
 */
function prefixEnds(text) {
  const data = Buffer.from(text, "utf8");
  const n = data.length;
  // unitsAt[i]: UTF-16 units of data[0..i), for every character boundary i.
  const unitsAt = new Uint32Array(n + 1);
  let units = 0;
  for (let i = 0; i < n; i++) {
    unitsAt[i] = units;
    if ((data[i] & 0xc0) !== 0x80) units += data[i] >= 0xf0 ? 2 : 1;
  }
  unitsAt[n] = units;
  const ends = [];
  for (let i = 1; i <= Math.ceil(n / CHUNK); i++) {
    let end = Math.min(i * CHUNK, n);
    while (end < n && (data[end] & 0xc0) === 0x80) end--;
    ends.push(unitsAt[end]);
  }
  return ends;
}

// ------------------------------------------------------------------ helpers

const now = () => Number(process.hrtime.bigint()) / 1e9;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

function formatTime(seconds) {
  if (!Number.isFinite(seconds)) return "–";
  if (seconds >= 3600) return `${(seconds / 3600).toFixed(1)} h`;
  const units = [
    [1, "s"],
    [1e-3, "ms"],
    [1e-6, "µs"],
    [1e-9, "ns"],
  ];
  for (const [scale, unit] of units) {
    if (seconds >= scale || unit === "ns") {
      const v = seconds / scale;
      return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} ${unit}`;
    }
  }
}

function formatRatio(r) {
  if (!Number.isFinite(r)) return "–";
  return r >= 100 ? Math.round(r).toLocaleString("en-US") : r.toFixed(r >= 10 ? 1 : 2);
}

function tryParse(text) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The first `share` of `text`'s UTF-8, cut back to a character boundary. */
function cutOff(text, share) {
  const data = Buffer.from(text, "utf8");
  let end = Math.floor(data.length * share);
  while (end > 0 && (data[end] & 0xc0) === 0x80) end--;
  return data.subarray(0, end).toString("utf8");
}

/** Does `text` parse to `want`? "ok", or what is wrong. */
function sameValue(text, want) {
  if (typeof text !== "string") return `not a string (${typeof text})`;
  const parsed = tryParse(text);
  if (!parsed.ok) return `not JSON: ${parsed.error.message}`;
  return isDeepStrictEqual(parsed.value, want) ? "ok" : "a different value";
}

// ----------------------------------------------------------------- the runs

/** One jsonrepair call per prefix; a throw counts as an answer too. */
function jsonrepairOn(prefix) {
  try {
    return jsonrepair(prefix).length;
  } catch {
    return 1;
  }
}

function argmendStream(pieces) {
  const repairer = new Repairer();
  let total = 0;
  for (const piece of pieces) {
    repairer.feed(piece);
    total += repairer.snapshot().length;
  }
  return total + repairer.finish().text.length;
}

// ---------------------------------------------------------------- the timer

/**
 * Time several passes against each other. `cells`: [{pass, scale?}], each
 * `pass()` one unit of work (per-call time = batch time ÷ batch size ×
 * scale). Returns the median per-call seconds of each, and the sample count.
 */
function race(cells, cellBudget) {
  // Warm up and size the batches.
  for (const cell of cells) {
    let t = now();
    cell.pass();
    let once = now() - t;
    cell.batch = 1;
    if (once < MIN_SAMPLE) {
      // Warm-up: a quarter of the budget, or 200,000 calls, whichever ends first.
      const start = now();
      let calls = 0;
      while (now() - start < cellBudget / 4 && calls < 200_000) {
        cell.pass();
        calls++;
      }
      once = (now() - start) / Math.max(calls, 1);
      cell.batch = Math.max(1, Math.ceil(MIN_SAMPLE / Math.max(once, 1e-9)));
    }
    cell.once = once;
    cell.samples = [];
  }
  const slowest = Math.max(...cells.map((c) => c.once * c.batch));
  // Slow cells (a batch of one over 1 s) get 3 samples; the rest fill the budget.
  const wanted = slowest > 1 ? 3 : MIN_SAMPLES;
  const start = now();
  for (let round = 0; round < MAX_SAMPLES; round++) {
    for (let k = 0; k < cells.length; k++) {
      const cell = cells[(round + k) % cells.length];
      const t = now();
      for (let i = 0; i < cell.batch; i++) cell.pass();
      cell.samples.push(((now() - t) / cell.batch) * (cell.scale ?? 1));
    }
    if (round + 1 >= wanted && now() - start >= cellBudget) break;
  }
  return cells.map((c) => ({ seconds: median(c.samples), samples: c.samples.length }));
}

// ------------------------------------------------------------------- checks

/** `want` undefined (a cut-off call): the text need only be JSON. */
function checkOneShot(text, want) {
  const problems = [];
  const mine = argmendJsonrepair(text);
  const isJson = (text) => (typeof text !== "string" ? `not a string (${typeof text})` : tryParse(text).ok ? "ok" : "not JSON");
  const sameValue_ = want === undefined ? isJson : (text) => sameValue(text, want);
  const checkMine = sameValue_(mine);
  if (checkMine !== "ok") problems.push(`argmend jsonrepair(): ${checkMine}`);
  const outcome = repair(text);
  if (outcome.text !== mine) problems.push("argmend repair().text is not jsonrepair()'s text");
  let theirs;
  try {
    theirs = jsonrepair(text);
  } catch (error) {
    theirs = `(threw ${error.message})`;
  }
  const checkTheirs = sameValue_(theirs);
  const squeeze = (text) => String(text).replace(/\s+/g, "");
  return {
    argmend: checkMine === "ok",
    jsonrepair: checkTheirs === "ok",
    identical: mine === theirs,
    whitespaceOnly: mine !== theirs && squeeze(mine) === squeeze(theirs),
    outcome,
    problems: checkTheirs === "ok" ? problems : [...problems, `jsonrepair: ${checkTheirs}`],
  };
}

function checkStream(text, pieces, oneShot) {
  const problems = [];
  const repairer = new Repairer();
  // Every snapshot of inputs up to 64 KB; about 400 spread over a larger one.
  const every = text.length <= 65536 ? 1 : Math.max(1, Math.floor(pieces.length / 400));
  let committed = "";
  pieces.forEach((piece, i) => {
    committed += repairer.feed(piece);
    if (i % every !== 0 && i !== pieces.length - 1) return;
    const snapshot = repairer.snapshot();
    if (!snapshot.startsWith(committed)) problems.push(`snapshot ${i} does not start with the committed text`);
    if (snapshot !== "" && !tryParse(snapshot).ok) problems.push(`snapshot ${i} is not JSON`);
  });
  const end = repairer.finish();
  if (end.text !== oneShot) problems.push("the streamed text is not the one-shot text");
  return problems.slice(0, 3);
}

// --------------------------------------------------------------------- main

const dir = inputs();
const pkg = (path) => JSON.parse(readFileSync(join(JS, path), "utf8"));
const versions = {
  argmend: pkg("package.json").version,
  jsonrepair: pkg("node_modules/jsonrepair/package.json").version,
  node: process.version,
};
// The commit the engine and the binding come from ("+" when their sources
// have changes not committed; dist/ is whatever was built last).
const commit = (() => {
  try {
    const git = (...a) => execFileSync("git", ["-C", ROOT, ...a], { encoding: "utf8" }).trim();
    const dirty = git("status", "--porcelain", "--", "src", "Cargo.toml", "js/src", "js/Cargo.toml") !== "";
    return git("rev-parse", "--short", "HEAD") + (dirty ? "+" : "");
  } catch {
    return "?";
  }
})();

const started = now();
const rows = [];
const notes = []; // what differs without being wrong
const failures = []; // outputs that are not the valid twin's value
const selected = WORKLOADS.filter((w) => w.name.includes(only));
if (selected.length === 0) {
  console.error(`bench: no workload contains ${JSON.stringify(only)}`);
  process.exit(2);
}

for (const workload of selected) {
  const valid = readFileSync(join(dir, `${workload.name}.valid.json`), "utf8");
  const want = JSON.parse(valid);
  const malformed = readFileSync(join(dir, `${workload.name}.malformed.json`), "utf8");
  const variants = workload.cut ? ["valid", "malformed", "cut off"] : ["valid", "malformed"];
  for (const variant of variants) {
    const text = variant === "valid" ? valid : variant === "malformed" ? malformed : cutOff(malformed, CUT_AT);
    const bytes = Buffer.byteLength(text);
    const check = checkOneShot(text, variant === "cut off" ? undefined : want);
    for (const p of check.problems) failures.push(`${workload.name} ${variant}: ${p}`);
    if (check.argmend && check.jsonrepair && !check.identical && variant !== "cut off") {
      const how = check.whitespaceOnly ? "texts that differ only in whitespace" : "different texts";
      notes.push(`${workload.name} ${variant}: both give the valid twin's value, in ${how}`);
    }
    console.error(`bench: ${workload.name} ${variant}, one shot`);
    const [mine, full, theirs] = race(
      [
        { pass: () => argmendJsonrepair(text).length },
        { pass: () => repair(text).fixes.length },
        { pass: () => jsonrepairOn(text) },
      ],
      budget,
    );
    rows.push({
      workload,
      variant,
      mode: "one shot",
      bytes,
      fixes: check.outcome.fixes.length,
      mine,
      full,
      theirs,
      ok: check,
    });
  }
}

for (const workload of selected) {
  const text = readFileSync(join(dir, `${workload.name}.malformed.json`), "utf8");
  const ends = prefixEnds(text);
  const pieces = ends.map((end, i) => text.slice(i === 0 ? 0 : ends[i - 1], end));
  const oneShot = argmendJsonrepair(text);
  const problems = checkStream(text, pieces, oneShot);
  for (const p of problems) failures.push(`${workload.name} malformed, streamed: ${p}`);
  const want = JSON.parse(readFileSync(join(dir, `${workload.name}.valid.json`), "utf8"));
  const theirsRight = sameValue((() => { try { return jsonrepair(text); } catch { return undefined; } })(), want) === "ok";

  // jsonrepair re-run on every prefix; sampled when a pass would be too long.
  const middle = text.slice(0, ends[Math.floor(ends.length / 2)]);
  let t = now();
  jsonrepairOn(middle);
  jsonrepairOn(middle);
  const estimate = ((now() - t) / 2) * ends.length;
  let sampled = ends;
  let stride = 1;
  if (estimate > STREAM_PASS_MAX) {
    // The middle prefix of each run of `stride`: jsonrepair's time grows
    // faster than the prefix, and midpoints estimate the sum far better
    // than the ends of the runs would.
    stride = Math.ceil(estimate / STREAM_PASS_MAX);
    sampled = ends.filter((_, i) => i % stride === Math.floor(stride / 2));
  }
  const scale = ends.length / sampled.length;
  console.error(
    `bench: ${workload.name} malformed, streamed (${pieces.length} chunks${stride > 1 ? `; jsonrepair on 1 prefix in ${stride}, ×${scale.toFixed(1)}` : ""})`,
  );
  const [mine, theirs] = race(
    [
      { pass: () => argmendStream(pieces) },
      {
        pass: () => {
          let total = 0;
          for (const end of sampled) total += jsonrepairOn(text.slice(0, end));
          return total;
        },
        scale,
      },
    ],
    budget,
  );
  rows.push({
    workload,
    variant: "malformed",
    mode: `streamed, ${pieces.length.toLocaleString("en-US")} × 16 B`,
    bytes: Buffer.byteLength(text),
    mine,
    theirs,
    estimated: stride > 1 ? { stride, prefixes: sampled.length, of: ends.length } : null,
    ok: { argmend: problems.length === 0, jsonrepair: theirsRight },
    stream: true,
  });
}

// ------------------------------------------------------------------ targets

function targetOf(row) {
  if (row.stream) return row.workload.name === "write_file_50k" ? 1000 : null;
  // Issue 45: 5× at 200 bytes (the call as models send it, valid or
  // malformed), 10× at 50 KB, malformed and cut off.
  if (row.workload.name === "tool_call_200b") return row.variant === "cut off" ? null : 5;
  if (row.workload.name === "write_file_50k" || row.workload.name === "api_1m") return 10;
  return null;
}

const lines = [];
const elapsed = () => {
  const seconds = now() - started;
  return seconds < 120 ? `${seconds.toFixed(0)} s` : `${(seconds / 60).toFixed(1)} min`;
};
const cpu = cpus()[0]?.model?.trim() ?? "?";
lines.push(
  `Measured ${new Date().toISOString().slice(0, 10)} with \`node bench/speed.mjs\`: argmend ${versions.argmend} (WebAssembly, at ${commit}), jsonrepair ${versions.jsonrepair}, Node ${versions.node}, ${cpus().length} × ${cpu}, budget ${budget} s a cell.`,
  "",
  "| workload | input | mode | argmend `jsonrepair()` | argmend `repair()` | jsonrepair | speedup | speedup, `repair()` | target | |",
  "|---|---|---|---|---|---|---|---|---|---|",
);
const verdicts = [];
for (const row of rows) {
  const ratio = row.theirs.seconds / row.mine.seconds;
  const ratioFull = row.full ? row.theirs.seconds / row.full.seconds : NaN;
  const target = targetOf(row);
  const right = row.ok.argmend;
  const mark = (ok) => (ok ? "" : " ✗");
  const approx = row.estimated ? "≈" : "";
  let verdict = "";
  if (target !== null) {
    verdict = right && ratio >= target ? "PASS" : "MISS";
    verdicts.push({ row, target, ratio, verdict, right, ratioFull });
  }
  lines.push(
    `| ${row.workload.name} | ${row.variant}, ${row.bytes.toLocaleString("en-US")} B | ${row.mode} | ${formatTime(row.mine.seconds)}${row.stream ? " (Repairer)" : ""}${mark(right)} | ${row.full ? formatTime(row.full.seconds) : "–"} | ${approx}${formatTime(row.theirs.seconds)}${mark(row.ok.jsonrepair)} | ${approx}${formatRatio(ratio)}× | ${row.full ? `${formatRatio(ratioFull)}×` : "–"} | ${target === null ? "–" : `≥ ${target.toLocaleString("en-US")}×`} | ${verdict} |`,
  );
}
lines.push(
  "",
  `Times are medians per call (per whole stream on streamed rows: every \`feed\` and \`snapshot()\` and the \`finish()\`, against \`jsonrepair\` on every prefix). Speedup = jsonrepair ÷ argmend \`jsonrepair()\`; the \`repair()\` column also builds the verdict, fixes and doubts as objects. "cut off" = the malformed twin cut where ${CUT_AT * 100}% of its bytes have arrived. ✗ = the output is not the valid twin's value (not JSON, on a cut-off row). ≈ = jsonrepair timed on one prefix in k and scaled by the prefix count.`,
);
const estimated = rows.filter((r) => r.estimated);
for (const r of estimated) {
  lines.push(
    `${r.workload.name} streamed: jsonrepair ran on ${r.estimated.prefixes} of its ${r.estimated.of.toLocaleString("en-US")} prefixes (the middle one of every ${r.estimated.stride.toLocaleString("en-US")}), scaled ×${(r.estimated.of / r.estimated.prefixes).toFixed(1)}.`,
  );
}
lines.push(
  "",
  "Targets (issues 29 and 45). One shot: the drop-in `jsonrepair()`, string marshalling included (`repair()` beside it). Streamed: a `Repairer` with a snapshot after every chunk, against jsonrepair on every prefix:",
);
for (const v of verdicts) {
  const what = v.row.stream ? `streamed ${v.row.workload.name}` : `${v.row.workload.name} ${v.row.variant}`;
  const also = v.row.stream ? "" : `; \`repair()\` ${formatRatio(v.ratioFull)}× (${v.ratioFull >= v.target ? "meets it too" : "below"})`;
  lines.push(`- ${v.verdict}: ${what} ≥ ${v.target.toLocaleString("en-US")}× jsonrepair: ${formatRatio(v.ratio)}×${v.right ? "" : " (argmend's output is wrong)"}${also}`);
}
lines.push("");
if (failures.length > 0) {
  lines.push("Checks that failed:");
  for (const failure of failures) lines.push(`- ${failure}`);
} else {
  lines.push(
    "Checks: every output above parses to its valid twin's value (both libraries, one shot; argmend's stream ends with its one-shot text, and its snapshots are JSON that starts with the committed text).",
  );
}
for (const note of notes) lines.push(`- ${note}`);
lines.push("", `Run time: ${elapsed()}.`);

const table = lines.join("\n");
console.log(table);
if (writeResults) {
  // The figures live in one place, beside their command: the JavaScript
  // section of docs/performance.md, between these two lines.
  const docs = join(ROOT, "docs", "performance.md");
  const from = "<!-- node bench/speed.mjs --write: from here -->";
  const to = "<!-- node bench/speed.mjs --write: to here -->";
  const text = readFileSync(docs, "utf8");
  const start = text.indexOf(from);
  const end = text.indexOf(to);
  if (start < 0 || end < start) {
    console.error(`bench: ${docs} has no "${from}" … "${to}" block to write into`);
    process.exit(2);
  }
  writeFileSync(docs, `${text.slice(0, start + from.length)}\n${table}\n${text.slice(end)}`);
  console.error("bench: wrote the table into docs/performance.md");
}
// A wrong answer fails the run; a missed target is reported, not failed
// (the ratios move with the machine's load).
process.exitCode = rows.every((r) => r.ok.argmend) ? 0 : 1;
