//! The lenient tokens of the fast lane: the commonest repairs taken without
//! the general machine.
//!
//! A single-quoted string with nothing to escape, a bare identifier key, a
//! Python or JavaScript literal and a comment are what models get wrong
//! most. The lane's scan (`fast/`) takes each of them in its stride, as an
//! edit of the run it copies ([`LaneEdit`]), when, and only when, the
//! general machine would give exactly the same output and fixes; anything
//! else stops the scan and is left to the machine. Taking them inside the
//! scan, not as steps between two scans, matters: in a model's broken JSON
//! one token in four or five is one of these, and leaving the scan for each
//! cost more than the scanning. The chunk-invariance tests (one-shot runs
//! take these edits, one-byte feeds mostly do not) check the equivalence.

use super::FixKind;
use super::fast::{string_ends, trailing_comma};
use super::grammar::Faults;
use super::judge;
use super::machine::{Frame, LOOKAHEAD, Machine, State, write_unwritten};
use super::out::Out;
use super::strict::{escape_len, scan_value_prefix, token_ends};
use super::string::{CONTROL_ESCAPES, find_quote_escape_or_control, find_single_quote_special};
use crate::lex::{self, Quote, Token};

/// A lenient token taken inside a run: the input `src[from..to]` is written
/// as `with`, and `fix` is recorded at `fix_at` (the token's start; for an
/// inserted comma, the start of the token it goes before; for a comment
/// that takes the spaces before it along, the comment's start).
#[derive(Debug, Clone, Copy)]
pub(super) struct LaneEdit {
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) with: With,
    pub(super) fix: FixKind,
    pub(super) fix_at: usize,
}

impl LaneEdit {
    /// `src[from..to]` written as `with`, the fix at `from`.
    pub(super) fn at(from: usize, to: usize, with: With, fix: FixKind) -> Self {
        LaneEdit {
            from,
            to,
            with,
            fix,
            fix_at: from,
        }
    }

    /// How many bytes it writes.
    pub(super) fn out_len(&self) -> usize {
        match self.with {
            With::Quoted(start, end) => end - start + 2,
            With::Escaped(start, end, quotes) => end - start + 2 + quotes,
            With::Text(text) => text.len(),
            With::Nothing => 0,
        }
    }

    /// The lenient form it shows the document uses (see `Machine::style`).
    pub(super) fn style(&self) -> Faults {
        match self.fix {
            FixKind::QuotedKey => Faults::KEY_BARE,
            FixKind::ReplacedQuotes => Faults::KEY_SINGLE,
            FixKind::RemovedComment => Faults::COMMENT,
            FixKind::InsertedComma => Faults::NO_SEPARATOR,
            _ => Faults::NONE,
        }
    }

    /// How much longer the output is than the input it replaces.
    pub(super) fn growth(&self) -> isize {
        self.out_len() as isize - (self.to - self.from) as isize
    }
}

/// What a lenient token becomes.
#[derive(Debug, Clone, Copy)]
pub(super) enum With {
    /// `"` + `src[start..end]` + `"`: a bare key, or a single-quoted
    /// string's body.
    Quoted(usize, usize),
    /// The same with each of the body's `quotes` double quotes escaped
    /// (`'say "hi"'`: the machine escapes them without a fix of their own).
    Escaped(usize, usize, usize),
    /// A literal's JSON spelling.
    Text(&'static str),
    /// Nothing: a comment.
    Nothing,
}

impl Machine<'_> {
    /// A bare identifier or single-quoted key at `q` inside `top`, followed
    /// by its colon: the edit, and the index of the colon.
    pub(super) fn lenient_key(
        &self,
        src: &[u8],
        q: usize,
        top: Option<Frame>,
    ) -> Option<(LaneEdit, usize)> {
        let b = *src.get(q)?;
        if b == b'\'' {
            let (with, close) = self.single_quoted(src, q)?;
            let colon = string_ends(src, close + 1, true, top)?;
            let edit = LaneEdit::at(q, close + 1, with, FixKind::ReplacedQuotes);
            return Some((edit, colon));
        }
        if !(b.is_ascii_alphabetic() || b == b'_' || b == b'$') {
            return None;
        }
        // An identifier, then `:` on the same line.
        let n = src[q..]
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'-')))
            .map_or(src.len(), |k| q + k);
        let colon = n + src[n..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count();
        if src.get(colon) != Some(&b':') {
            return None;
        }
        let edit = LaneEdit::at(q, n, With::Quoted(q, n), FixKind::QuotedKey);
        Some((edit, colon))
    }

    /// A single-quoted string or a lenient literal (`True`, `None`, …)
    /// value at `q`, complete and ended as the machine would end it.
    pub(super) fn lenient_value(&self, src: &[u8], q: usize) -> Option<LaneEdit> {
        let b = *src.get(q)?;
        if b == b'\'' {
            let (with, close) = self.single_quoted(src, q)?;
            let body = q + 1;
            // Judged on all that has arrived, as the machine judges it.
            let after = &self.src[close + 1..];
            let window = &after[..after.len().min(LOOKAHEAD)];
            let eof = self.eof || after.len() >= LOOKAHEAD;
            let comma = || trailing_comma(&self.src, body, close, None, self.base);
            if judge::clean_value_ends(&self.stack, Quote::Single, comma, window, eof) != Some(true)
            {
                return None;
            }
            return Some(LaneEdit::at(q, close + 1, with, FixKind::ReplacedQuotes));
        }
        if !b.is_ascii_alphabetic() {
            return None;
        }
        // The lexer's spellings (`lex::Literal`), so the lane and the
        // machine cannot disagree on what is a literal.
        let Some((Token::Literal(literal), len)) = lex::next(&src[q..]) else {
            return None;
        };
        let (json, true) = literal.json() else {
            return None;
        };
        // A whole word: a delimiter or whitespace after it.
        if !token_ends(src, q + len) {
            return None;
        }
        Some(LaneEdit::at(
            q,
            q + len,
            With::Text(json),
            FixKind::ReplacedLiteral,
        ))
    }

    /// `'text'` at `q` with no control character, and a
    /// backslash only as a valid JSON escape (which the machine copies as it
    /// is; `\'` is not one): what it becomes, and the index of its closing
    /// quote.
    fn single_quoted(&self, src: &[u8], q: usize) -> Option<(With, usize)> {
        let body = q + 1;
        // One pass to the closing quote: the `"` to escape on the way out,
        // valid escapes stepped over, anything else left to the machine (a
        // memchr for the quote and then a second scan of the body cost
        // more on short strings: callgrind on `api_1m`, 190 → 111
        // instructions a string).
        let mut k = body;
        let mut quotes = 0;
        let close = loop {
            k += find_single_quote_special(src.get(k..)?)?;
            match src[k] {
                b'\'' => break k,
                b'"' => {
                    quotes += 1;
                    k += 1;
                }
                // `it\'s`: the quote is escaped, which is the machine's
                // (`removed_escape`).
                b'\\' if src.get(k + 1) == Some(&b'\'') => return None,
                b'\\' => k += escape_len(src, k)?,
                // A typographic single quote, the twin of `'`, may end the
                // string: the quote judge's question, left to the machine.
                // A backtick, the other twin.
                b'`' => return None,
                lead @ (0xC2 | 0xE2 | 0xEF) => {
                    let need = if lead == 0xC2 { 2 } else { 3 };
                    let twin = src.len() < k + need
                        || lex::quote_at(&src[k..]).is_some_and(|(q, _)| q == Quote::SingleLike);
                    if twin {
                        return None;
                    }
                    k += 1;
                }
                // The lead byte of another character: text.
                0xC0..=0xFF => k += 1,
                _ => return None,
            }
        };
        // Its UTF-8 is not checked here: like a double-quoted body, it is
        // checked with the whole run in `apply`, and a run holding invalid
        // UTF-8 is scanned again, stopping before it (so this quote is then
        // not found). A check here cost 3% of a stream in 64 KiB reads.
        let with = match quotes {
            0 => With::Quoted(body, close),
            _ => With::Escaped(body, close, quotes),
        };
        Some((with, close))
    }

    /// The lane's one step outside its scan: a comment where a scan would
    /// start (after whitespace). Inside a scan a comment is an edit like the
    /// others; at its start, taking it here keeps the held quote, the held
    /// bracket and the mark where the machine keeps them (it drops a comment
    /// without touching them). `false` if there is none to take.
    pub(super) fn lenient_step(&mut self) -> bool {
        if !matches!(self.stack.last(), Some(Frame::Object | Frame::Array))
            || self.comment.is_some()
            || !matches!(
                self.state,
                State::Key | State::Value | State::After | State::Colon
            )
        {
            return false;
        }
        let at = self.i - self.base;
        let src = &self.src[..];
        let q = at + src[at..].iter().take_while(|b| lex::is_ws(**b)).count();
        let Some(edit) = comment_at(src, q) else {
            return false;
        };
        // Right after spaces (these, or the machine's before them), a
        // comment that ends its line takes them along, as the machine
        // drops it (`step_comment`).
        let after_spaces = match q.checked_sub(1) {
            Some(k) if k >= at => matches!(src[k], b' ' | b'\t'),
            _ => self.spaces_to == Some(self.i),
        };
        let ends_line = match ends_line(src, edit.to, self.eof) {
            Some(ends_line) => after_spaces && ends_line,
            None if after_spaces => return false,
            None => false,
        };
        write_unwritten(src, self.whole_text, &mut self.out, &mut self.unwritten);
        self.out.push_ascii(&src[at..q]);
        if ends_line {
            self.trim_line_spaces();
        }
        self.fix(FixKind::RemovedComment, self.base + q);
        self.style |= Faults::COMMENT;
        self.i = self.base + edit.to;
        true
    }
}

/// A whole `// line` or `/* block */` comment at `q`, dropped with a fix,
/// exactly as the machine drops it in every state the lane runs in (the
/// whitespace before it stays, the state and a pending comma are
/// untouched). `None` when there is none, or it has not ended yet (the
/// machine waits for the rest, or reads to the end).
pub(super) fn comment_at(src: &[u8], q: usize) -> Option<LaneEdit> {
    if src.get(q) != Some(&b'/') {
        return None;
    }
    let body = q + 2;
    let end = match src.get(q + 1) {
        Some(b'/') => memchr::memchr(b'\n', src.get(body..)?).map(|k| body + k),
        // Comments are short: a `*` search beats building a substring finder.
        Some(b'*') => {
            let mut k = body;
            loop {
                k += memchr::memchr(b'*', src.get(k..)?)?;
                if src.get(k + 1) == Some(&b'/') {
                    break Some(k + 2);
                }
                k += 1;
            }
        }
        _ => None,
    }?;
    Some(LaneEdit::at(q, end, With::Nothing, FixKind::RemovedComment))
}

/// Whether a line break follows a comment that ends at `end` (a `//`
/// comment ends at its line break); `None` while that byte has not arrived.
pub(super) fn ends_line(src: &[u8], end: usize, eof: bool) -> Option<bool> {
    match src.get(end) {
        Some(b) => Some(matches!(b, b'\n' | b'\r')),
        None if eof => Some(false),
        None => None,
    }
}

/// A `"`-string value's body from `k`, as `scan_body_prefix` reads it
/// (where it stops, and the index past its closing quote when that is
/// there), except that a raw control character (a line break or tab in code
/// a model did not escape) does not stop it: each becomes an edit writing
/// its escape as the machine writes it, with the machine's `EscapedControl`
/// fix.
pub(super) fn value_body(
    src: &[u8],
    mut k: usize,
    edits: &mut Vec<LaneEdit>,
    growth: &mut isize,
) -> (usize, Option<usize>) {
    loop {
        let (end, quote) = scan_value_prefix(src, k);
        let Some(&c) = src.get(end).filter(|&&c| quote.is_none() && c < 0x20) else {
            return (end, quote);
        };
        let edit = LaneEdit::at(
            end,
            end + 1,
            With::Text(CONTROL_ESCAPES[usize::from(c)]),
            FixKind::EscapedControl,
        );
        *growth += edit.growth();
        edits.push(edit);
        k = end + 1;
    }
}

/// Write a single-quoted string's body (checked by `single_quoted`) as the
/// body of a double-quoted one: each `"` escaped, escapes as they are.
pub(super) fn push_escaped_quotes(out: &mut Out, body: &str) {
    let bytes = body.as_bytes();
    let mut from = 0;
    let mut k = 0;
    while let Some(n) = find_quote_escape_or_control(&bytes[k..]) {
        k += n;
        if bytes[k] == b'"' {
            out.push_str(&body[from..k]);
            out.push_str("\\\"");
            k += 1;
            from = k;
        } else {
            // A valid escape (checked): step over it whole.
            k += escape_len(bytes, k).unwrap_or(1);
        }
    }
    out.push_str(&body[from..]);
}
