//! Scalars outside quotes: literals, numbers, bare words, regex literals.

use std::borrow::Cow;

use super::doubt::DoubtKind;
use super::fix::FixKind;
use super::frame::{Frame, LOOKAHEAD, State, WINDOW};
use super::grammar::Faults;
use super::judge::{self, Role};
use super::machine::{Halt, Machine, Step};
use super::text::escape_into;
use crate::lex::{self, Literal, Quote};

/// What follows a bare word that stopped at a quote (see `Machine::glued`).
enum Glued {
    /// No quote glued to the word.
    No,
    /// The quote is a stray end quote (its opening quote missing);
    /// `doubtful` when a glued string could have been read as well.
    Stray { doubtful: bool },
    /// A glued string: the word goes on from this index.
    Until(usize),
}

impl Machine<'_> {
    pub(super) fn literal(&mut self, literal: Literal, len: usize) -> Step {
        let (text, lenient) = literal.json();
        if lenient {
            self.fix(FixKind::ReplacedLiteral, self.i);
        }
        self.emit(text);
        self.i += len;
        self.value_done();
        Ok(())
    }

    /// A number token (or a lone `-`) of `len` bytes at `i`.
    pub(super) fn number(&mut self, len: usize) -> Step {
        let next = self.peek(len)?;
        if next == Some(0xEF) {
            // Perhaps full-width punctuation (`１，`): its three bytes decide.
            self.peek(len + 2)?;
        }
        let at = self.i - self.base;
        let digits = self.src[at..at + len].iter().any(u8::is_ascii_digit);
        let at_end = next.is_none_or(|c| {
            lex::is_ws(c)
                || c == b';'
                // `./a/b`: a path, not a number without digits.
                || (lex::is_delimiter(c) && (digits || matches!(c, b',' | b'}' | b']' | b')')))
        }) || lex::wide_structure_at(&self.src[at + len..], true);
        if !at_end && digits && next == Some(b'"') && self.member_glued(len)? {
            // `"count": 13"unit": "C"`: the next member glued to the number.
            return self.json_or_lenient_number(len, next);
        }
        if !at_end && digits && next == Some(b'\\') && self.escaped_ws_at(len + 1)? {
            // `"a": 13\n}`: a line break written as its escape right after
            // the number (JSON escaped once too often) ends it; the machine
            // reads the `\n` as whitespace next (`Machine::escaped_whitespace`).
            return self.json_or_lenient_number(len, next);
        }
        if !at_end {
            // `123abc`, `1.2.3`, `-x`: not a number after all.
            return self.bare_string(Role::Value);
        }
        self.json_or_lenient_number(len, next)
    }

    /// The number token of `len` bytes at `i`, followed by `next`, as JSON.
    fn json_or_lenient_number(&mut self, len: usize, next: Option<u8>) -> Step {
        let at = self.i - self.base;
        let mut text = &self.src[at..at + len];
        if is_json_number(text) {
            self.out.push_ascii(text);
            self.wrote();
            self.i += len;
            self.value_done();
            return Ok(());
        }
        let mut cut = false;
        if next.is_none() {
            // Cut off by the end of input: keep the digits, invent none. (A
            // number kept as a string, `00.`, keeps its text whole.)
            let kept = trim_cut(text);
            if kept.is_empty() {
                return self.drop_cut_number(len);
            }
            if !normalize_number(kept).0.starts_with(b"\"") {
                cut = kept.len() < text.len();
                text = kept;
            }
        }
        let (normal, changed) = normalize_number(text);
        let normal = ascii_owned(normal);
        if changed || cut {
            let kind = if normal.starts_with('"') {
                FixKind::QuotedNumber
            } else if cut && !changed {
                FixKind::CompletedNumber
            } else {
                FixKind::NormalizedNumber
            };
            self.fix(kind, self.i);
        }
        self.emit(&normal);
        self.i += len;
        self.value_done();
        Ok(())
    }

    /// Whether the bytes from `i + k` are `n`, `r` or `t` and then no word
    /// (`\n}`, `\n  "b"`, `\n` at the end): the escape of a line break or
    /// tab between tokens, not text (`13\nabc` is one bare word).
    fn escaped_ws_at(&self, k: usize) -> Result<bool, Halt> {
        if !matches!(self.peek(k)?, Some(b'n' | b'r' | b't')) {
            return Ok(false);
        }
        Ok(self
            .peek(k + 1)?
            .is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_')))
    }

    /// Whether the quote right after the `len` bytes at `i` opens the next
    /// member of the object (`13"unit": "C"`): its key, colon and a plain
    /// value follow, as the quote judge reads the text after a string.
    fn member_glued(&self, len: usize) -> Result<bool, Halt> {
        if self.stack.last() != Some(&Frame::Object) {
            return Ok(false);
        }
        let after = &self.rest()[len..];
        let window = &after[..after.len().min(LOOKAHEAD)];
        let eof = self.eof || after.len() >= LOOKAHEAD;
        let last = || Some(b'0');
        match judge::clean_value_ends(&self.stack, Quote::Double, || false, last, window, eof) {
            Some(ends) => Ok(ends),
            None if eof => Ok(false),
            None => Err(Halt::Need),
        }
    }

    /// A number with no digit at all (`-`) cut off by the end of input: a
    /// member's value becomes `null`, an element is dropped.
    fn drop_cut_number(&mut self, len: usize) -> Step {
        match self.stack.last() {
            Some(Frame::Object | Frame::Call) => {
                self.fix(FixKind::CompletedValue, self.i);
                self.emit("null");
                self.i += len;
                self.value_done();
            }
            _ => {
                self.fix(FixKind::CompletedNumber, self.i);
                self.i += len;
            }
        }
        Ok(())
    }

    /// A word cut off by the end of input that a literal starts with
    /// (`tr`, `nu`, `Fals`): the literal.
    pub(super) fn cut_literal(&mut self, len: usize) -> Option<Step> {
        if !self.eof || len != self.rest().len() {
            return None;
        }
        let literal = literal_prefix(self.rest())?;
        self.fix(FixKind::CompletedLiteral, self.i);
        self.emit(literal);
        self.i += len;
        self.value_done();
        Some(Ok(()))
    }

    /// A word in value position: a function-call wrapper or a bare string.
    pub(super) fn word_value(&mut self, len: usize) -> Step {
        if let Some(step) = self.cut_literal(len) {
            return step;
        }
        if !self.call_follows(len)? {
            return self.bare_string(Role::Value);
        }
        let rest = self.rest();
        let open = rest.iter().position(|&b| b == b'(').unwrap_or(len);
        self.begin_call(open + 1)
    }

    /// A bare string (`hello world`, `my-key`, `src/main.go`) at `i`, quoted.
    pub(super) fn bare_string(&mut self, role: Role) -> Step {
        let key = role == Role::Key;
        let from = if self.scan_hint.0 == self.i {
            self.scan_hint.1
        } else {
            0
        };
        let rest = &self.src[self.i - self.base..];
        let mut k = match scan_bare(rest, from, role, self.eof) {
            Ok(k) => k,
            Err(k) => {
                self.scan_hint = (self.i, k);
                return Err(Halt::Need);
            }
        };
        // Where a stray end quote was read though a glued string could be.
        let mut stray_doubt = None;
        if !key {
            // `h"that"`: a word glued to a quoted string is one string.
            loop {
                match self.glued(k) {
                    Ok(Glued::Until(resume)) => {
                        match scan_bare(self.rest(), resume, role, self.eof) {
                            Ok(next) => k = next,
                            Err(_) => {
                                self.scan_hint = (self.i, k);
                                return Err(Halt::Need);
                            }
                        }
                    }
                    Ok(Glued::Stray { doubtful }) => {
                        stray_doubt = doubtful.then_some(self.i + k);
                        break;
                    }
                    Ok(Glued::No) => break,
                    Err(halt) => {
                        self.scan_hint = (self.i, k);
                        return Err(halt);
                    }
                }
            }
        }
        self.scan_hint = (usize::MAX, 0);
        let rest = self.rest();
        let mut end = k;
        while end > 0 && lex::is_ws(rest[end - 1]) {
            end -= 1;
        }
        if end == 0 {
            // Nothing a string could be made of: drop the character.
            let n = rest
                .first()
                .map_or(1, |&b| lex::utf8_len(b))
                .min(rest.len())
                .max(1);
            self.fix(FixKind::RemovedCharacter, self.i);
            self.i += n;
            return Ok(());
        }
        // The end quote (or template marker) of a string whose opening
        // quote is missing: dropped.
        let stray_quote = match rest.get(k) {
            _ if end != k => 0,
            Some(b'"') => 1,
            Some(b'<') => lex::quote_at(&rest[k..]).map_or(0, |(_, n)| n),
            _ => 0,
        };
        let number = matches!(rest[0], b'0'..=b'9' | b'-' | b'+' | b'.');
        let kind = if key {
            self.hold_key();
            self.style |= if number {
                Faults::KEY_NUMBER
            } else {
                Faults::KEY_BARE
            };
            FixKind::QuotedKey
        } else {
            FixKind::QuotedWord
        };
        self.fix(kind, self.i);
        if let Some(at) = stray_doubt {
            self.doubt(DoubtKind::QuoteAsEnd, at);
        }
        let at = self.i - self.base;
        self.out.push('"');
        let invalid = self.out.push_escaped(&self.src[at..at + end]);
        self.out.push('"');
        self.wrote();
        if invalid {
            self.fix(FixKind::ReplacedInvalidUtf8, self.i);
        }
        self.i += end;
        // `hello"`: the start quote was missing; the end quote is dropped.
        self.i += stray_quote;
        if key {
            self.state = State::Colon;
        } else {
            self.value_done();
        }
        Ok(())
    }

    /// Whether the bare word from `i` that stopped at the quote `k` bytes
    /// on is glued to a quoted string (`h"that"`, `f"{x}"`): the quote
    /// follows the word directly and cannot end a string there (a stray
    /// end quote, `hello", "b": 1`, can). Then the word goes on past the
    /// string's closing quote on the same line.
    fn glued(&self, k: usize) -> Result<Glued, Halt> {
        let rest = self.rest();
        if k == 0 || lex::is_ws(rest[k - 1]) || k >= WINDOW {
            return Ok(Glued::No);
        }
        if lex::cut_in_template_quote(&rest[k..]) && !self.eof {
            return Err(Halt::Need);
        }
        let Some((quote, len)) = lex::quote_at(&rest[k..]) else {
            return Ok(Glued::No);
        };
        // The glued reading: the string's closing quote on the same line.
        // Not for a template marker: a word before one is a string that
        // lost its opening marker (`weather<|"|>,`), never a prefix glued
        // to the next string (whose opening marker a later one would be).
        let mut j = k + len;
        let close = loop {
            if quote == Quote::Template {
                break None;
            }
            match rest.get(j) {
                None if self.eof || j >= k + LOOKAHEAD => break None,
                None => return Err(Halt::Need),
                Some(b'\n') => break None,
                Some(b'\\') => j += 2,
                Some(_) => match lex::quote_at(&rest[j..]) {
                    Some((end, n)) if lex::closes(quote, end) != lex::Closer::No => {
                        break Some(j + n);
                    }
                    _ => j += 1,
                },
            }
            if j >= k + LOOKAHEAD {
                break None;
            }
        };
        // A stray end quote (`hello", "b": 1`, its opening quote missing)
        // is followed by what follows a value: a separator or a closer and
        // then what the container expects. A glued string's quote is
        // followed by its text (`f"42"`, `re"; x"`).
        let after = &rest[k + len..];
        let stray = match after.iter().find(|b| !b.is_ascii_whitespace()) {
            None if !self.eof && after.len() < LOOKAHEAD => return Err(Halt::Need),
            None => true,
            Some(b',' | b'}' | b']' | b')' | b':' | b';') => {
                let window = &after[..after.len().min(LOOKAHEAD)];
                let eof = self.eof || after.len() >= LOOKAHEAD;
                match judge::clean_value_ends(
                    &self.stack,
                    Quote::Double,
                    || false,
                    || None,
                    window,
                    eof,
                ) {
                    Some(ends) => ends,
                    None if eof => true,
                    None => return Err(Halt::Need),
                }
            }
            Some(_) => false,
        };
        Ok(match (stray, close) {
            // (`h"; semi", "x"`: both readings hold; the stray one is kept.)
            (true, close) => Glued::Stray {
                doubtful: close.is_some(),
            },
            (false, Some(resume)) => Glued::Until(resume),
            (false, None) => Glued::No,
        })
    }

    /// A regex literal `/ab+c/gi` at `i`, kept as a string.
    pub(super) fn regex(&mut self) -> Step {
        let rest = self.rest();
        let mut k = 1;
        let close = loop {
            match rest.get(k) {
                Some(b'\\') => k += 2,
                Some(b'/') => break Some(k),
                Some(b'\n') | None if self.eof || rest.get(k).is_some() => break None,
                Some(_) if k < LOOKAHEAD => k += 1,
                Some(_) => break None,
                None => return Err(Halt::Need),
            }
        };
        let Some(close) = close else {
            return self.bare_string(Role::Value);
        };
        let mut end = close + 1;
        loop {
            match rest.get(end) {
                Some(b) if b.is_ascii_lowercase() => end += 1,
                None if !self.eof => return Err(Halt::Need),
                _ => break,
            }
        }
        // A regex ends its value; `/var/log/app.log` goes on: a path.
        if rest
            .get(end)
            .is_some_and(|&b| !(lex::is_ws(b) || matches!(b, b',' | b'}' | b']' | b')')))
        {
            return self.bare_string(Role::Value);
        }
        let mut quoted = String::with_capacity(end + 2);
        quoted.push('"');
        escape_into(&mut quoted, &rest[..end]);
        quoted.push('"');
        self.fix(FixKind::QuotedRegex, self.i);
        self.emit(&quoted);
        self.i += end;
        self.value_done();
        Ok(())
    }
}

/// The length of the bare string at the start of `rest`, scanning from
/// `from`; `Err(k)` when more input is needed (scanned up to `k`).
///
/// A bare word runs to the next structural delimiter (`,`, a bracket, a
/// newline; a key also stops at `:`), so paths and URLs stay whole:
/// `src/main.go`, `https://x.com/a?b=1`, `C:\dir\f.txt`.
fn scan_bare(rest: &[u8], from: usize, role: Role, eof: bool) -> Result<usize, usize> {
    let mut k = from;
    loop {
        let Some(&b) = rest.get(k) else {
            if eof {
                break;
            }
            return Err(k);
        };
        if k >= WINDOW
            || lex::ends_bare_word(b)
            || (role == Role::Key && b == b':')
            || matches!(b, b'"' | b'\'' | b'`')
        {
            break;
        }
        if b == b'<' {
            // A template marker (`<|"|>`) ends a bare word: Gemma 4 drops a
            // string's opening marker and keeps its closing one
            // (`{query:weather in Tokyo<|"|>}`, sgl-project/sglang#39240).
            if lex::cut_in_template_quote(&rest[k..]) && !eof {
                return Err(k);
            }
            if lex::quote_at(&rest[k..]).is_some() {
                break;
            }
        }
        if b >= 0x80 {
            let n = lex::utf8_len(b);
            if rest.len() < k + n && !eof {
                return Err(k);
            }
            if (k > 0 && lex::quote_at(&rest[k..]).is_some())
                || lex::wide_structure_at(&rest[k..], role == Role::Key)
            {
                break;
            }
            k += n.min(rest.len() - k);
            continue;
        }
        k += 1;
    }
    Ok(k)
}

/// The JSON literal that `word` (a whole pending token) is a prefix of.
pub(super) fn literal_prefix(word: &[u8]) -> Option<&'static str> {
    if word.is_empty() {
        return None;
    }
    lex::COMMON_LITERALS
        .iter()
        .find(|(spelling, _)| spelling.starts_with(word))
        .map(|&(_, literal)| literal.json().0)
}

/// A pending number token as far as it can be kept without inventing
/// digits (`-1.` → `-1`, `2e+` → `2`); `None` unless that is a JSON number.
pub(super) fn cut_number(token: &[u8]) -> Option<&[u8]> {
    if !token
        .iter()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    let kept = trim_cut(token);
    is_json_number(kept).then_some(kept)
}

/// `text` without what a cut left dangling at its end: `.`, an exponent
/// marker, a sign.
fn trim_cut(mut text: &[u8]) -> &[u8] {
    while let Some((&last, rest)) = text.split_last() {
        if !matches!(last, b'.' | b'e' | b'E' | b'+' | b'-') {
            break;
        }
        text = rest;
    }
    text
}

/// A normalised number (ASCII by construction; a quoted one may hold any text).
fn ascii_owned(bytes: Cow<'_, [u8]>) -> String {
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Whether `text` is a number exactly as JSON spells it.
fn is_json_number(text: &[u8]) -> bool {
    crate::lex::number_len(text) == Some(text.len())
}

/// Normalise a lenient number; `true` if the text changed.
///
/// `.5` → `0.5`, `+1` → `1`, `2.` → `2.0`, `2e` → `2e0`, `-` → `-0`,
/// (a number cut off by the end of input is trimmed first, see `trim_cut`),
/// `1_000` → `1000`; a leading zero (`0789`) keeps the text as a string.
fn normalize_number(text: &[u8]) -> (Cow<'_, [u8]>, bool) {
    let (sign, body) = match text.first() {
        Some(b'-') => (&b"-"[..], &text[1..]),
        Some(b'+') => (&b""[..], &text[1..]),
        _ => (&b""[..], text),
    };
    let int_len = body
        .iter()
        .position(|b| !(b.is_ascii_digit() || *b == b'_'))
        .unwrap_or(body.len());
    let (int, after) = body.split_at(int_len);
    let (frac, exp) = match after.first() {
        Some(b'.') => {
            let n = after[1..]
                .iter()
                .position(|b| !(b.is_ascii_digit() || *b == b'_'))
                .unwrap_or(after.len() - 1);
            (Some(&after[1..1 + n]), &after[1 + n..])
        }
        _ => (None, after),
    };
    let digits: Vec<u8> = int.iter().copied().filter(|b| *b != b'_').collect();
    if digits.len() > 1 && digits[0] == b'0' {
        let mut quoted = Vec::with_capacity(text.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(text);
        quoted.push(b'"');
        return (Cow::Owned(quoted), true);
    }
    let mut out = Vec::with_capacity(text.len() + 2);
    out.extend_from_slice(sign);
    if digits.is_empty() {
        out.push(b'0');
    } else {
        out.extend_from_slice(&digits);
    }
    if let Some(frac) = frac {
        out.push(b'.');
        out.extend(frac.iter().filter(|b| **b != b'_'));
        if !frac.iter().any(u8::is_ascii_digit) {
            out.push(b'0');
        }
    }
    if let Some((&e, exp)) = exp.split_first() {
        out.push(e);
        let (exp_sign, exp_digits) = match exp.first() {
            Some(&s @ (b'+' | b'-')) => (Some(s), &exp[1..]),
            _ => (None, exp),
        };
        out.extend(exp_sign);
        if exp_digits.is_empty() {
            out.push(b'0');
        } else {
            out.extend_from_slice(exp_digits);
        }
    }
    if out == text {
        (Cow::Borrowed(text), false)
    } else {
        (Cow::Owned(out), true)
    }
}

#[cfg(test)]
mod tests {
    use super::normalize_number;

    #[test]
    fn numbers_normalise() {
        for (input, output) in [
            ("1", "1"),
            ("-1.5e+3", "-1.5e+3"),
            (".5", "0.5"),
            ("-.5", "-0.5"),
            ("+1", "1"),
            ("2.", "2.0"),
            ("2e", "2e0"),
            ("2e-", "2e-0"),
            ("-", "-0"),
            ("1_000", "1000"),
            ("0789", "\"0789\""),
            ("0", "0"),
            ("0.5", "0.5"),
        ] {
            let (normal, _) = normalize_number(input.as_bytes());
            assert_eq!(std::str::from_utf8(&normal).unwrap(), output, "{input}");
        }
    }
}
