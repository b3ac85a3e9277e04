//! The doubts the engine records (issue 25): each kind on an input that
//! raises it, none on valid, clean or merely truncated input, and the same
//! doubts for every chunking. The rates on generated calls are measured by
//! `beside_strings`, `real_calls` and `quoted_code`.

use argmend::{Doubt, DoubtKind, Options, Repairer};

fn doubts(input: &str) -> Vec<(DoubtKind, usize)> {
    argmend::repair(input.as_bytes())
        .doubts()
        .iter()
        .map(|d| (d.kind, d.offset))
        .collect()
}

fn chunked(input: &[u8], size: usize) -> Vec<Doubt> {
    let mut repairer = Repairer::new(Options::default());
    for chunk in input.chunks(size) {
        repairer.feed(chunk).expect("within limits");
    }
    repairer.finish().expect("within limits").doubts().to_vec()
}

/// Inputs that raise a doubt, with the kind and the byte it concerns.
const CASES: &[(&str, DoubtKind, usize)] = &[
    // Text after the top-level value holds a quote: the value may have
    // gone on.
    (r#"{"a": "x"} note: "done""#, DoubtKind::EarlyClose, 11),
    // The model repeated a key, or the code holds one: read as code here.
    (
        r#"{"path": "/a", "content": "print("hi")", "path": "/b"}"#,
        DoubtKind::QuoteAsText,
        38,
    ),
    // A key of the object comes again after a string holding code.
    (
        r#"{"path": "/a", "content": "f("x")", "mode": "w", "path": "/b"}"#,
        DoubtKind::DuplicateKey,
        49,
    ),
    // The input closed its object, yet the reading leaves it open: the
    // quote read as text before the closer is the likely culprit.
    (
        r#"{"a": {"b": "x = "y" z", "c": [1]}"#,
        DoubtKind::QuoteAsText,
        19,
    ),
    (
        "{\"a\": \"f(\"x\")\"\n\"b\": 1}",
        DoubtKind::QuoteAsText,
        17,
    ),
    // A lone `\*`: a Markdown escape, or a glob's own backslash?
    (r#"{"cmd": "ls \*.txt"}"#, DoubtKind::MarkdownEscape, 12),
    // A comma glued to the next key's quote: the end quote missing before
    // it, or the separator after it?
    (r#"{"a": "Hello,"b": 1}"#, DoubtKind::CommaBoundary, 13),
    // A member on its own line, laid out as the object's own, but no comma.
    (
        "{\n  \"p\": 1,\n  \"a\": \"f(\"x\")\"\n  \"b\": 1\n}",
        DoubtKind::NewlineBoundary,
        26,
    ),
];

#[test]
fn each_kind_is_raised_where_the_input_could_be_read_two_ways() {
    for &(input, kind, offset) in CASES {
        let found = doubts(input);
        assert!(
            found.contains(&(kind, offset)),
            "{input}: expected {kind} at {offset}, got {found:?}"
        );
    }
}

#[test]
fn clean_valid_and_truncated_input_has_none() {
    for input in [
        r#"{"a": "x", "b": [1, 2], "c": {"d": null}}"#,
        r#"{'a': 'x', b: True,}"#,
        r#"{"a": "x", "b": {"c": 1}"#,
        r#"{"cmd": "ls -la", "path": "/tmp"#,
        r#"["a",,"b"]"#,
        r#"{"a":"x";"b":"y"}"#,
        "{\u{201C}cmd\u{201D}: \u{201C}read\u{201D}, \u{201C}file\u{201D}: \u{201C}main.go\u{201D}}",
        r#"{"content": "print(\"hi\")", "path": "a.py"}"#,
    ] {
        assert_eq!(doubts(input), vec![], "{input}");
    }
}

#[test]
fn doubts_are_the_same_for_every_chunking() {
    for &(input, _, _) in CASES {
        let whole = argmend::repair(input.as_bytes()).doubts().to_vec();
        for size in 1..=input.len() {
            assert_eq!(
                chunked(input.as_bytes(), size),
                whole,
                "{input} in {size}-byte chunks"
            );
        }
    }
}

#[test]
fn every_doubt_has_a_reason_and_a_stable_name() {
    for &(input, kind, _) in CASES {
        let outcome = argmend::repair(input.as_bytes());
        let doubt = outcome
            .doubts()
            .iter()
            .find(|d| d.kind == kind)
            .expect("raised");
        assert!(!doubt.reason().is_empty());
        assert_eq!(doubt.kind.to_string(), doubt.kind.name());
        assert!(
            doubt
                .kind
                .name()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_')
        );
    }
}
