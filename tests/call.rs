//! The tool-call runtime (issue 6): the parser over streamed model text, the
//! native argument stream, the dispatcher, `argmend call` and `argmend serve`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use argmend::tools::Workspace;

use crate::support::TempDir;
use argmend::{
    ArgsStream, CallParser, Dispatcher, Event, Tool, ToolError, ToolErrorKind, ToolOptions,
};
use serde_json::{Value, json};

fn streams_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/streams")
}

fn recorded(name: &str) -> Vec<u8> {
    std::fs::read(streams_dir().join(name)).unwrap()
}

/// Feed `input` cut at `cuts` (sorted offsets); all events.
pub(crate) fn parse_cut(input: &[u8], cuts: &[usize]) -> Vec<Event> {
    let mut parser = CallParser::new();
    let mut events = Vec::new();
    let mut from = 0;
    for &cut in cuts {
        events.extend(parser.feed(&input[from..cut]));
        from = cut;
    }
    events.extend(parser.feed(&input[from..]));
    events.extend(parser.finish());
    events
}

/// The calls: every event but text and previews.
fn calls(events: &[Event]) -> Vec<Event> {
    events
        .iter()
        .filter(|event| {
            !matches!(
                event,
                Event::Text(_)
                    | Event::ArgsDelta { .. }
                    | Event::ArgsJson { .. }
                    | Event::FieldDone { .. }
            )
        })
        .cloned()
        .collect()
}

/// Every event but text and string deltas (whose cuts follow the chunks):
/// the calls and their finished fields.
fn settled(events: &[Event]) -> Vec<Event> {
    events
        .iter()
        .filter(|event| {
            !matches!(
                event,
                Event::Text(_) | Event::ArgsDelta { .. } | Event::ArgsJson { .. }
            )
        })
        .cloned()
        .collect()
}

pub(crate) fn text(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            Event::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The concatenated deltas per path of the call `n` (counted from 0).
fn deltas(events: &[Event], path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for event in events {
        match event {
            Event::CallStarted { .. } => out.push(String::new()),
            Event::ArgsDelta { path: p, text, .. } if p == path => {
                out.last_mut().unwrap().push_str(text);
            }
            _ => {}
        }
    }
    out
}

fn ready_args(events: &[Event]) -> Vec<(String, String)> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::CallReady { name, args, .. } => Some((name.clone(), args.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn mixed_stream_gives_every_call() {
    let input = recorded("mixed.txt");
    let events = parse_cut(&input, &[]);
    let ready = ready_args(&events);
    let values: Vec<(String, Value)> = ready
        .iter()
        .map(|(name, args)| (name.clone(), serde_json::from_str(args).unwrap()))
        .collect();
    assert_eq!(
        values,
        [
            (
                "@json".into(),
                json!({"cmd": "schema", "args": {"file": "resp.json"}})
            ),
            (
                "@json".into(),
                json!({"cmd": "query", "args": {"file": "resp.json", "path": "data.items", "where": "status=failed", "select": "id,name"}})
            ),
            (
                "@json".into(),
                json!({"cmd": "get", "args": {"file": "resp.json", "path": "data.items[0].name"}})
            ),
            (
                "@json".into(),
                json!({"cmd": "keys", "args": {"file": "resp.json", "path": "data"}})
            ),
            (
                "@diff".into(),
                json!({"cmd": "text", "args": {"a": "it's\n", "b": "it is\n"}})
            ),
        ],
        "{events:#?}"
    );
    assert_eq!(calls(&events).len(), 10, "{events:#?}");
    let text = text(&events);
    assert!(text.starts_with("I'll start by looking at the response shape.\n\n\n"));
    assert!(text.contains("```json\n\n```"), "{text}");
    assert!(text.ends_with("\nThat's all.\n"), "{text}");
    assert!(!text.contains("tool_call"), "{text}");
}

#[test]
fn recorded_streams_are_chunk_invariant_at_every_cut() {
    for name in ["mixed.txt", "write_file.txt"] {
        let input = recorded(name);
        let whole = parse_cut(&input, &[]);
        for cut in 0..=input.len() {
            let events = parse_cut(&input, &[cut]);
            assert_eq!(calls(&events), calls(&whole), "{name} cut at {cut}");
            assert_eq!(text(&events), text(&whole), "{name} cut at {cut}");
        }
    }
}

#[test]
fn recorded_streams_are_chunk_invariant_at_random_cuts() {
    // A small xorshift keeps the test deterministic without a dependency.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for name in ["mixed.txt", "write_file.txt"] {
        let input = recorded(name);
        let whole = parse_cut(&input, &[]);
        for _ in 0..200 {
            let n_cuts = (next() % 40) as usize;
            let mut cuts: Vec<usize> = (0..n_cuts)
                .map(|_| (next() % (input.len() as u64 + 1)) as usize)
                .collect();
            cuts.sort_unstable();
            let events = parse_cut(&input, &cuts);
            assert_eq!(calls(&events), calls(&whole), "{name} cut at {cuts:?}");
            assert_eq!(text(&events), text(&whole), "{name} cut at {cuts:?}");
        }
        let every: Vec<usize> = (1..input.len()).collect();
        let events = parse_cut(&input, &every);
        assert_eq!(calls(&events), calls(&whole), "{name} in 1-byte chunks");
    }
}

#[test]
fn a_limit_crossed_midway_gives_the_same_events_at_every_cut() {
    // Arguments whose nesting crosses the engine's limit after two finished
    // fields: fed whole, the fields finished before the limit are reported
    // as they are when fed in pieces (they once were only then), and the
    // call ends in the same error. Found by the `call_stream` fuzz target.
    for fenced in [false, true] {
        let mut args = String::from(if fenced { "```json\n" } else { "" });
        args.push_str(r#"{"a": "done", "b": {"c": 1}, "d": "#);
        args.push_str(&"[".repeat(600));
        let input = format!("<tool_call name=\"x\">{args}</tool_call>");
        let whole = parse_cut(input.as_bytes(), &[]);
        assert!(
            whole
                .iter()
                .any(|event| matches!(event, Event::Error { .. })),
            "{whole:?}"
        );
        let done = |events: &[Event]| {
            events
                .iter()
                .filter(|event| matches!(event, Event::FieldDone { .. }))
                .count()
        };
        assert!(done(&whole) >= 2, "fenced {fenced}: {whole:?}");
        for size in [1, 4, 7, 64] {
            let cuts: Vec<usize> = (size..input.len()).step_by(size).collect();
            let pieces = parse_cut(input.as_bytes(), &cuts);
            assert_eq!(
                settled(&whole),
                settled(&pieces),
                "fenced {fenced}, pieces of {size}"
            );
        }
    }
}

#[test]
fn write_file_content_reassembles_from_one_byte_chunks() {
    let input = recorded("write_file.txt");
    let every: Vec<usize> = (1..input.len()).collect();
    let events = parse_cut(&input, &every);
    let ready = ready_args(&events);
    assert_eq!(ready.len(), 2, "{events:#?}");
    let previews = deltas(&events, "/content");
    for ((_, args), preview) in ready.iter().zip(&previews) {
        let value: Value = serde_json::from_str(args).unwrap();
        assert_eq!(value["content"].as_str().unwrap(), preview);
    }
    assert_eq!(
        previews[0],
        "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"héllo, wörld ✓\")\n\t// it's done: é\n}\n"
    );
    assert_eq!(previews[1], "line one\nline two");
    // The deltas arrive while the call streams, not all at the end.
    let n_deltas = events
        .iter()
        .filter(|e| matches!(e, Event::ArgsDelta { .. }))
        .count();
    assert!(n_deltas > 50, "{n_deltas}");
}

#[test]
fn native_args_stream_matches_the_whole() {
    let raw =
        br#"{"cmd": "apply", "args": {"file": "a.txt", 'patch': "--- a\n+++ b\n", dry_run: True,}"#;
    let whole = {
        let mut stream = ArgsStream::new("@diff", ToolOptions::default());
        let mut events = stream.feed(raw);
        events.extend(stream.finish());
        events
    };
    let mut stream = ArgsStream::new("@diff", ToolOptions::default());
    let mut events = Vec::new();
    for byte in raw {
        events.extend(stream.feed(std::slice::from_ref(byte)));
    }
    events.extend(stream.finish());
    assert_eq!(calls(&events), calls(&whole));
    let Some(Event::CallReady { args, .. }) = events.last() else {
        panic!("{events:?}")
    };
    let value: Value = serde_json::from_str(args).unwrap();
    assert_eq!(value["args"]["dry_run"], json!(true));
    let patch: String = events
        .iter()
        .filter_map(|e| match e {
            Event::ArgsDelta { path, text, .. } if path == "/args/patch" => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(patch, "--- a\n+++ b\n");
}

#[test]
fn forms_table() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            r#"<tool_call name="read_file" args="main.go" />"#,
            &[("read_file", r#"{"file":"main.go"}"#)],
        ),
        (
            r#"<tool_call name="x" args="{"a": 1}"/>"#,
            &[("x", r#"{"a": 1}"#)],
        ),
        (
            r#"<tool_call args='{"a": 1}' name='x'></tool_call>after"#,
            &[("x", r#"{"a": 1}"#)],
        ),
        (r#"<tool name=x>{a: 1,}</tool>"#, &[("x", r#"{"a": 1}"#)]),
        (
            r#"{ 'tool_call': 'x', args: "{\"a\":1}" }"#,
            &[("x", r#"{"a":1}"#)],
        ),
        (
            r#"{"tool_call": "x", "input": {"a": 1}, "id": 7}"#,
            &[("x", r#"{"a": 1}"#)],
        ),
        // The object form is told from other JSON by its first key.
        (r#"{"args": {"a": 1}, "tool_call": "x"}"#, &[]),
        (
            r#"<tool_call name="x">{"a": "b</tool"#,
            &[("x", r#"{"a": "b</tool"}"#)],
        ),
        ("no calls {here} <tools> <tool_calls>", &[]),
    ];
    for (input, expected) in cases {
        for chunk in [0, 1] {
            let cuts: Vec<usize> = if chunk == 1 {
                (1..input.len()).collect()
            } else {
                vec![]
            };
            let events = parse_cut(input.as_bytes(), &cuts);
            let got = ready_args(&events);
            let want: Vec<(String, String)> = expected
                .iter()
                .map(|(n, a)| (n.to_string(), a.to_string()))
                .collect();
            assert_eq!(got, want, "{input}: {events:#?}");
        }
    }
    let events = parse_cut(b"no calls {here} <tools> <tool_calls>", &[]);
    assert_eq!(text(&events), "no calls {here} <tools> <tool_calls>");
    let events = parse_cut(
        br#"<tool_call args='{"a": 1}' name='x'></tool_call>after"#,
        &[],
    );
    assert_eq!(text(&events), "after");
}

#[test]
fn unmendable_and_nameless_calls_are_errors() {
    let events = parse_cut(
        br#"<tool_call name="@json" args="get --file 'a.json" />"#,
        &[],
    );
    let Some(Event::Error { name, raw, .. }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(name.as_deref(), Some("@json"));
    assert_eq!(raw, "get --file 'a.json");
    let events = parse_cut(br#"<tool_call args="{}" />"#, &[]);
    assert!(
        matches!(events.last(), Some(Event::Error { name: None, .. })),
        "{events:?}"
    );
}

/// A temp workspace with two files; the directory goes when the `TempDir` drops.
fn workspace() -> (TempDir, Workspace) {
    let dir = TempDir::new();
    dir.write("resp.json", r#"{"data": {"items": [{"id": 1, "name": "web", "status": "failed"}, {"id": 2, "name": "db", "status": "ok"}]}}"#);
    dir.write("a.txt", "one\ntwo\n");
    let workspace = dir.workspace();
    (dir, workspace)
}

struct Sleep(Duration, Arc<AtomicUsize>);
impl Tool for Sleep {
    fn run(&self, _: &Workspace, args: &Value) -> Result<String, ToolError> {
        let now = self.1.fetch_add(1, Ordering::SeqCst) + 1;
        std::thread::sleep(self.0);
        self.1.fetch_sub(1, Ordering::SeqCst);
        Ok(format!("{now} {args}"))
    }
}

struct Fails;
impl Tool for Fails {
    fn run(&self, _: &Workspace, _: &Value) -> Result<String, ToolError> {
        Err("the disk is full".into())
    }
}

struct Panics;
impl Tool for Panics {
    fn run(&self, _: &Workspace, _: &Value) -> Result<String, ToolError> {
        let v: Vec<u8> = Vec::new();
        Ok(format!("{}", v.len() / v.len()))
    }
}

#[test]
fn dispatcher_normalizes_the_envelope() {
    let (_dir, workspace) = workspace();
    let dispatcher = Dispatcher::new(workspace);
    let result = dispatcher.run("@json", "get --file resp.json --path data.items[0].name");
    assert!(result.ok, "{}", result.output);
    assert_eq!(result.output, "\"web\"\n");
    assert_eq!(result.strategy.map(|s| s.number()), Some(6));
    let result = dispatcher.run(
        "@json",
        "{cmd: 'keys', args: {file: 'resp.json', path: 'data'},}",
    );
    assert!(result.ok, "{}", result.output);
    let result = dispatcher.run(
        "@diff",
        r#"{"cmd": "files", "args": {"a": "a.txt", "b": "../etc/passwd"}}"#,
    );
    assert!(!result.ok, "{}", result.output);
}

#[test]
fn dispatcher_errors_never_crash() {
    let (_dir, workspace) = workspace();
    let dispatcher = Dispatcher::new(workspace)
        .with_tool("fails", Fails)
        .with_tool("panics", Panics)
        .with_tool("slow", Sleep(Duration::from_millis(600), Arc::default()));
    let result = dispatcher.run("nope", "{}");
    assert!(!result.ok);
    assert_eq!(result.error, Some(ToolErrorKind::UnknownTool));
    assert!(
        result.output.starts_with("unknown tool `nope`"),
        "{}",
        result.output
    );
    let result = dispatcher.run("fails", "{}");
    assert_eq!(
        (result.ok, result.output.as_str()),
        (false, "the disk is full")
    );
    assert_eq!(result.error, Some(ToolErrorKind::Refused));
    let result = dispatcher.run("panics", "{}");
    assert!(
        !result.ok && result.output.contains("panicked"),
        "{}",
        result.output
    );
    assert_eq!(result.error, Some(ToolErrorKind::Failed));
    // The built-in tools' errors keep their kinds.
    let result = dispatcher.run("@json", "get --file missing.json --path a");
    assert_eq!(result.error, Some(ToolErrorKind::Io), "{}", result.output);
    let result = dispatcher.run("@json", "get --file resp.json --path nope");
    assert_eq!(
        result.error,
        Some(ToolErrorKind::Refused),
        "{}",
        result.output
    );
    let result = dispatcher.run(
        "@json",
        "{\"cmd\": \"get\", \"args\": {\"file\": \"resp.json\"}}",
    );
    assert_eq!(
        result.error,
        Some(ToolErrorKind::InvalidArguments),
        "{}",
        result.output
    );
    assert_eq!(
        dispatcher
            .run("@json", "get --file resp.json --path data")
            .error,
        None
    );
    let dispatcher = dispatcher
        .time_limit(Duration::from_millis(100))
        .output_cap(40);
    let started = Instant::now();
    let result = dispatcher.run("slow", "{}");
    assert!(
        !result.ok && result.output.contains("ran out of time"),
        "{}",
        result.output
    );
    assert!(started.elapsed() < Duration::from_millis(500));
    let result = dispatcher.run(
        "@json",
        r#"{"cmd": "pretty", "args": {"file": "resp.json"}}"#,
    );
    assert!(result.ok);
    assert!(
        result.output.contains("output cut at 40 of"),
        "{}",
        result.output
    );
}

#[test]
fn read_calls_run_in_parallel() {
    let (_dir, workspace) = workspace();
    let running = Arc::new(AtomicUsize::new(0));
    let dispatcher = Dispatcher::new(workspace).with_tool(
        "slow",
        Sleep(Duration::from_millis(200), Arc::clone(&running)),
    );
    let started = Instant::now();
    let outputs: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let dispatcher = &dispatcher;
                scope.spawn(move || dispatcher.run("slow", &format!("{{\"i\": {i}}}")).output)
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(
        started.elapsed() < Duration::from_millis(700),
        "{:?}",
        started.elapsed()
    );
    assert!(outputs.iter().any(|o| !o.starts_with("1 ")), "{outputs:?}");
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_argmend"))
}

#[test]
fn cli_call_runs_every_call_in_order() {
    let (dir, _) = workspace();
    let output = bin()
        .args(["call", "--workspace"])
        .arg(dir.path())
        .arg(streams_dir().join("mixed.txt"))
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let expected = std::fs::read_to_string(streams_dir().join("mixed.call")).unwrap_or_default();
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(streams_dir().join("mixed.call"), &stdout).unwrap();
    } else {
        assert_eq!(stdout, expected);
    }
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn serve_answers_concurrently_with_ids() {
    let (dir, _) = workspace();
    let mut child = bin()
        .args(["serve", "--workspace"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let big = "x\n".repeat(200_000);
    let slow = json!({"id": "slow", "tool": "@diff", "args": {"cmd": "text", "args": {"a": big, "b": format!("{big}y\n")}}});
    writeln!(stdin, "{slow}").unwrap();
    writeln!(
        stdin,
        r#"{{"id": 1, "tool": "@json", "args": "get --file resp.json --path data.items[1].name"}}"#
    )
    .unwrap();
    writeln!(stdin, "{{this is not a request").unwrap();
    writeln!(stdin, r#"{{"id": 2, "tool": "@json", "args": {{"cmd": "keys", "args": {{"file": "resp.json"}}}}}}"#).unwrap();
    writeln!(stdin, r#"{{"id": 3, "tool": "@nope", "args": {{}}}}"#).unwrap();
    // An envelope whose `args` is broken JSON in a string (issue 41).
    writeln!(
        stdin,
        r#"{{"id": 4, "tool": "@json", "args": {{"cmd": "get", "args": "{{file: 'resp.json', path: 'data.items[1].name',}}"}}}}"#
    )
    .unwrap();
    drop(stdin);
    let lines: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    assert_eq!(lines.len(), 6, "{lines:#?}");
    let by_id = |id: Value| lines.iter().find(|l| l["id"] == id).unwrap().clone();
    // The repairs inside the string are reported, not only its unwrapping.
    let unwrapped = by_id(json!(4));
    assert_eq!(unwrapped["output"], json!("\"db\"\n"), "{unwrapped}");
    let kinds: Vec<&str> = (unwrapped["repairs"]["fixes"].as_array().unwrap().iter())
        .map(|fix| fix["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "unwrapped_string",
            "quoted_key",
            "replaced_quotes",
            "quoted_key",
            "replaced_quotes",
            "removed_comma"
        ],
        "{unwrapped}"
    );
    assert_eq!(by_id(json!(1))["output"], json!("\"db\"\n"));
    assert_eq!(by_id(json!(1))["repairs"]["strategy"], json!(6));
    assert_eq!(by_id(json!(2))["ok"], json!(true));
    assert_eq!(by_id(json!(3))["ok"], json!(false));
    assert_eq!(by_id(Value::Null)["ok"], json!(false));
    let slow = by_id(json!("slow"));
    assert_eq!(slow["ok"], json!(true), "{slow}");
    // The fast answers did not wait for the slow one.
    let position = |id: Value| lines.iter().position(|l| l["id"] == id).unwrap();
    assert!(position(json!(1)) < position(json!("slow")), "{lines:#?}");
}

/// The `call_stream` fuzz target's check, replayed on its seeds: the calls
/// and text are the same whole and in chunks of the length the first byte picks.
#[test]
fn fuzz_seeds_are_chunk_invariant() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/call_stream");
    let mut n_seeds = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let data = std::fs::read(&path).unwrap();
        let Some((&first, input)) = data.split_first() else {
            continue;
        };
        let chunk = usize::from(first % 64) + 1;
        let cuts: Vec<usize> = (chunk..input.len()).step_by(chunk).collect();
        let whole = parse_cut(input, &[]);
        let chunked = parse_cut(input, &cuts);
        // As the target compares them, the finished fields included.
        assert_eq!(settled(&chunked), settled(&whole), "{}", path.display());
        assert_eq!(text(&chunked), text(&whole), "{}", path.display());
        n_seeds += 1;
    }
    assert!(n_seeds >= 10, "{n_seeds}");
}

#[test]
fn runtime_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<CallParser>();
    send_sync::<ArgsStream>();
    send_sync::<Dispatcher>();
    send_sync::<Event>();
    send_sync::<argmend::ToolResult>();
}

/// The runtime's events (issue 15): calls are numbered, paths are JSON
/// Pointers, every value gets a `FieldDone`, and a cut-off call is marked.
#[test]
fn events_number_calls_report_final_values_and_completeness() {
    let input = br#"Two calls.
<tool_call name="write_file">{"path": "a/b.txt", "content": "x\ny", "mode": 'w'}</tool_call>
<tool_call name="@json">get --file resp.json --path data</tool_call>
<tool_call name="write_file">{"path": "c.txt", "content": "cut off"#;
    let whole = parse_cut(input, &[]);
    for cuts in [
        vec![1, 7, 40, 41, 90, 133],
        (1..input.len()).collect::<Vec<_>>(),
    ] {
        // Text and deltas split with the chunks; the rest does not.
        let cut = parse_cut(input, &cuts);
        assert_eq!(calls(&cut), calls(&whole), "cut at {cuts:?}");
        assert_eq!(text(&cut), text(&whole), "cut at {cuts:?}");
        let done = |events: &[Event]| -> Vec<Event> {
            events
                .iter()
                .filter(|e| matches!(e, Event::FieldDone { .. }))
                .cloned()
                .collect()
        };
        assert_eq!(done(&cut), done(&whole), "cut at {cuts:?}");
    }
    let started: Vec<(usize, &str)> = whole
        .iter()
        .filter_map(|event| match event {
            Event::CallStarted { call, name } => Some((*call, name.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        started,
        [(0, "write_file"), (1, "@json"), (2, "write_file")]
    );
    let done: Vec<(usize, &str, &Value)> = whole
        .iter()
        .filter_map(|event| match event {
            Event::FieldDone {
                call, path, value, ..
            } => Some((*call, path.as_str(), value)),
            _ => None,
        })
        .collect();
    assert_eq!(done[0], (0, "/path", &json!("a/b.txt")));
    assert_eq!(done[1], (0, "/content", &json!("x\ny")));
    assert_eq!(done[2], (0, "/mode", &json!("w")));
    assert_eq!(done[3].1, "");
    // The command line is mended at the end; its values come then.
    assert!(done.contains(&(1, "/args/file", &json!("resp.json"))));
    assert!(done.contains(&(2, "/path", &json!("c.txt"))));
    let ready: Vec<(usize, bool)> = whole
        .iter()
        .filter_map(|event| match event {
            Event::CallReady { call, complete, .. } => Some((*call, *complete)),
            _ => None,
        })
        .collect();
    assert_eq!(ready, [(0, true), (1, true), (2, false)]);
}

#[test]
fn cli_events_carry_call_numbers_pointers_and_completeness() {
    let dir = TempDir::new();
    let path = dir.write(
        "out.txt",
        "<tool_call name=\"write_file\">{\"path\": \"a.txt\", \"content\": \"hi\"}</tool_call>\n<tool_call name=\"write_file\">{\"path\": \"b.txt\", \"content\": \"cut",
    );
    let output = bin()
        .args(["call", "--events"])
        .arg(&path)
        .output()
        .unwrap();
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert!(lines.contains(&json!({"event": "field_done", "call": 0, "name": "write_file", "path": "/content", "value": "hi"})));
    let ready: Vec<(u64, bool)> = lines
        .iter()
        .filter(|line| line["event"] == "call_ready")
        .map(|line| {
            (
                line["call"].as_u64().unwrap(),
                line["complete"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(ready, [(0, true), (1, false)]);
}

/// The formats models emit (issue 15): Hermes/Qwen, Llama 3 (bare and after
/// `<|python_tag|>`), Mistral `[TOOL_CALLS]`, a fenced call object, several
/// calls in one message, and ordinary JSON in prose, which stays text. Each
/// is also cut at every byte.
#[test]
fn model_formats() {
    let read = ("read_file", json!({"path": "a.py"}));
    let search = ("search", json!({"query": "x y"}));
    // (model text, the calls it holds, the text around them)
    type Case<'a> = (&'a str, Vec<(&'a str, Value)>, &'a str);
    let cases: Vec<Case> = vec![
        (
            "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"x y\"}}\n</tool_call>",
            vec![read.clone(), search.clone()],
            "\n",
        ),
        (
            "{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.py\"}}\n{\"name\": \"search\", \"parameters\": {'query': 'x y',}}",
            vec![read.clone(), search.clone()],
            "\n",
        ),
        (
            "<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.py\"}}; {\"name\": \"search\", \"parameters\": {\"query\": \"x y\"}}<|eom_id|>",
            vec![read.clone(), search.clone()],
            "<|eom_id|>",
        ),
        (
            "[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}, {\"name\": \"search\", \"arguments\": {\"query\": \"x y\"}}]",
            vec![read.clone(), search.clone()],
            "",
        ),
        (
            "Reading it.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.py\"}}\n```\nDone.",
            vec![read.clone()],
            "Reading it.\n```json\n\n```\nDone.",
        ),
        (
            "The user is {\"name\": \"Ada\", \"age\": 3}. Also {\"name\": \"read_file\", \"age\": 3} and {\"name\": \"no_such_tool\", \"arguments\": {}} and [1, 2] and [TOOL] and <|other|>.",
            vec![],
            "The user is {\"name\": \"Ada\", \"age\": 3}. Also {\"name\": \"read_file\", \"age\": 3} and {\"name\": \"no_such_tool\", \"arguments\": {}} and [1, 2] and [TOOL] and <|other|>.",
        ),
    ];
    for (input, expected_calls, expected_text) in cases {
        let whole = parse_cut(input.as_bytes(), &[]);
        let got: Vec<(String, Value)> = ready_args(&whole)
            .into_iter()
            .map(|(name, args)| (name, serde_json::from_str(&args).unwrap()))
            .collect();
        let want: Vec<(String, Value)> = expected_calls
            .iter()
            .map(|(name, args)| ((*name).to_owned(), args.clone()))
            .collect();
        assert_eq!(got, want, "{input}");
        assert_eq!(text(&whole), expected_text, "{input}");
        for cut in 1..input.len() {
            let events = parse_cut(input.as_bytes(), &[cut]);
            assert_eq!(calls(&events), calls(&whole), "{input} cut at {cut}");
            assert_eq!(text(&events), text(&whole), "{input} cut at {cut}");
        }
        let every: Vec<usize> = (1..input.len()).collect();
        let events = parse_cut(input.as_bytes(), &every);
        assert_eq!(calls(&events), calls(&whole), "{input} one byte at a time");
        assert_eq!(text(&events), text(&whole), "{input} one byte at a time");
    }
}

/// Arguments the engine could read two ways: the call runs on its reading,
/// and the doubt travels with the call: `CallReady`, `ToolResult`, and the
/// `"repairs"` of `call --events` and `serve` (absent when there is none).
#[test]
fn doubts_travel_with_the_call() {
    use argmend::{Doubt, DoubtKind};
    let (dir, workspace) = workspace();
    // The text after the envelope holds a quote, and the envelope ended at a
    // string's quote: it may have ended early.
    let args = r#"{"cmd": "get", "args": "--file resp.json --path data.items[1].name"} note: "x""#;
    let doubt = Doubt {
        kind: DoubtKind::EarlyClose,
        offset: args.find("note").unwrap(),
    };
    let result = Dispatcher::new(workspace).run("@json", args);
    assert!(result.ok, "{}", result.output);
    assert_eq!(result.output, "\"db\"\n");
    assert_eq!(result.doubts, [doubt]);

    let mut stream = ArgsStream::new("@json", ToolOptions::default());
    let mut events = stream.feed(args.as_bytes());
    events.extend(stream.finish());
    let Some(Event::CallReady { doubts, .. }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(doubts, &[doubt]);

    let expected =
        json!([{"kind": "early_close", "offset": doubt.offset, "reason": doubt.reason()}]);
    let text = format!(
        "<tool_call name=\"@json\" args='{args}' />\n<tool_call name=\"@json\" args='{{\"cmd\": \"keys\", \"args\": {{\"file\": \"resp.json\"}}}}' />\n"
    );
    let path = dir.write("out.txt", &text);
    let output = bin()
        .args(["call", "--events"])
        .arg(&path)
        .output()
        .unwrap();
    let ready: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["event"] == "call_ready")
        .collect();
    assert_eq!(ready.len(), 2, "{ready:?}");
    assert_eq!(ready[0]["repairs"]["doubt"], expected, "{}", ready[0]);
    assert_eq!(ready[1]["repairs"].get("doubt"), None, "{}", ready[1]);

    let mut child = bin()
        .args(["serve", "--workspace"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", json!({"id": 1, "tool": "@json", "args": args})).unwrap();
    writeln!(
        stdin,
        r#"{{"id": 2, "tool": "@json", "args": "keys --file resp.json"}}"#
    )
    .unwrap();
    drop(stdin);
    let lines: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        .collect();
    assert!(child.wait().unwrap().success());
    let by_id = |id: u64| lines.iter().find(|l| l["id"] == id).unwrap().clone();
    assert_eq!(by_id(1)["output"], "\"db\"\n", "{lines:?}");
    assert_eq!(by_id(1)["repairs"]["doubt"], expected, "{lines:?}");
    assert_eq!(by_id(2)["repairs"].get("doubt"), None, "{lines:?}");
}
