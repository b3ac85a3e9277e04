//! The states of the machine: what each token does at the top level, in
//! containers, and after `+`.

use super::grammar::{self, Faults, starts_value};
use super::judge::Role;
use super::machine::{
    Comment, Frame, Halt, Held, LOOKAHEAD, Machine, PendingComma, State, Step, WINDOW,
};
use super::{DoubtKind, FixKind, Values};
use crate::error::Error;
use crate::lex::{self, Token};

impl Machine<'_> {
    // ----- top level -----

    pub(super) fn on_start(&mut self, token: Token, len: usize) -> Step {
        match token {
            Token::BraceOpen | Token::BracketOpen => {
                // A fence right after it (`{```json`) would remove the
                // bracket, so it stays provisional until the next token.
                // (The whitespace before it is held too, so that what is
                // committed does not depend on where a chunk ended.)
                let hold = (self.mark, self.out_len());
                self.begin_value(token, len)?;
                if self.stack.len() == 1 {
                    self.open_hold = Some(hold);
                }
                Ok(())
            }
            Token::Fence => {
                self.open_fence();
                self.fix(FixKind::RemovedFence, self.i);
                self.i += len;
                self.skip_fence_language()
            }
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
                self.in_prose |= !grammar::starts_solid_value(token);
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

    /// Keep the key about to be written out of the committed output (see [`Held`]).
    pub(super) fn hold_key(&mut self) {
        let out = match self.pending_comma {
            Some(p) => p.out,
            None => self.mark,
        };
        // A comma inserted before this key goes with it.
        let mut n_fixes = self.fix_count();
        if self
            .fixes
            .last()
            .is_some_and(|f| f.kind == FixKind::InsertedComma && f.offset == self.i)
        {
            n_fixes -= 1;
        }
        self.key_hold = Some(Held {
            out,
            input: self.i,
            n_fixes,
        });
    }

    /// The input ended in a key (or before its colon): drop it.
    pub(super) fn drop_key(&mut self) {
        let Some(k) = self.key_hold.take() else {
            return;
        };
        self.string = None;
        self.retract_fixes(k.n_fixes);
        self.retract_doubts(k.input);
        self.truncate_out(k.out);
        self.pending_comma = None;
        self.fix(FixKind::DroppedKey, k.input);
        self.state = State::After;
    }

    /// A fence right after the top-level opening bracket (`{```json`):
    /// the bracket and the fence go, and the value starts after the tag.
    fn fence_after_bracket(&mut self, (mark, at): (usize, usize), len: usize) -> Step {
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

    // ----- containers -----

    pub(super) fn push_frame(&mut self, frame: Frame) -> Step {
        if self.stack.len() >= self.opts.depth_limit() {
            return Err(Halt::Limit(Error::too_deep(
                self.i,
                self.opts.depth_limit(),
            )));
        }
        self.stack.push(frame);
        Ok(())
    }

    /// A value has just been written completely.
    pub(super) fn value_done(&mut self) {
        self.state = if self.stack.is_empty() {
            State::Done
        } else {
            State::After
        };
    }

    /// Start the value that `token` begins.
    pub(super) fn begin_value(&mut self, token: Token, len: usize) -> Step {
        if !self.started && self.opts.values == Values::Array {
            self.push_frame(Frame::Root)?;
            self.emit("[");
        }
        self.hold = None;
        match token {
            Token::BraceOpen => {
                self.push_frame(Frame::Object)?;
                self.emit("{");
                self.i += len;
                self.state = State::Key;
                Ok(())
            }
            Token::BracketOpen => {
                self.push_frame(Frame::Array)?;
                self.emit("[");
                self.i += len;
                self.state = State::Value;
                Ok(())
            }
            Token::ParenOpen => {
                self.push_frame(Frame::Tuple)?;
                self.fix(FixKind::ConvertedTuple, self.i);
                self.emit("[");
                self.i += len;
                self.state = State::Value;
                Ok(())
            }
            Token::Quote(quote) => {
                self.begin_string(quote, len, Role::Value);
                Ok(())
            }
            Token::Literal(literal) => self.literal(literal, len),
            Token::Number | Token::Minus | Token::Plus => self.number(len),
            Token::Word => self.word_value(len),
            Token::Slash => self.regex(),
            Token::Backslash => match self.escaped_quote()? {
                Some((quote, len)) => {
                    self.begin_escaped_string(quote, len, Role::Value);
                    Ok(())
                }
                None => self.bare_string(Role::Value),
            },
            _ => self.bare_string(Role::Value),
        }
    }

    /// Enter a function-call wrapper after its name and `(`.
    pub(super) fn begin_call(&mut self, n: usize) -> Step {
        self.push_frame(Frame::Call)?;
        self.fix(FixKind::UnwrappedCall, self.i);
        self.i += n;
        self.state = State::Value;
        Ok(())
    }

    /// Close the innermost container, which `token` (a closer) closes or,
    /// when it belongs to an outer container, closes early.
    pub(super) fn close(&mut self, token: Token, len: usize) -> Step {
        let Some(depth) = self.stack.iter().rposition(|f| f.is_closed_by(token)) else {
            // No open container takes it: a stray closer, dropped (`[{"a":1}}, 2]`
            // keeps its second element).
            self.fix(FixKind::RemovedCloser, self.i);
            self.i += len;
            return Ok(());
        };
        let Some(&frame) = self.stack.last() else {
            return Ok(());
        };
        // `callback({…});`: the semicolon goes with the call.
        let semicolon = frame == Frame::Call && self.peek(len)? == Some(b';');
        self.drop_pending_comma(FixKind::RemovedComma);
        if depth + 1 == self.stack.len() {
            self.stack.pop();
            self.emit(frame.closer());
            self.i += len + usize::from(semicolon);
        } else {
            self.stack.pop();
            self.fix(FixKind::ReplacedCloser, self.i);
            self.insert_at_mark(frame.closer());
        }
        self.value_done();
        Ok(())
    }

    pub(super) fn has_pending_comma(&self) -> bool {
        self.pending_comma.is_some()
    }

    /// Record a comma already written at output position `out` (read at
    /// input position `input`) as pending; the value before it ended at `mark_before`.
    pub(super) fn set_pending_comma(&mut self, out: usize, input: usize, mark_before: usize) {
        self.pending_comma = Some(PendingComma {
            out,
            input,
            mark_before,
        });
    }

    pub(super) fn drop_pending_comma(&mut self, kind: FixKind) {
        if let Some(p) = self.pending_comma.take() {
            self.fix(kind, p.input);
            self.forget_context(p.out);
            self.out.remove(p.out);
            // Nothing but whitespace follows the comma, so the mark goes back
            // to the end of the value it followed.
            self.mark = p.mark_before;
        }
    }

    /// What follows an ellipsis decides what goes with it (see
    /// [`Machine::drop_ellipsis`]): wait for that byte before anything
    /// changes.
    fn wait_after_ellipsis(&self, token: Token, len: usize) -> Step {
        if token == Token::Ellipsis {
            self.peek(len)?;
        }
        Ok(())
    }

    /// Drop an ellipsis (`[1, 2, ...]`). Right before a closer, a comma or
    /// a line break it takes the whitespace before it along, so that
    /// `[1, ...]` gives `[1]` once the closer drops the comma (not `[1 ]`),
    /// `[1, ..., 9]` gives `[1, 9]`, and an ellipsis on a line of its own
    /// leaves no line behind. Whitespace after it stays, as jsonrepair
    /// keeps it: `[1, 2, ... ]` gives `[1, 2  ]`.
    fn drop_ellipsis(&mut self, len: usize) -> Step {
        let alone = matches!(
            self.peek(len)?,
            Some(b']' | b'}' | b')' | b',' | b'\n' | b'\r')
        );
        // The document leaves things out as it leaves out an element
        // between two commas (see `judge/fit.rs`).
        self.style |= Faults::SEPARATOR;
        self.fix(FixKind::RemovedEllipsis, self.i);
        if alone {
            self.truncate_out(self.mark.max(self.committed));
        }
        self.i += len;
        Ok(())
    }

    pub(super) fn on_value(&mut self, token: Token, len: usize) -> Step {
        self.wait_after_ellipsis(token, len)?;
        if let Some(hold) = self.open_hold.take()
            && token == Token::Fence
        {
            return self.fence_after_bracket(hold, len);
        }
        let top = self.stack.last().copied();
        let in_object = top == Some(Frame::Object);
        match token {
            Token::Comma => {
                if in_object {
                    self.fix(FixKind::InsertedNull, self.i);
                    self.emit("null");
                    self.value_done();
                } else {
                    self.fix(FixKind::RemovedComma, self.i);
                    self.i += len;
                }
                Ok(())
            }
            Token::BraceClose | Token::BracketClose | Token::ParenClose => {
                if in_object || top == Some(Frame::Call) {
                    self.fix(FixKind::InsertedNull, self.i);
                    self.emit("null");
                    self.value_done();
                    return Ok(());
                }
                if top.is_none() {
                    self.fix(FixKind::RemovedCloser, self.i);
                    self.i += len;
                    return Ok(());
                }
                self.close(token, len)
            }
            Token::Ellipsis => self.drop_ellipsis(len),
            Token::Colon | Token::Semicolon | Token::Fence => {
                self.fix(FixKind::RemovedCharacter, self.i);
                self.i += len;
                Ok(())
            }
            _ => self.begin_value(token, len),
        }
    }

    pub(super) fn on_key(&mut self, token: Token, len: usize) -> Step {
        self.wait_after_ellipsis(token, len)?;
        if let Some(hold) = self.open_hold.take()
            && token == Token::Fence
        {
            return self.fence_after_bracket(hold, len);
        }
        match token {
            Token::Comma => {
                self.fix(FixKind::RemovedComma, self.i);
                self.i += len;
                Ok(())
            }
            Token::BraceClose | Token::BracketClose | Token::ParenClose => self.close(token, len),
            Token::BraceOpen | Token::BracketOpen => {
                // Cannot be a key: the object ends here.
                self.drop_pending_comma(FixKind::RemovedComma);
                self.stack.pop();
                self.fix(FixKind::InsertedCloser, self.i);
                self.insert_at_mark("}");
                self.value_done();
                Ok(())
            }
            Token::Ellipsis => self.drop_ellipsis(len),
            Token::Colon | Token::Semicolon | Token::Fence | Token::Plus => {
                self.fix(FixKind::RemovedCharacter, self.i);
                self.i += len;
                Ok(())
            }
            Token::Quote(quote) => {
                self.begin_string(quote, len, Role::Key);
                Ok(())
            }
            Token::Backslash => match self.escaped_quote()? {
                Some((quote, len)) => {
                    self.begin_escaped_string(quote, len, Role::Key);
                    Ok(())
                }
                None => self.bare_string(Role::Key),
            },
            _ => self.bare_string(Role::Key),
        }
    }

    pub(super) fn on_colon(&mut self, token: Token, len: usize) -> Step {
        let rest = self.rest();
        if let Some((n, form)) = grammar::colon_at(token, len, rest) {
            if rest.len() < 2 && !self.eof && token == Token::Other {
                // `=` may be the start of `=>` or `==`.
                return Err(Halt::Need);
            }
            self.style |= form;
            self.doubt_repeated_key();
            if form.contains(Faults::COLON_EQUALS) || form.contains(Faults::COLON_ARROW) {
                // `{"a" = 1}`, `{"a" => 1}`: the colon goes right after the
                // key, as `{"a": 1}` has it.
                self.fix(FixKind::InsertedColon, self.i);
                self.truncate_out(self.mark);
            }
            self.key_hold = None;
            self.emit(":");
            self.i += n;
            self.state = State::Value;
            return Ok(());
        }
        // Anything else but a dropped character completes the key: a
        // repair supplies the colon.
        let completes = starts_value(token)
            || matches!(
                token,
                Token::Comma | Token::BraceClose | Token::BracketClose | Token::ParenClose
            );
        if completes {
            self.key_hold = None;
        }
        match token {
            Token::BraceClose | Token::BracketClose | Token::ParenClose | Token::Comma => {
                self.fix(FixKind::InsertedNull, self.i);
                self.insert_at_mark(":null");
                self.state = State::After;
                Ok(())
            }
            _ if starts_value(token) => {
                self.fix(FixKind::InsertedColon, self.i);
                self.insert_at_mark(":");
                self.state = State::Value;
                Ok(())
            }
            _ => {
                self.fix(FixKind::RemovedCharacter, self.i);
                self.i += len;
                Ok(())
            }
        }
    }

    pub(super) fn on_after(&mut self, token: Token, len: usize) -> Step {
        self.wait_after_ellipsis(token, len)?;
        if token == Token::Plus && self.hold.is_some() {
            return self.begin_concat(len);
        }
        self.hold = None;
        let Some(&top) = self.stack.last() else {
            self.value_done();
            return Ok(());
        };
        match token {
            Token::Comma | Token::Semicolon if top == Frame::Call => {
                self.fix(FixKind::RemovedCharacter, self.i);
                self.i += len;
                Ok(())
            }
            Token::Comma | Token::Semicolon => {
                if token == Token::Semicolon {
                    // `{"a": 1; "b": 2}`: a semicolon for a comma.
                    self.style |= Faults::SEPARATOR;
                    self.fix(FixKind::ReplacedSeparator, self.i);
                }
                if self.pending_comma.is_some() {
                    self.style |= Faults::SEPARATOR;
                    self.fix(FixKind::RemovedComma, self.i);
                } else {
                    let comma = PendingComma {
                        out: self.out_len(),
                        input: self.i,
                        mark_before: self.mark,
                    };
                    self.emit(",");
                    self.pending_comma = Some(comma);
                }
                self.i += len;
                self.state = if top == Frame::Object {
                    State::Key
                } else {
                    State::Value
                };
                Ok(())
            }
            Token::BraceClose | Token::BracketClose | Token::ParenClose => self.close(token, len),
            Token::Ellipsis => self.drop_ellipsis(len),
            Token::BraceOpen | Token::BracketOpen if top == Frame::Object => {
                // Cannot be a key: the object ends here (`[{"i":1{"i":2}]`).
                self.stack.pop();
                self.fix(FixKind::InsertedCloser, self.i);
                self.insert_at_mark("}");
                self.value_done();
                Ok(())
            }
            _ if starts_value(token) && top != Frame::Call => {
                if top != Frame::Root {
                    self.style |= Faults::NO_SEPARATOR;
                    self.fix(FixKind::InsertedComma, self.i);
                }
                // Pending like a comma that was read, so a snapshot taken
                // before the value is written leaves it out.
                let mark = self.mark;
                self.insert_at_mark(",");
                self.pending_comma = Some(PendingComma {
                    out: mark,
                    input: self.i,
                    mark_before: mark,
                });
                self.state = if top == Frame::Object {
                    State::Key
                } else {
                    State::Value
                };
                Ok(())
            }
            _ => {
                self.fix(FixKind::RemovedCharacter, self.i);
                self.i += len;
                Ok(())
            }
        }
    }
}
