//! What `argmend proxy` adds to a streamed completion on loopback (issue 44):
//! `cargo bench --bench proxy` (not run in CI; the figures are in
//! docs/performance.md).
//!
//! An upstream in this process streams a 200-event completion (a role chunk,
//! 198 fragments of a `write_file` call's arguments, the finish; then
//! `[DONE]`), one event every `PACE`, as a model server does. A client in
//! this process reads it, straight from the upstream and through the proxy
//! (the release binary), and notes when each event arrives; the upstream
//! notes when it wrote each. An event's latency is the difference, on one
//! clock. The two paths run in turns, `RUNS` streams each, and the report
//! gives the percentiles of each path and of what the proxy adds.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

const EVENTS: usize = 200;
const PACE: Duration = Duration::from_millis(2);
const RUNS: usize = 30;

/// The 200 events of one completion.
fn events() -> Vec<String> {
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        json!({"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1, "model": "bench",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "write_file", "arguments": ""}}]}),
        serde_json::Value::Null,
    )];
    let mut arguments = String::from(r#"{"path": "src/app.py", "content": "#);
    arguments.push('"');
    for n in 0..400 {
        arguments.push_str(&format!(
            "def f{n}(x):\\n    return {{'a': x, \\\"b\\\": {n}}}\\n"
        ));
    }
    arguments.push_str("\"}");
    let fragment = arguments.len().div_ceil(EVENTS - 2);
    let bytes = arguments.as_bytes();
    for piece in bytes.chunks(fragment).take(EVENTS - 2) {
        let piece = String::from_utf8_lossy(piece);
        out.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}),
            serde_json::Value::Null,
        ));
    }
    while out.len() < EVENTS - 1 {
        out.push(chunk(json!({}), serde_json::Value::Null));
    }
    out.push(chunk(json!({}), json!("tool_calls")));
    out
}

/// Serve each connection the stream, noting when each event was written.
fn upstream(written: Arc<Mutex<Vec<Instant>>>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let events = events();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            stream.set_nodelay(true).unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if line.trim().is_empty() {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
            )
            .unwrap();
            let mut times = Vec::with_capacity(EVENTS + 1);
            for event in &events {
                std::thread::sleep(PACE);
                times.push(Instant::now());
                stream
                    .write_all(format!("data: {event}\n\n").as_bytes())
                    .unwrap();
            }
            times.push(Instant::now());
            stream.write_all(b"data: [DONE]\n\n").unwrap();
            *written.lock().unwrap() = times;
        }
    });
    port
}

/// One streamed request to `port`: when each event (each blank line) arrived.
fn read_stream(port: u16, path: &str) -> Vec<Instant> {
    let body = json!({"model": "bench", "stream": true, "messages": [{"role": "user", "content": "go"}],
        "tools": [{"type": "function", "function": {"name": "write_file", "parameters": {"type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}}]})
    .to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_nodelay(true).unwrap();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut arrived = Vec::with_capacity(EVENTS + 1);
    let mut buf = vec![0; 1 << 16];
    let mut last = 0u8;
    // The response head, until its blank line; then the body.
    let mut head: Option<Vec<u8>> = Some(Vec::new());
    loop {
        let n = stream.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        let now = Instant::now();
        let mut body: &[u8] = &buf[..n];
        let rest;
        if let Some(bytes) = &mut head {
            bytes.extend_from_slice(body);
            let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
                continue;
            };
            rest = bytes[end + 4..].to_vec();
            body = &rest;
            head = None;
        }
        // An event ends at a blank line (chunked framing never makes one).
        for &b in body {
            if b == b'\n' && last == b'\n' {
                arrived.push(now);
            }
            last = b;
        }
    }
    arrived
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at]
}

fn main() {
    let written = Arc::new(Mutex::new(Vec::new()));
    let port = upstream(Arc::clone(&written));
    let mut proxy = Command::new(env!("CARGO_BIN_EXE_argmend"))
        .args(["proxy", "--listen", "127.0.0.1:0", "--upstream"])
        .arg(format!("http://127.0.0.1:{port}/v1"))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(proxy.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let proxy_port: u16 = line
        .split("http://127.0.0.1:")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .and_then(|port| port.parse().ok())
        .unwrap();
    let mut direct = Vec::new();
    let mut through = Vec::new();
    let mut totals = (Vec::new(), Vec::new());
    for run in 0..RUNS * 2 {
        let via_proxy = run % 2 == 1;
        let target = if via_proxy { proxy_port } else { port };
        let arrived = read_stream(target, "/v1/chat/completions");
        std::thread::sleep(Duration::from_millis(20));
        let sent = written.lock().unwrap().clone();
        assert_eq!(arrived.len(), sent.len(), "events lost");
        let lat: Vec<f64> = arrived
            .iter()
            .zip(&sent)
            .map(|(a, s)| a.duration_since(*s).as_secs_f64() * 1e3)
            .collect();
        let total = arrived
            .last()
            .unwrap()
            .duration_since(sent[0])
            .as_secs_f64()
            * 1e3;
        if run < 2 {
            continue; // warm-up: connections, the proxy's first allocations
        }
        if via_proxy {
            through.extend(lat);
            totals.1.push(total);
        } else {
            direct.extend(lat);
            totals.0.push(total);
        }
    }
    let _ = proxy.kill();
    let _ = proxy.wait();
    for list in [&mut direct, &mut through, &mut totals.0, &mut totals.1] {
        list.sort_by(f64::total_cmp);
    }
    println!(
        "{EVENTS}-event stream, one event every {PACE:?}, {} streams per path (after 1 warm-up each)",
        RUNS - 1
    );
    println!("per-event latency, upstream write → client read, ms:");
    for (name, list) in [("direct", &direct), ("through the proxy", &through)] {
        println!(
            "  {name:<18} p50 {:.3}  p90 {:.3}  p99 {:.3}  max {:.3}",
            percentile(list, 0.5),
            percentile(list, 0.9),
            percentile(list, 0.99),
            list[list.len() - 1]
        );
    }
    println!(
        "  added by the proxy: p50 {:+.3}  p99 {:+.3}",
        percentile(&through, 0.5) - percentile(&direct, 0.5),
        percentile(&through, 0.99) - percentile(&direct, 0.99)
    );
    println!(
        "whole stream, first write → last event read, ms: direct median {:.2}, through the proxy median {:.2} (+{:.3})",
        percentile(&totals.0, 0.5),
        percentile(&totals.1, 0.5),
        percentile(&totals.1, 0.5) - percentile(&totals.0, 0.5)
    );
}
