//! Looking further ahead: does the value after a key hold up, is there a
//! better end quote later? Each look examines at most [`MAX_CANDIDATES`]
//! quotes inside the window.

use super::cursor::{Cursor, Scan, Short};
use super::fit::{Fit, bracket_kind, count_brackets, fit_after_value, is_literal};
use super::{MAX_CANDIDATES, MAX_KEY, Subject};
use crate::lex;
use crate::repair::hints::KeyHint;
use crate::repair::machine::Frame;

/// Whether the value at `c` (after a key's colon or an array comma) makes
/// sense in `frames`: a string with an end that fits (its own inner quotes
/// allowed), a container, or a scalar followed by what fits.
pub(super) fn value_fits(subject: &Subject<'_>, mut c: Cursor<'_>, frames: &[Frame]) -> Scan<bool> {
    c.skip_ws()?;
    let Some(b) = c.peek()? else {
        return Ok(true);
    };
    if let Some(len) = c.closing_quote(subject.open)? {
        return string_fits(subject, c.at(c.pos + len), frames);
    }
    match b {
        b'{' | b'[' | b'\'' | b'"' => Ok(true),
        b'-' | b'0'..=b'9' | b'.' | b'+' => {
            let mut k = c.pos;
            while let Some(d) = c.at(k).peek()? {
                if !(d.is_ascii_digit() || matches!(d, b'.' | b'e' | b'E' | b'+' | b'-' | b'_')) {
                    break;
                }
                k += 1;
            }
            let mut rest = c.at(k);
            let fit = fit_after_value(&mut rest, frames, subject.open)?;
            fits_one_level_out(subject, &rest, fit, frames)
        }
        b if b.is_ascii_alphabetic() => {
            let mut k = c.pos;
            while let Some(d) = c.at(k).peek()? {
                if !(d.is_ascii_alphanumeric() || d == b'_') {
                    break;
                }
                k += 1;
            }
            let word = &c.bytes[c.pos..k];
            if !is_literal(word) {
                // A bare word: a value only where the document writes bare words.
                return Ok(subject.bare_keys);
            }
            let mut rest = c.at(k);
            let fit = fit_after_value(&mut rest, frames, subject.open)?;
            fits_one_level_out(subject, &rest, fit, frames)
        }
        _ => Ok(false),
    }
}

/// Whether a string whose body starts at `c` ends well: at its first quote
/// that is followed by structure (a key, an element, a closer, the end), what
/// follows must fit, one container out included. Quotes followed by text are
/// the next value's own inner quotes and are passed over.
pub(super) fn string_fits(
    subject: &Subject<'_>,
    mut c: Cursor<'_>,
    frames: &[Frame],
) -> Scan<bool> {
    let open = subject.open;
    // The brackets this value's own text opens: a closer after one of its
    // quotes that closes one of them is code (`{"error": "x"} when`).
    let mut balance = [0u32; 3];
    for _ in 0..MAX_CANDIDATES {
        let rest = &c.bytes[c.pos.min(c.bytes.len())..];
        let Some(k) = rest.iter().position(|&b| {
            b == b'\\' || lex::quote_at(&[b]).is_some() || matches!(b, 0xC2 | 0xE2 | 0xEF)
        }) else {
            return if c.eof { Ok(true) } else { Err(Short) };
        };
        count_brackets(&rest[..k], &mut balance);
        c.pos += k;
        if c.bytes[c.pos] == b'\\' {
            c.pos += 2;
            continue;
        }
        let Some(len) = c.closing_quote(open)? else {
            c.pos += 1;
            continue;
        };
        let mut next = c.at(c.pos + len);
        match fit_after_value(&mut next, frames, open)? {
            Fit::Trailing | Fit::Misfit => c.pos += len,
            Fit::Closed { after, .. } if balance[bracket_kind(c.bytes[after - 1])] > 0 => {
                c.pos += len;
            }
            fit => return fits_one_level_out(subject, &c, fit, frames),
        }
    }
    // A value with this many quotes before any end is long code: let it be.
    Ok(true)
}

/// Whether a structural continuation holds up: a key or an element after a
/// comma, the end of input, or a closer after which the container around
/// goes on sensibly.
pub(super) fn fits_one_level_out(
    subject: &Subject<'_>,
    c: &Cursor<'_>,
    fit: Fit,
    frames: &[Frame],
) -> Scan<bool> {
    // A key the hints rule out is not the next member.
    let declared = |frames: &[Frame], name: (usize, usize)| {
        let hint = subject
            .hints
            .map(|h| h.key(frames.len(), &c.bytes[name.0..name.1]));
        hint != Some(KeyHint::Undeclared)
    };
    Ok(match fit {
        Fit::Eof | Fit::Element { comma: true, .. } => true,
        Fit::Key {
            comma: true, name, ..
        } => declared(frames, name),
        Fit::Closed { after, depth, .. } => {
            let outer = &frames[..depth];
            let mut tail = c.at(after);
            match fit_after_value(&mut tail, outer, subject.open)? {
                Fit::Eof | Fit::Element { comma: true, .. } | Fit::Closed { .. } => true,
                Fit::Key {
                    comma: true, name, ..
                } => declared(outer, name),
                _ => false,
            }
        }
        _ => false,
    })
}

/// Whether a later quote, within the window, ends the string better: one
/// followed by the end of input, or by what the containers expect.
pub(super) fn later_end(subject: &Subject<'_>, mut c: Cursor<'_>) -> Scan<bool> {
    for _ in 0..MAX_CANDIDATES {
        let rest = &c.bytes[c.pos.min(c.bytes.len())..];
        let Some(k) = rest
            .iter()
            .position(|&b| b == b'\\' || lex::quote_at(&[b]).is_some() || b >= 0xC2)
        else {
            return if c.eof { Ok(false) } else { Err(Short) };
        };
        c.pos += k;
        if c.bytes[c.pos] == b'\\' {
            c.pos += 2;
            continue;
        }
        let Some(len) = c.closing_quote(subject.open)? else {
            c.pos += 1;
            continue;
        };
        let mut next = c.at(c.pos + len);
        let better = match fit_after_value(&mut next, subject.frames, subject.open)? {
            Fit::Eof => true,
            Fit::Closed {
                after, depth: 0, ..
            } => {
                let mut tail = c.at(after);
                tail.skip_ws()?;
                tail.peek()?.is_none()
            }
            Fit::Key { .. } | Fit::Element { .. } | Fit::Closed { .. } => true,
            Fit::Trailing | Fit::Misfit => false,
        };
        if better {
            return Ok(true);
        }
        c.pos += len;
    }
    Ok(false)
}

/// Whether, reading on as if the quote were inside the string, the brackets
/// the body left open close and then a quote ends the string well.
pub(super) fn later_balanced_end(subject: &Subject<'_>, mut c: Cursor<'_>) -> Scan<bool> {
    let mut balance = subject.balance;
    let mut quotes = 0;
    loop {
        let Some(&b) = c.bytes.get(c.pos) else {
            return if c.eof { Ok(false) } else { Err(Short) };
        };
        match b {
            b'\\' => {
                c.pos += 2;
                continue;
            }
            b'(' | b'[' | b'{' => balance[bracket_kind(b)] += 1,
            b')' | b']' | b'}' => {
                let k = bracket_kind(b);
                balance[k] = balance[k].saturating_sub(1);
            }
            _ => {}
        }
        // Only the brackets that enclose the inner quotes must close: a
        // stray `(` elsewhere in the code does not matter.
        let closed = (0..3).all(|k| !subject.enclosed[k] || balance[k] == 0);
        let quote = c.closing_quote(subject.open)?;
        if quote.is_some() {
            quotes += 1;
            if quotes > MAX_CANDIDATES {
                return Ok(false);
            }
        }
        if closed && let Some(len) = quote {
            let mut next = c.at(c.pos + len);
            let fit = fit_after_value(&mut next, subject.frames, subject.open)?;
            let good = match fit {
                Fit::Eof | Fit::Key { comma: true, .. } => true,
                Fit::Closed { after, depth, .. } => {
                    let mut tail = c.at(after);
                    matches!(
                        fit_after_value(&mut tail, &subject.frames[..depth], subject.open)?,
                        Fit::Eof | Fit::Key { comma: true, .. } | Fit::Closed { .. }
                    )
                }
                _ => false,
            };
            if good {
                return Ok(true);
            }
        }
        c.pos += 1;
    }
}

/// For a clean string whose body ends with a comma: whether the quote that
/// was judged opens the next key (with its colon) or, in an array, the next
/// element; `c` starts just after that quote.
pub(super) fn opens_next(subject: &Subject<'_>, c: Cursor<'_>) -> Scan<bool> {
    let top = subject.frames.last().copied();
    if !matches!(top, Some(Frame::Object | Frame::Array)) {
        return Ok(false);
    }
    // The text up to the next quote on the same line: a key or an element.
    let mut k = c.pos;
    let close = loop {
        match c.at(k).peek()? {
            None | Some(b'\n') => return Ok(false),
            Some(b'\\') => k += 2,
            Some(b'"') => break k,
            Some(_) => k += 1,
        }
        if k - c.pos > MAX_KEY {
            return Ok(false);
        }
    };
    let mut next = c.at(close + 1);
    if top == Some(Frame::Object) {
        next.skip_spaces()?;
        if next.peek()? != Some(b':') {
            return Ok(false);
        }
        let depth = subject.frames.len();
        let hint = subject.hints.map(|h| h.key(depth, &c.bytes[c.pos..close]));
        return Ok(hint != Some(KeyHint::Undeclared));
    }
    let fit = fit_after_value(&mut next, subject.frames, subject.open)?;
    Ok(matches!(
        fit,
        Fit::Eof | Fit::Closed { .. } | Fit::Element { .. }
    ))
}
