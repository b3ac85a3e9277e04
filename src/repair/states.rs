//! The states of the machine inside containers: what each token does as a
//! value, a key, a colon or what follows a value, and after `+`; the
//! top level is `top.rs`.

use super::context::object_context;
use super::doubt::DoubtKind;
use super::fix::FixKind;
use super::frame::{Frame, State};
use super::grammar::{self, Faults, starts_value};
use super::judge::Role;
use super::machine::{Halt, Held, Machine, PendingComma, Step};
use super::options::Values;
use crate::error::Error;
use crate::lex::Token;

impl Machine<'_> {
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

    // ----- containers -----

    pub(super) fn push_frame(&mut self, frame: Frame) -> Step {
        if self.stack.len() >= self.opts.depth_limit() {
            return Err(Halt::Limit(Error::too_deep(
                self.i,
                self.opts.depth_limit(),
            )));
        }
        // A frame pushed at this height replaces any doubled one gone from it.
        let height = self.stack.len();
        self.doubled.retain(|d| *d < height);
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
            Token::BraceOpen | Token::BracketOpen => {
                let (frame, text, state) = if token == Token::BraceOpen {
                    (Frame::Object, "{", State::Key)
                } else {
                    (Frame::Array, "[", State::Value)
                };
                self.push_frame(frame)?;
                self.emit(text);
                self.i += len;
                self.state = state;
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
            Token::Backslash => self.backslash(Role::Value),
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
        if self.needs_run_plan(token, len) && self.close_by_plan(len)? {
            return Ok(());
        }
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

    /// A `\` where a value or key starts: an escaped line break or tab is
    /// whitespace, an escaped quote (`\"text\"`, a string copied with its
    /// escapes) opens a string, anything else is a bare word.
    fn backslash(&mut self, role: Role) -> Step {
        if let Some(ws) = self.escaped_whitespace()? {
            // `"a":\n"b"`, `{\n"a"`: a line break written as its escape
            // outside a string (JSON escaped once too often) is whitespace.
            self.fix(FixKind::ReplacedWhitespace, self.i);
            self.style |= Faults::ESCAPED_WS;
            self.emit_ws(ws);
            self.i += 2;
            return Ok(());
        }
        match self.escaped_quote()? {
            Some((quote, len)) => {
                self.begin_escaped_string(quote, len, role);
                Ok(())
            }
            None => self.bare_string(role),
        }
    }

    pub(super) fn on_value(&mut self, token: Token, len: usize) -> Step {
        self.wait_after_ellipsis(token, len)?;
        if let Some(hold) = self.open_hold.take() {
            if token == Token::Fence {
                return self.fence_after_bracket(hold, len);
            }
            if matches!(token, Token::Quote(_)) && self.stack.as_slice() == [Frame::Array] {
                // The top-level `[` stays provisional through a first string
                // element: a colon after it makes the `[` an object's `{`
                // (`Machine::array_was_object`).
                self.open_hold = Some(hold);
            }
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
            _ if top == Some(Frame::Array) && self.element_opener(token)? => Ok(()),
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
            Token::BraceOpen if self.reopened(len)? => Ok(()),
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
            Token::Quote(quote) => self.key_quote(quote, len),
            Token::Backslash => self.backslash(Role::Key),
            Token::Word if self.prose_line()? => Ok(()),
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
        if let Some(hold) = self.open_hold.take()
            && token == Token::Colon
        {
            return self.array_was_object(hold);
        }
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
            Token::Backslash if let Some(ws) = self.escaped_whitespace()? => {
                // `[1, 2]\n}`: an escaped line break after a value is
                // whitespace, as where a value starts.
                self.fix(FixKind::ReplacedWhitespace, self.i);
                self.style |= Faults::ESCAPED_WS;
                self.emit_ws(ws);
                self.i += 2;
                Ok(())
            }
            Token::Ellipsis => self.drop_ellipsis(len),
            Token::BraceOpen if top == Frame::Object && self.reopened(len)? => Ok(()),
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

impl Machine<'_> {
    /// Whether the machine reads each key itself (`doubt_repeated_key`):
    /// the fast lane leaves keys to it then (`Lane::wary`). Both ask this
    /// one rule, or a key the lane took in one run and the machine read in
    /// another (at a chunk's end) would be a doubt only in the latter.
    pub(super) fn wary(&self) -> bool {
        self.inner_at.is_some() || !self.doubts.is_empty()
    }

    /// A key about to get its colon that repeats a key of its object is a
    /// doubt, in a document whose strings hold quoted code (or that holds a
    /// doubt already): there the repeat is most likely code read as
    /// structure (`"path": '/b'` inside a `write_file`'s content), and the
    /// later value would win when parsed. Elsewhere a repeat is the
    /// model's own, and reading the context for every key would cost.
    pub(super) fn doubt_repeated_key(&mut self) {
        if !self.wary() {
            return;
        }
        let Some(key) = self.key_hold else {
            return;
        };
        let (held, base) = (self.out.held(), self.out.base());
        let Some(tail) = key.out.checked_sub(base).and_then(|k| held.get(k..)) else {
            return;
        };
        // `, "name"` or `"name"`, perhaps with spaces before the colon.
        let Some(open) = tail.find('"') else {
            return;
        };
        let Some(name) = tail[open + 1..].trim_end().strip_suffix('"') else {
            return;
        };
        let mut cache = None;
        let repeated = object_context(&mut cache, held, base, key.out + open)
            .is_some_and(|context| context.has_key(name.as_bytes()));
        if repeated {
            self.doubt(DoubtKind::DuplicateKey, key.input);
        }
    }
}
