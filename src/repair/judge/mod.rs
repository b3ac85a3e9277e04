//! Does this quote end its string? The one decision a string needs.
//!
//! String text is committed as it arrives; only a quote that could close the
//! string waits, and what decides it is the input right after it, read as a
//! continuation of the open containers:
//!
//! - **A clean string** (no inner quote found in it yet) ends at a quote
//!   followed by what valid JSON would have there: the end of input, a comma
//!   and then a key with its colon (in an object) or a value (in an array),
//!   or a closer. So valid JSON always passes, and so does the fast lane,
//!   which asks this module the same question.
//! - **A string already known to hold an inner quote** (the model forgot to
//!   escape its code) needs more: a `, "key":` must not name a key the
//!   caller's [`Hints`] rule out, must not sit inside a bracket the body
//!   opened before an inner quote (`x = {"a": "b", "c": 1}`), and the value
//!   after the colon must itself make sense; a closer must not close a
//!   bracket opened in the body, and what follows it must continue the
//!   container around.
//! - Otherwise the quote is inside the string: it is written escaped.
//!
//! One more reading applies to a clean string whose body ends in a comma
//! (`{"a": "b, "c": 1}`): if the quote opens a key (or an array element)
//! that fits, the end quote was missing before the comma.
//!
//! Everything here reads at most [`LOOKAHEAD`] bytes after the quote; the
//! caller passes that window and says whether the input ends inside it. A
//! scan that reaches the end of the bytes before the input ended answers
//! [`Judgement::Need`], never a guess, so the decision is the same for every
//! way of cutting the input.

mod ahead;
mod cursor;
mod fit;

use self::ahead::{later_balanced_end, later_end, opens_next, value_fits};
use self::cursor::{Cursor, Scan, Short};
use self::fit::{Fit, fit_after_value};
use super::hints::{Hints, KeyHint};
use super::machine::Frame;
use super::string::find_quote_escape_or_control;
use crate::lex::{self, Quote};

/// The longest key the continuation check reads; a longer "key" is text.
const MAX_KEY: usize = 256;

/// How many later quotes a look further ahead examines. With the window of
/// bytes this bounds the work per quote, so a run of quotes costs linear
/// time (every quote would otherwise scan the whole window).
const MAX_CANDIDATES: usize = 64;

/// The longest comment the continuation check skips; a longer one is text.
const MAX_COMMENT: usize = 1024;

/// Whether the string is a key or a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Key,
    Value,
}

/// What the string knows about itself when one of its quotes is judged.
#[derive(Debug, Clone, Copy)]
pub(super) struct Subject<'a> {
    /// The open containers, outermost first (the string's own is last).
    pub(super) frames: &'a [Frame],
    pub(super) role: Role,
    pub(super) open: Quote,
    /// How many quotes inside this string were already judged inner.
    pub(super) inner_quotes: u32,
    /// Per kind (`()`, `[]`, `{}`): a bracket the body opened before its last
    /// inner quote is still open.
    pub(super) enclosed: [bool; 3],
    /// Which closers (`)`, `]`, `}`) would close a bracket opened in the body.
    pub(super) open_brackets: [bool; 3],
    /// How many brackets of each kind the body has open.
    pub(super) balance: [u32; 3],
    /// The body ends with a comma and perhaps whitespace.
    pub(super) trailing_comma: bool,
    /// The document has written a key without quotes.
    pub(super) bare_keys: bool,
    pub(super) hints: Option<&'a Hints>,
}

impl Subject<'_> {
    fn clean(&self) -> bool {
        self.inner_quotes == 0
    }
}

/// The decision on one quote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Judgement {
    /// The quote ends the string.
    End,
    /// The quote is inside the string.
    Inner,
    /// The string ended before the comma its body ends with; the quote opens
    /// what comes next.
    EndBeforeComma,
    /// The bytes that decide it have not arrived.
    Need,
}

/// Judge the quote of a string described by `subject`; `after` holds the
/// bytes after the quote (at most the lookahead window) and `eof` says
/// whether the input ends where they do.
pub(super) fn judge(subject: &Subject<'_>, after: &[u8], eof: bool) -> Judgement {
    let cursor = Cursor {
        bytes: after,
        pos: 0,
        eof,
        open_comments: subject.clean(),
    };
    let result = match subject.role {
        Role::Key => judge_key(subject, cursor),
        Role::Value => judge_value(subject, cursor),
    };
    result.unwrap_or(Judgement::Need)
}

/// Whether a clean value string opened by `open` in `frames` ends at the
/// quote after which `after` follows (at most the lookahead window; `eof`
/// as for [`judge`]): the fast lane's question, answered by the same rule.
/// `None` when the bytes do not say yet. `trailing_comma` says whether the
/// body ends with a comma; it is asked only off the common path.
#[inline]
pub(super) fn clean_value_ends(
    frames: &[Frame],
    open: Quote,
    trailing_comma: impl FnOnce() -> bool,
    after: &[u8],
    eof: bool,
) -> Option<bool> {
    match quick_clean_end(frames, after, eof) {
        Quick::End | Quick::EndAtKey { .. } => return Some(true),
        Quick::Need => return None,
        Quick::Unknown => {}
    }
    // `"a" + "b"` is joined by the machine, which needs the quote it holds.
    let mut c = Cursor {
        bytes: after,
        pos: 0,
        eof,
        open_comments: true,
    };
    c.skip_ws().ok()?;
    if c.peek().ok()? == Some(b'+') {
        return Some(false);
    }
    let subject = Subject {
        frames,
        role: Role::Value,
        open,
        inner_quotes: 0,
        enclosed: [false; 3],
        open_brackets: [false; 3],
        balance: [0; 3],
        trailing_comma: trailing_comma(),
        bare_keys: false,
        hints: None,
    };
    match judge(&subject, after, eof) {
        Judgement::Need => None,
        judgement => Some(judgement == Judgement::End),
    }
}

/// A key ends at a quote unless what follows is text and a later quote on
/// the same line is followed by a colon (`{"say "hi"": 1}`).
fn judge_key(subject: &Subject<'_>, mut c: Cursor<'_>) -> Scan<Judgement> {
    c.skip_ws()?;
    let Some(b) = c.peek()? else {
        return Ok(Judgement::End);
    };
    if b == b':' || lex::is_ws(b) || !(b.is_ascii_alphanumeric() || b >= 0x80 || b == b'_') {
        return Ok(Judgement::End);
    }
    let mut probe = c.at(c.pos);
    loop {
        if probe.pos > MAX_KEY {
            return Ok(Judgement::End);
        }
        match probe.peek()? {
            None | Some(b'\n' | b',' | b'{' | b'}' | b'[' | b']' | b':') => {
                return Ok(Judgement::End);
            }
            Some(_) => {
                if let Some(len) = probe.closing_quote(subject.open)? {
                    let mut colon = probe.at(probe.pos + len);
                    colon.skip_spaces()?;
                    if colon.peek()? == Some(b':') {
                        return Ok(Judgement::Inner);
                    }
                }
                probe.pos += 1;
            }
        }
    }
}

fn judge_value(subject: &Subject<'_>, mut c: Cursor<'_>) -> Scan<Judgement> {
    let frames = subject.frames;
    if subject.clean() {
        match quick_clean_end(frames, c.bytes, c.eof) {
            Quick::End | Quick::EndAtKey { .. } => return Ok(Judgement::End),
            Quick::Need => return Err(Short),
            Quick::Unknown => {}
        }
    }
    // `"72""`: another quote right after this one, which itself ends the
    // string, makes this one inner.
    let mut probe = c.at(c.pos);
    probe.skip_ws()?;
    if let Some(len) = probe.closing_quote(subject.open)? {
        let mut next = probe.at(probe.pos + len);
        let fit = fit_after_value(&mut next, frames, subject.open)?;
        if matches!(
            fit,
            Fit::Eof
                | Fit::Key { comma: true, .. }
                | Fit::Closed { .. }
                | Fit::Element { comma: true, .. }
        ) {
            return Ok(Judgement::Inner);
        }
    }
    let start = c.pos;
    if subject.clean() && concatenated(c.at(start))? {
        return Ok(Judgement::End);
    }
    let fit = fit_after_value(&mut c, frames, subject.open)?;
    // A continuation that needs a missing comma is a weaker reading than "the
    // end quote was missing before the comma the body ends with".
    let weak = matches!(
        fit,
        Fit::Key { comma: false, .. } | Fit::Element { comma: false, .. } | Fit::Misfit
    );
    if weak
        && subject.clean()
        && subject.trailing_comma
        && !subject.open_brackets.contains(&true)
        && opens_next(subject, c.at(0))?
    {
        return Ok(Judgement::EndBeforeComma);
    }
    let ends = match fit {
        Fit::Eof => true,
        _ if subject.clean() && clean_fit_ends(fit) => true,
        Fit::Key {
            name,
            quoted,
            after,
            comma,
        } => {
            // A string known to hold inner quotes needs the whole `, "key":`.
            comma
                && (quoted || subject.bare_keys)
                && key_ends(subject, c.at(after), &c.bytes[name.0..name.1], start)?
        }
        Fit::Element { at, .. } => value_fits(subject, c.at(at), frames)?,
        Fit::Closed {
            skipped: true,
            after,
            depth,
        } if subject.clean() => {
            // `[{"a": "b"], "c": 1}`: right if the container around goes on.
            let mut rest = c.at(after);
            matches!(
                fit_after_value(&mut rest, &frames[..depth], subject.open)?,
                Fit::Eof
                    | Fit::Key { comma: true, .. }
                    | Fit::Element { comma: true, .. }
                    | Fit::Closed { .. }
            )
        }
        Fit::Closed { after, depth, .. } => closed_ends(subject, c.at(after), depth)?,
        Fit::Trailing => !later_end(subject, c.at(start))?,
        Fit::Misfit => false,
    };
    Ok(if ends {
        Judgement::End
    } else {
        Judgement::Inner
    })
}

/// What the quick look at a clean string's continuation found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quick {
    /// It ends the string.
    End,
    /// It ends the string, and a comma, a `"key"` without a backslash
    /// (strictly valid, then: the scan stopped at no control byte) and its
    /// colon follow; `colon` indexes `after`. The fast lane takes the key
    /// with the string.
    EndAtKey { colon: usize },
    /// So far it looks like the common case, and the bytes ran out: the
    /// general scan would wait as well.
    Need,
    /// Anything else: the general scan decides.
    Unknown,
}

/// The bytes a bare key goes on with (`[A-Za-z0-9_$-]`), as a table.
static KEY_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'-';
        b += 1;
    }
    table
};

/// The commonest answer, found without the general scan: a clean string
/// followed (after spaces) by the closer of its container, or by a comma and
/// then a key with its colon (in an object) or a value (in an array), ends.
#[inline]
pub(super) fn quick_clean_end(frames: &[Frame], after: &[u8], eof: bool) -> Quick {
    let Some(&top) = frames.last() else {
        return Quick::Unknown;
    };
    // Running out of bytes on the common path: wait, unless the input ended
    // (then the general scan reads the end of input).
    let short = if eof { Quick::Unknown } else { Quick::Need };
    let skip = |mut k: usize| {
        while k < after.len() && matches!(after[k], b' ' | b'\n' | b'\t' | b'\r') {
            k += 1;
        }
        k
    };
    let k = skip(0);
    let Some(&b) = after.get(k) else {
        return short;
    };
    match (b, top) {
        (b'}', Frame::Object) | (b']', Frame::Array) => Quick::End,
        (b',', Frame::Array) => match after.get(skip(k + 1)) {
            None => short,
            // A value, or a trailing comma before the closer.
            Some(b'"' | b'{' | b'[' | b'-' | b'0'..=b'9' | b']') => Quick::End,
            Some(_) => Quick::Unknown,
        },
        (b',', Frame::Object) => {
            let k = skip(k + 1);
            // A `"` key with no escape in it, as the lane can take it.
            let mut plain = after.get(k) == Some(&b'"');
            let close = match after.get(k) {
                None => return short,
                Some(b'}') => return Quick::End,
                Some(&quote @ (b'"' | b'\'')) => {
                    let mut j = k + 1;
                    loop {
                        // A `"` key is found with the string scan (SWAR): it
                        // stops at the quote, a backslash or a control byte.
                        let next = match quote {
                            b'"' => find_quote_escape_or_control(&after[j..]),
                            _ => {
                                let mut n = j;
                                while n < after.len()
                                    && !(after[n] == quote || after[n] == b'\\' || after[n] < 0x20)
                                {
                                    n += 1;
                                }
                                (n < after.len()).then_some(n - j)
                            }
                        };
                        let Some(n) = next else {
                            return short;
                        };
                        j += n;
                        match after[j] {
                            b'\\' => {
                                plain = false;
                                j += 2;
                            }
                            b if b < 0x20 => return Quick::Unknown,
                            _ => break j + 1,
                        }
                        if j >= after.len() {
                            return short;
                        }
                    }
                }
                Some(&b) if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
                    let mut n = k + 1;
                    while n < after.len() && KEY_BYTE[usize::from(after[n])] {
                        n += 1;
                    }
                    n
                }
                Some(_) => return Quick::Unknown,
            };
            let colon = skip(close);
            match after.get(colon) {
                None => short,
                Some(b':') if plain => Quick::EndAtKey { colon },
                Some(b':') => Quick::End,
                Some(_) => Quick::Unknown,
            }
        }
        _ => Quick::Unknown,
    }
}

/// `+` and then a quote: `"a" + "b"`, joined by the machine.
fn concatenated(mut c: Cursor<'_>) -> Scan<bool> {
    c.skip_ws()?;
    if c.peek()? != Some(b'+') {
        return Ok(false);
    }
    c.pos += 1;
    c.skip_ws()?;
    Ok(match c.peek()? {
        Some(_) => c.any_quote()?,
        None => true,
    })
}

/// For a clean string: every continuation valid JSON could have ends it.
/// (A closer that skips the innermost container is judged by what follows.)
fn clean_fit_ends(fit: Fit) -> bool {
    matches!(
        fit,
        Fit::Eof | Fit::Key { .. } | Fit::Element { .. } | Fit::Closed { skipped: false, .. }
    )
}

/// A `, key:` after a quote of a string known to hold inner quotes; `from`
/// is where the bytes after the quote start being read.
fn key_ends(subject: &Subject<'_>, after: Cursor<'_>, name: &[u8], from: usize) -> Scan<bool> {
    let depth = subject.frames.len();
    let hint = subject.hints.map(|h| h.key(depth, name));
    if hint == Some(KeyHint::Undeclared) {
        return Ok(false);
    }
    if subject.enclosed.contains(&true) && later_balanced_end(subject, after.at(from))? {
        // `x = {"a": "b", "c": 1}`: the key is inside a bracket the body
        // opened, and a later quote ends the string once it is closed. Only
        // a declared key whose value holds up says otherwise.
        return Ok(hint == Some(KeyHint::Declared) && value_fits(subject, after, subject.frames)?);
    }
    if hint == Some(KeyHint::Declared) {
        return Ok(true);
    }
    value_fits(subject, after, subject.frames)
}

/// After a closer that follows a quote of a string known to hold inner quotes.
fn closed_ends(subject: &Subject<'_>, mut c: Cursor<'_>, depth: usize) -> Scan<bool> {
    let closer = c.bytes[c.pos - 1];
    let kind = match closer {
        b')' => 0,
        b']' => 1,
        _ => 2,
    };
    if subject.open_brackets[kind] && later_end(subject, c.at(c.pos))? {
        // It closes a bracket the body opened (`x = {"a": "b"} y"`), and a
        // later quote could end the string.
        return Ok(false);
    }
    let outer = &subject.frames[..depth];
    let fit = fit_after_value(&mut c, outer, subject.open)?;
    Ok(match fit {
        // After the top-level value, another value (`}"…`) is no better a
        // sign than text: the quote ends the string only if no later quote
        // could.
        Fit::Element { comma: false, .. } | Fit::Trailing if outer.is_empty() => {
            !later_end(subject, c)?
        }
        Fit::Eof | Fit::Key { .. } | Fit::Element { .. } | Fit::Closed { .. } => true,
        Fit::Trailing => !later_end(subject, c)?,
        Fit::Misfit => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(frames: &[Frame]) -> Subject<'_> {
        Subject {
            frames,
            role: Role::Value,
            open: Quote::Double,
            inner_quotes: 0,
            enclosed: [false; 3],
            open_brackets: [false; 3],
            balance: [0; 3],
            trailing_comma: false,
            bare_keys: false,
            hints: None,
        }
    }

    const OBJ: &[Frame] = &[Frame::Object];

    #[test]
    fn valid_continuations_end_a_clean_string() {
        let s = subject(OBJ);
        for after in [
            &b", \"b\": 1}"[..],
            b"}",
            b"",
            b"  \n, 'b': 2}",
            b",b:1}",
            b" /* c */ }",
        ] {
            assert_eq!(judge(&s, after, true), Judgement::End, "{after:?}");
        }
    }

    #[test]
    fn text_after_a_quote_makes_it_inner() {
        let s = subject(OBJ);
        for after in [&b"hello, world\")\"}"[..], b": 1}\"}", b", then left\"}"] {
            assert_eq!(judge(&s, after, true), Judgement::Inner, "{after:?}");
        }
    }

    #[test]
    fn short_input_waits() {
        let s = subject(OBJ);
        assert_eq!(judge(&s, b", \"b", false), Judgement::Need);
        assert_eq!(judge(&s, b", \"b\":", false), Judgement::End);
    }

    #[test]
    fn enclosed_keys_do_not_end_a_string_with_inner_quotes() {
        let mut s = subject(OBJ);
        s.inner_quotes = 3;
        s.enclosed = [false, false, true];
        assert_eq!(judge(&s, b", \"b\": \"y\"}\"}", true), Judgement::Inner);
        s.enclosed = [false; 3];
        assert_eq!(
            judge(&s, b", \"new\": \"if x == \"b\":\\n pass\"}", true),
            Judgement::End
        );
    }

    #[test]
    fn a_comma_then_a_key_means_the_end_quote_was_missing() {
        let mut s = subject(OBJ);
        s.trailing_comma = true;
        assert_eq!(judge(&s, b"c\":\"d\"}", true), Judgement::EndBeforeComma);
        assert_eq!(judge(&s, b"c is here\"}", true), Judgement::Inner);
    }
}
