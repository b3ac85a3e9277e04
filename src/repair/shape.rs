//! The containers still open, as the output shows them: for each, the keys
//! an object has so far, or the kinds of an array's elements (objects with
//! their keys, arrays with their length, scalars).
//!
//! Structural decisions ask it when the input alone does not settle them: a
//! run of closers that fits two containers equally (which one's elements
//! does the next `{` resemble?), a scalar where an array's rows are arrays
//! (is its `[` missing?), a key where an array's elements are objects (is
//! its `{`?). The output is JSON text the machine wrote, so it reads
//! strictly and cheaply; it is read only for such a decision, at most
//! [`SHAPE_WINDOW`] bytes back, which a repairer that forgets returned
//! output keeps (see `Machine::take_committed`), so the answer is the same
//! whatever the output options and however the input was cut.

use super::context::{escaped, string_start};

/// How much output before the decision the shapes are read from.
pub(super) const SHAPE_WINDOW: usize = 4096;

/// How many keys or elements of one container are kept.
const MAX_ITEMS: usize = 64;

/// A key as its JSON text between the quotes.
pub(super) type Key = Box<[u8]>;

/// One element of an array, as far as its shape goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Element {
    /// An object, with its keys.
    Object(Vec<Key>),
    /// An array, with its length.
    Array(usize),
    String,
    /// A number or a literal.
    Scalar,
}

impl Element {
    /// Elements of the same kind (an object with an object, …).
    pub(super) fn same_kind(&self, other: &Element) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

/// An open container as the output shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Shape {
    /// An object and its keys so far.
    Object(Vec<Key>),
    /// An array and its elements so far.
    Array(Vec<Element>),
}

impl Shape {
    /// The elements of an array whose kinds all agree, the kind they share:
    /// `None` for an object, an empty array or mixed kinds.
    pub(super) fn uniform(&self) -> Option<&Element> {
        let Shape::Array(elements) = self else {
            return None;
        };
        let first = elements.first()?;
        elements.iter().all(|e| e.same_kind(first)).then_some(first)
    }

    /// Whether any object element of an array, or the object itself, has `key`.
    pub(super) fn knows_key(&self, key: &[u8]) -> bool {
        match self {
            Shape::Object(keys) => keys.iter().any(|k| &k[..] == key),
            Shape::Array(elements) => elements
                .iter()
                .any(|e| matches!(e, Element::Object(keys) if keys.iter().any(|k| &k[..] == key))),
        }
    }
}

/// The shapes of the innermost `n` containers open at output position `end`
/// (the innermost first); `out` holds the output from position `base` on.
/// A container whose opener lies more than [`SHAPE_WINDOW`] bytes back, or
/// before `base`, is `None`, as are those outside it.
pub(super) fn open_shapes(out: &str, base: usize, end: usize, n: usize) -> Vec<Option<Shape>> {
    let mut shapes = vec![None; n];
    let Some(stop) = end.checked_sub(base) else {
        return shapes;
    };
    let bytes = out.as_bytes();
    let stop = stop.min(bytes.len());
    let floor = stop.saturating_sub(SHAPE_WINDOW);
    let mut depth = 0usize;
    let mut found = 0;
    let mut k = stop;
    while k > floor && found < n {
        k -= 1;
        match bytes[k] {
            b'"' if !escaped(bytes, k) => match string_start(bytes, k, floor) {
                Some(start) => k = start,
                None => return shapes,
            },
            b'}' | b']' => depth += 1,
            b'{' | b'[' if depth > 0 => depth -= 1,
            b'{' | b'[' => {
                shapes[found] = Some(summarize(bytes, k, stop));
                found += 1;
            }
            _ => {}
        }
    }
    shapes
}

/// The members of the innermost object open at output position `end` (its
/// key and its value's text with the whitespace outside strings taken
/// out), when its opener lies within [`SHAPE_WINDOW`] bytes.
pub(super) fn open_members(out: &str, base: usize, end: usize) -> Option<Vec<(Key, Box<[u8]>)>> {
    let stop = end.checked_sub(base)?;
    let bytes = out.as_bytes();
    let stop = stop.min(bytes.len());
    let floor = stop.saturating_sub(SHAPE_WINDOW);
    // Back to the object's opener.
    let mut depth = 0usize;
    let mut k = stop;
    let open = loop {
        if k <= floor {
            return None;
        }
        k -= 1;
        match bytes[k] {
            b'"' if !escaped(bytes, k) => loop {
                if k <= floor {
                    return None;
                }
                k -= 1;
                if bytes[k] == b'"' && !escaped(bytes, k) {
                    break;
                }
            },
            b'}' | b']' => depth += 1,
            b'{' | b'[' if depth > 0 => depth -= 1,
            b'{' => break k,
            b'[' => return None,
            _ => {}
        }
    };
    let mut members = Vec::new();
    let mut k = open + 1;
    while k < stop && members.len() < MAX_ITEMS {
        let b = bytes[k];
        if crate::lex::is_ws(b) || b == b',' {
            k += 1;
            continue;
        }
        if b != b'"' {
            return Some(members);
        }
        let key_end = string_end(bytes, k, stop);
        let key: Key = bytes[k + 1..key_end.saturating_sub(1).max(k + 1)].into();
        let mut v = key_end;
        while v < stop && (crate::lex::is_ws(bytes[v]) || bytes[v] == b':') {
            v += 1;
        }
        if v >= stop {
            return Some(members);
        }
        let (value_end, _) = skip_value(bytes, v, stop);
        members.push((key, compact(&bytes[v..value_end])));
        k = value_end;
    }
    Some(members)
}

/// JSON text without the whitespace outside its strings.
pub(super) fn compact(text: &[u8]) -> Box<[u8]> {
    let mut out = Vec::with_capacity(text.len());
    let mut in_string = false;
    let mut escape = false;
    for &b in text {
        if in_string {
            out.push(b);
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
            out.push(b);
        } else if !crate::lex::is_ws(b) {
            out.push(b);
        }
    }
    out.into()
}

/// The end of the string whose opening quote is at `k` (just past its
/// closing quote, or `to`).
fn string_end(bytes: &[u8], mut k: usize, to: usize) -> usize {
    k += 1;
    while k < to {
        match bytes[k] {
            b'\\' => k += 2,
            b'"' => return k + 1,
            _ => k += 1,
        }
    }
    to
}

/// What the container opened at `open` holds up to `to`.
fn summarize(bytes: &[u8], open: usize, to: usize) -> Shape {
    let object = bytes[open] == b'{';
    let mut keys = Vec::new();
    let mut elements = Vec::new();
    let mut k = open + 1;
    while k < to {
        let b = bytes[k];
        if crate::lex::is_ws(b) || b == b',' || b == b':' {
            k += 1;
            continue;
        }
        if object {
            if b == b'"' {
                let end = string_end(bytes, k, to);
                let is_key = bytes[end.min(to)..to]
                    .iter()
                    .find(|b| !crate::lex::is_ws(**b))
                    == Some(&b':');
                if is_key && keys.len() < MAX_ITEMS {
                    keys.push(bytes[k + 1..end.saturating_sub(1).max(k + 1)].into());
                }
                k = end;
            } else {
                k = skip_value(bytes, k, to).0;
            }
            continue;
        }
        let (end, element) = skip_value(bytes, k, to);
        if elements.len() < MAX_ITEMS {
            elements.push(element);
        }
        k = end.max(k + 1);
    }
    if object {
        Shape::Object(keys)
    } else {
        Shape::Array(elements)
    }
}

/// Skip the value at `k` (not past `to`): its end and its shape.
fn skip_value(bytes: &[u8], k: usize, to: usize) -> (usize, Element) {
    match bytes[k] {
        b'"' => (string_end(bytes, k, to), Element::String),
        b'{' | b'[' => {
            let object = bytes[k] == b'{';
            let mut keys = Vec::new();
            let mut n = 0;
            let mut depth = 0usize;
            // Whether a value of the container's own level has begun since
            // its last separator (to count an array's elements).
            let mut started = false;
            let mut j = k;
            while j < to {
                match bytes[j] {
                    b'"' => {
                        let end = string_end(bytes, j, to);
                        if depth == 1 {
                            if object {
                                let is_key = bytes[end.min(to)..to]
                                    .iter()
                                    .find(|b| !crate::lex::is_ws(**b))
                                    == Some(&b':');
                                if is_key && keys.len() < MAX_ITEMS {
                                    keys.push(
                                        bytes[j + 1..end.saturating_sub(1).max(j + 1)].into(),
                                    );
                                }
                            } else if !started {
                                started = true;
                                n += 1;
                            }
                        }
                        j = end;
                        continue;
                    }
                    b'{' | b'[' => {
                        if depth == 1 && !object && !started {
                            started = true;
                            n += 1;
                        }
                        depth += 1;
                    }
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            let element = if object {
                                Element::Object(keys)
                            } else {
                                Element::Array(n)
                            };
                            return (j + 1, element);
                        }
                    }
                    b',' if depth == 1 => started = false,
                    b if depth == 1 && !object && !started && !crate::lex::is_ws(b) => {
                        started = true;
                        n += 1;
                    }
                    _ => {}
                }
                j += 1;
            }
            let element = if object {
                Element::Object(keys)
            } else {
                Element::Array(n)
            };
            (to, element)
        }
        _ => {
            let mut j = k;
            while j < to && !matches!(bytes[j], b',' | b'}' | b']') && !crate::lex::is_ws(bytes[j])
            {
                j += 1;
            }
            (j.max(k + 1), Element::Scalar)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes(out: &str, n: usize) -> Vec<Option<Shape>> {
        open_shapes(out, 0, out.len(), n)
    }

    fn keys(names: &[&str]) -> Vec<Key> {
        names.iter().map(|k| k.as_bytes().into()).collect()
    }

    #[test]
    fn reads_the_open_containers() {
        let out = r#"{"rows": [["a", "b", "c"], ["d", "e", "f"], "#;
        let s = shapes(out, 3);
        assert_eq!(
            s[0],
            Some(Shape::Array(vec![Element::Array(3), Element::Array(3)]))
        );
        assert_eq!(s[1], Some(Shape::Object(keys(&["rows"]))));
        assert_eq!(s[2], None);
        assert_eq!(s[0].as_ref().unwrap().uniform(), Some(&Element::Array(3)));
    }

    #[test]
    fn objects_in_arrays_keep_their_keys() {
        let out = r#"[{"type": "x", "content": {"a": [1]}}, {"type": "y", "n": "}"}"#;
        let s = shapes(out, 1);
        let Some(Shape::Array(elements)) = &s[0] else {
            panic!("{s:?}")
        };
        assert_eq!(elements[0], Element::Object(keys(&["type", "content"])));
        assert_eq!(elements[1], Element::Object(keys(&["type", "n"])));
        assert!(s[0].as_ref().unwrap().knows_key(b"type"));
        assert!(!s[0].as_ref().unwrap().knows_key(b"a"));
    }

    #[test]
    fn strings_with_brackets_and_quotes_are_skipped() {
        let out = r#"{"a": "x ] { \" [", "b": [1, "]"], "c": "#;
        let s = shapes(out, 1);
        assert_eq!(s[0], Some(Shape::Object(keys(&["a", "b", "c"]))));
    }

    #[test]
    fn far_openers_are_unknown() {
        let out = format!("[{}, ", "1, ".repeat(SHAPE_WINDOW));
        assert_eq!(shapes(&out, 1), vec![None]);
    }
}
