//! OpenAI's two streaming formats: Chat Completions chunks and Responses
//! API events.

use serde_json::Value;

use super::calls::{Calls, at, text};
use super::{ClientEvent, call_accessors};
use crate::normalize::{ToolMap, ToolOptions};

/// Chat `finish_reason`s that mean the model was stopped, not done.
const CHAT_CUT: [&str; 2] = ["length", "content_filter"];

/// OpenAI Chat Completions streaming: `choices[i].delta.tool_calls[j]` with
/// `index`, `id`, `function.name` and `function.arguments` fragments; several
/// parallel calls by `index` (and the older `delta.function_call`).
///
/// A call ends (`CallDone`) as soon as the next call index of its choice
/// starts, as openai-node does, or when the choice finishes. A
/// `finish_reason` of `length` or `content_filter` marks the call still open
/// cut off (`complete: false`, `cut: "length"`) whatever its JSON looks like;
/// [`finish`](Self::finish) ends any call left open as `stream_ended`.
/// `custom` tool calls (free text, not JSON) are reported as
/// [`ClientEvent::Skipped`].
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
///     // The live value of call 0 after each chunk: {"path": "a"}, then {"path": "a.py"}.
///     assert!(stream.value(0).is_some());
/// }
/// let Some(ClientEvent::CallDone { id, end, .. }) = events.last() else { panic!() };
/// assert_eq!(id.as_deref(), Some("call_1"));
/// assert_eq!(end.args, json!({"path": "a.py"}));
/// assert!(end.complete);
/// ```
#[derive(Debug, Clone, Default)]
pub struct OpenAiChatStream {
    calls: Calls,
    /// The id of the completion whose chunks are arriving.
    completion: Option<String>,
}

call_accessors!(OpenAiChatStream);

impl OpenAiChatStream {
    /// A stream whose calls are normalized with `options` (tool table, schema).
    pub fn new(options: ToolOptions) -> Self {
        OpenAiChatStream {
            calls: Calls::new(options),
            completion: None,
        }
    }

    /// A stream whose calls each get their own tool's schema, from the
    /// request's `tools` (see [`ToolMap::from_openai_tools`]).
    pub fn from_tools(tools: &Value) -> Self {
        OpenAiChatStream::new(ToolOptions::default().tools(ToolMap::from_openai_tools(tools)))
    }

    /// One parsed chunk (`chat.completion.chunk`).
    pub fn push(&mut self, chunk: &Value) -> Vec<ClientEvent> {
        let mut out = Vec::new();
        // Another completion's chunks (one adapter kept across an agent
        // loop's requests): its call indexes start over.
        if let Some(id) = text(chunk, "id").filter(|id| !id.is_empty()) {
            if self.completion.as_deref().is_some_and(|seen| seen != id) {
                self.calls.new_message(&mut out);
            }
            if self.completion.as_deref() != Some(id) {
                self.completion = Some(id.to_owned());
            }
        }
        let choices = chunk.get("choices").and_then(Value::as_array);
        for choice in choices.into_iter().flatten() {
            let n = choice.get("index").and_then(Value::as_u64).unwrap_or(0);
            let deltas = at(choice, &["delta", "tool_calls"]).and_then(Value::as_array);
            for delta in deltas.into_iter().flatten() {
                let index = delta.get("index").and_then(Value::as_u64).unwrap_or(0);
                self.call_delta(n, &index.to_string(), delta, &mut out);
            }
            // The deprecated single `function_call`, same shape as a tool call's `function`.
            if let Some(function) =
                at(choice, &["delta", "function_call"]).filter(|f| f.is_object())
            {
                let delta = serde_json::json!({"function": function});
                self.call_delta(n, "function_call", &delta, &mut out);
            }
            if let Some(reason) = text(choice, "finish_reason") {
                let cut = CHAT_CUT.contains(&reason).then_some(reason);
                self.calls.end_prefixed(&format!("{n}/"), cut, &mut out);
            }
        }
        out
    }

    fn call_delta(&mut self, n: u64, index: &str, delta: &Value, out: &mut Vec<ClientEvent>) {
        let key = format!("{n}/{index}");
        let id = text(delta, "id");
        if text(delta, "type") == Some("custom") || self.calls.is_skipped(&key) {
            let name = at(delta, &["custom", "name"]).and_then(Value::as_str);
            return self.calls.skip(&key, "custom", id, name, out);
        }
        if self.calls.find(&key).is_none() {
            // A new index: the calls before it in this choice are whole.
            self.calls.end_prefixed(&format!("{n}/"), None, out);
            let name = at(delta, &["function", "name"]).and_then(Value::as_str);
            self.calls.start(&key, id, name.unwrap_or(""), out);
        } else if id.is_some() {
            self.calls.start(&key, id, "", out);
        }
        if let Some(fragment) = at(delta, &["function", "arguments"]).and_then(Value::as_str) {
            self.calls.feed(&key, fragment, out);
        }
    }

    /// The stream ended: calls still open were not confirmed whole.
    pub fn finish(self) -> Vec<ClientEvent> {
        self.calls.finish()
    }
}

/// OpenAI Responses API streaming, calls kept apart by item id:
/// - `response.output_item.added` starts a `function_call` item (`name`,
///   `call_id`, and `arguments` if it already has some);
/// - `response.function_call_arguments.delta` adds argument text;
/// - `response.function_call_arguments.done` (`arguments`) and
///   `response.output_item.done` (`item.arguments`) give the final text,
///   which wins over the deltas when they differ (a
///   [`FinalText`](crate::ToolFixKind::FinalText) fix); the item's `done`
///   ends the call, cut off when its `status` is `incomplete`;
/// - `response.completed`, `response.incomplete`, `response.failed` and
///   `error` end what is open (the last three as cut off), after reading the
///   function calls of the final `response.output`.
///
/// Items of other call kinds (`custom_tool_call`, `mcp_call`,
/// `web_search_call`, `computer_call`…) are reported as
/// [`ClientEvent::Skipped`].
///
/// ```
/// use argmend::{ClientEvent, OpenAiResponsesStream, ToolOptions};
/// use serde_json::json;
/// // A replay that sends only the final events, no deltas.
/// let mut stream = OpenAiResponsesStream::new(ToolOptions::default());
/// let mut events = stream.push(&json!({"type": "response.output_item.added", "output_index": 0,
///     "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": ""}}));
/// events.extend(stream.push(&json!({"type": "response.output_item.done", "output_index": 0,
///     "item": {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
///              "arguments": "{\"city\": \"Paris\"}", "status": "completed"}})));
/// let Some(ClientEvent::CallDone { end, .. }) = events.last() else { panic!() };
/// assert_eq!(end.args, json!({"city": "Paris"}));
/// assert!(end.complete);
/// ```
#[derive(Debug, Clone, Default)]
pub struct OpenAiResponsesStream {
    calls: Calls,
}

call_accessors!(OpenAiResponsesStream);

impl OpenAiResponsesStream {
    /// A stream whose calls are normalized with `options`.
    pub fn new(options: ToolOptions) -> Self {
        OpenAiResponsesStream {
            calls: Calls::new(options),
        }
    }

    /// A stream whose calls each get their own tool's schema, from the
    /// request's `tools` (see [`ToolMap::from_responses_tools`]).
    pub fn from_tools(tools: &Value) -> Self {
        OpenAiResponsesStream::new(
            ToolOptions::default().tools(ToolMap::from_responses_tools(tools)),
        )
    }

    /// One parsed event.
    pub fn push(&mut self, event: &Value) -> Vec<ClientEvent> {
        let mut out = Vec::new();
        let kind = text(event, "type").unwrap_or("");
        match kind {
            // One adapter kept across an agent loop's responses.
            "response.created" => self.calls.new_message(&mut out),
            "response.output_item.added" | "response.output_item.done" => {
                let Some(item) = event.get("item") else {
                    return out;
                };
                let key = item_key(event);
                let done = kind.ends_with(".done").then_some(None);
                self.item(&key, item, done, &mut out);
            }
            "response.function_call_arguments.delta" => {
                if let Some(delta) = text(event, "delta") {
                    let key = item_key(event);
                    self.calls.feed(&key, delta, &mut out);
                }
            }
            "response.function_call_arguments.done" => {
                let key = item_key(event);
                if self.calls.find(&key).is_none() {
                    self.calls
                        .start(&key, None, text(event, "name").unwrap_or(""), &mut out);
                }
                if let Some(arguments) = text(event, "arguments") {
                    self.calls.final_text(&key, arguments, &mut out);
                }
            }
            "response.custom_tool_call_input.delta" | "response.custom_tool_call_input.done" => {
                let key = item_key(event);
                self.calls
                    .skip(&key, "custom_tool_call", None, None, &mut out);
            }
            "response.completed" | "response.incomplete" | "response.failed" | "error" => {
                let cut = match kind {
                    "response.completed" => None,
                    "response.incomplete" => Some("incomplete"),
                    "response.failed" => Some("failed"),
                    _ => Some("error"),
                };
                let items = at(event, &["response", "output"]).and_then(Value::as_array);
                for (index, item) in items.into_iter().flatten().enumerate() {
                    let key = text(item, "id").map_or_else(|| index.to_string(), str::to_owned);
                    self.item(&key, item, Some(cut), &mut out);
                }
                self.calls.end_all(cut, &mut out);
            }
            _ => {}
        }
        out
    }

    /// An output item: added (`done` is `None`), or final, with the cut the
    /// response as a whole gives an item not marked `completed` (`done` is
    /// `Some(None)` for an item's own `.done`, which says nothing more).
    fn item(
        &mut self,
        key: &str,
        item: &Value,
        done: Option<Option<&str>>,
        out: &mut Vec<ClientEvent>,
    ) {
        let kind = text(item, "type").unwrap_or("");
        if kind != "function_call" {
            if kind.ends_with("_call") || kind == "mcp_approval_request" {
                self.calls.skip(
                    key,
                    kind,
                    text(item, "call_id").or(text(item, "id")),
                    text(item, "name"),
                    out,
                );
            }
            return;
        }
        let id = text(item, "call_id").or_else(|| text(item, "id"));
        self.calls
            .start(key, id, text(item, "name").unwrap_or(""), out);
        let arguments = text(item, "arguments").unwrap_or("");
        let Some(response_cut) = done else {
            self.calls.feed(key, arguments, out);
            return;
        };
        if !arguments.is_empty() || !self.calls.is_open(key) {
            self.calls.final_text(key, arguments, out);
        }
        let cut = match text(item, "status") {
            Some("incomplete") => Some("incomplete"),
            Some("completed") => None,
            // `in_progress` (or none) in a response that was cut: cut with it.
            _ => response_cut,
        };
        self.calls.end(key, cut, out);
    }

    /// The stream ended: calls still open were not confirmed whole.
    pub fn finish(self) -> Vec<ClientEvent> {
        self.calls.finish()
    }
}

/// The handle of an item: its id, else its place in the output.
fn item_key(event: &Value) -> String {
    text(event, "item_id")
        .or_else(|| at(event, &["item", "id"]).and_then(Value::as_str))
        .map(str::to_owned)
        .or_else(|| event.get("output_index").map(Value::to_string))
        .unwrap_or_default()
}
