//! One call's arguments as they stream: the engine mends them, a path
//! tracker turns the mended text into previews, and the tool-aware
//! normalizer gives the final arguments.

use super::Event;
use crate::{Options, Repairer, Retain, ToolOptions, ToolRepairer, Values, Verdict};

/// The arguments of one call, fed as string deltas (the native tool-use
/// form: OpenAI `tool_calls[].function.arguments`, Anthropic
/// `input_json_delta`).
///
/// Each [`feed`](Self::feed) returns the [`Event::ArgsDelta`]s for the
/// string values it advanced; [`finish`](Self::finish) returns the last
/// deltas and [`Event::CallReady`] (or [`Event::Error`]).
///
/// ```
/// use argmend::{ArgsStream, Event, ToolOptions};
/// let mut stream = ArgsStream::new("write_file", ToolOptions::default());
/// let mut events = Vec::new();
/// for delta in ["{'file': 'a.txt', content: 'hel", "lo\\nworld'"] {
///     events.extend(stream.feed(delta.as_bytes()));
/// }
/// events.extend(stream.finish());
/// let content: String = events.iter().filter_map(|event| match event {
///     Event::ArgsDelta { path, text, .. } if path == "content" => Some(text.as_str()),
///     _ => None,
/// }).collect();
/// assert_eq!(content, "hello\nworld");
/// let Some(Event::CallReady { args, .. }) = events.last() else { panic!() };
/// assert_eq!(args, r#"{"file": "a.txt", "content": "hello\nworld"}"#);
/// ```
#[derive(Debug, Clone)]
pub struct ArgsStream {
    name: String,
    /// Mends the arguments; its engine's committed output feeds the
    /// previews when they start with `{` or `[` (one engine pass).
    normalizer: ToolRepairer,
    /// A second engine for previews only, for arguments in a code fence
    /// (which the normalizer holds until the end).
    fenced: Option<Box<Repairer>>,
    /// Whether a non-whitespace byte has been seen.
    decided: bool,
    tracker: PathTracker,
}

impl ArgsStream {
    /// The arguments of a call to `name`.
    pub fn new(name: &str, options: ToolOptions) -> Self {
        ArgsStream {
            name: name.to_owned(),
            normalizer: ToolRepairer::new(name, options),
            fenced: None,
            decided: false,
            tracker: PathTracker::default(),
        }
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Feed the next delta (it may end anywhere, even inside a character).
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Event> {
        let mut events = Vec::new();
        self.feed_into(chunk, &mut events);
        events
    }

    pub(super) fn feed_into(&mut self, chunk: &[u8], events: &mut Vec<Event>) {
        let committed = self.normalizer.feed(chunk);
        if !self.decided
            && let Some(&first) = chunk.iter().find(|b| !b.is_ascii_whitespace())
        {
            self.decided = true;
            if first == b'`' {
                self.fenced = Some(Box::new(Repairer::new(options_for_previews())));
            }
        }
        if let Some(engine) = &mut self.fenced {
            match engine.feed(chunk) {
                Ok(text) => self.tracker.push(text),
                // A crossed limit: the normalizer reports it at the end.
                Err(_) => self.fenced = None,
            }
        } else {
            self.tracker.push(committed);
        }
        self.tracker.drain(&self.name, events);
    }

    /// End the arguments: the last previews, then the call's verdict.
    pub fn finish(self) -> Vec<Event> {
        let mut events = Vec::new();
        self.finish_into(&mut events);
        events
    }

    pub(super) fn finish_into(mut self, events: &mut Vec<Event>) {
        let (normalized, tail) = self.normalizer.finish_with_tail();
        if let Some(engine) = self.fenced.take() {
            if let Ok(outcome) = engine.finish() {
                // With `Retain::Unreturned` the outcome is only what `feed`
                // has not returned yet.
                self.tracker.push(outcome.text());
            }
        } else {
            self.tracker.push(&tail);
        }
        self.tracker.drain(&self.name, events);
        if normalized.verdict() == Verdict::NotJson {
            events.push(Event::Error {
                name: Some(self.name),
                reason: normalized
                    .reason()
                    .unwrap_or("the arguments are not JSON")
                    .to_owned(),
                raw: normalized.into_text(),
            });
            return;
        }
        events.push(Event::CallReady {
            strategy: normalized.strategy(),
            fixes: normalized.fixes().to_vec(),
            args: normalized.into_text(),
            name: self.name,
        });
    }
}

fn options_for_previews() -> Options {
    Options::default()
        .values(Values::First)
        .retain(Retain::Unreturned)
}

/// One open container of the mended text.
#[derive(Debug, Clone)]
enum Frame {
    Object { key: String, in_value: bool },
    Array { index: usize },
}

/// Where the tracker is inside a string.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Escape {
    #[default]
    None,
    Backslash,
    /// Inside `\uXXXX`: the digits so far and their count.
    Unicode(u32, u8),
}

/// Follows valid JSON text (the engine's committed output) and collects
/// the characters added to string values, with their paths.
#[derive(Debug, Clone, Default)]
struct PathTracker {
    stack: Vec<Frame>,
    in_string: bool,
    is_key: bool,
    escape: Escape,
    high_surrogate: Option<u32>,
    key: String,
    /// The string value being written and the characters added since the
    /// last drain.
    delta: String,
    /// Finished pieces: (path, text).
    done: Vec<(String, String)>,
}

impl PathTracker {
    fn push(&mut self, text: &str) {
        let mut rest = text;
        while !rest.is_empty() {
            if self.in_string && self.escape == Escape::None && self.high_surrogate.is_none() {
                // Copy the plain run of a string body at once.
                let n = memchr::memchr2(b'"', b'\\', rest.as_bytes()).unwrap_or(rest.len());
                if self.is_key {
                    self.key.push_str(&rest[..n]);
                } else {
                    self.delta.push_str(&rest[..n]);
                }
                rest = &rest[n..];
                if rest.is_empty() {
                    break;
                }
            }
            let mut chars = rest.chars();
            let Some(c) = chars.next() else { break };
            rest = chars.as_str();
            if self.in_string {
                self.string_char(c);
            } else {
                self.structure(c);
            }
        }
    }

    fn structure(&mut self, c: char) {
        match c {
            '{' => self.stack.push(Frame::Object {
                key: String::new(),
                in_value: false,
            }),
            '[' => self.stack.push(Frame::Array { index: 0 }),
            '}' | ']' => {
                self.stack.pop();
            }
            ',' => match self.stack.last_mut() {
                Some(Frame::Object { in_value, .. }) => *in_value = false,
                Some(Frame::Array { index }) => *index += 1,
                None => {}
            },
            ':' => {
                if let Some(Frame::Object { in_value, .. }) = self.stack.last_mut() {
                    *in_value = true;
                }
            }
            '"' => {
                self.in_string = true;
                self.is_key = matches!(
                    self.stack.last(),
                    Some(Frame::Object {
                        in_value: false,
                        ..
                    })
                );
                self.key.clear();
            }
            _ => {}
        }
    }

    fn string_char(&mut self, c: char) {
        match self.escape {
            Escape::None => match c {
                '\\' => self.escape = Escape::Backslash,
                '"' => {
                    self.in_string = false;
                    if self.is_key {
                        if let Some(Frame::Object { key, .. }) = self.stack.last_mut() {
                            *key = std::mem::take(&mut self.key);
                        }
                    } else {
                        self.close_piece();
                    }
                }
                c => self.add(c),
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
                self.add(decoded);
            }
            Escape::Unicode(value, n) => {
                let value = value * 16 + c.to_digit(16).unwrap_or(0);
                if n < 3 {
                    self.escape = Escape::Unicode(value, n + 1);
                    return;
                }
                self.escape = Escape::None;
                match (self.high_surrogate.take(), value) {
                    (None, 0xD800..=0xDBFF) => self.high_surrogate = Some(value),
                    (Some(high), 0xDC00..=0xDFFF) => {
                        let code = 0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00);
                        self.add(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    }
                    (_, value) => self.add(char::from_u32(value).unwrap_or('\u{FFFD}')),
                }
            }
        }
    }

    fn add(&mut self, c: char) {
        if let Some(high) = self.high_surrogate.take() {
            // A high surrogate not followed by a low one.
            let _ = high;
            self.push_char('\u{FFFD}');
        }
        self.push_char(c);
    }

    fn push_char(&mut self, c: char) {
        if self.is_key {
            self.key.push(c);
        } else {
            self.delta.push(c);
        }
    }

    fn close_piece(&mut self) {
        if !self.delta.is_empty() {
            let text = std::mem::take(&mut self.delta);
            self.done.push((self.path(), text));
        }
    }

    /// The path of the value being written: `args.content`, `items[2]`.
    fn path(&self) -> String {
        let mut path = String::new();
        for frame in &self.stack {
            match frame {
                Frame::Object { key, .. } => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
                Frame::Array { index } => {
                    path.push('[');
                    path.push_str(&index.to_string());
                    path.push(']');
                }
            }
        }
        path
    }

    /// Hand out what was collected, the open string's characters included.
    fn drain(&mut self, name: &str, events: &mut Vec<Event>) {
        if self.in_string && !self.is_key {
            self.close_piece();
        }
        for (path, text) in self.done.drain(..) {
            events.push(Event::ArgsDelta {
                name: name.to_owned(),
                path,
                text,
            });
        }
    }
}
