//! Double-encoded arguments and schema-guided coercion: each coercion a fix
//! with an input offset, nothing invented, unknown keys kept unless strict.

use argmend::{SchemaMode, ToolFixKind, ToolOptions};
use serde_json::json;

use super::{kinds, run, table};

#[test]
fn double_encoded_arguments() {
    table(&[
        (
            "read_file",
            r#""{\"file\":\"a.go\"}""#,
            r#"{"file":"a.go"}"#,
            Some(1),
        ),
        (
            "read_file",
            r#" "{\"a\": [1, 2.50]}" "#,
            r#"{"a": [1, 2.50]}"#,
            Some(1),
        ),
        // Other quotes around it are repaired first.
        (
            "read_file",
            r#"'{"file":"a.go"}'"#,
            r#"{"file":"a.go"}"#,
            Some(2),
        ),
        // Not an object inside: a valid string stays a string.
        ("read_file", r#""[1, 2]""#, r#""[1, 2]""#, Some(1)),
        // Inner strings are not unwrapped without a schema.
        (
            "t",
            r#"{"items": "[1, 2]"}"#,
            r#"{"items": "[1, 2]"}"#,
            Some(1),
        ),
    ]);
    let schema = json!({"properties": {
        "items": {"type": "array"}, "meta": {"type": "object"}, "note": {"type": "string"}
    }});
    let options = ToolOptions::default().schema(schema);
    let raw = r#"{"items": "[1, 2]", "meta": "{\"a\": \"1\"}", "note": "{\"x\": 1}"}"#;
    let normalized = run("t", raw, &options);
    assert_eq!(
        normalized.text(),
        r#"{"items": [1, 2], "meta": {"a": "1"}, "note": "{\"x\": 1}"}"#
    );
    assert_eq!(kinds(&normalized), ["unwrapped_string", "unwrapped_string"]);
    let outer = run("t", r#""{\"items\": \"[3]\"}""#, &options);
    assert_eq!(outer.text(), r#"{"items": [3]}"#);
}

fn schema_options() -> ToolOptions {
    ToolOptions::default().schema(json!({
        "type": "object",
        "properties": {
            "n": {"type": "integer"}, "ratio": {"type": "number"}, "flag": {"type": "boolean"},
            "name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
            "limit": {"type": "integer", "default": 10}, "mode": {"type": "string"}
        },
        "required": ["n"]
    }))
}

#[test]
fn schema_coercions() {
    let options = schema_options();
    let cases = [
        (r#"{"n": "5"}"#, r#"{"n": 5}"#, vec!["coerced_number"]),
        (
            r#"{"n": 1, "flag": "true", "ratio": " 2.5 "}"#,
            r#"{"n": 1, "flag": true, "ratio": 2.5}"#,
            vec!["coerced_boolean", "coerced_number"],
        ),
        (
            r#"{"n": 1, "flag": 0, "name": 12.50}"#,
            r#"{"n": 1, "flag": false, "name": "12.50"}"#,
            vec!["coerced_boolean", "coerced_string"],
        ),
        (
            r#"{"n": 1, "tags": "solo", "limit": 3}"#,
            r#"{"n": 1, "tags": ["solo"], "limit": 3}"#,
            vec!["wrapped_in_array"],
        ),
        (
            r#"{"result": {"n": "2"}}"#,
            r#"{"n": 2}"#,
            vec!["unwrapped_object", "coerced_number"],
        ),
        // Unknown keys are kept; nothing is invented, not even `limit`'s default.
        (
            r#"{"n": 1, "extra": "x", "limit": 1}"#,
            r#"{"n": 1, "extra": "x", "limit": 1}"#,
            vec![],
        ),
        // What cannot be coerced is left for the caller's validator.
        (
            r#"{"n": "many", "limit": 1}"#,
            r#"{"n": "many", "limit": 1}"#,
            vec![],
        ),
    ];
    for (raw, text, expected) in cases {
        let normalized = run("t", raw, &options);
        assert_eq!(normalized.text(), text, "{raw}");
        assert_eq!(kinds(&normalized), expected, "{raw}");
    }
    let missing = run("t", "{}", &options);
    // A default is the tool's to apply: nothing the model did not write is added.
    assert_eq!(missing.text(), "{}");
    let problems: Vec<String> = missing
        .violations()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(problems, ["$: missing required property `n`"]);
    let strict = options.clone().mode(SchemaMode::Strict);
    let dropped = run(
        "t",
        r#"{"x": 0, "n": 1, "y": [1], "limit": 2, "z": null}"#,
        &strict,
    );
    assert_eq!(dropped.text(), r#"{"n": 1, "limit": 2}"#);
    assert_eq!(
        kinds(&dropped),
        [
            "dropped_unknown_key",
            "dropped_unknown_key",
            "dropped_unknown_key"
        ]
    );
}

#[test]
fn schema_fix_offsets_point_into_the_input() {
    let options = schema_options();
    let raw = r#"{n: '5', 'flag': "yes", limit: 1}"#;
    let normalized = run("t", raw, &options);
    assert_eq!(normalized.text(), r#"{"n": 5, "flag": true, "limit": 1}"#);
    let offset = |kind| {
        normalized
            .fixes()
            .iter()
            .find(|f| f.kind == kind)
            .map(|f| f.offset)
    };
    assert_eq!(offset(ToolFixKind::CoercedNumber), raw.find("'5'"));
    assert_eq!(offset(ToolFixKind::CoercedBoolean), raw.find("\"yes\""));
    // Offsets stay right when curly quotes before a coerced value changed its position.
    let writer =
        ToolOptions::default().schema(json!({"properties": {"append": {"type": "boolean"}}}));
    let raw = "{'file': 'a.go', 'content': '“x” “y”', 'append': 'yes'}";
    let normalized = run("write_file", raw, &writer);
    assert_eq!(
        normalized.text(),
        r#"{"file": "a.go", "content": "\"x\" \"y\"", "append": true}"#
    );
    let coerced = normalized
        .fixes()
        .iter()
        .find(|f| f.kind == ToolFixKind::CoercedBoolean);
    assert_eq!(coerced.map(|f| f.offset), raw.find("'yes'"));
    let line = run("t", "--n 7 --flag yes", &options);
    assert_eq!(line.text(), r#"{"n":7,"flag":true}"#);
    assert_eq!(
        line.fixes()
            .iter()
            .find(|f| f.kind == ToolFixKind::CoercedBoolean)
            .map(|f| f.offset),
        Some(13)
    );
}
