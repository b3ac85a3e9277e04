//! The structural `json` verb: which paths were added, removed or changed
//! between two JSON (or YAML) documents, with old → new values, so a reindented file
//! shows only what really changed.

use std::fmt;
use std::path::Path;

use serde_json::Value;

use super::error::{Error, Repr};
use super::unified::{MAX_OUTPUT, read_file};
use crate::tools::Workspace;

/// Values longer than this are cut in the answer.
const MAX_VALUE: usize = 120;

/// One difference between two documents.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JsonChange {
    /// Where: `spec.replicas`, `items[3].name`, `["key.with.dots"]`; empty
    /// for the root.
    pub path: String,
    /// The old value (`None` when the path was added).
    pub old: Option<Value>,
    /// The new value (`None` when the path was removed).
    pub new: Option<Value>,
}

/// The differences between two JSON documents, in document order (object
/// keys sorted, array elements by index).
///
/// Its `Display` is the answer a model reads: `~ path: old → new`,
/// `+ path: value`, `- path: value`, then a summary.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonDiff {
    changes: Vec<JsonChange>,
}

impl JsonDiff {
    /// Every difference.
    pub fn changes(&self) -> &[JsonChange] {
        &self.changes
    }

    /// Whether the documents are equal as values (layout and key order aside).
    pub fn is_identical(&self) -> bool {
        self.changes.is_empty()
    }
}

/// A value as one short line.
struct Short<'a>(&'a Value);

impl fmt::Display for Short<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0.to_string();
        if text.len() <= MAX_VALUE {
            return f.write_str(&text);
        }
        let mut end = MAX_VALUE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        write!(f, "{}… ({} bytes)", &text[..end], text.len())
    }
}

impl fmt::Display for JsonDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.changes.is_empty() {
            return writeln!(
                f,
                "the two documents are equal as JSON values (layout and key order aside)"
            );
        }
        let mut n_bytes = 0;
        let mut n_shown = 0;
        for change in &self.changes {
            let path = if change.path.is_empty() {
                "(root)"
            } else {
                &change.path
            };
            let line = match (&change.old, &change.new) {
                (Some(old), Some(new)) => format!("~ {path}: {} → {}\n", Short(old), Short(new)),
                (None, Some(new)) => format!("+ {path}: {}\n", Short(new)),
                (Some(old), None) => format!("- {path}: {}\n", Short(old)),
                (None, None) => continue,
            };
            if n_bytes + line.len() > MAX_OUTPUT - 600 {
                break;
            }
            n_bytes += line.len();
            n_shown += 1;
            f.write_str(&line)?;
        }
        let count = |old: bool, new: bool| {
            self.changes
                .iter()
                .filter(|c| c.old.is_some() == old && c.new.is_some() == new)
                .count()
        };
        let n = self.changes.len();
        writeln!(
            f,
            "{n} {} ({} added, {} removed, {} changed)",
            if n == 1 {
                "path differs"
            } else {
                "paths differ"
            },
            count(false, true),
            count(true, false),
            count(true, true)
        )?;
        if n_shown < self.changes.len() {
            writeln!(
                f,
                "note: {} more not listed; narrow it: compare a sub-document (e.g. what \
                 `argmend json get` returns for a deeper path)",
                self.changes.len() - n_shown
            )?;
        }
        Ok(())
    }
}

/// The structural difference of two parsed values.
///
/// ```
/// use argmend::tools::diff::diff_json_values;
/// use serde_json::json;
///
/// let old = json!({"spec": {"replicas": 2, "image": "web:1"}});
/// let new = json!({"spec": {"image": "web:1", "replicas": 3}});
/// assert_eq!(diff_json_values(&old, &new).to_string(), "~ spec.replicas: 2 → 3\n1 path differs (0 added, 0 removed, 1 changed)\n");
/// ```
pub fn diff_json_values(a: &Value, b: &Value) -> JsonDiff {
    let mut changes = Vec::new();
    let mut path = String::new();
    walk(a, b, &mut path, &mut changes);
    JsonDiff { changes }
}

/// The structural difference of two JSON or YAML documents, each a path
/// inside the workspace (`.yaml`/`.yml` files are YAML) or inline text (text
/// starting with `{` or `[` is inline JSON; other text with a newline is
/// inline YAML).
///
/// ```
/// use argmend::tools::{Workspace, diff::diff_json};
///
/// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
/// let diff = diff_json(&workspace, r#"{"a": [1, 2]}"#, r#"{"a": [1, 2, 3]}"#).unwrap();
/// assert_eq!(diff.changes()[0].path, "a[2]");
/// ```
pub fn diff_json(workspace: &Workspace, a: &str, b: &str) -> Result<JsonDiff, Error> {
    let old = load(workspace, a, "`a`")?;
    let new = load(workspace, b, "`b`")?;
    Ok(diff_json_values(&old, &new))
}

/// Parse inline text, or read and parse a workspace file.
///
/// Inline text starts with `{` or `[` (JSON, and judged only as JSON, so a
/// broken JSON document is never read as YAML flow syntax) or holds a
/// newline (YAML); anything else is a path. Files ending in `.yaml` or
/// `.yml` are YAML, the rest JSON.
fn load(workspace: &Workspace, source: &str, which: &str) -> Result<Value, Error> {
    let trimmed = source.trim_start();
    let (bytes, name, yaml) = if trimmed.starts_with(['{', '[']) {
        (
            source.as_bytes().to_vec(),
            format!("{which} (inline)"),
            false,
        )
    } else if source.contains('\n') {
        (
            source.as_bytes().to_vec(),
            format!("{which} (inline)"),
            true,
        )
    } else {
        let path = Path::new(source);
        let bytes = read_file(workspace, path)?;
        let yaml = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
        (bytes, format!("`{source}`"), yaml)
    };
    if yaml {
        serde_yaml_ng::from_slice(&bytes)
            .map_err(|error| Error::new(Repr::InvalidYaml { name, error }))
    } else {
        serde_json::from_slice(&bytes)
            .map_err(|error| Error::new(Repr::InvalidJson { name, error }))
    }
}

fn walk(a: &Value, b: &Value, path: &mut String, changes: &mut Vec<JsonChange>) {
    let record =
        |path: &str, old: Option<&Value>, new: Option<&Value>, changes: &mut Vec<JsonChange>| {
            changes.push(JsonChange {
                path: path.to_owned(),
                old: old.cloned(),
                new: new.cloned(),
            });
        };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, old) in x {
                let len = path.len();
                push_key(path, key);
                match y.get(key) {
                    Some(new) => walk(old, new, path, changes),
                    None => record(path, Some(old), None, changes),
                }
                path.truncate(len);
            }
            for (key, new) in y {
                if !x.contains_key(key) {
                    let len = path.len();
                    push_key(path, key);
                    record(path, None, Some(new), changes);
                    path.truncate(len);
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for idx in 0..x.len().max(y.len()) {
                let len = path.len();
                path.push_str(&format!("[{idx}]"));
                match (x.get(idx), y.get(idx)) {
                    (Some(old), Some(new)) => walk(old, new, path, changes),
                    (old, new) => record(path, old, new, changes),
                }
                path.truncate(len);
            }
        }
        _ if a == b => {}
        _ => record(path, Some(a), Some(b), changes),
    }
}

/// `.key`, or `["key.with.dots"]` when the key is not a plain identifier.
fn push_key(path: &mut String, key: &str) {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !key.starts_with(|c: char| c.is_ascii_digit() || c == '-');
    if plain {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
    } else {
        path.push('[');
        path.push_str(&Value::String(key.to_owned()).to_string());
        path.push(']');
    }
}
