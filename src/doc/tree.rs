//! An owned tree over valid JSON text that keeps each value's span, and
//! edits on that text.
//!
//! The normalize layer never re-serialises a whole value: serde_json's `Map`
//! would sort the keys, fold duplicates and round big integers. It parses the
//! engine's output into nodes that remember where they stand in the text, and
//! changes the text only where a rule applies, by splicing ([`Edit`]). Unlike
//! [`super::lazy::Doc`], which answers one question about a big payload, it
//! builds every node: schema coercion visits them all. Strings, numbers and
//! literals are read by the layer's shared scanners.

use super::syntax::{decode_body, strict_string};

/// One JSON value and the byte range of its text.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// The first byte of the value.
    pub(crate) start: usize,
    /// One past the last byte of the value.
    pub(crate) end: usize,
    /// What kind of value, with its children.
    pub(crate) kind: Kind,
}

/// The kinds of JSON value; strings and numbers are read from the text on demand.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array(Vec<Node>),
    Object(Vec<Member>),
}

/// One member of an object, in text order (duplicates are kept).
#[derive(Debug, Clone)]
pub(crate) struct Member {
    /// The decoded key.
    pub(crate) key: String,
    /// Where the key's opening quote stands.
    pub(crate) key_start: usize,
    /// The value.
    pub(crate) value: Node,
}

impl Node {
    /// The JSON type name, as JSON Schema spells it (`integer` is reported as `number`).
    pub(crate) fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Bool => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array(_) => "array",
            Kind::Object(_) => "object",
        }
    }
}

/// Parse `text` as exactly one JSON value surrounded by optional whitespace.
///
/// `None` when the text is not strictly valid JSON or nests deeper than
/// `max_depth` (the parser recurses, so the depth is bounded up front).
pub(crate) fn parse(text: &str, max_depth: usize) -> Option<Node> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        max_depth,
    };
    parser.skip_ws();
    let node = parser.value(0)?;
    parser.skip_ws();
    (parser.pos == parser.bytes.len()).then_some(node)
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    max_depth: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.bytes.get(self.pos) == Some(&byte)).then(|| self.pos += 1)
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        let start = self.pos;
        let kind = match *self.bytes.get(self.pos)? {
            b'{' => self.object(depth)?,
            b'[' => self.array(depth)?,
            b'"' => {
                self.string()?;
                Kind::String
            }
            b't' => self.word(b"true", Kind::Bool)?,
            b'f' => self.word(b"false", Kind::Bool)?,
            b'n' => self.word(b"null", Kind::Null)?,
            _ => {
                self.pos += crate::lex::number_len(&self.bytes[self.pos..])?;
                Kind::Number
            }
        };
        Some(Node {
            start,
            end: self.pos,
            kind,
        })
    }

    fn word(&mut self, word: &[u8], kind: Kind) -> Option<Kind> {
        self.bytes[self.pos..].starts_with(word).then(|| {
            self.pos += word.len();
            kind
        })
    }

    fn object(&mut self, depth: usize) -> Option<Kind> {
        self.items(depth, b'}', |p| {
            let key_start = p.pos;
            p.string()?;
            let key = decode_string(&p.text[key_start..p.pos])?;
            p.skip_ws();
            p.eat(b':')?;
            p.skip_ws();
            let value = p.value(depth + 1)?;
            Some(Member {
                key,
                key_start,
                value,
            })
        })
        .map(Kind::Object)
    }

    fn array(&mut self, depth: usize) -> Option<Kind> {
        self.items(depth, b']', |p| p.value(depth + 1))
            .map(Kind::Array)
    }

    /// The items of the container opening at `pos`, up to its `closer`,
    /// each read by `item`; `None` past the depth bound or on bad syntax.
    fn items<T>(
        &mut self,
        depth: usize,
        closer: u8,
        mut item: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<Vec<T>> {
        if depth >= self.max_depth {
            return None;
        }
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.eat(closer).is_some() {
            return Some(items);
        }
        loop {
            self.skip_ws();
            items.push(item(self)?);
            self.skip_ws();
            if self.eat(b',').is_none() {
                self.eat(closer)?;
                return Some(items);
            }
        }
    }

    /// Step over a string literal, checking its escapes, control bytes and UTF-8.
    fn string(&mut self) -> Option<()> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        self.pos = strict_string(self.bytes, self.pos).ok()?;
        Some(())
    }
}

/// Whether `text` is exactly one strict JSON number.
pub(crate) fn is_number(text: &str) -> bool {
    crate::lex::number_len(text.as_bytes()) == Some(text.len())
}

/// Whether `text` is exactly one strict JSON integer (no fraction, no exponent).
pub(crate) fn is_integer(text: &str) -> bool {
    is_number(text) && !text.contains(['.', 'e', 'E'])
}

/// Decode a string literal (quotes included) that the parser accepted.
pub(crate) fn decode_string(literal: &str) -> Option<String> {
    let body = literal.strip_prefix('"')?.strip_suffix('"')?;
    Some(decode_body(body.as_bytes()))
}

/// A JSON string literal for `s` (quotes included), escaping only what JSON requires.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    crate::repair::push_json_escaped(&mut out, s);
    out.push('"');
    out
}

/// Replace `text[start..end]` with `with` (an insertion when `start == end`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) with: String,
}

impl Edit {
    pub(crate) fn new(start: usize, end: usize, with: impl Into<String>) -> Self {
        Edit {
            start,
            end,
            with: with.into(),
        }
    }
}

/// Apply non-overlapping edits to `text[from..to]` (edits outside the range
/// are ignored); the result is the new text of that range.
pub(crate) fn apply(text: &str, from: usize, to: usize, edits: &[Edit]) -> String {
    let mut sorted: Vec<&Edit> = edits
        .iter()
        .filter(|edit| edit.start >= from && edit.end <= to)
        .collect();
    // Stable: insertions at the same place keep the order they were made in.
    sorted.sort_by_key(|edit| (edit.start, edit.end));
    let mut out = String::with_capacity(to - from);
    let mut at = from;
    for edit in sorted {
        if edit.start < at {
            // Overlapping edits are a bug in a rule; the earlier one wins.
            continue;
        }
        out.push_str(&text[at..edit.start]);
        out.push_str(&edit.with);
        at = edit.end;
    }
    out.push_str(&text[at..to]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_duplicates_and_spans() {
        let text = r#" {"b": [1, 2.50], "a": "x", "b": null} "#;
        let node = parse(text, 8).unwrap();
        let Kind::Object(members) = &node.kind else {
            panic!("an object")
        };
        let keys: Vec<&str> = members.iter().map(|m| m.key.as_str()).collect();
        assert_eq!(keys, ["b", "a", "b"]);
        let Kind::Array(items) = &members[0].value.kind else {
            panic!("an array")
        };
        assert_eq!(&text[items[1].start..items[1].end], "2.50");
        assert_eq!(&text[node.start..node.end], text.trim());
    }

    #[test]
    fn refuses_what_is_not_strict_json() {
        for bad in [
            "{a:1}",
            "[1,]",
            "01",
            "{",
            "{\"a\":1,",
            "[\"",
            "\"\\x\"",
            "\"a\nb\"",
            "[1] 2",
            "1.",
            "-",
        ] {
            assert!(parse(bad, 8).is_none(), "{bad}");
        }
        assert!(parse("[[[1]]]", 2).is_none());
        assert!(parse("[[[1]]]", 3).is_some());
    }

    #[test]
    fn edits_splice_in_order() {
        let text = "abcdef";
        let edits = [
            Edit::new(4, 5, "E"),
            Edit::new(1, 1, "+"),
            Edit::new(0, 1, ""),
        ];
        assert_eq!(apply(text, 0, 6, &edits), "+bcdEf");
        assert_eq!(apply(text, 2, 6, &edits), "cdEf");
    }

    #[test]
    fn quote_escapes_only_what_json_needs() {
        assert_eq!(quote("a\"b\\c\n\u{1}é"), "\"a\\\"b\\\\c\\n\\u0001é\"");
    }
}
