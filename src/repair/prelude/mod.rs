//! A stream's prelude: while everything fed so far is a prefix of strictly
//! valid JSON, a `Repairer` reads it with this small
//! resumable scanner instead of running the machine on every chunk.
//!
//! Why: in 16-byte chunks with a snapshot after each, the machine's fixed
//! price per chunk (the lane's entry and exit, the string's state, the
//! snapshot) made valid input cost 13 times its one-shot check. Valid input
//! needs no decision, only the answers the machine would give: what is
//! committed, and the snapshot. This scanner keeps the input as it came,
//! the open containers and a few positions, and renders the snapshot as the
//! machine renders a valid prefix (the rules are below, at [`Prelude::view`]).
//!
//! On the first byte that is not strictly valid JSON (or anything it does
//! not model: a top-level scalar, a typographic quote in a string, a
//! limit), the repairer hands the input so far to the machine in one push
//! and goes on with the machine; that costs one pass over what came before,
//! once. What this commits is never more than the machine commits for the
//! same bytes (a prefix of it), so the machine's output after the hand-over
//! starts with everything already handed out; `prelude/tests.rs` checks both
//! that and the snapshots, prefix by prefix, against the machine.

use std::ops::Range;

mod tokens;
mod view;

use self::tokens::{cut_at, escape_before, number_prefix, odd_key_start};
use super::frame::{Frame, WINDOW};
use super::open_string::count_brackets_in;
use super::strict::{scan_number, scan_value_prefix_noting_escapes, token_ends};
use crate::lex;

/// Why the prelude stops: the machine must take over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Leave {
    /// Before the chunk was taken: replay the input so far, then the chunk.
    Before,
    /// With the chunk taken: replay the input so far (the chunk included).
    After,
}

/// Where the scan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// Before the top-level value.
    Start,
    /// After `[`: a value or `]`.
    ValueOrClose,
    /// After `{`: a key or `}`.
    KeyOrClose,
    /// After `:` (object) or `,` (array): a value.
    Value,
    /// After `,` in an object: a key.
    Key,
    /// Inside a key string.
    KeyBody,
    /// After a key: its colon.
    Colon,
    /// Inside a value string.
    Body,
    /// Inside a number.
    Number,
    /// Inside `true`, `false` or `null`.
    Literal,
    /// After a value: `,` or a closer.
    After,
    /// The top-level value is closed.
    Done,
}

/// The last value read, for the snapshot of what follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    /// A string ending (its closing quote included) at the index.
    Str(usize),
    /// A number or literal.
    Scalar,
    /// A container (a run of closers is open, see `run`).
    Closed,
}

/// The most input a prelude holds for a repairer that forgets what it
/// returned (`Retain::Unreturned`): past it, the machine takes over, whose
/// memory stays flat. 1 MiB holds nearly every tool call whole (the bench's
/// largest are 1 MB) and is a bound such a caller can plan for; the
/// hand-over then costs one pass over it, once.
const HELD_MAX: usize = 1 << 20;

/// The state of a stream while its input is strictly valid.
#[derive(Debug, Clone)]
pub(super) struct Prelude {
    /// The input so far, but for a UTF-8 character cut at its end.
    text: String,
    /// The bytes of that cut character.
    cut: [u8; 4],
    cut_len: usize,
    /// Open containers; during a run of closers, `depth` of them are open
    /// and the rest were closed by the run.
    stack: Vec<Frame>,
    depth: usize,
    depth_limit: usize,
    /// The most input it reads before the machine takes over: the input
    /// limit (the machine then reports it), or [`HELD_MAX`] when the
    /// repairer forgets what it returned.
    held_limit: usize,
    state: St,
    /// Where the scan resumes.
    at: usize,
    /// Where the token being read starts (a quote, a number, a literal).
    tok: usize,
    /// The state before the value being read began (the snapshot of a
    /// number with no digit yet, or of a string's lone quote in an array).
    before: St,
    last: Last,
    /// The comma after the last value, while no value or key has begun.
    comma: Option<usize>,
    /// A run of closers after the last value: where it starts and how many
    /// containers were open before it.
    run: Option<(usize, usize)>,
    /// How much of `text` is committed (handed out by `feed`), and how
    /// much was before the last chunk.
    committed: usize,
    delta_from: usize,
    /// Where the last escape read in a string starts.
    escape: usize,
    /// In a value string, after a chunk: where its tail of spaces and
    /// closers starts.
    tail: usize,
    /// How much the machine has surely committed outside a value string:
    /// up to the last colon, or the comma before an array's next value.
    floor: usize,
    /// The key being read is its object's first: the snapshot shows the
    /// object up to its `{` (at `hold - 1`).
    first_key: bool,
    hold: usize,
    /// The kind of the container closed last.
    closed: Frame,
    /// The last key read (its body), and where the last value ended.
    key: Range<usize>,
    value_end: usize,
    /// Brackets of the current value string's body, counted up to `counted`
    /// (see `tail_closes`): per kind `()`, `[]`, `{}`.
    counted: usize,
    balance: [u32; 3],
    /// The repairer forgets what it returned (`Retain::Unreturned`): a
    /// snapshot starts with the piece the last feed returned, and `finish`
    /// returns only the rest.
    unreturned: bool,
}

impl Prelude {
    /// `unreturned`: the repairer forgets what it returned; the prelude
    /// then holds at most [`HELD_MAX`] bytes of input.
    pub(super) fn new(depth_limit: usize, input_limit: usize, unreturned: bool) -> Self {
        let held_limit = if unreturned {
            input_limit.min(HELD_MAX)
        } else {
            input_limit
        };
        Prelude {
            text: String::new(),
            cut: [0; 4],
            cut_len: 0,
            stack: Vec::new(),
            depth: 0,
            depth_limit,
            held_limit,
            state: St::Start,
            at: 0,
            tok: 0,
            before: St::Start,
            last: Last::Scalar,
            comma: None,
            run: None,
            committed: 0,
            delta_from: 0,
            escape: 0,
            tail: 0,
            floor: 0,
            first_key: false,
            hold: 0,
            closed: Frame::Object,
            key: 0..0,
            value_end: 0,
            counted: 0,
            balance: [0; 3],
            unreturned,
        }
    }

    /// Everything fed so far, for the machine that takes over.
    pub(super) fn input(&self) -> (&str, &[u8]) {
        (&self.text, &self.cut[..self.cut_len])
    }

    /// How much of the input is committed.
    pub(super) fn committed(&self) -> usize {
        self.committed
    }

    pub(super) fn bytes_fed(&self) -> usize {
        self.text.len() + self.cut_len
    }

    /// The input, when it is one whole JSON value (whitespace around it):
    /// all of it, or (`unreturned`) the part `feed` has not returned.
    pub(super) fn take_whole(&mut self) -> Option<String> {
        if self.state != St::Done || self.cut_len > 0 {
            return None;
        }
        Some(if self.unreturned {
            self.text[self.committed..].to_owned()
        } else {
            std::mem::take(&mut self.text)
        })
    }

    /// Take the next chunk; [`Prelude::delta`] is then what it committed.
    pub(super) fn feed(&mut self, chunk: &[u8]) -> Result<(), Leave> {
        if self.bytes_fed().saturating_add(chunk.len()) > self.held_limit {
            return Err(Leave::Before);
        }
        self.append(chunk)?;
        self.scan().map_err(|()| Leave::After)?;
        if self.odd_end() {
            return Err(Leave::After);
        }
        let mut tail = 0;
        if self.state == St::Body {
            tail = self.tail_start();
            self.tail = tail;
            if self.text.as_bytes()[tail..self.at]
                .iter()
                .any(|&b| b != b' ')
            {
                // The tail holds a closer: count the brackets before it.
                self.settle(tail);
            }
        }
        self.delta_from = self.committed;
        self.committed = self.commit_point(tail).max(self.committed);
        if self.text.len() - self.committed > WINDOW {
            // Held past the machine's bound on what stays provisional (a
            // key longer than the window, a top-level array's first string):
            // the machine takes over, and commits it as it does.
            return Err(Leave::After);
        }
        Ok(())
    }

    /// Input text the prelude read (committed text: output as it is).
    pub(super) fn delta(&self) -> &str {
        self.text.get(self.delta_from..self.committed).unwrap_or("")
    }

    /// Whether the input ends where the machine reads more than strict JSON
    /// would: a character cut outside a string (only a string may hold
    /// one), or a key that begins with a separator or a bracket (`{ ",`,
    /// which the machine does not read as a key).
    fn odd_end(&self) -> bool {
        let src = self.text.as_bytes();
        match self.state {
            St::KeyBody => src.get(self.tok + 1).is_some_and(|&b| odd_key_start(b)),
            St::Body => false,
            _ => self.cut_len > 0,
        }
    }

    /// Append the chunk's UTF-8 to `text`, holding a cut character back.
    /// Nothing changes when the chunk's UTF-8 is broken (`Leave::Before`:
    /// the machine then reads the chunk whole, after what came before).
    fn append(&mut self, chunk: &[u8]) -> Result<(), Leave> {
        let mut rest = chunk;
        // The character a previous chunk cut, completed by this one.
        let mut completed = None;
        if self.cut_len > 0 {
            let need = lex::utf8_len(self.cut[0]).saturating_sub(self.cut_len);
            let take = need.min(chunk.len());
            let mut bytes = self.cut;
            bytes[self.cut_len..self.cut_len + take].copy_from_slice(&chunk[..take]);
            let have = self.cut_len + take;
            match std::str::from_utf8(&bytes[..have]) {
                Ok(_) => completed = Some((bytes, have)),
                // Still cut: the whole chunk was its next bytes.
                Err(e) if e.error_len().is_none() => {
                    (self.cut, self.cut_len) = (bytes, have);
                    return Ok(());
                }
                Err(_) => return Err(Leave::Before),
            }
            rest = &chunk[take..];
        }
        // Short chunks are checked by std (simdutf8's set-up costs more there).
        let checked = if rest.len() < 64 {
            std::str::from_utf8(rest)
        } else {
            crate::utf8::from_utf8(rest)
        };
        let (text, cut) = match checked {
            Ok(text) => (text, &[][..]),
            Err(e) if e.error_len().is_none() => {
                let (good, cut) = rest.split_at(e.valid_up_to());
                (std::str::from_utf8(good).map_err(|_| Leave::Before)?, cut)
            }
            Err(_) => return Err(Leave::Before),
        };
        if let Some((bytes, have)) = completed {
            self.text
                .push_str(std::str::from_utf8(&bytes[..have]).unwrap_or_default());
        }
        self.text.push_str(text);
        if !cut.is_empty() {
            self.cut[..cut.len()].copy_from_slice(cut);
        }
        self.cut_len = cut.len();
        Ok(())
    }

    /// Read `text` from `at` on; `Err` at the first byte that is not
    /// strictly valid JSON.
    fn scan(&mut self) -> Result<(), ()> {
        // Out of `self` while the scan's steps change the rest of it.
        let text = std::mem::take(&mut self.text);
        let scanned = self.scan_in(text.as_bytes());
        self.text = text;
        scanned
    }

    fn scan_in(&mut self, src: &[u8]) -> Result<(), ()> {
        let mut i = self.at;
        loop {
            match self.state {
                St::Body | St::KeyBody => {
                    let (stop, end) = scan_value_prefix_noting_escapes(src, i, &mut self.escape);
                    match end {
                        Some(end) => {
                            i = end;
                            if self.state == St::Body {
                                self.last = Last::Str(end);
                                self.value_end = end;
                                self.state = St::After;
                            } else {
                                if end == self.tok + 2 || odd_key_start(src[self.tok + 1]) {
                                    // An empty key: the machine reads `""` as no key.
                                    return Err(());
                                }
                                self.key = self.tok + 1..end - 1;
                                self.state = St::Colon;
                            }
                        }
                        None => {
                            // Cut: an escape or a character that may be a
                            // quote's twin, not complete yet; anything else
                            // at `stop` is not strict.
                            if stop < src.len() && !cut_at(src, stop) {
                                return Err(());
                            }
                            self.at = stop;
                            return Ok(());
                        }
                    }
                }
                St::Number => {
                    // Most numbers are whole and end in what arrived.
                    if let Some(k) = scan_number(src, self.tok)
                        && k < src.len()
                        && token_ends(src, k)
                    {
                        i = k;
                        self.comma = None;
                        self.value_end = k;
                        self.last = Last::Scalar;
                        self.state = St::After;
                        continue;
                    }
                    let mut k = i;
                    while k < src.len()
                        && matches!(src[k], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                    {
                        k += 1;
                    }
                    if !number_prefix(&src[self.tok..k]) {
                        return Err(());
                    }
                    if k == src.len() {
                        self.at = self.tok;
                        return Ok(());
                    }
                    if lex::number_len(&src[self.tok..k]) != Some(k - self.tok)
                        || !token_ends(src, k)
                    {
                        return Err(());
                    }
                    i = k;
                    self.comma = None;
                    self.value_end = k;
                    self.last = Last::Scalar;
                    self.state = St::After;
                }
                St::Literal => {
                    let word = match src[self.tok] {
                        b't' => &b"true"[..],
                        b'f' => b"false",
                        _ => b"null",
                    };
                    let have = &src[self.tok..];
                    let n = word.len().min(have.len());
                    if have[..n] != word[..n] {
                        return Err(());
                    }
                    if have.len() < word.len() {
                        self.at = self.tok;
                        return Ok(());
                    }
                    let k = self.tok + word.len();
                    if k < src.len() && !token_ends(src, k) {
                        return Err(());
                    }
                    if k == src.len() {
                        // `true` may still go on (`trueish`): wait.
                        self.at = self.tok;
                        return Ok(());
                    }
                    i = k;
                    self.value_end = k;
                    self.last = Last::Scalar;
                    self.state = St::After;
                }
                _ => {
                    // Structure: skip whitespace, then one byte.
                    while i < src.len() && lex::is_ws(src[i]) {
                        i += 1;
                    }
                    let Some(&b) = src.get(i) else {
                        self.at = i;
                        return Ok(());
                    };
                    self.structure(b, i)?;
                    i += 1;
                }
            }
        }
    }

    /// The structural byte `b` at `i`.
    fn structure(&mut self, b: u8, i: usize) -> Result<(), ()> {
        match (self.state, b) {
            (St::Start, b'{' | b'[') => self.open(b, i),
            (St::ValueOrClose | St::Value, _) => {
                if b == b']' && self.state == St::ValueOrClose {
                    return self.close(b, i);
                }
                self.value(b, i)
            }
            (St::KeyOrClose, b'}') => self.close(b, i),
            (St::KeyOrClose | St::Key, b'"') => {
                // The last value's comma and run of closers stay until the
                // colon: the snapshot leaves an unfinished key out.
                self.first_key = self.state == St::KeyOrClose;
                self.tok = i;
                self.state = St::KeyBody;
                Ok(())
            }
            (St::Colon, b':') => {
                self.begin_member(i);
                self.floor = i + 1;
                self.state = St::Value;
                Ok(())
            }
            (St::After, b',') => {
                self.comma = Some(i);
                self.state = match self.stack[self.depth - 1] {
                    Frame::Object => St::Key,
                    _ => St::Value,
                };
                Ok(())
            }
            (St::After, b'}' | b']') => self.close(b, i),
            _ => Err(()),
        }
    }

    /// A key or value begins: the last value's run of closers is over.
    fn begin_member(&mut self, i: usize) {
        self.run = None;
        self.stack.truncate(self.depth);
        self.comma_done();
        self.tok = i;
    }

    fn comma_done(&mut self) {
        self.comma = None;
    }

    /// A value begins with `b` at `i`.
    fn value(&mut self, b: u8, i: usize) -> Result<(), ()> {
        let before = self.state;
        let comma = self.comma;
        let same_shape = match self.closed {
            Frame::Object => b == b'{',
            _ => b == b'[',
        };
        if before == St::Value && comma.is_some() && self.last == Last::Closed && !same_shape {
            // An array's element after a container of another kind: the
            // machine weighs the siblings' shapes there (a row whose `[`
            // is missing?), so it reads that on.
            return Err(());
        }
        self.before = before;
        match b {
            b'{' | b'[' => {
                self.array_next(before, comma);
                self.begin_member(i);
                self.open(b, i)?;
            }
            b'"' => {
                self.array_next(before, comma);
                self.begin_member(i);
                self.state = St::Body;
                self.counted = i + 1;
                self.balance = [0; 3];
            }
            b'-' | b'0'..=b'9' => {
                self.array_next(before, comma);
                self.begin_member(i);
                // Kept for the snapshot while the number has no digit.
                self.comma = comma;
                self.state = St::Number;
            }
            b't' | b'f' | b'n' => {
                self.array_next(before, comma);
                self.begin_member(i);
                self.state = St::Literal;
            }
            _ => return Err(()),
        }
        Ok(())
    }

    /// An array's next value begins after its comma: the machine has
    /// committed up to that comma.
    fn array_next(&mut self, before: St, comma: Option<usize>) {
        if let (St::Value, Some(_)) = (before, comma) {
            self.floor = self.floor.max(self.value_end);
        }
    }

    fn open(&mut self, b: u8, i: usize) -> Result<(), ()> {
        if self.depth >= self.depth_limit {
            return Err(());
        }
        self.run = None;
        self.stack.truncate(self.depth);
        self.stack.push(if b == b'{' {
            Frame::Object
        } else {
            Frame::Array
        });
        self.depth += 1;
        self.tok = i;
        self.hold = i + 1;
        self.state = if b == b'{' {
            St::KeyOrClose
        } else {
            St::ValueOrClose
        };
        Ok(())
    }

    fn close(&mut self, b: u8, i: usize) -> Result<(), ()> {
        let want = if b == b'}' {
            Frame::Object
        } else {
            Frame::Array
        };
        if self.depth == 0 || self.stack[self.depth - 1] != want {
            return Err(());
        }
        if self.run.is_none() {
            self.run = Some((i, self.depth));
            self.value_end = i;
        }
        self.comma_done();
        self.closed = want;
        self.depth -= 1;
        self.last = Last::Closed;
        self.state = if self.depth == 0 { St::Done } else { St::After };
        Ok(())
    }

    /// How far the machine would have committed at least.
    fn commit_point(&self, tail: usize) -> usize {
        match self.state {
            St::Body if !self.first_of_top_array() => self.body_commit(tail).max(self.floor),
            _ => self.floor,
        }
    }

    /// The machine holds a top-level array's first string (its `[` may yet
    /// turn out to be a `{`).
    fn first_of_top_array(&self) -> bool {
        self.depth == 1 && self.stack[0] == Frame::Array
    }

    /// Inside a value string: up to its tail (spaces and closers) and any
    /// escape at its end.
    fn body_commit(&self, tail: usize) -> usize {
        let src = self.text.as_bytes();
        // A comma may end the string (its quote missing): held too.
        let mut k = tail;
        while k > self.tok + 1 && src[k - 1] == b',' {
            k -= 1;
        }
        // A value that may yet be its key repeated (`"path": "pa`) is held.
        let key = &src[self.key.clone()];
        if k <= self.tok + 2 || key.starts_with(&src[self.tok + 1..k]) {
            // The opening quote comes with the text after its first byte.
            return self.floor;
        }
        // An escape ending here (`\n`, `\u00e9`) may be held; looked for
        // only when one was read near (`escape`, the last one's start).
        if self.escape > self.tok && self.escape + 14 > k {
            return escape_before(src, self.tok + 1, k).unwrap_or(k);
        }
        k
    }

    /// Before a snapshot: count the body's brackets up to its tail, so that
    /// the snapshot can tell whether the tail's closers end the string.
    fn settle(&mut self, tail: usize) {
        let src = self.text.as_bytes();
        if tail > self.counted {
            let mut at_inner = [0; 3];
            count_brackets_in(&src[self.counted..tail], &mut self.balance, &mut at_inner);
            self.counted = tail;
        }
    }

    /// Where the body's tail of spaces and closers starts.
    fn tail_start(&self) -> usize {
        let src = self.text.as_bytes();
        let mut k = self.at;
        while k > self.tok + 1 && matches!(src[k - 1], b' ' | b'}' | b']') {
            k -= 1;
        }
        k
    }
}

#[cfg(test)]
mod tests;
