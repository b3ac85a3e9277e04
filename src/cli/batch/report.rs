//! What `--batch` says on stderr besides errors: the `--summary` totals at
//! the end, and a progress bar while a large input is read on a terminal.
//!
//! Both are kept off stdout, so the output stays one line per input line.

use std::collections::BTreeMap;
use std::fs::{self, Metadata};
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use argmend::Verdict;
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::shared::failure::{Failure, output_error};

/// The totals of `--summary`: how many lines got each verdict, and how many
/// fixes and doubts of each kind the output lines carry.
///
/// Each batch of lines counts into its own `Tally` on the worker that
/// answered it, and the writer adds them up, so counting takes no lock.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    lines: u64,
    errors: u64,
    verdicts: BTreeMap<&'static str, u64>,
    fixes: BTreeMap<&'static str, u64>,
    doubts: BTreeMap<&'static str, u64>,
}

impl Tally {
    /// A line that got `{"error": …}`.
    pub(crate) fn error(&mut self) {
        self.lines += 1;
        self.errors += 1;
    }

    /// A line that got an answer with `verdict`, and the kinds of its fixes
    /// and doubts (the `"kind"` names its output line shows).
    pub(crate) fn answer(
        &mut self,
        verdict: Verdict,
        fixes: impl IntoIterator<Item = &'static str>,
        doubts: impl IntoIterator<Item = &'static str>,
    ) {
        self.lines += 1;
        *self.verdicts.entry(verdict.name()).or_default() += 1;
        for kind in fixes {
            *self.fixes.entry(kind).or_default() += 1;
        }
        for kind in doubts {
            *self.doubts.entry(kind).or_default() += 1;
        }
    }

    /// Add the counts of `other` to these.
    pub(crate) fn add(&mut self, other: Tally) {
        self.lines += other.lines;
        self.errors += other.errors;
        for (mine, theirs) in [
            (&mut self.verdicts, other.verdicts),
            (&mut self.fixes, other.fixes),
            (&mut self.doubts, other.doubts),
        ] {
            for (kind, n) in theirs {
                *mine.entry(kind).or_default() += n;
            }
        }
    }

    /// The summary line: one JSON object, kinds in name order, a kind that
    /// never occurred left out:
    /// `{"lines":3,"errors":0,"verdicts":{"repaired":3},"fixes":{…},"doubts":{…}}`.
    pub(crate) fn to_json(&self) -> String {
        let map = |counts: &BTreeMap<&'static str, u64>| {
            let members: Vec<String> = counts
                .iter()
                // Kind names are snake_case ASCII: nothing to escape.
                .map(|(kind, n)| format!(r#""{kind}":{n}"#))
                .collect();
            format!("{{{}}}", members.join(","))
        };
        format!(
            r#"{{"lines":{},"errors":{},"verdicts":{},"fixes":{},"doubts":{}}}"#,
            self.lines,
            self.errors,
            map(&self.verdicts),
            map(&self.fixes),
            map(&self.doubts)
        )
    }

    /// `--summary`: the summary line on stderr.
    pub(crate) fn write(&self) -> Result<(), Failure> {
        let mut err = io::stderr().lock();
        writeln!(err, "{}", self.to_json()).map_err(|e| output_error(e, "stderr"))
    }
}

/// From this many bytes of input on, a terminal gets a progress bar: below
/// it the run is over before a bar would be read.
const BAR_FROM: u64 = 4 << 20;

/// The progress bar of a batch run, or nothing.
///
/// Only when stderr is a terminal: a bar in a log file or a test's pipe is
/// noise. With the input's size known (a file, or stdin redirected from
/// one) and over [`BAR_FROM`], a bar with the bytes read and the time left
/// shows from the start; with no size (a pipe), a counter of bytes and lines
/// shows once that much has been read.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    /// Whether a counter may still appear (stderr is a terminal, no size).
    may_count: bool,
    /// The bytes and lines read so far.
    bytes: u64,
    lines: u64,
}

impl Progress {
    /// The progress of reading `file` (stdin when `None` or `-`).
    pub(crate) fn of(file: Option<&Path>) -> Self {
        if !io::stderr().is_terminal() {
            return Progress::new(None);
        }
        let size = match file {
            Some(path) if path != Path::new("-") => fs::metadata(path).ok(),
            _ => stdin_metadata(),
        };
        Progress::new(size.filter(Metadata::is_file).map(|meta| meta.len()))
    }

    /// The progress of reading an input of `size` bytes (`None`: unknown).
    pub(crate) fn new(size: Option<u64>) -> Self {
        let terminal = io::stderr().is_terminal();
        let bar = match size {
            Some(size) if terminal && size >= BAR_FROM => {
                let bar = ProgressBar::new(size);
                bar.set_style(
                    ProgressStyle::with_template(
                        "{bar:40} {binary_bytes}/{binary_total_bytes} {msg} ({eta} left)",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                Some(bar)
            }
            _ => None,
        };
        Progress {
            bar,
            may_count: terminal && size.is_none(),
            bytes: 0,
            lines: 0,
        }
    }

    /// A line of `n` bytes was read.
    pub(crate) fn line(&mut self, n: usize) {
        self.bytes += n as u64;
        self.lines += 1;
        if self.may_count && self.bytes >= BAR_FROM {
            self.may_count = false;
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template("{spinner} {binary_bytes} {msg} ({elapsed})")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(self.bytes);
            // indicatif redraws at most 20 times a second, whatever the calls.
            if self.lines.is_multiple_of(1024) {
                bar.set_message(format!("{} lines", self.lines));
            }
        }
    }
}

impl Drop for Progress {
    /// The input has ended (or the run has failed): the bar goes, so that
    /// the summary, an error or the shell's prompt start on a clean line.
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// What stdin is, when it is redirected from a file: its size.
#[cfg(unix)]
fn stdin_metadata() -> Option<Metadata> {
    use std::os::fd::AsFd;
    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
    fs::File::from(fd).metadata().ok()
}

/// Elsewhere stdin's size is not asked: a counter shows instead of a bar.
#[cfg(not(unix))]
fn stdin_metadata() -> Option<Metadata> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_add_up_by_kind() {
        let mut one = Tally::default();
        one.answer(
            Verdict::Repaired,
            ["quoted_key", "quoted_key"],
            ["early_close"],
        );
        let mut two = Tally::default();
        two.answer(Verdict::Valid, ["removed_comma"], []);
        two.error();
        one.add(two);
        assert_eq!(
            one.to_json(),
            r#"{"lines":3,"errors":1,"verdicts":{"repaired":1,"valid":1},"fixes":{"quoted_key":2,"removed_comma":1},"doubts":{"early_close":1}}"#
        );
        assert_eq!(
            Tally::default().to_json(),
            r#"{"lines":0,"errors":0,"verdicts":{},"fixes":{},"doubts":{}}"#
        );
    }
}
