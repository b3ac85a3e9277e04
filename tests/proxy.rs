//! `argmend proxy` (issue 44), on loopback, in front of an upstream that
//! replays recorded responses (`proxy/upstream.rs`): argmend's own
//! recordings (`corpus/model_streams/openai_chat.jsonl`), the SDKs'
//! recordings in `../shared/model_streams/sdk/openai_chat/` (skipped with
//! its line when absent), and content streams in the open-weight formats
//! `CallParser` reads.
//!
//! Every case runs streamed and not, through a client in this file (plain
//! `cargo test`), the official OpenAI Python SDK (`proxy/client.py`, in
//! `target/py-venv`) and openai-node (`proxy/client.mjs`, from js/'s
//! devDependencies); the last two need what `scripts/test` installs, so
//! plain `cargo test` lists them as ignored, as `tests/python.rs` does. Each
//! call's arguments must parse to the truth, `content` must keep only the
//! text, and cut calls must say so in the `argmend` field. Then: an
//! upstream error, an upstream out of reach, a client that goes away
//! mid-stream (the upstream's connection closes), a slow upstream, 200
//! streams at once (the proxy's peak memory, VmHWM), and the paths that
//! pass through unchanged with the client's `Authorization`.

mod example;
mod limits;
mod upstream;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use self::upstream::{Script, Upstream, chunks_of_sse};

/// One request and what must come back.
struct Case {
    name: String,
    /// The model name, which tells the upstream what to replay.
    model: String,
    tools: Value,
    /// The content once the calls are lifted out, trimmed; `None`: not checked.
    content: Option<String>,
    calls: Vec<Truth>,
    finish: String,
    /// Whether the upstream's chunks never give the message's `role`: then
    /// openai-node's accumulator refuses the stream, with or without argmend
    /// (`missing role for choice 0`), and says so in `sdk_error`.
    no_role: bool,
}

/// One call as it must come out.
struct Truth {
    name: String,
    args: Value,
    complete: bool,
    cut: Option<String>,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A tool list naming `names` with no schema (the built-in table's rules).
fn plain_tools(names: &[&str]) -> Value {
    let tools: Vec<Value> = names
        .iter()
        .map(|name| json!({"type": "function", "function": {"name": name}}))
        .collect();
    Value::Array(tools)
}

/// argmend's own recording: four parallel calls, one malformed, one cut by
/// `length`; the truth is its `.events` file's `call_done` lines.
fn corpus_case(scripts: &mut BTreeMap<String, Script>) -> Case {
    let dir = root().join("corpus/model_streams");
    let text = std::fs::read_to_string(dir.join("openai_chat.jsonl")).unwrap();
    let chunks: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    scripts.insert("corpus-openai-chat".to_owned(), Script::Chunks(chunks));
    let events = std::fs::read_to_string(dir.join("openai_chat.events")).unwrap();
    let calls = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["event"] == "call_done")
        .map(|e| Truth {
            name: e["name"].as_str().unwrap().to_owned(),
            args: e["args"].clone(),
            complete: e["complete"] == json!(true),
            cut: e["cut"].as_str().map(str::to_owned),
        })
        .collect();
    Case {
        name: "corpus openai_chat".to_owned(),
        model: "corpus-openai-chat".to_owned(),
        tools: plain_tools(&["write_file", "read_file", "search"]),
        content: None,
        calls,
        finish: "length".to_owned(),
        no_role: false,
    }
}

/// The SDKs' recordings: the truth is the JSON of each call's raw
/// fragments joined (valid in every one of them), as the SDKs assemble it.
fn sdk_cases(scripts: &mut BTreeMap<String, Script>) -> Vec<Case> {
    let Some(dir) = crate::shared::dir("model_streams/sdk", "the SDKs' recorded streams") else {
        return Vec::new();
    };
    let mut files: Vec<_> = std::fs::read_dir(dir.join("openai_chat"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sse"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let raw = std::fs::read(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let completion = upstream::completion_of(&chunks_of_sse(&raw));
        let message = &completion["choices"][0]["message"];
        let mut names = Vec::new();
        let calls: Vec<Truth> = message["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|call| {
                let name = call["function"]["name"].as_str().unwrap().to_owned();
                names.push(name.clone());
                Truth {
                    name,
                    args: serde_json::from_str(call["function"]["arguments"].as_str().unwrap())
                        .unwrap(),
                    complete: true,
                    cut: None,
                }
            })
            .collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let no_role = !String::from_utf8_lossy(&raw).contains("\"role\"");
        scripts.insert(name.clone(), Script::Raw(raw));
        cases.push(Case {
            name: format!("sdk {name}"),
            model: name,
            tools: plain_tools(&names),
            content: message["content"].as_str().map(|c| c.trim().to_owned()),
            calls,
            finish: completion["choices"][0]["finish_reason"]
                .as_str()
                .unwrap()
                .to_owned(),
            no_role,
        });
    }
    cases
}

/// `text` as content chunks of `size` characters, then a chunk with
/// `finish`.
fn content_chunks(text: &str, size: usize, finish: &str) -> Vec<Value> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": "chatcmpl-fmt", "object": "chat.completion.chunk", "created": 1, "model": "open-weights",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(size) {
        let piece: String = piece.iter().collect();
        chunks.push(chunk(json!({"content": piece}), Value::Null));
    }
    chunks.push(chunk(json!({}), json!(finish)));
    chunks
}

/// A content stream: its name, the model's text, the upstream's
/// finish_reason, then the truth: the content, the calls, the finish_reason.
type FormatSpec<'a> = (
    &'a str,
    &'a str,
    &'a str,
    Option<&'a str>,
    Vec<Truth>,
    &'a str,
);

/// Content streams in the open-weight formats, as a server with no tool
/// parser (or a failed one) sends them.
fn format_cases(scripts: &mut BTreeMap<String, Script>) -> Vec<Case> {
    let tools = json!([
        {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object",
            "properties": {"path": {"type": "string"}, "lines": {"type": "array", "items": {"type": "integer"}}}}}},
        {"type": "function", "function": {"name": "search", "parameters": {"type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}}}},
        {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}}
    ]);
    let truth = |name: &str, args: Value| Truth {
        name: name.to_owned(),
        args,
        complete: true,
        cut: None,
    };
    let specs: Vec<FormatSpec<'_>> = vec![
        (
            "hermes",
            "Let me read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.json\", \"lines\": [1, 20],}}\n</tool_call>",
            "stop",
            Some("Let me read it."),
            vec![truth(
                "read_file",
                json!({"path": "a.json", "lines": [1, 20]}),
            )],
            "tool_calls",
        ),
        (
            "llama3",
            "<|python_tag|>{\"name\": \"search\", \"parameters\": {\"query\": \"café ✓\", \"limit\": 5}}",
            "stop",
            Some(""),
            vec![truth("search", json!({"query": "café ✓", "limit": 5}))],
            "tool_calls",
        ),
        (
            "mistral",
            "[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"b.txt\"}}, {\"name\": \"search\", \"arguments\": {'query': 'x', limit: 2}}]",
            "stop",
            Some(""),
            vec![
                truth("read_file", json!({"path": "b.txt"})),
                truth("search", json!({"query": "x", "limit": 2})),
            ],
            "tool_calls",
        ),
        (
            "hermes-cut",
            "Writing it.\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.py\", \"content\": \"print(1)\\nprint(",
            "length",
            Some("Writing it."),
            vec![Truth {
                name: "write_file".to_owned(),
                args: json!({"path": "a.py", "content": "print(1)\nprint("}),
                complete: false,
                cut: Some("length".to_owned()),
            }],
            "length",
        ),
        (
            "prose",
            "I could emit a <tool_call> tag here, or {\"name\": \"x\"}, but I will not.",
            "stop",
            Some("I could emit a <tool_call> tag here, or {\"name\": \"x\"}, but I will not."),
            vec![],
            "stop",
        ),
    ];
    let mut cases = Vec::new();
    for (name, text, finish, content, calls, finish_out) in specs {
        let model = format!("format-{name}");
        scripts.insert(
            model.clone(),
            Script::Chunks(content_chunks(text, 3, finish)),
        );
        cases.push(Case {
            name: format!("content {name}"),
            model,
            tools: tools.clone(),
            content: content.map(str::to_owned),
            calls,
            finish: finish_out.to_owned(),
            no_role: false,
        });
    }
    cases
}

/// Every case and what the upstream replays for them, plus the scripts of
/// the tests below (an error, an endless stream, a slow one).
fn all_cases() -> (BTreeMap<String, Script>, Vec<Case>) {
    let mut scripts = BTreeMap::new();
    let mut cases = vec![corpus_case(&mut scripts)];
    cases.extend(sdk_cases(&mut scripts));
    cases.extend(format_cases(&mut scripts));
    scripts.insert("error-429".to_owned(), Script::Error(429));
    // A call to `count` in pieces: the first names it, as servers do.
    let call_chunks = |pieces: &[&str], finish: Value| -> Vec<Value> {
        let chunk = |delta: Value, finish: Value| {
            json!({"id": "chatcmpl-c", "object": "chat.completion.chunk", "created": 1, "model": "c",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        };
        let mut chunks: Vec<Value> = pieces
            .iter()
            .enumerate()
            .map(|(k, arguments)| {
                let call = if k == 0 {
                    json!({"index": 0, "id": "call_c", "type": "function",
                        "function": {"name": "count", "arguments": arguments}})
                } else {
                    json!({"index": 0, "function": {"arguments": arguments}})
                };
                chunk(json!({"tool_calls": [call]}), Value::Null)
            })
            .collect();
        chunks.push(chunk(json!({}), finish));
        chunks
    };
    scripts.insert(
        "coerce".to_owned(),
        Script::Chunks(call_chunks(
            &["{\"n\": \"5\", ", "\"label\": 'x'}"],
            json!("tool_calls"),
        )),
    );
    let big = format!("{{\"text\": \"{}\"}}", "a".repeat(5000));
    let pieces: Vec<&str> = (0..big.len())
        .step_by(100)
        .map(|at| &big[at..(at + 100).min(big.len())])
        .collect();
    scripts.insert(
        "big".to_owned(),
        Script::Chunks(call_chunks(&pieces, json!("tool_calls"))),
    );
    scripts.insert("endless".to_owned(), Script::Endless);
    let text =
        std::fs::read_to_string(root().join("corpus/model_streams/openai_chat.jsonl")).unwrap();
    let chunks: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    scripts.insert(
        "slow".to_owned(),
        Script::Slow(chunks[..12].to_vec(), Duration::from_millis(100)),
    );
    (scripts, cases)
}

/// `argmend proxy` in front of an upstream, killed when dropped.
struct Proxy {
    child: Child,
    port: u16,
}

impl Proxy {
    fn start(upstream: &str) -> Proxy {
        Proxy::start_with(upstream, &[])
    }

    fn start_with(upstream: &str, more: &[&str]) -> Proxy {
        let mut child = Command::new(env!("CARGO_BIN_EXE_argmend"))
            .args(["proxy", "--listen", "127.0.0.1:0", "--upstream", upstream])
            .args(more)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start argmend proxy");
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // "argmend proxy: listening on http://127.0.0.1:PORT/v1, upstream …"
        let port = line
            .split("http://127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Proxy { child, port }
    }

    fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The proxy's peak resident memory so far, in KiB.
    fn vm_hwm_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The upstream with every script, and a proxy in front of it.
fn setup() -> (Upstream, Proxy, Vec<Case>) {
    let (scripts, cases) = all_cases();
    let upstream = Upstream::start(scripts);
    let proxy = Proxy::start(&format!("http://127.0.0.1:{}/v1", upstream.port));
    (upstream, proxy, cases)
}

/// Where a client's answer for `case` differs from the truth.
fn check(case: &Case, out: &Value, client: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    let at = format!("{client}, {}, stream {}", case.name, out["stream"]);
    if !out["error"].is_null() {
        return vec![format!("{at}: error {}", out["error"])];
    }
    if out["finish_reason"] != json!(case.finish) {
        wrong.push(format!(
            "{at}: finish_reason {} (want {})",
            out["finish_reason"], case.finish
        ));
    }
    if let Some(content) = &case.content
        && out["content"].as_str().unwrap_or("").trim() != content
    {
        wrong.push(format!(
            "{at}: content {:?} (want {content:?})",
            out["content"]
        ));
    }
    let calls = out["calls"].as_array().cloned().unwrap_or_default();
    if calls.len() != case.calls.len() {
        wrong.push(format!(
            "{at}: {} calls (want {}): {calls:?}",
            calls.len(),
            case.calls.len()
        ));
        return wrong;
    }
    for (k, (call, truth)) in calls.iter().zip(&case.calls).enumerate() {
        if call["name"] != json!(truth.name) {
            wrong.push(format!(
                "{at}: call {k} name {} (want {})",
                call["name"], truth.name
            ));
        }
        let text = call["arguments"].as_str().unwrap_or("");
        match serde_json::from_str::<Value>(text) {
            Ok(args) if args == truth.args => {}
            Ok(args) => wrong.push(format!(
                "{at}: call {k} arguments {args} (want {})",
                truth.args
            )),
            Err(error) => wrong.push(format!(
                "{at}: call {k} arguments {text:?} do not parse: {error}"
            )),
        }
        let mark = &call["argmend"];
        if mark["complete"] != json!(truth.complete) {
            wrong.push(format!(
                "{at}: call {k} argmend {mark} (want complete {})",
                truth.complete
            ));
        }
        if mark["cut"].as_str() != truth.cut.as_deref() {
            wrong.push(format!(
                "{at}: call {k} argmend {mark} (want cut {:?})",
                truth.cut
            ));
        }
    }
    // The SDK's own accumulation of the stream, where the client used it.
    if let Some(error) = out["sdk_error"].as_str()
        && !case.no_role
    {
        wrong.push(format!(
            "{at}: the SDK's accumulator refused the stream: {error}"
        ));
    }
    if let Some(sdk) = out["sdk_calls"].as_array() {
        for (k, (call, truth)) in sdk.iter().zip(&case.calls).enumerate() {
            let args: Option<Value> = call["arguments"]
                .as_str()
                .and_then(|t| serde_json::from_str(t).ok());
            if args.as_ref() != Some(&truth.args) {
                wrong.push(format!(
                    "{at}: the SDK's accumulated call {k} is {call} (want {})",
                    truth.args
                ));
            }
        }
        if sdk.len() != case.calls.len() {
            wrong.push(format!("{at}: the SDK accumulated {} calls", sdk.len()));
        }
    }
    wrong
}

/// A runtime for the tests' own client.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn request_body(case_model: &str, tools: &Value, stream: bool) -> Value {
    let mut body = json!({"model": case_model, "messages": [{"role": "user", "content": "go"}], "stream": stream});
    if tools.as_array().is_some_and(|t| !t.is_empty()) {
        body["tools"] = tools.clone();
    }
    body
}

/// The answer as the clients report it: streamed events joined by hand,
/// or the message of a whole answer.
async fn ask(
    client: &reqwest::Client,
    base: &str,
    model: &str,
    tools: &Value,
    stream: bool,
) -> Value {
    let response = client
        .post(format!("{base}/chat/completions"))
        .header("authorization", "Bearer sk-test")
        .header("content-type", "application/json")
        .body(request_body(model, tools, stream).to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    if status != 200 {
        return json!({"stream": stream, "error": {"status": status, "body": text}});
    }
    if !stream {
        let completion: Value = serde_json::from_str(&text).unwrap();
        let choice = &completion["choices"][0];
        let calls: Vec<Value> = choice["message"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| json!({"id": c["id"], "name": c["function"]["name"], "arguments": c["function"]["arguments"], "argmend": c["argmend"]}))
            .collect();
        return json!({"stream": false, "content": choice["message"]["content"].as_str().unwrap_or(""),
            "calls": calls, "finish_reason": choice["finish_reason"]});
    }
    let mut content = String::new();
    let mut calls: BTreeMap<u64, Value> = BTreeMap::new();
    let mut finish = Value::Null;
    for data in text.split("\n\n").filter_map(|e| e.strip_prefix("data: ")) {
        if data == "[DONE]" {
            continue;
        }
        let chunk: Value = serde_json::from_str(data).unwrap();
        for choice in chunk["choices"].as_array().into_iter().flatten() {
            content.push_str(choice["delta"]["content"].as_str().unwrap_or(""));
            for call in choice["delta"]["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let entry = calls
                    .entry(call["index"].as_u64().unwrap())
                    .or_insert_with(|| json!({"name": "", "arguments": "", "argmend": null}));
                for key in ["name", "arguments"] {
                    let more = call["function"][key].as_str().unwrap_or("");
                    let joined = format!("{}{more}", entry[key].as_str().unwrap());
                    entry[key] = json!(joined);
                }
                if !call["argmend"].is_null() {
                    assert!(
                        entry["argmend"].is_null(),
                        "two argmend fields for one call"
                    );
                    entry["argmend"] = call["argmend"].clone();
                }
            }
            if !choice["finish_reason"].is_null() {
                finish = choice["finish_reason"].clone();
            }
        }
    }
    json!({"stream": true, "content": content, "calls": calls.into_values().collect::<Vec<_>>(), "finish_reason": finish})
}

#[test]
fn every_case_comes_out_mended_streamed_and_whole() {
    let (_upstream, proxy, cases) = setup();
    let client = reqwest::Client::new();
    let mut wrong = Vec::new();
    runtime().block_on(async {
        for case in &cases {
            for stream in [true, false] {
                let out = ask(&client, &proxy.base_url(), &case.model, &case.tools, stream).await;
                wrong.extend(check(case, &out, "rust"));
            }
        }
    });
    assert!(cases.len() >= 6, "{} cases", cases.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Runs an SDK client over every case and checks its lines.
fn run_client(program: &Path, args: &[&str], env: &[(&str, &Path)], client: &str) {
    let (_upstream, proxy, cases) = setup();
    let mut list: Vec<Value> = cases
        .iter()
        .flat_map(|case| {
            [true, false].map(|stream| json!({"name": case.name, "model": case.model, "tools": case.tools, "stream": stream}))
        })
        .collect();
    // An upstream error reaches the SDK as the upstream's own status.
    for stream in [true, false] {
        list.push(json!({"name": "upstream error", "model": "error-429", "tools": plain_tools(&["read_file"]), "stream": stream}));
    }
    let dir = std::env::temp_dir().join(format!("argmend-proxy-{}-{client}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases_path = dir.join("cases.json");
    std::fs::write(&cases_path, serde_json::to_string(&list).unwrap()).unwrap();
    let mut command = Command::new(program);
    command.args(args).arg(proxy.base_url()).arg(&cases_path);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", program.display()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{client} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), list.len(), "{client}: {stdout}");
    let mut wrong = Vec::new();
    for (line, asked) in lines.iter().zip(&list) {
        if asked["name"] == "upstream error" {
            if line["error"]["status"] != 429 {
                wrong.push(format!("{client}: the upstream's 429 came out as {line}"));
            }
            continue;
        }
        let case = cases
            .iter()
            .find(|c| json!(c.name) == asked["name"])
            .unwrap();
        wrong.extend(check(case, line, client));
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let sdk = cases.iter().filter(|c| c.name.starts_with("sdk ")).count();
    let sdk = if sdk == 0 {
        "none of the SDKs' recordings: ../shared/model_streams/sdk is missing".to_owned()
    } else {
        format!("{sdk} of them the SDKs' recordings")
    };
    said(&format!(
        "proxy sdk: {client}: {} requests answered right: {} cases streamed and whole ({sdk}), an upstream error twice",
        list.len(),
        cases.len()
    ));
}

/// A line for `scripts/test`'s summary, straight to the stderr handle
/// (libtest captures `eprintln!` of a passing test), in one write.
fn said(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("{line}\n").as_bytes());
}

#[test]
#[ignore = "needs target/py-venv with the openai SDK: run scripts/test"]
fn the_openai_python_sdk_gets_mended_calls() {
    let python = root().join("target/py-venv/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/test",
        python.display()
    );
    let script = root().join("tests/proxy/client.py");
    run_client(&python, &[script.to_str().unwrap()], &[], "openai-python");
}

#[test]
#[ignore = "needs js/node_modules (openai-node): run scripts/test"]
fn openai_node_gets_mended_calls() {
    let js = root().join("js");
    assert!(
        js.join("node_modules/openai").exists(),
        "js/node_modules/openai is missing: run scripts/test, or (cd js && npm ci)"
    );
    let script = root().join("tests/proxy/client.mjs");
    run_client(
        Path::new("node"),
        &[script.to_str().unwrap()],
        &[("ARGMEND_JS_DIR", &js)],
        "openai-node",
    );
}

#[test]
fn upstream_errors_and_statuses_pass_through() {
    let (upstream, proxy, _) = setup();
    let client = reqwest::Client::new();
    runtime().block_on(async {
        let response = client
            .post(format!("{}/chat/completions", proxy.base_url()))
            .header("content-type", "application/json")
            .body(request_body("error-429", &plain_tools(&["read_file"]), true).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 429);
        assert_eq!(response.headers()["x-upstream"], "replay");
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(body["error"]["code"], "rate_limit");
        // No such model upstream: its 404, as it said it.
        let response = client
            .post(format!("{}/chat/completions", proxy.base_url()))
            .header("content-type", "application/json")
            .body(request_body("no-such-model", &Value::Null, false).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 404);
    });
    drop(upstream);
    // An upstream out of reach: 502, in the shape of an OpenAI error.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let nowhere = Proxy::start(&format!("http://127.0.0.1:{port}/v1"));
    runtime().block_on(async {
        let response = client
            .post(format!("{}/chat/completions", nowhere.base_url()))
            .header("content-type", "application/json")
            .body(request_body("any", &Value::Null, true).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 502);
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        assert_eq!(body["error"]["type"], "upstream_unreachable");
        assert_eq!(body["error"]["code"], "upstream_unreachable");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("cannot reach the upstream")
        );
    });
}

#[test]
fn other_paths_pass_unchanged_and_authorization_goes_upstream_only() {
    let (upstream, proxy, _) = setup();
    let client = reqwest::Client::new();
    runtime().block_on(async {
        let models = client
            .get(format!("{}/models", proxy.base_url()))
            .header("authorization", "Bearer sk-secret")
            .send()
            .await
            .unwrap();
        assert_eq!(models.status().as_u16(), 200);
        let text = models.text().await.unwrap();
        assert_eq!(
            text,
            r#"{"object":"list","data":[{"id":"replay","object":"model","created":0,"owned_by":"argmend-tests"}]}"#
        );
        let other = client
            .get(format!("http://127.0.0.1:{}/api/tags?x=1", proxy.port))
            .header("authorization", "Bearer sk-secret")
            .send()
            .await
            .unwrap();
        assert_eq!(other.status().as_u16(), 404);
    });
    let seen = upstream.seen.lock().unwrap().clone();
    let paths: Vec<&str> = seen.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["/v1/models", "/api/tags?x=1"]);
    for request in &seen {
        let auth: Vec<&str> = request
            .headers
            .iter()
            .filter(|(n, _)| n == "authorization")
            .map(|(_, v)| v.as_str())
            .collect();
        assert_eq!(auth, ["Bearer sk-secret"], "{request:?}");
    }
}

#[test]
fn a_client_that_goes_away_closes_the_upstream_stream() {
    let (upstream, proxy, _) = setup();
    let client = reqwest::Client::new();
    runtime().block_on(async {
        let mut response = client
            .post(format!("{}/chat/completions", proxy.base_url()))
            .header("content-type", "application/json")
            .body(request_body("endless", &plain_tools(&["read_file"]), true).to_string())
            .send()
            .await
            .unwrap();
        let mut got = 0;
        while got < 200 {
            got += response.chunk().await.unwrap().unwrap().len();
        }
        assert_eq!(
            upstream
                .endless_open
                .load(std::sync::atomic::Ordering::SeqCst),
            1
        );
        // The client goes away mid-stream.
        drop(response);
        drop(client);
    });
    let gone = Instant::now();
    while upstream.closed.lock().unwrap().is_empty() && gone.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let closed = upstream.closed.lock().unwrap().clone();
    assert_eq!(
        closed.len(),
        1,
        "the upstream's stream was not closed within 5 s"
    );
    assert!(
        closed[0].duration_since(gone) < Duration::from_secs(1),
        "closed {:?} after the client went",
        closed[0].duration_since(gone)
    );
}

#[test]
fn a_slow_upstream_streams_through_as_it_comes() {
    let (_upstream, proxy, _) = setup();
    let client = reqwest::Client::new();
    runtime().block_on(async {
        let start = Instant::now();
        let mut response = client
            .post(format!("{}/chat/completions", proxy.base_url()))
            .header("content-type", "application/json")
            .body(request_body("slow", &plain_tools(&["write_file"]), true).to_string())
            .send()
            .await
            .unwrap();
        let mut arrivals = Vec::new();
        let mut text = Vec::new();
        while let Some(piece) = response.chunk().await.unwrap() {
            arrivals.push(start.elapsed());
            text.extend_from_slice(&piece);
        }
        // Twelve chunks 100 ms apart: the first pieces reach the client
        // long before the last chunk leaves the upstream.
        let total = *arrivals.last().unwrap();
        assert!(total >= Duration::from_millis(1100), "{total:?}");
        assert!(arrivals[0] < Duration::from_millis(500), "{arrivals:?}");
        assert!(arrivals.len() >= 8, "{} pieces", arrivals.len());
        let text = String::from_utf8(text).unwrap();
        assert!(text.ends_with("data: [DONE]\n\n"), "{text}");
    });
}

#[test]
fn two_hundred_streams_at_once_in_bounded_memory() {
    let (_upstream, proxy, cases) = setup();
    let case = &cases[0];
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let before = proxy.vm_hwm_kib();
    let outs: Vec<Value> = runtime().block_on(async {
        let tasks: Vec<_> = (0..200)
            .map(|_| {
                let client = client.clone();
                let base = proxy.base_url();
                let (model, tools) = (case.model.clone(), case.tools.clone());
                tokio::spawn(async move { ask(&client, &base, &model, &tools, true).await })
            })
            .collect();
        let mut outs = Vec::new();
        for task in tasks {
            outs.push(task.await.unwrap());
        }
        outs
    });
    let wrong: Vec<String> = outs
        .iter()
        .flat_map(|out| check(case, out, "rust x200"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let after = proxy.vm_hwm_kib();
    crate::support::tell(&format!(
        "proxy: VmHWM {before} KiB at start, {after} KiB after 200 concurrent streams"
    ));
    assert!(
        after < 120 * 1024,
        "the proxy peaked at {after} KiB for 200 streams"
    );
}

/// A schema's coercion is decided when the call ends, after `"5"` went out:
/// the stream keeps the engine's JSON and `argmend.arguments` has the final
/// text; a whole answer has the final text itself.
#[test]
fn a_rewrite_after_the_text_went_out_is_in_the_extension() {
    let (_upstream, proxy, _) = setup();
    let tools = json!([{"type": "function", "function": {"name": "count", "parameters": {"type": "object",
        "properties": {"n": {"type": "integer"}, "label": {"type": "string"}}}}}]);
    let client = reqwest::Client::new();
    runtime().block_on(async {
        let streamed = ask(&client, &proxy.base_url(), "coerce", &tools, true).await;
        let call = &streamed["calls"][0];
        let sent: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(sent, json!({"n": "5", "label": "x"}), "{streamed}");
        let last: Value =
            serde_json::from_str(call["argmend"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(last, json!({"n": 5, "label": "x"}), "{streamed}");
        let kinds: Vec<&str> = call["argmend"]["fixes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["kind"].as_str())
            .collect();
        assert!(kinds.contains(&"coerced_number"), "{kinds:?}");
        let whole = ask(&client, &proxy.base_url(), "coerce", &tools, false).await;
        let args: Value =
            serde_json::from_str(whole["calls"][0]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, json!({"n": 5, "label": "x"}), "{whole}");
        assert!(
            whole["calls"][0]["argmend"]["arguments"].is_null(),
            "{whole}"
        );
    });
}
