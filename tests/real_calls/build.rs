//! Calls built on excerpts, serialised field by field so their truth is
//! known exactly: everything is correct JSON except the double quotes inside
//! the code fields, left unescaped, and, in half the calls, newlines and
//! tabs written as raw bytes.

use std::fmt::Write as _;
use std::ops::Range;

use serde_json::{Map, Value, json};

use super::edits::{Form, edit_pair, shell_command};
use super::sources::{Excerpt, Kind, Picker, TYPOGRAPHIC};
use crate::rng::Rng;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Tool {
    WriteFile,
    EditFile,
    Shell,
}

impl Tool {
    pub(super) fn name(self) -> &'static str {
        match self {
            Tool::WriteFile => "write_file",
            Tool::EditFile => "edit_file",
            Tool::Shell => "shell",
        }
    }

    /// The tool's JSON Schema, as an OpenAI `parameters` or an Anthropic
    /// `input_schema` would give it.
    pub(super) fn schema(self) -> Value {
        let string = json!({"type": "string"});
        let (properties, required) = match self {
            Tool::WriteFile => (
                json!({"path": string, "content": string}),
                json!(["path", "content"]),
            ),
            Tool::EditFile => (
                json!({"path": string, "old_string": string, "new_string": string}),
                json!(["path", "old_string", "new_string"]),
            ),
            Tool::Shell => (
                json!({"command": string, "timeout": {"type": "integer"}}),
                json!(["command"]),
            ),
        };
        json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Newlines {
    /// `\n` and `\t`, as JSON wants.
    Escaped,
    /// Raw newline and tab bytes inside the strings.
    Raw,
}

impl Newlines {
    pub(super) fn name(self) -> &'static str {
        match self {
            Newlines::Escaped => "escaped \\n",
            Newlines::Raw => "raw bytes",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Layout {
    /// `{"a":"b","c":1}`
    Compact,
    /// `{"a": "b", "c": 1}`
    Spaced,
    /// One member a line, indented by two spaces.
    Pretty,
}

impl Layout {
    pub(super) fn name(self) -> &'static str {
        match self {
            Layout::Compact => "compact",
            Layout::Spaced => "spaced",
            Layout::Pretty => "pretty",
        }
    }

    /// The text before the first member, after a key, between members, and at the end.
    fn punctuation(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Layout::Compact => ("{", ":", ",", "}"),
            Layout::Spaced => ("{", ": ", ", ", "}"),
            Layout::Pretty => ("{\n  ", ": ", ",\n  ", "\n}"),
        }
    }
}

/// Where the first code field sits among the call's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Position {
    First,
    Middle,
    Last,
    /// The call has no other field (`shell` with only `command`).
    Only,
}

impl Position {
    pub(super) fn name(self) -> &'static str {
        match self {
            Position::First => "first",
            Position::Middle => "middle",
            Position::Last => "last",
            Position::Only => "only",
        }
    }
}

/// Whether a serialisation leaves the code fields' quotes unescaped (the
/// call as the model wrote it) or escapes them all (the call as it should be).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quotes {
    AsWritten,
    AllEscaped,
}

#[derive(Debug, Clone)]
pub(super) enum FieldValue {
    Text(String),
    Int(u64),
}

#[derive(Debug, Clone)]
pub(super) struct Field {
    pub(super) key: &'static str,
    pub(super) value: FieldValue,
    /// Whether the field holds code, whose quotes the model left unescaped.
    pub(super) code: bool,
}

impl Field {
    fn text(key: &'static str, value: String, code: bool) -> Self {
        Field {
            key,
            value: FieldValue::Text(value),
            code,
        }
    }
}

/// The body of a string value in a call's text, between its quotes.
#[derive(Debug, Clone)]
pub(super) struct Span {
    pub(super) range: Range<usize>,
    /// The index of its field.
    pub(super) field: usize,
    pub(super) code: bool,
}

/// One generated call: the text the model wrote and what it meant.
pub(super) struct Call {
    pub(super) index: usize,
    pub(super) tool: Tool,
    pub(super) excerpt: Excerpt,
    pub(super) newlines: Newlines,
    pub(super) layout: Layout,
    pub(super) position: Position,
    /// The shell command's form (shell calls only).
    pub(super) form: Option<Form>,
    pub(super) fields: Vec<Field>,
    pub(super) raw: String,
    pub(super) spans: Vec<Span>,
    pub(super) truth: Value,
}

impl Call {
    pub(super) fn kind(&self) -> Kind {
        self.excerpt.kind
    }

    /// Whether a code field's text holds a double quote (left unescaped).
    pub(super) fn has_raw_quote(&self) -> bool {
        self.code_texts().any(|text| text.contains('"'))
    }

    /// Whether the call carries raw newline or tab bytes inside a string.
    pub(super) fn has_raw_newline(&self) -> bool {
        self.newlines == Newlines::Raw
            && self
                .fields
                .iter()
                .any(|f| matches!(&f.value, FieldValue::Text(s) if s.contains(['\n', '\t'])))
    }

    /// Whether a code field holds a typographic quote, which the
    /// tool-aware mode straightens in text bound for a code file where it
    /// stands as a delimiter, and keeps where it is data.
    pub(super) fn has_curly_quote(&self) -> bool {
        self.code_texts().any(|text| text.contains(TYPOGRAPHIC))
    }

    fn code_texts(&self) -> impl Iterator<Item = &str> {
        self.fields
            .iter()
            .filter(|f| f.code)
            .filter_map(|f| match &f.value {
                FieldValue::Text(s) => Some(s.as_str()),
                FieldValue::Int(_) => None,
            })
    }

    pub(super) fn label(&self) -> String {
        format!(
            "call {} ({}, {}, newlines {}, {}) from {}",
            self.index,
            self.kind().name(),
            self.tool.name(),
            self.newlines.name(),
            self.layout.name(),
            self.excerpt.place(),
        )
    }
}

/// A string's body as JSON, quotes excluded. With `escape_quotes` and escaped
/// newlines it is exactly what serde_json writes (a test checks that);
/// otherwise it is the model's mistake: `"` left as it is, and newlines and
/// tabs as raw bytes when asked. Backslashes are always escaped, so a text's
/// own `\"` becomes `\\"` when broken and `\\\"` when correct.
pub(super) fn encode(text: &str, escape_quotes: bool, newlines: Newlines) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '"' if escape_quotes => out.push_str("\\\""),
            '"' => out.push('"'),
            '\\' => out.push_str("\\\\"),
            '\n' | '\t' if newlines == Newlines::Raw => out.push(c),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// The text an [`encode`]d body spells, up to its end or to where it was
/// cut: an escape cut in the middle is not read.
pub(super) fn decode(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, escaped)) = chars.next() else {
            break;
        };
        let plain = match escaped {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'u' => {
                let Some(hex) = body.get(at + 2..at + 6) else {
                    break;
                };
                chars.nth(3);
                char::from_u32(u32::from_str_radix(hex, 16).expect("encode writes hex"))
                    .expect("encode escapes only control characters")
            }
            other => other,
        };
        out.push(plain);
    }
    out
}

/// The call's text, one member at a time, and where each string value's body sits.
pub(super) fn serialize(
    fields: &[Field],
    layout: Layout,
    newlines: Newlines,
    quotes: Quotes,
) -> (String, Vec<Span>) {
    let (open, colon, comma, close) = layout.punctuation();
    let mut text = String::from(open);
    let mut spans = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            text.push_str(comma);
        }
        text.push('"');
        text.push_str(field.key);
        text.push('"');
        text.push_str(colon);
        match &field.value {
            FieldValue::Int(n) => {
                let _ = write!(text, "{n}");
            }
            FieldValue::Text(s) => {
                let escape_quotes = quotes == Quotes::AllEscaped || !field.code;
                text.push('"');
                let start = text.len();
                text.push_str(&encode(s, escape_quotes, newlines));
                spans.push(Span {
                    range: start..text.len(),
                    field: i,
                    code: field.code,
                });
                text.push('"');
            }
        }
    }
    text.push_str(close);
    (text, spans)
}

pub(super) fn truth_of(fields: &[Field]) -> Value {
    let mut map = Map::new();
    for field in fields {
        let value = match &field.value {
            FieldValue::Text(s) => Value::String(s.clone()),
            FieldValue::Int(n) => Value::from(*n),
        };
        map.insert(field.key.to_owned(), value);
    }
    Value::Object(map)
}

/// Fields in their usual order a bit more than half the time, else shuffled
/// (two fields: swapped 30% of the time).
fn order(rng: &mut Rng, mut fields: Vec<Field>) -> Vec<Field> {
    let percent = if fields.len() == 2 { 30 } else { 45 };
    if rng.chance(percent) {
        if fields.len() == 2 {
            fields.reverse();
        } else {
            rng.shuffle(&mut fields);
        }
    }
    fields
}

/// One call built around a fresh excerpt.
pub(super) fn build_call(rng: &mut Rng, picker: &mut Picker, index: usize) -> Call {
    let excerpt = picker.excerpt(rng);
    build_call_on(rng, excerpt, index)
}

/// One call built around `excerpt`.
fn build_call_on(rng: &mut Rng, excerpt: Excerpt, index: usize) -> Call {
    let tool = rng.weighted(&[
        (Tool::WriteFile, 40),
        (Tool::EditFile, 35),
        (Tool::Shell, 25),
    ]);
    let mut form = None;
    let fields = match tool {
        Tool::WriteFile => {
            let mut content = excerpt.text();
            if rng.chance(50) {
                content.push('\n');
            }
            let fields = vec![
                Field::text("path", excerpt.file.clone(), false),
                Field::text("content", content, true),
            ];
            order(rng, fields)
        }
        Tool::EditFile => {
            let (old, new) = edit_pair(rng, &excerpt);
            let fields = vec![
                Field::text("path", excerpt.file.clone(), false),
                Field::text("old_string", old, true),
                Field::text("new_string", new, true),
            ];
            order(rng, fields)
        }
        Tool::Shell => {
            let (command, shape) = shell_command(rng, &excerpt);
            form = Some(shape);
            let mut fields = vec![Field::text("command", command, true)];
            if rng.chance(35) {
                fields.push(Field {
                    key: "timeout",
                    value: FieldValue::Int(30),
                    code: false,
                });
            }
            order(rng, fields)
        }
    };
    let first_code = fields
        .iter()
        .position(|f| f.code)
        .expect("every call has a code field");
    let position = match (fields.len(), first_code) {
        (1, _) => Position::Only,
        (_, 0) => Position::First,
        (n, i) if i + 1 == n => Position::Last,
        _ => Position::Middle,
    };
    let newlines = if rng.chance(50) {
        Newlines::Raw
    } else {
        Newlines::Escaped
    };
    let layout = rng.weighted(&[
        (Layout::Compact, 30),
        (Layout::Spaced, 45),
        (Layout::Pretty, 25),
    ]);
    let (raw, spans) = serialize(&fields, layout, newlines, Quotes::AsWritten);
    let truth = truth_of(&fields);
    Call {
        index,
        tool,
        excerpt,
        newlines,
        layout,
        position,
        form,
        fields,
        raw,
        spans,
        truth,
    }
}

/// The broken calls, and how many were dropped because the mistake happened
/// to spell other valid JSON (quoted_code's "ambiguous ones dropped": no
/// repair can know the truth then).
pub(super) struct Generated {
    pub(super) calls: Vec<Call>,
    pub(super) ambiguous: Vec<Call>,
}

/// Whether the call's text is valid JSON that means something else.
pub(super) fn is_ambiguous(call: &Call) -> bool {
    serde_json::from_str::<Value>(&call.raw).is_ok_and(|value| value != call.truth)
}

pub(super) fn generate(count: usize, seed: u64, picker: &mut Picker) -> Generated {
    let mut rng = Rng::new(seed);
    let mut calls = Vec::with_capacity(count);
    let mut ambiguous = Vec::new();
    while calls.len() < count {
        let call = build_call(&mut rng, picker, calls.len());
        if is_ambiguous(&call) {
            ambiguous.push(call);
            continue;
        }
        calls.push(call);
    }
    Generated { calls, ambiguous }
}

/// A broken call cut inside one of its code fields.
pub(super) struct Truncated {
    pub(super) call: Call,
    /// The text the model had sent when it was cut (at a character boundary).
    pub(super) prefix: String,
    /// The index of the field it was cut in.
    pub(super) cut_field: usize,
    /// The text of that field read before the cut.
    pub(super) read: String,
}

impl Truncated {
    /// The truth of the prefix: the fields before the cut, and the cut
    /// field with every character read.
    pub(super) fn truth(&self) -> Value {
        let mut fields = self.call.fields[..self.cut_field].to_vec();
        let mut cut = self.call.fields[self.cut_field].clone();
        cut.value = FieldValue::Text(self.read.clone());
        fields.push(cut);
        truth_of(&fields)
    }
}

/// `count` broken calls, each cut at a random character boundary inside one
/// of its code fields, after at least one byte of it.
pub(super) fn truncated(count: usize, seed: u64, picker: &mut Picker) -> Vec<Truncated> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let call = build_call(&mut rng, picker, out.len());
        let code_spans: Vec<&Span> = call.spans.iter().filter(|s| s.code).collect();
        let span = (*rng.pick(&code_spans)).clone();
        let boundaries: Vec<usize> = (span.range.start + 1..=span.range.end)
            .filter(|&at| call.raw.is_char_boundary(at))
            .collect();
        if boundaries.is_empty() {
            continue;
        }
        let cut = *rng.pick(&boundaries);
        let prefix = call.raw[..cut].to_owned();
        let read = decode(&call.raw[span.range.start..cut]);
        out.push(Truncated {
            call,
            prefix,
            cut_field: span.field,
            read,
        });
    }
    out
}

/// A correctly escaped call, and which serialisation wrote it.
pub(super) struct Valid {
    pub(super) call: Call,
    pub(super) text: String,
    pub(super) how: &'static str,
}

/// `count` calls written correctly, then `typographic` more whose code
/// fields hold a typographic quote as data (fewer when no file holds one:
/// a few excerpts lose theirs to an edit, and are built again).
pub(super) fn valid(
    count: usize,
    typographic: usize,
    seed: u64,
    picker: &mut Picker,
) -> Vec<Valid> {
    let mut rng = Rng::new(seed);
    let mut out: Vec<Valid> = (0..count)
        .map(|index| {
            let call = build_call(&mut rng, picker, index);
            write_correctly(&mut rng, call)
        })
        .collect();
    let mut tries = 0;
    while out.len() < count + typographic && tries < 4 * typographic {
        tries += 1;
        let Some(excerpt) = picker.typographic_excerpt(&mut rng) else {
            break;
        };
        let call = build_call_on(&mut rng, excerpt, out.len());
        if call.has_curly_quote() {
            out.push(write_correctly(&mut rng, call));
        }
    }
    out
}

/// `call` written correctly: by serde_json (compact or pretty, keys sorted)
/// or field by field with every quote escaped (the call's own order and
/// layout).
fn write_correctly(rng: &mut Rng, call: Call) -> Valid {
    let (how, text) = match rng.below(3) {
        0 => (
            "serde_json::to_string",
            serde_json::to_string(&call.truth).expect("a Value serialises"),
        ),
        1 => (
            "serde_json::to_string_pretty",
            serde_json::to_string_pretty(&call.truth).expect("a Value serialises"),
        ),
        _ => (
            "field by field",
            serialize(
                &call.fields,
                call.layout,
                Newlines::Escaped,
                Quotes::AllEscaped,
            )
            .0,
        ),
    };
    Valid { call, text, how }
}

/// The broken call mended the right way: every quote inside a code field
/// escaped, every raw newline or tab inside a string escaped, nothing else
/// touched.
pub(super) fn mend_the_right_way(call: &Call) -> String {
    let mut out = String::with_capacity(call.raw.len() + 64);
    let mut last = 0;
    for span in &call.spans {
        out.push_str(&call.raw[last..span.range.start]);
        let mut chars = call.raw[span.range.clone()].chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    out.push('\\');
                    out.push(chars.next().expect("an escape inside a body is complete"));
                }
                '"' => {
                    assert!(span.code, "{}: a raw quote in a plain field", call.label());
                    out.push_str("\\\"");
                }
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                c => out.push(c),
            }
        }
        last = span.range.end;
    }
    out.push_str(&call.raw[last..]);
    out
}
