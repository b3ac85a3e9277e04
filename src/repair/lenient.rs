//! The lenient steps of the fast lane: the commonest repairs taken without
//! the general machine.
//!
//! A single-quoted string with nothing to escape, a bare identifier key and
//! a Python literal are what models get wrong most. Each step below takes one
//! of them when, and only when, the general machine would give exactly the
//! same output and fixes; anything else is left to it. The chunk-invariance
//! tests (one-shot runs take these steps, one-byte feeds mostly do not)
//! check the equivalence.

use super::FixKind;
use super::fast::{after_value, string_ends, trailing_comma};
use super::judge;
use super::machine::{Frame, LOOKAHEAD, Machine, State, text_at, write_unwritten};
use super::string::find_quote_escape_or_control;
use crate::lex::{self, Quote, Token};

impl Machine<'_> {
    /// Take one lenient token at `i` (after whitespace); `false` if there is
    /// none the lane may take.
    pub(super) fn lenient_step(&mut self) -> bool {
        let top = self.stack.last().copied();
        if !matches!(top, Some(Frame::Object | Frame::Array))
            || !matches!(
                self.state,
                State::Key | State::Value | State::After | State::Colon
            )
            || self.comment.is_some()
        {
            return false;
        }
        let at = self.i - self.base;
        let src = &self.src[..];
        let q = at + src[at..].iter().take_while(|b| lex::is_ws(**b)).count();
        let key = self.state == State::Key;
        let Some(&b) = src.get(q) else {
            return false;
        };
        if b == b'/' {
            return self.lenient_comment(at, q);
        }
        if !matches!(self.state, State::Key | State::Value) {
            return false;
        }
        // What to write, the fix, and where the token ends.
        let (text, fix, end, next_state) = if b == b'\'' {
            // 'text': nothing to escape, valid UTF-8, ended as the machine would end it.
            let body = q + 1;
            let Some(close) = memchr::memchr(b'\'', &src[body..]).map(|k| body + k) else {
                return false;
            };
            if find_quote_escape_or_control(&src[body..close]).is_some() {
                return false;
            }
            let Ok(inner) = text_at(src, self.whole_text, body, close) else {
                return false;
            };
            let ends = if key {
                string_ends(src, close + 1, true, top).is_some()
            } else {
                let after = &src[close + 1..];
                let window = &after[..after.len().min(LOOKAHEAD)];
                let eof = self.eof || after.len() >= LOOKAHEAD;
                let comma = || trailing_comma(src, body, close, None, self.base);
                judge::clean_value_ends(&self.stack, Quote::Single, comma, window, eof)
                    == Some(true)
            };
            if !ends {
                return false;
            }
            let next = if key { State::Colon } else { after_value(top) };
            (
                Text::Quoted(inner),
                FixKind::ReplacedQuotes,
                close + 1,
                next,
            )
        } else if key && (b.is_ascii_alphabetic() || b == b'_' || b == b'$') {
            // key: an identifier, then `:` on the same line.
            let n = src[q..]
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'-')))
                .map_or(src.len(), |k| q + k);
            let colon = n + src[n..]
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t'))
                .count();
            if src.get(colon) != Some(&b':') {
                return false;
            }
            // ASCII only (checked above), so a character boundary at each end.
            let Ok(name) = text_at(src, self.whole_text, q, n) else {
                return false;
            };
            (Text::Quoted(name), FixKind::QuotedKey, n, State::Colon)
        } else if !key && b.is_ascii_alphabetic() {
            // True, None, …: a whole word, then a delimiter or whitespace.
            // The lexer's spellings (`lex::Literal`), so the lane and the
            // machine cannot disagree on what is a literal.
            let Some((Token::Literal(literal), len)) = lex::next(&src[q..]) else {
                return false;
            };
            let (json, true) = literal.json() else {
                return false;
            };
            let n = q + len;
            match src.get(n) {
                Some(&c) if lex::is_ws(c) || matches!(c, b',' | b'}' | b']') => {}
                _ => return false,
            }
            (
                Text::Plain(json),
                FixKind::ReplacedLiteral,
                n,
                after_value(top),
            )
        } else {
            return false;
        };
        // Written out from here on: what the lane left unwritten goes first.
        // (Fields one by one: `text` borrows the input.)
        write_unwritten(src, self.whole_text, &mut self.out, &mut self.unwritten);
        self.out.push_ascii(&src[at..q]);
        match text {
            Text::Quoted(inner) => {
                self.out.push('"');
                self.out.push_str(inner);
                self.out.push('"');
            }
            Text::Plain(json) => self.out.push_str(json),
        }
        if next_state == State::Colon {
            // The key is complete only once the fast lane takes its colon.
            self.i = self.base + q;
            self.hold_key();
            if fix == FixKind::QuotedKey {
                self.bare_keys = true;
            }
        }
        self.fix(fix, self.base + q);
        self.wrote();
        self.hold = None;
        self.open_hold = None;
        self.i = self.base + end;
        self.state = next_state;
        true
    }
}

/// What a lenient token becomes.
impl Machine<'_> {
    /// A `// line` or `/* block */` comment at `q` (after whitespace from
    /// `at`), whole: dropped with a fix, exactly as the machine drops it in
    /// every state the lane runs in (the whitespace before it stays, the
    /// state and a pending comma are untouched).
    fn lenient_comment(&mut self, at: usize, q: usize) -> bool {
        let src = &self.src[..];
        let body = q + 2;
        let end = match src.get(q + 1) {
            Some(b'/') => memchr::memchr(b'\n', &src[body..]).map(|k| body + k),
            Some(b'*') => memchr::memmem::find(&src[body..], b"*/").map(|k| body + k + 2),
            _ => None,
        };
        // Not ended yet: the machine waits for the rest, or reads to the end.
        let Some(end) = end else {
            return false;
        };
        write_unwritten(src, self.whole_text, &mut self.out, &mut self.unwritten);
        self.out.push_ascii(&src[at..q]);
        self.fix(FixKind::RemovedComment, self.base + q);
        self.i = self.base + end;
        true
    }
}

enum Text<'s> {
    /// Input text to put in double quotes (nothing in it needs escaping).
    Quoted(&'s str),
    /// JSON to write as it is.
    Plain(&'static str),
}
