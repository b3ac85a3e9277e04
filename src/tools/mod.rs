//! Tools an agent calls with a verb and arguments, each answering with the
//! text a model reads.
//!
//! - [`diff`]: what changed between two files, texts, trees or JSON
//!   documents, and a unified patch applied only when every line of context
//!   matches.
//! - [`json`]: one field, the keys at a path, the elements matching a
//!   filter, the shape, validity or a reindent of a JSON or YAML payload,
//!   without reading it whole.
//!
//! Every path a tool is given goes through a [`Workspace`], which keeps it
//! inside one root directory.

#[cfg(test)]
pub(crate) mod cpu_clock;
pub(crate) mod deadline;
pub mod diff;
mod envelope;
pub mod json;
pub(crate) mod near;
mod unparsed;
mod workspace;

pub use self::deadline::CancelToken;
pub(crate) use self::unparsed::Unparsed;
pub(crate) use self::workspace::{Blame, Layout, Located, NodeKind, is_protected_name, not_a_file};
pub use self::workspace::{PROTECTED_DIRS, Workspace, WorkspaceError, WorkspaceErrorKind};

/// A name as any tool's output shows it: as it is, or, when it holds a
/// control character (a newline would forge a line of a listing or a
/// message), as a JSON string.
pub(crate) fn shown_name(name: &str) -> std::borrow::Cow<'_, str> {
    if name.chars().any(char::is_control) || name.starts_with('"') {
        std::borrow::Cow::Owned(serde_json::Value::from(name).to_string())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// A name that may not be UTF-8 (a path as the file system has it) as any
/// tool's output shows it: [`shown_name`] when it is UTF-8, else quoted as
/// git quotes names, each byte that is not UTF-8 written `\ooo` (octal), so
/// two different names never show alike (a lossy conversion made every bad
/// byte `�`, and `diff dirs` merged two files into one entry).
pub(crate) fn shown_bytes(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write as _;
    if let Ok(name) = std::str::from_utf8(bytes) {
        return shown_name(name);
    }
    let mut out = String::from("\"");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c if c.is_control() => {
                    let mut buf = [0; 4];
                    for byte in c.encode_utf8(&mut buf).bytes() {
                        let _ = write!(out, "\\{byte:03o}");
                    }
                }
                c => out.push(c),
            }
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\{byte:03o}");
        }
    }
    out.push('"');
    std::borrow::Cow::Owned(out)
}
