//! The path language: `a.b[0].c`, `[-1]` from the end, `*` (or `[*]`) over
//! every element or member, `["key.with.dots"]` for a key with any
//! characters. An empty path (or `.` / `$`) is the whole document.

use std::fmt;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Segment {
    /// A member of an object: `name`, `["name"]`.
    Key(String),
    /// An element of an array: `[3]`; negative counts from the end, `[-1]`.
    Index(i64),
    /// Every element of an array or member of an object: `*`, `[*]`.
    Wildcard,
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Segment::Key(key) if is_plain(key) => f.write_str(key),
            Segment::Key(key) => write!(f, "[{}]", serde_json::Value::from(key.as_str())),
            Segment::Index(idx) => write!(f, "[{idx}]"),
            Segment::Wildcard => f.write_str("*"),
        }
    }
}

/// Whether a key can be written bare in a path.
pub(crate) fn is_plain(key: &str) -> bool {
    !key.is_empty()
        && key != "*"
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'$' | b'@'))
}

/// Append one segment to a path written as text (`items` + `[3]` → `items[3]`).
pub(crate) fn push(path: &mut String, segment: &Segment) {
    let text = segment.to_string();
    if !path.is_empty() && !text.starts_with('[') {
        path.push('.');
    }
    path.push_str(&text);
}

/// The path of the root, as shown in messages.
pub(crate) fn shown(path: &str) -> &str {
    if path.is_empty() { "(root)" } else { path }
}

/// Why a path does not parse: the offset of the problem and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathError {
    pub(crate) offset: usize,
    pub(crate) problem: &'static str,
}

/// Parse a path into segments.
pub(crate) fn parse(path: &str) -> Result<Vec<Segment>, PathError> {
    let bytes = path.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |offset, problem| Err(PathError { offset, problem });
    if matches!(path.trim(), "" | "." | "$") {
        return Ok(out);
    }
    if bytes.first() == Some(&b'$') {
        i = 1;
    }
    // `.` is needed between two named segments, allowed before a bracket and at the start.
    let mut need_dot = false;
    while i < bytes.len() {
        match bytes[i] {
            b'.' => {
                if i + 1 >= bytes.len() || bytes[i + 1] == b'.' {
                    return err(i, "a name after `.`");
                }
                i += 1;
                need_dot = false;
                if bytes[i] == b'[' {
                    continue;
                }
                i = name(path, i, &mut out)?;
                need_dot = true;
            }
            b'[' => {
                let close = match bytes[i..].iter().position(|&b| b == b']') {
                    Some(n) => i + n,
                    None => return err(i, "a closing `]`"),
                };
                let inner = path[i + 1..close].trim();
                if inner == "*" {
                    out.push(Segment::Wildcard);
                    i = close + 1;
                } else if inner.starts_with('"') {
                    // A quoted key may hold `]`: read it as a JSON string.
                    let mut stream =
                        serde_json::Deserializer::from_str(&path[i + 1..]).into_iter::<String>();
                    let key = match stream.next() {
                        Some(Ok(key)) => key,
                        _ => return err(i + 1, "a key in double quotes, e.g. [\"a.b\"]"),
                    };
                    let after = i + 1 + stream.byte_offset();
                    let rest = path[after..].trim_start();
                    if !rest.starts_with(']') {
                        return err(after, "`]` after the quoted key");
                    }
                    out.push(Segment::Key(key));
                    i = path.len() - rest.len() + 1;
                } else if let Ok(idx) = inner.parse::<i64>() {
                    out.push(Segment::Index(idx));
                    i = close + 1;
                } else {
                    return err(
                        i + 1,
                        "an index, `*` or a quoted key inside `[…]`, e.g. [0], [-1], [*], [\"a.b\"]",
                    );
                }
                need_dot = true;
            }
            _ if need_dot => return err(i, "`.` or `[` between segments"),
            _ => {
                i = name(path, i, &mut out)?;
                need_dot = true;
            }
        }
    }
    Ok(out)
}

/// A bare name (or `*`) starting at `i`; returns where it ends.
fn name(path: &str, i: usize, out: &mut Vec<Segment>) -> Result<usize, PathError> {
    let bytes = path.as_bytes();
    let len = bytes[i..]
        .iter()
        .position(|&b| matches!(b, b'.' | b'['))
        .unwrap_or(bytes.len() - i);
    let name = &path[i..i + len];
    if name.is_empty() {
        return Err(PathError {
            offset: i,
            problem: "a name",
        });
    }
    if name.contains([']', '"', ' ']) {
        return Err(PathError {
            offset: i,
            problem: "a plain name; quote a key with special characters as [\"…\"]",
        });
    }
    out.push(if name == "*" {
        Segment::Wildcard
    } else {
        Segment::Key(name.to_owned())
    });
    Ok(i + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        use Segment::*;
        let key = |k: &str| Key(k.to_owned());
        assert_eq!(parse("").unwrap(), vec![]);
        assert_eq!(
            parse("a.b[0].c").unwrap(),
            vec![key("a"), key("b"), Index(0), key("c")]
        );
        assert_eq!(parse("[-1]").unwrap(), vec![Index(-1)]);
        assert_eq!(
            parse("items.*.id").unwrap(),
            vec![key("items"), Wildcard, key("id")]
        );
        assert_eq!(
            parse("items[*].id").unwrap(),
            vec![key("items"), Wildcard, key("id")]
        );
        assert_eq!(
            parse(r#"["key.with.dots"].x"#).unwrap(),
            vec![key("key.with.dots"), key("x")]
        );
        assert_eq!(parse(r#"a["b]"]"#).unwrap(), vec![key("a"), key("b]")]);
        assert_eq!(parse("$.a").unwrap(), vec![key("a")]);
        assert_eq!(parse(".a").unwrap(), vec![key("a")]);
    }

    #[test]
    fn refuses_malformed_paths() {
        assert_eq!(parse("a..b").unwrap_err().offset, 1);
        assert_eq!(parse("a[0").unwrap_err().problem, "a closing `]`");
        assert!(parse("a[x]").is_err());
        assert!(parse("a[0]b").is_err());
        assert!(parse("a.").is_err());
    }

    #[test]
    fn display_round_trips() {
        let mut path = String::new();
        for segment in parse(r#"a["b.c"][2].d"#).unwrap() {
            push(&mut path, &segment);
        }
        assert_eq!(path, r#"a["b.c"][2].d"#);
    }
}
