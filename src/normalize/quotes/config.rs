//! Configuration text: YAML, and `key = value` files (INI, `.conf`, `.env`).
//!
//! Their values are data: `title: It’s “fine”` is a plain YAML scalar that
//! holds both quotes, and the file parses as it is. A typographic pair is a
//! delimiter only where it wraps a whole value as quotes would, with
//! nothing but a comment after it: `name: “app”`, `- ‘x’`, `[“a”, “b”]`,
//! `KEY=“x”`. Comments, quoted scalars, block scalars (`|`, `>`) and
//! anything else stay.

use super::{Class, Closers};

/// Push the offset of every typographic quote to straighten in YAML `text`.
pub(super) fn yaml(text: &str, out: &mut Vec<usize>) {
    let mut reader = Yaml::default();
    let mut line_at = 0;
    for line in text.split_inclusive('\n') {
        reader.line(line.trim_end_matches(['\n', '\r']), line_at, out);
        line_at += line.len();
    }
}

/// What a YAML line inherits from the lines before it.
#[derive(Debug, Default)]
struct Yaml {
    /// The indent of the line that opened a block scalar (`key: |`): more
    /// indented (or blank) lines are its text.
    block: Option<usize>,
    /// How deep in `[…]` and `{…}`.
    flow: usize,
    /// The quote of a quoted scalar still open at the end of the last line.
    quoted: Option<u8>,
}

impl Yaml {
    /// Read one line (without its line break) that starts at `line_at`.
    fn line(&mut self, line: &str, line_at: usize, out: &mut Vec<usize>) {
        let mut closers = Closers::default();
        let indent = line.len() - line.trim_start_matches(' ').len();
        let (mut at, mut value_start) = match self.quoted {
            Some(quote) => match quoted_end(line, 0, quote) {
                Some(end) => {
                    self.quoted = None;
                    (end, false)
                }
                None => return,
            },
            None => {
                if let Some(opened) = self.block {
                    if line.trim().is_empty() || indent > opened {
                        return;
                    }
                    self.block = None;
                }
                (indent, true)
            }
        };
        while let Some(c) = line[at..].chars().next() {
            let next = line[at + c.len_utf8()..].chars().next();
            let ends = next.is_none_or(|n| n == ' ' || n == '\t');
            if c == ' ' || c == '\t' {
                at += 1;
                continue;
            }
            if c == '#' && (at == 0 || line[..at].ends_with([' ', '\t'])) {
                return;
            }
            if value_start {
                match c {
                    '"' | '\'' => match quoted_end(line, at + 1, c as u8) {
                        Some(end) => {
                            at = end;
                            value_start = false;
                            continue;
                        }
                        None => {
                            self.quoted = Some(c as u8);
                            return;
                        }
                    },
                    '|' | '>' if is_block_header(&line[at + 1..]) => {
                        self.block = Some(indent);
                        return;
                    }
                    '-' | '?' | ':' if ends => {
                        at += 1;
                        continue;
                    }
                    '[' | '{' => {
                        self.flow += 1;
                        at += 1;
                        continue;
                    }
                    '&' | '!' => {
                        // An anchor or a tag before the value.
                        at = line[at..].find([' ', '\t']).map_or(line.len(), |i| at + i);
                        continue;
                    }
                    _ => {}
                }
                value_start = false;
                if let Some(class) = Class::of(c)
                    && let Some(close) = closers.find(line, at + c.len_utf8(), class)
                    && self.ends_value(line, close)
                {
                    out.push(line_at + at);
                    if line[close..].chars().next().and_then(Class::of).is_some() {
                        out.push(line_at + close);
                    }
                    at = close + line[close..].chars().next().map_or(1, char::len_utf8);
                    continue;
                }
            } else {
                match c {
                    ':' if ends || (self.flow > 0 && next.is_some_and(|n| ",]}".contains(n))) => {
                        value_start = true;
                    }
                    ',' if self.flow > 0 => value_start = true,
                    ']' | '}' if self.flow > 0 => self.flow -= 1,
                    _ => {}
                }
            }
            at += c.len_utf8();
        }
    }

    /// Whether the quote at `close` ends a whole value, as a closing quote
    /// would: then only a comment, a key's `:`, or in flow `,`/`]`/`}`.
    fn ends_value(&self, line: &str, close: usize) -> bool {
        let quote_len = line[close..].chars().next().map_or(1, char::len_utf8);
        let rest = line[close + quote_len..].trim_start_matches([' ', '\t']);
        let spaced = rest.len() < line.len() - close - quote_len;
        rest.is_empty()
            || (spaced && rest.starts_with('#'))
            || rest
                .strip_prefix(':')
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
            || (self.flow > 0 && rest.starts_with([',', ']', '}']))
    }
}

/// After the quote that closes a YAML quoted scalar opened before `from`,
/// on this line: `\` escapes in `"…"`, `''` is a quote in `'…'`.
fn quoted_end(line: &str, from: usize, quote: u8) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut at = from;
    while let Some(&b) = bytes.get(at) {
        if quote == b'"' && b == b'\\' {
            at += 2;
            continue;
        }
        if b == quote {
            if quote == b'\'' && bytes.get(at + 1) == Some(&b'\'') {
                at += 2;
                continue;
            }
            return Some(at + 1);
        }
        at += 1;
    }
    None
}

/// Whether what follows a `|` or `>` is a block scalar's header: indicators
/// (`-`, `+`, a digit), then nothing or a comment.
fn is_block_header(rest: &str) -> bool {
    let rest =
        rest.trim_start_matches(['-', '+', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    let trimmed = rest.trim_start_matches([' ', '\t']);
    trimmed.is_empty() || (trimmed.len() < rest.len() && trimmed.starts_with('#'))
}

/// Push the offset of every typographic quote to straighten in `key = value`
/// text: a pair that wraps a whole value, after the first `=` or `:` of a
/// line that is not a comment (`#`, `;`) or a section (`[…]`).
pub(super) fn key_value(text: &str, out: &mut Vec<usize>) {
    let mut line_at = 0;
    for full in text.split_inclusive('\n') {
        let at = line_at;
        line_at += full.len();
        let line = full.trim_end_matches(['\n', '\r']);
        if line.trim_start().starts_with(['#', ';', '[']) {
            continue;
        }
        let Some(separator) = line.find(['=', ':']) else {
            continue;
        };
        let value_at = line.len() - line[separator + 1..].trim_start_matches([' ', '\t']).len();
        let Some(c) = line[value_at..].chars().next() else {
            continue;
        };
        let Some(close) = Class::of(c)
            .and_then(|class| Closers::default().find(line, value_at + c.len_utf8(), class))
        else {
            continue;
        };
        let quote_len = line[close..].chars().next().map_or(1, char::len_utf8);
        let rest = &line[close + quote_len..];
        let after = rest.trim_start_matches([' ', '\t']);
        if after.is_empty() || (after.len() < rest.len() && after.starts_with(['#', ';'])) {
            out.push(at + value_at);
            if line[close..].chars().next().and_then(Class::of).is_some() {
                out.push(at + close);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        yaml(text, &mut out);
        out
    }

    #[test]
    fn yaml_quoted_scalars_span_lines() {
        assert_eq!(scanned("a: \"x\n  “y” \"\nb: “z”"), [21, 25]);
        assert_eq!(scanned("a: 'it''s\n  “y”'\nb: “z”"), [24, 28]);
    }

    #[test]
    fn yaml_block_scalars_hold_text() {
        assert!(is_block_header("-"));
        assert!(is_block_header("2+  # c"));
        assert!(!is_block_header(" text"));
        assert!(!is_block_header("#x"));
        let text = "k: >-\n  “a”\n\n  “b”\n- “c”";
        assert_eq!(
            scanned(text),
            [text.find("“c").unwrap(), text.rfind('”').unwrap()]
        );
    }

    #[test]
    fn yaml_quoted_scalar_ends() {
        assert_eq!(quoted_end("a\\\"b\" c", 0, b'"'), Some(5));
        assert_eq!(quoted_end("it''s' c", 0, b'\''), Some(6));
        assert_eq!(quoted_end("open", 0, b'"'), None);
    }

    #[test]
    fn key_value_pairs() {
        let mut out = Vec::new();
        key_value("a = “x”\nb: ‘y’ ; c\nc = “x” y\n# d = “z”", &mut out);
        assert_eq!(out, [4, 8, 15, 19]);
    }
}
