//! Golden tests of the `argmend` binary: every mode, exit codes 0/1/2,
//! `--stream` against the one-shot output, and `--batch` line shapes.

use std::io::{Read, Write};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");
const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/tool_call.txt");

/// The repair of `examples/tool_call.txt`: prose and fences gone, and the
/// whitespace around the value with them (issue 28), keys and strings
/// double-quoted, `False` → `false`, the trailing comma and the comment
/// removed (the spaces before the comment with it).
const EXAMPLE_OUT: &str = concat!(
    "{\n",
    "  \"path\": \"src/main.go\",\n",
    r#"  "content": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello, world\")\n}\n","#,
    "\n  \"append\": false\n}",
);

const EXAMPLE_FIXES: &str = r#"{"kind":"removed_prose","offset":0}
{"kind":"removed_fence","offset":48}
{"kind":"replaced_quotes","offset":60}
{"kind":"replaced_quotes","offset":68}
{"kind":"quoted_key","offset":85}
{"kind":"quoted_key","offset":185}
{"kind":"replaced_literal","offset":193}
{"kind":"removed_comma","offset":198}
{"kind":"removed_comment","offset":201}
{"kind":"removed_fence","offset":231}
"#;

fn spawn(args: &[&str]) -> Child {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the argmend binary runs")
}

/// Run with `stdin` as input; a thread writes it so large inputs cannot deadlock.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args);
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // The binary may stop reading early (an error): ignore a broken pipe here.
    let writer = thread::spawn(move || drop(pipe.write_all(&input)));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited normally")
}

fn stdout(output: &Output) -> &str {
    std::str::from_utf8(&output.stdout).unwrap()
}

fn stderr(output: &Output) -> &str {
    std::str::from_utf8(&output.stderr).unwrap()
}

/// Exit 0, the exact stdout, nothing on stderr.
#[track_caller]
fn assert_ok(output: &Output, expected: &str) {
    assert_eq!(stderr(output), "", "stderr");
    assert_eq!(stdout(output), expected);
    assert_eq!(code(output), 0);
}

#[test]
fn repairs_the_example_file() {
    assert_ok(&run(&["repair", EXAMPLE], b""), EXAMPLE_OUT);
}

#[test]
fn reads_stdin_without_file_or_with_dash() {
    let input = b"{name: 'Ada', tags: ['x',],}";
    let expected = r#"{"name": "Ada", "tags": ["x"]}"#;
    assert_ok(&run(&["repair"], input), expected);
    assert_ok(&run(&["repair", "-"], input), expected);
    let example = std::fs::read(EXAMPLE).unwrap();
    assert_ok(&run(&["repair"], &example), EXAMPLE_OUT);
}

#[test]
fn valid_json_comes_back_byte_for_byte() {
    let input = " {\"a\": [1, 2.50, -0e3], \"b\": \"\\u00e9\"}\n";
    assert_ok(&run(&["repair"], input.as_bytes()), input);
    assert_ok(&run(&["repair", "--stream"], input.as_bytes()), input);
}

#[test]
fn a_truncation_is_completed_with_exit_0() {
    assert_ok(&run(&["repair"], br#"{"a": [1, 2"#), r#"{"a": [1, 2]}"#);
}

#[test]
fn fixes_go_to_stderr_as_json_lines() {
    for args in [
        &["repair", "--fixes", EXAMPLE][..],
        &["repair", "--fixes", "--stream", EXAMPLE],
    ] {
        let output = run(args, b"");
        assert_eq!(stdout(&output), EXAMPLE_OUT);
        assert_eq!(stderr(&output), EXAMPLE_FIXES);
        assert_eq!(code(&output), 0);
    }
    let output = run(&["repair", "--fixes"], br#"{"a": [1, 2"#);
    assert_eq!(
        stderr(&output),
        "{\"kind\":\"closed_container\",\"offset\":11}\n{\"kind\":\"closed_container\",\"offset\":11}\n"
    );
    // Valid input: no fixes, nothing on stderr.
    assert_ok(&run(&["repair", "--fixes"], b"[1]"), "[1]");
}

#[test]
fn not_json_exits_1_with_one_line_on_stderr() {
    for input in [&b""[..], b"  \n", b"// only a comment"] {
        for mode in [&["repair"][..], &["repair", "--stream"]] {
            let output = run(mode, input);
            assert_eq!(code(&output), 1, "{input:?} {mode:?}");
            assert_eq!(stdout(&output), "");
            assert_eq!(
                stderr(&output),
                "argmend: not JSON: no JSON value found in the input\n"
            );
        }
    }
}

#[test]
fn max_depth_crossed_exits_1() {
    for mode in ["--stream", "--values=first"] {
        let output = run(&["repair", mode, "--max-depth", "2"], b"[[[1]]]");
        assert_eq!(code(&output), 1);
        assert_eq!(
            stderr(&output),
            "argmend: nesting deeper than 2 levels at byte 2 (raise it with --max-depth)\n"
        );
        assert_ok(
            &run(&["repair", mode, "--max-depth", "3"], b"[[[1]]]"),
            "[[[1]]]",
        );
    }
    // The default is 512.
    let deep = format!("{}{}", "[".repeat(513), "]".repeat(513));
    assert_eq!(code(&run(&["repair"], deep.as_bytes())), 1);
    let ok = format!("{}{}", "[".repeat(512), "]".repeat(512));
    assert_ok(&run(&["repair"], ok.as_bytes()), &ok);
}

#[test]
fn a_missing_file_exits_2_and_is_named() {
    let output = run(&["repair", "no/such/file.json"], b"");
    assert_eq!(code(&output), 2);
    assert_eq!(stdout(&output), "");
    let message = stderr(&output);
    assert!(
        message.starts_with("argmend: cannot open 'no/such/file.json': "),
        "{message}"
    );
    assert_eq!(message.lines().count(), 1, "{message}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["repair", "--bogus"],
        &["repair", "--values", "all"],
        &["repair", "--max-depth", "-1"],
        &["repair", "a.json", "b.json"],
        &["fix"],
        &["repair", "--snapshots"],
        &["repair", "--batch", "--stream"],
        &["repair", "--batch", "--fixes"],
        &["repair", "--batch", "--values", "lines"],
    ] {
        let output = run(args, b"[1]");
        assert_eq!(code(&output), 2, "{args:?}");
        assert_eq!(stdout(&output), "", "{args:?}");
        assert!(!stderr(&output).is_empty(), "{args:?}");
    }
}

#[test]
fn help_explains_exit_codes_with_an_example() {
    let output = run(&["repair", "--help"], b"");
    assert_eq!(code(&output), 0);
    let help = stdout(&output);
    for needle in [
        "Exit codes:",
        "Examples:",
        "argmend repair examples/tool_call.txt",
        "--batch",
        "empty",
    ] {
        assert!(help.contains(needle), "{needle:?} missing from:\n{help}");
    }
    let output = run(&["--help"], b"");
    assert_eq!(code(&output), 0);
    assert!(stdout(&output).contains("Exit codes"));
}

/// Issue 28: the help a newcomer reads first. The batch section of `repair
/// --help` read `… "violations".` / `and gets one output line`; the top-level
/// help gave repair's exit codes as if they were every command's; `serve`
/// promised 4 workers where there are 2 to 4; the envelope's help explained
/// clap's parsing instead of the envelope.
#[test]
fn every_help_reads_as_sentences() {
    let help = |args: &[&str]| {
        let output = run(args, b"");
        assert_eq!(code(&output), 0, "{args:?}");
        stdout(&output).to_owned()
    };
    let repair = help(&["repair", "--help"]);
    assert!(!repair.contains("\"violations\".\nand gets"), "{repair}");
    assert!(
        repair.contains(
            "normalization (as --tool and --schema).\nEach input line gets one output line, in order:"
        ),
        "{repair}"
    );
    let top = help(&["--help"]);
    assert!(
        top.contains("Exit codes (each command's --help says what they mean for it):"),
        "{top}"
    );
    assert!(
        !top.contains("the output is JSON (valid, repaired"),
        "{top}"
    );
    let serve = help(&["serve", "--help"]);
    assert!(
        serve.contains("At most 2 to 4 calls run at once"),
        "{serve}"
    );
    for command in ["json", "diff"] {
        let text = help(&[command, "--help"]);
        assert!(!text.contains("Taken as a list"), "{text}");
        assert!(
            text.contains("the whole call as one JSON argument"),
            "{text}"
        );
    }
    // Every command and verb has a help that ends its sentences.
    for args in [
        &["repair"][..],
        &["diff"],
        &["diff", "files"],
        &["diff", "text"],
        &["diff", "dirs"],
        &["diff", "apply"],
        &["diff", "json"],
        &["json"],
        &["json", "get"],
        &["json", "keys"],
        &["json", "query"],
        &["json", "schema"],
        &["json", "validate"],
        &["json", "pretty"],
        &["quotes"],
        &["call"],
        &["serve"],
        &["mcp"],
    ] {
        let mut args = args.to_vec();
        args.push("--help");
        let text = help(&args);
        // The broken form: a sentence ends, and the next line goes on with
        // `and …` as if it had not.
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.windows(2) {
            assert!(
                !(pair[0].ends_with('.') && pair[1].starts_with("and ")),
                "{args:?}: {pair:?} goes on after its sentence ended\n{text}"
            );
        }
    }
}

#[test]
fn values_modes() {
    let input = br#"{"a": 1} {"b": 2}"#;
    for stream in [false, true] {
        let with = |values: &str| {
            let mut args = vec!["repair", "--values", values];
            if stream {
                args.push("--stream");
            }
            run(&args, input)
        };
        assert_ok(&with("first"), r#"{"a": 1}"#);
        assert_ok(&with("lines"), "{\"a\": 1}\n{\"b\": 2}");
        assert_ok(&with("array"), r#"[{"a": 1}, {"b": 2}]"#);
    }
    assert_ok(
        &run(&["repair", "--values", "array"], b"{a: 1}\n[2]"),
        "[{\"a\": 1},\n[2]]",
    );
}

/// A 2 MB tool-call stream with a fix in every line and multi-byte text.
fn big_input() -> Vec<u8> {
    let mut input = b"Here you go:\n```json\n[".to_vec();
    let mut i = 0;
    while input.len() < 2_000_000 {
        let line = format!(
            "{{'id': {i}, name: 'item \u{e9}\u{1F600} {i}', ok: True, tags: ['a', \"b\",], note: \"two\nlines\"}}, // c\n"
        );
        input.extend_from_slice(line.as_bytes());
        i += 1;
    }
    input.extend_from_slice(b"{'id': 'cut off mid-str");
    input
}

#[test]
fn stream_output_equals_one_shot_output() {
    let example = std::fs::read(EXAMPLE).unwrap();
    let big = big_input();
    for input in [
        &example[..],
        &big,
        b"{\"q\": \"\xff\", \xe2\x80\x9cb\xe2\x80\x9d: 1}",
    ] {
        for values in ["first", "lines", "array"] {
            let whole = run(&["repair", "--values", values], input);
            let streamed = run(&["repair", "--values", values, "--stream"], input);
            assert_eq!(code(&whole), 0);
            assert_eq!(code(&streamed), 0);
            assert!(
                whole.stdout == streamed.stdout,
                "--stream differs with --values {values}"
            );
        }
    }
    let whole = run(&["repair", "--fixes"], &big);
    let output: serde_json::Value = serde_json::from_slice(&whole.stdout).unwrap();
    assert_eq!(
        output.as_array().unwrap().last().unwrap()["id"],
        "cut off mid-str"
    );
}

#[test]
fn whole_mode_matches_the_library_on_input_of_many_reads() {
    // The default mode feeds its reads to one repairer (it does not hold the
    // input or the fix log); text, verdict and fixes are the one-shot ones.
    let big = big_input();
    let outcome = argmend::repair(&big);
    let output = run(&["repair", "--fixes"], &big);
    assert_eq!(code(&output), 0);
    assert!(output.stdout == outcome.text().as_bytes());
    let fixes: Vec<serde_json::Value> = stderr(&output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(fixes.len(), outcome.fixes().len());
    for (line, fix) in fixes.iter().zip(outcome.fixes()) {
        assert_eq!(line["kind"], fix.kind.name());
        assert_eq!(line["offset"], fix.offset);
    }
}

#[test]
fn whole_mode_writes_nothing_when_a_limit_stops_it_midway() {
    // Well past the first read (64 KiB), then too deep.
    let mut input = b"[".to_vec();
    while input.len() < 300_000 {
        input.extend_from_slice(b"'abc', ");
    }
    input.extend_from_slice(&[b'['; 600]);
    let whole = run(&["repair"], &input);
    assert_eq!(code(&whole), 1);
    assert_eq!(stdout(&whole), "");
    let streamed = run(&["repair", "--stream"], &input);
    assert_eq!(code(&streamed), 1);
    assert!(
        streamed.stdout.len() > 100_000,
        "--stream keeps what it wrote"
    );
}

#[test]
fn whole_mode_of_input_valid_over_its_first_read_matches_stream_and_library() {
    // No fix settles in the first read (64 KiB), so whole mode reads the
    // rest into one buffer and repairs it in one shot: valid JSON handed
    // back as it is, a late fault mended, a late limit writing nothing,
    // each as the reads fed one by one (`--stream`) and the library give.
    let mut valid = b"[".to_vec();
    while valid.len() < 300_000 {
        valid.extend_from_slice(b"{\"a\": \"abc \\u00e9\", \"n\": [1, -2.5e3, true, null]},\n");
    }
    valid.extend_from_slice(b"{}]");
    let mut late = valid[..valid.len() - 3].to_vec();
    late.extend_from_slice(b"{'b': 1,}, // c\n");
    for input in [&valid, &late] {
        let outcome = argmend::repair(input);
        let whole = run(&["repair", "--fixes"], input);
        let streamed = run(&["repair", "--fixes", "--stream"], input);
        assert_eq!(code(&whole), 0);
        assert!(whole.stdout == outcome.text().as_bytes());
        assert!(whole.stdout == streamed.stdout);
        assert_eq!(stderr(&whole), stderr(&streamed));
        assert_eq!(stderr(&whole).lines().count(), outcome.fixes().len());
    }
    assert!(run(&["repair"], &valid).stdout == valid);
    let mut deep = valid[..valid.len() - 3].to_vec();
    deep.extend_from_slice(&[b'['; 600]);
    let whole = run(&["repair"], &deep);
    assert_eq!(code(&whole), 1);
    assert_eq!(stdout(&whole), "");
    assert_eq!(stderr(&whole), stderr(&run(&["repair", "--stream"], &deep)));
}

/// Reads from `child`'s stdout in a thread; `None` if nothing came in time.
fn read_some(child: &mut Child, want: usize) -> Option<String> {
    let mut out = child.stdout.take().unwrap();
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        let mut got = Vec::new();
        let mut buf = [0; 256];
        while got.len() < want {
            match out.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
        let _ = send.send(String::from_utf8(got).unwrap());
    });
    receive.recv_timeout(Duration::from_secs(20)).ok()
}

#[test]
fn stream_writes_each_piece_before_the_input_ends() {
    let mut child = spawn(&["repair", "--stream"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"{'city': 'Paris', temp: 21,").unwrap();
    stdin.flush().unwrap();
    // The input is still open: what came out was flushed as it was committed.
    assert_eq!(
        read_some(&mut child, 27).as_deref(),
        Some(r#"{"city": "Paris", "temp": 21"#)
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn batch_answers_each_line_before_the_next_arrives() {
    let mut child = spawn(&["repair", "--batch"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"\"[1,]\"\n").unwrap();
    stdin.flush().unwrap();
    let line = "{\"json\":[1],\"verdict\":\"repaired\",\"fixes\":[{\"kind\":\"removed_comma\",\"offset\":2}]}\n";
    assert_eq!(read_some(&mut child, line.len()).as_deref(), Some(line));
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    let big = big_input();
    for mode in ["--values=first", "--stream"] {
        let mut child = spawn(&["repair", mode]);
        drop(child.stdout.take()); // nobody reads: the first write gets EPIPE
        let mut stdin = child.stdin.take().unwrap();
        let input = big.clone();
        let writer = thread::spawn(move || drop(stdin.write_all(&input)));
        let output = child.wait_with_output().unwrap();
        writer.join().unwrap();
        assert_eq!(code(&output), 0, "{mode}: {}", stderr(&output));
        assert_eq!(stderr(&output), "", "{mode}");
    }
}

const BATCH_IN: &str = r#""{'a': 1,}"
{"input": "{\"z\": [1, 2.50, 1e3],\n \"a\": null}"}
{"chunks": ["{'city': 'Par", "is', temp: 21,", " tags: [\"x\""]}

not json
[1, 2]
{"input": 1}
{"input": "x", "id": 7}
{"chunks": ["a", 2]}
"// only a comment"
"[[[1]]]"
"#;

const BATCH_OUT: &str = r#"{"json":{"a":1},"verdict":"repaired","fixes":[{"kind":"replaced_quotes","offset":1},{"kind":"removed_comma","offset":7}]}
{"json":{"z":[1,2.50,1e3],"a":null},"verdict":"valid","fixes":[]}
{"json":{"city":"Paris","temp":21,"tags":["x"]},"verdict":"repaired","fixes":[{"kind":"replaced_quotes","offset":1},{"kind":"replaced_quotes","offset":9},{"kind":"quoted_key","offset":18},{"kind":"quoted_key","offset":28},{"kind":"closed_container","offset":38},{"kind":"closed_container","offset":38}]}
{"error":"line 4: empty line"}
{"error":"line 5: not JSON: expected ident at line 1 column 2"}
{"error":"line 6: expected a JSON string, {\"input\": \"…\"} or {\"chunks\": [\"…\", …]}"}
{"error":"line 7: \"input\" must be a string"}
{"error":"line 8: unknown key \"id\"; expected a JSON string, {\"input\": \"…\"} or {\"chunks\": [\"…\", …]}"}
{"error":"line 9: \"chunks\" must be an array of strings"}
{"json":null,"verdict":"not_json","fixes":[{"kind":"removed_comment","offset":0}]}
{"error":"line 11: nesting deeper than 2 levels at byte 2"}
"#;

#[test]
fn batch_all_shapes_and_bad_lines() {
    // Key order and number spelling survive; every input line gets its line.
    assert_ok(
        &run(
            &["repair", "--batch", "--max-depth", "2"],
            BATCH_IN.as_bytes(),
        ),
        BATCH_OUT,
    );
    // From a file, with CRLF line ends.
    let path = std::env::temp_dir().join(format!("argmend-cli-{}.jsonl", std::process::id()));
    std::fs::write(&path, BATCH_IN.replace('\n', "\r\n")).unwrap();
    let output = run(
        &["repair", "--batch", "--max-depth=2", path.to_str().unwrap()],
        b"",
    );
    std::fs::remove_file(&path).unwrap();
    assert_ok(&output, BATCH_OUT);
    // --values array wraps each line's values.
    assert_ok(
        &run(
            &["repair", "--batch", "--values", "array"],
            b"\"[1] {\\\"a\\\": 2}\"\n",
        ),
        "{\"json\":[[1],{\"a\":2}],\"verdict\":\"valid\",\"fixes\":[]}\n",
    );
}

#[test]
fn batch_snapshots_give_one_delta_and_snapshot_per_chunk() {
    // (The top-level value's last closer is committed at the end: what
    // follows a run of closers decides which containers it closes, and
    // `{a: 1}` alone leaves it to the end of the input. The snapshot shows it.)
    let input = br#"{"chunks": ["{'city': 'Par", "is', temp: 21,", " tags: [\"x\""]}
"{a: 1}"
{"chunks": []}
"#;
    let expected = r#"{"json":{"city":"Paris","temp":21,"tags":["x"]},"verdict":"repaired","fixes":[{"kind":"replaced_quotes","offset":1},{"kind":"replaced_quotes","offset":9},{"kind":"quoted_key","offset":18},{"kind":"quoted_key","offset":28},{"kind":"closed_container","offset":38},{"kind":"closed_container","offset":38}],"deltas":["{\"city\": \"Par","is\", \"temp\": 21",", \"tags\": [\"x"],"snapshots":["{\"city\": \"Par\"}","{\"city\": \"Paris\", \"temp\": 21}","{\"city\": \"Paris\", \"temp\": 21, \"tags\": [\"x\"]}"]}
{"json":{"a":1},"verdict":"repaired","fixes":[{"kind":"quoted_key","offset":1}],"deltas":["{\"a\": 1"],"snapshots":["{\"a\": 1}"]}
{"json":null,"verdict":"not_json","fixes":[],"deltas":[],"snapshots":[]}
"#;
    assert_ok(&run(&["repair", "--batch", "--snapshots"], input), expected);

    // Shape on a longer stream: every snapshot parses and starts with all deltas so far.
    let text: String = (0..40)
        .map(|i| format!("{{'k{i}': [{i}, 'v{i}'], "))
        .collect();
    let chunks: Vec<String> = text
        .as_bytes()
        .chunks(7)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect();
    let line = format!("{}\n", serde_json::json!({ "chunks": chunks }));
    let output = run(&["repair", "--batch", "--snapshots"], line.as_bytes());
    assert_eq!(code(&output), 0);
    let answer: serde_json::Value = serde_json::from_str(stdout(&output)).unwrap();
    let deltas = answer["deltas"].as_array().unwrap();
    let snapshots = answer["snapshots"].as_array().unwrap();
    assert_eq!(deltas.len(), chunks.len());
    assert_eq!(snapshots.len(), chunks.len());
    let mut committed = String::new();
    for (delta, snapshot) in deltas.iter().zip(snapshots) {
        committed.push_str(delta.as_str().unwrap());
        let snapshot = snapshot.as_str().unwrap();
        assert!(
            snapshot.starts_with(&committed),
            "{snapshot:?} / {committed:?}"
        );
        serde_json::from_str::<serde_json::Value>(snapshot).unwrap();
    }
    assert_eq!(answer["verdict"], "repaired");
}

/// `{"a": "x"} note: "done"`: the text after the value holds a quote, so the
/// value may have ended too early (an `early_close` doubt at byte 11).
const DOUBTFUL: &[u8] = br#"{"a": "x"} note: "done""#;

const DOUBT_REASON: &str =
    "a closer after a quote ended the value early, and the text after it was dropped";

#[test]
fn fixes_log_has_a_line_per_doubt_after_the_fixes() {
    let log = format!(
        "{{\"kind\":\"removed_trailing_text\",\"offset\":11}}\n\
         {{\"doubt\":\"early_close\",\"offset\":11,\"reason\":\"{DOUBT_REASON}\"}}\n"
    );
    for args in [
        &["repair", "--fixes"][..],
        &["repair", "--fixes", "--stream"],
    ] {
        let output = run(args, DOUBTFUL);
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(stdout(&output)).unwrap(),
            serde_json::json!({"a": "x"}),
            "{args:?}"
        );
        assert_eq!(stderr(&output), log, "{args:?}");
        // A doubt changes neither the verdict nor the exit code.
        assert_eq!(code(&output), 0, "{args:?}");
        // Without --fixes, nothing on stderr.
        let quiet: Vec<&str> = args.iter().copied().filter(|a| *a != "--fixes").collect();
        assert_eq!(stderr(&run(&quiet, DOUBTFUL)), "", "{quiet:?}");
    }
    // The tool-aware path writes them too.
    let output = run(&["repair", "--tool", "read_file", "--fixes"], DOUBTFUL);
    assert!(
        stderr(&output).ends_with(&format!(
            "{{\"doubt\":\"early_close\",\"offset\":11,\"reason\":\"{DOUBT_REASON}\"}}\n"
        )),
        "{}",
        stderr(&output)
    );
    let help = run(&["repair", "--help"], b"");
    assert!(stdout(&help).contains(r#"{"doubt":"early_close","offset":11,"reason":"…"}"#));
}

#[test]
fn batch_lines_have_a_doubt_member_only_when_there_is_one() {
    let input = format!(
        "{}\n\"{{a: 1}}\"\n{}\n{}\n",
        serde_json::Value::from(std::str::from_utf8(DOUBTFUL).unwrap()),
        serde_json::json!({"chunks": ["{\"a\": \"x\"} no", "te: \"done\""]}),
        serde_json::json!({"input": std::str::from_utf8(DOUBTFUL).unwrap(), "tool": "read_file"}),
    );
    let doubt =
        format!(r#""doubt":[{{"kind":"early_close","offset":11,"reason":"{DOUBT_REASON}"}}]"#);
    let expected = format!(
        r#"{{"json":{{"a":"x"}},"verdict":"repaired","fixes":[{{"kind":"removed_trailing_text","offset":11}}],{doubt}}}
{{"json":{{"a":1}},"verdict":"repaired","fixes":[{{"kind":"quoted_key","offset":1}}]}}
{{"json":{{"a":"x"}},"verdict":"repaired","fixes":[{{"kind":"removed_trailing_text","offset":11}}],{doubt}}}
{{"json":{{"a":"x"}},"verdict":"repaired","strategy":5,"fixes":[{{"kind":"removed_trailing_text","offset":11}}],{doubt}}}
"#
    );
    assert_ok(&run(&["repair", "--batch"], input.as_bytes()), &expected);
    // With --snapshots the member is there too, before the snapshots.
    let output = run(&["repair", "--batch", "--snapshots"], input.as_bytes());
    let first: serde_json::Value =
        serde_json::from_str(stdout(&output).lines().next().unwrap()).unwrap();
    assert_eq!(first["doubt"][0]["kind"], "early_close");
    let help = stdout(&run(&["repair", "--help"], b"")).to_owned();
    assert!(help.contains("the member is absent"), "{help}");
}

/// Issue 28: `argmend call DIR` said only `argmend: Is a directory (os error
/// 21)` (opening a directory succeeds; the first read fails). Every command
/// that cannot read a file it was given names the file.
#[test]
fn every_file_error_names_the_path() {
    let dir = crate::support::TempDir::new();
    dir.write("a.json", "{\"a\": 1}");
    dir.write(
        "fix.diff",
        "--- a/a.json\n+++ b/a.json\n@@ -1 +1 @@\n-{\"a\": 1}\n+{\"a\": 2}\n",
    );
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let cases: &[&[&str]] = &[
        &["call", "sub"],
        &["call", "absent.txt"],
        &["repair", "sub"],
        &["repair", "absent.txt"],
        &["repair", "--stream", "sub"],
        &["repair", "--batch", "sub"],
        &["repair", "--schema", "sub", "a.json"],
        &["repair", "--schema", "absent.txt", "a.json"],
        &["repair", "--tool", "t", "sub"],
        &["quotes", "sub"],
        &["json", "get", "--file", "sub", "--path", "a"],
        &["json", "get", "--file", "absent.txt", "--path", "a"],
        &["diff", "files", "sub", "a.json"],
        &["diff", "files", "a.json", "absent.txt"],
        &["diff", "json", "sub", "a.json"],
        &["diff", "apply", "a.json", "--patch", "sub"],
        &["diff", "apply", "a.json", "--patch", "absent.txt"],
    ];
    for args in cases {
        let output = Command::new(BIN)
            .args(*args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let said = format!("{}{}", stdout(&output), stderr(&output));
        let named = ["sub", "absent.txt"]
            .iter()
            .find(|name| args.contains(name))
            .unwrap();
        assert!(
            said.contains(&format!("'{named}'")) || said.contains(&format!("`{named}`")),
            "{args:?} does not name {named}: {said}"
        );
        assert_eq!(code(&output), 2, "{args:?}: {said}");
    }
}

/// Issue 28: `--schema FILE` took any JSON file (a data file, a typo'd
/// `type`) and coerced nothing; now the file must be a JSON Schema, and the
/// error names the file and the first keyword that is wrong. Batch lines
/// and MCP's `repair` check their "schema" the same way.
#[test]
fn a_schema_that_is_not_a_json_schema_is_refused() {
    let dir = crate::support::TempDir::new();
    let cases = [
        (
            "[1, 2]",
            "'bad.json' is not a JSON Schema: it is an array [1,2], not an object",
        ),
        (
            r#"{"name": "Ada", "age": 3}"#,
            "'bad.json' is not a JSON Schema: it has none of the JSON Schema keywords (type, \
             properties, required, …); its keys are age, name",
        ),
        (
            r#"{"type": "object", "properties": {"n": {"type": "int"}}}"#,
            "'bad.json' is not a JSON Schema: `type` at #/properties/n must be a type name \
             (string, number, integer, boolean, object, array, null) or a list of them, not \
             \"int\"",
        ),
        (
            r#"{"type": "object", "properties": {"n": 3}}"#,
            "'bad.json' is not a JSON Schema: the schema at #/properties/n must be an object, \
             not 3",
        ),
        (
            r#"{"type": "object", "required": "n"}"#,
            "'bad.json' is not a JSON Schema: `required` must be a list of property names, not \
             \"n\"",
        ),
        (
            r#"{"name": "count", "input_schema": {"properties": {"n": {"minimum": "0"}}}}"#,
            "'bad.json' is not a JSON Schema: in `input_schema`, `minimum` at #/properties/n \
             must be a number, not \"0\"",
        ),
        (
            r#"{"type": "function", "function": {"name": "count", "parameters": "n"}}"#,
            "'bad.json' is not a JSON Schema: `parameters` (the tool's JSON Schema) must be an \
             object, not \"n\"",
        ),
        (
            "{n: 1}",
            "'bad.json' is not a JSON Schema: it is not JSON (key must be a string at line 1 \
             column 2)",
        ),
    ];
    for (schema, message) in cases {
        dir.write("bad.json", schema);
        let output = Command::new(BIN)
            .args(["repair", "--schema", "bad.json"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(stderr(&output), format!("argmend: {message}\n"), "{schema}");
        assert_eq!(stdout(&output), "", "{schema}");
        assert_eq!(code(&output), 2, "{schema}");
    }
    // What a schema may be: empty, a list of types, booleans as schemas, a
    // whole tool definition.
    for schema in [
        "{}",
        r#"{"type": ["integer", "null"], "items": true, "not": false}"#,
        r#"{"type": "function", "function": {"name": "count", "parameters": {"type": "object",
            "properties": {"n": {"type": "integer"}}}}}"#,
        r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Count"}"#,
    ] {
        dir.write("good.json", schema);
        dir.write("in.txt", "{n: '1'}");
        let output = Command::new(BIN)
            .args(["repair", "--schema", "good.json", "in.txt"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(code(&output), 0, "{schema}: {}", stderr(&output));
    }
    let line = r#"{"input": "{}", "schema": {"type": "int"}}"#;
    let output = run(&["repair", "--batch"], format!("{line}\n").as_bytes());
    assert_eq!(
        stdout(&output),
        "{\"error\":\"line 1: \\\"schema\\\" is not a JSON Schema: `type` must be a type name \
         (string, number, integer, boolean, object, array, null) or a list of them, not \
         \\\"int\\\"\"}\n"
    );
    let mut session = crate::mcp::Session::start(&dir, &[]);
    session.send(
        &serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "repair", "arguments": {"text": "{}", "schema": {"type": 7}}}}),
    );
    let answer = session.receive();
    let reason = answer["result"]["structuredContent"]["reason"].as_str();
    assert!(
        reason.is_some_and(|r| r.contains("`schema` is not a JSON Schema: `type` must be")),
        "{answer}"
    );
    assert!(session.finish().0);
}

/// Issue 28: with --schema an empty input gave `{}` and exit 0, and without
/// it exit 1; --schema now changes nothing about an empty input. Without a
/// tool it is not JSON, with a schema or without; with one (--tool, or a
/// tool definition's name) it is a call without arguments, `{}`, with a
/// schema or without (issue 3).
#[test]
fn an_empty_input_fails_with_a_schema_as_without_one() {
    let dir = crate::support::TempDir::new();
    let schema = dir.write("schema.json", r#"{"type": "object"}"#);
    let schema = schema.to_str().unwrap();
    let definition = dir.write(
        "tool.json",
        r#"{"name": "write_file", "input_schema": {"type": "object"}}"#,
    );
    let definition = definition.to_str().unwrap();
    for input in [&b""[..], b"  \n"] {
        for args in [
            &["repair"][..],
            &["repair", "--schema", schema],
            &["repair", "--schema", schema, "--fixes"],
        ] {
            let output = run(args, input);
            assert_eq!(code(&output), 1, "{args:?} {input:?}");
            assert_eq!(stdout(&output), "", "{args:?} {input:?}");
            assert_eq!(
                stderr(&output),
                "argmend: not JSON: no JSON value found in the input\n",
                "{args:?} {input:?}"
            );
        }
        for args in [
            &["repair", "--tool", "write_file"][..],
            &["repair", "--tool", "write_file", "--schema", schema],
            &["repair", "--schema", definition],
        ] {
            assert_ok(&run(args, input), "{}");
        }
    }
    // Batch lines, as --tool and --schema.
    let lines = concat!(
        "{\"input\": \"\"}\n",
        "{\"input\": \"\", \"schema\": {\"type\": \"object\"}}\n",
        "{\"input\": \" \", \"tool\": \"write_file\"}\n",
        "{\"input\": \"\", \"schema\": {\"name\": \"t\", \"input_schema\": {\"type\": \"object\"}}}\n",
    );
    let not_json = "{\"json\":null,\"verdict\":\"not_json\",\"fixes\":[]}\n";
    let call = "{\"json\":{},\"verdict\":\"repaired\",\"strategy\":1,\"fixes\":[{\"kind\":\"empty_arguments\",\"offset\":0}]}\n";
    assert_ok(
        &run(&["repair", "--batch"], lines.as_bytes()),
        &[not_json, not_json, call, call].concat(),
    );
}

/// On a terminal the repaired text ends its line, so the prompt does not
/// start after it (issue 41); on a pipe the output is the JSON alone.
#[test]
fn repair_ends_its_line_on_a_terminal_only() {
    let read_file = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/read_file.txt");
    for args in [
        vec!["repair", EXAMPLE],
        vec!["repair", "--stream", EXAMPLE],
        vec!["repair", "--tool", "read_file", read_file],
    ] {
        let piped = Command::new(BIN).args(&args).output().unwrap();
        assert!(piped.status.success(), "{args:?}");
        assert_ne!(piped.stdout.last(), Some(&b'\n'), "{args:?} on a pipe");
        // util-linux's `script` runs the command on a pseudo-terminal (which
        // writes each `\n` as `\r\n`).
        let line = format!("{BIN} {}", args.join(" "));
        let terminal = Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .stdin(Stdio::null())
            .output()
            .expect("util-linux's `script` runs a command on a terminal");
        assert!(terminal.status.success(), "{args:?}: {terminal:?}");
        let shown = String::from_utf8(terminal.stdout)
            .unwrap()
            .replace("\r\n", "\n");
        let mut expected = String::from_utf8(piped.stdout).unwrap();
        expected.push('\n');
        assert_eq!(shown, expected, "{args:?} on a terminal");
    }
}
