//! Adapters from the model APIs' streaming events to [`ToolCallStream`]s.
//!
//! No HTTP client here: each adapter takes the events the caller's client
//! already parsed (one `serde_json::Value` per server-sent event), keeps the
//! calls apart by the handle the format gives them (an index, an item id),
//! feeds each call's argument fragments to its own stream, and hands back
//! [`ClientEvent`]s tagged with the call.
//!
//! An adapter reads every event that can carry a call or its arguments, not
//! only the deltas: a whole value at a call's start, a final text at its end
//! (which wins over the deltas), and the stream's stop reasons, which mark a
//! call cut off whatever its JSON looks like. A replay or a proxy that sends
//! only some of these events gives the same arguments, and a call the format
//! carries but argmend does not run (a server tool) is reported as
//! [`ClientEvent::Skipped`], never dropped in silence.
//!
//! [`ToolCallStream`]: super::ToolCallStream

mod anthropic;
mod calls;
mod openai;

use serde_json::Value;

pub use self::anthropic::AnthropicStream;
pub use self::openai::{OpenAiChatStream, OpenAiResponsesStream};
use super::live::CallEnd;
use super::walk::FieldEvent;

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
    /// A call ended: its mended arguments and whether it arrived whole
    /// (`end.complete`; `end.cut` says why the stream cut it short).
    CallDone {
        /// The call's number in this stream.
        call: usize,
        /// The model's id for it.
        id: Option<String>,
        /// The arguments, the repairs, the doubts and `complete`.
        end: CallEnd,
    },
    /// The stream carried something argmend does not handle as a call: a
    /// block or item of another kind (`server_tool_use`, `mcp_tool_use`,
    /// `custom_tool_call`, `web_search_call`…) or argument text for a call
    /// that had already ended (`arguments_after_end`). Reported once per
    /// block or item, so nothing is dropped in silence.
    Skipped {
        /// The block's or item's type, or `arguments_after_end`.
        kind: String,
        /// Its id, when it has one.
        id: Option<String>,
        /// Its name, when it has one.
        name: Option<String>,
    },
}

impl ClientEvent {
    /// The event as one JSON object with `"call"` (and `"id"` where known):
    /// `call_started`, the field events (`started`, `delta`, `field_done`),
    /// `skipped` (no `call`), and `call_done` with `args`, `verdict`,
    /// `complete` and `fixes`, `cut` when the stream cut the call short, and
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
    /// stream.push(&json!({"type": "content_block_stop", "index": 0}));
    /// // The call is reported when the message says how it stopped.
    /// let events = stream.push(&json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}));
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
            ClientEvent::Skipped { kind, id, name } => {
                serde_json::json!({"event": "skipped", "kind": kind, "id": id, "name": name})
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
                if let (Some(cut), Some(object)) = (&end.cut, json.as_object_mut()) {
                    object.insert("cut".to_owned(), Value::from(cut.as_str()));
                }
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

/// What every adapter can say about its calls between events: the live value
/// of each (the same value the call's [`ToolCallStream`](super::ToolCallStream)
/// keeps, grown in place, never re-parsed), its snapshot, id and name.
macro_rules! call_accessors {
    ($adapter:ty) => {
        impl $adapter {
            /// The number of calls seen so far (`call` numbers run below it).
            pub fn calls(&self) -> usize {
                self.calls.len()
            }

            /// The call's value now: the snapshot of its arguments while they
            /// stream (`None` before they start), the mended arguments once it
            /// has ended. A UI reads it after each event instead of rebuilding
            /// the value from the field events.
            pub fn value(&self, call: usize) -> Option<&serde_json::Value> {
                self.calls.value(call)
            }

            /// The call's snapshot as JSON text, while it is open.
            pub fn snapshot(&self, call: usize) -> Option<String> {
                self.calls.snapshot(call)
            }

            /// The model's id for the call, when known.
            pub fn id(&self, call: usize) -> Option<&str> {
                self.calls.id(call)
            }

            /// The tool's name (empty when the stream never gave one).
            pub fn name(&self, call: usize) -> Option<&str> {
                self.calls.name(call)
            }
        }
    };
}
use call_accessors;
