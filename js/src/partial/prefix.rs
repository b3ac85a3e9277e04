//! The strict reading: a strict JSON prefix (with partial-json's `NaN`,
//! `Infinity` and `-Infinity`), read as partial-json reads it and
//! completed where the end cut it.

use argmend::Options;

use super::flags::{End, Special, Text};
use super::{BOOL, INFINITY, NAN, NEG_INFINITY, NULL};

/// What [`Prefix::read`] found.
pub(super) enum Read {
    Prefix(Prefix),
    /// A strict prefix nested deeper than the engine's limit; the opener at
    /// this offset crossed it.
    TooDeep(usize),
    /// Not a strict JSON prefix.
    Malformed,
}

/// A strict JSON prefix, completed where its end cut it.
pub(super) struct Prefix {
    /// The text, completed: a cut string closed, a member without its
    /// value dropped, the open containers closed. A number or literal cut
    /// short (`1.`, `tr`) stays as it was: the flags decide what it becomes.
    pub(super) out: String,
    pub(super) end: End,
    /// The text is one complete JSON value as it is.
    pub(super) valid: bool,
}

/// What comes next in a strict reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value: at the top, after `:`, after `,` in an array.
    Value,
    /// A value or `]`, after `[`.
    ValueOrClose,
    /// A key, after `,` in an object.
    Key,
    /// A key or `}`, after `{`.
    KeyOrClose,
    Colon,
    /// After a value in a container.
    CommaOrClose,
    /// After the top-level value: nothing more.
    Done,
}

/// How the end cut a strict prefix.
enum Cut {
    /// Between tokens: complete as `expect` says.
    Between,
    /// Inside a value string; an escape cut short starts at this offset (or
    /// it is the end).
    String(usize),
    /// Inside a key: the member goes.
    Key,
    /// Inside a number or a literal at the end.
    Token,
}

impl Prefix {
    /// Read `text` strictly (one pass, an explicit stack).
    pub(super) fn read(text: &str) -> Read {
        let bytes = text.as_bytes();
        let limit = Options::default().depth_limit();
        // Each open container: whether it is an object, and where a member
        // the end cut would be cut from (just after the opener or at the
        // container's last comma).
        let mut frames: Vec<(bool, usize)> = Vec::new();
        let mut expect = Expect::Value;
        let mut special = false;
        let mut at = 0;
        let cut = loop {
            let Some(&byte) = bytes.get(at) else {
                break Cut::Between;
            };
            if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
                at += 1;
                continue;
            }
            match (expect, byte) {
                (Expect::Done, _) => return Read::Malformed,
                (Expect::Colon, b':') => {
                    expect = Expect::Value;
                    at += 1;
                }
                (Expect::CommaOrClose, b',') => {
                    let Some(frame) = frames.last_mut() else {
                        return Read::Malformed;
                    };
                    frame.1 = at;
                    expect = if frame.0 { Expect::Key } else { Expect::Value };
                    at += 1;
                }
                (Expect::CommaOrClose | Expect::ValueOrClose, b']')
                | (Expect::CommaOrClose | Expect::KeyOrClose, b'}') => {
                    match frames.pop() {
                        Some((object, _)) if object == (byte == b'}') => {}
                        _ => return Read::Malformed,
                    }
                    expect = after_value(&frames);
                    at += 1;
                }
                (Expect::Key | Expect::KeyOrClose, b'"') => match string(bytes, at) {
                    Some(Str::Complete(end)) => {
                        expect = Expect::Colon;
                        at = end;
                    }
                    Some(Str::Cut(_)) => break Cut::Key,
                    None => return Read::Malformed,
                },
                (Expect::Value | Expect::ValueOrClose, b'[' | b'{') => {
                    if frames.len() == limit {
                        return Read::TooDeep(at);
                    }
                    frames.push((byte == b'{', at + 1));
                    expect = if byte == b'{' {
                        Expect::KeyOrClose
                    } else {
                        Expect::ValueOrClose
                    };
                    at += 1;
                }
                (Expect::Value | Expect::ValueOrClose, b'"') => match string(bytes, at) {
                    Some(Str::Complete(end)) => {
                        expect = after_value(&frames);
                        at = end;
                    }
                    Some(Str::Cut(escape)) => break Cut::String(escape),
                    None => return Read::Malformed,
                },
                (Expect::Value | Expect::ValueOrClose, _) => {
                    // A number or a literal; what follows it is checked as
                    // the next token.
                    let rest = &bytes[at..];
                    let word = rest.strip_prefix(b"-").unwrap_or(rest);
                    let len = if word.first().is_some_and(u8::is_ascii_alphabetic) {
                        rest.len() - word.len()
                            + word.iter().take_while(|b| b.is_ascii_alphabetic()).count()
                    } else {
                        rest.iter().take_while(|&&b| is_number_byte(b)).count()
                    };
                    let token = &rest[..len];
                    if len == 0 {
                        return Read::Malformed;
                    }
                    if at + len == bytes.len() {
                        if is_json_number_prefix(token) || is_literal_prefix(token) {
                            break Cut::Token;
                        }
                        return Read::Malformed;
                    }
                    if Special::of_literal(token).is_some() {
                        special = true;
                    } else if !is_json_number(token)
                        && !matches!(token, b"true" | b"false" | b"null")
                    {
                        return Read::Malformed;
                    }
                    expect = after_value(&frames);
                    at += len;
                }
                _ => return Read::Malformed,
            }
        };

        // Complete what the end cut.
        let member_cut = frames.last().map_or(0, |&(_, cut)| cut);
        let (mut out, closed_string) = match cut {
            Cut::Between if expect == Expect::Done => {
                let valid = !special;
                let prefix = Prefix {
                    out: if valid {
                        String::new()
                    } else {
                        text.to_owned()
                    },
                    end: End::default(),
                    valid,
                };
                return Read::Prefix(prefix);
            }
            // Nothing but whitespace: no value (the wrapper throws first).
            Cut::Between if frames.is_empty() => return Read::Malformed,
            Cut::Between if expect == Expect::CommaOrClose => (text.to_owned(), false),
            Cut::Between | Cut::Key => (text[..member_cut].to_owned(), false),
            Cut::Token => (text.to_owned(), false),
            Cut::String(escape) => (format!("{}\"", &text[..escape]), true),
        };
        out.extend(
            frames
                .iter()
                .rev()
                .map(|&(object, _)| if object { '}' } else { ']' }),
        );
        Read::Prefix(Prefix {
            out,
            end: End {
                n_closed: frames.len(),
                closed_string,
                ..End::default()
            },
            valid: false,
        })
    }
}

/// What comes after a complete value in the container `frames` ends with.
fn after_value(frames: &[(bool, usize)]) -> Expect {
    if frames.is_empty() {
        Expect::Done
    } else {
        Expect::CommaOrClose
    }
}

/// A strict string at `start` (its opening quote).
enum Str {
    /// It ends just before this offset.
    Complete(usize),
    /// The end cut it; an escape cut short starts at this offset (or it is
    /// the end of the text).
    Cut(usize),
}

/// Read the strict JSON string that opens at `start`; `None` if it is not
/// one (a raw control character, an unknown escape).
fn string(bytes: &[u8], start: usize) -> Option<Str> {
    let mut at = start + 1;
    loop {
        let Some(skip) = bytes[at..]
            .iter()
            .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
        else {
            return Some(Str::Cut(bytes.len()));
        };
        at += skip;
        match bytes[at] {
            b'"' => return Some(Str::Complete(at + 1)),
            b'\\' => match bytes.get(at + 1) {
                None => return Some(Str::Cut(at)),
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
                Some(b'u') => {
                    let hex = bytes[at + 2..]
                        .iter()
                        .take(4)
                        .take_while(|byte| byte.is_ascii_hexdigit())
                        .count();
                    if hex == 4 {
                        at += 6;
                    } else if at + 2 + hex == bytes.len() {
                        return Some(Str::Cut(at));
                    } else {
                        return None;
                    }
                }
                Some(_) => return None,
            },
            _ => return None,
        }
    }
}

pub(super) fn is_number_byte(byte: u8) -> bool {
    matches!(byte, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
}

/// Whether `text` is one JSON number, whole.
pub(super) fn is_json_number(text: &[u8]) -> bool {
    number_prefix(text) == Some(true)
}

/// Whether `text` is the start of a JSON number (or one, whole).
fn is_json_number_prefix(text: &[u8]) -> bool {
    number_prefix(text).is_some()
}

/// Read `text` as a JSON number: `Some(true)` if it is one, `Some(false)`
/// if it is only the start of one (`-`, `1.`, `1e+`), `None` if neither.
fn number_prefix(text: &[u8]) -> Option<bool> {
    let digits = |text: &[u8]| text.iter().take_while(|byte| byte.is_ascii_digit()).count();
    let mut rest = text.strip_prefix(b"-").unwrap_or(text);
    match rest.first() {
        None => return Some(false),
        Some(b'0') => rest = &rest[1..],
        Some(b'1'..=b'9') => rest = &rest[digits(rest)..],
        Some(_) => return None,
    }
    if let Some(fraction) = rest.strip_prefix(b".") {
        let n = digits(fraction);
        if n == fraction.len() {
            return Some(n > 0);
        }
        if n == 0 {
            return None;
        }
        rest = &fraction[n..];
    }
    if let Some(exponent) = rest.strip_prefix(b"e").or_else(|| rest.strip_prefix(b"E")) {
        let exponent = exponent
            .strip_prefix(b"+")
            .or_else(|| exponent.strip_prefix(b"-"))
            .unwrap_or(exponent);
        let n = digits(exponent);
        if n == exponent.len() {
            return Some(n > 0);
        }
        return None;
    }
    rest.is_empty().then_some(true)
}

/// The literals partial-json reads, with the flag that lets each be cut
/// short and what it is written as.
pub(super) const LITERALS: [(&[u8], u32, Text); 6] = [
    (b"null", NULL, Text::Static("null")),
    (b"true", BOOL, Text::Static("true")),
    (b"false", BOOL, Text::Static("false")),
    (b"Infinity", INFINITY, Text::Static("1e999")),
    (b"-Infinity", NEG_INFINITY, Text::Static("-1e999")),
    (b"NaN", NAN, Text::NaN),
];

/// Whether `token` is one of partial-json's literals or the start of one
/// (`-` alone is a number's start).
fn is_literal_prefix(token: &[u8]) -> bool {
    token != b"-" && LITERALS.iter().any(|(name, _, _)| name.starts_with(token))
}
