//! `validate` and `pretty`: the two verbs that read the whole document
//! (strictly, with the validator in [`super::syntax`]).

use std::fmt;

use super::error::{Error, Repr};
use super::layout::{self, Layout as RawLayout};
use super::verbs::{article, summary};
use super::{Format, Loaded, MAX_OUTPUT, Source, cap_total, load, load_strict, read};
use crate::doc::lazy::{Doc, Elements, Kind, Members, Node};
use crate::doc::syntax::{self, Syntax};
use crate::tools::{Unparsed, Workspace};

/// Where and why a document is not valid.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Invalid {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong, e.g. "expected `:` after the key".
    pub message: String,
}

/// The answer of [`validate`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Validation {
    format: Format,
    invalid: Option<Invalid>,
    text: String,
}

impl Validation {
    /// Whether the document is valid.
    pub fn is_valid(&self) -> bool {
        self.invalid.is_none()
    }

    /// The first error, for an invalid document.
    pub fn error(&self) -> Option<&Invalid> {
        self.invalid.as_ref()
    }

    /// Whether it was read as JSON or YAML.
    pub fn format(&self) -> Format {
        self.format
    }
}

impl fmt::Display for Validation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Whether the document is valid: the first error with its 1-based line
/// and column and the line with a caret; data after the value is an error.
///
/// ```
/// use argmend::tools::{Workspace, json::{Source, validate}};
///
/// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
/// let answer = validate(&workspace, Source::Text("{\"a\": 1,\n \"b\" 2}")).unwrap();
/// assert!(!answer.is_valid());
/// assert_eq!(
///     answer.to_string(),
///     "invalid JSON: line 2 column 6: expected `:` after the key\n   \"b\" 2}\n       ^\n"
/// );
/// ```
pub fn validate(workspace: &Workspace, source: Source<'_>) -> Result<Validation, Error> {
    let raw = read(workspace, source)?;
    let is_yaml = raw.format == Format::Yaml;
    let n_bytes = raw.len();
    let loaded = match load(raw) {
        Ok(loaded) => loaded,
        Err(error) if is_yaml || error.kind() == super::ErrorKind::InvalidYaml => {
            let (detail, (line, column)) = match &*error.0 {
                Repr::Unparsed(Unparsed {
                    format: Format::Yaml,
                    detail,
                    at,
                    ..
                }) => (detail.clone(), at.unwrap_or((0, 0))),
                _ => (error.to_string(), (0, 0)),
            };
            return Ok(Validation {
                format: Format::Yaml,
                invalid: Some(Invalid {
                    line,
                    column,
                    message: detail.clone(),
                }),
                text: format!("invalid YAML: {detail}\n"),
            });
        }
        Err(error) => return Err(error),
    };
    let kind = if loaded.format == Format::Yaml {
        "YAML"
    } else {
        "JSON"
    };
    match syntax::validate(&loaded.bytes) {
        Ok(()) => {
            let doc = Doc::new(&loaded.bytes);
            let root = doc.root().map_err(|e| loaded.syntax_error(e))?;
            let what = summary(&doc, root).map_err(|e| loaded.syntax_error(e))?;
            note_duplicates(&loaded, "valid JSON all the same")?;
            Ok(Validation {
                format: loaded.format,
                invalid: None,
                text: loaded.noted(format!(
                    "valid {kind}: {} ({} bytes)\n",
                    article(&what),
                    n_bytes
                )),
            })
        }
        Err(error) => {
            let (line, column) = error.line_column(&loaded.bytes);
            Ok(Validation {
                format: loaded.format,
                invalid: Some(Invalid {
                    line,
                    column,
                    message: error.message().to_owned(),
                }),
                text: format!("invalid {kind}: {}\n", error.show(&loaded.bytes)),
            })
        }
    }
}

/// How [`pretty`] lays the document out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Layout {
    /// Two-space indentation, one member or element per line.
    #[default]
    Indented,
    /// No whitespace at all.
    Compact,
}

/// The answer of [`pretty`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pretty {
    text: String,
    n_bytes: usize,
    notes: Vec<String>,
}

/// Say in the answer when an object repeats a key (the first one found):
/// valid JSON, but the verbs read the last copy, and a model should know.
fn note_duplicates(loaded: &Loaded<'_>, here: &str) -> Result<(), Error> {
    let doc = Doc::new(&loaded.bytes);
    if let Some((at, key)) = first_duplicate(&doc).map_err(|e| loaded.syntax_error(e))? {
        loaded.note(format!(
            "{}; {here}",
            super::verbs::duplicate_note(&key, &at).replace(
                ": the last one is used",
                ": the other verbs use the last one"
            )
        ));
    }
    Ok(())
}

impl Pretty {
    /// What the answer says besides the text (see [`super::Got::notes`]).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The size of the whole reformatted document (the text may be cut).
    pub fn len(&self) -> usize {
        self.n_bytes
    }

    /// Whether the reformatted document is empty (never, for a valid one).
    pub fn is_empty(&self) -> bool {
        self.n_bytes == 0
    }
}

impl fmt::Display for Pretty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The document reindented by 2 spaces (or compacted), with key order,
/// number text and string escapes kept. YAML comes out as JSON. Duplicate
/// keys are kept as written, with a note (the other verbs use the last).
///
/// ```
/// use argmend::tools::{Workspace, json::{Layout, Source, pretty}};
///
/// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
/// let text = r#"{"b":1.0,"a":[1e3,{}],"c":"\u00e9"}"#;
/// let answer = pretty(&workspace, Source::Text(text), Layout::Indented).unwrap();
/// assert_eq!(
///     answer.to_string(),
///     "{\n  \"b\": 1.0,\n  \"a\": [\n    1e3,\n    {}\n  ],\n  \"c\": \"\\u00e9\"\n}\n"
/// );
/// ```
pub fn pretty(workspace: &Workspace, source: Source<'_>, layout: Layout) -> Result<Pretty, Error> {
    let raw = read(workspace, source)?;
    let loaded = load_strict(raw)?;
    let mut text = String::new();
    let layout = match layout {
        Layout::Indented => RawLayout::Indented,
        Layout::Compact => RawLayout::Compact,
    };
    let total = layout::format_capped(&loaded.bytes, layout, &mut text, MAX_OUTPUT + 1);
    text.push('\n');
    let n_bytes = total + 1;
    note_duplicates(&loaded, "`pretty` keeps every copy as written")?;
    Ok(Pretty {
        text: loaded.noted(cap_total(
            text,
            n_bytes,
            "reformat a part: `get` a deeper path (objects come back indented)",
        )),
        n_bytes,
        notes: loaded.notes(),
    })
}

/// The first key that appears twice in one object anywhere in the
/// document, with the object's path (`a.b[2]`). Walks with an explicit
/// stack, so any nesting the validator accepts is fine.
fn first_duplicate<'a>(doc: &Doc<'a>) -> Result<Option<(String, String)>, Syntax> {
    enum Level<'a> {
        Object(Members<'a>, std::collections::HashSet<&'a [u8]>, String),
        Array(Elements<'a>, usize, String),
    }
    let open = |node: Node, path: String| match node.kind {
        Kind::Object => Some(Level::Object(doc.members(node), Default::default(), path)),
        Kind::Array => Some(Level::Array(doc.elements(node), 0, path)),
        _ => None,
    };
    let mut stack: Vec<Level<'a>> = open(doc.root()?, String::new()).into_iter().collect();
    while let Some(level) = stack.last_mut() {
        let next = match level {
            Level::Object(members, seen, path) => match members.next().transpose()? {
                None => None,
                Some(member) => {
                    if !seen.insert(member.key) {
                        return Ok(Some((path.clone(), member.key())));
                    }
                    let mut child = path.clone();
                    super::path::push(&mut child, &super::path::Segment::Key(member.key()));
                    Some((member.value, child))
                }
            },
            Level::Array(elements, idx, path) => match elements.next().transpose()? {
                None => None,
                Some(element) => {
                    let mut child = path.clone();
                    super::path::push(&mut child, &super::path::Segment::Index(*idx as i64));
                    *idx += 1;
                    Some((element, child))
                }
            },
        };
        match next {
            None => {
                stack.pop();
            }
            Some((node, path)) => stack.extend(open(node, path)),
        }
    }
    Ok(None)
}
