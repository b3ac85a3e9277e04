//! The tool layer: `normalize_tool_args`, `RawToolCall` (one call's
//! arguments as they stream), `RawAdapter` (a model API's stream events) and
//! `RawCallParser` (the tool calls in a model's text, in every format).
//! Results cross as JSON text in the shapes argmend's CLI prints (`argmend
//! call --events`), so the JavaScript, Python and command-line faces of an
//! event agree.

use argmend::{
    AnthropicStream, CallEnd, CallParser, ClientEvent, Event, Format, Normalized, OpenAiChatStream,
    OpenAiResponsesStream, ToolCallStream, ToolFix,
};
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;

use crate::offsets::Utf16Map;
use crate::{doubt_json, error, options};

fn tool_fix_json(fix: &ToolFix, map: &Utf16Map) -> Value {
    let truncation = matches!(fix.kind, argmend::ToolFixKind::Repair(kind) if kind.is_truncation());
    json!({"kind": fix.kind.name(), "offset": map.units(fix.offset), "truncation": truncation})
}

fn normalized_json(normalized: &Normalized, map: &Utf16Map) -> String {
    let violations: Vec<Value> = (normalized.violations().iter())
        .map(|violation| json!({"path": violation.path(), "message": violation.message()}))
        .collect();
    json!({
        "text": normalized.text(),
        "verdict": normalized.verdict().name(),
        "strategy": normalized.strategy().map(|strategy| strategy.number()),
        "strategyName": normalized.strategy().map(|strategy| strategy.name()),
        "fixes": normalized.fixes().iter().map(|fix| tool_fix_json(fix, map)).collect::<Vec<_>>(),
        "doubts": normalized.doubts().iter().map(|doubt| doubt_json(doubt, map)).collect::<Vec<_>>(),
        "violations": violations,
        "reason": normalized.reason(),
    })
    .to_string()
}

/// Normalize one call's raw arguments with the tool's name and options
/// (`schema`, `tools`, `dropUnknownKeys`, limits). Returns JSON:
/// `{text, verdict, strategy, strategyName, fixes, doubts, violations,
/// reason}`; `strategy` is the number (1 to 7) the CLI and Python report.
#[wasm_bindgen]
pub fn normalize_tool_args(tool: &str, raw: &str, options: &str) -> Result<String, JsValue> {
    let options = options::tool(options)?;
    let normalized = argmend::normalize_tool_args_with(tool, raw, &options);
    Ok(normalized_json(&normalized, &Utf16Map::of_str(raw)))
}

/// A call's end as JSON: the shape of the CLI's `call_done`, with `text`,
/// `strategy`, `reason` and the field events the end completed.
fn call_end_json(end: &CallEnd, map: &Utf16Map) -> Value {
    json!({
        "name": end.name,
        "args": end.args,
        "text": end.text,
        "verdict": end.verdict.name(),
        "strategy": end.strategy.map(|strategy| strategy.number()),
        "strategyName": end.strategy.map(|strategy| strategy.name()),
        "complete": end.complete,
        "cut": end.cut,
        "reason": end.reason,
        "fixes": end.fixes.iter().map(|fix| tool_fix_json(fix, map)).collect::<Vec<_>>(),
        "doubts": end.doubts.iter().map(|doubt| doubt_json(doubt, map)).collect::<Vec<_>>(),
        "events": end.events.iter().map(|event| event.to_json()).collect::<Vec<_>>(),
    })
}

/// One tool call's arguments, fed fragment by fragment.
#[wasm_bindgen]
pub struct RawToolCall {
    inner: Option<ToolCallStream>,
    map: Utf16Map,
}

#[wasm_bindgen]
impl RawToolCall {
    /// A call to `name`; `options` as for `normalize_tool_args`.
    #[wasm_bindgen(constructor)]
    pub fn new(name: &str, options: &str) -> Result<RawToolCall, JsValue> {
        Ok(RawToolCall {
            inner: Some(ToolCallStream::new(name, options::tool(options)?)),
            map: Utf16Map::default(),
        })
    }

    fn call(&mut self) -> Result<&mut ToolCallStream, JsValue> {
        self.inner
            .as_mut()
            .ok_or_else(|| error("finished", "this ToolCallStream has finished"))
    }

    /// Feed a fragment of text; returns `{"committed", "events"}` as JSON.
    pub fn feed_str(&mut self, fragment: &str) -> Result<String, JsValue> {
        let update = self.call()?.feed(fragment.as_bytes());
        self.map.push_str(fragment);
        Ok(update_json(update))
    }

    /// Feed a fragment of UTF-8 bytes (it may split a character).
    pub fn feed_bytes(&mut self, fragment: &[u8]) -> Result<String, JsValue> {
        let update = self.call()?.feed(fragment);
        self.map.push_bytes(fragment.len());
        Ok(update_json(update))
    }

    /// The snapshot: valid JSON of the arguments so far (empty before they start).
    pub fn snapshot(&self) -> String {
        self.inner
            .as_ref()
            .map(ToolCallStream::snapshot)
            .unwrap_or_default()
    }

    /// The snapshot as JSON of the value (`undefined` before the arguments start).
    pub fn value(&self) -> Option<String> {
        let value = self.inner.as_ref()?.value()?;
        Some(value.to_string())
    }

    /// End the arguments: the call's end as JSON. Frees the engine's state.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        let call = self
            .inner
            .take()
            .ok_or_else(|| error("finished", "this ToolCallStream has finished"))?;
        Ok(call_end_json(&call.finish(), &self.map).to_string())
    }
}

fn update_json(update: argmend::ArgsUpdate) -> String {
    let events: Vec<Value> = update.events.iter().map(|event| event.to_json()).collect();
    json!({"committed": update.committed, "events": events}).to_string()
}

/// The three model API stream formats.
enum Adapter {
    Chat(OpenAiChatStream),
    Responses(OpenAiResponsesStream),
    Anthropic(AnthropicStream),
}

/// A model API's stream events in, argmend's call events out.
#[wasm_bindgen]
pub struct RawAdapter {
    inner: Option<Adapter>,
}

macro_rules! each {
    ($adapter:expr, $a:ident => $body:expr) => {
        match $adapter {
            Adapter::Chat($a) => $body,
            Adapter::Responses($a) => $body,
            Adapter::Anthropic($a) => $body,
        }
    };
}

/// Events as JSON: `ClientEvent::to_json`, with a `call_done` event's
/// `text`, `strategy`, `reason` and full doubts added from its end, and its
/// `cut` always there (`null` for a call that arrived whole, as `finish()`
/// gives it; `to_json` leaves it out).
fn events_json(events: Vec<ClientEvent>) -> String {
    Value::Array(events.iter().map(event_json).collect()).to_string()
}

/// One event as JSON (see [`events_json`]).
fn event_json(event: &ClientEvent) -> Value {
    let mut json = event.to_json();
    if let ClientEvent::CallDone { end, .. } = event {
        // Offsets into the call's raw arguments, in bytes: an SDK event
        // carries its text as JSON, not as the string a UI shows.
        let full = call_end_json(end, &Utf16Map::bytes());
        for key in [
            "text",
            "strategy",
            "strategyName",
            "reason",
            "doubts",
            "fixes",
            "events",
            "cut",
        ] {
            json[key] = full[key].clone();
        }
    }
    json
}

#[wasm_bindgen]
impl RawAdapter {
    /// `kind`: `"chat"`, `"responses"` or `"anthropic"`; `options` as for
    /// `normalize_tool_args` (its `tools` are the request's tools).
    #[wasm_bindgen(constructor)]
    pub fn new(kind: &str, options: &str) -> Result<RawAdapter, JsValue> {
        let options = options::tool(options)?;
        let inner = match kind {
            "chat" => Adapter::Chat(OpenAiChatStream::new(options)),
            "responses" => Adapter::Responses(OpenAiResponsesStream::new(options)),
            "anthropic" => Adapter::Anthropic(AnthropicStream::new(options)),
            other => return Err(error("invalid_argument", format!("no adapter {other:?}"))),
        };
        Ok(RawAdapter { inner: Some(inner) })
    }

    fn adapter(&mut self) -> Result<&mut Adapter, JsValue> {
        self.inner
            .as_mut()
            .ok_or_else(|| error("finished", "this stream adapter has finished"))
    }

    /// Push one SDK event, given as JSON text; returns the events as JSON.
    pub fn push(&mut self, event: &str) -> Result<String, JsValue> {
        let event: Value = serde_json::from_str(event)
            .map_err(|why| error("invalid_argument", format!("the event is not JSON: {why}")))?;
        let events = each!(self.adapter()?, a => a.push(&event));
        Ok(events_json(events))
    }

    /// End the stream: the calls still open end here (cut `stream_ended`
    /// unless their stop was seen). Frees the engine's state.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        let adapter = self
            .inner
            .take()
            .ok_or_else(|| error("finished", "this stream adapter has finished"))?;
        Ok(events_json(each!(adapter, a => a.finish())))
    }

    /// The number of calls seen so far.
    pub fn calls(&self) -> usize {
        self.inner
            .as_ref()
            .map_or(0, |adapter| each!(adapter, a => a.calls()))
    }

    /// The call's value now, as JSON (`undefined` before its arguments start).
    pub fn value(&self, call: usize) -> Option<String> {
        let adapter = self.inner.as_ref()?;
        each!(adapter, a => a.value(call).map(Value::to_string))
    }

    /// The call's snapshot while it streams.
    pub fn snapshot(&self, call: usize) -> Option<String> {
        let adapter = self.inner.as_ref()?;
        each!(adapter, a => a.snapshot(call))
    }

    /// The model's id for the call.
    pub fn id(&self, call: usize) -> Option<String> {
        let adapter = self.inner.as_ref()?;
        each!(adapter, a => a.id(call).map(str::to_owned))
    }

    /// The tool's name of the call.
    pub fn name(&self, call: usize) -> Option<String> {
        let adapter = self.inner.as_ref()?;
        each!(adapter, a => a.name(call).map(str::to_owned))
    }
}

/// The tool calls in a model's streamed text (`CallParser`), in one format
/// or told by the first marker; its events are the adapters' (as JSON),
/// with `{"event": "text", "text"}` for the text around the calls.
#[wasm_bindgen]
pub struct RawCallParser {
    inner: Option<CallParser>,
    /// Per call: its tool's name, the mended JSON of its arguments so far,
    /// and its final arguments once it has ended.
    calls: Vec<(String, String, Option<Value>)>,
}

#[wasm_bindgen]
impl RawCallParser {
    /// `format`: a format's name, or `""` for argmend's forms and the first
    /// telling marker; `options` as for `normalize_tool_args` (its `tools`
    /// are the request's tools).
    #[wasm_bindgen(constructor)]
    pub fn new(format: &str, options: &str) -> Result<RawCallParser, JsValue> {
        let options = options::tool(options)?;
        let inner = if format.is_empty() {
            CallParser::with_options(options)
        } else {
            let format: Format = format
                .parse()
                .map_err(|why: String| error("invalid_argument", why))?;
            CallParser::with_format(format, options)
        };
        Ok(RawCallParser {
            inner: Some(inner),
            calls: Vec::new(),
        })
    }

    /// The formats' names, as a JSON array.
    pub fn formats() -> String {
        Value::from(Format::all().map(Format::name).collect::<Vec<_>>()).to_string()
    }

    /// Feed the next chunk of text; returns the events as JSON.
    pub fn feed(&mut self, chunk: &str) -> Result<String, JsValue> {
        self.feed_bytes(chunk.as_bytes())
    }

    /// Feed the next chunk as UTF-8 bytes (cut anywhere).
    pub fn feed_bytes(&mut self, chunk: &[u8]) -> Result<String, JsValue> {
        let parser = self
            .inner
            .as_mut()
            .ok_or_else(|| error("finished", "this CallParser has finished"))?;
        let events = parser.feed(chunk);
        Ok(self.events_json(events))
    }

    /// End the text: a call it cut off ends, not complete. Frees the state.
    pub fn finish(&mut self) -> Result<String, JsValue> {
        let parser = self
            .inner
            .take()
            .ok_or_else(|| error("finished", "this CallParser has finished"))?;
        let events = parser.finish();
        Ok(self.events_json(events))
    }

    /// The number of calls seen so far.
    pub fn calls(&self) -> usize {
        self.calls.len()
    }

    /// The call's value now, as JSON: its arguments so far, or its final
    /// ones (`undefined` before they start).
    pub fn value(&self, call: usize) -> Option<String> {
        let (_, json, args) = self.calls.get(call)?;
        if let Some(args) = args {
            return Some(args.to_string());
        }
        (!json.is_empty()).then(|| argmend::repair(json.as_bytes()).text().to_owned())
    }

    /// The tool's name of the call.
    pub fn name(&self, call: usize) -> Option<String> {
        self.calls.get(call).map(|(name, _, _)| name.clone())
    }
}

impl RawCallParser {
    fn slot(&mut self, call: usize) -> &mut (String, String, Option<Value>) {
        if self.calls.len() <= call {
            self.calls.resize_with(call + 1, Default::default);
        }
        &mut self.calls[call]
    }

    fn events_json(&mut self, events: Vec<Event>) -> String {
        let mut out = Vec::new();
        for event in events {
            match &event {
                Event::Text(text) => {
                    out.push(json!({"event": "text", "text": text}));
                    continue;
                }
                Event::ArgsJson { call, json } => {
                    self.slot(*call).1.push_str(json);
                    continue;
                }
                Event::Error { name: None, .. } => {
                    out.push(json!({"event": "skipped", "kind": "nameless_call", "id": null, "name": null}));
                    continue;
                }
                _ => {}
            }
            let Some(client) = event.to_client() else {
                continue;
            };
            match &client {
                ClientEvent::CallStarted { call, name, .. } => self.slot(*call).0.clone_from(name),
                ClientEvent::CallDone { call, end, .. } => {
                    let slot = self.slot(*call);
                    slot.0.clone_from(&end.name);
                    slot.2 = Some(end.args.clone());
                }
                _ => {}
            }
            out.push(event_json(&client));
        }
        Value::Array(out).to_string()
    }
}
