//! Writing what the lane's scan took: the run copied (or left unwritten)
//! with its lenient edits made, and the machine left in exactly the state
//! the scan's safe point describes.

use super::Safe;
use crate::lex::{self, Quote};
use crate::repair::Fix;
use crate::repair::judge::Role;
use crate::repair::lenient::{With, push_escaped_quotes};
use crate::repair::machine::{Machine, State, text_at};
use crate::repair::open_string::{Comma, Escaping, Str};

impl Machine<'_> {
    /// Copy `src[start..safe.p]` to the output (or leave it unwritten, see
    /// `unwritten`), with the lenient edits before `safe.p` made, and put
    /// the machine in the state `safe` describes.
    #[inline]
    pub(super) fn apply(
        &mut self,
        start: usize,
        out_start: usize,
        safe: Safe,
        low: usize,
    ) -> Result<(), usize> {
        // The output so far ends where the input read so far does: this
        // stretch is the input at the same positions, so it need not be copied.
        let unwritten = safe.edits == 0
            && self.lazy
            && self.base == 0
            && self.out.base() == 0
            && out_start == self.i;
        if !unwritten {
            self.write_out();
        }
        if unwritten && self.whole_text.is_some() {
            // One-shot repair checked the whole input's UTF-8 up front.
            self.unwritten += safe.p - start;
        } else {
            let text = match text_at(&self.src, self.whole_text, start, safe.p) {
                Ok(text) => text,
                Err(error) => {
                    // Undo the frames: the caller scans again up to the bad byte.
                    self.stack.truncate(low);
                    self.stack.extend(self.frames_undo.drain(..).rev());
                    return Err(error.valid_up_to());
                }
            };
            if unwritten {
                self.unwritten += text.len();
            } else if safe.edits == 0 {
                self.out.push_str(text);
            } else {
                // Edits sit on ASCII bytes, so every cut is a character boundary.
                let mut at = start;
                for edit in &self.lane_edits[..safe.edits] {
                    self.out.push_str(&text[at - start..edit.from - start]);
                    self.out.note_source(self.out.len(), self.base + edit.from);
                    match edit.with {
                        With::Quoted(from, to) => {
                            self.out.push('"');
                            self.out.push_str(&text[from - start..to - start]);
                            self.out.push('"');
                        }
                        With::Escaped(from, to, _) => {
                            self.out.push('"');
                            push_escaped_quotes(&mut self.out, &text[from - start..to - start]);
                            self.out.push('"');
                        }
                        With::Text(json) => self.out.push_str(json),
                        With::Nothing => {}
                    }
                    self.out.note_source(self.out.len(), self.base + edit.to);
                    self.fixes.push(Fix {
                        kind: edit.fix,
                        offset: self.base + edit.fix_at,
                    });
                    self.style |= edit.style();
                    at = edit.to;
                }
                self.out.push_str(&text[at - start..]);
            }
        }
        self.frames_undo.clear();
        self.wrote();
        if let Some(mark) = safe.mark {
            self.mark = mark;
        }
        self.hold = None;
        self.open_hold = None;
        if safe.state != State::Colon {
            self.key_hold = None;
        }
        let out_start = out_start.wrapping_add_signed(safe.growth);
        if safe.state == State::Str {
            self.string_at_quote(start, out_start, safe);
        } else if self.state == State::Str {
            self.string = None;
        }
        if let Some((comma, out, value_end)) = safe.comma {
            self.set_pending_comma(out, self.base + comma, value_end);
        }
        self.i = self.base + safe.p;
        self.state = safe.state;
        Ok(())
    }

    /// The lane stopped inside a value string (at its closing quote, or
    /// where what arrived ends): leave the string as the machine would have
    /// after copying the same body (see `open_string::Str`), its trailing comma
    /// included. `out_start` is where `src[start]` would be in the output had
    /// the scan's edits all come before it (it may wrap below zero when they
    /// shrank the output). The body's own edits (its raw control characters,
    /// `lenient::value_body`) come after some of the positions asked for,
    /// so each position leaves out the edits at or past it.
    fn string_at_quote(&mut self, start: usize, out_start: usize, safe: Safe) {
        let edits = &self.lane_edits[..safe.edits];
        // The growth and the number of the edits at or past input index `x`.
        let past = |x: usize| {
            edits
                .iter()
                .rev()
                .take_while(|e| e.from >= x)
                .fold((0, 0), |(growth, n), e| (growth + e.growth(), n + 1))
        };
        let out_at = |x: usize| {
            out_start
                .wrapping_add(x - start)
                .wrapping_add_signed(-past(x).0)
        };
        let (from, mut string) = match (safe.body, self.string) {
            (Some(body), _) => (
                body,
                Str::new(Quote::Double, Role::Value, Escaping::Plain, out_at(body)),
            ),
            (None, Some(string)) => (start, string),
            (None, None) => return,
        };
        let copied = &self.src[from..safe.p];
        if let Some(k) = copied.iter().rposition(|&b| !lex::is_ws(b)) {
            let at = from + k;
            string.comma = (copied[k] == b',').then(|| Comma {
                input: self.base + at,
                out: out_at(at),
                // The fixes of the line breaks after the comma are not
                // before it.
                n_fixes: self.fix_count() - past(at).1,
            });
        }
        self.string = Some(string);
    }
}
