//! Issue 44: the tool-call formats of open-weight models, scored against
//! what vLLM's own tool-parser tests expect of them.
//!
//! The vectors are vLLM's (`../shared/tool_formats/vllm/cases.jsonl`, 947
//! model outputs with the calls expected of each, Apache-2.0, sources in
//! its README); they are read from there and no copy is in the repository.
//! Every case runs through `CallParser::with_format` with the case's tools
//! as the schemas, and must give the expected names and arguments (compared
//! as JSON values, numbers by value as Python compares them):
//!
//! - one shot, at every split of the text into two chunks, and in the
//!   chunks the test itself streams (`deltas`), with the same calls each
//!   time (names, arguments, completeness);
//! - with the `ArgsJson` pieces of each call adding up to JSON equal to
//!   its final arguments (the append-only deltas a client passes on).
//!
//! A case whose expectation argmend deliberately does not meet is listed by
//! id in `corpus/DIVERGENCES.md` with the reason; the test fails on a
//! failure that is not listed, and on a listed case that passes. The table
//! per format prints with `cargo test --test main tool_formats -- --nocapture`.

mod broken;
mod seeds;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use argmend::{CallParser, Event, Format, ToolMap, ToolOptions};
use serde_json::Value;

/// The shared data directory (`ARGMEND_SHARED`, else `../shared` beside the
/// crate), or `None` with one line on stderr saying what was skipped. With
/// `ARGMEND_REQUIRE_SHARED=1` a missing directory is a failure.
fn shared_dir(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("ARGMEND_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    if dir.join(what).exists() {
        return Some(dir);
    }
    let required = std::env::var("ARGMEND_REQUIRE_SHARED").is_ok_and(|value| value == "1");
    assert!(
        !required,
        "{} is missing (ARGMEND_REQUIRE_SHARED=1)",
        dir.join(what).display()
    );
    // Straight to the handle: libtest captures `eprintln!`, and a skip must show.
    let _ = writeln!(
        std::io::stderr(),
        "argmend-skip: {} not found; its tests are skipped",
        dir.join(what).display()
    );
    None
}

/// One call as the parser reported it.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    name: String,
    /// The mended arguments; `None` when they could not be read.
    args: Option<Value>,
    complete: bool,
    closed: bool,
    /// The call's `ArgsJson` pieces, concatenated.
    json: String,
}

fn parser(format: Format, tools: &Value) -> CallParser {
    let options = match tools {
        Value::Array(_) => ToolOptions::default().tools(ToolMap::from_openai_tools(tools)),
        _ => ToolOptions::default(),
    };
    CallParser::with_format(format, options)
}

/// The calls found in `text` fed in `chunks` (their concatenation).
fn calls_of(format: Format, tools: &Value, chunks: &[&[u8]]) -> Vec<Found> {
    let mut parser = parser(format, tools);
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(parser.feed(chunk));
    }
    events.extend(parser.finish());
    let mut found: Vec<Found> = Vec::new();
    let mut json: BTreeMap<usize, String> = BTreeMap::new();
    for event in events {
        match event {
            Event::ArgsJson { call, json: piece } => json.entry(call).or_default().push_str(&piece),
            Event::CallReady {
                call,
                name,
                args,
                complete,
                closed,
                ..
            } => found.push(Found {
                name,
                args: serde_json::from_str(&args).ok(),
                complete,
                closed,
                json: json.remove(&call).unwrap_or_default(),
            }),
            Event::Error {
                name: Some(name), ..
            } => found.push(Found {
                name,
                args: None,
                complete: false,
                closed: false,
                json: String::new(),
            }),
            _ => {}
        }
    }
    found
}

/// JSON values equal as Python compares them: numbers by value (`5 == 5.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, a)| y.get(key).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

/// Why a case failed, if it did.
fn check(case: &Value) -> Option<String> {
    let name = case["format"].as_str().unwrap_or("");
    let Some(format) = Format::from_name(name) else {
        return Some(format!("no format `{name}`"));
    };
    let text = case["text"].as_str().unwrap_or("").as_bytes();
    let tools = &case["tools"];
    let whole = calls_of(format, tools, &[text]);
    // The arguments' JSON pieces add up to the arguments.
    for call in &whole {
        let Some(args) = &call.args else { continue };
        match serde_json::from_str::<Value>(&call.json) {
            Ok(streamed) if streamed == *args => {}
            _ => {
                return Some(format!(
                    "the ArgsJson pieces of `{}` are {:?}, not its arguments {args}",
                    call.name, call.json
                ));
            }
        }
    }
    // The same calls however the text is cut.
    for cut in 1..text.len() {
        let split = calls_of(format, tools, &[&text[..cut], &text[cut..]]);
        if split != whole {
            return Some(format!(
                "split at byte {cut}: {:?}\n  one shot: {:?}",
                brief(&split),
                brief(&whole)
            ));
        }
    }
    if let Some(deltas) = case["deltas"].as_array() {
        let deltas: Vec<&[u8]> = deltas
            .iter()
            .map(|delta| delta.as_str().unwrap_or("").as_bytes())
            .collect();
        let streamed = calls_of(format, tools, &deltas);
        if streamed != whole {
            return Some(format!(
                "in the test's deltas: {:?}\n  one shot: {:?}",
                brief(&streamed),
                brief(&whole)
            ));
        }
    }
    let Some(expected) = case["calls"].as_array() else {
        // The test states no calls: it only asks that nothing breaks.
        return None;
    };
    let matches = whole.len() == expected.len()
        && whole.iter().zip(expected).all(|(got, want)| {
            got.name == want["name"].as_str().unwrap_or("")
                && match (&got.args, &want["arguments"]) {
                    (Some(got), want) if !want.is_null() => same(got, want),
                    _ => false,
                }
        });
    if matches {
        return None;
    }
    let want: Vec<(String, String)> = expected
        .iter()
        .map(|call| {
            let args = match &call["arguments"] {
                Value::Null => format!("text {}", call["arguments_text"]),
                args => args.to_string(),
            };
            (call["name"].as_str().unwrap_or("").to_owned(), args)
        })
        .collect();
    Some(format!("got {:?}\n  expected {want:?}", brief(&whole)))
}

fn brief(calls: &[Found]) -> Vec<String> {
    calls
        .iter()
        .map(|call| {
            let args = call
                .args
                .as_ref()
                .map_or("(unreadable)".to_owned(), Value::to_string);
            let mut line = format!("{} {args}", call.name);
            if !call.complete {
                line.push_str(" (incomplete)");
            }
            if !call.closed {
                line.push_str(" (not closed)");
            }
            line
        })
        .collect()
}

/// The vLLM case ids `corpus/DIVERGENCES.md` lists, in backticks.
fn listed() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/DIVERGENCES.md");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|piece| piece.starts_with("vllm:"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn vllm_cases_per_format() {
    let Some(dir) = shared_dir("tool_formats/vllm/cases.jsonl") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join("tool_formats/vllm/cases.jsonl")).unwrap();
    let listed = listed();
    // format → (cases, passed, failed, listed divergences)
    let mut table: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut unlisted = Vec::new();
    let mut stale = Vec::new();
    let mut report = String::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap_or("").to_owned();
        let row = table
            .entry(case["format"].as_str().unwrap_or("").to_owned())
            .or_default();
        row[0] += 1;
        let failure = check(&case);
        let is_listed = listed.contains(&id);
        match (&failure, is_listed) {
            (None, false) => row[1] += 1,
            (None, true) => {
                row[1] += 1;
                stale.push(id.clone());
            }
            (Some(_), true) => row[3] += 1,
            (Some(_), false) => {
                row[2] += 1;
                unlisted.push(id.clone());
            }
        }
        if let Some(failure) = failure {
            let mark = if is_listed { " [divergence]" } else { "" };
            report.push_str(&format!("{id}{mark}\n  {failure}\n"));
        }
    }
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let _ = std::fs::create_dir_all(&target);
    let _ = std::fs::write(target.join("tool-formats-failures.txt"), &report);
    println!(
        "{:<18} {:>5} {:>6} {:>6} {:>8}",
        "format", "cases", "passed", "failed", "listed"
    );
    let mut totals = [0; 4];
    for (format, row) in &table {
        println!(
            "{format:<18} {:>5} {:>6} {:>6} {:>8}",
            row[0], row[1], row[2], row[3]
        );
        for (total, n) in totals.iter_mut().zip(row) {
            *total += n;
        }
    }
    println!(
        "{:<18} {:>5} {:>6} {:>6} {:>8}",
        "total", totals[0], totals[1], totals[2], totals[3]
    );
    assert!(
        unlisted.is_empty(),
        "{} vLLM cases fail without an entry in corpus/DIVERGENCES.md (see target/tool-formats-failures.txt): {unlisted:?}",
        unlisted.len()
    );
    assert!(
        stale.is_empty(),
        "cases listed in corpus/DIVERGENCES.md pass now; take them off the list: {stale:?}"
    );
}

/// Each format's calls as its own table writes them, in text read without
/// a format (`CallParser::new`): the first marker tells the format, and the
/// calls come out the same for every split of the text into two chunks.
/// The formats with no marker of their own (a bare JSON list, `<tools>`,
/// Python calls in `[…]`) are read only when chosen, so prose that mentions
/// them stays text; a JSON call object in them naming a known tool is still
/// found by the parser's own forms, and must then be right.
#[test]
fn formats_told_by_their_first_marker() {
    let truth = serde_json::json!({"path": "src/a.py", "content": "x = \"1\"\n", "n": 2});
    let schema = serde_json::json!({"type": "object", "properties": {
        "path": {"type": "string"}, "content": {"type": "string"}, "n": {"type": "integer"}}});
    let raw = truth.to_string();
    let told = [
        "hermes",
        "kimi_k2",
        "gpt_oss",
        "deepseek_v3",
        "deepseek_v32",
        "deepseek_v4",
        "qwen3_coder",
        "seed_oss",
        "minimax_m2",
        "dots",
        "step3",
        "glm45",
        "hy_v4",
        "gemma4",
        "functiongemma",
        "llama4_pythonic",
        "lfm2",
        "longcat",
        "granite",
        "internlm2",
        "gigachat3",
        "gigachat31",
        "cohere_command3",
        "apertus",
        "mistral_v3",
        "mistral_v11",
    ];
    let tools = serde_json::json!([{"type": "function", "function": {"name": "write_file", "parameters": schema}}]);
    let options = ToolOptions::default().tools(ToolMap::from_openai_tools(&tools));
    for format in Format::all() {
        let Some(text) = broken::write(format.name(), "write_file", &raw, &truth) else {
            continue;
        };
        let text = format!("{text}\nDone.");
        let calls = |chunks: &[&[u8]]| {
            let mut parser = CallParser::with_options(options.clone());
            let mut events = Vec::new();
            for chunk in chunks {
                events.extend(parser.feed(chunk));
            }
            events.extend(parser.finish());
            (events.iter())
                .filter_map(|event| match event {
                    Event::CallReady { name, args, .. } => {
                        Some((name.clone(), serde_json::from_str::<Value>(args).ok()))
                    }
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let whole = calls(&[text.as_bytes()]);
        if told.contains(&format.name()) {
            assert_eq!(
                whole,
                [("write_file".to_owned(), Some(truth.clone()))],
                "{format}: {text}"
            );
        } else {
            assert!(
                whole.is_empty() || whole == [("write_file".to_owned(), Some(truth.clone()))],
                "{format} is read only when chosen: {text}\n{whole:?}"
            );
        }
        for cut in 1..text.len() {
            let split = calls(&[&text.as_bytes()[..cut], &text.as_bytes()[cut..]]);
            assert_eq!(split, whole, "{format} split at {cut}: {text}");
        }
    }
}
