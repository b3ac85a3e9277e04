//! The gate in front of the MCP server: every line from the client passes
//! here first, so every request with an id gets exactly one response, and
//! the server reads no faster than its answers are taken.
//!
//! Why answers: rmcp drops what it cannot use without a word. A line over
//! its 16 MiB limit, a line that is not JSON or not UTF-8, a string with a
//! lone surrogate: the client waits for an answer until its own timeout. And
//! it answers a bad shape (`"jsonrpc": "1.0"`, `"id": 1.5`) with no id. The
//! gate reads stdin itself, answers those lines as JSON-RPC 2.0 says
//! (`-32700` parse error, `-32600` invalid request, `-32602` invalid params,
//! with the id when one can be read; see [`check`](super::check)),
//! and forwards the rest to rmcp through an in-memory pipe. rmcp's output
//! comes back through another pipe and is written to stdout a whole line at
//! a time, so the gate's answers never split one of its lines.
//!
//! Why a window: rmcp reads every line it is given, starts a task for each
//! request at once and queues each answer in a task of its own. 200
//! pipelined `get`s on a 19 MB file held 200 copies of it (3 GB), and a
//! client that read nothing grew the server by 150 MB per 2,500 calls. Now
//! a request takes a place in a window of [`limits::workers`] +
//! [`limits::queue`] places before it is forwarded, and gives it back when
//! its answer has been written to stdout (or the client cancelled it). With
//! the window full the gate reads no more input: back-pressure on a client
//! that sends faster than calls finish, and on one that does not read its
//! answers, as `serve` does. A request whose id is already in the window is
//! refused with that id (rmcp would answer only one of the two).
//!
//! Why the gate keeps cancels to itself (issue 43, hole 10): rmcp freed a
//! cancelled request's id at once, while its work ran on; a request that
//! reused the id then got the cancelled call's answer. Now each request in
//! the window holds the [`CancelToken`] its call runs under (its deadline
//! counted from when the line was read); `notifications/cancelled` trips
//! that token and is not forwarded, so rmcp answers the call as usual once
//! its work has stopped, and the gate drops that answer (a cancelled
//! request gets none, as MCP says) and only then frees the id. A client
//! whose stdout is gone cancels the session's token, and every call with it.

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use argmend::CancelToken;
use rmcp::model::RequestId;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use super::check::{BATCH_REFUSAL, Verdict, answered_id, check};
use crate::cli::shared::limits::{self, MAX_LINE as MAX_MESSAGE};
use crate::cli::shared::runtime::find_id;

/// Lines queued for stdout: rmcp's answers and the gate's own. A handful
/// is enough to keep stdout busy; more would only hold answers nobody reads.
const OUTBOX: usize = 8;

/// The pipes between the gate and rmcp: rmcp reads `server_in` and writes
/// `server_out`.
pub(crate) struct Pipes {
    pub(crate) server_in: DuplexStream,
    pub(crate) server_out: DuplexStream,
}

/// One line for stdout; `answers`: the request it answers, given back to
/// the window once the line is written.
struct Outgoing {
    line: Vec<u8>,
    answers: Option<RequestId>,
}

/// The requests forwarded to rmcp and not yet answered on stdout, each
/// holding a place of the window and the token its call runs under.
pub(crate) struct Window {
    places: Arc<Semaphore>,
    size: u32,
    open: Mutex<HashMap<RequestId, Entry>>,
    /// Cancelled when the client has gone: every call's token is its child.
    session: CancelToken,
    time_limit: Duration,
}

/// One request in the window.
struct Entry {
    _place: OwnedSemaphorePermit,
    token: CancelToken,
    /// The client cancelled it: its answer is dropped, not written.
    cancelled: bool,
}

impl Window {
    fn new(places: usize, session: CancelToken, time_limit: Duration) -> Self {
        let size = u32::try_from(places).unwrap_or(u32::MAX).max(1);
        Window {
            places: Arc::new(Semaphore::new(size as usize)),
            size,
            open: Mutex::new(HashMap::new()),
            session,
            time_limit,
        }
    }

    fn holds(&self, id: &RequestId) -> bool {
        self.lock().contains_key(id)
    }

    /// The token the call `id` runs under (`None`: not a request in the
    /// window, which the gate never lets happen).
    pub(crate) fn token(&self, id: &RequestId) -> Option<CancelToken> {
        self.lock().get(id).map(|entry| entry.token.clone())
    }

    /// Wait for a place for `id` (this is where the gate stops reading);
    /// `false` once stdout is closed (nobody reads answers any more).
    /// `read`: when its line was read, where its time limit starts.
    async fn enter(&self, id: RequestId, read: Instant) -> bool {
        let token = self.session.child(read.checked_add(self.time_limit));
        match Arc::clone(&self.places).acquire_owned().await {
            Ok(place) => {
                let entry = Entry {
                    _place: place,
                    token,
                    cancelled: false,
                };
                self.lock().insert(id, entry);
                true
            }
            Err(_) => false,
        }
    }

    /// The client cancelled `id`: its work stops at its next check, and
    /// its answer will be dropped. Its place and id are kept until then.
    fn cancel(&self, id: &RequestId) {
        if let Some(entry) = self.lock().get_mut(id) {
            entry.cancelled = true;
            entry.token.cancel();
        }
    }

    /// Wait until every forwarded request is answered on stdout (or stdout
    /// is closed). Why: at the end of input rmcp waits 5 s for the calls in
    /// flight and drops the answers of slower ones; `serve` finishes them.
    /// Each forwarded request is answered within its time limit, so this ends.
    async fn drain(&self) {
        let _ = self.places.acquire_many(self.size).await;
    }

    /// stdout is closed: no answer will be written, nothing waits for one,
    /// and every call stops.
    fn close(&self) {
        self.session.cancel();
        self.places.close();
    }

    /// `id` is answered: give its place back (nothing if it holds none);
    /// `true` when the client cancelled it, and the answer is to be dropped.
    fn leave(&self, id: &RequestId) -> bool {
        let entry = self.lock().remove(id);
        entry.is_some_and(|entry| entry.cancelled)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, Entry>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Start the gate on stdin and stdout; returns rmcp's ends of the pipes, a
/// task that ends once everything rmcp wrote has reached stdout, and the
/// window (where each call's token is). Each call gets `time_limit` from
/// when its line is read, and is cancelled with `session`.
pub(crate) fn start(
    session: CancelToken,
    time_limit: Duration,
) -> (Pipes, tokio::task::JoinHandle<()>, Arc<Window>) {
    let (gate_in, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, gate_out) = tokio::io::duplex(1 << 16);
    let (lines, mut outbox) = mpsc::channel::<Outgoing>(OUTBOX);
    let window = Arc::new(Window::new(
        limits::workers() + limits::queue(),
        session,
        time_limit,
    ));
    let handed = Arc::clone(&window);
    // One writer owns stdout: rmcp's lines and the gate's answers queue here.
    let settled = Arc::clone(&window);
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(Outgoing { line, answers }) = outbox.recv().await {
            // The place is given back as the answer goes out, not after: a
            // client that reads it and reuses its id at once must find the
            // id free. The line in hand is the one more the window allows.
            if let Some(id) = answers
                && settled.leave(&id)
            {
                // Cancelled: MCP says a cancelled request gets no answer.
                continue;
            }
            if stdout.write_all(&line).await.is_err() || stdout.flush().await.is_err() {
                settled.close();
                return;
            }
        }
    });
    let from_server = lines.clone();
    let copier = tokio::spawn(async move {
        let mut reader = tokio::io::BufReader::new(gate_out);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {
                    let answers = answered_id(&line);
                    if from_server.send(Outgoing { line, answers }).await.is_err() {
                        return;
                    }
                }
            }
        }
    });
    tokio::spawn(async move {
        let stdin = tokio::io::BufReader::with_capacity(1 << 16, tokio::io::stdin());
        let _ = pass(stdin, gate_in, &lines, &window).await;
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
        handed,
    )
}

/// Read client lines until the end of input; forward the good ones to
/// `server` (each request once it has a place in `window`), answer the
/// others on `out`. Dropping `server` at the end tells rmcp the client has
/// gone.
async fn pass(
    mut input: impl AsyncBufRead + Unpin,
    mut server: impl AsyncWrite + Unpin,
    out: &mpsc::Sender<Outgoing>,
    window: &Window,
) -> io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let oversized = read_line(&mut input, &mut line).await?;
        if oversized {
            let message = format!(
                "Invalid Request: the message is over {} MiB, the most argmend reads in one \
                 line; send a file's path instead of its text",
                MAX_MESSAGE >> 20
            );
            answer(out, find_id(&line), -32600, &message).await;
            continue;
        }
        if line.is_empty() {
            window.drain().await;
            return server.shutdown().await;
        }
        let read = Instant::now();
        match check(&line) {
            Verdict::Forward {
                request: None,
                cancels: Some(id),
            } => {
                // Kept from rmcp, which would free the id while the work
                // runs on (see the module's doc).
                window.cancel(&id);
            }
            Verdict::Forward { request, cancels } => {
                if let Some(id) = request {
                    if window.holds(&id) {
                        let message = format!(
                            "Invalid Request: id {} is already taken by a request not yet \
                             answered; give each request an id of its own",
                            id.clone().into_json_value()
                        );
                        answer(out, id.into_json_value(), -32600, &message).await;
                        continue;
                    }
                    if !window.enter(id, read).await {
                        return server.shutdown().await;
                    }
                }
                server.write_all(&line).await?;
                if line.last() != Some(&b'\n') {
                    server.write_all(b"\n").await?;
                }
                server.flush().await?;
                if let Some(id) = cancels {
                    window.cancel(&id);
                }
            }
            Verdict::Refuse(id, code, message) => answer(out, id, code, &message).await,
            Verdict::RefuseBatch(ids) => {
                if !ids.is_empty() {
                    let errors: Vec<Value> = ids
                        .into_iter()
                        .map(|id| error(id, -32600, BATCH_REFUSAL))
                        .collect();
                    send(out, Value::Array(errors)).await;
                }
            }
            Verdict::Drop => {}
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

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Queue one JSON-RPC error response (waiting while stdout is not taken).
async fn answer(out: &mpsc::Sender<Outgoing>, id: Value, code: i64, message: &str) {
    send(out, error(id, code, message)).await;
}

async fn send(out: &mpsc::Sender<Outgoing>, response: Value) {
    let mut line = response.to_string().into_bytes();
    line.push(b'\n');
    let _ = out
        .send(Outgoing {
            line,
            answers: None,
        })
        .await;
}
