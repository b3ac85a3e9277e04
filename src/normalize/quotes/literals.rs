//! The lexer of code's own data: where a string literal, a character
//! literal, a comment, a regex literal or a heredoc that starts at a given
//! byte ends, as one [`Syntax`] writes them.
//!
//! Every function answers from the bytes after its start and reads each at
//! most once per question; the walk in `code.rs` never asks twice about the
//! same stretch (a literal consumed is skipped, a failed regex is
//! remembered), so the whole scan stays linear.

use super::syntax::{Body, Chars, Comment, Heredocs, Lines, Raw, Span, Syntax};
use super::{is_ident, line_end};

/// Words after which a `/` or a `<` starts a value, not a division or a comparison.
const VALUE_KEYWORDS: [&str; 10] = [
    "return", "typeof", "case", "yield", "await", "else", "do", "if", "unless", "when",
];

/// A line of a block comment's body as a fragment shows it when it starts
/// inside one (an edit of a doc comment): ` * text`, a `*` then a space or
/// nothing. Returns where its text ends: at a `*/` on it, left for the walk
/// (which then knows the text began in a comment), or at the line's end.
/// In code a line hardly starts so (`*p` has no space, a product's `*`
/// rarely starts a line), and a quote missed there costs less than a
/// comment's words changed.
pub(super) fn comment_body_line(text: &str, at: usize) -> Option<usize> {
    let end = line_end(text, at);
    let line = &text[at..end];
    let star = line.trim_start_matches([' ', '\t']);
    let after = star.strip_prefix('*')?;
    if !(after.is_empty() || after.starts_with([' ', '\t', '\r'])) {
        return None;
    }
    let star_at = end - star.len();
    Some(star.find("*/").map_or(end, |i| star_at + i))
}

/// Where the literal or comment that starts at `at` ends, if one does.
pub(super) fn data_end(syntax: &Syntax, text: &str, at: usize) -> Option<usize> {
    let rest = &text[at..];
    for comment in syntax.comments {
        if let Comment::LineStart(marker) = comment
            && rest.starts_with(marker)
            && text[..at]
                .trim_end_matches([' ', '\t'])
                .chars()
                .next_back()
                .is_none_or(|c| c == '\n')
        {
            return Some(line_end(text, at));
        }
    }
    if let Raw::Rust = syntax.raw
        && let Some(end) = rust_raw(text, at)
    {
        return Some(end);
    }
    if let Some(span) = syntax.spans.iter().find(|s| rest.starts_with(s.open)) {
        return Some(span_end(text, at, span));
    }
    for comment in syntax.comments {
        let comment_here = match comment {
            Comment::Anywhere(marker) => rest.starts_with(marker),
            Comment::WordStart(marker) => {
                rest.starts_with(marker)
                    && text[..at].chars().next_back().is_none_or(|c| {
                        c.is_whitespace() || matches!(c, ';' | '|' | '&' | '(' | ')')
                    })
            }
            Comment::LineStart(_) => false,
        };
        if comment_here {
            return Some(line_end(text, at));
        }
    }
    match syntax.chars {
        Chars::Quoted if rest.starts_with('\'') => return char_literal(text, at),
        Chars::Sigil(sigil) if rest.starts_with(sigil) => {
            let mut next = rest[sigil.len_utf8()..].chars();
            let len = match next.next() {
                Some('\\') => 1 + next.next().map_or(0, char::len_utf8),
                Some(c) => c.len_utf8(),
                None => 0,
            };
            return Some(at + sigil.len_utf8() + len);
        }
        _ => {}
    }
    None
}

/// The end of `span`, which opens at `at`.
fn span_end(text: &str, at: usize, span: &Span) -> usize {
    span_rest(text, at + span.open.len(), span)
}

/// The end of `span` whose body starts at `from`: after its opener, or at
/// the start of a text that began inside it.
pub(super) fn span_rest(text: &str, from: usize, span: &Span) -> usize {
    let bytes = text.as_bytes();
    let mut i = from;
    let mut depth = 1;
    // Markers are ASCII, so a byte-wise walk never matches inside a character.
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest[0] == b'\n' && matches!(span.lines, Lines::One) {
            return i;
        }
        if rest[0] == b'\\' && matches!(span.body, Body::Escaped) {
            i += 2;
            continue;
        }
        if rest.starts_with(span.close.as_bytes()) {
            i += span.close.len();
            depth -= 1;
            if depth == 0 {
                return i;
            }
            continue;
        }
        if matches!(span.body, Body::Nested) && rest.starts_with(span.open.as_bytes()) {
            i += span.open.len();
            depth += 1;
            continue;
        }
        i += 1;
    }
    text.len()
}

/// A Rust raw string at `at` (`r"…"`, `br#"…"#`), and where it ends.
fn rust_raw(text: &str, at: usize) -> Option<usize> {
    if text[..at].chars().next_back().is_some_and(is_ident) {
        return None;
    }
    let rest = &text[at..];
    let rest = rest
        .strip_prefix("br")
        .or_else(|| rest.strip_prefix("cr"))
        .or_else(|| rest.strip_prefix('r'))?;
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    let body = rest[hashes..].strip_prefix('"')?;
    let close = format!("\"{}", "#".repeat(hashes));
    let body_at = text.len() - body.len();
    Some(
        body.find(&close)
            .map_or(text.len(), |i| body_at + i + close.len()),
    )
}

/// A character literal at `at` (`'x'`, `'\n'`, `'“'`), and where it ends;
/// `None` for a lifetime or a prime.
fn char_literal(text: &str, at: usize) -> Option<usize> {
    let body = &text[at + 1..];
    let mut chars = body.chars();
    match chars.next()? {
        '\\' => {
            // An escape: `'\n'`, `'\''`, `'\u{2019}'`, closed within the line.
            let rest = &body[1..];
            let skip = rest.chars().next()?.len_utf8();
            let end = rest[skip..]
                .char_indices()
                .take(12)
                .take_while(|&(_, c)| c != '\n')
                .find(|&(_, c)| c == '\'')?;
            Some(at + 2 + skip + end.0 + 1)
        }
        '\n' | '\'' => None,
        c => (chars.next() == Some('\'')).then_some(at + 1 + c.len_utf8() + 1),
    }
}

/// Whether a value may start at `at`, so that `/` opens a regex and `<` a
/// JSX element: after an operator, an opening bracket, a line start or a
/// keyword such as `return`; not after a name, a number or a closing bracket.
pub(super) fn value_expected(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end_matches([' ', '\t']);
    match before.chars().next_back() {
        None | Some('\n') => true,
        Some(c) if is_ident(c) => {
            let word_at = before.rfind(|c: char| !is_ident(c)).map_or(0, |i| {
                i + before[i..].chars().next().map_or(1, char::len_utf8)
            });
            VALUE_KEYWORDS.contains(&&before[word_at..])
        }
        Some(c) => "(,=:[!&|?{};~+-*%<>".contains(c),
    }
}

/// The end of the regex literal at `at`, if it closes on its line. A
/// regex literal never spans lines, not even after a backslash, so a
/// failure is always decided by the end of the line: the caller remembers
/// that line and never reads it again for the same question.
pub(super) fn regex_end(text: &str, at: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    if matches!(bytes.get(at + 1), None | Some(b'/' | b'*' | b' ' | b'\n')) {
        return None;
    }
    let mut i = at + 1;
    let mut in_class = false;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\n' => return None,
            b'\\' if bytes.get(i + 1) != Some(&b'\n') => i += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'/' if !in_class => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The end of the heredoc body that starts at `at`: after the line that is
/// `word` (indented or not, as `<<-` and `<<~` allow).
pub(super) fn heredoc_end(text: &str, mut at: usize, word: &str) -> usize {
    while at < text.len() {
        let end = line_end(text, at);
        let line = text[at..end].trim_start();
        at = (end + 1).min(text.len());
        if line
            .strip_prefix(word)
            .is_some_and(|after| !after.starts_with(is_ident))
        {
            break;
        }
    }
    at
}

/// A heredoc announced at `at`: the length of `<<WORD` and the word.
pub(super) fn heredoc_start<'t>(
    heredocs: &Heredocs,
    text: &'t str,
    at: usize,
) -> Option<(usize, &'t str)> {
    let rest = &text[at..];
    let after = match heredocs {
        Heredocs::None => return None,
        Heredocs::Shell => {
            let after = rest.strip_prefix("<<")?;
            if after.starts_with('<') {
                return None; // `<<<`, a here-string
            }
            after
                .strip_prefix('-')
                .unwrap_or(after)
                .trim_start_matches([' ', '\t'])
        }
        Heredocs::Tagged => {
            if let Some(after) = rest.strip_prefix("<<<") {
                after.trim_start_matches([' ', '\t'])
            } else {
                let after = rest.strip_prefix("<<")?;
                match after.strip_prefix(['~', '-']) {
                    Some(after) => after,
                    None if after
                        .starts_with(|c: char| c.is_ascii_uppercase() || c == '"' || c == '\'') =>
                    {
                        after
                    }
                    None => return None,
                }
            }
        }
    };
    let quote = after.starts_with(['\'', '"']);
    let word_text = if quote { &after[1..] } else { after };
    if !word_text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    let len = word_text
        .find(|c: char| !is_ident(c))
        .unwrap_or(word_text.len());
    let word = &word_text[..len];
    let end = text.len() - word_text.len()
        + len
        + usize::from(quote && word_text[len..].starts_with(['\'', '"']));
    Some((end - at, word))
}

#[cfg(test)]
mod tests {
    use super::super::syntax::{BLOCK, DOUBLE, DOUBLE_LINES, span};
    use super::*;

    #[test]
    fn lines_of_a_comment_body() {
        let line = " * It’s “x”\nnext";
        assert_eq!(comment_body_line(line, 0), line.find('\n'));
        assert_eq!(comment_body_line("\t*\n", 0), Some(2));
        assert_eq!(comment_body_line("  * a */ b", 0), Some(6));
        assert_eq!(comment_body_line("*p = “x”;", 0), None);
        assert_eq!(comment_body_line(" */ x", 0), None);
    }

    #[test]
    fn character_literals_and_lifetimes() {
        for (text, end) in [
            ("'a' x", Some(3)),
            ("'\\n' x", Some(4)),
            ("'\\'' x", Some(4)),
            ("'\\u{2019}' x", Some(10)),
            ("'“' x", Some(5)),
            ("'a>", None),
            ("'static", None),
            ("' '", Some(3)),
            ("'\n'", None),
        ] {
            assert_eq!(char_literal(text, 0), end, "{text:?}");
        }
    }

    #[test]
    fn rust_raw_strings() {
        assert_eq!(rust_raw("r\"a“\" x", 0), Some(7));
        assert_eq!(rust_raw("r#\"a\"b\"# x", 0), Some(8));
        assert_eq!(rust_raw("br##\"x\"##", 0), Some(9));
        assert_eq!(rust_raw("r#type", 0), None);
        assert_eq!(rust_raw("bar\"x\"", 2), None);
        assert_eq!(rust_raw("r\"open", 0), Some(6));
    }

    #[test]
    fn heredoc_announcements() {
        let shell = &Heredocs::Shell;
        let tagged = &Heredocs::Tagged;
        assert_eq!(heredoc_start(shell, "<<EOF\n", 0), Some((5, "EOF")));
        assert_eq!(heredoc_start(shell, "<<-'END' x", 0), Some((8, "END")));
        assert_eq!(heredoc_start(shell, "<< \"A_B\"", 0), Some((8, "A_B")));
        assert_eq!(heredoc_start(shell, "<<<\"$x\"", 0), None);
        assert_eq!(heredoc_start(shell, "<<2", 0), None);
        assert_eq!(heredoc_start(tagged, "<<~SQL", 0), Some((6, "SQL")));
        assert_eq!(heredoc_start(tagged, "<<<'EOT'", 0), Some((8, "EOT")));
        // Ruby's append and a shift are no heredocs.
        assert_eq!(heredoc_start(tagged, "<<item", 0), None);
        assert_eq!(heredoc_start(tagged, "<< EOF", 0), None);
        assert_eq!(heredoc_end("a\n  EOF\nb", 0, "EOF"), 8);
        assert_eq!(heredoc_end("a\nEOFX\n", 0, "EOF"), 7);
    }

    #[test]
    fn where_a_value_is_expected() {
        for (text, expected) in [
            ("x = /", true),
            ("f(/", true),
            ("return /", true),
            ("\n/", true),
            ("a /", false),
            ("a) /", false),
            ("1 /", false),
            ("returned /", false),
        ] {
            assert_eq!(value_expected(text, text.len() - 1), expected, "{text:?}");
        }
        assert_eq!(regex_end("/[/“]/g", 0), Some(8));
        assert_eq!(regex_end("/a\\/b/", 0), Some(6));
        assert_eq!(regex_end("/ 2", 0), None);
        assert_eq!(regex_end("/open\n/", 0), None);
    }

    #[test]
    fn spans_end_at_their_close_or_their_line() {
        assert_eq!(span_end("\"a\\\"b\" c", 0, &DOUBLE), 6);
        assert_eq!(span_end("\"open\nx", 0, &DOUBLE), 5);
        assert_eq!(span_end("\"open\nx\"", 0, &DOUBLE_LINES), 8);
        let nested = span("/*", "*/", Body::Nested, Lines::Many);
        assert_eq!(span_end("/* /* */ */ x", 0, &nested), 11);
        assert_eq!(span_end("/* /* */ */ x", 0, &BLOCK), 8);
    }
}
