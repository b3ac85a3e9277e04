//! The gate in front of the MCP server: every line from the client passes
//! here first, so every request with an id gets exactly one response.
//!
//! Why: rmcp drops what it cannot use without a word. A line over its
//! 16 MiB limit, a line that is not JSON or not UTF-8, a string with a lone
//! surrogate: the client waits for an answer until its own timeout. And a
//! `tools/call` without `name` fails as "method not found". The gate reads
//! stdin itself, answers those lines as JSON-RPC 2.0 says (`-32700` parse
//! error, `-32600` invalid request, `-32602` invalid params, with the id when
//! one can be read), and forwards the rest to rmcp through an in-memory pipe.
//! rmcp's output comes back through another pipe and is written to stdout a
//! whole line at a time, so the gate's answers never split one of its lines.

use std::io;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;

use super::call::find_id;

/// The longest message: a 20 MB file's text sent inline, JSON-escaped, fits.
pub(crate) const MAX_MESSAGE: usize = 64 << 20;

/// The pipes between the gate and rmcp: rmcp reads `server_in` and writes
/// `server_out`.
pub(crate) struct Pipes {
    pub(crate) server_in: DuplexStream,
    pub(crate) server_out: DuplexStream,
}

/// Start the gate on stdin and stdout; returns rmcp's ends of the pipes and
/// a task that ends once everything rmcp wrote has reached stdout.
pub(crate) fn start() -> (Pipes, tokio::task::JoinHandle<()>) {
    let (gate_in, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, gate_out) = tokio::io::duplex(1 << 16);
    let (lines, mut outbox) = mpsc::unbounded_channel::<Vec<u8>>();
    // One writer owns stdout: rmcp's lines and the gate's answers queue here.
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = outbox.recv().await {
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                return;
            }
        }
    });
    let from_server = lines.clone();
    let copier = tokio::spawn(async move {
        let mut reader = tokio::io::BufReader::new(gate_out);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    if from_server.send(line.clone()).is_err() {
                        return;
                    }
                }
            }
        }
    });
    tokio::spawn(async move {
        let stdin = tokio::io::BufReader::with_capacity(1 << 16, tokio::io::stdin());
        let _ = pass(stdin, gate_in, &lines).await;
    });
    let done = tokio::spawn(async move {
        let _ = copier.await;
        let _ = writer.await;
    });
    (
        Pipes {
            server_in,
            server_out,
        },
        done,
    )
}

/// Read client lines until the end of input; forward the good ones to
/// `server`, answer the others on `out`. Dropping `server` at the end tells
/// rmcp the client has gone.
async fn pass(
    mut input: impl AsyncBufRead + Unpin,
    mut server: impl AsyncWrite + Unpin,
    out: &mpsc::UnboundedSender<Vec<u8>>,
) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let oversized = read_line(&mut input, &mut line).await?;
        if oversized {
            answer(
                out,
                find_id(&line),
                -32600,
                &format!(
                    "Invalid Request: the message is over {} MiB, the most argmend reads in one \
                 line; send a file's path instead of its text",
                    MAX_MESSAGE >> 20
                ),
            );
            continue;
        }
        if line.is_empty() {
            return server.shutdown().await;
        }
        match check(&line) {
            Ok(()) => {
                server.write_all(&line).await?;
                if line.last() != Some(&b'\n') {
                    server.write_all(b"\n").await?;
                }
                server.flush().await?;
            }
            Err(Some((id, code, message))) => answer(out, id, code, &message),
            Err(None) => {}
        }
    }
}

/// Read one line into `line` (at most [`MAX_MESSAGE`] bytes kept): `true`
/// when it was longer (its start is kept, for the id, and the rest skipped).
/// An empty `line` means the end of input.
async fn read_line(
    input: &mut (impl AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
) -> io::Result<bool> {
    let mut oversized = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(oversized);
        }
        let newline = memchr::memchr(b'\n', buf);
        let take = newline.map_or(buf.len(), |at| at + 1);
        if !oversized && line.len() + take > MAX_MESSAGE {
            oversized = true;
            line.truncate(4096);
        }
        if !oversized {
            line.extend_from_slice(&buf[..take]);
        } else if line.len() < 4096 {
            let room = 4096 - line.len();
            line.extend_from_slice(&buf[..take.min(room)]);
        }
        input.consume(take);
        if newline.is_some() {
            return Ok(oversized);
        }
    }
}

/// What the gate answers itself: the id, the JSON-RPC error code and the
/// message. `Err(None)`: nothing to answer (a blank line, or a malformed
/// notification, which takes no response).
type Refusal = Option<(Value, i64, String)>;

/// Whether rmcp can take `line`; if not, the answer it deserves.
fn check(line: &[u8]) -> Result<(), Refusal> {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(None);
    }
    let text = std::str::from_utf8(body).map_err(|bad| {
        Some((
            find_id(body),
            -32700,
            format!(
                "Parse error: the message is not valid UTF-8 (at byte {})",
                bad.valid_up_to()
            ),
        ))
    })?;
    let message: Value = serde_json::from_str(text)
        .map_err(|error| Some((find_id(body), -32700, format!("Parse error: {error}"))))?;
    let Value::Object(message) = &message else {
        // A batch or a bare value: rmcp answers what it supports.
        return Ok(());
    };
    let id = message.get("id").cloned();
    if message.get("method").and_then(Value::as_str) != Some("tools/call") {
        return Ok(());
    }
    let invalid = |problem: &str| {
        id.clone()
            .map(|id| (id, -32602, format!("Invalid params: {problem}")))
    };
    let Some(Value::Object(params)) = message.get("params") else {
        return Err(invalid(
            "`params` must be an object {\"name\": TOOL, \"arguments\": {…}}",
        ));
    };
    if !matches!(params.get("name"), Some(Value::String(_))) {
        return Err(invalid(
            "`name` must be the tool to call, a string: json, diff or repair",
        ));
    }
    if !matches!(
        params.get("arguments"),
        None | Some(Value::Null | Value::Object(_))
    ) {
        return Err(invalid(
            "`arguments` must be an object, e.g. {\"cmd\": \"get\", \"args\": {\"file\": \"a.json\", \"path\": \"a\"}}",
        ));
    }
    Ok(())
}

/// Queue one JSON-RPC error response.
fn answer(out: &mpsc::UnboundedSender<Vec<u8>>, id: Value, code: i64, message: &str) {
    let response = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut line = response.to_string().into_bytes();
    line.push(b'\n');
    let _ = out.send(line);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &str) -> Option<(Value, i64)> {
        match check(line.as_bytes()) {
            Ok(()) => None,
            Err(refusal) => refusal.map(|(id, code, _)| (id, code)),
        }
    }

    #[test]
    fn lines_rmcp_would_drop_are_answered() {
        assert_eq!(code("{not json"), Some((Value::Null, -32700)));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":4,"method":"x","params":{"a":"\ud800"}}"#),
            Some((json!(4), -32700))
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}}"#),
            Some((json!(5), -32602))
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"json","arguments":"get"}}"#
            ),
            Some((json!(6), -32602))
        );
        assert_eq!(
            code(
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"json","arguments":{}}}"#
            ),
            None
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#),
            None
        );
    }
}
