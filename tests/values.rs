//! Several top-level values: `Values::First`, `Lines` and `Array`, one-shot
//! and fed one byte at a time.

use argmend::{Options, Repairer, Values, Verdict, repair_with};

fn byte_by_byte(input: &[u8], options: Options) -> (String, Verdict) {
    let mut repairer = Repairer::new(options);
    let mut committed = String::new();
    for byte in input {
        committed.push_str(repairer.feed(std::slice::from_ref(byte)).unwrap());
    }
    let outcome = repairer.finish().unwrap();
    assert!(outcome.text().starts_with(&committed));
    (outcome.text().to_owned(), outcome.verdict())
}

fn check(input: &str, values: Values, expected: &str) {
    let options = Options::default().values(values);
    let whole = repair_with(input.as_bytes(), options).unwrap();
    assert_eq!(whole.text(), expected, "{values:?} on {input:?}");
    let (text, verdict) = byte_by_byte(input.as_bytes(), options);
    assert_eq!(text, expected, "{values:?} byte by byte on {input:?}");
    assert_eq!(verdict, whole.verdict(), "{values:?} verdicts on {input:?}");
    match values {
        Values::Lines => {
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                serde_json::from_str::<serde_json::Value>(line)
                    .unwrap_or_else(|e| panic!("line {line:?} of {text:?}: {e}"));
            }
        }
        _ => {
            serde_json::from_str::<serde_json::Value>(&text)
                .unwrap_or_else(|e| panic!("{text:?}: {e}"));
        }
    }
}

#[test]
fn first_keeps_the_first_value() {
    // The whitespace before a dropped value goes with it (issue 41); after
    // the last value it stays, as in valid JSON.
    check("{\"a\":1}\n{\"b\":2}", Values::First, "{\"a\":1}");
    check("{\"a\":1}\n", Values::First, "{\"a\":1}\n");
    // A comma after the value goes, and the whitespace with the value after it.
    check("1, 2, 3", Values::First, "1");
}

#[test]
fn lines_writes_one_value_per_line() {
    check(
        "{\"a\":1}\n{\"b\":2}\n",
        Values::Lines,
        "{\"a\":1}\n{\"b\":2}\n",
    );
    check(
        "{\"a\": 1} {\"b\": 2}",
        Values::Lines,
        "{\"a\": 1}\n{\"b\": 2}",
    );
    check("{a: 1}\n{'b': 2,}", Values::Lines, "{\"a\": 1}\n{\"b\": 2}");
}

#[test]
fn array_puts_every_value_in_one_array() {
    check(
        "{\"a\":1}\n{\"b\":2}",
        Values::Array,
        "[{\"a\":1},\n{\"b\":2}]",
    );
    check("1,2,3,", Values::Array, "[1,2,3]");
    check("{a: 1}", Values::Array, "[{\"a\": 1}]");
}

#[test]
fn valid_input_is_handed_back_only_for_first() {
    let input = br#"{"a":1} {"b":2}"#;
    let array = repair_with(input, Options::default().values(Values::Array)).unwrap();
    assert_eq!(array.text(), r#"[{"a":1}, {"b":2}]"#);
    let first = repair_with(br#"{"a":1}"#, Options::default()).unwrap();
    assert!(matches!(first.into_text(), std::borrow::Cow::Borrowed(_)));
}

/// Issue 11: a top-level string followed by another value ends there, so
/// NDJSON of strings keeps every line (a quote followed by plain text at the
/// top level is still inside its string: `"24" screen"`).
#[test]
fn top_level_strings_end_before_the_next_value() {
    check("\"a\"\n\"b\"\n", Values::Lines, "\"a\"\n\"b\"\n");
    check("\"a\" \"b\"", Values::Array, "[\"a\", \"b\"]");
    check("\"a\" \"b\"", Values::First, "\"a\"");
    check(
        "\"The TV has a 24\" screen\"",
        Values::First,
        "\"The TV has a 24\\\" screen\"",
    );
}
