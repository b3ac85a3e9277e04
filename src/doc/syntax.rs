//! Strict JSON: the validator behind `validate` and `pretty`, built on the
//! crate's logos tokenizer, and the syntax error with its line, column and
//! caret snippet (computed only when an error is shown).

use std::fmt;

use memchr::memchr2;

use crate::lex::{self, Literal, Quote, Token};

/// What is wrong at an offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SyntaxKind {
    ExpectedValue,
    ExpectedKey,
    ExpectedColon,
    ExpectedCommaOrBrace,
    ExpectedCommaOrBracket,
    TrailingComma,
    TrailingData,
    UnexpectedEnd,
    UnclosedString,
    MismatchedCloser,
    BadNumber,
    BadEscape,
    ControlCharacter,
    BadUtf8,
    SingleQuotes,
    LenientLiteral,
    Comment,
    Empty,
}

/// A syntax error: what, and the byte offset where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Syntax {
    pub(crate) offset: usize,
    pub(crate) kind: SyntaxKind,
}

impl Syntax {
    #[cold]
    pub(crate) fn new(offset: usize, kind: SyntaxKind) -> Self {
        Syntax { offset, kind }
    }

    pub(crate) fn message(&self) -> &'static str {
        match self.kind {
            SyntaxKind::ExpectedValue => {
                "expected a value (object, array, string, number, true, false or null)"
            }
            SyntaxKind::ExpectedKey => "expected a key in double quotes",
            SyntaxKind::ExpectedColon => "expected `:` after the key",
            SyntaxKind::ExpectedCommaOrBrace => "expected `,` or `}` after the member",
            SyntaxKind::ExpectedCommaOrBracket => "expected `,` or `]` after the element",
            SyntaxKind::TrailingComma => "trailing comma before the closer",
            SyntaxKind::TrailingData => "data after the end of the value",
            SyntaxKind::UnexpectedEnd => "the input ends inside a value",
            SyntaxKind::UnclosedString => "the string is never closed",
            SyntaxKind::MismatchedCloser => "this closer does not match the open bracket",
            SyntaxKind::BadNumber => "invalid number",
            SyntaxKind::BadEscape => "invalid escape in a string",
            SyntaxKind::ControlCharacter => "control character in a string (escape it, e.g. `\\n`)",
            SyntaxKind::BadUtf8 => "invalid UTF-8 in a string",
            SyntaxKind::SingleQuotes => "single quotes are not JSON: use double quotes",
            SyntaxKind::LenientLiteral => "not a JSON literal: use `true`, `false` or `null`",
            SyntaxKind::Comment => "comments are not JSON",
            SyntaxKind::Empty => "the document is empty",
        }
    }

    /// 1-based line and column (in characters) of the offset.
    pub(crate) fn line_column(&self, bytes: &[u8]) -> (usize, usize) {
        let offset = self.offset.min(bytes.len());
        let before = &bytes[..offset];
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        (line, column)
    }

    /// The error as a model reads it: where, what, and the line with a caret.
    pub(crate) fn show<'a>(&'a self, bytes: &'a [u8]) -> Shown<'a> {
        Shown { error: self, bytes }
    }
}

/// A [`Syntax`] error with its document, for `Display`.
pub(crate) struct Shown<'a> {
    error: &'a Syntax,
    bytes: &'a [u8],
}

/// At most this many characters of the line are shown on each side of the caret.
const SNIPPET_SIDE: usize = 40;

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (line, column) = self.error.line_column(self.bytes);
        write!(f, "line {line} column {column}: {}", self.error.message())?;
        let offset = self.error.offset.min(self.bytes.len());
        let line_start = self.bytes[..offset]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |n| n + 1);
        let line_end = self.bytes[offset..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.bytes.len(), |n| offset + n);
        let before: Vec<char> = String::from_utf8_lossy(&self.bytes[line_start..offset])
            .chars()
            .collect();
        let after: Vec<char> = String::from_utf8_lossy(&self.bytes[offset..line_end])
            .chars()
            .collect();
        let skip = before.len().saturating_sub(SNIPPET_SIDE);
        let mut shown: String = if skip > 0 {
            "…".into()
        } else {
            String::new()
        };
        shown.extend(
            before[skip..]
                .iter()
                .map(|&c| if c == '\t' { ' ' } else { c }),
        );
        let caret = shown.chars().count();
        shown.extend(
            after
                .iter()
                .take(SNIPPET_SIDE)
                .map(|&c| if c == '\t' { ' ' } else { c }),
        );
        if after.len() > SNIPPET_SIDE {
            shown.push('…');
        }
        write!(
            f,
            "\n  {}\n  {}^",
            shown.trim_end_matches('\r'),
            " ".repeat(caret)
        )
    }
}

/// The length of the strict JSON number at the start of `bytes`, or 0:
/// [`crate::lex::number_len`], which must end where a token can (`01` and
/// `1x` are not numbers).
pub(crate) fn number_len(bytes: &[u8]) -> usize {
    match crate::lex::number_len(bytes) {
        Some(n)
            if !matches!(
                bytes.get(n),
                Some(b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'.')
            ) =>
        {
            n
        }
        _ => 0,
    }
}

/// The offset past the strictly valid string starting at `pos` (a `"`).
pub(crate) fn strict_string(bytes: &[u8], pos: usize) -> Result<usize, Syntax> {
    let mut i = pos + 1;
    loop {
        let Some(n) = memchr2(b'"', b'\\', &bytes[i..]) else {
            return Err(Syntax::new(pos, SyntaxKind::UnclosedString));
        };
        if let Some(at) = bytes[i..i + n].iter().position(|&b| b < 0x20) {
            return Err(Syntax::new(i + at, SyntaxKind::ControlCharacter));
        }
        if std::str::from_utf8(&bytes[i..i + n]).is_err() {
            return Err(Syntax::new(i, SyntaxKind::BadUtf8));
        }
        i += n;
        if bytes[i] == b'"' {
            return Ok(i + 1);
        }
        match bytes.get(i + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
            Some(b'u')
                if bytes.len() >= i + 6
                    && bytes[i + 2..i + 6].iter().all(u8::is_ascii_hexdigit) =>
            {
                i += 6;
            }
            None => return Err(Syntax::new(pos, SyntaxKind::UnclosedString)),
            Some(_) => return Err(Syntax::new(i, SyntaxKind::BadEscape)),
        }
    }
}

/// What the validator expects next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Value,
    /// A value or `]` (just after `[`).
    FirstElement,
    /// A key or `}` (just after `{`).
    FirstKey,
    Key,
    Colon,
    /// `,` or the closer of the innermost container.
    After,
}

/// Check that `bytes` is exactly one strictly valid JSON value (whitespace
/// around it allowed). Tokens come from the crate's logos tokenizer; string
/// bodies are checked with memchr.
pub(crate) fn validate(bytes: &[u8]) -> Result<(), Syntax> {
    let mut closers: Vec<u8> = Vec::new();
    let mut expect = Expect::Value;
    let mut pos = 0;
    let mut done = false;
    while let Some((token, len)) = lex::next(&bytes[pos..]) {
        let at = pos;
        if token == Token::Whitespace {
            pos += len;
            continue;
        }
        if matches!(
            token,
            Token::LineComment | Token::BlockComment | Token::HashComment | Token::HtmlComment
        ) {
            return Err(Syntax::new(at, SyntaxKind::Comment));
        }
        if crate::lex::is_wide_punctuation(token, len) {
            // `｛`, `：`: the lexer reads them as punctuation, JSON does not.
            let kind = if done {
                SyntaxKind::TrailingData
            } else {
                unexpected(expect, &closers)
            };
            return Err(Syntax::new(at, kind));
        }
        if done {
            return Err(Syntax::new(at, SyntaxKind::TrailingData));
        }
        let is_value_start = matches!(expect, Expect::Value | Expect::FirstElement);
        match token {
            Token::BraceOpen | Token::BracketOpen if is_value_start => {
                let (closer, next) = if token == Token::BraceOpen {
                    (b'}', Expect::FirstKey)
                } else {
                    (b']', Expect::FirstElement)
                };
                closers.push(closer);
                expect = next;
                pos += len;
                continue;
            }
            Token::BraceClose | Token::BracketClose => {
                let b = bytes[at];
                let ok = match expect {
                    Expect::After => closers.last() == Some(&b),
                    Expect::FirstKey => b == b'}',
                    Expect::FirstElement => b == b']',
                    // `{"a":}` lacks a value; `[1,]` and `{"a":1,}` have a comma too many.
                    Expect::Value
                        if bytes[..at].iter().rev().find(|c| !crate::lex::is_ws(**c))
                            == Some(&b':') =>
                    {
                        return Err(Syntax::new(at, SyntaxKind::ExpectedValue));
                    }
                    Expect::Key | Expect::Value if closers.last() == Some(&b) => {
                        return Err(Syntax::new(at, SyntaxKind::TrailingComma));
                    }
                    _ => false,
                };
                if !ok {
                    return Err(Syntax::new(at, unexpected(expect, &closers)));
                }
                closers.pop();
                pos += len;
                expect = Expect::After;
                done = closers.is_empty();
                continue;
            }
            Token::Comma if expect == Expect::After => {
                expect = if closers.last() == Some(&b'}') {
                    Expect::Key
                } else {
                    Expect::Value
                };
                pos += len;
                continue;
            }
            Token::Colon if expect == Expect::Colon => {
                expect = Expect::Value;
                pos += len;
                continue;
            }
            Token::Quote(Quote::Double)
                if is_value_start || matches!(expect, Expect::Key | Expect::FirstKey) =>
            {
                pos = strict_string(bytes, at)?;
                expect = if is_value_start {
                    Expect::After
                } else {
                    Expect::Colon
                };
            }
            Token::Number | Token::Minus if is_value_start => {
                let n = number_len(&bytes[at..]);
                if n == 0 {
                    return Err(Syntax::new(at, SyntaxKind::BadNumber));
                }
                pos = at + n;
                expect = Expect::After;
            }
            Token::Literal(Literal::True | Literal::False | Literal::Null) if is_value_start => {
                pos += len;
                expect = Expect::After;
            }
            Token::Literal(_) if is_value_start => {
                return Err(Syntax::new(at, SyntaxKind::LenientLiteral));
            }
            Token::Quote(
                Quote::Single | Quote::SingleLike | Quote::DoubleLike | Quote::Backtick,
            ) if is_value_start || matches!(expect, Expect::Key | Expect::FirstKey) => {
                return Err(Syntax::new(at, SyntaxKind::SingleQuotes));
            }
            Token::LineComment | Token::BlockComment | Token::HashComment | Token::HtmlComment => {
                return Err(Syntax::new(at, SyntaxKind::Comment));
            }
            _ => return Err(Syntax::new(at, unexpected(expect, &closers))),
        }
        done = closers.is_empty();
    }
    if !done {
        let kind = if closers.is_empty() && expect == Expect::Value {
            SyntaxKind::Empty
        } else {
            SyntaxKind::UnexpectedEnd
        };
        return Err(Syntax::new(bytes.len(), kind));
    }
    Ok(())
}

fn unexpected(expect: Expect, closers: &[u8]) -> SyntaxKind {
    match expect {
        Expect::Value | Expect::FirstElement => SyntaxKind::ExpectedValue,
        Expect::Key | Expect::FirstKey => SyntaxKind::ExpectedKey,
        Expect::Colon => SyntaxKind::ExpectedColon,
        Expect::After if closers.last() == Some(&b'}') => SyntaxKind::ExpectedCommaOrBrace,
        Expect::After if closers.last() == Some(&b']') => SyntaxKind::ExpectedCommaOrBracket,
        Expect::After => SyntaxKind::TrailingData,
    }
}

/// The text of a string body with its escapes decoded (lossy on bad input).
pub(crate) fn decode_body(body: &[u8]) -> String {
    if !body.contains(&b'\\') {
        return String::from_utf8_lossy(body).into_owned();
    }
    let mut quoted = Vec::with_capacity(body.len() + 2);
    quoted.push(b'"');
    quoted.extend_from_slice(body);
    quoted.push(b'"');
    serde_json::from_slice::<String>(&quoted)
        .unwrap_or_else(|_| String::from_utf8_lossy(body).into_owned())
}
