//! `argmend mcp`: driven by a real MCP client (the official Python SDK, in
//! the virtual environment `scripts/test` makes) and by raw JSON-RPC lines.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::TempDir;

/// What to do when the MCP client is missing.
const MAKE_THE_VENV: &str = "run scripts/test, which makes it; by hand: \
    python3 -m venv target/mcp-venv && \
    target/mcp-venv/bin/pip install -r tests/mcp/requirements.txt \
    (or set ARGMEND_MCP_PYTHON to a Python that has `mcp`)";

/// The Python that has the `mcp` package: `ARGMEND_MCP_PYTHON`, else the
/// virtual environment `scripts/test` installs it in (under `target/`, so it
/// is never committed).
pub(crate) fn client_python() -> PathBuf {
    let python = std::env::var_os("ARGMEND_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/mcp-venv/bin/python")
        });
    assert!(
        python.exists(),
        "the MCP client test needs {}, which is missing: {MAKE_THE_VENV}",
        python.display()
    );
    python
}

fn workspace() -> TempDir {
    let dir = TempDir::new();
    dir.write(
        "data.json",
        r#"{"items":[{"id":1,"name":"alpha"},{"id":2,"name":"beta"}]}"#,
    );
    dir.write("app.py", "x = 0\ny = 2\n");
    dir
}

/// Ignored by plain `cargo test`, with the reason in its summary, because it
/// needs the SDK; `scripts/test` installs it and runs this with
/// `--include-ignored`. Run without the SDK, it fails and says how to install
/// it: it never passes without a session.
#[test]
#[ignore = "needs the MCP Python SDK in target/mcp-venv: run scripts/test"]
fn python_sdk_client_session() {
    let python = client_python();
    let dir = workspace();
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let output = Command::new(&python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_argmend"))
        .arg(dir.path())
        .output()
        .expect("run the MCP client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the client failed (if `mcp` cannot be imported: {MAKE_THE_VENV}):\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let steps: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let names: Vec<&str> = steps.iter().filter_map(|s| s["step"].as_str()).collect();
    assert_eq!(
        names,
        [
            "initialize",
            "list_tools",
            "json_get",
            "diff_refused",
            "json_malformed",
            "json_command_line",
            "repair",
            "repair_tool",
            "outside_workspace"
        ]
    );
    // The file was only checked, never written.
    assert_eq!(dir.read("app.py"), b"x = 0\ny = 2\n");
}

/// A session of raw JSON-RPC lines: what any client sends, no SDK needed.
#[test]
fn raw_json_rpc_session() {
    let dir = workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_argmend"))
        .args(["mcp", "--workspace"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut send = move |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    let mut receive = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    };

    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    let init = receive();
    assert_eq!(init["result"]["serverInfo"]["name"], "argmend", "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let listed = receive();
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["json", "diff", "repair"]);
    // The schema lists every verb the tool dispatches.
    assert_eq!(
        tools[1]["inputSchema"]["properties"]["cmd"]["enum"],
        json!(["files", "text", "dirs", "apply", "json"])
    );
    // The schemas say what is accepted: `args` as an object or a string,
    // only `cmd` always required, each verb's own required arguments.
    let json_schema = &tools[0]["inputSchema"];
    assert_eq!(
        json_schema["properties"]["args"]["type"],
        json!(["object", "string"])
    );
    assert_eq!(json_schema["required"], json!(["cmd"]));
    let get_rule = json_schema["allOf"]
        .as_array()
        .unwrap()
        .iter()
        .find(|rule| rule["if"]["properties"]["cmd"]["const"] == "get")
        .unwrap();
    assert_eq!(
        get_rule["then"]["properties"]["args"]["required"],
        json!(["path"])
    );
    assert_eq!(
        get_rule["then"]["properties"]["args"]["anyOf"],
        json!([{"required": ["file"]}, {"required": ["text"]}])
    );
    let apply_rule = &tools[1]["inputSchema"]["allOf"][3];
    assert_eq!(
        apply_rule["then"]["properties"]["args"]["required"],
        json!(["file", "patch"])
    );
    // Each tool says what its structured content holds.
    for tool in tools {
        assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
    }
    assert_eq!(
        tools[0]["outputSchema"]["required"],
        json!(["ok", "output", "repairs"])
    );

    // `args` as a command line: parsed, run, and the repair reported.
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "json", "arguments": {"cmd": "get", "args": "--file data.json --path items[0].name"}}}),
    );
    let got = receive();
    assert_eq!(got["id"], 3);
    assert_eq!(got["result"]["content"][0]["text"], "\"alpha\"\n", "{got}");
    assert_eq!(
        got["result"]["structuredContent"]["repairs"]["fixes"][0]["kind"],
        "parsed_command_line"
    );

    // A verb the tool does not have: a tool error that lists the verbs.
    send(
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "diff", "arguments": {"cmd": "merge", "args": {}}}}),
    );
    let wrong = receive();
    assert_eq!(wrong["result"]["isError"], true, "{wrong}");
    let message = wrong["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        message.contains("files, text, dirs, apply and json"),
        "{message}"
    );

    // A text that holds no JSON at all.
    send(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "repair", "arguments": {"text": "  "}}}),
    );
    let none = receive();
    assert_eq!(none["result"]["isError"], true, "{none}");
    assert_eq!(none["result"]["structuredContent"]["verdict"], "not_json");

    // Text the engine could read two ways: mended all the same, with the
    // doubt beside the fixes (absent when there is none, as in id 3).
    assert_eq!(
        got["result"]["structuredContent"]["repairs"].get("doubt"),
        None
    );
    let early_close = json!([{"kind": "early_close", "offset": 11,
        "reason": "a closer after a quote ended the value early, and the text after it was dropped"}]);
    for (id, arguments) in [
        (6, json!({"text": r#"{"a": "x"} note: "done""#})),
        (
            7,
            json!({"text": r#"{"a": "x"} note: "done""#, "tool": "write_file"}),
        ),
    ] {
        send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "repair", "arguments": arguments}}),
        );
        let mended = receive();
        let structured = &mended["result"]["structuredContent"];
        assert_eq!(structured["verdict"], "repaired", "{mended}");
        assert_eq!(structured["doubt"], early_close, "{mended}");
    }
    // An envelope whose `args` is a string of JSON with a doubt: the doubt
    // points at the `args` member that held it.
    let envelope = r#"{"file": "data.json", "path": "items[0].name"} note: "x""#;
    send(
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "json", "arguments": {"cmd": "get", "args": envelope}}}),
    );
    let got = receive();
    assert_eq!(got["result"]["content"][0]["text"], "\"alpha\"\n", "{got}");
    let doubt = &got["result"]["structuredContent"]["repairs"]["doubt"];
    assert_eq!(doubt[0]["kind"], "early_close", "{got}");
    assert_eq!(doubt[0]["offset"], 1, "{got}"); // `{"args":…,"cmd":"get"}`
    // An envelope whose `args` is a string of broken JSON: the repairs inside
    // it are reported beside the unwrapping (issue 41).
    send(
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "json", "arguments": {"cmd": "get", "args": "{file: 'data.json', path: 'items[1].name',}"}}}),
    );
    let got = receive();
    assert_eq!(got["result"]["content"][0]["text"], "\"beta\"\n", "{got}");
    let kinds: Vec<&str> = got["result"]["structuredContent"]["repairs"]["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|fix| fix["kind"].as_str().unwrap())
        .collect();
    for kind in [
        "unwrapped_string",
        "quoted_key",
        "replaced_quotes",
        "removed_comma",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing: {got}");
    }
    // The output schema describes the member.
    assert_eq!(
        tools[2]["outputSchema"]["properties"]["doubt"]["type"],
        "array"
    );

    drop(send);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// The schemas shown to clients name exactly the arguments each verb takes:
/// every example call in them runs past argument checking.
#[test]
fn schema_examples_are_accepted_by_the_tools() {
    let dir = workspace();
    let workspace = dir.workspace();
    for (tool, schema) in [
        ("json", argmend::tools::json::input_schema()),
        ("diff", argmend::tools::diff::input_schema()),
    ] {
        let verbs = schema["properties"]["cmd"]["enum"].as_array().unwrap();
        let examples = schema["examples"].as_array().unwrap();
        assert_eq!(verbs.len(), examples.len(), "{tool}: one example per verb");
        let params = schema["properties"]["args"]["properties"]
            .as_object()
            .unwrap();
        for example in examples {
            for key in example["args"].as_object().unwrap().keys() {
                assert!(
                    params.contains_key(key),
                    "{tool}: `{key}` not in the schema"
                );
            }
            let text = example.to_string();
            let message = match tool {
                "json" => argmend::tools::json::call(&workspace, &text)
                    .err()
                    .map(|e| e.to_string()),
                _ => argmend::tools::diff::call(&workspace, &text)
                    .err()
                    .map(|e| e.to_string()),
            }
            .unwrap_or_default();
            // The example's files do not exist here; its arguments must be fine.
            assert!(
                !message.contains("unknown argument") && !message.contains("unknown verb"),
                "{tool}: {text}: {message}"
            );
        }
    }
}

/// A raw JSON-RPC session with `argmend mcp`, initialized.
pub(crate) struct Session {
    pub(crate) child: std::process::Child,
    pub(crate) stdin: std::process::ChildStdin,
    pub(crate) stdout: BufReader<std::process::ChildStdout>,
}

impl Session {
    /// Start `argmend mcp` in `dir` with `args` before `--workspace`, and
    /// initialize it.
    pub(crate) fn start(dir: &TempDir, args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_argmend"))
            .arg("mcp")
            .args(args)
            .arg("--workspace")
            .arg(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut session = Session {
            child,
            stdin,
            stdout,
        };
        session.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        );
        assert_eq!(session.receive()["id"], 1);
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    pub(crate) fn send(&mut self, message: &Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// One line as given (it need not be JSON, nor UTF-8).
    pub(crate) fn send_raw(&mut self, line: &[u8]) {
        self.stdin.write_all(line).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    pub(crate) fn receive(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }

    /// Close stdin and wait: whether it exited 0, and its stderr.
    pub(crate) fn finish(self) -> (bool, String) {
        drop(self.stdin);
        let output = self.child.wait_with_output().unwrap();
        (
            output.status.success(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

/// Issue 14: every request with an id gets exactly one response, whatever
/// the line holds; the limits hold for `repair` too; messages over MCP name
/// the tools as MCP does.
#[test]
fn every_request_with_an_id_is_answered() {
    let dir = workspace();
    let mut session = Session::start(&dir, &["--max-output", "2000"]);
    // Each bad line, alone, and the answer it must get.
    let cases: Vec<(Vec<u8>, Value, i64)> = vec![
        (b"{\"jsonrpc\": \"2.0\", \"id\": 10, \"method\": ".to_vec(), json!(10), -32700),
        (b"not json at all".to_vec(), Value::Null, -32700),
        (b"{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/list\",\"x\":\"\xff\"}".to_vec(), json!(11), -32700),
        (br#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"json","arguments":{"text":"\ud800"}}}"#.to_vec(), json!(12), -32700),
        (br#"{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"arguments":{}}}"#.to_vec(), json!(13), -32602),
        (br#"{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"json","arguments":"get"}}"#.to_vec(), json!(14), -32602),
    ];
    for (line, id, code) in cases {
        session.send_raw(&line);
        let answer = session.receive();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], code, "{answer}");
    }
    // Over 16 MiB (rmcp's own limit) and under argmend's: answered.
    let text = format!("[\"{}\"]", "x".repeat(17 << 20));
    let big = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {
        "name": "json", "arguments": {"cmd": "validate", "args": {"text": text}}}});
    session.send_raw(big.to_string().as_bytes());
    let answer = session.receive();
    assert_eq!(answer["id"], 20);
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("valid JSON"),
        "{}",
        &answer.to_string()[..200]
    );
    // Over argmend's limit: an error that says the limit.
    let huge = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"tools/call\",\"params\":{{\"name\":\"repair\",\"arguments\":{{\"text\":\"{}\"}}}}}}",
        "y".repeat(65 << 20)
    );
    session.send_raw(huge.to_string().as_bytes());
    let answer = session.receive();
    assert_eq!(answer["id"], 21);
    assert_eq!(answer["error"]["code"], -32600);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("64 MiB"),
        "{answer}"
    );
    // `repair` obeys --max-output, and does not send the JSON twice.
    let long = format!("[{}]", vec!["'abc'"; 1000].join(","));
    let call = json!({"jsonrpc": "2.0", "id": 22, "method": "tools/call", "params": {
        "name": "repair", "arguments": {"text": long}}});
    session.send_raw(call.to_string().as_bytes());
    let answer = session.receive();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("--max-output of 2000"),
        "{answer}"
    );
    let call = json!({"jsonrpc": "2.0", "id": 23, "method": "tools/call", "params": {
        "name": "repair", "arguments": {"text": "{a: 1}"}}});
    session.send_raw(call.to_string().as_bytes());
    let answer = session.receive();
    assert_eq!(answer["result"]["content"][0]["text"], "{\"a\": 1}");
    assert!(
        answer["result"]["structuredContent"].get("json").is_none(),
        "{answer}"
    );
    // Messages say `json`, the name the client called.
    let call = json!({"jsonrpc": "2.0", "id": 24, "method": "tools/call", "params": {
        "name": "json", "arguments": {"cmd": "get", "args": "--file"}}});
    session.send_raw(call.to_string().as_bytes());
    let answer = session.receive();
    assert!(!answer.to_string().contains("@json"), "{answer}");
    let (ok, log) = session.finish();
    assert!(ok);
    assert!(log.contains("argmend mcp: workspace "), "{log}");
}

#[test]
fn the_root_directory_is_refused_as_a_workspace() {
    for command in ["mcp", "serve"] {
        let output = Command::new(env!("CARGO_BIN_EXE_argmend"))
            .args([command, "--workspace", "/"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{command}");
        let log = String::from_utf8_lossy(&output.stderr);
        assert!(
            log.contains("refusing `/` as the workspace"),
            "{command}: {log}"
        );
    }
}

/// `repair` obeys `--timeout-ms` like the other tools.
#[test]
fn repair_obeys_the_time_limit() {
    let dir = workspace();
    let mut session = Session::start(&dir, &["--timeout-ms", "1"]);
    let text = format!("[{}]", vec!["{a: 'x', b: [1, 2,],}"; 200_000].join(","));
    session.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "repair", "arguments": {"text": text}}}),
    );
    let answer = session.receive();
    assert_eq!(answer["id"], 2);
    assert_eq!(answer["result"]["isError"], true);
    let message = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("--timeout-ms of 1 ms"), "{message}");
    session.finish();
}
