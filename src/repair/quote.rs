//! The end of a string: does this quote close it, and where does a string
//! missing its end quote stop?
//!
//! The answer follows jsonrepair 3.14 (see `string.rs` for the cut that
//! keeps "missing earlier" possible without rewriting committed output).

use super::FixKind;
use super::machine::{Halt, LOOKAHEAD, Machine, State, Step};
use super::string::Str;
use crate::lex::{self, Quote, Token};

impl Machine<'_> {
    /// A quote that may close the string: decide from what follows and precedes it.
    pub(super) fn string_quote(&mut self, quote: Quote, len: usize) -> Step {
        let Some(s) = self.string else {
            return Ok(());
        };
        let ends = match self.after_quote(len)? {
            None => true,
            Some(k) => {
                let rest = &self.rest()[k..];
                let c = rest[0];
                if matches!(c, 0xC2 | 0xE2 | 0xEF) && rest.len() < 3 && !self.eof {
                    return Err(Halt::Need);
                }
                let is_quote = lex::quote_at(rest).is_some();
                (lex::is_delimiter(c) && !self.inside_unclosed_bracket(c))
                    || c.is_ascii_digit()
                    || (is_quote && !self.quote_ends_at(k)?)
            }
        };
        // After a delimiter, the end quote was missing earlier; with no
        // earlier place to cut, a string cut at its first delimiter would end
        // at this very quote.
        let ends = ends || (s.tracking() && lex::is_delimiter(s.prev));
        if ends {
            let at = self.out_len();
            self.emit("\"");
            self.i += len;
            self.end_of_string(at);
            return Ok(());
        }
        if let (Some(comma), Some(_)) = (s.comma, s.cut)
            && s.prev == b','
        {
            // `{"a":"b,"c":"d"}`: the end quote belonged before the comma.
            self.retract_fixes(comma.n_fixes);
            self.truncate_out(comma.out);
            self.insert_at(comma.mark_before, "\"");
            self.mark = comma.mark_before + 1;
            self.fix(FixKind::InsertedQuote, comma.input);
            self.i = comma.input;
            self.end_of_string(comma.mark_before);
            return Ok(());
        }
        if s.cut.is_some() && lex::is_delimiter(s.prev) {
            self.apply_cut();
            return Ok(());
        }
        // A quote inside the string: escape it (or keep a lenient quote as text).
        if s.tracking() {
            self.set_cut(true, len);
        }
        self.fix(FixKind::EscapedQuote, self.i);
        if quote == Quote::Double {
            self.emit("\\\"");
        } else {
            // A lenient quote inside the string is text (without the
            // backslash of an escaped string's `\'`).
            let at = self.i - self.base;
            let quote_text = &self.src[at..at + len];
            let quote_text = quote_text.strip_prefix(b"\\").unwrap_or(quote_text);
            let text = std::str::from_utf8(quote_text)
                .unwrap_or("\u{FFFD}")
                .to_owned();
            self.emit(&text);
        }
        self.note_prev(b'"');
        self.i += len;
        Ok(())
    }

    /// The offset from `i` of the first byte after the quote (of `len`
    /// bytes) that is not whitespace or a comment; `None` at the end of input
    /// or past the lookahead bound.
    pub(super) fn after_quote(&self, len: usize) -> Result<Option<usize>, Halt> {
        let rest = self.rest();
        let mut k = len;
        loop {
            if k - len > LOOKAHEAD {
                return Ok(None);
            }
            let Some(&b) = rest.get(k) else {
                return if self.eof { Ok(None) } else { Err(Halt::Need) };
            };
            if matches!(b, b' ' | b'\t' | b'\r') {
                k += 1;
                continue;
            }
            if b == b'#' {
                // A `#` comment after the quote: skip to the end of the line.
                match memchr::memchr(b'\n', &rest[k..]) {
                    Some(j) => {
                        k += j;
                        continue;
                    }
                    None if self.eof => return Ok(None),
                    None => return Err(Halt::Need),
                }
            }
            if b != b'/' {
                return Ok(Some(k));
            }
            let skip = match rest.get(k + 1) {
                None if !self.eof => return Err(Halt::Need),
                Some(b'/') => memchr::memchr(b'\n', &rest[k..]),
                Some(b'*') => memchr::memmem::find(&rest[k + 2..], b"*/").map(|j| j + 4),
                _ => return Ok(Some(k)),
            };
            match skip {
                Some(j) => k += j.max(1),
                None if self.eof => return Ok(None),
                None => return Err(Halt::Need),
            }
        }
    }

    /// Whether the quote at offset `k` from `i` is itself followed (after
    /// whitespace) by the end of input or a delimiter: `"72""` ends with the
    /// second quote, so the first is inside the string.
    pub(super) fn quote_ends_at(&self, k: usize) -> Result<bool, Halt> {
        let rest = self.rest();
        let len = lex::quote_at(&rest[k..]).map_or(1, |(_, n)| n);
        let mut j = k + len;
        loop {
            match rest.get(j) {
                Some(&b) if lex::is_ws(b) && j - k < LOOKAHEAD => j += 1,
                Some(&b) => return Ok(lex::is_delimiter(b)),
                None if self.eof => return Ok(true),
                None => return Err(Halt::Need),
            }
        }
    }

    /// Whether the body has an unclosed bracket that `closer` would close:
    /// `"six feet (72") tall"`, where `")` is not the end of the string.
    ///
    /// Unlike jsonrepair, a closer that closes the innermost open container
    /// ends the string all the same: `{"a": "x{"}` is valid JSON and must
    /// come back unchanged.
    pub(super) fn inside_unclosed_bracket(&mut self, closer: u8) -> bool {
        let (token, k) = match closer {
            b')' => (Token::ParenClose, 0),
            b']' => (Token::BracketClose, 2),
            b'}' => (Token::BraceClose, 4),
            _ => return false,
        };
        if self
            .stack
            .last()
            .is_some_and(|frame| frame.is_closed_by(token))
        {
            return false;
        }
        let Some(s) = self.string.as_mut() else {
            return false;
        };
        s.count_brackets(&self.out, self.out_base);
        s.brackets[k] > s.brackets[k + 1]
    }

    /// Whether the body so far is exactly a URL scheme and a colon, and `//` follows.
    pub(super) fn url_scheme_before(&self, s: &Str) -> Result<bool, Halt> {
        let from = s.body_start.max(self.out_base) - self.out_base;
        let body = &self.out.as_bytes()[from..];
        const SCHEMES: [&[u8]; 7] = [
            b"http:", b"https:", b"ftp:", b"mailto:", b"file:", b"data:", b"irc:",
        ];
        Ok(SCHEMES.contains(&body) && self.peek(1)? == Some(b'/'))
    }

    /// Copy the URL characters at `i` as plain body text.
    pub(super) fn string_url(&mut self, s: &Str) -> Step {
        let rest = self.rest();
        let n = rest
            .iter()
            .position(|&b| {
                !(b.is_ascii_alphanumeric()
                    || b"-._~:/?#@!$&()*+;=%".contains(&b)
                    || (b == b'\'' && s.open != Quote::Single))
            })
            .unwrap_or(rest.len());
        if n == rest.len() && !self.eof {
            return Err(Halt::Need);
        }
        self.string_run(n.max(1))
    }

    /// Cut the string where a missing end quote belonged, and read on from there.
    pub(super) fn apply_cut(&mut self) {
        let Some(cut) = self.string.and_then(|s| s.cut) else {
            return;
        };
        self.retract_fixes(cut.n_fixes);
        self.truncate_out(cut.out_len);
        let at = if cut.at_quote {
            let at = self.out_len();
            self.emit("\"");
            at
        } else {
            self.insert_at(cut.body_end, "\"");
            self.mark = cut.body_end + 1;
            cut.body_end
        };
        self.fix(FixKind::InsertedQuote, cut.resume);
        self.i = cut.resume;
        self.end_of_string(at);
    }

    /// The string has ended with its closing quote written at output position `at`.
    pub(super) fn end_of_string(&mut self, at: usize) {
        let key = self.string.take().is_some_and(|s| s.key);
        if key {
            self.state = State::Colon;
        } else {
            self.hold = Some(at);
            self.value_done();
        }
    }

    /// The input ended inside a string.
    pub(super) fn end_string(&mut self) {
        let Some(s) = self.string else {
            self.state = State::After;
            return;
        };
        if s.cut.is_some() && lex::is_delimiter(s.prev) {
            // `["hello],`: the end quote belonged before the delimiter.
            self.apply_cut();
            return;
        }
        self.fix(FixKind::ClosedString, self.i);
        let at = self.mark;
        self.insert_at_mark("\"");
        self.end_of_string(at);
    }
}
