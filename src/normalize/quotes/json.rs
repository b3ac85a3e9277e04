//! Typographic quotes in a JSON string literal: the content argument of a
//! tool call, before it is decoded.
//!
//! Normalization edits the call's text, not a decoded copy, so the literal
//! is decoded once (escapes too: a model may write `\u201c`), the decoded
//! text is read as code, and only the characters chosen are replaced in the
//! literal, each where it was written, as a character or as an escape.

use super::{may_have_curly, straight, to_straighten};

/// A JSON string literal's text decoded, with, for each typographic
/// character in it, its offset in the decoded text and in the literal (the
/// character, or the `\u` of its escape).
fn decode(literal: &str) -> (String, Vec<(usize, usize)>) {
    let body = literal
        .strip_prefix('"')
        .and_then(|b| b.strip_suffix('"'))
        .unwrap_or(literal);
    let mut text = String::with_capacity(body.len());
    let mut curly = Vec::new();
    let mut rest = body.char_indices().peekable();
    while let Some((at, c)) = rest.next() {
        let at_literal = at + 1;
        let decoded = if c == '\\' {
            match rest.next().map(|(_, e)| e) {
                Some('u') => {
                    let code = unicode_escape(body, at);
                    for _ in 0..4 {
                        rest.next();
                    }
                    // A surrogate pair is two escapes.
                    if (0xD800..0xDC00).contains(&code)
                        && body[at + 6..].starts_with("\\u")
                        && let low = unicode_escape(body, at + 6)
                        && (0xDC00..0xE000).contains(&low)
                    {
                        for _ in 0..6 {
                            rest.next();
                        }
                        char::from_u32(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00))
                            .unwrap_or('\u{FFFD}')
                    } else {
                        char::from_u32(code).unwrap_or('\u{FFFD}')
                    }
                }
                Some('n') => '\n',
                Some('t') => '\t',
                Some('r') => '\r',
                Some('b') => '\u{8}',
                Some('f') => '\u{C}',
                Some(other) => other,
                None => break,
            }
        } else {
            c
        };
        if straight(decoded).is_some() {
            curly.push((text.len(), at_literal));
        }
        text.push(decoded);
    }
    (text, curly)
}

/// The code point of the `\uXXXX` escape at `at` in `body` (0 if malformed).
fn unicode_escape(body: &str, at: usize) -> u32 {
    body.get(at + 2..at + 6)
        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        .unwrap_or(0)
}

/// Straighten the typographic quotes that stand as delimiters in a JSON
/// string literal (quotes included) bound for `path`, whether written as
/// characters or as `\u` escapes. Returns the new literal and, for each
/// replacement, its byte offset within the literal and its rank among the
/// literal's typographic characters; `None` when there is nothing to replace.
pub(in crate::normalize) fn in_json_string(
    path: &str,
    literal: &str,
) -> Option<(String, Vec<(usize, usize)>)> {
    // Nearly all code has nothing to replace: find that out with memchr
    // instead of walking every character.
    if !may_have_curly(literal.as_bytes()) {
        return None;
    }
    let (text, curly) = decode(literal);
    let chosen: Vec<(usize, usize)> = to_straighten(path, &text)
        .into_iter()
        .filter_map(|at| {
            let rank = curly
                .binary_search_by_key(&at, |&(decoded, _)| decoded)
                .ok()?;
            Some((curly[rank].1, rank))
        })
        .collect();
    if chosen.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(literal.len());
    let mut copied = 0;
    for &(at, _) in &chosen {
        let (c, len) = if literal[at..].starts_with("\\u") {
            (char::from_u32(unicode_escape(literal, at)), 6)
        } else {
            let c = literal[at..].chars().next();
            (c, c.map_or(1, char::len_utf8))
        };
        let Some(with) = c.and_then(straight) else {
            continue;
        };
        out.push_str(&literal[copied..at]);
        out.push_str(if with == "\"" { "\\\"" } else { with });
        copied = at + len;
    }
    out.push_str(&literal[copied..]);
    Some((out, chosen))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_literals_keep_other_escapes() {
        let (out, at) = in_json_string("a.c", r#""a\n“b” \u2019c\\u2019 \"""#).unwrap();
        assert_eq!(out, r#""a\n\"b\" 'c\\u2019 \"""#);
        assert_eq!(at, [(4, 0), (8, 1), (12, 2)]);
        assert_eq!(in_json_string("a.c", r#""plain \u00e9""#), None);
    }

    #[test]
    fn json_literals_keep_data_and_rank_what_changes() {
        // The string literal's quotes are data: only the delimiters change,
        // and their ranks count the kept ones too.
        let literal = r#""x = “it’s” + \"‘q’\"""#;
        let (out, at) = in_json_string("a.py", literal).unwrap();
        assert_eq!(out, r#""x = \"it’s\" + \"‘q’\"""#);
        assert_eq!(at, [(5, 0), (14, 2)]);
        let data = r#""print(\"the ‘^’ marking\")  # it’s \u201cfine\u201d""#;
        assert_eq!(in_json_string("a.py", data), None);
        // Escaped as `\u`, a delimiter still closes its literal.
        let escaped = r#""s = \u201cit\u2019s\u201d""#;
        let (out, _) = in_json_string("a.go", escaped).unwrap();
        assert_eq!(out, r#""s = \"it\u2019s\"""#);
    }

    #[test]
    fn decoding_maps_each_curly_character() {
        let (text, curly) = decode(r#""a\"“\u2019\ud83d\ude00”""#);
        assert_eq!(text, "a\"“’😀”");
        assert_eq!(curly, [(2, 4), (5, 7), (12, 25)]);
    }
}
