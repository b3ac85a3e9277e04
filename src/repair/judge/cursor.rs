//! Bytes after a quote, read with a position: whitespace, comments, quotes.

use super::MAX_COMMENT;
use crate::lex::{self, Quote};

/// Ran out of bytes before the input ended.
#[derive(Debug)]
pub(super) struct Short;

pub(super) type Scan<T> = Result<T, Short>;

/// Bytes after a quote, read with a position.
pub(super) struct Cursor<'b> {
    pub(super) bytes: &'b [u8],
    pub(super) pos: usize,
    /// Whether the input (or the lookahead window) ends where `bytes` does.
    pub(super) eof: bool,
    /// Whether a comment may run to the end of the input (for a clean
    /// string, as outside strings; after inner quotes, the bytes may be code).
    pub(super) open_comments: bool,
}

impl Cursor<'_> {
    pub(super) fn at(&self, pos: usize) -> Self {
        Cursor {
            bytes: self.bytes,
            pos,
            eof: self.eof,
            open_comments: self.open_comments,
        }
    }

    /// The byte at the position: `None` at the end of input.
    pub(super) fn peek(&self) -> Scan<Option<u8>> {
        match self.bytes.get(self.pos) {
            Some(&b) => Ok(Some(b)),
            None if self.eof => Ok(None),
            None => Err(Short),
        }
    }

    pub(super) fn peek_at(&self, k: usize) -> Scan<Option<u8>> {
        self.at(self.pos + k).peek()
    }

    /// Skip whitespace (newlines included) and comments.
    ///
    /// What counts as a comment here is narrower than outside strings,
    /// because the bytes after a quote are often code: a `//` or `#` comment
    /// needs whitespace or a separator before it and a real newline after it (`"//" check`,
    /// `"#f9a825"` and Rust's `r#"…"#` are text, and so is a "comment" that
    /// runs to the end of a body written with `\n` escapes); a `#` also needs
    /// a space after it (`#define`); a `/* */` comment must be closed.
    pub(super) fn skip_ws(&mut self) -> Scan<()> {
        loop {
            let skipped = match self.peek()? {
                Some(b) if lex::is_ws(b) => {
                    self.pos += 1;
                    true
                }
                Some(b'/') => match self.peek_at(1)? {
                    Some(b'/') if self.ws_before() => self.skip_to(b"\n", 0)?,
                    Some(b'*') => self.skip_to(b"*/", 2)?,
                    _ => false,
                },
                Some(b'#')
                    if self.ws_before()
                        && matches!(self.peek_at(1)?, Some(b' ' | b'\t' | b'\r' | b'\n')) =>
                {
                    self.skip_to(b"\n", 0)?
                }
                _ => false,
            };
            if !skipped {
                return Ok(());
            }
        }
    }

    /// Whether a token could start at the position: after whitespace or a
    /// separator, not right after the quote or inside a word.
    pub(super) fn ws_before(&self) -> bool {
        self.pos > 0
            && self
                .bytes
                .get(self.pos - 1)
                .is_some_and(|&b| lex::is_ws(b) || matches!(b, b',' | b':' | b'[' | b'{'))
    }

    /// Move to the first `needle` after the comment opener, and `extra`
    /// more; `false` (and no move) when the input ends first: then it was
    /// not a comment.
    pub(super) fn skip_to(&mut self, needle: &[u8], extra: usize) -> Scan<bool> {
        let from = (self.pos + 2).min(self.bytes.len());
        let to = (from + MAX_COMMENT).min(self.bytes.len());
        let capped = to < self.bytes.len();
        // (memchr for the one-byte needle: building a memmem finder per
        // comment costs more than the search.)
        let found = match needle {
            [b] => memchr::memchr(*b, &self.bytes[from..to]),
            _ => self.bytes[from..to]
                .windows(needle.len())
                .position(|w| w == needle),
        };
        match found {
            // After an inner quote, a "comment" holding a quote is code.
            Some(k) if !self.open_comments && self.bytes[from..from + k].contains(&b'"') => {
                Ok(false)
            }
            Some(k) => {
                self.pos = from + k + extra;
                Ok(true)
            }
            // Longer than a comment is: text.
            None if capped => Ok(false),
            None if self.eof && self.open_comments => {
                self.pos = self.bytes.len();
                Ok(true)
            }
            None if self.eof => Ok(false),
            None => Err(Short),
        }
    }

    /// Skip spaces and tabs only.
    pub(super) fn skip_spaces(&mut self) -> Scan<()> {
        while let Some(b' ' | b'\t' | b'\r') = self.peek()? {
            self.pos += 1;
        }
        Ok(())
    }

    /// Whether a closing fence starts at the position: three backticks
    /// followed by whitespace or the end.
    pub(super) fn closing_fence(&self) -> Scan<bool> {
        for k in 0..3 {
            if self.peek_at(k)? != Some(b'`') {
                return Ok(false);
            }
        }
        Ok(self.peek_at(3)?.is_none_or(lex::is_ws))
    }

    /// Whether a JSON literal (`true`, `false`, `null`) starts at the
    /// position and ends there.
    pub(super) fn literal(&self) -> Scan<bool> {
        let mut k = 0;
        while let Some(b) = self.peek_at(k)? {
            if !b.is_ascii_alphanumeric() {
                break;
            }
            k += 1;
        }
        let word = &self.bytes[self.pos..self.pos + k];
        Ok(matches!(word, b"true" | b"false" | b"null"))
    }

    /// Whether any quote character starts at the position.
    pub(super) fn any_quote(&self) -> Scan<bool> {
        Ok(self.quote_here()?.is_some())
    }

    /// The quote character at the position and its length. A multi-byte
    /// quote (`’`, `“`, `＂`) may be cut by the end of what has arrived:
    /// then it is `Short` until the input ends.
    fn quote_here(&self) -> Scan<Option<(Quote, usize)>> {
        let rest = &self.bytes[self.pos.min(self.bytes.len())..];
        if rest
            .first()
            .is_some_and(|&b| matches!(b, 0xC2 | 0xE2 | 0xEF))
            && rest.len() < 3
        {
            if !self.eof {
                return Err(Short);
            }
            return Ok(None);
        }
        Ok(lex::quote_at(rest))
    }

    /// The quote that may close a string opened by `open`, at the position.
    pub(super) fn closing_quote(&self, open: Quote) -> Scan<Option<usize>> {
        Ok(self
            .quote_here()?
            .filter(|(quote, _)| lex::closes(open, *quote))
            .map(|(_, len)| len))
    }
}
