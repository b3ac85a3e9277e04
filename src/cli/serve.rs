//! `argmend serve`: JSON Lines over stdin and stdout for agent loops in any
//! language. Requests run on a fixed pool of workers fed through a bounded
//! queue; each response carries its request's id.
//!
//! Why a pool and a bounded queue: a thread per request let 400 pipelined
//! `get`s on a 15 MB file hold 400 copies of it (4.7 GB). Now at most
//! `WORKERS` calls run and `WORKERS` more wait; past that the reader stops
//! reading stdin until a worker is free (back-pressure on the client), so
//! memory stays within a bound set by the worker count, not by the client.

use std::io::{self, BufRead, Read, Write};
use std::process::ExitCode;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use argmend::Dispatcher;
use clap::Args;
use serde_json::{Value, json};

use super::call::{RuntimeArgs, find_id, repairs_json};
use super::limits::{self, MAX_LINE as MAX_REQUEST};

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
wait; beyond that the server reads no more input until a call finishes. At
the end of input the server finishes the calls in flight, then exits 0.")]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub(crate) runtime: RuntimeArgs,
}

/// One request ready to run.
struct Job {
    id: Value,
    tool: String,
    args: Value,
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
    let out = Arc::new(Mutex::new(io::stdout()));
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
    read_requests(io::stdin().lock(), &send, &out);
    drop(send);
    for worker in pool {
        let _ = worker.join();
    }
    ExitCode::SUCCESS
}

/// Read request lines until the end of input, answering the bad ones at
/// once and queueing the rest (blocking while the queue is full).
fn read_requests(mut input: impl BufRead, send: &SyncSender<Job>, out: &Mutex<io::Stdout>) {
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
            let id = find_id(&line[..line.len().min(4096)]);
            line.clear();
            if skip_line(&mut input).is_err() {
                return;
            }
            respond(
                out,
                &error(
                    id,
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
                let id = find_id(&line);
                respond(
                    out,
                    &error(
                        id,
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
        match parse_request(text) {
            Ok(job) => {
                if send.send(job).is_err() {
                    return;
                }
            }
            Err((id, message)) => respond(out, &error(id, &message)),
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
fn work(dispatcher: &Dispatcher, out: &Mutex<io::Stdout>, receive: &Mutex<Receiver<Job>>) {
    loop {
        let job = receive
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .recv();
        let Ok(Job { id, tool, args }) = job else {
            return;
        };
        let result = dispatcher.run_value(&tool, &args);
        let repairs = repairs_json(
            result.strategy.map(|s| s.number()),
            &result.fixes,
            &result.doubts,
        );
        let response = if result.ok {
            json!({"id": id, "ok": true, "output": result.output, "repairs": repairs})
        } else {
            json!({"id": id, "ok": false, "error": result.output, "repairs": repairs})
        };
        respond(out, &response);
    }
}

fn error(id: Value, message: &str) -> Value {
    json!({"id": id, "ok": false, "error": message})
}

/// The id, tool and arguments of a request line; on error, the id (when
/// one could be read) and the message.
fn parse_request(line: &str) -> Result<Job, (Value, String)> {
    let value: Value = serde_json::from_str(line).map_err(|error| {
        (
            find_id(line.as_bytes()),
            format!(
                "the request is not JSON ({error}); send {{\"id\": …, \"tool\": \"@json\", \
                 \"args\": …}}"
            ),
        )
    })?;
    let Value::Object(mut request) = value else {
        return Err((
            Value::Null,
            "the request must be an object {\"id\": …, \"tool\": …, \"args\": …}".to_owned(),
        ));
    };
    let id = request.remove("id").unwrap_or(Value::Null);
    let Some(Value::String(tool)) = request.remove("tool") else {
        return Err((
            id,
            "the request needs \"tool\": a tool name such as \"@json\"".to_owned(),
        ));
    };
    let args = request
        .remove("args")
        .unwrap_or(Value::String(String::new()));
    Ok(Job { id, tool, args })
}

/// Write one response line; a closed stdout is ignored (the client left).
fn respond(out: &Mutex<io::Stdout>, response: &Value) {
    let out = out.lock().unwrap_or_else(PoisonError::into_inner);
    let mut out = out.lock();
    let _ = writeln!(out, "{response}");
    let _ = out.flush();
}
