//! The end of input, the verdict, and snapshots.

use super::doubt::{Doubt, DoubtKind};
use super::fix::{Fix, FixKind, Verdict};
use super::frame::{Frame, State};
use super::grammar;
use super::machine::Machine;
use super::options::Retain;
use super::source::SourceMap;

/// The longest scalar still being typed that a snapshot shows.
const PENDING_SCALAR: usize = 64;

impl Machine<'_> {
    // ----- end of input -----

    /// Handle the end of input in the current state; `true` if the machine
    /// must run again (it rewound, or closed something).
    pub(super) fn finish_step(&mut self) -> bool {
        self.write_out();
        if self.comment.take().is_some() {
            return true;
        }
        match self.state {
            State::Str => {
                self.end_string();
                true
            }
            State::Prose => {
                if let Some(start) = self.prose.take() {
                    let text = &self.src[start - self.base..];
                    if !grammar::is_sentence(text) {
                        // The text was the value itself: `hello world` → "hello world".
                        self.i = start;
                        self.state = State::Value;
                        return true;
                    }
                    // A sentence of prose with no value in it (a refusal, a
                    // question back): not JSON.
                    self.fix(FixKind::RemovedProse, start);
                }
                self.state = State::Done;
                false
            }
            State::Concat => {
                self.emit("\"");
                self.value_done();
                true
            }
            State::Colon if self.key_hold.is_some() => {
                // `{"a": 1, "b"`: a key without its colon is not a field yet.
                self.drop_key();
                true
            }
            State::Colon => {
                // `{"a" ` → `{"a": null}`: the colon before the whitespace, the value after it.
                self.fix(FixKind::CompletedValue, self.i);
                self.insert_at_mark(":");
                self.emit("null");
                self.state = State::After;
                true
            }
            State::Value | State::Key | State::After => {
                let Some(&top) = self.stack.last() else {
                    self.state = State::Done;
                    return false;
                };
                if self.state == State::Value && matches!(top, Frame::Object | Frame::Call) {
                    self.fix(FixKind::CompletedValue, self.i);
                    self.emit("null");
                }
                self.hold = None;
                self.drop_pending_comma(FixKind::RemovedDanglingComma);
                self.stack.pop();
                if top != Frame::Call && top != Frame::Root {
                    self.doubt_open_at_end();
                    self.fix(FixKind::ClosedContainer, self.i);
                }
                self.insert_at_mark(top.closer());
                self.value_done();
                true
            }
            State::Start | State::Done | State::Ignore => false,
        }
    }

    pub(super) fn verdict(&self) -> Verdict {
        if !self.started {
            Verdict::NotJson
        } else if self.fix_count() == 0 {
            Verdict::Valid
        } else if !self.taken_repairs && self.fixes.iter().all(|f| f.kind.is_truncation()) {
            Verdict::Completed
        } else {
            Verdict::Repaired
        }
    }

    /// The output, fixes, doubts and source map, taken out of the machine
    /// (by reference: a move of the whole machine costs a `memcpy`).
    pub(super) fn take_parts(&mut self) -> (String, Vec<Fix>, Vec<Doubt>, Option<SourceMap>) {
        self.write_out();
        let sources = self.out.take_sources(self.bytes_fed());
        let text = match self.opts.retain {
            Retain::All => std::mem::take(&mut self.out).into_string(),
            Retain::Unreturned => self.out.since(self.returned).to_owned(),
        };
        let text = if self.started { text } else { String::new() };
        let mut fixes = std::mem::take(&mut self.fixes);
        // Nearly always in order already; checking costs less than sorting.
        if !fixes.is_sorted_by_key(|f| f.offset) {
            fixes.sort_by_key(|f| f.offset);
        }
        let mut doubts = std::mem::take(&mut self.doubts);
        doubts.sort_by_key(|d| d.offset);
        doubts.dedup();
        (text, fixes, doubts, sources)
    }

    // ----- snapshots -----

    pub(super) fn snapshot(&self) -> (&str, &str, &str, &[Frame]) {
        if !self.started {
            return ("", "", "", &[]);
        }
        // What a snapshot shows starts where the output was last forgotten
        // (with `Retain::Unreturned`, more is held for `context.rs`).
        let from = self.shown_from.max(self.out.base());
        let held = self.out.since(from);
        if let Some(key) = self.key_hold {
            // A key that is not complete is not shown, nor the comma before it.
            let at = key.out.saturating_sub(from).min(held.len());
            return (&held[..at], "", "", &self.stack);
        }
        if self.in_prose && matches!(self.state, State::Done | State::Ignore) {
            // A value found in prose ends at its last byte (see `end`).
            let at = self.mark.max(self.committed).saturating_sub(from);
            return (&held[..at.min(held.len())], "", "", &self.stack);
        }
        let top = self.stack.last().copied();
        // A function-call wrapper writes nothing itself: its missing argument
        // (`null` below) follows the pending comma, which then stays.
        let comma = match (self.state, top) {
            (State::Value, Some(Frame::Call)) => None,
            _ => self.pending_comma,
        };
        let pending = match self.state {
            State::Value => self.pending_scalar(),
            _ => None,
        };
        let comma = if pending.is_some() { None } else { comma };
        if self.state == State::Str
            && self.rest().is_empty()
            && let Some(cut) = self.cut_at_end()
        {
            // The input so far ends inside the string (no quote waits to be
            // judged): it ends before the closers its body ends with.
            let at = cut.saturating_sub(from).min(held.len());
            return (&held[..at], "", "\"", &self.stack);
        }
        let (head, rest) = match comma {
            Some(p) => {
                let at = p.out - from;
                (&held[..at], &held[at + 1..])
            }
            None => (held, ""),
        };
        let value_tail = match (self.state, pending) {
            (State::Str | State::Concat, _) => "\"",
            (State::Colon, _) => ":null",
            (State::Value, Some(pending)) => pending,
            (State::Value, None) if matches!(top, Some(Frame::Object | Frame::Call)) => "null",
            _ => "",
        };
        (head, rest, value_tail, &self.stack)
    }

    /// The scalar being typed at the end of the input so far, as a snapshot
    /// shows it: a literal's prefix completes to the literal (`tr` → `true`),
    /// a number keeps the digits it has (`-1.` → `-1`). `None` for anything
    /// else, or when the number needs more than trimming.
    fn pending_scalar(&self) -> Option<&str> {
        let rest = self.rest();
        // A token this long is not a literal, and checking a number this long
        // after every chunk would cost the square of its length: it shows
        // once it is complete.
        if rest.is_empty() || rest.len() > PENDING_SCALAR {
            return None;
        }
        if let Some(literal) = super::scalar::literal_prefix(rest) {
            return Some(literal);
        }
        let digits = super::scalar::cut_number(rest)?;
        crate::utf8::from_utf8(digits).ok()
    }
}

impl Machine<'_> {
    /// The input ended with containers open although what it wrote last
    /// was a closer (as text of a string the end closed, too), in a document whose strings hold quoted code: the
    /// closers the model wrote were most likely read as text inside a
    /// string, so the last quote read as text is a doubt.
    pub(super) fn doubt_open_at_end(&mut self) {
        let Some(at) = self.inner_at else {
            return;
        };
        // (Only before the first closer the end supplies.)
        if self
            .fixes
            .last()
            .is_some_and(|f| f.kind == FixKind::ClosedContainer && f.offset == self.i)
        {
            return;
        }
        let mut text = self.out.held().trim_end();
        if self
            .fixes
            .last()
            .is_some_and(|f| f.kind == FixKind::ClosedString && f.offset == self.i)
        {
            // The input ended in a string (`{"a": "f("x")"⏎"b": 1}` read as
            // one): the closer is the last of its text, before the `\n`s
            // and spaces it may end with.
            text = text.strip_suffix('"').unwrap_or(text);
            while let Some(rest) = text.strip_suffix("\\n").or_else(|| text.strip_suffix(' ')) {
                text = rest;
            }
        }
        let last = text.bytes().last();
        if matches!(last, Some(b'}' | b']')) {
            self.doubt(DoubtKind::QuoteAsText, at);
        }
    }
}
