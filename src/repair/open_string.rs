//! The state of the string being read: how it opened, what it is (a key or
//! a value), how it escapes, and what it has met so far (inner quotes, a
//! comma at its end, bracket balance). Its own module so the machine, which
//! holds one, and `string.rs`, which reads bodies with the machine, do not
//! import each other.

use super::frame::Frame;
use super::judge::Role;
use crate::lex::Quote;

/// A comma that ends the body so far (whitespace after it allowed): if the
/// next quote opens a key, the string ended before it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Comma {
    /// Where it was read.
    pub(super) input: usize,
    /// Where it is in the output.
    pub(super) out: usize,
    /// Fixes recorded before it.
    pub(super) n_fixes: usize,
}

/// The longest key whose echo is looked for (see [`Echo`]).
pub(super) const ECHO_KEY: usize = 256;

/// A value string that may be its key written again (`{"notes": "notes":
/// "x"}`): while its body is a prefix of the key, the output from just after
/// the key's colon is held, so that a colon after its end quote can drop it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Echo {
    /// Where the key's text starts in the output, and its length.
    pub(super) key: usize,
    pub(super) key_len: usize,
    /// Where the output is cut back to: just after the key's colon.
    pub(super) out: usize,
    /// Where the string's opening quote was read.
    pub(super) input: usize,
    /// Fixes recorded before it.
    pub(super) n_fixes: usize,
}

/// The run of whitespace and closers (`}`, `]`) that ends the body so far
/// (`"00:23}⏎  ]⏎}` at the end of the input): when the input ends there and
/// its closers close exactly what is open, the string ended before it and
/// its end quote was dropped. Held back like a [`Comma`] until the next
/// byte of text shows it was text.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tail {
    /// Where it starts in the input.
    pub(super) input: usize,
    /// Where it starts in the output.
    pub(super) out: usize,
    /// Fixes recorded before it.
    pub(super) n_fixes: usize,
    /// Whether it holds a closer yet.
    pub(super) closers: bool,
    /// Per kind (`()`, `[]`, `{}`): whether a bracket the body opened before
    /// it is still open (counted once it holds a closer).
    pub(super) open: [bool; 3],
}

/// Whether `b`, a byte of body output, may belong to a [`Tail`]: a space
/// or a closer (a line break or tab is written as an escape, see
/// [`tail_escape`]).
#[inline]
pub(super) fn tail_byte(b: u8) -> bool {
    matches!(b, b' ' | b'}' | b']')
}

/// Whether `b`, a byte of body text, may come before JSON written into the
/// string (see [`Str::lead`]).
#[inline]
pub(super) fn lead_byte(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'{' | b'[')
}

/// Whether `text`, body output as written (an escape as its two bytes), is
/// all lead as [`Str::text_written`] and [`Str::escape_written`] count it
/// between them: lead bytes, and the escapes of a line break or tab. (The
/// lane copies escapes as they are; counting `\n` as no lead there, when
/// the machine writing the same escape counted it as lead, read
/// `"\n\\"x` one way one shot and another streamed.)
pub(super) fn lead_text(text: &[u8]) -> bool {
    let mut k = 0;
    while let Some(&b) = text.get(k) {
        match b {
            b'\\' if matches!(text.get(k + 1), Some(b'n' | b't' | b'r')) => k += 2,
            _ if lead_byte(b) => k += 1,
            _ => return false,
        }
    }
    true
}

/// Whether `text`, an escape written into a body, may belong to a [`Tail`]:
/// a line break or tab.
#[inline]
pub(super) fn tail_escape(text: &str) -> bool {
    matches!(text, "\\n" | "\\t" | "\\r")
}

/// Whether `tail`, the output of a [`Tail`] that holds a closer, closes
/// exactly the containers `frames` leaves open, innermost first, and none
/// a bracket the body opened (`open`). A lone closer glued to the text
/// (`{"a": "b}`) counts too: a stream cut right after a `}` of the text
/// is the rarer reading when the body opened no brace (`"${HOME}` keeps
/// its `}`), and jsonrepair and json_repair read it so.
pub(super) fn tail_closes(tail: &[u8], open: [bool; 3], frames: &[Frame]) -> bool {
    let mut frames = frames.iter().rev();
    let (mut k, mut n_closers) = (0, 0);
    while k < tail.len() {
        let frame = match tail[k] {
            b'\\' => {
                k += 2;
                continue;
            }
            b'}' if !open[2] => Frame::Object,
            b']' if !open[1] => Frame::Array,
            b'}' | b']' => return false,
            _ => {
                k += 1;
                continue;
            }
        };
        if frames.next() != Some(&frame) {
            return false;
        }
        n_closers += 1;
        k += 1;
    }
    frames.next().is_none() && n_closers >= 1
}

/// How a string was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Escaping {
    /// By a quote.
    Plain,
    /// By `\"`, as in a document escaped twice (`{\"a\": 1}`): `\"` closes it.
    Twice,
}

/// An open string.
#[derive(Debug, Clone, Copy)]
pub(super) struct Str {
    pub(super) open: Quote,
    pub(super) role: Role,
    pub(super) escaping: Escaping,
    /// How many quotes were judged to be inside the string.
    pub(super) inner_quotes: u32,
    /// One of them was followed by a colon (`"key": …` inside the body).
    pub(super) keyish: bool,
    pub(super) comma: Option<Comma>,
    /// The key it may echo, while its body is a prefix of that key.
    pub(super) echo: Option<Echo>,
    /// The whitespace and closers its body ends with.
    pub(super) tail: Option<Tail>,
    /// An escape JSON does not have was kept as text in it (`C:\dir`,
    /// `\d+`): a backslash there is the text's own.
    pub(super) odd_escape: bool,
    /// Whether its `\_` and `\*` are Markdown escapes, once the first was
    /// decided (see `Machine::markdown_escape`).
    pub(super) markdown: Option<bool>,
    /// The output position of a `\\` written right before a `"` (`{\\"a\\":
    /// 1}`): if the quote is text, the two were one quote escaped twice.
    pub(super) twice: Option<usize>,
    /// A quote escaped twice was read in it: `\\\"` is one too.
    pub(super) undoubled: bool,
    /// How many of the inner quotes were such escaped quotes of JSON
    /// written twice (the rest are the model's own raw quotes).
    pub(super) undoubled_quotes: u32,
    /// Whether its body so far is only whitespace and openers (`{`, `[`):
    /// JSON written into it starts so.
    pub(super) lead: bool,
    /// Whether the body was only that before the `\\` of [`Str::twice`]:
    /// only there does a first quote escaped twice open JSON written into
    /// the string (`"{\\"a\\": 1}"`). Elsewhere `\\"` is more likely
    /// code's own escaped quote inside a literal whose quotes the model did
    /// not escape (`msg = "say \\"hi\\""`).
    pub(super) twice_lead: bool,
    /// For a key: the first colon in its body (`"approve_pr: false`), where
    /// the key ended if its end quote was dropped before the colon.
    pub(super) colon: Option<Comma>,
    /// Whether it was opened by `"""` (a Python triple-quoted string):
    /// only `"""` closes it.
    pub(super) triple: bool,
    /// The output position where its body starts.
    pub(super) body_start: usize,
    /// Open brackets of the body per kind (`()`, `[]`, `{}`), counted up to
    /// output position `counted` (a closer with nothing open is ignored).
    balance: [u32; 3],
    /// `balance` when the last inner quote was found.
    balance_at_inner: [u32; 3],
    counted: usize,
    /// The quote at input position `.0` is not judged again before input
    /// position `.1` has arrived (see `Machine::string_quote`: its retries
    /// thin out, so a quote fed one byte at a time costs linear time, not
    /// quadratic).
    pub(super) retry: (usize, usize),
    /// While the quote waits with nothing after it but its comma and
    /// whitespace (`"x",` then 70 spaces: more than the bytes asked again
    /// one at a time): how many of those bytes after the quote were read. The
    /// quote is judged again at the first other byte, without waiting for
    /// `retry.1`, so that whitespace does not hold a snapshot back (nor
    /// make it depend on where the chunks were cut). `usize::MAX` otherwise.
    pub(super) retry_blank: usize,
}

impl Str {
    pub(super) fn new(open: Quote, role: Role, escaping: Escaping, body_start: usize) -> Self {
        Str {
            open,
            role,
            escaping,
            inner_quotes: 0,
            keyish: false,
            comma: None,
            echo: None,
            tail: None,
            odd_escape: false,
            markdown: None,
            twice: None,
            undoubled: false,
            undoubled_quotes: 0,
            lead: true,
            twice_lead: false,
            colon: None,
            triple: false,
            body_start,
            balance: [0; 3],
            balance_at_inner: [0; 3],
            counted: body_start,
            retry: (usize::MAX, 0),
            retry_blank: usize::MAX,
        }
    }

    pub(super) fn is_key(&self) -> bool {
        self.role == Role::Key
    }

    /// Whether the fast lane may finish this string: opened by `"`, not
    /// escaped twice, not triple-quoted, no inner quote found in it, and not
    /// a possible echo of its key.
    pub(super) fn is_plain(&self) -> bool {
        self.open == Quote::Double
            && self.escaping == Escaping::Plain
            && self.inner_quotes == 0
            && !self.triple
            && self.echo.is_none()
    }

    /// The output position below which this string's body may be committed.
    pub(super) fn keep_from(&self) -> Option<usize> {
        min_of(
            min_of(
                self.comma.map(|comma| comma.out),
                self.echo.map(|echo| echo.out),
            ),
            min_of(self.tail.map(|tail| tail.out), self.twice),
        )
    }

    /// The number of fixes below which none can be retracted.
    pub(super) fn retract_point(&self) -> Option<usize> {
        min_of(
            min_of(
                self.comma.map(|comma| comma.n_fixes),
                self.echo.map(|echo| echo.n_fixes),
            ),
            self.tail.map(|tail| tail.n_fixes),
        )
    }

    /// The input position the string may return to.
    pub(super) fn rewind_point(&self) -> Option<usize> {
        min_of(
            min_of(
                self.comma.map(|comma| comma.input),
                self.tail.map(|tail| tail.input),
            ),
            self.colon.map(|colon| colon.input),
        )
    }

    /// The body output from `from` on (`out`, starting at position `out_base`),
    /// `input` the input position it was read at, was just written as
    /// plain text: the tail it leaves. (An escape is one byte of text here:
    /// see [`Str::escape_written`].)
    pub(super) fn text_written(&mut self, text: &[u8], from: usize, input: usize, n_fixes: usize) {
        self.lead &= text.iter().all(|&b| lead_byte(b));
        match text.iter().rposition(|&b| !tail_byte(b)) {
            Some(k) if k + 1 == text.len() => self.tail = None,
            Some(k) => {
                self.tail = Some(Tail {
                    input: input + k + 1,
                    out: from + k + 1,
                    n_fixes,
                    closers: false,
                    open: [false; 3],
                });
                self.tail_closers(&text[k + 1..]);
            }
            None => {
                if self.tail.is_none() {
                    self.tail = Some(Tail {
                        input,
                        out: from,
                        n_fixes,
                        closers: false,
                        open: [false; 3],
                    });
                }
                self.tail_closers(text);
            }
        }
    }

    /// An escape was written at output position `from` for the input at
    /// `input`: a line break or tab goes on the tail, anything else ends it.
    pub(super) fn escape_written(&mut self, text: &str, from: usize, input: usize, n_fixes: usize) {
        self.lead &= tail_escape(text);
        if !tail_escape(text) {
            self.tail = None;
        } else if self.tail.is_none() {
            self.tail = Some(Tail {
                input,
                out: from,
                n_fixes,
                closers: false,
                open: [false; 3],
            });
        }
    }

    /// Note the closers of `text`, just added to the tail (their brackets
    /// are counted when the tail's first closer comes: the body before the
    /// tail must not have one open of their kind).
    pub(super) fn tail_closers(&mut self, text: &[u8]) {
        if let Some(tail) = self.tail.as_mut()
            && !tail.closers
            && text.iter().any(|&b| matches!(b, b'}' | b']'))
        {
            tail.closers = true;
            // Counted later, with the output (see `count_tail`).
            tail.open = [true; 3];
        }
    }

    /// Count the brackets of the body before its tail, once the tail holds a
    /// closer (`out` starts at output position `out_base`).
    pub(super) fn count_tail(&mut self, out: &str, out_base: usize) {
        let Some(tail) = self.tail else {
            return;
        };
        if !tail.closers || tail.open != [true; 3] || self.counted > tail.out {
            return;
        }
        let before = &out.as_bytes()[..tail.out.saturating_sub(out_base).min(out.len())];
        self.count_brackets(before, out_base);
        if let Some(t) = self.tail.as_mut() {
            t.open = self.balance.map(|n| n > 0);
        }
    }

    /// Where the body is cut when the input ends now: before a tail whose
    /// closers close exactly `frames` (`out` from position `out_base`).
    pub(super) fn cut_at_end(
        &self,
        out: &[u8],
        out_base: usize,
        frames: &[Frame],
    ) -> Option<usize> {
        let tail = self.tail?;
        if !tail.closers || self.role != Role::Value {
            return None;
        }
        let text = out.get(tail.out.checked_sub(out_base)?..)?;
        tail_closes(text, tail.open, frames).then_some(tail.out)
    }

    /// Count the brackets of body output not counted yet (`out` starts at
    /// output position `out_base`).
    // Not inlined: inlined into `string_quote` it cost more there than the
    // call (callgrind, 100 KB malformed in 16-byte chunks: +0.4%).
    #[inline(never)]
    pub(super) fn count_brackets(&mut self, out: &[u8], out_base: usize) {
        let from = self.counted.max(out_base) - out_base;
        let Some(new) = out.get(from..) else {
            return;
        };
        let (mut balance, mut at_inner) = (self.balance, self.balance_at_inner);
        count_brackets_in(new, &mut balance, &mut at_inner);
        (self.balance, self.balance_at_inner) = (balance, at_inner);
        self.counted = out_base + out.len();
    }

    /// Record an inner quote (after counting the brackets before it).
    pub(super) fn note_inner(&mut self) {
        self.inner_quotes += 1;
        self.balance_at_inner = self.balance;
    }

    /// Per kind: whether a bracket the body opened before its last inner
    /// quote is still open.
    pub(super) fn enclosed(&self) -> [bool; 3] {
        self.balance_at_inner
            .map(|n| self.inner_quotes > 0 && n > 0)
    }

    /// Which closers (`)`, `]`, `}`) would close a bracket the body opened.
    pub(super) fn open_brackets(&self) -> [bool; 3] {
        self.balance.map(|n| n > 0)
    }

    /// How many brackets of each kind the body has open.
    pub(super) fn balance(&self) -> [u32; 3] {
        self.balance
    }

    /// Output before `to` is about to be forgotten: count its brackets
    /// first. (Nothing the string may still take back is ever forgotten:
    /// only committed output is; a tail's brackets are counted when it
    /// holds a closer, see `count_tail`.)
    pub(super) fn forget(&mut self, out: &str, out_base: usize, to: usize) -> usize {
        let before = &out.as_bytes()[..to.saturating_sub(out_base).min(out.len())];
        self.count_brackets(before, out_base);
        to
    }
}

/// Count the brackets of `new` (body text) into `balance`, per kind `()`,
/// `[]`, `{}` (a closer with none open counts nothing), and keep in
/// `at_inner` the lowest balance seen after a closer. The machine's open
/// string counts its output with it, the stream's prelude its input.
pub(super) fn count_brackets_in(new: &[u8], balance: &mut [u32; 3], at_inner: &mut [u32; 3]) {
    // A word at a time to the words that hold a bracket, then one table
    // look-up a byte of those (callgrind, the 50 KB `write_file` call in
    // 16-byte chunks: a search set up anew at each bracket cost 12
    // instructions a byte). With bit 5 set on every byte, every bracket
    // is `(`, `)`, `{` or `}` (and so are tab and backspace, which body
    // output escapes; a word flagged for nothing is only read again).
    let mut count = |bytes: &[u8]| {
        for &b in bytes {
            let code = BRACKETS[usize::from(b)];
            if code == 0 {
                continue;
            }
            let kind = usize::from(code >> 1) - 1;
            if code & 1 == 1 {
                balance[kind] += 1;
            } else {
                balance[kind] = balance[kind].saturating_sub(1);
                at_inner[kind] = at_inner[kind].min(balance[kind]);
            }
        }
    };
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let mut words = new.chunks_exact(8);
    for word in &mut words {
        let mut w = [0u8; 8];
        w.copy_from_slice(word);
        let x = u64::from_le_bytes(w) | (ONES * 0x20);
        // (A flag may be wrong above a true one, never missing: the
        // table then reads the word exactly.)
        if zero_byte((x & !ONES) ^ (ONES * 0x28))
            | zero_byte(x ^ (ONES * 0x7b))
            | zero_byte(x ^ (ONES * 0x7d))
            != 0
        {
            count(word);
        }
    }
    count(words.remainder());
}

/// Per byte: 0, or a bracket's kind plus one (`(` 1, `[` 2, `{` 3), times
/// two, plus one for an opener (`Str::count_brackets`).
const BRACKETS: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'(' as usize] = 3;
    table[b')' as usize] = 2;
    table[b'[' as usize] = 5;
    table[b']' as usize] = 4;
    table[b'{' as usize] = 7;
    table[b'}' as usize] = 6;
    table
};

/// The smaller of two optional positions.
fn min_of(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
