//! Reading a document for the verbs: a file through the workspace (size
//! checked first) or inline text, a byte-order mark skipped, YAML converted
//! to JSON text, then the strict check every verb relies on (a broken
//! document is refused, never answered) and the nesting limit.

use std::borrow::Cow;

use super::error::{Error, MAX_FILE, Repr};
use super::{Format, Source, yaml};
use crate::doc::syntax;
use crate::tools::{Unparsed, Workspace};

/// The most notes one answer carries.
const MAX_NOTES: usize = 32;

/// The bytes as read, before YAML is converted.
pub(crate) struct Raw<'a> {
    bytes: Cow<'a, [u8]>,
    name: String,
    pub(super) format: Format,
    /// The YAML already converted while guessing the format of inline text,
    /// so it is not converted twice.
    converted: Option<yaml::Converted>,
    /// What reading changed (a byte-order mark skipped).
    notes: Vec<String>,
}

impl Raw<'_> {
    /// The size of the input as read.
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }
}

/// A document ready for the verbs: JSON bytes.
pub(crate) struct Loaded<'a> {
    pub(crate) bytes: Cow<'a, [u8]>,
    pub(crate) name: String,
    pub(crate) format: Format,
    /// What the answer must say besides the value: how the input was read
    /// (a byte-order mark, several YAML documents), and what the verb met
    /// on its way (duplicate keys). Shared by the verbs through `&self`.
    notes: std::cell::RefCell<Vec<String>>,
}

impl Loaded<'_> {
    /// Add a note to the answer (once, however often it is met).
    ///
    /// At most [`MAX_NOTES`] are kept: an object whose 100,000 keys are each
    /// written twice met a note per key, and the search of the list for
    /// each new one made the answer quadratic (198 s); past a screenful the
    /// model reads no more of them anyway.
    pub(crate) fn note(&self, note: String) {
        let mut notes = self.notes.borrow_mut();
        if notes.len() < MAX_NOTES && !notes.contains(&note) {
            notes.push(note);
        }
    }

    /// `text` with the notes after it, one `note:` line each.
    pub(crate) fn noted(&self, mut text: String) -> String {
        for note in self.notes.borrow().iter() {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("note: ");
            text.push_str(note);
            text.push('\n');
        }
        text
    }

    /// The notes so far.
    pub(crate) fn notes(&self) -> Vec<String> {
        self.notes.borrow().clone()
    }

    /// A syntax error found on the way, as the model reads it.
    #[cold]
    pub(crate) fn syntax_error(&self, error: syntax::Syntax) -> Error {
        Error::new(Repr::Unparsed(Unparsed {
            name: self.name.clone(),
            format: Format::Json,
            detail: error.show(&self.bytes).to_string(),
            at: None,
        }))
    }
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
const BOM_NOTE: &str = "a UTF-8 byte-order mark at the start was skipped";

/// Read the source: a file through the workspace (size checked first), or
/// the text, with a first guess at its format.
pub(super) fn read<'a>(workspace: &Workspace, source: Source<'a>) -> Result<Raw<'a>, Error> {
    match source {
        Source::File(file) => {
            let located = workspace.locate_for_read(file)?;
            let real = &located.real;
            let shown = file.display().to_string();
            let io = |error: std::io::Error| {
                let error = if error.kind() == std::io::ErrorKind::NotFound {
                    crate::tools::near::not_found(&located, &shown)
                } else {
                    error
                };
                Error::new(Repr::Io {
                    path: shown.clone(),
                    error,
                })
            };
            let file = located.open_file().map_err(io)?;
            let size = file.metadata().map_err(io)?.len();
            if size > MAX_FILE {
                return Err(Error::new(Repr::TooLarge { file: shown, size }));
            }
            // The size was checked on the handle; the file may still grow
            // while it is read, so the read stops one byte past the limit.
            let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
            std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_FILE + 1), &mut bytes)
                .map_err(io)?;
            if bytes.len() as u64 > MAX_FILE {
                let size = bytes.len() as u64;
                return Err(Error::new(Repr::TooLarge { file: shown, size }));
            }
            let mut notes = Vec::new();
            // A UTF-8 byte-order mark (editors on Windows write one) is not
            // part of the document.
            if bytes.starts_with(UTF8_BOM) {
                bytes.drain(..UTF8_BOM.len());
                notes.push(BOM_NOTE.to_owned());
            }
            let (format, converted) = format_of_file(real, &bytes);
            Ok(Raw {
                bytes: Cow::Owned(bytes),
                name: format!("`{}`", crate::tools::shown_name(&shown)),
                format,
                notes,
                converted,
            })
        }
        Source::Text(text) => {
            let mut notes = Vec::new();
            let text = match text.strip_prefix('\u{FEFF}') {
                Some(rest) => {
                    notes.push(BOM_NOTE.to_owned());
                    rest
                }
                None => text,
            };
            let (format, converted) = format_of_text(text);
            Ok(Raw {
                bytes: Cow::Borrowed(text.as_bytes()),
                name: "the text".to_owned(),
                format,
                notes,
                converted,
            })
        }
    }
}

/// How a document's bytes are to be read, when the caller reads them
/// itself (`@diff json`): as a file at a path, or in a format the caller
/// chose.
pub(crate) enum Origin<'p> {
    /// A file: its name, then its content, decide ([`format_of_file`]).
    File(&'p std::path::Path),
    /// This format.
    Known(Format),
}

/// A document whose bytes the caller read (`@diff json` reads its own
/// files), read by `@json`'s rules: a byte-order mark skipped, the format
/// told as `@json` tells it, YAML converted, strict JSON required, nesting
/// bounded.
pub(crate) fn load_bytes(
    bytes: Vec<u8>,
    name: String,
    origin: Origin<'_>,
) -> Result<Loaded<'static>, Error> {
    let mut bytes = bytes;
    let mut notes = Vec::new();
    if bytes.starts_with(UTF8_BOM) {
        bytes.drain(..UTF8_BOM.len());
        notes.push(BOM_NOTE.to_owned());
    }
    let (format, converted) = match origin {
        Origin::File(path) => format_of_file(path, &bytes),
        Origin::Known(format) => (format, None),
    };
    load_strict(Raw {
        bytes: Cow::Owned(bytes),
        name,
        format,
        notes,
        converted,
    })
}

/// The suffixes editors, patch tools and `@diff` itself add to a file's
/// name for a copy of it, looked through to the name's real extension:
/// `config.yaml.bak` is YAML.
const BACKUP_SUFFIXES: &[&str] = &[".bak", ".orig", ".old", "~"];

/// What a file's name says of its format: `Some(Yaml)` for `.yaml` and
/// `.yml`, `Some(Json)` for `.json` (in any case); `None` when it says
/// nothing (no extension, or another one). Backup suffixes are looked
/// through first, any number of them: `~`, `.bak`, `.bak.N` (the names
/// `@diff apply` gives its backups when `.bak` is taken), `.orig`, `.old`;
/// so `values.yaml.bak`, `values.yaml~` and `values.yml.orig` are YAML.
fn format_by_name(path: &std::path::Path) -> Option<Format> {
    let name = path.file_name()?.to_string_lossy();
    let mut name: &str = &name;
    loop {
        // `.bak.3`: the digits first, then the `.bak` before them.
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let numbered = stem.len() < name.len() && stem.ends_with(".bak.");
        let stem = if numbered {
            &stem[..stem.len() - 1]
        } else {
            name
        };
        let Some(shorter) = BACKUP_SUFFIXES.iter().find_map(|suffix| {
            let cut = stem.len().checked_sub(suffix.len())?;
            let (rest, tail) = (stem.get(..cut)?, stem.get(cut..)?);
            (tail.eq_ignore_ascii_case(suffix) && !rest.is_empty()).then_some(rest)
        }) else {
            break;
        };
        name = shorter;
    }
    // A dot file (`.yaml` alone) has a name, not an extension.
    let (stem, extension) = name.rsplit_once('.')?;
    if stem.is_empty() {
        return None;
    }
    match extension.to_ascii_lowercase().as_str() {
        "yaml" | "yml" => Some(Format::Yaml),
        "json" => Some(Format::Json),
        _ => None,
    }
}

/// A file's format: what its name says ([`format_by_name`]); when it says
/// nothing (`config`, `values.txt`, `app.conf.dist`), what its content says,
/// as for inline text ([`format_of_text`]). With the YAML already converted
/// when the content had to be tried as YAML.
///
/// Why both: a YAML file without its extension (a `.bak` that `@diff`
/// wrote, a `config` with no extension) was read as JSON and refused as
/// broken JSON. The name comes first because it is the author's word (a
/// `.json` file with a YAML-looking error is a broken JSON file), and the
/// content is the only witness left when the name is silent.
fn format_of_file(path: &std::path::Path, bytes: &[u8]) -> (Format, Option<yaml::Converted>) {
    if let Some(format) = format_by_name(path) {
        return (format, None);
    }
    match crate::utf8::from_utf8(bytes) {
        Ok(text) => format_of_text(text),
        // Not UTF-8: neither, and JSON's error says where it breaks.
        Err(_) => (Format::Json, None),
    }
}

/// The format of text whose name, if any, says nothing: JSON when it starts
/// with `{` or `[` (judged only as JSON, so a broken JSON document is never
/// read as YAML flow syntax) or is valid JSON; YAML when it starts the way
/// a YAML mapping, list or stream does, or parses as a YAML mapping or list
/// (with that conversion, so it is not done twice); JSON otherwise, so its
/// errors are told as JSON's.
fn format_of_text(text: &str) -> (Format, Option<yaml::Converted>) {
    let trimmed = text.trim_start();
    if trimmed.starts_with(['{', '[']) || syntax::validate(text.as_bytes()).is_ok() {
        (Format::Json, None)
    } else if looks_like_yaml(text) {
        (Format::Yaml, None)
    } else {
        match yaml::to_json(text) {
            Ok(yaml) if yaml.is_container => (Format::Yaml, Some(yaml)),
            _ => (Format::Json, None),
        }
    }
}

/// Whether text that is not JSON starts the way a YAML mapping, list or
/// stream does (`key:`, `- item`, `---`), so its errors are told as YAML's.
fn looks_like_yaml(text: &str) -> bool {
    let Some(line) = text
        .lines()
        .map(str::trim_end)
        .find(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
    else {
        return false;
    };
    let line = line.trim_start();
    if line == "---" || line.starts_with("--- ") || line == "-" || line.starts_with("- ") {
        return true;
    }
    line.split_once(':').is_some_and(|(key, rest)| {
        (rest.is_empty() || rest.starts_with(' '))
            && !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_alphanumeric() || "_-./ \"'".contains(c))
    })
}

/// Convert YAML to JSON text; JSON passes through untouched.
pub(super) fn load(raw: Raw<'_>) -> Result<Loaded<'_>, Error> {
    let Raw {
        bytes,
        name,
        format,
        notes,
        converted,
    } = raw;
    if format == Format::Json {
        return Ok(Loaded {
            bytes,
            name,
            format,
            notes: notes.into(),
        });
    }
    let invalid = |detail: String, at| {
        Error::new(Repr::Unparsed(Unparsed {
            name: name.clone(),
            format: Format::Yaml,
            detail,
            at,
        }))
    };
    let converted = match converted {
        Some(converted) => converted,
        None => {
            let text = crate::utf8::from_utf8(&bytes)
                .map_err(|e| invalid(format!("not UTF-8: {e}"), None))?;
            yaml::to_json(text)
                .map_err(|error| invalid(error.to_string(), Some((error.line, error.column))))?
        }
    };
    let mut notes = notes;
    notes.extend(converted.notes);
    Ok(Loaded {
        bytes: Cow::Owned(converted.json.into_bytes()),
        name,
        format,
        notes: notes.into(),
    })
}

/// [`load`], refusing a document that is not strictly valid JSON with
/// `validate`'s message (line, column, excerpt): the verbs read documents
/// lazily, and a broken value must never be printed as an answer.
pub(super) fn load_strict(raw: Raw<'_>) -> Result<Loaded<'_>, Error> {
    let loaded = load(raw)?;
    // Reading and converting are single passes without checks of their own;
    // past the deadline the strict pass (as long again) is not started.
    if crate::tools::deadline::expired() {
        return Err(Error::timed_out("reading the document"));
    }
    // The repair engine's strict pass runs at a strict parser's speed; the
    // tokenizer's validator, which can say where and why, only on a miss.
    let fast = crate::repair::is_strict_json(&loaded.bytes, 512)
        && crate::utf8::from_utf8(&loaded.bytes).is_ok();
    if !fast {
        syntax::validate(&loaded.bytes).map_err(|error| loaded.syntax_error(error))?;
        // Valid, but maybe deeper than the fast pass goes. The verbs indent
        // their answers, and an answer 200,000 levels deep is 80 GB of spaces.
        if let Some(at) = deeper_than(&loaded.bytes, MAX_NESTING) {
            return Err(Error::argument(format!(
                "{} nests deeper than {MAX_NESTING} levels (at byte {at}): the json tool answers \
                 documents up to {MAX_NESTING} levels deep; `validate` still checks it",
                loaded.name
            )));
        }
    }
    Ok(loaded)
}

/// How deep the verbs follow a document (the repair engine's default too).
pub const MAX_NESTING: usize = 512;

/// The byte offset where `bytes` (valid JSON) first nests deeper than `limit`.
fn deeper_than(bytes: &[u8], limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (at, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > limit {
                    return Some(at);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}
