//! A parameter's raw text written as a JSON value, typed by the tool's
//! schema: `<parameter=n>5</parameter>` is `5` where the schema says
//! integer and `"5"` where it says string.
//!
//! The text streams: it is written as a JSON string as soon as it can no
//! longer be anything else (`Paris` after its `P`, when the schema allows
//! a number and a string), and held only while it could still be another
//! kind (`12` for a number, `{…` for an object, up to its end). What is
//! written is never taken back, so the call's engine sees append-only JSON.

use serde_json::Value;

/// The JSON kinds a value may take: a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Kinds(u8);

impl Kinds {
    pub(crate) const STRING: Kinds = Kinds(1);
    const INTEGER: Kinds = Kinds(1 << 1);
    const NUMBER: Kinds = Kinds(1 << 2);
    const BOOLEAN: Kinds = Kinds(1 << 3);
    const NULL: Kinds = Kinds(1 << 4);
    const OBJECT: Kinds = Kinds(1 << 5);
    const ARRAY: Kinds = Kinds(1 << 6);
    /// Anything JSON can say: text that reads as JSON is that value.
    pub(crate) const ANY: Kinds = Kinds(0x7f);
    const NONE: Kinds = Kinds(0);

    const fn union(self, other: Kinds) -> Kinds {
        Kinds(self.0 | other.0)
    }

    const fn has(self, other: Kinds) -> bool {
        self.0 & other.0 != 0
    }

    /// Whether the set allows no other kind than a string: the text can
    /// stream from its first byte.
    fn only_string(self) -> bool {
        self.0 == Kinds::STRING.0
    }

    /// The kinds a JSON Schema allows, `None` when it says nothing of them.
    /// Reads `type` (a name or a list; the names some tool lists use, `int`,
    /// `float`, `list`, `dict`, `uint32`, by what they start with), `anyOf`,
    /// `oneOf`, `allOf`, `enum`, `const`, and a `$ref` into the root's
    /// `$defs` or `definitions`.
    pub(crate) fn of_schema(schema: &Value, root: &Value) -> Option<Kinds> {
        Kinds::of_schema_at(schema, root, 0)
    }

    fn of_schema_at(schema: &Value, root: &Value, depth: usize) -> Option<Kinds> {
        // A `$ref` cycle or a deep nest: nothing said.
        if depth > 16 {
            return None;
        }
        let object = schema.as_object()?;
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            let target = reference
                .strip_prefix('#')
                .and_then(|pointer| root.pointer(pointer))?;
            return Kinds::of_schema_at(target, root, depth + 1);
        }
        let mut kinds = Kinds::NONE;
        match object.get("type") {
            Some(Value::String(name)) => kinds = kinds.union(Kinds::of_name(name)),
            Some(Value::Array(names)) => {
                for name in names.iter().filter_map(Value::as_str) {
                    kinds = kinds.union(Kinds::of_name(name));
                }
            }
            _ => {}
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            for branch in object
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(more) = Kinds::of_schema_at(branch, root, depth + 1) {
                    kinds = kinds.union(more);
                }
            }
        }
        let listed = object.get("enum").and_then(Value::as_array);
        for value in listed.into_iter().flatten().chain(object.get("const")) {
            kinds = kinds.union(Kinds::of_value(value));
        }
        if kinds == Kinds::NONE {
            if object.contains_key("properties") {
                return Some(Kinds::OBJECT);
            }
            if object.contains_key("items") {
                return Some(Kinds::ARRAY);
            }
            return None;
        }
        Some(kinds)
    }

    fn of_name(name: &str) -> Kinds {
        let name = name.to_ascii_lowercase();
        let starts = |prefixes: &[&str]| prefixes.iter().any(|prefix| name.starts_with(prefix));
        if starts(&["str", "text", "char"]) {
            Kinds::STRING
        } else if starts(&["int", "uint", "long", "short"]) {
            Kinds::INTEGER
        } else if starts(&["num", "float", "double", "decimal"]) {
            Kinds::NUMBER
        } else if starts(&["bool"]) {
            Kinds::BOOLEAN
        } else if starts(&["null", "none"]) {
            Kinds::NULL
        } else if starts(&["obj", "dict", "map"]) {
            Kinds::OBJECT
        } else if starts(&["arr", "list", "tuple", "set"]) {
            Kinds::ARRAY
        } else {
            Kinds::ANY
        }
    }

    fn of_value(value: &Value) -> Kinds {
        match value {
            Value::Null => Kinds::NULL,
            Value::Bool(_) => Kinds::BOOLEAN,
            Value::Number(_) => Kinds::NUMBER,
            Value::String(_) => Kinds::STRING,
            Value::Array(_) => Kinds::ARRAY,
            Value::Object(_) => Kinds::OBJECT,
        }
    }

    /// The kinds of the parameter `key` of a tool whose schema is `schema`,
    /// or `untyped` when the schema does not declare it.
    pub(crate) fn of_param(schema: Option<&Value>, key: &str, untyped: Kinds) -> Kinds {
        schema
            .and_then(|schema| {
                let property = schema.get("properties")?.get(key)?;
                Kinds::of_schema(property, schema)
            })
            .unwrap_or(untyped)
    }

    /// Whether `text` (leading whitespace gone) could still grow into a
    /// value of a kind other than a string.
    fn may_be_other(self, text: &[u8]) -> bool {
        let core = trim_end(text);
        if core.is_empty() {
            return true;
        }
        let lower = core.to_ascii_lowercase();
        let prefix_of = |word: &[u8]| word.starts_with(&lower);
        if self.has(Kinds::NULL) && (prefix_of(b"null") || prefix_of(b"none")) {
            return true;
        }
        if self.has(Kinds::BOOLEAN) && (prefix_of(b"true") || prefix_of(b"false")) {
            return true;
        }
        if self.has(Kinds::INTEGER.union(Kinds::NUMBER)) && may_be_number(core) {
            return true;
        }
        let opener = core[0];
        if self.has(Kinds::OBJECT) && (opener == b'{' || (opener == b'"' && self.has_not_string()))
        {
            return true;
        }
        if self.has(Kinds::ARRAY) && (opener == b'[' || (opener == b'"' && self.has_not_string())) {
            return true;
        }
        false
    }

    /// A JSON string holding a container is read as the container only
    /// where a string is not allowed itself (a double-encoded object).
    fn has_not_string(self) -> bool {
        !self.has(Kinds::STRING)
    }

    /// The JSON text of a complete raw value of these kinds, when it reads
    /// as one of them other than a string.
    fn typed(self, text: &[u8]) -> Option<String> {
        let core = trim_end(text);
        let lower = core.to_ascii_lowercase();
        if self.has(Kinds::NULL) && (lower == b"null" || lower == b"none") {
            return Some("null".to_owned());
        }
        if self.has(Kinds::BOOLEAN) && (lower == b"true" || lower == b"false") {
            return Some(String::from_utf8_lossy(&lower).into_owned());
        }
        if self.has(Kinds::INTEGER.union(Kinds::NUMBER))
            && let Some(number) = number_text(core, self.has(Kinds::NUMBER))
        {
            return Some(number);
        }
        let opener = *core.first()?;
        if opener == b'"' && self.has_not_string() {
            // A container written as a JSON string: its text is the value's.
            let inner: String = serde_json::from_slice(core).ok()?;
            return self.typed(inner.trim().as_bytes());
        }
        let wanted = match opener {
            b'{' => Kinds::OBJECT,
            b'[' => Kinds::ARRAY,
            _ => return None,
        };
        if !self.has(wanted) {
            return None;
        }
        // The container is mended on its own first, so a fault inside it
        // cannot reach the arguments around it, and kept only if it is one.
        let outcome = crate::repair::repair(core);
        if outcome.verdict() == crate::repair::Verdict::NotJson {
            return None;
        }
        let value: Value = serde_json::from_str(outcome.text()).ok()?;
        let fits = matches!(
            (&value, opener),
            (Value::Object(_), b'{') | (Value::Array(_), b'[')
        );
        if !fits {
            return None;
        }
        // When its faults are local ones (a trailing comma, a bare key,
        // single quotes, `True`), it goes to the call's engine as written,
        // which mends it the same way and reports each fix; otherwise, as
        // mended here.
        let local = outcome.fixes().iter().all(|fix| {
            use crate::repair::FixKind;
            matches!(
                fix.kind,
                FixKind::QuotedKey
                    | FixKind::ReplacedQuotes
                    | FixKind::ReplacedLiteral
                    | FixKind::RemovedComma
                    | FixKind::InsertedComma
                    | FixKind::EscapedControl
                    | FixKind::RemovedComment
                    | FixKind::NormalizedNumber
                    | FixKind::ConvertedTuple
            )
        });
        Some(if local {
            String::from_utf8_lossy(core).into_owned()
        } else {
            outcome.text().to_owned()
        })
    }
}

/// What is trimmed from a value written as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trim {
    /// Nothing.
    No,
    /// One line break at each end (`<parameter=k>\nV\n</parameter>`).
    Newline,
    /// All whitespace at each end.
    Space,
}

/// Where a value being written stands.
#[derive(Debug)]
enum Phase {
    /// Nothing but (trimmed) leading whitespace yet.
    Start,
    /// Held: it may still be a number, a literal, a container.
    Held(Vec<u8>),
    /// A string whose opening quote is written; the whitespace at its end
    /// so far is held, since the trim may drop it.
    Text(Vec<u8>),
}

/// One value's raw text, written out as JSON as it arrives.
#[derive(Debug)]
pub(crate) struct ValueWriter {
    kinds: Kinds,
    trim: Trim,
    phase: Phase,
    /// Whether the one leading line break `Trim::Newline` drops was looked
    /// for (a chunk may end right after it).
    led: bool,
}

impl ValueWriter {
    pub(crate) fn new(kinds: Kinds, trim: Trim) -> Self {
        ValueWriter {
            kinds,
            trim,
            phase: Phase::Start,
            led: false,
        }
    }

    /// Whether any of the value's text has come (beyond trimmed whitespace).
    pub(crate) fn started(&self) -> bool {
        !matches!(self.phase, Phase::Start)
    }

    /// More of the value's text; the JSON it settles goes to `out`.
    pub(crate) fn push(&mut self, mut bytes: &[u8], out: &mut Vec<u8>) {
        if let Phase::Start = self.phase {
            match self.trim {
                Trim::No => {}
                Trim::Newline => {
                    if bytes.is_empty() {
                        return;
                    }
                    if !self.led {
                        self.led = true;
                        if let Some(rest) = bytes.strip_prefix(b"\n") {
                            bytes = rest;
                        }
                    }
                }
                Trim::Space => {
                    let n = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
                    bytes = &bytes[n..];
                }
            }
            if bytes.is_empty() {
                return;
            }
            self.phase = if self.kinds.only_string() {
                out.push(b'"');
                Phase::Text(Vec::new())
            } else {
                Phase::Held(Vec::new())
            };
        }
        match &mut self.phase {
            Phase::Start => {}
            Phase::Held(held) => {
                held.extend_from_slice(bytes);
                let lead = held.iter().take_while(|b| b.is_ascii_whitespace()).count();
                if !self.kinds.may_be_other(&held[lead..]) {
                    let held = std::mem::take(held);
                    out.push(b'"');
                    self.phase = Phase::Text(Vec::new());
                    self.text(&held, out);
                }
            }
            Phase::Text(_) => self.text(bytes, out),
        }
    }

    /// Text of a string value: written escaped, its trailing whitespace held.
    fn text(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        let Phase::Text(tail) = &mut self.phase else {
            return;
        };
        if self.trim == Trim::No {
            escape_into(bytes, out);
            return;
        }
        match bytes.iter().rposition(|b| !b.is_ascii_whitespace()) {
            None => tail.extend_from_slice(bytes),
            Some(last) => {
                escape_into(tail, out);
                tail.clear();
                escape_into(&bytes[..=last], out);
                tail.extend_from_slice(&bytes[last + 1..]);
            }
        }
    }

    /// The value's end: whatever is held is settled.
    pub(crate) fn finish(self, out: &mut Vec<u8>) {
        match self.phase {
            Phase::Start => out.extend_from_slice(if self.kinds.has(Kinds::STRING) {
                b"\"\""
            } else {
                b"null"
            }),
            Phase::Held(held) => {
                let lead = held.iter().take_while(|b| b.is_ascii_whitespace()).count();
                if let Some(json) = self.kinds.typed(&held[lead..]) {
                    out.extend_from_slice(json.as_bytes());
                } else {
                    out.push(b'"');
                    escape_into(trimmed_end(&held, self.trim), out);
                    out.push(b'"');
                }
            }
            Phase::Text(tail) => {
                escape_into(trimmed_end(&tail, self.trim), out);
                out.push(b'"');
            }
        }
    }
}

/// `bytes` with what `trim` drops at the end gone.
fn trimmed_end(bytes: &[u8], trim: Trim) -> &[u8] {
    match trim {
        Trim::No => bytes,
        Trim::Newline => bytes.strip_suffix(b"\n").unwrap_or(bytes),
        Trim::Space => trim_end(bytes),
    }
}

fn trim_end(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    &bytes[..end]
}

/// Whether `text` is the start of a number as models write them: a sign,
/// digits, one point, an exponent.
fn may_be_number(text: &[u8]) -> bool {
    let body = text
        .strip_prefix(b"-")
        .or_else(|| text.strip_prefix(b"+"))
        .unwrap_or(text);
    let mut seen_e = false;
    let mut seen_point = false;
    let mut prev = b' ';
    for &b in body {
        match b {
            b'0'..=b'9' => {}
            b'.' if !seen_point && !seen_e => seen_point = true,
            b'e' | b'E' if !seen_e && prev.is_ascii_digit() => seen_e = true,
            b'+' | b'-' if matches!(prev, b'e' | b'E') => {}
            _ => return false,
        }
        prev = b;
    }
    true
}

/// The JSON text of a whole number written as models write them (`+5`,
/// `018956`, `5.`, `.5`, `1e3`); a fraction only where `fraction` allows
/// it, and a whole float (`5.0`) is an integer where only one is.
fn number_text(text: &[u8], fraction: bool) -> Option<String> {
    let text = std::str::from_utf8(text).ok()?;
    if text.is_empty()
        || !may_be_number(text.as_bytes())
        || !text.bytes().any(|b| b.is_ascii_digit())
    {
        return None;
    }
    let unsigned = text.strip_prefix('+').unwrap_or(text);
    let (negative, digits) = match unsigned.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, unsigned),
    };
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        let digits = digits.trim_start_matches('0');
        let digits = if digits.is_empty() { "0" } else { digits };
        let sign = if negative && digits != "0" { "-" } else { "" };
        return Some(format!("{sign}{digits}"));
    }
    let float: f64 = unsigned.parse().ok()?;
    if !float.is_finite() {
        return None;
    }
    if float.fract() == 0.0 && float.abs() < 1e15 && !fraction {
        // `int("5.0")` would fail, but the value is a whole number: 5.
        return Some(format!("{}", float as i64));
    }
    if !fraction {
        return None;
    }
    serde_json::Number::from_f64(float).map(|number| number.to_string())
}

/// `bytes` written as the body of a JSON string: quotes, backslashes and
/// control characters escaped, everything else (UTF-8 included) as is.
pub(crate) fn escape_into(bytes: &[u8], out: &mut Vec<u8>) {
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if escape.is_empty() {
            out.extend_from_slice(format!("\\u{b:04x}").as_bytes());
        } else {
            out.extend_from_slice(escape);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(kinds: Kinds, trim: Trim, chunks: &[&str]) -> String {
        let mut writer = ValueWriter::new(kinds, trim);
        let mut out = Vec::new();
        for chunk in chunks {
            writer.push(chunk.as_bytes(), &mut out);
        }
        writer.finish(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn values_are_typed_by_their_kinds() {
        let int_or_null = Kinds::INTEGER.union(Kinds::NULL);
        assert_eq!(write(Kinds::STRING, Trim::Newline, &["\n42\n"]), r#""42""#);
        assert_eq!(write(int_or_null, Trim::Newline, &["\n4", "2\n"]), "42");
        assert_eq!(write(int_or_null, Trim::No, &["None"]), "null");
        assert_eq!(write(Kinds::ANY, Trim::Space, &[" 2.5 "]), "2.5");
        assert_eq!(
            write(Kinds::ANY, Trim::Space, &["{\"a\": [1,"]),
            r#"{"a": [1]}"#
        );
        assert_eq!(
            write(Kinds::ANY, Trim::Space, &["2024-01-16"]),
            r#""2024-01-16""#
        );
        // A container whose faults are local goes on as written: the call's
        // engine mends it, and reports each fix.
        assert_eq!(
            write(Kinds::OBJECT, Trim::Newline, &["\"{'key': 'v'}\""]),
            "{'key': 'v'}"
        );
        assert_eq!(write(Kinds::INTEGER, Trim::No, &["018956"]), "18956");
        assert_eq!(write(Kinds::INTEGER, Trim::No, &["abc"]), r#""abc""#);
        assert_eq!(write(Kinds::NUMBER, Trim::No, &["1e3"]), "1000.0");
        assert_eq!(write(Kinds::ANY, Trim::No, &[""]), r#""""#);
        assert_eq!(
            write(
                Kinds::STRING,
                Trim::Newline,
                &["\nline \"1\"\n", "\n", "\n"]
            ),
            r#""line \"1\"\n\n""#
        );
    }

    #[test]
    fn one_line_break_is_trimmed_whatever_the_chunks() {
        assert_eq!(
            write(Kinds::STRING, Trim::Newline, &["\n", "\nx\n", "\n"]),
            r#""\nx\n""#
        );
        assert_eq!(
            write(Kinds::STRING, Trim::Newline, &["\n\nx\n\n"]),
            r#""\nx\n""#
        );
    }

    #[test]
    fn text_streams_once_it_can_be_nothing_else() {
        let mut writer = ValueWriter::new(Kinds::ANY, Trim::Space);
        let mut out = Vec::new();
        writer.push(b"  Par", &mut out);
        assert_eq!(out, b"\"Par");
        writer.push(b"is  ", &mut out);
        assert_eq!(out, b"\"Paris");
        writer.finish(&mut out);
        assert_eq!(out, b"\"Paris\"");
    }

    #[test]
    fn schemas_give_kinds() {
        let schema = json!({"properties": {
            "a": {"type": "integer"}, "b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "c": {"$ref": "#/$defs/loc"}, "d": {"type": "float"}, "e": {"enum": ["x", 1]}},
            "$defs": {"loc": {"type": "object", "properties": {}}}});
        let of = |key| Kinds::of_param(Some(&schema), key, Kinds::STRING);
        assert_eq!(of("a"), Kinds::INTEGER);
        assert_eq!(of("b"), Kinds::STRING.union(Kinds::NULL));
        assert_eq!(of("c"), Kinds::OBJECT);
        assert_eq!(of("d"), Kinds::NUMBER);
        assert_eq!(of("e"), Kinds::STRING.union(Kinds::NUMBER));
        assert_eq!(of("zzz"), Kinds::STRING);
    }
}
