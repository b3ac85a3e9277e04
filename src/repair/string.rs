//! String bodies: the hot path.
//!
//! A body is copied in runs found with a SWAR scan; only quotes, backslashes,
//! control characters and (for lenient quotes) non-ASCII lead bytes stop a
//! run. Body text is committed as soon as it is read: a stream of tool calls
//! is mostly string bodies (code, prose, paths), and a UI shows them live.
//! The one thing a body holds back is a comma at its very end, with the
//! whitespace after it (`"b, ` in `{"a": "b, "c": 1}`), until the next byte
//! shows whether the end quote was missing before it.
//!
//! A quote that may close the string is decided in `quote.rs`.

use super::doubt::DoubtKind;
use super::fix::FixKind;
use super::frame::{Frame, LOOKAHEAD, State, WINDOW};
use super::grammar::{self, Faults, Fragment};
use super::judge::Role;
use super::machine::{Halt, Machine, Step};
use super::open_string::{Comma, ECHO_KEY, Echo, Escaping, Str};
use super::text::{
    CONTROL_ESCAPES, ascii, find_quote_escape_control_or_twin, find_single_quote_special, text_at,
};
use crate::lex::{self, Closer, Quote, Token};

impl Machine<'_> {
    /// Open a string at the quote at `i` (of `len` bytes).
    pub(super) fn begin_string(&mut self, quote: Quote, len: usize, role: Role) {
        if role == Role::Key {
            self.hold_key();
        }
        if quote != Quote::Double {
            self.style |= grammar::quoted_key(quote);
            self.fix(FixKind::ReplacedQuotes, self.i);
        }
        // A value right after its key's colon may be the key written again.
        let echo = match (role, quote, self.stack.last()) {
            (Role::Value, Quote::Double, Some(Frame::Object)) => self.member_key(ECHO_KEY),
            _ => None,
        };
        let (out, input, n_fixes) = (self.mark, self.i, self.fix_count());
        self.emit("\"");
        self.i += len;
        let mut string = Str::new(quote, role, Escaping::Plain, self.out_len());
        string.echo = echo.map(|(key, key_len)| Echo {
            key,
            key_len,
            out,
            input,
            n_fixes,
        });
        self.string = Some(string);
        self.state = State::Str;
    }

    /// Whether the open string's body is still a prefix of the key it may
    /// echo; if not, it is no echo.
    pub(super) fn check_echo(&mut self) {
        let Some(mut s) = self.string else {
            return;
        };
        let Some(echo) = s.echo else {
            return;
        };
        let (held, base) = (self.out.held().as_bytes(), self.out.base());
        let body = held.get(s.body_start.saturating_sub(base)..);
        let key = echo
            .key
            .checked_sub(base)
            .and_then(|k| held.get(k..k + echo.key_len));
        let alive = matches!((body, key), (Some(body), Some(key)) if key.starts_with(body));
        if !alive {
            s.echo = None;
            self.string = Some(s);
        }
    }

    /// A quote where a key starts: a stray fragment (`",`, `"",`, see
    /// `grammar::fragment_at`) is dropped, anything else opens the key.
    pub(super) fn key_quote(&mut self, quote: Quote, len: usize) -> Step {
        if quote == Quote::Double {
            match grammar::fragment_at(self.rest(), self.eof) {
                Fragment::Need => return Err(Halt::Need),
                Fragment::Len(n) => {
                    self.style |= Faults::FRAGMENT;
                    self.fix(FixKind::RemovedFragment, self.i);
                    self.i += n;
                    return Ok(());
                }
                Fragment::No => {}
            }
        }
        self.begin_string(quote, len, Role::Key);
        Ok(())
    }

    /// Open a string escaped twice (`\"hello\"`) at the backslash at `i`.
    pub(super) fn begin_escaped_string(&mut self, quote: Quote, len: usize, role: Role) {
        self.fix(FixKind::RemovedEscape, self.i);
        self.i += 1;
        self.begin_string(quote, len - 1, role);
        if let Some(s) = self.string.as_mut() {
            s.escaping = Escaping::Twice;
            s.echo = None;
        }
    }

    /// The quote after a backslash at `i`, with the length of both.
    pub(super) fn escaped_quote(&self) -> Result<Option<(Quote, usize)>, Halt> {
        let rest = self.rest();
        if rest.len() < 4 && !self.eof {
            return Err(Halt::Need);
        }
        // (A template marker is never escaped: `\<|"|>` is a backslash, then
        // the marker.)
        Ok(lex::quote_at(&rest[1..])
            .filter(|(q, _)| *q != Quote::Template)
            .map(|(q, n)| (q, n + 1)))
    }

    /// The whitespace that `\n`, `\r` or `\t` at `i` (a backslash, then the
    /// letter) stands for where a value starts, unless a word goes on after
    /// it (`\nabla`; a literal such as `\nnull` is a value after whitespace).
    pub(super) fn escaped_whitespace(&self) -> Result<Option<&'static str>, Halt> {
        let ws = match self.peek(1)? {
            Some(b'n') => "\n",
            Some(b'r') => "\r",
            Some(b't') => "\t",
            _ => return Ok(None),
        };
        let rest = &self.rest()[2..];
        match rest.first() {
            None if !self.eof => Err(Halt::Need),
            Some(b) if b.is_ascii_alphanumeric() || *b == b'_' => match lex::next(rest) {
                Some((Token::Literal(_) | Token::Number, n)) if n < rest.len() || self.eof => {
                    Ok(Some(ws))
                }
                Some((Token::Literal(_) | Token::Number, _)) => Err(Halt::Need),
                Some((Token::Word, n)) if n == rest.len() && !self.eof => Err(Halt::Need),
                _ => Ok(None),
            },
            _ => Ok(Some(ws)),
        }
    }

    /// Continue the previous string's body after `"a" + "b"` dropped the
    /// end quote of the first and now drops the opening quote of the second.
    pub(super) fn continue_string(&mut self, quote: Quote, len: usize) {
        if quote != Quote::Double {
            self.fix(FixKind::ReplacedQuotes, self.i);
        }
        self.i += len;
        self.string = Some(Str::new(
            quote,
            Role::Value,
            Escaping::Plain,
            self.out_len(),
        ));
        self.state = State::Str;
    }

    /// Run through the string body as far as the input allows.
    pub(super) fn step_string(&mut self) -> Step {
        loop {
            let before = (self.i, self.out.len());
            self.string_step()?;
            if self.state != State::Str || before == (self.i, self.out.len()) {
                return Ok(());
            }
        }
    }

    fn string_step(&mut self) -> Step {
        if self.string.is_some_and(|s| s.echo.is_some()) {
            self.check_echo();
        }
        let Some(mut s) = self.string else {
            self.state = State::After;
            return Ok(());
        };
        if let Some(comma) = s.comma
            && self.i > comma.input + LOOKAHEAD
        {
            // Whitespace this long after a comma is text.
            s.comma = None;
            self.string = Some(s);
        }
        if let Some(tail) = s.tail
            && self.i > tail.input + LOOKAHEAD
        {
            // A tail this long is text.
            s.tail = None;
            self.string = Some(s);
        }
        if let Some(key) = self.key_hold
            && self.i > key.input + WINDOW
        {
            // A key this long is shown, and kept at the end of input.
            self.key_hold = None;
        }
        let rest = self.rest();
        if rest.is_empty() {
            return Err(Halt::Need);
        }
        let n = special_pos(rest, s.open);
        if n > 0 {
            return self.string_run(n);
        }
        let b = rest[0];
        let n_rest = rest.len();
        match b {
            b'\\' if s.escaping == Escaping::Twice => match self.escaped_quote()? {
                Some((quote, len)) if lex::closes(s.open, quote) != Closer::No => {
                    self.string_quote(quote, len, lex::closes(s.open, quote))
                }
                // `\\"` in a string escaped twice is an escaped quote inside it.
                _ if self.rest().starts_with(b"\\\\\"") => {
                    self.emit_body("\\\"");
                    self.i += 3;
                    Ok(())
                }
                _ => self.string_escape(),
            },
            b'\\' => self.string_escape(),
            0..=0x1F => {
                self.fix(FixKind::EscapedControl, self.i);
                let comma = s.comma;
                self.emit_body(CONTROL_ESCAPES[usize::from(b)]);
                if lex::is_ws(b)
                    && let Some(s) = self.string.as_mut()
                {
                    // Whitespace after a trailing comma keeps it trailing.
                    s.comma = comma;
                }
                self.i += 1;
                Ok(())
            }
            _ => {
                if n_rest < lex::utf8_len(b) && !self.eof {
                    return Err(Halt::Need);
                }
                if s.open == Quote::Template && lex::cut_in_template_quote(rest) && !self.eof {
                    // `<|"` so far: the closing marker, or text?
                    return Err(Halt::Need);
                }
                match lex::quote_at(rest) {
                    Some((quote, len)) if lex::closes(s.open, quote) != Closer::No => {
                        self.string_quote(quote, len, lex::closes(s.open, quote))
                    }
                    Some((Quote::Double, _)) => {
                        // A `"` inside a string opened by another quote.
                        self.emit_body("\\\"");
                        self.i += 1;
                        Ok(())
                    }
                    Some((_, len)) => self.string_run(len),
                    None => self.string_run(lex::utf8_len(b).min(n_rest)),
                }
            }
        }
    }

    /// Write body text that is not a plain run (an escape, a replaced
    /// character): it ends any trailing comma, and goes on the body's tail
    /// only if it is a line break or tab (see `open_string::Tail`).
    pub(super) fn emit_body(&mut self, text: &str) {
        // The fixes before this text: not the one made for it just now (a
        // raw line break escaped), which a tail starting here takes back.
        let made_here = self
            .fixes
            .iter()
            .rev()
            .take_while(|f| f.offset >= self.i)
            .count();
        let (from, n_fixes) = (self.out_len(), self.fix_count() - made_here);
        self.emit(text);
        if let Some(s) = self.string.as_mut() {
            s.comma = None;
            s.twice = None;
            s.escape_written(text, from, self.i, n_fixes);
        }
    }

    /// Copy `n` plain body bytes (validating UTF-8).
    pub(super) fn string_run(&mut self, n: usize) -> Step {
        let at = self.i - self.base;
        let run = &self.src[at..at + n];
        let text = match text_at(&self.src, self.whole_text, at, at + n) {
            Ok(text) => text,
            // The part before the first invalid byte is valid by definition.
            Err(error) if error.valid_up_to() > 0 => {
                std::str::from_utf8(&run[..error.valid_up_to()]).unwrap_or("\u{FFFD}")
            }
            Err(error) => {
                let bad = match error.error_len() {
                    Some(k) => k,
                    None if at + n == self.src.len() && !self.eof => return Err(Halt::Need),
                    None if at + n == self.src.len() => {
                        // A character cut off by the end of input.
                        self.fix(FixKind::DroppedPartialChar, self.i);
                        self.i += n;
                        return Ok(());
                    }
                    None => n,
                };
                self.fix(FixKind::ReplacedInvalidUtf8, self.i);
                self.emit_body("\u{FFFD}");
                self.i += bad;
                return Ok(());
            }
        };
        let run = text.as_bytes();
        let valid = run.len();
        let out_start = self.out_len();
        self.out.push_str(text);
        // Body text is data: it is written whole and the mark follows it.
        self.mark = self.out_len();
        self.pending_comma = None;
        self.started = true;
        let n_fixes = self.fix_count();
        if let Some(p) = run.iter().rposition(|&b| !lex::is_ws(b)) {
            let comma = (run[p] == b',').then(|| Comma {
                input: self.i + p,
                out: out_start + p,
                n_fixes,
            });
            if let Some(s) = self.string.as_mut() {
                s.comma = comma;
            }
        }
        if let Some(s) = self.string.as_mut() {
            if s.role == Role::Key
                && s.colon.is_none()
                && let Some(k) = memchr::memchr(b':', run)
            {
                s.colon = Some(Comma {
                    input: self.i + k,
                    out: out_start + k,
                    n_fixes,
                });
            }
            s.twice = None;
            s.text_written(run, out_start, self.i, n_fixes);
            if s.tail.is_some_and(|t| t.closers) {
                s.count_tail(self.out.held(), self.out.base());
            }
        }
        self.i += valid;
        Ok(())
    }

    fn string_escape(&mut self) -> Step {
        let Some(next) = self.peek(1)? else {
            self.fix(FixKind::DroppedEscape, self.i);
            self.i += 1;
            return Ok(());
        };
        match next {
            b'\n' => {
                // A backslash before a raw newline: a newline was meant.
                self.fix(FixKind::EscapedControl, self.i);
                self.emit_body("\\n");
                self.i += 2;
            }
            b'"' if self.string.is_some_and(|s| {
                s.undoubled && s.twice.is_some_and(|at| at + 2 == self.out_len())
            }) =>
            {
                // `\\\"` in a string that holds JSON escaped twice: one quote
                // (its `\\` was written just before, see below).
                if let Some(at) = self.string.and_then(|s| s.twice) {
                    self.truncate_out(at);
                    self.fix(FixKind::UndoubledEscape, self.i - 2);
                }
                self.emit_body("\\\"");
                self.i += 2;
            }
            b'\\' => {
                // `\\"`: if the quote turns out to be text, the two were one
                // quote escaped twice (see `string_quote`); `\\\"` too, in a
                // string that had one. Whether a quote follows is not waited
                // for (a snapshot shows the `\\`): the next text that is no
                // quote drops the mark.
                // Before a run of `\\` (`[\\\\\\"`), as the lane reads it: the
                // body before the whole run.
                let out_len = self.out_len();
                let lead = self.string.is_some_and(|s| {
                    s.lead || (s.twice_lead && s.twice.is_some_and(|at| at + 2 == out_len))
                });
                self.emit_body("\\\\");
                let at = self.out_len() - 2;
                let quote_next = match self.rest().get(2) {
                    Some(&b) => b == b'"' || b == b'\\',
                    None => !self.eof,
                };
                if quote_next && let Some(s) = self.string.as_mut() {
                    s.twice = Some(at);
                    s.twice_lead = lead;
                }
                self.i += 2;
            }
            b'_' | b'*' if self.markdown_escape()? => {
                // `hello\_world`, `\*\*bold\*\*`: Markdown's escapes.
                self.fix(FixKind::RemovedEscape, self.i);
                self.emit_body(if next == b'_' { "_" } else { "*" });
                self.i += 2;
            }
            b'"' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                // The escape as written, from a table: building it from the
                // two bytes went through `from_utf8_lossy`, a tenth of the
                // instructions of a 50 KB `write_file` call full of escapes.
                let pair = match next {
                    b'"' => "\\\"",
                    b'/' => "\\/",
                    b'b' => "\\b",
                    b'f' => "\\f",
                    b'n' => "\\n",
                    b'r' => "\\r",
                    _ => "\\t",
                };
                self.emit_body(pair);
                if let Some(s) = self.string.as_mut() {
                    // An escape the model wrote is text, never part of the
                    // body's tail (only raw whitespace is, as the lane reads it).
                    s.tail = None;
                }
                self.i += 2;
            }
            b'\'' => {
                self.fix(FixKind::RemovedEscape, self.i);
                self.emit_body("'");
                self.i += 2;
            }
            b'u' => return self.string_unicode(),
            _ => {
                self.fix(FixKind::EscapedBackslash, self.i);
                self.emit_body("\\\\");
                if let Some(s) = self.string.as_mut() {
                    s.odd_escape = true;
                }
                self.i += 1;
            }
        }
        Ok(())
    }

    /// Whether the `\_` or `\*` at `i` is a Markdown escape (the text meant
    /// is `_` or `*`), decided at the string's first one for all of them:
    /// it is unless the string holds an escape JSON does not have (`\d`,
    /// `C:\dir`: a regex or a path, whose backslashes are their own), before
    /// it or up to its end quote (within the lookahead window). A lone `\*`
    /// (no pair for emphasis) may be a glob's or a regex's: a doubt.
    fn markdown_escape(&mut self) -> Result<bool, Halt> {
        let Some(s) = self.string else {
            return Ok(false);
        };
        if let Some(markdown) = s.markdown {
            return Ok(markdown);
        }
        if s.odd_escape {
            self.set_markdown(false);
            return Ok(false);
        }
        let rest = self.rest();
        let end = match s.open {
            Quote::Single | Quote::SingleLike => b'\'',
            _ => b'"',
        };
        let mut stars = usize::from(rest.get(1) == Some(&b'*'));
        let mut k = 2;
        let odd = loop {
            if k >= LOOKAHEAD {
                break false;
            }
            match rest.get(k) {
                None if self.eof => break false,
                None => return Err(Halt::Need),
                Some(&b) if b == end => break false,
                Some(b'\\') => match rest.get(k + 1) {
                    None if !self.eof => return Err(Halt::Need),
                    Some(b'*') => {
                        stars += 1;
                        k += 2;
                    }
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' | b'u' | b'\'')
                    | Some(b'_' | b'\n') => k += 2,
                    _ => break true,
                },
                Some(_) => k += 1,
            }
        };
        let markdown = !odd;
        if markdown && stars == 1 {
            self.doubt(DoubtKind::MarkdownEscape, self.i);
        }
        self.set_markdown(markdown);
        Ok(markdown)
    }

    fn set_markdown(&mut self, markdown: bool) {
        if let Some(s) = self.string.as_mut() {
            s.markdown = Some(markdown);
        }
    }

    /// `\uXXXX` at `i`, with a lone surrogate replaced (serde_json and most
    /// parsers refuse one).
    fn string_unicode(&mut self) -> Step {
        let Some(code) = self.hex4(2)? else {
            return Ok(());
        };
        let mut len = 6;
        let replace = match code {
            0xD800..=0xDBFF => {
                let low = if self.peek(6)? == Some(b'\\') && self.peek(7)? == Some(b'u') {
                    self.hex4_quiet(8)?
                } else {
                    None
                };
                match low {
                    Some(0xDC00..=0xDFFF) => {
                        len = 12;
                        false
                    }
                    _ => true,
                }
            }
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if replace {
            self.fix(FixKind::ReplacedSurrogate, self.i);
            self.emit_body("\\ufffd");
        } else {
            // Copied out first (6 or 12 bytes), so the text borrows no
            // part of the machine while it is written: no allocation.
            let at = self.i - self.base;
            let mut escape = [0u8; 12];
            escape[..len].copy_from_slice(&self.src[at..at + len]);
            self.emit_body(&ascii(&escape[..len]));
        }
        self.i += len;
        Ok(())
    }

    /// The four hex digits at `i + k`; handles a truncated or invalid escape
    /// (returning `None` after acting on it).
    fn hex4(&mut self, k: usize) -> Result<Option<u32>, Halt> {
        let mut code = 0u32;
        for j in 0..4 {
            match self.peek(k + j)? {
                Some(h) if h.is_ascii_hexdigit() => code = code * 16 + hex_value(h),
                Some(_) => {
                    self.fix(FixKind::EscapedBackslash, self.i);
                    self.emit_body("\\\\");
                    self.i += 1;
                    return Ok(None);
                }
                None => {
                    // Cut off by the end of input: drop the unfinished escape.
                    self.fix(FixKind::DroppedEscape, self.i);
                    self.i += k + j;
                    return Ok(None);
                }
            }
        }
        Ok(Some(code))
    }

    fn hex4_quiet(&self, k: usize) -> Result<Option<u32>, Halt> {
        let mut code = 0u32;
        for j in 0..4 {
            match self.peek(k + j)? {
                Some(h) if h.is_ascii_hexdigit() => code = code * 16 + hex_value(h),
                _ => return Ok(None),
            }
        }
        Ok(Some(code))
    }
}

fn hex_value(h: u8) -> u32 {
    match h {
        b'0'..=b'9' => u32::from(h - b'0'),
        b'a'..=b'f' => u32::from(h - b'a' + 10),
        _ => u32::from(h.wrapping_sub(b'A').wrapping_add(10) & 0x0F),
    }
}

/// The offset of the first byte of `bytes` that a plain copy cannot take,
/// for a string opened by `open`.
fn special_pos(bytes: &[u8], open: Quote) -> usize {
    // Every scan stops at the first byte that needs attention, control
    // characters included, so a run of them costs one step each, not a scan
    // to the far end of the body each. The lead bytes of the string's twin
    // quotes (`”` for `"`, `’` for `'`) stop it too.
    // The scans stop at every lead byte of a multi-byte character; go on
    // past those that cannot start a twin.
    let past_leads = |find: fn(&[u8]) -> Option<usize>, twins: &[u8]| {
        let mut k = 0;
        loop {
            k += find(&bytes[k..])?;
            if bytes[k] < 0xC0 || twins.contains(&bytes[k]) {
                return Some(k);
            }
            k += 1;
        }
    };
    match open {
        Quote::Double => past_leads(find_quote_escape_control_or_twin, &[0xE2, 0xEF]),
        Quote::Single => past_leads(find_single_quote_special, &[0xC2, 0xE2, 0xEF]),
        Quote::DoubleLike | Quote::SingleLike | Quote::Backtick => bytes.iter().position(|&b| {
            matches!(b, b'"' | b'\'' | b'`' | b'\\' | 0xC2 | 0xE2 | 0xEF) || b < 0x20
        }),
        // Only the marker closes it: every `<` is looked at, and a `"` is
        // text (written escaped).
        Quote::Template => bytes
            .iter()
            .position(|&b| matches!(b, b'<' | b'"' | b'\\') || b < 0x20),
    }
    .unwrap_or(bytes.len())
}
