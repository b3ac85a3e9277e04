//! A tool's JSON Schema, read from a tool definition or a schema file and
//! checked (`repair --schema`, a batch line's `"schema"`, the MCP `repair`
//! tool), and the empty-input rule of tool-aware normalization.

use argmend::{Normalized, ToolFixKind};
use serde_json::Value;

/// A schema, and the tool name when the file held a whole tool definition.
pub(crate) struct Schema {
    pub(crate) schema: Value,
    pub(crate) tool: Option<String>,
}

/// The parameters schema of an OpenAI tool (`{"type":"function","function":
/// {"name":…,"parameters":…}}` or its inner object), of an Anthropic tool
/// (`{"name":…,"input_schema":…}`), or the value itself when it is a schema;
/// or why it is none of these (see [`check_schema`]).
pub(crate) fn schema_of(value: Value) -> Result<Schema, String> {
    let definition = match value.get("function") {
        Some(function @ Value::Object(_)) => function.clone(),
        _ => value,
    };
    let tool = definition
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    for key in ["parameters", "input_schema"] {
        match definition.get(key) {
            Some(schema @ Value::Object(_)) => {
                check_schema(schema).map_err(|why| format!("in `{key}`, {why}"))?;
                return Ok(Schema {
                    schema: schema.clone(),
                    tool,
                });
            }
            Some(other) => {
                return Err(format!(
                    "`{key}` (the tool's JSON Schema) must be an object, not {}",
                    shown(other)
                ));
            }
            None => {}
        }
    }
    check_schema(&definition)?;
    Ok(Schema {
        schema: definition,
        tool: None,
    })
}

/// Whether `schema` can be a JSON Schema: an object whose keywords have the
/// types the specification gives them (`type` a type name or a list of
/// them, `properties` an object of schemas, `required` a list of names, …),
/// with at least one keyword at its root when it is not empty. The error
/// names the first keyword that is wrong and where it is, as a JSON Pointer
/// into the schema (`#/properties/count`).
///
/// Why: the normalizer reads a schema leniently (a keyword of the wrong type
/// is ignored), so a data file or a typo given to --schema used to be taken
/// in silence and coerce nothing. Keywords argmend does not know are left
/// alone, as the specification says; only the root must hold one it knows,
/// so that a JSON document which is not a schema at all (`{"name": "Ada"}`)
/// is refused.
pub(crate) fn check_schema(schema: &Value) -> Result<(), String> {
    let Value::Object(root) = schema else {
        return Err(format!("it is {}, not an object", shown(schema)));
    };
    if !root.is_empty() && !root.keys().any(|key| KEYWORDS.contains(&key.as_str())) {
        let keys: Vec<&str> = root.keys().take(5).map(String::as_str).collect();
        return Err(format!(
            "it has none of the JSON Schema keywords (type, properties, required, …); its \
             keys are {}{}",
            keys.join(", "),
            if root.len() > keys.len() { ", …" } else { "" }
        ));
    }
    check_at(schema, "#", 0)
}

/// Every keyword [`check_schema`] knows: those it checks, and the
/// annotations and others a schema commonly holds.
const KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "id",
    "$ref",
    "$defs",
    "definitions",
    "$comment",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "title",
    "description",
    "default",
    "examples",
    "type",
    "enum",
    "const",
    "properties",
    "patternProperties",
    "additionalProperties",
    "required",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "unevaluatedItems",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "contentEncoding",
    "contentMediaType",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "nullable",
    "readOnly",
    "writeOnly",
    "deprecated",
    "discriminator",
];

/// The type names of `type`.
const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Deeper than this, a schema is not checked further (serde_json's own
/// nesting limit is 128, so a file never gets here).
const MAX_CHECK_DEPTH: usize = 128;

/// Check the keywords of the schema at `at` (a JSON Pointer), and of the
/// schemas inside it.
fn check_at(schema: &Value, at: &str, depth: usize) -> Result<(), String> {
    let object = match schema {
        Value::Object(object) => object,
        // `true` and `false` are schemas too (anything, nothing).
        Value::Bool(_) => return Ok(()),
        other => {
            return Err(format!(
                "the schema at {at} must be an object, not {}",
                shown(other)
            ));
        }
    };
    if depth > MAX_CHECK_DEPTH {
        return Ok(());
    }
    let wrong = |key: &str, what: &str, value: &Value| {
        let place = if at == "#" {
            String::new()
        } else {
            format!(" at {at}")
        };
        Err(format!(
            "`{key}`{place} must be {what}, not {}",
            shown(value)
        ))
    };
    for (key, value) in object {
        let below = format!("{at}/{}", pointer_token(key));
        match key.as_str() {
            "type" => {
                let is_type = |v: &Value| v.as_str().is_some_and(|t| TYPES.contains(&t));
                let fits = match value {
                    Value::Array(types) => !types.is_empty() && types.iter().all(is_type),
                    single => is_type(single),
                };
                if !fits {
                    return wrong(
                        key,
                        "a type name (string, number, integer, boolean, object, array, null) or \
                         a list of them",
                        value,
                    );
                }
            }
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                let Value::Object(members) = value else {
                    return wrong(key, "an object of schemas", value);
                };
                for (name, member) in members {
                    check_at(
                        member,
                        &format!("{below}/{}", pointer_token(name)),
                        depth + 1,
                    )?;
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => match value {
                Value::Array(branches) if !branches.is_empty() => {
                    for (idx, branch) in branches.iter().enumerate() {
                        check_at(branch, &format!("{below}/{idx}"), depth + 1)?;
                    }
                }
                _ => return wrong(key, "a non-empty list of schemas", value),
            },
            "items" => match value {
                // Draft 4's tuple form: one schema per position.
                Value::Array(branches) => {
                    for (idx, branch) in branches.iter().enumerate() {
                        check_at(branch, &format!("{below}/{idx}"), depth + 1)?;
                    }
                }
                Value::Object(_) | Value::Bool(_) => check_at(value, &below, depth + 1)?,
                _ => return wrong(key, "a schema or a list of schemas", value),
            },
            "additionalProperties"
            | "additionalItems"
            | "unevaluatedProperties"
            | "unevaluatedItems"
            | "propertyNames"
            | "contains"
            | "not"
            | "if"
            | "then"
            | "else" => match value {
                Value::Object(_) | Value::Bool(_) => check_at(value, &below, depth + 1)?,
                _ => return wrong(key, "a schema (an object, or true or false)", value),
            },
            "required"
                if !value
                    .as_array()
                    .is_some_and(|names| names.iter().all(Value::is_string)) =>
            {
                return wrong(key, "a list of property names", value);
            }
            "enum" if !value.is_array() => {
                return wrong(key, "a list of the allowed values", value);
            }
            "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties"
            | "maxProperties" | "minContains" | "maxContains"
                if value.as_u64().is_none() =>
            {
                return wrong(key, "a whole number, 0 or more", value);
            }
            "minimum" | "maximum" if !value.is_number() => {
                return wrong(key, "a number", value);
            }
            "multipleOf" if !value.as_f64().is_some_and(|n| n > 0.0) => {
                return wrong(key, "a number greater than 0", value);
            }
            // A number, or draft 4's flag on `minimum`/`maximum`.
            "exclusiveMinimum" | "exclusiveMaximum"
                if !value.is_number() && !value.is_boolean() =>
            {
                return wrong(key, "a number", value);
            }
            "pattern" | "$ref" | "format" if !value.is_string() => {
                return wrong(key, "a string", value);
            }
            "nullable" | "uniqueItems" if !value.is_boolean() => {
                return wrong(key, "true or false", value);
            }
            _ => {}
        }
    }
    Ok(())
}

/// A key as one JSON Pointer token: `~` → `~0`, `/` → `~1`.
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A value as a message shows it: its kind, and the value itself when short.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    let short = text.chars().count() <= 40;
    let kind = match value {
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
        Value::String(_) if !short => return "a long string".to_owned(),
        _ => return text,
    };
    if short {
        format!("{kind} {text}")
    } else {
        kind.to_owned()
    }
}

/// Whether an input normalized for `tool` (`""`: none) was empty with no
/// tool to call: then it is no document, and `argmend repair` answers as a
/// plain repair does (not JSON), not with the normalizer's `{}`.
///
/// Empty arguments are `{}` to the normalizer: a call of a tool without
/// parameters. That needs a tool (--tool, a batch line's "tool", or the name
/// of the tool definition the schema came in); a schema alone describes a
/// document, and an empty file or pipe holds none. So a schema changes
/// nothing about an empty input: `{}` with a tool, not JSON without.
pub(crate) fn holds_no_document(tool: &str, normalized: &Normalized) -> bool {
    tool.is_empty()
        && normalized
            .fixes()
            .iter()
            .any(|fix| fix.kind == ToolFixKind::EmptyArguments)
}
