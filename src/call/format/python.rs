//! A Python call's keyword arguments (`city='SF', days=3, tags=['a']`),
//! read with Python's literal grammar and written as a JSON object as
//! they arrive: strings in every quote style and prefix with their escapes,
//! `True`/`False`/`None`, numbers (`1_000`, `0x1F`, `07`), lists, tuples
//! and sets as arrays, dicts as objects (keys as strings).
//!
//! One thing is mended: a quote the model did not escape (`'it's'`). A
//! closing quote ends a one-line string only when what follows it can
//! follow a value (`,`, a closer, `:`, the end), which is how the engine
//! judges JSON quotes; two strings side by side are one, as in Python.

mod literal;
mod quote;

use self::literal::{is_string_prefix, token_json};
use super::value::escape_into;

/// Where the reader stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Between arguments, before a keyword (or the call's `)`).
    Arg,
    /// A keyword.
    Key,
    /// After a keyword, before its `=`.
    Equals,
    /// Before a value.
    Value,
    /// A bare token: a number, a name, or a string's prefix letters.
    Token,
    /// A string's body.
    Str,
    /// A quote that may end the string: the whitespace after it is held.
    Quote,
    /// After a value.
    After,
    /// The call's `)` came.
    Done,
}

/// What a container frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// `[…]` or `(…)` (by its closer).
    Array(u8, usize),
    /// `{…}` whose first element has not said whether it is a dict or a set:
    /// where its output starts in `out` (nothing from the outermost such
    /// brace on is handed out yet).
    Brace(usize),
    /// A dict; `true` while a key is expected.
    Dict(bool, usize),
}

/// The escape being read inside a string.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Escape {
    None,
    /// After a backslash.
    Start,
    /// Hex digits of `\x`, `\u`, `\U` (how many are still due).
    Hex(u8, u32),
    /// Octal digits of `\0`…`\7`.
    Octal(u8, u32),
    /// `\N{…}`: kept as written.
    Named(Vec<u8>),
}

/// A string literal being read.
#[derive(Debug, Clone)]
struct Literal {
    quote: u8,
    triple: bool,
    raw: bool,
    /// Quotes of the string's kind seen in a row (a triple-quoted string
    /// ends at three).
    run: usize,
    escape: Escape,
}

/// Python keyword arguments, up to the call's `)`, as a JSON object.
#[derive(Debug)]
pub(crate) struct PythonArgs {
    state: State,
    frames: Vec<Frame>,
    /// JSON written and not handed out yet.
    out: Vec<u8>,
    /// Where an undecided `{` stands in `out`: nothing from there on is
    /// handed out until a `:` or a `,` says dict or set.
    hold: Option<usize>,
    /// Arguments written (the object's members).
    n_args: usize,
    token: Vec<u8>,
    literal: Option<Literal>,
    /// The bytes after a quote that may end its string, held until they tell.
    ahead: Vec<u8>,
    /// Bytes to read before the rest of the input: a decided lookahead's.
    queue: std::collections::VecDeque<u8>,
    /// What followed the call's `)` among the bytes already taken.
    leftover: Vec<u8>,
    /// The keywords the tool's schema declares (`None`: no schema): after a
    /// quote, `, key=` ends the string only for one of these not given yet.
    declared: Option<Vec<String>>,
    /// The keywords given so far.
    given: Vec<Vec<u8>>,
}

/// How many bytes after a quote are held before the quote is taken as the
/// string's end.
const QUOTE_LOOKAHEAD: usize = 64;

impl PythonArgs {
    /// `declared`: the keywords the tool's schema declares, if it has one.
    pub(crate) fn new(declared: Option<Vec<String>>) -> Self {
        PythonArgs {
            declared,
            given: Vec::new(),
            state: State::Arg,
            frames: Vec::new(),
            out: vec![b'{'],
            hold: None,
            n_args: 0,
            token: Vec::new(),
            literal: None,
            ahead: Vec::new(),
            queue: std::collections::VecDeque::new(),
            leftover: Vec::new(),
        }
    }

    /// Whether the call's `)` has come.
    pub(crate) fn done(&self) -> bool {
        self.state == State::Done
    }

    /// Read `bytes` until the call's `)`; returns how many were read. Bytes
    /// a lookahead took beyond the `)` are in [`take_leftover`](Self::take_leftover).
    pub(crate) fn push(&mut self, bytes: &[u8]) -> usize {
        for (i, &b) in bytes.iter().enumerate() {
            self.queue.push_back(b);
            self.drain_queue();
            if self.state == State::Done {
                return i + 1;
            }
        }
        bytes.len()
    }

    /// Read the queued bytes, stopping at the call's `)`.
    fn drain_queue(&mut self) {
        while self.state != State::Done {
            let Some(b) = self.queue.pop_front() else {
                return;
            };
            self.byte(b);
        }
        self.leftover.extend(self.queue.drain(..));
    }

    /// What followed the call's `)` in bytes already taken.
    pub(crate) fn take_leftover(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.leftover)
    }

    /// The input ended: a quote waiting on what follows it ends its string.
    pub(crate) fn end_of_input(&mut self) {
        if self.state == State::Quote {
            self.decide_quote(Some(true));
            self.drain_queue();
        }
    }

    /// Hand out the JSON written so far (up to an undecided `{`).
    pub(crate) fn drain_into(&mut self, pending: &mut Vec<u8>) {
        let end = self.hold.unwrap_or(self.out.len());
        pending.extend_from_slice(&self.out[..end]);
        self.out.drain(..end);
        if let Some(hold) = &mut self.hold {
            *hold = 0;
        }
        for frame in &mut self.frames {
            if let Frame::Brace(at) = frame {
                *at -= end;
            }
        }
    }

    /// The input ended: what is settled is written; the engine closes the rest.
    pub(crate) fn finish_into(mut self, pending: &mut Vec<u8>) {
        self.end_of_input();
        if self.state == State::Token {
            self.end_token();
        }
        // Every brace still undecided is decided, the innermost first (a
        // list may sit inside one: `{{[0,`), so each insertion leaves the
        // offsets of the outer ones as they are: a dict, or a set when it
        // holds a container (written as a key, each level would escape the
        // levels inside it again, doubling the text per level).
        while self.hold.is_some() {
            let Some(index) =
                (self.frames.iter()).rposition(|frame| matches!(frame, Frame::Brace(_)))
            else {
                break;
            };
            self.frames.truncate(index + 1);
            let Frame::Brace(at) = self.frames[index] else {
                break;
            };
            let opener = match self.out.get(at) {
                Some(b'{' | b'[') => b'[',
                _ => b'{',
            };
            self.decide_brace(opener);
            self.frames.truncate(index);
        }
        self.hold = None;
        self.drain_into(pending);
    }

    fn byte(&mut self, b: u8) {
        match self.state {
            State::Arg => match b {
                b')' => self.end_call(),
                b',' => {}
                b if b.is_ascii_whitespace() => {}
                b if is_name_byte(b) => {
                    self.token.clear();
                    self.token.push(b);
                    self.state = State::Key;
                }
                b => {
                    // A positional argument: its value under `_N`.
                    self.key(format!("_{}", self.n_args).as_bytes());
                    self.state = State::Value;
                    self.byte(b);
                }
            },
            State::Key => match b {
                b'=' => self.keyword(),
                b if is_name_byte(b) => self.token.push(b),
                b if b.is_ascii_whitespace() => self.state = State::Equals,
                b => self.positional(b),
            },
            State::Equals => match b {
                b'=' => self.keyword(),
                b if b.is_ascii_whitespace() => {}
                b => self.positional(b),
            },
            State::Value => self.value(b),
            State::Token => {
                let sign_after_exponent = matches!(b, b'+' | b'-')
                    && matches!(self.token.last(), Some(b'e' | b'E'))
                    && self
                        .token
                        .first()
                        .is_some_and(|c| c.is_ascii_digit() || *c == b'.' || *c == b'-');
                if is_name_byte(b) || b == b'.' || sign_after_exponent {
                    self.token.push(b);
                } else if matches!(b, b'\'' | b'"') && is_string_prefix(&self.token) {
                    let raw = self.token.iter().any(|c| c.eq_ignore_ascii_case(&b'r'));
                    self.token.clear();
                    self.open_string(b, raw);
                } else {
                    self.end_token();
                    self.state = State::After;
                    self.byte(b);
                }
            }
            State::Str => self.string_byte(b),
            State::Quote => self.quote_lookahead(b),
            State::After => self.after(b),
            State::Done => {}
        }
    }

    /// A keyword's `=`: the member's key is written.
    fn keyword(&mut self) {
        let key = std::mem::take(&mut self.token);
        self.key(&key);
        self.given.push(key);
        self.state = State::Value;
    }

    /// A word with no `=` after it: a positional argument.
    fn positional(&mut self, b: u8) {
        let word = std::mem::take(&mut self.token);
        self.key(format!("_{}", self.n_args).as_bytes());
        self.state = State::Value;
        for c in word {
            self.byte(c);
        }
        self.byte(b);
    }

    fn key(&mut self, key: &[u8]) {
        if self.n_args > 0 {
            self.out.push(b',');
        }
        self.n_args += 1;
        self.out.push(b'"');
        escape_into(key, &mut self.out);
        self.out.extend_from_slice(b"\": ");
    }

    fn end_call(&mut self) {
        self.out.push(b'}');
        self.state = State::Done;
    }

    /// A value starts in the innermost frame: its separator is written, and
    /// whether it is a dict's key is returned.
    fn start_value(&mut self) -> bool {
        match self.frames.last_mut() {
            Some(Frame::Array(_, count)) => {
                if *count > 0 {
                    self.out.push(b',');
                }
                *count += 1;
                false
            }
            Some(Frame::Dict(want_key, count)) => {
                if *want_key && *count > 0 {
                    self.out.push(b',');
                }
                let key = *want_key;
                if key {
                    *count += 1;
                }
                key
            }
            Some(Frame::Brace(_)) | None => false,
        }
    }

    fn value(&mut self, b: u8) {
        match b {
            b if b.is_ascii_whitespace() => {}
            b'\'' | b'"' => {
                self.open_string(b, false);
            }
            b'[' | b'(' => {
                self.start_value();
                self.out.push(b'[');
                self.frames
                    .push(Frame::Array(if b == b'[' { b']' } else { b')' }, 0));
            }
            b'{' => {
                self.start_value();
                let at = self.out.len();
                self.hold.get_or_insert(at);
                self.frames.push(Frame::Brace(at));
            }
            b']' | b')' | b'}' => {
                self.state = State::After;
                self.after(b);
            }
            b',' => {
                self.state = State::After;
                self.after(b);
            }
            b => {
                self.token.clear();
                self.token.push(b);
                self.state = State::Token;
            }
        }
    }

    /// A bare token ended: a number, a literal, or a name.
    fn end_token(&mut self) {
        let token = std::mem::take(&mut self.token);
        let key = self.start_value();
        let json = token_json(&token);
        if key && !json.starts_with('"') {
            // A dict key must be a string: `{1: 'a'}` has the key `"1"`.
            self.out.push(b'"');
            escape_into(json.as_bytes(), &mut self.out);
            self.out.push(b'"');
        } else {
            self.out.extend_from_slice(json.as_bytes());
        }
    }

    fn after(&mut self, b: u8) {
        match b {
            b if b.is_ascii_whitespace() => {}
            b',' => match self.frames.last_mut() {
                None => self.state = State::Arg,
                Some(Frame::Brace(_)) => {
                    // `{a, …`: a set, an array.
                    self.decide_brace(b'[');
                    if let Some(frame) = self.frames.last_mut() {
                        *frame = Frame::Array(b'}', 1);
                    }
                    self.state = State::Value;
                }
                Some(Frame::Dict(want_key, _)) => {
                    *want_key = true;
                    self.state = State::Value;
                }
                Some(Frame::Array(..)) => self.state = State::Value,
            },
            b':' => match self.frames.last_mut() {
                Some(Frame::Brace(_)) => {
                    self.decide_brace(b'{');
                    if let Some(frame) = self.frames.last_mut() {
                        *frame = Frame::Dict(false, 1);
                    }
                    self.out.push(b':');
                    self.state = State::Value;
                }
                Some(Frame::Dict(want_key, _)) if *want_key => {
                    *want_key = false;
                    self.out.push(b':');
                    self.state = State::Value;
                }
                // A `:` anywhere else is out of place: skipped.
                _ => {}
            },
            b')' if self.frames.is_empty() => self.end_call(),
            b']' | b')' | b'}' => self.close_frame(b),
            b => {
                // Two values with no comma between them: the second starts.
                if self.frames.is_empty() {
                    self.state = State::Arg;
                } else {
                    if let Some(Frame::Dict(want_key, _)) = self.frames.last_mut() {
                        *want_key = !*want_key;
                    }
                    self.state = State::Value;
                }
                self.byte(b);
            }
        }
    }

    fn close_frame(&mut self, b: u8) {
        match self.frames.pop() {
            None => {
                // A closer with nothing open inside the call: the call ends.
                self.end_call();
                return;
            }
            Some(Frame::Brace(at)) => {
                // `{}` is an empty dict; `{x}` a set of one.
                self.frames.push(Frame::Brace(at));
                if at == self.out.len() {
                    self.decide_brace(b'{');
                    self.out.push(b'}');
                } else {
                    self.decide_brace(b'[');
                    self.out.push(b']');
                }
                self.frames.pop();
            }
            Some(Frame::Array(..)) => self.out.push(b']'),
            Some(Frame::Dict(..)) => self.out.push(b'}'),
        }
        let _ = b;
        self.state = State::After;
    }

    /// The innermost frame, an undecided `{`, is a dict (`{`) or a set
    /// (`[`): its opener goes in where its output starts (a dict's first
    /// key written as a string), and what no brace holds any more is free
    /// to be handed out.
    fn decide_brace(&mut self, opener: u8) {
        let Some(&Frame::Brace(at)) = self.frames.last() else {
            return;
        };
        if opener == b'{' && at < self.out.len() && self.out[at] != b'"' {
            // `{1: 'a'}`: a key that is not a string is written as one.
            let key = self.out.split_off(at);
            self.out.push(b'"');
            escape_into(&key, &mut self.out);
            self.out.push(b'"');
        }
        self.out.insert(at, opener);
        // The outermost undecided brace left is the hold.
        self.hold = self
            .frames
            .iter()
            .take(self.frames.len() - 1)
            .find_map(|frame| match frame {
                Frame::Brace(at) => Some(*at),
                _ => None,
            });
    }
}

/// Letters, digits, `_` and any byte of a multi-byte character: what a
/// Python name is made of.
pub(crate) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn args(text: &str) -> (Value, usize) {
        let mut reader = PythonArgs::new(None);
        let used = reader.push(text.as_bytes());
        let mut out = Vec::new();
        reader.finish_into(&mut out);
        let text = String::from_utf8(out).unwrap();
        (
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}")),
            used,
        )
    }

    fn chunked(text: &str) -> String {
        let mut reader = PythonArgs::new(None);
        let mut out = Vec::new();
        for b in text.as_bytes() {
            reader.push(std::slice::from_ref(b));
            reader.drain_into(&mut out);
        }
        reader.finish_into(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn python_literals_become_json() {
        let cases = [
            (r#"city='SF', n=3)"#, json!({"city": "SF", "n": 3})),
            (
                r#"name='Doe', address={'city': 'LA'}, role=None, ok=True, aliases=['J', "K"])"#,
                json!({"name": "Doe", "address": {"city": "LA"}, "role": null, "ok": true, "aliases": ["J", "K"]}),
            ),
            (
                r#"city='Martha\'s Vineyard', m='\"cool\"')"#,
                json!({"city": "Martha's Vineyard", "m": "\"cool\""}),
            ),
            ("steps=[], d={})", json!({"steps": [], "d": {}})),
            (
                "tags={'a', 'b'}, t=(1, 2))",
                json!({"tags": ["a", "b"], "t": [1, 2]}),
            ),
            (
                "month=07, x=0x1F, y=1_000, z=-2.5e3)",
                json!({"month": 7, "x": 31, "y": 1000, "z": -2500.0}),
            ),
            (
                "c='sed -n '360,450p' f.py')",
                json!({"c": "sed -n '360,450p' f.py"}),
            ),
            (
                "s='''a 'b' c''', r=r'C:\\p')",
                json!({"s": "a 'b' c", "r": "C:\\p"}),
            ),
            (
                "s='a\\nb\\x41\\u00e9', e='')",
                json!({"s": "a\nbA\u{e9}", "e": ""}),
            ),
            ("m={1: 'a'})", json!({"m": {"1": "a"}})),
            (")", json!({})),
        ];
        for (text, expected) in cases {
            let (value, used) = args(text);
            assert_eq!(value, expected, "{text}");
            assert_eq!(used, text.len(), "{text}");
            let streamed: Value = serde_json::from_str(&chunked(text)).unwrap();
            assert_eq!(streamed, expected, "{text} a byte at a time");
        }
    }
}
