//! The structural `json` verb: which paths were added, removed or changed
//! between two JSON (or YAML) documents, with old → new values, so a reindented file
//! shows only what really changed.
//!
//! Both documents are read by `@json`'s rules and compared on its lazy
//! span document: numbers are compared as exact decimals (`1.0` equals
//! `1`, `18446744073709551617` does not equal `…616`, `1e400` is a number
//! like any other), values are shown as written, keys keep document order,
//! and a repeated key counts once with its last value. The walk keeps its
//! own stack, so nesting cannot overflow it.

use std::fmt;
use std::path::Path;

use serde_json::Value;

use super::error::{Error, Repr};
use super::unified::{MAX_OUTPUT, read_file};
use crate::doc::lazy::{Doc, Kind, Node, decimal, decode_body};
use crate::tools::Workspace;
use crate::tools::deadline::Ticker;
use crate::tools::json::path::{self, Segment};

use crate::tools::json::layout::{self, Layout};
use crate::tools::json::{self as json_tool, Format, Loaded, Origin};

/// Values longer than this are cut in the answer.
const MAX_VALUE: usize = 120;

/// One difference between two documents.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct JsonChange {
    /// Where: `spec.replicas`, `items[3].name`, `["key.with.dots"]`; empty
    /// for the root.
    pub path: String,
    /// The old value as compact JSON, numbers and escapes as written
    /// (`None` when the path was added).
    pub old: Option<String>,
    /// The new value, likewise (`None` when the path was removed).
    pub new: Option<String>,
}

/// The differences between two JSON documents, in document order (object
/// keys sorted, array elements by index).
///
/// Its `Display` is the answer a model reads: `~ path: old → new`,
/// `+ path: value`, `- path: value`, then a summary.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonDiff {
    changes: Vec<JsonChange>,
    notes: Vec<String>,
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

    /// What the answer says besides the changes: duplicate keys met, YAML
    /// documents joined, a byte-order mark skipped.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

/// A value as one short line.
struct Short<'a>(&'a str);

impl fmt::Display for Short<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.0;
        if text.len() <= MAX_VALUE {
            return f.write_str(text);
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
            writeln!(
                f,
                "the two documents are equal as JSON values (layout and key order aside)"
            )?;
            return self.write_notes(f);
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
        self.write_notes(f)
    }
}

impl JsonDiff {
    fn write_notes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
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
    let (a, b) = (a.to_string(), b.to_string());
    let mut changes = Vec::new();
    let mut notes = Vec::new();
    // serde_json writes valid JSON, so neither walk can meet a syntax error.
    let _ = compare(
        &Doc::new(a.as_bytes()),
        &Doc::new(b.as_bytes()),
        &mut changes,
        &mut notes,
    );
    JsonDiff { changes, notes }
}

/// The structural difference of two JSON or YAML documents, each a path
/// inside the workspace (read as `@json` reads files: `.yaml`/`.yml` files,
/// also behind a backup suffix such as `.bak`, are YAML) or inline text (text
/// starting with `{` or `[` is inline JSON; other text with a newline is
/// inline YAML).
///
/// ```
/// use argmend::tools::{Workspace, diff::diff_json};
///
/// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
/// let diff = diff_json(&workspace, r#"{"a": [1, 2], "n": 1.0}"#, r#"{"a": [1, 2, 3], "n": 1}"#).unwrap();
/// assert_eq!(diff.changes()[0].path, "a[2]");
/// assert_eq!(diff.changes().len(), 1);
/// ```
pub fn diff_json(workspace: &Workspace, a: &str, b: &str) -> Result<JsonDiff, Error> {
    let old = load(workspace, a, "`a`")?;
    let new = load(workspace, b, "`b`")?;
    let mut changes = Vec::new();
    let mut notes = Vec::new();
    let (old_doc, new_doc) = (Doc::new(&old.bytes), Doc::new(&new.bytes));
    compare(&old_doc, &new_doc, &mut changes, &mut notes).map_err(|failed| match failed {
        Failed::Syntax(which, error) => {
            let loaded = if which { &new } else { &old };
            syntax_error(loaded.syntax_error(error))
        }
        Failed::OutOfTime => Error::timed_out("comparing the documents"),
    })?;
    for (which, loaded) in [("`a`", &old), ("`b`", &new)] {
        for note in loaded.notes() {
            notes.push(format!("{which}: {note}"));
        }
    }
    Ok(JsonDiff { changes, notes })
}

/// Read inline text, or a workspace file, by `@json`'s rules.
///
/// Inline text starts with `{` or `[` (JSON, and judged only as JSON, so a
/// broken JSON document is never read as YAML flow syntax) or holds a
/// newline (valid JSON, else YAML); anything else is a
/// path. A file's format is told as `@json` tells it (see
/// `tools::json::load::format_by_name`): `.yaml`/`.yml` is YAML, `.json`
/// JSON, looking through backup suffixes (`config.yaml.bak`, `a.yml~`), and
/// the content decides when the name says nothing.
fn load(workspace: &Workspace, source: &str, which: &str) -> Result<Loaded<'static>, Error> {
    let trimmed = source.trim_start();
    let (bytes, name, origin) = if trimmed.starts_with(['{', '[']) {
        let name = format!("{which} (inline)");
        (
            source.as_bytes().to_vec(),
            name,
            Origin::Known(Format::Json),
        )
    } else if source.contains('\n') {
        // Valid JSON is JSON (`"a string"`, `3`), as `@json` reads text.
        let json = crate::doc::syntax::validate(source.as_bytes()).is_ok();
        let format = if json { Format::Json } else { Format::Yaml };
        let name = format!("{which} (inline)");
        (source.as_bytes().to_vec(), name, Origin::Known(format))
    } else {
        let path = Path::new(source);
        let bytes = read_file(workspace, path)?;
        (bytes, format!("`{source}`"), Origin::File(path))
    };
    json_tool::load_bytes(bytes, name, origin).map_err(syntax_error)
}

/// `@json`'s refusal as `@diff`'s.
fn syntax_error(error: json_tool::Error) -> Error {
    match error.unparsed() {
        Some(unparsed) => Error::new(Repr::Unparsed(unparsed.clone())),
        None if error.kind() == json_tool::ErrorKind::TimedOut => {
            Error::timed_out("reading the documents")
        }
        // Nesting past the limit: the message says what and where.
        None => Error::new(Repr::InvalidArgument(error.to_string())),
    }
}

/// One step of the walk: compare two values, or write down a change found
/// while comparing their parents (kept in order on the same stack).
enum Work {
    Compare(Node, Node, String),
    Record(JsonChange),
}

/// Why a comparison stopped.
enum Failed {
    /// A document (`false` old, `true` new) broke.
    Syntax(bool, crate::doc::syntax::Syntax),
    /// The call's deadline passed.
    OutOfTime,
}

/// Compare the documents, pushing changes in document order. An error
/// says which document (`false` old, `true` new) broke.
fn compare(
    old: &Doc<'_>,
    new: &Doc<'_>,
    changes: &mut Vec<JsonChange>,
    notes: &mut Vec<String>,
) -> Result<(), Failed> {
    let in_old = |e| Failed::Syntax(false, e);
    let in_new = |e| Failed::Syntax(true, e);
    let shown = |doc: &Doc<'_>, node: Node| -> Result<String, crate::doc::syntax::Syntax> {
        let mut text = String::new();
        layout::format(doc.text(node)?, Layout::Compact, &mut text);
        Ok(text)
    };
    let mut stack = vec![Work::Compare(
        old.root().map_err(in_old)?,
        new.root().map_err(in_new)?,
        String::new(),
    )];
    // The notes already written, so each is written once (a search of the
    // list was quadratic in the repeated keys).
    let mut noted: std::collections::HashSet<String> = notes.iter().cloned().collect();
    let mut ticker: Ticker = Ticker::new();
    while let Some(work) = stack.pop() {
        if ticker.tick() {
            return Err(Failed::OutOfTime);
        }
        let (a, b, at) = match work {
            Work::Record(change) => {
                changes.push(change);
                continue;
            }
            Work::Compare(a, b, at) => (a, b, at),
        };
        let mut next = Vec::new();
        match (a.kind, b.kind) {
            (Kind::Object, Kind::Object) => {
                let (x, repeated_x) = old.unique_members(a).map_err(in_old)?;
                let (y, repeated_y) = new.unique_members(b).map_err(in_new)?;
                for (which, key) in repeated_x
                    .iter()
                    .map(|k| ("`a`", k))
                    .chain(repeated_y.iter().map(|k| ("`b`", k)))
                {
                    let note = format!("{which}: {}", json_tool::duplicate_note(key, &at));
                    if noted.insert(note.clone()) {
                        notes.push(note);
                    }
                }
                let in_y: std::collections::HashMap<&str, Node> =
                    y.iter().map(|(key, node)| (key.as_str(), *node)).collect();
                let in_x: std::collections::HashSet<&str> =
                    x.iter().map(|(key, _)| key.as_str()).collect();
                for (key, old_value) in &x {
                    let child = child(&at, Segment::Key(key.clone()));
                    match in_y.get(key.as_str()) {
                        Some(new_value) => next.push(Work::Compare(*old_value, *new_value, child)),
                        None => next.push(Work::Record(JsonChange {
                            path: child,
                            old: Some(shown(old, *old_value).map_err(in_old)?),
                            new: None,
                        })),
                    }
                }
                for (key, new_value) in &y {
                    if !in_x.contains(key.as_str()) {
                        next.push(Work::Record(JsonChange {
                            path: child(&at, Segment::Key(key.clone())),
                            old: None,
                            new: Some(shown(new, *new_value).map_err(in_new)?),
                        }));
                    }
                }
            }
            (Kind::Array, Kind::Array) => {
                let x: Vec<Node> = old.elements(a).collect::<Result<_, _>>().map_err(in_old)?;
                let y: Vec<Node> = new.elements(b).collect::<Result<_, _>>().map_err(in_new)?;
                for idx in 0..x.len().max(y.len()) {
                    let child = child(&at, Segment::Index(idx as i64));
                    next.push(match (x.get(idx), y.get(idx)) {
                        (Some(p), Some(q)) => Work::Compare(*p, *q, child),
                        (p, q) => Work::Record(JsonChange {
                            path: child,
                            old: p.map(|p| shown(old, *p)).transpose().map_err(in_old)?,
                            new: q.map(|q| shown(new, *q)).transpose().map_err(in_new)?,
                        }),
                    });
                }
            }
            _ => {
                let x = old.text(a).map_err(in_old)?;
                let y = new.text(b).map_err(in_new)?;
                if !same_scalar(a.kind, x, b.kind, y) {
                    changes.push(JsonChange {
                        path: at.clone(),
                        old: Some(shown(old, a).map_err(in_old)?),
                        new: Some(shown(new, b).map_err(in_new)?),
                    });
                }
            }
        }
        stack.extend(next.into_iter().rev());
    }
    Ok(())
}

/// Whether two scalars are the same value: numbers as exact decimals,
/// strings with their escapes decoded.
fn same_scalar(a: Kind, x: &[u8], b: Kind, y: &[u8]) -> bool {
    if a != b {
        return false;
    }
    if x == y {
        return true;
    }
    match a {
        Kind::Number => {
            let (x, y) = (String::from_utf8_lossy(x), String::from_utf8_lossy(y));
            matches!((decimal(&x), decimal(&y)), (Some(p), Some(q)) if p == q)
        }
        Kind::String => decode_body(&x[1..x.len() - 1]) == decode_body(&y[1..y.len() - 1]),
        _ => false,
    }
}

/// The path of a member or element below `at`.
fn child(at: &str, segment: Segment) -> String {
    let mut path = at.to_owned();
    path::push(&mut path, &segment);
    path
}
