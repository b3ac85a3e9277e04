//! Options as the wrapper passes them: JSON text (empty for the defaults),
//! with the names of the JavaScript API (`maxDepth`, `maxInputBytes`, …).
//! The wrapper checks types first and says which argument was wrong; what
//! is checked here is what only the engine knows (a schema that is not an
//! object, a `values` it does not have).

use argmend::{Hints, Options, Retain, SchemaMode, ToolMap, ToolOptions, Values};
use serde_json::{Map, Value};
use wasm_bindgen::JsValue;

use crate::error;

/// The options of `repair` and `Repairer`.
pub(crate) struct RepairOptions {
    pub(crate) engine: Options,
    /// The keys objects may have (`schema` or `fields`).
    pub(crate) hints: Option<Hints>,
}

fn parse(text: &str) -> Result<Map<String, Value>, JsValue> {
    if text.is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(error("invalid_argument", "options must be an object")),
        Err(why) => Err(error(
            "invalid_argument",
            format!("options are not JSON: {why}"),
        )),
    }
}

fn count(map: &Map<String, Value>, key: &str) -> Result<Option<usize>, JsValue> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| {
                error(
                    "invalid_argument",
                    format!("{key} must be a whole number ≥ 0"),
                )
            }),
    }
}

/// The engine options shared by every entry point: the two limits.
fn limits(map: &Map<String, Value>) -> Result<Options, JsValue> {
    let mut engine = Options::default();
    if let Some(depth) = count(map, "maxDepth")? {
        engine = engine.max_depth(depth);
    }
    if let Some(bytes) = count(map, "maxInputBytes")? {
        engine = engine.max_input_bytes(bytes);
    }
    Ok(engine)
}

pub(crate) fn repair(text: &str) -> Result<RepairOptions, JsValue> {
    let map = parse(text)?;
    let mut engine = limits(&map)?;
    engine = engine.values(match map.get("values").and_then(Value::as_str) {
        None | Some("first") => Values::First,
        Some("lines") => Values::Lines,
        Some("array") => Values::Array,
        Some(other) => {
            return Err(error(
                "invalid_argument",
                format!("values must be \"first\", \"lines\" or \"array\", not {other:?}"),
            ));
        }
    });
    // A stream's committed text lives on the JavaScript side, so the engine
    // forgets what it has handed out: memory in the module stays flat
    // however long the stream runs.
    if map.get("stream").and_then(Value::as_bool) == Some(true) {
        engine = engine.retain(Retain::Unreturned);
    }
    let hints = match (map.get("schema"), map.get("fields")) {
        (Some(schema), _) if !schema.is_null() => Some(Hints::from_schema(schema)),
        (_, Some(Value::Array(fields))) => Some(Hints::from_fields(
            fields.iter().filter_map(Value::as_str).map(str::to_owned),
        )),
        _ => None,
    };
    Ok(RepairOptions { engine, hints })
}

/// The options of `normalizeToolArgs`, `ToolCallStream` and the adapters:
/// `schema`, `tools` (an OpenAI or Anthropic tools list), `dropUnknownKeys`
/// and the limits.
pub(crate) fn tool(text: &str) -> Result<ToolOptions, JsValue> {
    let map = parse(text)?;
    let mut options = ToolOptions::default().repair_options(limits(&map)?);
    match map.get("schema") {
        None | Some(Value::Null) => {}
        Some(schema @ (Value::Object(_) | Value::Bool(_))) => {
            options = options.schema(schema.clone());
        }
        Some(_) => {
            return Err(error(
                "invalid_argument",
                "schema must be a JSON Schema object (or true/false)",
            ));
        }
    }
    if map.get("dropUnknownKeys").and_then(Value::as_bool) == Some(true) {
        options = options.mode(SchemaMode::Strict);
    }
    if let Some(tools) = map.get("tools").filter(|tools| !tools.is_null()) {
        let list = tools.get("tools").unwrap_or(tools);
        let Some(list) = list.as_array() else {
            return Err(error(
                "invalid_argument",
                "tools must be an array of tool definitions",
            ));
        };
        // Anthropic's tools carry `input_schema`; OpenAI's `parameters`.
        let anthropic = list.iter().any(|tool| tool.get("input_schema").is_some());
        options = options.tools(if anthropic {
            ToolMap::from_anthropic_tools(tools)
        } else {
            ToolMap::from_openai_tools(tools)
        });
    }
    Ok(options)
}
