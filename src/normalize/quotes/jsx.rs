//! JSX: in JavaScript and TypeScript an element's text is prose
//! (`<p>It’s “fun”</p>`), its attribute values are data, and only its
//! `{…}` expressions are code again.
//!
//! An element is read without recursion: its tags and text are walked
//! here, and its expressions are handed back as ranges for the code scan to
//! read in turn, as stretches of their own (`code.rs`).

use std::ops::Range;

use super::literals::value_expected;
use super::syntax::{Jsx, Syntax};
use super::{Class, Closers};

/// What an element holds for the code scan: the typographic quotes of its
/// tags to straighten (at offsets plus the stretch's base), and the code
/// inside its `{…}` expressions (between the braces, stretch offsets).
#[derive(Debug, Default)]
pub(super) struct Element {
    pub(super) found: Vec<usize>,
    pub(super) expressions: Vec<Range<usize>>,
}

/// Whether JSX may start at `at`: a `<` before a tag name (or `>`, a
/// fragment) where a value is expected (`return <p>`, not `a < b`).
pub(super) fn starts(syntax: &Syntax, text: &str, at: usize) -> bool {
    matches!(syntax.jsx, Jsx::Elements)
        && text[at..].starts_with('<')
        && text[at + 1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '>')
        && value_expected(text, at)
}

/// The end of the JSX element at `at` (a `<`): its tags are code with
/// attribute values as data, the text between them is prose, and each
/// `{…}` inside is code again, noted in `element`. `None` when it does not
/// read as JSX (a tag or an expression that never closes). The text of an
/// element left open runs to the end (an edit's fragment).
pub(super) fn element(
    text: &str,
    at: usize,
    closers: &mut Closers,
    base: usize,
    element: &mut Element,
) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = at;
    let mut depth = 0usize;
    loop {
        // A tag: `<p …>`, `</p>`, `<br/>`, `<>`, `</>`.
        let closing = bytes.get(i + 1) == Some(&b'/');
        let mut j = i + 1 + usize::from(closing);
        let mut self_closing = false;
        loop {
            let c = text[j..].chars().next()?;
            j = match c {
                '>' => break,
                '"' | '\'' => {
                    let quote = bytes[j];
                    j + 2 + memchr::memchr(quote, &bytes[j + 1..])?
                }
                '{' => {
                    let end = brace_end(text, j)?;
                    element.expressions.push(j + 1..end - 1);
                    end
                }
                '/' if bytes.get(j + 1) == Some(&b'>') => {
                    self_closing = true;
                    j + 1
                }
                // Where an attribute's quote belongs (`className=“note”`).
                _ => match Class::of(c) {
                    Some(class) => closers.in_code(text, j, class, base, &mut element.found),
                    None => j + c.len_utf8(),
                },
            };
        }
        i = j + 1;
        if closing {
            depth = depth.saturating_sub(1);
        } else if !self_closing {
            depth += 1;
        }
        if depth == 0 {
            return Some(i);
        }
        // The element's text, up to the next tag, with its expressions.
        loop {
            let Some(n) = memchr::memchr2(b'<', b'{', &bytes[i..]) else {
                return Some(text.len());
            };
            i += n;
            if bytes[i] == b'<' {
                break;
            }
            let Some(end) = brace_end(text, i) else {
                return Some(text.len());
            };
            element.expressions.push(i + 1..end - 1);
            i = end;
        }
    }
}

/// Where the braces opened at `at` close (after the `}`), skipping strings
/// closed on their line: a quote with no partner before the line's end is
/// text, and the search for its partner stops there, so each line is read
/// at most once per kind of quote that fails.
fn brace_end(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = at;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' | b'\'' | b'`' => {
                if let Some(n) = memchr::memchr2(b, b'\n', &bytes[i + 1..])
                    && bytes[i + 1 + n] == b
                {
                    i += 1 + n;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end of the element at the start of `text`, its quotes and its expressions.
    fn read(text: &str) -> (Option<usize>, Element) {
        let mut found = Element::default();
        let end = element(text, 0, &mut Closers::default(), 0, &mut found);
        (end, found)
    }

    #[test]
    fn elements() {
        let text = "<p a=“b”>It’s “x” {f(“y”)}</p>; z";
        let (end, found) = read(text);
        assert_eq!(end, text.find(';'));
        let at = |s: &str| text.find(s).unwrap();
        assert_eq!(found.found, [at("“b"), at("”>")]);
        assert_eq!(found.expressions.len(), 1);
        assert_eq!(found.expressions[0], at("f(")..at("}</"));
        // An element left open runs to the end; a tag that never closes is no JSX.
        assert_eq!(read("<div>“a”").0, Some(12));
        assert_eq!(read("<div a=1").0, None);
        assert_eq!(read("<div a={x").0, None);
    }

    #[test]
    fn braces_skip_strings_closed_on_their_line() {
        assert_eq!(brace_end("{a('}')} x", 0), Some(8));
        assert_eq!(brace_end("{it's}", 0), Some(6));
        assert_eq!(brace_end("{\"}\n\"}", 0), Some(3));
        assert_eq!(brace_end("{{}", 0), None);
    }
}
