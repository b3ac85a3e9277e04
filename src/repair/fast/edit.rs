//! What a lenient token the lane takes becomes: an edit of the run it
//! copies, written when the machine takes the run (`repair/lane.rs`).

use crate::repair::fix::FixKind;
use crate::repair::grammar::Faults;

/// A lenient token taken inside a run: the input `src[from..to]` is written
/// as `with`, and `fix` is recorded at `fix_at` (the token's start; for an
/// inserted comma, the start of the token it goes before; for a comment
/// that takes the spaces before it along, the comment's start).
#[derive(Debug, Clone, Copy)]
pub(in crate::repair) struct LaneEdit {
    pub(in crate::repair) from: usize,
    pub(in crate::repair) to: usize,
    pub(in crate::repair) with: With,
    pub(in crate::repair) fix: FixKind,
    pub(in crate::repair) fix_at: usize,
}

impl LaneEdit {
    /// `src[from..to]` written as `with`, the fix at `from`.
    pub(in crate::repair) fn at(from: usize, to: usize, with: With, fix: FixKind) -> Self {
        LaneEdit {
            from,
            to,
            with,
            fix,
            fix_at: from,
        }
    }

    /// How many bytes it writes.
    pub(in crate::repair) fn out_len(&self) -> usize {
        match self.with {
            With::Quoted(start, end) => end - start + 2,
            With::Escaped(start, end, quotes) => end - start + 2 + quotes,
            With::Text(text) => text.len(),
            With::Nothing => 0,
        }
    }

    /// The lenient form it shows the document uses (see `Machine::style`).
    pub(in crate::repair) fn style(&self) -> Faults {
        match self.fix {
            FixKind::QuotedKey => Faults::KEY_BARE,
            FixKind::ReplacedQuotes => Faults::KEY_SINGLE,
            FixKind::RemovedComment => Faults::COMMENT,
            FixKind::InsertedComma => Faults::NO_SEPARATOR,
            _ => Faults::NONE,
        }
    }

    /// How much longer the output is than the input it replaces.
    pub(in crate::repair) fn growth(&self) -> isize {
        self.out_len() as isize - (self.to - self.from) as isize
    }
}

/// What a lenient token becomes.
#[derive(Debug, Clone, Copy)]
pub(in crate::repair) enum With {
    /// `"` + `src[start..end]` + `"`: a bare key, or a single-quoted
    /// string's body.
    Quoted(usize, usize),
    /// The same with each of the body's `quotes` double quotes escaped
    /// (`'say "hi"'`: the machine escapes them without a fix of their own).
    Escaped(usize, usize, usize),
    /// A literal's JSON spelling.
    Text(&'static str),
    /// Nothing: a comment.
    Nothing,
}
