//! The tool-call runtime: find calls in streamed model text, mend their
//! arguments as they stream, and run them.
//!
//! [`CallParser`] is a push parser over model output: feed it chunks, get
//! [`Event`]s. It reads `<tool_call name="…" args='…' />` (or `args="…"`),
//! `<tool_call name="…">…</tool_call>` with the arguments as the body (or,
//! without a name, a body `{"name": …, "arguments": …}`: Hermes and Qwen),
//! the `<tool …>` alias, a JSON object `{"tool_call": "…", "args": …}`, the
//! Llama 3 and Mistral forms (`{"name": …, "parameters": …}` standing alone,
//! `<|python_tag|>{…}; {…}`, `[TOOL_CALLS][{…}, {…}]`), and any of these in
//! code fences, several to a message. A bare `{"name": …}` object is a call
//! only with exactly a call's shape and a name the tool table knows
//! ([`ToolMap::knows`](crate::ToolMap::knows)), so ordinary JSON in prose
//! stays text. [`ArgsStream`] is the same for the native tool-use form,
//! where the arguments of one call arrive as string deltas; for the model
//! APIs' streams see [`ToolCallStream`] and the client adapters.
//!
//! [`Dispatcher`] runs calls: `@json` and `@diff` are built in, others
//! implement [`Tool`].

mod args;
mod clients;
#[cfg(feature = "tools")]
mod dispatch;
mod format;
mod live;
mod parser;
mod pending;
mod scan;
mod walk;

pub use self::args::ArgsStream;
pub use self::clients::{AnthropicStream, ClientEvent, OpenAiChatStream, OpenAiResponsesStream};
#[cfg(feature = "tools")]
pub use self::dispatch::{
    Access, DEFAULT_OUTPUT_CAP, DEFAULT_TIME_LIMIT, DiffTool, Dispatcher, JsonTool, Tool,
    ToolError, ToolErrorKind, ToolResult,
};
pub use self::format::Format;
pub use self::live::{ArgsUpdate, CallEnd, ToolCallStream};
pub use self::parser::CallParser;
pub use self::walk::{FieldEvent, ValueKind};
use crate::normalize::{Strategy, ToolFix};
use crate::repair::{Doubt, Verdict};

/// What the parser found in the stream. `call` numbers the calls in the
/// order they began (0, 1, …), so a client can keep parallel previews apart.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    /// Text outside calls, to show as it comes (`Let me check.`).
    Text(String),
    /// A call to the tool `name` began (`<tool_call name="@json"`).
    CallStarted {
        /// The call's number.
        call: usize,
        /// The tool's name.
        name: String,
    },
    /// Characters added to a string value of the arguments, after repair:
    /// `path` is the JSON Pointer of the field (`/content`, `/args/file`,
    /// `/items/2`, empty at the top level), `text` the decoded characters.
    ArgsDelta {
        /// The call's number.
        call: usize,
        /// The tool's name.
        name: String,
        /// The JSON Pointer of the string being written.
        path: String,
        /// The characters added to it.
        text: String,
    },
    /// Mended JSON text of the arguments, as far as it is final: the pieces
    /// of a call, in order, are the JSON text of its arguments, which a
    /// client that wants OpenAI-style `arguments` deltas passes on as they
    /// come. They add up to the `CallReady`'s `args` unless a tool-level
    /// rule rewrote the arguments at the end (a schema's coercion of `"5"`
    /// to `5`), which the `CallReady`'s fixes then say.
    ArgsJson {
        /// The call's number.
        call: usize,
        /// The JSON text added.
        json: String,
    },
    /// A value of the arguments is final (a string, number, literal, object
    /// or array), with its JSON Pointer: it comes with the chunk that let the
    /// engine decide the value ended.
    FieldDone {
        /// The call's number.
        call: usize,
        /// The tool's name.
        name: String,
        /// The JSON Pointer of the value.
        path: String,
        /// The value, as the engine mended it (before tool-level rules).
        value: serde_json::Value,
    },
    /// A call is complete, with its arguments mended for the tool.
    CallReady {
        /// The call's number.
        call: usize,
        /// The tool's name.
        name: String,
        /// The arguments: JSON text.
        args: String,
        /// Which strategy the arguments needed.
        strategy: Option<Strategy>,
        /// What was changed, with offsets into the raw arguments.
        fixes: Vec<ToolFix>,
        /// The choices between readings that the raw arguments could not
        /// settle, with offsets into them (see [`Doubt`]); empty when there
        /// was none.
        doubts: Vec<Doubt>,
        /// Whether the arguments arrived whole: `false` when a string, a
        /// container or a number had to be closed because they stopped.
        complete: bool,
        /// The engine's verdict on the arguments: `Valid` as written,
        /// `Completed` (only a cut-off closed) or `Repaired`.
        verdict: Verdict,
        /// Whether the call's own end was seen (`</tool_call>`, `/>`, the
        /// object's `}`): `false` when the input ended first. A call cut off
        /// like this may be half of what the model meant (a `write_file`
        /// whose content stops mid-way); `argmend call` reports it and does
        /// not run it unless told to (`--run-incomplete`).
        closed: bool,
    },
    /// A call that cannot be mended (`<tool_call name="x" args='read --file "a' />`).
    Error {
        /// The call's number.
        call: usize,
        /// The tool's name, when the call gave one.
        name: Option<String>,
        /// The raw arguments, untouched.
        raw: String,
        /// Why they could not be mended.
        reason: String,
    },
}

impl Event {
    /// The event in the shape the client adapters give theirs
    /// ([`ClientEvent`]), for code that reads both: `CallStarted` (no id),
    /// a `Field` for each string delta and final value, and `CallDone` for
    /// `CallReady` and for an `Error` that names its tool (its `end` has the
    /// verdict `NotJson` and the reason). A call whose own end the input cut
    /// off is `complete: false` with `cut: "stream_ended"`, as an adapter
    /// reports a stream that stopped. `None` for `Text`, the `ArgsJson`
    /// pieces and an `Error` with no tool's name.
    ///
    /// ```
    /// use argmend::{CallParser, ClientEvent, Format, ToolOptions};
    /// let format = Format::from_name("kimi_k2").unwrap();
    /// let mut parser = CallParser::with_format(format, ToolOptions::default());
    /// let mut events = parser.feed(b"<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"a\": 1");
    /// events.extend(parser.finish());
    /// let done = events.iter().filter_map(|event| event.to_client()).last().unwrap();
    /// let ClientEvent::CallDone { end, .. } = done else { panic!() };
    /// assert_eq!(end.args, serde_json::json!({"a": 1}));
    /// assert!(!end.complete);
    /// assert_eq!(end.cut.as_deref(), Some("stream_ended"));
    /// ```
    pub fn to_client(&self) -> Option<ClientEvent> {
        match self {
            Event::CallStarted { call, name } => Some(ClientEvent::CallStarted {
                call: *call,
                id: None,
                name: name.clone(),
            }),
            Event::ArgsDelta {
                call, path, text, ..
            } => Some(ClientEvent::Field {
                call: *call,
                event: FieldEvent::StringDelta {
                    path: path.clone(),
                    text: text.clone(),
                },
            }),
            Event::FieldDone {
                call, path, value, ..
            } => Some(ClientEvent::Field {
                call: *call,
                event: FieldEvent::Done {
                    path: path.clone(),
                    value: value.clone(),
                },
            }),
            Event::CallReady {
                call,
                name,
                args,
                strategy,
                fixes,
                doubts,
                complete,
                verdict,
                closed,
            } => Some(ClientEvent::CallDone {
                call: *call,
                id: None,
                end: CallEnd {
                    name: name.clone(),
                    args: serde_json::from_str(args).unwrap_or(serde_json::Value::Null),
                    text: args.clone(),
                    verdict: *verdict,
                    strategy: *strategy,
                    fixes: fixes.clone(),
                    doubts: doubts.clone(),
                    complete: *complete && *closed,
                    cut: (!closed).then(|| "stream_ended".to_owned()),
                    reason: None,
                    events: Vec::new(),
                },
            }),
            Event::Error {
                call,
                name: Some(name),
                raw,
                reason,
            } => Some(ClientEvent::CallDone {
                call: *call,
                id: None,
                end: CallEnd {
                    name: name.clone(),
                    args: serde_json::Value::Null,
                    text: raw.clone(),
                    verdict: Verdict::NotJson,
                    strategy: None,
                    fixes: Vec::new(),
                    doubts: Vec::new(),
                    complete: false,
                    cut: None,
                    reason: Some(reason.clone()),
                    events: Vec::new(),
                },
            }),
            _ => None,
        }
    }
}
