//! Follows mended JSON text as the engine commits it, and keeps what a
//! streaming UI wants: the value built so far (a `serde_json::Value`, grown in
//! place, never re-parsed) and field-level events with JSON Pointer paths.
//!
//! Committed text is valid JSON that only grows, and the engine commits a
//! number or a literal only once it has ended, so every scalar seen here is
//! whole and a value is final as soon as its last byte is committed: a
//! `Done` event comes with the fragment that completed the value, not later.
//!
//! The snapshot's provisional tail (a number still being typed, the `null`
//! of a key whose value has not started, the closing quote a `+` could still
//! remove) is laid over the value after each fragment and taken off again
//! before the next one, with an undo log, so the value always matches the
//! snapshot text (the `overlay` module).

mod overlay;

use serde_json::{Map, Number, Value};

use self::overlay::{Position, Undo};

pub use crate::lex::ValueKind;

impl ValueKind {
    /// The stable snake_case name used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            ValueKind::Object => "object",
            ValueKind::Array => "array",
            ValueKind::String => "string",
            ValueKind::Number => "number",
            ValueKind::Bool => "bool",
            ValueKind::Null => "null",
        }
    }
}

/// What happened to the arguments' fields, in the order the mended text
/// shows it. Paths are JSON Pointers (RFC 6901): `""` is the whole value,
/// `/args/select/0` an array element, and a key `a.b` is `/a.b`.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FieldEvent {
    /// A value started at `path`.
    Started {
        /// Where.
        path: String,
        /// What kind of value.
        kind: ValueKind,
    },
    /// Characters were added to the string at `path` (decoded, not JSON text).
    StringDelta {
        /// Where.
        path: String,
        /// The characters added since the last event for this string.
        text: String,
    },
    /// The value at `path` is final: nothing later changes it.
    Done {
        /// Where.
        path: String,
        /// The value, whole.
        value: Value,
    },
}

impl FieldEvent {
    /// The event as one JSON object, as `argmend call --events` and the
    /// examples print it: `{"event": "started" | "delta" | "field_done",
    /// "path": …, "kind" | "text" | "value": …}`.
    pub fn to_json(&self) -> Value {
        match self {
            FieldEvent::Started { path, kind } => {
                serde_json::json!({"event": "started", "path": path, "kind": kind.name()})
            }
            FieldEvent::StringDelta { path, text } => {
                serde_json::json!({"event": "delta", "path": path, "text": text})
            }
            FieldEvent::Done { path, value } => {
                serde_json::json!({"event": "field_done", "path": path, "value": value})
            }
        }
    }
}

/// One open container.
#[derive(Debug, Clone)]
enum Frame {
    /// `key` is the member being written (`None` between members).
    Object { key: Option<String> },
    /// `len` elements so far; the last is the one being written.
    Array { len: usize },
}

/// Where the walker is in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Outside strings and scalars.
    Between,
    /// In a key string.
    Key,
    /// In a string value.
    Str,
    /// In a number or literal.
    Scalar,
}

/// Inside a string: plain, after a backslash, or in `\uXXXX` (digits so far).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    Backslash,
    Unicode(u32, u8),
}

#[derive(Debug, Clone)]
pub(crate) struct Walker {
    root: Option<Value>,
    frames: Vec<Frame>,
    at: At,
    escape: Escape,
    /// A high surrogate waiting for its low half.
    high: Option<u32>,
    /// The key or scalar being read.
    scratch: String,
    /// Characters added to the open string value since the last flush.
    delta: String,
    events: Vec<FieldEvent>,
    /// `Some` while the overlay is applied: how to take it off.
    overlay: Option<(Position, Vec<Undo>)>,
    /// Events are recorded only for committed text.
    recording: Option<Vec<Undo>>,
    /// The pointer of the value being written, while no frame changes.
    path_cache: Option<String>,
    /// Whether the value stays readable once it is whole (`ToolCallStream`
    /// shows it; `ArgsStream` only reports it, so it moves it out).
    keep_value: bool,
}

impl Default for Walker {
    fn default() -> Self {
        Walker {
            root: None,
            frames: Vec::new(),
            at: At::Between,
            escape: Escape::None,
            high: None,
            scratch: String::new(),
            delta: String::new(),
            events: Vec::new(),
            overlay: None,
            recording: None,
            path_cache: None,
            keep_value: true,
        }
    }
}

impl Walker {
    /// A walker for events only: the whole value is handed over in its
    /// `Done` event rather than kept.
    pub(crate) fn for_events() -> Self {
        Walker {
            keep_value: false,
            ..Walker::default()
        }
    }

    /// The value so far (with the overlay, when one is applied).
    pub(crate) fn value(&self) -> Option<&Value> {
        self.root.as_ref()
    }

    /// Walk newly committed text; its events are queued for [`take_events`].
    pub(crate) fn commit(&mut self, text: &str) {
        self.take_overlay();
        self.walk(text);
        self.flush_delta();
    }

    /// The events since the last call.
    pub(crate) fn take_events(&mut self) -> Vec<FieldEvent> {
        std::mem::take(&mut self.events)
    }

    /// The value `depth` levels down the open containers (1 is the root,
    /// 2 the value being written in the outermost container, …).
    fn node(&mut self, depth: usize) -> Option<&mut Value> {
        node_in(&mut self.root, &self.frames, depth)
    }

    /// The JSON Pointer of the value being written (cached: a long string
    /// gets one delta per fragment, all with the same path).
    fn path(&mut self) -> String {
        if let Some(path) = &self.path_cache {
            return path.clone();
        }
        let path = self.build_path();
        self.path_cache = Some(path.clone());
        path
    }

    fn build_path(&self) -> String {
        let mut path = String::new();
        for frame in &self.frames {
            path.push('/');
            match frame {
                Frame::Object { key } => {
                    for c in key.as_deref().unwrap_or("").chars() {
                        match c {
                            '~' => path.push_str("~0"),
                            '/' => path.push_str("~1"),
                            c => path.push(c),
                        }
                    }
                }
                Frame::Array { len } => path.push_str(&len.saturating_sub(1).to_string()),
            }
        }
        path
    }

    fn walk(&mut self, text: &str) {
        let mut rest = text;
        while !rest.is_empty() {
            if matches!(self.at, At::Key | At::Str)
                && self.escape == Escape::None
                && self.high.is_none()
            {
                // A string's plain run, at once.
                let n = memchr::memchr2(b'"', b'\\', rest.as_bytes()).unwrap_or(rest.len());
                if n > 0 {
                    let (run, tail) = rest.split_at(n);
                    self.add_text(run);
                    rest = tail;
                    continue;
                }
            }
            let mut chars = rest.chars();
            let Some(c) = chars.next() else { break };
            rest = chars.as_str();
            match self.at {
                At::Key | At::Str => self.string_char(c),
                At::Scalar => {
                    if c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.') {
                        self.scratch.push(c);
                    } else {
                        self.end_scalar();
                        self.structure(c);
                    }
                }
                At::Between => self.structure(c),
            }
        }
        // The engine commits a scalar only once it has ended.
        if self.at == At::Scalar && self.recording.is_none() {
            self.end_scalar();
        }
    }

    fn structure(&mut self, c: char) {
        self.path_cache = None;
        match c {
            '{' => {
                self.start(Value::Object(Map::new()), ValueKind::Object);
                self.frames.push(Frame::Object { key: None });
            }
            '[' => {
                self.start(Value::Array(Vec::new()), ValueKind::Array);
                self.frames.push(Frame::Array { len: 0 });
            }
            '}' | ']' => {
                self.frames.pop();
                self.done();
            }
            ',' => {
                if let Some(Frame::Object { key }) = self.frames.last_mut() {
                    *key = None;
                }
            }
            '"' => {
                if matches!(self.frames.last(), Some(Frame::Object { key: None })) {
                    self.at = At::Key;
                    self.scratch.clear();
                } else {
                    self.start(Value::String(String::new()), ValueKind::String);
                    self.at = At::Str;
                }
            }
            c if c.is_ascii_alphanumeric() || c == '-' => {
                self.at = At::Scalar;
                self.scratch.clear();
                self.scratch.push(c);
            }
            // ':' and whitespace: the frame already says where we are.
            _ => {}
        }
    }

    fn end_scalar(&mut self) {
        self.at = At::Between;
        let text = std::mem::take(&mut self.scratch);
        let (value, kind) = match text.as_str() {
            "true" => (Value::Bool(true), ValueKind::Bool),
            "false" => (Value::Bool(false), ValueKind::Bool),
            "null" => (Value::Null, ValueKind::Null),
            number => match serde_json::from_str::<Number>(number) {
                Ok(n) => (Value::Number(n), ValueKind::Number),
                // Not reachable on the engine's output; a number too big
                // for f64 (`1e400`) is the one case: no finite value.
                Err(_) => (Value::Null, ValueKind::Number),
            },
        };
        self.start(value, kind);
        self.done();
    }

    /// A value starts at the current position: put it in its container.
    fn start(&mut self, value: Value, kind: ValueKind) {
        self.path_cache = None;
        let depth = self.frames.len();
        let undo = if depth == 0 {
            let old = self.root.replace(value);
            Undo::Root { old }
        } else {
            let key = match self.frames.last_mut() {
                Some(Frame::Array { len }) => {
                    *len += 1;
                    None
                }
                Some(Frame::Object { key }) => Some(key.clone().unwrap_or_default()),
                None => None,
            };
            let old = match (self.node(depth), &key) {
                (Some(Value::Object(map)), Some(key)) => map.insert(key.clone(), value),
                (Some(Value::Array(items)), None) => {
                    items.push(value);
                    None
                }
                _ => None,
            };
            Undo::Added {
                route: if self.recording.is_some() {
                    self.route(depth - 1)
                } else {
                    Vec::new()
                },
                key,
                old,
            }
        };
        match &mut self.recording {
            Some(log) => log.push(undo),
            None => {
                let path = self.path();
                self.events.push(FieldEvent::Started { path, kind });
            }
        }
    }

    /// The value at the current position is final.
    fn done(&mut self) {
        if self.recording.is_some() {
            return;
        }
        let depth = self.frames.len() + 1;
        let path = self.path();
        let value = if depth == 1 && !self.keep_value {
            // The whole value is final and nobody reads it from here: hand
            // it over instead of copying it.
            self.root.take()
        } else {
            self.node(depth).map(|value| value.clone())
        };
        self.events.push(FieldEvent::Done {
            path,
            value: value.unwrap_or(Value::Null),
        });
    }

    fn string_char(&mut self, c: char) {
        match self.escape {
            Escape::None => match c {
                '\\' => self.escape = Escape::Backslash,
                '"' => self.end_string(),
                c => self.add_char(c),
            },
            Escape::Backslash => {
                self.escape = Escape::None;
                let decoded = match c {
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    'b' => '\u{8}',
                    'f' => '\u{c}',
                    'u' => {
                        self.escape = Escape::Unicode(0, 0);
                        return;
                    }
                    other => other,
                };
                self.add_char(decoded);
            }
            Escape::Unicode(value, n) => {
                let value = value * 16 + c.to_digit(16).unwrap_or(0);
                if n < 3 {
                    self.escape = Escape::Unicode(value, n + 1);
                    return;
                }
                self.escape = Escape::None;
                match (self.high.take(), value) {
                    (None, 0xD800..=0xDBFF) => self.high = Some(value),
                    (Some(high), 0xDC00..=0xDFFF) => {
                        let code = 0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00);
                        self.add_char(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    }
                    (_, value) => self.add_char(char::from_u32(value).unwrap_or('\u{FFFD}')),
                }
            }
        }
    }

    fn end_string(&mut self) {
        if self.high.take().is_some() {
            self.add_text("\u{FFFD}");
        }
        match self.at {
            At::Key => {
                self.at = At::Between;
                self.path_cache = None;
                let key = std::mem::take(&mut self.scratch);
                if let Some(Frame::Object { key: slot }) = self.frames.last_mut() {
                    *slot = Some(key);
                }
            }
            _ => {
                self.at = At::Between;
                self.flush_delta();
                self.done();
            }
        }
    }

    fn add_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.add_text(c.encode_utf8(&mut buf));
    }

    fn add_text(&mut self, text: &str) {
        if self.high.take().is_some() {
            // A high surrogate not followed by a low one.
            self.add_text("\u{FFFD}");
        }
        if self.at == At::Key {
            self.scratch.push_str(text);
            return;
        }
        if self.recording.is_none() {
            // Committed text reaches the value at the next flush, in one piece.
            self.delta.push_str(text);
            return;
        }
        let depth = self.frames.len();
        let route = self.route(depth);
        let Some(Value::String(string)) = self.node(depth + 1) else {
            return;
        };
        let len = string.len();
        string.push_str(text);
        if let Some(log) = &mut self.recording
            && !matches!(log.last(), Some(Undo::Truncate { route: last, .. }) if *last == route)
        {
            log.push(Undo::Truncate { route, len });
        }
    }

    /// Add the string text read since the last flush to the value, and
    /// report it.
    fn flush_delta(&mut self) {
        if self.delta.is_empty() || self.recording.is_some() {
            return;
        }
        let depth = self.frames.len();
        if let Some(Value::String(string)) = node_in(&mut self.root, &self.frames, depth + 1) {
            string.push_str(&self.delta);
        }
        // A copy of exactly the text, so `delta` keeps its capacity.
        let text = self.delta.clone();
        self.delta.clear();
        let path = self.path();
        self.events.push(FieldEvent::StringDelta { path, text });
    }
}

/// The value `depth` levels down `frames` from `root` (a function, not a
/// method, so the caller can borrow the walker's other fields beside it).
fn node_in<'a>(
    root: &'a mut Option<Value>,
    frames: &[Frame],
    depth: usize,
) -> Option<&'a mut Value> {
    let mut node = root.as_mut()?;
    for frame in frames.iter().take(depth.saturating_sub(1)) {
        node = match (node, frame) {
            (Value::Object(map), Frame::Object { key: Some(key) }) => map.get_mut(key)?,
            (Value::Array(items), Frame::Array { .. }) => items.last_mut()?,
            _ => return None,
        };
    }
    Some(node)
}
