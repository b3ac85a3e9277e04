//! `ToolCallStream` (issue 15): one object per call with the committed text,
//! the snapshot as text and as a value, and field events with JSON Pointers.

use std::path::Path;

use argmend::{FieldEvent, ToolCallStream, ToolOptions, ValueKind, Verdict};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::fuzz_seeds::checks::merge_deltas;
use crate::properties::{chunk_sizes, chunks, config, malformed_json, valid_json};

fn stream() -> ToolCallStream {
    // No tool name: the engine's repair alone, so the value matches `repair`.
    ToolCallStream::new("", ToolOptions::default())
}

/// Feed `input` in `pieces`, checking after each that the value is the
/// parsed snapshot; returns the events with adjacent string deltas of one
/// path merged (how they split depends on the chunking, not what they say).
fn run(pieces: &[&[u8]]) -> (Vec<FieldEvent>, argmend::CallEnd) {
    let mut call = stream();
    let mut events = Vec::new();
    for piece in pieces {
        let update = call.feed(piece);
        events.extend(update.events);
        let snapshot = call.snapshot();
        if snapshot.is_empty() {
            assert_eq!(call.value(), None);
            continue;
        }
        // serde_json refuses numbers beyond f64 (`1e400`, valid JSON); the value has `null` there.
        if let Ok(parsed) = serde_json::from_str::<Value>(&snapshot) {
            assert_eq!(
                call.value(),
                Some(&parsed),
                "after {:?}",
                String::from_utf8_lossy(piece)
            );
        }
    }
    let end = call.finish();
    events.extend(end.events.clone());
    (merge_deltas(events), end)
}

fn pointer_get<'a>(value: &'a Value, pointer: &str) -> Option<&'a Value> {
    value.pointer(pointer)
}

proptest! {
    #![proptest_config(config())]

    /// Valid JSON in any chunks: the value is the parsed snapshot after every
    /// chunk, the events are the same as one-shot, and every `Done` value is
    /// the final value at its pointer.
    #[test]
    fn stream_valid_json_events_do_not_depend_on_chunking(text in valid_json(), sizes in chunk_sizes()) {
        let (whole, end) = run(&[text.as_bytes()]);
        let (cut, _) = run(&chunks(text.as_bytes(), &sizes));
        prop_assert_eq!(&whole, &cut);
        let truth: Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(&end.args, &truth);
        prop_assert!(end.complete);
        let mut done_root = false;
        for event in &whole {
            // Rendered from a `Value`, the text has no duplicate keys: every
            // value reported done is the final value at its pointer.
            if let FieldEvent::Done { path, value } = event {
                prop_assert_eq!(pointer_get(&truth, path), Some(value), "{}", path);
                done_root |= path.is_empty();
            }
        }
        prop_assert!(done_root, "no Done for the root: {:?}", whole);
    }

    /// Malformed input in any chunks: the value is always the parsed snapshot,
    /// and the events do not depend on the chunking.
    #[test]
    fn stream_malformed_json_value_is_the_snapshot(input in malformed_json(), sizes in chunk_sizes()) {
        let (whole, _) = run(&[&input]);
        let (cut, _) = run(&chunks(&input, &sizes));
        prop_assert_eq!(whole, cut);
    }
}

#[test]
fn corpus_inputs_byte_by_byte_keep_the_value_equal_to_the_snapshot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut checked = 0;
    for family in std::fs::read_dir(&root).unwrap() {
        let family = family.unwrap().path();
        if !family.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&family).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|ext| ext != "in") {
                continue;
            }
            let input = std::fs::read(&path).unwrap();
            let bytes: Vec<&[u8]> = input.chunks(1).collect();
            let (one_byte, _) = run(&bytes);
            let (whole, _) = run(&[&input]);
            assert_eq!(one_byte, whole, "{}", path.display());
            checked += 1;
        }
    }
    assert!(checked > 150, "{checked}");
}

#[test]
fn events_and_pointers() {
    let input = r#"{"a.b": {"c/d": [1, "x\u00e9", true, null], "~k": {}}, "s": "he said \"hi\""}"#;
    let (events, end) = run(&[input.as_bytes()]);
    let started: Vec<(&str, ValueKind)> = events
        .iter()
        .filter_map(|event| match event {
            FieldEvent::Started { path, kind } => Some((path.as_str(), *kind)),
            _ => None,
        })
        .collect();
    assert_eq!(
        started,
        [
            ("", ValueKind::Object),
            ("/a.b", ValueKind::Object),
            ("/a.b/c~1d", ValueKind::Array),
            ("/a.b/c~1d/0", ValueKind::Number),
            ("/a.b/c~1d/1", ValueKind::String),
            ("/a.b/c~1d/2", ValueKind::Bool),
            ("/a.b/c~1d/3", ValueKind::Null),
            ("/a.b/~0k", ValueKind::Object),
            ("/s", ValueKind::String),
        ]
    );
    let done: Vec<(&str, &Value)> = events
        .iter()
        .filter_map(|event| match event {
            FieldEvent::Done { path, value } => Some((path.as_str(), value)),
            _ => None,
        })
        .collect();
    assert_eq!(done[1], ("/a.b/c~1d/1", &json!("xé")));
    assert_eq!(done[4], ("/a.b/c~1d", &json!([1, "xé", true, null])));
    assert_eq!(done.last().unwrap().0, "");
    assert_eq!(*done.last().unwrap().1, end.args);
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            FieldEvent::StringDelta { path, text } if path == "/s" => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas.concat(), "he said \"hi\"");
    // Every pointer resolves in the final value.
    for (path, value) in done {
        assert_eq!(end.args.pointer(path), Some(value), "{path}");
    }
}

/// A value is reported final in the fragment that completes it, not later.
#[test]
fn done_comes_with_the_fragment_that_completes_the_value() {
    let mut call = stream();
    let done = |events: &[FieldEvent]| -> Vec<String> {
        events
            .iter()
            .filter_map(|event| match event {
                FieldEvent::Done { path, .. } => Some(path.clone()),
                _ => None,
            })
            .collect()
    };
    assert!(done(&call.feed(br#"{"path": "a.py"#).events).is_empty());
    // The closing quote and a comma do not end the string yet (it could be
    // an inner quote of code); the key and colon after them do, and the
    // event comes with that fragment.
    assert!(done(&call.feed(br#"", "#).events).is_empty());
    assert_eq!(done(&call.feed(br#""n": 12"#).events), ["/path"]);
    assert_eq!(call.value(), Some(&json!({"path": "a.py", "n": 12})));
    assert_eq!(done(&call.feed(b",").events), ["/n"]);
    // A run of closers is final once what follows it shows which
    // containers it closes: here the end of the input does.
    assert_eq!(
        done(&call.feed(br#" "list": [1, [2]"#).events),
        ["/list/0", "/list/1/0"]
    );
    assert!(done(&call.feed(b"]}").events).is_empty());
    let end = call.finish();
    assert!(end.complete);
    assert_eq!(done(&end.events), ["/list/1", "/list", ""]);
}

#[test]
fn a_cut_off_call_is_not_complete_and_its_last_values_are_closed_at_the_end() {
    let mut call = ToolCallStream::new("write_file", ToolOptions::default());
    call.feed(br#"{"path": "a.py", "content": "def f():\n    ret"#);
    assert_eq!(
        call.value(),
        Some(&json!({"path": "a.py", "content": "def f():\n    ret"}))
    );
    let end = call.finish();
    assert!(!end.complete);
    assert_eq!(end.verdict, Verdict::Completed);
    assert_eq!(
        end.args,
        json!({"path": "a.py", "content": "def f():\n    ret"})
    );
    let last: Vec<&str> = end
        .events
        .iter()
        .filter_map(|event| match event {
            FieldEvent::Done { path, .. } => Some(path.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(last, ["/content", ""]);
}

#[test]
fn pending_scalars_and_keys_show_as_the_snapshot_shows_them() {
    let mut call = stream();
    call.feed(b"{'a': tr");
    assert_eq!(call.snapshot(), r#"{"a": true}"#);
    assert_eq!(call.value(), Some(&json!({"a": true})));
    call.feed(b"ue, 'b': -1.");
    assert_eq!(call.value(), Some(&json!({"a": true, "b": -1})));
    call.feed(b"5e");
    assert_eq!(call.value(), Some(&json!({"a": true, "b": -1.5})));
    call.feed(b"1, 'half");
    // A key that is not complete is not in the snapshot.
    assert_eq!(call.value(), Some(&json!({"a": true, "b": -15.0})));
    call.feed(b"': ");
    assert_eq!(
        call.value(),
        Some(&json!({"a": true, "b": -15.0, "half": null}))
    );
    let end = call.finish();
    assert_eq!(end.args, json!({"a": true, "b": -15.0, "half": null}));
    assert!(!end.complete);
}

#[test]
fn arguments_that_are_not_json() {
    let mut call = ToolCallStream::new("@coder", ToolOptions::default());
    assert!(call.feed(b"read --file 'main.go").events.is_empty());
    assert_eq!(call.value(), None);
    let end = call.finish();
    assert_eq!(end.verdict, Verdict::NotJson);
    assert_eq!(end.args, Value::Null);
    assert_eq!(end.text, "read --file 'main.go");
    assert!(!end.complete);
    assert!(end.reason.unwrap().contains("single quote"));
}

/// The end of a call carries the doubts of its arguments (input offsets),
/// and neither the verdict nor `complete` changes because of them.
#[test]
fn the_end_of_a_call_carries_its_doubts() {
    use argmend::{ArgsStream, Doubt, DoubtKind, Event};
    let raw = br#"{"path": "a.txt", "content": "x"} note: "done""#;
    let doubt = Doubt {
        kind: DoubtKind::EarlyClose,
        offset: 34,
    };
    let (_, end) = run(&[&raw[..20], &raw[20..]]);
    assert_eq!(end.doubts, [doubt]);
    assert_eq!(end.args, json!({"path": "a.txt", "content": "x"}));
    assert_eq!(end.verdict, Verdict::Repaired);
    assert!(end.complete);
    let (_, end) = run(&[br#"{"path": "a.txt", "content": "x"}"#]);
    assert!(end.doubts.is_empty());

    // The native tool-use stream: `CallReady` carries them.
    let mut stream = ArgsStream::new("write_file", ToolOptions::default());
    let mut events = Vec::new();
    for byte in raw {
        events.extend(stream.feed(std::slice::from_ref(byte)));
    }
    events.extend(stream.finish());
    let Some(Event::CallReady {
        doubts, complete, ..
    }) = events.last()
    else {
        panic!("{events:?}")
    };
    assert_eq!(doubts, &[doubt]);
    assert!(complete);
}
