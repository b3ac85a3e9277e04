//! `validate` and `pretty`: the two verbs that read the whole document
//! (strictly, with the validator in [`super::syntax`]).

use std::fmt;

use super::error::{Error, Repr};
use super::layout::{self, Layout as RawLayout};
use super::verbs::{article, summary};
use super::{Format, Loaded, MAX_OUTPUT, Source, cap_total, load, load_strict, read};
use crate::doc::lazy::Doc;
use crate::doc::syntax;
use crate::tools::deadline::Ticker;
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
    // The engine's strict pass first (a strict parser's speed); the
    // validator, which says where and why, only on a miss.
    let fast = crate::repair::is_strict_json(&loaded.bytes, super::MAX_NESTING)
        && crate::utf8::from_utf8(&loaded.bytes).is_ok();
    let checked = if fast {
        Ok(())
    } else {
        syntax::validate(&loaded.bytes)
    };
    // Each pass below is one more over the whole document: none starts
    // past the call's deadline.
    let timed_out = || Error::timed_out("checking the document");
    if crate::tools::deadline::expired() {
        return Err(timed_out());
    }
    match checked {
        Ok(()) => {
            let doc = Doc::new(&loaded.bytes);
            let root = doc.root().map_err(|e| loaded.syntax_error(e))?;
            let what = summary(&doc, root).map_err(|e| loaded.syntax_error(e))?;
            if crate::tools::deadline::expired() {
                return Err(timed_out());
            }
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
    if let Some((at, key)) = first_duplicate(&loaded.bytes)? {
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

/// The first key that appears twice in one object anywhere in `bytes`
/// (valid JSON), with the object's path (`a.b[2]`): one pass over the bytes
/// with one stack of open containers, each holding only how it was reached
/// (a key's bytes or an index); the path is written out once, for the
/// answer.
///
/// Why not a walk of the lazy document with a path per level: each level
/// kept its own copy of the path, so memory was quadratic in the depth (80
/// KB of nesting took 2.5 GB), and each level's iterator skipped over the
/// subtree its child had just walked, so time was too (issue 43, hole 3).
fn first_duplicate(bytes: &[u8]) -> Result<Option<(String, String)>, Error> {
    use super::path::{Segment, push};
    use crate::doc::lazy::decode_body;
    use std::collections::HashSet;

    /// How a container was reached from its parent.
    #[derive(Clone, Copy)]
    enum Via<'a> {
        Root,
        Key(&'a [u8]),
        Index(usize),
    }
    enum Open<'a> {
        /// The keys seen so far, and the last one (its value comes next).
        Object(HashSet<&'a [u8]>, &'a [u8]),
        /// The index of the element being read.
        Array(usize),
    }
    let mut stack: Vec<(Open<'_>, Via<'_>)> = Vec::new();
    // In an object, whether the next string is a key.
    let mut at_key = false;
    // A byte a step: the clock is read every 16 KiB.
    let mut ticker = Ticker::<14>::new();
    let mut i = 0;
    while i < bytes.len() {
        if ticker.tick() {
            return Err(Error::timed_out("looking for repeated keys"));
        }
        match bytes[i] {
            b'"' => {
                let end = string_end(bytes, i);
                if at_key && let Some((Open::Object(seen, last), _)) = stack.last_mut() {
                    let key = &bytes[i + 1..end - 1];
                    if !seen.insert(key) {
                        let mut path = String::new();
                        for (_, via) in &stack {
                            match *via {
                                Via::Root => {}
                                Via::Key(key) => push(&mut path, &Segment::Key(decode_body(key))),
                                Via::Index(idx) => push(&mut path, &Segment::Index(idx as i64)),
                            }
                        }
                        return Ok(Some((path, decode_body(key))));
                    }
                    *last = key;
                    at_key = false;
                }
                i = end;
                continue;
            }
            open @ (b'{' | b'[') => {
                let via = match stack.last() {
                    None => Via::Root,
                    Some((Open::Object(_, key), _)) => Via::Key(key),
                    Some((Open::Array(idx), _)) => Via::Index(*idx),
                };
                let open = if open == b'{' {
                    Open::Object(HashSet::new(), &[])
                } else {
                    Open::Array(0)
                };
                at_key = matches!(open, Open::Object(..));
                stack.push((open, via));
            }
            b',' => match stack.last_mut() {
                Some((Open::Object(..), _)) => at_key = true,
                Some((Open::Array(idx), _)) => *idx += 1,
                None => {}
            },
            b'}' | b']' => {
                stack.pop();
                at_key = false;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(None)
}

/// The offset just past the string whose quote is at `open` (valid JSON).
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        match memchr::memchr2(b'"', b'\\', &bytes[i..]) {
            Some(n) if bytes[i + n] == b'"' => return i + n + 1,
            Some(n) => i += n + 2,
            None => return bytes.len(),
        }
    }
    bytes.len()
}
