//! What a JSON Schema still rejects after repair: a best-effort check of the
//! common keywords, used to pick between alternatives and reported to the
//! caller as [`Violation`]s. It is a hint for the model, not a validator:
//! keywords it does not know are ignored.

use std::fmt;

use serde_json::Value;

/// How many schema levels (`$ref` hops, `allOf` nesting, properties) a
/// check follows before it gives up with a violation.
pub(super) const MAX_SCHEMA_DEPTH: usize = 256;

/// How many `$ref`s in a row are followed before a cycle is assumed.
const MAX_REF_HOPS: usize = 64;

/// The bounds on a string's length (see [`Checker::count`]): the keyword
/// after `min` and `max`, the words for too few and too many, the unit.
const LENGTH: [&str; 4] = ["Length", "shorter", "longer", "characters"];
/// The bounds on an array's number of items, as [`LENGTH`].
const ITEMS: [&str; 4] = ["Items", "fewer", "more", "items"];

/// One thing the tool's schema still rejects in the normalized arguments.
///
/// ```
/// use argmend::{normalize_tool_args_with, ToolOptions};
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"count": {"type": "integer"}},
///     "required": ["count", "path"]
/// });
/// let options = ToolOptions::default().schema(schema);
/// let normalized = normalize_tool_args_with("count_lines", r#"{"count": "many"}"#, &options);
/// let problems: Vec<String> = normalized.violations().iter().map(|v| v.to_string()).collect();
/// assert_eq!(problems, ["$: missing required property `path`", "$.count: expected integer, got string"]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Violation {
    path: String,
    message: String,
}

impl Violation {
    /// Where: `$` is the whole value, `$.a[0]` the first item of member `a`.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What is wrong, in lower case.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Follow `$ref`s (local JSON pointers into `root`) to a schema.
pub(super) fn resolve<'s>(root: &'s Value, mut schema: &'s Value) -> Result<&'s Value, String> {
    for _ in 0..MAX_REF_HOPS {
        match schema.get("$ref") {
            None => return Ok(schema),
            Some(Value::String(reference)) => {
                let pointer = reference
                    .strip_prefix('#')
                    .ok_or_else(|| format!("unsupported $ref `{reference}` (only local `#/…`)"))?;
                schema = root
                    .pointer(pointer)
                    .ok_or_else(|| format!("$ref `{reference}` points nowhere"))?;
            }
            Some(_) => return Err("$ref must be a string".to_owned()),
        }
    }
    Err(format!(
        "circular $ref detected: {}",
        schema.get("$ref").and_then(Value::as_str).unwrap_or("")
    ))
}

/// The types a schema allows (`type`, a list of types, `nullable`), or
/// inferred from `properties` / `items`; empty means any.
pub(super) fn types(schema: &Value) -> Vec<&str> {
    let mut types: Vec<&str> = match schema.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds.iter().filter_map(Value::as_str).collect(),
        _ if schema.get("properties").is_some() || schema.get("required").is_some() => {
            vec!["object"]
        }
        _ if schema.get("items").is_some() => vec!["array"],
        _ => Vec::new(),
    };
    if !types.is_empty() && schema.get("nullable") == Some(&Value::Bool(true)) {
        types.push("null");
    }
    types
}

/// Whether a pattern made only of literal characters, with optional `^` and
/// `$` anchors, matches `text`; `None` for any other pattern (not checked).
pub(super) fn simple_match(pattern: &str, text: &str) -> Option<bool> {
    let (start, body) = match pattern.strip_prefix('^') {
        Some(body) => (true, body),
        None => (false, pattern),
    };
    let (end, body) = match body.strip_suffix('$') {
        Some(body) => (true, body),
        None => (false, body),
    };
    if body.contains([
        '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '\\', '^', '$',
    ]) {
        return None;
    }
    Some(match (start, end) {
        (true, true) => text == body,
        (true, false) => text.starts_with(body),
        (false, true) => text.ends_with(body),
        (false, false) => text.contains(body),
    })
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_integer(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

fn has_type(value: &Value, kind: &str) -> bool {
    match (kind, value) {
        ("integer", Value::Number(n)) => is_integer(n),
        ("number", Value::Number(_)) => true,
        _ => kind == type_name(value),
    }
}

/// Equality as JSON Schema means it: `1 == 1.0`.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

const KNOWN_TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];

/// Every violation of `schema` (resolved against `root`) by `value`.
pub(super) fn violations(value: &Value, schema: &Value, root: &Value) -> Vec<Violation> {
    let mut checker = Checker {
        root,
        out: Vec::new(),
    };
    checker.check(value, schema, "$", 0);
    checker.out
}

/// Whether `text` parses and `schema` accepts it.
pub(super) fn fits(text: &str, schema: &Value, root: &Value) -> bool {
    serde_json::from_str::<Value>(text)
        .is_ok_and(|value| violations(&value, schema, root).is_empty())
}

struct Checker<'s> {
    root: &'s Value,
    out: Vec<Violation>,
}

impl<'s> Checker<'s> {
    fn report(&mut self, path: &str, message: String) {
        self.out.push(Violation {
            path: path.to_owned(),
            message,
        });
    }

    fn check(&mut self, value: &Value, schema: &'s Value, path: &str, depth: usize) {
        if depth > MAX_SCHEMA_DEPTH {
            let message = "schema nesting exceeds the supported depth".to_owned();
            return self.report(path, message);
        }
        let schema = match resolve(self.root, schema) {
            Ok(schema) => schema,
            Err(message) => return self.report(path, message),
        };
        match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return self.report(path, "no value is allowed here".to_owned()),
            Value::Object(_) => {}
            _ => return self.report(path, "the schema is not an object".to_owned()),
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(key) {
                let fitting = branches
                    .iter()
                    .any(|branch| violations_at(self.root, value, branch, depth + 1).is_empty());
                if !fitting {
                    let n = branches.len();
                    self.report(path, format!("matches none of the {n} {key} alternatives"));
                }
            }
        }
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for sub in all {
                self.check(value, sub, path, depth + 1);
            }
        }
        let kinds = types(schema);
        if let Some(unknown) = kinds.iter().find(|kind| !KNOWN_TYPES.contains(kind)) {
            return self.report(path, format!("unsupported schema type `{unknown}`"));
        }
        if !kinds.is_empty() && !kinds.iter().any(|kind| has_type(value, kind)) {
            let expected = kinds.join(" or ");
            let got = type_name(value);
            return self.report(path, format!("expected {expected}, got {got}"));
        }
        if let Some(Value::Array(options)) = schema.get("enum")
            && !options.iter().any(|option| same(option, value))
        {
            self.report(path, "not one of the allowed values".to_owned());
        }
        if let Some(constant) = schema.get("const")
            && !same(constant, value)
        {
            self.report(path, format!("expected the constant {constant}"));
        }
        match value {
            Value::String(text) => self.string(text, schema, path),
            Value::Number(n) => self.number(n, schema, path),
            Value::Array(items) => self.array(items, schema, path, depth),
            Value::Object(map) => self.object(map, schema, path, depth),
            _ => {}
        }
    }

    fn string(&mut self, text: &str, schema: &Value, path: &str) {
        let n = text.chars().count() as u64;
        self.count(path, schema, n, LENGTH);
        if let Some(pattern) = schema.get("pattern").and_then(Value::as_str)
            && simple_match(pattern, text) == Some(false)
        {
            self.report(path, format!("does not match `{pattern}`"));
        }
    }

    /// `min{keyword}` and `max{keyword}` against `n`, a count of `unit`s
    /// (`minLength` of a string's characters, `minItems` of an array's
    /// items), worded "`fewer` than 2 `unit`": one check for both families.
    fn count(&mut self, path: &str, schema: &Value, n: u64, bounds: [&str; 4]) {
        let [keyword, fewer, more, unit] = bounds;
        let bound = |side: &str| schema.get(format!("{side}{keyword}"));
        if let Some(min) = bound("min").and_then(Value::as_u64).filter(|&min| n < min) {
            self.report(path, format!("{fewer} than {min} {unit}"));
        }
        if let Some(max) = bound("max").and_then(Value::as_u64).filter(|&max| n > max) {
            self.report(path, format!("{more} than {max} {unit}"));
        }
    }

    fn number(&mut self, n: &serde_json::Number, schema: &Value, path: &str) {
        let Some(x) = n.as_f64() else { return };
        let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
        if let Some(min) = bound("minimum").filter(|&min| x < min) {
            self.report(path, format!("less than the minimum {min}"));
        }
        if let Some(max) = bound("maximum").filter(|&max| x > max) {
            self.report(path, format!("more than the maximum {max}"));
        }
        if let Some(min) = bound("exclusiveMinimum").filter(|&min| x <= min) {
            self.report(path, format!("not more than the exclusive minimum {min}"));
        }
        if let Some(max) = bound("exclusiveMaximum").filter(|&max| x >= max) {
            self.report(path, format!("not less than the exclusive maximum {max}"));
        }
    }

    fn array(&mut self, items: &[Value], schema: &'s Value, path: &str, depth: usize) {
        let n = items.len() as u64;
        self.count(path, schema, n, ITEMS);
        if let Some(item_schema) = schema.get("items").filter(|s| !s.is_array()) {
            for (i, item) in items.iter().enumerate() {
                self.check(item, item_schema, &format!("{path}[{i}]"), depth + 1);
            }
        }
    }

    fn object(
        &mut self,
        map: &serde_json::Map<String, Value>,
        schema: &'s Value,
        path: &str,
        depth: usize,
    ) {
        if let Some(Value::Array(required)) = schema.get("required") {
            for key in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(key) {
                    self.report(path, format!("missing required property `{key}`"));
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        for (key, member) in map {
            let child = format!("{path}.{key}");
            if let Some(property) = properties.and_then(|p| p.get(key)) {
                self.check(member, property, &child, depth + 1);
                continue;
            }
            let matched: Vec<&'s Value> = patterns
                .into_iter()
                .flatten()
                .filter(|(pattern, _)| simple_match(pattern, key) == Some(true))
                .map(|(_, sub)| sub)
                .collect();
            for sub in &matched {
                self.check(member, sub, &child, depth + 1);
            }
            if !matched.is_empty() {
                continue;
            }
            match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    self.report(path, format!("unexpected property `{key}`"));
                }
                Some(sub @ Value::Object(_)) => self.check(member, sub, &child, depth + 1),
                _ => {}
            }
        }
    }
}

fn violations_at(root: &Value, value: &Value, schema: &Value, depth: usize) -> Vec<Violation> {
    let mut checker = Checker {
        root,
        out: Vec::new(),
    };
    checker.check(value, schema, "$", depth);
    checker.out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refs_resolve_and_cycles_are_caught() {
        let root = json!({"$defs": {"a": {"$ref": "#/$defs/a"}, "b": {"type": "string"}}});
        assert_eq!(
            resolve(&root, &json!({"$ref": "#/$defs/b"})),
            Ok(&json!({"type": "string"}))
        );
        assert!(
            resolve(&root, &json!({"$ref": "#/$defs/a"}))
                .unwrap_err()
                .contains("circular")
        );
        assert!(resolve(&root, &json!({"$ref": 1})).is_err());
    }

    #[test]
    fn simple_patterns() {
        assert_eq!(simple_match("^x", "x1"), Some(true));
        assert_eq!(simple_match("1$", "x1"), Some(true));
        assert_eq!(simple_match("^example$", "invalid"), Some(false));
        assert_eq!(simple_match("^a+$", "aaa"), None);
    }

    #[test]
    fn reports_what_is_wrong() {
        let schema = json!({
            "type": "object",
            "properties": {"n": {"type": "integer", "minimum": 1}, "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["n", "id"],
            "additionalProperties": false
        });
        let value = json!({"n": 0, "tags": ["a", 2], "x": 1});
        let found: Vec<String> = violations(&value, &schema, &schema)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            found,
            [
                "$: missing required property `id`",
                "$.n: less than the minimum 1",
                "$.tags[1]: expected string, got number",
                "$: unexpected property `x`",
            ]
        );
    }
}
