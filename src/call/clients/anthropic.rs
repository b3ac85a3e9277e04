//! Anthropic's Messages streaming format.

use serde_json::Value;

use super::calls::{Calls, at, text};
use super::{ClientEvent, call_accessors};
use crate::normalize::{ToolMap, ToolOptions};

/// `stop_reason`s that mean the model was stopped, not done.
const CUT: [&str; 3] = ["max_tokens", "model_context_window_exceeded", "refusal"];

/// Block types that hold no call: text and thinking, and the results of
/// server tools (`web_search_tool_result`…).
fn holds_no_call(kind: &str) -> bool {
    matches!(kind, "text" | "thinking" | "redacted_thinking") || kind.ends_with("_result")
}

/// Anthropic Messages streaming; blocks are kept apart by `index`:
/// - `content_block_start` with a `tool_use` block (`id`, `name`, and
///   `input`: the whole arguments when the server sends them at once, as in
///   programmatic tool calling; the empty `{}` placeholder otherwise);
/// - `content_block_delta` with `input_json_delta` (`partial_json`), which
///   replaces a start `input` when both come, as the SDK does;
/// - `tool_use` blocks already inside `message_start.message.content`, each
///   a whole call;
/// - `content_block_stop` ends a block's arguments, and `message_delta`'s
///   `stop_reason` says how the message ended: the call is reported then (or
///   as soon as another block starts), cut off (`complete: false`) when the
///   reason is `max_tokens`, `model_context_window_exceeded` or `refusal`,
///   whatever its JSON looks like. An `error` event cuts what is open;
///   [`finish`](Self::finish) ends any call left open as `stream_ended`.
///
/// Blocks of other call kinds (`server_tool_use`, `mcp_tool_use`) are
/// reported as [`ClientEvent::Skipped`].
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
///     json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
/// ] {
///     events.extend(stream.push(&event));
/// }
/// let Some(ClientEvent::CallDone { end, .. }) = events.last() else { panic!() };
/// assert_eq!(end.args, json!({"city": "Paris"}));
/// assert!(end.complete);
/// ```
#[derive(Debug, Clone, Default)]
pub struct AnthropicStream {
    calls: Calls,
}

call_accessors!(AnthropicStream);

impl AnthropicStream {
    /// A stream whose calls are normalized with `options`.
    pub fn new(options: ToolOptions) -> Self {
        AnthropicStream {
            calls: Calls::new(options),
        }
    }

    /// A stream whose calls each get their own tool's schema, from the
    /// request's `tools` (see [`ToolMap::from_anthropic_tools`]).
    pub fn from_tools(tools: &Value) -> Self {
        AnthropicStream::new(ToolOptions::default().tools(ToolMap::from_anthropic_tools(tools)))
    }

    /// One parsed event.
    pub fn push(&mut self, event: &Value) -> Vec<ClientEvent> {
        let mut out = Vec::new();
        let key = event.get("index").map(Value::to_string).unwrap_or_default();
        match text(event, "type").unwrap_or("") {
            "message_start" => {
                self.calls.new_message(&mut out);
                let blocks = at(event, &["message", "content"]).and_then(Value::as_array);
                for (index, block) in blocks.into_iter().flatten().enumerate() {
                    let key = format!("message_start/{index}");
                    self.block(&key, block, &mut out);
                    self.calls.hold(&key);
                }
            }
            "content_block_start" => {
                // Another block: the model went on, so the calls before it are whole.
                self.calls.end_held(None, &mut out);
                if let Some(block) = event.get("content_block") {
                    self.block(&key, block, &mut out);
                }
            }
            "content_block_delta" => {
                let Some(delta) = event.get("delta") else {
                    return out;
                };
                if text(delta, "type") == Some("input_json_delta")
                    && !self.calls.is_skipped(&key)
                    && let Some(fragment) = text(delta, "partial_json")
                {
                    self.calls.feed(&key, fragment, &mut out);
                    // A tool without parameters gets one empty delta: that
                    // is the model's `{}`, not arguments lost on the way.
                    self.calls.touch(&key);
                }
            }
            "content_block_stop" => self.calls.hold(&key),
            "message_delta" => {
                if let Some(reason) = at(event, &["delta", "stop_reason"]).and_then(Value::as_str) {
                    let cut = CUT.contains(&reason).then_some(reason);
                    self.calls.end_all(cut, &mut out);
                }
            }
            "message_stop" => self.calls.end_all(None, &mut out),
            "error" => self.calls.end_all(Some("error"), &mut out),
            _ => {}
        }
        out
    }

    /// A content block: a call, a call kind argmend does not run, or neither.
    fn block(&mut self, key: &str, block: &Value, out: &mut Vec<ClientEvent>) {
        let kind = text(block, "type").unwrap_or("");
        if kind != "tool_use" {
            if !holds_no_call(kind) {
                self.calls
                    .skip(key, kind, text(block, "id"), text(block, "name"), out);
            }
            return;
        }
        self.calls.start(
            key,
            text(block, "id"),
            text(block, "name").unwrap_or(""),
            out,
        );
        // `{}` is the placeholder of a streamed block; anything else is the
        // whole input, sent at once.
        match block.get("input") {
            Some(Value::Object(input)) if input.is_empty() => {}
            Some(input) => self.calls.start_value(key, &input.to_string(), out),
            None => {}
        }
    }

    /// The stream ended: calls still open were not confirmed whole.
    pub fn finish(self) -> Vec<ClientEvent> {
        self.calls.finish()
    }
}
