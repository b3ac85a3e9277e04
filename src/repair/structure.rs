//! Structure decided by the container: a run of closers matched against
//! the open stack as a whole (`judge/closers/` plans it; here the plan is
//! carried out, one written closer at a time as the tokens come).

use super::doubt::DoubtKind;
use super::fast;
use super::fix::FixKind;
use super::frame::State;
use super::frame::{Frame, LOOKAHEAD};
use super::grammar::{self, Faults};
use super::judge::{
    How, Opener, Planned, Repeat, Run, RunOp, RunPlan, key_first, plan_run, repeated_members,
    row_opener,
};
use super::machine::{Halt, Machine, Step};
use super::options::Values;
use super::shape::{Shape, open_members, open_shapes};
use crate::lex::Token;

impl Machine<'_> {
    /// Whether the closer `token` at `i` starts a run that needs a plan: it
    /// does not close the innermost container, or it closes the top-level
    /// value, which what follows may show was not the end (`}, "next": …`).
    pub(super) fn needs_run_plan(&self, token: Token, len: usize) -> bool {
        if self.run_plan.is_some() {
            return true;
        }
        if len != 1
            || !matches!(token, Token::BraceClose | Token::BracketClose)
            || self.i < self.plain_run_to
        {
            return false;
        }
        match self.stack.last() {
            // The top-level value's closer in a mode that keeps several
            // values is theirs to read as written.
            Some(Frame::Object | Frame::Array) => {
                (self.stack.len() > 1 || self.opts.values == Values::First)
                    && !self.closers_read_plainly()
            }
            _ => false,
        }
    }

    /// The lane's cheap test, asked first: a run that closes as written and
    /// is followed, strictly, by the container on top going on needs no
    /// plan (most runs the machine meets between faults).
    fn closers_read_plainly(&self) -> bool {
        self.doubled.is_empty()
            && fast::closers_read_plainly(
                &self.src[self.i - self.base..],
                0,
                &self.stack,
                self.eof,
                self.style.contains(Faults::KEY_BARE),
            ) == Some(true)
    }

    /// Mend the closer of `len` bytes at `i` by the plan of its run, making
    /// the plan first when the run starts here. `Ok(false)` when the run is
    /// not one to plan, or its plan is to read it as written: the caller
    /// closes as it always did.
    pub(super) fn close_by_plan(&mut self, len: usize) -> Result<bool, Halt> {
        if self.run_plan.is_none() {
            let Some(plan) = self.plan_closers()? else {
                return Ok(false);
            };
            // A tie between readings is a doubt, the reading as written
            // included.
            if plan.doubt {
                self.doubt(DoubtKind::ClosersMatched, self.i);
            }
            if plan.is_plain() {
                // The rest of the run reads as written too: not planned again.
                self.plain_run_to = self.i + plan.len;
                return Ok(false);
            }
            self.run_plan = Some((plan.ops, 0));
        }
        self.supply_closers();
        let Some((ops, next)) = self.run_plan.as_mut() else {
            return Ok(false);
        };
        let op = ops.get(*next).copied();
        *next += 1;
        match op {
            Some(RunOp::Close(how)) => {
                self.drop_pending_comma(FixKind::RemovedComma);
                match how {
                    How::Same => {}
                    How::Replaced => self.fix(FixKind::ReplacedCloser, self.i),
                    How::Reordered => self.fix(FixKind::ReorderedClosers, self.i),
                }
                if let Some(frame) = self.stack.pop() {
                    self.emit(frame.closer());
                }
                self.value_done();
            }
            Some(RunOp::Drop) => self.fix(FixKind::RemovedCloser, self.i),
            // A plan ends with a written closer or with what it supplies
            // after the last one (taken by `supply_closers`).
            Some(RunOp::Insert) | None => {}
        }
        self.i += len;
        self.supply_closers();
        Ok(true)
    }

    /// Take the plan's supplied closers that come next, and forget the plan
    /// once it is carried out.
    fn supply_closers(&mut self) {
        while let Some((ops, next)) = self.run_plan.as_mut() {
            match ops.get(*next) {
                Some(RunOp::Insert) => {
                    *next += 1;
                    self.drop_pending_comma(FixKind::RemovedComma);
                    self.fix(FixKind::InsertedCloser, self.i);
                    if let Some(frame) = self.stack.pop() {
                        self.insert_at_mark(frame.closer());
                    }
                    self.value_done();
                }
                Some(_) => return,
                None => {
                    self.run_plan = None;
                    return;
                }
            }
        }
    }

    /// The plan of the run of closers at `i`, read with what follows it.
    fn plan_closers(&mut self) -> Result<Option<RunPlan>, Halt> {
        self.write_out();
        let height = self.stack.len();
        self.doubled.retain(|d| *d < height);
        let after = &self.src[self.i - self.base..];
        // One shot (`lazy`), the whole input is in hand: the top-level
        // closer's run, whose window holds all the rest, is read as at the
        // end now. Otherwise the plan halts for more input, and `end` plans
        // it again with `eof` set, in the same state (the lane takes no
        // top-level closer), for the same answer: a second plan, which was
        // 6% of the 192-byte call's instructions (issue 42's speed target).
        let whole_rest = self.lazy && self.stack.len() == 1 && after.len() < LOOKAHEAD;
        let run = Run {
            frames: &self.stack,
            after: &after[..after.len().min(LOOKAHEAD)],
            eof: self.eof || whole_rest,
            style: self.style,
            hints: self.hints.as_deref(),
            doubled: &self.doubled,
        };
        // The shapes are read from the output once, and only for a tie.
        let (held, base, end) = (self.out.held(), self.out.base(), self.mark);
        let depth = self.stack.len();
        let mut shapes: Option<Vec<Option<Shape>>> = None;
        let plan = plan_run(&run, |n| {
            shapes
                .get_or_insert_with(|| open_shapes(held, base, end, depth))
                .get(n)
                .cloned()
                .flatten()
        });
        #[cfg(debug_assertions)]
        if std::env::var_os("ARGMEND_DEBUG").is_some() {
            let sh = open_shapes(held, base, end, depth);
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!(
                    "plan at {} mark {} base {} held {:?} shapes {:?} -> {:?}\n",
                    self.i,
                    end,
                    base,
                    &held[held.len().saturating_sub(80)..],
                    sh,
                    plan
                )
                .as_bytes(),
            );
        }
        match plan {
            Planned::Plan(plan) => Ok(Some(plan)),
            Planned::No => Ok(None),
            Planned::Need => Err(Halt::Need),
        }
    }
}

impl Machine<'_> {
    /// The last byte of the output before the pending comma (or before the
    /// trailing whitespace): how the previous element ended (`]`, `}`), or
    /// the innermost container's opener when there is none.
    fn previous_end(&self) -> Option<u8> {
        let end = self.pending_comma.map_or(self.mark, |p| p.mark_before);
        let held = self.out.held().as_bytes();
        let end = end.checked_sub(self.out.base())?.min(held.len());
        held[..end]
            .iter()
            .rev()
            .find(|b| !crate::lex::is_ws(**b))
            .copied()
    }

    /// Whether the next element of the innermost array comes after one that
    /// was an array or an object: the machine reads it, to see whether its
    /// opener is missing (`element_opener`); the lane reads on once it has
    /// begun.
    pub(super) fn element_kind_open(&mut self) -> bool {
        if !matches!(self.state, State::After | State::Value)
            || self.stack.last() != Some(&Frame::Array)
        {
            return false;
        }
        self.write_out();
        matches!(self.previous_end(), Some(b']' | b'}'))
    }

    /// Before the element `token` starts in the innermost array: the opener
    /// that the element before it shows missing. After a row (`]`), a
    /// scalar whose values end in a `]` the array as written cannot take:
    /// the row's `[` (see `judge/openers.rs`); after an object (`}`), a key
    /// and its colon: the object's `{`. `Ok(true)` when one was supplied:
    /// the token is then read again in the new container.
    pub(super) fn element_opener(&mut self, token: Token) -> Result<bool, Halt> {
        if self.stack.last() != Some(&Frame::Array) {
            return Ok(false);
        }
        let supply = match (self.previous_end(), token) {
            (Some(b']'), Token::BracketOpen) | (Some(b'}'), Token::BraceOpen) => return Ok(false),
            (Some(b']'), _) => {
                let after = &self.src[self.i - self.base..];
                let after = &after[..after.len().min(LOOKAHEAD)];
                match row_opener(&self.stack, after, self.eof, self.style) {
                    Opener::Supply { doubt } => Some((Frame::Array, doubt)),
                    Opener::No => None,
                    Opener::Need => return Err(Halt::Need),
                }
            }
            (Some(b'}'), Token::Quote(_) | Token::Word | Token::Literal(_)) => {
                match key_first(self.rest_window(), self.eof) {
                    Some(true) => Some((Frame::Object, false)),
                    Some(false) => None,
                    None => return Err(Halt::Need),
                }
            }
            _ => None,
        };
        let Some((frame, doubt)) = supply else {
            return Ok(false);
        };
        self.open_supplied(frame, doubt)?;
        Ok(true)
    }

    /// The input from `i` on, at most the lookahead window.
    fn rest_window(&self) -> &[u8] {
        let rest = self.rest();
        &rest[..rest.len().min(LOOKAHEAD)]
    }

    /// Open a container the input left out, before the token at `i`.
    fn open_supplied(&mut self, frame: Frame, doubt: bool) -> Result<(), Halt> {
        self.fix(FixKind::InsertedOpener, self.i);
        if doubt {
            self.doubt(DoubtKind::OpenerSupplied, self.i);
        }
        self.push_frame(frame)?;
        self.emit(if frame == Frame::Object { "{" } else { "[" });
        self.state = if frame == Frame::Object {
            State::Key
        } else {
            State::Value
        };
        Ok(())
    }

    /// At the top level, a key and its colon where the value starts
    /// (`"airports": ["A"], "cost": 1}`): the object's `{` is missing.
    pub(super) fn top_level_opener(&mut self) -> Result<bool, Halt> {
        match key_first(self.rest_window(), self.eof) {
            Some(true) => {
                self.open_supplied(Frame::Object, false)?;
                Ok(true)
            }
            Some(false) => Ok(false),
            None => Err(Halt::Need),
        }
    }

    /// A colon after the first element of the top-level array, a string,
    /// while its `[` is still held (`[ "bbox": [1, 2], "errors": [] }`):
    /// the `[` opened an object, and the string was its first key. `hold`
    /// is the held bracket's place (see `Machine::open_hold`).
    pub(super) fn array_was_object(&mut self, hold: (usize, usize, usize)) -> Step {
        let (_, at, input) = hold;
        self.forget_context(at);
        self.out.remove(at);
        self.out.insert_str(at, "{");
        self.fix(FixKind::ReplacedOpener, input);
        self.stack[0] = Frame::Object;
        self.hold = None;
        self.state = State::Colon;
        Ok(())
    }
}

impl Machine<'_> {
    /// A `{` of `len` bytes where a key of the innermost object belongs: the
    /// object opened twice (`{{"a": 1}}` from a template's doubled braces,
    /// `{\n{"a": …`) when it has no member yet, or begun again after a
    /// prefix of its members (`{"function": "send",{"function": "send",
    /// "params": …}`) when it is no element of an array (there the object
    /// ended: `[{"i": 1,{"i": 2}]`). The `{` is dropped, and so are the
    /// members that repeat the first writing as they were; a repeated key
    /// with another value stays (the later wins) and is a doubt. `Ok(false)`:
    /// not a `{` to drop.
    pub(super) fn reopened(&mut self, len: usize) -> Result<bool, Halt> {
        if self.stack.last() != Some(&Frame::Object) {
            return Ok(false);
        }
        self.write_out();
        let empty = self.previous_end() == Some(b'{') && self.pending_comma.is_none();
        let in_array = self.stack.len() >= 2 && self.stack[self.stack.len() - 2] == Frame::Array;
        if !empty && in_array {
            return Ok(false);
        }
        let mut resume = self.i + len;
        if !empty {
            let members =
                open_members(self.out.held(), self.out.base(), self.mark).unwrap_or_default();
            let window = self.rest_window();
            let after = &window[len.min(window.len())..];
            let Some(repeats) = repeated_members(after, self.eof, |key, value| {
                members
                    .iter()
                    .find(|(k, _)| &k[..] == key)
                    .map(|(_, v)| &v[..] == value)
            }) else {
                return Err(Halt::Need);
            };
            self.fix(FixKind::RemovedOpener, self.i);
            for repeat in repeats {
                match repeat {
                    Repeat::Same(from, to) => {
                        self.fix(FixKind::RemovedRepeat, self.i + len + from);
                        resume = self.i + len + to;
                    }
                    Repeat::Changed => self.doubt(DoubtKind::Restart, resume),
                    Repeat::New => {}
                }
            }
        } else {
            // Opened twice: its closer is expected twice as well.
            self.fix(FixKind::RemovedOpener, self.i);
            self.doubled.push(self.stack.len() - 1);
        }
        self.i = resume;
        Ok(true)
    }
}

/// The longest line of prose inside braces that is dropped.
const MAX_PROSE_LINE: usize = 512;

impl Machine<'_> {
    /// A line of prose where a key of the innermost object belongs (`{\n
    /// Here is the JSON you asked for:\n "a": 1}`, a note between members),
    /// in a document that quotes its keys: a line of words, holding no
    /// quote, that a quoted key (or the object's end) follows on the next
    /// line. A bare key and its value (`name: John`) is no prose, unless the
    /// line reads as a sentence (`Note: the values below are estimates.`).
    /// `Ok(true)` when the line was dropped.
    pub(super) fn prose_line(&mut self) -> Result<bool, Halt> {
        if self.style.contains(Faults::KEY_BARE) {
            return Ok(false);
        }
        let rest = self.rest();
        let end = match grammar::prose_line_end(rest, MAX_PROSE_LINE) {
            Some(Some(end)) => end,
            Some(None) => return Ok(false),
            None if self.eof => return Ok(false),
            None => return Err(Halt::Need),
        };
        if !grammar::is_prose_line(&rest[..end]) {
            return Ok(false);
        }
        // What the next line starts with: a quoted key or the object's end.
        let next = rest[end..].iter().position(|b| !crate::lex::is_ws(*b));
        match next.map(|k| rest[end + k]) {
            None if !self.eof => return Err(Halt::Need),
            None | Some(b'"' | b'}') => {}
            Some(_) => return Ok(false),
        }
        self.fix(FixKind::RemovedProse, self.i);
        self.i += end;
        Ok(true)
    }
}
