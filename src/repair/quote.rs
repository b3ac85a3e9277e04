//! The end of a string: does this quote close it? (The rule is in `judge/`;
//! this is where the machine acts on it.)

use super::FixKind;
use super::judge::{self, Judgement, Role, Subject};
use super::machine::{Halt, LOOKAHEAD, Machine, State, Step};
use crate::lex::{Quote, Token};

/// Below this many bytes after a quote, its question is asked again at
/// every new byte (see [`Machine::string_quote`]).
const RETRY_EVERY_BYTE: usize = 64;

impl Machine<'_> {
    /// A quote of `len` bytes at `i` that may close the open string.
    pub(super) fn string_quote(&mut self, quote: Quote, len: usize) -> Step {
        let Some(mut s) = self.string else {
            return Ok(());
        };
        let fed = self.bytes_fed();
        if !self.eof && s.retry.0 == self.i && fed < s.retry.1 {
            return Err(Halt::Need);
        }
        // The brackets of the body matter once it holds an inner quote, or
        // for a comma it ends with; a clean string's text is not rescanned.
        if s.inner_quotes > 0 || s.comma.is_some() {
            s.count_brackets(self.out.held(), self.out.base());
            self.string = Some(s);
        }
        let after = &self.rest()[len.min(self.rest().len())..];
        let window = &after[..after.len().min(LOOKAHEAD)];
        let subject = Subject {
            frames: &self.stack,
            role: s.role,
            open: s.open,
            inner_quotes: s.inner_quotes,
            enclosed: s.enclosed(),
            open_brackets: s.open_brackets(),
            balance: s.balance(),
            trailing_comma: s.comma.is_some(),
            bare_keys: self.bare_keys,
            hints: self.hints.as_deref(),
        };
        let have = after.len();
        let judgement = judge::judge(&subject, window, self.eof || have >= LOOKAHEAD);
        match judgement {
            Judgement::Need => {
                // Judge again at the next byte while the question is short
                // (a valid `, "key":`), then once twice as many bytes are
                // there: a long question fed a byte at a time costs linear
                // time, not quadratic.
                let wait = if have < RETRY_EVERY_BYTE { 1 } else { have };
                if let Some(s) = self.string.as_mut() {
                    s.retry = (self.i, fed + wait);
                }
                Err(Halt::Need)
            }
            Judgement::End => {
                let at = self.out_len();
                self.emit("\"");
                self.i += len;
                self.end_of_string(at);
                Ok(())
            }
            Judgement::EndBeforeComma => {
                self.end_before_comma();
                Ok(())
            }
            Judgement::Inner => {
                self.fix(FixKind::EscapedQuote, self.i);
                if quote == Quote::Double {
                    self.emit_body("\\\"");
                } else {
                    // A lenient quote inside the string is text (without the
                    // backslash of an escaped string's `\'`).
                    let at = self.i - self.base;
                    let quote_text = &self.src[at..at + len];
                    let quote_text = quote_text.strip_prefix(b"\\").unwrap_or(quote_text);
                    let text = crate::utf8::from_utf8(quote_text)
                        .unwrap_or("\u{FFFD}")
                        .to_owned();
                    self.emit_body(&text);
                }
                if let Some(s) = self.string.as_mut() {
                    s.count_brackets(self.out.held(), self.out.base());
                    s.note_inner();
                }
                self.i += len;
                Ok(())
            }
        }
    }

    /// `{"a": "b, "c": 1}`: the end quote belonged before the comma the body
    /// ends with. Cut the body there and read on from the comma.
    fn end_before_comma(&mut self) {
        let Some(comma) = self.string.and_then(|s| s.comma) else {
            return;
        };
        self.retract_fixes(comma.n_fixes);
        self.retract_doubts(comma.input);
        self.truncate_out(comma.out);
        let at = self.out_len();
        self.emit("\"");
        self.fix(FixKind::InsertedQuote, comma.input);
        self.i = comma.input;
        self.end_of_string(at);
    }

    /// The string has ended with its closing quote written at output position `at`.
    pub(super) fn end_of_string(&mut self, at: usize) {
        let key = self.string.take().is_some_and(|s| s.is_key());
        if key {
            self.state = State::Colon;
        } else {
            self.hold = Some(at);
            self.value_done();
        }
    }

    /// The input ended inside a string: a value keeps everything read; a key
    /// that never got its end quote is dropped.
    pub(super) fn end_string(&mut self) {
        let Some(s) = self.string else {
            self.state = State::After;
            return;
        };
        if s.role == Role::Key && self.key_hold.is_some() {
            self.drop_key();
            return;
        }
        self.fix(FixKind::ClosedString, self.i);
        let at = self.out_len();
        self.emit("\"");
        self.end_of_string(at);
    }
}

impl Machine<'_> {
    // ----- string concatenation: "a" + "b" -----

    pub(super) fn begin_concat(&mut self, len: usize) -> Step {
        let Some(quote) = self.hold.take() else {
            return Ok(());
        };
        self.fix(FixKind::ConcatenatedStrings, self.i);
        self.truncate_out(quote);
        self.i += len;
        self.state = State::Concat;
        Ok(())
    }

    pub(super) fn on_concat(&mut self, token: Token, len: usize) -> Step {
        match token {
            Token::Quote(quote) => {
                self.continue_string(quote, len);
                Ok(())
            }
            _ => {
                // Not followed by a string: put the end quote back.
                self.emit("\"");
                self.value_done();
                Ok(())
            }
        }
    }
}
