//! Golden tests of `argmend repair --tool NAME [--schema FILE]`, batch lines
//! with `"tool"` and `"schema"`, and `argmend quotes`, through the built binary.

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

pub(super) fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the argmend binary runs");
    let mut pipe = child.stdin.take().expect("stdin is piped");
    // Inputs are small: the write cannot fill the pipe.
    let _ = pipe.write_all(stdin.as_bytes());
    drop(pipe);
    child.wait_with_output().expect("the binary exits")
}

pub(super) fn stdout(output: &Output) -> &str {
    std::str::from_utf8(&output.stdout).expect("UTF-8 stdout")
}

pub(super) fn stderr(output: &Output) -> &str {
    std::str::from_utf8(&output.stderr).expect("UTF-8 stderr")
}

/// A scratch file under the target directory.
pub(super) fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("normalize-cli");
    fs::create_dir_all(&dir).expect("the scratch directory can be made");
    let path = dir.join(name);
    fs::write(&path, text).expect("the scratch file can be written");
    path
}

#[track_caller]
fn assert_tool(tool: &str, input: &str, expected: &str) {
    let output = run(&["repair", "--tool", tool], input);
    assert_eq!(stdout(&output), expected, "{tool} {input:?}");
    assert_eq!(stderr(&output), "", "{tool} {input:?}");
    assert_eq!(output.status.code(), Some(0), "{tool} {input:?}");
}

#[test]
fn every_example_of_the_issue() {
    let cases = [
        (
            "read_file",
            r#"{"cmd":"read","args":{"file":"main.go"}}"#,
            r#"{"cmd":"read","args":{"file":"main.go"}}"#,
        ),
        (
            "read_file",
            "{'cmd':'read','file':'main.go'}",
            r#"{"cmd":"read","file":"main.go"}"#,
        ),
        (
            "read_file",
            r#"{cmd: "read", file: "main.go"}"#,
            r#"{"cmd": "read", "file": "main.go"}"#,
        ),
        (
            "read_file",
            "{cmd: 'read', file: 'main.go'}",
            r#"{"cmd": "read", "file": "main.go"}"#,
        ),
        (
            "read_file",
            r#"{"cmd":"read","file":"main.go",}"#,
            r#"{"cmd":"read","file":"main.go"}"#,
        ),
        ("read_file", "main.go", r#"{"file":"main.go"}"#),
        (
            "read_file",
            "{cmd: read, file: main.go, append: true}",
            r#"{"cmd": "read", "file": "main.go", "append": true}"#,
        ),
        (
            "read_file",
            "{args: {file: x}}",
            r#"{"args": {"file": "x"}}"#,
        ),
        ("read_file", "", "{}"),
        ("read_file", " \n ", "{}"),
        ("read_file", r#""main.go""#, r#""main.go""#),
        (
            "@coder",
            "read --file main.go",
            r#"{"cmd":"read","args":{"file":"main.go"}}"#,
        ),
        ("read_file", "--file main.go", r#"{"file":"main.go"}"#),
        (
            "read_file",
            r#""{\"file\":\"a.go\"}""#,
            r#"{"file":"a.go"}"#,
        ),
        ("run_command", "ls -la", r#"{"cmd":"ls -la"}"#),
        // A command-line tool's value is the whole command line.
        ("run_command", "ls -l", r#"{"cmd":"ls -l"}"#),
        ("READ_FILE", "main.go", r#"{"file":"main.go"}"#),
        ("Read", "main.go", r#"{"file_path":"main.go"}"#),
        ("read", "main.go", r#"{"file":"main.go"}"#),
        (
            "write_file",
            r#"{"file": "main.go", "content": "fmt.Println(“hi”)"}"#,
            r#"{"file": "main.go", "content": "fmt.Println(\"hi\")"}"#,
        ),
        (
            "write_file",
            r#"{"file": "a.md", "content": "“hi”"}"#,
            r#"{"file": "a.md", "content": "“hi”"}"#,
        ),
    ];
    for (tool, input, expected) in cases {
        assert_tool(tool, input, expected);
    }
}

#[test]
fn not_json_exits_1_with_the_input_on_stdout() {
    for (tool, input, reason) in [
        (
            "@coder",
            "read --file 'main.go",
            "unbalanced single quote at byte 12",
        ),
        // What a command-line user can do about it: give a schema.
        (
            "unknown_tool",
            "just some words",
            "has no primary field to put it in (a schema names one",
        ),
    ] {
        let output = run(&["repair", "--tool", tool], input);
        assert_eq!(stdout(&output), input);
        assert!(
            stderr(&output).starts_with("argmend: not JSON: "),
            "{}",
            stderr(&output)
        );
        assert!(stderr(&output).contains(reason), "{}", stderr(&output));
        assert_eq!(output.status.code(), Some(1));
    }
}

#[test]
fn fixes_go_to_stderr() {
    let output = run(&["repair", "--tool", "read_file", "--fixes"], "  main.go");
    assert_eq!(stdout(&output), r#"{"file":"main.go"}"#);
    assert_eq!(
        stderr(&output),
        "{\"kind\":\"wrapped_value\",\"offset\":2}\n"
    );
    let stream = run(
        &["repair", "--tool", "read_file", "--stream"],
        "{file: 'a'}",
    );
    assert_eq!(stdout(&stream), r#"{"file": "a"}"#);
}

#[test]
fn schema_files_and_tool_definitions() {
    let schema = r#"{"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array"},"limit":{"type":"integer","default":10}}}"#;
    let bare = scratch("schema.json", schema);
    let openai = scratch(
        "openai.json",
        &format!(r#"{{"type":"function","function":{{"name":"count","parameters":{schema}}}}}"#),
    );
    let anthropic = scratch(
        "anthropic.json",
        &format!(r#"{{"name":"count","input_schema":{schema}}}"#),
    );
    let input = r#"{"n": "5", "tags": "a", "x": 1}"#;
    let expected = r#"{"n": 5, "tags": ["a"], "x": 1}"#;
    for file in [&bare, &openai, &anthropic] {
        let path = file.to_str().expect("a UTF-8 path");
        let output = run(&["repair", "--tool", "count", "--schema", path], input);
        assert_eq!(stdout(&output), expected);
        assert_eq!(output.status.code(), Some(0));
        // A definition's name stands for --tool; a bare schema needs none.
        let output = run(&["repair", "--schema", path], input);
        assert_eq!(stdout(&output), expected);
    }
    let path = bare.to_str().expect("a UTF-8 path");
    let strict = run(&["repair", "--schema", path, "--strict"], input);
    assert_eq!(stdout(&strict), r#"{"n": 5, "tags": ["a"]}"#);
    let missing = run(&["repair", "--schema", "/nonexistent/schema.json"], "{}");
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("cannot read"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn batch_lines_with_tool_and_schema() {
    let input = concat!(
        r#"{"input": "main.go", "tool": "read_file"}"#,
        "\n",
        r#"{"chunks": ["read --fi", "le main.go"], "tool": "@coder"}"#,
        "\n",
        r#"{"input": "{n: '5'}", "schema": {"properties": {"n": {"type": "integer"}}, "required": ["n", "m"]}}"#,
        "\n",
        r#"{"input": "plain", "tool": "nope"}"#,
        "\n",
        r#"{"input": "x", "tool": 3}"#,
        "\n",
        r#"{"input": "{a:1}"}"#,
        "\n",
    );
    let expected = concat!(
        r#"{"json":{"file":"main.go"},"verdict":"repaired","strategy":6,"fixes":[{"kind":"wrapped_value","offset":0}]}"#,
        "\n",
        r#"{"json":{"cmd":"read","args":{"file":"main.go"}},"verdict":"repaired","strategy":6,"fixes":[{"kind":"parsed_command_line","offset":0}]}"#,
        "\n",
        r#"{"json":{"n":5},"verdict":"repaired","strategy":4,"fixes":[{"kind":"quoted_key","offset":1},{"kind":"replaced_quotes","offset":4},{"kind":"coerced_number","offset":4}],"violations":["$: missing required property `m`"]}"#,
        "\n",
        r#"{"json":null,"verdict":"not_json","strategy":null,"fixes":[]}"#,
        "\n",
        r#"{"error":"line 5: \"tool\" must be a string"}"#,
        "\n",
        r#"{"json":{"a":1},"verdict":"repaired","fixes":[{"kind":"quoted_key","offset":1}]}"#,
        "\n",
    );
    let output = run(&["repair", "--batch"], input);
    assert_eq!(stdout(&output), expected);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn quotes_prints_or_checks() {
    let code = scratch("main.go", "s := “hi” + ‘x’\n");
    let prose = scratch("notes.md", "“hi”\n");
    let code = code.to_str().expect("a UTF-8 path");
    let prose = prose.to_str().expect("a UTF-8 path");

    let output = run(&["quotes", code], "");
    assert_eq!(stdout(&output), "s := \"hi\" + 'x'\n");
    assert_eq!(output.status.code(), Some(0));

    let output = run(&["quotes", "--check", code], "");
    let lines: Vec<String> = [
        (5, "“", "\""),
        (10, "”", "\""),
        (16, "‘", "'"),
        (20, "’", "'"),
    ]
    .iter()
    .map(|(at, was, now)| format!("{code}:byte {at}: {was} → {now}\n"))
    .collect();
    assert_eq!(stdout(&output), lines.concat());
    assert_eq!(output.status.code(), Some(1));

    let output = run(&["quotes", prose], "");
    assert_eq!(stdout(&output), "“hi”\n");
    let output = run(&["quotes", "--check", prose], "");
    assert_eq!(stdout(&output), "");
    assert_eq!(output.status.code(), Some(0));

    let output = run(&["quotes", "/nonexistent/x.go"], "");
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot read"));
}
