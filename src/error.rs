//! The one error type of the repair engine: a hard limit was crossed.
//!
//! Broken syntax is never an error here (it is what the engine exists to mend);
//! only the limits a caller sets in [`Options`](crate::Options) are.

use std::fmt;

/// A hard limit was crossed while input arrived.
///
/// Whatever was committed before the error stays valid to read; the
/// [`Repairer`](crate::Repairer) refuses further input afterwards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
    limit: usize,
}

/// What kind of limit was crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Containers nested deeper than [`Options::max_depth`](crate::Options::max_depth).
    ///
    /// Triggered by, for example, 513 `[` in a row with the default limit of 512.
    TooDeep,
    /// More input than [`Options::max_input_bytes`](crate::Options::max_input_bytes).
    ///
    /// Triggered by feeding 11 bytes with a limit of 10.
    TooLarge,
    /// The engine stopped making progress: a bug in argmend, reported (with
    /// the offset) instead of handing back part of the input as the whole.
    /// No input is known to cause it; the fuzzers check for it.
    Stuck,
}

impl Error {
    #[cold]
    pub(crate) fn too_deep(offset: usize, limit: usize) -> Self {
        Error {
            kind: ErrorKind::TooDeep,
            offset,
            limit,
        }
    }

    #[cold]
    pub(crate) fn too_large(offset: usize, limit: usize) -> Self {
        Error {
            kind: ErrorKind::TooLarge,
            offset,
            limit,
        }
    }

    #[cold]
    pub(crate) fn stuck(offset: usize) -> Self {
        Error {
            kind: ErrorKind::Stuck,
            offset,
            limit: 0,
        }
    }

    /// What kind of limit was crossed.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The absolute byte offset in the input where the limit was crossed.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The limit that was in force.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            ErrorKind::TooDeep => write!(
                f,
                "nesting deeper than {} levels at byte {}",
                self.limit, self.offset
            ),
            ErrorKind::TooLarge => write!(
                f,
                "input larger than {} bytes at byte {}",
                self.limit, self.offset
            ),
            ErrorKind::Stuck => write!(
                f,
                "the repair engine stopped making progress at byte {} (a bug in argmend: \
                 please report the input)",
                self.offset
            ),
        }
    }
}

impl std::error::Error for Error {}
