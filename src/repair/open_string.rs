//! The state of the string being read: how it opened, what it is (a key or
//! a value), how it escapes, and what it has met so far (inner quotes, a
//! comma at its end, bracket balance). Its own module so the machine, which
//! holds one, and `string.rs`, which reads bodies with the machine, do not
//! import each other.

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
    /// position `.1` has arrived (the window it needs doubles each time, so
    /// a quote fed one byte at a time costs linear time, not quadratic).
    pub(super) retry: (usize, usize),
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
            triple: false,
            body_start,
            balance: [0; 3],
            balance_at_inner: [0; 3],
            counted: body_start,
            retry: (usize::MAX, 0),
        }
    }

    pub(super) fn is_key(&self) -> bool {
        self.role == Role::Key
    }

    /// Whether the fast lane may finish this string: opened by `"`, not
    /// escaped twice, not triple-quoted, no inner quote found in it.
    pub(super) fn is_plain(&self) -> bool {
        self.open == Quote::Double
            && self.escaping == Escaping::Plain
            && self.inner_quotes == 0
            && !self.triple
    }

    /// The output position below which this string's body may be committed.
    pub(super) fn keep_from(&self) -> Option<usize> {
        self.comma.map(|comma| comma.out)
    }

    /// The number of fixes below which none can be retracted.
    pub(super) fn retract_point(&self) -> Option<usize> {
        self.comma.map(|comma| comma.n_fixes)
    }

    /// The input position the string may return to.
    pub(super) fn rewind_point(&self) -> Option<usize> {
        self.comma.map(|comma| comma.input)
    }

    /// Count the brackets of body output not counted yet (`out` starts at
    /// output position `out_base`).
    pub(super) fn count_brackets(&mut self, out: &str, out_base: usize) {
        let from = self.counted.max(out_base) - out_base;
        let Some(new) = out.as_bytes().get(from..) else {
            return;
        };
        // Only bracket bytes matter; most bodies have few, so skip to them.
        let mut rest = new;
        while let Some(k) = rest
            .iter()
            .position(|&b| matches!(b, b'(' | b')' | b'[' | b']' | b'{' | b'}'))
        {
            let (kind, opens) = match rest[k] {
                b'(' => (0, true),
                b')' => (0, false),
                b'[' => (1, true),
                b']' => (1, false),
                b'{' => (2, true),
                _ => (2, false),
            };
            if opens {
                self.balance[kind] += 1;
            } else {
                self.balance[kind] = self.balance[kind].saturating_sub(1);
                self.balance_at_inner[kind] = self.balance_at_inner[kind].min(self.balance[kind]);
            }
            rest = &rest[k + 1..];
        }
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
    /// only committed output is.)
    pub(super) fn forget(&mut self, out: &str, out_base: usize, to: usize) -> usize {
        self.count_brackets(out, out_base);
        to
    }
}
