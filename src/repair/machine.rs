//! The repair state machine: structure, separators, closing, snapshots.
//!
//! The machine reads from a retained input buffer `src` and writes to `out`.
//! Every step looks at the bytes from `i` on and either acts (consuming input
//! and writing output) or returns [`Halt::Need`] without changing anything,
//! when the bytes that decide it have not arrived yet. Because each decision
//! is a function of input bytes only (lookahead is bounded by a fixed number
//! of input bytes, never by where a chunk ended), the outcome is the same for
//! every way of cutting the input.
//!
//! All positions are absolute: input positions count bytes since the first
//! one fed, output positions count bytes since the first one written. Output
//! below `committed` is final; above it sit the provisional parts (trailing
//! whitespace, a separator that may be dropped, a closing quote that `+` may
//! remove, a string body that a missing end quote may cut).

use std::borrow::Cow;
use std::sync::Arc;

use smallvec::SmallVec;

use super::context::{CONTEXT_WINDOW, Cached, object_context};
use super::doubt::{Doubt, DoubtKind};
use super::fast::{Scratch, key_at_end};
use super::fix::{Fix, FixKind};
use super::frame::{Frame, Stack, State};
use super::grammar::Faults;
use super::hints::Hints;
use super::judge::{Role, RunOp};
use super::open_string::Str;
use super::options::{Options, Retain};
use super::out::{Out, write_unwritten};
use crate::error::Error;
use crate::lex::Token;

/// Why a step did not act.
#[derive(Debug)]
pub(super) enum Halt {
    /// The bytes that decide the next step have not arrived yet.
    Need,
    /// A hard limit was crossed.
    Limit(Error),
}

pub(super) type Step = Result<(), Halt>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Comment {
    Line,
    Block,
    /// `<!-- … -->`.
    Html,
    /// The language tag after an opening fence (```` ```json ````).
    FenceTag,
}

/// A `,` written after a value, kept provisional until the next token shows
/// whether it separates two values or trails before a closer.
#[derive(Debug, Clone, Copy)]
pub(super) struct PendingComma {
    /// Where it is in the output.
    pub(super) out: usize,
    /// Where it was read.
    pub(super) input: usize,
    /// The mark before it: the end of the value it follows.
    pub(super) mark_before: usize,
}

/// A word or number longer than `step::LONG_TOKEN` that reached the end of the
/// input so far. logos lexes a token from its start, so lexing it again on
/// every chunk would cost the square of its length; instead the scan goes on
/// from where it stopped, over the bytes that can only continue it the way
/// logos would (letters, digits, `_`, `$` for a word; digits, `_` and one
/// `.` for a number, with an exponent handed back to logos).
#[derive(Debug, Clone, Copy)]
pub(super) struct LongToken {
    pub(super) at: usize,
    pub(super) token: Token,
    pub(super) len: usize,
    /// Whether the number so far has its one `.`.
    pub(super) dot: bool,
}

/// Output kept provisional from `out` on, with what undoing it takes: the
/// input position to go back to and how many fixes to keep. Two things are
/// held this way: a key being written (out of the committed output and of
/// snapshots until its colon arrives: a half-typed key is not a field yet;
/// `out` is where its part starts, its comma included), and a top-level value
/// that began inside prose (`Replace {name} with…`: a fenced block later in
/// the text is the real value, so this one stays provisional, for
/// [`WINDOW`] input bytes at most).
#[derive(Debug, Clone, Copy)]
pub(super) struct Held {
    /// Where the held output starts.
    pub(super) out: usize,
    /// Where it starts in the input.
    pub(super) input: usize,
    /// Fixes recorded before it.
    pub(super) n_fixes: usize,
}

#[derive(Debug, Clone)]
pub(super) struct Machine<'a> {
    pub(super) opts: Options,
    // Input: owned when fed in chunks, borrowed for a one-shot repair.
    pub(super) src: Cow<'a, [u8]>,
    pub(super) base: usize,
    pub(super) i: usize,
    pub(super) eof: bool,
    // Output: absolute positions throughout (see `out.rs`).
    pub(super) out: Out,
    pub(super) committed: usize,
    pub(super) returned: usize,
    /// End of the last non-whitespace output: where a missing comma, colon,
    /// quote or closer goes ("before the trailing whitespace").
    pub(super) mark: usize,
    /// A provisional `,` that a closer or the end of input removes.
    pub(super) pending_comma: Option<PendingComma>,
    /// The closing quote of the last string value, which `+` removes.
    pub(super) hold: Option<usize>,
    // Structure.
    pub(super) stack: Stack,
    pub(super) state: State,
    pub(super) comment: Option<Comment>,
    /// Where the last whitespace the machine wrote ended, in the input,
    /// when it ended with a space or a tab.
    pub(super) spaces_to: Option<usize>,
    /// Whether the open comment came right after spaces or tabs: if it
    /// ends its line, they go with it (see `step.rs`).
    pub(super) comment_after_spaces: bool,
    pub(super) string: Option<Str>,
    /// Where top-level text before the value began (input position).
    pub(super) prose: Option<usize>,
    /// Whether a value has started (snapshots are empty before).
    pub(super) started: bool,
    /// Whether text around the top-level value was dropped as prose
    /// (before it, or words after it; not a second value), or the value
    /// came in a code fence: the value then comes out alone, without the
    /// whitespace that stood between it and the prose or the fence.
    pub(super) in_prose: bool,
    /// Where a resumable scan got to: (input position of the step, scanned up to).
    pub(super) scan_hint: (usize, usize),
    /// A long word or number being continued across chunks.
    pub(super) long_token: Option<LongToken>,
    pub(super) fixes: Vec<Fix>,
    /// The choices the input could not settle (see `doubt.rs`), in the
    /// order they were made.
    pub(super) doubts: Vec<Doubt>,
    /// The fast lane's working space (see `fast/`), kept here so the
    /// scans reuse one allocation.
    pub(super) lane: Scratch,
    /// In a one-shot repair ([`Machine::whole`]), output the fast lane took
    /// but did not copy: it is the input at the same positions
    /// (`src[out.len()..][..unwritten]`), written out only when something
    /// else must be written after it. Valid input is never copied at all.
    pub(super) unwritten: usize,
    /// Whether the fast lane may leave output unwritten.
    pub(super) lazy: bool,
    /// In a one-shot repair of input that is valid UTF-8 as a whole (one
    /// SIMD check up front), the input as text: any run of it that starts
    /// and ends on character boundaries is then text without a second
    /// check (`str::get` only looks at the two ends). `None` when the input
    /// arrives in chunks or holds invalid UTF-8: each run is checked.
    pub(super) whole_text: Option<&'a str>,
    /// Fixes already handed out by [`Machine::take_fixes`].
    pub(super) fixes_taken: usize,
    /// Whether one of them was more than a truncation.
    pub(super) taken_repairs: bool,
    /// The key being written (see [`Held`]).
    pub(super) key_hold: Option<Held>,
    /// An opening bracket at the top level that a fence right after it
    /// (`{```json`) would remove: where the output may be committed up to
    /// (before the whitespace that precedes the bracket), and where the
    /// bracket is.
    pub(super) open_hold: Option<(usize, usize, usize)>,
    /// A value found inside prose (see [`Held`]).
    pub(super) tentative: Option<Held>,
    /// The lenient forms the document's own structure has used so far
    /// (a bare key, `=` for a colon, `;` for a comma…): a string known to
    /// hold code ends only at a continuation written in these forms.
    pub(super) style: Faults,
    /// What the caller knows of the object keys.
    pub(super) hints: Option<Arc<Hints>>,
    /// With `Retain::Unreturned`, where the output was last forgotten: a
    /// snapshot starts there, though more is held (see `take_committed`).
    pub(super) shown_from: usize,
    /// Where the text dropped after a top-level value that ended with a
    /// string begins, until a quote in it makes the early close a doubt.
    pub(super) early_close: Option<usize>,
    /// The input offset of the last quote judged text inside its string:
    /// the document holds code with quotes, so its structure is read with
    /// less certainty (a repeated key, containers left open at the end).
    pub(super) inner_at: Option<usize>,
    /// The object around the last string known to hold code, as the quote
    /// judge last read it from the output (see `context.rs`).
    pub(super) context: Option<Cached>,
    /// A run of closers being mended by its plan (see `structure.rs`): the
    /// plan's steps and how many were taken.
    pub(super) run_plan: Option<(SmallVec<[RunOp; 8]>, usize)>,
    /// The closers before this input position belong to a run whose plan
    /// was to read it as written.
    pub(super) plain_run_to: usize,
    /// The indices in the frame stack of the objects opened with a doubled
    /// brace (`{{`): their closer comes doubled too (see `structure.rs`).
    /// An index at or above the stack's height belongs to a frame gone.
    pub(super) doubled: SmallVec<[usize; 4]>,
}

impl<'a> Machine<'a> {
    pub(super) fn new(opts: Options) -> Self {
        let mut out = Out::default();
        if opts.sources {
            out.record_sources();
        }
        Machine {
            opts,
            src: Cow::Borrowed(&[]),
            base: 0,
            i: 0,
            eof: false,
            out,
            committed: 0,
            returned: 0,
            mark: 0,
            pending_comma: None,
            hold: None,
            stack: SmallVec::new(),
            state: State::Start,
            comment: None,
            spaces_to: None,
            comment_after_spaces: false,
            string: None,
            prose: None,
            started: false,
            in_prose: false,
            scan_hint: (usize::MAX, 0),
            long_token: None,
            fixes: Vec::new(),
            doubts: Vec::new(),
            // One allocation up front, not a string of small ones as a
            // call's first scan takes its lenient tokens.
            lane: Scratch {
                edits: Vec::with_capacity(16),
                undo: SmallVec::new(),
            },
            unwritten: 0,
            lazy: false,
            whole_text: None,
            fixes_taken: 0,
            taken_repairs: false,
            key_hold: None,
            open_hold: None,
            tentative: None,
            style: Faults::NONE,
            hints: None,
            shown_from: 0,
            early_close: None,
            inner_at: None,
            context: None,
            run_plan: None,
            plain_run_to: 0,
            doubled: SmallVec::new(),
        }
    }

    // ----- input -----

    pub(super) fn bytes_fed(&self) -> usize {
        self.base + self.src.len()
    }

    /// The input not yet consumed.
    #[inline]
    pub(super) fn rest(&self) -> &[u8] {
        &self.src[self.i - self.base..]
    }

    /// The byte `k` positions after `i`: `Some` if it has arrived, `None` at
    /// the end of input, `Need` when it may still come.
    #[inline]
    pub(super) fn peek(&self, k: usize) -> Result<Option<u8>, Halt> {
        match self.src.get(self.i - self.base + k) {
            Some(&b) => Ok(Some(b)),
            None if self.eof => Ok(None),
            None => Err(Halt::Need),
        }
    }

    /// Repair all of `input` at once, reading it in place, with a machine
    /// fresh from [`Machine::new`].
    ///
    /// The input's UTF-8 is checked once, up front (see `whole_text`).
    /// It runs on a machine the caller holds, not one it returns: the
    /// machine is over a kilobyte, and each move of it by value was a
    /// `memcpy` (three a call, 3% of a 192-byte call's instructions).
    pub(super) fn run_whole(
        &mut self,
        hints: Option<Arc<Hints>>,
        input: &'a [u8],
    ) -> Result<(), Error> {
        self.hints = hints;
        if input.len() > self.opts.input_limit() {
            return Err(Error::too_large(
                self.opts.input_limit(),
                self.opts.input_limit(),
            ));
        }
        self.src = Cow::Borrowed(input);
        self.lazy = true;
        self.whole_text = crate::utf8::from_utf8(input).ok();
        // One allocation up front instead of a string of reallocations when
        // the input needs repair (the pages are touched only if written).
        self.out.reserve(input.len() + input.len() / 16 + 16);
        // Likewise for fixes: room for one every 16 bytes. Models' JSON
        // needs a few per hundred bytes, the bench fixture one every 26.
        // With room for one every 32 the fixture's 10 MB twin outgrew the
        // log midway, and when the log lived on the heap (not mapped on its
        // own) copying it into fresh pages made the repair 27% slower
        // (38.8 ms against 30.5, examples/floor.rs in benches/peers). The
        // room left unused is at most the input's length in bytes, and only
        // address space until written.
        self.fixes = Vec::with_capacity(8 + input.len() / 16);
        self.run()?;
        self.end()
    }

    pub(super) fn push(&mut self, chunk: &[u8]) -> Result<(), Error> {
        let total = self.bytes_fed().saturating_add(chunk.len());
        if total > self.opts.input_limit() {
            return Err(Error::too_large(
                self.opts.input_limit(),
                self.opts.input_limit(),
            ));
        }
        self.drain_input();
        self.src.to_mut().extend_from_slice(chunk);
        let ran = self.run();
        if ran.is_err() {
            // What was settled before the limit stays committed, wherever
            // the chunks were cut (see `Repairer::feed_until_failure`).
            self.advance_commit();
        }
        ran
    }

    /// Forget consumed input that no open decision can return to.
    pub(super) fn drain_input(&mut self) {
        let mut keep = self.i;
        if let Some(start) = self.prose {
            keep = keep.min(start);
        }
        if let Some(resume) = self.string.as_ref().and_then(Str::rewind_point) {
            keep = keep.min(resume);
        }
        let n = keep - self.base;
        if n > 0 && n >= self.src.len() / 2 {
            self.src.to_mut().drain(..n);
            self.base = keep;
        }
    }

    // ----- output -----

    #[inline]
    pub(super) fn out_len(&self) -> usize {
        self.out.len() + self.unwritten
    }

    /// Write out what the fast lane took but did not copy (see `unwritten`).
    #[inline]
    pub(super) fn write_out(&mut self) {
        if self.unwritten == 0 {
            // The usual case, and every streamed one: kept inline.
            return;
        }
        write_unwritten(
            &self.src,
            self.whole_text,
            &mut self.out,
            &mut self.unwritten,
        );
    }

    /// Write non-whitespace output. Whatever is written settles a pending
    /// comma (it now separates two values) and starts the top-level value.
    #[inline]
    pub(super) fn emit(&mut self, text: &str) {
        self.out.push_str(text);
        self.wrote();
    }

    /// The bookkeeping of [`Machine::emit`] for non-whitespace output a
    /// writer put in the buffer itself (an escaped word, a lenient token
    /// run through its own table).
    #[inline]
    pub(super) fn wrote(&mut self) {
        self.mark = self.out_len();
        self.pending_comma = None;
        self.started = true;
    }

    /// Write whitespace: it stays provisional until something else follows.
    #[inline]
    pub(super) fn emit_ws(&mut self, text: &str) {
        self.out.push_str(text);
    }

    /// Insert at `pos` (at or after `committed`), shifting what follows.
    pub(super) fn insert_at(&mut self, pos: usize, text: &str) {
        debug_assert!(pos >= self.committed);
        self.forget_context(pos);
        self.out.insert_str(pos, text);
        let n = text.len();
        if self.mark >= pos {
            self.mark += n;
        }
        if let Some(p) = self.pending_comma.as_mut()
            && p.out >= pos
        {
            p.out += n;
            p.mark_before += n;
        }
    }

    /// Output at `pos` changes: the object context read before it is stale.
    #[inline]
    pub(super) fn forget_context(&mut self, pos: usize) {
        if self
            .context
            .as_ref()
            .is_some_and(|c| c.is_stale_after_edit_at(pos))
        {
            self.context = None;
        }
    }

    /// Insert before the trailing whitespace.
    pub(super) fn insert_at_mark(&mut self, text: &str) {
        let pos = self.mark;
        self.insert_at(pos, text);
        self.mark = pos + text.len();
    }

    /// Drop the spaces and tabs at the end of the output (after its last
    /// non-whitespace byte, and never committed ones): those before a
    /// comment that ends its line, which go with it.
    pub(super) fn trim_line_spaces(&mut self) {
        self.write_out();
        let from = self.mark.max(self.committed);
        let n = self
            .out
            .since(from)
            .bytes()
            .rev()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        if n > 0 {
            self.truncate_out(self.out.len() - n);
        }
    }

    /// Drop output from `pos` on (at or after `committed`).
    pub(super) fn truncate_out(&mut self, pos: usize) {
        debug_assert!(pos >= self.committed);
        self.forget_context(pos);
        self.out.truncate(pos);
        self.mark = self.mark.min(pos);
        if self.pending_comma.is_some_and(|p| p.out >= pos) {
            self.pending_comma = None;
        }
    }

    #[inline]
    pub(super) fn fix(&mut self, kind: FixKind, offset: usize) {
        self.fixes.push(Fix { kind, offset });
    }

    /// Record a choice the input could not settle.
    #[cold]
    pub(super) fn doubt(&mut self, kind: DoubtKind, offset: usize) {
        self.doubts.push(Doubt { kind, offset });
    }

    /// Forget the doubts about input from `input` on: the machine reads it
    /// again (or drops it), as it does the fixes retracted with it.
    pub(super) fn retract_doubts(&mut self, input: usize) {
        if self.doubts.last().is_some_and(|d| d.offset >= input) {
            self.doubts.retain(|d| d.offset < input);
        }
    }

    /// How many fixes were made so far, handed out or not.
    pub(super) fn fix_count(&self) -> usize {
        self.fixes_taken + self.fixes.len()
    }

    /// Forget the fixes made after the first `n` (a cut undid their repairs).
    pub(super) fn retract_fixes(&mut self, n: usize) {
        self.fixes.truncate(n.saturating_sub(self.fixes_taken));
    }

    /// Hand out the fixes no later decision can retract or precede: not
    /// those a cut may undo, nor those after a pending comma (removing it
    /// adds a fix at the comma's offset). What is handed out is a prefix of
    /// the fixes in input order, so the fixes of a stream come in input order
    /// however often this is called.
    pub(super) fn take_fixes(&mut self) -> Vec<Fix> {
        let limit = [
            self.string.and_then(|s| s.retract_point()),
            self.key_hold.map(|k| k.n_fixes),
            self.tentative.map(|t| t.n_fixes),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(usize::MAX);
        let mut n = limit.saturating_sub(self.fixes_taken).min(self.fixes.len());
        if let Some(comma) = self.pending_comma {
            n = n.min(
                self.fixes
                    .iter()
                    .take_while(|f| f.offset <= comma.input)
                    .count(),
            );
        }
        if let Some((_, _, input)) = self.open_hold {
            // The held `[` may yet become `{`, a fix at its offset.
            n = n.min(self.fixes.iter().take_while(|f| f.offset < input).count());
        }
        let mut taken: Vec<Fix> = self.fixes.drain(..n).collect();
        taken.sort_by_key(|f| f.offset);
        self.fixes_taken += n;
        self.taken_repairs |= taken.iter().any(|f| !f.kind.is_truncation());
        taken
    }

    /// Move the commit point as far as the open decisions allow.
    pub(super) fn advance_commit(&mut self) {
        let mut c = self.mark;
        if let Some(p) = self.pending_comma {
            // The whitespace between the value and the comma too: removing
            // the comma moves the mark back to the value's end.
            c = c.min(p.mark_before);
        }
        if let Some(h) = self.hold {
            c = c.min(h);
        }
        if let Some(s) = &self.string
            && let Some(keep) = s.keep_from()
        {
            c = c.min(keep);
        }
        for held in [
            self.key_hold.map(|k| k.out),
            self.open_hold.map(|(commit_to, _, _)| commit_to),
            self.tentative.map(|t| t.out),
        ]
        .into_iter()
        .flatten()
        {
            c = c.min(held);
        }
        if c > self.committed {
            self.committed = c;
        }
    }

    /// The key of the member whose value comes next, as output (its text's
    /// position and length), when the output ends with `"key":` (whitespace
    /// between allowed): what an echo of the key is compared with. `None`
    /// for a key longer than `max`, holding a backslash (its text as
    /// written may differ from its JSON), empty, or not there.
    pub(super) fn member_key(&self, max: usize) -> Option<(usize, usize)> {
        let base = self.out.base();
        let text = self
            .out
            .held()
            .as_bytes()
            .get(..self.mark.checked_sub(base)?)?;
        let (open, len) = key_at_end(text, max)?;
        Some((base + open, len))
    }

    /// Read the context of the open string's object (see `context.rs`)
    /// while the output it is read from is still held, when its body has
    /// grown long enough that the next drain would forget that output.
    fn keep_context(&mut self) {
        let Some(s) = self.string else {
            return;
        };
        let at = s.body_start.saturating_sub(1);
        let long = self.out.len().saturating_sub(at) > CONTEXT_WINDOW;
        if s.role == Role::Value
            && long
            && self.stack.last() == Some(&Frame::Object)
            && !self.context.as_ref().is_some_and(|c| c.is_for(at))
        {
            object_context(&mut self.context, self.out.held(), self.out.base(), at);
        }
    }

    /// Count the first `n` bytes of output as returned already: the
    /// prelude handed them out before the machine took over and read the
    /// same input again (`Repairer::hand_over`). Never past what is
    /// committed (the prelude commits a prefix of it).
    pub(super) fn count_returned(&mut self, n: usize) {
        self.returned = self.returned.max(n.min(self.committed));
    }

    /// The output committed since the last call (the text `feed` returns).
    pub(super) fn take_committed(&mut self) -> &str {
        let (from, to) = (self.returned, self.committed);
        self.returned = self.committed;
        if self.opts.retain == Retain::Unreturned && from > self.out.base() {
            // Forget output already handed out (keeping this call's slice
            // alive), except what an open string still needs, and the last
            // stretch of output an object's context is read from (see
            // `context.rs`): while a string's body is short, its context
            // can still be read, as with all output kept; once it is long,
            // it is read now, before it is forgotten.
            self.keep_context();
            let keep_from = match self.string.as_mut() {
                Some(s) => s.forget(self.out.held(), self.out.base(), from),
                None => from,
            };
            let tail = self.out.len().saturating_sub(2 * CONTEXT_WINDOW);
            self.out
                .drain_to(self.out.boundary_at_or_before(keep_from.min(tail)));
            self.shown_from = keep_from;
        }
        self.out.range(from..to)
    }
}
