//! The call being read: its number, the stream its arguments go to, and,
//! while it may still turn out to be prose, its bytes as written. Shared by
//! the tag parser (`parser.rs`) and the format machine (`format/`), which
//! both hold calls, so neither imports the other.

use super::Event;
use super::args::ArgsStream;
use crate::normalize::ToolOptions;

/// The call being read.
#[derive(Debug)]
pub(in crate::call) struct Call {
    /// The call's number in the stream (0, 1, …).
    pub(in crate::call) number: usize,
    pub(in crate::call) stream: Option<ArgsStream>,
    /// Argument bytes not yet given to the stream (batched per chunk, or
    /// held while the name is unknown).
    pub(in crate::call) pending: Vec<u8>,
    /// The call's bytes as written while it may still turn out to be text
    /// (a prose mention of `<tool_call>`); dropped once it cannot.
    pub(in crate::call) raw: Vec<u8>,
    /// Whether the call came as an object (`{"name": …, "arguments": …}`,
    /// alone or in a tag's body) rather than with a `name="…"` attribute.
    pub(in crate::call) object_form: bool,
}

/// How much of a tag is kept while it may still be prose.
pub(in crate::call) const MAX_RAW: usize = 4096;

impl Call {
    pub(in crate::call) fn new(number: usize) -> Self {
        Call {
            number,
            stream: None,
            pending: Vec::new(),
            raw: Vec::new(),
            object_form: false,
        }
    }

    /// Whether the call can still be taken back as text: it has no name and
    /// no arguments yet, and its bytes were all kept.
    pub(in crate::call) fn may_be_text(&self) -> bool {
        self.stream.is_none() && self.pending.is_empty() && self.raw.len() < MAX_RAW
    }

    pub(in crate::call) fn set_name(
        &mut self,
        name: &str,
        options: &ToolOptions,
        events: &mut Vec<Event>,
    ) {
        if self.stream.is_some() || name.is_empty() {
            return;
        }
        events.push(Event::CallStarted {
            call: self.number,
            name: name.to_owned(),
        });
        self.stream = Some(ArgsStream::numbered(name, options.clone(), self.number));
        self.flush(events);
    }

    pub(in crate::call) fn flush(&mut self, events: &mut Vec<Event>) {
        if let Some(stream) = &mut self.stream
            && !self.pending.is_empty()
        {
            stream.feed_into(&self.pending, events);
            self.pending.clear();
        }
    }

    /// End the call; `closed` says whether its own end was seen.
    pub(in crate::call) fn finish(mut self, events: &mut Vec<Event>, closed: bool) {
        self.flush(events);
        match self.stream {
            Some(stream) => {
                stream.finish_into(events);
                if let Some(Event::CallReady { closed: seen, .. }) = events.last_mut() {
                    *seen = closed;
                }
            }
            None => events.push(Event::Error {
                call: self.number,
                name: None,
                reason: if self.object_form {
                    "the call object names no tool: write {\"name\": \"TOOL\", \"arguments\": {…}}"
                        .to_owned()
                } else {
                    "the call names no tool: add name=\"TOOL\"".to_owned()
                },
                raw: String::from_utf8_lossy(&self.pending).into_owned(),
            }),
        }
    }
}

/// How many bytes at the end of `bytes` are an incomplete UTF-8 sequence.
pub(in crate::call) fn incomplete_utf8_tail(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Ok(_) => 0,
        Err(error) if error.error_len().is_none() => bytes.len() - error.valid_up_to(),
        Err(_) => {
            // Invalid bytes somewhere: only hold back a tail that could
            // still become a character.
            let start = bytes.len().saturating_sub(3);
            (start..bytes.len())
                .find(|&i| bytes[i] >= 0xC0 && std::str::from_utf8(&bytes[i..]).is_err())
                .map_or(0, |i| bytes.len() - i)
        }
    }
}
