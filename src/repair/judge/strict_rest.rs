//! Whether the rest of the window reads as strictly valid JSON: the test
//! that keeps valid JSON whole when a quote's twin (`”` inside a
//! `"`-string) could end a string. Such a document comes back byte for
//! byte, and no other reading should be tried on it; any other document has
//! a fault somewhere, and the twin may be a delimiter.

use super::cursor::{Cursor, Scan, Short};
use crate::lex;
use crate::repair::frame::{Frame, LOOKAHEAD};
use crate::repair::strict::{scan_body_prefix, scan_literal, scan_number};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A value (after `:` or `,` in an array).
    Value,
    /// A value or `]` (after `[`).
    FirstValue,
    /// A key (after `,` in an object).
    Key,
    /// A key or `}` (after `{`).
    FirstKey,
    Colon,
    /// A `,` or a closer (after a value).
    After,
}

/// Whether the bytes from `c` on, right after a string that was a key
/// (`key`) or a value in `frames`, read as strictly valid JSON as far as the
/// window goes (to the end of the input, when it ends inside the window).
/// `Short` while the bytes that decide it have not arrived.
pub(super) fn strict_rest(c: &Cursor<'_>, frames: &[Frame], key: bool) -> Scan<bool> {
    // The end of the bytes: the end of the input, the end of the window
    // (valid so far is valid), or bytes still to come.
    let end = |done: bool| -> Scan<bool> {
        if c.bytes.len() >= LOOKAHEAD {
            Ok(true)
        } else if c.eof {
            Ok(done)
        } else {
            Err(Short)
        }
    };
    // The kinds of the open containers: `true` for an object.
    let mut stack: Vec<bool> = Vec::with_capacity(frames.len() + 4);
    for frame in frames {
        match frame {
            Frame::Object => stack.push(true),
            Frame::Array => stack.push(false),
            // Tuples, call wrappers and the `Values::Array` root are no JSON.
            _ => return Ok(false),
        }
    }
    let bytes = c.bytes;
    let mut i = c.pos;
    let mut expect = if key { Expect::Colon } else { Expect::After };
    loop {
        while bytes.get(i).is_some_and(|&b| lex::is_ws(b)) {
            i += 1;
        }
        let Some(&b) = bytes.get(i) else {
            return end(stack.is_empty() && expect == Expect::After);
        };
        if stack.is_empty() && expect == Expect::After {
            return Ok(false);
        }
        let top_is_object = stack.last().copied();
        expect = match (expect, b) {
            (Expect::After, b',') => {
                if top_is_object == Some(true) {
                    Expect::Key
                } else {
                    Expect::Value
                }
            }
            (Expect::After, b'}') | (Expect::FirstKey, b'}') if top_is_object == Some(true) => {
                stack.pop();
                Expect::After
            }
            (Expect::After, b']') | (Expect::FirstValue, b']') if top_is_object == Some(false) => {
                stack.pop();
                Expect::After
            }
            (Expect::Colon, b':') => Expect::Value,
            (Expect::Key | Expect::FirstKey | Expect::Value | Expect::FirstValue, b'"') => {
                match string_end(bytes, i) {
                    Some(Some(end)) => {
                        i = end;
                        expect = match expect {
                            Expect::Key | Expect::FirstKey => Expect::Colon,
                            _ => Expect::After,
                        };
                        continue;
                    }
                    Some(None) => return end(false),
                    None => return Ok(false),
                }
            }
            (Expect::Value | Expect::FirstValue, b'{') => {
                stack.push(true);
                Expect::FirstKey
            }
            (Expect::Value | Expect::FirstValue, b'[') => {
                stack.push(false);
                Expect::FirstValue
            }
            (Expect::Value | Expect::FirstValue, b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                let token = if b.is_ascii_alphabetic() {
                    scan_literal(bytes, i)
                } else {
                    scan_number(bytes, i)
                };
                match token {
                    Some(token_end) if token_end < bytes.len() || c.eof => {
                        i = token_end;
                        expect = Expect::After;
                        continue;
                    }
                    // A number or literal the end of the bytes may cut.
                    _ if bytes.len() - i < 32 => return end(false),
                    Some(token_end) => {
                        i = token_end;
                        expect = Expect::After;
                        continue;
                    }
                    None => return Ok(false),
                }
            }
            _ => return Ok(false),
        };
        i += 1;
    }
}

/// The end of the strictly valid string that opens at `q`: `Some(Some(end))`
/// just past its closing quote, `Some(None)` when the bytes end before it
/// does, `None` when it is not valid.
fn string_end(bytes: &[u8], q: usize) -> Option<Option<usize>> {
    match scan_body_prefix(bytes, q + 1) {
        (_, Some(end)) => Some(Some(end)),
        (stop, None) if stop >= bytes.len() => Some(None),
        // An escape cut by the end of the bytes.
        (stop, None) if bytes[stop] == b'\\' && bytes.len() - stop < 6 => Some(None),
        _ => None,
    }
}
