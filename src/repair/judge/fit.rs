//! What follows a value, read as a continuation of its containers.

use super::MAX_KEY;
use super::cursor::{Cursor, Scan};
use crate::lex::{self, Quote};
use crate::repair::machine::Frame;
use crate::repair::machine::LOOKAHEAD;

/// What follows a value, read as a continuation of its containers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    /// Nothing but whitespace and comments to the end of input.
    Eof,
    /// A comma (or nothing) and then a key and its colon; `name` is the raw
    /// key text, `after` where the value after the colon starts.
    Key {
        name: (usize, usize),
        quoted: bool,
        after: usize,
        comma: bool,
    },
    /// In an array: a comma (or nothing) and then the start of a value at `at`.
    Element { at: usize, comma: bool },
    /// A closer an open container takes; `after` is just past it and `depth`
    /// the number of containers still open after it. `skipped`: it closes an
    /// outer container, the innermost left open (a repair).
    Closed {
        after: usize,
        depth: usize,
        skipped: bool,
    },
    /// After the top-level value: more text.
    Trailing,
    /// Nothing a container could hold.
    Misfit,
}

/// What follows a value in `frames` (its container last), from `c`.
pub(super) fn fit_after_value(c: &mut Cursor<'_>, frames: &[Frame], open: Quote) -> Scan<Fit> {
    let start = c.pos;
    c.skip_ws()?;
    let Some(b) = c.peek()? else {
        return Ok(Fit::Eof);
    };
    if b == b'`' && c.closing_fence()? {
        // ```` ``` ```` on its own: the fenced block (the document) ends.
        return Ok(Fit::Eof);
    }
    let Some(&top) = frames.last() else {
        // After a top-level value: another value (`Values::Lines` and
        // `Values::Array` keep it; `Values::First` drops it), or text.
        if starts_value(b) && (!b.is_ascii_alphabetic() || c.literal()?) {
            return Ok(Fit::Element {
                at: c.pos,
                comma: false,
            });
        }
        return Ok(Fit::Trailing);
    };
    if matches!(b, b'}' | b']' | b')') {
        return Ok(closed(c, frames, b));
    }
    if b == b','
        && matches!(
            top,
            Frame::Object | Frame::Array | Frame::Tuple | Frame::Root
        )
    {
        c.pos += 1;
        c.skip_ws()?;
        return match c.peek()? {
            None => Ok(Fit::Eof),
            Some(b @ (b'}' | b']' | b')')) => Ok(closed(c, frames, b)),
            Some(_) if top == Frame::Object => Ok(match key_at(c.at(c.pos), Stray::Allowed)? {
                Fit::Key {
                    name,
                    quoted,
                    after,
                    ..
                } => Fit::Key {
                    name,
                    quoted,
                    after,
                    comma: true,
                },
                fit => fit,
            }),
            Some(b) if starts_value(b) => Ok(Fit::Element {
                at: c.pos,
                comma: true,
            }),
            Some(_) => Ok(Fit::Misfit),
        };
    }
    match top {
        Frame::Object => {
            // A missing comma: a quoted key and its colon, or a bare one on
            // a line of its own (`"John"\n  lastName: "Smith"`).
            if c.closing_quote(open)?.is_some() || matches!(b, b'"' | b'\'') {
                return key_at(c.at(c.pos), Stray::Refused);
            }
            let newline = c.bytes[start..c.pos].contains(&b'\n');
            if newline && (matches!(b, b'_' | b'$') || b.is_ascii_alphabetic()) {
                return key_at(c.at(c.pos), Stray::Refused);
            }
            Ok(Fit::Misfit)
        }
        // A missing comma: a value that cannot be text (`["a" 2]`,
        // `["a" "b"]`); a bare word here is more of the string's text.
        Frame::Array | Frame::Tuple | Frame::Root
            if starts_value(b) && (!b.is_ascii_alphabetic() || c.literal()?) =>
        {
            Ok(Fit::Element {
                at: c.pos,
                comma: false,
            })
        }
        Frame::Array | Frame::Tuple | Frame::Root | Frame::Call => Ok(Fit::Misfit),
    }
}

/// A closer at `c`: taken by an open container, or a misfit.
pub(super) fn closed(c: &Cursor<'_>, frames: &[Frame], closer: u8) -> Fit {
    let token = match closer {
        b'}' => lex::Token::BraceClose,
        b']' => lex::Token::BracketClose,
        _ => lex::Token::ParenClose,
    };
    match frames.iter().rposition(|f| f.is_closed_by(token)) {
        Some(depth) => Fit::Closed {
            after: c.pos + 1,
            depth,
            skipped: depth + 1 != frames.len(),
        },
        None => Fit::Misfit,
    }
}

/// How sure the caller is that a key follows: after a comma, a bare key may
/// end with a stray quote (`b":`, its opening quote missing) and the end of
/// input inside it is a member cut off; without one (a missing comma), the
/// key must be whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stray {
    Allowed,
    Refused,
}

/// A key and its colon at `c`: `"name":`, `'name':` or `name:`.
pub(super) fn key_at(c: Cursor<'_>, stray: Stray) -> Scan<Fit> {
    let Some(b) = c.peek()? else {
        return Ok(Fit::Eof);
    };
    let (name, quoted, mut end) = if b == b'"' || b == b'\'' {
        let start = c.pos + 1;
        let mut k = start;
        loop {
            match c.at(k).peek()? {
                // The input ends in the key: after a comma, a member cut off
                // (unless the "key" holds structure: `,"}` ends a document);
                // the window ends in it: a long key, as valid JSON may have.
                None if stray == Stray::Allowed
                    && (c.bytes.len() >= LOOKAHEAD
                        || !has_structure(&c.bytes[start..k.min(c.bytes.len())])) =>
                {
                    return Ok(Fit::Eof);
                }
                None | Some(b'\n') => return Ok(Fit::Misfit),
                Some(b'\\') => k += 2,
                Some(q) if q == b => break,
                Some(_) => k += 1,
            }
        }
        ((start, k), true, c.at(k + 1))
    } else if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
        let mut k = c.pos;
        while let Some(d) = c.at(k).peek()? {
            if !(d.is_ascii_alphanumeric() || matches!(d, b'_' | b'$' | b'-')) {
                break;
            }
            k += 1;
            if k - c.pos > MAX_KEY {
                return Ok(Fit::Misfit);
            }
        }
        // `b":` : a key missing its opening quote.
        let end = if stray == Stray::Allowed && c.at(k).peek()? == Some(b'"') {
            k + 1
        } else {
            k
        };
        ((c.pos, k), false, c.at(end))
    } else {
        return Ok(Fit::Misfit);
    };
    end.skip_ws()?;
    match end.peek()? {
        None if stray == Stray::Allowed => Ok(Fit::Eof),
        Some(b':') => Ok(Fit::Key {
            name,
            quoted,
            after: end.pos + 1,
            comma: false,
        }),
        None | Some(_) => Ok(Fit::Misfit),
    }
}

/// Whether `text` holds a bracket, a comma or a colon.
pub(super) fn has_structure(text: &[u8]) -> bool {
    text.iter()
        .any(|b| matches!(b, b'{' | b'}' | b'[' | b']' | b',' | b':'))
}

/// Whether `b` can start an array element (a bare word included).
pub(super) fn starts_value(b: u8) -> bool {
    matches!(
        b,
        b'"' | b'\'' | b'{' | b'[' | b'-' | b'0'..=b'9' | b'_' | b'$'
    ) || b.is_ascii_alphabetic()
}

pub(super) fn is_literal(word: &[u8]) -> bool {
    matches!(
        word,
        b"true" | b"false" | b"null" | b"True" | b"False" | b"None"
    )
}

pub(super) fn bracket_kind(b: u8) -> usize {
    match b {
        b'(' | b')' => 0,
        b'[' | b']' => 1,
        _ => 2,
    }
}

/// Add the brackets of `bytes` to `balance` (a closer with nothing open is ignored).
pub(super) fn count_brackets(bytes: &[u8], balance: &mut [u32; 3]) {
    for &b in bytes {
        match b {
            b'(' | b'[' | b'{' => balance[bracket_kind(b)] += 1,
            b')' | b']' | b'}' => {
                let k = bracket_kind(b);
                balance[k] = balance[k].saturating_sub(1);
            }
            _ => {}
        }
    }
}
