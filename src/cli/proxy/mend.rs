//! The mending of one completion, streamed (chunk by chunk) or whole.
//!
//! Each choice keeps its calls under the indexes the client sees: the
//! upstream's own `tool_calls` first come, first numbered, and the calls
//! lifted from `content` after them in the order they began. A chunk is
//! rewritten only where it carries content, calls or an end; the rest of it
//! (ids, usage, logprobs, a role, reasoning) is left as it was.

use std::sync::atomic::{AtomicU64, Ordering};

use argmend::{CallParser, Event, ToolOptions, Verdict};
use serde_json::{Map, Value, json};

use super::calls::{Call, Ending, Report};

/// What the proxy does to a completion, from the request and the flags.
#[derive(Clone)]
pub(super) struct Plan {
    /// The request's tools, each with its schema.
    pub(super) options: ToolOptions,
    /// Whether calls written into `content` are lifted into `tool_calls`
    /// (the request has tools, and `--no-lift` was not given).
    pub(super) lift: bool,
    /// The most argument bytes one call may have (content bytes, for a
    /// call being read from the content).
    pub(super) max_call_bytes: usize,
}

/// Why a stream cannot go on.
#[derive(Debug)]
pub(super) struct TooLarge {
    pub(super) limit: usize,
}

/// One choice's state.
struct Choice {
    /// The content's call parser, while calls are lifted.
    parser: Option<CallParser>,
    /// Every call, by the client's index.
    calls: Vec<Call>,
    /// The upstream's `tool_calls` index → the client's.
    native: Vec<(u64, usize)>,
    /// The parser's call number → the client's index.
    lifted: Vec<(usize, usize)>,
    /// Content bytes fed since the open lifted call began.
    open_call_bytes: Option<usize>,
    ended: bool,
}

impl Choice {
    fn new(plan: &Plan) -> Self {
        Choice {
            parser: plan
                .lift
                .then(|| CallParser::with_options(plan.options.clone())),
            calls: Vec::new(),
            native: Vec::new(),
            lifted: Vec::new(),
            open_call_bytes: None,
            ended: false,
        }
    }

    fn n_lifted(&self) -> usize {
        self.lifted.len()
    }
}

/// The mender of one completion.
pub(super) struct Mender {
    plan: Plan,
    choices: Vec<(u64, Choice)>,
    /// The last chunk's `id`, `object`, `created`, `model`: a chunk the
    /// proxy adds at the end (the upstream stopped without ending its
    /// calls) looks like the others.
    template: Map<String, Value>,
}

/// The state of choice `index`, made on its first chunk.
fn state_of<'c>(choices: &'c mut Vec<(u64, Choice)>, plan: &Plan, index: u64) -> &'c mut Choice {
    let at = match choices.iter().position(|(i, _)| *i == index) {
        Some(at) => at,
        None => {
            choices.push((index, Choice::new(plan)));
            choices.len() - 1
        }
    };
    &mut choices[at].1
}

/// A fresh id for a call lifted from content (`call_am…`): unique in the
/// process, so an agent loop's later turns never reuse one.
fn lifted_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("call_am{nanos:08x}{n:06x}")
}

impl Mender {
    pub(super) fn new(plan: Plan) -> Self {
        Mender {
            plan,
            choices: Vec::new(),
            template: Map::new(),
        }
    }

    /// Mend one `chat.completion.chunk` in place. Returns whether it
    /// changed (an unchanged chunk is passed on as its original bytes).
    pub(super) fn chunk(&mut self, chunk: &mut Value) -> Result<bool, TooLarge> {
        let Some(object) = chunk.as_object_mut() else {
            return Ok(false);
        };
        for key in ["id", "object", "created", "model", "system_fingerprint"] {
            if let Some(value) = object.get(key) {
                self.template.insert(key.to_owned(), value.clone());
            }
        }
        let Some(Value::Array(choices)) = object.get_mut("choices") else {
            return Ok(false);
        };
        let mut changed = false;
        for choice in choices.iter_mut() {
            changed |= self.mend_choice(choice)?;
        }
        Ok(changed)
    }

    fn mend_choice(&mut self, choice: &mut Value) -> Result<bool, TooLarge> {
        let Some(object) = choice.as_object_mut() else {
            return Ok(false);
        };
        let index = object.get("index").and_then(Value::as_u64).unwrap_or(0);
        let finish = object
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let plan = &self.plan;
        let state = state_of(&mut self.choices, plan, index);
        let mut out_calls: Vec<Value> = Vec::new();
        let mut changed = false;
        let delta = object
            .entry("delta")
            .or_insert_with(|| Value::Object(Map::new()));
        let Some(delta) = delta.as_object_mut() else {
            return Ok(false);
        };
        if state.ended {
            // Argument text after the choice's end belongs to no call (the
            // adapters report it as `arguments_after_end`): it goes no
            // further, and the client's calls stay the mended ones.
            return Ok(delta.remove("tool_calls").is_some());
        }
        // The content, through the parser.
        if let (Some(parser), Some(Value::String(content))) =
            (state.parser.as_mut(), delta.get("content"))
        {
            let events = parser.feed(content.as_bytes());
            if let Some(open) = &mut state.open_call_bytes {
                *open += content.len();
            }
            let text = lifted_events(state, events, None, &mut out_calls);
            if let Some(open) = state.open_call_bytes
                && open > plan.max_call_bytes
            {
                return Err(TooLarge {
                    limit: plan.max_call_bytes,
                });
            }
            if text != *content {
                delta.insert("content".to_owned(), Value::String(text));
                changed = true;
            }
            changed |= !out_calls.is_empty();
        }
        // The upstream's own calls.
        if let Some(Value::Array(entries)) = delta.get("tool_calls") {
            changed = true;
            for (k, entry) in entries.iter().enumerate() {
                let upstream = entry
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or(k as u64);
                let at = match state.native.iter().find(|(u, _)| *u == upstream) {
                    Some((_, at)) => *at,
                    None => {
                        // A new call: the upstream's calls come one after
                        // another, so those before it have ended (as the
                        // OpenAI adapter reads them).
                        for &(_, before) in &state.native {
                            let call = &mut state.calls[before];
                            if !call.is_done() {
                                let Ending { piece, extension } =
                                    call.finish_native(&plan.options, None);
                                out_calls.extend(call.delta(&piece, extension));
                            }
                        }
                        let at = state.calls.len();
                        state.calls.push(Call::native(at));
                        state.native.push((upstream, at));
                        at
                    }
                };
                let call = &mut state.calls[at];
                if call.is_done() {
                    continue;
                }
                if let Some(id) = entry.get("id").and_then(Value::as_str) {
                    call.set_id(id);
                }
                let function = entry.get("function");
                if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str) {
                    call.set_name(name, &plan.options);
                }
                let fragment = function
                    .and_then(|f| f.get("arguments"))
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let piece = call.feed(fragment);
                if call.bytes_in > plan.max_call_bytes {
                    return Err(TooLarge {
                        limit: plan.max_call_bytes,
                    });
                }
                out_calls.extend(call.delta(&piece, None));
            }
        }
        // The end of the choice: every call ends, and the verdicts go out.
        let mut new_finish = None;
        if let Some(reason) = &finish {
            let cut =
                matches!(reason.as_str(), "length" | "content_filter").then_some(reason.as_str());
            let text = end_choice(state, plan, cut, &mut out_calls);
            if !text.is_empty() {
                let content = delta
                    .get("content")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                delta.insert("content".to_owned(), Value::String(content + &text));
            }
            if reason == "stop" && state.n_lifted() > 0 {
                new_finish = Some("tool_calls");
            }
            changed = true;
        }
        if changed {
            if out_calls.is_empty() {
                delta.remove("tool_calls");
            } else {
                delta.insert("tool_calls".to_owned(), Value::Array(out_calls));
            }
        }
        if let Some(reason) = new_finish {
            object.insert("finish_reason".to_owned(), json!(reason));
        }
        Ok(changed)
    }

    /// The end of the stream (`[DONE]`, or the upstream stopped): a chunk
    /// that ends the calls still open, marked `cut: "stream_ended"`, and
    /// hands out the content the parser held; `None` when nothing is open.
    pub(super) fn finish(&mut self) -> Option<Value> {
        let plan = self.plan.clone();
        let mut choices = Vec::new();
        for (index, state) in &mut self.choices {
            if state.ended {
                continue;
            }
            let mut out_calls = Vec::new();
            let text = end_choice(state, &plan, Some("stream_ended"), &mut out_calls);
            if text.is_empty() && out_calls.is_empty() {
                continue;
            }
            let mut delta = Map::new();
            if !text.is_empty() {
                delta.insert("content".to_owned(), Value::String(text));
            }
            if !out_calls.is_empty() {
                delta.insert("tool_calls".to_owned(), Value::Array(out_calls));
            }
            choices.push(json!({"index": index, "delta": delta, "finish_reason": null}));
        }
        if choices.is_empty() {
            return None;
        }
        let mut chunk = self.template.clone();
        chunk.insert("choices".to_owned(), Value::Array(choices));
        Some(Value::Object(chunk))
    }

    /// Mend a whole `chat.completion` (a response that was not streamed) in
    /// place.
    pub(super) fn completion(&mut self, completion: &mut Value) -> Result<(), TooLarge> {
        let Some(Value::Array(choices)) = completion.get_mut("choices") else {
            return Ok(());
        };
        let plan = self.plan.clone();
        for choice in choices.iter_mut() {
            let Some(object) = choice.as_object_mut() else {
                continue;
            };
            let finish = object
                .get("finish_reason")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let cut = finish
                .as_deref()
                .filter(|reason| matches!(*reason, "length" | "content_filter"));
            let Some(Value::Object(message)) = object.get_mut("message") else {
                continue;
            };
            let mut state = Choice::new(&plan);
            let mut calls: Vec<Value> = Vec::new();
            // The upstream's own calls, each mended whole.
            if let Some(Value::Array(entries)) = message.get("tool_calls") {
                for (k, entry) in entries.iter().enumerate() {
                    // A stream cut short stopped in its last call.
                    let cut = cut.filter(|_| k + 1 == entries.len());
                    let mut call = Call::native(state.calls.len());
                    if let Some(id) = entry.get("id").and_then(Value::as_str) {
                        call.set_id(id);
                    }
                    let function = entry.get("function");
                    let name = function
                        .and_then(|f| f.get("name"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    call.set_name(name, &plan.options);
                    let raw = function
                        .and_then(|f| f.get("arguments"))
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    if raw.len() > plan.max_call_bytes {
                        return Err(TooLarge {
                            limit: plan.max_call_bytes,
                        });
                    }
                    call.feed(raw);
                    call.unsend();
                    let Ending { piece, extension } = call.finish_native(&plan.options, cut);
                    let mut mended = entry.clone();
                    if let Some(function) =
                        mended.get_mut("function").and_then(Value::as_object_mut)
                    {
                        function.insert("arguments".to_owned(), Value::String(piece));
                    }
                    if let (Some(object), Some(extension)) = (mended.as_object_mut(), extension) {
                        object.insert("argmend".to_owned(), Value::Object(extension));
                    }
                    state.calls.push(call);
                    calls.push(mended);
                }
            }
            // Calls left in the content.
            let mut content = None;
            if let (Some(parser), Some(Value::String(text))) =
                (state.parser.take(), message.get("content"))
            {
                let mut events = Vec::new();
                let mut parser = parser;
                events.extend(parser.feed(text.as_bytes()));
                events.extend(parser.finish());
                let mut pieces: Vec<Value> = Vec::new();
                let kept = lifted_events(
                    &mut state,
                    events,
                    cut.or(Some("stream_ended")),
                    &mut pieces,
                );
                // Each lifted call's pieces, joined into one entry.
                for entry in join_pieces(pieces) {
                    calls.push(entry);
                }
                if state.n_lifted() > 0 || kept != *text {
                    content = Some(kept);
                }
            }
            if let Some(kept) = content {
                let value = if kept.trim().is_empty() && state.n_lifted() > 0 {
                    Value::Null
                } else {
                    Value::String(kept)
                };
                message.insert("content".to_owned(), value);
            }
            if !calls.is_empty() {
                message.insert("tool_calls".to_owned(), Value::Array(calls));
            }
            if state.n_lifted() > 0 && finish.as_deref() == Some("stop") {
                object.insert("finish_reason".to_owned(), json!("tool_calls"));
            }
        }
        Ok(())
    }
}

/// The parser's events: text is returned, calls become `tool_calls` pieces.
///
/// `cut` is why the stream stopped, for a call the input ended before its
/// own end (`</tool_call>`): `length`, `stream_ended`; `None` when the model
/// stopped of its own accord.
fn lifted_events(
    state: &mut Choice,
    events: Vec<Event>,
    cut: Option<&str>,
    out_calls: &mut Vec<Value>,
) -> String {
    let mut text = String::new();
    for event in events {
        match event {
            Event::Text(piece) => text.push_str(&piece),
            Event::CallStarted { call, name } => {
                let at = state.calls.len();
                state.calls.push(Call::lifted(at, lifted_id(), name));
                state.lifted.push((call, at));
                state.open_call_bytes = Some(0);
                out_calls.extend(state.calls[at].delta("", None));
            }
            Event::CallReady {
                call,
                args,
                strategy,
                fixes,
                doubts,
                complete,
                closed,
                ..
            } => {
                state.open_call_bytes = None;
                let Some(&(_, at)) = state.lifted.iter().find(|(c, _)| *c == call) else {
                    continue;
                };
                let verdict = if fixes.is_empty() {
                    Verdict::Valid
                } else if complete {
                    Verdict::Repaired
                } else {
                    Verdict::Completed
                };
                let cut = if closed { None } else { cut };
                let report = Report {
                    verdict,
                    complete: complete && cut.is_none(),
                    closed,
                    strategy: strategy.map(|s| s.number()),
                    fixes: &fixes,
                    doubts: &doubts,
                    cut,
                    reason: None,
                };
                let call = &mut state.calls[at];
                let Ending { piece, extension } = call.finish_lifted(&args, &report);
                out_calls.extend(call.delta(&piece, extension));
            }
            Event::Error {
                call, raw, reason, ..
            } => {
                state.open_call_bytes = None;
                let Some(&(_, at)) = state.lifted.iter().find(|(c, _)| *c == call) else {
                    continue;
                };
                let report = Report {
                    verdict: Verdict::NotJson,
                    complete: false,
                    strategy: None,
                    fixes: &[],
                    doubts: &[],
                    closed: true,
                    cut: None,
                    reason: Some(&reason),
                };
                let call = &mut state.calls[at];
                let Ending { piece, extension } = call.finish_lifted(&raw, &report);
                out_calls.extend(call.delta(&piece, extension));
            }
            _ => {}
        }
    }
    text
}

/// End a choice: the parser's held text and last calls, then every native
/// call still open. Returns the text.
fn end_choice(
    state: &mut Choice,
    plan: &Plan,
    cut: Option<&str>,
    out_calls: &mut Vec<Value>,
) -> String {
    state.ended = true;
    let mut text = String::new();
    if let Some(parser) = state.parser.take() {
        let events = parser.finish();
        text = lifted_events(state, events, cut, out_calls);
    }
    for call in state.calls.iter_mut().filter(|call| !call.is_done()) {
        let Ending { piece, extension } = call.finish_native(&plan.options, cut);
        out_calls.extend(call.delta(&piece, extension));
    }
    text
}

/// Pieces of `tool_calls` deltas joined per index into whole entries (for
/// a response that is not streamed).
fn join_pieces(pieces: Vec<Value>) -> Vec<Value> {
    let mut joined: Vec<(u64, Map<String, Value>)> = Vec::new();
    for piece in pieces {
        let Value::Object(mut piece) = piece else {
            continue;
        };
        let index = piece.get("index").and_then(Value::as_u64).unwrap_or(0);
        let at = match joined.iter().position(|(i, _)| *i == index) {
            Some(at) => at,
            None => {
                joined.push((index, Map::new()));
                joined.len() - 1
            }
        };
        let entry = &mut joined[at].1;
        let arguments = piece
            .get("function")
            .and_then(|f| f.get("arguments"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if let Some(Value::Object(function)) = piece.remove("function") {
            let slot = entry
                .entry("function")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(slot) = slot.as_object_mut() {
                for (key, value) in function {
                    if key != "arguments" {
                        slot.insert(key, value);
                    }
                }
                let before = slot
                    .get("arguments")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                slot.insert("arguments".to_owned(), Value::String(before + &arguments));
            }
        }
        piece.remove("index");
        for (key, value) in piece {
            entry.insert(key, value);
        }
    }
    joined
        .into_iter()
        .map(|(_, entry)| Value::Object(entry))
        .collect()
}
