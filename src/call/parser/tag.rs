//! The attributes of `<tool_call name="…" args='…'>`.

use super::{CallParser, State};
use crate::call::scan::{Step, ValueScanner, is_args_key};

/// Where a tag's attributes stand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Attr {
    /// Between attributes.
    Between,
    /// An attribute name.
    Name,
    /// After a name, before `=`.
    Equals,
    /// After `=`, before the value.
    ValueStart,
    /// A quoted value (not the arguments).
    Quoted(u8),
    /// The arguments in quotes `q`, before their first non-space byte.
    ArgsStart(u8),
    /// Arguments that are a JSON container: the scanner finds their end.
    ArgsJson(u8),
    /// Arguments that are plain text up to the quote.
    ArgsPlain(u8),
    /// Inside JSON arguments, outside any string, the attribute's own quote
    /// came: if `/>` or `>` follows (after spaces), the attribute ends there
    /// whatever the JSON still lacks; the lookahead bytes are in `held`.
    ArgsQuote(u8),
    /// After `/`, expecting `>`.
    Slash,
}

impl CallParser {
    pub(super) fn tag(&mut self, b: u8) {
        self.keep_raw(b);
        let State::Tag {
            attr,
            word,
            key,
            args_seen,
            scanner,
            ..
        } = &mut self.state
        else {
            return;
        };
        match *attr {
            Attr::Between => match b {
                b'/' => *attr = Attr::Slash,
                b'>' => self.tag_end(),
                b if b.is_ascii_whitespace() => {}
                b => {
                    word.clear();
                    word.push(b);
                    *attr = Attr::Name;
                }
            },
            Attr::Name => match b {
                b'=' => {
                    *key = std::mem::take(word);
                    *attr = Attr::ValueStart;
                }
                b if b.is_ascii_whitespace() => {
                    *key = std::mem::take(word);
                    *attr = Attr::Equals;
                }
                b'>' => self.tag_end(),
                b'/' => *attr = Attr::Slash,
                b => word.push(b),
            },
            Attr::Equals => match b {
                b'=' => *attr = Attr::ValueStart,
                b if b.is_ascii_whitespace() => {}
                b if !*args_seen && self.call.as_ref().is_some_and(super::Call::may_be_text) => {
                    // A word without `=` in a tag with no name yet: prose
                    // (`a <tool_call tag for that`), not a call. `b` is read
                    // again as text, so it leaves the kept bytes.
                    if let Some(call) = &mut self.call {
                        call.raw.pop();
                    }
                    self.call_was_text(b);
                }
                b => {
                    // A name without a value: start the next attribute.
                    *attr = Attr::Between;
                    self.tag(b);
                }
            },
            Attr::ValueStart => match b {
                b if b.is_ascii_whitespace() => {}
                b'"' | b'\'' if is_args_key(key) => {
                    *args_seen = true;
                    *attr = Attr::ArgsStart(b);
                }
                b'"' | b'\'' => {
                    word.clear();
                    *attr = Attr::Quoted(b);
                }
                b => {
                    // An unquoted value ends at whitespace, `/` or `>`.
                    word.clear();
                    word.push(b);
                    *attr = Attr::Quoted(b' ');
                }
            },
            Attr::Quoted(quote) => {
                let ends = if quote == b' ' {
                    b.is_ascii_whitespace() || b == b'>' || b == b'/'
                } else {
                    b == quote
                };
                if !ends {
                    word.push(b);
                    return;
                }
                let value = String::from_utf8_lossy(word).trim().to_owned();
                let is_name = key.as_slice() == b"name";
                *attr = Attr::Between;
                if is_name {
                    self.name(&value);
                }
                if quote == b' ' {
                    self.tag(b);
                }
            }
            Attr::ArgsStart(quote) => {
                if b.is_ascii_whitespace() {
                    self.arg_byte(b);
                } else if b == b'{' || b == b'[' {
                    *scanner = ValueScanner::default();
                    scanner.step(b);
                    *attr = Attr::ArgsJson(quote);
                    self.arg_byte(b);
                } else {
                    *attr = Attr::ArgsPlain(quote);
                    self.tag(b);
                }
            }
            Attr::ArgsJson(quote) => {
                if b == quote && !scanner.in_string() {
                    *attr = Attr::ArgsQuote(quote);
                    self.held.push(b);
                    return;
                }
                if scanner.started() && scanner.step(b) == Step::EndAfter {
                    // The structure ended: the attribute's quote should follow.
                    *attr = Attr::ArgsPlain(quote);
                }
                self.arg_byte(b);
            }
            Attr::ArgsQuote(quote) => {
                let rest = &self.held[1..];
                let spaces = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
                let after = &rest[spaces..];
                match b {
                    b if b.is_ascii_whitespace()
                        && after.is_empty()
                        && rest.len() < super::LOOKAHEAD =>
                    {
                        self.held.push(b);
                    }
                    b'/' if after.is_empty() => self.held.push(b),
                    b'>' if after.is_empty() || after == b"/" => {
                        // The attribute ends here; the JSON is mended as it is.
                        let self_closing = after == b"/";
                        self.held.clear();
                        *attr = Attr::Between;
                        if self_closing {
                            self.end_call();
                        } else {
                            self.tag_end();
                        }
                    }
                    b => {
                        // The quote was the JSON's own: replay it as arguments.
                        let held = std::mem::take(&mut self.held);
                        *attr = Attr::ArgsJson(quote);
                        if scanner.step(quote) == Step::EndAfter {
                            *attr = Attr::ArgsPlain(quote);
                        }
                        self.arg_byte(quote);
                        for &c in &held[1..] {
                            self.tag(c);
                        }
                        self.tag(b);
                    }
                }
            }
            Attr::ArgsPlain(quote) => {
                if b == quote {
                    *attr = Attr::Between;
                } else {
                    self.arg_byte(b);
                }
            }
            Attr::Slash => match b {
                b'>' => self.end_call(),
                b => {
                    *attr = Attr::Between;
                    self.tag(b);
                }
            },
        }
    }

    /// The `>` that ends an opening tag.
    fn tag_end(&mut self) {
        let State::Tag {
            args_seen, close, ..
        } = &self.state
        else {
            return;
        };
        let close = *close;
        if *args_seen {
            self.end_call();
            self.state = State::MaybeClose { close };
            return;
        }
        let named = self.call.as_ref().is_some_and(|call| call.stream.is_some());
        self.state = if named {
            State::Body {
                close,
                object: None,
                ended: false,
            }
        } else {
            // No name: the body must be a call object, or the tag was prose.
            State::BodyStart { close }
        };
    }
}
