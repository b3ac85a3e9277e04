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
//! The lane never sees the machine. The machine lends it a [`Lane`]: the
//! input, where the machine stands (its state, its open string, whether a
//! comma is pending), its frame stack to move, and scratch space; the scan
//! answers with a [`Run`], which the machine writes (`repair/lane.rs`).
//! `follow.rs` reads what follows a token (the comma after a value, whether
//! a string ends at its quote), `lenient.rs` the lenient tokens, and
//! `edit.rs` says what each becomes.

mod edit;
mod follow;
mod lenient;
mod view;

pub(super) use self::edit::{LaneEdit, With};
pub(super) use self::follow::run_reads_plainly as closers_read_plainly;
use self::follow::{
    Follow, KeyAt, RunEnd, after_value, drop_trailing_comma, follow_value, pop_frame,
    run_reads_plainly_to, string_ends, take_comma,
};
use self::lenient::value_body;
pub(super) use self::lenient::{comment_at, ends_line};
pub(super) use self::view::{Lane, MemberKey, Scratch, key_at_end};
use super::fix::FixKind;
use super::frame::{Frame, State};
use super::strict::{scan_literal, scan_number, scan_value_prefix, token_ends};
use crate::lex;

/// What a scan took: `src[start..safe.p]`, with the scan's first
/// `safe.edits` edits made, leaves the machine as `safe` says; `low` is
/// the lowest height the stack went to.
pub(super) struct Run {
    pub(super) start: usize,
    pub(super) safe: Safe,
    pub(super) low: usize,
}

/// Where the loop may stop.
#[derive(Clone, Copy)]
pub(super) struct Safe {
    /// Index into `src` just after the last token taken.
    pub(super) p: usize,
    pub(super) state: State,
    /// A comma just taken: its index into `src`, its output position, and
    /// the output position where the value before it ended.
    pub(super) comma: Option<(usize, usize, usize)>,
    /// How many of the scan's lenient edits (`Scratch::edits`) lie
    /// before `p`, and how much longer they made the output than the input.
    pub(super) edits: usize,
    pub(super) growth: isize,
    /// Where the machine's mark stays, when the last thing taken was a
    /// comment (the machine drops one without moving its mark); else the
    /// end of the output.
    pub(super) mark: Option<usize>,
    /// With `state` `Str`: the lane stopped inside a value string, at its
    /// closing quote (whose fate the machine decides) or where the strictly
    /// valid body stops; the index into `src` of its body when the lane
    /// opened it, `None` when the machine did.
    pub(super) body: Option<usize>,
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

impl Lane<'_> {
    /// Scan `src[start..end]` (`start` is where the machine stands) and
    /// say how far it can be taken: up to the last safe point. `None` when
    /// nothing can. The UTF-8 of string bodies is not checked here (see
    /// `Machine::fast_strict`).
    pub(super) fn scan(mut self, start: usize, end: usize) -> Option<Run> {
        // The lowest the stack went in this scan; the frames popped below
        // its starting height are kept in `Scratch::undo` to be put back.
        let mut low = self.stack.len();
        let all = self.src;
        let src = &all[..end];
        let depth_limit = self.depth_limit;
        let wary = self.wary;
        // The key of the member whose value comes next (see `MemberKey`).
        let mut member_key = self.key;
        let out_start = self.out_start;
        self.scratch.edits.clear();
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
        let mut machine_comma = self.pending_comma;
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
            if key {
                // Its text began before the scan.
                member_key = MemberKey::Unknown;
            }
            let (body_end, quote) = if key {
                scan_value_prefix(src, start)
            } else {
                // Raw control characters are edits (see `value_body`).
                let body = value_body(src, start, &mut self.scratch.edits, &mut growth);
                safe.edits = self.scratch.edits.len();
                safe.growth = growth;
                body
            };
            let Some(e) = quote else {
                // (A key stays with the machine: it is held until its colon.)
                if key || body_end == start || self.lazy {
                    return None;
                }
                safe.p = body_end;
                return Some(Run { start, safe, low });
            };
            if !key
                && e == start + 1
                && self.string.is_some_and(|s| s.body_start == out_start)
                && src.get(e).is_none_or(|&b| b == b'"')
                && src.get(e + 1).is_none_or(|&b| b != b'"')
            {
                // `""` and then `"` (or nothing yet): perhaps a
                // triple-quoted string, which the machine reads.
                return None;
            }
            // The machine judged this quote already and waits for more
            // bytes: do not ask again before it would (see `string_quote`).
            let retry = self.string.map_or((usize::MAX, 0), |s| s.retry);
            let waiting =
                !self.eof && retry.0 == self.base + e - 1 && self.base + self.src.len() < retry.1;
            let ends = !waiting
                && if key {
                    string_ends(src, e, true, top).is_some()
                } else {
                    self.value_ends(start, e)
                };
            if !ends {
                // Copy the body up to the quote; the machine decides the quote.
                if key || e - 1 == start || self.lazy {
                    return None;
                }
                safe.p = e - 1;
                return Some(Run { start, safe, low });
            }
            p = e;
            state = if key { State::Colon } else { State::After };
            if state == State::After {
                value_end = at_out(p, growth);
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
                        edits: self.scratch.edits.len(),
                        growth,
                        mark: None,
                        body: None,
                    };
                }
                continue;
            }};
        }
        // The run of closers already read as written reaches up to here
        // (see `run_reads_plainly_to`). One shot, the whole input is in
        // hand: what follows a run is all there, as at the end of a stream.
        // The key it read after the run, taken as it was read.
        let mut plain_to = 0;
        let mut plain_key: Option<KeyAt> = None;
        macro_rules! reads_plainly {
            ($q:expr) => {{
                let q = $q;
                q < plain_to || {
                    let mut to = RunEnd::default();
                    let plain = run_reads_plainly_to(
                        src,
                        q,
                        self.stack,
                        self.eof || self.lazy,
                        self.bare_keys,
                        &mut to,
                    ) == Some(true);
                    if plain {
                        plain_to = to.end;
                        plain_key = to.key;
                    }
                    plain
                }
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
                let Some(mut edit) = comment_at(src, q).filter(|_| took) else {
                    break;
                };
                // Right after spaces, a comment that ends its line takes
                // them along (`step_comment`): the edit starts at them. After
                // another comment the machine's trailing spaces may begin
                // before that one; it takes the case.
                let spaces = src[p..q]
                    .iter()
                    .rev()
                    .take_while(|b| matches!(b, b' ' | b'\t'))
                    .count();
                if spaces > 0 {
                    match ends_line(src, edit.to, self.eof) {
                        Some(true) if after_comment => break,
                        Some(true) => edit.from = q - spaces,
                        Some(false) => {}
                        None => break,
                    }
                }
                growth += edit.growth();
                self.scratch.edits.push(edit);
                p = edit.to;
                after_comment = true;
                safe = Safe {
                    p,
                    state,
                    comma: pending,
                    edits: self.scratch.edits.len(),
                    growth,
                    mark: Some(safe.mark.unwrap_or_else(|| at_out(safe.p, safe.growth))),
                    body: None,
                };
                continue;
            }
            match state {
                // In a document whose strings hold quoted code, the machine
                // reads each key: a repeated one is a doubt there (see
                // `Machine::doubt_repeated_key`).
                State::Key if wary => break,
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
                        && reads_plainly!(q)
                        && drop_trailing_comma(&mut self.scratch.edits, pending, &mut growth) =>
                    {
                        top = pop_frame(self.stack, &mut self.scratch.undo, &mut low);
                        pending = None;
                        p = q + 1;
                        state = after_value(top);
                    }
                    b'"' => {
                        // Raw control characters in the body (code with its
                        // line breaks unescaped) are edits.
                        let (body_end, quote) =
                            value_body(src, q + 1, &mut self.scratch.edits, &mut growth);
                        let Some(e) = quote else {
                            // One shot too: a body with no closing quote (a
                            // call cut off inside its string) is copied so
                            // far, as a stream copies it. Rolling back to
                            // before the key made every later scan read the
                            // whole body again and the machine step through
                            // it a line at a time (the 50 KB `write_file`
                            // call cut off: 5.5 times the whole call).
                            if top == Some(Frame::Object)
                                && member_key.may_echo(src, &src[q + 1..body_end], false)
                            {
                                // Perhaps the key written again: the
                                // machine holds its body (`open_string::Echo`).
                                break;
                            }
                            // The body goes on past what arrived (or meets
                            // what the machine must mend): copy it so far.
                            safe =
                                Safe::in_string(body_end, q + 1, self.scratch.edits.len(), growth);
                            break;
                        };
                        if e == q + 2
                            && src.get(e).is_none_or(|&b| b == b'"')
                            && src.get(e + 1).is_none_or(|&b| b != b'"')
                        {
                            // `""` and then `"` (or nothing yet): perhaps a
                            // triple-quoted string, which the machine reads.
                            break;
                        }
                        let follow = follow_value(src, e, self.stack);
                        if let Follow::Key(colon) = follow
                            && !wary
                        {
                            // `"value", "key":`: the comma and the key are
                            // taken with the string.
                            member_key = MemberKey::Before(colon);
                            p = colon + 1;
                            state = State::Value;
                            pending = None;
                            after_key!();
                        }
                        if follow == Follow::Ask
                            && top == Some(Frame::Object)
                            && member_key.may_echo(src, &src[q + 1..e - 1], true)
                            && colon_may_follow(src, e, self.eof)
                        {
                            // The key written again and its colon: the
                            // machine drops them (`open_string::Echo`).
                            break;
                        }
                        if follow == Follow::Ask && !self.value_ends(q + 1, e) {
                            if self.lazy {
                                break;
                            }
                            // Stop inside the string, at its quote: the body is
                            // copied, the machine decides the quote.
                            safe = Safe::in_string(e - 1, q + 1, self.scratch.edits.len(), growth);
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
                                self.scratch.edits.push(edit);
                                edit.to
                            }
                        };
                        let next = e + src[e..].iter().take_while(|b| lex::is_ws(**b)).count();
                        (p, state, pending) = take_comma(src, e, next, top, at_out(e, growth));
                    }
                },
                State::Key => match b {
                    b'"' => {
                        let (e, colon) = match plain_key {
                            // Read already, after the run of closers before it.
                            Some(key) if key.open == q && !key.bare => (key.after, key.colon),
                            _ => {
                                // A `”` in it stops the scan: the key may end there.
                                let Some(e) = scan_value_prefix(src, q + 1).1 else {
                                    break;
                                };
                                // Take the colon that was just seen, too.
                                let Some(colon) = string_ends(src, e, true, top) else {
                                    break;
                                };
                                (e, colon)
                            }
                        };
                        member_key = MemberKey::Text(&src[q + 1..e - 1]);
                        p = colon + 1;
                        state = State::Value;
                        pending = None;
                        // No safe point between a key and its value (see
                        // `after_key`).
                        after_key!();
                    }
                    b'}' if !machine_comma
                        && reads_plainly!(q)
                        && drop_trailing_comma(&mut self.scratch.edits, pending, &mut growth) =>
                    {
                        top = pop_frame(self.stack, &mut self.scratch.undo, &mut low);
                        pending = None;
                        p = q + 1;
                        state = after_value(top);
                    }
                    _ => {
                        // A bare or single-quoted key, and its colon (a bare
                        // one read already after the run of closers before it).
                        let key = match plain_key {
                            Some(key) if key.open == q && key.bare => Some((
                                LaneEdit::at(
                                    q,
                                    key.after,
                                    With::Quoted(q, key.after),
                                    FixKind::QuotedKey,
                                ),
                                key.colon,
                            )),
                            _ => self.lenient_key(src, q, top),
                        };
                        let Some((edit, colon)) = key else {
                            break;
                        };
                        member_key = match edit.with {
                            With::Quoted(from, to) => MemberKey::Text(&src[from..to]),
                            _ => MemberKey::None,
                        };
                        // The document has now used a bare key, as the
                        // machine's style says once this edit is applied:
                        // later bare keys need no proof that they are no
                        // prose (`grammar::surely_member`). A run that stops
                        // before this key drops what follows it too.
                        self.bare_keys |= edit.fix == FixKind::QuotedKey;
                        growth += edit.growth();
                        self.scratch.edits.push(edit);
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
                    // A run of closers is the machine's unless it reads as
                    // written, with what follows (see `run_reads_plainly`).
                    (b'}', Some(Frame::Object)) | (b']', Some(Frame::Array))
                        if reads_plainly!(q) =>
                    {
                        top = pop_frame(self.stack, &mut self.scratch.undo, &mut low);
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
                            && self.scratch.edits.last().is_none_or(|e| e.to <= p) =>
                    {
                        growth += 1;
                        self.scratch.edits.push(LaneEdit {
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
                edits: self.scratch.edits.len(),
                growth,
                mark: None,
                body: None,
            };
            if !matches!(top, Some(Frame::Object | Frame::Array)) {
                break;
            }
        }
        (safe.p != start).then_some(Run { start, safe, low })
    }
}

/// Whether a colon follows `e` (spaces between), or may still: the bytes
/// have not arrived.
fn colon_may_follow(src: &[u8], e: usize, eof: bool) -> bool {
    match src[e..].iter().find(|b| !matches!(b, b' ' | b'\t')) {
        Some(&b) => b == b':',
        None => !eof,
    }
}
