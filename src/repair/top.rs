//! The machine at the top level: before the value (prose, a code fence,
//! a JSONP or function-call wrapper), and after it (trailing text, a
//! second value, a fenced block that replaces a value found in prose).

use super::doubt::DoubtKind;
use super::fix::FixKind;
use super::frame::{LOOKAHEAD, State, WINDOW};
use super::grammar::{self, starts_value};
use super::machine::{Comment, Halt, Held, Machine, Step};
use super::options::Values;
use crate::lex::{self, Token};

impl Machine<'_> {
    pub(super) fn on_start(&mut self, token: Token, len: usize) -> Step {
        match token {
            Token::BraceOpen | Token::BracketOpen => {
                // A fence right after it (`{```json`) would remove the
                // bracket, so it stays provisional until the next token.
                // (The whitespace before it is held too, so that what is
                // committed does not depend on where a chunk ended.)
                let hold = (self.mark, self.out_len(), self.i);
                self.begin_value(token, len)?;
                if self.stack.len() == 1 {
                    self.open_hold = Some(hold);
                }
                Ok(())
            }
            Token::Fence => {
                // A tag in braces (```` ```{json} ````, an R Markdown habit)
                // goes with the fence.
                let tag = self.braced_fence_tag(len)?;
                self.open_fence();
                self.fix(FixKind::RemovedFence, self.i);
                self.i += len + tag;
                self.skip_fence_language()
            }
            Token::Quote(_) if self.top_level_opener()? => Ok(()),
            Token::Quote(_) | Token::Slash => self.begin_value(token, len),
            Token::Word if self.call_follows(len)? => self.begin_value(token, len),
            _ => {
                self.prose = Some(self.i);
                self.state = State::Prose;
                Ok(())
            }
        }
    }

    /// An opening fence before the value (issue 28): a fenced value is the
    /// value, so the whitespace before the fence is dropped (it was never
    /// committed: whitespace before the value stays provisional), the
    /// whitespace between the fence's line and the value is not written,
    /// and the whitespace after the value goes at the end, as for a value
    /// found in prose (`in_prose`).
    fn open_fence(&mut self) {
        self.in_prose = true;
        self.truncate_out(self.committed);
    }

    /// Skip the language tag after an opening fence (```` ```json ````).
    pub(super) fn skip_fence_language(&mut self) -> Step {
        self.state = State::Start;
        self.comment = Some(Comment::FenceTag);
        Ok(())
    }

    /// The length of a language tag in braces after the fence of `len`
    /// bytes at `i` (```` ```{json} ````, spaces before it included), or 0:
    /// such a tag is no object.
    fn braced_fence_tag(&self, len: usize) -> Result<usize, Halt> {
        let mut k = len;
        while self.peek(k)? == Some(b' ') {
            k += 1;
        }
        if self.peek(k)? != Some(b'{') {
            return Ok(0);
        }
        let open = k;
        k += 1;
        loop {
            match self.peek(k)? {
                Some(b)
                    if (b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+'))
                        && k - open < 32 =>
                {
                    k += 1
                }
                Some(b'}') if k > open + 1 => break,
                _ => return Ok(0),
            }
        }
        k += 1;
        // Only a tag alone on the fence's line.
        let mut end = k;
        while self.peek(end)? == Some(b' ') {
            end += 1;
        }
        Ok(match self.peek(end)? {
            Some(b'\n' | b'\r') | None => k - len,
            _ => 0,
        })
    }

    /// Whether `(` follows the word of `len` bytes at `i` (after whitespace):
    /// a function-call wrapper such as `callback({…})`.
    pub(super) fn call_follows(&self, len: usize) -> Result<bool, Halt> {
        let mut k = len;
        loop {
            match self.peek(k)? {
                Some(b) if lex::is_ws(b) && k - len < LOOKAHEAD => k += 1,
                Some(b'(') => return Ok(true),
                _ => return Ok(false),
            }
        }
    }

    pub(super) fn on_prose(&mut self, token: Token, len: usize) -> Step {
        let start = self.prose.unwrap_or(self.i);
        let past_window = self.i - start > WINDOW;
        match token {
            Token::BraceOpen | Token::BracketOpen | Token::Fence => {
                self.fix(FixKind::RemovedProse, start);
                self.in_prose = true;
                self.prose = None;
                self.truncate_out(self.committed);
                self.state = State::Start;
                if token != Token::Fence && self.opts.values != Values::Lines {
                    // `Replace {name} with…`: a fenced block further on
                    // would be the value, so this one stays provisional.
                    self.tentative = Some(Held {
                        out: self.out_len(),
                        input: self.i,
                        n_fixes: self.fix_count(),
                    });
                }
                self.on_start(token, len)
            }
            _ => {
                if past_window && self.prose.is_some() {
                    // Too long to be the value itself: it is prose, whatever follows.
                    self.fix(FixKind::RemovedProse, start);
                    self.in_prose = true;
                    self.prose = None;
                }
                self.i += len;
                Ok(())
            }
        }
    }

    pub(super) fn on_done(&mut self, token: Token, len: usize) -> Step {
        if token == Token::Plus && self.hold.is_some() {
            return self.begin_concat(len);
        }
        if token == Token::Fence && self.tentative.is_some() {
            return self.fence_after_tentative(len);
        }
        self.hold = None;
        match token {
            Token::Fence => {
                self.fix(FixKind::RemovedFence, self.i);
                self.i += len;
                Ok(())
            }
            Token::Comma => {
                self.fix(FixKind::RemovedComma, self.i);
                self.i += len;
                Ok(())
            }
            Token::BraceClose | Token::BracketClose | Token::ParenClose => {
                self.fix(FixKind::RemovedCloser, self.i);
                self.i += len;
                Ok(())
            }
            _ if self.opts.values == Values::Lines && starts_value(token) => {
                // One value per line: the whitespace between two values
                // becomes a newline unless it holds one.
                let ws = self.out.since(self.mark);
                if !ws.contains('\n') {
                    self.truncate_out(self.mark);
                    self.emit_ws("\n");
                }
                self.begin_value(token, len)
            }
            _ if self.opts.values == Values::Lines => {
                self.fix(FixKind::RemovedTrailingText, self.i);
                self.in_prose = true;
                self.i += len;
                Ok(())
            }
            _ => {
                if self.ended_with_string() {
                    // The value ended at a string's quote and its closer,
                    // and text follows: should it hold a quote, the string
                    // may have ended early (`"grep -n "} x;" f.h", …`).
                    self.early_close = Some(self.i);
                }
                self.fix(FixKind::RemovedTrailingText, self.i);
                // Words after the value are prose; a second value (`{…}
                // {…}`, `"a" "b"`, `1, 2`) is not, and the layout stays.
                let second_value = grammar::starts_solid_value(token);
                self.in_prose |= !second_value;
                if second_value {
                    // The whitespace before a dropped second value goes
                    // with it: it was held after the mark (never
                    // committed) until what follows the value was known.
                    self.truncate_out(self.mark.max(self.committed));
                }
                self.state = State::Ignore;
                self.i += len;
                if let Token::Quote(_) = token {
                    self.trailing_quote();
                }
                Ok(())
            }
        }
    }

    /// Whether the top-level value just written ends with a string and the
    /// closer of its container (`…"}`), nothing else between.
    fn ended_with_string(&self) -> bool {
        let held = self.out.held().as_bytes();
        let mut end = held.iter().rev().skip_while(|b| lex::is_ws(**b));
        matches!(end.next(), Some(b'}' | b']')) && end.find(|b| !lex::is_ws(**b)) == Some(&b'"')
    }

    /// A quote in the text dropped after the top-level value: if that value
    /// ended at a string's quote, the early close is a guess.
    pub(super) fn trailing_quote(&mut self) {
        if let Some(at) = self.early_close.take() {
            self.doubt(DoubtKind::EarlyClose, at);
        }
    }

    /// A fence after a value that was found inside prose: if a JSON value
    /// follows it, that is the value and the first was part of the prose.
    pub(super) fn fence_after_tentative(&mut self, len: usize) -> Step {
        let mut k = len;
        loop {
            match self.peek(k)? {
                Some(b) if (b.is_ascii_alphanumeric() || lex::is_ws(b)) && k < len + 64 => k += 1,
                Some(b'{' | b'[') => break,
                _ => {
                    // Not a fenced value: trailing text after the value.
                    self.tentative = None;
                    self.fix(FixKind::RemovedFence, self.i);
                    self.i += len;
                    return Ok(());
                }
            }
        }
        let Some(t) = self.tentative.take() else {
            return Ok(());
        };
        self.retract_fixes(t.n_fixes);
        self.retract_doubts(t.input);
        self.truncate_out(t.out);
        self.stack.clear();
        self.hold = None;
        self.pending_comma = None;
        self.started = false;
        self.state = State::Start;
        self.on_start(Token::Fence, len)
    }

    /// A fence right after the top-level opening bracket (`{```json`):
    /// the bracket and the fence go, and the value starts after the tag.
    pub(super) fn fence_after_bracket(
        &mut self,
        (mark, at, _): (usize, usize, usize),
        len: usize,
    ) -> Step {
        self.truncate_out(at);
        // The whitespace before the bracket is trailing again.
        self.mark = mark;
        self.stack.clear();
        self.started = false;
        self.open_fence();
        self.fix(FixKind::RemovedFence, self.i);
        self.i += len;
        self.skip_fence_language()
    }
}
