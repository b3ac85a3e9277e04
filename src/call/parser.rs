//! The push parser that finds tool calls in streamed model text.

use self::tag::Attr;
use super::Event;
use super::format::{Format, FormatParser};
use super::scan::{Action, HEAD_LOOKAHEAD, Head, ObjectScanner, ValueScanner, classify_head};
use crate::normalize::ToolOptions;

mod detect;
mod tag;

use super::pending::{Call, MAX_RAW, incomplete_utf8_tail};

/// How many whitespace bytes a lookahead (`{ "tool_call"`, a closing tag
/// after `/>`) may skip before it gives up. Measured in input bytes, so the
/// decision is the same for every chunking.
const LOOKAHEAD: usize = 64;

const TOOL_CALL: &[u8] = b"<tool_call";
/// Llama 3's marker before a JSON tool call (several may follow, split by `;`).
const PYTHON_TAG: &[u8] = b"<|python_tag|>";
/// Mistral's marker before a JSON array of calls.
const TOOL_CALLS: &[u8] = b"[TOOL_CALLS]";
const TOOL: &[u8] = b"<tool";
const CLOSE_TOOL_CALL: &[u8] = b"</tool_call>";
const CLOSE_TOOL: &[u8] = b"</tool>";

#[derive(Debug)]
enum State {
    Text,
    /// Matching `<tool_call` or `<tool`.
    TagOpen,
    /// Matching `{ "tool_call"`.
    JsonHead,
    /// Inside a call tag's attributes.
    Tag {
        attr: Attr,
        /// The attribute name, or the value being read.
        word: Vec<u8>,
        /// The name of the attribute whose value is read.
        key: Vec<u8>,
        args_seen: bool,
        scanner: ValueScanner,
        close: &'static [u8],
    },
    /// After `<tool_call … args='…'>`: an optional closing tag.
    MaybeClose {
        close: &'static [u8],
    },
    /// The body of `<tool_call>` with no name, before its first byte that
    /// is not a space: a `{` makes it a call object, anything else makes the
    /// tag prose (`I could emit a <tool_call> here, but…`).
    BodyStart {
        close: &'static [u8],
    },
    /// The body of `<tool_call>` starts with something else than a call
    /// object: its bytes so far, while they may still tell another format
    /// (`<function=…`: Qwen3-Coder; `get_weather\n<arg_key>`: GLM).
    Probe(Vec<u8>),
    /// The body of `<tool_call name="…">…</tool_call>`; without a name the
    /// body is an object holding name and arguments.
    Body {
        close: &'static [u8],
        object: Option<ObjectScanner>,
        /// The object ended: the rest of the body is dropped.
        ended: bool,
    },
    /// The object form `{"tool_call": …, "args": …}`, or `{"name": …,
    /// "arguments": …}` standing alone, after a marker, or in a list.
    Object(ObjectScanner),
    /// Matching `[TOOL_CALLS]`.
    MarkerOpen,
    /// After a marker, or between the objects of a sequence of calls.
    Between(Sequence),
}

/// A run of call objects after a model's marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sequence {
    /// After `[TOOL_CALLS]`: an optional `[`, objects split by `,`, `]`.
    List,
    /// After `<|python_tag|>`: objects split by `;`.
    PythonTag,
}

/// Finds tool calls in streamed model text and mends their arguments as
/// they arrive.
///
/// Feed chunks of any size; each [`feed`](Self::feed) returns the events it
/// completed. Text outside calls comes back as [`Event::Text`]; a call gives
/// [`Event::CallStarted`], [`Event::ArgsDelta`]s while its string values
/// stream, then [`Event::CallReady`] with the arguments normalized for the
/// tool (or [`Event::Error`]). The calls and their arguments are the same
/// for every chunking; text and deltas may be cut differently.
///
/// ```
/// use argmend::{CallParser, Event};
/// let mut parser = CallParser::new();
/// let mut events = Vec::new();
/// for chunk in ["Let me look. <tool_call name=\"@json\" args='{\"cmd\":\"keys\",", "\"args\":{\"file\":\"a.json\",}}' /> done"] {
///     events.extend(parser.feed(chunk.as_bytes()));
/// }
/// events.extend(parser.finish());
/// let ready: Vec<&str> = events.iter().filter_map(|event| match event {
///     Event::CallReady { args, .. } => Some(args.as_str()),
///     _ => None,
/// }).collect();
/// assert_eq!(ready, [r#"{"cmd":"keys","args":{"file":"a.json"}}"#]);
/// ```
#[derive(Debug)]
pub struct CallParser {
    options: ToolOptions,
    state: State,
    /// Bytes held by a lookahead (`TagOpen`, `JsonHead`, `MaybeClose`, a
    /// possible closing tag in a body).
    held: Vec<u8>,
    /// Text not yet handed out.
    text: Vec<u8>,
    call: Option<Call>,
    /// How many calls have begun.
    calls: usize,
    /// The sequence the current call object belongs to, if any.
    sequence: Option<Sequence>,
    events: Vec<Event>,
    /// The format's machine, once a format is chosen or told by the text:
    /// every byte goes to it.
    format: Option<Box<FormatParser>>,
    /// Whether the current sequence has read nothing since its marker
    /// (`[TOOL_CALLS]` then a name is Mistral's v11 form).
    fresh_sequence: bool,
    /// The whitespace read since that marker.
    fresh_spaces: Vec<u8>,
}

impl Default for CallParser {
    fn default() -> Self {
        CallParser::new()
    }
}

impl CallParser {
    /// A parser with the built-in tool table.
    pub fn new() -> Self {
        CallParser::with_options(ToolOptions::default())
    }

    /// A parser whose calls are normalized with `options` (a tool table, a schema).
    pub fn with_options(options: ToolOptions) -> Self {
        CallParser {
            options,
            state: State::Text,
            held: Vec::new(),
            text: Vec::new(),
            call: None,
            calls: 0,
            sequence: None,
            events: Vec::new(),
            format: None,
            fresh_sequence: false,
            fresh_spaces: Vec::new(),
        }
    }

    /// A parser for one wire format (`Format::from_name("qwen3_coder")`):
    /// only that format's calls are read, and its arguments are turned into
    /// JSON typed by the tool's schema in `options` (from
    /// [`ToolMap::from_openai_tools`](crate::ToolMap::from_openai_tools)).
    pub fn with_format(format: Format, options: ToolOptions) -> Self {
        let mut parser = CallParser::with_options(options.clone());
        parser.format = Some(Box::new(FormatParser::new(format.spec(), options, 0)));
        parser
    }

    /// Feed the next chunk of model output; returns the events it completed.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Event> {
        if let Some(format) = &mut self.format {
            return format.feed(chunk);
        }
        let mut i = 0;
        while i < chunk.len() {
            if let Some(format) = &mut self.format {
                // The text told its format: the rest of the stream is its.
                let events = format.feed(&chunk[i..]);
                self.events.extend(events);
                return std::mem::take(&mut self.events);
            }
            if matches!(self.state, State::Text) {
                // Run through plain text to the next byte that may open a call.
                match memchr::memchr3(b'<', b'{', b'[', &chunk[i..]) {
                    Some(n) => {
                        self.text.extend_from_slice(&chunk[i..i + n]);
                        i += n;
                    }
                    None => {
                        self.text.extend_from_slice(&chunk[i..]);
                        break;
                    }
                }
            }
            if let State::Body { object: None, .. } = self.state {
                // Run through a named call's body to the next `<`.
                if self.held.is_empty() {
                    let n = memchr::memchr(b'<', &chunk[i..]).unwrap_or(chunk.len() - i);
                    if let Some(call) = &mut self.call {
                        call.pending.extend_from_slice(&chunk[i..i + n]);
                    }
                    i += n;
                    if i == chunk.len() {
                        break;
                    }
                }
            }
            self.byte(chunk[i]);
            i += 1;
        }
        self.flush_text(false);
        if let Some(call) = &mut self.call {
            call.flush(&mut self.events);
        }
        std::mem::take(&mut self.events)
    }

    /// End the input: a call cut off is completed, held text handed out.
    pub fn finish(mut self) -> Vec<Event> {
        if let Some(format) = self.format.take() {
            self.events.extend(format.finish());
            return self.events;
        }
        let held = std::mem::take(&mut self.held);
        match std::mem::replace(&mut self.state, State::Text) {
            State::Text
            | State::TagOpen
            | State::JsonHead
            | State::MaybeClose { .. }
            | State::MarkerOpen
            | State::Between(_) => {
                self.text.extend_from_slice(&held);
            }
            State::Body { object, .. } => {
                if let Some(call) = &mut self.call
                    && object.is_none()
                {
                    call.pending.extend_from_slice(&held);
                }
            }
            State::Tag { .. } | State::Object(_) => {}
            State::BodyStart { .. } => {
                // `<tool_call>` and spaces, then the end: prose.
                if let Some(call) = self.call.take() {
                    self.calls -= 1;
                    self.text.extend_from_slice(&call.raw);
                }
            }
            State::Probe(bytes) => {
                if let Some(call) = self.call.take() {
                    self.calls -= 1;
                    self.text.extend_from_slice(&call.raw);
                }
                self.text.extend_from_slice(&bytes);
            }
        }
        self.end_call_with(false);
        self.flush_text(true);
        self.events
    }

    fn flush_text(&mut self, all: bool) {
        if self.text.is_empty() {
            return;
        }
        let keep = if all {
            0
        } else {
            incomplete_utf8_tail(&self.text)
        };
        let cut = self.text.len() - keep;
        if cut == 0 {
            return;
        }
        let text = String::from_utf8_lossy(&self.text[..cut]).into_owned();
        self.text.drain(..cut);
        self.events.push(Event::Text(text));
    }

    fn start_call(&mut self) {
        self.flush_text(true);
        self.call = Some(Call::new(self.calls));
        self.calls += 1;
    }

    /// The call's own end was seen.
    fn end_call(&mut self) {
        self.end_call_with(true);
    }

    fn end_call_with(&mut self, closed: bool) {
        if let Some(call) = self.call.take() {
            call.finish(&mut self.events, closed);
        }
        self.state = match self.sequence {
            Some(sequence) => State::Between(sequence),
            None => State::Text,
        };
    }

    fn arg_byte(&mut self, b: u8) {
        if let Some(call) = &mut self.call {
            call.pending.push(b);
        }
    }

    fn name(&mut self, name: &str) {
        if let Some(call) = &mut self.call {
            call.set_name(name, &self.options, &mut self.events);
        }
    }

    /// Take back a call that turned out to be prose: its bytes are text,
    /// and `b` is read again as text.
    pub(super) fn call_was_text(&mut self, b: u8) {
        if let Some(call) = self.call.take() {
            self.calls -= 1;
            self.text.extend_from_slice(&call.raw);
        }
        self.held.clear();
        self.state = State::Text;
        self.byte(b);
    }

    /// Keep a byte of a call that may still be prose.
    pub(super) fn keep_raw(&mut self, b: u8) {
        if let Some(call) = &mut self.call
            && call.raw.len() < MAX_RAW
        {
            call.raw.push(b);
        }
    }

    /// A held marker that opens a sequence of calls (`[TOOL_CALLS]`,
    /// `<|python_tag|>`) is whole: the text before it is out, and the calls
    /// that follow belong to `sequence` until it ends.
    fn enter_sequence(&mut self, sequence: Sequence) {
        self.held.clear();
        self.flush_text(true);
        self.sequence = Some(sequence);
        self.fresh_sequence = true;
        self.fresh_spaces.clear();
        self.state = State::Between(sequence);
    }

    /// Give up a lookahead: its bytes were text; `b` is read again as text.
    fn give_up(&mut self, b: u8) {
        let held = std::mem::take(&mut self.held);
        self.text.extend_from_slice(&held);
        self.state = State::Text;
        self.byte(b);
    }

    fn byte(&mut self, b: u8) {
        match &mut self.state {
            State::Text => match b {
                b'<' => {
                    self.held.push(b);
                    self.state = State::TagOpen;
                }
                b'{' => {
                    self.held.push(b);
                    self.state = State::JsonHead;
                }
                b'[' => {
                    self.held.push(b);
                    self.state = State::MarkerOpen;
                }
                _ => self.text.push(b),
            },
            State::MarkerOpen => {
                self.held.push(b);
                if self.held == TOOL_CALLS {
                    self.enter_sequence(Sequence::List);
                } else if !TOOL_CALLS.starts_with(&self.held) {
                    self.held.pop();
                    self.give_up(b);
                }
            }
            State::Between(sequence) => {
                let sequence = *sequence;
                let fresh = std::mem::take(&mut self.fresh_sequence);
                match b {
                    b if fresh && sequence == Sequence::List && detect::starts_name(b) => {
                        // `[TOOL_CALLS]name{…}`: Mistral's v11 form.
                        self.detected_mistral_v11(b);
                    }
                    b if fresh
                        && b.is_ascii_whitespace()
                        && self.fresh_spaces.len() < LOOKAHEAD =>
                    {
                        self.fresh_sequence = true;
                        self.fresh_spaces.push(b);
                    }
                    b'{' => {
                        self.start_call();
                        if let Some(call) = &mut self.call {
                            call.object_form = true;
                        }
                        self.state = State::Object(ObjectScanner::new());
                    }
                    // The list's own `[`, separators, and space between calls.
                    b'[' | b',' if sequence == Sequence::List => {}
                    b';' if sequence == Sequence::PythonTag => {}
                    b if b.is_ascii_whitespace() => {}
                    b']' if sequence == Sequence::List => {
                        self.sequence = None;
                        self.state = State::Text;
                    }
                    b => {
                        self.sequence = None;
                        self.state = State::Text;
                        self.byte(b);
                    }
                }
            }
            State::TagOpen => self.tag_open(b),
            State::JsonHead => self.json_head(b),
            State::Tag { .. } => self.tag(b),
            State::MaybeClose { close } => {
                let close = *close;
                let ws = self
                    .held
                    .iter()
                    .take_while(|c| c.is_ascii_whitespace())
                    .count();
                if ws == self.held.len() && b.is_ascii_whitespace() {
                    if self.held.len() < LOOKAHEAD {
                        self.held.push(b);
                    } else {
                        self.give_up(b);
                    }
                    return;
                }
                self.held.push(b);
                let rest = &self.held[ws..];
                if rest == close {
                    self.held.clear();
                    self.state = State::Text;
                } else if !close.starts_with(rest) {
                    self.held.pop();
                    self.give_up(b);
                }
            }
            State::BodyStart { close } => {
                let close = *close;
                if b.is_ascii_whitespace() {
                    self.keep_raw(b);
                } else if detect::may_tell_format(b) {
                    self.state = State::Probe(Vec::new());
                    self.probe(b);
                } else if b == b'{' {
                    if let Some(call) = &mut self.call {
                        call.raw = Vec::new();
                        call.object_form = true;
                    }
                    self.state = State::Body {
                        close,
                        object: Some(ObjectScanner::new_before_brace()),
                        ended: false,
                    };
                    self.body(b);
                } else {
                    self.call_was_text(b);
                }
            }
            State::Probe(_) => self.probe(b),
            State::Body { .. } => self.body(b),
            State::Object(scanner) => {
                let action = scanner.step(b);
                let name = scanner.take_name();
                if let Some(name) = name {
                    self.name(&name);
                }
                match action {
                    Action::Args => self.arg_byte(b),
                    Action::Done => self.end_call(),
                    Action::None => {}
                }
            }
        }
    }

    fn tag_open(&mut self, b: u8) {
        let held = &self.held;
        let boundary = b.is_ascii_whitespace() || b == b'>' || b == b'/';
        let close = if boundary && held == TOOL_CALL {
            Some(CLOSE_TOOL_CALL)
        } else if boundary && held == TOOL {
            Some(CLOSE_TOOL)
        } else {
            None
        };
        if let Some(close) = close {
            let opened = std::mem::take(&mut self.held);
            self.start_call();
            if let Some(call) = &mut self.call {
                call.raw = opened;
            }
            self.state = State::Tag {
                attr: Attr::Between,
                word: Vec::new(),
                key: Vec::new(),
                args_seen: false,
                scanner: ValueScanner::default(),
                close,
            };
            self.tag(b);
            return;
        }
        self.held.push(b);
        if self.held == PYTHON_TAG {
            self.enter_sequence(Sequence::PythonTag);
            return;
        }
        let told = detect::marker(&self.held);
        if let crate::call::format::Marker::Whole(format) = told {
            let held = std::mem::take(&mut self.held);
            self.detected(format, held);
            return;
        }
        if !TOOL_CALL.starts_with(&self.held)
            && !PYTHON_TAG.starts_with(&self.held)
            && told == crate::call::format::Marker::No
        {
            self.held.pop();
            self.give_up(b);
        }
    }

    fn json_head(&mut self, b: u8) {
        self.held.push(b);
        let tools = self.options.tool_map();
        let head = classify_head(&self.held, &|name| tools.knows(name));
        match head {
            Head::Need if self.held.len() < HEAD_LOOKAHEAD => {}
            Head::Need | Head::Text => {
                self.held.pop();
                self.give_up(b);
            }
            Head::ToolCall => {
                self.held.clear();
                self.start_call();
                if let Some(call) = &mut self.call {
                    call.object_form = true;
                }
                self.state = State::Object(ObjectScanner::after_key(b"tool_call"));
            }
            Head::Named => {
                // The held bytes (after the `{`) are the object's first bytes.
                let held = std::mem::take(&mut self.held);
                self.start_call();
                if let Some(call) = &mut self.call {
                    call.object_form = true;
                }
                self.state = State::Object(ObjectScanner::new());
                for &c in held.get(1..).unwrap_or_default() {
                    self.byte(c);
                }
            }
        }
    }

    fn body(&mut self, b: u8) {
        let State::Body { close, .. } = &self.state else {
            return;
        };
        let close = *close;
        if self.held.is_empty() && b != b'<' {
            self.body_byte(b);
            return;
        }
        self.held.push(b);
        if self.held == close {
            self.held.clear();
            if let State::Body { object, .. } = &mut self.state {
                *object = None;
            }
            self.end_call();
            return;
        }
        if close.starts_with(&self.held) {
            return;
        }
        let held = std::mem::take(&mut self.held);
        let (last, before) = held.split_last().unwrap_or((&b' ', &[]));
        for &c in before {
            self.body_byte(c);
        }
        self.body(*last);
    }

    fn body_byte(&mut self, b: u8) {
        let State::Body { object, ended, .. } = &mut self.state else {
            return;
        };
        if *ended {
            return;
        }
        let Some(scanner) = object else {
            self.arg_byte(b);
            return;
        };
        let action = scanner.step(b);
        let name = scanner.take_name();
        if action == Action::Done {
            *ended = true;
        }
        if let Some(name) = name {
            self.name(&name);
        }
        if action == Action::Args {
            self.arg_byte(b);
        }
    }
}
