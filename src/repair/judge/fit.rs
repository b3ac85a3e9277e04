//! What follows a value, read as a continuation of its containers under
//! the lenient grammar (`repair/grammar.rs`): the machine's lexer reads the
//! tokens, the grammar classifies them, and the lenient forms a reading
//! needed are reported as [`Faults`].

use super::cursor::{Cursor, Gap, Scan, Short};
use super::subject::MAX_KEY;
use crate::lex::{self, Closer, Quote, Token};
use crate::repair::frame::{Frame, LOOKAHEAD};
use crate::repair::grammar::{self, Faults, Fragment};

/// What follows a value, read as a continuation of its containers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    /// Nothing but whitespace and comments to the end of input.
    Eof,
    /// A separator (or none) and then a key and its colon.
    Key(KeyFit),
    /// In an array: a separator (or none) and then the start of a value at `at`.
    Element {
        at: usize,
        sep: bool,
        faults: Faults,
    },
    /// A closer an open container takes; `after` is just past it and `depth`
    /// the number of containers still open after it. `skipped`: it closes an
    /// outer container, the innermost left open (a repair).
    Closed {
        after: usize,
        depth: usize,
        skipped: bool,
        faults: Faults,
    },
    /// After the top-level value: more text.
    Trailing,
    /// Nothing a container could hold.
    Misfit,
}

/// A key and its colon after a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct KeyFit {
    /// The raw key text (between its quotes).
    pub(super) name: (usize, usize),
    /// The quote that opened it, if it was quoted.
    pub(super) quote: Option<Quote>,
    /// Just past the key (its closing quote included).
    pub(super) close: usize,
    /// Where the value after the colon starts.
    pub(super) after: usize,
    /// Whether a separator came before the key.
    pub(super) sep: bool,
    /// The lenient forms the reading needed.
    pub(super) faults: Faults,
    /// The bytes between the value and the key (`, `, `,\n  `).
    pub(super) gap: (usize, usize),
    /// A line break lies between the value and the key.
    pub(super) newline: bool,
}

impl Fit {
    /// Whether a separator came before what follows (a key or an element).
    pub(super) fn has_sep(self) -> bool {
        match self {
            Fit::Key(key) => key.sep,
            Fit::Element { sep, .. } => sep,
            _ => false,
        }
    }

    /// The lenient forms the reading needed.
    pub(super) fn faults(self) -> Faults {
        match self {
            Fit::Key(key) => key.faults,
            Fit::Element { faults, .. } | Fit::Closed { faults, .. } => faults,
            _ => Faults::NONE,
        }
    }
}

/// What follows a value in `frames` (its container last), from `c`.
pub(super) fn fit_after_value(c: &mut Cursor<'_>, frames: &[Frame]) -> Scan<Fit> {
    let start = c.pos;
    let gap = c.skip_ws()?;
    let mut faults = comment_fault(gap);
    let Some((token, len)) = c.token()? else {
        return Ok(Fit::Eof);
    };
    if token == Token::Fence && c.closing_fence()? {
        // ```` ``` ```` on its own: the fenced block (the document) ends.
        return Ok(Fit::Eof);
    }
    let Some(&top) = frames.last() else {
        // After a top-level value: another value (`Values::Lines` and
        // `Values::Array` keep it; `Values::First` drops it), or text.
        if grammar::starts_solid_value(token) {
            return Ok(Fit::Element {
                at: c.pos,
                sep: false,
                faults,
            });
        }
        return Ok(Fit::Trailing);
    };
    if let Some(fit) = closed(c, frames, token, len, faults) {
        return Ok(fit);
    }
    if grammar::is_separator(token) && top != Frame::Call {
        // One separator, or a run of them (`,,`, `;`, `, ;`), with
        // whitespace and comments between.
        let mut n = 0;
        let mut token = token;
        let mut len = len;
        loop {
            n += 1;
            if token == Token::Semicolon {
                faults |= Faults::SEPARATOR;
            }
            if len > 1 {
                faults |= Faults::WIDE;
            }
            c.pos += len;
            faults |= comment_fault(c.skip_ws()?);
            if matches!(top, Frame::Object | Frame::Array) && c.skip_escaped_ws()? {
                // `,\n  "key":`, `},\n  {`: line breaks written as escapes
                // before a key or an element, read so only in a document
                // that has written them between its tokens (see `within`
                // and the judge's `escaped_ws`).
                faults |= Faults::ESCAPED_WS;
            }
            if top == Frame::Object && token == Token::Comma {
                // `",` and `"",` between members: the remains of a member
                // written twice, read as more of the separator. (Not after
                // a `;`: code ends a statement with `";",` as in `"C:\\";",
                // "b": 1`, where the fragment reading cuts the code short.)
                while c.peek()? == Some(b'"') {
                    match grammar::fragment_at(&c.bytes[c.pos..], c.eof) {
                        Fragment::Len(n) => {
                            faults |= Faults::FRAGMENT;
                            c.pos += n;
                            faults |= comment_fault(c.skip_ws()?);
                        }
                        Fragment::Need => return Err(Short),
                        Fragment::No => break,
                    }
                }
            }
            match c.token_start()? {
                Some((next, next_len)) if grammar::is_separator(next) => {
                    (token, len) = (next, next_len);
                }
                Some((Token::Ellipsis, next_len)) => {
                    // `"a", ...]`, `"a", ..., "z"`: the machine drops an
                    // ellipsis where an element may stand, as it drops a
                    // doubled comma; what follows it decides.
                    faults |= Faults::SEPARATOR;
                    c.pos += next_len;
                    faults |= comment_fault(c.skip_ws()?);
                    match c.token_start()? {
                        Some((next, next_len)) if grammar::is_separator(next) => {
                            (token, len) = (next, next_len);
                        }
                        Some(found) => {
                            (token, len) = found;
                            break;
                        }
                        None => return Ok(Fit::Eof),
                    }
                }
                Some(found) => {
                    (token, len) = found;
                    break;
                }
                None => return Ok(Fit::Eof),
            }
        }
        if n > 1 {
            faults |= Faults::SEPARATOR;
        }
        if let Some(fit) = closed(c, frames, token, len, faults) {
            return Ok(fit);
        }
        if top == Frame::Object {
            let newline = c.bytes[start..c.pos].contains(&b'\n');
            let mut key = c.at(c.pos);
            if token == Token::Word
                && let Some(next) = after_prose_line(&key)?
            {
                // A line of prose between members (`,\n  Here are the
                // rest:\n  "b": 1`): the machine drops it
                // (`Machine::prose_line`); the key after it decides.
                key = next;
            }
            if token == Token::BraceOpen {
                // `, {"a": …`: the object begun again (the machine drops
                // the `{`, `Machine::reopened`); the key after it decides.
                key.pos += len;
                key.skip_ws()?;
            }
            return key_at(key, Stray::Allowed, faults, (start, c.pos), newline, true);
        }
        if grammar::starts_value(token) && token != Token::Other && token != Token::Backslash {
            return Ok(Fit::Element {
                at: c.pos,
                sep: true,
                faults,
            });
        }
        return Ok(Fit::Misfit);
    }
    faults |= Faults::NO_SEPARATOR;
    match top {
        Frame::Object => {
            // A missing comma: a quoted key and its colon, or a bare one on
            // a line of its own (`"John"\n  lastName: "Smith"`).
            let mut at = c.at(c.pos);
            if gap.newline
                && token == Token::Word
                && let Some(next) = after_prose_line(&at)?
            {
                // A line of prose after a member, then a quoted key.
                at = next;
                if at.quote_here()?.is_some() {
                    return key_at(at, Stray::Refused, faults, (start, c.pos), true, false);
                }
            }
            let key = matches!(token, Token::Quote(_))
                || (gap.newline && grammar::key_form(token).is_some());
            if key {
                return key_at(
                    c.at(c.pos),
                    Stray::Refused,
                    faults,
                    (start, c.pos),
                    gap.newline,
                    false,
                );
            }
            Ok(Fit::Misfit)
        }
        // A missing comma: a value that cannot be text (`["a" 2]`,
        // `["a" "b"]`); a bare word here is more of the string's text.
        Frame::Array | Frame::Tuple | Frame::Root
            if grammar::starts_solid_value(token)
                && (token != Token::Minus || c.peek_at(1)?.is_some_and(|b| b.is_ascii_digit())) =>
        {
            Ok(Fit::Element {
                at: c.pos,
                sep: false,
                faults,
            })
        }
        Frame::Array | Frame::Tuple | Frame::Root | Frame::Call => Ok(Fit::Misfit),
    }
}

/// The longest line of prose between members that is read past.
const MAX_PROSE_LINE: usize = 512;

/// When the bytes at `c` start a line of prose where a key belongs
/// (`grammar::is_prose_line`) and a quoted key or a closer starts the next
/// line: a cursor at that next line's first token.
fn after_prose_line<'b>(c: &Cursor<'b>) -> Scan<Option<Cursor<'b>>> {
    let rest = &c.bytes[c.pos.min(c.bytes.len())..];
    let end = match grammar::prose_line_end(rest, MAX_PROSE_LINE) {
        Some(Some(end)) => end,
        Some(None) => return Ok(None),
        None if c.eof => return Ok(None),
        None => return Err(Short),
    };
    if !grammar::is_prose_line(&rest[..end]) {
        return Ok(None);
    }
    let mut next = c.at(c.pos + end);
    next.skip_ws()?;
    Ok(match next.peek()? {
        Some(b'"' | b'}') | None => Some(next),
        Some(_) => None,
    })
}

/// `fit`, as a string already known to hold code reads it: a continuation
/// that needs a lenient form the document's own structure has not used
/// (`style`) is more of the code (`\nversion = "1"` in TOML), not the
/// container going on. A missing separator is judged by the caller.
pub(super) fn within(fit: Fit, style: Faults) -> Fit {
    if fit.faults().beyond(style | Faults::NO_SEPARATOR).is_empty() {
        fit
    } else {
        Fit::Misfit
    }
}

fn comment_fault(gap: Gap) -> Faults {
    if gap.comment {
        Faults::COMMENT
    } else {
        Faults::NONE
    }
}

/// A closer `token` at `c`: taken by an open container (a [`Fit::Closed`]),
/// a misfit when none takes it, `None` when it is no closer.
fn closed(
    c: &Cursor<'_>,
    frames: &[Frame],
    token: Token,
    len: usize,
    faults: Faults,
) -> Option<Fit> {
    if !matches!(
        token,
        Token::BraceClose | Token::BracketClose | Token::ParenClose
    ) {
        return None;
    }
    let faults = if len > 1 {
        faults | Faults::WIDE
    } else {
        faults
    };
    Some(match frames.iter().rposition(|f| f.is_closed_by(token)) {
        Some(depth) => Fit::Closed {
            after: c.pos + len,
            depth,
            skipped: depth + 1 != frames.len(),
            faults,
        },
        None => Fit::Misfit,
    })
}

/// How sure the caller is that a key follows: after a separator, a bare key
/// may end with a stray quote (`b":`, its opening quote missing) and the end
/// of input inside it is a member cut off; without one (a missing comma),
/// the key must be whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stray {
    Allowed,
    Refused,
}

/// A key and its colon at `c`, in any form the machine reads: quoted by any
/// quote (`"name"`, `'name'`, `“name”`, `` `name` ``, a mixed pair), bare
/// (`name`, `true`) or a number (`5`, `2.17`).
pub(super) fn key_at(
    c: Cursor<'_>,
    stray: Stray,
    faults: Faults,
    gap: (usize, usize),
    newline: bool,
    sep: bool,
) -> Scan<Fit> {
    let Some((token, len)) = c.token()? else {
        return Ok(Fit::Eof);
    };
    let Some(form) = grammar::key_form(token) else {
        return Ok(Fit::Misfit);
    };
    let mut faults = faults | form;
    let (name, quote, mut end) = if let Token::Quote(quote) = token {
        let start = c.pos + len;
        let mut k = start;
        loop {
            let probe = c.at(k);
            match probe.peek()? {
                // The input ends in the key: after a comma, a member cut off
                // (unless the "key" holds structure: `,"}` ends a document);
                // the window ends in it: a long key, as valid JSON may have.
                None if stray == Stray::Allowed
                    && (c.bytes.len() >= LOOKAHEAD
                        || !has_structure(&c.bytes[start..k.min(c.bytes.len())])) =>
                {
                    return Ok(Fit::Eof);
                }
                // `"tags: {⏎`: a key that lost its end quote before its
                // colon, its value's opener ending the line.
                Some(b'\n') if quote == Quote::Double => {
                    return Ok(match grammar::colon_in_key(&c.bytes[start..k]) {
                        Some(n) => Fit::Key(KeyFit {
                            name: (start, start + n),
                            quote: Some(quote),
                            close: start + n,
                            after: start + n + 1,
                            sep,
                            faults,
                            gap,
                            newline,
                        }),
                        None => Fit::Misfit,
                    });
                }
                None | Some(b'\n') => return Ok(Fit::Misfit),
                Some(b'\\') => k += 2,
                Some(_) => {
                    if let Some((n, closer)) = probe.closing_quote(quote)? {
                        if closer == Closer::Own {
                            break ((start, k), Some(quote), c.at(k + n));
                        }
                        // A twin ends the key only where a colon follows it,
                        // as the machine reads a key: a twin only where no
                        // own quote would (`'`': 1`, `'it’s': 1`).
                        let mut after = c.at(k + n);
                        after.skip_ws()?;
                        if after.peek()? == Some(b':') {
                            faults |= Faults::KEY_TYPOGRAPHIC;
                            break ((start, k), Some(quote), c.at(k + n));
                        }
                        k += n;
                        continue;
                    }
                    k += 1;
                }
            }
        }
    } else {
        let mut k = c.pos;
        while let Some(d) = c.at(k).peek()? {
            if !(d.is_ascii_alphanumeric() || matches!(d, b'_' | b'$' | b'-' | b'.' | b'+')) {
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
        ((c.pos, k), None, c.at(end))
    };
    let close = end.pos;
    let gap_ws = end.skip_ws()?;
    if gap_ws.comment {
        faults |= Faults::COMMENT;
    }
    let colon = match end.token()? {
        Some((token, len)) => grammar::colon_at(token, len, &end.bytes[end.pos..]),
        None if stray == Stray::Allowed => return Ok(Fit::Eof),
        None => return Ok(Fit::Misfit),
    };
    match colon {
        Some((n, form)) => Ok(Fit::Key(KeyFit {
            name,
            quote,
            close,
            after: end.pos + n,
            sep,
            faults: faults | form,
            gap,
            newline,
        })),
        // `"selected: ["A"`, `"name: "Ada"`: the key's end quote dropped
        // before its colon, as the machine reads it (`Machine::value_after_colon`).
        None if quote == Some(Quote::Double) => {
            Ok(match grammar::colon_in_key(&c.bytes[name.0..name.1]) {
                Some(k) => Fit::Key(KeyFit {
                    name: (name.0, name.0 + k),
                    quote,
                    close: name.0 + k,
                    after: name.0 + k + 1,
                    sep,
                    faults,
                    gap,
                    newline,
                }),
                None => Fit::Misfit,
            })
        }
        None => Ok(Fit::Misfit),
    }
}

/// A bare key glued to the quote at `c` and ended by a stray quote, then its
/// colon: `rating": 4` right after `"text the model cut"`. The key is read as
/// the machine reads a bare key (up to the quote; the quote is dropped).
/// Where the value after the colon starts; `None` when there is no such key.
pub(super) fn glued_key(c: Cursor<'_>, frames: &[Frame]) -> Scan<Option<usize>> {
    if frames.last() != Some(&Frame::Object) {
        return Ok(None);
    }
    let mut k = c.pos;
    loop {
        let probe = c.at(k);
        match probe.peek()? {
            Some(b'"') if k > c.pos => break,
            Some(d) if d.is_ascii_alphanumeric() || matches!(d, b'_' | b'$' | b'-' | b'.') => {
                k += 1
            }
            // Text in another script, but not a quote of another kind.
            Some(d) if d >= 0x80 && probe.quote_here()?.is_none() => k += 1,
            _ => return Ok(None),
        }
        if k - c.pos > MAX_KEY {
            return Ok(None);
        }
    }
    let mut colon = c.at(k + 1);
    colon.skip_spaces()?;
    Ok(match colon.token()? {
        Some((token, len)) => {
            grammar::colon_at(token, len, &colon.bytes[colon.pos..]).map(|(n, _)| colon.pos + n)
        }
        None => None,
    })
}

/// Whether `text` holds a bracket, a comma or a colon.
pub(super) fn has_structure(text: &[u8]) -> bool {
    text.iter()
        .any(|b| matches!(b, b'{' | b'}' | b'[' | b']' | b',' | b':'))
}

/// Whether `word` is one of the common literal spellings (see
/// `lex::COMMON_LITERALS`).
pub(super) fn is_literal(word: &[u8]) -> bool {
    lex::COMMON_LITERALS
        .iter()
        .any(|(spelling, _)| *spelling == word)
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

/// The last byte of the closer that ends at `after` (`}` for `｝`).
pub(super) fn closer_byte(bytes: &[u8], after: usize) -> u8 {
    match bytes[after - 1] {
        0x9D => b'}',
        0xBD => b']',
        0x89 => b')',
        b => b,
    }
}
