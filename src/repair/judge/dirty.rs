//! The quotes of a string already known to hold inner quotes: code or
//! prose whose quotes the model did not escape. Such a string ends only
//! where the evidence of the whole container agrees, and where the evidence
//! is weak the answer carries a doubt.

use super::ahead::{Balanced, later_balanced_end, later_end, members_hold, value_fits};
use super::cursor::{Cursor, Scan};
use super::fit::{Fit, KeyFit, closer_byte, fit_after_value, within};
use super::subject::{Judged, Subject};
use crate::repair::context::Layout;
use crate::repair::doubt::DoubtKind;
use crate::repair::grammar::Faults;
use crate::repair::hints::KeyHint;

/// A key and its colon after a quote of a string known to hold inner
/// quotes; `from` is where the bytes after the quote start being read.
pub(super) fn dirty_key_ends(
    subject: &Subject<'_>,
    c: &Cursor<'_>,
    key: KeyFit,
    from: usize,
) -> Scan<Judged> {
    let frames = subject.frames;
    let name = &c.bytes[key.name.0..key.name.1];
    let hint = subject.hints.map(|h| h.key(frames.len(), name));
    if hint == Some(KeyHint::Undeclared) {
        // The caller's schema rules the key out: the quote is code's. When
        // the key list is only argmend's guess at the tool's parameters, a
        // member laid out as the object's own may be one the guess missed.
        let guessed = subject.hints.is_some_and(|h| h.is_assumed())
            && key.sep
            && layout(subject, c, &key)? == Layout::Same
            && value_fits(subject, c.at(key.after), frames)?;
        return Ok(Judged::ends(
            false,
            guessed.then_some(DoubtKind::QuoteAsText),
        ));
    }
    if subject.context.is_some_and(|ctx| ctx.has_key(name)) {
        // `"path": '/b'` inside the content of a call that gave its path:
        // a key the object already has is the code's own; when it is laid
        // out as the object's members and its value holds up, the model may
        // as well have repeated the key (a doubt).
        let alike = key.sep
            && layout(subject, c, &key)? == Layout::Same
            && value_fits(subject, c.at(key.after), frames)?;
        return Ok(Judged::ends(false, alike.then_some(DoubtKind::QuoteAsText)));
    }
    let layout = layout(subject, c, &key)?;
    // The forms the document's own structure has not used (a bare key, `=`,
    // `;`): code written that way is more likely than a change of style.
    let beyond = key.faults.beyond(subject.style);
    if !key.sep {
        // A missing comma after code: only where the member stands on a
        // line of its own, laid out as the object's own members are.
        let lined =
            key.newline && layout == Layout::Same && beyond.beyond(Faults::NO_SEPARATOR).is_empty();
        if !(lined || hint == Some(KeyHint::Declared)) {
            return Ok(Judged::ends(false, None));
        }
        let fits = value_fits(subject, c.at(key.after), frames)?;
        return Ok(Judged::ends(
            fits,
            fits.then_some(DoubtKind::NewlineBoundary),
        ));
    }
    if !beyond.is_empty() && hint != Some(KeyHint::Declared) {
        return Ok(Judged::ends(false, None));
    }
    if key.quote.is_none() && !subject.style.contains(Faults::KEY_BARE) && hint.is_none() {
        return Ok(Judged::ends(false, None));
    }
    let after = c.at(key.after);
    if layout == Layout::Other && hint.is_none() {
        // Laid out unlike the object's own members (`,\n      "type": …` in
        // a call written on one line): the code's own structure.
        return Ok(Judged::ends(false, None));
    }
    let enclosed = subject.enclosed.contains(&true);
    let balanced = if enclosed {
        later_balanced_end(subject, c.at(from))?
    } else {
        Balanced::None
    };
    if balanced != Balanced::None {
        // `x = {"a": "b", "c": 1}`: the key is inside a bracket the body
        // opened, and a later quote ends the string once it is closed. Only
        // a declared key whose value holds up says otherwise. When that
        // later end is itself followed by a member, not by the end of the
        // object, it may be in the next member's text (an edit's
        // `old_string` cut inside a block, the block closed in `new_string`):
        // a guess.
        let fits = value_fits(subject, after, frames)?;
        if hint == Some(KeyHint::Declared) {
            return Ok(Judged::ends(fits, None));
        }
        let alike = subject.context.is_some_and(|ctx| ctx.resembles(name));
        let doubt = ((balanced == Balanced::Member || (alike && layout == Layout::Same))
            && members_hold(subject, c.at(key.after), frames)?)
        .then_some(DoubtKind::QuoteAsText);
        return Ok(Judged::ends(false, doubt));
    }
    if hint == Some(KeyHint::Declared) {
        return Ok(Judged::ends(true, None));
    }
    if !value_fits(subject, after, frames)? {
        // The value after the colon does not hold up: code, unless the
        // member looks exactly like the object's own.
        let doubt = (layout == Layout::Same).then_some(DoubtKind::QuoteAsText);
        return Ok(Judged::ends(false, doubt));
    }
    // The next member, surely so only when laid out as the object's own
    // and not inside a bracket the code left open.
    // (`{"$schema": "…", "title": …` in a JSON file's content looks like
    // the object's own members.)
    let json_like = subject.keyish && (subject.enclosed[1] || subject.enclosed[2]);
    let doubt = (layout != Layout::Same || json_like).then_some(DoubtKind::QuoteAsEnd);
    Ok(Judged::ends(true, doubt))
}

/// How the candidate member is laid out against the object's own members.
fn layout(subject: &Subject<'_>, c: &Cursor<'_>, key: &KeyFit) -> Scan<Layout> {
    let Some(context) = subject.context else {
        return Ok(Layout::Unknown);
    };
    let gap = &c.bytes[key.gap.0..key.gap.1];
    // The colon and the spaces after it, up to the value (which must have
    // arrived: the spaces may go on).
    let mut value = c.at(key.after);
    value.skip_spaces()?;
    value.peek()?;
    let colon = &c.bytes[key.close..value.pos];
    Ok(if key.sep {
        context.layout(gap, colon)
    } else {
        // No comma: the gap is the object's own without it.
        let mut with_comma = Vec::with_capacity(gap.len() + 1);
        with_comma.push(b',');
        with_comma.extend_from_slice(gap);
        context.layout(&with_comma, colon)
    })
}

/// After a closer that follows a quote of a string known to hold inner quotes.
pub(super) fn closed_ends(subject: &Subject<'_>, mut c: Cursor<'_>, depth: usize) -> Scan<Judged> {
    let kind = match closer_byte(c.bytes, c.pos) {
        b')' => 0,
        b']' => 1,
        _ => 2,
    };
    let closes_body = subject.open_brackets[kind];
    if closes_body && later_end(subject, c.at(c.pos), false)? {
        // It closes a bracket the body opened (`x = {"a": "b"} y"`), and a
        // later quote could end the string.
        return Ok(Judged::ends(false, None));
    }
    // A closer that might close the body's own bracket ends it on a guess,
    // when the container goes on after it (at the end of input, reading
    // on would leave the string unended).
    let doubt = closes_body.then_some(DoubtKind::QuoteAsEnd);
    let outer = &subject.frames[..depth];
    let fit = within(fit_after_value(&mut c, outer)?, subject.style);
    Ok(match fit {
        // After the top-level value, more text: the quote ends the string
        // only if no later quote could, and then what follows is dropped.
        Fit::Element { sep: false, .. } | Fit::Trailing if outer.is_empty() => {
            let ends = !later_end(subject, c, false)?;
            Judged::ends(ends, ends.then_some(DoubtKind::EarlyClose))
        }
        Fit::Eof | Fit::Closed { .. } => Judged::ends(true, None),
        Fit::Key(_) | Fit::Element { .. } => {
            let ends = fit
                .faults()
                .beyond(subject.style | Faults::NO_SEPARATOR)
                .is_empty();
            Judged::ends(ends, if ends { doubt } else { None })
        }
        Fit::Trailing => Judged::ends(!later_end(subject, c, false)?, None),
        Fit::Misfit => Judged::ends(false, None),
    })
}
