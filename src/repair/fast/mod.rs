//! The fast lane: strictly valid JSON inside objects and arrays.
//!
//! Most input is valid JSON, and valid JSON is copied as it is. So before the
//! general machine takes a step, this loop runs through as much strictly
//! valid JSON as it can find and copies it in one piece. It stops at the
//! first byte that is not strictly valid (or at the end of the input that has
//! arrived) and rolls back to the last *safe point*: a place where the
//! general machine, had it read the same bytes token by token, would be in
//! exactly the state this loop leaves (same output, no fixes, same frames).
//! The machine then goes on from there, so the outcome never depends on
//! which of the two read a byte.
//!
//! Safe points are the places right after `{`, `[`, `:`, `,`, `}`, `]`, a
//! number, a literal, or a string followed by `,`, `}` or `]` (a string is
//! only taken once what follows it shows that `+` cannot join it to another).
//!
//! On the way it takes the commonest lenient tokens (a bare or single-quoted
//! key, a single-quoted string, `True`/`None`, a comment, a trailing comma,
//! a missing comma between two values) as edits of the run it copies
//! (`lenient.rs`): a safe point counts the edits before it, so rolling back
//! to it drops the rest.
//!
//! `apply.rs` writes what a scan took.

mod apply;

use super::FixKind;
use super::judge;
use super::lenient::{LaneEdit, With, comment_at};
use super::machine::{Frame, LOOKAHEAD, Machine, State};
use super::strict::{scan_body_prefix, scan_literal, scan_number, scan_string, token_ends};
use crate::lex::{self, Quote};

/// Below this many bytes not yet read, a scan is not started (see
/// `fast_strict`).
const MIN_SCAN: usize = 8;

/// Where the loop may stop.
#[derive(Clone, Copy)]
struct Safe {
    /// Index into `src` just after the last token taken.
    p: usize,
    state: State,
    /// A comma just taken: its index into `src`, its output position, and
    /// the output position where the value before it ended.
    comma: Option<(usize, usize, usize)>,
    /// How many of the scan's lenient edits (`Machine::lane_edits`) lie
    /// before `p`, and how much longer they made the output than the input.
    edits: usize,
    growth: isize,
    /// Where the machine's mark stays, when the last thing taken was a
    /// comment (the machine drops one without moving its mark); else the
    /// end of the output.
    mark: Option<usize>,
    /// With `state` `Str`: the lane stopped inside a value string, at its
    /// closing quote (whose fate the machine decides) or where the strictly
    /// valid body stops; the index into `src` of its body when the lane
    /// opened it, `None` when the machine did.
    body: Option<usize>,
}

impl Safe {
    /// A stop at `p` inside a value string whose body the scan opened at `body`.
    fn in_string(p: usize, body: usize, edits: usize, growth: isize) -> Self {
        Safe {
            p,
            state: State::Str,
            comma: None,
            edits,
            growth,
            mark: None,
            body: Some(body),
        }
    }
}

impl Machine<'_> {
    /// Copy the strictly valid JSON at `i` in one piece, as far as it goes,
    /// and take the commonest lenient tokens on the way (see `lenient.rs`).
    pub(super) fn fast_forward(&mut self) {
        loop {
            self.out.note_source(self.out_len(), self.i);
            self.fast_strict();
            let before = self.i;
            self.out.note_source(self.out_len(), self.i);
            if !self.lenient_step() || self.i == before {
                return;
            }
        }
    }

    /// Copy the strictly valid JSON at `i` in one piece, as far as it goes.
    fn fast_strict(&mut self) {
        let Some(&top) = self.stack.last() else {
            return;
        };
        if self.long_token.is_some_and(|t| t.at == self.i) {
            // A long token cut by chunk ends is being continued by hand;
            // scanning it here again would cost the square of its length.
            return;
        }
        let plain_string = self.string.is_some_and(|s| s.is_plain());
        if !matches!(top, Frame::Object | Frame::Array)
            || !(matches!(
                self.state,
                State::Key | State::Value | State::After | State::Colon
            ) || (self.state == State::Str && plain_string))
        {
            return;
        }
        let start = self.i - self.base;
        if self.src.len() - start < MIN_SCAN && !self.eof {
            // A few bytes that have just arrived: the machine takes what
            // they hold as cheaply, without the scan's set-up (small feeds
            // paid it for every chunk; callgrind, 16-byte chunks: −2.3%,
            // one-byte: −7.6%).
            return;
        }
        // String bodies are not checked for UTF-8 as they are scanned: the
        // whole run is checked once at the end, and if it holds invalid
        // UTF-8 the scan runs again, stopping before it.
        let mut end = self.src.len();
        while let Err(valid_up_to) = self.fast_scan(start, end) {
            end = start + valid_up_to;
        }
    }

    /// Scan `src[start..end]` and apply it up to the last safe point; or,
    /// when the stretch holds invalid UTF-8, apply nothing and say how much
    /// of it is valid.
    fn fast_scan(&mut self, start: usize, end: usize) -> Result<(), usize> {
        // The lowest the stack went in this scan; the frames popped below
        // its starting height are kept in `frames_undo` to be put back.
        let mut low = self.stack.len();
        let src = &self.src[..end];
        let depth_limit = self.opts.depth_limit();
        let out_start = self.out_len();
        self.lane_edits.clear();
        // How much longer the lenient edits so far made the output than
        // the input: the output position of `src[x]` past them.
        let mut growth: isize = 0;
        let at_out =
            |x: usize, growth: isize| (out_start + (x - start)).wrapping_add_signed(growth);
        let mut safe = Safe {
            p: start,
            state: self.state,
            comma: None,
            edits: 0,
            growth: 0,
            mark: None,
            body: None,
        };
        // A comma the machine read before: a closer after it is a repair.
        let mut machine_comma = self.has_pending_comma();
        let mut pending: Option<(usize, usize, usize)> = None;
        let mut state = self.state;
        let mut p = start;
        let mut value_end = self.mark;
        // The innermost frame, kept in step with the stack.
        let mut top = self.stack.last().copied();
        // Whether a token was taken: a comment is an edit only after one.
        let mut took = false;
        // Whether the last thing taken was a comment: a missing comma is
        // inserted only right after a value (where the machine's mark is).
        let mut after_comment = false;
        if state == State::Str {
            // The rest of a string the machine opened (a chunk ended inside it).
            let key = self.string.is_some_and(|s| s.is_key());
            let (body_end, quote) = scan_body_prefix(src, start);
            let Some(e) = quote else {
                // (A key stays with the machine: it is held until its colon.)
                if key || body_end == start || self.lazy {
                    return Ok(());
                }
                safe.p = body_end;
                return self.apply(start, out_start, safe, low);
            };
            // The machine judged this quote already and waits for more
            // bytes: do not ask again before it would (see `string_quote`).
            let retry = self.string.map_or((usize::MAX, 0), |s| s.retry);
            let waiting = !self.eof && retry.0 == self.base + e - 1 && self.bytes_fed() < retry.1;
            let ends = !waiting
                && if key {
                    string_ends(src, e, true, top).is_some()
                } else {
                    self.value_ends(start, e)
                };
            if !ends {
                // Copy the body up to the quote; the machine decides the quote.
                if key || e - 1 == start || self.lazy {
                    return Ok(());
                }
                safe.p = e - 1;
                return self.apply(start, out_start, safe, low);
            }
            p = e;
            state = if key { State::Colon } else { State::After };
            if state == State::After {
                value_end = out_start + (p - start);
            }
            machine_comma = false;
            took = true;
            safe.p = p;
            safe.state = state;
        }
        // One shot, after a key and its colon the scan goes straight on to
        // the value, without recording a safe point between them: one round
        // of the loop's bookkeeping per member instead of two (callgrind:
        // the valid 1 MB twin through the lane −5.8%, `api_1m` malformed
        // −1.9%). Should the value not be taken, the scan rolls back to
        // before the key, which the machine then reads. A stream keeps the
        // safe point: there a value is often cut by the chunk's end, and
        // the machine reading the key again cost 11–13% of 16-byte streams.
        let lazy = self.lazy;
        macro_rules! after_key {
            () => {{
                machine_comma = false;
                took = true;
                after_comment = false;
                if !lazy {
                    safe = Safe {
                        p,
                        state,
                        comma: None,
                        edits: self.lane_edits.len(),
                        growth,
                        mark: None,
                        body: None,
                    };
                }
                continue;
            }};
        }
        loop {
            let mut q = p;
            while q < end && lex::is_ws(src[q]) {
                q += 1;
            }
            let Some(&b) = src.get(q) else {
                break;
            };
            if b == b'/' {
                // A comment, dropped: the state, a pending comma and the
                // machine's mark stay as they were.
                let Some(edit) = comment_at(src, q).filter(|_| took) else {
                    break;
                };
                growth += edit.growth();
                self.lane_edits.push(edit);
                p = edit.to;
                after_comment = true;
                safe = Safe {
                    p,
                    state,
                    comma: pending,
                    edits: self.lane_edits.len(),
                    growth,
                    mark: Some(safe.mark.unwrap_or_else(|| at_out(safe.p, safe.growth))),
                    body: None,
                };
                continue;
            }
            match state {
                State::Value => match b {
                    b'{' | b'[' if self.stack.len() < depth_limit => {
                        let frame = if b == b'{' {
                            Frame::Object
                        } else {
                            Frame::Array
                        };
                        self.stack.push(frame);
                        top = Some(frame);
                        p = q + 1;
                        state = if b == b'{' { State::Key } else { State::Value };
                        pending = None;
                    }
                    b']' if top == Some(Frame::Array)
                        && !machine_comma
                        && drop_trailing_comma(&mut self.lane_edits, pending, &mut growth) =>
                    {
                        top = pop_frame(&mut self.stack, &mut self.frames_undo, &mut low);
                        pending = None;
                        p = q + 1;
                        state = after_value(top);
                    }
                    b'"' => {
                        let (body_end, quote) = scan_body_prefix(src, q + 1);
                        let Some(e) = quote else {
                            if self.lazy {
                                // One shot, the machine reads such a string
                                // whole, as fast.
                                break;
                            }
                            // The body goes on past what arrived (or meets
                            // what the machine must mend): copy it so far.
                            safe = Safe::in_string(body_end, q + 1, self.lane_edits.len(), growth);
                            break;
                        };
                        let follow = follow_value(src, e, top);
                        if let Follow::Key(colon) = follow {
                            // `"value", "key":`: the comma and the key are
                            // taken with the string.
                            p = colon + 1;
                            state = State::Value;
                            pending = None;
                            after_key!();
                        }
                        if follow == Follow::Ask && !self.value_ends(q + 1, e) {
                            if self.lazy {
                                break;
                            }
                            // Stop inside the string, at its quote: the body is
                            // copied, the machine decides the quote.
                            safe = Safe::in_string(e - 1, q + 1, self.lane_edits.len(), growth);
                            break;
                        }
                        let next = e + src[e..].iter().take_while(|b| lex::is_ws(**b)).count();
                        (p, state, pending) = take_comma(src, e, next, top, at_out(e, growth));
                    }
                    b'-' | b'0'..=b'9' => {
                        let Some(e) = scan_number(src, q) else {
                            break;
                        };
                        if !token_ends(src, e) {
                            break;
                        }
                        (p, state, pending) = take_comma(src, e, e, top, at_out(e, growth));
                    }
                    _ => {
                        // A literal, or a lenient value (`'text'`, `True`).
                        let e = match b {
                            b't' | b'f' | b'n' => {
                                scan_literal(src, q).filter(|&e| token_ends(src, e))
                            }
                            _ => None,
                        };
                        let e = match e {
                            Some(e) => e,
                            None => {
                                let Some(edit) = self.lenient_value(src, q) else {
                                    break;
                                };
                                growth += edit.growth();
                                self.lane_edits.push(edit);
                                edit.to
                            }
                        };
                        let next = e + src[e..].iter().take_while(|b| lex::is_ws(**b)).count();
                        (p, state, pending) = take_comma(src, e, next, top, at_out(e, growth));
                    }
                },
                State::Key => match b {
                    b'"' => {
                        let Some(e) = scan_string(src, q) else {
                            break;
                        };
                        // Take the colon that was just seen, too.
                        let Some(colon) = string_ends(src, e, true, top) else {
                            break;
                        };
                        p = colon + 1;
                        state = State::Value;
                        pending = None;
                        // No safe point between a key and its value (see
                        // `after_key`).
                        after_key!();
                    }
                    b'}' if !machine_comma
                        && drop_trailing_comma(&mut self.lane_edits, pending, &mut growth) =>
                    {
                        top = pop_frame(&mut self.stack, &mut self.frames_undo, &mut low);
                        pending = None;
                        p = q + 1;
                        state = after_value(top);
                    }
                    _ => {
                        // A bare or single-quoted key, and its colon.
                        let Some((edit, colon)) = self.lenient_key(src, q, top) else {
                            break;
                        };
                        growth += edit.growth();
                        self.lane_edits.push(edit);
                        p = colon + 1;
                        state = State::Value;
                        pending = None;
                        after_key!();
                    }
                },
                State::Colon => match b {
                    b':' => {
                        p = q + 1;
                        state = State::Value;
                    }
                    _ => break,
                },
                State::After => match (b, top) {
                    (b',', Some(Frame::Object | Frame::Array)) => {
                        pending = Some((q, at_out(q, growth), value_end));
                        p = q + 1;
                        state = if top == Some(Frame::Object) {
                            State::Key
                        } else {
                            State::Value
                        };
                    }
                    (b'}', Some(Frame::Object)) | (b']', Some(Frame::Array)) => {
                        top = pop_frame(&mut self.stack, &mut self.frames_undo, &mut low);
                        p = q + 1;
                        state = after_value(top);
                    }
                    // A missing comma: a value (or key) right after the one
                    // this scan just ended. The comma goes where the value
                    // ended (the machine's mark), before the whitespace; it
                    // stands only if the next token is taken too (no safe
                    // point between the two).
                    (_, Some(frame @ (Frame::Object | Frame::Array)))
                        if took
                            && !after_comment
                            && (b.is_ascii_alphanumeric()
                                || matches!(b, b'"' | b'\'' | b'_' | b'$' | b'-')
                                || (frame == Frame::Array && matches!(b, b'{' | b'[')))
                            && self.lane_edits.last().is_none_or(|e| e.to <= p) =>
                    {
                        growth += 1;
                        self.lane_edits.push(LaneEdit {
                            from: p,
                            to: p,
                            with: With::Text(","),
                            fix: FixKind::InsertedComma,
                            fix_at: q,
                        });
                        p = q;
                        state = if top == Some(Frame::Object) {
                            State::Key
                        } else {
                            State::Value
                        };
                        pending = None;
                        continue;
                    }
                    _ => break,
                },
                _ => break,
            }
            machine_comma = false;
            took = true;
            after_comment = false;
            if state == State::After || state == State::Done {
                value_end = at_out(p, growth);
            }
            safe = Safe {
                p,
                state,
                comma: pending,
                edits: self.lane_edits.len(),
                growth,
                mark: None,
                body: None,
            };
            if !matches!(top, Some(Frame::Object | Frame::Array)) {
                break;
            }
        }
        if safe.p == start {
            return Ok(());
        }
        self.apply(start, out_start, safe, low)
    }
}

impl Machine<'_> {
    /// Whether the clean string whose closing quote is just before `e` (an
    /// index into `src`) ends there, by the machine's own rule.
    /// `body` is the index where the part of the body scanned here starts.
    #[inline]
    fn value_ends(&self, body: usize, e: usize) -> bool {
        let after = &self.src[e..];
        let window = &after[..after.len().min(LOOKAHEAD)];
        let eof = self.eof || after.len() >= LOOKAHEAD;
        let comma = || {
            let prior = self.string.and_then(|s| s.comma).map(|c| c.input);
            trailing_comma(&self.src, body, e - 1, prior, self.base)
        };
        judge::clean_value_ends(&self.stack, Quote::Double, comma, window, eof) == Some(true)
    }
}

/// What follows a clean value string, as far as the lane can tell by itself
/// (see [`follow_value`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Follow {
    /// It ends there, and a comma, a strictly valid `"key"` and its colon
    /// follow: the colon's index.
    Key(usize),
    /// It ends there.
    End,
    /// The judge decides.
    Ask,
}

/// The judge's quick rule (`judge::quick_clean_end`) on the commonest
/// followers of a clean value string whose closing quote is just before
/// `e`, read by the lane itself, all within the judge's lookahead window:
/// the innermost container's closer; in an array a comma and a value; in an
/// object a comma and the closer, or a comma, a strictly valid `"key"` and
/// its colon (the judge's scan of the key stops at the same quote, stepping
/// over every escape alike). It answers only where that rule says the
/// string ends; anything else is left to the judge. With the key found, the
/// lane takes the string, the comma and the key at once instead of asking
/// the judge and then reading the comma and the key a second time
/// (callgrind, the valid 1 MB twin through the lane: −10%).
#[inline]
fn follow_value(src: &[u8], e: usize, top: Option<Frame>) -> Follow {
    let window = &src[..src.len().min(e + LOOKAHEAD)];
    let skip = |mut k: usize| {
        while window.get(k).is_some_and(|&b| lex::is_ws(b)) {
            k += 1;
        }
        k
    };
    let k = skip(e);
    match (window.get(k), top) {
        (Some(b'}'), Some(Frame::Object)) | (Some(b']'), Some(Frame::Array)) => Follow::End,
        (Some(b','), Some(Frame::Array)) => match window.get(skip(k + 1)) {
            Some(b'"' | b'{' | b'[' | b'-' | b'0'..=b'9' | b']') => Follow::End,
            _ => Follow::Ask,
        },
        (Some(b','), Some(Frame::Object)) => {
            let key = skip(k + 1);
            let close = match window.get(key) {
                Some(b'}') => return Follow::End,
                Some(b'"') => {
                    return match scan_string(window, key).map(skip) {
                        Some(colon) if window.get(colon) == Some(&b':') => Follow::Key(colon),
                        _ => Follow::Ask,
                    };
                }
                // `'key'`, stepping over escapes as the judge does.
                Some(b'\'') => {
                    let mut j = key + 1;
                    loop {
                        match window.get(j) {
                            Some(b'\'') => break j + 1,
                            Some(b'\\') => j += 2,
                            Some(&b) if b >= 0x20 => j += 1,
                            _ => return Follow::Ask,
                        }
                    }
                }
                // A bare key.
                Some(&b) if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
                    let mut j = key + 1;
                    while window
                        .get(j)
                        .is_some_and(|&b| judge::KEY_BYTE[usize::from(b)])
                    {
                        j += 1;
                    }
                    j
                }
                _ => return Follow::Ask,
            };
            match window.get(skip(close)) {
                Some(b':') => Follow::End,
                _ => Follow::Ask,
            }
        }
        _ => Follow::Ask,
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
fn drop_trailing_comma(
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

/// Pop a frame, remembering it if it was there before the scan began;
/// returns the new innermost frame.
#[inline]
fn pop_frame(
    stack: &mut smallvec::SmallVec<[Frame; 32]>,
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
fn take_comma(
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
                if follow_value(&after, 0, Some(top)) == Follow::Ask {
                    continue;
                }
                answered += 1;
                for eof in [false, true] {
                    assert_eq!(
                        quick_clean_end(&[top], &after, eof),
                        Quick::End,
                        "{:?} in {top:?}",
                        String::from_utf8_lossy(&after)
                    );
                }
            }
        }
        assert!(answered > 1_000, "too few followers answered: {answered}");
    }
}
