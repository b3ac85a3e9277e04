//! The strict apply in memory: every section of a patch for one file,
//! applied in turn on one split of the file.
//!
//! Why one split: a patch may hold several sections for the same file (two
//! diffs pasted together, or a model's 10,000 one-line sections), each
//! against what the sections before it made of the file. Each section used
//! to clone the file, split it into lines and join it again, so 10,000
//! sections for a 3.9 MB file took 39 s. Here the file is split once into a
//! gap buffer: `done` holds the lines already placed, `rest[at..]` those not
//! yet reached, and a section whose hunks lie after the previous one's only
//! moves the lines between them. A section that goes back before the
//! previous one's end joins the two halves again (a rewind): that is the
//! one step that costs the whole file, so rewinds share a budget
//! ([`REWIND_BUDGET`]). Everything here is pure: no file is read or written.

use super::error::{Error, Hint, HunkAt, Repr};
use super::patch::{self, Eol, FilePatch, HunkLine, Kind};
use super::unified::{BINARY_PROBE, split_lines};
use crate::tools::deadline::{self, Ticker};

/// How a patch changes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileChange {
    /// Lines changed in an existing file.
    Modified,
    /// A new file (`--- /dev/null`).
    Created,
    /// The file removed (`+++ /dev/null`).
    Deleted,
}

/// One line: its content without the terminator, and the terminator.
type Line<'a> = (&'a [u8], Eol);

/// The lines rewinds may move in all, for one file. A rewind is a section
/// that starts before the previous section's end; it costs the file's
/// length. 50 million lines is a second or so of copying, and 25 rewinds of
/// the largest file `@diff` reads (4 MB of empty lines).
pub(crate) const REWIND_BUDGET: usize = 50_000_000;

/// A file's new content and what the sections did to it.
#[derive(Debug)]
pub(crate) struct Patched {
    /// The new content; `None` when the last section deleted the file.
    pub(crate) bytes: Option<Vec<u8>>,
    pub(crate) n_hunks: usize,
    pub(crate) n_added: usize,
    pub(crate) n_removed: usize,
    pub(crate) change: FileChange,
    pub(crate) notes: Vec<String>,
}

/// The error for a call past its deadline.
fn timed_out() -> Error {
    Error::timed_out("applying the patch")
}

/// Apply one section to `original` as it is (no check that the file
/// exists, is text, or is emptied by a deletion): [`super::apply_to`].
pub(crate) fn patch_one(
    name: &str,
    original: &[u8],
    section: &FilePatch<'_>,
) -> Result<Vec<u8>, Error> {
    let mut lines = Lines::new(original);
    lines.apply(name, section, &mut 0)?;
    Ok(lines.to_bytes())
}

/// Apply every section (each with the name messages show for it) to
/// `original` (`None`: the file does not exist), in order, each to what the
/// ones before it made. `missing` is the error for a section that changes a
/// file that is not there.
pub(crate) fn patch_sections<'a>(
    original: Option<&'a [u8]>,
    sections: &[(&FilePatch<'a>, &str)],
    missing: &dyn Fn(&str) -> Error,
) -> Result<Patched, Error> {
    let mut lines = original.map(Lines::new);
    let mut out = Patched {
        bytes: None,
        n_hunks: 0,
        n_added: 0,
        n_removed: 0,
        change: FileChange::Modified,
        notes: Vec::new(),
    };
    let mut rewound = 0usize;
    for (idx, &(section, name)) in sections.iter().enumerate() {
        if deadline::expired() {
            return Err(timed_out());
        }
        let current = match (lines.take(), section.creates()) {
            (Some(current), true) => {
                return Err(Error::new(Repr::Exists {
                    file: name.to_owned(),
                    applied: current.holds_only(section),
                }));
            }
            (None, true) => Lines::new(b""),
            (Some(current), false) => {
                if let Some(offset) = current.binary_offset() {
                    return Err(Error::new(Repr::Binary {
                        file: name.to_owned(),
                        offset,
                    }));
                }
                current
            }
            (None, false) => return Err(missing(name)),
        };
        let mut current = current;
        let (n_added, n_removed, notes) = current.apply(name, section, &mut rewound)?;
        let change = if section.creates() {
            FileChange::Created
        } else if section.deletes() {
            if !current.is_blank() {
                return Err(Error::new(Repr::Unsupported {
                    file: name.to_owned(),
                    what: "deletes the file, but leaves lines of it that the hunks do not remove",
                }));
            }
            FileChange::Deleted
        } else {
            FileChange::Modified
        };
        if idx == 0 || change == FileChange::Deleted {
            out.change = change;
        }
        out.n_hunks += section.hunks.len();
        out.n_added += n_added;
        out.n_removed += n_removed;
        out.notes.extend(notes);
        if section.mode_change {
            out.notes.push(
                "the patch also changes the file's mode (`old mode`/`new mode`); the mode was \
                 left as it was"
                    .to_owned(),
            );
        }
        lines = (change != FileChange::Deleted).then_some(current);
    }
    out.bytes = lines.map(|lines| lines.to_bytes());
    Ok(out)
}

/// A file's lines while sections are applied: `done` followed by
/// `rest[at..]`. Only the last line of the whole may lack a newline.
struct Lines<'a> {
    done: Vec<Line<'a>>,
    rest: Vec<Line<'a>>,
    at: usize,
    /// How many lines end in LF and in CRLF, for the dominant ending.
    n_lf: usize,
    n_crlf: usize,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        let rest: Vec<Line<'a>> = split_lines(bytes)
            .into_iter()
            .map(patch::split_eol)
            .collect();
        let mut lines = Lines {
            done: Vec::new(),
            rest,
            at: 0,
            n_lf: 0,
            n_crlf: 0,
        };
        lines.n_lf = lines.rest.iter().filter(|(_, eol)| *eol == Eol::Lf).count();
        lines.n_crlf = lines
            .rest
            .iter()
            .filter(|(_, eol)| *eol == Eol::CrLf)
            .count();
        lines
    }

    fn count(&mut self, eol: Eol, add: bool) {
        let n = match eol {
            Eol::Lf => &mut self.n_lf,
            Eol::CrLf => &mut self.n_crlf,
            Eol::None => return,
        };
        *n = if add { *n + 1 } else { n.saturating_sub(1) };
    }

    /// The most common line ending (LF when there is none).
    fn style(&self) -> Eol {
        if self.n_crlf > self.n_lf {
            Eol::CrLf
        } else {
            Eol::Lf
        }
    }

    fn len(&self) -> usize {
        self.done.len() + self.rest.len() - self.at
    }

    fn last_mut(&mut self) -> Option<&mut Line<'a>> {
        if self.at < self.rest.len() {
            self.rest.last_mut()
        } else {
            self.done.last_mut()
        }
    }

    fn lines(&self) -> impl Iterator<Item = &Line<'a>> {
        self.done.iter().chain(&self.rest[self.at..])
    }

    /// Where the first NUL byte is among the first 8,000, if there is one.
    fn binary_offset(&self) -> Option<usize> {
        let mut offset = 0;
        for (content, eol) in self.lines() {
            if offset >= BINARY_PROBE {
                return None;
            }
            let probe = &content[..content.len().min(BINARY_PROBE - offset)];
            if let Some(at) = memchr::memchr(0, probe) {
                return Some(offset + at);
            }
            offset += content.len() + eol.bytes().len();
        }
        None
    }

    /// Whether the file's lines are exactly the lines `section` adds (line
    /// endings aside): the file a creation made, so the creation was applied
    /// already.
    fn holds_only(&self, section: &FilePatch<'_>) -> bool {
        let mut added = section
            .hunks
            .iter()
            .flat_map(|hunk| &hunk.lines)
            .filter(|line| line.kind == Kind::Added);
        let mut lines = self.lines();
        loop {
            match (added.next(), lines.next()) {
                (None, None) => return true,
                (Some(want), Some((content, _))) if want.content == *content => {}
                _ => return false,
            }
        }
    }

    /// Whether the file would be empty (what a deletion must leave).
    fn is_blank(&self) -> bool {
        self.lines()
            .all(|(content, eol)| content.is_empty() && *eol == Eol::None)
    }

    fn to_bytes(&self) -> Vec<u8> {
        let size = self
            .lines()
            .map(|(content, eol)| content.len() + eol.bytes().len())
            .sum();
        let mut bytes = Vec::with_capacity(size);
        for (content, eol) in self.lines() {
            bytes.extend_from_slice(content);
            bytes.extend_from_slice(eol.bytes());
        }
        bytes
    }

    /// Join `done` and `rest[at..]` into `rest`, so a section may start
    /// anywhere again.
    fn rewind(&mut self, rewound: &mut usize) -> Result<(), Error> {
        *rewound += self.len();
        if *rewound > REWIND_BUDGET {
            return Err(Error::new(Repr::TooManyRewinds {
                budget: REWIND_BUDGET,
            }));
        }
        self.done.extend_from_slice(&self.rest[self.at..]);
        std::mem::swap(&mut self.done, &mut self.rest);
        self.done.clear();
        self.at = 0;
        Ok(())
    }

    /// The section's input as one list (for a hint, on the error path only):
    /// what was placed before the section began, then what it had not
    /// reached.
    fn input(&self, base_done: usize, base_at: usize) -> Vec<Line<'a>> {
        let mut input = self.done[..base_done].to_vec();
        input.extend_from_slice(&self.rest[base_at..]);
        input
    }

    /// Apply every hunk of `section`, strictly; the lines and counts added
    /// and removed, and the notes.
    ///
    /// A hunk matches exactly (line endings included) or, failing that, with
    /// line endings ignored: then the patch lost the file's endings in
    /// transit, and the file's are kept (its CRLF, its missing final
    /// newline).
    fn apply(
        &mut self,
        name: &str,
        section: &FilePatch<'a>,
        rewound: &mut usize,
    ) -> Result<(usize, usize, Vec<String>), Error> {
        let start_of = |hunk: &patch::Hunk<'_>| {
            if hunk.old_count == 0 {
                hunk.old_start
            } else {
                hunk.old_start - 1
            }
        };
        if section
            .hunks
            .first()
            .is_some_and(|hunk| start_of(hunk) < self.done.len())
        {
            self.rewind(rewound)?;
        }
        // The section's input is `done[..base_done]` then `rest[base_at..]`;
        // its hunks' line numbers count in it.
        let (base_done, base_at) = (self.done.len(), self.at);
        let n_input = self.len();
        let input_style = self.style();
        let lacked = self.rest[base_at..]
            .last()
            .or(self.done.last())
            .is_some_and(|(_, eol)| *eol == Eol::None);
        // Lines of `done` that may lack a newline without ending the file.
        let mut unended: Vec<usize> = Vec::new();
        if self.done.last().is_some_and(|(_, eol)| *eol == Eol::None) {
            unended.push(base_done - 1);
        }
        let (mut n_added, mut n_removed) = (0, 0);
        let mut next = base_done;
        let mut loose = false;
        let mut ticker = Ticker::<6>::new();
        for (hunk_idx, hunk) in section.hunks.iter().enumerate() {
            if ticker.tick() {
                return Err(timed_out());
            }
            let at = || HunkAt {
                file: name.to_owned(),
                hunk: hunk_idx + 1,
                header: hunk.header.clone(),
            };
            let old: Vec<&HunkLine<'_>> = hunk
                .lines
                .iter()
                .filter(|l| l.kind != Kind::Added)
                .collect();
            let start = start_of(hunk);
            if start + old.len() > n_input {
                let last = hunk.old_start + hunk.old_count.saturating_sub(1);
                return Err(Error::new(Repr::PastEnd {
                    at: at(),
                    first: hunk.old_start,
                    last,
                    n_lines: n_input,
                    hint: hint(&self.input(base_done, base_at), hunk, &old, start, 0)?,
                }));
            }
            if start < next {
                return Err(Error::new(Repr::HunkOrder {
                    at: at(),
                    start: hunk.old_start,
                    previous_end: next,
                }));
            }
            let from = base_at + (start - base_done);
            let here = &self.rest[from..from + old.len()];
            let exact = old
                .iter()
                .zip(here)
                .all(|(want, (content, eol))| want.content == *content && want.eol == *eol);
            if !exact {
                if let Some(k) = old
                    .iter()
                    .zip(here)
                    .position(|(want, (content, _))| want.content != *content)
                {
                    let actual = here[k].0.to_vec();
                    return Err(Error::new(Repr::Mismatch {
                        at: at(),
                        removed: old[k].kind == Kind::Removed,
                        line: start + k + 1,
                        expected: old[k].content.to_vec(),
                        actual,
                        hint: hint(&self.input(base_done, base_at), hunk, &old, start, k)?,
                    }));
                }
                // Only a CRLF/LF difference is worth a note: a patch whose
                // last line has a newline the file lacks (a model rarely
                // writes the `\ No newline at end of file` marker) is the
                // ordinary case.
                loose |= old.iter().zip(here).any(|(want, (_, eol))| {
                    want.eol != *eol && want.eol != Eol::None && *eol != Eol::None
                });
            }
            // The lines between the previous hunk and this one, unchanged.
            if from == self.rest.len() && from > self.at && self.rest[from - 1].1 == Eol::None {
                unended.push(self.done.len() + from - 1 - self.at);
            }
            self.done.extend_from_slice(&self.rest[self.at..from]);
            let style = dominant_eol(here);
            let mut file_idx = from;
            for line in &hunk.lines {
                let placed = match line.kind {
                    Kind::Context => {
                        let kept = if exact {
                            (line.content, line.eol)
                        } else {
                            self.rest[file_idx]
                        };
                        file_idx += 1;
                        kept
                    }
                    Kind::Removed => {
                        let eol = self.rest[file_idx].1;
                        self.count(eol, false);
                        file_idx += 1;
                        n_removed += 1;
                        continue;
                    }
                    Kind::Added => {
                        let eol = match line.eol {
                            Eol::None => Eol::None,
                            _ if exact => line.eol,
                            _ => style,
                        };
                        self.count(eol, true);
                        n_added += 1;
                        (line.content, eol)
                    }
                };
                if placed.1 == Eol::None {
                    unended.push(self.done.len());
                }
                self.done.push(placed);
            }
            self.at = from + old.len();
            next = start + old.len();
        }
        let mut notes = Vec::new();
        if loose {
            notes.push(
                "the patch's line endings differ from the file's; the file's were kept".to_owned(),
            );
        }
        // A line without a newline can only end the file.
        let ends_in_done = self.at == self.rest.len();
        for idx in unended {
            let is_last = ends_in_done && idx + 1 == self.done.len();
            if !is_last && self.done[idx].1 == Eol::None {
                self.done[idx].1 = input_style;
                self.count(input_style, true);
            }
        }
        // Without `\ No newline` markers the patch says nothing about the
        // end of the file, so the file keeps its lack of a final newline.
        if !section.has_markers
            && lacked
            && let Some(last) = self.last_mut()
            && last.1 != Eol::None
        {
            let eol = std::mem::replace(&mut last.1, Eol::None);
            self.count(eol, false);
            notes.push("the file had no newline at its end, and still has none".to_owned());
        }
        Ok((n_added, n_removed, notes))
    }
}

/// The most common line ending among `lines` (LF when there is none).
fn dominant_eol(lines: &[Line<'_>]) -> Eol {
    let n_crlf = lines.iter().filter(|(_, eol)| *eol == Eol::CrLf).count();
    let n_lf = lines.iter().filter(|(_, eol)| *eol == Eol::Lf).count();
    if n_crlf > n_lf { Eol::CrLf } else { Eol::Lf }
}

/// Why the hunk's old lines are not at `declared`, as far as the file can
/// tell: a hint, never a place to apply. In order: the hunk's new side is
/// there already (the patch was applied before); its old lines occur
/// elsewhere (a wrong header); its new side occurs elsewhere; its `k`-th old
/// line occurs somewhere; nothing.
///
/// The new side counts only when it differs from the old side and holds a
/// line: a hunk's result found where the hunk applies is the commonest way
/// a patch fails to apply (it was applied already), and GNU patch says so
/// too ("Reversed (or previously applied) patch detected!"). Found
/// elsewhere, it counts only with an added line in it, since context alone
/// (a lone `}`) occurs anywhere.
fn hint(
    lines: &[Line<'_>],
    hunk: &patch::Hunk<'_>,
    old: &[&HunkLine<'_>],
    declared: usize,
    k: usize,
) -> Result<Hint, Error> {
    let new: Vec<&HunkLine<'_>> = hunk
        .lines
        .iter()
        .filter(|l| l.kind != Kind::Removed)
        .collect();
    let changes = hunk.lines.iter().any(|l| l.kind != Kind::Context);
    if changes && !new.is_empty() && occurs_at(lines, &new, declared) {
        return Ok(Hint::Applied {
            lines: vec![declared + 1],
            here: true,
        });
    }
    if old.is_empty() {
        return Ok(Hint::Nowhere);
    }
    let positions = occurrences(lines, old, declared)?;
    if !positions.is_empty() {
        return Ok(Hint::Hunk(positions));
    }
    if hunk.lines.iter().any(|l| l.kind == Kind::Added) {
        let positions = occurrences(lines, &new, declared)?;
        if !positions.is_empty() {
            return Ok(Hint::Applied {
                lines: positions,
                here: false,
            });
        }
    }
    let Some(want) = old.get(k) else {
        return Ok(Hint::Nowhere);
    };
    let positions: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, (content, _))| *content == want.content)
        .take(10)
        .map(|(idx, _)| idx + 1)
        .collect();
    Ok(if positions.is_empty() {
        Hint::Nowhere
    } else {
        Hint::Line(positions)
    })
}

/// Whether `want` occurs in `lines` from `at` on (contents only).
fn occurs_at(lines: &[Line<'_>], want: &[&HunkLine<'_>], at: usize) -> bool {
    lines.get(at..at + want.len()).is_some_and(|here| {
        want.iter()
            .zip(here)
            .all(|(want, (content, _))| want.content == *content)
    })
}

/// The 1-based lines, other than `declared + 1`, where all of `want` occurs
/// (contents only; at most 10).
fn occurrences(
    lines: &[Line<'_>],
    want: &[&HunkLine<'_>],
    declared: usize,
) -> Result<Vec<usize>, Error> {
    let mut ticker = Ticker::<12>::new();
    // The search compares at most this many lines, so a huge hunk against
    // a huge file of repeated lines stays cheap; past it, no hint.
    let mut budget: usize = 20_000_000;
    let mut positions: Vec<usize> = Vec::new();
    if want.is_empty() || want.len() > lines.len() {
        return Ok(positions);
    }
    for p in 0..=lines.len() - want.len() {
        if positions.len() == 10 || budget == 0 {
            break;
        }
        if ticker.tick() {
            return Err(timed_out());
        }
        let n_equal = want
            .iter()
            .zip(&lines[p..])
            .take_while(|(want, (content, _))| want.content == *content)
            .count();
        budget = budget.saturating_sub(n_equal + 1);
        if n_equal == want.len() && p != declared {
            positions.push(p + 1);
        }
    }
    Ok(positions)
}
