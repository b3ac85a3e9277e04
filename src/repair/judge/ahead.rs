//! Looking further ahead: does the value after a key hold up, is there a
//! better end quote later? Each look examines at most [`MAX_CANDIDATES`]
//! quotes inside the window.

use super::cursor::{Cursor, Scan, Short, may_start_quote};
use super::fit::{
    Fit, bracket_kind, closer_byte, count_brackets, fit_after_value, is_literal, within,
};
use super::strict_rest::strict_rest;
use super::subject::{MAX_CANDIDATES, MAX_KEY, Subject};
use crate::lex::{Closer, Quote, Token};
use crate::repair::frame::Frame;
use crate::repair::grammar::Faults;
use crate::repair::hints::KeyHint;

/// Whether the value at `c` (after a key's colon or an array comma) makes
/// sense in `frames`: a string with an end that fits (its own inner quotes
/// allowed), a container, or a scalar followed by what fits.
pub(super) fn value_fits(subject: &Subject<'_>, mut c: Cursor<'_>, frames: &[Frame]) -> Scan<bool> {
    c.skip_ws()?;
    c.skip_escaped_ws()?;
    let Some(b) = c.peek()? else {
        return Ok(true);
    };
    if let Some((quote, len)) = c.quote_here()? {
        return string_fits(subject, quote, c.at(c.pos + len), frames);
    }
    match c.token()? {
        Some((Token::BraceOpen | Token::BracketOpen, _)) => return Ok(true),
        None => return Ok(true),
        _ => {}
    }
    match b {
        b'-' | b'0'..=b'9' | b'.' | b'+' => {
            let mut k = c.pos;
            while let Some(d) = c.at(k).peek()? {
                if !(d.is_ascii_digit() || matches!(d, b'.' | b'e' | b'E' | b'+' | b'-' | b'_')) {
                    break;
                }
                k += 1;
            }
            let mut rest = c.at(k);
            let fit = within(fit_after_value(&mut rest, frames)?, subject.style);
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
                return Ok(subject.style.contains(Faults::KEY_BARE));
            }
            let mut rest = c.at(k);
            let fit = within(fit_after_value(&mut rest, frames)?, subject.style);
            fits_one_level_out(subject, &rest, fit, frames)
        }
        _ => Ok(false),
    }
}

/// Whether a string opened by `open` whose body starts at `c` ends well: at
/// its first quote that is followed by structure (a key, an element, a
/// closer, the end), what follows must fit, one container out included.
/// Quotes followed by text are the value's own inner quotes and are passed over.
pub(super) fn string_fits(
    subject: &Subject<'_>,
    open: Quote,
    mut c: Cursor<'_>,
    frames: &[Frame],
) -> Scan<bool> {
    // The brackets this value's own text opens: a closer after one of its
    // quotes that closes one of them is code (`{"error": "x"} when`).
    let mut balance = [0u32; 3];
    for _ in 0..MAX_CANDIDATES {
        let rest = &c.bytes[c.pos.min(c.bytes.len())..];
        let Some(k) = rest.iter().position(|&b| b == b'\\' || may_start_quote(b)) else {
            return if c.eof { Ok(true) } else { Err(Short) };
        };
        count_brackets(&rest[..k], &mut balance);
        c.pos += k;
        if c.bytes[c.pos] == b'\\' {
            c.pos += 2;
            continue;
        }
        let Some((len, _)) = c.closing_quote(open)? else {
            c.pos += 1;
            continue;
        };
        let mut next = c.at(c.pos + len);
        match within(fit_after_value(&mut next, frames)?, subject.style) {
            Fit::Trailing | Fit::Misfit => c.pos += len,
            Fit::Closed { after, .. } if balance[bracket_kind(closer_byte(c.bytes, after))] > 0 => {
                c.pos += len;
            }
            fit => return fits_one_level_out(subject, &c, fit, frames),
        }
    }
    // A value with this many quotes before any end is long code: let it be.
    Ok(true)
}

/// Whether a structural continuation holds up: a key or an element after a
/// separator, the end of input, or a closer after which the container
/// around goes on sensibly.
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
        Fit::Eof | Fit::Element { sep: true, .. } => true,
        Fit::Key(key) if key.sep => declared(frames, key.name),
        Fit::Closed { after, depth, .. } => {
            let outer = &frames[..depth];
            let mut tail = c.at(after);
            match within(fit_after_value(&mut tail, outer)?, subject.style) {
                Fit::Eof | Fit::Element { sep: true, .. } | Fit::Closed { .. } => true,
                Fit::Key(key) if key.sep => declared(outer, key.name),
                _ => false,
            }
        }
        _ => false,
    })
}

/// Whether a later quote, within the window, ends the string better: one
/// followed by the end of input, or by what the containers expect. With
/// `own_only` (is there a better end than this twin?), the first such quote
/// must be of the string's own kind, with no other quote that could close
/// the string before it: reading on past one would make it text, a worse
/// reading than the twin's (`"a ”b”], "c": "d"` ends at `b”`, and
/// `[“x", "y”]` at `x"`).
pub(super) fn later_end(subject: &Subject<'_>, mut c: Cursor<'_>, own_only: bool) -> Scan<bool> {
    if own_only && subject.open == Quote::Double && subject.valid_so_far {
        return valid_end_later(subject, c);
    }
    let mut passed = false;
    for _ in 0..MAX_CANDIDATES {
        let rest = &c.bytes[c.pos.min(c.bytes.len())..];
        let Some(k) = rest.iter().position(|&b| b == b'\\' || may_start_quote(b)) else {
            return if c.eof { Ok(false) } else { Err(Short) };
        };
        c.pos += k;
        if c.bytes[c.pos] == b'\\' {
            c.pos += 2;
            continue;
        }
        let Some((len, closer)) = c.closing_quote(subject.open)? else {
            c.pos += 1;
            continue;
        };
        if own_only && opens_here(&c) {
            // `, “`: a quote after a separator opens the next value.
            passed = true;
            c.pos += len;
            continue;
        }
        let mut next = c.at(c.pos + len);
        let better = match within(fit_after_value(&mut next, subject.frames)?, subject.style) {
            Fit::Eof => true,
            Fit::Closed {
                after, depth: 0, ..
            } => {
                let mut tail = c.at(after);
                tail.skip_ws()?;
                tail.peek()?.is_none()
            }
            Fit::Key(_) | Fit::Element { .. } | Fit::Closed { .. } => true,
            Fit::Trailing | Fit::Misfit => false,
        };
        if better {
            return Ok(!own_only || (closer == Closer::Own && !passed));
        }
        passed = true;
        c.pos += len;
    }
    Ok(false)
}

/// For a twin in a string opened by `"`, in a document with no fix so far
/// (it may be valid JSON): whether the string's first `"` further on
/// (escapes passed over, as JSON reads them) is followed by valid JSON as
/// far as the window goes (`"the “x”}, more", "b": 1`). Then the document
/// may be valid JSON, and the twin is text.
fn valid_end_later(subject: &Subject<'_>, mut c: Cursor<'_>) -> Scan<bool> {
    loop {
        let rest = &c.bytes[c.pos.min(c.bytes.len())..];
        let Some(k) = rest.iter().position(|&b| b == b'\\' || b == b'"') else {
            return if c.eof { Ok(false) } else { Err(Short) };
        };
        c.pos += k;
        if c.bytes[c.pos] == b'\\' {
            c.pos += 2;
            continue;
        }
        return strict_rest(&c.at(c.pos + 1), subject.frames, false);
    }
}

/// Whether the quote at `c` stands where a value or key would open: after
/// a separator, a colon or an opening bracket (whitespace between).
fn opens_here(c: &Cursor<'_>) -> bool {
    c.bytes[..c.pos]
        .iter()
        .rev()
        .find(|b| !crate::lex::is_ws(**b))
        .is_some_and(|b| matches!(b, b',' | b':' | b'[' | b'{' | b';'))
}

/// A later end of a string, once the brackets its body opened are closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Balanced {
    /// None within the window.
    None,
    /// One followed by the end of the input or of its container.
    Last,
    /// One followed by another member (a `, "key":`).
    Member,
}

/// Whether, reading on as if the quote were inside the string, the brackets
/// the body left open close and then a quote ends the string well.
pub(super) fn later_balanced_end(subject: &Subject<'_>, mut c: Cursor<'_>) -> Scan<Balanced> {
    let mut balance = subject.balance;
    let mut quotes = 0;
    loop {
        let Some(&b) = c.bytes.get(c.pos) else {
            return if c.eof {
                Ok(Balanced::None)
            } else {
                Err(Short)
            };
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
        let quote = if may_start_quote(b) {
            c.closing_quote(subject.open)?.map(|(len, _)| len)
        } else {
            None
        };
        if quote.is_some() {
            quotes += 1;
            if quotes > MAX_CANDIDATES {
                return Ok(Balanced::None);
            }
        }
        if closed && let Some(len) = quote {
            let mut next = c.at(c.pos + len);
            let fit = within(fit_after_value(&mut next, subject.frames)?, subject.style);
            let good = match fit {
                Fit::Eof => Balanced::Last,
                Fit::Key(key) if key.sep => Balanced::Member,
                Fit::Closed { after, depth, .. } => {
                    let mut tail = c.at(after);
                    match within(
                        fit_after_value(&mut tail, &subject.frames[..depth])?,
                        subject.style,
                    ) {
                        Fit::Eof | Fit::Closed { .. } => Balanced::Last,
                        Fit::Key(key) if key.sep => Balanced::Last,
                        _ => Balanced::None,
                    }
                }
                _ => Balanced::None,
            };
            if good != Balanced::None {
                return Ok(good);
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
    // The text up to the next quote of the same kind on the same line: a
    // key or an element.
    let mut k = c.pos;
    let (close, len) = loop {
        let probe = c.at(k);
        match probe.peek()? {
            None | Some(b'\n') => return Ok(false),
            Some(b'\\') => k += 2,
            Some(_) => {
                if let Some((len, Closer::Own)) = probe.closing_quote(subject.open)? {
                    break (k, len);
                }
                k += 1;
            }
        }
        if k - c.pos > MAX_KEY {
            return Ok(false);
        }
    };
    let mut next = c.at(close + len);
    if top == Some(Frame::Object) {
        next.skip_spaces()?;
        let colon = match next.token()? {
            Some((token, n)) => {
                crate::repair::grammar::colon_at(token, n, &next.bytes[next.pos..]).is_some()
            }
            None => false,
        };
        if !colon {
            return Ok(false);
        }
        let depth = subject.frames.len();
        let hint = subject.hints.map(|h| h.key(depth, &c.bytes[c.pos..close]));
        return Ok(hint != Some(KeyHint::Undeclared));
    }
    let fit = fit_after_value(&mut next, subject.frames)?;
    Ok(matches!(
        fit,
        Fit::Eof | Fit::Closed { .. } | Fit::Element { .. }
    ))
}

/// Whether the members from the value at `c` on, read as the object's own
/// (the quote judged ended the string, and the key before `c` is the next
/// member), run to a closer after which the containers around go on. Only
/// plain values are followed: a string up to its first quote, a number, a
/// literal. Anything else (a container, a string whose first quote is
/// followed by text), and a run of more than a few members, holds up as
/// far as this look can tell. `{"content": "{"name": "a", "v": "1"}", "path": "x"}`:
/// read so, `}` ends the document before `", "path"`, so the quote after `{`
/// is surely text.
pub(super) fn members_hold(
    subject: &Subject<'_>,
    mut c: Cursor<'_>,
    frames: &[Frame],
) -> Scan<bool> {
    for _ in 0..MAX_CANDIDATES {
        c.skip_ws()?;
        c.skip_escaped_ws()?;
        let mut next = if let Some((open, len)) = c.quote_here()? {
            let mut k = c.at(c.pos + len);
            loop {
                let rest = &k.bytes[k.pos.min(k.bytes.len())..];
                let Some(n) = rest.iter().position(|&b| b == b'\\' || may_start_quote(b)) else {
                    return if k.eof { Ok(true) } else { Err(Short) };
                };
                k.pos += n;
                if k.bytes[k.pos] == b'\\' {
                    k.pos += 2;
                    continue;
                }
                match k.closing_quote(open)? {
                    Some((len, _)) => break k.at(k.pos + len),
                    None => k.pos += 1,
                }
            }
        } else {
            match c.token()? {
                Some((Token::Number | Token::Literal(_), len)) => c.at(c.pos + len),
                _ => return Ok(true),
            }
        };
        match within(fit_after_value(&mut next, frames)?, subject.style) {
            Fit::Key(key) if key.sep => c = next.at(key.after),
            fit @ Fit::Closed { .. } => return fits_one_level_out(subject, &next, fit, frames),
            _ => return Ok(true),
        }
    }
    Ok(true)
}
