//! YAML in: a document read with `serde_yaml_ng` (the maintained fork of
//! serde_yaml) and written out as JSON text in its own key order, so every
//! verb then works on JSON bytes like any other.

use serde_yaml_ng::Value;

/// The YAML document as JSON text, or the parser's message (with its line
/// and column).
pub(crate) fn to_json(text: &str) -> Result<(String, bool), String> {
    let value: Value = serde_yaml_ng::from_str(text).map_err(|error| error.to_string())?;
    let is_container = matches!(value, Value::Mapping(_) | Value::Sequence(_))
        || matches!(&value, Value::Tagged(tagged) if matches!(tagged.value, Value::Mapping(_) | Value::Sequence(_)));
    let mut out = String::with_capacity(text.len());
    write(&value, &mut out);
    Ok((out, is_container))
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) if n.is_nan() || n.is_infinite() => out.push_str("null"),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => string(s, out),
        Value::Sequence(items) => {
            out.push('[');
            for (idx, item) in items.iter().enumerate() {
                if idx > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::Mapping(map) => {
            out.push('{');
            for (idx, (key, item)) in map.iter().enumerate() {
                if idx > 0 {
                    out.push(',');
                }
                match key {
                    Value::String(s) => string(s, out),
                    // JSON keys are strings: a number or bool key is written as its text.
                    other => {
                        let mut text = String::new();
                        write(other, &mut text);
                        string(text.trim_matches('"'), out);
                    }
                }
                out.push(':');
                write(item, out);
            }
            out.push('}');
        }
        Value::Tagged(tagged) => write(&tagged.value, out),
    }
}

fn string(s: &str, out: &mut String) {
    out.push_str(&serde_json::Value::from(s).to_string());
}
