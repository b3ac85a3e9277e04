//! The one error type of `@diff`: refusals the model should fix, bad
//! arguments and I/O errors. All text is in the one `Display` below.

use std::fmt;
use std::io;

use crate::tools::json::Format;
use crate::tools::{Blame, Unparsed, WorkspaceError};

/// Why a diff or an apply was refused or failed.
///
/// Its `Display` is the message a model reads: what went wrong, where, and
/// how to ask better.
#[derive(Debug)]
pub struct Error(Box<Repr>);

/// What kind of error it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A context line of a hunk differs from the file, e.g. the patch has
    /// ` return total` where the file has `return sum`.
    ContextMismatch,
    /// A removed line of a hunk differs from the file, e.g. `-x = 1` where
    /// the file has `x = 2`.
    RemovedMismatch,
    /// A hunk needs lines past the end of the file, e.g. `@@ -9,3 +9,3 @@`
    /// on a 10-line file.
    PastEnd,
    /// A hunk body has more or fewer lines than its header counts, e.g.
    /// `@@ -1,3 +1,3 @@` followed by two lines.
    BadCounts,
    /// A line starting with `@@` is not a hunk header, e.g. `@@ -1 +x @@`.
    MalformedHeader,
    /// The patch does not parse otherwise, e.g. it holds no hunk, or a `+`
    /// line stands outside any hunk.
    MalformedPatch,
    /// Hunks overlap or are out of order, e.g. `@@ -5,3 …` after `@@ -1,6 …`.
    HunkOrder,
    /// The patch asks for something argmend does not apply (renames, binary
    /// patches) or creates a file that already exists.
    Unsupported,
    /// A file is binary (a NUL byte in its first 8,000 bytes).
    Binary,
    /// A file is larger than 4 MB.
    TooLarge,
    /// A path is outside the workspace (absolute elsewhere, `..`, a link out).
    OutsideWorkspace,
    /// A JSON document for the `json` verb does not parse, e.g. `{"a":}`.
    InvalidJson,
    /// A YAML document for the `json` verb does not parse, e.g. `a: [1`.
    InvalidYaml,
    /// An argument is missing, has the wrong type or is out of range, e.g.
    /// `"context": 80`, or the envelope names an unknown verb.
    InvalidArgument,
    /// Reading or writing a file failed, e.g. it does not exist.
    Io,
    /// The call ran past its time limit (set by a server: `call`, `serve`,
    /// `mcp`) and stopped, e.g. a patch of 100,000 sections.
    TimedOut,
}

/// Where a hunk's expected lines occur elsewhere in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Hint {
    /// The whole hunk's old lines occur at these 1-based lines.
    Hunk(Vec<usize>),
    /// Only the mismatching line occurs, at these 1-based lines.
    Line(Vec<usize>),
    /// The hunk's new side (its context and added lines) occurs at these
    /// 1-based lines; `here`: where the hunk applies. The patch was most
    /// likely applied already.
    Applied { lines: Vec<usize>, here: bool },
    /// Neither occurs.
    Nowhere,
}

/// One failed hunk: which, and in which file.
#[derive(Debug, Clone)]
pub(crate) struct HunkAt {
    pub(crate) file: String,
    pub(crate) hunk: usize,
    pub(crate) header: String,
}

#[derive(Debug)]
pub(crate) enum Repr {
    Mismatch {
        at: HunkAt,
        removed: bool,
        line: usize,
        expected: Vec<u8>,
        actual: Vec<u8>,
        hint: Hint,
    },
    PastEnd {
        at: HunkAt,
        first: usize,
        last: usize,
        n_lines: usize,
        hint: Hint,
    },
    BadCounts {
        patch_line: usize,
        hunk: usize,
        header: String,
        want: (usize, usize),
        got: (usize, usize),
    },
    MalformedHeader {
        patch_line: usize,
        text: String,
    },
    StrayLine {
        patch_line: usize,
        text: String,
    },
    NoHunks,
    MissingPlus {
        patch_line: usize,
    },
    HunkOrder {
        at: HunkAt,
        start: usize,
        previous_end: usize,
    },
    Unsupported {
        file: String,
        what: &'static str,
    },
    Exists {
        file: String,
        /// The file holds exactly what the patch creates.
        applied: bool,
    },
    SeveralFiles {
        target: String,
        files: Vec<String>,
    },
    Binary {
        file: String,
        offset: usize,
    },
    TooLarge {
        file: String,
        size: u64,
        limit: u64,
    },
    Workspace(WorkspaceError),
    Unparsed(Unparsed),
    InvalidArgument(String),
    Io {
        action: &'static str,
        path: String,
        error: io::Error,
    },
    /// The deadline of the call passed while `doing` this.
    TimedOut {
        doing: &'static str,
    },
    /// A patch's sections for one file went back before each other's end so
    /// often that rejoining the file would cost more than `budget` lines.
    TooManyRewinds {
        budget: usize,
    },
    /// A file of a patch could not be written; the ones before it were put
    /// back.
    WriteFailed {
        path: String,
        error: io::Error,
        restored: Vec<String>,
        not_restored: Vec<String>,
    },
}

impl Error {
    #[cold]
    pub(crate) fn new(repr: Repr) -> Self {
        Error(Box::new(repr))
    }

    #[cold]
    pub(crate) fn argument(message: impl Into<String>) -> Self {
        Error::new(Repr::InvalidArgument(message.into()))
    }

    /// The error for a call whose deadline passed while `doing` this.
    #[cold]
    pub(crate) fn timed_out(doing: &'static str) -> Self {
        Error::new(Repr::TimedOut { doing })
    }

    #[cold]
    pub(crate) fn io(action: &'static str, path: impl Into<String>, error: io::Error) -> Self {
        Error::new(Repr::Io {
            action,
            path: path.into(),
            error,
        })
    }

    /// What kind of error it is.
    pub fn kind(&self) -> ErrorKind {
        match &*self.0 {
            Repr::Mismatch { removed: false, .. } => ErrorKind::ContextMismatch,
            Repr::Mismatch { removed: true, .. } => ErrorKind::RemovedMismatch,
            Repr::PastEnd { .. } => ErrorKind::PastEnd,
            Repr::BadCounts { .. } => ErrorKind::BadCounts,
            Repr::MalformedHeader { .. } => ErrorKind::MalformedHeader,
            Repr::StrayLine { .. } | Repr::NoHunks | Repr::MissingPlus { .. } => {
                ErrorKind::MalformedPatch
            }
            Repr::HunkOrder { .. } | Repr::TooManyRewinds { .. } => ErrorKind::HunkOrder,
            Repr::Unsupported { .. } | Repr::Exists { .. } => ErrorKind::Unsupported,
            Repr::SeveralFiles { .. } | Repr::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Repr::Binary { .. } => ErrorKind::Binary,
            Repr::TooLarge { .. } => ErrorKind::TooLarge,
            Repr::Workspace(error) => match error.blame() {
                Blame::Argument => ErrorKind::InvalidArgument,
                Blame::Io => ErrorKind::Io,
                Blame::Outside => ErrorKind::OutsideWorkspace,
            },
            Repr::Unparsed(unparsed) => match unparsed.format {
                Format::Json => ErrorKind::InvalidJson,
                Format::Yaml => ErrorKind::InvalidYaml,
            },
            Repr::Io { .. } | Repr::WriteFailed { .. } => ErrorKind::Io,
            Repr::TimedOut { .. } => ErrorKind::TimedOut,
        }
    }

    /// Whether the model should fix its request (a refused apply, a path
    /// outside the workspace, a binary file): exit 1 in the CLI. The rest
    /// (bad arguments, I/O errors) are usage errors: exit 2.
    pub fn is_refusal(&self) -> bool {
        !matches!(self.kind(), ErrorKind::InvalidArgument | ErrorKind::Io)
    }
}

impl From<WorkspaceError> for Error {
    #[cold]
    fn from(error: WorkspaceError) -> Self {
        if error.kind() == crate::tools::WorkspaceErrorKind::TimedOut {
            return Error::timed_out("walking a path");
        }
        Error::new(Repr::Workspace(error))
    }
}

/// A file line as the model should see it: quoted, terminator removed, so
/// trailing spaces and tabs show.
struct Shown<'a>(&'a [u8]);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = self.0.strip_suffix(b"\n").unwrap_or(self.0);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        write!(f, "{:?}", String::from_utf8_lossy(line))
    }
}

/// Up to three line numbers, `12, 40 and 77` (and how many more).
struct Lines<'a>(&'a [usize]);

impl fmt::Display for Lines<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = &self.0[..self.0.len().min(3)];
        let plural = if self.0.len() == 1 { "line" } else { "lines" };
        write!(f, "{plural} ")?;
        for (idx, line) in shown.iter().enumerate() {
            let sep = match idx {
                0 => "",
                _ if idx + 1 == shown.len() && shown.len() == self.0.len() => " and ",
                _ => ", ",
            };
            write!(f, "{sep}{line}")?;
        }
        if self.0.len() > shown.len() {
            write!(f, " and {} more", self.0.len() - shown.len())?;
        }
        Ok(())
    }
}

/// A file name as messages show it ([`shown_name`](crate::tools::shown_name)):
/// a name holding a newline cannot forge a line of the message.
fn name(name: &str) -> std::borrow::Cow<'_, str> {
    crate::tools::shown_name(name)
}

fn write_hint(f: &mut fmt::Formatter<'_>, at: &HunkAt, hint: &Hint) -> fmt::Result {
    match hint {
        Hint::Hunk(lines) => write!(
            f,
            "\n  hint: the hunk's lines occur at {} of the file (not applied there: \
             fix the hunk header if that is the place)",
            Lines(lines)
        ),
        Hint::Line(lines) => write!(
            f,
            "\n  hint: the expected line occurs at {}, but the whole hunk matches nowhere: \
             re-read `{}` and regenerate the hunk",
            Lines(lines),
            name(&at.file)
        ),
        Hint::Applied { lines, here: true } => write!(
            f,
            "\n  hint: already applied? the file already has the hunk's new lines at {}, where \
             the hunk applies: if the patch was applied before, there is nothing left to do",
            Lines(lines)
        ),
        Hint::Applied { lines, here: false } => write!(
            f,
            "\n  hint: already applied? the file already has the hunk's new lines at {}: if the \
             patch was applied before, there is nothing left to do; if not, re-read `{}` and \
             regenerate the hunk",
            Lines(lines),
            name(&at.file)
        ),
        Hint::Nowhere => write!(
            f,
            "\n  hint: the hunk's lines occur nowhere in the file: re-read `{}` and \
             regenerate the hunk",
            name(&at.file)
        ),
    }
}

const NOTHING_WRITTEN: &str = "\nnothing was written";

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Repr::Mismatch {
                at,
                removed,
                line,
                expected,
                actual,
                hint,
            } => {
                let what = if *removed {
                    "a removed line"
                } else {
                    "a context line"
                };
                write!(
                    f,
                    "refused: hunk {} of `{}` ({}) does not match at line {line} ({what})\
                     \n  the patch expects: {}\n  the file has:      {}",
                    at.hunk,
                    name(&at.file),
                    at.header,
                    Shown(expected),
                    Shown(actual)
                )?;
                write_hint(f, at, hint)?;
                f.write_str(NOTHING_WRITTEN)
            }
            Repr::PastEnd {
                at,
                first,
                last,
                n_lines,
                hint,
            } => {
                write!(
                    f,
                    "refused: hunk {} of `{}` ({}) needs lines {first}-{last}, but the file \
                     has only {n_lines} line{}",
                    at.hunk,
                    name(&at.file),
                    at.header,
                    if *n_lines == 1 { "" } else { "s" }
                )?;
                write_hint(f, at, hint)?;
                f.write_str(NOTHING_WRITTEN)
            }
            Repr::BadCounts {
                patch_line,
                hunk,
                header,
                want,
                got,
            } => {
                let (how, advice) = if got.0 > want.0 || got.1 > want.1 {
                    ("has more lines than", "raise the counts")
                } else {
                    ("ends before", "fix the counts or add the missing lines")
                };
                write!(
                    f,
                    "refused: patch line {patch_line}: hunk {hunk} ({header}) {how} its header counts: \
                     the header says {} old and {} new lines, the body has {} old and {} new \
                     (context lines count on both sides): {advice}",
                    want.0, want.1, got.0, got.1
                )
            }
            Repr::MalformedHeader { patch_line, text } => write!(
                f,
                "refused: patch line {patch_line}: malformed hunk header {text:?}: expected \
                 `@@ -START,COUNT +START,COUNT @@` (a count of 1 may be left out)"
            ),
            Repr::StrayLine { patch_line, text } => write!(
                f,
                "refused: patch line {patch_line}: {text:?} stands outside any hunk: every `+`, `-` and \
                 ` ` line must follow an `@@ -START,COUNT +START,COUNT @@` header whose counts \
                 include it"
            ),
            Repr::NoHunks => f.write_str(
                "refused: the patch holds no hunk: a unified patch has `--- old` and `+++ new` lines, \
                 then hunks that start with `@@ -START,COUNT +START,COUNT @@`",
            ),
            Repr::MissingPlus { patch_line } => write!(
                f,
                "refused: patch line {patch_line}: a `---` file header must be followed by a `+++` line"
            ),
            Repr::HunkOrder {
                at,
                start,
                previous_end,
            } => write!(
                f,
                "refused: hunk {} of `{}` ({}) starts at line {start}, before the previous hunk \
                 ends (line {previous_end}): hunks must be in file order and must not overlap{}",
                at.hunk, name(&at.file), at.header, NOTHING_WRITTEN
            ),
            Repr::TooManyRewinds { budget } => write!(
                f,
                "refused: the patch's sections for one file go back before each other's end \
                 too often (rejoining the file each time would move over {budget} lines): put \
                 the sections for a file in file order, or merge them into one section with \
                 its hunks in order{NOTHING_WRITTEN}"
            ),
            Repr::TimedOut { doing } => write!(
                f,
                "out of time: the call ran past its time limit while {doing}, and stopped; \
                 ask for less (a smaller file, a shorter patch or fewer files){NOTHING_WRITTEN}"
            ),
            Repr::Unsupported { file, what } => write!(
                f,
                "refused: the patch for `{}` {what}; argmend applies changes to text lines \
                 only{NOTHING_WRITTEN}",
                name(file)
            ),
            Repr::Exists {
                file,
                applied: true,
            } => write!(
                f,
                "refused: the patch creates `{}`, which already exists with exactly the \
                 lines the patch adds: already applied? If the patch was applied before, \
                 there is nothing left to do{NOTHING_WRITTEN}",
                name(file)
            ),
            Repr::Exists {
                file,
                applied: false,
            } => write!(
                f,
                "refused: the patch creates `{}`, which already exists: patch it with a \
                 hunk against its content instead{NOTHING_WRITTEN}",
                name(file)
            ),
            Repr::SeveralFiles { target, files } => write!(
                f,
                "the patch changes {} files ({}), but `file` is `{}`, a single file: \
                 pass a directory (e.g. \".\") to apply it to all of them",
                files.len(),
                files.iter().map(|file| name(file)).collect::<Vec<_>>().join(", "),
                name(target)
            ),
            Repr::Binary { file, offset } => write!(
                f,
                "refused: `{}` is a binary file (a NUL byte at offset {offset}); \
                 only text files get a line diff",
                name(file)
            ),
            Repr::TooLarge { file, size, limit } => write!(
                f,
                "refused: `{}` has {size} bytes, over the {} MB limit ({limit} bytes) for \
                 one file: diff a smaller piece of it",
                name(file),
                limit / (1024 * 1024)
            ),
            Repr::Workspace(error) => write!(f, "refused: {error}"),
            Repr::Unparsed(unparsed) => unparsed.refuse(f, "(check it with `argmend repair`)"),
            Repr::InvalidArgument(message) => f.write_str(message),
            Repr::Io {
                action,
                path,
                error,
            } => write!(
                f,
                "cannot {action} `{}`: {error}",
                name(path)
            ),
            Repr::WriteFailed {
                path,
                error,
                restored,
                not_restored,
            } => {
                write!(f, "cannot write `{}`: {error}; ", name(path))?;
                if restored.is_empty() && not_restored.is_empty() {
                    return f.write_str("nothing of the patch was written");
                }
                if !restored.is_empty() {
                    let names: Vec<String> = restored.iter().map(|n| format!("`{}`", name(n))).collect();
                    write!(
                        f,
                        "rolled back: {} got {} content and mode back, and the backups this \
                         run wrote were removed",
                        names.join(", "),
                        if restored.len() == 1 { "its" } else { "their" }
                    )?;
                }
                if !not_restored.is_empty() {
                    write!(
                        f,
                        "{}could NOT be restored, their backups are beside them: {}",
                        if restored.is_empty() { "" } else { "; " },
                        not_restored.join(", ")
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.0 {
            Repr::Workspace(error) => Some(error),
            Repr::Io { error, .. } | Repr::WriteFailed { error, .. } => Some(error),
            _ => None,
        }
    }
}
