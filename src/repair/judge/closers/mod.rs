//! How a run of closers ends the open containers: `}}]}` where `]}}` was
//! meant, `]` where `}]` was, a `}` too many before the next member.
//!
//! A run is read whole, with what follows it, and matched against the open
//! stack with the fewest edits (a closer replaced, dropped, supplied, or two
//! swapped). Each reading closes some number `k` of containers; what follows
//! the run must then continue the container left on top (a `,` and a key in
//! an object, a `,` and a value in an array, the end of the input). Among
//! the readings whose continuation fits best, the one with the fewest edits
//! wins; between readings that tie, the shape of each candidate container
//! decides (does the next element look like its elements, is the next key
//! one it has already?), and where nothing decides, the choice is a doubt.
//!
//! Like the rest of the judge, this reads input bytes after the run's first
//! closer (at most the lookahead window) and answers `Short` until the bytes
//! that decide have arrived, so the plan is the same for every chunking.

mod align;
mod follows;

use smallvec::SmallVec;

use self::align::{EDIT, align, expected};
pub(in crate::repair) use self::align::{How, RunOp};
use self::follows::{closers_doubled, likeness};
pub(super) use self::follows::{closers_of, faults_after, keyed, misplaced};
use super::cursor::{Cursor, Scan, Short};
use super::fit::{Fit, fit_after_value};
use crate::repair::frame::{Frame, LOOKAHEAD};
use crate::repair::grammar::Faults;
use crate::repair::hints::Hints;
use crate::repair::shape::Shape;

/// The longest run of closers read as one; a longer run is mended closer by
/// closer.
const MAX_RUN: usize = 32;

/// How many more containers than closers written a reading may close.
const MAX_SUPPLIED: usize = 2;

/// The plan for a run of closers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::repair) struct RunPlan {
    pub(in crate::repair) ops: SmallVec<[RunOp; 8]>,
    /// Another reading fitted as well and nothing told them apart.
    pub(in crate::repair) doubt: bool,
    /// Where the run ends: just past its last closer, from its first.
    pub(in crate::repair) len: usize,
}

impl RunPlan {
    /// Whether the plan is the plain reading: every written closer closes
    /// its container as written.
    pub(in crate::repair) fn is_plain(&self) -> bool {
        self.ops.iter().all(|op| *op == RunOp::Close(How::Same))
    }
}

/// What the machine knows when a run of closers starts at its first byte.
pub(in crate::repair) struct Run<'a> {
    /// The open containers, outermost first.
    pub(in crate::repair) frames: &'a [Frame],
    /// The input from the run's first closer on (at most the lookahead window).
    pub(in crate::repair) after: &'a [u8],
    /// Whether the input ends where `after` does.
    pub(in crate::repair) eof: bool,
    /// The lenient forms the document's structure has used.
    pub(in crate::repair) style: Faults,
    pub(in crate::repair) hints: Option<&'a Hints>,
    /// The indices in `frames` of the objects opened with a doubled brace
    /// (`{{`, a template's escaping): their closer comes doubled too.
    pub(in crate::repair) doubled: &'a [usize],
}

/// How well what follows the run continues the container left on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Grade {
    /// The end of the input, or a separator and a member or element.
    Good,
    /// A continuation that needs a repair itself (no separator), or text
    /// after the top-level value (which is dropped).
    Weak,
    /// Nothing the container could hold.
    Bad,
}

/// One reading: close `k` containers with `cost` edits.
#[derive(Debug, Clone, Copy)]
struct Reading {
    k: usize,
    grade: Grade,
    cost: usize,
    fit: Fit,
    /// How much the next member or element looks like the container's own.
    likeness: i32,
    /// The next element is a key and its colon, read as an object whose
    /// `{` is missing (the machine supplies it, `Machine::element_opener`).
    opener: bool,
}

/// What [`plan_run`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::repair) enum Planned {
    /// The run's plan.
    Plan(RunPlan),
    /// The run is not one to plan: mend it closer by closer.
    No,
    /// The bytes that decide have not arrived.
    Need,
}

/// Plan the run of closers at the start of `run.after` (see [`plan`]).
pub(in crate::repair) fn plan_run(
    run: &Run<'_>,
    shapes: impl FnMut(usize) -> Option<Shape>,
) -> Planned {
    match plan(run, shapes) {
        Ok(Some(plan)) => Planned::Plan(plan),
        Ok(None) => Planned::No,
        Err(Short) => Planned::Need,
    }
}

impl<'a> Run<'a> {
    /// The run at `c` as the quote judge sees it: no hints, no doubled
    /// frames (what the machine alone knows).
    fn at(frames: &'a [Frame], c: &Cursor<'a>, style: Faults) -> Self {
        Run {
            frames,
            after: &c.bytes[c.pos..],
            eof: c.eof,
            style,
            hints: None,
            doubled: &[],
        }
    }
}

/// Whether the run of closers at `c` (after a value) ends containers in a
/// way that what follows continues well, by the best reading of the run:
/// the quote judge's question for a clean string followed by a closer that
/// skips its innermost container (`"x"}]}` where `"x"]}}` was meant).
pub(super) fn run_fits(frames: &[Frame], c: &Cursor<'_>, style: Faults) -> Scan<bool> {
    let run = Run::at(frames, c, style);
    let end = match scan_run(&run)? {
        Some((_, end)) => end,
        None => return Ok(false),
    };
    Ok(readings(&run, end)?.iter().any(|r| r.grade == Grade::Good))
}

/// Whether the run of closers at `c` (after a value) is best read as
/// written: the quote judge's question for a string known to hold code,
/// which a run that needs mending does not end (its closers are more of
/// the code than damage to the structure).
pub(super) fn run_is_plain(frames: &[Frame], c: &Cursor<'_>, style: Faults) -> Scan<bool> {
    let run = Run::at(frames, c, style);
    let Some((_, end)) = scan_run(&run)? else {
        return Ok(true);
    };
    let best = readings(&run, end)?.iter().map(|r| (r.grade, r.cost)).min();
    Ok(best.is_none_or(|(_, cost)| cost == 0))
}

/// The closers of the run at the start of `run.after` and where it ends
/// (past its last closer): `None` when it is not one to plan.
fn scan_run(run: &Run<'_>) -> Scan<Option<(SmallVec<[u8; 8]>, usize)>> {
    let window_ends = run.eof || run.after.len() >= LOOKAHEAD;
    let mut written: SmallVec<[u8; 8]> = SmallVec::new();
    let mut k = 0;
    let end = loop {
        match run.after.get(k) {
            None if window_ends => break k,
            None => return Err(Short),
            Some(&b @ (b'}' | b']')) => {
                if written.len() == MAX_RUN {
                    return Ok(None);
                }
                written.push(b);
                k += 1;
            }
            Some(&b) if crate::lex::is_ws(b) => k += 1,
            Some(b')') => return Ok(None),
            Some(0xEF) if matches!(run.after.get(k + 1), Some(0xBC | 0xBD)) => return Ok(None),
            Some(_) => break k,
        }
    };
    // Trailing whitespace belongs to what follows.
    let end = run.after[..end]
        .iter()
        .rposition(|b| matches!(b, b'}' | b']'))
        .map_or(end, |p| p + 1);
    Ok((!written.is_empty()).then_some((written, end)))
}

/// Whether the run read as written is the best reading without weighing
/// the others: each written closer closes the container on top, none of
/// them doubled, and what follows continues the container left on top
/// well ([`Grade::Good`], and no key where an array's element starts). Its
/// cost is then 0, which no other reading can reach: it is the one
/// [`readings`] would keep alone.
fn plain_fits(run: &Run<'_>, written: &[u8], end: usize) -> Scan<bool> {
    let n = written.len();
    if !run.doubled.is_empty() || n > run.frames.len() {
        return Ok(false);
    }
    let top = &run.frames[run.frames.len() - n..];
    let matches = top
        .iter()
        .rev()
        .zip(written)
        .all(|(frame, &b)| match frame {
            Frame::Object => b == b'}',
            Frame::Array => b == b']',
            _ => false,
        });
    if !matches {
        return Ok(false);
    }
    let frames = &run.frames[..run.frames.len() - n];
    let cursor = Cursor {
        bytes: run.after,
        pos: end,
        eof: run.eof || run.after.len() >= LOOKAHEAD,
        open_comments: true,
    };
    let mut c = cursor.at(end);
    let fit = fit_after_value(&mut c, frames)?;
    if grade(run.style, fit, frames) != Grade::Good {
        // Only a Good reading could beat it, and none can be Good when what
        // follows is a closer (`},]`: a trailing comma, mended after the
        // run) or a container starting without a separator (`}\n{`, a comma
        // missing between rows): whatever the run closes, no key or element
        // with its separator follows.
        // Nor when nothing separates it from what follows on the same line
        // (`] events: [`): a key there is Weak under every reading.
        return Ok(match fit {
            Fit::Closed { .. } => true,
            Fit::Key(key) => !key.sep && !key.newline,
            Fit::Element { at, sep: false, .. } => {
                matches!(run.after.get(at), Some(b'{' | b'['))
                    || !run.after[end..at].contains(&b'\n')
            }
            _ => false,
        });
    }
    if let Fit::Element { at, .. } = fit
        && keyed(cursor.at(at))?
    {
        return Ok(false);
    }
    Ok(true)
}

/// Every reading of the run of closers ending at `end` whose continuation
/// is not [`Grade::Bad`], with its cost.
fn readings(run: &Run<'_>, end: usize) -> Scan<SmallVec<[Reading; 8]>> {
    let mut readings: SmallVec<[Reading; 8]> = SmallVec::new();
    let Some((written, _)) = scan_run(run)? else {
        return Ok(readings);
    };
    let closable = run
        .frames
        .iter()
        .rev()
        .take_while(|f| matches!(f, Frame::Object | Frame::Array))
        .count();
    let most = closable.min(written.len() + MAX_SUPPLIED);
    let cursor = Cursor {
        bytes: run.after,
        pos: end,
        eof: run.eof || run.after.len() >= LOOKAHEAD,
        open_comments: true,
    };
    for k in 0..=most {
        let frames = &run.frames[..run.frames.len() - k];
        let mut c = cursor.at(end);
        let fit = fit_after_value(&mut c, frames)?;
        let mut grade = grade(run.style, fit, frames);
        let mut opener = false;
        if let Fit::Element { at, .. } = fit
            && keyed(cursor.at(at))?
        {
            // `}, "b": 1`: a key and its colon are no element of an array;
            // after an object, they are one whose `{` is missing.
            let after_object = run.after[..end].last() == Some(&b'}');
            if after_object {
                opener = true;
            } else {
                grade = Grade::Bad;
            }
        }
        if fit == Fit::Misfit && !misplaced(cursor.at(end), frames.last())? {
            // What the machine mends as a missing comma (a bare word after
            // an element): a weak continuation, not none.
            grade = Grade::Weak;
        }
        if grade == Grade::Bad {
            continue;
        }
        readings.push(Reading {
            k,
            grade,
            cost: align(&written, &expected(run.frames, k, run.doubled)).0
                + if opener { EDIT } else { 0 },
            fit,
            likeness: 0,
            opener,
        });
    }
    Ok(readings)
}

/// How many mends the rest of the window needs after the run ending at
/// `end`, read as having closed the innermost `k` containers: closers that
/// close no container on top (each container skipped counts), closers with
/// none open, and, where the input ends inside the window, containers left
/// open. A lenient bracket count that skips `"` strings: enough to tell a
/// reading whose containers the document later closes from one it does not.
fn downstream(run: &Run<'_>, end: usize, reading: &Reading) -> Scan<usize> {
    let mut stack = closers_doubled(&run.frames[..run.frames.len() - reading.k], run.doubled);
    if reading.opener {
        stack.push(b'}');
    }
    faults_after(run.after, end, run.eof, stack)
}

/// Plan the run of closers at the start of `run.after`. `Ok(None)` when the
/// run is not one to plan (a `)`, full-width closers, a run longer than
/// [`MAX_RUN`], containers other than objects and arrays in its reach): the
/// machine then mends closer by closer. `shapes(n)` is the shape of the
/// container `n` levels below the innermost (0: the innermost), as the
/// output shows it.
fn plan(run: &Run<'_>, mut shapes: impl FnMut(usize) -> Option<Shape>) -> Scan<Option<RunPlan>> {
    let Some((written, end)) = scan_run(run)? else {
        return Ok(None);
    };
    if !matches!(run.frames.last(), Some(Frame::Object | Frame::Array)) {
        return Ok(None);
    }
    if plain_fits(run, &written, end)? {
        // The reading as written costs nothing and continues well: no other
        // reading can tie it, so the others are not weighed (most runs of
        // closers, which the lane leaves here only for a lenient follower).
        return Ok(Some(RunPlan {
            ops: written.iter().map(|_| RunOp::Close(How::Same)).collect(),
            doubt: false,
            len: end,
        }));
    }
    let cursor = Cursor {
        bytes: run.after,
        pos: end,
        eof: run.eof || run.after.len() >= LOOKAHEAD,
        open_comments: true,
    };
    let mut readings = readings(run, end)?;

    let Some(best) = readings.iter().map(|r| (r.grade, r.cost)).min() else {
        return Ok(None);
    };
    readings.retain(|r| (r.grade, r.cost) == best);
    let follows_more = !matches!(readings[0].fit, Fit::Eof);
    if readings.len() > 1 && follows_more {
        // The rest of the window read under each reading: the one the
        // document's own closers later agree with needs the fewest mends.
        let mut faults: SmallVec<[usize; 8]> = SmallVec::new();
        for reading in &readings {
            faults.push(downstream(run, end, reading)?);
        }
        let least = faults.iter().copied().min().unwrap_or(0);
        let mut kept = faults.iter().map(|&f| f == least);
        readings.retain(|_| kept.next().unwrap_or(false));
    }
    if readings.len() > 1 && follows_more {
        for reading in &mut readings {
            let depth = run.frames.len() - reading.k;
            let shape = shapes(reading.k);
            reading.likeness = likeness(run.hints, &cursor, reading.fit, depth, shape.as_ref())?;
        }
        let top = readings.iter().map(|r| r.likeness).max().unwrap_or(0);
        readings.retain(|r| r.likeness == top);
    }
    // Between readings still tied (or alike, as at the end of the input):
    // the one that keeps the most closers as written (the layout stays),
    // then each written closer closing one container, then the most closed.
    let n = written.len();
    let chosen = readings
        .iter()
        .map(|r| {
            let (_, ops) = align(&written, &expected(run.frames, r.k, run.doubled));
            let kept = ops
                .iter()
                .filter(|op| **op == RunOp::Close(How::Same))
                .count();
            (
                std::cmp::Reverse(kept),
                r.k.abs_diff(n),
                std::cmp::Reverse(r.k),
                ops,
            )
        })
        .min_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)))
        .expect("a reading");
    let ops = chosen.3;
    Ok(Some(RunPlan {
        ops,
        doubt: readings.len() > 1 && follows_more,
        len: end,
    }))
}

/// How well `fit` (and `styled`, the same as the document's style reads it)
/// continues `frames`.
pub(super) fn grade(style: Faults, fit: Fit, frames: &[Frame]) -> Grade {
    match fit {
        Fit::Misfit => Grade::Bad,
        Fit::Eof => Grade::Good,
        // A bare key where the document's keys are quoted (`}, note: …`):
        // more likely prose than a member.
        Fit::Key(key)
            if key.faults.contains(Faults::KEY_BARE) && !style.contains(Faults::KEY_BARE) =>
        {
            Grade::Weak
        }
        Fit::Key(key) if key.sep || key.newline => Grade::Good,
        Fit::Element { sep: true, .. } if !frames.is_empty() => Grade::Good,
        _ => Grade::Weak,
    }
}

#[cfg(test)]
mod tests;
