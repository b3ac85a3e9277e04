//! A Python string literal: its escapes, and whether a quote ends it. A
//! model writes code in strings and does not always escape the quote the
//! string is in (`'sed -n '360,450p' f'`): a quote ends a one-line string
//! only when what follows continues the call as Python reads it.

use super::literal::char_bytes;
use super::{Escape, Frame, Literal, PythonArgs, QUOTE_LOOKAHEAD, State, is_name_byte};
use crate::call::format::value::escape_into;

impl PythonArgs {
    pub(super) fn open_string(&mut self, quote: u8, raw: bool) {
        self.start_value();
        self.out.push(b'"');
        self.literal = Some(Literal {
            quote,
            triple: false,
            raw,
            run: 1,
            escape: Escape::None,
        });
        self.state = State::Str;
    }

    pub(super) fn string_byte(&mut self, b: u8) {
        let Some(literal) = &mut self.literal else {
            return;
        };
        // The opening quote's run: `''` is an empty string, `'''` opens a
        // triple-quoted one.
        if literal.run > 0 && !literal.triple {
            if b == literal.quote {
                literal.run += 1;
                if literal.run == 3 {
                    literal.triple = true;
                    literal.run = 0;
                }
                return;
            }
            if literal.run == 2 {
                // `''` then something: an empty string, whose end is judged
                // like any other.
                literal.run = 0;
                self.ahead.clear();
                self.state = State::Quote;
                self.quote_lookahead(b);
                return;
            }
            literal.run = 0;
        }
        if literal.escape != Escape::None {
            self.escape_byte(b);
            return;
        }
        if b == literal.quote {
            if literal.triple {
                literal.run += 1;
                if literal.run == 3 {
                    self.close_string();
                    self.state = State::After;
                }
                return;
            }
            self.ahead.clear();
            self.state = State::Quote;
            return;
        }
        if literal.triple && literal.run > 0 {
            // Fewer than three quotes: they were text.
            let quotes = vec![literal.quote; literal.run];
            literal.run = 0;
            escape_into(&quotes, &mut self.out);
        }
        if b == b'\\' {
            if let Some(literal) = &mut self.literal {
                literal.escape = Escape::Start;
            }
            return;
        }
        escape_into(&[b], &mut self.out);
    }

    fn escape_byte(&mut self, b: u8) {
        let Some(literal) = &mut self.literal else {
            return;
        };
        if literal.raw {
            // A raw string keeps the backslash; the escaped byte (even its
            // own quote) is text.
            literal.escape = Escape::None;
            escape_into(&[b'\\', b], &mut self.out);
            return;
        }
        let escape = std::mem::replace(&mut literal.escape, Escape::None);
        let text: Vec<u8> = match escape {
            Escape::None => return,
            Escape::Start => match b {
                b'\n' => Vec::new(),
                b'\\' | b'\'' | b'"' => vec![b],
                b'n' => vec![b'\n'],
                b't' => vec![b'\t'],
                b'r' => vec![b'\r'],
                b'a' => vec![0x07],
                b'b' => vec![0x08],
                b'f' => vec![0x0c],
                b'v' => vec![0x0b],
                b'x' | b'u' | b'U' | b'N' | b'0'..=b'7' => {
                    literal.escape = match b {
                        b'x' => Escape::Hex(2, 0),
                        b'u' => Escape::Hex(4, 0),
                        b'U' => Escape::Hex(8, 0),
                        b'N' => Escape::Named(b"\\N".to_vec()),
                        _ => Escape::Octal(2, u32::from(b - b'0')),
                    };
                    return;
                }
                b => vec![b'\\', b],
            },
            Escape::Hex(due, code) => match (b as char).to_digit(16) {
                Some(digit) if due > 1 => {
                    literal.escape = Escape::Hex(due - 1, code * 16 + digit);
                    return;
                }
                Some(digit) => char_bytes(code * 16 + digit),
                None => {
                    // A broken escape: what was read stays as text.
                    let mut text = char_bytes(code);
                    text.push(b);
                    text
                }
            },
            Escape::Octal(due, code) => match b {
                b'0'..=b'7' if due > 1 => {
                    literal.escape = Escape::Octal(due - 1, code * 8 + u32::from(b - b'0'));
                    return;
                }
                b'0'..=b'7' => char_bytes(code * 8 + u32::from(b - b'0')),
                _ => {
                    escape_into(&char_bytes(code), &mut self.out);
                    self.string_byte(b);
                    return;
                }
            },
            Escape::Named(mut name) => {
                name.push(b);
                if b == b'}' || name.len() > 64 {
                    name
                } else {
                    literal.escape = Escape::Named(name);
                    return;
                }
            }
        };
        escape_into(&text, &mut self.out);
    }

    /// After a quote that may end a one-line string: the bytes after it
    /// are held until they say whether it does.
    pub(super) fn quote_lookahead(&mut self, b: u8) {
        self.ahead.push(b);
        let verdict = self.quote_ends(false);
        self.decide_quote(verdict);
    }

    /// Act on a quote's verdict (`None`: not known yet): the string ends, or
    /// the quote is its text; the held bytes are read again either way.
    pub(super) fn decide_quote(&mut self, verdict: Option<bool>) {
        let Some(ends) = verdict.or_else(|| {
            self.quote_ends(true)
                .filter(|_| self.ahead.len() >= QUOTE_LOOKAHEAD)
        }) else {
            return;
        };
        let quote = self.literal.as_ref().map_or(b'\'', |literal| literal.quote);
        let mut ahead = std::mem::take(&mut self.ahead);
        let spaces = ahead
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        if ends && ahead.get(spaces) == Some(&quote) {
            // `'a' 'b'`: one string, as Python reads it.
            ahead.drain(..=spaces);
            self.state = State::Str;
        } else if ends {
            self.close_string();
            self.state = State::After;
        } else {
            escape_into(&[quote], &mut self.out);
            self.state = State::Str;
        }
        for &b in ahead.iter().rev() {
            self.queue.push_front(b);
        }
    }

    /// Whether the quote before `self.ahead` ends its string: what follows
    /// must continue the call as Python reads it. At the call's own level
    /// that is `, key=` (a positional argument cannot follow a keyword one)
    /// or its `)`, then the next call, the list's end, a line break or a
    /// marker; inside a list, tuple or dict, a `,`, the container's closer,
    /// or a dict key's `:`. `None` while the bytes cannot tell.
    fn quote_ends(&self, at_end: bool) -> Option<bool> {
        let quote = self.literal.as_ref().map_or(b'\'', |literal| literal.quote);
        let ahead = &self.ahead;
        let mut depth = self.frames.len();
        let mut at = 0;
        let mut closed_call = false;
        let need = if at_end { Some(true) } else { None };
        while at < ahead.len() {
            let c = ahead[at];
            at += 1;
            if matches!(c, b' ' | b'\t' | b'\r') {
                continue;
            }
            if closed_call {
                // After the call's `)`: the next call, the list's end, a line
                // break, a marker, the end.
                return match c {
                    b',' => next_call_follows(&ahead[at..]).or(need),
                    b']' | b'\n' | b'<' => Some(true),
                    _ => Some(false),
                };
            }
            match c {
                // `''` inside a string is text (SQL's `DEFAULT ''`), not
                // Python's `'a' 'b'`, which models do not write in calls.
                c if c == quote => return Some(false),
                b',' if depth == 0 => {
                    let known = |key: &[u8]| self.may_be_keyword(key);
                    return keyword_follows(&ahead[at..], &known).or(need);
                }
                b',' => return Some(true),
                b':' => {
                    let wants_key = match self.frames.get(depth.wrapping_sub(1)) {
                        Some(Frame::Dict(want_key, _)) => *want_key,
                        Some(Frame::Brace(_)) => true,
                        _ => false,
                    };
                    return Some(depth == self.frames.len() && wants_key);
                }
                b')' | b']' | b'}' => {
                    if depth == 0 {
                        if c != b')' {
                            return Some(false);
                        }
                        closed_call = true;
                        continue;
                    }
                    let want = match self.frames[depth - 1] {
                        Frame::Array(closer, _) => closer,
                        Frame::Brace(_) | Frame::Dict(..) => b'}',
                    };
                    if c != want {
                        return Some(false);
                    }
                    depth -= 1;
                }
                _ => return Some(false),
            }
        }
        need
    }

    pub(super) fn close_string(&mut self) {
        self.out.push(b'"');
        self.literal = None;
    }
}

/// Whether `rest` (after a call's `)` and a `,`) starts the next call:
/// `name(` (a dotted name too).
fn next_call_follows(rest: &[u8]) -> Option<bool> {
    let rest = &rest[rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    let first = *rest.first()?;
    if !is_name_byte(first) || first.is_ascii_digit() {
        return Some(false);
    }
    let name = rest
        .iter()
        .take_while(|&&b| is_name_byte(b) || b == b'.')
        .count();
    rest.get(name).map(|&b| b == b'(')
}

impl PythonArgs {
    /// Whether `key` may be the call's next keyword: one not given yet, and
    /// one the schema declares when there is one.
    fn may_be_keyword(&self, key: &[u8]) -> bool {
        if self.given.iter().any(|given| given == key) {
            return false;
        }
        match &self.declared {
            Some(declared) => declared.iter().any(|name| name.as_bytes() == key),
            None => true,
        }
    }
}

/// Whether `rest` (after a `,` at the call's own level) starts a keyword
/// argument (`name=`, not `==`, that `known` accepts) or closes the call:
/// `None` while it cannot tell.
fn keyword_follows(rest: &[u8], known: &dyn Fn(&[u8]) -> bool) -> Option<bool> {
    let rest = &rest[rest.iter().take_while(|b| b.is_ascii_whitespace()).count()..];
    let first = *rest.first()?;
    if first == b')' {
        return Some(true);
    }
    if !is_name_byte(first) || first.is_ascii_digit() {
        return Some(false);
    }
    let name = rest.iter().take_while(|&&b| is_name_byte(b)).count();
    if name < rest.len() && !known(&rest[..name]) {
        return Some(false);
    }
    let after = &rest[name..];
    let after = &after[after
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count()..];
    match after {
        [] => None,
        [b'='] => None,
        [b'=', b'=', ..] => Some(false),
        [b'=', ..] => Some(known(&rest[..name])),
        _ => Some(false),
    }
}
