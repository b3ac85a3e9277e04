//! The `call_formats` fuzz target's seeds (`fuzz/seeds/call_formats/`),
//! replayed on stable through the target's own check (`fuzz/src/formats.rs`:
//! the same calls and text whole and in chunks, the `ArgsJson` pieces
//! adding up to the arguments), at the chunk length each seed picks and at
//! 1, 2 and 5 bytes. Each seed is one call of a typed tool written in one
//! format (our own text: a string of code quoting the format's tags, an
//! integer, a boolean, an object, an array, a null), whole or cut inside
//! its code or inside its object's list (seeds named `fuzz_*` are inputs the
//! fuzzer found, with no truth but the check's): whole, every format must give exactly those arguments; cut, a
//! call that is not complete, whose fields are a prefix of them.

use std::path::Path;

use argmend::{CallParser, Event, ToolMap, ToolOptions};
use serde_json::{Value, json};

use crate::fuzz_seeds::checks::{check_call_format, split_call_format_input};

fn truth() -> Value {
    json!({
        "a": "if x == \"</parameter>\": print('}')\n",
        "n": 5, "b": true, "o": {"k": [1, "v"]}, "l": [1, 2], "s": null
    })
}

/// The tool `f` the seeds call, with the fuzz check's schema.
fn tools() -> ToolMap {
    ToolMap::from_openai_tools(&json!([
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {
            "a": {"type": "string"}, "n": {"type": "integer"}, "x": {"type": "number"},
            "b": {"type": "boolean"}, "o": {"type": "object"},
            "l": {"type": "array", "items": {"type": "integer"}}, "s": {"type": ["string", "null"]}
        }}}},
        {"type": "function", "function": {"name": "g", "parameters": {"type": "object"}}}
    ]))
}

#[test]
fn call_formats_seeds_replay_and_give_the_truth() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/call_formats");
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    let mut formats = std::collections::BTreeSet::new();
    for path in &entries {
        let data = std::fs::read(path).unwrap();
        let shown = path.file_name().unwrap().to_string_lossy().into_owned();
        check_call_format(&data).unwrap_or_else(|failure| panic!("{shown}: {failure}"));
        for chunk in [1u8, 2, 5] {
            let mut cut = data.clone();
            cut[1] = chunk - 1;
            check_call_format(&cut).unwrap_or_else(|failure| panic!("{shown}, {chunk}: {failure}"));
        }
        let (format, _, text) = split_call_format_input(&data).unwrap();
        if shown.starts_with("fuzz_") {
            // An input the fuzzer found: the check above is its test.
            continue;
        }
        formats.insert(format.name());
        let mut parser = CallParser::with_format(format, ToolOptions::default().tools(tools()));
        let mut events = parser.feed(text);
        events.extend(parser.finish());
        let ready: Vec<(String, Value, bool)> = events
            .into_iter()
            .filter_map(|event| match event {
                Event::CallReady {
                    name,
                    args,
                    complete,
                    closed,
                    ..
                } => Some((
                    name,
                    serde_json::from_str(&args).unwrap(),
                    complete && closed,
                )),
                _ => None,
            })
            .collect();
        let Some((name, args, whole)) = ready.first() else {
            panic!("{shown}: no call");
        };
        assert_eq!(name, "f", "{shown}");
        if shown.ends_with("_whole") {
            assert_eq!(*args, truth(), "{shown}");
            assert!(*whole, "{shown}");
        } else {
            assert!(!*whole, "{shown}: a cut call must not be complete");
            let Value::Object(args) = args else {
                panic!("{shown}: {args}")
            };
            // The keys in the order the seeds write them.
            let order = ["a", "n", "b", "o", "l", "s"];
            let last = order
                .iter()
                .rev()
                .find(|key| args.contains_key(**key))
                .map(|key| key.to_string());
            for (key, value) in args {
                let want = &truth()[key.as_str()];
                let prefix = match (value, want) {
                    (Value::String(got), Value::String(want)) => want.starts_with(got.as_str()),
                    // The value the cut falls in: a literal cut short (`t`)
                    // is no value yet, and a container keeps what it has.
                    (Value::Null, _) => Some(key) == last.as_ref(),
                    (Value::Object(_) | Value::Array(_), _) if Some(key) == last.as_ref() => true,
                    _ => value == want,
                };
                assert!(prefix, "{shown}: {key} is {value}, not a prefix of {want}");
            }
        }
    }
    assert_eq!(formats.len(), argmend::Format::all().count(), "{formats:?}");
}

/// A block's close inside a value, the value's and the call's own closes
/// forgotten (`<parameter=l>abc</tool_call>`), ends the value, the call and
/// the block. It used to be judged again and again without end (found by
/// the `call_formats` target: `fuzz_block_close_inside_a_value`).
#[test]
fn a_block_close_inside_a_value_ends_it() {
    let cases = [
        (
            "qwen3_coder",
            "<tool_call>\n<function=f>\n<parameter=a>\nabc\n</tool_call>\nDone.",
        ),
        (
            "seed_oss",
            "<seed:tool_call>\n<function=f>\n<parameter=a>abc</seed:tool_call>\nDone.",
        ),
        (
            "minimax_m2",
            "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">abc</minimax:tool_call>\nDone.",
        ),
        (
            "glm45",
            "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>abc</tool_call>\nDone.",
        ),
        (
            "hy_v4",
            "<tool_calls:opensource><tool_call:opensource>f<arg_key:opensource>a</arg_key:opensource><arg_value:opensource>abc</tool_calls:opensource>\nDone.",
        ),
    ];
    for (name, text) in cases {
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let format = argmend::Format::from_name(name).unwrap();
            let mut parser = CallParser::with_format(format, ToolOptions::default().tools(tools()));
            let mut events = parser.feed(text.as_bytes());
            events.extend(parser.finish());
            let _ = send.send(events);
        });
        let events = receive
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{name}: no end"));
        let ready: Vec<(String, Value)> = events
            .iter()
            .filter_map(|event| match event {
                Event::CallReady { name, args, .. } => {
                    Some((name.clone(), serde_json::from_str(args).unwrap()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(ready, [("f".to_owned(), json!({"a": "abc"}))], "{name}");
        let text: String = events
            .iter()
            .filter_map(|event| match event {
                Event::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text.trim(), "Done.", "{name}");
    }
}

/// Python braces cut off before they say dict or set, nested a hundred deep
/// with a list inside (`o=({'k': {{{…{[0,`): each used to be written as the
/// string key of the one around it, escaping the text inside it again, so
/// the text doubled per level (found by the `call_formats` target:
/// `fuzz_nested_braces_cut_in_python`). Now a brace that holds a container
/// is a set, and the end comes at once.
#[test]
fn nested_undecided_python_braces_end_at_once() {
    let text = format!("[f(o={}[0, 1", "{".repeat(100));
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let format = argmend::Format::from_name("pythonic").unwrap();
        let mut parser = CallParser::with_format(format, ToolOptions::default());
        let mut events = parser.feed(text.as_bytes());
        events.extend(parser.finish());
        let _ = send.send(events);
    });
    let events = receive
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("no end");
    let args = events
        .iter()
        .find_map(|event| match event {
            Event::CallReady { args, complete, .. } => {
                assert!(!complete);
                Some(serde_json::from_str::<Value>(args).unwrap())
            }
            _ => None,
        })
        .expect("no call");
    // 100 sets (arrays) around the list, its numbers kept.
    let mut inner = &args["o"];
    for _ in 0..100 {
        inner = &inner[0];
    }
    assert_eq!(*inner, json!([0, 1]), "{args}");
}

/// Prose with a long run of `{` or `[` in a format whose calls may stand
/// bare (xLAM, Llama 3 JSON): each bracket's head is read, found prose, and
/// its first byte given to the text; that is progress, and used to count as
/// none, so after 64 of them the machine took itself for stuck and dropped
/// the rest of the chunk (found by the `call_formats` target:
/// `fuzz_braces_in_prose_of_a_bare_format`). Nothing is lost now.
#[test]
fn long_bracket_runs_in_prose_keep_every_byte() {
    for name in ["xlam", "llama3_json"] {
        let text = format!("Sets: {} and {} end.", "{".repeat(100), "[".repeat(100));
        let format = argmend::Format::from_name(name).unwrap();
        let mut parser = CallParser::with_format(format, ToolOptions::default());
        let mut events = parser.feed(text.as_bytes());
        events.extend(parser.finish());
        let shown: String = events
            .iter()
            .filter_map(|event| match event {
                Event::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(shown, text, "{name}");
    }
}

/// A broken Qwen2.5-Coder call the `call_formats` target made: its
/// arguments, fixes and doubts are the same whole and in 2-byte chunks. The
/// 2-byte run once reported a `duplicate_key` doubt the one-shot run did
/// not: once a document held a doubt the machine read every key itself,
/// but the fast lane, in a run without chunk ends, still took them (both
/// now ask `Machine::wary`).
#[test]
fn a_broken_object_call_mends_the_same_in_any_chunks() {
    let data = include_bytes!("duplicate_key_doubt_by_chunking.bin");
    let (format, chunk, text) = split_call_format_input(data).unwrap();
    let run = |size: usize| {
        let mut parser = CallParser::with_format(format, ToolOptions::default().tools(tools()));
        let mut events = Vec::new();
        for piece in text.chunks(size) {
            events.extend(parser.feed(piece));
        }
        events.extend(parser.finish());
        events
            .into_iter()
            .filter_map(|event| match event {
                Event::CallReady {
                    name,
                    args,
                    fixes,
                    doubts,
                    ..
                } => Some((name, args, fixes, doubts)),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let whole = run(text.len());
    assert!(!whole.is_empty());
    assert_eq!(run(chunk), whole);
    assert_eq!(run(1), whole);
}
