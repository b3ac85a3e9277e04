//! Markup: HTML, XML, and PHP templates around their `<?php … ?>` code.
//!
//! The text between tags is prose, and so are comments and CDATA: their
//! typographic quotes stay. Inside a tag, attribute values in straight
//! quotes are data; a typographic quote where an attribute's quote belongs
//! (`<a href=“x”>`) is a delimiter. `<script>` and `<style>` hold code, read
//! as the brace languages read it.

use super::syntax::{BRACES, PHP};
use super::{Class, Closers, code};

/// Which markup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Markup {
    Html,
    Xml,
    /// HTML with PHP code in `<?php … ?>`, `<?= … ?>`; a fragment without
    /// such a tag is read as PHP code, unless it starts with a tag.
    Php,
}

/// Push the offset in `text` of every typographic quote to straighten.
pub(super) fn scan(markup: Markup, text: &str, out: &mut Vec<usize>) {
    if markup == Markup::Php && !text.contains("<?") && !text.trim_start().starts_with('<') {
        code::scan(&PHP, text, 0, out);
        return;
    }
    let bytes = text.as_bytes();
    let mut closers = Closers::default();
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'<', &bytes[at..]) {
        let open = at + found;
        let rest = &text[open..];
        if rest.starts_with("<!--") {
            at = end_of(text, open + 4, "-->");
            continue;
        }
        if rest.starts_with("<![CDATA[") {
            at = end_of(text, open + 9, "]]>");
            continue;
        }
        if markup == Markup::Php && rest.starts_with("<?") {
            let code_at = open
                + ["<?php", "<?="]
                    .iter()
                    .find(|t| rest.starts_with(*t))
                    .map_or(2, |t| t.len());
            let end = text[code_at..]
                .find("?>")
                .map_or(text.len(), |i| code_at + i);
            code::scan(&PHP, &text[code_at..end], code_at, out);
            at = (end + 2).min(text.len());
            continue;
        }
        if !rest[1..].starts_with(|c: char| c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?'))
        {
            // `a < b` in the text.
            at = open + 1;
            continue;
        }
        let (end, name) = tag(text, open, &mut closers, out);
        at = end;
        let body_of = |closing: &str| {
            (markup != Markup::Xml
                && name.eq_ignore_ascii_case(&closing[2..])
                && !text[..end].ends_with("/>"))
            .then(|| find_ignoring_case(text, end, closing).unwrap_or(text.len()))
        };
        if let Some(close) = body_of("</script").or_else(|| body_of("</style")) {
            code::scan(&BRACES, &text[end..close], end, out);
            at = close;
        }
    }
}

/// After the first `marker` at or after `from`, or the text's end.
fn end_of(text: &str, from: usize, marker: &str) -> usize {
    text[from..]
        .find(marker)
        .map_or(text.len(), |i| from + i + marker.len())
}

/// Where `needle` (ASCII) first occurs at or after `from`, in any case.
fn find_ignoring_case(text: &str, from: usize, needle: &str) -> Option<usize> {
    let needle = needle.as_bytes();
    text.as_bytes()[from..]
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
        .map(|i| from + i)
}

/// Read the tag that opens at `open`: where it ends (after its `>`) and its
/// name. Typographic quotes inside it, outside attribute values, are pushed.
fn tag<'t>(
    text: &'t str,
    open: usize,
    closers: &mut Closers,
    out: &mut Vec<usize>,
) -> (usize, &'t str) {
    let bytes = text.as_bytes();
    let name_at = open + 1;
    let name_len = bytes[name_at..]
        .iter()
        .position(|&b| {
            !(b.is_ascii_alphanumeric()
                || matches!(b, b'/' | b'!' | b'?' | b':' | b'-' | b'_' | b'.'))
        })
        .unwrap_or(bytes.len() - name_at);
    let name = &text[name_at..name_at + name_len];
    let mut at = name_at + name_len;
    while let Some(c) = text[at..].chars().next() {
        at = match c {
            '>' => return (at + 1, name),
            '"' | '\'' => end_of(text, at + 1, if c == '"' { "\"" } else { "'" }),
            _ => match Class::of(c) {
                Some(class) => closers.in_code(text, at, class, 0, out),
                None => at + c.len_utf8(),
            },
        };
    }
    (text.len(), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_read_their_names_and_quotes() {
        let mut out = Vec::new();
        let text = "<a title='“x”' href=“y”>“z”";
        assert_eq!(
            tag(text, 0, &mut Closers::default(), &mut out),
            (text.find("“z").unwrap(), "a")
        );
        assert_eq!(out, [text.find("“y").unwrap(), text.find("”>").unwrap()]);
        assert_eq!(
            tag("<br/", 0, &mut Closers::default(), &mut Vec::new()),
            (4, "br/")
        );
    }

    #[test]
    fn closing_tags_are_found_in_any_case() {
        assert_eq!(find_ignoring_case("x</SCRIPT>", 0, "</script"), Some(1));
        assert_eq!(find_ignoring_case("x", 0, "</script"), None);
    }

    #[test]
    fn php_fragments() {
        let mut out = Vec::new();
        scan(Markup::Php, "echo “a”;", &mut out);
        assert_eq!(out, [5, 9]);
        out.clear();
        scan(Markup::Php, "  <p>“a”</p>", &mut out);
        assert!(out.is_empty());
    }
}
