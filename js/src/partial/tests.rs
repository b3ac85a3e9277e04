//! partial-json's `parse` against the strict reading and the engine's
//! mending (`mod.rs`).

use argmend::{FixKind, Options, Outcome};

use super::{answer, mended_answer};

/// Valid JSON (and partial-json's `NaN`, `Infinity`), cut at every
/// character below.
const DOCUMENTS: &[&str] = &[
    r#"{"path": "src/main.rs", "content": "fn main() {\n\tprintln!(\"hi \\\"x\\\"\");\n}\n", "mode": "w"}"#,
    r#"{"query": "Zürich", "filters": {"date": {"from": "2024-01-01", "to": null}, "tags": ["rain", "wind"], "limit": 10, "exact": false, "on": true}, "score": -0.75, "boost": 1.5e-3, "e": 6.02E23, "tiny": -1e-7, "zero": 0, "negzero": -0}"#,
    "{\n  \"calls\": [\n    {\n      \"id\": \"call_1\",\n      \"args\": {\"city\": \"Paris\", \"days\": 3}\n    },\n    {}\n  ],\n  \"note\": null\n}",
    r#"{"emoji": "😀 🎉", "escaped": "\ud83d\ude00 \uD83C\uDF89", "lone": "\ud800", "cjk": "東京", "ctl": "a\tb\nc\r\\d\/e\bf\f", "q": "say \"hi\""}"#,
    r#"[1, [2, [3, [4, []]]], {"a": [{}]}, "end", -12.5e+3, [true, false, null], [], {}]"#,
    r#"{"a": NaN, "b": Infinity, "c": -Infinity, "d": [NaN, -Infinity, Infinity, 1], "e": "NaN"}"#,
    r#""a string with \" and \\ and \u00e9""#,
    "-12.5e+3",
    "true",
    "-Infinity",
];

/// Whether the engine read the text as strict JSON does: only truncation
/// fixes, and those the scan writes back.
fn strict_reading(outcome: &Outcome<'_>) -> bool {
    outcome.fixes().iter().all(|fix| {
        fix.kind.is_truncation()
            || matches!(
                fix.kind,
                FixKind::ReplacedSurrogate | FixKind::ReplacedLiteral | FixKind::QuotedWord
            )
    })
}

/// JSON text without the whitespace between tokens (the engine drops
/// the whitespace around what it drops; the strict reading keeps it).
fn tight(answer: &str) -> String {
    let mut tight = String::with_capacity(answer.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in answer.chars() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if c.is_ascii_whitespace() {
            continue;
        } else {
            in_string = c == '"';
        }
        tight.push(c);
    }
    tight
}

#[test]
fn the_engine_reading_of_a_valid_prefix_gives_the_strict_answer() {
    let (mut compared, mut skipped) = (0, 0);
    for document in DOCUMENTS {
        let ends = document.char_indices().map(|(end, _)| end).skip(1);
        for end in ends.chain([document.len()]) {
            let text = document[..end].trim();
            if text.is_empty() {
                continue;
            }
            let options = Options::default().source_map(true);
            let outcome = argmend::repair_with(text.as_bytes(), options).unwrap();
            if !strict_reading(&outcome) {
                skipped += 1;
                continue;
            }
            for allow in 0..512 {
                // `v` is the text itself, valid as it is.
                let value = |answer: String| match answer.as_str() {
                    "v" => tight(&format!("j{text}")),
                    _ => tight(&answer),
                };
                let strict = value(answer(text, allow, Some("NaN!")).unwrap());
                let engine = value(mended_answer(text, &outcome, allow, Some("NaN!")));
                assert_eq!(strict, engine, "{text:?} allow={allow}");
                compared += 1;
            }
        }
    }
    // The engine may read a valid prefix otherwise where the end cuts a
    // key that holds JSON's punctuation (`{"a": "x", "http:`); these
    // keys hold none, so every prefix counts.
    assert_eq!(skipped, 0);
    assert!(compared > 300_000, "{compared}");
}

#[test]
fn the_strict_reading_answers() {
    let cases: &[(&str, u32, &str)] = &[
        (r#"{"a": "x"#, 511, r#"j{"a": "x"}"#),
        (r#"{"a": "x"#, 8, "j{}"),
        (r#"{"a": "x"#, 4, "PExpected '}' at end of object"),
        (r#"{"a":"x","http:"#, 511, r#"j{"a":"x"}"#),
        ("[1.", 511, "j[]"),
        ("[1e", 511, "j[1]"),
        ("[1, 2", 4, "j[1]"),
        ("[tr", 511, "j[true]"),
        ("[tr", 4, "j[]"),
        ("[Na", 511, r#"n["NaN!"]"#),
        ("[Na", 4, "j[]"),
        ("[-Inf", 511, "j[-1e999]"),
        ("[Infinity", 0, "PExpected ']' at end of array"),
        ("[Infinity", 4, "j[1e999]"),
        ("[NaN", 4, "N"),
        (r#""ab\u12"#, 511, r#"j"ab""#),
        (r#""ab\"#, 511, r#"j"ab""#),
        (r#""ab"#, 0, "PUnterminated string literal"),
        ("1.", 511, "M"),
        ("1e", 511, "j1"),
        ("1e", 0, "M"),
        ("12", 0, "j12"),
        ("-", 511, "M"),
        ("tr", 0, "M"),
        ("[1, 2]", 0, "v"),
        ("NaN", 0, "N"),
    ];
    for &(text, allow, expected) in cases {
        let marker = if expected == "N" { None } else { Some("NaN!") };
        assert_eq!(
            answer(text, allow, marker).unwrap(),
            expected,
            "{text:?} {allow}"
        );
    }
}

#[test]
fn deep_nesting_is_refused_at_the_engine_limit_without_recursion() {
    let deep = "[".repeat(1_000_000);
    assert_eq!(
        answer(&deep, 511, None).unwrap(),
        "Enesting deeper than 512 levels at position 512"
    );
    let mended_deep = format!("{}'a'", "[".repeat(100_000));
    assert!(
        answer(&mended_deep, 511, None)
            .unwrap()
            .starts_with("Enesting deeper than 512")
    );
    let within = "[".repeat(512);
    let expected = format!("j{}{}", "[".repeat(512), "]".repeat(512));
    assert_eq!(answer(&within, 511, None).unwrap(), expected);
}

#[test]
fn malformed_text_is_mended() {
    assert_eq!(
        answer("{'a': 'b', c: True,}", 511, None).unwrap(),
        r#"j{"a": "b", "c": true}"#
    );
    assert_eq!(answer("{'a': 'b", 511, None).unwrap(), r#"j{"a": "b"}"#);
    assert_eq!(answer("{'a': 'b", 8, None).unwrap(), "j{}");
    assert_eq!(answer("// nothing", 511, None).unwrap(), "M");
}
