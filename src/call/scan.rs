//! Byte scanners for the call forms: where a raw value ends, and the fields
//! of a `{"tool_call": …, "args": …}` object.
//!
//! They read broken text a byte at a time as it streams, so they cannot use
//! the strict document layer (`doc/`), and they only find where things end:
//! what a value means is the engine's job once its bytes are handed on. The
//! classes they need come from the tokenizer (`lex`): which byte is which
//! quote, and which bytes end a bare word. Once a key or a name has ended,
//! its text is decoded by `doc/`'s string decoder, as `@json` decodes keys.
//! What is their own is the call's
//! shape: which keys hold the name and the arguments, and that a bare value
//! runs on past an opener (see [`ends_bare_value`]). Between tokens they
//! skip ASCII whitespace, a form feed too, rather than [`lex::is_ws`]: any
//! other byte there starts a bare key or value, and a stray form feed before
//! `{` would make the arguments a bare word cut at their first comma.

use crate::doc::syntax::decode_body;
use crate::lex::{self, Quote};

/// The straight quote `b` is, as the tokenizer names it (`"` is
/// [`Quote::Double`], `'` [`Quote::Single`]). The call forms quote with
/// these two only: a backtick or a typographic quote is text to them, so an
/// `args='…'` attribute ends where its own quote does, and whether a quote
/// inside the arguments was right is left to the engine.
#[inline]
fn straight_quote(b: u8) -> Option<Quote> {
    match lex::quote_at(std::slice::from_ref(&b)) {
        Some((quote @ (Quote::Double | Quote::Single), _)) => Some(quote),
        _ => None,
    }
}

/// Whether `b` ends a bare (unquoted) value: where the tokenizer ends a bare
/// word ([`lex::ends_bare_word`]), except at an opener. A `{` or `[` after a
/// bare word (`data[0]`, `f{`) stays in the value, because a value that
/// ended there would leave the opener to be read as the start of the next
/// key.
#[inline]
fn ends_bare_value(b: u8) -> bool {
    lex::ends_bare_word(b) && !matches!(b, b'{' | b'[')
}

/// What a byte did to a [`ValueScanner`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// The byte belongs to the value, which goes on.
    More,
    /// The byte is the value's last.
    EndAfter,
    /// The value ended before this byte (a bare value meeting `,` or `}`).
    EndBefore,
}

/// Finds where one raw (possibly broken) JSON value ends: a container by its
/// depth, a string by its closing quote, a bare word at `,`, `}` or `]`.
/// Strings in `"` and `'` are both honoured, so a `'` inside `"…"` does not
/// end an `args='…'` attribute.
#[derive(Debug, Clone, Default)]
pub(super) struct ValueScanner {
    started: bool,
    depth: usize,
    /// The quote of the string being read, if any.
    quote: Option<Quote>,
    escaped: bool,
    /// The value is one string, not a container.
    string_only: bool,
}

impl ValueScanner {
    /// Whether the first byte has been seen.
    pub(super) fn started(&self) -> bool {
        self.started
    }

    /// Whether the scanner is inside a string.
    pub(super) fn in_string(&self) -> bool {
        self.quote.is_some()
    }

    pub(super) fn step(&mut self, b: u8) -> Step {
        if !self.started {
            self.started = true;
            match b {
                b'{' | b'[' => self.depth = 1,
                b',' | b'}' | b']' => return Step::EndBefore,
                _ => {
                    self.quote = straight_quote(b);
                    self.string_only = self.quote.is_some();
                }
            }
            return Step::More;
        }
        if let Some(quote) = self.quote {
            // A backslash takes the next byte, whatever it is: where the
            // string ends is all that is asked here, not what the escape
            // means.
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if straight_quote(b) == Some(quote) {
                self.quote = None;
                if self.string_only {
                    return Step::EndAfter;
                }
            }
            return Step::More;
        }
        if self.depth == 0 {
            return if ends_bare_value(b) {
                Step::EndBefore
            } else {
                Step::More
            };
        }
        if let Some(quote) = straight_quote(b) {
            self.quote = Some(quote);
            return Step::More;
        }
        match b {
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                self.depth -= 1;
                if self.depth == 0 {
                    return Step::EndAfter;
                }
            }
            _ => {}
        }
        Step::More
    }
}

/// Keys that hold the tool's name in the object form.
pub(super) fn is_name_key(key: &[u8]) -> bool {
    matches!(key, b"tool_call" | b"name" | b"tool" | b"tool_name")
}

/// Keys that hold the arguments in the object form.
pub(super) fn is_args_key(key: &[u8]) -> bool {
    matches!(key, b"args" | b"arguments" | b"parameters" | b"input")
}

/// What an [`ObjectScanner`] asks its caller to do with a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    /// Nothing: structure.
    None,
    /// The byte belongs to the arguments.
    Args,
    /// The byte closed the object: the call is complete.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the object's `{`.
    Open,
    Key,
    KeyQuoted(Quote),
    KeyBare,
    Colon,
    ValueStart,
    Value(Target),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Name,
    Args,
    Skip,
}

/// Reads the inside of a call object (after its `{`): which key holds the
/// name, which the arguments, and where the object ends.
#[derive(Debug, Clone)]
pub(super) struct ObjectScanner {
    phase: Phase,
    key: Vec<u8>,
    value: ValueScanner,
    name: Vec<u8>,
    name_ready: bool,
    shape: Shape,
}

/// Where a call object keeps its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// In a member (`"name": …`), the arguments in another.
    Fields,
    /// As the key of its one member, whose value is the arguments
    /// (`{"get_weather": {…}}`, Apertus).
    Keyed,
}

impl ObjectScanner {
    /// A scanner just after the object's `{`.
    pub(super) fn new() -> Self {
        ObjectScanner {
            phase: Phase::Key,
            key: Vec::new(),
            value: ValueScanner::default(),
            name: Vec::new(),
            name_ready: false,
            shape: Shape::Fields,
        }
    }

    /// A scanner just after the `{` of an object whose one key is the
    /// tool's name (`{"get_weather": {"city": "Paris"}}`).
    pub(super) fn keyed() -> Self {
        ObjectScanner {
            shape: Shape::Keyed,
            ..ObjectScanner::new()
        }
    }

    /// A scanner before the object's `{` (leading whitespace is skipped,
    /// other bytes are dropped).
    pub(super) fn new_before_brace() -> Self {
        let mut scanner = ObjectScanner::new();
        scanner.phase = Phase::Open;
        scanner
    }

    /// A scanner that has read the key `key` already.
    pub(super) fn after_key(key: &[u8]) -> Self {
        let mut scanner = ObjectScanner::new();
        scanner.key = key.to_vec();
        scanner.phase = Phase::Colon;
        scanner
    }

    /// The name, without its quotes, once its value has ended (once).
    pub(super) fn take_name(&mut self) -> Option<String> {
        if !self.name_ready {
            return None;
        }
        self.name_ready = false;
        let name = std::mem::take(&mut self.name);
        let name = String::from_utf8_lossy(&name);
        let is_quote = |c: char| u8::try_from(c).is_ok_and(|b| straight_quote(b).is_some());
        // The text between the quotes is decoded as `doc/` decodes every
        // string body (`"\u0040json"` is `@json`); one that does not decode
        // is taken as written.
        Some(decode_body(name.trim().trim_matches(is_quote).as_bytes()))
    }

    pub(super) fn step(&mut self, b: u8) -> Action {
        match self.phase {
            Phase::Open => {
                if b == b'{' {
                    self.phase = Phase::Key;
                }
            }
            Phase::Key => {
                if let Some(quote) = straight_quote(b) {
                    self.key.clear();
                    self.phase = Phase::KeyQuoted(quote);
                    return Action::None;
                }
                match b {
                    b'}' => return Action::Done,
                    b',' => {}
                    b if b.is_ascii_whitespace() => {}
                    b => {
                        self.key.clear();
                        self.key.push(b);
                        self.phase = Phase::KeyBare;
                    }
                }
            }
            Phase::KeyQuoted(quote) => {
                // The first quote of the key's kind ends it, escaped or not:
                // the keys asked about (`name`, `args`, …) hold neither, and
                // a stray backslash before an end quote (`{"a\": 1`) then
                // costs the keys after it nothing.
                if straight_quote(b) == Some(quote) {
                    self.phase = Phase::Colon;
                } else {
                    self.key.push(b);
                }
            }
            Phase::KeyBare => match b {
                b':' => self.phase = Phase::ValueStart,
                b if b.is_ascii_whitespace() => self.phase = Phase::Colon,
                b => self.key.push(b),
            },
            Phase::Colon => match b {
                b':' => self.phase = Phase::ValueStart,
                b'}' => return Action::Done,
                _ => {}
            },
            Phase::ValueStart => {
                if b.is_ascii_whitespace() {
                    return Action::None;
                }
                // The key as `doc/` decodes a string body, so `"n\u0061me"`
                // is `name` here as it is to `@json`.
                let key = decode_body(&self.key);
                let target = if self.shape == Shape::Keyed {
                    if self.name_ready || !self.name.is_empty() {
                        Target::Skip
                    } else {
                        // The key is the name; the value, the arguments.
                        self.name = key.into_bytes();
                        self.name_ready = true;
                        Target::Args
                    }
                } else if is_name_key(key.as_bytes()) {
                    self.name.clear();
                    Target::Name
                } else if is_args_key(key.as_bytes()) {
                    Target::Args
                } else {
                    Target::Skip
                };
                self.value = ValueScanner::default();
                self.phase = Phase::Value(target);
                return self.value_byte(target, b);
            }
            Phase::Value(target) => return self.value_byte(target, b),
        }
        Action::None
    }

    fn value_byte(&mut self, target: Target, b: u8) -> Action {
        match self.value.step(b) {
            Step::More => self.take(target, b),
            Step::EndAfter => {
                let action = self.take(target, b);
                self.phase = Phase::Key;
                self.name_ready |= target == Target::Name;
                action
            }
            Step::EndBefore => {
                self.phase = Phase::Key;
                self.name_ready |= target == Target::Name;
                self.step(b)
            }
        }
    }

    fn take(&mut self, target: Target, b: u8) -> Action {
        match target {
            Target::Name => {
                self.name.push(b);
                Action::None
            }
            Target::Args => Action::Args,
            Target::Skip => Action::None,
        }
    }
}

/// What the bytes held after a `{` in text say about a call object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Head {
    /// Not decided yet: more bytes are needed.
    Need,
    /// Not a call: the bytes are text.
    Text,
    /// `{"tool_call"`: argmend's own object form.
    ToolCall,
    /// `{"name": "<a known tool>", "arguments"` (or `"parameters"`): the
    /// Hermes, Llama 3 and Mistral object, standing alone in the text.
    Named,
}

/// The longest head [`classify_head`] reads before it calls the bytes text.
pub(super) const HEAD_LOOKAHEAD: usize = 160;

/// Classify `held` (starting with `{`). A bare object counts as a call only
/// with exactly the shape of one, `{"name": "…", "arguments": …}` with the
/// name first, and only when `knows` the name, so ordinary JSON in prose
/// (`{"name": "Ada", "age": 3}`) stays text. The answer depends on the bytes
/// alone, never on where a chunk ended.
pub(super) fn classify_head(held: &[u8], knows: &dyn Fn(&str) -> bool) -> Head {
    let mut cursor = HeadCursor { bytes: held, at: 1 };
    match read_head(&mut cursor, knows) {
        Ok(head) | Err(head) => head,
    }
}

fn read_head(cursor: &mut HeadCursor<'_>, knows: &dyn Fn(&str) -> bool) -> Result<Head, Head> {
    {
        cursor.spaces();
        let key = cursor.quoted(16, &[b"tool_call", b"name"])?;
        if key == b"tool_call" {
            return Ok(Head::ToolCall);
        }
        if key != b"name" {
            return Err(Head::Text);
        }
        cursor.spaces();
        cursor.expect(b':')?;
        cursor.spaces();
        let name = cursor.quoted(64, &[])?;
        let name = std::str::from_utf8(name).map_err(|_| Head::Text)?;
        if name.is_empty() || !knows(name) {
            return Err(Head::Text);
        }
        cursor.spaces();
        cursor.expect(b',')?;
        cursor.spaces();
        let key = cursor.quoted(16, &[b"arguments", b"parameters"])?;
        match key {
            b"arguments" | b"parameters" => Ok(Head::Named),
            _ => Err(Head::Text),
        }
    }
}

struct HeadCursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> HeadCursor<'a> {
    fn spaces(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), Head> {
        match self.bytes.get(self.at) {
            None => Err(Head::Need),
            Some(&c) if c == b => {
                self.at += 1;
                Ok(())
            }
            Some(_) => Err(Head::Text),
        }
    }

    /// A string in `"` or `'` of at most `max` bytes. While it is open, it
    /// must be a prefix of one of `words` (when there are any). It must be
    /// plain, no escape and no control character: no key or tool name the
    /// head looks for needs one, and the head is a lookahead that calls
    /// anything unusual prose rather than hold text back for it.
    fn quoted(&mut self, max: usize, words: &[&[u8]]) -> Result<&'a [u8], Head> {
        let quote = match self.bytes.get(self.at) {
            None => return Err(Head::Need),
            Some(&b) => straight_quote(b).ok_or(Head::Text)?,
        };
        let start = self.at + 1;
        let mut end = start;
        loop {
            match self.bytes.get(end) {
                None => {
                    let so_far = &self.bytes[start..end];
                    let fits = words.is_empty() || words.iter().any(|w| w.starts_with(so_far));
                    return Err(if fits { Head::Need } else { Head::Text });
                }
                Some(&c) if straight_quote(c) == Some(quote) => break,
                Some(&c) if c < 0x20 || c == b'\\' || end - start >= max => return Err(Head::Text),
                Some(_) => end += 1,
            }
        }
        self.at = end + 1;
        Ok(&self.bytes[start..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The name and the argument bytes an object scanner finds in `text`
    /// (which starts after the object's `{`).
    fn read(text: &str) -> (Option<String>, String) {
        let mut scanner = ObjectScanner::new();
        let mut name = None;
        let mut args = Vec::new();
        for &b in text.as_bytes() {
            let action = scanner.step(b);
            name = scanner.take_name().or(name);
            if action == Action::Args {
                args.push(b);
            }
        }
        (name, String::from_utf8(args).unwrap_or_default())
    }

    #[test]
    fn keys_and_names_are_decoded_as_doc_decodes_strings() {
        assert_eq!(
            read(r#""n\u0061me": "\u0040json", "\u0061rgs": {"a": 1}}"#),
            (Some("@json".to_owned()), r#"{"a": 1}"#.to_owned())
        );
        // A body that does not decode is taken as written.
        assert_eq!(
            read(r#""name": "a\qb", "args": 1}"#),
            (Some(r"a\qb".to_owned()), "1".to_owned())
        );
    }
}
