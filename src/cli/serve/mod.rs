//! `argmend serve`: JSON Lines over stdin and stdout for agent loops in any
//! language. Requests run on a fixed pool of workers fed through a bounded
//! queue; each response carries its request's id.
//!
//! Why a pool and a bounded queue: a thread per request let 400 pipelined
//! `get`s on a 15 MB file hold 400 copies of it (4.7 GB). Now at most
//! `WORKERS` calls run and `WORKERS` more wait; past that the reader stops
//! reading stdin until a worker is free (back-pressure on the client), so
//! memory stays within a bound set by the worker count, not by the client.
//!
//! Why each request gets a token when it is read (issue 43): its deadline
//! counts from then, so a call that waited in the queue past it is refused
//! without starting, and the token is a child of the session's, which
//! [`gone`](crate::cli::shared::gone) cancels when the client has gone, so nothing runs
//! for nobody. The tool's thread ends with its token; the dispatcher
//! answers once it has.
//!
//! Why ids stay raw JSON text: an id comes back exactly as it was sent. A
//! parsed number made `123456789012345678901234567890` come back as
//! `1.2345678901234568e+29` and `1e400` as `null`.

use std::collections::HashMap;
use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use argmend::{CancelToken, Dispatcher};
use clap::Args;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::cli::shared::limits::{self, MAX_LINE as MAX_REQUEST};
use crate::cli::shared::runtime::{RuntimeArgs, repairs_json};

/// Options of `argmend serve`.
#[derive(Debug, Args)]
#[command(after_help = "\
Each request is one line:
  {\"id\": 1, \"tool\": \"@json\", \"args\": {\"cmd\": \"keys\", \"args\": {\"file\": \"a.json\"}}}
  {\"id\": 2, \"tool\": \"@json\", \"args\": \"get --file a.json --path data\"}
and gets one line, in the order the calls finish:
  {\"id\": 1, \"ok\": true, \"output\": \"…\", \"repairs\": {\"strategy\": 1, \"fixes\": []}}
  {\"id\": 2, \"ok\": false, \"error\": \"…\"}
\"repairs\" also has \"doubt\": [{\"kind\", \"offset\", \"reason\"}, …] when the arguments
could be read two ways and were read one (absent when there is no doubt).
Every line gets exactly one answer: one that is not a request (not JSON, not
UTF-8, over 64 MiB) gets an error with its id when it can be read, else
\"id\": null. At most 2 to 4 calls run at once (one per core) and as many more
wait; beyond that the server reads no more input until a call finishes. A
call's --timeout-ms counts from when its line is read: one that waited past
it is refused without starting, and one that runs past it is answered once
its work has stopped. Ids come back exactly as sent. At the end of input the
server finishes the calls in flight, then exits 0; if the client closes its
end of stdout, the calls are cancelled.")]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub(crate) runtime: RuntimeArgs,
}

/// One request ready to run.
struct Job {
    /// The id's JSON text as sent (`null` when there was none).
    id: String,
    tool: String,
    /// The arguments: a string's content, or the JSON text of anything else.
    args: String,
    token: CancelToken,
}

/// What every answer goes through: stdout, and the session's token, which a
/// failed write cancels (the client has gone).
struct Out {
    stdout: Mutex<io::Stdout>,
    session: CancelToken,
}

/// Run `argmend serve`.
pub(crate) fn main(args: &ServeArgs) -> ExitCode {
    let dispatcher = match args.runtime.dispatcher() {
        Ok(dispatcher) => Arc::new(dispatcher),
        Err(error) => {
            let _ = writeln!(io::stderr().lock(), "argmend: {error}");
            return ExitCode::from(2);
        }
    };
    let _ = writeln!(
        io::stderr().lock(),
        "argmend serve: workspace {}",
        dispatcher.workspace().root().display()
    );
    let session = CancelToken::new();
    crate::cli::shared::gone::watch_stdout(&session);
    let out = Arc::new(Out {
        stdout: Mutex::new(io::stdout()),
        session,
    });
    let time_limit = Duration::from_millis(args.runtime.timeout_ms);
    let n_workers = limits::workers();
    let (send, receive) = sync_channel::<Job>(limits::queue());
    let receive = Arc::new(Mutex::new(receive));
    let pool: Vec<_> = (0..n_workers)
        .filter_map(|_| {
            let (dispatcher, out, receive) = (
                Arc::clone(&dispatcher),
                Arc::clone(&out),
                Arc::clone(&receive),
            );
            thread::Builder::new()
                .name("argmend-serve".to_owned())
                .spawn(move || work(&dispatcher, &out, &receive))
                .ok()
        })
        .collect();
    if pool.is_empty() {
        let _ = writeln!(io::stderr().lock(), "argmend: cannot start a worker thread");
        return ExitCode::from(2);
    }
    read_requests(io::stdin().lock(), &send, &out, time_limit);
    drop(send);
    for worker in pool {
        let _ = worker.join();
    }
    ExitCode::SUCCESS
}

/// Read request lines until the end of input, answering the bad ones at
/// once and queueing the rest (blocking while the queue is full).
fn read_requests(mut input: impl BufRead, send: &SyncSender<Job>, out: &Out, time_limit: Duration) {
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut input)
            .take(MAX_REQUEST as u64 + 1)
            .read_until(b'\n', &mut line);
        match read {
            Ok(0) => return,
            Ok(_) => {}
            Err(error) => {
                let _ = writeln!(io::stderr().lock(), "argmend: cannot read stdin: {error}");
                return;
            }
        }
        if line.len() > MAX_REQUEST && line.last() != Some(&b'\n') {
            // Too long: answer it from its start, then skip to its end
            // without holding it.
            let id = find_id_text(&line[..line.len().min(4096)]);
            line.clear();
            if skip_line(&mut input).is_err() {
                return;
            }
            respond(
                out,
                &error(
                    &id,
                    &format!(
                        "the request is over {} MiB, the most one line may hold; send a file's path \
                 (`file`) instead of its text",
                        MAX_REQUEST >> 20
                    ),
                ),
            );
            continue;
        }
        let text = match std::str::from_utf8(&line) {
            Ok(text) => text,
            Err(bad) => {
                let id = find_id_text(&line);
                respond(
                    out,
                    &error(
                        &id,
                        &format!(
                            "the request is not valid UTF-8 (at byte {}); send UTF-8 JSON",
                            bad.valid_up_to()
                        ),
                    ),
                );
                continue;
            }
        };
        if text.trim().is_empty() {
            continue;
        }
        // The call's time counts from here: a request that waits in the
        // queue past its limit is refused without starting.
        let token = out.session.child(Instant::now().checked_add(time_limit));
        match parse_request(text, token) {
            Ok(job) => {
                if send.send(job).is_err() {
                    return;
                }
            }
            Err((id, message)) => respond(out, &error(&id, &message)),
        }
    }
}

/// Skip the rest of an over-long line.
fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', buf) {
            Some(at) => {
                input.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

/// A worker: run queued calls until the queue closes.
fn work(dispatcher: &Dispatcher, out: &Out, receive: &Mutex<Receiver<Job>>) {
    loop {
        let job = receive
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
        let Ok(Job {
            id,
            tool,
            args,
            token,
        }) = job
        else {
            return;
        };
        // An expired token is answered without running (the dispatcher
        // checks it before anything else).
        let result = dispatcher.run_with(&tool, &args, &token);
        let repairs = repairs_json(
            result.strategy.map(|s| s.number()),
            &result.fixes,
            &result.doubts,
        );
        let mut fields = Map::new();
        fields.insert("ok".to_owned(), Value::Bool(result.ok));
        let key = if result.ok { "output" } else { "error" };
        fields.insert(key.to_owned(), Value::String(result.output));
        fields.insert("repairs".to_owned(), repairs);
        respond(out, &answer(&id, fields));
    }
}

fn error(id: &str, message: &str) -> String {
    let mut fields = Map::new();
    fields.insert("ok".to_owned(), Value::Bool(false));
    fields.insert("error".to_owned(), Value::String(message.to_owned()));
    answer(id, fields)
}

/// One answer line: `fields` and the id's own text, keys in sorted order
/// (as a `serde_json` object prints them).
fn answer(id: &str, fields: Map<String, Value>) -> String {
    let mut line = String::from("{");
    let mut id_written = false;
    for (key, value) in &fields {
        if !id_written && key.as_str() > "id" {
            line.push_str("\"id\":");
            line.push_str(id);
            line.push(',');
            id_written = true;
        }
        line.push_str(&Value::from(key.as_str()).to_string());
        line.push(':');
        line.push_str(&value.to_string());
        line.push(',');
    }
    if !id_written {
        line.push_str("\"id\":");
        line.push_str(id);
        line.push(',');
    }
    line.pop();
    line.push('}');
    line
}

/// The id of a line that is not a request, as the text it was sent in, when
/// it can be read at all (the repair engine reads broken JSON, so
/// `{"id": 7, "tool": ` still has one); `null` otherwise.
fn find_id_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let outcome = argmend::repair(text.as_bytes());
    let members: Option<HashMap<String, Box<RawValue>>> = serde_json::from_str(outcome.text()).ok();
    members
        .and_then(|mut members| members.remove("id"))
        .map(|id| id.get().to_owned())
        .filter(|id| id.starts_with(|c: char| c == '"' || c == '-' || c.is_ascii_digit()))
        .unwrap_or_else(|| "null".to_owned())
}

/// The id, tool and arguments of a request line; on error, the id's text
/// (`null` when none could be read) and the message.
fn parse_request(line: &str, token: CancelToken) -> Result<Job, (String, String)> {
    let not_json = |error: serde_json::Error| {
        (
            find_id_text(line.as_bytes()),
            format!(
                "the request is not JSON ({error}); send {{\"id\": …, \"tool\": \"@json\", \
                 \"args\": …}}"
            ),
        )
    };
    let whole: &RawValue = serde_json::from_str(line).map_err(not_json)?;
    let members: Option<HashMap<String, Box<RawValue>>> = whole
        .get()
        .starts_with('{')
        .then(|| serde_json::from_str(whole.get()).ok())
        .flatten();
    let Some(mut request) = members else {
        return Err((
            "null".to_owned(),
            "the request must be an object {\"id\": …, \"tool\": …, \"args\": …}".to_owned(),
        ));
    };
    let id = request
        .remove("id")
        .map_or_else(|| "null".to_owned(), |id| id.get().to_owned());
    let tool = request
        .remove("tool")
        .and_then(|tool| serde_json::from_str::<String>(tool.get()).ok());
    let Some(tool) = tool else {
        return Err((
            id,
            "the request needs \"tool\": a tool name such as \"@json\"".to_owned(),
        ));
    };
    let args = match request.remove("args") {
        None => String::new(),
        Some(args) if args.get().starts_with('"') => {
            serde_json::from_str::<String>(args.get()).map_err(not_json)?
        }
        Some(args) => args.get().to_owned(),
    };
    Ok(Job {
        id,
        tool,
        args,
        token,
    })
}

/// Write one response line. A closed stdout means the client has gone:
/// the session's token is cancelled, so the calls in flight and queued end.
fn respond(out: &Out, response: &str) {
    let stdout = out.stdout.lock().unwrap_or_else(PoisonError::into_inner);
    let mut stdout = stdout.lock();
    let written = writeln!(stdout, "{response}").and_then(|()| stdout.flush());
    if written.is_err() {
        out.session.cancel();
    }
}
