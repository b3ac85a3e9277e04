//! How a command's run ends early, and the exit codes they share.

use std::io::{self, Write};

use anyhow::anyhow;

/// Exit 1: the input held no JSON, or a limit was crossed.
pub(crate) const EXIT_NOT_JSON: u8 = 1;
/// Exit 2: usage or I/O error (clap uses 2 for its usage errors too).
pub(crate) const EXIT_ERROR: u8 = 2;

/// Why a run stopped early.
pub(crate) enum Failure {
    /// stdout was closed by its reader: not an error (like ripgrep, `head`).
    BrokenPipe,
    /// An I/O error: exit 2 with the message.
    Fatal(anyhow::Error),
}

impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        Failure::Fatal(error)
    }
}

/// Maps an error writing our output: a closed pipe ends the run quietly.
pub(crate) fn output_error(error: io::Error, what: &str) -> Failure {
    if error.kind() == io::ErrorKind::BrokenPipe {
        Failure::BrokenPipe
    } else {
        Failure::Fatal(anyhow!(error).context(format!("cannot write to {what}")))
    }
}

/// One line on stderr, prefixed with the program name.
pub(crate) fn report(message: &str) {
    // Nothing sensible is left to do if stderr itself is gone.
    let _ = writeln!(io::stderr().lock(), "argmend: {message}");
}
