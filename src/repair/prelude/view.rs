//! The snapshot of a valid prefix, rendered as the machine renders it.
//! Each rule was read off the machine, and `tests.rs` holds it to the
//! machine prefix by prefix.

use super::{Last, Prelude, St};
use crate::repair::frame::Frame;
use crate::repair::open_string::tail_closes;

impl Prelude {
    /// The snapshot: (head, rest, value tail, frames), as the machine shows a
    /// valid prefix. A repairer that forgets what it returned shows it from
    /// the piece the last feed returned on, as the machine does
    /// (`Retain::Unreturned`); the head always holds all committed text, so
    /// the cut falls inside it.
    pub(crate) fn view(&self) -> (&str, &str, &str, &[Frame]) {
        let (head, rest, tail, frames) = self.view_all();
        if !self.unreturned {
            return (head, rest, tail, frames);
        }
        debug_assert!(head.is_empty() || head.len() >= self.delta_from);
        (
            head.get(self.delta_from..).unwrap_or(""),
            rest,
            tail,
            frames,
        )
    }

    /// [`Prelude::view`] from the input's first byte.
    fn view_all(&self) -> (&str, &str, &str, &[Frame]) {
        let t = self.text.as_str();
        let open = &self.stack[..self.depth];
        match self.state {
            St::Start => ("", "", "", &[]),
            St::ValueOrClose | St::KeyOrClose => (t, "", "", open),
            St::Value if self.comma.is_none() => (t, "", "null", open),
            St::Value | St::Key => self.after_value(t.len()),
            // A lone quote does not start a key yet.
            St::KeyBody if self.first_key && t.len() == self.tok + 1 => {
                (&t[..self.tok], "", "", open)
            }
            St::KeyBody if t.len() == self.tok + 1 => self.after_value(self.tok),
            St::KeyBody | St::Colon if self.first_key => (&t[..self.hold], "", "", open),
            St::KeyBody | St::Colon => match (self.run, self.last, self.comma) {
                (None, Last::Scalar, Some(comma)) => (&t[..comma], "", "", open),
                _ => self.after_value(self.tok),
            },
            St::After | St::Done => self.after_value(t.len()),
            St::Body => {
                let mut end = self.at;
                // Only a tail at the very end of the input can be closers.
                if end == t.len() && self.cut_len == 0 && self.balance_known() {
                    let tail = self.tail;
                    let open_kinds = self.balance.map(|n| n > 0);
                    if tail_closes(&t.as_bytes()[tail..end], open_kinds, open) {
                        end = tail;
                    }
                }
                (&t[..end], "", "\"", open)
            }
            St::Number => {
                let src = t.as_bytes();
                let mut end = t.len();
                while end > self.tok && !src[end - 1].is_ascii_digit() {
                    end -= 1;
                }
                if end > self.tok {
                    return (&t[..end], "", "", open);
                }
                // No digit yet: as before the number began.
                match self.before {
                    St::ValueOrClose => (&t[..self.tok], "", "", open),
                    St::Value => match self.comma {
                        // The comma is dropped, the space after it kept,
                        // whatever the value before it (its quote is decided).
                        Some(comma) => (&t[..comma], &t[comma + 1..self.tok], "", open),
                        None => (&t[..self.tok], "", "null", open),
                    },
                    _ => self.after_value(self.tok),
                }
            }
            St::Literal => {
                let word = match t.as_bytes()[self.tok] {
                    b't' => "true",
                    b'f' => "false",
                    _ => "null",
                };
                (&t[..self.tok], "", word, open)
            }
        }
    }

    /// Whether the body's brackets are counted up to its tail.
    fn balance_known(&self) -> bool {
        self.counted == self.tail
    }

    /// The snapshot after a value, the text ending at `end`: a run of
    /// closers shows only its closers; a string ends at its quote; a number
    /// or literal keeps the whitespace after it, without the comma.
    fn after_value(&self, end: usize) -> (&str, &str, &str, &[Frame]) {
        let t = self.text.as_str();
        if let Some((start, open)) = self.run {
            return (&t[..start], "", "", &self.stack[..open]);
        }
        let open = &self.stack[..self.depth];
        match self.last {
            Last::Str(close) => (&t[..close], "", "", open),
            _ => match self.comma {
                Some(comma) if comma < end => (&t[..comma], &t[comma + 1..end], "", open),
                _ => (&t[..end], "", "", open),
            },
        }
    }
}
