//! What the caller knows about the arguments' shape, in the form the engine
//! can use while it streams: the property names objects may have, by depth.
//!
//! The one decision that needs it is "does this quote end its string?". A
//! model that forgets to escape the quotes in code writes things like
//! `"x = {"a": "b", "c": 1}"`, where `", "c":` looks exactly like the end of
//! one member and the start of the next. Knowing that the object holds only
//! `path` and `content` settles it: a `"c"` key cannot be there.
//!
//! Keys are kept per nesting depth, not per object path: the fast lane copies
//! valid JSON without reading its keys, so the machine knows how deep it is
//! but not always under which key. For the flat objects of tool arguments the
//! two are the same; for nested schemas a depth holds the union of the keys of
//! every object at that depth, which can only make the test more lenient.

use serde_json::Value;

/// How many `$ref` indirections and nesting levels a schema walk follows.
const MAX_SCHEMA_DEPTH: usize = 32;

/// The property names the objects of a tool's arguments may have.
///
/// Built from a JSON Schema ([`Hints::from_schema`]) or from a list of the
/// top-level fields ([`Hints::from_fields`]), and given to the engine with
/// [`Repairer::with_hints`](crate::Repairer::with_hints) or
/// [`repair_with_hints`](crate::repair_with_hints). The engine uses it only to
/// decide where a string whose quotes were not escaped ends; valid JSON comes
/// back unchanged whatever the hints say.
///
/// ```
/// use argmend::{repair, repair_with_hints, Hints, Options};
/// let input = br#"{"path": "a.py", "content": "d = {"k": "v", "n": 1}"}"#;
/// let hints = Hints::from_fields(["path", "content"]);
/// let outcome = repair_with_hints(input, Options::default(), &hints).unwrap();
/// assert_eq!(outcome.text(), r#"{"path": "a.py", "content": "d = {\"k\": \"v\", \"n\": 1}"}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hints {
    /// Index 0 is the top-level object, 1 what is directly inside it, and so on.
    levels: Vec<Level>,
    /// The keys are argmend's own guess at a tool's parameters (the built-in
    /// table), not the caller's word: a key they rule out still decides, but
    /// where it looks like the object's next member the answer is a doubt.
    assumed: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Level {
    /// Sorted, without duplicates.
    keys: Vec<Box<str>>,
    /// Whether `keys` names every key an object at this depth may have.
    closed: bool,
    /// Whether any object schema was seen at this depth.
    seen: bool,
}

/// What the hints say about one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum KeyHint {
    /// Declared at this depth.
    Declared,
    /// Not declared, and the objects at this depth have no other keys.
    Undeclared,
    /// Nothing known.
    Unknown,
}

impl Hints {
    /// Hints for an object whose keys are exactly `fields` (a tool's
    /// parameters when no schema is at hand).
    ///
    /// ```
    /// let hints = argmend::Hints::from_fields(["command", "timeout"]);
    /// assert!(!hints.is_empty());
    /// ```
    pub fn from_fields<I, S>(fields: I) -> Hints
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut level = Level {
            closed: true,
            seen: true,
            ..Level::default()
        };
        level.keys = fields
            .into_iter()
            .map(|f| Box::<str>::from(f.as_ref()))
            .collect();
        level.keys.sort();
        level.keys.dedup();
        Hints {
            levels: vec![level],
            assumed: false,
        }
    }

    /// The same hints, marked as argmend's guess rather than the caller's
    /// word (see the field).
    pub(crate) fn assumed(mut self) -> Hints {
        self.assumed = true;
        self
    }

    /// Whether these hints are argmend's guess.
    pub(super) fn is_assumed(&self) -> bool {
        self.assumed
    }

    /// Hints from a JSON Schema: the `properties` of every object schema, by
    /// depth, following `items`, `anyOf`/`oneOf`/`allOf` and local `$ref`s.
    ///
    /// A depth is *closed* (an undeclared key cannot be there) when every
    /// object schema at that depth lists `properties` and allows nothing
    /// else: no `patternProperties`, and `additionalProperties` absent or
    /// `false`. Tool schemas name every parameter, so an absent
    /// `additionalProperties` is read as "these are the parameters".
    ///
    /// ```
    /// let schema = serde_json::json!({
    ///     "type": "object",
    ///     "properties": {"path": {"type": "string"}, "content": {"type": "string"}}
    /// });
    /// let hints = argmend::Hints::from_schema(&schema);
    /// assert!(!hints.is_empty());
    /// ```
    pub fn from_schema(schema: &Value) -> Hints {
        let mut hints = Hints::default();
        walk(schema, schema, 0, 0, &mut hints);
        for level in &mut hints.levels {
            level.keys.sort();
            level.keys.dedup();
        }
        hints
    }

    /// Whether the hints know nothing.
    pub fn is_empty(&self) -> bool {
        self.levels.iter().all(|level| level.keys.is_empty())
    }

    /// What is known of `key` (its raw JSON text between the quotes) in an
    /// object `depth` containers deep (1 for the top-level object).
    pub(super) fn key(&self, depth: usize, key: &[u8]) -> KeyHint {
        let Some(level) = depth.checked_sub(1).and_then(|d| self.levels.get(d)) else {
            return KeyHint::Unknown;
        };
        if !level.seen {
            return KeyHint::Unknown;
        }
        let found = level
            .keys
            .binary_search_by(|k| k.as_bytes().cmp(key))
            .is_ok();
        match (found, level.closed) {
            (true, _) => KeyHint::Declared,
            // An escaped key could still spell a declared name.
            (false, true) if !key.contains(&b'\\') => KeyHint::Undeclared,
            _ => KeyHint::Unknown,
        }
    }

    fn level(&mut self, depth: usize) -> &mut Level {
        if self.levels.len() <= depth {
            self.levels.resize_with(depth + 1, || Level {
                closed: true,
                ..Level::default()
            });
        }
        &mut self.levels[depth]
    }
}

/// Record the object schemas in `schema` at `depth` (0 for the root value).
fn walk(schema: &Value, root: &Value, depth: usize, hops: usize, hints: &mut Hints) {
    if hops > MAX_SCHEMA_DEPTH || depth > MAX_SCHEMA_DEPTH {
        return;
    }
    let Some(object) = schema.as_object() else {
        return;
    };
    if let Some(target) = object
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| resolve(root, r))
    {
        walk(target, root, depth, hops + 1, hints);
    }
    for combinator in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = object.get(combinator).and_then(Value::as_array) {
            for branch in branches {
                walk(branch, root, depth, hops + 1, hints);
            }
        }
    }
    let properties = object.get("properties").and_then(Value::as_object);
    let typed_object = match object.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => false,
    };
    if properties.is_some() || typed_object {
        let open = properties.is_none()
            || object.contains_key("patternProperties")
            || object
                .get("additionalProperties")
                .is_some_and(|extra| extra != &Value::Bool(false));
        let level = hints.level(depth);
        level.seen = true;
        level.closed &= !open;
        if let Some(properties) = properties {
            level
                .keys
                .extend(properties.keys().map(|k| Box::<str>::from(k.as_str())));
        }
    }
    if let Some(properties) = properties {
        for child in properties.values() {
            walk(child, root, depth + 1, hops + 1, hints);
        }
    }
    match object.get("items") {
        Some(Value::Array(items)) => {
            for item in items {
                walk(item, root, depth + 1, hops + 1, hints);
            }
        }
        Some(items) => walk(items, root, depth + 1, hops + 1, hints),
        None => {}
    }
}

/// A local `$ref` (`#/$defs/x`, `#/definitions/x`, any JSON Pointer).
fn resolve<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_make_a_closed_top_level() {
        let hints = Hints::from_fields(["path", "content"]);
        assert_eq!(hints.key(1, b"path"), KeyHint::Declared);
        assert_eq!(hints.key(1, b"a"), KeyHint::Undeclared);
        assert_eq!(hints.key(2, b"path"), KeyHint::Unknown);
    }

    #[test]
    fn schemas_are_read_by_depth() {
        let schema = json!({
            "type": "object",
            "properties": {
                "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}},
                "meta": {"type": "object"}
            },
            "$defs": {"edit": {"type": "object", "properties": {"old": {}, "new": {}}}}
        });
        let hints = Hints::from_schema(&schema);
        assert_eq!(hints.key(1, b"edits"), KeyHint::Declared);
        assert_eq!(hints.key(1, b"old"), KeyHint::Undeclared);
        // Depth 2 holds `meta`'s object, which declares nothing: open.
        assert_eq!(hints.key(2, b"x"), KeyHint::Unknown);
        assert_eq!(hints.key(3, b"old"), KeyHint::Declared);
        assert_eq!(hints.key(3, b"x"), KeyHint::Undeclared);
    }

    #[test]
    fn additional_properties_open_a_level() {
        let schema = json!({"properties": {"a": {}}, "additionalProperties": true});
        assert_eq!(Hints::from_schema(&schema).key(1, b"b"), KeyHint::Unknown);
        let schema = json!({"properties": {"a": {}}, "additionalProperties": false});
        assert_eq!(
            Hints::from_schema(&schema).key(1, b"b"),
            KeyHint::Undeclared
        );
    }
}
