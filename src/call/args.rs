//! One call's arguments as they stream: the engine mends them, the walker
//! turns the mended text into previews (string deltas and final values with
//! their JSON Pointers), and the tool-aware normalizer gives the final
//! arguments.

use super::Event;
use super::walk::{FieldEvent, Walker};
use crate::normalize::{ToolFixKind, ToolOptions, ToolRepairer};
use crate::repair::{Options, Repairer, Retain, Values, Verdict};

/// The arguments of one call, fed as string deltas (the native tool-use
/// form: OpenAI `tool_calls[].function.arguments`, Anthropic
/// `input_json_delta`).
///
/// Each [`feed`](Self::feed) returns the [`Event::ArgsDelta`]s for the
/// string values it advanced and the [`Event::FieldDone`]s for the values it
/// completed; [`finish`](Self::finish) returns the last of those and
/// [`Event::CallReady`] (or [`Event::Error`]). For the snapshot as a value
/// and the other field events, see [`ToolCallStream`](crate::ToolCallStream).
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
///     Event::ArgsDelta { path, text, .. } if path == "/content" => Some(text.as_str()),
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
    /// The whitespace before it, which a preview engine started later must
    /// see too (or its output would depend on where the chunks were cut).
    leading: Vec<u8>,
    walker: Walker,
    /// The call's number in its stream.
    call: usize,
    /// Whether any mended text reached the walker while the call streamed.
    walked: bool,
    /// Whether any `ArgsJson` text went out.
    json_sent: bool,
}

impl ArgsStream {
    /// The arguments of a call to `name`.
    pub fn new(name: &str, options: ToolOptions) -> Self {
        ArgsStream::numbered(name, options, 0)
    }

    /// The arguments of the call numbered `call` in its stream.
    pub(super) fn numbered(name: &str, options: ToolOptions, call: usize) -> Self {
        ArgsStream {
            name: name.to_owned(),
            normalizer: ToolRepairer::new(name, options),
            fenced: None,
            decided: false,
            leading: Vec::new(),
            walker: Walker::for_events(),
            call,
            walked: false,
            json_sent: false,
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
        if !committed.is_empty() {
            self.json_sent = true;
            events.push(Event::ArgsJson {
                call: self.call,
                json: committed.to_owned(),
            });
        }
        let mut chunk = std::borrow::Cow::Borrowed(chunk);
        if !self.decided {
            match chunk.iter().find(|b| !b.is_ascii_whitespace()) {
                None => self.leading.extend_from_slice(&chunk),
                Some(&first) => {
                    self.decided = true;
                    if first == b'`' {
                        self.fenced = Some(Box::new(Repairer::new(options_for_previews())));
                        let mut whole = std::mem::take(&mut self.leading);
                        whole.extend_from_slice(&chunk);
                        chunk = std::borrow::Cow::Owned(whole);
                    }
                    self.leading = Vec::new();
                }
            }
        }
        if let Some(engine) = &mut self.fenced {
            let (text, failed) = engine.feed_until_failure(&chunk);
            self.walked |= !text.is_empty();
            self.walker.commit(text);
            if failed.is_some() {
                // A crossed limit: the normalizer reports it at the end.
                self.fenced = None;
            }
        } else {
            self.walked |= !committed.is_empty();
            self.walker.commit(committed);
        }
        drain(&mut self.walker, self.call, &self.name, events);
    }

    /// End the arguments: the last previews, then the call's verdict.
    pub fn finish(self) -> Vec<Event> {
        let mut events = Vec::new();
        self.finish_into(&mut events);
        events
    }

    pub(super) fn finish_into(mut self, events: &mut Vec<Event>) {
        let (normalized, tail) = self.normalizer.finish_with_tail();
        let last_json = if !self.json_sent && tail.is_empty() {
            normalized.text()
        } else {
            &tail
        };
        if normalized.verdict() != Verdict::NotJson && !last_json.is_empty() {
            events.push(Event::ArgsJson {
                call: self.call,
                json: last_json.to_owned(),
            });
        }
        if let Some(engine) = self.fenced.take() {
            if let Ok(outcome) = engine.finish() {
                // With `Retain::Unreturned` the outcome is only what `feed`
                // has not returned yet.
                self.walker.commit(outcome.text());
            }
        } else if !self.walked && tail.is_empty() && normalized.verdict() != Verdict::NotJson {
            // Arguments held for the end (a plain value, a command line):
            // their events come now, from the mended text.
            self.walker.commit(normalized.text());
        } else {
            self.walker.commit(&tail);
        }
        drain(&mut self.walker, self.call, &self.name, events);
        if normalized.verdict() == Verdict::NotJson {
            events.push(Event::Error {
                call: self.call,
                name: Some(self.name),
                reason: normalized
                    .reason()
                    .unwrap_or("the arguments are not JSON")
                    .to_owned(),
                raw: normalized.into_text(),
            });
            return;
        }
        let complete = !normalized
            .fixes()
            .iter()
            .any(|fix| matches!(fix.kind, ToolFixKind::Repair(kind) if kind.is_truncation()));
        events.push(Event::CallReady {
            call: self.call,
            verdict: normalized.verdict(),
            strategy: normalized.strategy(),
            fixes: normalized.fixes().to_vec(),
            doubts: normalized.doubts().to_vec(),
            complete,
            // The parser, which sees the call's end, says otherwise.
            closed: true,
            args: normalized.into_text(),
            name: self.name,
        });
    }
}

/// The walker's events as the runtime's: deltas and final values.
fn drain(walker: &mut Walker, call: usize, name: &str, events: &mut Vec<Event>) {
    for event in walker.take_events() {
        match event {
            FieldEvent::StringDelta { path, text } => events.push(Event::ArgsDelta {
                call,
                name: name.to_owned(),
                path,
                text,
            }),
            FieldEvent::Done { path, value } => events.push(Event::FieldDone {
                call,
                name: name.to_owned(),
                path,
                value,
            }),
            FieldEvent::Started { .. } => {}
        }
    }
}

fn options_for_previews() -> Options {
    Options::default()
        .values(Values::First)
        .retain(Retain::Unreturned)
}
