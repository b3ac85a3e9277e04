//! `ToolRepairer` gives the one-shot `normalize_tool_args_with` result for
//! every chunking: a table run one byte at a time and at every single split
//! point, and proptest over random chunkings.

use argmend::{SchemaMode, ToolOptions, ToolRepairer, normalize_tool_args_with};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::json;

/// Inputs that take every path: engine repairs, wrapping, command lines,
/// double encoding, code quotes, schema coercions, `NotJson`, limits.
const CASES: &[(&str, &str)] = &[
    ("read_file", "main.go"),
    ("read_file", "  'main.go'  "),
    ("@coder", "read --file main.go --n 5"),
    ("@coder", "read --file 'main.go"),
    ("run_command", "ls -l /tmp"),
    ("unknown", "plain words"),
    ("read_file", ""),
    ("read_file", "   \n"),
    ("read_file", "{cmd: 'read', file: main.go, n: 1.50,}"),
    ("read_file", "[1, 2"),
    ("read_file", "```json\n{\"a\": 1}\n```"),
    ("read_file", r#""{\"file\":\"a.go\"}""#),
    (
        "write_file",
        "{'file': 'main.go', 'content': 'fmt.Println(“hi”), it’s'}",
    ),
    (
        "write_file",
        r#"{"file": "main.go", "content": "a \u201cb\u201d"}"#,
    ),
    ("t", r#"{"n": "5", "flag": "yes", "tags": "x", "extra": 1}"#),
    ("t", r#"{result: {n: '7'}}"#),
    ("t", "--n 3 --tags a --tags b"),
    ("t", "{a: tRuE, b: [nOnE]}"),
    ("t", "{\"a\": \"caf\u{e9}\", b: '😀'}"),
];

fn options() -> Vec<ToolOptions> {
    let schema = json!({
        "type": "object",
        "properties": {
            "n": {"type": "integer"}, "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "limit": {"type": "integer", "default": 10}
        }
    });
    vec![
        ToolOptions::default(),
        ToolOptions::default().schema(schema.clone()),
        ToolOptions::default()
            .schema(schema)
            .mode(SchemaMode::Strict),
        ToolOptions::default().repair_options(argmend::Options::default().max_depth(1)),
    ]
}

fn chunked(tool: &str, raw: &[u8], cuts: &[usize], options: &ToolOptions) -> argmend::Normalized {
    let mut stream = ToolRepairer::new(tool, options.clone());
    let mut at = 0;
    for &cut in cuts {
        let cut = cut.clamp(at, raw.len());
        stream.feed(&raw[at..cut]);
        at = cut;
    }
    stream.feed(&raw[at..]);
    stream.finish()
}

#[test]
fn every_single_split_and_byte_by_byte() {
    for options in options() {
        for &(tool, raw) in CASES {
            let whole = normalize_tool_args_with(tool, raw, &options);
            let bytes = raw.as_bytes();
            let all: Vec<usize> = (1..bytes.len()).collect();
            assert_eq!(
                chunked(tool, bytes, &all, &options),
                whole,
                "bytes: {tool} {raw:?}"
            );
            for cut in 0..=bytes.len() {
                assert_eq!(
                    chunked(tool, bytes, &[cut], &options),
                    whole,
                    "cut {cut}: {tool} {raw:?}"
                );
            }
        }
    }
}

#[test]
fn snapshots_stream_straight_through_for_objects() {
    let mut stream = ToolRepairer::new("write_file", ToolOptions::default());
    stream.feed(b"  {'file': 'a.go', 'content': 'x");
    let preview = stream.snapshot().map(|s| s.to_string());
    assert_eq!(
        preview.as_deref(),
        Some(r#"  {"file": "a.go", "content": "x"}"#)
    );
    let mut plain = ToolRepairer::new("read_file", ToolOptions::default());
    plain.feed(b"main");
    assert!(plain.snapshot().is_none());
    assert_eq!(plain.bytes_fed(), 4);
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(128);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Arguments built from pieces that exercise every rule.
fn arguments() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "{", "}", "[", "]", "'", "\"", ",", ":", " ", "--", "-l", "file", "main.go", "content",
        "“", "”", "’", "TRUE", "none", "5", "1.50", "read", "\\", "\n", "result", "n", "yes",
        "\\u201c", "```", "é",
    ]);
    prop_oneof![
        4 => prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat()),
        1 => any::<String>(),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_chunking_gives_the_one_shot_result(
        raw in arguments(),
        tool in prop::sample::select(vec!["read_file", "write_file", "@coder", "t", "run_command"]),
        cuts in prop::collection::vec(0usize..64, 0..6),
        which in 0usize..3,
    ) {
        let options = &options()[which];
        let mut cuts = cuts;
        cuts.sort_unstable();
        let whole = normalize_tool_args_with(tool, &raw, options);
        prop_assert_eq!(chunked(tool, raw.as_bytes(), &cuts, options), whole.clone());
        if whole.verdict() != argmend::Verdict::NotJson {
            prop_assert!(serde_json::from_str::<serde_json::Value>(whole.text()).is_ok(), "{}", whole.text());
        } else {
            prop_assert_eq!(whole.text(), raw.as_str());
        }
    }
}
