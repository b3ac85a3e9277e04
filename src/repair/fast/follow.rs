//! What follows a token, as the lane reads it: whether a value string ends
//! at its quote (the judge's quick rule, else the full judge), the comma
//! after a value, a trailing comma before a closer, and
//! the frame a closer pops.

use super::edit::{LaneEdit, With};
use super::view::Lane;
use crate::lex::{self, Quote};
use crate::repair::fix::FixKind;
use crate::repair::frame::{Frame, LOOKAHEAD, Stack, State};
use crate::repair::judge::{self, Quick};
use crate::repair::strict::scan_value_prefix;

impl Lane<'_> {
    /// Whether the clean string whose closing quote is just before `e` (an
    /// index into `src`) ends there, by the machine's own rule.
    /// `body` is the index where the part of the body scanned here starts.
    #[inline]
    pub(super) fn value_ends(&self, body: usize, e: usize) -> bool {
        let after = &self.src[e..];
        let window = &after[..after.len().min(LOOKAHEAD)];
        let eof = self.eof || after.len() >= LOOKAHEAD;
        let comma = || {
            let prior = self.string.and_then(|s| s.comma).map(|c| c.input);
            trailing_comma(self.src, body, e - 1, prior, self.base)
        };
        // The body's last byte, when this scan read it, as the machine
        // reads it (see `quote.rs` `body_last`): a line break or tab, raw
        // or escaped, is whitespace. (A byte read otherwise here only makes
        // the lane leave the quote to the machine.)
        let last = || body_last(self.src.get(body..e - 1)?);
        judge::clean_value_ends(self.stack, Quote::Double, comma, last, window, eof) == Some(true)
    }
}

/// The last byte of a string body read as `text`, as the machine reads its
/// output (`quote.rs` `body_last`): a line break or tab, raw or escaped, is
/// whitespace.
pub(super) fn body_last(text: &[u8]) -> Option<u8> {
    let (&b, before) = text.split_last()?;
    let escaped = before.iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1;
    Some(match b {
        0..=0x1F => b' ',
        b'n' | b't' | b'r' if escaped => b' ',
        _ => b,
    })
}

/// What follows a clean value string, as far as the lane can tell by itself
/// (see [`follow_value`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Follow {
    /// It ends there, and a comma, a strictly valid `"key"` and its colon
    /// follow: the colon's index.
    Key(usize),
    /// It ends there.
    End,
    /// The judge decides.
    Ask,
}

/// What follows a clean value string whose closing quote is just before
/// `e`, by the judge's quick rule (`judge::quick_clean_end`, asked here
/// directly, within its lookahead window): where the rule says the string
/// ends, the lane needs no more of the judge. When a `"key"` without
/// escapes and its colon follow the comma (strictly valid, so the lane's
/// own key scan would stop at the same colon), the lane takes the string,
/// the comma and the key at once instead of reading the comma and the key
/// a second time (callgrind, the valid 1 MB twin through the lane: −10%).
#[inline]
pub(super) fn follow_value(src: &[u8], e: usize, frames: &[Frame]) -> Follow {
    if frames.is_empty() {
        return Follow::Ask;
    }
    let window = &src[e..src.len().min(e + LOOKAHEAD)];
    // `eof` only tells a wait from an unknown; both leave it to the judge.
    match judge::quick_clean_end(frames, window, true) {
        Quick::EndAtKey { colon } => Follow::Key(e + colon),
        Quick::End => Follow::End,
        Quick::Need | Quick::Unknown => Follow::Ask,
    }
}

/// Whether the body `src[body..close]` ends with a comma and spaces, as the
/// machine sees it (see `open_string::Comma`): a comma more than the lookahead
/// window before the quote no longer counts. When the part scanned is only
/// spaces, `prior` (the input position of a comma the machine saw earlier
/// in the body) decides; `base` is the input position of `src[0]`.
pub(super) fn trailing_comma(
    src: &[u8],
    body: usize,
    close: usize,
    prior: Option<usize>,
    base: usize,
) -> bool {
    let comma = match src[body..close].iter().rposition(|&b| !lex::is_ws(b)) {
        Some(k) if src[body + k] == b',' => base + body + k,
        Some(_) => return false,
        None => match prior {
            Some(at) => at,
            None => return false,
        },
    };
    base + close <= comma + LOOKAHEAD
}

/// A closer after the comma the scan took (`pending`): the comma goes, as
/// the machine drops it (`removed_comma`, the whitespace around it kept).
/// `true` when the closer may be taken: there was no comma, or it is
/// dropped; `false` when an edit lies after it (a comment between the comma
/// and the closer: the fixes would come out of order), so the machine takes it.
pub(super) fn drop_trailing_comma(
    edits: &mut Vec<LaneEdit>,
    pending: Option<(usize, usize, usize)>,
    growth: &mut isize,
) -> bool {
    let Some((comma, _, _)) = pending else {
        return true;
    };
    if edits.last().is_some_and(|e| e.to > comma) {
        return false;
    }
    *growth -= 1;
    edits.push(LaneEdit::at(
        comma,
        comma + 1,
        With::Nothing,
        FixKind::RemovedComma,
    ));
    true
}

/// Whether the lane may take the closer at `q`: the run of closers it
/// starts reads as written, and what follows is, strictly, the container
/// left on top going on (a comma and a `"key":` in an object, a comma and a
/// value that is no key in an array, or the end of the input). The machine
/// reads a run whole with what follows it and mends it when that fails
/// (`judge/closers/`); the lane takes only runs the machine would take as
/// written. The top-level value's closer is the machine's too. `None` while
/// the bytes that decide have not arrived.
pub(in crate::repair) fn run_reads_plainly(
    src: &[u8],
    q: usize,
    stack: &[Frame],
    eof: bool,
    bare_keys: bool,
) -> Option<bool> {
    run_reads_plainly_to(src, q, stack, eof, bare_keys, &mut RunEnd::default())
}

/// Where a run of closers read as written ends (past its comma), and the
/// strictly valid `"key"` read after it, if one was: the scan takes that
/// key without reading it again.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct RunEnd {
    pub(super) end: usize,
    pub(super) key: Option<KeyAt>,
}

/// A plain `"key"` and its colon, or a bare `key` where the document's
/// keys are bare: the index of its first byte, just past it (its closing
/// quote), and of the colon.
#[derive(Debug, Clone, Copy)]
pub(super) struct KeyAt {
    pub(super) open: usize,
    pub(super) after: usize,
    pub(super) colon: usize,
    pub(super) bare: bool,
}

/// [`run_reads_plainly`], which also sets `run_end` where the run it read
/// ends (past its comma), and the key it read after it, when the answer is
/// `Some(true)`. The answer is the
/// same for every closer of the run after `q`, read with the frames the
/// ones before it closed popped: the scan asks once per run, not once per
/// closer.
pub(super) fn run_reads_plainly_to(
    src: &[u8],
    q: usize,
    stack: &[Frame],
    eof: bool,
    bare_keys: bool,
    run_end: &mut RunEnd,
) -> Option<bool> {
    let mut height = stack.len();
    let mut k = q;
    let mut last = b']';
    // A line break since the run's last closer (a missing comma is read
    // past only on the same line, but for a row after a row).
    let mut newline = false;
    let sep = loop {
        let Some(&b) = src.get(k) else {
            run_end.end = k;
            return eof.then_some(true);
        };
        match b {
            b'}' | b']' => {
                let closes = match stack.get(height.wrapping_sub(1)) {
                    Some(Frame::Object) => b == b'}',
                    Some(Frame::Array) => b == b']',
                    _ => false,
                };
                if !closes {
                    return Some(false);
                }
                if height == 1 {
                    // The top-level value's closer: as written when only
                    // whitespace, or a closing fence, ends the input after it.
                    return top_closer_ends(src, k + 1, eof, run_end);
                }
                height -= 1;
                last = b;
                newline = false;
            }
            b'\n' => newline = true,
            b if lex::is_ws(b) => {}
            b',' => {
                // `},]`: a trailing comma inside the run, dropped when the
                // closer after it is taken; the run goes on.
                let mut c = k + 1;
                while src.get(c).is_some_and(|&b| lex::is_ws(b)) {
                    c += 1;
                }
                match src.get(c) {
                    Some(b'}' | b']') => {
                        k = c;
                        continue;
                    }
                    None if !eof => return None,
                    _ => break true,
                }
            }
            _ => break false,
        }
        k += 1;
    };
    if !sep {
        // No comma after the run: the machine reads the run as written and
        // mends the comma after it when what follows is a quoted key on the
        // run's line, or a row like the one the run closed (the plan's
        // `plain_fits`, for a follower with no separator). The scan inserts
        // that comma as the machine would (its missing-comma rule).
        run_end.end = k;
        let object = stack[height - 1] == Frame::Object;
        return match src[k] {
            b'{' => Some(!object && last == b'}'),
            b'[' => Some(!object && last == b']'),
            b'"' | b'\'' if object && !newline => quoted_key_follows(src, k, eof, true, run_end),
            _ => Some(false),
        };
    }
    k += 1;
    run_end.end = k;
    // Whitespace and comments (`, // why`, `, /* note */`), which the lane
    // reads itself after a comma.
    loop {
        while src.get(k).is_some_and(|&b| lex::is_ws(b)) {
            k += 1;
        }
        match (src.get(k), src.get(k + 1)) {
            (Some(b'/'), Some(b'/')) => match memchr::memchr(b'\n', &src[k..]) {
                Some(n) => k += n + 1,
                None => return if eof { Some(false) } else { None },
            },
            (Some(b'/'), Some(b'*')) => match memchr::memmem::find(&src[k + 2..], b"*/") {
                Some(n) => k += n + 4,
                None => return if eof { Some(false) } else { None },
            },
            (Some(b'/'), None) if !eof => return None,
            _ => break,
        }
    }
    let Some(&b) = src.get(k) else {
        return if eof { Some(false) } else { None };
    };
    let object = stack[height - 1] == Frame::Object;
    match b {
        // A key (its colon after it) in an object, none in an array, and a
        // key in the lenient form the lane reads itself, `'key':`.
        b'"' => quoted_key_follows(src, k, eof, object, run_end),
        b'\'' if object => quoted_key_follows(src, k, eof, object, run_end),
        // `key:` where the document's keys are bare (elsewhere a bare word
        // after a closer is more likely prose, the machine's to weigh).
        b if object && bare_keys && (b.is_ascii_alphabetic() || b == b'_' || b == b'$') => {
            let Some(after) = judge::bare_key_end(src, k) else {
                return eof.then_some(false);
            };
            let colon = after
                + src[after..]
                    .iter()
                    .take_while(|&&b| matches!(b, b' ' | b'\t'))
                    .count();
            match src.get(colon) {
                None if !eof => None,
                Some(b':') => {
                    run_end.key = Some(KeyAt {
                        open: k,
                        after,
                        colon,
                        bare: true,
                    });
                    Some(true)
                }
                _ => Some(false),
            }
        }
        // In an array, an element of another kind than the one the run
        // closed (a scalar after a row, a key after an object) is the
        // machine's to judge: an opener may be missing
        // (`Machine::element_opener`).
        b'{' => Some(!object && last == b'}'),
        b'[' => Some(!object && last == b']'),
        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => Some(false),
        _ => Some(false),
    }
}

/// Whether a quoted key and its colon start at `k` (`"key":`, `'key':`),
/// in an object: a plain `"key"` is kept in `run_end` for the scan to take.
#[inline(always)]
fn quoted_key_follows(
    src: &[u8],
    k: usize,
    eof: bool,
    object: bool,
    run_end: &mut RunEnd,
) -> Option<bool> {
    if src[k] == b'\'' {
        let body = src[k + 1..]
            .iter()
            .position(|&c| matches!(c, b'\'' | b'\\' | b'\n'))
            .map(|n| k + 1 + n);
        return match body.map(|e| src[e]) {
            None if !eof => None,
            Some(b'\'') => colon_follows(src, body? + 1, eof),
            _ => Some(false),
        };
    }
    let key_end = match scan_value_prefix(src, k + 1) {
        (_, Some(after)) => after,
        (stop, None) if stop >= src.len() && !eof => return None,
        _ => return Some(false),
    };
    let mut c = key_end;
    while src.get(c).is_some_and(|&b| lex::is_ws(b)) {
        c += 1;
    }
    match src.get(c) {
        None if !eof => None,
        Some(b':') if object => {
            run_end.key = Some(KeyAt {
                open: k,
                after: key_end,
                colon: c,
                bare: false,
            });
            Some(true)
        }
        _ => Some(false),
    }
}

/// After the top-level value's closer (at `k - 1`): `Some(true)` when only
/// whitespace follows to the end of the input, perhaps around one closing
/// fence (the run then ends at `k`), `None` while more may come.
fn top_closer_ends(src: &[u8], k: usize, eof: bool, run_end: &mut RunEnd) -> Option<bool> {
    let rest = &src[k..];
    let mut n = rest.iter().take_while(|&&b| lex::is_ws(b)).count();
    if rest[n..].starts_with(b"```") {
        n += 3;
        n += rest[n..].iter().take_while(|&&b| lex::is_ws(b)).count();
    }
    if n < rest.len() {
        return Some(false);
    }
    if !eof {
        return None;
    }
    run_end.end = k;
    Some(true)
}

/// Whether a `:` follows at `k` after spaces and tabs (`None` until the
/// bytes have arrived).
fn colon_follows(src: &[u8], mut k: usize, eof: bool) -> Option<bool> {
    while src.get(k).is_some_and(|&b| matches!(b, b' ' | b'\t')) {
        k += 1;
    }
    match src.get(k) {
        None if !eof => None,
        b => Some(b == Some(&b':')),
    }
}

/// Pop a frame, remembering it if it was there before the scan began;
/// returns the new innermost frame.
#[inline(always)]
pub(super) fn pop_frame(
    stack: &mut Stack,
    below: &mut smallvec::SmallVec<[Frame; 16]>,
    low: &mut usize,
) -> Option<Frame> {
    if let Some(frame) = stack.pop()
        && stack.len() < *low
    {
        *low = stack.len();
        below.push(frame);
    }
    stack.last().copied()
}

/// After a value that ends at `e`, with the next token at `next`: take a
/// comma there as well (one trip through the loop instead of two), or stop
/// after the value. `value_end` is the value's end in the output.
#[inline]
pub(super) fn take_comma(
    src: &[u8],
    e: usize,
    next: usize,
    top: Option<Frame>,
    value_end: usize,
) -> (usize, State, Option<(usize, usize, usize)>) {
    // The comma's output position: the value's end plus what lies between.
    let comma = |at: usize| Some((at, value_end + (at - e), value_end));
    match (src.get(next), top) {
        (Some(b','), Some(Frame::Object)) => (next + 1, State::Key, comma(next)),
        (Some(b','), Some(Frame::Array)) => (next + 1, State::Value, comma(next)),
        _ => (e, after_value(top), None),
    }
}

/// The state after a value inside `top`.
pub(super) fn after_value(top: Option<Frame>) -> State {
    if top.is_some() {
        State::After
    } else {
        State::Done
    }
}

/// Whether what follows the string that ended at `e` shows the machine would
/// end it there too: `:` after a key; after a value `,`, or the closer of the
/// innermost container (another closer could be inside the string). Returns
/// where that next token is.
#[inline]
pub(super) fn string_ends(src: &[u8], e: usize, key: bool, top: Option<Frame>) -> Option<usize> {
    let next = e + src[e..].iter().position(|b| !lex::is_ws(*b))?;
    let ends = matches!(
        (src[next], key, top),
        (b':', true, _)
            | (b',', false, _)
            | (b'}', false, Some(Frame::Object))
            | (b']', false, Some(Frame::Array))
    );
    ends.then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::judge::{Quick, quick_clean_end};

    /// `follow_value` answers only where the judge's quick rule says the
    /// string ends: every follower built from the bytes that matter, in
    /// objects and arrays, whether or not more input may come.
    #[test]
    fn follow_value_agrees_with_the_judges_quick_rule() {
        const BYTES: &[u8] = b",,::\"\"''}]{[ \nab_$-1\\+\x01";
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut answered = 0;
        for _ in 0..200_000 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let len = (seed >> 60) as usize;
            let after: Vec<u8> = (0..len)
                .map(|k| BYTES[((seed >> (4 * k % 56)) as usize) % BYTES.len()])
                .collect();
            for top in [Frame::Object, Frame::Array] {
                if follow_value(&after, 0, &[Frame::Object, top]) == Follow::Ask {
                    continue;
                }
                answered += 1;
                for eof in [false, true] {
                    assert!(
                        matches!(
                            quick_clean_end(&[Frame::Object, top], &after, eof),
                            Quick::End | Quick::EndAtKey { .. }
                        ),
                        "{:?} in {top:?}",
                        String::from_utf8_lossy(&after)
                    );
                }
            }
        }
        assert!(answered > 1_000, "too few followers answered: {answered}");
    }
}
