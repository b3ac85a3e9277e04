//! Command-line style arguments: shell-like word splitting, then flags and
//! positional words turned into a JSON object.
//!
//! `read --file main.go` for a subcommand tool is
//! `{"cmd":"read","args":{"file":"main.go"}}`; `--file main.go` for a
//! single-purpose tool is `{"file":"main.go"}`.

use std::collections::HashMap;

use super::wrap::{ToolMap, typed};
use crate::doc::tree::{is_number, quote};

/// One word after splitting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    /// The word with its quotes and escapes resolved.
    pub(super) text: String,
    /// Where the word starts in the split text.
    pub(super) offset: usize,
    /// Whether any part of it was quoted (a quoted word is always a string).
    pub(super) quoted: bool,
}

/// Split like a POSIX shell: whitespace separates words; single quotes are
/// literal; double quotes allow `\"`, `\\`, `` \` ``, `\$` and a
/// backslash-newline; outside quotes a backslash escapes the next character.
/// The `Err` is the reason an unbalanced quote makes the text unsplittable;
/// `base` is the input offset of `text`, for the reason only.
pub(super) fn split(text: &str, base: usize) -> Result<Vec<Word>, String> {
    let mut words = Vec::new();
    let mut current: Option<Word> = None;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c.is_whitespace() {
            words.extend(current.take());
            continue;
        }
        let word = current.get_or_insert_with(|| Word {
            text: String::new(),
            offset: at,
            quoted: false,
        });
        match c {
            '\'' => {
                word.quoted = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, c)) => word.text.push(c),
                        None => {
                            return Err(format!("unbalanced single quote at byte {}", base + at));
                        }
                    }
                }
            }
            '"' => {
                word.quoted = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.peek() {
                            Some(&(_, next @ ('"' | '\\' | '`' | '$'))) => {
                                word.text.push(next);
                                chars.next();
                            }
                            Some(&(_, '\n')) => {
                                chars.next();
                            }
                            _ => word.text.push('\\'),
                        },
                        Some((_, c)) => word.text.push(c),
                        None => {
                            return Err(format!("unbalanced double quote at byte {}", base + at));
                        }
                    }
                }
            }
            '\\' => match chars.next() {
                Some((_, '\n')) => {}
                Some((_, next)) => {
                    word.quoted = true;
                    word.text.push(next);
                }
                None => word.text.push('\\'),
            },
            c => word.text.push(c),
        }
    }
    words.extend(current);
    Ok(words)
}

/// The JSON built from a command line, with anchors from output positions
/// (each key and value) to the input offsets of the words they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CommandLine {
    pub(super) json: String,
    pub(super) anchors: Vec<(usize, usize)>,
}

/// Whether a word is an unquoted `--`, which ends the options.
fn ends_options(word: &Word) -> bool {
    !word.quoted && word.text == "--"
}

/// Whether a word is a flag: unquoted, `-x` or `--xyz`, and not a number.
fn is_flag(word: &Word) -> bool {
    !word.quoted && word.text.len() >= 2 && word.text.starts_with('-') && !is_number(&word.text)
}

/// One field: its key, the input offset of the flag that named it, and its
/// values (JSON text and the input offset of each value's word).
struct Field {
    key: String,
    key_offset: usize,
    values: Vec<(String, usize)>,
}

/// Fields in order of first appearance.
#[derive(Default)]
struct Fields {
    fields: Vec<Field>,
    index: HashMap<String, usize>,
}

impl Fields {
    fn push(&mut self, key: &str, key_offset: usize, value: String, value_offset: usize) {
        match self.index.get(key) {
            Some(&i) => self.fields[i].values.push((value, value_offset)),
            None => {
                self.index.insert(key.to_owned(), self.fields.len());
                self.fields.push(Field {
                    key: key.to_owned(),
                    key_offset,
                    values: vec![(value, value_offset)],
                });
            }
        }
    }

    fn has(&self, key: &str) -> bool {
        self.index.contains_key(key)
    }

    /// Write `{"key":value,…}`; a repeated key's values (and `positional`) form an array.
    fn write(&self, out: &mut String, anchors: &mut Vec<(usize, usize)>) {
        out.push('{');
        for (i, field) in self.fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            anchors.push((out.len(), field.key_offset));
            out.push_str(&quote(&field.key));
            out.push(':');
            let array = field.values.len() > 1 || field.key == POSITIONAL;
            if array {
                let first = field.values.first().map_or(field.key_offset, |v| v.1);
                anchors.push((out.len(), first));
                out.push('[');
            }
            for (j, (value, offset)) in field.values.iter().enumerate() {
                if j > 0 {
                    out.push(',');
                }
                anchors.push((out.len(), *offset));
                out.push_str(value);
            }
            if array {
                out.push(']');
            }
        }
        out.push('}');
    }
}

/// The key extra positional words go under.
const POSITIONAL: &str = "positional";

/// Turn flags and positional words into fields; positional words go to
/// `names` in order (each while it has no value yet), the rest to
/// `positional`.
fn fields(words: &[Word], base: usize, names: &[&str]) -> Fields {
    let mut fields = Fields::default();
    let mut i = 0;
    let mut options_ended = false;
    while let Some(word) = words.get(i) {
        i += 1;
        let offset = base + word.offset;
        if !options_ended && ends_options(word) {
            options_ended = true;
            continue;
        }
        if options_ended || !is_flag(word) {
            let value = typed(&word.text, word.quoted);
            match names.iter().find(|name| !fields.has(name)) {
                Some(field) => fields.push(field, offset, value, offset),
                None => fields.push(POSITIONAL, offset, value, offset),
            }
            continue;
        }
        let name = match word.text.strip_prefix("--") {
            Some(long) => long,
            None => &word.text[1..],
        };
        if let Some((key, value)) = name.split_once('=') {
            fields.push(key, offset, typed(value, word.quoted), offset);
            continue;
        }
        match words.get(i) {
            Some(next) if !is_flag(next) && !ends_options(next) => {
                fields.push(
                    name,
                    offset,
                    typed(&next.text, next.quoted),
                    base + next.offset,
                );
                i += 1;
            }
            _ => fields.push(name, offset, "true".to_owned(), offset),
        }
    }
    fields
}

/// Parse a command line for `tool`. `text` starts at input offset `base`;
/// `primary` is the single-purpose tool's primary field (from its schema or
/// the table). The `Err` is the reason when the words cannot be split.
pub(super) fn parse(
    text: &str,
    base: usize,
    tool: &str,
    tools: &ToolMap,
    primary: Option<&str>,
) -> Result<CommandLine, String> {
    let words = split(text, base)?;
    let mut out = String::new();
    let mut anchors = Vec::new();
    if tools.takes_subcommands(tool) {
        let (sub, rest) = match words.split_first() {
            Some((first, rest)) if !is_flag(first) => (Some(first), rest),
            _ => (None, &words[..]),
        };
        out.push('{');
        if let Some(sub) = sub {
            out.push_str("\"cmd\":");
            anchors.push((out.len(), base + sub.offset));
            out.push_str(&quote(&sub.text));
            out.push(',');
        }
        out.push_str("\"args\":");
        let names: Vec<&str> = match sub {
            Some(sub) => match tools.verb_positionals(tool, &sub.text) {
                Some(names) => names.to_vec(),
                None => tools.primary_field(&sub.text).into_iter().collect(),
            },
            None => Vec::new(),
        };
        fields(rest, base, &names).write(&mut out, &mut anchors);
        out.push('}');
    } else {
        let names: Vec<&str> = primary.into_iter().collect();
        fields(&words, base, &names).write(&mut out, &mut anchors);
    }
    Ok(CommandLine { json: out, anchors })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        split(line, 0)
            .unwrap()
            .into_iter()
            .map(|w| w.text)
            .collect()
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(
            texts("a  'b c' \"d \\\"e\\\" \\n\""),
            ["a", "b c", "d \"e\" \\n"]
        );
        assert_eq!(texts("x\\ y 'it'\\''s' \"\""), ["x y", "it's", ""]);
        assert_eq!(texts("  "), Vec::<String>::new());
        assert_eq!(
            split("a 'b", 0).unwrap_err(),
            "unbalanced single quote at byte 2"
        );
        assert_eq!(
            split("a \"b", 3).unwrap_err(),
            "unbalanced double quote at byte 5"
        );
    }

    #[test]
    fn anchors_point_at_words() {
        let tools = ToolMap::builtin();
        let line = parse("read --file main.go", 10, "@coder", &tools, None).unwrap();
        assert_eq!(line.json, r#"{"cmd":"read","args":{"file":"main.go"}}"#);
        let value_at = line.json.find("\"main.go").unwrap();
        assert!(line.anchors.contains(&(value_at, 22)));
    }
}
