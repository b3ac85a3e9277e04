//! `get` and `keys`, and the walk along a path that `get`, `keys`, `query`
//! and `schema` share.

use std::fmt;

use super::error::{Error, Repr};
use super::layout::{self, Layout as RawLayout};
use super::path::{self, Segment};
use crate::doc::lazy::{Doc, Kind, Node};

use super::{Loaded, Source, cap, load_strict, read};
use crate::tools::Workspace;
use crate::tools::deadline::Ticker;

/// The type summary of a value, as `keys` shows it: `object{n}`,
/// `array[n]`, `string(len)`, `number`, `bool`, `null`.
pub(crate) fn summary(doc: &Doc<'_>, node: Node) -> Result<String, crate::doc::syntax::Syntax> {
    Ok(match node.kind {
        Kind::Object => format!("object{{{}}}", doc.count(node)?),
        Kind::Array => format!("array[{}]", doc.count(node)?),
        Kind::String => {
            let text = doc.text(node)?;
            let body = crate::doc::lazy::decode_body(&text[1..text.len() - 1]);
            format!("string({})", body.chars().count())
        }
        Kind::Number => "number".to_owned(),
        Kind::Bool => "bool".to_owned(),
        Kind::Null => "null".to_owned(),
    })
}

/// The matches of a parsed path, each with its concrete path.
pub(crate) fn walk(
    loaded: &Loaded<'_>,
    doc: &Doc<'_>,
    segments: &[Segment],
) -> Result<Vec<(String, Node)>, Error> {
    let syntax = |error| loaded.syntax_error(error);
    let mut current = vec![(String::new(), doc.root().map_err(syntax)?)];
    let mut fanned = false;
    let mut ticker = Ticker::new();
    for segment in segments {
        let mut next = Vec::new();
        let mut first_error = None;
        for (at, node) in &current {
            if ticker.tick() {
                return Err(timed_out());
            }
            let mut repeated = Vec::new();
            let result = step(
                doc,
                at,
                *node,
                segment,
                &mut next,
                &mut repeated,
                &mut ticker,
            );
            for key in repeated {
                loaded.note(duplicate_note(&key, at));
            }
            match result {
                Ok(()) => {}
                Err(Step::Syntax(error)) => return Err(syntax(error)),
                Err(Step::Stop) => return Err(timed_out()),
                Err(Step::Miss(error)) if !fanned => return Err(error),
                Err(Step::Miss(error)) => {
                    first_error.get_or_insert(error);
                }
            }
        }
        if next.is_empty()
            && let Some(error) = first_error
        {
            return Err(error);
        }
        fanned |= *segment == Segment::Wildcard;
        current = next;
    }
    Ok(current)
}

enum Step {
    Syntax(crate::doc::syntax::Syntax),
    Miss(Error),
    /// The call's deadline passed.
    Stop,
}

/// The error of a verb that ran out of time along its path or its values.
pub(crate) fn timed_out() -> Error {
    Error::timed_out("reading the document")
}

impl From<crate::doc::syntax::Syntax> for Step {
    fn from(error: crate::doc::syntax::Syntax) -> Self {
        Step::Syntax(error)
    }
}

/// The note for a key met more than once in the object at `at`.
pub(crate) fn duplicate_note(key: &str, at: &str) -> String {
    format!(
        "the key `{}` appears more than once in the object at `{}`: the last one is used, as jq and \
         JSON.parse do",
        Segment::Key(key.to_owned()),
        path::shown(at)
    )
}

fn step(
    doc: &Doc<'_>,
    at: &str,
    node: Node,
    segment: &Segment,
    out: &mut Vec<(String, Node)>,
    repeated: &mut Vec<String>,
    ticker: &mut Ticker,
) -> Result<(), Step> {
    let child = |index: &Segment| {
        let mut path = at.to_owned();
        path::push(&mut path, index);
        path
    };
    match (segment, node.kind) {
        (Segment::Key(key), Kind::Object) => {
            if let Some((value, times)) = doc.member(node, key)? {
                if times > 1 {
                    repeated.push(key.clone());
                }
                out.push((child(segment), value));
                return Ok(());
            }
            let (members, _) = doc.unique_members(node)?;
            let keys: Vec<String> = members.into_iter().map(|(key, _)| key).collect();
            let n_keys = keys.len();
            Err(Step::Miss(Error::new(Repr::NoSuchKey {
                at: path::shown(at).to_owned(),
                key: key.clone(),
                keys,
                n_keys,
            })))
        }
        (Segment::Index(index), Kind::Array) => {
            let found = if *index >= 0 {
                // Stop at the element: the rest of the array is never read.
                let mut n = 0;
                let mut found = None;
                for element in doc.elements(node) {
                    if ticker.tick() {
                        return Err(Step::Stop);
                    }
                    let element = element?;
                    if n as i64 == *index {
                        found = Some(element);
                        break;
                    }
                    n += 1;
                }
                found.ok_or(n)
            } else {
                let mut elements: Vec<Node> = Vec::new();
                for element in doc.elements(node) {
                    if ticker.tick() {
                        return Err(Step::Stop);
                    }
                    elements.push(element?);
                }
                let len = elements.len();
                usize::try_from(index.unsigned_abs())
                    .ok()
                    .and_then(|back| len.checked_sub(back))
                    .map(|idx| elements[idx])
                    .ok_or(len)
            };
            match found {
                Ok(element) => {
                    out.push((child(segment), element));
                    Ok(())
                }
                Err(len) => Err(Step::Miss(Error::new(Repr::OutOfRange {
                    at: path::shown(at).to_owned(),
                    index: *index,
                    len,
                }))),
            }
        }
        (Segment::Wildcard, Kind::Object) => {
            let (members, duplicates) = doc.unique_members(node)?;
            repeated.extend(duplicates);
            for (key, value) in members {
                if ticker.tick() {
                    return Err(Step::Stop);
                }
                out.push((child(&Segment::Key(key)), value));
            }
            Ok(())
        }
        (Segment::Wildcard, Kind::Array) => {
            for (idx, element) in doc.elements(node).enumerate() {
                if ticker.tick() {
                    return Err(Step::Stop);
                }
                out.push((child(&Segment::Index(idx as i64)), element?));
            }
            Ok(())
        }
        (segment, _) => {
            let needs = match segment {
                Segment::Key(_) => "an object",
                Segment::Index(_) => "an array",
                Segment::Wildcard => "an object or an array",
            };
            Err(Step::Miss(Error::new(Repr::WrongType {
                at: path::shown(at).to_owned(),
                segment: segment.to_string(),
                found: article(&summary(doc, node)?),
                needs,
            })))
        }
    }
}

pub(crate) fn article(summary: &str) -> String {
    let an = summary.starts_with(['a', 'o']);
    format!("{} {summary}", if an { "an" } else { "a" })
}

/// Parse a path argument, with an example of a valid call on failure.
pub(crate) fn parse_path(text: &str, example: &'static str) -> Result<Vec<Segment>, Error> {
    path::parse(text).map_err(|error| {
        Error::new(Repr::InvalidPath {
            path: text.to_owned(),
            offset: error.offset,
            problem: error.problem,
            example,
        })
    })
}

/// One value found by [`get`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Match {
    /// Its concrete path, e.g. `items[3].name` (for `items[*].name`).
    pub path: String,
    /// Its JSON text exactly as written (numbers and escapes kept).
    pub json: String,
}

/// The answer of [`get`]: the values at a path.
///
/// Its `Display` is the text a model reads: the value itself (an object or
/// array indented by 2 spaces) for a plain path, or one `path: value` line
/// per match for a path with `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Got {
    matches: Vec<Match>,
    text: String,
    notes: Vec<String>,
}

impl Got {
    /// Every match, in document order.
    pub fn matches(&self) -> &[Match] {
        &self.matches
    }

    /// What the answer says besides the values: how the input was read
    /// (a byte-order mark skipped, YAML documents joined) and duplicate
    /// keys met on the way. Each is also a `note:` line of the text.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

impl fmt::Display for Got {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The value at `path` (`a.b[0].c`, `[-1]`, `*`, `["key.with.dots"]`).
///
/// Only the containers on the way are walked; everything else is skipped
/// without being built. With duplicate keys the last one is taken, and the
/// answer says so.
///
/// ```
/// use argmend::tools::{Workspace, json::{Source, get}};
///
/// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
/// let text = r#"{"data":{"items":[{"name":"web-1","cpu":1.50},{"name":"db","cpu":12345678901234567890}]}}"#;
/// let got = get(&workspace, Source::Text(text), "data.items[-1].cpu").unwrap();
/// assert_eq!(got.to_string(), "12345678901234567890\n");
///
/// let error = get(&workspace, Source::Text(text), "data.item").unwrap_err();
/// assert_eq!(error.to_string(), "no key `item` at `data`: the keys there are items (did you mean `items`?)");
/// ```
pub fn get(workspace: &Workspace, source: Source<'_>, path: &str) -> Result<Got, Error> {
    const EXAMPLE: &str =
        r#"{"cmd":"get","args":{"file":"resp.json","path":"data.items[3].name"}}"#;
    let segments = parse_path(path, EXAMPLE)?;
    let raw = read(workspace, source)?;
    let loaded = load_strict(raw)?;
    let doc = Doc::new(&loaded.bytes);
    let found = walk(&loaded, &doc, &segments)?;
    let fanned = segments.contains(&Segment::Wildcard);
    let mut matches = Vec::with_capacity(found.len());
    let mut text = String::new();
    // The whole answer's length: past the cap only the start is kept, but
    // the note says how big the answer really is.
    let mut total = 0usize;
    let mut ticker = Ticker::<6>::new();
    for (at, node) in found {
        if ticker.tick() {
            return Err(timed_out());
        }
        let bytes = doc.text(node).map_err(|e| loaded.syntax_error(e))?;
        let json = String::from_utf8_lossy(bytes).into_owned();
        let keep = (super::MAX_OUTPUT + 1).saturating_sub(text.len());
        if fanned {
            let label = path::shown(&at);
            total += label.len() + 2 + 1;
            if keep > 0 {
                text.push_str(label);
                text.push_str(": ");
            }
            total += layout::format_capped(bytes, RawLayout::Compact, &mut text, keep);
        } else {
            total += 1 + layout::format_capped(bytes, RawLayout::Indented, &mut text, keep);
        }
        if keep > 0 {
            text.push('\n');
        }
        matches.push(Match { path: at, json });
    }
    if fanned {
        let n = matches.len();
        let summary = format!("{n} match{}\n", if n == 1 { "" } else { "es" });
        total += summary.len();
        if total <= super::MAX_OUTPUT {
            text.push_str(&summary);
        } else {
            // Keep the count visible above the cut: it is the most useful line.
            text.insert_str(0, &summary);
        }
    }
    if matches.is_empty() {
        text = format!("nothing at `{path}`: the containers there are empty\n");
        total = text.len();
    }
    Ok(Got {
        matches,
        text: loaded.noted(super::cap_total(
            text,
            total,
            "ask for a deeper path, or see the shape first with `keys` or `schema`",
        )),
        notes: loaded.notes(),
    })
}

/// One key (or index) listed by [`keys`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Entry {
    /// The key (decoded), or the index as `[3]` for an array.
    pub key: String,
    /// `object{n}`, `array[n]`, `string(len)`, `number`, `bool` or `null`.
    pub summary: String,
}

/// The answer of [`keys`]: what lies one level below a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    summary: String,
    entries: Vec<Entry>,
    text: String,
    notes: Vec<String>,
}

impl Keys {
    /// What the answer says besides the keys (see [`Got::notes`]).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The entries, in document order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The summary of the value at the path itself, e.g. `object{3}`.
    pub fn summary(&self) -> &str {
        &self.summary
    }
}

impl fmt::Display for Keys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The keys one level below `path` (the root when empty), in document
/// order, each with a type summary; for an array, its indexes.
///
/// ```
/// use argmend::tools::{Workspace, json::{Source, keys}};
///
/// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
/// let text = r#"{"id":7,"name":"web","tags":["a","b"],"meta":{"x":null}}"#;
/// let keys = keys(&workspace, Source::Text(text), "").unwrap();
/// assert_eq!(
///     keys.to_string(),
///     "(root): object{4}\n  id: number\n  name: string(3)\n  tags: array[2]\n  meta: object{1}\n"
/// );
/// ```
pub fn keys(workspace: &Workspace, source: Source<'_>, path: &str) -> Result<Keys, Error> {
    const EXAMPLE: &str = r#"{"cmd":"keys","args":{"file":"resp.json","path":"data"}}"#;
    let segments = parse_path(path, EXAMPLE)?;
    if segments.contains(&Segment::Wildcard) {
        return Err(Error::argument(format!(
            "`keys`: the path {path:?} has `*`; `keys` looks at one value: give a plain path \
             such as `items[0]`; e.g.\n  {EXAMPLE}"
        )));
    }
    let raw = read(workspace, source)?;
    let loaded = load_strict(raw)?;
    let doc = Doc::new(&loaded.bytes);
    let (at, node) = walk(&loaded, &doc, &segments)?.remove(0);
    let syntax = |e| loaded.syntax_error(e);
    let summary_here = summary(&doc, node).map_err(syntax)?;
    let mut entries = Vec::new();
    match node.kind {
        Kind::Object => {
            let (members, repeated) = doc.unique_members(node).map_err(syntax)?;
            for key in repeated {
                loaded.note(duplicate_note(&key, &at));
            }
            let mut ticker = Ticker::<6>::new();
            for (key, value) in members {
                if ticker.tick() {
                    return Err(timed_out());
                }
                entries.push(Entry {
                    key,
                    summary: self::summary(&doc, value).map_err(syntax)?,
                });
            }
        }
        Kind::Array => {
            let mut ticker = Ticker::<6>::new();
            for (idx, element) in doc.elements(node).enumerate() {
                if ticker.tick() {
                    return Err(timed_out());
                }
                entries.push(Entry {
                    key: format!("[{idx}]"),
                    summary: self::summary(&doc, element.map_err(syntax)?).map_err(syntax)?,
                });
            }
        }
        _ => {}
    }
    let mut text = format!("{}: {summary_here}\n", path::shown(&at));
    if !matches!(node.kind, Kind::Object | Kind::Array) {
        text.push_str("  (a scalar has no keys: read it with `get`)\n");
    }
    for entry in &entries {
        let key = if entry.key.starts_with('[') && node.kind == Kind::Array {
            entry.key.clone()
        } else {
            Segment::Key(entry.key.clone()).to_string()
        };
        text.push_str(&format!("  {key}: {}\n", entry.summary));
    }
    Ok(Keys {
        summary: summary_here,
        entries,
        text: loaded.noted(cap(text, "ask for the keys of a deeper path")),
        notes: loaded.notes(),
    })
}
