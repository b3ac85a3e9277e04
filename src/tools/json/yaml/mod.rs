//! YAML in: the event stream of `saphyr-parser` written straight out as JSON
//! text in the document's own key order, so every verb then works on JSON
//! bytes like any other.
//!
//! Why events and not a tree: a 20 MB Helm chart read through a YAML value
//! tree (and the loader's event list beneath it) cost 38× its size in
//! memory. Here the only state is the JSON being written and the open
//! containers. An anchored node is where its text already is in the output
//! (an alias is that text again), not a copy: each anchor kept its own
//! copy of its subtree, so anchors nested 500 deep cost 500 times the text
//! (2 MB took 1 GB; issue 43, hole 4). Text taken back out of the output (a
//! merge key's value, a key that is not a string) moves once to an archive,
//! with the anchors in it. Output and archive together count against the
//! cap on what aliases may expand to.
//!
//! What a YAML reader must get right beyond syntax, done here:
//! - scalars resolve as in the YAML 1.2 core schema (`~`/`null`/empty are
//!   null, `true`/`False` booleans, `0x1F`/`0o17` integers), and a plain
//!   integer or decimal is kept digit for digit (`18446744073709551616`
//!   stays exact); `.inf`/`.nan` have no JSON spelling and become null,
//!   with a note;
//! - merge keys (`<<: *base`, `<<: [*a, *b]`) are applied as yq applies
//!   them: the mapping's own keys win, then the merged mappings in order;
//! - several documents (`---`, every Kubernetes manifest) are read as an
//!   array of them, with a note; empty documents are skipped;
//! - aliases cannot expand without bound (a "billion laughs" file), and
//!   nesting is capped like JSON's.

use std::collections::{HashMap, HashSet};

use saphyr_parser::{Event, Parser, ScalarStyle, Tag};

use super::MAX_NESTING;
use crate::doc::lazy::{Doc, Kind, decode_body};
use crate::tools::deadline::Ticker;

mod scalar;
use scalar::{Plain, resolve};

/// The YAML as JSON text.
pub(crate) struct Converted {
    pub(crate) json: String,
    /// Whether the top-level value is a mapping or a sequence.
    pub(crate) is_container: bool,
    /// What the reader changed or chose, for the answer.
    pub(crate) notes: Vec<String>,
}

/// Why a YAML text could not be read, and where (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct YamlError {
    pub(crate) message: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

/// Convert `text`; the error is the parser's message with its line and column.
pub(crate) fn to_json(text: &str) -> Result<Converted, YamlError> {
    let mut writer = Writer {
        out: String::with_capacity(text.len() + text.len() / 4),
        stack: Vec::new(),
        anchors: HashMap::new(),
        in_out: Vec::new(),
        archive: String::new(),
        // Plain conversion never grows text much; only aliases can.
        limit: text.len().saturating_mul(3).saturating_add(1 << 20),
        non_finite: 0,
        too_big: 0,
    };
    let mut documents = 0usize;
    let mut doc_start = 0usize;
    let mut empty = false;
    let mut first_container = None;
    let mut ticker = Ticker::<12>::new();
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(|error| YamlError {
            message: error.info().to_owned(),
            line: error.marker().line(),
            column: error.marker().col() + 1,
        })?;
        // A 20 MB YAML file is millions of events: past the call's
        // deadline the conversion stops (the server has already answered).
        if ticker.tick() {
            return Err(YamlError {
                message: "out of time: the call ran past its time limit while reading the \
                          YAML, and stopped; ask for less (a smaller file)"
                    .to_owned(),
                line: span.start.line(),
                column: span.start.col() + 1,
            });
        }
        let at = |message: String| YamlError {
            message,
            line: span.start.line(),
            column: span.start.col() + 1,
        };
        match event {
            Event::DocumentStart(_) => {
                doc_start = writer.out.len();
                if documents > 0 {
                    writer.out.push(',');
                }
                empty = false;
            }
            Event::DocumentEnd => {
                if empty {
                    // `---` with nothing after it: kubectl skips it too.
                    writer.out.truncate(doc_start);
                } else {
                    documents += 1;
                }
            }
            Event::Scalar(value, style, anchor, tag) => {
                if writer.stack.is_empty() && style == ScalarStyle::Plain && value.is_empty() {
                    empty = true;
                }
                let start = writer.open();
                writer.scalar(&value, style, tag.as_deref());
                let merge = style == ScalarStyle::Plain && value == "<<";
                writer.close(start, anchor, merge).map_err(at)?;
            }
            Event::Alias(id) => {
                let start = writer.open();
                let Some(&anchor) = writer.anchors.get(&id) else {
                    return Err(at("an alias names no anchor before it".to_owned()));
                };
                writer.expand(anchor).map_err(at)?;
                writer.close(start, 0, false).map_err(at)?;
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let is_map = matches!(event, Event::MappingStart(..));
                if writer.stack.len() >= MAX_NESTING {
                    return Err(at(format!(
                        "the YAML nests deeper than {MAX_NESTING} levels"
                    )));
                }
                if writer.stack.is_empty() {
                    first_container.get_or_insert(true);
                }
                let start = writer.open();
                writer.out.push(if is_map { '{' } else { '[' });
                writer.stack.push(Frame {
                    start,
                    anchor,
                    is_map,
                    first: true,
                    at_key: true,
                    entry_start: 0,
                    was_first: true,
                    merge_value: None,
                    merged: Vec::new(),
                    merged_keys: HashSet::new(),
                    own_keys: Vec::new(),
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = writer.stack.pop() else {
                    return Err(at("a container closes that never opened".to_owned()));
                };
                if frame.is_map {
                    writer.finish_map(&frame);
                } else {
                    writer.out.push(']');
                }
                writer.close(frame.start, frame.anchor, false).map_err(at)?;
            }
            Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
        }
    }
    let mut notes = Vec::new();
    if documents == 0 {
        writer.out = "null".to_owned();
    } else if documents > 1 {
        writer.out.insert(0, '[');
        writer.out.push(']');
        notes.push(format!(
            "the YAML holds {documents} documents, read as an array of them: `[0]` is the first"
        ));
    }
    if writer.non_finite > 0 {
        notes.push(format!(
            "{} `.inf`/`.nan` value{} read as null: JSON has no spelling for them",
            writer.non_finite,
            if writer.non_finite == 1 { "" } else { "s" }
        ));
    }
    if writer.too_big > 0 {
        notes.push(format!(
            "{} hexadecimal or octal integer{} too large for 128 bits kept as text",
            writer.too_big,
            if writer.too_big == 1 { "" } else { "s" }
        ));
    }
    Ok(Converted {
        json: writer.out,
        is_container: documents > 1 || first_container == Some(true),
        notes,
    })
}

/// An open sequence or mapping.
struct Frame {
    /// Where its JSON text starts in the output.
    start: usize,
    anchor: usize,
    is_map: bool,
    /// No entry written yet.
    first: bool,
    /// A mapping's next node is a key.
    at_key: bool,
    /// Where the current key's entry starts (before its comma), and whether
    /// the mapping was empty then: a `<<` key is taken back out.
    entry_start: usize,
    was_first: bool,
    /// The current value belongs to `<<`, and starts at this offset.
    merge_value: Option<usize>,
    /// Members brought in by `<<`, earlier sources first, and their keys
    /// (a set: a list searched for each key was quadratic, hole 7).
    merged: Vec<(String, String)>,
    merged_keys: HashSet<String>,
    /// Where the mapping's own keys are in the output (JSON strings), so
    /// merged keys it has are left out without reading the mapping again.
    own_keys: Vec<(usize, usize)>,
}

/// Where an anchored node's JSON text is.
#[derive(Debug, Clone, Copy)]
enum Anchor {
    /// In the output, at this span.
    Out(usize, usize),
    /// In the archive (text taken back out of the output), at this span.
    Archived(usize, usize),
}

struct Writer {
    out: String,
    stack: Vec<Frame>,
    /// Where the JSON text of each anchored node is, by anchor id.
    anchors: HashMap<usize, Anchor>,
    /// The anchors whose text is in the output, in the order they closed,
    /// so their ends never decrease: the ones a cut removes are at the end.
    in_out: Vec<usize>,
    /// Text cut from the output that anchors still point into.
    archive: String,
    /// The most output aliases may expand to.
    limit: usize,
    non_finite: usize,
    too_big: usize,
}

impl Writer {
    /// Start a node where the open container expects one: its separator is
    /// written, and the node's text starts at the offset returned.
    fn open(&mut self) -> usize {
        if let Some(frame) = self.stack.last_mut()
            && (!frame.is_map || frame.at_key)
        {
            if frame.is_map {
                frame.entry_start = self.out.len();
                frame.was_first = frame.first;
            }
            if !frame.first {
                self.out.push(',');
            }
            frame.first = false;
        }
        self.out.len()
    }

    /// The output, and the archive, within the cap.
    fn check_size(&self) -> Result<(), String> {
        if self.out.len() + self.archive.len() > self.limit {
            return Err(format!(
                "aliases expand to more than {} bytes of JSON (a YAML alias bomb?)",
                self.limit
            ));
        }
        Ok(())
    }

    /// Write an alias: its anchor's text again.
    fn expand(&mut self, anchor: Anchor) -> Result<(), String> {
        let (len, copy) = match anchor {
            Anchor::Out(start, end) => (end - start, start..end),
            Anchor::Archived(start, end) => (end - start, start..end),
        };
        // Checked before the copy, so a bomb never allocates its expansion.
        if self.out.len() + self.archive.len() + len > self.limit {
            return Err(format!(
                "aliases expand to more than {} bytes of JSON (a YAML alias bomb?)",
                self.limit
            ));
        }
        match anchor {
            Anchor::Out(..) => self.out.extend_from_within(copy),
            Anchor::Archived(..) => self.out.push_str(&self.archive[copy]),
        }
        Ok(())
    }

    /// The output is about to lose everything from `at` on: the anchors
    /// there move to the archive with their text, copied once.
    fn cut(&mut self, at: usize) {
        let mut from = at;
        let mut moved = Vec::new();
        while let Some(&id) = self.in_out.last() {
            let Some(&Anchor::Out(start, end)) = self.anchors.get(&id) else {
                self.in_out.pop();
                continue;
            };
            if end <= at {
                break;
            }
            from = from.min(start);
            moved.push(id);
            self.in_out.pop();
        }
        if moved.is_empty() {
            return;
        }
        let base = self.archive.len();
        self.archive.push_str(&self.out[from..]);
        for id in moved {
            if let Some(anchor) = self.anchors.get_mut(&id)
                && let Anchor::Out(start, end) = *anchor
            {
                *anchor = Anchor::Archived(base + start - from, base + end - from);
            }
        }
    }

    /// The node starting at `start` is complete: remember it for its
    /// anchor, and let the mapping around it move from key to value.
    fn close(&mut self, start: usize, anchor: usize, plain_merge: bool) -> Result<(), String> {
        self.check_size()?;
        if anchor > 0 {
            self.anchors
                .insert(anchor, Anchor::Out(start, self.out.len()));
            self.in_out.push(anchor);
        }
        let Some(frame) = self.stack.last_mut() else {
            return Ok(());
        };
        if !frame.is_map {
            return Ok(());
        }
        if frame.at_key {
            frame.at_key = false;
            if plain_merge {
                let entry_start = frame.entry_start;
                frame.first = frame.was_first;
                self.cut(entry_start);
                self.out.truncate(entry_start);
                if let Some(frame) = self.stack.last_mut() {
                    frame.merge_value = Some(entry_start);
                }
                return Ok(());
            }
            // JSON keys are strings: a number, bool, null or container key
            // is written as its JSON text.
            if !self.out[start..].starts_with('"') {
                self.cut(start);
                let text = self.out.split_off(start);
                push_string(&text, &mut self.out);
            }
            let key = (start, self.out.len());
            self.out.push(':');
            if let Some(frame) = self.stack.last_mut() {
                frame.own_keys.push(key);
            }
            return Ok(());
        }
        frame.at_key = true;
        if let Some(value_start) = frame.merge_value.take() {
            self.cut(value_start);
            let text = self.out.split_off(value_start);
            let Some(frame) = self.stack.last_mut() else {
                return Ok(());
            };
            merge_from(&text, &mut frame.merged, &mut frame.merged_keys)?;
        }
        Ok(())
    }

    /// Close a mapping: merged members whose key the mapping does not have
    /// itself come last.
    fn finish_map(&mut self, frame: &Frame) {
        self.out.push('}');
        if frame.merged.is_empty() {
            return;
        }
        let own: HashSet<String> = frame
            .own_keys
            .iter()
            .map(|&(start, end)| decode_body(&self.out.as_bytes()[start + 1..end - 1]))
            .collect();
        self.out.pop();
        let mut first = frame.first;
        for (key, value) in &frame.merged {
            if own.contains(key) {
                continue;
            }
            if !first {
                self.out.push(',');
            }
            first = false;
            push_string(key, &mut self.out);
            self.out.push(':');
            self.out.push_str(value);
        }
        self.out.push('}');
    }

    /// Write one scalar as JSON.
    fn scalar(&mut self, value: &str, style: ScalarStyle, tag: Option<&Tag>) {
        let core = tag
            .filter(|tag| tag.is_yaml_core_schema())
            .map(|tag| tag.suffix.as_str());
        if core == Some("str") || (style != ScalarStyle::Plain && core.is_none()) {
            push_string(value, &mut self.out);
            return;
        }
        match resolve(value) {
            Plain::Null => self.out.push_str("null"),
            Plain::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
            Plain::Number(text) => self.out.push_str(&text),
            Plain::NonFinite => {
                self.non_finite += 1;
                self.out.push_str("null");
            }
            Plain::TooBig => {
                self.too_big += 1;
                push_string(value, &mut self.out);
            }
            Plain::String => push_string(value, &mut self.out),
        }
    }
}

/// The members a `<<` value brings: a mapping, or a list of mappings
/// (earlier ones win); `keys` is the set of `merged`'s keys.
fn merge_from(
    json: &str,
    merged: &mut Vec<(String, String)>,
    keys: &mut HashSet<String>,
) -> Result<(), String> {
    const NEEDS: &str = "a merge key `<<` needs a mapping or a list of mappings";
    let doc = Doc::new(json.as_bytes());
    let root = doc.root().map_err(|_| NEEDS.to_owned())?;
    let sources: Vec<_> = match root.kind {
        Kind::Object => vec![root],
        Kind::Array => doc
            .elements(root)
            .collect::<Result<_, _>>()
            .map_err(|_| NEEDS.to_owned())?,
        _ => return Err(NEEDS.to_owned()),
    };
    for source in sources {
        if source.kind != Kind::Object {
            return Err(NEEDS.to_owned());
        }
        for member in doc.members(source) {
            let member = member.map_err(|_| NEEDS.to_owned())?;
            let key = member.key();
            if keys.contains(&key) {
                continue;
            }
            let value = doc.text(member.value).map_err(|_| NEEDS.to_owned())?;
            keys.insert(key.clone());
            merged.push((key, String::from_utf8_lossy(value).into_owned()));
        }
    }
    Ok(())
}

fn push_string(s: &str, out: &mut String) {
    out.push('"');
    crate::repair::push_json_escaped(out, s);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> String {
        to_json(text)
            .map(|c| c.json)
            .unwrap_or_else(|e| e.to_string())
    }

    #[test]
    fn scalars_resolve_as_the_core_schema() {
        assert_eq!(
            json(
                "[~, null, '', true, False, 0x1F, 0o17, +1, -0, 1.5, .5, 1., 1e3, 0755, 00.5, yes, 1_000]"
            ),
            r#"[null,null,"",true,false,31,15,1,-0,1.5,0.5,1.0,1e3,"0755",0.5,"yes","1_000"]"#
        );
        assert_eq!(
            json("a: !!str 12\nb: \"12\"\nc: !!int 12"),
            r#"{"a":"12","b":"12","c":12}"#
        );
    }

    #[test]
    fn big_integers_stay_exact() {
        assert_eq!(
            json("a: 18446744073709551616\nb: -99999999999999999999999999999999999999999"),
            r#"{"a":18446744073709551616,"b":-99999999999999999999999999999999999999999}"#
        );
    }

    #[test]
    fn merge_keys_apply_with_own_keys_first() {
        let text = "base: &b {x: 1, y: 2}\nmore: &m {y: 9, z: 3}\nc:\n  <<: [*b, *m]\n  x: 0\n";
        assert_eq!(
            json(text),
            r#"{"base":{"x":1,"y":2},"more":{"y":9,"z":3},"c":{"x":0,"y":2,"z":3}}"#
        );
        assert!(json("a: {<<: 3}").contains("merge key"));
    }

    /// Issue 43, hole 4: anchors point into the output; text cut from it (a
    /// merge key's value, a key that is not a string) keeps its anchors.
    #[test]
    fn anchors_in_cut_text_keep_their_text() {
        assert_eq!(
            json("base: {<<: &m {a: &y [1, 2]}, b: *y}\nc: *m\nd: *y\n"),
            r#"{"base":{"b":[1,2],"a":[1,2]},"c":{"a":[1,2]},"d":[1,2]}"#
        );
        assert_eq!(json("{&k 5: a, b: *k}"), r#"{"5":"a","b":5}"#);
        assert_eq!(
            json("a: &o {x: &i [1]}\nb: [*o, *i, *o]\n"),
            r#"{"a":{"x":[1]},"b":[{"x":[1]},[1],{"x":[1]}]}"#
        );
    }

    /// Issue 43, hole 7: a merge of many keys, and many merges, are linear.
    #[test]
    fn merges_of_many_keys_are_linear() {
        let mut text = String::from("base: &b\n");
        for i in 0..50_000 {
            text.push_str(&format!("  k{i}: {i}\n"));
        }
        text.push_str("m:\n  k7: own\n  <<: *b\n");
        let started = crate::tools::cpu_clock::CpuClock::start();
        let converted = json(&text);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert!(
            converted.ends_with(r#""k49999":49999}}"#),
            "{}",
            &converted[converted.len() - 40..]
        );
        assert!(converted.contains(r#""m":{"k7":"own","k0":0,"#));
    }

    #[test]
    fn documents_become_an_array() {
        let converted = to_json("---\na: 1\n---\nb: 2\n---\n").unwrap();
        assert_eq!(converted.json, r#"[{"a":1},{"b":2}]"#);
        assert!(converted.notes[0].contains("2 documents"));
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for n in 1..12 {
            let prev = (b'a' + n - 1) as char;
            let name = (b'a' + n) as char;
            text.push_str(&format!("{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
        }
        assert!(json(&text).contains("alias bomb"));
    }
}
