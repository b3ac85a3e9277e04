//! The one error type of `@json`. Every message says what failed, where,
//! and how to ask better; all text is in the one `Display` below.

use std::fmt;
use std::io;

use super::Format;
use crate::tools::{Blame, Unparsed, WorkspaceError};

/// Why a `@json` question got no answer.
///
/// Its `Display` is the message a model reads.
#[derive(Debug)]
pub struct Error(pub(crate) Box<Repr>);

/// What kind of error it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An object has no such key, e.g. `data.nmae` on `{"data":{"name":1}}`.
    NoSuchKey,
    /// An index past either end of an array, e.g. `items[5]` on `{"items":[1,2]}`.
    OutOfRange,
    /// A segment needs an object or array and found something else, e.g.
    /// `name.first` on `{"name":"Ada"}`.
    WrongType,
    /// A path does not parse, e.g. `items[x]`.
    InvalidPath,
    /// A `where` clause does not parse, e.g. `status failed`.
    InvalidWhere,
    /// A `~` pattern is not a valid regex, e.g. `name~(`, or compiles past
    /// its share of the request's regex budget, e.g. 600 clauses `x~a{150000}`.
    InvalidRegex,
    /// The document is not valid JSON, e.g. `{"a":}`.
    InvalidJson,
    /// The document is not valid YAML, e.g. `a: [1`.
    InvalidYaml,
    /// A file is larger than 20 MB.
    TooLarge,
    /// A path is outside the workspace (absolute elsewhere, `..`, a link out).
    OutsideWorkspace,
    /// An argument is missing, unknown or of the wrong type, e.g. no `path`
    /// for `get`, or an unknown verb.
    InvalidArgument,
    /// Reading a file failed, e.g. it does not exist.
    Io,
    /// The call ran past its time limit (set by a server: `call`, `serve`,
    /// `mcp`) and stopped, e.g. `get items[*].*` over a 20 MB file.
    TimedOut,
}

#[derive(Debug)]
pub(crate) enum Repr {
    NoSuchKey {
        at: String,
        key: String,
        keys: Vec<String>,
        n_keys: usize,
    },
    OutOfRange {
        at: String,
        index: i64,
        len: usize,
    },
    WrongType {
        at: String,
        segment: String,
        found: String,
        needs: &'static str,
    },
    InvalidPath {
        path: String,
        offset: usize,
        problem: &'static str,
        example: &'static str,
    },
    InvalidWhere {
        clause: String,
        problem: &'static str,
        example: &'static str,
    },
    InvalidRegex {
        pattern: String,
        error: String,
        example: &'static str,
    },
    /// A pattern compiles past its share of the request's budget: `budget`
    /// bytes shared by `n_patterns`, `share` each.
    RegexTooBig {
        pattern: String,
        n_patterns: usize,
        budget: usize,
        share: usize,
    },
    Unparsed(Unparsed),
    TooLarge {
        file: String,
        size: u64,
    },
    Workspace(WorkspaceError),
    InvalidArgument(String),
    Io {
        path: String,
        error: io::Error,
    },
    /// The deadline of the call passed while `doing` this.
    TimedOut {
        doing: &'static str,
    },
}

/// The largest file `@json` reads.
pub(crate) const MAX_FILE: u64 = 20 * 1024 * 1024;

/// At most this many keys are listed when one is missing.
const LISTED_KEYS: usize = 30;

impl Error {
    /// The document that does not parse, for `@diff` to refuse it as it is.
    pub(crate) fn unparsed(&self) -> Option<&Unparsed> {
        match &*self.0 {
            Repr::Unparsed(unparsed) => Some(unparsed),
            _ => None,
        }
    }

    #[cold]
    pub(crate) fn new(repr: Repr) -> Self {
        Error(Box::new(repr))
    }

    /// The error for a call whose deadline passed while `doing` this.
    #[cold]
    pub(crate) fn timed_out(doing: &'static str) -> Self {
        Error::new(Repr::TimedOut { doing })
    }

    #[cold]
    pub(crate) fn argument(message: impl Into<String>) -> Self {
        Error::new(Repr::InvalidArgument(message.into()))
    }

    /// What kind of error it is.
    pub fn kind(&self) -> ErrorKind {
        match &*self.0 {
            Repr::NoSuchKey { .. } => ErrorKind::NoSuchKey,
            Repr::OutOfRange { .. } => ErrorKind::OutOfRange,
            Repr::WrongType { .. } => ErrorKind::WrongType,
            Repr::InvalidPath { .. } => ErrorKind::InvalidPath,
            Repr::InvalidWhere { .. } => ErrorKind::InvalidWhere,
            Repr::InvalidRegex { .. } | Repr::RegexTooBig { .. } => ErrorKind::InvalidRegex,
            Repr::Unparsed(unparsed) => match unparsed.format {
                Format::Json => ErrorKind::InvalidJson,
                Format::Yaml => ErrorKind::InvalidYaml,
            },
            Repr::TooLarge { .. } => ErrorKind::TooLarge,
            Repr::Workspace(error) => match error.blame() {
                Blame::Argument => ErrorKind::InvalidArgument,
                Blame::Io => ErrorKind::Io,
                Blame::Outside => ErrorKind::OutsideWorkspace,
            },
            Repr::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Repr::Io { .. } => ErrorKind::Io,
            Repr::TimedOut { .. } => ErrorKind::TimedOut,
        }
    }

    /// Whether the answer is a refusal about the data or the path asked for
    /// (exit 1 in the CLI). Malformed arguments (an unknown verb, a path,
    /// `where` or regex that does not parse) and I/O errors are usage errors
    /// (exit 2).
    pub fn is_refusal(&self) -> bool {
        !matches!(
            self.kind(),
            ErrorKind::InvalidArgument
                | ErrorKind::InvalidPath
                | ErrorKind::InvalidWhere
                | ErrorKind::InvalidRegex
                | ErrorKind::Io
        )
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

/// `a, b and c`, or the first [`LISTED_KEYS`] and how many more.
struct KeyList<'a>(&'a [String], usize);

impl fmt::Display for KeyList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let KeyList(keys, n_keys) = *self;
        for (idx, key) in keys.iter().take(LISTED_KEYS).enumerate() {
            let sep = if idx == 0 { "" } else { ", " };
            write!(f, "{sep}{}", super::path::Segment::Key(key.clone()))?;
        }
        if n_keys > keys.len().min(LISTED_KEYS) {
            write!(f, " and {} more", n_keys - keys.len().min(LISTED_KEYS))?;
        }
        Ok(())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Repr::NoSuchKey {
                at,
                key,
                keys,
                n_keys,
            } => {
                let segment = super::path::Segment::Key(key.clone());
                if keys.is_empty() {
                    write!(f, "no key `{segment}` at `{at}`: the object is empty")
                } else {
                    write!(
                        f,
                        "no key `{segment}` at `{at}`: the keys there are {}",
                        KeyList(keys, *n_keys)
                    )?;
                    if let Some(near) = crate::tools::near::nearest(key, keys) {
                        write!(
                            f,
                            " (did you mean `{}`?)",
                            super::path::Segment::Key(near.clone())
                        )?;
                    }
                    Ok(())
                }
            }
            Repr::OutOfRange { at, index, len } if *len == 0 => {
                write!(
                    f,
                    "index [{index}] is out of range at `{at}`: the array is empty"
                )
            }
            Repr::OutOfRange { at, index, len } => write!(
                f,
                "index [{index}] is out of range at `{at}`: the array has {len} element{} \
                 (indexes 0 to {}, or -{len} to -1 from the end)",
                if *len == 1 { "" } else { "s" },
                len - 1
            ),
            Repr::WrongType {
                at,
                segment,
                found,
                needs,
            } => write!(
                f,
                "`{segment}` needs {needs}, but `{at}` is {found}; ask for `{at}` itself, \
                 or use `keys` to see what is there"
            ),
            Repr::InvalidPath {
                path,
                offset,
                problem,
                example,
            } => write!(
                f,
                "the path {path:?} does not parse at offset {offset}: expected {problem}; \
                 paths look like `data.items[0].name`, `items[-1]`, `items[*].id`, \
                 `[\"key.with.dots\"]`; e.g.\n  {example}"
            ),
            Repr::InvalidWhere {
                clause,
                problem,
                example,
            } => write!(
                f,
                "the `where` clause {clause:?} does not parse: {problem}; write `field=value`, \
                 `field!=value` or `field~regex`, joined by `&&`; e.g.\n  {example}"
            ),
            Repr::InvalidRegex {
                pattern,
                error,
                example,
            } => write!(
                f,
                "the pattern {pattern:?} after `~` is not a valid regex: {error}; e.g.\n  {example}"
            ),
            Repr::RegexTooBig {
                pattern,
                n_patterns: 1,
                share,
                ..
            } => write!(
                f,
                "the pattern {pattern:?} after `~` is too big: it compiles to more than \
                 {share} bytes, the most one pattern may; write a smaller pattern (a counted \
                 repetition such as `a{{1000}}` compiles to a copy per count)"
            ),
            Repr::RegexTooBig {
                pattern,
                n_patterns,
                budget,
                share,
            } => write!(
                f,
                "the pattern {pattern:?} after `~` is too big for its share: the {n_patterns} \
                 `~` patterns of one `where` share {} MiB ({budget} bytes) of compiled regex, \
                 at most {share} bytes each; use fewer `~` clauses, or smaller patterns (a \
                 counted repetition such as `a{{1000}}` compiles to a copy per count)",
                budget / (1024 * 1024)
            ),
            Repr::Unparsed(unparsed) => unparsed.refuse(
                f,
                "(repair it with `argmend repair`, or see every problem with the `validate` verb)",
            ),
            Repr::TooLarge { file, size } => write!(
                f,
                "refused: `{}` has {size} bytes, over the 20 MB limit ({MAX_FILE} bytes) \
                 for one file",
                crate::tools::shown_name(file)
            ),
            Repr::Workspace(error) => write!(f, "refused: {error}"),
            Repr::InvalidArgument(message) => f.write_str(message),
            Repr::TimedOut { doing } => write!(
                f,
                "out of time: the call ran past its time limit while {doing}, and stopped; \
                 ask for less (a deeper `path`, no `*` over big arrays, a narrower `where`, a \
                 smaller `depth`, or a smaller file)"
            ),
            Repr::Io { path, error } => write!(
                f,
                "cannot read `{}`: {error}",
                crate::tools::shown_name(path)
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.0 {
            Repr::Workspace(error) => Some(error),
            Repr::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}
