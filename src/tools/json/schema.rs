//! `schema`: the inferred shape of a payload, types per path, and for
//! arrays of objects how often each key appears among sampled elements.

use std::collections::HashMap;
use std::fmt;

use super::error::Error;
use super::path::{self, Segment};
use super::verbs::duplicate_note;
use super::{Source, cap, load_strict, read};
use crate::doc::lazy::{Doc, Kind, Node};
use crate::doc::syntax::Syntax;
use crate::tools::Workspace;
use crate::tools::deadline::Ticker;

/// The default `depth`.
pub const DEFAULT_DEPTH: usize = 3;
/// The largest `depth`.
pub const MAX_DEPTH: usize = 8;
/// At most this many elements of an array are sampled.
pub const SAMPLE: usize = 100;

/// One line of a [`Schema`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Shape {
    /// The path; `[]` stands for every element: `items[].id`.
    pub path: String,
    /// `object{n}`, `array[string]`, `integer`, `number`, `string|null`, ….
    pub shape: String,
    /// For a key of sampled objects: the share of them that have it, in percent.
    pub percent: Option<u32>,
}

/// The answer of [`schema`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    shapes: Vec<Shape>,
    text: String,
    notes: Vec<String>,
}

impl Schema {
    /// What the answer says besides the shapes (see [`super::Got::notes`]).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Every line, in document order.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }
}

impl fmt::Display for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The type name of one value: containers by kind, numbers split into
/// `integer` and `number` by how they are written.
fn type_name(doc: &Doc<'_>, node: Node) -> Result<&'static str, Syntax> {
    Ok(match node.kind {
        Kind::Object => "object",
        Kind::Array => "array",
        Kind::String => "string",
        Kind::Number
            if doc
                .text(node)?
                .iter()
                .any(|b| matches!(b, b'.' | b'e' | b'E')) =>
        {
            "number"
        }
        Kind::Number => "integer",
        Kind::Bool => "bool",
        Kind::Null => "null",
    })
}

/// Types joined in order of first appearance: `string|null`.
fn union(names: &[&'static str]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for name in names {
        if !seen.contains(name) {
            seen.push(name);
        }
    }
    // An integer is a number: `1` beside `1.5` is `number`.
    if seen.contains(&"number") {
        seen.retain(|name| *name != "integer");
    }
    seen.join("|")
}

struct Walker<'d, 'a> {
    doc: &'d Doc<'a>,
    shapes: Vec<Shape>,
    n_sampled_arrays: usize,
    /// Keys met more than once in one object, with the object's path.
    repeated: Vec<(String, String)>,
    ticker: Ticker,
    /// The call's deadline passed: every loop returns at once, and
    /// [`schema`] answers "out of time".
    stopped: bool,
}

impl Walker<'_, '_> {
    /// Whether to stop: the deadline passed (checked every 1,024 steps;
    /// once it has, every later call says so).
    fn stop(&mut self) -> bool {
        self.stopped = self.stopped || self.ticker.tick();
        self.stopped
    }

    fn line(&mut self, path: &str, shape: String, percent: Option<u32>) {
        self.shapes.push(Shape {
            path: path::shown(path).to_owned(),
            shape,
            percent,
        });
    }

    /// The shape of `node` at `path` (its own line when `own_line`), and
    /// below it while `depth` lasts.
    fn walk(&mut self, node: Node, path: &str, depth: usize, own_line: bool) -> Result<(), Syntax> {
        let doc = self.doc;
        match node.kind {
            Kind::Object => {
                let (members, repeated) = doc.unique_members(node)?;
                self.repeated
                    .extend(repeated.into_iter().map(|key| (key, path.to_owned())));
                if own_line {
                    self.line(path, format!("object{{{}}}", members.len()), None);
                }
                if depth == 0 {
                    return Ok(());
                }
                for (key, value) in members {
                    if self.stop() {
                        return Ok(());
                    }
                    let mut child = path.to_owned();
                    path::push(&mut child, &Segment::Key(key));
                    self.walk(value, &child, depth - 1, true)?;
                }
            }
            Kind::Array => {
                let mut sample = Vec::with_capacity(SAMPLE);
                let mut n = 0;
                for element in doc.elements(node) {
                    if self.stop() {
                        return Ok(());
                    }
                    let element = element?;
                    if n < SAMPLE {
                        sample.push(element);
                    }
                    n += 1;
                }
                let names = sample
                    .iter()
                    .map(|e| type_name(doc, *e))
                    .collect::<Result<Vec<_>, _>>()?;
                if own_line {
                    let sampled = if n > SAMPLE {
                        self.n_sampled_arrays += 1;
                        format!(", {SAMPLE} sampled")
                    } else {
                        String::new()
                    };
                    let plural = if n == 1 { "" } else { "s" };
                    self.line(
                        path,
                        format!("array[{}] ({n} element{plural}{sampled})", union(&names)),
                        None,
                    );
                }
                if depth == 0 || sample.is_empty() {
                    return Ok(());
                }
                let elements = format!("{path}[]");
                if names.iter().all(|name| *name == "object") {
                    self.keys_of(&sample, &elements, depth)?;
                } else if let Some(first) = sample
                    .iter()
                    .find(|e| matches!(e.kind, Kind::Object | Kind::Array))
                {
                    self.walk(*first, &elements, depth - 1, false)?;
                }
            }
            _ => {
                if own_line {
                    let name = type_name(doc, node)?;
                    self.line(path, name.to_owned(), None);
                }
            }
        }
        Ok(())
    }

    /// The keys of sampled objects: how often each appears and its types.
    fn keys_of(&mut self, sample: &[Node], elements: &str, depth: usize) -> Result<(), Syntax> {
        let doc = self.doc;
        // Key, how many objects have it, its types, the first container value.
        let mut keys: Vec<(String, usize, Vec<&'static str>, Option<Node>)> = Vec::new();
        // Where each key is in `keys`. Why a map: sampled objects with a
        // million different keys made a search of the list per key
        // quadratic (hours); the list keeps the order of first appearance.
        let mut index: HashMap<String, usize> = HashMap::new();
        for object in sample {
            let (members, repeated) = doc.unique_members(*object)?;
            self.repeated
                .extend(repeated.into_iter().map(|key| (key, elements.to_owned())));
            for (key, value) in members {
                if self.stop() {
                    return Ok(());
                }
                let name = type_name(doc, value)?;
                let idx = match index.get(&key) {
                    Some(&idx) => idx,
                    None => {
                        index.insert(key.clone(), keys.len());
                        keys.push((key, 0, Vec::new(), None));
                        keys.len() - 1
                    }
                };
                let entry = &mut keys[idx];
                entry.1 += 1;
                entry.2.push(name);
                if entry.3.is_none() && matches!(value.kind, Kind::Object | Kind::Array) {
                    entry.3 = Some(value);
                }
            }
        }
        for (key, count, names, container) in keys {
            if self.stop() {
                return Ok(());
            }
            let mut child = elements.to_owned();
            path::push(&mut child, &Segment::Key(key));
            let percent =
                u32::try_from((count * 100 + sample.len() / 2) / sample.len()).unwrap_or(100);
            let shape = match container {
                Some(node) if node.kind == Kind::Array => {
                    let inner = doc
                        .elements(node)
                        .take(SAMPLE)
                        .map(|e| e.and_then(|e| type_name(doc, e)))
                        .collect::<Result<Vec<_>, _>>()?;
                    let others: Vec<_> = names.iter().copied().filter(|n| *n != "array").collect();
                    let array = format!("array[{}]", union(&inner));
                    if others.is_empty() {
                        array
                    } else {
                        format!("{array}|{}", union(&others))
                    }
                }
                _ => union(&names),
            };
            self.line(&child, shape, Some(percent));
            if let Some(node) = container.filter(|_| depth > 1) {
                self.walk(node, &child, depth - 1, false)?;
            }
        }
        Ok(())
    }
}

/// The inferred shape of a document, `depth` levels deep (1 to
/// [`MAX_DEPTH`]): one line per path with its types; arrays of objects list
/// each key with how often it appears among the first [`SAMPLE`] elements.
///
/// ```
/// use argmend::tools::{Workspace, json::{Source, schema}};
///
/// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
/// let text = r#"{"items":[{"id":1,"tags":["a"]},{"id":2,"tags":[],"note":null}]}"#;
/// let answer = schema(&workspace, Source::Text(text), 3).unwrap();
/// assert_eq!(
///     answer.to_string(),
///     "(root): object{1}\n\
///      items: array[object] (2 elements)\n\
///      items[].id: integer (100%)\n\
///      items[].tags: array[string] (100%)\n\
///      items[].note: null (50%)\n"
/// );
/// ```
pub fn schema(workspace: &Workspace, source: Source<'_>, depth: usize) -> Result<Schema, Error> {
    if depth == 0 || depth > MAX_DEPTH {
        return Err(Error::argument(format!(
            "`schema`: `depth` must be from 1 to {MAX_DEPTH} (default {DEFAULT_DEPTH}); e.g.\n  \
             {{\"cmd\":\"schema\",\"args\":{{\"file\":\"resp.json\",\"depth\":4}}}}"
        )));
    }
    let raw = read(workspace, source)?;
    let loaded = load_strict(raw)?;
    let doc = Doc::new(&loaded.bytes);
    let mut walker = Walker {
        doc: &doc,
        shapes: Vec::new(),
        n_sampled_arrays: 0,
        repeated: Vec::new(),
        ticker: Ticker::new(),
        stopped: false,
    };
    let root = doc.root().map_err(|e| loaded.syntax_error(e))?;
    walker
        .walk(root, "", depth, true)
        .map_err(|e| loaded.syntax_error(e))?;
    if walker.stopped {
        return Err(Error::timed_out("describing the document's shape"));
    }
    let mut text = String::new();
    for shape in &walker.shapes {
        text.push_str(&shape.path);
        text.push_str(": ");
        text.push_str(&shape.shape);
        if let Some(percent) = shape.percent {
            text.push_str(&format!(" ({percent}%)"));
        }
        text.push('\n');
    }
    if walker.n_sampled_arrays > 0 {
        text.push_str(&format!(
            "note: {} array{} had more than {SAMPLE} elements; the first {SAMPLE} of each were sampled\n",
            walker.n_sampled_arrays,
            if walker.n_sampled_arrays == 1 { "" } else { "s" }
        ));
    }
    for (key, at) in &walker.repeated {
        loaded.note(duplicate_note(key, at));
    }
    Ok(Schema {
        shapes: walker.shapes,
        text: loaded.noted(cap(
            text,
            "lower `depth`, or ask `schema` of a part after `get`",
        )),
        notes: loaded.notes(),
    })
}
