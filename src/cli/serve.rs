//! `argmend serve`: JSON Lines over stdin and stdout for agent loops in any
//! language. Requests run concurrently on their own threads; each response
//! carries its request's id.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use clap::Args;
use serde_json::{Value, json};

use super::call::{RuntimeArgs, repairs_json};

/// Options of `argmend serve`.
#[derive(Debug, Args)]
#[command(after_help = "\
Each request is one line:
  {\"id\": 1, \"tool\": \"@json\", \"args\": {\"cmd\": \"keys\", \"args\": {\"file\": \"a.json\"}}}
  {\"id\": 2, \"tool\": \"@json\", \"args\": \"get --file a.json --path data\"}
and gets one line, in the order the calls finish:
  {\"id\": 1, \"ok\": true, \"output\": \"…\", \"repairs\": {\"strategy\": 1, \"fixes\": []}}
  {\"id\": 2, \"ok\": false, \"error\": \"…\"}
A line that is not such a request gets an error with \"id\": null. At the end
of input the server finishes the calls in flight, then exits 0.")]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub(crate) runtime: RuntimeArgs,
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
    let out = Arc::new(Mutex::new(io::stdout()));
    let mut in_flight = Vec::new();
    for line in io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let (id, tool, call_args) = match parse_request(&line) {
            Ok(request) => request,
            Err(error) => {
                respond(&out, &json!({"id": null, "ok": false, "error": error}));
                continue;
            }
        };
        let dispatcher = Arc::clone(&dispatcher);
        let shared = Arc::clone(&out);
        let spawned = thread::Builder::new()
            .name("argmend-serve".to_owned())
            .spawn(move || {
                let result = dispatcher.run_value(&tool, &call_args);
                let repairs = repairs_json(result.strategy.map(|s| s.number()), &result.fixes);
                let response = if result.ok {
                    json!({"id": id, "ok": true, "output": result.output, "repairs": repairs})
                } else {
                    json!({"id": id, "ok": false, "error": result.output, "repairs": repairs})
                };
                respond(&shared, &response);
            });
        match spawned {
            Ok(handle) => in_flight.push(handle),
            Err(error) => respond(
                &out,
                &json!({"id": null, "ok": false, "error": format!("cannot start the call: {error}")}),
            ),
        }
        // Forget the calls that have finished, so a long session stays small.
        in_flight.retain(|handle| !handle.is_finished());
    }
    for handle in in_flight {
        let _ = handle.join();
    }
    ExitCode::SUCCESS
}

/// The id, tool and arguments of a request line.
fn parse_request(line: &str) -> Result<(Value, String, Value), String> {
    let value: Value = serde_json::from_str(line)
        .map_err(|error| format!("the request is not JSON ({error}); send {{\"id\": …, \"tool\": \"@json\", \"args\": …}}"))?;
    let Value::Object(mut request) = value else {
        return Err(
            "the request must be an object {\"id\": …, \"tool\": …, \"args\": …}".to_owned(),
        );
    };
    let id = request.remove("id").unwrap_or(Value::Null);
    let Some(Value::String(tool)) = request.remove("tool") else {
        return Err("the request needs \"tool\": a tool name such as \"@json\"".to_owned());
    };
    let args = request
        .remove("args")
        .unwrap_or(Value::String(String::new()));
    Ok((id, tool, args))
}

/// Write one response line; a closed stdout is ignored (the client left).
fn respond(out: &Mutex<io::Stdout>, response: &Value) {
    let out = out.lock().unwrap_or_else(PoisonError::into_inner);
    let mut out = out.lock();
    let _ = writeln!(out, "{response}");
    let _ = out.flush();
}
