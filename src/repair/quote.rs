//! The end of a string: does this quote close it? (The rule is in `judge/`;
//! this is where the machine acts on it.)

use super::context::object_context;
use super::doubt::DoubtKind;
use super::fix::FixKind;
use super::frame::{Frame, LOOKAHEAD, State};
use super::grammar;
use super::judge::{self, Judged, Judgement, Role, Subject};
use super::machine::{Halt, Machine, Step};
use super::open_string::{Comma, Escaping};
use crate::lex::{self, Closer, Quote, Token};

/// Below this many bytes after a quote, its question is asked again at
/// every new byte (see [`Machine::string_quote`]).
const RETRY_EVERY_BYTE: usize = 64;

/// Then every this many bytes up to [`STEP_UNTIL`] bytes after the quote,
/// and from there each time they double. A question that needs more than 64
/// bytes (a twin quote weighed against the keys after it, code whose quotes
/// look like members) held the snapshot back by up to as many bytes again
/// when the retries doubled from 64; now by 16 at most, up to 512. Measured
/// on the differential check: 2,785 of its 177,345 streams show values in
/// snapshots sooner, 90 a little later (a retry's phase), the answers the
/// same; a stream of code full of quotes fed a byte at a time (the
/// `unescaped_dict` adversarial family) costs 1.5 times the instructions.
const STEP: usize = 16;
const STEP_UNTIL: usize = 512;

/// A run of commas and whitespace after a quote at least this long is no
/// part of its question (see [`Machine::string_quote`]). Measured on the
/// 177,345 streams of the differential check: from 16 on, counting the
/// question from the run's end shows 49 streams' values in snapshots
/// sooner and none later; from 8 on, 76 sooner and 21 later.
const LONG_BLANK: usize = 16;

impl Machine<'_> {
    /// Write the quote at `i` (`len` bytes) as text of the open string: `"`
    /// escaped, a lenient quote as it is (without the backslash of an
    /// escaped string's `\'`).
    fn write_quote_as_text(&mut self, quote: Quote, len: usize) {
        if quote == Quote::Double {
            self.emit_body("\\\"");
            return;
        }
        let at = self.i - self.base;
        let quote_text = &self.src[at..at + len];
        let quote_text = quote_text.strip_prefix(b"\\").unwrap_or(quote_text);
        let text = crate::utf8::from_utf8(quote_text)
            .unwrap_or("\u{FFFD}")
            .to_owned();
        self.emit_body(&text);
    }

    /// A quote of `len` bytes at `i` that may close the open string (of its
    /// own kind or its twin, as `closer` says).
    pub(super) fn string_quote(&mut self, quote: Quote, len: usize, closer: Closer) -> Step {
        let Some(mut s) = self.string else {
            return Ok(());
        };
        if s.open == Quote::Template {
            return self.template_quote(len);
        }
        let fed = self.bytes_fed();
        if !self.eof && s.retry.0 == self.i && fed < s.retry.1 && !self.question_began(len) {
            return Err(Halt::Need);
        }
        if s.echo.is_some() && quote == Quote::Double {
            if let Some(colon) = self.echo_colon(len)? {
                self.drop_echo(colon);
                return Ok(());
            }
            if let Some(s) = self.string.as_mut() {
                s.echo = None;
            }
        }
        if s.role == Role::Key
            && closer == Closer::Own
            && let Some(colon) = s.colon
            && (s.comma.is_some_and(|comma| comma.input > colon.input)
                || self.value_after_colon(colon.out))
            && !self.colon_follows(len)?
        {
            // `"suggested_diff_hunk: null, "approve_pr`, `{"selected: ["A"`:
            // the key's end quote was dropped before the colon in its body,
            // and this quote is in its value or opens the next key.
            self.key_ends_at_colon(colon);
            return Ok(());
        }
        if s.triple {
            // Only `"""` ends a triple-quoted string; any other quote is text.
            return if quote == Quote::Double {
                self.triple_quote()
            } else {
                self.string_run(len)
            };
        }
        if s.role == Role::Value
            && s.open == Quote::Double
            && quote == Quote::Double
            && s.escaping == Escaping::Plain
            && self.out_len() == s.body_start
            && self.peek(1)? == Some(b'"')
            && self.peek(2)? != Some(b'"')
        {
            // `"""`: a string written as a Python triple-quoted one. (Four
            // quotes are a string whose text starts with a docstring:
            // `"content": """"Module docs."""\n…"`.)
            return self.begin_triple();
        }
        // The brackets of the body matter once it holds an inner quote, or
        // for a comma it ends with; a clean string's text is not rescanned.
        if s.inner_quotes > 0 || s.comma.is_some() {
            s.count_brackets(self.out.held().as_bytes(), self.out.base());
            self.string = Some(s);
        }
        // In a string holding JSON escaped twice (see `Str::undoubled`), the
        // quotes read so far were the JSON's own, escaped: while no raw quote
        // was read as text, a quote with no `\\` before it is judged as in a
        // string without inner quotes.
        let plain_after_twice = s.undoubled
            && s.inner_quotes == s.undoubled_quotes
            && quote == Quote::Double
            && s.twice.is_none_or(|at| at + 2 != self.out_len());
        if plain_after_twice {
            s.inner_quotes = 0;
            s.keyish = false;
        }
        let valid_so_far = self.fix_count() == 0;
        let last = (self.out_len() > s.body_start)
            .then(|| body_last(self.out.held().as_bytes()))
            .flatten();
        // The object around, for a string known to hold code or ending with
        // a comma: its keys and how it lays out its members (read once).
        let in_object = s.role == Role::Value && self.stack.last() == Some(&Frame::Object);
        let context = if (s.inner_quotes > 0 || s.comma.is_some()) && in_object {
            let at = s.body_start.saturating_sub(1);
            object_context(&mut self.context, self.out.held(), self.out.base(), at)
        } else {
            None
        };
        let after = &self.src[self.i - self.base..];
        let after = &after[len.min(after.len())..];
        let window = &after[..after.len().min(LOOKAHEAD)];
        let subject = Subject {
            frames: &self.stack,
            role: s.role,
            open: s.open,
            closer,
            inner_quotes: s.inner_quotes,
            keyish: s.keyish,
            enclosed: s.enclosed(),
            open_brackets: s.open_brackets(),
            balance: s.balance(),
            trailing_comma: s.comma.is_some(),
            last,
            comma_gap: s
                .comma
                .and_then(|comma| {
                    self.src
                        .get(comma.input.checked_sub(self.base)?..self.i - self.base)
                })
                .unwrap_or(&[]),
            style: self.style,
            valid_so_far,
            hints: self.hints.as_deref(),
            context,
        };
        let have = after.len();
        let Judged { judgement, doubt } =
            judge::judge(&subject, window, self.eof || have >= LOOKAHEAD);
        if let Some(kind) = doubt {
            self.doubt(kind, self.i);
        }

        match judgement {
            Judgement::Need => {
                // Judge again at the next byte while the question is short
                // (a valid `, "key":`), then every 16 bytes up to 512, then
                // once twice as many bytes are there: a long question fed a
                // byte at a time costs linear time, not quadratic.
                //
                // A long run of commas and whitespace right after the quote
                // (deep indentation) is no part of the question: the run
                // alone waits for the first other byte (`Str::retry_blank`),
                // and what follows it is asked again at every byte while it
                // is short, as after a quote without the run. Shorter runs
                // (`, `, a newline and a few levels of indentation) keep the
                // schedule counted from the quote: counted from the run's
                // end, each later retry moves on by the run's length, and
                // the snapshot waits the longer.
                let at = (self.i - self.base + len).min(self.src.len());
                let blank = self.src[at..].iter().take_while(|&&b| is_blank(b)).count();
                let short = have < RETRY_EVERY_BYTE
                    || (blank >= LONG_BLANK && blank < have && have - blank < RETRY_EVERY_BYTE);
                let wait = if short {
                    1
                } else if have < STEP_UNTIL {
                    STEP - have % STEP
                } else {
                    have
                };
                if let Some(s) = self.string.as_mut() {
                    s.retry = (self.i, fed + wait);
                    s.retry_blank = if blank == have && !short {
                        have
                    } else {
                        usize::MAX
                    };
                }
                Err(Halt::Need)
            }
            Judgement::End => {
                if s.open == Quote::Double && quote != Quote::Double {
                    // `"value”`: the string opened straight and closes
                    // curly; the closing quote is replaced (one opened
                    // curly had its fix where it opened).
                    self.fix(FixKind::ReplacedQuotes, self.i);
                }
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
            Judgement::KeyThenValue => {
                self.key_then_value(quote, len);
                Ok(())
            }
            Judgement::Inner if closer == Closer::Twin => {
                // The twin of the string's quote is text, as valid JSON
                // has `”` inside a `"`-string: no fix, and the string does
                // not become one known to hold code.
                self.write_quote_as_text(quote, len);
                self.i += len;
                Ok(())
            }
            Judgement::Inner => {
                let twice = s
                    .twice
                    .filter(|&at| at + 2 == self.out_len() && (s.undoubled || s.twice_lead));
                if let Some(at) = twice
                    && quote == Quote::Double
                {
                    // `{\\"a\\": 1}`: JSON written into the string and escaped
                    // twice; the quote is the JSON's own.
                    self.truncate_out(at);
                    self.fix(FixKind::UndoubledEscape, self.i - 2);
                    if let Some(s) = self.string.as_mut() {
                        s.undoubled = true;
                        s.undoubled_quotes += 1;
                    }
                } else {
                    self.fix(FixKind::EscapedQuote, self.i);
                }
                self.inner_at = Some(self.i);
                self.write_quote_as_text(quote, len);
                let keyish = self.src[self.i - self.base + len..]
                    .iter()
                    .find(|b| !matches!(b, b' ' | b'\t'))
                    == Some(&b':');
                if let Some(s) = self.string.as_mut() {
                    s.count_brackets(self.out.held().as_bytes(), self.out.base());
                    s.note_inner();
                    s.keyish |= keyish;
                }
                self.i += len;
                Ok(())
            }
        }
    }

    /// For a string that may echo its key, at its quote (`len` bytes at
    /// `i`): the input position of the colon that follows (spaces between),
    /// when its body is the whole key. `None` when it is no echo.
    fn echo_colon(&mut self, len: usize) -> Result<Option<usize>, Halt> {
        self.check_echo();
        let Some(echo) = self.string.and_then(|s| s.echo) else {
            return Ok(None);
        };
        let body = self.string.map_or(0, |s| self.out_len() - s.body_start);
        if body != echo.key_len {
            return Ok(None);
        }
        let mut k = len;
        loop {
            match self.peek(k)? {
                Some(b' ' | b'\t') => k += 1,
                Some(b':') => return Ok(Some(self.i + k)),
                _ => return Ok(None),
            }
        }
    }

    /// `{"notes": "notes": "x"}`: the value string was its key written
    /// again, and the colon at input position `colon` follows it. Both go,
    /// with the whitespace before the echo; the value comes after the colon.
    fn drop_echo(&mut self, colon: usize) {
        let Some(echo) = self.string.take().and_then(|s| s.echo) else {
            return;
        };
        self.retract_fixes(echo.n_fixes);
        self.retract_doubts(echo.input);
        self.truncate_out(echo.out);
        self.fix(FixKind::RemovedEchoedKey, echo.input);
        self.i = colon + 1;
        self.state = State::Value;
    }

    /// `"""` right after a string opened by `"`: the string is a Python
    /// triple-quoted one, which only `"""` closes (its single quotes and
    /// line breaks are text).
    fn begin_triple(&mut self) -> Step {
        let at = self.i.saturating_sub(1);
        self.fix(FixKind::ReplacedQuotes, at);
        self.i += 2;
        if let Some(s) = self.string.as_mut() {
            s.triple = true;
        }
        Ok(())
    }

    /// A `"` in a triple-quoted string: `"""` ends it (the last three of a
    /// longer run), a shorter run is text.
    fn triple_quote(&mut self) -> Step {
        let rest = self.rest();
        let run = rest.iter().take_while(|&&b| b == b'"').count();
        if run == rest.len() && !self.eof {
            return Err(Halt::Need);
        }
        let inner = if run < 3 { run } else { run - 3 };
        for _ in 0..inner {
            self.fix(FixKind::EscapedQuote, self.i);
            self.emit_body("\\\"");
            self.i += 1;
        }
        if run < 3 {
            return Ok(());
        }
        self.fix(FixKind::ReplacedQuotes, self.i);
        let at = self.out_len();
        self.emit("\"");
        self.i += 3;
        self.end_of_string(at);
        Ok(())
    }

    /// Whether a byte other than a comma or whitespace has arrived after
    /// the quote of `len` bytes at `i`, which waits while only those follow
    /// it (`Str::retry_blank`). Reads each byte once: what it has read is
    /// kept.
    fn question_began(&mut self, len: usize) -> bool {
        let Some(s) = self.string.as_mut() else {
            return false;
        };
        if s.retry_blank == usize::MAX {
            return false;
        }
        let after = &self.src[self.i - self.base..];
        let after = &after[len.min(after.len())..];
        let read = s.retry_blank.min(after.len());
        if after[read..].iter().all(|&b| is_blank(b)) {
            s.retry_blank = after.len();
            return false;
        }
        true
    }

    /// A template marker (`<|"|>`) in a string it opened. Gemma 4 writes
    /// the marker for a `"` inside the text too (vllm-project/vllm#48678:
    /// `code:<|"|>duckdb.sql(<|"|><|"|><|"|> SELECT …`), so the marker ends
    /// the string only where structure follows it: a separator, a closer,
    /// a key's colon, the end, or a bare key glued to it
    /// (`command:<|"|>look<|"|>angle:90`, hybridgroup/yzma#243). Anywhere
    /// else it is a quote of the text, written `\"`.
    fn template_quote(&mut self, len: usize) -> Step {
        let mut k = len;
        let ends = loop {
            match self.peek(k)? {
                Some(b' ' | b'\t' | b'\r' | b'\n') if k < len + RETRY_EVERY_BYTE => k += 1,
                None | Some(b',' | b'}' | b']' | b':' | b';') => break true,
                Some(b) if b.is_ascii_alphabetic() || b == b'_' => {
                    // A bare key glued on: a word (as the judge reads bare
                    // keys, up to the length asked at every byte), then its
                    // colon.
                    let rest = self.rest();
                    let rest = &rest[..rest.len().min(k + RETRY_EVERY_BYTE)];
                    break match judge::bare_key_end(rest, k) {
                        Some(end) => rest[end] == b':',
                        None if self.eof || rest.len() == k + RETRY_EVERY_BYTE => false,
                        None => return Err(Halt::Need),
                    };
                }
                _ => break false,
            }
        };
        if ends {
            self.fix(FixKind::ReplacedQuotes, self.i);
            let at = self.out_len();
            self.emit("\"");
            self.i += len;
            self.end_of_string(at);
        } else {
            self.fix(FixKind::EscapedQuote, self.i);
            self.emit_body("\\\"");
            self.i += len;
        }
        Ok(())
    }

    /// Whether a colon follows the `len` bytes at `i` (whitespace between).
    fn colon_follows(&self, len: usize) -> Result<bool, Halt> {
        let mut k = len;
        // Whitespace of any kind, line breaks too (valid JSON may put the
        // colon on the next line), as far as the window.
        while k < len + LOOKAHEAD {
            match self.peek(k)? {
                Some(b' ' | b'\t' | b'\n' | b'\r') => k += 1,
                Some(b':') => return Ok(true),
                _ => return Ok(false),
            }
        }
        Ok(false)
    }

    /// Whether the body of the open key, from its colon at output position
    /// `colon` on, is that of a key that lost its end quote before the colon
    /// (see `grammar::colon_in_key`): `{"selected: ["A", "B"]}`.
    fn value_after_colon(&self, colon: usize) -> bool {
        let (held, base) = (self.out.held().as_bytes(), self.out.base());
        let Some(body_start) = self.string.map(|s| s.body_start) else {
            return false;
        };
        match (body_start.checked_sub(base), colon.checked_sub(base)) {
            (Some(from), Some(at)) => held
                .get(from..)
                .and_then(grammar::colon_in_key)
                .is_some_and(|k| from + k == at),
            _ => false,
        }
    }

    /// The open key ended before the colon in its body (`colon`): cut it
    /// there and read on from the colon.
    fn key_ends_at_colon(&mut self, colon: Comma) {
        self.retract_fixes(colon.n_fixes);
        self.retract_doubts(colon.input);
        self.truncate_out(colon.out);
        let at = self.out_len();
        self.emit("\"");
        self.fix(FixKind::InsertedQuote, colon.input);
        self.i = colon.input;
        self.end_of_string(at);
    }

    /// `{"title "K2", "x": 1}`: the key ended before the whitespace its body
    /// ends with, its colon was dropped, and the quote at `i` opens its value.
    fn key_then_value(&mut self, quote: Quote, len: usize) {
        let body_start = self.string.map_or(0, |s| s.body_start);
        let held = self.out.held();
        let kept = held
            .trim_end_matches(|c: char| c.is_ascii_whitespace())
            .len();
        let end = (self.out.base() + kept).max(body_start);
        self.truncate_out(end);
        let at = self.out_len();
        self.emit("\"");
        self.end_of_string(at);
        self.fix(FixKind::InsertedColon, self.i);
        self.doubt_repeated_key();
        self.key_hold = None;
        self.emit(":");
        self.state = State::Value;
        self.begin_string(quote, len, Role::Value);
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
        let quote_at = self.i;
        self.i = comma.input;
        self.end_of_string(at);
        if quote_at == comma.input + 1 {
            // `"Hello,"id": 1`: the comma glued to the quote may be the
            // text's own, and the separator dropped after it.
            self.doubt(DoubtKind::CommaBoundary, quote_at);
        }
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
        if let Some(tail) = s.tail
            && self.cut_at_end().is_some()
        {
            // `"00:23}⏎  ]⏎}`: the closers the body ends with close what
            // is open; the string's end quote was dropped before them,
            // which are read again as structure.
            self.retract_fixes(tail.n_fixes);
            self.retract_doubts(tail.input);
            self.truncate_out(tail.out);
            self.fix(FixKind::ClosedString, tail.input);
            let at = self.out_len();
            self.emit("\"");
            self.i = tail.input;
            self.end_of_string(at);
            if let Some(inner) = self.inner_at {
                // A quote read as text before them may have been the end
                // (`{"a": "f("x")"⏎"b": 1}`): the closers prove nothing.
                self.doubt(DoubtKind::QuoteAsText, inner);
            }
            return;
        }
        self.fix(FixKind::ClosedString, self.i);
        let at = self.out_len();
        self.emit("\"");
        self.end_of_string(at);
    }
}

/// The last byte of a string body written as JSON (`out`), with an escaped
/// line break or tab read as the whitespace it stands for.
fn body_last(out: &[u8]) -> Option<u8> {
    let (&last, before) = out.split_last()?;
    let escaped = before.iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 1;
    Some(match last {
        b'n' | b't' | b'r' if escaped => b' ',
        b'\\' if escaped => b'\\',
        _ => last,
    })
}

impl Machine<'_> {
    /// Where the open string's body would be cut if the input ended now
    /// (see `open_string::Tail`): what `end_string` does, and what a
    /// snapshot shows.
    pub(super) fn cut_at_end(&self) -> Option<usize> {
        let s = self.string.as_ref()?;
        s.cut_at_end(self.out.held().as_bytes(), self.out.base(), &self.stack)
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

/// A comma or whitespace: what may follow a quote before its question
/// (the key, the value, the closer after it) begins.
fn is_blank(b: u8) -> bool {
    b == b',' || lex::is_ws(b)
}
