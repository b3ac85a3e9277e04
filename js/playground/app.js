// The argmend playground: paste broken JSON, or replay a recorded model
// stream through argmend's adapter at model speed, and watch the committed
// text, the provisional tail, the field events, the live value and the fixes
// on the input.
//
// It uses the package as a bundler-free page would: the portable entry and
// one `await init()`, which fetches ../dist/argmend_wasm_bg.wasm.

import init, {
  AnthropicStream,
  OpenAIChatStream,
  OpenAIResponsesStream,
  Repairer,
  ToolCallStream,
  version,
} from "../lib/index.js";

const $ = (id) => document.getElementById(id);

const ADAPTERS = {
  openai_chat: { make: () => new OpenAIChatStream(), name: "OpenAIChatStream", label: "OpenAI Chat Completions" },
  openai_responses: { make: () => new OpenAIResponsesStream(), name: "OpenAIResponsesStream", label: "OpenAI Responses" },
  anthropic: { make: () => new AnthropicStream(), name: "AnthropicStream", label: "Anthropic Messages" },
};

/** What each fix kind did, input → output (src/repair/fix.rs, src/normalize). */
const FIX_TEXT = {
  replaced_quotes: "'single', curly or backtick quotes → \"double\"",
  escaped_quote: 'an inner " the model forgot to escape → \\"',
  escaped_control: "a raw newline or tab inside a string → \\n, \\t",
  escaped_backslash: 'an invalid escape keeps its backslash: "C:\\q" → "C:\\\\q"',
  removed_escape: "an escape JSON does not need: \\' → ', \\_ → _",
  undoubled_escape: 'a quote escaped twice in JSON written into a string: \\\\" → \\"',
  replaced_invalid_utf8: "invalid UTF-8 → U+FFFD",
  replaced_surrogate: "a lone surrogate → U+FFFD",
  inserted_quote: "a missing end quote before a comma and a key",
  concatenated_strings: '"a" + "b" → "ab"',
  quoted_key: "{a: 1} → {\"a\": 1}",
  inserted_colon: '{"a" 1} → {"a": 1}',
  quoted_word: "[hello world] → [\"hello world\"]",
  replaced_literal: "True, None, undefined, NaN → true, null, null, null",
  normalized_number: ".5, +1, 2., 1_000 → 0.5, 1, 2.0, 1000",
  quoted_number: "0789 → \"0789\" (leading zeros kept)",
  inserted_null: '{"a":} → {"a": null}',
  removed_echoed_key: '{"a": "a": 1} → {"a": 1}: a key written again in its value',
  unwrapped_call: "NumberLong(2), callback({}) → 2, {}",
  quoted_regex: '/ab+c/ → "/ab+c/"',
  converted_tuple: "(1, 2) → [1, 2]",
  inserted_comma: "[1 2] → [1, 2]: a missing comma",
  removed_comma: "[1,,2,] → [1, 2]: a trailing or doubled comma",
  replaced_separator: "; where a comma belongs → ,",
  replaced_punctuation: "full-width ｛：，｝ → { : , }",
  replaced_closer: "[1, 2} → [1, 2]",
  removed_closer: "a stray closer dropped",
  reordered_closers: "}}]} → ]}}: a run of closers put in the order the open containers need",
  inserted_opener: '"x", "y"], → ["x", "y"],: an opener the siblings show missing',
  removed_opener: "{{ → {: an object opened twice",
  replaced_opener: '[ "a": 1 } → { "a": 1 }: an object opened as an array',
  removed_repeat: "a restart's repeated members dropped",
  inserted_closer: "a container closed early: what follows cannot be inside it",
  removed_ellipsis: "[1, 2, ...] → [1, 2]",
  removed_fragment: 'a stray ", or "", between members, dropped',
  removed_character: "a character that cannot start anything here, dropped",
  removed_comment: "// line, /* block */ or # comment removed",
  replaced_whitespace: "a non-breaking or other special space → a space",
  removed_fence: "a ```json fence line removed",
  removed_prose: "text before the JSON removed",
  removed_trailing_text: "text (or a second value) after the JSON dropped",
  closed_string: "cut off inside a string: the string closed",
  closed_container: "cut off: an open object or array closed",
  dropped_escape: "an escape cut off at the end, dropped",
  dropped_partial_char: "a character cut off at the end, dropped",
  completed_number: "a number cut off at the end: the digits read are kept",
  completed_literal: "[tr → [true]: a cut-off literal completed",
  dropped_key: "a key cut off before its colon, dropped",
  completed_value: '{"a": → {"a": null}: a value cut off at the end',
  removed_dangling_comma: "[1, → [1]: a comma cut off at the end",
  empty_arguments: "no arguments at all → {}",
  wrapped_value: "a bare value put in the tool's field",
  parsed_command_line: "a command line read as the tool's arguments",
  unwrapped_string: "arguments sent as a JSON string, unwrapped",
  straightened_quote: "typographic quotes in code straightened",
  coerced_number: "a number coerced to the schema's type",
  coerced_boolean: "a boolean coerced to the schema's type",
  coerced_string: "a string coerced to the schema's type",
  wrapped_in_array: "a single value wrapped in the array the schema asks for",
  unwrapped_object: "an object unwrapped to the value the schema asks for",
  dropped_unknown_key: "a key the schema does not allow, dropped",
  final_text: "the stream's final text differed from the deltas, and won",
};

const EXAMPLES = [
  {
    name: "Python-style dict",
    text: "{'path': 'README.md', lines: [1, 20,], follow_links: True,}",
  },
  {
    name: "Code with unescaped quotes",
    text: '{"path": "app.py", "content": "print("hello, world")\nx = {"a": 1}\n"}',
  },
  {
    name: "Cut off mid-string (max_tokens)",
    text: '{"path": "notes/todo.md", "content": "# TODO\\n- fix the parser\\n- ship the pla',
  },
  {
    name: "Prose and a Markdown fence",
    text: 'Sure! Here is the call:\n```json\n{"city": "Paris", "units": "metric",}\n```',
  },
  {
    name: "A JavaScript object with comments",
    text: '{\n  // the user\'s name\n  name: "Ada",\n  tags: ["math", "engines",],\n  born: 1815, /* year */\n  alive: undefined,\n}',
  },
  {
    name: "Curly quotes",
    text: "{“city”: “Paris”, “days”: 3, “note”: “bring an umbrella”}",
  },
  {
    name: "A quote that reads two ways (a doubt)",
    text: '{"title": "x", "body": "say "a", "b": 1"}',
  },
  {
    name: "Missing commas between lines",
    text: '{"path": "src/app.py"\n"mode": "w"\n"content": "print(\'hi\')"}',
  },
];

// ---------------------------------------------------------------------------
// Timing: "model speed" is about 45 tokens a second, a token about 3.6
// characters; an event that carries no text takes a few milliseconds.

const MS_PER_TOKEN = 22;
const MS_QUIET = 6;
const MS_FIRST = 280;

function tokens(text) {
  return Math.max(1, Math.round(text.length / 3.6));
}

/** A steady pseudo-random jitter (the same every replay), 0.6 to 1.4. */
function jitter(n) {
  let x = (n + 1) * 2654435761;
  x ^= x >>> 15;
  x = Math.imul(x, 2246822519);
  x ^= x >>> 13;
  return 0.6 + ((x >>> 0) % 1000) / 1250;
}

/** The text an SDK event carries: argument fragments, or the assistant's words. */
function eventText(step) {
  if (step.feeds) return step.feeds.map((feed) => feed[1]).join("");
  const event = step.event;
  const parts = [];
  for (const choice of event.choices ?? []) {
    const delta = choice.delta ?? {};
    for (const key of ["content", "reasoning_content", "reasoning"]) {
      if (typeof delta[key] === "string") parts.push(delta[key]);
    }
  }
  if (typeof event.delta === "string") parts.push(event.delta);
  for (const key of ["text", "thinking"]) {
    if (typeof event.delta?.[key] === "string") parts.push(event.delta[key]);
  }
  return parts.join("");
}

function delayOf(step, n, speed) {
  if (speed === "max") return 0;
  const text = eventText(step);
  const base = n === 0 ? MS_FIRST : text ? tokens(text) * MS_PER_TOKEN : MS_QUIET;
  return (base * jitter(n)) / Number(speed);
}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
/** Let the browser paint between steps, even at full speed. */
const frame = () => new Promise((done) => requestAnimationFrame(() => done()));

// ---------------------------------------------------------------------------
// Rendering helpers

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const escape = (text) => text.replace(/[&<>"]/g, (c) => ESCAPES[c]);

/** `code` spans in the recordings' notes. */
function noteHtml(text) {
  return escape(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

/** A value as pretty JSON with its tokens coloured. */
function jsonHtml(value) {
  const text = JSON.stringify(value, null, 2);
  const token = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false)\b|\b(null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
  let out = "";
  let last = 0;
  for (const match of text.matchAll(token)) {
    out += escape(text.slice(last, match.index));
    const [whole, string, colon, bool, nil, number] = match;
    if (string !== undefined) {
      out += colon
        ? `<span class="j-key">${escape(string)}</span>${escape(colon)}`
        : `<span class="j-str">${escape(string)}</span>`;
    } else if (bool !== undefined) out += `<span class="j-bool">${bool}</span>`;
    else if (nil !== undefined) out += `<span class="j-null">${nil}</span>`;
    else out += `<span class="j-num">${number}</span>`;
    last = match.index + whole.length;
  }
  return out + escape(text.slice(last));
}

/** A short one-line preview of a value or a text. */
function preview(text, max = 90) {
  const flat = text.replace(/\r?\n/g, "⏎").replace(/\t/g, "⇥");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Byte offsets into `text`'s UTF-8 → UTF-16 indices (the adapters report bytes). */
function bytesToUnits(text) {
  const map = [];
  let byte = 0;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i);
    const bytes = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    for (let k = 0; k < bytes; k++) map[byte + k] = i;
    byte += bytes;
    i += cp > 0xffff ? 2 : 1;
  }
  map[byte] = text.length;
  return (offset) => map[offset] ?? text.length;
}

/** How much of the input a mark at `at` covers: the token there (0: a pin between characters). */
function extent(text, at, kind) {
  if (at >= text.length) return 0;
  const rest = text.slice(at, at + 4000);
  const line = () => {
    const end = rest.search(/\r?\n/);
    return end < 0 ? rest.length : end;
  };
  if (rest[0] === "\n" || rest[0] === "\r") return 0;
  switch (kind) {
    case "removed_comment":
      if (rest.startsWith("/*")) return rest.includes("*/") ? rest.indexOf("*/") + 2 : rest.length;
      if (rest.startsWith("<!--")) return rest.includes("-->") ? rest.indexOf("-->") + 3 : rest.length;
      return line();
    case "removed_fence":
      return line();
    case "removed_prose": {
      const start = rest.search(/[{[]/);
      return start > 0 ? start : line();
    }
    case "removed_trailing_text":
      return rest.trimEnd().length || 1;
    case "removed_ellipsis":
      return rest.match(/^(\.\.\.|…)/)?.[0].length ?? 1;
  }
  const word = rest.match(/^[\p{L}\p{N}_$]+(?:[.+\-][\p{L}\p{N}_$]+)*/u)?.[0];
  if (word) return word.length;
  const number = rest.match(/^[-+]?\.?\d[\d_.eE+-]*/)?.[0];
  if (number) return number.length;
  return rest.codePointAt(0) > 0xffff ? 2 : 1;
}

/** The fixes and doubts as numbered notes, in input order. */
function notesOf(fixes, doubts) {
  const notes = [
    ...fixes.map((fix) => ({ type: "fix", kind: fix.kind, offset: fix.offset, truncation: fix.truncation })),
    ...doubts.map((doubt) => ({ type: "doubt", kind: doubt.kind, offset: doubt.offset, reason: doubt.reason })),
  ];
  notes.sort((a, b) => a.offset - b.offset || (a.type === b.type ? 0 : a.type === "fix" ? -1 : 1));
  notes.forEach((note, n) => (note.n = n + 1));
  return notes;
}

function noteTitle(note) {
  const what = note.type === "doubt" ? note.reason : FIX_TEXT[note.kind] ?? "";
  return `${note.n}. ${note.type} ${note.kind} at ${note.offset}${what ? `: ${what}` : ""}`;
}

/** The input as HTML, with a mark over the token at each note's offset. */
function markedHtml(text, notes) {
  const groups = new Map();
  for (const note of notes) {
    const at = Math.min(note.offset, text.length);
    if (!groups.has(at)) groups.set(at, []);
    groups.get(at).push(note);
  }
  const spans = [...groups.entries()]
    .map(([start, group]) => {
      const lead = group.find((note) => note.type === "fix") ?? group[0];
      return { start, end: start + extent(text, start, lead.kind), group };
    })
    .sort((a, b) => a.start - b.start);
  for (let i = 0; i + 1 < spans.length; i++) spans[i].end = Math.min(spans[i].end, spans[i + 1].start);
  let out = "";
  let last = 0;
  let previousEnd = -1;
  for (const span of spans) {
    out += escape(text.slice(last, span.start));
    // A mark that starts where the last one ended gets a hairline between them.
    const joined = span.start === previousEnd && span.end > span.start;
    previousEnd = span.end;
    const fix = span.group.some((note) => note.type === "fix");
    const doubt = span.group.some((note) => note.type === "doubt");
    const truncation = span.group.every((note) => note.truncation);
    const classes = [fix ? "fix" : "", doubt ? "doubt" : "", truncation ? "truncation" : "", joined ? "joined" : ""]
      .filter(Boolean)
      .join(" ");
    const attrs = `class="${classes}" data-n="${span.group.map((note) => note.n).join(" ")}" title="${escape(
      span.group.map(noteTitle).join("\n"),
    )}"`;
    if (span.end > span.start) {
      out += `<mark ${attrs}>${escape(text.slice(span.start, span.end))}</mark>`;
      last = span.end;
    } else {
      out += `<span ${attrs.replace('class="', 'class="pin ')}></span>`;
      last = span.start;
    }
  }
  return out + escape(text.slice(last));
}

// ---------------------------------------------------------------------------
// The view: one function per panel, given what to show.

const view = {
  /** The input panel: `text`, `notes` (null while the input is open), a caret while streaming. */
  input({ title, hint, text, notes, streaming, pending, placeholder }) {
    $("input-title").textContent = title;
    $("input-hint").innerHTML = hint ?? "";
    const backdrop = $("input-view");
    if (!text && placeholder) {
      backdrop.innerHTML = `<span class="placeholder">${escape(placeholder)}</span>`;
    } else {
      // A final newline in a textarea is a line of its own; the backdrop needs a character there.
      backdrop.innerHTML =
        (notes ? markedHtml(text, notes) : escape(text)) +
        (streaming ? '<span class="caret"></span>' : "") +
        (pending ? `<span class="pending">${escape(pending)}</span>` : "") +
        ((pending || text).endsWith("\n") ? " " : "");
    }
    if (streaming) backdrop.scrollTop = backdrop.scrollHeight;
    else if (document.body.dataset.mode === "paste") backdrop.scrollTop = $("input").scrollTop;
    view.legend(notes, text, streaming);
  },

  legend(notes, text, streaming) {
    const legend = $("legend");
    if (!notes) {
      legend.innerHTML = `<p class="legend-empty">${
        streaming ? "Fixes and doubts are marked on the input when its call ends." : "Nothing to mark yet."
      }</p>`;
      return;
    }
    if (notes.length === 0) {
      legend.innerHTML = '<p class="legend-empty ok">No fixes, no doubts: the input was already valid JSON.</p>';
      return;
    }
    const fixes = notes.filter((note) => note.type === "fix").length;
    const doubts = notes.length - fixes;
    const items = notes
      .map((note) => {
        const at = Math.min(note.offset, text.length);
        const snippet = text.slice(at, at + Math.max(1, extent(text, at, note.kind)));
        const what = note.type === "doubt" ? note.reason : FIX_TEXT[note.kind] ?? "";
        return `<li class="${note.type}${note.truncation ? " truncation" : ""}" data-n="${note.n}">
          <span class="num">${note.n}</span>
          <span class="kind">${escape(note.kind)}</span>
          <span class="at">@${note.offset}</span>
          ${snippet.trim() ? `<code class="snippet">${escape(preview(snippet, 24))}</code>` : '<code class="snippet end">end</code>'}
          <span class="what">${escape(what)}</span>
        </li>`;
      })
      .join("");
    legend.innerHTML = `<div class="legend-head">
        <span class="swatch fix"></span>${fixes} fix${fixes === 1 ? "" : "es"}
        <span class="swatch doubt"></span>${doubts} doubt${doubts === 1 ? "" : "s"}
        <span class="swatch truncation"></span>truncation
      </div><ol>${items}</ol>`;
  },

  output({ committed, tail, streaming }) {
    $("committed").textContent = committed;
    $("tail").textContent = tail;
    $("output").classList.toggle("streaming", Boolean(streaming));
    $("output").classList.toggle("empty", !committed && !tail);
    const pre = $("output");
    if (streaming) pre.scrollTop = pre.scrollHeight;
  },

  verdict(verdict, completeness) {
    const badge = $("verdict");
    badge.dataset.verdict = verdict ?? "none";
    badge.textContent = verdict === "not_json" ? "not JSON" : verdict ?? "–";
    const extra = $("completeness");
    extra.hidden = !completeness;
    extra.textContent = completeness ?? "";
    extra.dataset.kind = completeness === "complete" ? "complete" : "cut";
  },

  value(value, hint) {
    $("value-hint").innerHTML = hint ?? "";
    $("value").innerHTML =
      value === undefined ? '<span class="placeholder">No value yet: it appears as soon as one starts.</span>' : jsonHtml(value);
  },
};

// ---------------------------------------------------------------------------
// The field events list (shared by both modes).

const events = {
  list: $("events"),
  count: 0,

  clear() {
    this.list.innerHTML = "";
    this.count = 0;
    this.counter();
  },

  counter() {
    $("events-count").textContent = this.count ? `${this.count} event${this.count === 1 ? "" : "s"}` : "";
  },

  /** Rows for the selected call stand out; the others step back. */
  focus(call) {
    this.list.dataset.focus = call ?? "";
    for (const row of this.list.children) {
      row.classList.toggle("other", call !== null && call !== undefined && row.dataset.call !== "" && row.dataset.call !== String(call));
    }
  },

  add(event) {
    this.count++;
    const list = this.list;
    const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
    const call = event.call ?? "";
    const focus = list.dataset.focus ?? "";
    const last = list.lastElementChild;
    if (
      event.event === "delta" &&
      last?.dataset.kind === "delta" &&
      last.dataset.call === String(call) &&
      last.dataset.path === event.path
    ) {
      // Consecutive deltas of one string grow one row.
      last.dataset.text += event.text;
      last.dataset.times = Number(last.dataset.times) + 1;
      last.querySelector(".detail").textContent = `"${preview(last.dataset.text, 200)}"`;
      last.querySelector(".times").textContent = `×${last.dataset.times}`;
      last.querySelector(".times").hidden = false;
      last.classList.remove("flash");
      void last.offsetWidth;
      last.classList.add("flash");
    } else {
      const row = document.createElement("li");
      row.dataset.kind = event.event;
      row.dataset.call = call;
      row.dataset.path = event.path ?? "";
      row.className = `flash ev-${event.event}`;
      if (focus !== "" && call !== "" && String(call) !== focus) row.classList.add("other");
      row.innerHTML = this.html(event, row);
      list.append(row);
      while (list.children.length > 1500) list.firstElementChild.remove();
    }
    if (stick) list.scrollTop = list.scrollHeight;
    this.counter();
  },

  html(event, row) {
    const tag = event.call !== undefined ? `<span class="tag">#${event.call}</span>` : '<span class="tag none"></span>';
    const kind = `<span class="kind">${event.event}</span>`;
    const path = (p) => `<code class="path">${p === "" ? "root" : escape(p)}</code>`;
    switch (event.event) {
      case "started":
        return `${tag}${kind}${path(event.path)}<span class="detail muted">${escape(event.kind)}</span>`;
      case "delta":
        row.dataset.text = event.text;
        row.dataset.times = 1;
        return `${tag}${kind}${path(event.path)}<span class="detail str">"${escape(preview(event.text, 200))}"</span><span class="times" hidden>×1</span>`;
      case "field_done":
        return `${tag}${kind}${path(event.path)}<span class="detail val">${escape(preview(JSON.stringify(event.value), 200))}</span>`;
      case "call_started":
        return `${tag}${kind}<code class="path name">${escape(event.name || "(no name yet)")}</code><span class="detail muted">${escape(event.id ?? "")}</span>`;
      case "call_done": {
        const fixes = event.fixes?.length ?? 0;
        const state = event.complete ? "complete" : `cut${event.cut ? `: ${event.cut}` : ""}`;
        return `${tag}${kind}<code class="path name">${escape(event.name ?? "")}</code><span class="detail"><span class="mini-badge" data-verdict="${event.verdict}">${event.verdict}</span> ${state} · ${fixes} fix${fixes === 1 ? "" : "es"}</span>`;
      }
      case "skipped":
        return `${tag}${kind}<code class="path">${escape(event.kind ?? "")}</code><span class="detail muted">${escape(
          [event.name, event.id].filter(Boolean).join(" "),
        )}</span>`;
      default:
        return `${tag}${kind}<span class="detail">${escape(preview(JSON.stringify(event), 200))}</span>`;
    }
  },
};

// ---------------------------------------------------------------------------
// Replay mode: a recording's SDK events pushed to the adapter, at model speed.

const replay = {
  recordings: [],
  rec: null,
  adapter: null,
  index: 0,
  calls: [],
  /** Every event the adapter gave, to list again after a switch of mode. */
  log: [],
  selected: null,
  follow: true,
  playing: false,
  finished: false,
  run: 0,
};

function recordingById(id) {
  return replay.recordings.find((rec) => rec.id === id) ?? replay.recordings[0];
}

function setReplayState(state) {
  document.body.dataset.state = state;
  const play = $("play");
  const label = { playing: "Pause", done: "Replay", paused: "Resume" }[state] ?? "Play";
  play.querySelector(".label").textContent = label;
  play.querySelector(".icon").textContent = state === "playing" ? "❚❚" : state === "done" ? "↻" : "▶";
}

function resetReplay() {
  replay.run++;
  replay.playing = false;
  if (replay.adapter) replay.adapter.free();
  for (const call of replay.calls) call.tee?.free();
  replay.adapter = null;
  replay.calls = [];
  replay.log = [];
  replay.index = 0;
  replay.finished = false;
  replay.selected = null;
  replay.follow = true;
  $("calls").innerHTML = '<span class="empty">none yet: press Play</span>';
  if (document.body.dataset.mode === "replay") events.clear();
  setReplayState("ready");
  progress();
  if (document.body.dataset.mode === "replay") renderReplay();
}

function callState(n) {
  while (replay.calls.length <= n) {
    const call = replay.calls.length;
    replay.calls.push({
      call,
      id: null,
      name: "",
      raw: "",
      tee: null,
      committed: "",
      tail: "",
      value: undefined,
      done: null,
      notes: null,
      events: [],
    });
  }
  return replay.calls[n];
}

/** The raw argument text of a call, fed to a ToolCallStream of its own: the committed text and the tail. */
function teeFeed(n, text, reset) {
  const call = callState(n);
  if (call.done) return;
  if (reset || !call.tee) {
    call.tee?.free();
    call.tee = new ToolCallStream(call.name || "tool");
    call.raw = "";
    call.committed = "";
  }
  call.raw += text;
  call.committed += call.tee.feed(text).committed;
  const snapshot = call.tee.snapshot();
  call.tail = snapshot.startsWith(call.committed) ? snapshot.slice(call.committed.length) : "";
}

function handleEvents(list) {
  for (const event of list) {
    replay.log.push(event);
    events.add(event);
    if (event.call === undefined) continue;
    const call = callState(event.call);
    if (event.event === "call_started") {
      call.id = event.id ?? null;
      call.name = event.name ?? "";
      if (replay.follow || replay.selected === null) replay.selected = event.call;
    } else if (event.event === "call_done") {
      call.done = event;
      call.value = event.args;
      call.committed = event.text ?? call.committed;
      call.tail = "";
      const units = bytesToUnits(call.raw);
      call.notes = notesOf(
        (event.fixes ?? []).map((fix) => ({ ...fix, offset: units(fix.offset) })),
        (event.doubts ?? []).map((doubt) => ({ ...doubt, offset: units(doubt.offset) })),
      );
      call.tee?.free();
      call.tee = null;
    }
  }
}

function step() {
  const rec = replay.rec;
  if (!replay.adapter) replay.adapter = ADAPTERS[rec.format].make();
  if (replay.index < rec.steps.length) {
    const current = rec.steps[replay.index++];
    const out = replay.adapter.push(current.event);
    for (const [call, text, reset] of current.feeds ?? []) teeFeed(call, text, reset === "reset");
    handleEvents(out);
    for (const call of replay.calls) {
      if (!call.done) call.value = replay.adapter.value(call.call);
    }
    $("last-event").textContent = summarize(current);
  }
  if (replay.index >= rec.steps.length && !replay.finished) {
    replay.finished = true;
    handleEvents(replay.adapter.finish());
    replay.adapter = null;
    $("last-event").textContent = "end of stream: adapter.finish()";
  }
  progress();
  renderReplay();
}

/** One line about an SDK event: its type and the text it carries. */
function summarize(current) {
  const event = current.event;
  const type = event.type ?? event.object ?? "event";
  const text = eventText(current);
  return text ? `${type}  ${JSON.stringify(preview(text, 60))}` : type;
}

function progress() {
  const total = replay.rec?.steps.length ?? 0;
  $("progress-fill").style.width = total ? `${(100 * replay.index) / total}%` : "0";
  $("progress-count").textContent = `${replay.index} / ${total} events`;
  if (replay.index === 0) $("last-event").textContent = "";
}

async function play() {
  if (replay.finished) resetReplay();
  const run = ++replay.run;
  replay.playing = true;
  setReplayState("playing");
  while (replay.run === run && !replay.finished) {
    const speed = $("speed").value;
    const wait = delayOf(replay.rec.steps[replay.index], replay.index, speed);
    if (wait > 0) await sleep(wait);
    else await frame();
    if (replay.run !== run) return;
    step();
  }
  if (replay.run === run) {
    replay.playing = false;
    setReplayState("done");
  }
}

function pause() {
  replay.run++;
  replay.playing = false;
  setReplayState("paused");
}

function renderChips() {
  const chips = $("calls");
  if (!replay.calls.length) return;
  chips.innerHTML = "";
  for (const call of replay.calls) {
    const chip = document.createElement("button");
    chip.type = "button";
    chip.className = "chip";
    chip.dataset.call = call.call;
    chip.dataset.verdict = call.done ? call.done.verdict : "streaming";
    chip.setAttribute("aria-pressed", String(call.call === replay.selected));
    const state = call.done ? (call.done.complete ? call.done.verdict : `${call.done.verdict}, cut`) : "streaming";
    chip.title = `call ${call.call}${call.id ? ` (${call.id})` : ""}: ${state}`;
    chip.innerHTML = `<span class="dot"></span><span class="num">#${call.call}</span> <span class="cname">${escape(
      call.name || "…",
    )}</span>`;
    chips.append(chip);
  }
}

function renderReplay() {
  renderChips();
  const rec = replay.rec;
  const call = replay.selected === null ? null : replay.calls[replay.selected];
  events.focus(replay.selected);
  const adapter = ADAPTERS[rec?.format]?.name ?? "adapter";
  if (!call) {
    view.input({
      title: "Raw arguments",
      hint: "",
      text: "",
      notes: null,
      placeholder: rec ? `Press Play: the ${rec.steps.length} SDK events of this recording go to ${adapter}.push(), one by one.` : "",
    });
    view.output({ committed: "", tail: "" });
    view.verdict(null);
    view.value(undefined, "");
    return;
  }
  const streaming = !call.done;
  view.input({
    title: `Raw arguments · #${call.call} ${call.name || ""}`,
    hint: `${call.raw.length} chars, as the SDK events carried them`,
    text: call.raw,
    notes: call.notes,
    streaming: streaming && replay.playing,
    placeholder: streaming ? "waiting for the first fragment…" : "(no argument text)",
  });
  view.output({ committed: call.committed, tail: call.tail, streaming });
  if (call.done) view.verdict(call.done.verdict, call.done.complete ? "complete" : `cut: ${call.done.cut ?? "incomplete"}`);
  else view.verdict("streaming");
  view.value(call.value, `<code>adapter.value(${call.call})</code>`);
}

// ---------------------------------------------------------------------------
// Paste mode: the text repaired at once on every edit, or streamed token by token.

const paste = { run: 0, streaming: false, state: null };

/** Token-like pieces: what a model's stream would carry. */
function chunksOf(text) {
  const pieces = text.match(/\s*[\p{L}\p{N}_]{1,6}|\s*[^\p{L}\p{N}_\s]{1,3}|\s+/gu) ?? [];
  return pieces;
}

function pasteStart(text) {
  paste.state?.repairer.free();
  paste.state?.tool.free();
  paste.state = {
    text,
    fed: "",
    repairer: new Repairer(),
    tool: new ToolCallStream("tool"),
    committed: "",
    tail: "",
    value: undefined,
    outcome: null,
  };
  events.clear();
}

function pasteFeed(chunk) {
  const state = paste.state;
  state.fed += chunk;
  state.committed += state.repairer.feed(chunk);
  const snapshot = state.repairer.snapshot();
  state.tail = snapshot.slice(state.committed.length);
  if (snapshot) state.value = JSON.parse(snapshot);
  for (const event of state.tool.feed(chunk).events) events.add(event);
}

function pasteFinish() {
  const state = paste.state;
  const outcome = state.repairer.finish();
  const end = state.tool.finish();
  for (const event of end.events) events.add(event);
  state.outcome = outcome;
  state.committed = outcome.text;
  state.tail = "";
  state.value = outcome.verdict === "not_json" ? undefined : JSON.parse(outcome.text);
  document.body.dataset.paste = "done";
}

function renderPaste() {
  const state = paste.state;
  const outcome = state?.outcome;
  const streaming = paste.streaming;
  const text = state ? (streaming ? state.fed : state.text) : "";
  view.input({
    title: "Input",
    hint: streaming ? `streaming: ${state.fed.length} / ${state.text.length} chars` : `${text.length} chars`,
    text,
    notes: outcome ? notesOf(outcome.fixes, outcome.doubts) : null,
    streaming,
    // While it streams, the text still to come is shown faint after the caret.
    pending: streaming ? state.text.slice(state.fed.length) : "",
  });
  view.output({ committed: state?.committed ?? "", tail: state?.tail ?? "", streaming });
  view.verdict(outcome ? outcome.verdict : state?.fed ? "streaming" : null, outcome?.reason ? preview(outcome.reason, 60) : null);
  view.value(
    state?.value,
    streaming ? "<code>JSON.parse(repairer.snapshot())</code>" : "<code>JSON.parse(repair(text).text)</code>",
  );
}

function pasteNow() {
  paste.run++;
  paste.streaming = false;
  $("input").readOnly = false;
  setStreamButton(false);
  const text = $("input").value;
  pasteStart(text);
  if (text) pasteFeed(text);
  pasteFinish();
  renderPaste();
}

async function pasteStream() {
  if (paste.streaming) {
    pasteNow();
    return;
  }
  const run = ++paste.run;
  const text = $("input").value;
  pasteStart(text);
  paste.streaming = true;
  document.body.dataset.paste = "streaming";
  $("input").readOnly = true;
  setStreamButton(true);
  const chunks = chunksOf(text);
  for (let n = 0; n < chunks.length; n++) {
    const speed = $("paste-speed").value;
    if (speed === "max") await frame();
    else await sleep((tokens(chunks[n]) * MS_PER_TOKEN * jitter(n)) / Number(speed));
    if (paste.run !== run) return;
    pasteFeed(chunks[n]);
    renderPaste();
  }
  paste.streaming = false;
  $("input").readOnly = false;
  setStreamButton(false);
  pasteFinish();
  renderPaste();
}

function setStreamButton(streaming) {
  const button = $("stream");
  button.querySelector(".label").textContent = streaming ? "Stop" : "Stream it";
  button.querySelector(".icon").textContent = streaming ? "■" : "▶";
}

// ---------------------------------------------------------------------------
// Modes and wiring

function setMode(mode) {
  if (document.body.dataset.mode === mode) return;
  if (replay.playing) pause();
  if (paste.streaming) pasteNow();
  document.body.dataset.mode = mode;
  for (const tab of document.querySelectorAll(".tabs [role=tab]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.mode === mode));
  }
  events.clear();
  if (mode === "paste") {
    pasteNow();
    history.replaceState(null, "", "#paste");
  } else {
    // The replay's events so far, listed again.
    for (const event of replay.log) events.add(event);
    renderReplay();
    history.replaceState(null, "", `#replay=${encodeURIComponent(replay.rec?.id ?? "")}`);
  }
}

function fillRecordings() {
  const select = $("recording");
  select.innerHTML = "";
  for (const format of Object.keys(ADAPTERS)) {
    const group = document.createElement("optgroup");
    group.label = ADAPTERS[format].label;
    for (const rec of replay.recordings.filter((rec) => rec.format === format)) {
      const option = document.createElement("option");
      option.value = rec.id;
      option.textContent = `${rec.title} · ${rec.calls} call${rec.calls === 1 ? "" : "s"}, ${rec.steps.length} events`;
      group.append(option);
    }
    select.append(group);
  }
}

function chooseRecording(id) {
  replay.rec = recordingById(id);
  $("recording").value = replay.rec.id;
  const adapter = ADAPTERS[replay.rec.format];
  $("recording-note").innerHTML = `<span class="format">${escape(adapter.label)}</span> <code>${escape(
    replay.rec.source,
  )}</code> → <code>new ${adapter.name}()</code>. ${noteHtml(replay.rec.note)}`;
  resetReplay();
  if (document.body.dataset.mode === "replay") {
    history.replaceState(null, "", `#replay=${encodeURIComponent(replay.rec.id)}`);
  }
}

function wire() {
  for (const tab of document.querySelectorAll(".tabs [role=tab]")) {
    tab.addEventListener("click", () => setMode(tab.dataset.mode));
  }
  $("recording").addEventListener("change", (event) => chooseRecording(event.target.value));
  $("play").addEventListener("click", () => (replay.playing ? pause() : play()));
  $("step").addEventListener("click", () => {
    if (replay.playing) pause();
    if (replay.finished) resetReplay();
    step();
    setReplayState(replay.finished ? "done" : "paused");
  });
  $("reset").addEventListener("click", () => resetReplay());
  $("calls").addEventListener("click", (event) => {
    const chip = event.target.closest(".chip");
    if (!chip) return;
    replay.selected = Number(chip.dataset.call);
    // Following the newest call stops once a person picks one.
    replay.follow = false;
    renderReplay();
    // Its events in view: the first of them at the top of the list.
    const first = $("events").querySelector(`li[data-call="${replay.selected}"]`);
    if (first) $("events").scrollTop = first.offsetTop - 6;
  });

  const select = $("example");
  EXAMPLES.forEach((example, n) => select.append(new Option(example.name, String(n))));
  select.addEventListener("change", () => {
    $("input").value = EXAMPLES[Number(select.value)].text;
    $("input").scrollTop = 0;
    pasteNow();
  });
  let timer = null;
  $("input").addEventListener("input", () => {
    clearTimeout(timer);
    document.body.dataset.paste = "typing";
    timer = setTimeout(pasteNow, 120);
  });
  $("input").addEventListener("scroll", () => {
    $("input-view").scrollTop = $("input").scrollTop;
    $("input-view").scrollLeft = $("input").scrollLeft;
  });
  $("stream").addEventListener("click", () => pasteStream());

  // A note in the legend lights its mark, and a mark its note.
  const light = (n, on) => {
    for (const element of document.querySelectorAll(`#input-view [data-n~="${n}"], #legend li[data-n="${n}"]`)) {
      element.classList.toggle("hot", on);
    }
  };
  for (const [id, selector] of [
    ["legend", "li[data-n]"],
    ["input-view", "[data-n]"],
  ]) {
    $(id).addEventListener("mouseover", (event) => {
      const target = event.target.closest(selector);
      if (target) for (const n of target.dataset.n.split(" ")) light(n, true);
    });
    $(id).addEventListener("mouseout", (event) => {
      const target = event.target.closest(selector);
      if (target) for (const n of target.dataset.n.split(" ")) light(n, false);
    });
  }
}

function banner(html) {
  const element = $("banner");
  element.innerHTML = html;
  element.hidden = false;
}

async function main() {
  wire();
  $("input").value = EXAMPLES[0].text;
  try {
    await init();
  } catch (error) {
    document.body.dataset.state = "error";
    $("engine").textContent = "engine not loaded";
    banner(
      `Could not load argmend's WebAssembly module: ${escape(String(error?.message ?? error))}. ` +
        "Build the package first: <code>cd js &amp;&amp; npm run build</code>, then <code>npm run playground</code>.",
    );
    throw error;
  }
  $("engine").innerHTML = `engine <b>${escape(version())}</b> · WebAssembly`;
  try {
    const response = await fetch("streams.json");
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    replay.recordings = (await response.json()).recordings;
  } catch (error) {
    banner(
      `Could not load the recorded streams (streams.json): ${escape(String(error?.message ?? error))}. ` +
        "It ships with the package; in a checkout of the repository, write it with <code>node playground/build-streams.mjs</code> in <code>js/</code>.",
    );
  }
  const hash = decodeURIComponent(location.hash.slice(1));
  if (replay.recordings.length) {
    fillRecordings();
    chooseRecording(hash.startsWith("replay=") ? hash.slice(7) : replay.recordings[0].id);
  }
  if (hash === "paste" || !replay.recordings.length) setMode("paste");
  else {
    setReplayState("ready");
    renderReplay();
  }
}

main();
