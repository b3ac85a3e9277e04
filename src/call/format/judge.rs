//! Does a tag inside a parameter's value end it? A model writes code whose
//! text holds the format's own tags (`"</parameter>\n"` in a test, a
//! nested `<tool_call>` in a template), and forgets a closing tag now and
//! then. The answer is read from the bytes after the tag, as the engine
//! reads a quote: a tag ends the value when what follows continues the
//! call (the next parameter, the call's end, the block's end, the end of
//! the input), or when nothing later would end it better.
//!
//! - `</parameter>` ends the value when the next parameter (one the call
//!   does not have yet, and one its schema declares), `</function>`,
//!   `</tool_call>` or the end follows; otherwise when no later
//!   `</parameter>` does;
//! - `<parameter=K>` inside a value (its close forgotten) starts the next
//!   parameter only for such a key;
//! - `</function>` or `</tool_call>` inside a value ends it the same way.
//!
//! The bytes after the tag are held while they cannot tell, at most
//! [`WINDOW`] of them; then the tag is taken as the end. Measured in input
//! bytes, so the answer is the same for every chunking.

use super::machine::{FormatParser, Judging, MAX_KEY, State, Tok};

/// The most bytes held after a tag before it is taken as the value's end.
pub(super) const WINDOW: usize = 4096;
/// How many parameters ahead a key the schema does not declare is checked.
const MAX_DEPTH: usize = 8;
/// After a block's close, how much text is read for a later closing tag
/// (which would make this close part of the value) before the block is
/// taken as ended and the text as prose.
const AFTER_CLOSE: usize = 256;

/// What the tag is.
enum Verdict {
    /// The value's end.
    End,
    /// Text of the value.
    Literal,
}

impl FormatParser {
    /// Bytes after a tag inside a value: all are taken, and once they tell,
    /// the tag is acted on and they are read again.
    pub(super) fn judge_bytes(&mut self, bytes: &[u8]) -> usize {
        if let State::Judge(judging) = &mut self.state {
            judging.ahead.extend_from_slice(bytes);
        }
        let Some(verdict) = self.verdict() else {
            return bytes.len();
        };
        let State::Judge(judging) = std::mem::replace(&mut self.state, State::Params) else {
            return bytes.len();
        };
        let Judging {
            mut writer,
            tok,
            marker,
            ahead,
        } = *judging;
        match verdict {
            Verdict::Literal => {
                self.write_value(|out| writer.push(marker.as_bytes(), out));
                self.state = State::Value(writer);
            }
            Verdict::End => match tok {
                Tok::ParamOpen => {
                    self.end_value(writer);
                    self.state = State::Key(Vec::new());
                }
                Tok::CallEnd => {
                    self.state = State::Value(writer);
                    self.end_args(true);
                }
                Tok::Close => {
                    // The value ends here, then the block: as a value,
                    // the close would be judged again, and again.
                    self.end_value(writer);
                    self.on_marker(Tok::Close, marker);
                }
                _ => self.end_value(writer),
            },
        }
        self.replay(&ahead);
        bytes.len()
    }

    /// What the tag being judged is, once the bytes after it tell.
    fn verdict(&self) -> Option<Verdict> {
        let State::Judge(judging) = &self.state else {
            return None;
        };
        let ahead = &judging.ahead;
        let at_end = self.at_end || ahead.len() >= WINDOW;
        if judging.tok == Tok::ParamOpen {
            return match self.next_param(ahead, at_end, 0)? {
                true => Some(Verdict::End),
                false => Some(Verdict::Literal),
            };
        }
        if self.continues(judging.tok, ahead, at_end, 0)? {
            return Some(Verdict::End);
        }
        // The tag is not followed by the call's structure: it is text if a
        // later closing tag is (a value quoting the format's own tags).
        let close = self.params()?.value_close.as_bytes();
        let mut from = 0;
        while let Some(i) = find(&ahead[from..], close) {
            let after = from + i + close.len();
            match self.continues(Tok::ValueClose, &ahead[after..], at_end, 0) {
                Some(true) => return Some(Verdict::Literal),
                None => return None,
                Some(false) => from = after,
            }
        }
        at_end.then_some(Verdict::End)
    }

    /// Whether `bytes`, after a parameter's opening marker, start a
    /// parameter the call may have next: a key it does not have yet, that
    /// its schema declares. A key the schema does not declare (or any key,
    /// without a schema) counts only if its value ends where the call goes
    /// on. `None` while the bytes cannot tell.
    fn next_param(&self, bytes: &[u8], at_end: bool, depth: usize) -> Option<bool> {
        let params = self.params()?;
        let Some(i) = find(bytes, params.key_end.as_bytes()) else {
            return if at_end || bytes.len() > MAX_KEY {
                Some(false)
            } else {
                None
            };
        };
        let key = String::from_utf8_lossy(&bytes[..i]);
        let key = key.trim();
        if key.is_empty() || self.keys.iter().any(|known| known == key) {
            return Some(false);
        }
        let declared = match self
            .schema
            .as_ref()
            .and_then(|schema| schema.get("properties"))
        {
            Some(serde_json::Value::Object(properties)) if !properties.is_empty() => {
                properties.contains_key(key)
            }
            // No schema: nothing to check the key against.
            _ => return Some(true),
        };
        if declared || depth >= MAX_DEPTH {
            return Some(true);
        }
        let rest = &bytes[i + params.key_end.len()..];
        let close = params.value_close.as_bytes();
        match find(rest, close) {
            Some(end) => self.continues(
                Tok::ValueClose,
                &rest[end + close.len()..],
                at_end,
                depth + 1,
            ),
            None if at_end => Some(true),
            None => None,
        }
    }

    /// Whether `bytes`, after a tag `after`, continue the call's structure:
    /// `None` while they cannot tell (and the input goes on).
    fn continues(&self, after: Tok, bytes: &[u8], at_end: bool, depth: usize) -> Option<bool> {
        let spaces = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
        let bytes = &bytes[spaces..];
        if bytes.is_empty() {
            return if at_end { Some(true) } else { None };
        }
        let params = self.params()?;
        let named = self.named()?;
        let mut options: Vec<(&str, Tok)> = Vec::new();
        match after {
            Tok::ValueClose => {
                options.push((params.open, Tok::ParamOpen));
                options.extend(named.end.iter().map(|end| (*end, Tok::CallEnd)));
                options.extend(
                    self.close_markers()
                        .iter()
                        .map(|close| (*close, Tok::Close)),
                );
            }
            Tok::CallEnd => {
                options.extend(
                    self.close_markers()
                        .iter()
                        .map(|close| (*close, Tok::Close)),
                );
                options.extend(named.start.iter().map(|start| (*start, Tok::Start)));
            }
            Tok::Close => {
                options.extend(self.spec.open.iter().map(|open| (*open, Tok::Open)));
            }
            _ => {}
        }
        let mut partial = false;
        for (marker, tok) in options {
            let marker = marker.as_bytes();
            if let Some(rest) = bytes.strip_prefix(marker) {
                return match tok {
                    Tok::ParamOpen => self.next_param(rest, at_end, depth),
                    Tok::CallEnd | Tok::Close => self.continues(tok, rest, at_end, depth),
                    _ => Some(true),
                };
            }
            partial |= marker.starts_with(bytes);
        }
        if partial && !at_end {
            return None;
        }
        if after == Tok::Close {
            // Prose after a block is normal; a closing tag in it before any
            // new block says the block's close was text of the value.
            let close = find(bytes, params.value_close.as_bytes());
            let reopens = (self.spec.open.iter())
                .filter_map(|open| find(bytes, open.as_bytes()))
                .min();
            return match (close, reopens) {
                (Some(close), Some(open)) => Some(open < close),
                (Some(_), None) => Some(false),
                (None, Some(_)) => Some(true),
                (None, None) if at_end || bytes.len() >= AFTER_CLOSE => Some(true),
                (None, None) => None,
            };
        }
        Some(false)
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}
