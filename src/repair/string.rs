//! String bodies: the hot path, and the hardest decisions.
//!
//! A body is copied in runs found with memchr; only quotes, backslashes,
//! control characters and (for lenient quotes) non-ASCII lead bytes stop a
//! run. The hard question is whether a quote ends its string. It is answered
//! as jsonrepair answers it, from what follows the quote (a delimiter, a
//! digit, another quote or the end of input mean "yes") and from what
//! precedes it (after a delimiter, the end quote was missing earlier).
//!
//! "Missing earlier" would rewrite output already written, so the body after
//! the first place where the string could be cut (its first delimiter, or a
//! quote taken to be inside it) stays provisional: a [`Cut`] remembers where
//! to cut and where to resume reading. The cut stays possible for
//! [`WINDOW`] input bytes; past that the body is committed and kept whole.

use super::FixKind;
use super::machine::{Halt, Machine, State, Step, WINDOW, ascii, text_at};
use crate::lex::{self, Quote};

/// Where a string missing its end quote would be cut.
#[derive(Debug, Clone, Copy)]
pub(super) struct Cut {
    /// Input position to resume reading from after the cut.
    pub(super) resume: usize,
    /// Output position where the inserted end quote goes.
    pub(super) body_end: usize,
    /// Output length to truncate to before inserting it.
    pub(super) out_len: usize,
    /// Fixes recorded up to the cut point.
    pub(super) n_fixes: usize,
    /// Whether the cut is at a quote (taken as the end quote) rather than
    /// at a delimiter (before which the end quote is inserted).
    pub(super) at_quote: bool,
}

/// The comma that was the last non-whitespace character of the body.
#[derive(Debug, Clone, Copy)]
pub(super) struct Comma {
    pub(super) input: usize,
    pub(super) out: usize,
    pub(super) mark_before: usize,
    pub(super) n_fixes: usize,
}

/// An open string.
#[derive(Debug, Clone, Copy)]
pub(super) struct Str {
    pub(super) open: Quote,
    pub(super) key: bool,
    /// Opened by `\"` (a string escaped twice, as in `{\"a\": 1}`): `\"` closes it.
    pub(super) escaped: bool,
    /// Output position of the first body byte.
    pub(super) body_start: usize,
    pub(super) cut: Option<Cut>,
    /// The cut window has passed: the string is kept whole.
    pub(super) whole: bool,
    /// The last non-whitespace input byte of the body (the opening quote at first).
    pub(super) prev: u8,
    pub(super) comma: Option<Comma>,
    /// How many of each bracket the body holds, `(`, `)`, `[`, `]`, `{`, `}`,
    /// counted up to output position `counted` (counting resumes there, so
    /// a body is counted once however often the question is asked, and
    /// output forgotten under [`Retain::Unreturned`](super::Retain) keeps its count).
    pub(super) brackets: [u32; 6],
    pub(super) counted: usize,
}

impl Str {
    fn new(open: Quote, key: bool, escaped: bool, body_start: usize) -> Self {
        Str {
            open,
            key,
            escaped,
            body_start,
            cut: None,
            whole: false,
            prev: b'"',
            comma: None,
            brackets: [0; 6],
            counted: body_start,
        }
    }

    pub(super) fn is_key(&self) -> bool {
        self.key
    }

    /// Whether the fast lane may finish this string: opened by `"`, not escaped twice.
    pub(super) fn is_plain(&self) -> bool {
        self.open == Quote::Double && !self.escaped
    }

    /// The output position below which this string's body may be committed.
    pub(super) fn keep_from(&self) -> Option<usize> {
        self.cut.map(|cut| cut.body_end)
    }

    /// The number of fixes below which none can be retracted by a cut.
    pub(super) fn retract_point(&self) -> Option<usize> {
        match (self.cut, self.comma) {
            (Some(cut), Some(comma)) => Some(cut.n_fixes.min(comma.n_fixes)),
            (Some(cut), None) => Some(cut.n_fixes),
            (None, Some(comma)) => Some(comma.n_fixes),
            (None, None) => None,
        }
    }

    /// The input position a cut may return to.
    pub(super) fn rewind_point(&self) -> Option<usize> {
        self.cut.map(|cut| cut.resume)
    }

    /// Count the brackets of body output not counted yet (`out` starts at
    /// output position `out_base`).
    pub(super) fn count_brackets(&mut self, out: &str, out_base: usize) {
        let from = self.counted.max(out_base) - out_base;
        let new = &out.as_bytes()[from..];
        for (count, bracket) in self.brackets.iter_mut().zip(b"()[]{}") {
            *count += memchr::memchr_iter(*bracket, new).count() as u32;
        }
        self.counted = out_base + out.len();
    }

    /// Output before `to` is about to be forgotten: count what the
    /// string-end decision needs first. Returns how much may be forgotten: a
    /// body short enough to be a URL scheme is kept whole.
    pub(super) fn forget(&mut self, out: &str, out_base: usize, to: usize) -> usize {
        let body = self.body_start.saturating_sub(out_base);
        if body >= to {
            return to;
        }
        if out.len() - body <= 8 {
            return body;
        }
        self.count_brackets(out, out_base);
        to
    }

    pub(super) fn tracking(&self) -> bool {
        self.cut.is_none() && !self.whole
    }
}

impl Machine<'_> {
    /// Open a string at the quote at `i` (of `len` bytes).
    pub(super) fn begin_string(&mut self, quote: Quote, len: usize, key: bool) {
        if quote != Quote::Double {
            self.fix(FixKind::ReplacedQuotes, self.i);
        }
        self.emit("\"");
        self.i += len;
        self.string = Some(Str::new(quote, key, false, self.out_len()));
        self.state = State::Str;
    }

    /// Open a string escaped twice (`\"hello\"`) at the backslash at `i`.
    pub(super) fn begin_escaped_string(&mut self, quote: Quote, len: usize, key: bool) {
        self.fix(FixKind::RemovedEscape, self.i);
        self.i += 1;
        self.begin_string(quote, len - 1, key);
        if let Some(s) = self.string.as_mut() {
            s.escaped = true;
        }
    }

    /// The quote after a backslash at `i`, with the length of both.
    pub(super) fn escaped_quote(&self) -> Result<Option<(Quote, usize)>, Halt> {
        let rest = self.rest();
        if rest.len() < 4 && !self.eof {
            return Err(Halt::Need);
        }
        Ok(lex::quote_at(&rest[1..]).map(|(q, n)| (q, n + 1)))
    }

    /// Continue the previous string's body after `"a" + "b"` dropped the
    /// end quote of the first and now drops the opening quote of the second.
    pub(super) fn continue_string(&mut self, quote: Quote, len: usize) {
        if quote != Quote::Double {
            self.fix(FixKind::ReplacedQuotes, self.i);
        }
        self.i += len;
        self.string = Some(Str::new(quote, false, false, self.out_len()));
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
        let Some(mut s) = self.string else {
            self.state = State::After;
            return Ok(());
        };
        if let Some(cut) = s.cut
            && self.i > cut.resume + WINDOW
        {
            s.cut = None;
            s.comma = None;
            s.whole = true;
            self.string = Some(s);
        }
        let rest = self.rest();
        if rest.is_empty() {
            return Err(Halt::Need);
        }
        let n = special_pos(rest, s.open, s.tracking());
        if n > 0 {
            return self.string_run(n);
        }
        let b = rest[0];
        let n_rest = rest.len();
        let quote = lex::quote_at(rest);
        if s.tracking() && lex::is_bare_delimiter(b) {
            if b == b'/' && self.url_scheme_before(&s)? {
                // `"https://…`: the `//` does not end a string missing its end quote.
                return self.string_url(&s);
            }
            self.set_cut(false, 0);
            if b != b'\n' {
                return self.string_run(1);
            }
        }
        match b {
            b'\\' if s.escaped => match self.escaped_quote()? {
                Some((quote, len)) if lex::closes(s.open, quote) => self.string_quote(quote, len),
                // `\\"` in a string escaped twice is an escaped quote inside it.
                _ if self.rest().starts_with(b"\\\\\"") => {
                    self.emit("\\\"");
                    self.note_prev(b'"');
                    self.i += 3;
                    Ok(())
                }
                _ => self.string_escape(),
            },
            b'\\' => self.string_escape(),
            0..=0x1F => {
                let escaped = match b {
                    b'\n' => "\\n",
                    b'\r' => "\\r",
                    b'\t' => "\\t",
                    0x08 => "\\b",
                    0x0C => "\\f",
                    _ => "",
                };
                self.fix(FixKind::EscapedControl, self.i);
                if escaped.is_empty() {
                    let hex = format!("\\u{b:04x}");
                    self.emit(&hex);
                } else {
                    self.emit(escaped);
                }
                if !lex::is_ws(b) {
                    self.note_prev(b);
                }
                self.i += 1;
                Ok(())
            }
            _ => {
                if n_rest < lex::utf8_len(b) && !self.eof {
                    return Err(Halt::Need);
                }
                match quote {
                    Some((quote, len)) if lex::closes(s.open, quote) => {
                        self.string_quote(quote, len)
                    }
                    Some((Quote::Double, _)) => {
                        // A `"` inside a string opened by another quote.
                        self.emit("\\\"");
                        self.note_prev(b'"');
                        self.i += 1;
                        Ok(())
                    }
                    Some((_, len)) => self.string_run(len),
                    None => self.string_run(lex::utf8_len(b).min(n_rest)),
                }
            }
        }
    }

    pub(super) fn note_prev(&mut self, b: u8) {
        if let Some(s) = self.string.as_mut() {
            s.prev = b;
            s.comma = None;
        }
    }

    pub(super) fn set_cut(&mut self, at_quote: bool, resume_skip: usize) {
        let out_len = self.out_len();
        let cut = Cut {
            resume: self.i + resume_skip,
            body_end: if at_quote { out_len } else { self.mark },
            out_len,
            n_fixes: self.fix_count(),
            at_quote,
        };
        if let Some(s) = self.string.as_mut() {
            s.cut = Some(cut);
        }
    }

    /// Copy `n` plain body bytes (validating UTF-8).
    pub(super) fn string_run(&mut self, n: usize) -> Step {
        let at = self.i - self.base;
        let run = &self.src[at..at + n];
        let text = match text_at(&self.src, self.whole_text, at, at + n) {
            Ok(text) => text,
            Err(error) if error.valid_up_to() > 0 => {
                crate::utf8::from_utf8(&run[..error.valid_up_to()]).unwrap_or_default()
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
                self.emit("\u{FFFD}");
                self.note_prev(b'?');
                self.i += bad;
                return Ok(());
            }
        };
        let run = text.as_bytes();
        let valid = run.len();
        let out_start = self.out_len();
        self.out.push_str(text);
        if let Some(p) = run.iter().rposition(|&b| !lex::is_ws(b)) {
            let last = run[p];
            let comma = (last == b',').then(|| Comma {
                input: self.i + p,
                out: out_start + p,
                mark_before: run[..p]
                    .iter()
                    .rposition(|&b| !lex::is_ws(b))
                    .map_or(self.mark, |q| out_start + q + 1),
                n_fixes: self.fix_count(),
            });
            self.mark = out_start + p + 1;
            if let Some(s) = self.string.as_mut() {
                s.prev = last;
                s.comma = comma;
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
                self.emit("\\n");
                self.note_prev(b'n');
                self.i += 2;
            }
            b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {
                let pair = [b'\\', next];
                self.emit(ascii(&pair));
                self.note_prev(next);
                self.i += 2;
            }
            b'\'' => {
                self.fix(FixKind::RemovedEscape, self.i);
                self.emit("'");
                self.note_prev(next);
                self.i += 2;
            }
            b'u' => return self.string_unicode(),
            _ => {
                self.fix(FixKind::EscapedBackslash, self.i);
                self.emit("\\\\");
                self.note_prev(b'\\');
                self.i += 1;
            }
        }
        Ok(())
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
            self.emit("\\ufffd");
        } else {
            let at = self.i - self.base;
            let text = ascii(&self.src[at..at + len]).to_owned();
            self.emit(&text);
        }
        self.note_prev(b'u');
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
                    self.emit("\\\\");
                    self.note_prev(b'\\');
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
/// for a string opened by `open`; with `tracking`, delimiters stop it too.
fn special_pos(bytes: &[u8], open: Quote, tracking: bool) -> usize {
    // Every scan stops at the first byte that needs attention, control
    // characters included, so a run of them costs one step each, not a scan
    // to the far end of the body each.
    let limit = match open {
        Quote::Double => find_quote_escape_or_control(bytes),
        Quote::Single => find_special(bytes, [b'\'', b'"', b'\\']),
        Quote::DoubleLike | Quote::SingleLike => bytes.iter().position(|&b| {
            matches!(b, b'"' | b'\'' | b'`' | b'\\' | 0xC2 | 0xE2 | 0xEF) || b < 0x20
        }),
    }
    .unwrap_or(bytes.len());
    if tracking {
        bytes[..limit]
            .iter()
            .position(|&b| BARE_DELIMITER[usize::from(b)])
            .unwrap_or(limit)
    } else {
        limit
    }
}

/// The offset of the first `"`, `\\` or control character (below U+0020):
/// where a plain copy of a `"`-string body must stop.
#[inline(always)]
pub(super) fn find_quote_escape_or_control(bytes: &[u8]) -> Option<usize> {
    // Two stops; the third repeats the first (the compiler folds it away).
    find_special(bytes, [b'"', b'\\', b'"'])
}

/// The offset of the first of the three bytes `stops`, or of a control
/// character (below U+0020). Eight bytes at a time in a `u64`, as serde_json
/// does, so short bodies cost no setup.
#[inline(always)]
fn find_special(bytes: &[u8], stops: [u8; 3]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let v = u64::from_le_bytes(word);
        let a = v ^ (ONES * u64::from(stops[0]));
        let b = v ^ (ONES * u64::from(stops[1]));
        let c = v ^ (ONES * u64::from(stops[2]));
        // A byte is zero (matched), or below 0x20, when subtracting sets its
        // high bit where the byte's own high bit was clear. Only the lowest
        // flagged byte is exact, which is the one needed.
        let found = (a.wrapping_sub(ONES) & !a)
            | (b.wrapping_sub(ONES) & !b)
            | (c.wrapping_sub(ONES) & !c)
            | (v.wrapping_sub(ONES * 0x20) & !v);
        let found = found & HIGH;
        if found != 0 {
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| stops.contains(&b) || b < 0x20)
        .map(|k| offset + k)
}

/// [`lex::is_bare_delimiter`] as a table, for the scan of string bodies.
static BARE_DELIMITER: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = lex::is_bare_delimiter(b as u8);
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::find_quote_escape_or_control;

    #[test]
    fn swar_scan_matches_the_naive_one() {
        let naive = |b: &[u8]| b.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20);
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..80 {
            for _ in 0..200 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Mostly plain text, sometimes a byte that stops the scan.
                        match seed % 40 {
                            0 => b'"',
                            1 => b'\\',
                            2 => (seed >> 8) as u8 % 0x20,
                            3 => 0x80 | (seed >> 8) as u8,
                            _ => b'a' + (seed >> 8) as u8 % 26,
                        }
                    })
                    .collect();
                assert_eq!(
                    find_quote_escape_or_control(&bytes),
                    naive(&bytes),
                    "{bytes:?}"
                );
            }
        }
    }
}
