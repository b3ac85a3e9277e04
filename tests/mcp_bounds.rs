//! Issue 26: `argmend mcp` stays bounded under any client. At most
//! workers + queue requests are in the server at once (the rest wait in the
//! client's pipe), a client that does not read its answers stops the server
//! reading instead of growing it, and every request with a readable id is
//! answered with that id, duplicates too.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mcp::Session;
use crate::support::TempDir;

/// The server's workers plus the requests that may wait for one (as
/// `src/cli/shared/limits.rs` counts them).
fn window() -> usize {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    2 * workers
}

fn get(id: usize, path: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "json", "arguments": {"cmd": "get", "args": {"file": "big.json", "path": path}}}})
}

/// Send `lines` from a thread, counting those fully written; returns the
/// count and the thread.
fn send_all(
    mut stdin: std::process::ChildStdin,
    lines: Vec<Vec<u8>>,
) -> (Arc<AtomicUsize>, std::thread::JoinHandle<()>) {
    let sent = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&sent);
    let thread = std::thread::spawn(move || {
        for line in lines {
            if stdin.write_all(&line).is_err() || stdin.flush().is_err() {
                return;
            }
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    (sent, thread)
}

/// Wait until `sent` has not moved for `still` (at most `most`).
fn settle(sent: &AtomicUsize, still: Duration, most: Duration) -> usize {
    let start = Instant::now();
    let mut last = sent.load(Ordering::SeqCst);
    let mut since = Instant::now();
    while start.elapsed() < most {
        std::thread::sleep(Duration::from_millis(50));
        let now = sent.load(Ordering::SeqCst);
        if now != last {
            (last, since) = (now, Instant::now());
        } else if since.elapsed() >= still {
            break;
        }
    }
    last
}

/// Read `n` answers; their ids, sorted.
fn answers(stdout: &mut BufReader<std::process::ChildStdout>, n: usize) -> Vec<i64> {
    let mut ids: Vec<i64> = (0..n)
        .map(|_| {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            let answer: Value = serde_json::from_str(&line).unwrap();
            assert_eq!(answer["result"]["isError"], false, "{answer}");
            answer["id"].as_i64().unwrap()
        })
        .collect();
    ids.sort_unstable();
    ids
}

/// Hole 4: 40 requests of 1 MiB each, pipelined by a client that reads no
/// answer yet, each answered with 100 KB. Before, rmcp took every request at
/// once and ran each; now the server holds the window's worth, and the
/// client's next write waits. Then everything is answered.
#[test]
fn pipelined_calls_past_the_window_wait_in_the_client() {
    let dir = TempDir::new();
    let value = "v".repeat(50_000);
    dir.write("big.json", json!({"a": value}).to_string());
    let mut session = Session::start(&dir, &[]);
    let pad = "p".repeat(1 << 20);
    let lines: Vec<Vec<u8>> = (0..40)
        .map(|i| {
            let mut request = get(100 + i, "a");
            request["params"]["_meta"] = json!({"pad": pad});
            format!("{request}\n").into_bytes()
        })
        .collect();
    let stdin = session.stdin;
    let (sent, writer) = send_all(stdin, lines);
    let held = settle(&sent, Duration::from_millis(1500), Duration::from_secs(20));
    // The window, the one whose answer is being written (its place comes
    // back as the answer goes out), the line the gate is reading, and the
    // one in the pipe.
    assert!(
        held <= window() + 3,
        "{held} requests of 1 MiB taken while no answer was read (window {})",
        window()
    );
    assert_eq!(
        answers(&mut session.stdout, 40),
        (100..140).collect::<Vec<_>>()
    );
    writer.join().unwrap();
    // The writer closed stdin: the server ends on its own.
    assert!(session.child.wait().unwrap().success());
}

/// Hole 5: a client that sends 3,000 small calls and reads nothing. Before,
/// the gate queued every answer in memory and read on; now stdout's pipe
/// fills, the window fills, and the server stops reading stdin, so the
/// client's writes wait. Every call is answered once it reads.
#[test]
fn a_client_that_does_not_read_stops_the_server_reading() {
    let dir = TempDir::new();
    let value = "v".repeat(16_000);
    dir.write("big.json", json!({"a": value}).to_string());
    let mut session = Session::start(&dir, &[]);
    let n = 3_000;
    let lines: Vec<Vec<u8>> = (0..n)
        .map(|i| format!("{}\n", get(100 + i, "a")).into_bytes())
        .collect();
    let stdin = session.stdin;
    let (sent, writer) = send_all(stdin, lines);
    let held = settle(&sent, Duration::from_millis(1500), Duration::from_secs(20));
    assert!(
        held < n,
        "the server read all {n} calls while its answers were not read"
    );
    assert_eq!(
        answers(&mut session.stdout, n),
        (100..100 + n as i64).collect::<Vec<_>>()
    );
    writer.join().unwrap();
    // The writer closed stdin: the server ends on its own.
    assert!(session.child.wait().unwrap().success());
}

/// Hole 4: 100 pipelined `get`s on a 3 MB file within 160 MB of address
/// space. On tokio's blocking pool alone they ran at once, and all but a
/// few failed "out of memory".
#[test]
fn pipelined_gets_run_in_bounded_memory() {
    let dir = TempDir::new();
    let items: Vec<String> = (0..30_000)
        .map(|i| format!("{{\"id\": {i}, \"pad\": \"{}\"}}", "p".repeat(80)))
        .collect();
    dir.write("big.json", format!("{{\"items\": [{}]}}", items.join(",")));
    let bin = env!("CARGO_BIN_EXE_argmend");
    let mut input = String::new();
    input.push_str(&format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})
    ));
    input.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    for i in 0..100 {
        input.push_str(&format!("{}\n", get(100 + i, &format!("items[{i}].id"))));
    }
    let mut child = Command::new("sh")
        .args(["-c", &format!("ulimit -v 160000 && exec {bin} mcp")])
        .current_dir(dir.path())
        .env("MALLOC_ARENA_MAX", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (_, writer) = send_all(child.stdin.take().unwrap(), vec![input.into_bytes()]);
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(output.status.success(), "{:?}", output.status);
    let mut got: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .filter(|answer: &Value| answer["id"] != 1)
        .collect();
    got.sort_by_key(|answer| answer["id"].as_i64());
    assert_eq!(got.len(), 100);
    for (i, answer) in got.iter().enumerate() {
        assert_eq!(
            answer["result"]["content"][0]["text"],
            format!("{i}\n"),
            "{answer}"
        );
    }
}

/// Hole 13: a request with a readable id and a bad shape is refused with
/// its id, and two requests with one id are each answered.
#[test]
fn every_refusal_carries_the_id_and_duplicates_are_answered() {
    let dir = TempDir::new();
    dir.write("big.json", json!({"a": 1}).to_string());
    let mut session = Session::start(&dir, &[]);
    for (line, id) in [
        (
            r#"{"jsonrpc":"1.0","id":2,"method":"tools/list"}"#,
            json!(2),
        ),
        (r#"{"jsonrpc":"2.0","id":3,"method":5}"#, json!(3)),
        (r#"{"jsonrpc":"2.0","id":"four"}"#, json!("four")),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
            json!(1.5),
        ),
    ] {
        session.send_raw(line.as_bytes());
        let answer = session.receive();
        assert_eq!(answer["id"], id, "{line}: {answer}");
        assert_eq!(answer["error"]["code"], -32600, "{line}: {answer}");
    }
    // The same id twice, pipelined: two answers with it (the second may be
    // a refusal if the first is still running).
    let call = get(7, "a").to_string();
    session.send_raw(format!("{call}\n{call}").as_bytes());
    let first = session.receive();
    let second = session.receive();
    assert_eq!(
        (first["id"].clone(), second["id"].clone()),
        (json!(7), json!(7))
    );
    let ok = [&first, &second]
        .iter()
        .filter(|answer| answer["result"]["content"][0]["text"] == "1\n")
        .count();
    assert!(ok >= 1, "{first}\n{second}");
    // Once answered, the id may be used again.
    session.send(&get(7, "a"));
    assert_eq!(session.receive()["result"]["content"][0]["text"], "1\n");
    let (ok, _) = session.finish();
    assert!(ok);
}
