//! The step loop: one token at a time, the fast lane first.
//!
//! Each step lets the fast lane copy what strictly valid JSON it can, then
//! takes one token (a string body, whitespace, a comment, or a token from the
//! tokenizer) and hands it to the state it arrives in (`states.rs`). A step
//! that cannot decide yet returns [`Halt::Need`] and changes nothing.

use super::fix::FixKind;
use super::frame::{State, WINDOW};
use super::grammar::{self, Faults};
use super::machine::{Comment, Halt, LongToken, Machine, Step};
use crate::error::Error;
use crate::lex::{self, Token};

/// Tokens at least this long that may still grow are continued by hand
/// (see [`LongToken`](super::machine::LongToken)) rather than lexed again from their start.
const LONG_TOKEN: usize = 64;

impl Machine<'_> {
    pub(super) fn run(&mut self) -> Result<(), Error> {
        let mut stuck = 0u32;
        loop {
            let before = (self.i, self.state, self.out_len(), self.stack.len());
            match self.step() {
                Ok(()) => {}
                Err(Halt::Need) => break,
                Err(Halt::Limit(error)) => return Err(error),
            }
            if before == (self.i, self.state, self.out_len(), self.stack.len()) {
                stuck += 1;
                debug_assert!(stuck < 64, "repair machine seems stuck in {:?}", self.state);
                if stuck >= 64 {
                    // A bug, in every build an error: never a silent stop
                    // that would pass part of the input off as the whole.
                    return Err(Error::stuck(self.i));
                }
            } else {
                stuck = 0;
            }
        }
        self.advance_commit();
        Ok(())
    }

    pub(super) fn end(&mut self) -> Result<(), Error> {
        self.eof = true;
        loop {
            self.run()?;
            if !self.finish_step() {
                break;
            }
        }
        if self.in_prose {
            // A value found in prose ends at its last byte.
            self.write_out();
            self.truncate_out(self.mark.max(self.committed));
        }
        self.advance_commit();
        self.committed = self.out_len();
        Ok(())
    }

    pub(super) fn step(&mut self) -> Step {
        if let Some(t) = self.tentative
            && self.i > t.input + WINDOW
        {
            // Too far from its prose for a fence to take its place.
            self.tentative = None;
        }
        if self.comment.is_none() && self.run_plan.is_none() && !self.element_kind_open() {
            self.fast_forward();
        }
        if self.i - self.base >= self.src.len() {
            return Err(Halt::Need);
        }
        self.write_out();
        if let Some(kind) = self.comment {
            return self.step_comment(kind);
        }
        if self.state == State::Str {
            return self.step_string();
        }
        let rest = self.rest();
        let Some(&b) = rest.first() else {
            return Err(Halt::Need);
        };
        if lex::is_ws(b) {
            let n = rest
                .iter()
                .position(|&b| !lex::is_ws(b))
                .unwrap_or(rest.len());
            return self.step_ws(n);
        }
        // The structural bytes of valid JSON skip the lexer: none of them
        // starts a longer token, so the answer is the one logos would give.
        let (token, len) = match b {
            b'{' => (Token::BraceOpen, 1),
            b'}' => (Token::BraceClose, 1),
            b'[' => (Token::BracketOpen, 1),
            b']' => (Token::BracketClose, 1),
            b',' => (Token::Comma, 1),
            b':' => (Token::Colon, 1),
            b'"' => (Token::Quote(lex::Quote::Double), 1),
            _ if self.long_token.is_some_and(|t| t.at == self.i) => {
                match self.continue_long_token() {
                    Some(found) => found,
                    None => return Err(Halt::Need),
                }
            }
            _ => {
                let Some((token, len)) = lex::next(rest) else {
                    return Err(Halt::Need);
                };
                if len == rest.len() && !self.eof && lex::may_grow(token) {
                    if len >= LONG_TOKEN && lex::continues_plainly(token, rest) {
                        // A long word or number cut by the end of a chunk: go on
                        // from here next time instead of lexing it again.
                        let dot = rest[..len].contains(&b'.');
                        self.long_token = Some(LongToken {
                            at: self.i,
                            token,
                            len,
                            dot,
                        });
                    }
                    return Err(Halt::Need);
                }
                if rest.len() < lex::LONGEST_PREFIXED
                    && !self.eof
                    && lex::is_prefix_of_longer(token, rest)
                {
                    return Err(Halt::Need);
                }
                (token, len)
            }
        };
        self.step_token(token, len)
    }

    /// Go on with a long word or number cut by chunk ends (see
    /// [`LongToken`]): `None` while it may still grow, else the token and its
    /// length, exactly what logos would say of the whole.
    fn continue_long_token(&mut self) -> Option<(Token, usize)> {
        let t = self.long_token?;
        let rest = &self.src[self.i - self.base..];
        let mut dots = usize::from(t.dot);
        let end = rest[t.len..]
            .iter()
            .position(|&b| match t.token {
                Token::Number if b == b'.' => {
                    dots += 1;
                    dots > 1
                }
                Token::Number => !(b.is_ascii_digit() || b == b'_'),
                _ => !(b.is_ascii_alphanumeric() || b == b'_' || b == b'$'),
            })
            .map_or(rest.len(), |k| t.len + k);
        if end == rest.len() && !self.eof {
            self.long_token = Some(LongToken {
                len: end,
                dot: dots > 0,
                ..t
            });
            return None;
        }
        self.long_token = None;
        if t.token == Token::Number && matches!(rest.get(end), Some(b'e' | b'E')) {
            // An exponent follows: logos reads the number whole, once it has
            // all arrived (the lexer's usual wait for a token that may grow).
            let found = lex::next(rest)?;
            if found.1 == rest.len() && !self.eof {
                return None;
            }
            return Some(found);
        }
        Some((t.token, end))
    }

    pub(super) fn step_ws(&mut self, n: usize) -> Step {
        match self.state {
            State::Prose | State::Concat | State::Ignore => {}
            // A value found in prose or in a fence starts at its first
            // byte: the whitespace between the prose (or the fence's line)
            // and the value is not written.
            State::Start if self.in_prose => {}
            _ => {
                let at = self.i - self.base;
                self.out.push_ascii(&self.src[at..at + n]);
                if matches!(self.src[at + n - 1], b' ' | b'\t') {
                    self.spaces_to = Some(self.i + n);
                }
            }
        }
        self.i += n;
        Ok(())
    }

    pub(super) fn step_comment(&mut self, kind: Comment) -> Step {
        let rest = self.rest();
        let found = match kind {
            Comment::Line => memchr::memchr(b'\n', rest).map(|k| (k, 0)),
            Comment::Block => memchr::memmem::find(rest, b"*/").map(|k| (k, 2)),
            Comment::Html => memchr::memmem::find(rest, b"-->").map(|k| (k, 3)),
            Comment::FenceTag => rest
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+')))
                .map(|k| (k, 0)),
        };
        match found {
            Some((k, skip)) => {
                // A comment that ends its line takes the spaces before it
                // along (`1,  // note` then a line break: no spaces left
                // at the end of the line). A block comment's line break may
                // not have arrived yet.
                let ends_line = match kind {
                    _ if !self.comment_after_spaces => false,
                    Comment::FenceTag => false,
                    Comment::Line => true,
                    Comment::Block | Comment::Html => match rest.get(k + skip) {
                        Some(b) => matches!(b, b'\n' | b'\r'),
                        None if self.eof => false,
                        None => return Err(Halt::Need),
                    },
                };
                if ends_line {
                    self.trim_line_spaces();
                }
                self.i += k + skip;
                self.comment = None;
                Ok(())
            }
            None if rest.is_empty() => Err(Halt::Need),
            None => {
                // Keep a lone `*` that may be the start of `*/`, and up to
                // two `-` that may start `-->`.
                let keep = match kind {
                    Comment::Block => usize::from(rest.last() == Some(&b'*')),
                    Comment::Html => rest
                        .iter()
                        .rev()
                        .take(2)
                        .take_while(|&&b| b == b'-')
                        .count(),
                    _ => 0,
                };
                if keep == rest.len() {
                    return Err(Halt::Need);
                }
                self.i += rest.len() - keep;
                Ok(())
            }
        }
    }

    pub(super) fn start_comment(&mut self, kind: Comment, len: usize) -> Step {
        if self.started {
            self.style |= Faults::COMMENT;
        }
        self.fix(FixKind::RemovedComment, self.i);
        self.comment_after_spaces = self.spaces_to == Some(self.i);
        self.i += len;
        self.comment = Some(kind);
        Ok(())
    }

    pub(super) fn step_token(&mut self, token: Token, len: usize) -> Step {
        // Comments and special spaces are the same in every state but prose.
        if self.state != State::Prose && self.state != State::Ignore {
            match token {
                _ if grammar::is_comment(token) => {
                    let kind = match token {
                        Token::BlockComment => Comment::Block,
                        Token::HtmlComment => Comment::Html,
                        _ => Comment::Line,
                    };
                    return self.start_comment(kind, len);
                }
                Token::SpecialWhitespace if self.state != State::Concat => {
                    self.fix(FixKind::ReplacedWhitespace, self.i);
                    self.emit_ws(" ");
                    self.i += len;
                    return Ok(());
                }
                _ => {}
            }
        }
        if lex::is_wide_punctuation(token, len)
            && match self.state {
                State::Ignore => false,
                // In prose only a bracket matters: it starts the value.
                State::Prose => matches!(token, Token::BraceOpen | Token::BracketOpen),
                _ => true,
            }
            && !self
                .fixes
                .iter()
                .rev()
                .take_while(|f| f.offset == self.i)
                .any(|f| f.kind == FixKind::ReplacedPunctuation)
        {
            // `｛`, `：`, `，`: read as their ASCII forms (a state may see the
            // same token twice, when it first inserts something before it).
            self.style |= Faults::WIDE;
            self.fix(FixKind::ReplacedPunctuation, self.i);
        }
        match self.state {
            State::Start => self.on_start(token, len),
            State::Prose => self.on_prose(token, len),
            State::Value => self.on_value(token, len),
            State::Key => self.on_key(token, len),
            State::Colon => self.on_colon(token, len),
            State::After => self.on_after(token, len),
            State::Concat => self.on_concat(token, len),
            State::Done => self.on_done(token, len),
            State::Ignore if token == Token::Fence && self.tentative.is_some() => {
                self.fence_after_tentative(len)
            }
            State::Ignore => {
                if let Token::Quote(_) = token {
                    self.trailing_quote();
                }
                self.i += len;
                Ok(())
            }
            State::Str => Err(Halt::Need),
        }
    }
}
