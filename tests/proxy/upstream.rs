//! The upstream the proxy tests stand `argmend proxy` in front of: a small
//! HTTP/1.1 server on loopback that replays recorded responses. The
//! request's `model` names what to replay (`Script`); `stream` says whether
//! as server-sent events or as one `chat.completion` built from the same
//! chunks, with the arguments as raw as they were streamed.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// What the upstream replays for a model name.
#[derive(Clone)]
pub(crate) enum Script {
    /// Chunks, each sent as a `data:` event, then `data: [DONE]`.
    Chunks(Vec<Value>),
    /// A recorded body, byte for byte (the SDKs' `.sse` files).
    Raw(Vec<u8>),
    /// An error answer with this status.
    Error(u16),
    /// Chunks with a pause before each.
    Slow(Vec<Value>, Duration),
    /// Content chunks every 20 ms until the connection closes.
    Endless,
    /// Streamed: these chunks, then silence until the connection closes;
    /// whole: silence at once.
    Stalls(Vec<Value>),
}

/// A request the upstream saw.
#[derive(Clone, Debug)]
pub(crate) struct Seen {
    pub(crate) path: String,
    pub(crate) headers: Vec<(String, String)>,
}

/// The running upstream.
pub(crate) struct Upstream {
    pub(crate) port: u16,
    pub(crate) seen: Arc<Mutex<Vec<Seen>>>,
    /// When each `Endless` stream found its connection closed.
    pub(crate) closed: Arc<Mutex<Vec<Instant>>>,
    /// How many `Endless` streams are being written.
    pub(crate) endless_open: Arc<AtomicUsize>,
}

impl Upstream {
    /// Serve `scripts` (by model name) on a free loopback port, a thread per
    /// connection, for as long as the test process lives.
    pub(crate) fn start(scripts: BTreeMap<String, Script>) -> Upstream {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let scripts = Arc::new(scripts);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let closed = Arc::new(Mutex::new(Vec::new()));
        let endless_open = Arc::new(AtomicUsize::new(0));
        let upstream = Upstream {
            port,
            seen: Arc::clone(&seen),
            closed: Arc::clone(&closed),
            endless_open: Arc::clone(&endless_open),
        };
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let scripts = Arc::clone(&scripts);
                let seen = Arc::clone(&seen);
                let closed = Arc::clone(&closed);
                let endless_open = Arc::clone(&endless_open);
                std::thread::spawn(move || {
                    let _ = serve(stream, &scripts, &seen, &closed, &endless_open);
                });
            }
        });
        upstream
    }
}

/// One connection: requests until the peer closes it.
fn serve(
    stream: TcpStream,
    scripts: &BTreeMap<String, Script>,
    seen: &Mutex<Vec<Seen>>,
    closed: &Mutex<Vec<Instant>>,
    endless_open: &AtomicUsize,
) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let path = line.split(' ').nth(1).unwrap_or("/").to_owned();
        let mut headers = Vec::new();
        let mut length = 0;
        loop {
            let mut header = String::new();
            reader.read_line(&mut header)?;
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                let (name, value) = (name.trim().to_ascii_lowercase(), value.trim().to_owned());
                if name == "content-length" {
                    length = value.parse().unwrap_or(0);
                }
                headers.push((name, value));
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        seen.lock().unwrap().push(Seen {
            path: path.clone(),
            headers,
        });
        if path.ends_with("/models") {
            let body = r#"{"object":"list","data":[{"id":"replay","object":"model","created":0,"owned_by":"argmend-tests"}]}"#;
            write_whole(&mut out, 200, body)?;
            continue;
        }
        let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let model = request["model"].as_str().unwrap_or("");
        let streamed = request["stream"] == json!(true);
        let Some(script) = scripts.get(model) else {
            let body =
                json!({"error": {"message": format!("no model `{model}`"), "type": "not_found"}});
            write_whole(&mut out, 404, &body.to_string())?;
            continue;
        };
        match script {
            Script::Error(status) => {
                let body = json!({"error": {"message": "slow down", "type": "rate_limit_exceeded", "code": "rate_limit"}});
                write_whole(&mut out, *status, &body.to_string())?;
            }
            Script::Chunks(chunks) if !streamed => {
                write_whole(&mut out, 200, &completion_of(chunks).to_string())?
            }
            Script::Slow(chunks, _) if !streamed => {
                write_whole(&mut out, 200, &completion_of(chunks).to_string())?
            }
            Script::Raw(raw) if !streamed => write_whole(
                &mut out,
                200,
                &completion_of(&chunks_of_sse(raw)).to_string(),
            )?,
            Script::Chunks(chunks) => {
                write_events(&mut out, chunks, Duration::ZERO)?;
                return Ok(());
            }
            Script::Slow(chunks, pause) => {
                write_events(&mut out, chunks, *pause)?;
                return Ok(());
            }
            Script::Raw(raw) => {
                write_head(&mut out, "text/event-stream")?;
                // In pieces that cut events anywhere, as a network does.
                for piece in raw.chunks(37) {
                    out.write_all(piece)?;
                    out.flush()?;
                }
                return Ok(());
            }
            Script::Stalls(chunks) => {
                if streamed {
                    write_head(&mut out, "text/event-stream")?;
                    for chunk in chunks {
                        write!(out, "data: {chunk}\n\n")?;
                    }
                    out.flush()?;
                }
                // Until the proxy gives up and closes the connection.
                let mut rest = Vec::new();
                let _ = reader.read_to_end(&mut rest);
                return Ok(());
            }
            Script::Endless => {
                endless_open.fetch_add(1, Ordering::SeqCst);
                let result = write_endless(&mut out);
                endless_open.fetch_sub(1, Ordering::SeqCst);
                closed.lock().unwrap().push(Instant::now());
                return result;
            }
        }
    }
}

fn write_whole(out: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nx-upstream: replay\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

/// A streamed answer ends when the connection closes (no length, no chunks).
fn write_head(out: &mut TcpStream, content_type: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n"
    )
}

fn write_events(out: &mut TcpStream, chunks: &[Value], pause: Duration) -> std::io::Result<()> {
    write_head(out, "text/event-stream; charset=utf-8")?;
    for chunk in chunks {
        if !pause.is_zero() {
            std::thread::sleep(pause);
        }
        write!(out, "data: {chunk}\n\n")?;
        out.flush()?;
    }
    write!(out, "data: [DONE]\n\n")?;
    out.flush()
}

fn write_endless(out: &mut TcpStream) -> std::io::Result<()> {
    write_head(out, "text/event-stream")?;
    for n in 0..3000 {
        let chunk = json!({"id": "endless", "object": "chat.completion.chunk", "created": 0, "model": "endless",
            "choices": [{"index": 0, "delta": {"content": format!("word {n} ")}, "finish_reason": null}]});
        write!(out, "data: {chunk}\n\n")?;
        out.flush()?;
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// The JSON chunks of a recorded server-sent-event body.
pub(crate) fn chunks_of_sse(raw: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(raw)
        .split('\n')
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .filter(|chunk: &Value| chunk.get("choices").is_some())
        .collect()
}

/// What a server that does not stream answers for the same chunks: the
/// content joined, each call's raw argument fragments joined, the last
/// finish reason.
pub(crate) fn completion_of(chunks: &[Value]) -> Value {
    let mut content = String::new();
    let mut calls: BTreeMap<u64, (String, String, String)> = BTreeMap::new();
    let mut finish = Value::Null;
    for chunk in chunks {
        let Some(choice) = chunk["choices"].get(0) else {
            continue;
        };
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str() {
            content.push_str(text);
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let entry = calls
                .entry(call["index"].as_u64().unwrap_or(0))
                .or_default();
            if let Some(id) = call["id"].as_str().filter(|id| !id.is_empty()) {
                entry.0 = id.to_owned();
            }
            if let Some(name) = call["function"]["name"].as_str() {
                entry.1.push_str(name);
            }
            if let Some(arguments) = call["function"]["arguments"].as_str() {
                entry.2.push_str(arguments);
            }
        }
        if !choice["finish_reason"].is_null() {
            finish = choice["finish_reason"].clone();
        }
    }
    let tool_calls: Vec<Value> = calls
        .values()
        .map(|(id, name, arguments)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": if content.is_empty() { Value::Null } else { Value::String(content) }});
    if !tool_calls.is_empty() {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    let first = chunks.first().cloned().unwrap_or(Value::Null);
    json!({
        "id": first["id"].as_str().unwrap_or("replay"),
        "object": "chat.completion",
        "created": first["created"].as_u64().unwrap_or(0),
        "model": first["model"].as_str().unwrap_or("replay"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    })
}
