//! Truths and their text as tokens: a value drawn from the pool, written in
//! a layout as a list of tokens that a family then damages.
//!
//! Writing to tokens, not to text, lets a family name its site exactly
//! ("the third closer of this run", "the `[` of the second row") and edit
//! it, while the truth stays the value the tokens were written from.

use serde_json::{Map, Value};

use super::pool::{KEYS, NUMBERS, STRINGS};
use crate::rng::Rng;

/// One token of the written text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    Open(u8),
    Close(u8),
    /// A key as written, quotes included.
    Key(String),
    /// `:` and the whitespace after it.
    Colon(String),
    Comma,
    /// A scalar as written (a string with its quotes).
    Scalar(String),
    Ws(String),
}

impl Tok {
    pub(super) fn text(&self) -> &str {
        match self {
            Tok::Open(b'{') => "{",
            Tok::Open(_) => "[",
            Tok::Close(b'}') => "}",
            Tok::Close(_) => "]",
            Tok::Key(text) | Tok::Colon(text) | Tok::Scalar(text) | Tok::Ws(text) => text,
            Tok::Comma => ",",
        }
    }

    pub(super) fn is_close(&self) -> bool {
        matches!(self, Tok::Close(_))
    }

    pub(super) fn is_ws(&self) -> bool {
        matches!(self, Tok::Ws(_))
    }
}

pub(super) fn render(toks: &[Tok]) -> String {
    toks.iter().map(Tok::text).collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Layout {
    /// `{"a":"b","c":1}`
    Compact,
    /// `{"a": "b", "c": 1}`
    Spaced,
    /// One member a line, indented by two spaces a level.
    Pretty,
}

impl Layout {
    pub(super) const ALL: [Layout; 3] = [Layout::Compact, Layout::Spaced, Layout::Pretty];

    pub(super) fn name(self) -> &'static str {
        match self {
            Layout::Compact => "compact",
            Layout::Spaced => "spaced",
            Layout::Pretty => "pretty",
        }
    }

    fn indent(depth: usize) -> String {
        format!("\n{}", "  ".repeat(depth))
    }
}

/// Write `value` at `depth` in `layout`.
pub(super) fn write(value: &Value, layout: Layout, depth: usize, out: &mut Vec<Tok>) {
    let colon = if layout == Layout::Compact { ":" } else { ": " };
    let (open, close, n) = match value {
        Value::Object(map) => (b'{', b'}', map.len()),
        Value::Array(items) => (b'[', b']', items.len()),
        scalar => {
            out.push(Tok::Scalar(scalar.to_string()));
            return;
        }
    };
    out.push(Tok::Open(open));
    if n == 0 {
        out.push(Tok::Close(close));
        return;
    }
    // Rows of scalars stay on one line even when pretty, as models write them.
    let flat = matches!(value, Value::Array(items) if items.iter().all(|v| !v.is_object() && !v.is_array()));
    let pretty = layout == Layout::Pretty && !flat;
    let sep = |out: &mut Vec<Tok>, first: bool| {
        if !first {
            out.push(Tok::Comma);
        }
        if pretty {
            out.push(Tok::Ws(Layout::indent(depth + 1)));
        } else if !first && layout != Layout::Compact {
            out.push(Tok::Ws(" ".to_owned()));
        }
    };
    match value {
        Value::Object(map) => {
            for (k, (key, v)) in map.iter().enumerate() {
                sep(out, k == 0);
                out.push(Tok::Key(Value::String(key.clone()).to_string()));
                out.push(Tok::Colon(colon.to_owned()));
                write(v, layout, depth + 1, out);
            }
        }
        Value::Array(items) => {
            for (k, v) in items.iter().enumerate() {
                sep(out, k == 0);
                write(v, layout, depth + 1, out);
            }
        }
        _ => {}
    }
    if pretty {
        out.push(Tok::Ws(Layout::indent(depth)));
    }
    out.push(Tok::Close(close));
}

/// Draws truths.
pub(super) struct Draw<'r> {
    pub(super) rng: &'r mut Rng,
}

impl Draw<'_> {
    pub(super) fn string(&mut self) -> Value {
        Value::String((*self.rng.pick(STRINGS)).to_owned())
    }

    pub(super) fn scalar(&mut self) -> Value {
        match self.rng.below(10) {
            0..=5 => self.string(),
            6 | 7 => {
                let number = *self.rng.pick(NUMBERS);
                serde_json::from_str(number).expect("a number")
            }
            8 => Value::Bool(self.rng.chance(50)),
            _ => Value::Null,
        }
    }

    /// `n` distinct keys.
    pub(super) fn keys(&mut self, n: usize) -> Vec<&'static str> {
        let mut keys: Vec<&'static str> = KEYS.to_vec();
        self.rng.shuffle(&mut keys);
        keys.truncate(n);
        keys
    }

    /// An array of `n` objects with the same keys (a table), as models
    /// write lists of records.
    pub(super) fn records(&mut self, n: usize) -> Value {
        let width = 1 + self.rng.below(3);
        let keys = self.keys(width);
        let rows = (0..n)
            .map(|_| {
                Value::Object(
                    keys.iter()
                        .map(|k| ((*k).to_owned(), self.scalar()))
                        .collect::<Map<String, Value>>(),
                )
            })
            .collect();
        Value::Array(rows)
    }

    /// An array of `n` rows of `width` strings (a table).
    pub(super) fn table(&mut self, n: usize, width: usize) -> Value {
        Value::Array(
            (0..n)
                .map(|_| Value::Array((0..width).map(|_| self.string()).collect()))
                .collect(),
        )
    }

    /// A member value of some nesting: scalars mostly, sometimes a list,
    /// a table of records or a nested object.
    pub(super) fn member(&mut self, depth: usize) -> Value {
        if depth >= 3 {
            return self.scalar();
        }
        match self.rng.below(12) {
            0..=5 => self.scalar(),
            6 => Value::Array((0..1 + self.rng.below(3)).map(|_| self.string()).collect()),
            7 | 8 => {
                let n = 2 + self.rng.below(3);
                self.records(n)
            }
            9 => {
                let (n, w) = (2 + self.rng.below(3), 2 + self.rng.below(2));
                self.table(n, w)
            }
            _ => self.sized(depth + 1, 1, 3),
        }
    }

    /// An object of `least` to `least + spread - 1` members, some nested.
    pub(super) fn sized(&mut self, depth: usize, least: usize, spread: usize) -> Value {
        let n = least + self.rng.below(spread);
        self.object(depth, n)
    }

    /// An object of `n` members, some nested.
    pub(super) fn object(&mut self, depth: usize, n: usize) -> Value {
        let keys = self.keys(n);
        Value::Object(
            keys.into_iter()
                .map(|k| (k.to_owned(), self.member(depth)))
                .collect(),
        )
    }
}
