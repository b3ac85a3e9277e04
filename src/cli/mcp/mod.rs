//! `argmend mcp`: a Model Context Protocol server over stdio with three
//! tools, `json`, `diff` and `repair`.
//!
//! `json` and `diff` take the same envelope a model writes in text,
//! `{"cmd": VERB, "args": {…}}`, and run through the same [`Dispatcher`] as
//! `argmend call` and `argmend serve`: the arguments are normalized first,
//! so an `args` that arrives as a string of broken JSON or as a command line
//! (`--file resp.json --path data`) still runs, and the repairs are reported
//! in the result's structured content. `repair` mends a JSON text, with the
//! tool name (and a schema) optional.
//!
//! The protocol itself (framing, version negotiation, capabilities) is the
//! official SDK's, `rmcp`. Tool calls block (file reads, diffs), so each one
//! runs on the runtime's blocking pool and the server keeps answering.
//!
//! Bounds, as `serve` has them: at most [`limits::workers`] calls run at
//! once (a semaphore, [`Server::pool`]), and the gate in front of rmcp
//! ([`gate`]) lets at most as many more wait and reads no more input
//! while its answers are not taken.
//!
//! Each call runs under the [`CancelToken`] the gate gave its request (its
//! deadline, the client's cancel, the client gone), and is answered when its
//! work has stopped: the dispatcher waits for the tool's thread, and
//! `repair` looks at the token between chunks. So a call's worker and its id
//! are never taken by work that is still running.

mod check;
mod gate;
mod repair;

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use argmend::{CancelToken, Dispatcher, ToolResult};
use clap::Args;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use self::repair::{Caps, refused, repair_call};
use crate::cli::shared::limits;
use crate::cli::shared::runtime::{RuntimeArgs, repairs_json};

/// Options of `argmend mcp`.
#[derive(Debug, Args)]
#[command(after_help = "\
Speaks the Model Context Protocol on stdin and stdout; register it with an
MCP client as a stdio server, e.g. in a client's JSON configuration:
  {\"mcpServers\": {\"argmend\": {\"command\": \"argmend\",
                               \"args\": [\"mcp\", \"--workspace\", \"/path/to/project\"]}}}
Tools:
  json    {\"cmd\": \"get\", \"args\": {\"file\": \"resp.json\", \"path\": \"data.items[0]\"}}
  diff    {\"cmd\": \"apply\", \"args\": {\"file\": \"app.py\", \"patch\": \"…\", \"dry_run\": true}}
  repair  {\"text\": \"{name: 'Ada',}\", \"tool\": \"write_file\"}
Malformed arguments are repaired before use; each result says what was repaired.
At most 2 to 4 calls run at once (one per core) and as many more wait; beyond
that, or while answers are not read, the server reads no more input.")]
pub(crate) struct McpArgs {
    #[command(flatten)]
    pub(crate) runtime: RuntimeArgs,
}

/// Run `argmend mcp` until the client closes stdin.
pub(crate) fn main(args: &McpArgs) -> ExitCode {
    let dispatcher = match args.runtime.dispatcher() {
        Ok(dispatcher) => Arc::new(dispatcher),
        Err(error) => return fail(&error),
    };
    // rmcp's warnings (a message it drops, a protocol error) go to stderr,
    // where MCP clients keep a server's log.
    let _ = tracing_subscriber::fmt()
        .with_writer(io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .with_ansi(false)
        .try_init();
    let _ = writeln!(
        io::stderr().lock(),
        "argmend mcp: workspace {}",
        dispatcher.workspace().root().display()
    );
    let caps = Caps {
        max_output: args.runtime.max_output,
        time_limit: Duration::from_millis(args.runtime.timeout_ms),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start the async runtime: {error}")),
    };
    let session = CancelToken::new();
    crate::cli::shared::gone::watch_stdout(&session);
    let served = runtime.block_on(async move {
        let (pipes, flushed, window) = gate::start(session, caps.time_limit);
        let transport = AsyncRwTransport::new_server(pipes.server_in, pipes.server_out)
            .with_max_line_length(limits::MAX_LINE + 2);
        let pool = Arc::new(Semaphore::new(limits::workers()));
        let server = Server {
            dispatcher,
            caps,
            pool,
            window,
        }
        .serve(transport)
        .await
        .map_err(|error| format!("the MCP handshake failed: {error}"))?;
        let stopped = server
            .waiting()
            .await
            .map_err(|error| format!("the MCP server stopped: {error}"));
        // Every answer rmcp wrote reaches stdout before the process ends.
        let _ = flushed.await;
        stopped
    });
    // The stdin reader may still be parked in a blocking read; do not wait for it.
    runtime.shutdown_background();
    match served {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => fail(&error),
    }
}

fn fail(message: &str) -> ExitCode {
    let _ = writeln!(io::stderr().lock(), "argmend: {message}");
    ExitCode::from(2)
}

/// The MCP handler: the tool table and a dispatcher shared by every call.
struct Server {
    dispatcher: Arc<Dispatcher>,
    caps: Caps,
    /// The workers: a call runs only while it holds one, from its start
    /// until its work really ends (not when a timeout answers it), so
    /// timed-out work cannot pile up beside new calls. Why: on tokio's
    /// blocking pool alone, 200 pipelined `get`s on a 19 MB file ran 200 at
    /// once and peaked at 3 GB.
    pool: Arc<Semaphore>,
    /// The requests in flight, each with its token.
    window: Arc<gate::Window>,
}

/// Ready once `token` has expired (polled: a token has no wake-up).
async fn expired(token: &CancelToken) {
    while !token.is_expired() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("argmend", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "argmend answers questions about JSON and YAML files (`json`), diffs and \
                 strictly applies patches (`diff`), and mends broken JSON (`repair`). Every \
                 path stays inside the server's workspace. Malformed arguments are repaired \
                 before use.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if !matches!(name.as_str(), "json" | "diff" | "repair") {
            return Err(McpError::invalid_params(
                // Sorted, as the dispatcher lists its tools.
                format!("unknown tool `{name}`: the tools are diff, json, repair"),
                None,
            ));
        }
        // The gate made the token when it read the request; a request it
        // did not see (none) still gets the time limit.
        let token = self
            .window
            .token(&context.id)
            .unwrap_or_else(|| CancelToken::with_deadline(Instant::now() + self.caps.time_limit));
        let timed_out = |caps: Caps| {
            let message = caps.timeout_message();
            if name == "repair" {
                return refused(message);
            }
            let mut answer = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
            answer.structured_content = Some(
                json!({"ok": false, "output": message, "repairs": {"fixes": [], "strategy": null}}),
            );
            answer
        };
        // Wait for a worker; a call that expires meanwhile (its deadline,
        // the client's cancel) leaves the queue without starting (the gate
        // drops the answer of a cancelled one).
        let worker = tokio::select! {
            worker = Arc::clone(&self.pool).acquire_owned() => worker.ok(),
            () = expired(&token) => return Ok(timed_out(self.caps).into()),
        };
        let arguments = request.arguments.unwrap_or_default();
        let dispatcher = Arc::clone(&self.dispatcher);
        let caps = self.caps;
        let call = move || {
            let _worker = worker;
            match name.as_str() {
                // Called by their MCP names, so every message says `json`/`diff`.
                "json" => envelope_call(&dispatcher, "json", arguments, &token),
                "diff" => envelope_call(&dispatcher, "diff", arguments, &token),
                _ => repair_call(arguments, caps, &token),
            }
        };
        // Tools read files and diff them: keep them off the protocol's thread.
        // The answer comes when the work has stopped, soon after the token
        // expires: the dispatcher waits for the tool's thread to see it, and
        // `repair` checks it between chunks of the text. So the worker, and
        // the request's id, are free only once nothing runs for them.
        match tokio::task::spawn_blocking(call).await {
            Ok(result) => Ok(result.into()),
            Err(error) => Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "the call failed unexpectedly: {error}"
            ))])
            .into()),
        }
    }
}

/// The tool list: each input schema comes from the tool's own verb table.
fn tools() -> Vec<Tool> {
    let object = |value: Value| match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    };
    vec![
        Tool::new(
            "json",
            "Ask about a JSON or YAML payload without reading it whole: get a value at a \
             path, list keys, query an array with a filter, describe its schema, validate, \
             or pretty-print. Send {\"cmd\": VERB, \"args\": {…}}.",
            object(argmend::tools::json::input_schema()),
        )
        .with_raw_output_schema(object(call_output_schema()))
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "diff",
            "Unified diffs of files, texts, directories or JSON documents, and a strict patch \
             apply that refuses at the first line that does not match and says why. Send \
             {\"cmd\": VERB, \"args\": {…}}; apply is a dry run unless dry_run is false.",
            object(argmend::tools::diff::input_schema()),
        )
        .with_raw_output_schema(object(call_output_schema()))
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .open_world(false),
        ),
        Tool::new(
            "repair",
            "Mend broken JSON (single quotes, bare keys, trailing commas, comments, Python \
             literals, truncation, prose around it). With `tool`, the text is read as that \
             tool's arguments (a bare value goes to the tool's main field, a command line \
             becomes fields); with `schema`, values are coerced to the declared types.",
            object(repair_schema()),
        )
        .with_raw_output_schema(object(repair_output_schema()))
        .with_annotations(
            ToolAnnotations::new()
                .read_only(true)
                .idempotent(true)
                .open_world(false),
        ),
    ]
}

/// What the repairs of a call's arguments look like in a result.
fn repairs_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "strategy": {"type": ["integer", "null"], "description": "Which strategy the arguments needed (1: valid JSON … 6: a plain value or command line)."},
            "fixes": {"type": "array", "items": {"type": "object", "properties": {
                "kind": {"type": "string"}, "offset": {"type": "integer"}}}},
            "doubt": doubt_schema(),
        },
    })
}

/// The doubts of a repair: absent when there is none.
fn doubt_schema() -> Value {
    json!({
        "type": "array",
        "description": "Where the arguments could be read two ways and argmend chose one (absent when there is no doubt): the kind, the byte offset in the arguments and why; ask for the call again if a guess is not good enough.",
        "items": {"type": "object", "properties": {
            "kind": {"type": "string"}, "offset": {"type": "integer"}, "reason": {"type": "string"}}},
    })
}

/// The structured content of a `json` or `diff` result.
fn call_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ok": {"type": "boolean", "description": "Whether the tool answered (false: `output` says why not)."},
            "output": {"type": "string", "description": "The answer as the model reads it (also the text content)."},
            "repairs": repairs_schema(),
        },
        "required": ["ok", "output", "repairs"],
    })
}

/// The structured content of a `repair` result (the mended JSON itself is
/// the text content, not repeated here).
fn repair_output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["valid", "repaired", "completed", "not_json", "refused"]},
            "fixes": repairs_schema()["properties"]["fixes"].clone(),
            "doubt": doubt_schema(),
            "strategy": {"type": ["integer", "null"]},
            "reason": {"type": "string", "description": "Why there is no JSON, or why it was not sent."},
        },
        "required": ["verdict"],
    })
}

fn repair_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "The text to mend."},
            "tool": {"type": "string", "description": "The tool the text is the arguments of (e.g. `write_file`, `run_command`, `@json`)."},
            "schema": {"type": "object", "description": "A JSON Schema for the arguments: coerce values to its types."},
            "strict": {"type": "boolean", "description": "With a schema: drop keys it does not declare."},
        },
        "required": ["text"],
        "additionalProperties": false,
        "examples": [{"text": "{name: 'Ada', tags: ['x',],}"}, {"text": "main.go", "tool": "read_file"}],
    })
}

/// `json` or `diff`: the arguments are the envelope; the dispatcher
/// normalizes it (and mends an `args` given as a string) before the tool runs.
fn envelope_call(
    dispatcher: &Dispatcher,
    tool: &str,
    arguments: JsonObject,
    token: &CancelToken,
) -> CallToolResult {
    let result = dispatcher.run_value_with(tool, &Value::Object(arguments), token);
    tool_result(result)
}

fn tool_result(result: ToolResult) -> CallToolResult {
    let repairs = repairs_json(
        result.strategy.map(|s| s.number()),
        &result.fixes,
        &result.doubts,
    );
    let structured = json!({"ok": result.ok, "output": result.output, "repairs": repairs});
    let content = vec![ContentBlock::text(result.output)];
    let mut answer = if result.ok {
        CallToolResult::success(content)
    } else {
        CallToolResult::error(content)
    };
    answer.structured_content = Some(structured);
    answer
}
