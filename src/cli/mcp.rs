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

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Arc;

use argmend::{
    Dispatcher, SchemaMode, ToolMap, ToolOptions, ToolResult, Verdict, normalize_tool_args_with,
    repair,
};
use clap::Args;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

use super::batch::doubt_value;
use super::call::{RuntimeArgs, repairs_json};
use super::mcp_gate;

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
Malformed arguments are repaired before use; each result says what was repaired.")]
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
        time_limit: std::time::Duration::from_millis(args.runtime.timeout_ms),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start the async runtime: {error}")),
    };
    let served = runtime.block_on(async move {
        let (pipes, flushed) = mcp_gate::start();
        let transport = AsyncRwTransport::new_server(pipes.server_in, pipes.server_out)
            .with_max_line_length(mcp_gate::MAX_MESSAGE + 2);
        let server = Server { dispatcher, caps }
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
}

/// The limits `repair` obeys like the other tools.
#[derive(Debug, Clone, Copy)]
struct Caps {
    max_output: usize,
    /// `json` and `diff` get it from the dispatcher; `repair` here.
    time_limit: std::time::Duration,
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let dispatcher = Arc::clone(&self.dispatcher);
        let caps = self.caps;
        let is_repair = name == "repair";
        let call = move || match name.as_str() {
            // Called by their MCP names, so every message says `json`/`diff`.
            "json" => Ok(envelope_call(&dispatcher, "json", arguments)),
            "diff" => Ok(envelope_call(&dispatcher, "diff", arguments)),
            "repair" => Ok(repair_call(arguments, caps)),
            other => Err(McpError::invalid_params(
                format!("unknown tool `{other}`: the tools are json, diff and repair"),
                None,
            )),
        };
        // Tools read files and diff them: keep them off the protocol's thread.
        // The dispatcher bounds `json` and `diff` in time itself; this bounds
        // `repair` (a slower call is answered and left to finish unheard).
        let limit = if is_repair {
            caps.time_limit
        } else {
            caps.time_limit * 2 + std::time::Duration::from_secs(1)
        };
        let task = tokio::task::spawn_blocking(call);
        let Ok(joined) = tokio::time::timeout(limit, task).await else {
            let message = format!(
                "the call took longer than the server's --timeout-ms of {} ms",
                caps.time_limit.as_millis()
            );
            let mut answer = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
            answer.structured_content = Some(if is_repair {
                json!({"verdict": "refused", "reason": message})
            } else {
                json!({"ok": false, "output": message, "repairs": {"fixes": [], "strategy": null}})
            });
            return Ok(answer.into());
        };
        match joined {
            Ok(result) => result.map(CallToolResponse::from),
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
fn envelope_call(dispatcher: &Dispatcher, tool: &str, arguments: JsonObject) -> CallToolResult {
    let result = dispatcher.run_value(tool, &Value::Object(arguments));
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

/// `repair`: mend `text` (with `tool` and `schema`, as its arguments).
fn repair_call(mut arguments: JsonObject, caps: Caps) -> CallToolResult {
    let text = match take_text(&mut arguments) {
        Ok(text) => text,
        Err(message) => {
            let mut answer = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
            answer.structured_content = Some(json!({"verdict": "refused", "reason": message}));
            return answer;
        }
    };
    let tool = match arguments.remove("tool") {
        Some(Value::String(tool)) => Some(tool),
        None | Some(Value::Null) => None,
        Some(_) => return usage("`tool` must be a string (a tool name such as write_file)"),
    };
    let schema = match arguments.remove("schema") {
        Some(schema @ Value::Object(_)) => Some(schema),
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => match repair(text.as_bytes()).to_value() {
            Some(schema @ Value::Object(_)) => Some(schema),
            _ => return usage("`schema` must be a JSON Schema object"),
        },
        Some(_) => return usage("`schema` must be a JSON Schema object"),
    };
    let strict = matches!(arguments.remove("strict"), Some(Value::Bool(true)));
    if let Some(key) = arguments.keys().next() {
        return usage(&format!("unknown argument `{key}`"));
    }
    if tool.is_none() && schema.is_none() {
        let outcome = repair(text.as_bytes());
        let fixes: Vec<Value> = outcome
            .fixes()
            .iter()
            .map(|fix| json!({"kind": fix.kind.name(), "offset": fix.offset}))
            .collect();
        let mut repairs = json!({"fixes": fixes});
        if !outcome.doubts().is_empty() {
            let doubts = outcome.doubts().iter().map(doubt_value).collect();
            repairs["doubt"] = Value::Array(doubts);
        }
        return repaired(
            outcome.verdict(),
            outcome.text(),
            outcome.reason().map(str::to_owned),
            repairs,
            caps,
        );
    }
    let mut options = ToolOptions::default().tools(ToolMap::builtin());
    if let Some(schema) = schema {
        options = options.schema(schema);
    }
    if strict {
        options = options.mode(SchemaMode::Strict);
    }
    let normalized = normalize_tool_args_with(tool.as_deref().unwrap_or(""), &text, &options);
    let repairs = repairs_json(
        normalized.strategy().map(|s| s.number()),
        normalized.fixes(),
        normalized.doubts(),
    );
    repaired(
        normalized.verdict(),
        normalized.text(),
        normalized.reason().map(str::to_owned),
        repairs,
        caps,
    )
}

/// The text to repair: `text` (or `input`, `json`), a string; a value the
/// client already parsed is written back as JSON.
fn take_text(arguments: &mut JsonObject) -> Result<String, String> {
    for key in ["text", "input", "json"] {
        match arguments.remove(key) {
            Some(Value::String(text)) => return Ok(text),
            Some(Value::Null) | None => continue,
            Some(value) => return Ok(value.to_string()),
        }
    }
    Err("`repair` needs `text`: the JSON to mend, e.g. {\"text\": \"{name: 'Ada',}\"}".to_owned())
}

fn usage(problem: &str) -> CallToolResult {
    let message = format!(
        "`repair`: {problem}; it takes text, tool?, schema?, strict?; e.g. \
         {{\"text\": \"main.go\", \"tool\": \"read_file\"}}"
    );
    let mut answer = CallToolResult::error(vec![ContentBlock::text(message.clone())]);
    answer.structured_content = Some(json!({"verdict": "refused", "reason": message}));
    answer
}

/// The answer of `repair`: the mended text, or why there was none.
fn repaired(
    verdict: Verdict,
    text: &str,
    reason: Option<String>,
    repairs: Value,
    caps: Caps,
) -> CallToolResult {
    let mut structured = Map::new();
    structured.insert("verdict".to_owned(), Value::from(verdict.name()));
    if let Value::Object(repairs) = repairs {
        structured.extend(repairs);
    }
    if verdict == Verdict::NotJson {
        let reason = reason.unwrap_or_else(|| "no JSON found".to_owned());
        structured.insert("reason".to_owned(), Value::from(reason.clone()));
        let mut answer =
            CallToolResult::error(vec![ContentBlock::text(format!("not JSON: {reason}"))]);
        answer.structured_content = Some(Value::Object(structured));
        return answer;
    }
    // `--max-output` holds here as for every tool: the mended JSON is cut
    // short no more than an answer is, so a too-large one is refused, with
    // its size, rather than returned half.
    if text.len() > caps.max_output {
        let message = format!(
            "the mended JSON is {} bytes, over the server's --max-output of {} bytes: mend it \
             with `argmend repair FILE` instead",
            text.len(),
            caps.max_output
        );
        structured.insert("reason".to_owned(), Value::from(message.clone()));
        let mut answer = CallToolResult::error(vec![ContentBlock::text(message)]);
        answer.structured_content = Some(Value::Object(structured));
        return answer;
    }
    // The JSON is the text content; the structured content says how it was
    // mended, without a second copy of it.
    let mut answer = CallToolResult::success(vec![ContentBlock::text(text)]);
    answer.structured_content = Some(Value::Object(structured));
    answer
}
