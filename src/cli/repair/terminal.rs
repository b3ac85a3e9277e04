//! `repair`'s stdout: exactly the JSON on a pipe, and a last line ended on
//! a terminal.
//!
//! The repaired text has no line break of its own at the end (valid JSON
//! comes back byte for byte), so a shell prompt would start right after it.
//! A terminal gets one; a pipe or a file gets the text alone, so
//! `argmend repair a.json > b.json` writes exactly the repaired document.

use std::io::{self, IsTerminal, Write};

/// A writer that remembers whether the last byte it wrote ended a line.
pub(super) struct Output<W: Write> {
    inner: W,
    terminal: bool,
    open_line: bool,
}

impl<W: Write + IsTerminal> Output<W> {
    pub(super) fn new(inner: W) -> Self {
        let terminal = inner.is_terminal();
        Output {
            inner,
            terminal,
            open_line: false,
        }
    }
}

impl<W: Write> Output<W> {
    /// Ends the last line with `\n` if the text left it open and this is
    /// a terminal.
    pub(super) fn end_line(&mut self) -> io::Result<()> {
        if self.terminal && self.open_line {
            self.write_all(b"\n")?;
            self.flush()?;
        }
        Ok(())
    }
}

impl<W: Write> Write for Output<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        if let Some(last) = buf[..n].last() {
            self.open_line = *last != b'\n';
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
