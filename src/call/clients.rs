//! Adapters from the model APIs' streaming events to [`ToolCallStream`]s.
//!
//! No HTTP client here: each adapter takes the events the caller's client
//! already parsed (one `serde_json::Value` per server-sent event), keeps the
//! calls apart by the handle the format gives them (an index, an item id),
//! feeds each call's argument fragments to its own stream, and hands back
//! [`ClientEvent`]s tagged with the call.

use serde_json::Value;

use super::live::{CallEnd, ToolCallStream};
use super::walk::FieldEvent;
use crate::normalize::ToolOptions;

/// What happened in a model's stream, per tool call. `call` numbers the
/// calls in the order they appeared (0, 1, …); `id` is the model's own id
/// for the call when the format has one.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClientEvent {
    /// A tool call began.
    CallStarted {
        /// The call's number in this stream.
        call: usize,
        /// The model's id for it (`call_…`, `toolu_…`).
        id: Option<String>,
        /// The tool's name.
        name: String,
    },
    /// A field event of a call's arguments.
    Field {
        /// The call's number in this stream.
        call: usize,
        /// The event.
        event: FieldEvent,
    },
    /// A call ended: its mended arguments and whether it arrived whole.
    CallDone {
        /// The call's number in this stream.
        call: usize,
        /// The model's id for it.
        id: Option<String>,
        /// The arguments, the repairs, the doubts and `complete`.
        end: CallEnd,
    },
}

impl ClientEvent {
    /// The event as one JSON object with `"call"` (and `"id"` where known):
    /// `call_started`, the field events (`started`, `delta`, `field_done`),
    /// and `call_done` with `args`, `verdict`, `complete` and `fixes`, and
    /// `doubt` when the arguments carry a doubt (absent when there is none):
    /// `"doubt": [{"kind": "early_close", "offset": 11, "reason": "…"}]`.
    ///
    /// ```
    /// use argmend::{AnthropicStream, ClientEvent, ToolOptions};
    /// use serde_json::json;
    /// let mut stream = AnthropicStream::new(ToolOptions::default());
    /// stream.push(&json!({"type": "content_block_start", "index": 0,
    ///     "content_block": {"type": "tool_use", "id": "toolu_1", "name": "note", "input": {}}}));
    /// stream.push(&json!({"type": "content_block_delta", "index": 0,
    ///     "delta": {"type": "input_json_delta", "partial_json": r#"{"a": "x"} note: "done""#}}));
    /// let events = stream.push(&json!({"type": "content_block_stop", "index": 0}));
    /// let done = events.last().unwrap().to_json();
    /// assert_eq!(done["args"], json!({"a": "x"}));
    /// assert_eq!(done["doubt"][0]["kind"], "early_close");
    /// assert_eq!(done["doubt"][0]["offset"], 11);
    /// ```
    pub fn to_json(&self) -> Value {
        match self {
            ClientEvent::CallStarted { call, id, name } => {
                serde_json::json!({"event": "call_started", "call": call, "id": id, "name": name})
            }
            ClientEvent::Field { call, event } => {
                let mut json = event.to_json();
                if let Some(object) = json.as_object_mut() {
                    object.insert("call".to_owned(), Value::from(*call));
                }
                json
            }
            ClientEvent::CallDone { call, id, end } => {
                let fixes: Vec<Value> = (end.fixes.iter())
                    .map(|fix| serde_json::json!({"kind": fix.kind.name(), "offset": fix.offset}))
                    .collect();
                let mut json = serde_json::json!({
                    "event": "call_done",
                    "call": call,
                    "id": id,
                    "name": end.name,
                    "args": end.args,
                    "verdict": end.verdict.name(),
                    "complete": end.complete,
                    "fixes": fixes,
                });
                if let (false, Some(object)) = (end.doubts.is_empty(), json.as_object_mut()) {
                    let doubts = (end.doubts.iter())
                        .map(|doubt| {
                            serde_json::json!({
                                "kind": doubt.kind.name(),
                                "offset": doubt.offset,
                                "reason": doubt.reason(),
                            })
                        })
                        .collect();
                    object.insert("doubt".to_owned(), Value::Array(doubts));
                }
                json
            }
        }
    }
}

/// The calls of one stream, by the format's handle.
#[derive(Debug, Clone, Default)]
struct Calls {
    options: ToolOptions,
    slots: Vec<Slot>,
}

#[derive(Debug, Clone)]
struct Slot {
    key: String,
    id: Option<String>,
    /// `None` once the call has ended.
    stream: Option<ToolCallStream>,
}

impl Calls {
    fn new(options: ToolOptions) -> Self {
        Calls {
            options,
            slots: Vec::new(),
        }
    }

    fn find(&self, key: &str) -> Option<usize> {
        self.slots.iter().position(|slot| slot.key == key)
    }

    /// The call `key`, started if it is new.
    fn start(
        &mut self,
        key: &str,
        id: Option<&str>,
        name: &str,
        out: &mut Vec<ClientEvent>,
    ) -> usize {
        if let Some(call) = self.find(key) {
            if let (Some(id), None) = (id, &self.slots[call].id) {
                self.slots[call].id = Some(id.to_owned());
            }
            return call;
        }
        let call = self.slots.len();
        self.slots.push(Slot {
            key: key.to_owned(),
            id: id.map(str::to_owned),
            stream: Some(ToolCallStream::new(name, self.options.clone())),
        });
        out.push(ClientEvent::CallStarted {
            call,
            id: id.map(str::to_owned),
            name: name.to_owned(),
        });
        call
    }

    fn feed(&mut self, key: &str, fragment: &str, out: &mut Vec<ClientEvent>) {
        let call = match self.find(key) {
            Some(call) => call,
            // Arguments for a call whose start was not seen: a call with no name.
            None => self.start(key, None, "", out),
        };
        let Some(stream) = self.slots[call].stream.as_mut() else {
            return; // after its end: nothing can change it any more
        };
        let update = stream.feed(fragment.as_bytes());
        out.extend(
            update
                .events
                .into_iter()
                .map(|event| ClientEvent::Field { call, event }),
        );
    }

    /// End the call `key`; `cut` when the stream says it was cut off.
    fn end(&mut self, key: &str, cut: bool, out: &mut Vec<ClientEvent>) {
        if let Some(call) = self.find(key) {
            self.end_call(call, cut, out);
        }
    }

    fn end_call(&mut self, call: usize, cut: bool, out: &mut Vec<ClientEvent>) {
        let slot = &mut self.slots[call];
        let Some(stream) = slot.stream.take() else {
            return;
        };
        let mut end = stream.finish();
        let events = std::mem::take(&mut end.events);
        out.extend(
            events
                .into_iter()
                .map(|event| ClientEvent::Field { call, event }),
        );
        end.complete &= !cut;
        out.push(ClientEvent::CallDone {
            call,
            id: slot.id.clone(),
            end,
        });
    }

    /// The end of the stream: calls still open were cut off.
    fn finish(mut self) -> Vec<ClientEvent> {
        let mut out = Vec::new();
        self.end_all(true, &mut out);
        out
    }

    fn end_all(&mut self, cut: bool, out: &mut Vec<ClientEvent>) {
        for call in 0..self.slots.len() {
            self.end_call(call, cut, out);
        }
    }
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// OpenAI Chat Completions streaming: `choices[i].delta.tool_calls[j]` with
/// `index`, `id`, `function.name` and `function.arguments` fragments; several
/// parallel calls by `index`. A `finish_reason` ends the choice's calls
/// (`"length"` marks the last one cut off); [`finish`](Self::finish) ends
/// any left open, as cut off.
///
/// ```
/// use argmend::{ClientEvent, OpenAiChatStream, ToolOptions};
/// use serde_json::json;
/// let mut stream = OpenAiChatStream::new(ToolOptions::default());
/// let chunks = [
///     json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
///         "function": {"name": "read_file", "arguments": "{'path': 'a"}}]}}]}),
///     json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": ".py'}"}}]}}]}),
///     json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
/// ];
/// let mut events = Vec::new();
/// for chunk in &chunks {
///     events.extend(stream.push(chunk));
/// }
/// let Some(ClientEvent::CallDone { id, end, .. }) = events.last() else { panic!() };
/// assert_eq!(id.as_deref(), Some("call_1"));
/// assert_eq!(end.args, json!({"path": "a.py"}));
/// assert!(end.complete);
/// ```
#[derive(Debug, Clone, Default)]
pub struct OpenAiChatStream {
    calls: Calls,
}

impl OpenAiChatStream {
    /// A stream whose calls are normalized with `options` (tool table, schema).
    pub fn new(options: ToolOptions) -> Self {
        OpenAiChatStream {
            calls: Calls::new(options),
        }
    }

    /// One parsed chunk (`chat.completion.chunk`).
    pub fn push(&mut self, chunk: &Value) -> Vec<ClientEvent> {
        let mut out = Vec::new();
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            let n = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            let deltas = choice
                .pointer("/delta/tool_calls")
                .and_then(Value::as_array);
            for delta in deltas.into_iter().flatten() {
                let index = delta.get("index").and_then(Value::as_u64).unwrap_or(0);
                let key = format!("{n}/{index}");
                let name = delta.pointer("/function/name").and_then(Value::as_str);
                if self.calls.find(&key).is_none() || text(delta, "id").is_some() {
                    self.calls
                        .start(&key, text(delta, "id"), name.unwrap_or(""), &mut out);
                }
                if let Some(fragment) = delta.pointer("/function/arguments").and_then(Value::as_str)
                {
                    self.calls.feed(&key, fragment, &mut out);
                }
            }
            if let Some(reason) = text(choice, "finish_reason") {
                // `length`: the model was stopped while writing its last call;
                // the calls before it were whole (their JSON says so anyway).
                let prefix = format!("{n}/");
                let keys: Vec<String> = (self.calls.slots.iter())
                    .filter(|slot| slot.key.starts_with(&prefix))
                    .map(|slot| slot.key.clone())
                    .collect();
                let last = keys.len().saturating_sub(1);
                for (i, key) in keys.iter().enumerate() {
                    self.calls
                        .end(key, reason == "length" && i == last, &mut out);
                }
            }
        }
        out
    }

    /// The stream ended: calls still open were cut off.
    pub fn finish(self) -> Vec<ClientEvent> {
        self.calls.finish()
    }
}

/// OpenAI Responses API streaming: `response.output_item.added` (a
/// `function_call` item with `name` and `call_id`),
/// `response.function_call_arguments.delta`, `…arguments.done` and
/// `response.output_item.done`; calls are kept apart by item id.
/// `response.incomplete` ends open calls as cut off.
#[derive(Debug, Clone, Default)]
pub struct OpenAiResponsesStream {
    calls: Calls,
}

impl OpenAiResponsesStream {
    /// A stream whose calls are normalized with `options`.
    pub fn new(options: ToolOptions) -> Self {
        OpenAiResponsesStream {
            calls: Calls::new(options),
        }
    }

    /// One parsed event.
    pub fn push(&mut self, event: &Value) -> Vec<ClientEvent> {
        let mut out = Vec::new();
        let item_key = |event: &Value| {
            text(event, "item_id")
                .map(str::to_owned)
                .or_else(|| {
                    event
                        .pointer("/item/id")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .or_else(|| event.get("output_index").map(Value::to_string))
        };
        match text(event, "type").unwrap_or("") {
            "response.output_item.added" => {
                let Some(item) = event.get("item") else {
                    return out;
                };
                if text(item, "type") == Some("function_call")
                    && let Some(key) = item_key(event)
                {
                    let id = text(item, "call_id").or_else(|| text(item, "id"));
                    self.calls
                        .start(&key, id, text(item, "name").unwrap_or(""), &mut out);
                    if let Some(arguments) = text(item, "arguments").filter(|a| !a.is_empty()) {
                        self.calls.feed(&key, arguments, &mut out);
                    }
                }
            }
            "response.function_call_arguments.delta" => {
                if let (Some(key), Some(delta)) = (item_key(event), text(event, "delta")) {
                    self.calls.feed(&key, delta, &mut out);
                }
            }
            "response.function_call_arguments.done" | "response.output_item.done" => {
                if let Some(key) = item_key(event) {
                    self.calls.end(&key, false, &mut out);
                }
            }
            "response.incomplete" | "response.failed" => self.calls.end_all(true, &mut out),
            "response.completed" => self.calls.end_all(false, &mut out),
            _ => {}
        }
        out
    }

    /// The stream ended: calls still open were cut off.
    pub fn finish(self) -> Vec<ClientEvent> {
        self.calls.finish()
    }
}

/// Anthropic Messages streaming: `content_block_start` with a `tool_use`
/// block (`id`, `name`), `content_block_delta` with `input_json_delta`
/// (`partial_json`), `content_block_stop`; blocks are kept apart by `index`.
///
/// ```
/// use argmend::{AnthropicStream, ClientEvent, ToolOptions};
/// use serde_json::json;
/// let mut stream = AnthropicStream::new(ToolOptions::default());
/// let mut events = Vec::new();
/// for event in [
///     json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}}),
///     json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Par"}}),
///     json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "is\"}"}}),
///     json!({"type": "content_block_stop", "index": 1}),
/// ] {
///     events.extend(stream.push(&event));
/// }
/// let Some(ClientEvent::CallDone { end, .. }) = events.last() else { panic!() };
/// assert_eq!(end.args, json!({"city": "Paris"}));
/// ```
#[derive(Debug, Clone, Default)]
pub struct AnthropicStream {
    calls: Calls,
}

impl AnthropicStream {
    /// A stream whose calls are normalized with `options`.
    pub fn new(options: ToolOptions) -> Self {
        AnthropicStream {
            calls: Calls::new(options),
        }
    }

    /// One parsed event.
    pub fn push(&mut self, event: &Value) -> Vec<ClientEvent> {
        let mut out = Vec::new();
        let key = event.get("index").map(Value::to_string).unwrap_or_default();
        match text(event, "type").unwrap_or("") {
            "content_block_start" => {
                let Some(block) = event.get("content_block") else {
                    return out;
                };
                if text(block, "type") == Some("tool_use") {
                    self.calls.start(
                        &key,
                        text(block, "id"),
                        text(block, "name").unwrap_or(""),
                        &mut out,
                    );
                }
            }
            "content_block_delta" => {
                let Some(delta) = event.get("delta") else {
                    return out;
                };
                if text(delta, "type") == Some("input_json_delta")
                    && self.calls.find(&key).is_some()
                    && let Some(fragment) = text(delta, "partial_json")
                {
                    self.calls.feed(&key, fragment, &mut out);
                }
            }
            "content_block_stop" => self.calls.end(&key, false, &mut out),
            "message_stop" => self.calls.end_all(false, &mut out),
            _ => {}
        }
        out
    }

    /// The stream ended: calls still open were cut off.
    pub fn finish(self) -> Vec<ClientEvent> {
        self.calls.finish()
    }
}
