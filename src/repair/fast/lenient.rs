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

use super::edit::{LaneEdit, With};
use super::follow::{body_last, string_ends, trailing_comma};
use super::view::Lane;
use crate::lex::{self, Quote, Token};
use crate::repair::fix::FixKind;
use crate::repair::frame::{Frame, LOOKAHEAD};
use crate::repair::grammar;
use crate::repair::judge;
use crate::repair::strict::{escape_len, scan_value_prefix, token_ends};
use crate::repair::text::{CONTROL_ESCAPES, find_single_quote_special};

impl Lane<'_> {
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
            let (with, close) = single_quoted(src, q)?;
            let colon = string_ends(src, close + 1, true, top)?;
            let edit = LaneEdit::at(q, close + 1, with, FixKind::ReplacedQuotes);
            return Some((edit, colon));
        }
        if !(b.is_ascii_alphabetic() || b == b'_' || b == b'$') {
            return None;
        }
        // An identifier, then `:` on the same line.
        let n = judge::bare_key_end(src, q).unwrap_or(src.len());
        let colon = n + src[n..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count();
        if src.get(colon) != Some(&b':') {
            return None;
        }
        // In a document whose keys have been quoted so far, a bare word
        // could begin a line of prose: the machine weighs it, unless what
        // follows the colon is surely a value (the machine's own rule,
        // `grammar::prose_line_end`).
        if !self.bare_keys && grammar::surely_member(&src[q..]) != Some(true) {
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
            let (with, close) = single_quoted(src, q)?;
            let body = q + 1;
            // Judged on all that has arrived, as the machine judges it.
            let after = &self.src[close + 1..];
            let window = &after[..after.len().min(LOOKAHEAD)];
            let eof = self.eof || after.len() >= LOOKAHEAD;
            let comma = || trailing_comma(self.src, body, close, None, self.base);
            let last = || body_last(&src[body..close]);
            if judge::clean_value_ends(self.stack, Quote::Single, comma, last, window, eof)
                != Some(true)
            {
                return None;
            }
            return Some(LaneEdit::at(q, close + 1, with, FixKind::ReplacedQuotes));
        }
        if !b.is_ascii_alphabetic() {
            return None;
        }
        // Python's spellings, the commonest, without the lexer: each lexes
        // as the literal beside it (`lex::COMMON_LITERALS`, a test checks),
        // and with a delimiter after it the lexer's token is that word, so
        // the answer is the one below. The lexer's set-up per word cost
        // ~250 instructions a literal (callgrind, `api_1m` malformed).
        for (spelling, literal) in &lex::COMMON_LITERALS[3..] {
            if src[q..].starts_with(spelling) && token_ends(src, q + spelling.len()) {
                let (json, _) = literal.json();
                return Some(LaneEdit::at(
                    q,
                    q + spelling.len(),
                    With::Text(json),
                    FixKind::ReplacedLiteral,
                ));
            }
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
}

/// `'text'` at `q` with no control character, and a
/// backslash only as a valid JSON escape (which the machine copies as it
/// is; `\'` is not one): what it becomes, and the index of its closing
/// quote.
fn single_quoted(src: &[u8], q: usize) -> Option<(With, usize)> {
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

/// A whole `// line` or `/* block */` comment at `q`, dropped with a fix,
/// exactly as the machine drops it in every state the lane runs in (the
/// whitespace before it stays, the state and a pending comma are
/// untouched). `None` when there is none, or it has not ended yet (the
/// machine waits for the rest, or reads to the end).
pub(in crate::repair) fn comment_at(src: &[u8], q: usize) -> Option<LaneEdit> {
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
pub(in crate::repair) fn ends_line(src: &[u8], end: usize, eof: bool) -> Option<bool> {
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
