//! Does this quote end its string? The one decision a string needs.
//!
//! String text is committed as it arrives; only a quote that could close the
//! string waits, and what decides it is the input right after it, read as a
//! continuation of the open containers under the lenient grammar the
//! machine reads with (`fit.rs`, `repair/grammar.rs`):
//!
//! - **A clean string** (no inner quote found in it yet) ends at a quote
//!   followed by anything the grammar reads as the container going on: the
//!   end of input, a closer, a separator (`,`, `,,`, `;`, or none before a
//!   key or a line break) and then a key in any form with any colon form
//!   (in an object) or a value (in an array), comments between. So valid
//!   JSON always passes, every fault the engine mends after a string ends
//!   it, and the fast lane asks the same rule.
//! - **A string already known to hold an inner quote** (the model forgot to
//!   escape its code) needs more (`dirty.rs`): a separator, the key written
//!   in forms the document's own structure uses (its style), a key the
//!   caller's [`Hints`] do not rule out and the object does not have yet,
//!   not inside a bracket the body opened before an inner quote, and a
//!   value after the colon that holds up; a closer must not close a bracket
//!   opened in the body, and what follows it must continue the container
//!   around.
//! - Otherwise the quote is inside the string: it is written escaped.
//!
//! A quote of the string's twin kind (`”` for a string opened by `"`, `"`
//! for one opened by `“`, `’` for `'`) ends it only where no later quote of
//! its own kind would (`{"a": "value”}`, `{“key": 1}`).
//!
//! One more reading applies to a clean string whose body ends in a comma
//! (`{"a": "b, "c": 1}`): if the quote opens a key (or an array element)
//! that fits, the end quote was missing before the comma.
//!
//! Where the choice rests on weak evidence (a member laid out unlike the
//! object's own, a key inside the body's brackets that would otherwise be
//! the next member, a tail dropped after an early close), the answer
//! carries a doubt.
//!
//! Everything here reads at most [`LOOKAHEAD`](super::frame::LOOKAHEAD)
//! bytes after the quote; the caller passes that window and says whether
//! the input ends inside it. A scan that reaches the end of the bytes before
//! the input ended answers [`Judgement::Need`], never a guess, so the
//! decision is the same for every way of cutting the input.

mod ahead;
mod closers;
mod cursor;
mod dirty;
mod fit;
mod openers;
mod quick;
mod strict_rest;
mod subject;

use self::ahead::{later_end, opens_next, value_fits};
pub(super) use self::closers::{How, Planned, Run, RunOp, RunPlan, plan_run};
use self::closers::{run_fits, run_is_plain};
use self::cursor::{Cursor, Scan, Short};
use self::dirty::{closed_ends, dirty_key_ends};
use self::fit::{Fit, fit_after_value, glued_key};
pub(super) use self::openers::{Opener, Repeat, key_first, repeated_members, row_opener};
pub(super) use self::quick::{Quick, bare_key_end, quick_clean_end};
use self::strict_rest::strict_rest;
use self::subject::MAX_KEY;
pub(super) use self::subject::{Judged, Judgement, Role, Subject};
use super::context::Layout;
use super::doubt::DoubtKind;
use super::frame::Frame;
use super::grammar::{self, Faults};
use crate::lex::{self, Closer, Quote, Token};

/// Judge the quote of a string described by `subject`; `after` holds the
/// bytes after the quote (at most the lookahead window) and `eof` says
/// whether the input ends where they do.
pub(super) fn judge(subject: &Subject<'_>, after: &[u8], eof: bool) -> Judged {
    let cursor = Cursor {
        bytes: after,
        pos: 0,
        eof,
        open_comments: subject.clean(),
    };
    let result = match subject.role {
        Role::Key => judge_key(subject, cursor).map(Judged::sure),
        Role::Value => judge_value(subject, cursor),
    };
    result.unwrap_or(Judged::sure(Judgement::Need))
}

/// Whether a clean value string opened by `open` in `frames` ends at the
/// quote of its own kind after which `after` follows (at most the lookahead
/// window; `eof` as for [`judge`]): the fast lane's question, answered by
/// the same rule. `None` when the bytes do not say yet, or the answer is in
/// doubt (the machine then judges the quote itself and records it).
/// `trailing_comma` says whether the body ends with a comma; it is asked
/// only off the common path, as is `last`, the body's last byte (see
/// `Subject::last`).
#[inline]
pub(super) fn clean_value_ends(
    frames: &[Frame],
    open: Quote,
    trailing_comma: impl FnOnce() -> bool,
    last: impl FnOnce() -> Option<u8>,
    after: &[u8],
    eof: bool,
) -> Option<bool> {
    // (The quick rule reads only what follows the quote, so it holds for a
    // `'` string as for a `"` one.)
    let _ = open;
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
        trailing_comma: trailing_comma(),
        last: last(),
        ..Subject::clean_value(frames, open)
    };
    match judge(&subject, after, eof) {
        Judged {
            judgement: Judgement::Need,
            ..
        }
        | Judged { doubt: Some(_), .. } => None,
        Judged { judgement, .. } => Some(judgement == Judgement::End),
    }
}

/// A key ends at a quote unless what follows is text and a later quote on
/// the same line is followed by a colon (`{"say "hi"": 1}`). A twin quote
/// (`{"key”: 1}`) ends it only when a colon follows it and no quote of the
/// key's own kind does so further on the line.
fn judge_key(subject: &Subject<'_>, mut c: Cursor<'_>) -> Scan<Judgement> {
    // Whitespace only: a key's text may hold what looks like a comment
    // (`{"a/*": 1}`).
    while c.peek()?.is_some_and(lex::is_ws) {
        c.pos += 1;
    }
    let Some(b) = c.peek()? else {
        return Ok(Judgement::End);
    };
    if colon_here(&c)? {
        // `"key":`, `"key" =`, `"key"：`, and a twin's `"key”:`.
        if subject.closer == Closer::Own {
            return Ok(Judgement::End);
        }
    } else if c.pos == 0
        && subject.plain()
        && subject.last.is_some_and(lex::is_ws)
        && value_then_member(subject, c.at(0))?
    {
        return Ok(Judgement::KeyThenValue);
    } else if subject.closer == Closer::Twin {
        return Ok(Judgement::Inner);
    } else if lex::is_ws(b) || !(b.is_ascii_alphanumeric() || b >= 0x80 || b == b'_') {
        return Ok(Judgement::End);
    }
    let twin = subject.closer == Closer::Twin;
    if twin && subject.open == Quote::Double && subject.valid_so_far {
        // In a document that may be valid JSON, read as valid JSON reads
        // it: when the key's first `"` further on is followed by a colon
        // and what follows is valid JSON, the twin is text (`{"“:,": 1}`).
        let mut probe = c.at(c.pos);
        loop {
            match probe.peek()? {
                None | Some(b'\n') => break,
                Some(b'\\') => probe.pos += 2,
                Some(b'"') => {
                    let rest = probe.at(probe.pos + 1);
                    if strict_rest(&rest, subject.frames, true)? {
                        return Ok(Judgement::Inner);
                    }
                    break;
                }
                Some(_) => probe.pos += 1,
            }
        }
    }
    let mut probe = c.at(c.pos);
    loop {
        if probe.pos > MAX_KEY {
            return Ok(Judgement::End);
        }
        match probe.peek()? {
            None | Some(b'\n' | b',' | b'{' | b'}' | b'[' | b']') => return Ok(Judgement::End),
            Some(b':') if !twin => return Ok(Judgement::End),
            Some(b'\\') => probe.pos += 2,
            Some(_) => {
                let found = match probe.closing_quote(subject.open)? {
                    Some((len, closer)) if !twin || closer == Closer::Own => Some(len),
                    _ => None,
                };
                if let Some(len) = found {
                    let mut colon = probe.at(probe.pos + len);
                    colon.skip_spaces()?;
                    if colon_here(&colon)? {
                        return Ok(Judgement::Inner);
                    }
                }
                probe.pos += 1;
            }
        }
    }
}

/// For a key whose body ends with whitespace and whose quote is followed
/// by text (`{"title "K2", "x": 1}`): whether that text is a value whose
/// opening quote this is, up to the first quote on the line, after which
/// the object goes on (another member, a closer, the end).
fn value_then_member(subject: &Subject<'_>, c: Cursor<'_>) -> Scan<bool> {
    match c.peek()? {
        Some(b) if !lex::is_ws(b) && !matches!(b, b'"' | b':' | b',') => {}
        _ => return Ok(false),
    }
    let mut k = c.pos;
    loop {
        let probe = c.at(k);
        match probe.peek()? {
            None | Some(b'\n') => return Ok(false),
            Some(b'\\') => k += 2,
            Some(b'"') => {
                let mut next = c.at(k + 1);
                let fit = fit_after_value(&mut next, subject.frames)?;
                return Ok(matches!(fit, Fit::Eof | Fit::Closed { .. }) || fit.has_sep());
            }
            Some(_) => k += 1,
        }
    }
}

/// Whether a colon in any form the machine reads (`:`, `=`, `=>`, `：`)
/// stands at the position.
fn colon_here(c: &Cursor<'_>) -> Scan<bool> {
    Ok(match c.token()? {
        Some((token, len)) => grammar::colon_at(token, len, &c.bytes[c.pos..]).is_some(),
        None => false,
    })
}

fn judge_value(subject: &Subject<'_>, mut c: Cursor<'_>) -> Scan<Judged> {
    let frames = subject.frames;
    // The quick rule first, for the strings the fast lane asks it about
    // too (`clean_value_ends`, `"` and `'`): the machine and the lane must
    // read a quote alike, or a stream cut into small chunks (the machine's)
    // reads `{'_': ''⏎'}': 1}` otherwise than one shot (the lane's).
    if subject.plain() && matches!(subject.open, Quote::Double | Quote::Single) {
        match quick_clean_end(frames, c.bytes, c.eof) {
            Quick::End | Quick::EndAtKey { .. } => return Ok(Judged::sure(Judgement::End)),
            Quick::Need => return Err(Short),
            Quick::Unknown => {}
        }
    }
    // `"72""`: another quote right after this one, which itself ends the
    // string, makes this one inner. With a line break between (`"a"⏎"b"`),
    // the second may as well open the next value after a missing comma.
    let mut probe = c.at(c.pos);
    let gap = probe.skip_ws()?;
    if let Some((len, _)) = probe.closing_quote(subject.open)? {
        let mut next = probe.at(probe.pos + len);
        let fit = fit_after_value(&mut next, frames)?;
        if matches!(fit, Fit::Eof | Fit::Closed { .. }) || fit.has_sep() {
            let doubt = (gap.newline && subject.clean()).then_some(DoubtKind::QuoteAsText);
            return Ok(Judged::ends(false, doubt));
        }
    }
    let start = c.pos;
    if subject.clean() && concatenated(c.at(start))? {
        return Ok(Judged::sure(Judgement::End));
    }
    let mut fit = fit_after_value(&mut c, frames)?;
    let escaped_ws =
        fit.faults().contains(Faults::ESCAPED_WS) && !subject.style.contains(Faults::ESCAPED_WS);
    if escaped_ws {
        // `\n` between members is whitespace only in a document that has
        // written line breaks so between its tokens: code's own otherwise.
        fit = Fit::Misfit;
    }
    if !subject.clean()
        && fit
            .faults()
            .beyond(subject.style)
            .contains(Faults::FRAGMENT)
    {
        // After code, a stray `",` is more of the code (`"a": "x",",` in a
        // JSON snippet) unless the document has had one.
        fit = Fit::Misfit;
    }
    // A continuation that needs a missing comma is a weaker reading than "the
    // end quote was missing before the comma the body ends with".
    let weak = matches!(fit, Fit::Key(_) | Fit::Element { .. } | Fit::Misfit) && !fit.has_sep();
    if weak
        && subject.plain()
        && subject.trailing_comma
        && !subject.open_brackets.contains(&true)
        && subject
            .context
            .is_none_or(|ctx| ctx.gap_layout(subject.comma_gap) != Layout::Other)
        && opens_next(subject, c.at(0))?
    {
        return Ok(Judged::sure(Judgement::EndBeforeComma));
    }
    // `"text the model cut"rating": 4,`: a bare key glued to the quote.
    let glued = match fit {
        Fit::Misfit if subject.plain() && subject.may_glue() => glued_key(c.at(start), frames)?,
        _ => None,
    };
    let judged = match fit {
        Fit::Eof => Judged::sure(Judgement::End),
        _ if subject.clean() && clean_fit_ends(fit, start) => Judged::sure(Judgement::End),
        // `"x""b": "y"`: a key right after the quote, no separator or space
        // between, is the next member only when a plain value follows it
        // (code reads `python3 -c ""obj": {…}` this way).
        Fit::Key(key) if subject.clean() && !key.sep => {
            Judged::ends(plain_value(subject, c.at(key.after))?, None)
        }
        // `"text the model cut"rating": 4,`: the value's end, the
        // separator and the next key's opening quote dropped around a
        // quote glued to the text.
        Fit::Misfit if let Some(after) = glued => {
            Judged::ends(plain_value(subject, c.at(after))?, None)
        }
        Fit::Key(key) => dirty_key_ends(subject, &c, key, start)?,
        Fit::Element { at, faults, .. } => {
            // After code, an element written in forms the document uses.
            let ends = faults
                .beyond(subject.style | Faults::NO_SEPARATOR)
                .is_empty()
                && value_fits(subject, c.at(at), frames)?;
            Judged::ends(ends, None)
        }
        Fit::Closed {
            skipped: true,
            after,
            depth,
            ..
        } if subject.clean() => {
            // `[{"a": "b"], "c": 1}`: right if the container around goes on;
            // `"x"}]}` for `"x"]}}`: right if the run of closers, mended as
            // a whole, lets what follows go on.
            let mut rest = c.at(after);
            let outer = fit_after_value(&mut rest, &frames[..depth])?;
            let mut run = c.at(start);
            run.skip_ws()?;
            Judged::ends(
                matches!(outer, Fit::Eof | Fit::Closed { .. })
                    || outer.has_sep()
                    || run_fits(frames, &run, subject.style)?,
                None,
            )
        }
        Fit::Closed { after, depth, .. } => {
            let mut run = c.at(start);
            run.skip_ws()?;
            if run_is_plain(frames, &run, subject.style)? || closers_then_end(run)? {
                closed_ends(subject, c.at(after), depth)?
            } else {
                // Code followed by closers that would need mending: code.
                Judged::ends(false, None)
            }
        }
        Fit::Trailing => Judged::ends(!later_end(subject, c.at(start), false)?, None),
        Fit::Misfit
            if subject.clean() && frames == [Frame::Array] && colon_follows(c.at(start))? =>
        {
            // `[ "bbox": …`: the first key of an object opened as an array
            // (the machine turns the `[` into `{`, `Machine::array_was_object`).
            Judged::sure(Judgement::End)
        }
        Fit::Misfit if subject.clean() => {
            // A closer no open container takes (`"x"]` in an object opened
            // as an array): right if the run it starts, mended, fits.
            let mut run = c.at(start);
            run.skip_ws()?;
            let closer = matches!(run.peek()?, Some(b'}' | b']'));
            Judged::ends(closer && run_fits(frames, &run, subject.style)?, None)
        }
        Fit::Misfit => Judged::ends(false, None),
    };
    if judged.judgement == Judgement::End
        && subject.closer == Closer::Twin
        && ((matches!(fit, Fit::Key(_) | Fit::Element { .. }) && !fit.has_sep())
            || later_end(subject, c.at(start), true)?)
    {
        // A twin is text unless the container goes on plainly after it
        // (`"“'“"`: no separator), and no quote of the string's own kind
        // ends it further on (`"it”s a”, "b": 1`).
        return Ok(Judged::sure(Judgement::Inner));
    }
    if escaped_ws
        && subject.clean()
        && judged.judgement == Judgement::Inner
        && judged.doubt.is_none()
    {
        // A clean string, then `",\n  "key":`: the first line break of a
        // document escaped once too often, or text (a doubt either way).
        return Ok(Judged::ends(false, Some(DoubtKind::QuoteAsText)));
    }
    Ok(judged)
}

/// Whether a colon follows at `c` (whitespace before it).
fn colon_follows(mut c: Cursor<'_>) -> Scan<bool> {
    c.skip_spaces()?;
    Ok(c.peek()? == Some(b':'))
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

/// Whether the value at `c` is a plain one: a string whose first closing
/// quote is followed by what its container expects, or a number or literal
/// followed by that.
fn plain_value(subject: &Subject<'_>, mut c: Cursor<'_>) -> Scan<bool> {
    c.skip_ws()?;
    let start = if let Some((quote, len)) = c.quote_here()? {
        let mut k = c.pos + len;
        loop {
            let probe = c.at(k);
            match probe.peek()? {
                None | Some(b'\n') => return Ok(false),
                Some(b'\\') => k += 2,
                Some(_) => match probe.closing_quote(quote)? {
                    Some((n, _)) => break k + n,
                    None => k += 1,
                },
            }
        }
    } else {
        match c.token()? {
            Some((Token::Number | Token::Literal(_), len)) => c.pos + len,
            // A container, after a body that ends in text (see
            // `Subject::may_glue`): `"x""rows": [`.
            Some((Token::BraceOpen | Token::BracketOpen, _)) => return Ok(subject.may_glue()),
            _ => return Ok(false),
        }
    };
    let mut next = c.at(start);
    let fit = fit_after_value(&mut next, subject.frames)?;
    Ok(matches!(fit, Fit::Eof | Fit::Closed { .. }) || fit.has_sep())
}

/// For a clean string: every continuation the grammar reads ends it (a
/// closer that skips the innermost container is judged by what follows).
/// A missing separator needs whitespace where it is missing: `"x" "b": 1`
/// is a member, `"x""b": 1` (a quote right after the quote, from `start`)
/// the text of code (`python3 -c ""obj": …`).
fn clean_fit_ends(fit: Fit, start: usize) -> bool {
    match fit {
        Fit::Key(key) => key.sep || key.gap.1 > key.gap.0,
        Fit::Element { sep, at, .. } => sep || at > start,
        Fit::Eof | Fit::Closed { skipped: false, .. } => true,
        _ => false,
    }
}

/// Whether only closers and whitespace are left to the end of the input
/// at `c`: a string holding code that ends the arguments, with one closer
/// too many after it (`…out.txt"}}` where one object is open, the call
/// object's closer), ends at its quote as a clean one would.
fn closers_then_end(mut c: Cursor<'_>) -> Scan<bool> {
    loop {
        c.skip_ws()?;
        match c.peek()? {
            None => return Ok(true),
            Some(b'}' | b']') => c.pos += 1,
            Some(_) => return Ok(false),
        }
    }
}

#[cfg(test)]
mod tests;
