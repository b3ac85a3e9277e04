//! Bytes after a quote, read with a position: whitespace, comments, tokens
//! (through the machine's own lexer), quotes.

use super::subject::MAX_COMMENT;
use crate::lex::{self, Closer, Quote, Token};

/// Ran out of bytes before the input ended.
#[derive(Debug)]
pub(super) struct Short;

pub(super) type Scan<T> = Result<T, Short>;

/// What a stretch of whitespace held besides spaces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Gap {
    /// A comment was skipped.
    pub(super) comment: bool,
    /// A line break was crossed.
    pub(super) newline: bool,
}

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

    /// The token at the position, as the machine's lexer reads it, and its
    /// length: `None` at the end of input. A token the end of the bytes may
    /// still lengthen (a word, `-` of `-Infinity`) is `Short` until the
    /// input ends, as the machine waits for it.
    pub(super) fn token(&self) -> Scan<Option<(Token, usize)>> {
        let rest = &self.bytes[self.pos.min(self.bytes.len())..];
        let Some((token, len)) = lex::next(rest) else {
            return if self.eof { Ok(None) } else { Err(Short) };
        };
        if !self.eof
            && ((len == rest.len() && lex::may_grow(token))
                || (rest.len() < lex::LONGEST_PREFIXED && lex::is_prefix_of_longer(token, rest)))
        {
            return Err(Short);
        }
        Ok(Some((token, len)))
    }

    /// The kind of the token at the position where only its kind matters
    /// (does a value start here?): a word, a number or a literal that the
    /// end of the bytes may still lengthen is a value either way, so it
    /// does not wait as [`Cursor::token`] does.
    pub(super) fn token_start(&self) -> Scan<Option<(Token, usize)>> {
        match self.token() {
            Err(Short) => {
                let rest = &self.bytes[self.pos.min(self.bytes.len())..];
                let digit = |k: usize| rest.get(k).is_some_and(u8::is_ascii_digit);
                match lex::next(rest) {
                    Some(found @ (Token::Word | Token::Literal(_), _)) => Ok(Some(found)),
                    // A number that starts with a digit stays a number (a
                    // lone `.` may still become `...`).
                    Some(found @ (Token::Number, _))
                        if digit(0) || (matches!(rest[0], b'-' | b'+') && digit(1)) =>
                    {
                        Ok(Some(found))
                    }
                    _ => Err(Short),
                }
            }
            found => found,
        }
    }

    /// Skip whitespace (newlines and special spaces included) and comments,
    /// and say what was skipped.
    ///
    /// What counts as a comment here is narrower than outside strings,
    /// because the bytes after a quote are often code: a `//` or `#` comment
    /// needs whitespace or a separator before it and a real newline after it (`"//" check`,
    /// `"#f9a825"` and Rust's `r#"…"#` are text, and so is a "comment" that
    /// runs to the end of a body written with `\n` escapes); a `#` also needs
    /// a space after it (`#define`). After an inner quote a comment must end
    /// before the input does; after a clean string one may run to the end
    /// (a stream cut inside it).
    pub(super) fn skip_ws(&mut self) -> Scan<Gap> {
        let mut gap = Gap::default();
        loop {
            let (skipped, comment) = match self.peek()? {
                Some(b) if lex::is_ws(b) => {
                    gap.newline |= b == b'\n';
                    self.pos += 1;
                    (true, false)
                }
                Some(0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF) => match self.token()? {
                    Some((Token::SpecialWhitespace, len)) => {
                        self.pos += len;
                        (true, false)
                    }
                    _ => (false, false),
                },
                Some(b'/') => match self.peek_at(1)? {
                    Some(b'/') if self.ws_before() => (self.skip_to(2, b"\n", 0)?, true),
                    Some(b'*') if self.ws_before() => (self.skip_to(2, b"*/", 2)?, true),
                    // Glued to the quote (`"b"/* note */}`), only a comment
                    // closed on its line: TOML's `for = "/*"` then a line
                    // (raw or `\n`) later is text.
                    Some(b'*') => {
                        let from = self.pos;
                        let skipped = self.skip_to(2, b"*/", 2)?;
                        let body = &self.bytes[from..self.pos];
                        if skipped
                            && (!body.ends_with(b"*/")
                                || body.contains(&b'\n')
                                || memchr::memmem::find(body, b"\\n").is_some())
                        {
                            self.pos = from;
                            (false, false)
                        } else {
                            (skipped, true)
                        }
                    }
                    _ => (false, false),
                },
                Some(b'#')
                    if self.ws_before()
                        && matches!(self.peek_at(1)?, Some(b' ' | b'\t' | b'\r' | b'\n')) =>
                {
                    (self.skip_to(1, b"\n", 0)?, true)
                }
                Some(b'<')
                    if self.peek_at(1)? == Some(b'!')
                        && self.peek_at(2)? == Some(b'-')
                        && self.peek_at(3)? == Some(b'-') =>
                {
                    (self.skip_to(4, b"-->", 3)?, true)
                }
                _ => (false, false),
            };
            if !skipped {
                return Ok(gap);
            }
            gap.comment |= comment;
        }
    }

    /// Whitespace and line breaks written as their escapes outside a string
    /// (`"a":\n"b"`, JSON escaped once too often), as the machine reads them
    /// where a value starts (`Machine::escaped_whitespace`): `\n`, `\r`
    /// or `\t` not followed by a word, then any plain whitespace.
    pub(super) fn skip_escaped_ws(&mut self) -> Scan<bool> {
        let from = self.pos;
        while self.peek()? == Some(b'\\') && matches!(self.peek_at(1)?, Some(b'n' | b'r' | b't')) {
            if self
                .peek_at(2)?
                .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
            {
                break;
            }
            self.pos += 2;
            self.skip_ws()?;
        }
        Ok(self.pos > from)
    }

    /// Whether a token could start at the position: after whitespace or a
    /// separator, not right after the quote or inside a word.
    pub(super) fn ws_before(&self) -> bool {
        self.pos > 0
            && self
                .bytes
                .get(self.pos - 1)
                .is_some_and(|&b| lex::is_ws(b) || matches!(b, b',' | b':' | b'[' | b'{' | b';'))
    }

    /// Move past the comment opener (`open` bytes) to the first `needle`,
    /// and `extra` more; `false` (and no move) when the input ends first:
    /// then it was not a comment.
    pub(super) fn skip_to(&mut self, open: usize, needle: &[u8], extra: usize) -> Scan<bool> {
        let from = (self.pos + open).min(self.bytes.len());
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

    /// Whether any quote character starts at the position.
    pub(super) fn any_quote(&self) -> Scan<bool> {
        Ok(self.quote_here()?.is_some())
    }

    /// The quote character at the position and its length. A multi-byte
    /// quote (`’`, `“`, `＂`) may be cut by the end of what has arrived:
    /// then it is `Short` until the input ends.
    pub(super) fn quote_here(&self) -> Scan<Option<(Quote, usize)>> {
        let rest = &self.bytes[self.pos.min(self.bytes.len())..];
        let cut = match rest.first() {
            Some(0xC2 | 0xE2 | 0xEF) => rest.len() < 3,
            // A template marker (`<|"|>`) cut short.
            Some(b'<') => lex::cut_in_template_quote(rest),
            _ => false,
        };
        if cut {
            if !self.eof {
                return Err(Short);
            }
            if rest[0] != b'<' {
                return Ok(None);
            }
        }
        Ok(lex::quote_at(rest))
    }

    /// The quote at the position that may close a string opened by `open`:
    /// its length, and whether it is of the string's own kind or its twin.
    pub(super) fn closing_quote(&self, open: Quote) -> Scan<Option<(usize, Closer)>> {
        Ok(self
            .quote_here()?
            .and_then(|(quote, len)| match lex::closes(open, quote) {
                Closer::No => None,
                closer => Some((len, closer)),
            }))
    }
}

/// Whether `b` may start a quote character (`"`, `'`, `` ` ``, the lead
/// byte of a typographic one, or the `<` of a template marker `<|"|>`):
/// the stops of a search for quotes.
#[inline]
pub(super) fn may_start_quote(b: u8) -> bool {
    matches!(b, b'"' | b'\'' | b'`' | b'<' | 0xC2 | 0xE2 | 0xEF)
}
