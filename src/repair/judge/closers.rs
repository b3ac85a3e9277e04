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

use smallvec::SmallVec;

use super::cursor::{Cursor, Scan, Short};
use super::fit::{Fit, fit_after_value};
use super::subject::MAX_KEY;
use crate::lex::Closer;
use crate::repair::frame::{Frame, LOOKAHEAD};
use crate::repair::grammar::Faults;
use crate::repair::hints::{Hints, KeyHint};
use crate::repair::shape::{Element, Shape};

/// The longest run of closers read as one; a longer run is mended closer by
/// closer.
const MAX_RUN: usize = 32;

/// How many more containers than closers written a reading may close.
const MAX_SUPPLIED: usize = 2;

/// What to do at one step of the run, in input order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum RunOp {
    /// The written closer closes the innermost container.
    Close(How),
    /// The innermost container's closer is supplied before the next written
    /// closer (or, at the end of the plan, after the last).
    Insert,
    /// The written closer is dropped.
    Drop,
}

/// How a written closer came to close the innermost container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum How {
    /// It is that container's closer.
    Same,
    /// It is the other kind of closer.
    Replaced,
    /// It traded places with its neighbour (`}]` written as `]}`).
    Reordered,
}

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

/// The closers the open `frames` expect, outermost first (the stack a
/// lenient count of what follows starts from).
pub(super) fn closers_of(frames: &[Frame]) -> SmallVec<[u8; 32]> {
    closers_doubled(frames, &[])
}

/// [`closers_of`], with the closers of the containers opened with a
/// doubled brace (their indices in `doubled`) twice.
fn closers_doubled(frames: &[Frame], doubled: &[usize]) -> SmallVec<[u8; 32]> {
    let mut closers = SmallVec::new();
    for (index, frame) in frames.iter().enumerate() {
        let closer = frame.closer().as_bytes().first().copied().unwrap_or(b']');
        closers.push(closer);
        if doubled.contains(&index) {
            closers.push(closer);
        }
    }
    closers
}

/// How many mends `bytes[from..]` (the rest of the window) needs with the
/// containers whose closers `stack` holds open: closers that close no
/// container on top (each container skipped counts), closers with none
/// open, and, where the input ends inside the window, containers left open.
/// A lenient bracket count that skips `"` strings: enough to tell a reading
/// whose containers the document later closes from one it does not.
/// `Short` until the window is complete.
pub(super) fn faults_after(
    bytes: &[u8],
    from: usize,
    eof: bool,
    mut stack: SmallVec<[u8; 32]>,
) -> Scan<usize> {
    let window_ends = eof || bytes.len() >= LOOKAHEAD;
    if !window_ends {
        return Err(Short);
    }
    let mut faults = 0;
    let mut j = from;
    while j < bytes.len() {
        match bytes[j] {
            b'"' => {
                j += 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                // A key where an array holds its elements: the object it
                // belongs to was closed too early (or never opened).
                if stack.last() == Some(&b']') {
                    let mut k = j + 1;
                    while k < bytes.len() && bytes[k].is_ascii_whitespace() {
                        k += 1;
                    }
                    if bytes.get(k) == Some(&b':') {
                        faults += 1;
                    }
                }
            }
            b'{' => stack.push(b'}'),
            b'[' => stack.push(b']'),
            b @ (b'}' | b']') => match stack.iter().rposition(|&c| c == b) {
                Some(at) => {
                    faults += stack.len() - 1 - at;
                    stack.truncate(at);
                }
                None => faults += 1,
            },
            _ => {}
        }
        j += 1;
    }
    if eof && bytes.len() < LOOKAHEAD {
        faults += stack.len();
    }
    Ok(faults)
}

/// The closers of the innermost `k` of `frames`, innermost first.
///
/// A container opened with a doubled brace expects its closer twice: the
/// first of the pair is its twin ([`TWIN`] set), which a written closer
/// matches and is then dropped, and which is never supplied.
fn expected(frames: &[Frame], k: usize, doubled: &[usize]) -> SmallVec<[u8; 8]> {
    let mut closers = SmallVec::new();
    for index in (frames.len() - k..frames.len()).rev() {
        let closer = frames[index].closer().as_bytes()[0];
        if doubled.contains(&index) {
            closers.push(closer | TWIN);
        }
        closers.push(closer);
    }
    closers
}

/// The mark of an expected closer that is a doubled container's twin.
const TWIN: u8 = 0x80;

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
            reading.likeness = likeness(run, &cursor, reading.fit, depth, shape.as_ref())?;
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

/// How much the member or element that follows looks like the container's
/// own, `depth` containers deep once the run has closed what it closes:
/// positive when alike, negative when unlike, zero when nothing is known.
fn likeness(
    run: &Run<'_>,
    cursor: &Cursor<'_>,
    fit: Fit,
    depth: usize,
    shape: Option<&Shape>,
) -> Scan<i32> {
    Ok(match fit {
        Fit::Key(key) => {
            let name = &cursor.bytes[key.name.0..key.name.1];
            let hint = run.hints.map_or(KeyHint::Unknown, |h| h.key(depth, name));
            let has = shape.is_some_and(|s| s.knows_key(name));
            match (hint, has) {
                (KeyHint::Undeclared, _) | (_, true) => -1,
                (KeyHint::Declared, _) => 1,
                _ => 0,
            }
        }
        Fit::Element { at, .. } if keyed(cursor.at(at))? => {
            // A member whose object's `{` is missing: like the array's
            // elements when they are objects with that key (an object
            // whose first key none of them has tells nothing: the member
            // may as well be the closed object's own, `}}` written for `}`).
            match shape.and_then(Shape::uniform) {
                Some(Element::Object(keys)) => {
                    let name = key_name(cursor.at(at))?;
                    2 * i32::from(keys.iter().any(|k| &k[..] == name))
                }
                Some(_) => -1,
                None => 0,
            }
        }
        Fit::Element { at, .. } => {
            let next = element_at(cursor.at(at))?;
            match (shape.and_then(Shape::uniform), next) {
                (None, _) | (_, None) => 0,
                (Some(Element::Object(keys)), Some(Element::Object(first))) => {
                    let shared = first.first().is_some_and(|k| keys.contains(k));
                    1 + i32::from(shared)
                }
                (Some(Element::Array(n)), Some(Element::Array(m))) => 1 + i32::from(*n == m),
                (Some(kind), Some(next)) if kind.same_kind(&next) => 1,
                _ => -1,
            }
        }
        _ => 0,
    })
}

/// Whether what follows the run at `c` (after a separator, if any) cannot
/// stand in `top` at all: an opening bracket where an object wants a key, a
/// key and its colon in an array.
pub(super) fn misplaced(mut c: Cursor<'_>, top: Option<&Frame>) -> Scan<bool> {
    c.skip_ws()?;
    if matches!(c.peek()?, Some(b',' | b';')) {
        c.pos += 1;
        c.skip_ws()?;
    }
    // A closer here is one no open container takes.
    if matches!(c.peek()?, Some(b'}' | b']')) {
        return Ok(true);
    }
    Ok(match top {
        Some(Frame::Object) => matches!(c.peek()?, Some(b'{' | b'[')),
        Some(Frame::Array) => keyed(c)?,
        _ => false,
    })
}

/// The text of the key at `c` (a quoted string's body, or a bare word).
fn key_name<'b>(c: Cursor<'b>) -> Scan<&'b [u8]> {
    let bytes = c.bytes;
    if let Some((_, len)) = c.quote_here()? {
        let start = c.pos + len;
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'"' || b == b'\'' || b == b'\n')
            .map_or(bytes.len(), |k| start + k);
        return Ok(&bytes[start..end]);
    }
    let end = bytes[c.pos..]
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-')))
        .map_or(bytes.len(), |k| c.pos + k);
    Ok(&bytes[c.pos..end])
}

/// Whether a quoted string or a bare word at `c` is followed by a colon: a
/// key.
pub(super) fn keyed(c: Cursor<'_>) -> Scan<bool> {
    let Some((quote, len)) = c.quote_here()? else {
        // A bare key: `false: "x"`, `name: 1`.
        let mut k = c.pos;
        while let Some(b) = c.at(k).peek()? {
            if !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-'))
                || k - c.pos > MAX_KEY
            {
                break;
            }
            k += 1;
        }
        if k == c.pos {
            return Ok(false);
        }
        let mut colon = c.at(k);
        colon.skip_spaces()?;
        return Ok(colon.peek()? == Some(b':'));
    };
    let mut k = c.pos + len;
    loop {
        let probe = c.at(k);
        match probe.peek()? {
            None | Some(b'\n') => return Ok(false),
            Some(b'\\') => k += 2,
            Some(_) => match probe.closing_quote(quote)? {
                Some((n, Closer::Own)) => {
                    let mut colon = c.at(k + n);
                    colon.skip_spaces()?;
                    return Ok(colon.peek()? == Some(b':'));
                }
                _ if k - c.pos > MAX_KEY => return Ok(false),
                Some((n, _)) => k += n,
                None => k += 1,
            },
        }
    }
}

/// The shape of the value that starts at `c`, as far as the window shows:
/// an object with its first key, an array with its length, a string or a
/// scalar. `None` when it cannot be told.
fn element_at(c: Cursor<'_>) -> Scan<Option<Element>> {
    let bytes = c.bytes;
    let Some(&b) = bytes.get(c.pos) else {
        return Ok(None);
    };
    Ok(Some(match b {
        b'"' => Element::String,
        b'{' => {
            let mut k = c.pos + 1;
            while bytes.get(k).is_some_and(|b| crate::lex::is_ws(*b)) {
                k += 1;
            }
            match bytes.get(k) {
                None if c.eof => return Ok(None),
                None => return Err(Short),
                Some(b'"') => {}
                Some(_) => return Ok(Some(Element::Object(Vec::new()))),
            }
            let start = k + 1;
            let mut j = start;
            loop {
                match bytes.get(j) {
                    None if c.eof => return Ok(None),
                    None => return Err(Short),
                    Some(b'\\') => j += 2,
                    Some(b'"') => break,
                    Some(b'\n') => return Ok(None),
                    Some(_) => j += 1,
                }
            }
            Element::Object(vec![bytes[start..j].into()])
        }
        b'[' => {
            // Its length: the elements at its own level, to its `]`.
            let (mut depth, mut n, mut started) = (0usize, 0usize, false);
            let mut j = c.pos;
            loop {
                let Some(&b) = bytes.get(j) else {
                    return if c.eof { Ok(None) } else { Err(Short) };
                };
                match b {
                    b'"' => {
                        if depth == 1 && !started {
                            started = true;
                            n += 1;
                        }
                        j += 1;
                        while let Some(&s) = bytes.get(j) {
                            match s {
                                b'\\' => j += 2,
                                b'"' => break,
                                _ => j += 1,
                            }
                        }
                    }
                    b'[' | b'{' => {
                        if depth == 1 && !started {
                            started = true;
                            n += 1;
                        }
                        depth += 1;
                    }
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break Element::Array(n);
                        }
                    }
                    b',' if depth == 1 => started = false,
                    b if depth == 1 && !started && !crate::lex::is_ws(b) => {
                        started = true;
                        n += 1;
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => Element::Scalar,
        _ => return Ok(None),
    }))
}

/// The cost of an edit: a closer dropped, supplied or replaced, or two
/// neighbours swapped. Every slip costs the same; where two readings need
/// as many, what follows the run decides (see [`downstream`]).
const EDIT: usize = 1;

/// The cost of dropping the written closer `j - 1`.
fn drop_cost(_written: &[u8], _j: usize) -> usize {
    EDIT
}

/// The fewest edits that turn the `written` closers into the `expected`
/// ones (a closer replaced, dropped, supplied, or two neighbours swapped),
/// and the plan that makes them, in input order.
fn align(written: &[u8], expected: &[u8]) -> (usize, SmallVec<[RunOp; 8]>) {
    let (n, m) = (written.len(), expected.len());
    let width = m + 1;
    let mut cost = vec![usize::MAX; (n + 1) * width];
    let at = |j: usize, t: usize| j * width + t;
    cost[0] = 0;
    for j in 0..=n {
        for t in 0..=m {
            if j == 0 && t == 0 {
                continue;
            }
            let mut best = usize::MAX;
            if j > 0 && t > 0 {
                best = best.min(cost[at(j - 1, t - 1)] + replace_cost(written, expected, j, t));
            }
            if j > 0 {
                best = best.min(cost[at(j - 1, t)] + drop_cost(written, j));
            }
            if t > 0 {
                // A twin left out costs nothing: it was never needed.
                let supply = if expected[t - 1] & TWIN != 0 { 0 } else { EDIT };
                best = best.min(cost[at(j, t - 1)] + supply);
            }
            if swapped(written, expected, j, t) {
                best = best.min(cost[at(j - 2, t - 2)] + EDIT);
            }
            cost[at(j, t)] = best;
        }
    }
    // Back from the end; the first choice that reaches the cost, in an
    // order that prefers closing over dropping and supplying.
    let mut ops: SmallVec<[RunOp; 8]> = SmallVec::new();
    let (mut j, mut t) = (n, m);
    while j > 0 || t > 0 {
        let here = cost[at(j, t)];
        // (Dropping is tried first: from the end, so the closers dropped
        // are the later ones, `}  }` losing its second.)
        if j > 0 && cost[at(j - 1, t)] + drop_cost(written, j) == here {
            ops.push(RunOp::Drop);
            j -= 1;
        } else if j > 0
            && t > 0
            && cost[at(j - 1, t - 1)] + replace_cost(written, expected, j, t) == here
        {
            let how = if written[j - 1] == expected[t - 1] & !TWIN {
                How::Same
            } else {
                How::Replaced
            };
            // A twin's closer is the doubled one: dropped.
            ops.push(if expected[t - 1] & TWIN != 0 {
                RunOp::Drop
            } else {
                RunOp::Close(how)
            });
            (j, t) = (j - 1, t - 1);
        } else if swapped(written, expected, j, t) && cost[at(j - 2, t - 2)] + EDIT == here {
            ops.push(RunOp::Close(How::Reordered));
            ops.push(RunOp::Close(How::Reordered));
            (j, t) = (j - 2, t - 2);
        } else {
            debug_assert!(
                cost[at(j, t - 1)] + if expected[t - 1] & TWIN != 0 { 0 } else { EDIT } == here
            );
            if expected[t - 1] & TWIN == 0 {
                ops.push(RunOp::Insert);
            }
            t -= 1;
        }
    }
    ops.reverse();
    (cost[at(n, m)], ops)
}

/// The cost of reading the written closer `j - 1` as the expected `t - 1`.
fn replace_cost(written: &[u8], expected: &[u8], j: usize, t: usize) -> usize {
    if written[j - 1] == expected[t - 1] & !TWIN {
        0
    } else {
        EDIT
    }
}

/// Whether the two written closers before `j` are the two expected before
/// `t`, swapped.
fn swapped(written: &[u8], expected: &[u8], j: usize, t: usize) -> bool {
    j >= 2
        && t >= 2
        && written[j - 1] != written[j - 2]
        && written[j - 1] == expected[t - 2]
        && written[j - 2] == expected[t - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn planned(frames: &[Frame], after: &str) -> Option<RunPlan> {
        let run = Run {
            frames,
            after: after.as_bytes(),
            eof: true,
            style: Faults::NONE,
            hints: None,
            doubled: &[],
        };
        plan(&run, |_| None).expect("the input ended")
    }

    use Frame::{Array as A, Object as O};
    use RunOp::{Close, Drop, Insert};

    #[test]
    fn swapped_closers_before_a_sibling() {
        // `}}]}` for `}]}}`, then the next element of the outer array.
        let p = planned(&[A, O, O, A, O], r#"}}]}, {"type": "b"}]"#).unwrap();
        assert_eq!(
            p.ops.as_slice(),
            [
                Close(How::Same),
                Close(How::Reordered),
                Close(How::Reordered),
                Close(How::Same)
            ]
        );
        assert!(!p.doubt);
    }

    #[test]
    fn a_closer_too_many_before_the_next_member() {
        let p = planned(&[O, A, O], r#"}]}, "recovery_time": []}"#).unwrap();
        assert_eq!(p.ops.as_slice(), [Close(How::Same), Close(How::Same), Drop]);
        let p = planned(&[O], r#"}, "b": 1}"#).unwrap();
        assert_eq!(p.ops.as_slice(), [Drop]);
    }

    #[test]
    fn a_closer_short() {
        // `]` for `}]`, then the next member of the outer object.
        let p = planned(&[O, A, O], r#"], "b": 1}"#).unwrap();
        assert_eq!(p.ops.as_slice(), [Insert, Close(How::Same)]);
    }

    #[test]
    fn valid_runs_are_plain() {
        assert!(planned(&[O, A, O], "}]}").unwrap().is_plain());
        assert!(planned(&[O, A, O], r#"}], "b": 1}"#).unwrap().is_plain());
        assert!(planned(&[O], "}  ").unwrap().is_plain());
        // Text after the top-level value stays text after it.
        assert!(planned(&[O], "} and that is all").unwrap().is_plain());
        assert!(planned(&[O], r#"} {"b": 1}"#).unwrap().is_plain());
    }

    #[test]
    fn the_shape_breaks_a_tie() {
        // `]` where `}]` was meant: the inner array's elements are
        // objects, the outer one's arrays, and an array follows.
        let frames = [O, A, A, O];
        let run = Run {
            frames: &frames,
            after: br#"], [{"a": 2}]]}"#,
            eof: true,
            style: Faults::NONE,
            hints: None,
            doubled: &[],
        };
        let shapes = |n: usize| match n {
            1 => Some(Shape::Array(vec![Element::Object(vec![
                b"a".as_slice().into(),
            ])])),
            2 => Some(Shape::Array(vec![Element::Array(1)])),
            _ => None,
        };
        let p = plan(&run, shapes).unwrap().unwrap();
        assert_eq!(p.ops.as_slice(), [Insert, Close(How::Same)]);
        assert!(!p.doubt);
        // Without shapes, the closers the document writes later decide.
        let p = planned(&frames, r#"], [{"a": 2}]]}"#).unwrap();
        assert_eq!(p.ops.as_slice(), [Insert, Close(How::Same)]);
        assert!(!p.doubt);
        // Where neither they nor the shapes tell (the window ends in a long
        // string), the choice is a doubt.
        let long = format!(r#"], ["{}"#, "x".repeat(LOOKAHEAD));
        assert!(planned(&frames, &long).unwrap().doubt);
    }

    #[test]
    fn waits_for_what_follows() {
        let run = Run {
            frames: &[O, A],
            after: b"]}",
            eof: false,
            style: Faults::NONE,
            hints: None,
            doubled: &[],
        };
        assert_eq!(plan_run(&run, |_| None), Planned::Need);
    }
}
