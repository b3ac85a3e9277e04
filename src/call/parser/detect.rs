//! The format a stream read without one is in, told by its first marker
//! that only one format writes (`<|tool_calls_section_begin|>`: Kimi K2,
//! `<minimax:tool_call>`: MiniMax-M2, …), or by what follows a marker the
//! parser's own forms share: `<tool_call>` then `<function=` is Qwen3-Coder,
//! `<tool_call>` then a name and `<arg_key>` is GLM, `[TOOL_CALLS]` then a
//! name is Mistral v11. From there the rest of the stream goes to that
//! format's machine.

use super::super::format::{Format, FormatParser, Marker, is_tool_name_byte, told_by};
use super::{CallParser, State};

/// The longest body start held while it may still tell a format.
const MAX_PROBE: usize = 256;

/// What bytes held at a `<` say about a format.
pub(super) fn marker(held: &[u8]) -> Marker {
    told_by(held)
}

/// Whether `b` may start a tool's name (`[TOOL_CALLS]get_weather{…}`).
pub(super) fn starts_name(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

/// Whether the body of a `<tool_call>` starting with `b` may tell a format.
pub(super) fn may_tell_format(b: u8) -> bool {
    b == b'<' || starts_name(b)
}

/// What the start of a `<tool_call>` body says: `None` while it cannot
/// tell; `Some(None)` when it is no other format's.
fn probe_verdict(bytes: &[u8]) -> Option<Option<Format>> {
    const FUNCTION: &[u8] = b"<function=";
    if bytes.len() > MAX_PROBE {
        return Some(None);
    }
    if bytes.first() == Some(&b'<') {
        if bytes.starts_with(FUNCTION) {
            return Some(Format::from_name("qwen3_coder"));
        }
        return if FUNCTION.starts_with(bytes) {
            None
        } else {
            Some(None)
        };
    }
    // GLM: a name, then its first key or the call's end.
    let name = bytes.iter().take_while(|&&b| is_tool_name_byte(b)).count();
    let rest = &bytes[name..];
    let rest = &rest[rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    if rest.is_empty() {
        return None;
    }
    for next in [&b"<arg_key>"[..], b"</tool_call>"] {
        if rest.starts_with(next) {
            return Some(Format::from_name("glm45"));
        }
        if next.starts_with(rest) {
            return None;
        }
    }
    Some(None)
}

impl CallParser {
    /// The text told its format: the rest of the stream goes to that
    /// format's machine, `replay` (the bytes that told it) first.
    pub(super) fn detected(&mut self, format: Format, replay: Vec<u8>) {
        self.flush_text(true);
        if self.call.take().is_some() {
            // The `<tool_call>` read as the start of a call was the format's.
            self.calls -= 1;
        }
        self.held.clear();
        self.sequence = None;
        self.state = State::Text;
        let mut parser = FormatParser::new(format.spec(), self.options.clone(), self.calls);
        let events = parser.feed(&replay);
        self.events.extend(events);
        self.format = Some(Box::new(parser));
    }

    /// `[TOOL_CALLS]` then a name's first byte `b`.
    pub(super) fn detected_mistral_v11(&mut self, b: u8) {
        if let Some(format) = Format::from_name("mistral_v11") {
            let mut replay = b"[TOOL_CALLS]".to_vec();
            replay.append(&mut self.fresh_spaces);
            replay.push(b);
            self.detected(format, replay);
        }
    }

    /// A byte of a `<tool_call>` body that may tell another format.
    pub(super) fn probe(&mut self, b: u8) {
        let State::Probe(bytes) = &mut self.state else {
            return;
        };
        bytes.push(b);
        let Some(verdict) = probe_verdict(bytes) else {
            return;
        };
        let State::Probe(bytes) = std::mem::replace(&mut self.state, State::Text) else {
            return;
        };
        match verdict {
            Some(format) => {
                let mut replay = self
                    .call
                    .as_ref()
                    .map(|call| call.raw.clone())
                    .unwrap_or_default();
                replay.extend_from_slice(&bytes);
                self.detected(format, replay);
            }
            None => {
                // Prose (`I could emit a <tool_call> here`): the tag and the
                // bytes after it are read again as text.
                if let Some(call) = self.call.take() {
                    self.calls -= 1;
                    self.text.extend_from_slice(&call.raw);
                }
                self.held.clear();
                for (i, &c) in bytes.iter().enumerate() {
                    if let Some(format) = &mut self.format {
                        let events = format.feed(&bytes[i..]);
                        self.events.extend(events);
                        return;
                    }
                    self.byte(c);
                }
            }
        }
    }
}
